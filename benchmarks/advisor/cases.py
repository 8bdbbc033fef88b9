"""Planted-bottleneck pairs: a slow function and its fixed twin, doing the same work.

Each case says which finding categories count as "the planted problem found" (the rule ids that
can name it are listed for the report). ``setup()`` builds inputs once; ``slow(s)`` / ``fixed(s)``
run the work; both return a value so the twins can be checked to agree.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the numpy cases still run
    torch = None


@dataclass
class Case:
    name: str
    kind: str                       # "torch" (torch.profiler) or "numpy" (python tracer)
    setup: Callable
    slow: Callable
    fixed: Callable
    categories: tuple               # finding categories that name the planted problem
    note: str = ""
    check: bool = True              # compare the twins' results
    tol: float = 1e-4


CASES: list[Case] = []


def case(**kw):
    def deco(fn):
        spec = fn()
        CASES.append(Case(name=fn.__name__, **spec, **kw))
        return fn
    return deco


# 1. tiny-op loop: element by element instead of one vectorised op
@case(categories=("launch_overhead", "host_bound"), note="per-element torch ops in a Python loop")
def tiny_op_loop():
    def setup():
        g = torch.Generator().manual_seed(0)
        return {"x": torch.rand(3000, generator=g)}

    def slow(s):
        x = s["x"]
        out = torch.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = x[i] * 2.0 + 1.0
        return out

    def fixed(s):
        return s["x"] * 2.0 + 1.0
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 2. batch-1 loop: a small MLP applied sample by sample
@case(categories=("launch_overhead", "host_bound", "utilization"), note="model called per sample (batch 1)")
def batch1_loop():
    def setup():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64)).eval()
        return {"model": model, "x": torch.randn(512, 128)}

    def slow(s):
        with torch.no_grad():
            return torch.cat([s["model"](s["x"][i:i + 1]) for i in range(s["x"].shape[0])])

    def fixed(s):
        with torch.no_grad():
            return s["model"](s["x"])
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 3. float64 where float32 is enough
@case(categories=("precision",), note="matmuls and activations in float64", tol=1e-3)
def float64_compute():
    def setup():
        g = torch.Generator().manual_seed(0)
        return {"a": torch.randn(384, 384, generator=g), "b": torch.randn(384, 384, generator=g)}

    def slow(s):
        a, b = s["a"].double(), s["b"].double()
        acc = torch.zeros(384, 384, dtype=torch.float64)
        for _ in range(12):
            acc = acc + torch.tanh(a @ b) * 0.5
        return acc.float()

    def fixed(s):
        a, b = s["a"], s["b"]
        acc = torch.zeros(384, 384)
        for _ in range(12):
            acc = acc + torch.tanh(a @ b) * 0.5
        return acc
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 4. transposes made contiguous before a reduction that does not need them
@case(categories=("layout",), note="x.t().contiguous() copies every iteration")
def transpose_contiguous():
    def setup():
        g = torch.Generator().manual_seed(0)
        return {"x": torch.randn(1024, 1024, generator=g), "w": torch.randn(1024, generator=g)}

    def slow(s):
        out = []
        for _ in range(20):
            xt = s["x"].t().contiguous()
            out.append(xt @ s["w"])
        return torch.stack(out)

    def fixed(s):
        out = []
        for _ in range(20):
            out.append(s["w"] @ s["x"])
        return torch.stack(out)
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 5. a fresh buffer every iteration instead of reusing one
@case(categories=("memory",), note="torch.zeros of a large buffer inside the loop")
def per_iteration_allocation():
    def setup():
        g = torch.Generator().manual_seed(0)
        return {"x": torch.randn(2_000_000, generator=g)}

    def slow(s):
        total = 0.0
        for i in range(40):
            buf = torch.zeros(2_000_000)
            buf.add_(s["x"]).mul_(0.5)
            total += float(buf[i])
        return torch.tensor(total)

    def fixed(s):
        total = 0.0
        buf = torch.empty(2_000_000)
        for i in range(40):
            torch.mul(s["x"], 0.5, out=buf)
            total += float(buf[i])
        return torch.tensor(total)
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 6. inputs built element by element in Python every step
@case(categories=("input_pipeline", "host_bound"), note="torch.tensor of a Python list comprehension per step",
      check=False)
def python_built_inputs():
    def setup():
        rng = random.Random(0)
        return {"rows": [[rng.random() for _ in range(64)] for _ in range(400)],
                "w": torch.randn(64, 32)}

    def slow(s):
        acc = torch.zeros(32)
        for _ in range(10):
            x = torch.tensor([[v * 2.0 for v in row] for row in s["rows"]])
            acc += (x @ s["w"]).sum(0)
        return acc

    def fixed(s):
        base = torch.tensor(s["rows"]) * 2.0
        acc = torch.zeros(32)
        for _ in range(10):
            acc += (base @ s["w"]).sum(0)
        return acc
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 7. constant work recomputed every iteration (hoistable)
@case(categories=("redundant",), note="inverse of a constant matrix recomputed per step", tol=1e-2)
def hoistable_constant():
    def setup():
        g = torch.Generator().manual_seed(0)
        a = torch.randn(256, 256, generator=g)
        return {"A": a @ a.t() + 256 * torch.eye(256), "x": torch.randn(64, 256, generator=g)}

    def slow(s):
        out = []
        for i in range(30):
            inv = torch.linalg.inv(s["A"])
            out.append((s["x"] * (i + 1)) @ inv)
        return torch.stack(out)

    def fixed(s):
        inv = torch.linalg.inv(s["A"])
        out = []
        for i in range(30):
            out.append((s["x"] * (i + 1)) @ inv)
        return torch.stack(out)
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 8. an unfused elementwise chain (hand-written tanh GELU)
@case(categories=("fusion",), note="0.5*x*(1+tanh(c*(x+0.044715x^3))) as 9 separate ops", tol=1e-4)
def unfused_elementwise():
    def setup():
        g = torch.Generator().manual_seed(0)
        return {"x": torch.randn(1_000_000, generator=g)}

    def slow(s):
        x = s["x"]
        for _ in range(10):
            y = 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * torch.pow(x, 3))))
        return y

    def fixed(s):
        for _ in range(10):
            y = F.gelu(s["x"], approximate="tanh")
        return y
    return dict(kind="torch", setup=setup, slow=slow, fixed=fixed)


# 9. numpy: a Python loop over elements instead of a vectorised call
@case(categories=("host_bound", "launch_overhead"), note="numpy element loop (python tracer)")
def numpy_element_loop():
    def setup():
        rng = np.random.default_rng(0)
        return {"a": rng.random(20000), "b": rng.random(20000)}

    def slow(s):
        a, b = s["a"], s["b"]
        tot = 0.0
        for i in range(a.shape[0]):
            tot += math.sqrt(a[i] * b[i])
        return np.array(tot)

    def fixed(s):
        return np.array(np.sqrt(s["a"] * s["b"]).sum())
    return dict(kind="numpy", setup=setup, slow=slow, fixed=fixed, )


# 10. numpy: float64 arrays where float32 suffices
@case(categories=("precision",), note="numpy float64 matmul chain (python tracer)", tol=1e-2)
def numpy_float64():
    def setup():
        rng = np.random.default_rng(0)
        return {"a": rng.standard_normal((400, 400)), "b": rng.standard_normal((400, 400))}

    def slow(s):
        a, b = s["a"], s["b"]
        acc = np.zeros((400, 400))
        for _ in range(10):
            acc = acc + np.tanh(a @ b) * 0.5
        return acc

    def fixed(s):
        a, b = s["a"].astype(np.float32), s["b"].astype(np.float32)
        acc = np.zeros((400, 400), dtype=np.float32)
        for _ in range(10):
            acc = acc + np.tanh(a @ b) * 0.5
        return acc
    return dict(kind="numpy", setup=setup, slow=slow, fixed=fixed)


# 11. numpy: a fresh large buffer every iteration
@case(categories=("memory",), note="np.zeros of a large buffer inside the loop (python tracer)")
def numpy_alloc_churn():
    def setup():
        rng = np.random.default_rng(0)
        return {"x": rng.random(2_000_000)}

    def slow(s):
        total = 0.0
        for i in range(30):
            buf = np.zeros(2_000_000)
            np.add(buf, s["x"], out=buf)
            buf *= 0.5
            total += float(buf[i])
        return np.array(total)

    def fixed(s):
        total = 0.0
        buf = np.empty(2_000_000)
        for i in range(30):
            np.multiply(s["x"], 0.5, out=buf)
            total += float(buf[i])
        return np.array(total)
    return dict(kind="numpy", setup=setup, slow=slow, fixed=fixed)
