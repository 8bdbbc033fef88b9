import numpy as np
from scipy.fft import next_fast_len

N_TRACES = 10
TRACE_LEN = 103_000
TEMPLATE_LEN = 1_730


def load_traces():
    rng = np.random.default_rng(0)
    t = np.arange(TEMPLATE_LEN)
    template = np.sin(2 * np.pi * t / 90.0) * np.exp(-t / 400.0)
    traces = []
    for k in range(N_TRACES):
        trace = rng.normal(0.0, 1.0, TRACE_LEN).cumsum() * 0.01 + rng.normal(0.0, 0.5, TRACE_LEN)
        onset = 5_000 + 6_000 * k
        trace[onset:onset + TEMPLATE_LEN] += 3.0 * template
        traces.append(trace)
    return traces, template


def preprocess(trace):
    x = trace - np.convolve(trace, np.ones(1501) / 1501, mode="same")
    med = np.median(x)
    scale = np.percentile(np.abs(x - med), [50, 99])
    return np.clip((x - med) / scale[0], -8.0, 8.0), scale[1] / scale[0]


def fft_convolve(x, kernel):
    n = len(x) + len(kernel) - 1
    nfft = next_fast_len(n, real=True)
    return np.fft.irfft(np.fft.rfft(x, nfft) * np.fft.rfft(kernel, nfft), nfft)[:n]


def detect(traces, template):
    kernel = (template[::-1] - template.mean()) / np.linalg.norm(template)
    rows = []
    for trace in traces:
        x, spread = preprocess(trace)
        score = fft_convolve(x, kernel)[TEMPLATE_LEN - 1:]
        best = int(np.argmax(score))
        rows.append([best, score[best], spread])
    return np.array(rows)


def main():
    traces, template = load_traces()
    return detect(traces, template)


if __name__ == "__main__":
    result = main()
