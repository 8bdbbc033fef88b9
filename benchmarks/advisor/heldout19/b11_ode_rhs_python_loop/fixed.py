import numpy as np

rng = np.random.default_rng(0)
M, DT, STEPS = 60, 0.02, 2500
growth = 0.5 + rng.random(M)
D = 0.05
y0 = 0.05 + 0.1 * rng.random(M)


def rhs(t, y):
    season = 1.0 + 0.8 * np.sin(t)
    padded = np.concatenate([y[:1], y, y[-1:]])
    left, right = padded[:-2], padded[2:]
    return growth * season * y * (1.0 - y) + D * (left - 2.0 * y + right)


def rk4(f, y, t, dt, steps):
    out = [y]
    for _ in range(steps):
        k1 = f(t, y)
        k2 = f(t + dt / 2, y + dt / 2 * k1)
        k3 = f(t + dt / 2, y + dt / 2 * k2)
        k4 = f(t + dt, y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
        out.append(y)
    return np.array(out)


def main():
    return rk4(rhs, y0, 0.0, DT, STEPS)[::100]


if __name__ == "__main__":
    result = main()
