import numpy as np
import pandas as pd
import pytest

from cann_nb.errors import ProfileValidationError
from cann_nb.model import EVENT_COLUMNS, Profile, concat, conform


def small_profile():
    return Profile(events={"name": ["a", "b"], "cat": ["op", "kernel"], "start_ns": [0, 5], "dur_ns": [10, 3],
                           "device": ["cpu", "cuda:0"], "core_type": ["x", "y"]},
                   meta={"name": "p"})


def test_conform_fills_contract_columns_with_fixed_dtypes():
    p = small_profile().validate()
    assert list(p.events.columns[: len(EVENT_COLUMNS)]) == list(EVENT_COLUMNS)
    for col, dtype in EVENT_COLUMNS.items():
        assert str(p.events[col].dtype) == dtype, col
    assert p.events["parent"].tolist() == [-1, -1]            # identifiers: -1 = none
    assert p.events["flops"].isna().all()                     # measurements: NaN = unknown
    assert p.events["shapes"].isna().all()                    # text: NaN, never ""
    assert p.events["core_type"].tolist() == ["x", "y"]       # extra columns are kept


def test_missing_required_column_is_a_clear_error():
    with pytest.raises(ProfileValidationError, match="dur_ns"):
        Profile(events={"name": ["a"], "cat": ["op"], "start_ns": [1]})


def test_validate_rejects_broken_tables():
    p = small_profile()
    p.events.loc[0, "dur_ns"] = -1
    with pytest.raises(ProfileValidationError, match="negative"):
        p.validate()
    p = small_profile()
    p.events["parent"] = np.array([7, -1])
    with pytest.raises(ProfileValidationError, match="parent"):
        p.validate()
    p = Profile(events={"name": ["a"], "cat": ["bogus"], "start_ns": [0], "dur_ns": [1]})
    with pytest.raises(ProfileValidationError, match="vocabulary"):
        p.validate()


def test_int_columns_refuse_missing_values():
    with pytest.raises(ProfileValidationError, match="start_ns"):
        conform("events", {"name": ["a"], "cat": ["op"], "start_ns": [np.nan], "dur_ns": [1]})


def test_concat_keeps_categoricals_and_extra_columns():
    a = conform("events", {"name": ["x"], "cat": ["op"], "start_ns": [0], "dur_ns": [1], "stream": [3]})
    b = conform("events", {"name": ["y"], "cat": ["kernel"], "start_ns": [2], "dur_ns": [1], "id": [1]})
    out = concat("events", [a, b])
    assert str(out["name"].dtype) == "category"
    assert out["name"].tolist() == ["x", "y"]
    # an integer id a frame lacks is -1 (Kineto's "none"), not NaN: the column stays int64
    assert out["stream"].tolist() == [3, -1] and out["stream"].dtype == np.int64


def test_concat_keeps_value_signatures_exact():
    sig = np.int64(2 ** 62 + 1)   # beyond float64's 53-bit mantissa: a NaN fill would round it
    a = conform("events", {"name": ["x"], "cat": ["op"], "start_ns": [0], "dur_ns": [1], "value_sig": [sig],
                           "value_known": [True]})
    b = conform("events", {"name": ["y"], "cat": ["python"], "start_ns": [2], "dur_ns": [1], "id": [1]})
    out = concat("events", [a, b])
    assert out["value_sig"].tolist() == [sig, 0] and out["value_known"].tolist() == [True, False]


def test_wall_time_falls_back_to_event_extent():
    p = small_profile()
    assert p.wall_ns == 10
    p.meta["wall_ns"] = 123
    assert p.wall_ns == 123


def test_left_out_tells_a_full_buffer_from_what_an_import_skipped_on_purpose():
    from cann_nb.model import left_out

    assert left_out({"dropped": {"torch": 5}, "source": {"kind": "cell"}}) == ({"torch": 5}, {})
    assert left_out({"dropped": {}, "skipped": {"python_function": 9}}) == ({}, {"python_function": 9})
    # an import stored before "skipped" existed kept its skips under "dropped"
    assert left_out({"dropped": {"hccl_plane_tasks": 3}, "source": {"kind": "import"}}) == \
        ({}, {"hccl_plane_tasks": 3})
