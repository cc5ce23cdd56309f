#!/usr/bin/env bash
# Regenerates the suite, then grades fxtlint and fxt 0.3.0 and renders the matrices.
# Run from the repository root with fxtlint and fxt==0.3.0 importable by `python`
# (pip install '.[readers]'); about two minutes on two cores.
set -euo pipefail
R=corpus/conformance/results
python corpus/conformance/generate.py
python -m fxtlint conformance run --reader "python corpus/conformance/adapters/fxtlint_reader.py" --path \
    --name "fxtlint 0.1.0" --jobs 2 --json "$R/fxtlint.json" > /dev/null
python -m fxtlint conformance run --reader "python corpus/conformance/adapters/fxt_reader.py" \
    --name "fxt 0.3.0" --jobs 2 --json "$R/fxt-0.3.0.json" > /dev/null || true  # fxt fails cases: exit 1
python -m fxtlint conformance matrix "$R/fxtlint.json" "$R/fxt-0.3.0.json" -o "$R/matrix.md"
python -m fxtlint conformance matrix "$R/fxtlint.json" "$R/fxt-0.3.0.json" --format html -o "$R/matrix.html"
echo "now update the pass counts in README.md and corpus/conformance/results/README.md if they changed"
