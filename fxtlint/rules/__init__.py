"""The rule registry: every rule, by code. Rule modules declare; this module collects.

Retired codes stay in ``REGISTRY`` (status "removed", never reused); ``all_rules()``
is the rules in force.

Rules are module-level ``Rule`` values in the family modules, imported here by name
(``rules.record_size_zero``) for the code that reports them: explicit names that
linters, type checkers and renames can see. ``tests/test_rules.py`` checks that
``__all__`` names exactly the registry's rules.
"""

from __future__ import annotations

from ._diagnostics import Rule
from . import layout as _layout
from . import log as _log
from . import removed as _removed
from . import semantic as _semantic
from .layout import (  # noqa: F401 - re-exported
    record_size_zero,
    record_past_end_of_file,
    file_length_not_aligned,
    reserved_bits_set,
    argument_reserved_bits_set,
    always_zero_bit_set,
    content_overruns_record,
    padding_not_zero,
    invalid_utf8,
    string_too_long,
    argument_size_mismatch,
    argument_size_zero,
    argument_overruns_record,
    string_ends_in_nul,
    magic_missing,
    magic_wrong_value,
    magic_repeated,
    magic_has_extra_words,
    not_fxt_file,
    unknown_record_type,
    unknown_record_subtype,
    unknown_argument_type,
    undefined_enum_value,
    trailing_words,
    record_size_too_large,
    big_endian_archive,
)
from .log import (  # noqa: F401 - re-exported
    log_record_wrong_type,
    log_severity_invalid,
    log_severity_raw,
    log_argument_type_not_allowed,
    log_string_ref_reserved,
    log_argument_name_empty,
)
from .semantic import (  # noqa: F401 - re-exported
    records_dropped,
    string_ref_unregistered,
    thread_ref_unregistered,
    string_index_zero,
    thread_index_zero,
    provider_section_unannounced,
    string_record_empty,
    registration_changes_value,
    tick_rate_zero,
    complete_ends_before_start,
    timestamp_overflows_ns,
    duration_end_without_begin,
    duration_end_mismatch,
    duration_never_ended,
    unterminated_at_end,
    async_without_begin,
    id_begin_reused,
    flow_without_begin,
    flow_outside_duration,
    counter_argument_not_numeric,
    context_switch_outgoing_running,
    pairing_state_overflow,
)
from .removed import (  # noqa: F401 - re-exported
    buffer_full_pr011,
    context_switch_outgoing_running_pr010,
    counter_argument_not_numeric_pr009,
)

_FAMILIES = (_layout, _log, _semantic, _removed)


def _collect() -> dict[str, Rule]:
    registry: dict[str, Rule] = {}
    for mod in _FAMILIES:
        for value in vars(mod).values():
            if isinstance(value, Rule):
                if value.code in registry:
                    raise RuntimeError(f"duplicate rule code {value.code}")
                registry[value.code] = value
    return registry


REGISTRY: dict[str, Rule] = _collect()


def all_rules() -> list[Rule]:
    """The rules in force, by code (the removed codes are left out)."""
    return [REGISTRY[c] for c in sorted(REGISTRY) if REGISTRY[c].status != "removed"]


def removed_rules() -> list[Rule]:
    """Retired codes, kept so that they are never reused; each names its replacement."""
    return [REGISTRY[c] for c in sorted(REGISTRY) if REGISTRY[c].status == "removed"]


def get(code: str) -> Rule | None:
    return REGISTRY.get(code.upper())


__all__ = [
    "REGISTRY",
    "Rule",
    "all_rules",
    "get",
    "removed_rules",
    "always_zero_bit_set",
    "argument_overruns_record",
    "argument_reserved_bits_set",
    "argument_size_mismatch",
    "argument_size_zero",
    "async_without_begin",
    "big_endian_archive",
    "buffer_full_pr011",
    "complete_ends_before_start",
    "content_overruns_record",
    "context_switch_outgoing_running",
    "context_switch_outgoing_running_pr010",
    "counter_argument_not_numeric",
    "counter_argument_not_numeric_pr009",
    "duration_end_mismatch",
    "duration_end_without_begin",
    "duration_never_ended",
    "file_length_not_aligned",
    "flow_outside_duration",
    "flow_without_begin",
    "id_begin_reused",
    "invalid_utf8",
    "log_argument_name_empty",
    "log_argument_type_not_allowed",
    "log_record_wrong_type",
    "log_severity_invalid",
    "log_severity_raw",
    "log_string_ref_reserved",
    "magic_has_extra_words",
    "magic_missing",
    "magic_repeated",
    "magic_wrong_value",
    "not_fxt_file",
    "padding_not_zero",
    "pairing_state_overflow",
    "provider_section_unannounced",
    "record_past_end_of_file",
    "record_size_too_large",
    "record_size_zero",
    "records_dropped",
    "registration_changes_value",
    "reserved_bits_set",
    "string_ends_in_nul",
    "string_index_zero",
    "string_record_empty",
    "string_ref_unregistered",
    "string_too_long",
    "thread_index_zero",
    "thread_ref_unregistered",
    "tick_rate_zero",
    "timestamp_overflows_ns",
    "trailing_words",
    "undefined_enum_value",
    "unknown_argument_type",
    "unknown_record_subtype",
    "unknown_record_type",
    "unterminated_at_end",
]
