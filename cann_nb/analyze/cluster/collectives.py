"""The cross-rank half: collectives matched across ranks, clocks aligned, skew and comm wait, in DuckDB.

Each rank appends its collectives (``key, occurrence, start_ns, end_ns``) and its steps to two DuckDB
tables as it is summarised; everything across ranks is then one SQL pass, so no rank's events and no
Python loop over ranks is involved.

- Matching: the k-th call of a collective (same name, NCCL kernels without their argument list; HCCL
  names carry the op's id) on one rank meets the k-th call of it on every other rank. A call met on
  fewer than two ranks is left out.
- Clocks: a collective ends at (nearly) the same instant on every rank, whatever the arrivals, so a
  rank's clock offset is the median, over its collectives, of its end minus that collective's median
  end across ranks. Times below are shifted by it (ranks on one clock get ~0).
- Arrival = the aligned start; skew of one call = last arrival - first arrival; a rank's comm wait in
  it = the time from its arrival to the last rank's arrival, clipped to its time in the collective.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SCHEMA = {
    "coll": "rank INTEGER, key VARCHAR, occurrence BIGINT, start_ns BIGINT, end_ns BIGINT",
    "steps": "rank INTEGER, step BIGINT, start_ns BIGINT, end_ns BIGINT",
}


def connect():
    """An in-memory DuckDB database holding the two per-rank tables."""
    import duckdb

    con = duckdb.connect(":memory:")
    for table, cols in SCHEMA.items():
        con.execute(f"CREATE TABLE {table} ({cols})")
    return con


def append(con, table: str, rank: int, frame: pd.DataFrame, shift_ns: int) -> None:
    """Add one rank's rows, its times moved onto the group's time base (``shift_ns``)."""
    if not len(frame):
        return
    df = frame.copy()
    df.insert(0, "rank", np.int32(rank))
    df["start_ns"] = df["start_ns"].to_numpy(np.int64) + shift_ns
    df["end_ns"] = df["end_ns"].to_numpy(np.int64) + shift_ns
    con.append(table, df)


_MEET = """
CREATE OR REPLACE TEMP TABLE inst AS
    SELECT key, occurrence, median(end_ns) AS mid_end FROM coll GROUP BY key, occurrence HAVING count(*) >= 2;
CREATE OR REPLACE TEMP TABLE offs AS
    SELECT c.rank, CAST(round(median(c.end_ns - i.mid_end)) AS BIGINT) AS offset_ns
    FROM coll c JOIN inst i USING (key, occurrence) GROUP BY c.rank;
CREATE OR REPLACE TEMP TABLE arr AS
    SELECT c.rank, c.key, c.occurrence, c.start_ns - o.offset_ns AS a, c.end_ns - o.offset_ns AS f
    FROM coll c JOIN inst i USING (key, occurrence) JOIN offs o USING (rank);
CREATE OR REPLACE TEMP TABLE meet AS
    SELECT key, occurrence, max(a) AS last_a, min(a) AS first_a, arg_max(rank, a) AS last_rank,
           count(*) AS ranks
    FROM arr GROUP BY key, occurrence;
CREATE OR REPLACE TEMP TABLE waits AS
    SELECT x.rank, x.key, x.a, greatest(0, least(m.last_a - x.a, x.f - x.a)) AS wait_ns
    FROM arr x JOIN meet m USING (key, occurrence);
"""


def cross_rank(con) -> dict:
    """The cross-rank tables: ``offsets`` (rank, offset_ns), ``waits`` (rank, comm_wait_ns),
    ``collectives`` (name, count, skew_p50_ns, skew_max_ns, last_rank, ranks, wait_ns) and ``step_waits``
    (rank, step, dur_ns, comm_wait_ns)."""
    con.execute(_MEET)
    offsets = con.execute("SELECT rank, offset_ns FROM offs ORDER BY rank").df()
    waits = con.execute("SELECT rank, CAST(sum(wait_ns) AS BIGINT) AS comm_wait_ns FROM waits "
                        "GROUP BY rank ORDER BY rank").df()
    collectives = con.execute("""
        WITH w AS (SELECT key, sum(wait_ns) AS wait_ns FROM waits GROUP BY key)
        SELECT m.key AS name, count(*) AS count,
               CAST(round(median(m.last_a - m.first_a)) AS BIGINT) AS skew_p50_ns,
               max(m.last_a - m.first_a) AS skew_max_ns,
               mode(m.last_rank) AS last_rank, max(m.ranks) AS ranks, CAST(any_value(w.wait_ns) AS BIGINT) AS wait_ns
        FROM meet m JOIN w USING (key) GROUP BY m.key
        ORDER BY wait_ns DESC, name""").df()
    # each call's wait goes to the step its arrival falls in (steps shifted by the same clock offset)
    step_waits = con.execute("""
        WITH s AS (SELECT st.rank, st.step, st.start_ns - coalesce(o.offset_ns, 0) AS lo,
                          st.end_ns - coalesce(o.offset_ns, 0) AS hi
                   FROM steps st LEFT JOIN offs o USING (rank))
        SELECT s.rank, s.step, s.hi - s.lo AS dur_ns, CAST(coalesce(sum(w.wait_ns), 0) AS BIGINT) AS comm_wait_ns
        FROM s LEFT JOIN waits w ON w.rank = s.rank AND w.a >= s.lo AND w.a < s.hi
        GROUP BY s.rank, s.step, s.lo, s.hi ORDER BY s.rank, s.step""").df()
    return {"offsets": offsets, "waits": waits, "collectives": collectives, "step_waits": step_waits}
