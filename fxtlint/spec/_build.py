"""Builders for records and arguments: what tests, rule examples and writer authors use.

A string given as ``int`` is an indexed ref (0 is the empty string); a ``str`` is
written inline. A thread given as ``int`` is an index into the thread table; a
``(process_koid, thread_koid)`` pair is written inline. ``archive(...)`` encodes.
"""

from __future__ import annotations

from ._encoder import encode_argument, encode_log_record, encode_record, encode_records
from ._errors import FxtError
from ._model import Argument, Record
from ._tables import Field, WordItem, tables

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from typing import Literal

_ARG_TYPES = {a.name: t for t, a in tables().arguments.items()}
_MAGIC = tables().leaf("metadata.trace_info.magic").named("magic")


def _type_of(layout) -> int:
    """The record type number of a leaf layout (every leaf of the tables has one)."""
    if layout.type is None:
        raise FxtError(f"{layout.name}: the tables give it no record type")
    return layout.type


def _record(kind: str, fields: dict, strings=None, args=()) -> Record:
    """A record of layout ``kind``, its type number from the tables (the encoder picks
    the layout by ``kind``; the number is what a reader of the ``Record`` sees)."""
    return _checked(Record(_type_of(tables().leaf(kind)), kind, fields, strings or {}, tuple(args)))


def _checked(value, encode=None):
    """``value`` once it encodes: a field that does not fit raises FxtError here, naming
    the record or argument kind, not later inside ``archive``."""
    try:
        (encode or (encode_argument if isinstance(value, Argument) else encode_record))(value)
    except FxtError as e:
        raise FxtError(f"{value.kind}: {e}") from None
    return value


def _ref(fields: dict, strings: dict, name: str, value) -> None:
    if isinstance(value, str):
        strings[name] = value
    else:
        fields[name] = int(value)


def _thread(fields: dict, name: str, value, koid_names=("process_koid", "thread_koid")) -> None:
    if isinstance(value, tuple):
        fields[name] = 0
        for n, v in zip(koid_names, value):
            fields[n] = v
    else:
        fields[name] = int(value)


# -- arguments ---------------------------------------------------------------------
def arg(kind: str, name, value=None) -> Argument:
    """An argument of table type ``kind`` ("int32", "string", "blob", ...)."""
    fields: dict = {}
    strings: dict = {}
    _ref(fields, strings, "name", name)
    if kind == "string":
        _ref(fields, strings, "value", value if value is not None else 0)
    elif kind == "blob":
        strings["payload"] = bytes(value or b"")
    elif kind == "bool":
        fields["value"] = int(bool(value))
    elif kind != "null":
        fields["value"] = value if value is not None else 0
    if kind not in _ARG_TYPES:
        raise FxtError(f"argument kind {kind!r} is not one of {sorted(_ARG_TYPES)}")
    return _checked(Argument(type=_ARG_TYPES[kind], kind=kind, fields=fields, strings=strings))


def raw_arg(arg_type: int, name, body: bytes = b"") -> Argument:
    """An argument of an undefined type, carried as raw body bytes."""
    fields: dict = {}
    _ref(fields, {}, "name", name)
    return _checked(Argument(type=arg_type, kind="unknown", fields=fields, raw=body))


# -- records -----------------------------------------------------------------------
def magic() -> Record:
    return _record("metadata.trace_info.magic", {"magic": _MAGIC.const})


def provider_info(provider_id: int, name: str) -> Record:
    return _record("metadata.provider_info", {"provider_id": provider_id}, {"provider_name": name})


def provider_section(provider_id: int) -> Record:
    return _record("metadata.provider_section", {"provider_id": provider_id})


def provider_event(provider_id: int, event_id: int = 0) -> Record:
    return _record("metadata.provider_event", {"provider_id": provider_id, "event_id": event_id})


def initialization(ticks_per_second: int) -> Record:
    return _record("initialization", {"ticks_per_second": ticks_per_second})


def string(index: int, text) -> Record:
    return _record("string", {"index": index}, {"value": text})


def thread(index: int, process_koid: int, thread_koid: int) -> Record:
    return _record("thread", {"index": index, "process_koid": process_koid,
                                "thread_koid": thread_koid})


def _event_words() -> dict[str, tuple[str, bool]]:
    """Per event variant: the one word of its own body, and whether it is a timestamp
    (a complete event's end) rather than an id."""
    ev = tables().root("event")
    return {v.name.split(".", 1)[1]: (v.body[0].name, v.body[0].role == "timestamp")
            for v in ev.variants.values() if v.body and isinstance(v.body[0], WordItem)}


_EVENT_WORD = _event_words()


def event(kind: str, timestamp: int, *, thread=1, category=1, name=2, args=(), id=0,
          end_timestamp=None) -> Record:
    """An event record; ``kind`` is the event variant ("instant", "duration_begin", ...).

    ``id`` is the counter, correlation or flow id; ``end_timestamp`` a complete event's end.
    """
    fields: dict = {"timestamp": timestamp}
    strings: dict = {}
    _thread(fields, "thread", thread)
    _ref(fields, strings, "category", category)
    _ref(fields, strings, "name", name)
    extra, is_end = _EVENT_WORD.get(kind, (None, False))
    if is_end:
        fields[extra] = end_timestamp if end_timestamp is not None else timestamp
    elif extra:
        fields[extra] = id
    return _record(f"event.{kind}", fields, strings, tuple(args))


def blob(name, payload: bytes, blob_type: int = 1) -> Record:
    fields: dict = {"blob_type": blob_type}
    strings: dict = {"payload": payload}
    _ref(fields, strings, "name", name)
    return _record("blob", fields, strings)


def userspace_object(pointer: int, process, name, args=()) -> Record:
    fields: dict = {"pointer": pointer}
    strings: dict = {}
    if isinstance(process, tuple):
        fields["process"] = 0
        fields["process_koid"] = process[0]
    else:
        fields["process"] = int(process)
    _ref(fields, strings, "name", name)
    return _record("userspace_object", fields, strings, tuple(args))


def kernel_object(koid: int, object_type: int, name, args=()) -> Record:
    fields: dict = {"koid": koid, "object_type": object_type}
    strings: dict = {}
    _ref(fields, strings, "name", name)
    return _record("kernel_object", fields, strings, tuple(args))


def context_switch(timestamp: int, cpu: int, outgoing_state: int, outgoing_thread_koid: int,
                   incoming_thread_koid: int, args=()) -> Record:
    return _record("scheduling.context_switch", {
        "timestamp": timestamp, "cpu": cpu, "outgoing_state": outgoing_state,
        "outgoing_thread_koid": outgoing_thread_koid, "incoming_thread_koid": incoming_thread_koid,
    }, {}, tuple(args))


def thread_wakeup(timestamp: int, cpu: int, waking_thread_koid: int, args=()) -> Record:
    return _record("scheduling.thread_wakeup", {
        "timestamp": timestamp, "cpu": cpu, "waking_thread_koid": waking_thread_koid}, {}, tuple(args))


def legacy_context_switch(timestamp: int, cpu: int, outgoing_state: int, outgoing_thread=1,
                          incoming_thread=2, outgoing_priority: int = 0,
                          incoming_priority: int = 0) -> Record:
    fields: dict = {"timestamp": timestamp, "cpu": cpu, "outgoing_state": outgoing_state,
                    "outgoing_priority": outgoing_priority, "incoming_priority": incoming_priority}
    _thread(fields, "outgoing_thread", outgoing_thread, ("outgoing_process_koid", "outgoing_thread_koid"))
    _thread(fields, "incoming_thread", incoming_thread, ("incoming_process_koid", "incoming_thread_koid"))
    return _record("scheduling.legacy_context_switch", fields)


def log(timestamp: int, message: str, *, thread=1) -> Record:
    fields: dict = {"timestamp": timestamp}
    _thread(fields, "thread", thread)
    return _record("log", fields, {"message": message})


def large_blob(category, name, payload: bytes, *, timestamp: int | None = None, thread=1,
               args=()) -> Record:
    """A large blob record: with metadata when ``timestamp`` is given, else without."""
    fields: dict = {}
    strings: dict = {"payload": payload}
    _ref(fields, strings, "category", category)
    _ref(fields, strings, "name", name)
    if timestamp is None:
        return _record("large.blob.no_metadata", fields, strings)
    fields["timestamp"] = timestamp
    _thread(fields, "thread", thread)
    return _record("large.blob.with_metadata", fields, strings, tuple(args))


def unknown(record_type: int, body: bytes = b"", bits: int = 0) -> Record:
    """A record of an undefined type (or any raw header bits [16..63]) with a raw body."""
    return _checked(Record(record_type, "unknown", {"bits": bits}, raw=body))


def archive(*records, byte_order: str = "little") -> bytes:
    return encode_records(records, byte_order)


# -- structured logs (the second format) --------------------------------------------
def log_record(severity: int, timestamp: int, args=()) -> Record:
    fields = {"severity": severity, "timestamp": timestamp}
    return _checked(Record(_type_of(tables().log_record), "log_record", fields, {}, tuple(args)), encode_log_record)


def log_stream(*records, byte_order: str = "little") -> bytes:
    return b"".join(encode_log_record(r, byte_order) for r in records)


def words(*values: int, byte_order: str = "little") -> bytes:
    """Raw 64-bit words, for hand-made malformed input."""
    import struct

    fmt = ">Q" if byte_order == "big" else "<Q"
    return b"".join(struct.pack(fmt, v & 0xFFFFFFFFFFFFFFFF) for v in values)


# -- patching encoded bytes (malformed input for tests, rule examples, mutations) ------
WORD = Field("word", 0, 63)  # a whole 64-bit word, as a field: patch_field(data, WORD, v)
BYTE_ORDERS = ("little", "big")


def _byte_order(byte_order: str) -> Literal["little", "big"]:
    if byte_order not in BYTE_ORDERS:
        raise FxtError(f"byte_order = {byte_order!r} is not one of {BYTE_ORDERS}")
    return "big" if byte_order == "big" else "little"


def _word_at(data, word: int, byte_order: str) -> tuple[int, int]:
    order = _byte_order(byte_order)
    last = len(data) // 8 - 1
    if not 0 <= word <= last:
        raise FxtError(f"word = {word} is not inside the {len(data)} bytes given: allowed 0 .. {last}")
    start = 8 * word
    return start, int.from_bytes(data[start : start + 8], order)


def read_field(data, field: Field, *, word: int = 0, byte_order: str = "little") -> int:
    """The value of ``field`` in the ``word``-th 64-bit word of ``data``."""
    return field.get(_word_at(data, word, byte_order)[1])


def patch_field(data, field: Field, value: int, *, word: int = 0, byte_order: str = "little") -> bytes:
    """``data`` with ``field`` of its ``word``-th 64-bit word set to ``value``, every
    other bit kept: the one way to hand-make a malformed header or argument. A value
    that does not fit the field raises FxtError (``WORD`` takes a whole word)."""
    start, w = _word_at(data, word, byte_order)
    return bytes(data[:start]) + field.set(w, value).to_bytes(8, _byte_order(byte_order)) + bytes(data[start + 8 :])
