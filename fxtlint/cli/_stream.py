"""``fxtlint -`` and ``fxtlint check --follow FILE``: lint a trace as it arrives.

Standard input (a pipe, a socket handed over by the shell) and a file still being
written are read in chunks and fed to ``StreamLinter``: memory is the tables and the
pairing window, not the stream. The streaming formats print each finding as it is
found (``rich``: with the hex view of its record, copied when it was flagged;
``json-lines``; ``github``: up to its cap, in the order found); the whole-run formats
(json, sarif, junit), ``--statistics`` and a baseline's filtering need the whole run
and are written at the end. The exit status is set at the end of the stream.
"""

from __future__ import annotations

import io
import os
import select
import sys
import time

from ..engine._file import FileChanged
from ..engine._result import DiagnosticSink, FileReport
from ..engine._stream_lint import StreamLinter
from ..render import _render_github, _render_jsonl

READ = 1 << 20  # bytes asked of the source at a time (a pipe gives what it has)
POLL = 0.1  # seconds between looks at a followed file that has not grown


IDLE = None  # yielded by a source with nothing more to give right now: walk what has come


def _waiting(fh) -> bool:
    """Whether ``fh`` has no bytes ready now (a pipe whose writer is slower than us)."""
    try:
        return not select.select([fh], [], [], 0)[0]
    except (OSError, ValueError, io.UnsupportedOperation):
        return False  # not selectable (a test's BytesIO): never idle


def stdin_chunks():
    """Standard input as it arrives, until the writer closes it; IDLE when it pauses."""
    src = sys.stdin.buffer
    read = getattr(src, "read1", src.read)
    while chunk := read(READ):
        yield chunk
        if _waiting(src):
            yield IDLE


def follow_chunks(path: str, idle_timeout: float, *, clock=time.monotonic, sleep=time.sleep):
    """The bytes of ``path`` as its writer appends them, until it has not grown for
    ``idle_timeout`` seconds. Raises OSError when it cannot be opened, ``FileChanged``
    when it shrinks below what was read (growth is a followed file's normal case; a
    shrink means the bytes read are no longer the file's)."""
    with open(path, "rb") as fh:
        last = clock()
        read = 0
        while True:
            chunk = fh.read(READ)
            if chunk:
                read += len(chunk)
                last = clock()
                yield chunk
                continue
            size = os.fstat(fh.fileno()).st_size
            if size < read:
                raise FileChanged.saying(path, f"it shrank to {size} bytes after {read} were read")
            if clock() - last >= idle_timeout:
                return
            yield IDLE
            sleep(POLL)


class Printer:
    """Prints a stream's findings as they come, in one of the streaming formats."""

    def __init__(self, fmt: str, path: str, *, console=None, show_hex: bool = True, cap: int = 200,
                 out=None):
        self.fmt = fmt
        self.path = path
        self.console = console
        self.show_hex = show_hex
        self.cap = cap  # per rule, as --max-per-rule keeps
        self.out = out if out is not None else sys.stdout
        self.printed: dict[str, int] = {}
        self.annotated = 0
        self.headed = False  # the rich header line printed (before the first finding)

    def found(self, linter: StreamLinter, diags) -> None:
        from ..render import _render_rich

        for d in diags:
            n = self.printed.get(d.code, 0)
            if n >= self.cap:
                continue
            self.printed[d.code] = n + 1
            if self.fmt == "json-lines":
                self.out.write(_render_jsonl.line(self.path, d))
            elif self.fmt == "github":
                if self.annotated < _render_github.DEFAULT_CAP:
                    self.annotated += 1
                    self.out.write(_render_github.command(self.path, d) + "\n")
            else:
                if not self.headed:
                    self.headed = True
                    self.console.print(_render_rich.Styled(self._header(linter), "bold"))
                self.console.print(_render_rich.diagnostic_text(d))
                if self.show_hex and d in linter.with_bytes:
                    _render_rich.render_hex(self.console, d, linter.excerpts)
        if diags:  # a pipe or a file is block-buffered: the findings go out now
            (self.console.file if self.fmt == "rich" else self.out).flush()

    def _header(self, linter: StreamLinter) -> str:
        from ..render import _render_rich

        walk = linter.feeder.walk
        if linter.bytes_received == 0:  # no bytes: no format, no byte order
            return _render_rich.stream_header_line(self.path, "empty", None)
        if walk is None or walk.not_fxt:
            return _render_rich.stream_header_line(self.path, None if walk is None else "not an FXT file", None)
        return _render_rich.stream_header_line(self.path, "log" if walk.log else "trace",
                                               "big" if walk.big else "little")

    def end(self, report: FileReport, quiet: bool) -> None:
        from ..render import _render_rich

        if self.fmt == "github":
            self.out.write(_render_github.summary([report], self.annotated) + "\n")
            return
        if self.fmt != "rich":
            return
        hidden = {c: n - self.printed.get(c, 0) for c, n in report.counts.items() if n > self.printed.get(c, 0)}
        if hidden:
            per_code = ", ".join(f"{c}: {n}" for c, n in sorted(hidden.items()))
            self.console.print(f"  {sum(hidden.values())} more not shown ({per_code})")
        dropped = _render_rich.buffer_full_line(report)
        if dropped is not None:
            self.console.print(dropped)
        if not quiet:
            self.console.print(_render_rich.summary_line(report))


STREAMING = ("rich", "json-lines", "github")


def lint_stream(chunks, path: str, *, input_format: str, sink: DiagnosticSink, printer: Printer | None,
                buffering_mode: str | None = None) -> tuple[FileReport, StreamLinter]:
    """Feed ``chunks`` to a StreamLinter, handing what each feed finds to ``printer``
    (None: print nothing as it comes). Ctrl-C ends the stream where it is."""
    linter = StreamLinter(input_format=input_format, sink=sink, path=path, hex_bytes=True,
                          buffering_mode=buffering_mode)
    try:
        for chunk in chunks:
            found = linter.flush() if chunk is IDLE else linter.feed(chunk)
            if printer is not None and found:
                printer.found(linter, found)
    except KeyboardInterrupt:
        print(f"fxtlint: {path}: interrupted after {linter.bytes_received} bytes", file=sys.stderr)
    found = linter.close()
    if printer is not None:
        printer.found(linter, found)
    assert linter.report is not None
    return linter.report, linter

