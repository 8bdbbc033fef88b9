"""Value numbering (collect/torch_values.py) on real torch.profiler runs: calls on the same values share a
signature, calls on different values (new data, rows of a tensor, shifted copies, updated weights,
random draws, Python data) never do, and results written in place afterwards get none."""

from __future__ import annotations

import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cann_nb.collect.base import CollectOptions  # noqa: E402
from cann_nb.collect.torch_collector import TorchCollector  # noqa: E402


def collect(fn, **options):
    TorchCollector.warm_up()
    col = TorchCollector(CollectOptions(**options), time.time_ns())
    col.start()
    fn()
    col.stop()
    got = col.result()
    col.close()
    return got


def repeats(got) -> dict:
    """name -> the largest number of calls of that op sharing one signature."""
    ev = got.events
    ev = ev[ev["value_sig"].to_numpy() != 0]
    g = ev.groupby(["value_sig"], observed=True).agg(name=("name", "first"), n=("name", "size"))
    return g.groupby("name", observed=True)["n"].max().astype(int).to_dict()


def test_the_same_work_on_the_same_values_shares_a_signature():
    torch.manual_seed(0)
    catalogue, w = torch.randn(300, 64), torch.randn(64, 32)
    queries = torch.randn(7, 64)

    def search():
        for q in queries:                     # the catalogue encoded again for every query
            emb = torch.tanh(catalogue @ w)
            (emb @ (q @ w)).argmax()

    got = collect(search)
    assert got.meta["value_numbering"]["status"] == "complete"
    rep = repeats(got)
    assert rep["aten::matmul"] == 7 and rep["aten::tanh"] == 7
    assert rep["aten::argmax"] == 1           # depends on the query: a new value each time


def test_a_table_built_from_arange_is_a_constant_every_time():
    # arange, linspace, nonzero... fill an empty [0] buffer that their out= overload resizes: that buffer
    # holds nothing, so the table is the same value on every call, and a different range is not
    def tables(n):
        for _ in range(4):
            t = torch.arange(n).float()
            torch.cos(torch.outer(t, torch.linspace(0, 1, 16)))

    got = collect(lambda: (tables(256), tables(300)))
    rep = repeats(got)
    assert rep["aten::cos"] == 4 and rep["aten::outer"] == 4 and rep["aten::arange"] == 4
    kinds = got.events.loc[got.events["name"].astype(str) == "aten::cos", "value_kind"]
    assert (kinds == 1).all()   # from literals alone (model.VALUE_CONSTANT)


def test_different_values_never_share_one():
    torch.manual_seed(0)
    x = torch.randn(32, 32)
    cube = torch.randn(6, 32, 32)
    a = np.ones((32, 32), np.float32)
    buf = torch.zeros(32, 32)

    def varied():
        for i in range(6):
            torch.mm(cube[i], x, out=buf)     # an out= buffer (the event tree names no overload)
            torch.sigmoid(buf)
            torch.tanh(x[i] * 2)              # rows: one storage at six offsets
            torch.exp(cube[i].t() @ x)        # views of those views keep the row's offset
            torch.sin(cube[i].reshape(-1))
            torch.tanh(torch.roll(x, i))      # int lists (the shifts) from the trace's Concrete Inputs
            torch.tanh(torch.randn(32, 32))   # random draws
            a[0, 0] = i                       # numpy changes the array; torch cannot see it
            torch.tanh(torch.from_numpy(a))   # Python data: lift_fresh makes it fresh

    rep = repeats(collect(varied))
    assert all(rep.get(op, 1) == 1 for op in ("aten::tanh", "aten::mul", "aten::exp", "aten::matmul", "aten::sin",
                                           "aten::sigmoid")), rep


def test_a_whole_tensor_beside_its_slices_keeps_its_value():
    # batches are slices of one label tensor (one storage at many offsets), and the whole tensor is read
    # again every step (class weights from all labels): the slices stay apart, the whole repeats; both
    # for a tensor from before the profile and for one made inside it
    torch.manual_seed(0)
    before = torch.randint(0, 5, (4096,))
    batches = [before[i * 256:(i + 1) * 256] for i in range(6)]

    def steps(labels, parts):
        for y in parts:
            torch.bincount(labels, minlength=5)
            torch.bincount(y, minlength=5).float().sum()

    def inside():
        labels = torch.randint(0, 5, (4096,))
        steps(labels, [labels[i * 256:(i + 1) * 256] for i in range(6)])

    for run in (lambda: steps(before, batches), inside):
        got = collect(run)
        ev = got.events[got.events["name"].astype(str) == "aten::bincount"]
        sigs = ev["value_sig"].to_numpy()
        whole, parts = sigs[0::2], sigs[1::2]
        assert len(set(whole)) == 1 and whole[0] != 0
        assert len(set(parts)) == 6 and 0 not in parts


def test_a_row_read_by_every_layer_repeats_within_its_step_only():
    # xyz = clouds[i] is one of 5 rows of a storage (its offset is not recorded): every layer's cdist of it
    # is the same work, the next step's row is another; q, k and v of one projection stay apart
    torch.manual_seed(0)
    clouds = torch.randn(5, 64, 3)
    w = torch.randn(3, 9)

    def layers():
        for i in range(5):
            xyz = clouds[i]
            for _ in range(3):
                torch.cdist(xyz, xyz)
            q, k, v = (xyz @ w).chunk(3, dim=1)
            torch.tanh(q), torch.tanh(k), torch.tanh(v)

    got = collect(layers)
    ev = got.events[got.events["name"].astype(str) == "aten::cdist"]
    sigs = ev["value_sig"].to_numpy().reshape(5, 3)
    assert (sigs != 0).all() and (sigs == sigs[:, :1]).all() and len(set(sigs[:, 0])) == 5
    assert repeats(got)["aten::tanh"] == 1

    data = torch.randn(2000, 4)

    def batches():   # x[idx]: torch records no list of indices, so batches of one permutation stay apart
        for idx in torch.randperm(2000).split(500):
            data[idx].sum()

    assert repeats(collect(batches)).get("aten::index", 1) == 1


def test_a_fixed_input_repeats_through_a_cnn_and_an_optimised_one_never_does():
    # a conv's output first holds its bias (copy_), then its kernel's result (no op recorded): it holds what
    # the conv computed; its output resized in place keeps its values; what the allocator frees meanwhile
    # (the last step's tensors) is no part of the work
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.Conv2d(8, 16, 3, padding=1, stride=2), torch.nn.ReLU(),
                              torch.nn.Conv2d(16, 16, 3, padding=1))
    for p in net.parameters():
        p.requires_grad_(False)
    fixed = torch.rand(1, 3, 32, 32)
    img = torch.rand(1, 3, 32, 32, requires_grad=True)
    opt = torch.optim.Adam([img], lr=0.02)

    def steps():
        for _ in range(4):
            target = net(fixed)                # the same every step
            loss = ((net(img) - target) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    got = collect(steps)
    ev = got.events[(got.events["name"].astype(str) == "aten::conv2d") & (got.events["depth"] == 0)]
    sigs = ev["value_sig"].to_numpy().reshape(4, 2, 3)   # step, (fixed, img), layer
    for layer in range(3):
        assert len(set(sigs[:, 0, layer])) == 1 and sigs[0, 0, layer] != 0
        assert len(set(sigs[:, 1, layer])) == 4


def test_training_updates_the_weights_so_nothing_repeats():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 16), torch.randn(8, 4)

    def train():
        for _ in range(5):                    # the same batch: the weights change between steps
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()

    rep = repeats(collect(train))
    compute = {k: v for k, v in rep.items() if k in ("aten::linear", "aten::addmm", "aten::relu", "aten::mm")}
    assert compute and all(v == 1 for v in compute.values()), rep


def test_a_result_written_afterwards_gets_no_signature():
    torch.manual_seed(0)
    v = torch.randn(64)

    def fill():
        for i in range(5):
            buf = torch.zeros(64)             # made afresh and then written: reusing it would need a copy
            buf[i] = 1.0
            (buf * v).sum()

    got = collect(fill)
    ev = got.events
    zeros = ev[ev["name"].astype(str) == "aten::zeros"]
    assert len(zeros) == 5 and (zeros["value_sig"].to_numpy() == 0).all()


def test_without_shapes_or_memory_there_are_no_signatures():
    x = torch.randn(16, 16)
    got = collect(lambda: [torch.tanh(x) for _ in range(3)], shapes=False)
    assert "value_numbering" not in got.meta
    assert "value_sig" not in got.events or (got.events["value_sig"].to_numpy() == 0).all()


def test_python_numbers_leave_the_values_unknown():
    torch.manual_seed(0)
    x = torch.randn(16, 16)

    def scaled():
        for _ in range(3):
            torch.tanh(x * 0.5)   # torch records the wrapped 0.5 as a tensor without its value
        for _ in range(3):
            torch.sin(x)

    ev = collect(scaled).events
    known = {n: set(ev.loc[ev["name"].astype(str) == n, "value_known"]) for n in ("aten::mul", "aten::tanh",
                                                                                   "aten::sin")}
    assert known == {"aten::mul": {False}, "aten::tanh": {False}, "aten::sin": {True}}
    assert repeats(collect(scaled)).get("aten::sin") == 3


def test_a_float_literal_repeats_with_its_line_and_an_int_may_be_a_loop_index():
    torch.manual_seed(0)
    x = torch.randn(16, 16)

    def lines():
        for _ in range(4):
            torch.tanh(2.0 * x)   # a literal coefficient: the same work on the same tensor every pass
        for i in range(4):
            torch.sin(x * i)      # an int may be the loop's index: different work every pass

    got = collect(lines)
    rep = repeats(got)
    assert rep["aten::tanh"] == 4
    assert rep["aten::sin"] == 1
    ev = got.events
    assert set(ev.loc[ev["name"].astype(str) == "aten::tanh", "value_known"]) == {False}   # still assumed


def test_a_compiled_region_forgets_what_its_kernels_may_have_written():
    buf, x = torch.zeros(64, 64), torch.randn(64, 64)

    @torch.compile
    def bump(b, v):
        b.add_(v * 2)   # in a generated kernel torch records no op for

    try:
        bump(buf, x)
    except Exception as e:   # no C++ compiler for inductor here
        pytest.skip(f"torch.compile unavailable: {type(e).__name__}: {e}")

    def loop():
        for _ in range(4):
            bump(buf, x)
            torch.tanh(buf @ x)

    rep = repeats(collect(loop))
    assert rep.get("aten::matmul", 1) == 1 and rep.get("aten::tanh", 1) == 1, rep
