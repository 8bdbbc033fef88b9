"""The XSpace protobuf messages of XProf (TensorFlow/JAX profiler output, ``*.xplane.pb``), built at
run time in a private descriptor pool.

Why our own copy: TensorFlow ships ``tsl/profiler/protobuf/xplane_pb2.py``, but importing it by package
imports all of TensorFlow (~5 s), and JAX users have no TensorFlow at all. The schema below is the
wire-compatible subset of ``tsl/profiler/protobuf/xplane.proto`` (Apache-2.0) that the importer reads;
the two maps are declared as repeated key/value entries, which is how maps travel on the wire. A
private pool never clashes with TensorFlow's own registration of the same file in the same process.
"""

from __future__ import annotations

from functools import lru_cache

# message -> [(field name, number, type, label, message type or None, oneof index or None)]
_I64, _U64, _DBL, _STR, _BYT, _MSG = "int64", "uint64", "double", "string", "bytes", "message"
_SCHEMA = {
    "XSpace": [("planes", 1, _MSG, "rep", "XPlane"), ("errors", 2, _STR, "rep"), ("warnings", 3, _STR, "rep"),
               ("hostnames", 4, _STR, "rep")],
    "XPlane": [("id", 1, _I64), ("name", 2, _STR), ("lines", 3, _MSG, "rep", "XLine"),
               ("event_metadata", 4, _MSG, "rep", "EventMetadataEntry"),
               ("stat_metadata", 5, _MSG, "rep", "StatMetadataEntry"), ("stats", 6, _MSG, "rep", "XStat")],
    "EventMetadataEntry": [("key", 1, _I64), ("value", 2, _MSG, "opt", "XEventMetadata")],
    "StatMetadataEntry": [("key", 1, _I64), ("value", 2, _MSG, "opt", "XStatMetadata")],
    "XLine": [("id", 1, _I64), ("display_id", 10, _I64), ("name", 2, _STR), ("display_name", 11, _STR),
              ("timestamp_ns", 3, _I64), ("duration_ps", 9, _I64), ("events", 4, _MSG, "rep", "XEvent")],
    "XEvent": [("metadata_id", 1, _I64), ("offset_ps", 2, _I64), ("duration_ps", 3, _I64),
               ("stats", 4, _MSG, "rep", "XStat"), ("num_occurrences", 5, _I64)],
    "XStat": [("metadata_id", 1, _I64), ("double_value", 2, _DBL, "opt", None, 0),
              ("uint64_value", 3, _U64, "opt", None, 0), ("int64_value", 4, _I64, "opt", None, 0),
              ("str_value", 5, _STR, "opt", None, 0), ("bytes_value", 6, _BYT, "opt", None, 0),
              ("ref_value", 7, _U64, "opt", None, 0)],
    "XEventMetadata": [("id", 1, _I64), ("name", 2, _STR), ("metadata", 3, _BYT), ("display_name", 4, _STR),
                       ("stats", 5, _MSG, "rep", "XStat"), ("child_id", 6, _I64, "rep")],
    "XStatMetadata": [("id", 1, _I64), ("name", 2, _STR), ("description", 3, _STR)],
}
_PACKAGE = "cann_nb.xprof"


@lru_cache(maxsize=1)
def messages() -> dict:
    """name -> message class (XSpace, XPlane, ...). Raises ImportError without the protobuf package."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    types = {_I64: F.TYPE_INT64, _U64: F.TYPE_UINT64, _DBL: F.TYPE_DOUBLE, _STR: F.TYPE_STRING,
             _BYT: F.TYPE_BYTES, _MSG: F.TYPE_MESSAGE}
    fdp = descriptor_pb2.FileDescriptorProto(name="cann_nb_xplane.proto", package=_PACKAGE, syntax="proto3")
    for msg_name, fields in _SCHEMA.items():
        msg = fdp.message_type.add(name=msg_name)
        if msg_name == "XStat":
            msg.oneof_decl.add(name="value")
        for name, number, kind, *rest in fields:
            label = rest[0] if rest else "opt"
            field = msg.field.add(name=name, number=number, type=types[kind],
                                  label=F.LABEL_REPEATED if label == "rep" else F.LABEL_OPTIONAL)
            if kind == _MSG:
                field.type_name = f".{_PACKAGE}.{rest[1]}"
            if len(rest) > 2 and rest[2] is not None:
                field.oneof_index = rest[2]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
            for name in _SCHEMA}
