"""dataloader (analyze/rules/host.py): loading on the main thread saves, in workers, what the cores the loop's
threads leave free allow: the loop then takes the longer of its other work and the loading shared among them."""

from cann_nb.analyze import findings

from .synth import Trace

MS = 1_000_000


def _epoch(cores: int, threads: int = 1):
    """Ten steps: 6 ms fetching a batch on the main thread, then 4 ms of compute."""
    t = Trace()
    s = 0
    for _ in range(10):
        t.add("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "python", s, 6 * MS)
        t.op("aten::addmm", s + 6 * MS, 4 * MS)
        s += 10 * MS
    return t.profile(environment={"cpu_count": cores, "torch": {"num_threads": threads}})


def _gain(prof) -> float:
    (f,) = [f for f in findings(prof) if f.rule == "dataloader"]
    assert f.category == "input_pipeline" and "60% of end-to-end" in f.title
    return f.est_gain_pct


def test_loading_moved_to_workers_saves_what_the_free_cores_allow():
    # one free core: one worker loads 60 ms while the loop computes 40 ms: the run takes 60 ms, not 40
    assert abs(_gain(_epoch(cores=2)) - 40.0) < 1.0
    # seven free cores: the loading (60 / 7 ms) hides behind the compute: all of it saved
    assert abs(_gain(_epoch(cores=8)) - 60.0) < 1.0
    # the loop's threads take every core: still one worker, time-shared
    assert abs(_gain(_epoch(cores=4, threads=4)) - 40.0) < 1.0
