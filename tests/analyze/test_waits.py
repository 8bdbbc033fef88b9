"""sleep_polling: the main thread sleeping while its process is idle (polling a future with sleep), read
from real runs of the Python tracer and the host sampler through ``cann-nb run``; a sleep during which a
worker keeps the process busy is not idle."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import cann_nb
from cann_nb.analyze import findings

POLL = """
    import time
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    def work(seed):
        a = np.random.default_rng(seed).random((200, 200))
        return float(np.linalg.eigvalsh(a + a.T).max())

    def main():
        out = []
        with ThreadPoolExecutor(max_workers=1) as pool:
            for i in range(12):
                fut = pool.submit(work, i)
                while not fut.done():
                    time.sleep(0.03)
                out.append(fut.result())
        return out

    result = main()
"""

BUSY_WORKER = """
    import threading
    import time

    def spin(stop):
        x = 0
        while not stop.is_set():
            x += 1

    def main():
        stop = threading.Event()
        t = threading.Thread(target=spin, args=(stop,))
        t.start()
        for _ in range(10):
            time.sleep(0.03)
        stop.set()
        t.join()

    result = main()
"""

BACKOFF = """
    import math
    import time

    def parse(k):
        return sum(math.sqrt(i + k) for i in range(4_000))

    def main():
        total = 0.0
        for k in range(24):
            total += parse(k)    # a few ms of Python, many times that under the tracer
            time.sleep(0.008)    # a back-off far shorter than the host sampler's 50 ms interval
        return total

    result = main()
"""


def profile(tmp_path, src, name):
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(src))
    out = tmp_path / "store"
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "cann_nb", "run", str(script), "--output", str(out), "--quiet"],
                   check=True, cwd=tmp_path, timeout=300, env=env)
    return cann_nb.load(str(out / name))


def rule(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == "sleep_polling"]


def test_polling_a_future_with_sleep_is_idle_time(tmp_path):
    prof = profile(tmp_path, POLL, "poll")
    (f,) = rule(prof)
    ev = f.evidence
    assert f.category == "idle" and f.ops == ("time.sleep",)
    assert ev["sleeps"] >= 6 and 0 <= ev["process_cpu_in_sleeps_ns"] < ev["sleep_ns"]
    assert ev["idle_in_sleeps_ns"] == ev["sleep_ns"] - ev["process_cpu_in_sleeps_ns"]
    # each job takes a few ms of a 30 ms sleep: most of the run is the process doing nothing
    assert 25 < f.est_gain_pct <= 100
    assert "fut.result()" in f.suggestion


def test_sleeping_while_a_worker_keeps_the_process_busy_is_not_idle(tmp_path):
    assert rule(profile(tmp_path, BUSY_WORKER, "busy")) == []


def test_short_sleeps_between_traced_work_are_idle(tmp_path):
    # each host sample's interval holds both the parsing (one core busy) and a sleep: the CPU is the main
    # thread's outside the sleeps, none of it inside; and the sleeps' share is of the run without the tracer,
    # whose cost makes the parsing look many times longer than it is
    prof = profile(tmp_path, BACKOFF, "backoff")
    (f,) = rule(prof)
    ev = f.evidence
    assert ev["sleeps"] == 24 and ev["idle_in_sleeps_ns"] > 0.8 * ev["sleep_ns"]
    assert f.est_gain_pct > 100 * 0.8 * ev["sleep_ns"] / prof.meta["wall_ns"]


DRAIN = """
    import queue
    {imports}

    def drain(q):
        items = []
        while True:
            try:
                items.append({get})
            except queue.Empty:
                return items

    def main():
        q = queue.Queue()
        total = 0
        for tick in range(30):
            for i in range(20):
                q.put(i)
            total += sum(drain(q))
        return total

    result = main()
"""

# a producer thread that takes a varying time per item: the consumer's waits end when the item comes
PRODUCER = """
    import queue
    import threading
    import time

    def produce(q):
        for i in range(30):
            time.sleep(0.002 + 0.002 * (i % 7))   # outside the process: the waits are idle, but woken
            q.put(i)
        q.put(None)

    def main():
        q = queue.Queue()
        t = threading.Thread(target=produce, args=(q,))
        t.start()
        got = []
        while (item := q.get(timeout=1.0)) is not None:
            got.append(item)
        t.join()
        return sum(got)

    result = main()
"""


def waits(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == "expired_waits"]


def test_draining_a_queue_with_a_timeout_waits_it_out_every_time(tmp_path):
    prof = profile(tmp_path, DRAIN.format(imports="", get="q.get(timeout=0.01)"), "drain")
    (f,) = waits(prof)
    ev = f.evidence
    assert f.category == "idle" and ev["waits"] == 30 and 9e6 < ev["median_wait_ns"] < 15e6
    assert ev["idle_in_waits_ns"] > 0.7 * ev["wait_ns"] and 25 < f.est_gain_pct <= 100
    assert "get_nowait" in f.suggestion
    assert waits(profile(tmp_path, DRAIN.format(imports="", get="q.get_nowait()"), "nowait")) == []


def test_waits_a_producer_ends_are_not_timeouts(tmp_path):
    assert waits(profile(tmp_path, PRODUCER, "producer")) == []


# asyncio: lookups awaited one by one, started together, or started together with varied latencies (each
# wait then wakes one callback, but many are in flight)
AWAITS = """
    import asyncio

    async def fetch(i, delay):
        await asyncio.sleep(delay)
        return i * i

    async def enrich(delays):
        {body}

    def main():
        delays = [0.005 if {fixed} else 0.002 + 0.001 * i for i in range(40)]
        return sum(asyncio.run(enrich(delays)))

    result = main()
"""
ONE_BY_ONE = "return [await fetch(i, d) for i, d in enumerate(delays)]"
TOGETHER = "return await asyncio.gather(*(fetch(i, d) for i, d in enumerate(delays)))"


def serial(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == "serial_awaits"]


def test_awaiting_one_operation_at_a_time_idles_the_event_loop(tmp_path):
    prof = profile(tmp_path, AWAITS.format(body=ONE_BY_ONE, fixed=True), "one_by_one")
    (f,) = serial(prof)
    ev = f.evidence
    assert f.category == "idle" and ev["waits"] >= 30 and 4e6 < ev["median_wait_ns"] < 9e6
    assert ev["callbacks_per_wait_median"] == 1 and ev["in_flight_per_wait_median"] == 1
    assert ev["idle_in_waits_ns"] > 0.7 * ev["wait_ns"] and 40 < f.est_gain_pct <= 100
    assert "gather" in f.suggestion


def test_operations_in_flight_together_are_not_serial(tmp_path):
    assert serial(profile(tmp_path, AWAITS.format(body=TOGETHER, fixed=True), "together")) == []
    # varied latencies: each wait wakes one sleep, but the others are in flight meanwhile
    assert serial(profile(tmp_path, AWAITS.format(body=TOGETHER, fixed=False), "staggered")) == []
