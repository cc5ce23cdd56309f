"""fxtlint: a strict validator, recovering reader and fuzzing toolkit for FXT.

This module only re-exports; each name is defined in one private module. The names are
imported on first use (``__getattr__``, PEP 562): ``import fxtlint.testing``, the pytest
plugin every pytest session of a project that installs fxtlint loads, imports no engine.
"""

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)

if TYPE_CHECKING:
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

# each name, and the module that defines it (the imports above, for the type checker)
_WHERE = {
    **dict.fromkeys(("lint_buffer", "lint_bytes", "lint_path"), "engine._lint"),
    "lint_paths": "engine._parallel",
    **dict.fromkeys(("iter_records", "read_records"), "engine._reader"),
    **dict.fromkeys(("DiagnosticSink", "FileReport"), "engine._result"),
    **dict.fromkeys(("StreamLinter", "StreamReader"), "engine._stream_lint"),
    **dict.fromkeys(("Diagnostic", "Example", "Rule", "Severity"), "rules._diagnostics"),
    **dict.fromkeys(("EncodeError", "encode_argument", "encode_log_record", "encode_record", "encode_records"),
                    "spec._encoder"),
    "FxtError": "spec._errors",
    "Limits": "spec._limits",
    **dict.fromkeys(("Argument", "Record"), "spec._model"),
    "tables": "spec._tables",
    "__version__": "spec._version",
}

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


def __getattr__(name: str):
    """A re-exported name (or a subpackage, ``fxtlint.engine``), imported on first use."""
    import importlib

    where = _WHERE.get(name)
    if where is None:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__all__})
