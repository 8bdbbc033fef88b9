"""Optional fast decoding of Kineto events with msgspec (used when msgspec is installed).

orjson builds a dict for every event and every ``args`` object, with all their keys; most of those
(grid, block, occupancy, registers...) are never read. msgspec decodes straight into small structs
holding only the fields the importer reads, and keeps ``Input Dims``-like lists as raw JSON bytes,
so a 1M-event trace costs ~40% less CPU to parse, walk and free. Field defaults equal the defaults
the dict path asks for, so kineto_columns reads both kinds with the same code.

A chunk whose values do not fit these types (a string stream id, a list where a number belongs)
raises msgspec.ValidationError and is re-read with orjson as plain dicts, so nothing is lost. Counter
events (``"C"``) name their arguments freely, so kineto_columns re-reads those few as dicts.
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import Optional, Union

try:
    import msgspec
except ImportError:                  # the dict path works alone
    msgspec = None

NAN = math.nan
Num = Union[int, float, None]
Ident = Union[int, str, None]
Loose = Union[int, float, str, None]   # args values some tracers write as text (ROCm: stream "0x0", bytes "256")

if msgspec is not None:
    _NULL = msgspec.Raw(b"null")

    class Args(msgspec.Struct, gc=False):
        ext: Loose = msgspec.field(name="External id", default=-1)
        ext_legacy: Loose = msgspec.field(name="external id", default=-1)
        corr: Loose = msgspec.field(name="correlation", default=-1)
        stream: Loose = -1
        device: Loose = -1
        dims: msgspec.Raw = msgspec.field(name="Input Dims", default=_NULL)
        types: msgspec.Raw = msgspec.field(name="Input type", default=_NULL)
        concrete: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=_NULL)
        flops: Loose = NAN
        nbytes: Loose = msgspec.field(name="bytes", default=NAN)
        collective: Optional[str] = msgspec.field(name="Collective name", default=None)
        own_cat: Optional[str] = msgspec.field(name="cann_nb_cat", default=None)
        own_device: Optional[str] = msgspec.field(name="cann_nb_device", default=None)
        dev_type: Loose = msgspec.field(name="Device Type", default=NAN)
        dev_id: Loose = msgspec.field(name="Device Id", default=NAN)
        mem_bytes: Loose = msgspec.field(name="Bytes", default=NAN)
        allocated: Loose = msgspec.field(name="Total Allocated", default=NAN)
        reserved: Loose = msgspec.field(name="Total Reserved", default=NAN)
        addr: Loose = msgspec.field(name="Addr", default=NAN)
        name: Optional[str] = None
        labels: Optional[str] = None

    class Event(msgspec.Struct, gc=False):
        ph: Optional[str] = None
        cat: Optional[str] = None
        name: Optional[str] = None
        pid: Ident = None
        tid: Ident = None
        ts: Num = None
        dur: Num = None
        id: Ident = None
        args: Optional[Args] = None

    EMPTY_ARGS = Args()
    _decoder = msgspec.json.Decoder(list[Event])

    def decode(buf):
        """A list of Event structs, or None when the chunk needs the dict path."""
        try:
            return _decoder.decode(buf)
        except msgspec.DecodeError:   # includes ValidationError; syntax errors resurface in orjson
            return None
else:
    Args = Event = EMPTY_ARGS = None
    decode = None

# JSON key -> struct attribute, for the keys the importer reads
ATTR = {
    "ph": "ph", "cat": "cat", "name": "name", "pid": "pid", "tid": "tid", "ts": "ts", "dur": "dur", "id": "id",
    "args": "args", "External id": "ext", "external id": "ext_legacy", "correlation": "corr", "stream": "stream",
    "device": "device", "Input Dims": "dims", "Input type": "types", "Concrete Inputs": "concrete",
    "flops": "flops", "bytes": "nbytes", "Collective name": "collective", "cann_nb_cat": "own_cat",
    "cann_nb_device": "own_device", "Device Type": "dev_type", "Device Id": "dev_id", "Bytes": "mem_bytes",
    "Total Allocated": "allocated", "Total Reserved": "reserved", "Addr": "addr", "labels": "labels",
}
GETTERS = {key: attrgetter(attr) for key, attr in ATTR.items()}
RAW_KEYS = {"Input Dims", "Input type", "Concrete Inputs"}
