"""fxtlint: a strict validator, recovering reader and fuzzing toolkit for FXT.

This module only re-exports; each name is defined in one private module.
"""

from .engine._lint import lint_buffer, lint_bytes, lint_path
from .engine._parallel import lint_paths
from .engine._reader import iter_records, read_records
from .engine._result import DiagnosticSink, FileReport
from .engine._stream_lint import StreamLinter, StreamReader
from .rules._diagnostics import Diagnostic, Example, Rule, Severity
from .spec._encoder import EncodeError, encode_argument, encode_log_record, encode_record, encode_records
from .spec._errors import FxtError
from .spec._limits import Limits
from .spec._model import Argument, Record
from .spec._tables import tables
from .spec._version import __version__

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
    "StreamLinter",
    "StreamReader",
    "encode_argument",
    "encode_log_record",
    "encode_record",
    "encode_records",
    "iter_records",
    "lint_buffer",
    "lint_bytes",
    "lint_path",
    "lint_paths",
    "read_records",
    "tables",
]
