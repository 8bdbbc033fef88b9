"""Malformed Kineto input: read_kineto either returns a valid Profile or raises TraceFormatError.

Never another exception (an IndexError from deep inside would reach the user's notebook as a crash
with no hint of which file or which event was wrong).
"""

from __future__ import annotations

import gzip
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_nb.errors import TraceFormatError
from cann_nb.ingest.kineto import read_kineto

SETTINGS = settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID = {
    "schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "GPU"}],
    "baseTimeNanoseconds": 1_700_000_000_000_000_000,
    "traceEvents": [
        {"name": "process_labels", "ph": "M", "ts": 10.0, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
        {"name": "thread_name", "ph": "M", "ts": 10.0, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 9, "ts": 10.5, "dur": 90.25,
         "args": {"External id": 1}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 9, "ts": 11.0, "dur": 20.125,
         "args": {"External id": 2, "Input Dims": [[8, 512], [512, 512]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 12.0, "dur": 4.0,
         "args": {"External id": 2, "correlation": 77}},
        {"ph": "s", "id": 77, "pid": 9, "tid": 9, "ts": 12.0, "cat": "ac2g", "name": "ac2g"},
        {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 30.0, "dur": 15.5,
         "args": {"External id": 2, "correlation": 77, "device": 0, "stream": 7}},
        {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 30.0, "cat": "ac2g", "name": "ac2g", "bp": "e"},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 50.0, "dur": 2.0,
         "args": {"correlation": 78, "device": 0, "stream": 7, "bytes": 4096}},
        {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 9, "tid": 9, "ts": 13.0,
         "args": {"Device Type": 1, "Device Id": 0, "Bytes": 4096, "Total Allocated": 4096, "Total Reserved": 8192,
                  "Addr": 140000000}},
        {"ph": "C", "name": "util", "pid": 9, "ts": 14.0, "args": {"value": 50}},
    ],
    "traceName": "fuzz",
}
VALID_TEXT = json.dumps(VALID).encode()

json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
                        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)), max_leaves=6)
KEYS = ["ph", "cat", "name", "pid", "tid", "ts", "dur", "id", "args", "bp", "s"]


def outcome(source) -> None:
    try:
        prof = read_kineto(source)
    except TraceFormatError as err:
        assert err.path and (err.where or err.expected or err.detail)
        return
    prof.validate()


def _dumps(doc) -> bytes:
    return json.dumps(doc, allow_nan=True).encode()


@SETTINGS
@given(cut=st.integers(0, len(VALID_TEXT)))
def test_truncated_json(cut):
    outcome(VALID_TEXT[:cut])


@SETTINGS
@given(data=st.data())
def test_corrupted_json_bytes(data):
    text = bytearray(VALID_TEXT)
    for _ in range(data.draw(st.integers(1, 4))):
        text[data.draw(st.integers(0, len(text) - 1))] = data.draw(st.integers(0, 255))
    outcome(bytes(text))


@SETTINGS
@given(data=st.data())
def test_corrupted_or_truncated_gzip(data):
    blob = bytearray(gzip.compress(VALID_TEXT))
    if data.draw(st.booleans()):
        blob = blob[: data.draw(st.integers(2, len(blob)))]
    else:
        blob[data.draw(st.integers(2, len(blob) - 1))] ^= data.draw(st.integers(1, 255))
    outcome(bytes(blob))


@SETTINGS
@given(index=st.integers(2, len(VALID["traceEvents"]) - 1), key=st.sampled_from(KEYS), value=json_value,
       as_dict=st.booleans())
def test_wrong_types_in_one_field(index, key, value, as_dict):
    doc = json.loads(VALID_TEXT)
    doc["traceEvents"][index][key] = value
    outcome(doc if as_dict else _dumps(doc))


@SETTINGS
@given(events=st.lists(st.dictionaries(st.sampled_from(KEYS), json_value, max_size=8), max_size=6),
       base=json_value, as_dict=st.booleans())
def test_random_events(events, base, as_dict):
    doc = {"traceEvents": events}
    if base is not None:
        doc["baseTimeNanoseconds"] = base
    outcome(doc if as_dict else _dumps(doc))


@SETTINGS
@given(doc=json_value)
def test_random_documents(doc):
    outcome(_dumps(doc))
    outcome(_dumps({"traceEvents": doc}))


@pytest.mark.parametrize("text", [b"", b"   ", b"null", b"[", b"{", b'{"traceEvents": [', b'{"traceEvents": [1,2]}',
                                  b'[{"ph": "X"}]', b'{"traceEvents": [{"ph": "X", "ts": NaN, "dur": 1}]}',
                                  b"\x1f\x8b", b"\x1f\x8b\x08\x00garbage", b"\xff\xfe{}"])
def test_degenerate_inputs(text):
    outcome(text)


def test_large_numbers_and_nan_are_located():
    doc = json.loads(VALID_TEXT)
    doc["traceEvents"][3]["ts"] = math.inf
    with pytest.raises(TraceFormatError) as err:
        read_kineto(doc)
    assert err.value.where == "traceEvents[3]"
