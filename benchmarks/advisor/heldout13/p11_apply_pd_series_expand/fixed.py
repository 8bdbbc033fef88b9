"""API request-log analysis: each log record carries a parsed JSON payload (a dict of latency, bytes,
status code and retry count); the payload fields are expanded into columns and summarised per endpoint
and hour (p95 latency, error rate, traffic)."""
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_RECORDS = 1_800
ENDPOINTS = np.array(["/search", "/item", "/cart", "/checkout", "/login", "/recommend"])

start = np.datetime64("2024-03-01T00:00:00")
stamps = start + np.sort(rng.integers(0, 7 * 24 * 3600, N_RECORDS)).astype("timedelta64[s]")
log = pd.DataFrame({
    "ts": np.datetime_as_string(stamps, unit="s"),
    "endpoint": ENDPOINTS[rng.integers(0, len(ENDPOINTS), N_RECORDS)],
})
lat = rng.lognormal(3.0, 0.6, N_RECORDS)
size = rng.integers(200, 50_000, N_RECORDS)
status = np.where(rng.random(N_RECORDS) < 0.03, 500, 200)
retries = rng.poisson(0.2, N_RECORDS)
log["payload"] = [
    {"latency_ms": float(lat[i]), "bytes": int(size[i]), "status": int(status[i]), "retries": int(retries[i])}
    for i in range(N_RECORDS)
]


def expand(df):
    fields = pd.DataFrame(df["payload"].tolist(), index=df.index)
    return pd.concat([df.drop(columns="payload"), fields], axis=1)


def hourly_report(df):
    df = df.assign(ts=pd.to_datetime(df["ts"], format="%Y-%m-%dT%H:%M:%S"))
    df["hour"] = df["ts"].dt.floor("h")
    df["error"] = df["status"] >= 500
    g = df.groupby(["endpoint", "hour"])
    rep = g.agg(p95=("latency_ms", lambda s: np.percentile(s, 95)), err=("error", "mean"),
                mb=("bytes", "sum"), retries=("retries", "sum"))
    return rep.sort_index().to_numpy(dtype=float)


def main():
    return hourly_report(expand(log))


if __name__ == "__main__":
    result = main()
