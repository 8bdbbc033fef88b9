"""An analysed profile is freed once nobody holds it: the analysis cache must not keep it alive
(issue 17: a WeakKeyDictionary whose value held the key leaked every analysed rank)."""

from __future__ import annotations

import gc
import weakref

import pytest

from cann_nb.analyze.api import analyze, overview
from cann_nb.analyze.context import context
from tests.analyze.synth import gpu_loop


def _analysed():
    p = gpu_loop(n_iter=5)[0].profile()
    analyze(p)
    overview(p)
    return weakref.ref(p), weakref.ref(context(p))


def test_an_analysed_profile_is_freed_with_its_context():
    profile, ctx = _analysed()
    gc.collect()
    assert profile() is None, "the analysis cache keeps the profile alive"
    assert ctx() is None, "the analysis context outlives its profile"


def test_the_context_is_still_cached_while_the_profile_lives():
    p = gpu_loop(n_iter=3)[0].profile()
    assert context(p) is context(p) and context(p).profile is p


def test_a_context_whose_profile_was_freed_says_so():
    p = gpu_loop(n_iter=3)[0].profile()
    ctx = context(p)
    del p
    gc.collect()
    with pytest.raises(ReferenceError, match="keep the Profile"):
        ctx.profile
