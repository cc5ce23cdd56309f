"""``fxtlint check PATH...`` (the default verb): lint files, directories (their
``*.fxt``, recursively) and standard input (``-``).

Settings come from the command line, then ``[tool.fxtlint]`` of the nearest
pyproject.toml (``_config``), then the defaults. Exit status: 0 when no file has a
diagnostic at or above ``--fail-on`` (error by default), 1 when one does, 2 for a
usage error or when a path could not be read (the other paths are still linted and
reported); ``--exit-zero`` turns 1 into 0.
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack, contextmanager

from ..engine._pairing import BUFFERING_MODES
from ..engine._result import DEFAULT_PER_RULE_CAP, DiagnosticSink, FileReport
from ..rules import _selection
from ..rules._diagnostics import Severity
from . import _buffers, _common, _config
from ._buffers import STDIN
from ._common import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, INPUT_FORMATS, UsageError
from ._common import error as _error
from ._progress import progress_bar, stderr_console

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    import argparse

OUTPUT_FORMATS = ("rich", "json", "sarif", "github", "junit", "json-lines")
FAIL_ON = ("error", "warning", "info")

EPILOG = """\
selectors: a code (PR004), a family or any prefix (PR, PR00), or ALL; lists are
comma-separated and options repeat. The same settings can live in [tool.fxtlint]
of pyproject.toml (found upward from the current directory); options win.

exit status: 0 nothing at or above --fail-on (default: error), 1 something is,
2 usage error or a path that could not be read. --exit-zero: 1 becomes 0.
Colour only on a terminal; NO_COLOR and FORCE_COLOR are honoured.
"""

DEFAULTS = {
    "output_format": "rich",
    "input_format": "auto",
    "select": [],
    "ignore": [],
    "severity": [],
    "exclude": [],
    "fail_on": "error",
    "exit_zero": False,
    "statistics": False,
    "quiet": False,
    "no_hex": False,
    "max_per_rule": DEFAULT_PER_RULE_CAP,
    "baseline": None,
    "buffering_mode": None,
}


# --- argument parsing


def _cap(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        from argparse import ArgumentTypeError  # (imported by the parser that calls this)

        raise ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _seconds(text: str) -> float:
    try:
        n = float(text)
    except ValueError:
        n = -1.0
    if not n >= 0:
        from argparse import ArgumentTypeError  # (imported by the parser that calls this)

        raise ArgumentTypeError(f"expected a number of seconds, got {text!r}")
    return n


def _nonempty(text: str) -> str:
    if not text.strip(" ,"):
        from argparse import ArgumentTypeError  # (imported by the parser that calls this)

        raise ArgumentTypeError(f"no value in {text!r}")
    return text


def register(subparsers) -> None:
    import argparse

    p = subparsers.add_parser(
        "check",
        help="lint FXT files (the default: `fxtlint FILE` is `fxtlint check FILE`)",
        description="Strict validator for Fuchsia Trace Format (FXT) files.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    add_arguments(p)
    p.set_defaults(run=run)


def add_arguments(p: argparse.ArgumentParser | _Declared) -> None:
    # every default is None: an unset option falls back to pyproject.toml, then DEFAULTS
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files, directories to search for *.fxt, or - for standard input (linted as it "
                   "arrives: findings are printed as they are found)")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS, default=None,
                   help="rich (default: for people; plain text when not a terminal), json (one "
                   "object), json-lines (one diagnostic per line), sarif (SARIF 2.1.0, for code "
                   "scanning), github (workflow commands: annotations), junit (JUnit XML)")
    p.add_argument("--input-format", choices=INPUT_FORMATS, default=None,
                   help="trace (FXT), log (structured log), or auto (default) to tell by the bytes")
    p.add_argument("--select", type=_nonempty, action="append", default=None, metavar="SEL[,SEL]",
                   help="report only these rules: codes, prefixes (PR), ALL (repeatable)")
    p.add_argument("--ignore", type=_nonempty, action="append", default=None, metavar="SEL[,SEL]",
                   help="do not report these rules: codes or prefixes (repeatable)")
    p.add_argument("--severity", type=_nonempty, action="append", default=None,
                   metavar="SEL=LEVEL[,...]", help="report these rules as error, warning or info (repeatable)")
    p.add_argument("--fail-on", choices=FAIL_ON, default=None,
                   help="the lowest severity that makes the exit status 1 (default: error)")
    p.add_argument("--exit-zero", action="store_true", default=None,
                   help="exit 0 even when diagnostics are found (2 still means a usage or I/O error)")
    p.add_argument("--statistics", action="store_true", default=None,
                   help="print how many times each rule fired instead of the diagnostics")
    p.add_argument("--exclude", type=_nonempty, action="append", default=None, metavar="GLOB[,GLOB]",
                   help="skip files found in directories that match (name or path; repeatable)")
    p.add_argument("--baseline", default=None, metavar="FILE",
                   help="do not report the findings recorded in FILE (see --write-baseline)")
    p.add_argument("--write-baseline", action="store_true",
                   help="record this run's findings in the --baseline FILE and exit 0")
    p.add_argument("--max-per-rule", type=_cap, default=None, metavar="N",
                   help="keep at most N diagnostics per rule per file; counts stay exact "
                        f"(default {DEFAULT_PER_RULE_CAP})")
    p.add_argument("--no-hex", action="store_true", default=None, help="omit the hex views")
    p.add_argument("-q", "--quiet", action="store_true", default=None,
                   help="print the findings only: no summary lines, nothing for files without findings")
    p.add_argument("--isolated", action="store_true", help="ignore pyproject.toml settings")
    p.add_argument("-j", "--jobs", type=_cap, default=1, metavar="N",
                   help="lint up to N files at once in worker processes; the output is the same as "
                   "one at a time (default 1)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (one is drawn on a terminal when linting takes over a second)")
    p.add_argument("--buffering-mode", choices=BUFFERING_MODES, default=None,
                   help="how the trace was recorded (the tracing system's buffering modes): circular "
                   "traces start with ends whose begins were overwritten; what was open at a buffer-full "
                   "record is not reported as unterminated; streaming traces carry buffer-full events "
                   "by protocol (see PR001, PR004, EV003)")
    p.add_argument("--allow-empty", action="store_true",
                   help="a directory with no *.fxt files is nothing to lint, said on stderr, not an error: "
                   "a CI job whose tests wrote no traces passes (without it that is exit 2)")
    p.add_argument("--follow", metavar="FILE", default=None,
                   help="lint FILE while it is still being written, printing findings as they are found, "
                   "until the writer stops for --idle-timeout seconds or Ctrl-C; then the summary")
    p.add_argument("--idle-timeout", type=_seconds, default=5.0, metavar="S",
                   help="with --follow: seconds without new bytes that end the file (default 5)")


class _Declared:
    """What ``add_arguments`` declares, kept as it is said (``parsed_simply`` reads it):
    the options of ``check`` are written once, for argparse and for the plain reading."""

    def __init__(self):
        self.options: list[tuple[tuple[str, ...], dict]] = []

    def add_argument(self, *flags: str, **kw) -> None:
        self.options.append((flags, kw))


# the kinds of option ``parsed_simply`` reads (argparse's action names); the others, and
# options of other settings (nargs, const, dest, required), are argparse's to parse
_PLAIN_ACTIONS = ("store", "store_true", "append")
_PLAIN_KEYS = frozenset(("action", "type", "choices", "default", "metavar", "help"))


def _plain_options() -> tuple[dict, dict, str]:
    """(option string -> (dest, action, its declaration) for the options ``parsed_simply``
    reads, None for the others; each dest's default, as argparse sets it; the positional's
    dest)."""
    declared = _Declared()
    add_arguments(declared)
    options: dict = {}
    defaults: dict = {}
    positional = ""
    for flags, kw in declared.options:
        if not flags[0].startswith("-"):
            positional = flags[0]
            continue
        # argparse's dest: the first long option string (else the first), dashes as underscores
        dest = next((f for f in flags if f.startswith("--")), flags[0]).lstrip("-").replace("-", "_")
        action = kw.get("action", "store")
        plain = action in _PLAIN_ACTIONS and _PLAIN_KEYS.issuperset(kw)
        default = kw.get("default", False if action == "store_true" else None)
        if plain and isinstance(default, str) and "type" in kw:
            plain = False  # (argparse converts a string default with the type)
        defaults[dest] = default
        for f in flags:
            options[f] = (dest, action, kw) if plain else None
    return options, defaults, positional


def parsed_simply(argv: list[str]):
    """``argv`` (what follows ``check``) as ``parse_intermixed_args`` of its parser reads it,
    without argparse (which with gettext and locale, and building the parser, is about 7 ms
    of a small lint's start, bench/startup.py): paths, and options whose whole token is an
    option string, or ``--option=value``, of the plain kinds (a value, a flag, a repeated
    value), their values valid. None for anything else, errors included: argparse reads it
    then, and says what it says (``tests/test_cli_parse.py`` holds the two to the same
    namespaces)."""
    options, values, positional = _plain_options()
    paths: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("-"):
            if not token:
                return None
            paths.append(token)
            continue
        flag, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
        option = options.get(flag)
        if option is None:
            return None
        dest, action, kw = option
        if action == "store_true":
            if eq:
                return None
            values[dest] = True
            continue
        if not eq:
            if i == len(argv) or argv[i].startswith("-"):
                return None
            value = argv[i]
            i += 1
        try:
            value = kw["type"](value) if "type" in kw else value
        except Exception:  # (the type's error: argparse words it)
            return None
        if "choices" in kw and value not in kw["choices"]:
            return None
        values[dest] = [*(values[dest] or ()), value] if action == "append" else value
    if not paths:
        return None
    from types import SimpleNamespace  # (argparse.Namespace's attributes and equality)

    return SimpleNamespace(**{positional: paths}, **values, run=run)


def settings(args: argparse.Namespace, config: _config.Config) -> dict:
    """Command line, then pyproject.toml, then the defaults."""
    out = {}
    for name, default in DEFAULTS.items():
        value = getattr(args, name, None)
        if value is None:
            value = config.get(name)
            if name == "baseline" and value is not None:
                value = config.resolve_path(value)
            elif name == "output_format" and value is not None and value not in OUTPUT_FORMATS:
                raise UsageError(f"{config.path}: output-format must be one of {', '.join(OUTPUT_FORMATS)}")
            elif name == "input_format" and value is not None and value not in INPUT_FORMATS:
                raise UsageError(f"{config.path}: input-format must be one of {', '.join(INPUT_FORMATS)}")
            elif name == "fail_on" and value is not None and value not in FAIL_ON:
                raise UsageError(f"{config.path}: fail-on must be one of {', '.join(FAIL_ON)}")
            elif name == "buffering_mode" and value is not None and value not in BUFFERING_MODES:
                raise UsageError(f"{config.path}: buffering-mode must be one of "
                                 f"{', '.join(BUFFERING_MODES)}")
            elif name == "max_per_rule" and value is not None and value < 1:
                raise UsageError(f"{config.path}: max-per-rule must be at least 1")
        out[name] = default if value is None else value
    return out


# --- rule selection


def _resolve_codes(s: dict) -> tuple[frozenset[str], dict[str, Severity]]:
    if not (s["select"] or s["ignore"] or s["severity"]):
        return frozenset(), {}  # every rule, at its own severity (what the registry's reading gives)
    known = [r.code for r in _common.load_registry()]
    for option in ("select", "ignore", "severity"):
        values = _selection.split(s[option])
        for v in values:
            sel = v.partition("=")[0] if option == "severity" else v
            try:
                _selection.check_selector(sel, f"--{option}", known)
            except _selection.SelectionError as e:
                raise UsageError(str(e)) from None
    try:
        enabled = _selection.enabled_codes(known, s["select"], s["ignore"])
        overrides = _selection.severity_overrides(s["severity"], known)
    except _selection.SelectionError as e:
        raise UsageError(str(e)) from None
    return frozenset(known) - enabled, overrides


# --- output


def statistics(reports: list[FileReport]) -> list[dict]:
    """Per code, over every file: how often it fired (exact), its name and severity."""
    from collections import Counter

    counts: Counter = Counter()
    severity: dict[str, str] = {}
    for r in reports:
        counts.update(r.counts)
        for d in r.diagnostics:
            severity[d.code] = d.severity.label
    names = {rule.code: rule.name for rule in _common.load_registry()}
    return [{"code": c, "name": names.get(c, ""), "severity": severity.get(c, ""), "count": n}
            for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _print_statistics(rows: list[dict], fmt: str) -> None:
    if fmt in ("json", "json-lines"):
        import json

        sys.stdout.write(json.dumps(rows, indent=2 if fmt == "json" else None) + "\n")
        return
    width = max((len(str(r["count"])) for r in rows), default=1)
    for r in rows:
        sys.stdout.write(f"{str(r['count']).rjust(width)}  {r['code']}  {r['name']}  ({r['severity']})\n")


def _render_machine(fmt: str, reports: list[FileReport], failures: list, fail_on: str = "error") -> str:
    # each format imports its own renderer only (SARIF's urllib, JUnit's XML)
    if fmt == "json":
        from ..render import _render_json

        return _render_json.dumps(_render_json.render(reports, failures=failures))
    if fmt == "sarif":
        from ..render import _render_sarif

        return _render_sarif.dumps(_render_sarif.render(reports, failures=failures,
                                                        rules=_common.load_registry()))
    if fmt == "github":
        from ..render import _render_github

        return _render_github.render(reports, failures=failures)
    if fmt == "junit":
        from ..render import _render_junit

        return _render_junit.render(reports, failures=failures, fail_on=fail_on)
    from ..render import _render_jsonl

    return _render_jsonl.render(reports, failures=failures)


def _fails(report: FileReport, fail_on: str) -> bool:
    threshold = Severity.parse(fail_on)
    return any(report.severity_counts.get(s.label, 0) for s in Severity if s >= threshold)


# --- running


@contextmanager
def _linted(path: str, s: dict, sink: DiagnosticSink):
    """(report, the buffer it was linted from) for one path, the buffer open while the
    caller renders it: hex views show the bytes that were linted. Raises OSError."""
    lint = _common.lint_buffer()
    mode = {"buffering_mode": s["buffering_mode"]} if s.get("buffering_mode") else {}
    if path == STDIN:
        data = sys.stdin.buffer.read()
        yield lint(data, input_format=s["input_format"], path=STDIN, sink=sink, **mode), data
        return
    with _buffers.opened(path) as data:
        yield lint(data, input_format=s["input_format"], path=path, sink=sink, **mode), data


def _size(path: str) -> int:
    try:
        return 0 if path == STDIN else os.stat(path).st_size
    except OSError:
        return 0


def _lint_all(files: list[str], s: dict, sink_options: dict, jobs: int, advance):
    """(path, report or the OSError it raised, the bytes its hex views show) per file, in
    order. With ``jobs`` > 1 worker processes lint and send back the bytes their hex
    views need (``Excerpts``); one at a time, the linted buffer stays open while the
    caller renders it."""
    if jobs > 1 and len(files) > 1 and STDIN not in files:
        from ..engine import _parallel  # (workers' only: with the hex views' Excerpts)

        results = _parallel.lint_paths(files, jobs=jobs, input_format=s["input_format"],
                                       sink_options=sink_options, progress=advance, excerpts=True,
                                       buffering_mode=s.get("buffering_mode"))
        for path, (report, excerpts) in zip(files, results):
            yield path, report, excerpts
        return
    total, done = sum(map(_size, files)), 0
    for path in files:
        with ExitStack() as stack:
            try:
                report, data = stack.enter_context(_linted(path, s, DiagnosticSink(**sink_options)))
            except OSError as e:  # only the open and the lint: a broken pipe while rendering is not this file's
                report, data = e, None
            yield path, report, data
        done += _size(path)
        advance(done, total)


def _lint_streamed(path: str, args, s: dict, sink_options: dict, printer):
    """The one (path, report, hex bytes) of a stream: standard input or a followed file."""
    from . import _stream  # (a stream's only, with its printer's renderers and json)

    chunks = _stream.stdin_chunks() if path == STDIN else _stream.follow_chunks(path, args.idle_timeout)
    try:
        report, _linter = _stream.lint_stream(chunks, path, input_format=s["input_format"],
                                             sink=DiagnosticSink(**sink_options), printer=printer,
                                             buffering_mode=s.get("buffering_mode"))
    except OSError as e:
        yield path, e, None
        return
    yield path, report, None


def _read_baseline(args: argparse.Namespace, s: dict):
    """The baseline to apply (None without one, or while writing it). Raises UsageError."""
    if args.write_baseline and not s["baseline"]:
        raise UsageError("--write-baseline needs --baseline FILE (or baseline in pyproject.toml)")
    if not s["baseline"] or args.write_baseline:
        return None
    from . import _baseline  # (with json: a run without a baseline needs neither)

    try:
        return _baseline.Baseline.read(s["baseline"])
    except OSError as e:
        raise UsageError(f"{s['baseline']}: {e.strerror or e}") from None
    except _baseline.BaselineError as e:
        raise UsageError(str(e)) from None


def _inputs(args: argparse.Namespace, s: dict):
    """(files to lint, [(path, message)] of those that cannot be, the one path linted
    as it arrives or None); the failures are reported as found. Raises UsageError."""
    if args.follow is not None and args.paths:
        raise UsageError("--follow FILE lints that one file: give no other PATH")
    if args.follow is None and not args.paths:
        raise UsageError("no PATH given (a file, a directory, - for standard input, or --follow FILE)")
    found, failures = _buffers.expand_paths(args.paths or [args.follow], _selection.split(s["exclude"]))
    files = [f for f, _ in found]
    # standard input alone, or a followed file: linted as it arrives
    streamed = files[0] if args.follow is not None and files else (STDIN if files == [STDIN] else None)
    if args.allow_empty:
        for path, _ in (f for f in failures if f[1] == _buffers.EMPTY_DIRECTORY):
            print(f"fxtlint: {path}: {_buffers.EMPTY_DIRECTORY}: nothing to lint there (--allow-empty)",
                  file=sys.stderr)
        failures = [f for f in failures if f[1] != _buffers.EMPTY_DIRECTORY]
    for path, message in failures:
        _error(f"{path}: {message}" + (EMPTY_HINT if message == _buffers.EMPTY_DIRECTORY else ""))
    return files, failures, streamed


EMPTY_HINT = " (nothing to lint: --allow-empty makes that a note, not an error)"


def _write_baseline(s: dict, reports: list[FileReport], failures: list) -> int:
    from . import _baseline

    with open(s["baseline"], "w", encoding="utf-8") as fh:
        fh.write(_baseline.dumps(_baseline.build(reports, s["baseline"])))
    n = sum(len(r.diagnostics) for r in reports)
    print(f"fxtlint: wrote {n} findings of {len(reports)} files to {s['baseline']}", file=sys.stderr)
    return EXIT_USAGE if failures else EXIT_OK


def _exit_code(s: dict, reports: list[FileReport], failures: list) -> int:
    if failures:
        return EXIT_USAGE
    if s["exit_zero"]:
        return EXIT_OK
    return EXIT_ERRORS if any(_fails(r, s["fail_on"]) for r in reports) else EXIT_OK


def run(args: argparse.Namespace) -> int:
    try:
        config = _config.Config() if args.isolated else _config.load()
    except _config.ConfigError as e:
        raise UsageError(str(e)) from None
    s = settings(args, config)
    ignored, overrides = _resolve_codes(s)
    baseline = _read_baseline(args, s)
    files, failures, streamed = _inputs(args, s)

    fmt = s["output_format"]
    rich = fmt == "rich" and not s["statistics"] and not args.write_baseline
    console = None
    if rich:  # machine output never imports rich (nor a pipe's progress bar: ``stderr_console``)
        from ..render import _render_rich

        console = _render_rich.make_console()
    reports: list[FileReport] = []
    show_hex = not s["no_hex"]
    sink_options = dict(per_rule_cap=s["max_per_rule"], severity_overrides=overrides, ignored=ignored)
    printer = None
    if streamed is not None:
        from . import _stream
    if streamed is not None and not (s["statistics"] or args.write_baseline or baseline is not None) \
            and fmt in _stream.STREAMING:
        printer = _stream.Printer(fmt, streamed, console=console, show_hex=show_hex, cap=s["max_per_rule"])
    # the bar shares the terminal with rich output, else it goes to stderr (if a terminal)
    # (a console that says it is a terminal is rich's: a ``PlainConsole`` never does)
    bar_console = console if console is not None and console.is_terminal else stderr_console()
    with progress_bar(bar_console, sum(map(_size, files)),  # type: ignore[arg-type]
                      enabled=bar_console is not None and not args.no_progress and streamed is None) as advance:
        lint_all = (_lint_all(files, s, sink_options, args.jobs, advance) if streamed is None else
                    _lint_streamed(streamed, args, s, sink_options, printer))
        for path, report, data in lint_all:
            if isinstance(report, OSError):
                message = report.strerror or str(report)
                _error(f"{path}: {message}")
                failures.append((path, message))
                continue
            if baseline is not None:
                report = baseline.apply(report)
            reports.append(report)
            if printer is not None:
                printer.end(report, s["quiet"])
                continue
            if console is None or (s["quiet"] and not report.counts):
                continue
            _render_rich.render_report(console, report, data=data if show_hex else None,
                                       show_hex=show_hex, quiet=s["quiet"])

    if args.write_baseline:
        return _write_baseline(s, reports, failures)
    stale = None
    if baseline is not None:
        from . import _baseline

        stale = _baseline.stale_note(baseline.stale(), s["baseline"])
    if stale is not None:
        print(f"fxtlint: {stale}", file=sys.stderr)
    if s["statistics"]:
        _print_statistics(statistics(reports), fmt)
    elif console is not None:  # rich output
        if len(reports) + len(failures) > 1 and not s["quiet"]:
            console.print(_render_rich.total_line(reports, len(failures)))
    elif printer is not None:
        pass  # printed as found, and its closing lines
    else:
        sys.stdout.write(_render_machine(fmt, reports, failures, s["fail_on"]))
    return _exit_code(s, reports, failures)
