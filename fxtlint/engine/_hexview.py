"""Hex dump rows with the offending bytes marked: pure text, no terminal, no files.

``hex_rows`` turns a window of a buffer (bytes, or an mmap of the whole file) into
rows of text plus the column ranges that hold the bytes of a span; renderers style
those ranges (rich) or underline them with ``marker_line`` (plain text, docs).
Only the rows a reader needs are touched, so a 4 GiB record costs a few rows.
"""

from __future__ import annotations

from ..spec._frozen import F, Frozen

WIDTH = 16  # bytes per row
HEAD = 64  # bytes always shown from the start of a window
SPAN_ROWS = 4  # a span over more rows shows its first and last SPAN_ROWS // 2
ELLIPSIS = "\u2026"


class Row(Frozen):
    """One line of a dump: ``offset`` is the absolute offset of its first byte,
    ``None`` for an elision row; ``marks`` are ``[start, end)`` columns of ``text``."""

    offset: int | None
    text: str
    marks: tuple[tuple[int, int], ...]
    _spec = (F("offset"), F("text"), F("marks", ()))

    def __init__(self, offset: int | None, text: str, marks: tuple[tuple[int, int], ...] = ()):
        self.__dict__.update(offset=offset, text=text, marks=marks)


def record_window(
    offset: int, record_size: int | None, span: tuple[int, int] | None, size: int
) -> tuple[int, int]:
    """The ``[start, end)`` bytes to dump for a record, clamped to a file of ``size``.

    Without a ``record_size`` the window is one row, stretched to cover the span.
    """
    start = min(max(offset, 0), size)
    if record_size is not None:
        end = offset + max(record_size, 0)
    else:
        end = offset + WIDTH
        if span is not None:
            end = max(end, span[1])
    return start, max(start, min(end, size))


def _visible_rows(start: int, end: int, span, head: int | None) -> list[int]:
    """Row starts (absolute, aligned to ``start``) to show, ascending."""
    n_rows = -(-(end - start) // WIDTH)
    if head is None:
        return [start + i * WIDTH for i in range(n_rows)]
    shown = set(range(min(n_rows, -(-head // WIDTH))))
    if span is not None:
        lo, hi = max(span[0], start), min(span[1], end)
        if lo < hi:
            first, last = (lo - start) // WIDTH, (hi - 1 - start) // WIDTH
            rows: range | list[int] = range(first, last + 1)
            if len(rows) > SPAN_ROWS:
                half = SPAN_ROWS // 2
                rows = list(rows[:half]) + list(rows[-half:])
            shown.update(rows)
    return [start + i * WIDTH for i in sorted(shown)]


def hex_rows(
    buf,
    start: int,
    end: int,
    span: tuple[int, int] | None = None,
    *,
    head: int | None = HEAD,
) -> list[Row]:
    """Rows dumping ``buf[start:end]``, with offsets printed as absolute.

    Shows the first ``head`` bytes (all of them when ``head`` is None) and every row
    that holds a byte of ``span``; a skipped stretch becomes one "…" row that says
    how many bytes it hides. Rows are aligned to ``start``, not to multiples of 16.
    """
    if end <= start:
        return []
    ow = max(8, len(f"{end - 1:x}"))
    hex_at = ow + 2  # column of the first hex digit
    ascii_at = hex_at + 3 * WIDTH + 1 + 2  # past "|"

    def col(i: int) -> int:
        return hex_at + 3 * i + (1 if i >= WIDTH // 2 else 0)

    def elision(n: int) -> Row:
        return Row(None, " " * hex_at + f"{ELLIPSIS} {n} byte{'s' if n != 1 else ''}")

    rows: list[Row] = []
    at = start
    for row in _visible_rows(start, end, span, head):
        if row > at:
            rows.append(elision(row - at))
        chunk = bytes(buf[row : min(row + WIDTH, end)])
        cells = [f"{b:02x}" for b in chunk]
        hexpart = " ".join(cells[: WIDTH // 2])
        if len(cells) > WIDTH // 2:
            hexpart += "  " + " ".join(cells[WIDTH // 2 :])
        text = (
            f"{row:0{ow}x}  {hexpart:<{3 * WIDTH}}  |"
            + "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
            + "|"
        )
        marks: tuple[tuple[int, int], ...] = ()
        if span is not None:
            lo, hi = max(span[0], row), min(span[1], row + len(chunk))
            if lo < hi:
                i0, i1 = lo - row, hi - row
                marks = ((col(i0), col(i1 - 1) + 2), (ascii_at + i0, ascii_at + i1))
        rows.append(Row(row, text, marks))
        at = row + len(chunk)
    if at < end:
        rows.append(elision(end - at))
    return rows


def marker_line(row: Row) -> str | None:
    """A line of ``^`` under the marked columns of ``row``, or None if it has none."""
    if not row.marks:
        return None
    line = [" "] * max(e for _, e in row.marks)
    for s, e in row.marks:
        line[s:e] = "^" * (e - s)
    return "".join(line)


def dump(buf, start: int = 0, end: int | None = None, span=None, *, head=HEAD) -> str:
    """Plain text: the rows, each marked row followed by its marker line."""
    end = len(buf) if end is None else end
    out: list[str] = []
    for row in hex_rows(buf, start, end, span, head=head):
        out.append(row.text)
        mark = marker_line(row)
        if mark is not None:
            out.append(mark)
    return "\n".join(out)


class Excerpts:
    """The bytes the hex views of some diagnostics show, copied from the buffer they
    were linted from. A worker process of ``fxtlint check -j`` sends these back instead
    of the file, so the parent draws the hex views of a serial run without opening
    the file again (the bytes shown are the bytes linted).

    It answers what ``dump``/``hex_rows`` ask of a buffer: ``len`` and the one-row
    slices of each diagnostic's window; any other slice is a bug and raises KeyError.
    """

    def __init__(self, buf, diagnostics) -> None:
        self.size = len(buf)
        self._rows: dict[int, bytes] = {}
        self.add(buf, diagnostics)

    def add(self, buf, diagnostics) -> None:
        """Copy the rows of more diagnostics (a stream's, from its buffer as it grows)."""
        self.size = max(self.size, len(buf))
        for d in diagnostics:
            start, end = record_window(d.offset, d.record_size, d.span, self.size)
            for row in _visible_rows(start, end, d.span, HEAD):
                chunk = bytes(buf[row : min(row + WIDTH, end)])
                if len(chunk) > len(self._rows.get(row, b"")):
                    self._rows[row] = chunk

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: slice) -> bytes:
        if not isinstance(index, slice) or index.start not in self._rows:
            raise KeyError(f"no excerpt copied for {index!r}")
        return self._rows[index.start][: index.stop - index.start]
