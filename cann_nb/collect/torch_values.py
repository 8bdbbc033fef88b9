"""Which torch ops ran again on values they already had: value numbering over torch.profiler's record of
every op's inputs (its event tree), the way a compiler finds common subexpressions.

An op called with inputs that hold the same values as an earlier call's computes the same result again (a
mask, a position table, a fixed catalogue's embeddings, a weight's transform inside the loop). torch records
each op's tensor inputs by storage (``allocation_id``), sizes, strides and dtype, its scalar arguments by
value, the trace's "Concrete Inputs" its int lists, and, with ``profile_memory``, the allocations made
inside it. It records neither outputs as such nor versions, so values are numbered here, in time order:

* a storage first met as an input (made before the profile: weights, data) is a value of its own;
* a call's signature is a hash of its name, its inputs' values, shapes and dtypes, its other arguments, and
  its children's signatures and allocation sizes;
* a storage allocated inside an op holds a value derived from that op's inputs and the allocation's rank
  (so ``mm``'s own ``resolve_conj`` on its result already sees it); one an ``empty``-like op made holds none until an
  op writes it (read before: unknown); when the aten op under which it was allocated ends, it holds a value derived
  from that op's signature (its kernel filled it, maybe after a child op wrote it: a conv's output first holds the
  bias, then the GEMM's result), and so does an empty ``[0]`` buffer an ``out=`` overload resizes (how ``arange``,
  ``linspace``, ``nonzero`` fill their result); the storages an op writes (``add_``, ``copy_``, ``out=`` buffers,
  batch norm's running statistics) get a new value derived from its signature; which arguments it writes comes from
  its schemas (``Tensor(a!)``), picked by the argument count, since torch 2.x's tree names no overload;
* a value no recorded op computed is fresh, never equal to another: random ops, ``lift_fresh`` (a tensor
  made from Python data: ``torch.tensor``, ``from_numpy``), the outputs and written inputs of ops outside
  aten (custom ops, collectives), buffers a compiled region fills, and a view of a storage seen at several
  offsets in that view's shape (an input's offset is not recorded; ``as_strided``'s Concrete Inputs, which
  every select/slice/expand comes down to, give each view's);
* a call whose result a later call writes in place gets no signature (reusing it would need a copy);
* after a region whose kernels torch records no op for (a ``torch.compile`` graph, a CUDA graph replay),
  which may have written any tensor, every value is forgotten.

The outermost aten op of each call gets its signature: the events' ``value_sig`` column (0 where unknown).
Cost: after the run, not inside it (some microseconds per op, at most ``MAX_OPS`` ops); torch must keep
its per-event results for the tree (no ``trace_only``), which the memory budget counts. What it cannot
see: memory changed outside torch's ops (numpy writing through ``tensor.numpy()``, a C extension) would
look unchanged.
"""

from __future__ import annotations

import itertools
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

import msgspec
import numpy as np
import pandas as pd

from ..model import VALUE_CONSTANT as CONSTANT, VALUE_DATA as DATA, VALUE_NEW as NEW

MAX_OPS = 300_000   # torch op events walked (children included); later calls get no signature

_RANDOM_OR_UNSET = re.compile(
    r"^aten::(rand|randn|randint|randperm|rand_like|randn_like|randint_like|normal|normal_|uniform_|bernoulli|"
    r"bernoulli_|multinomial|\w*dropout\w*|rrelu\w*|poisson|binomial|exponential_|geometric_|cauchy_|"
    r"log_normal_|random_|_standard_gamma|_sample_dirichlet|lift|lift_fresh|lift_fresh_copy|set_|resize_|"
    r"resize_as_)$")
# the argument that is the layer's weight (a tensor made from weights for it is a weight transform)
_WEIGHT_ARG = {"aten::linear": 1, "aten::conv1d": 1, "aten::conv2d": 1, "aten::conv3d": 1,
               "aten::convolution": 1, "aten::conv_transpose1d": 1, "aten::conv_transpose2d": 1,
               "aten::conv_transpose3d": 1, "aten::embedding": 0, "aten::embedding_bag": 0}
# a Python number torch wraps as a 0-dim tensor outside any op: at most a complex double
_NUMBER_BYTES = 16
_NUMBER = hash(("python number",))
_FLOAT_DTYPES = frozenset({"torch.float64", "torch.float32", "torch.complex128", "torch.complex64"})
# allocate without initialising: what they hand out holds no value until an op writes it (the internal
# pattern of most ops: an empty buffer, then a kernel, fill_ or copy_ into it)
_UNINITIALISED = frozenset(f"aten::{n}" for n in ("empty", "empty_like", "empty_strided", "new_empty",
                                                   "new_empty_strided", "empty_permuted"))
# hand back their input's storage with contents no recorded op made (Python data, a resized or reset buffer)
_FRESH_INPUTS = frozenset(f"aten::{n}" for n in ("lift", "lift_fresh", "lift_fresh_copy", "set_", "resize_",
                                                  "resize_as_"))
# regions whose kernels torch records no op for (they may write any tensor): torch.compile's compiled graphs,
# CUDA/HIP graph replays
_UNRECORDED_WRITES = re.compile(r"Torch-Compiled Region|CompiledFunction|CompiledFxGraph|cudaGraphLaunch|"
                                r"hipGraphLaunch")
# views that pick a place in a storage: a new one of a shape may sit at another offset than the last (the views
# a compute op makes of its inputs inside itself keep their place and are its own)
_PLACING_VIEWS = re.compile(r"^aten::(select|slice|narrow|unbind|split|split_with_sizes|unsafe_split|chunk|"
                            r"tensor_split|as_strided|diagonal|unfold)$")
# ops whose tensor-list argument (Tensor?[] indices) torch's event tree records as None
_UNRECORDED_LIST = {"aten::index": 1, "aten::index_put": 1, "aten::index_put_": 1, "aten::_index_put_impl_": 1}
# views: they read no values, only where their input lies (an empty buffer's transpose is its shape)
_SHAPE_ONLY = re.compile(r"^aten::(as_strided|transpose|t|permute|view|_reshape_alias|expand|unsqueeze|squeeze|"
                         r"select|slice|narrow|alias|diagonal|unfold)$")
# writes its inputs though its name has no trailing underscore (training-mode running statistics)
_HIDDEN_WRITERS = re.compile(r"^aten::(\w*batch_norm\w*|instance_norm)$")
@lru_cache(maxsize=4096)
def _view_args(concrete) -> tuple | None:
    """(sizes, strides, storage offset or None) from ``as_strided``'s Concrete Inputs text."""
    try:
        c = json.loads(concrete)
        offset = c[3] if len(c) > 3 else ""
        return tuple(json.loads(c[1])), tuple(json.loads(c[2])), (int(offset) if offset != "" else None)
    except (TypeError, ValueError, IndexError):
        return None


@lru_cache(maxsize=8192)
def _out_args(name: str, n_args: int) -> tuple:
    """The arguments an aten op called with ``n_args`` inputs may write, from its schemas (``Tensor(a!)``:
    an ``out=`` buffer, an in-place op's self): torch 2.x's event tree names no overload, so the argument
    count picks the schemas, and the union of theirs counts (a written tensor taken as read would invent a
    repeat; the other way round only hides one)."""
    import torch

    try:
        schemas = torch._C._jit_get_schemas_for_operator(name)
    except RuntimeError:   # not a registered operator
        return ()
    return tuple(sorted({i for sc in schemas if len(sc.arguments) == n_args
                         for i, a in enumerate(sc.arguments) if a.alias_info is not None and a.alias_info.is_write}))


def _holds_nothing(args, tensor_type) -> bool:
    """The op's first argument is a tensor with no elements."""
    return bool(args) and isinstance(args[0], tensor_type) and 0 in args[0].sizes


class _Budget(Exception):
    """MAX_OPS reached: the walk stops (the calls numbered so far keep their signatures)."""


NOT_WRITTEN, WRITES_SELF, WRITES_ALL = 0, 1, 2


def _writes(name: str, overload: str) -> int:
    """Which arguments an aten op writes: ``self`` of an in-place op (``add_``, ``__iadd__``); every tensor
    where that is less clear (``out=`` overloads, fused optimisers, batch norm's running statistics):
    calling an unwritten tensor written only hides a repeat, the other way round would invent one."""
    op = name.rpartition("::")[2]
    if "out" in overload or op.startswith(("_fused_", "_foreach_")) or _HIDDEN_WRITERS.match(name):
        return WRITES_ALL
    if (op.endswith("_") and not op.endswith("__")) or (op.startswith("__i") and op.endswith("__")):
        return WRITES_SELF
    return NOT_WRITTEN


@lru_cache(maxsize=8192)
def _op_info(name: str, overload: str) -> tuple:
    """(aten, writes, random, fresh_inputs, uninitialised, as_strided) of an op, once per name."""
    aten = name.startswith("aten::")
    writes = WRITES_ALL if name in _FRESH_INPUTS else _writes(name, overload) if aten else NOT_WRITTEN
    return (aten, writes, bool(_RANDOM_OR_UNSET.match(name)), name in _FRESH_INPUTS, name in _UNINITIALISED,
            name == "aten::as_strided")


class _Numbering:
    def __init__(self, concrete: dict):
        import torch

        self._op_type = torch._C._profiler._ExtraFields_TorchOp
        self._alloc_type = torch._C._profiler._ExtraFields_Allocation
        self._tensor_type = torch._C._profiler._TensorMetadata
        self.concrete = concrete                 # correlation id -> the trace's "Concrete Inputs" text
        self.value: dict[int, int] = {}          # allocation_id -> the value its storage holds now
        self.offsets: dict[tuple, set] = {}      # (allocation_id, sizes, strides) -> storage offsets seen
        self.ambiguous: set[int] = set()         # storages viewed at several offsets in one shape
        self.views_made: dict[tuple, int] = {}   # (allocation_id, sizes, strides) -> views placed in that shape
        self.placing = False                     # is the outermost op being walked a placing view?
        self.top_key = None                      # ... its arguments' hash (None: not all recorded)
        self.inner_reads = 0                     # ... tensors first met inside it so far
        self.view_values: dict[tuple, tuple] = {}   # (that key, tensor) -> (views made, storage value, value)
        self.view_reads: dict[tuple, int] = {}   # that key -> tensors of it read for the first time
        self.born: set[int] = set()              # storages allocated during the profile
        self.alloc_bytes: dict[int, int] = {}    # allocation_id -> bytes, of those
        self.impls: dict[tuple, int] = {}        # (allocation_id, sizes, strides) of older storages -> tensor
        self._fresh = itertools.count(1)
        self.ops = 0
        self.calls: list[list] = []              # [correlation id, signature, kind] of the outermost aten ops
        self.producer: dict[int, int] = {}       # allocation_id -> the call (index in calls) that made it
        self.current = -1                        # the outermost aten op being walked (index in calls)
        self.uninit: set[int] = set()            # storages an empty-like op made that no op has written yet
        self.allocs: list[int] = []              # storages allocated under the root being walked
        self.constant: set[int] = set()          # values computed from literals alone (no data)
        self.entered: set[int] = set()           # values new data brought in (random draws, Python data)
        self.reads_new = False                   # the arguments just read: new data among them?
        self.reads_data = False                  # ... anything but constants?
        self.doubtful: set[int] = set()          # values resting on contents torch did not record
        self.at_top = False                      # reading the arguments of an outermost aten op?
        self.generation = 0                      # how often every value was forgotten
        self.reads_doubtful = False              # ... among the arguments just read?
        self.made_from: list[list[int]] = []     # per call: the calls that made its tensor inputs
        self.weight_made: set[int] = set()       # calls that made a layer's weight operand

    def forget(self) -> None:
        """Kernels ran that torch recorded no op for (a compiled region, a CUDA graph replay): they may have
        written any tensor, so every value known so far is forgotten."""
        self.generation += 1
        self.value.clear()

    def fresh(self) -> int:
        return hash(("fresh", next(self._fresh)))

    # -- values of arguments --------------------------------------------------------------------------
    def arg(self, a, written: set):
        """An argument's part of the op's signature. An uninitialised storage counts by its shape where the
        op writes it (its old contents do not matter) and as unknown where the op reads it."""
        if isinstance(a, self._tensor_type):
            aid = a.allocation_id
            if 0 in a.sizes:   # holds no values (the [0] buffer an out= overload resizes and fills)
                return ("empty", tuple(a.sizes), tuple(a.strides), a.dtype)
            if aid in self.uninit and aid in written:
                return ("uninit", tuple(a.sizes), tuple(a.strides), a.dtype)
            v = self._value(a)
            if v == _NUMBER:
                return self._number(a)
            if v is None:
                # contents not known: new data where the storage is from before the profile (a row of a
                # dataset), not where an op made it here from values already counted (one of several parts
                # of a result, q/k/v of one projection; a buffer no op wrote)
                self.reads_new |= aid not in self.born
                self.reads_data = True
                return self.fresh()
            self.reads_doubtful |= v in self.doubtful
            if v in self.entered:   # its first reader brings it in
                self.entered.discard(v)
                self.reads_new = True
            self.reads_data |= v not in self.constant
            return (v, tuple(a.sizes), tuple(a.strides), a.dtype)
        if isinstance(a, list):
            return tuple(self.arg(x, written) for x in a)
        try:
            hash(a)
        except TypeError:
            return repr(a)
        return a

    def _number(self, a):
        """A Python number torch wrapped as a tensor, its value not recorded. A float is taken for a literal
        (``2.0 * t``, ``scale * w``, an epsilon: the same at every pass of the line, so the same work on the
        same tensors repeats); an int or bool may be a loop index (``x * i``), so it is unknown, new each time."""
        self.reads_doubtful = True
        if str(a.dtype) in _FLOAT_DTYPES:
            return ("number", a.dtype)
        self.reads_data = True
        return self.fresh()

    def _value(self, a) -> int | None:
        """The value a tensor argument holds, or None where it is not known (no storage, a row of a storage
        seen at several offsets, memory no op wrote). A storage from before the profile is new data the
        first time it is read (``entered`` until then)."""
        aid = a.allocation_id
        if aid is None or aid in self.uninit:
            self.reads_doubtful = True   # contents nobody recorded (a row of a storage is just another row)
            return None
        if self.at_top and aid not in self.born:   # from before the profile: its views' offsets never seen
            k = (aid, tuple(a.sizes), tuple(a.strides))
            if k not in self.offsets and self.impls.setdefault(k, a.impl_ptr) != a.impl_ptr:
                self.offsets[k] = {"a tensor", "another"}   # two tensors alike (x.split(n) before the run)
                self.ambiguous.add(aid)
        if aid in self.ambiguous:   # x[i] and x[j] would look alike: known only by a single offset
            k = (aid, tuple(a.sizes), tuple(a.strides))
            seen = self.offsets.get(k)
            # a tensor from before the profile, the only one of its shape on its storage (``labels`` whose
            # batches ``labels[i:i + n]`` are views of it): one tensor has one offset
            alone = seen is None and (k in self.impls if aid not in self.born else self._spans_all(a))
            if not alone and (seen is None or len(seen) > 1):
                return self._view_value(a, k)
        v = self.value.get(aid)
        if v is None:
            v = self.value[aid] = hash(("storage", aid, self.generation))
            self.entered.add(v)
        return v

    def _view_value(self, a, k: tuple) -> int | None:
        """A view whose offset is not known (``xyz = clouds[i]``, read by every layer; q, k and v of one
        projection): the same tensor read again, with no view of its shape made on its storage since and the
        storage not written, holds the values it held (a freed tensor's address may be reused, but only by a
        view made later). A tensor read for the first time since is a value of its own, derived from its
        storage's and new data where that is (a storage from before the profile, a random draw not yet read),
        and known by its place among them: the n-th such tensor read of a storage holding the same value is
        the same (q, k, v of each step's projection, read in the same order). Inside an op, another tensor
        is one the op made of its inputs, known by the op's own arguments and its place among them; unknown
        where torch did not record all the arguments (``x[idx]``: the list of indices is not recorded)."""
        ptr = getattr(a, "impl_ptr", None)
        if not ptr:
            return None
        aid = a.allocation_id
        made, storage = self.views_made.get(k, 0), self.value.get(aid)
        got = self.view_values.get((k, ptr))
        if got is not None and got[:3] == (made, storage, self.generation):
            return got[3]
        if not self.at_top:   # a tensor first met inside an op: one it made of its inputs, known by its place
            if self.top_key is None:   # among them, unless torch did not record all of the op's inputs
                return None
            self.inner_reads += 1
            return hash(("inner view", self.top_key, k[1:], self.inner_reads, self.generation))
        # known by its place among the tensors of its shape read from a storage holding that value: q, k and
        # v of the next step's projection (a new storage, the same values) are the same values again
        nth = self.view_reads.get(k, 0)
        self.view_reads[k] = nth + 1
        v = hash(("view", aid if storage is None else storage, k[1:], nth, made, self.generation))
        if aid not in self.born or storage in self.entered:
            self.entered.add(v)
        if storage is not None and storage in self.doubtful:
            self.doubtful.add(v)
        self.view_values[(k, ptr)] = (made, storage, self.generation, v)
        return v

    def _spans_all(self, a) -> bool:
        """A tensor whose elements reach over its whole allocation (``labels`` itself, beside its slices
        ``labels[i:i + n]``): its offset can only be 0."""
        if not a.sizes or 0 in a.sizes:
            return False
        extent = 1 + sum((n - 1) * abs(s) for n, s in zip(a.sizes, a.strides))
        return extent * a.dtype.itemsize == self.alloc_bytes.get(a.allocation_id, -1)

    def tensors(self, args) -> list[int]:
        """The storages (allocation ids) of the tensor arguments, tensor lists included."""
        out = []
        for a in args:
            if isinstance(a, self._tensor_type):
                if a.allocation_id is not None:
                    out.append(a.allocation_id)
            elif isinstance(a, list):
                out.extend(self.tensors(a))
        return out

    def note_view(self, args, concrete) -> None:
        """Where an ``as_strided`` (what select, slice, narrow, expand, transpose... come down to) puts its
        view: its sizes, strides and storage offset are its Concrete Inputs; no offset keeps the input's."""
        parsed = _view_args(concrete)
        if parsed is None or not args or not isinstance(args[0], self._tensor_type) or args[0].allocation_id is None:
            return
        src = args[0]
        sizes, strides, offset = parsed
        if offset is None:
            offset_set = self.offsets.get((src.allocation_id, tuple(src.sizes), tuple(src.strides)), {"base"})
        else:
            offset_set = {offset}
        seen = self.offsets.setdefault((src.allocation_id, sizes, strides), set())
        seen |= offset_set
        if self.placing:
            k = (src.allocation_id, sizes, strides)
            self.views_made[k] = self.views_made.get(k, 0) + 1
        if len(seen) > 1:
            self.ambiguous.add(src.allocation_id)

    def mark_weight_transforms(self) -> None:
        """Calls computing a layer's weight operand (``F.linear(x, w + s * B @ A)``, ``w * mask``, a weight
        norm), back through the calls that made their inputs, work on weights alone: a repeat of their
        signature means the weights did not change (inference), so, like work on literals, one call of
        each is needed wherever it runs. Training changes the weights every step: nothing repeats."""
        todo = list(self.weight_made)
        seen = set(todo)
        while todo:
            c = todo.pop()
            self.calls[c][2] = CONSTANT
            for m in self.made_from[c]:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)

    # -- the walk ---------------------------------------------------------------------------------------
    def _kids(self, node, owner: list, top: bool) -> tuple:
        """The children's contributions to the node's signature (frees contribute none)."""
        return tuple([k for k in (self.node(c, owner, top) for c in node.children) if k is not None])

    def node(self, node, owner: list, top: bool) -> object:
        """The node's contribution to its parent's signature; records the outermost aten ops. ``owner`` is
        [the value its allocations derive from, how many it made, whether it is empty-like, whether it is
        outside any op]: the innermost
        op's inputs, or a fresh value for random and opaque ops. An op's allocations still unwritten when it
        ends are its results (a kernel filled them): their value derives from its signature."""
        ef = node.extra_fields
        if isinstance(ef, self._alloc_type):
            aid, size = ef.allocation_id, int(ef.alloc_size)
            if aid is not None and size > 0:
                self.born.add(aid)
                self.alloc_bytes[aid] = size
                self.value[aid] = hash((owner[0], "out", owner[1]))
                owner[1] += 1
                self.allocs.append(aid)
                if owner[3]:   # outside any op: a Python number wrapped as a tensor (its value is not recorded)
                    if size <= _NUMBER_BYTES:   # a literal in the code, taken as equal to itself (``arg``)
                        self.value[aid] = _NUMBER
                    self.doubtful.add(self.value[aid])
                if owner[2]:
                    self.uninit.add(aid)
                else:
                    self.uninit.discard(aid)
                if self.current >= 0:
                    self.producer[aid] = self.current
            # a free says nothing of the op's work: the allocator may release an unrelated tensor while it runs
            return ("alloc", size) if size > 0 else None
        if not isinstance(ef, self._op_type):   # a Python call or user scope: see through
            kids = self._kids(node, owner, top)
            if _UNRECORDED_WRITES.search(node.name):
                self.forget()
            return kids
        self.ops += 1
        if self.ops > MAX_OPS:
            raise _Budget
        name, overload = node.name, node.overload_name
        aten, writes, random, python_data, uninitialised, as_strided = _op_info(name, overload)
        args = ef.inputs
        if python_data and name.startswith("aten::resize") and _holds_nothing(args, self._tensor_type):
            # an empty buffer grown for an op to fill (arange, linspace, nonzero... write through their out=
            # overload): like empty, it hands out storage that holds nothing until that op writes it
            random = python_data = False
            uninitialised = True
        elif python_data and name.startswith("aten::resize") and not any(
                isinstance(c.extra_fields, self._alloc_type) for c in node.children):
            # resized within its storage (a conv's output given its final shape): the values stay as they are
            random = python_data = False
            writes = NOT_WRITTEN
        concrete = self.concrete.get(node.correlation_id)
        out_args = _out_args(name, len(args)) if aten and writes != WRITES_ALL else ()
        tensors = self.tensors(args) if writes or not aten else ()
        opaque = not aten and bool(tensors)   # a custom op or collective
        written = tensors if opaque or writes == WRITES_ALL else self.tensors(args[:1]) if writes else ()
        if out_args:   # (an in-place op's self is in both: written once)
            written = list(dict.fromkeys([*written, *self.tensors([args[i] for i in out_args])]))
        wrote = set(written)
        if _SHAPE_ONLY.match(name):   # a view of an unwritten buffer reads nothing: known by its shape
            wrote |= {aid for aid in self.tensors(args[:1]) if aid in self.uninit}
        self.reads_new = self.reads_data = self.reads_doubtful = False
        # (two tensors alike told apart by their TensorImpl only in the user's calls: ops alias inside)
        self.at_top = aten and top
        # read before the op changes anything
        parts = tuple([self.arg(a, wrote) for a in args])
        key = (name, overload, parts, concrete)
        unknown = opaque or random
        kind = NEW if unknown or self.reads_new else DATA if self.reads_data else CONSTANT
        doubtful = self.reads_doubtful or opaque or python_data
        here = [self.fresh() if unknown else hash(key), 0, uninitialised, False]
        mark = len(self.allocs)
        outermost = aten and top
        if outermost:
            self.current = len(self.calls)
            self.placing = bool(_PLACING_VIEWS.match(name))
            at = _UNRECORDED_LIST.get(name)
            self.top_key = None if at is not None and (len(args) <= at or args[at] is None) else hash(key)
            self.inner_reads = 0
            # the op on its first tensor's value, whatever its other arguments (x == k for many keys k)
            first = parts[0] if parts and isinstance(args[0], self._tensor_type) else None
            operand = hash((name, first)) or 1 if isinstance(first, tuple) and type(first[0]) is int else 0
            self.calls.append([node.correlation_id, 0, kind, not doubtful, operand])
            made_by = [self.producer[aid] for aid in self.tensors(args) if aid in self.producer]
            self.made_from.append(made_by)
            at = _WEIGHT_ARG.get(name)
            if at is not None and at < len(args) and isinstance(args[at], self._tensor_type):
                w = self.producer.get(args[at].allocation_id)
                if w is not None:
                    self.weight_made.add(w)
        inner = top and not aten
        kids = self._kids(node, here, inner)
        if as_strided:
            self.note_view(args, concrete)
        sig = (self.fresh() if unknown else hash((key, kids))) or 1
        if aten and not uninitialised:   # (a scope's or compiled region's buffers stay unknown)
            # what the op allocated holds what it computed, whichever of its children wrote it first: its
            # kernel may write it after them with no op recorded (_slow_conv2d_forward copies the bias into
            # its output, then its GEMM overwrites it)
            for k, aid in enumerate(self.allocs[mark:]):
                self.uninit.discard(aid)
                self.value[aid] = hash((sig, "out", k))
        for k, aid in enumerate(written):
            self.uninit.discard(aid)
            self.value[aid] = self.fresh() if unknown else hash((sig, "wrote", k))
            made_by = self.producer.get(aid, -1)
            if made_by >= 0 and made_by != self.current:   # a later call writes this call's result:
                self.calls[made_by][1] = None               # reusing it would need a copy, no signature
        if unknown or doubtful or (outermost and kind == CONSTANT):
            made = {self.value[aid] for aid in itertools.chain(self.allocs[mark:], written) if aid in self.value}
            if unknown:
                self.entered |= made     # new data
            if doubtful:
                self.doubtful |= made
            elif outermost and kind == CONSTANT:
                self.constant |= made
        if outermost:
            if self.calls[self.current][1] is not None:
                self.calls[self.current][1] = sig
            self.current = -1
        elif not aten and _UNRECORDED_WRITES.search(name):
            self.forget()
        return sig


class _Args(msgspec.Struct, gc=False):
    ext: int = msgspec.field(name="External id", default=-1)
    concrete: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=msgspec.Raw(b"null"))


class _Event(msgspec.Struct, gc=False):
    args: Optional[_Args] = None


_DECODER = msgspec.json.Decoder(list[_Event])


def concrete_lists(path) -> dict[int, str]:
    """External id -> "Concrete Inputs" of the ops in torch's exported trace whose arguments include a list
    (sizes, dims, shifts, a view's strides: the event tree records none of them; scalars it records)."""
    from ..ingest.chunked_json import EventStream, iter_chunks

    def decode(buf):
        try:
            return _DECODER.decode(buf)
        except msgspec.DecodeError:   # an event this schema does not fit: orjson dicts for this chunk
            return None

    out: dict[int, str] = {}

    def consume(chunk) -> None:
        if chunk is None:
            out.clear()
            return
        for e in chunk.events:
            if isinstance(e, dict):
                args = e.get("args") or {}
                ext, raw = args.get("External id", -1), args.get("Concrete Inputs")
                text = json.dumps(raw) if isinstance(raw, list) else None
            else:
                args = e.args
                if args is None:
                    continue
                ext, text = args.ext, bytes(args.concrete).decode() if args.concrete else None
            if isinstance(ext, int) and ext >= 0 and text and text.count("[") > 1:
                out[ext] = text

    iter_chunks(EventStream(Path(path), str(path), decoder=decode), consume)
    return out


def value_numbers(prof, concrete: dict[int, str]) -> tuple[pd.DataFrame, dict]:
    """(calls, meta) of a stopped torch.profiler run whose results are still held, with ``concrete`` from
    ``concrete_lists``: per outermost aten op's call its ``external_id`` (torch's correlation id, the trace's
    "External id"), ``value_sig`` (int64, never 0), ``value_kind`` (int8: model.VALUE_*), ``value_known``
    (every input's value was recorded: no Python number, Python data or unrecorded contents among them, so a
    signature unlike another's means different values) and ``value_operand`` (int64: the op and its first
    tensor argument's value, 0 where that is unknown)."""
    calls = pd.DataFrame({"external_id": np.zeros(0, np.int64), "value_sig": np.zeros(0, np.int64),
                          "value_kind": np.zeros(0, np.int8), "value_known": np.zeros(0, bool),
                          "value_operand": np.zeros(0, np.int64)})
    results = getattr(getattr(prof, "profiler", None), "kineto_results", None)
    if results is None or not hasattr(results, "experimental_event_tree"):
        return calls, {"status": "unavailable: this torch keeps no event tree"}
    roots = sorted(results.experimental_event_tree(), key=lambda n: n.start_time_ns)
    if not roots:
        return calls, {"status": "unavailable: torch kept no event tree (trace_only, or no ops)"}
    num = _Numbering(concrete)
    status = "complete"
    try:
        for r in roots:
            num.node(r, [num.fresh(), 0, False, True], True)
            num.allocs.clear()
    except _Budget:
        status = f"partial: the first {MAX_OPS:,} ops (MAX_OPS) numbered, later calls have no signature"
    num.mark_weight_transforms()
    got = [c for c in num.calls if c[1]]
    if got:
        cid, sig, kind, known, operand = zip(*got)
        calls = pd.DataFrame({"external_id": np.asarray(cid, np.int64), "value_sig": np.asarray(sig, np.int64),
                              "value_kind": np.asarray(kind, np.int8), "value_known": np.asarray(known, bool),
                              "value_operand": np.asarray(operand, np.int64)})
    return calls, {"status": status, "ops_walked": min(num.ops, MAX_OPS),
                   "storages_viewed_at_several_offsets": len(num.ambiguous)}


def attach(events: pd.DataFrame, calls: pd.DataFrame) -> dict[str, np.ndarray]:
    """The value columns for ``events`` (the Profile read from the same trace): each op row whose External
    id a call has gets that call's signature; other rows 0 / UNKNOWN / False."""
    out = {"value_sig": np.zeros(len(events), np.int64), "value_kind": np.zeros(len(events), np.int8),
           "value_known": np.zeros(len(events), bool), "value_operand": np.zeros(len(events), np.int64)}
    if not len(calls) or not len(events) or "external_id" not in events:
        return out
    ops = np.flatnonzero((events["cat"].to_numpy() == "op") & (events["external_id"].to_numpy() >= 0))
    row = pd.Series(ops, index=events["external_id"].to_numpy()[ops])
    row = row[~row.index.duplicated(keep=False)]
    found = row.reindex(calls["external_id"].to_numpy()).to_numpy()
    keep = ~np.isnan(found)
    at = found[keep].astype(np.int64)
    for col in out:
        out[col][at] = calls[col].to_numpy()[keep]
    return out


def counts(events: pd.DataFrame) -> dict:
    """How many calls of ``events`` have a signature, by the kind of their inputs (for the meta)."""
    if "value_sig" not in events:
        return {}
    numbered = events["value_sig"].to_numpy() != 0
    kinds = events["value_kind"].to_numpy()[numbered]
    return {"calls_numbered": int(numbered.sum()),
            "calls_by_kind": {n: int((kinds == k).sum()) for n, k in
                              (("constant", CONSTANT), ("data", DATA), ("new", NEW))}}
