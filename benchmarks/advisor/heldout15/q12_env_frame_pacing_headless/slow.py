"""Headless policy-evaluation rollouts of a custom pure-Python physics environment (particles in a box). Planted:
step() paces itself to the display frame rate (sleeps until 1/60 s has passed since the last frame) even
with render_mode=None, so much of the run is spent asleep. Modelled on a GitHub issue ("custom env capped
at 60 steps per second with render_mode=None")."""
PLANTED = ("idle",)
TOL = 1e-6
import math
import random
import time


class ParticleBoxEnv:
    metadata = {"render_fps": 60}

    def __init__(self, n_particles=210, render_mode=None, seed=0):
        self.n = n_particles
        self.render_mode = render_mode
        self.rng = random.Random(seed)
        self._last_frame = None

    def reset(self):
        r = self.rng
        self.pos = [[r.uniform(0.1, 0.9), r.uniform(0.1, 0.9)] for _ in range(self.n)]
        self.vel = [[0.0, 0.0] for _ in range(self.n)]
        self._last_frame = time.perf_counter()
        return self._observe()

    def _observe(self):
        cx = sum(p[0] for p in self.pos) / self.n
        cy = sum(p[1] for p in self.pos) / self.n
        return cx, cy

    def _physics(self, push, dt=0.002, radius=0.05, k=40.0):
        pos, vel, n = self.pos, self.vel, self.n
        force = [[push[0], push[1] - 0.5] for _ in range(n)]
        for i in range(n):
            xi, yi = pos[i]
            fi = force[i]
            for j in range(i + 1, n):
                dx = xi - pos[j][0]
                dy = yi - pos[j][1]
                d2 = dx * dx + dy * dy
                if d2 < radius * radius:
                    d = math.sqrt(d2) + 1e-9
                    f = k * (radius - d) / d
                    fi[0] += f * dx
                    fi[1] += f * dy
                    force[j][0] -= f * dx
                    force[j][1] -= f * dy
        for p, v, f in zip(pos, vel, force):
            v[0] = 0.999 * v[0] + dt * f[0]
            v[1] = 0.999 * v[1] + dt * f[1]
            p[0] += dt * v[0]
            p[1] += dt * v[1]
            for a in (0, 1):
                if p[a] < 0.0 or p[a] > 1.0:
                    p[a] = min(max(p[a], 0.0), 1.0)
                    v[a] = -0.5 * v[a]

    def step(self, action):
        for _ in range(4):  # physics substeps per environment step
            self._physics(action)
        obs = self._observe()
        reward = -abs(obs[0] - 0.5) - abs(obs[1] - 0.3)
        # keep the simulation at the display frame rate
        frame = 1.0 / self.metadata["render_fps"]
        wait = frame - (time.perf_counter() - self._last_frame)
        if wait > 0:
            time.sleep(wait)
        self._last_frame = time.perf_counter()
        return obs, reward


def policy(obs):
    return (0.5 - obs[0]) * 2.0, (0.3 - obs[1]) * 2.0


def main():
    env = ParticleBoxEnv(render_mode=None)
    returns = []
    for episode in range(3):
        obs = env.reset()
        total = 0.0
        for t in range(20):
            obs, reward = env.step(policy(obs))
            total += reward
        returns.append(total)
    return returns + [p for xy in env.pos for p in xy]


if __name__ == "__main__":
    result = main()
