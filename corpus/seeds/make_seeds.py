"""Writes the fuzzing seeds: the rule examples (failing and passing) and the sample trace.

python corpus/seeds/make_seeds.py   (jane-tracing-small.fxt is a copy of a real trace)
"""

from pathlib import Path

from fxtlint.rules import all_rules

here = Path(__file__).parent
for rule in all_rules():
    for tag, ex in (("bad", rule.bad), ("good", rule.good)):
        data = ex.build()
        if len(data) <= 4096:  # fuzzers work best on small seeds
            (here / f"{rule.code}-{tag}.{'log' if ex.input_format == 'log' else 'fxt'}").write_bytes(data)
print(f"wrote seeds to {here}")
