"""fxtlint: a strict validator, recovering reader and fuzzing toolkit for FXT.

This module only re-exports; each name is defined in one private module.
"""

from ._diagnostics import Diagnostic, Example, Rule, Severity
from ._errors import FxtError
from ._encoder import EncodeError, encode_argument, encode_log_record, encode_record, encode_records
from ._limits import Limits
from ._lint import lint_buffer, lint_bytes, lint_path
from ._model import Argument, Record
from ._reader import iter_records, read_records
from ._report import DiagnosticSink, FileReport
from ._tables import tables
from ._version import __version__


__all__ = [
    "__version__",
    "Argument",
    "Diagnostic",
    "DiagnosticSink",
    "EncodeError",
    "Example",
    "FileReport",
    "FxtError",
    "Limits",
    "Record",
    "Rule",
    "Severity",
    "encode_argument",
    "encode_log_record",
    "encode_record",
    "encode_records",
    "iter_records",
    "lint_buffer",
    "lint_bytes",
    "lint_path",
    "read_records",
    "tables",
]
