"""Communication is what the collective libraries mark as theirs, never a word inside a compute kernel's name."""

import numpy as np
import pytest

from cann_nb.analyze import classify as C
from cann_nb.analyze.breakdown import device_breakdown
from cann_nb.ingest.comm_markers import is_device_comm_name

from .synth import Trace

# real kernel names (NCCL/RCCL from the shared Kineto samples; the compute ones from ROCm/CUDA traces)
COLLECTIVE_KERNELS = [
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
    "void ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)",
    "hcom_allReduce__586_0_1",
    "all-reduce.3",
    "all-gather-start",
]
COMPUTE_KERNELS = [
    "void at::native::(anonymous namespace)::type_specialized_broadcast_kernel_launcher<0>::apply<"
    "at::native::binary_internal::MulFunctor<c10::BFloat16>, std::array<char*, 3ul>, "
    "at::detail::Array<int, 3>>(long, at::native::binary_internal::MulFunctor<c10::BFloat16>, "
    "std::array<char*, 3ul>, at::detail::Array<int, 3>, std::array<bool, 3ul>)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
    "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> >(int, "
    "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
    "at::detail::Array<char*, 3>)",
    "broadcast_add_kernel",
    "fused_allreduce_like_layernorm_kernel",
    "aten::broadcast_tensors",
]


@pytest.mark.parametrize("name", COLLECTIVE_KERNELS)
def test_collective_library_kernels_are_communication(name):
    assert is_device_comm_name(name)


@pytest.mark.parametrize("name", COMPUTE_KERNELS)
def test_a_word_in_a_compute_kernel_is_not_communication(name):
    assert not is_device_comm_name(name)


def _mixed_profile():
    tr = Trace()
    tr.kernel(COMPUTE_KERNELS[0], 0, 400_000)
    tr.kernel(COLLECTIVE_KERNELS[0], 500_000, 300_000)
    c10d = tr.op("c10d::allreduce_", 450_000, 40_000)
    tr.op("record_param_comms", 455_000, 20_000)
    tr.op("aten::broadcast_tensors", 0, 10_000)
    return tr.profile(wall_ns=1_000_000), c10d


def test_roles_and_breakdown_follow_the_markers():
    prof, c10d = _mixed_profile()
    role = C.roles(prof.events)
    names = prof.events["name"].astype(str).to_numpy()
    by_name = dict(zip(names, role))
    assert by_name[COMPUTE_KERNELS[0]] == C.R["compute"]
    assert by_name[COLLECTIVE_KERNELS[0]] == C.R["comm"]
    assert by_name["aten::broadcast_tensors"] == C.R["op"]
    # one collective call is one host span: the c10d op, not the bookkeeping nested in it
    assert by_name["c10d::allreduce_"] == C.R["host_comm"]
    assert by_name["record_param_comms"] == C.R["op"]
    bd = device_breakdown(prof).set_index("device").loc["cuda:0"]
    assert int(bd["compute_ns"]) == 400_000
    assert int(bd["communication_ns"]) == 300_000


def test_real_nccl_trace_keeps_its_collectives(real_data):
    from cann_nb.ingest.kineto import read_kineto

    prof = read_kineto(real_data / "hta/tests/data/nccl_parser_config/nccl_data.json.gz")
    ev = prof.events
    comm = ev[ev["cat"].astype(str) == "comm"]["name"].astype(str)
    assert len(comm) == 21 and comm.str.startswith("ncclKernel_").all()
    role = C.roles(ev)
    host_comm = ev[role == C.R["host_comm"]]
    assert set(host_comm["name"].astype(str)) == {"c10d::allreduce_", "c10d::broadcast_", "record_param_comms"}
    # record_param_comms only where torch.distributed called no c10d op around it (DDP's init broadcast)
    parents = ev.set_index("id")["name"].astype(str).reindex(host_comm["parent"]).fillna("").to_numpy()
    assert not any(p.startswith("c10d::") for p in parents)
    assert (role == C.R["comm"]).sum() == 21
    assert np.all(ev["name"].astype(str)[role == C.R["comm"]].str.startswith("ncclKernel_"))
