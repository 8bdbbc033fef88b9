"""Read a Chrome-trace JSON document as a stream of event chunks instead of one object tree.

Why: ``orjson.loads`` of a 1M-event trace builds ~1.7 GB of Python dicts. Parsing the ``traceEvents``
array a few MB at a time keeps only one chunk of dicts alive (the caller turns it into numpy columns
and drops it), and the chunk's dicts are still in cache when the caller reads them.

How: the array is cut at ``}`` ``,`` ``{`` separators after every ``chunk_bytes`` bytes; each piece is
parsed as its own JSON array. A cut that falls inside an event (the separator can occur inside nested
args or at the end of a string) leaves an unbalanced piece, which fails to parse; any such failure
falls back to parsing the whole document, which is always correct and reports the exact position of
real syntax errors. The other top-level keys (deviceProperties, baseTimeNanoseconds, ...) are read
from the text before and after the array. Both ``{"traceEvents": [...]}`` and a bare ``[...]`` array
(the Chrome "JSON array format") are accepted.
"""

from __future__ import annotations

import gc
import gzip
import mmap
import os
import re
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import orjson

from ..errors import TraceFormatError

CHUNK_BYTES = 1 << 20   # small enough for a chunk's dicts to stay in cache while its fields are read
_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_SEP = re.compile(rb"\}\s*,\s*\{")
_WS = b" \t\r\n"


@dataclass
class Chunk:
    first: int            # index in traceEvents of events[0]
    events: list          # parsed event objects (normally dicts)
    raw: memoryview | None  # the JSON text of exactly these events, when known (for exact re-reads)


@contextmanager
def gc_paused():
    """Disable the cyclic GC while millions of small containers are created (none form cycles)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def read_bytes(source, label: str) -> bytearray | mmap.mmap:
    """The JSON text of ``source`` (path or bytes), gunzipped when it starts with the gzip magic.

    Writable, so that chunks can be bracketed in place and parsed without copying them: a file is
    read into anonymous memory (``mmap(-1, size)``: pages zeroed lazily by the OS, where a bytearray
    of the size is zero-filled first, which costs ~1 % of a 234 MB import; never a mapping of the
    file itself, which a writer truncating it would turn into SIGBUS), bytes into a bytearray.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytearray(source)
    else:
        try:
            with open(source, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                data = mmap.mmap(-1, size) if size else bytearray()
                got = f.readinto(data) if size else 0
            if got < size:               # the file shrank since fstat: keep what was read
                data = bytearray(data[:got])
        except OSError as exc:
            raise TraceFormatError(label, "", "a readable file", str(exc)) from exc
    if data[:2] == b"\x1f\x8b":
        try:
            data = bytearray(gzip.decompress(data))
        except (EOFError, OSError, zlib.error) as exc:
            raise TraceFormatError(label, "gzip stream", "a complete gzip file", str(exc)) from exc
    return data


def _decode_error(label: str, exc: orjson.JSONDecodeError, offset: int = 0) -> TraceFormatError:
    pos = getattr(exc, "pos", 0) + offset
    where = f"byte {pos}"
    if not offset and getattr(exc, "lineno", None):
        where += f" (line {exc.lineno}, column {exc.colno})"
    return TraceFormatError(label, where, "valid JSON", str(exc).split(":")[0])


def parse_document(data: bytes, label: str):
    try:
        return orjson.loads(memoryview(data) if isinstance(data, mmap.mmap) else data)
    except orjson.JSONDecodeError as exc:
        raise _decode_error(label, exc) from None


def _events_of(doc, label: str) -> tuple[dict, list]:
    if isinstance(doc, list):
        return {}, doc
    if not isinstance(doc, dict):
        raise TraceFormatError(label, "top level", "a JSON object with a 'traceEvents' array, or an array of events",
                               f"found {type(doc).__name__}")
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        raise TraceFormatError(label, "traceEvents", "an array of events",
                               "key missing" if events is None else f"found {type(events).__name__}")
    top = {k: v for k, v in doc.items() if k != "traceEvents"}
    return top, events


class EventStream:
    """``top`` (every top-level key but traceEvents) and ``chunks()`` over the events."""

    def __init__(self, source, label: str, chunk_bytes: int | None = None, chunk_events: int = 5_000,
                 decoder=None, decoder_avoid: bytes | None = None):
        """``decoder(buffer) -> list | None``: an optional faster parser for a chunk (None: use orjson);
        chunks containing ``decoder_avoid`` always use orjson."""
        self.label = label
        self.decoder = decoder
        self.decoder_avoid = decoder_avoid
        self.chunk_bytes = chunk_bytes or CHUNK_BYTES
        self.chunk_events = chunk_events
        self._data: bytes | None = None
        self._events: list | None = None
        self._span: tuple[int, int] | None = None     # [start, end) of the array's content in _data
        self.mode = "parsed object"                    # how the events were read (reported in meta)
        if isinstance(source, dict) or isinstance(source, list):
            self.top, self._events = _events_of(source, label)
            return
        data = read_bytes(source, label)
        self._data = data
        span = self._locate(data)
        if span is None:
            self.top, self._events = _events_of(parse_document(data, label), label)
            self.mode = "whole document"
        else:
            self._span = span
            self.mode = "streamed"

    # -- locating the array without parsing it -------------------------------------------------
    def _locate(self, data: bytes) -> tuple[int, int] | None:
        head_end = 0
        while head_end < len(data) and data[head_end] in _WS:
            head_end += 1
        if data[head_end:head_end + 1] == b"[":            # bare array of events
            start, top_prefix = head_end + 1, None
        else:
            m = _EVENTS_KEY.search(data, 0, min(len(data), 64 << 20))
            if m is None:
                return None
            start, top_prefix = m.end(), data[:m.end()]
        end = self._array_end(data, start)
        if end is None:
            return None
        if top_prefix is None:
            self.top = {}
        else:
            try:
                head = orjson.loads(top_prefix + b"]" + data[end + 1:])
            except orjson.JSONDecodeError:
                return None
            if not isinstance(head, dict) or head.get("traceEvents") != []:
                return None
            head.pop("traceEvents")
            self.top = head
        return start, end

    @staticmethod
    def _array_end(data: bytearray, start: int) -> int | None:
        """Position of the ``]`` closing the events array, searched from the end of the document.

        Top-level keys after the array (INFO log lines, traceName...) may hold ``]`` too, so a
        candidate must be followed by a valid rest of the object and preceded by a complete event.
        """
        pos = len(data)
        for _ in range(256):
            pos = data.rfind(b"]", start - 1, pos)
            if pos < 0:
                return None
            if _plausible_end(data, start, pos):
                return pos
        return None

    # -- chunks ---------------------------------------------------------------------------------
    def chunks(self) -> Iterator[Chunk]:
        if self._events is not None:
            ev, step = self._events, self.chunk_events
            for i in range(0, len(ev), step):
                yield Chunk(i, ev[i:i + step], None)
            return
        try:
            yield from self._stream_chunks()
        except _Recut:
            # a cut fell inside an event: fall back to one parse of the whole document
            self.top, events = _events_of(parse_document(self._data, self.label), self.label)
            self._events = events
            self.mode = "whole document (a chunk cut fell inside an event)"
            raise _Restart from None

    def _stream_chunks(self) -> Iterator[Chunk]:
        data = self._data
        view = memoryview(data)
        start, end = self._span
        pos = start
        while pos < end and data[pos] in _WS:
            pos += 1
        index = 0
        while pos < end:
            target = pos + self.chunk_bytes
            m = _SEP.search(data, target, end) if target < end else None
            stop = m.start() + 1 if m else end
            # the bytes just outside the piece are separators (',' / space / the array's brackets):
            # turn them into '[' and ']' for the parse and put them back, instead of copying the piece
            before, after = data[pos - 1], data[stop]
            data[pos - 1], data[stop] = 0x5B, 0x5D
            try:
                events = None
                if self.decoder is not None and (self.decoder_avoid is None
                                                 or data.find(self.decoder_avoid, pos, stop) < 0):
                    events = self.decoder(view[pos - 1:stop + 1])
                if events is None:
                    events = orjson.loads(view[pos - 1:stop + 1])
            except orjson.JSONDecodeError:
                raise _Recut from None
            finally:
                data[pos - 1], data[stop] = before, after
            yield Chunk(index, events, view[pos:stop])
            index += len(events)
            pos = m.end() - 1 if m else end


def _plausible_end(data: bytearray, start: int, end: int) -> bool:
    tail = bytes(data[end + 1:]).strip(_WS)
    if tail:
        if tail[:1] not in (b"}", b","):
            return False
        try:
            orjson.loads(b'{"_":0' + tail if tail[:1] == b"," else b"{" + tail)
        except orjson.JSONDecodeError:
            return False
    j = end - 1
    while j >= start and data[j] in _WS:
        j -= 1
    if j < start:
        return True                                   # empty array
    if data[j] != 0x7D:                               # not '}': this ']' closes something else
        return False
    lo = max(start, end - (1 << 20))
    last = None
    for last in _SEP.finditer(data, lo, end):
        pass
    if last is None and lo > start:
        return True                                   # one huge last event: accept, the chunk parse checks it
    seg = last.end() - 1 if last is not None else start
    try:
        return isinstance(orjson.loads(b"[" + bytes(data[seg:end]) + b"]"), list)
    except orjson.JSONDecodeError:
        return False


class _Recut(Exception):
    pass


class _Restart(Exception):
    """Raised by ``chunks()`` after falling back to a whole-document parse: start again from zero."""


def iter_chunks(stream: EventStream, consume) -> None:
    """Feed every chunk of ``stream`` to ``consume(chunk)``; restart from scratch once on a fallback.

    ``consume`` must be able to forget what it was given (it receives ``None`` to reset).
    """
    try:
        for chunk in stream.chunks():
            consume(chunk)
    except _Restart:
        consume(None)
        for chunk in stream.chunks():
            consume(chunk)
