"""copy_slices_backward on real CPU profiles (torch collector, default shapes): a rollout writing each state
in place into a preallocated trajectory tensor is found, its backward copying the whole trajectory per
write; the same rollout collecting the states in a list and stacking them once is not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from .test_torch_cpu import profile  # noqa: E402  (the same in-process torch profile)
from .test_work_order_rules import found  # noqa: E402

STEPS = 150
CELL = torch.nn.Linear(16, 16)


def rollout(in_place: bool):
    def fn():
        s = torch.randn(32, 16)
        if in_place:
            traj = torch.zeros(32, STEPS, 16)
            for t in range(STEPS):
                s = s + 0.1 * torch.tanh(CELL(s))
                traj[:, t] = s
        else:
            states = []
            for t in range(STEPS):
                s = s + 0.1 * torch.tanh(CELL(s))
                states.append(s)
            traj = torch.stack(states, dim=1)
        traj.square().mean().backward()
    return fn


def test_in_place_writes_into_a_tracked_tensor_are_found_and_a_stacked_list_is_not():
    torch.manual_seed(0)
    (f,) = found(profile(rollout(True)), "copy_slices_backward")
    assert f.category == "memory" and f.evidence["nodes"] == STEPS
    assert f.evidence["median_base_over_slice"] == pytest.approx(STEPS)
    assert 0 < f.est_gain_pct <= 100
    assert found(profile(rollout(False)), "copy_slices_backward") == []
