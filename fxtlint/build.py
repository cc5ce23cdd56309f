"""Builders for records and arguments: what tests, rule examples and writer authors use.

A string given as ``int`` is an indexed ref (0 is the empty string); a ``str`` is
written inline. A thread given as ``int`` is an index into the thread table; a
``(process_koid, thread_koid)`` pair is written inline. ``archive(...)`` encodes.

The builders live in ``fxtlint/spec/_build.py``; this module is their public face.
"""

from .spec._build import (
    BYTE_ORDERS, WORD, archive, arg, blob, context_switch, event, initialization, kernel_object, large_blob,
    legacy_context_switch, log, log_record, log_stream, magic, patch_field, provider_event, provider_info,
    provider_section, raw_arg, read_field, string, thread, thread_wakeup, unknown, userspace_object, words,
)

__all__ = [
    "BYTE_ORDERS",
    "WORD",
    "archive",
    "arg",
    "blob",
    "context_switch",
    "event",
    "initialization",
    "kernel_object",
    "large_blob",
    "legacy_context_switch",
    "log",
    "log_record",
    "log_stream",
    "magic",
    "patch_field",
    "provider_event",
    "provider_info",
    "provider_section",
    "raw_arg",
    "read_field",
    "string",
    "thread",
    "thread_wakeup",
    "unknown",
    "userspace_object",
    "words",
]
