"""JSON text written as ``json.dumps`` writes it, for the export and the canonical decoding.

``Lines`` writes the items of a JSON array one per line: the texts of records decoded one
by one, and the bytes the native walk's rows mode formats (``_nwalk_rows.pxi``), straight
to the output's bytes layer where it has one. ``key`` is an object key as ``json.dumps``
writes it (the rows mode's plans hold such texts).
"""

from __future__ import annotations

import codecs
import json
import os


def key(name: str) -> str:
    """A key as ``json.dumps`` writes it in an object, with its separator."""
    return f"{json.dumps(name, ensure_ascii=False)}: "


def _bytes_layer(out):
    """The binary buffer under text stream ``out`` when UTF-8 bytes written to it are what
    writing their text would write (UTF-8, no newline translation), else None."""
    raw = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if raw is None or not encoding or os.linesep != "\n":
        return None
    try:
        return raw if codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None


class Lines:
    """Writes batches of texts to ``out`` as the items of a JSON array, one per line:
    ``opening`` before the first, ",\n" between; ``empty`` until one is written. A batch
    is a list of str (``__call__``) or of UTF-8 bytes the native walk's rows mode wrote
    (``raw``); the latter go to the stream's bytes layer when it has one (its text layer
    flushed first, to keep the order), else decoded."""

    def __init__(self, out, opening: str):
        self.out = out
        self.opening = opening
        self.empty = True
        self._raw = _bytes_layer(out)

    def __call__(self, texts) -> None:
        if not len(texts):
            return
        lead = self.opening if self.empty else ",\n"
        self.empty = False
        self.out.write(lead)
        self.out.write(",\n".join(texts))

    def raw(self, pieces: list[bytes]) -> None:
        """Pieces of UTF-8 bytes, each texts already joined by ",\n" (the native walk's rows
        mode's), each written as it is."""
        pieces = [p for p in pieces if p]
        if not pieces:
            return
        lead = self.opening if self.empty else ",\n"
        self.empty = False
        if self._raw is not None:
            self.out.flush()
            write = self._raw.write
            write(lead.encode())
            for i, p in enumerate(pieces):
                if i:
                    write(b",\n")
                write(p)
        else:
            self.out.write(lead)
            self.out.write(",\n".join(str(p, "utf-8") for p in pieces))

    def drain(self, sink) -> None:
        """The text the rows mode's ``sink`` wrote since it was last cleared (``RowSink.
        text_view``: a view of its buffer, no copy), written as one piece (``raw``), then
        let go."""
        text = sink.text_view()
        if text is not None:
            try:
                self.raw([text])
            finally:
                text.release()
                sink.clear_text()
