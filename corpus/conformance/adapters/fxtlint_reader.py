"""Conformance adapter for fxtlint's own reader (python fxtlint_reader.py [FILE] < FILE).

Reads FILE, or stdin without one; prints the canonical decoding. Exit 0: accepted (writer
errors a reader may read through are notes on stderr); exit 1: rejected, with the records
before the first fault a reader must reject on stdout and the faults on stderr. The same
as ``fxtlint decode FILE``.
"""

import sys
from pathlib import Path

try:
    from fxtlint.reader_suite._canonical import decode
except ImportError:  # not installed: use the checkout this adapter sits in
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from fxtlint.reader_suite._canonical import decode


def main(argv) -> int:
    data = Path(argv[1]).read_bytes() if len(argv) > 1 else sys.stdin.buffer.read()
    dec = decode(data)
    sys.stdout.write(dec.to_json())
    for e in dec.errors:
        print(e, file=sys.stderr)
    for n in dec.notes:
        print(f"note: {n}", file=sys.stderr)
    return 0 if dec.accepted else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
