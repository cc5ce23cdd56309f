"""Layout rules: framing, reserved bits, streams and sizes, magic, undefined types, extensions.

Codes by family: FR framing, RB reserved bits, ST streams and sizes, MG magic,
UN undefined types and values, EX extensions and notes.
"""

from __future__ import annotations

from ..spec._model import Record
from ._diagnostics import Example, Rule, Severity
from ._later import Later, LaterModule

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from ..spec import _build as B
    from . import _ex as X
    from . import _mutate as M
else:  # the builders and the mutations' helpers, imported at their first use (``_later``)
    B = LaterModule("fxtlint.spec._build", globals(), "B")
    X = LaterModule("fxtlint.rules._ex", globals(), "X")
    M = LaterModule("fxtlint.rules._mutate", globals(), "M")

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 - the severities' letters


def _n(count: int, unit: str) -> str:
    """"1 word", "2 words"."""
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def _set_bits(p: dict) -> dict:
    """Which bits of a reserved field are set, by their position in the word."""
    v, lo = p["value"], p["lo"]
    bits = [lo + i for i in range(v.bit_length()) if v >> i & 1]
    shown = ", ".join(map(str, bits[:8])) + (", ..." if len(bits) > 8 else "")
    name = "reserved bits" if p["field"].startswith("reserved") else f"field {p['field']}"
    return {"set": f"bit {shown} is" if len(bits) == 1 else f"bits {shown} are", "name": name}


def _swapped(p: dict) -> dict:
    """FR001/FR002: the clause saying the header frames in the other byte order, if it does."""
    if p.get("other_byte_order_kind") is None:
        return {"swapped": ""}
    other = p["other_byte_order"]
    this = "little" if other == "big" else "big"
    return {"swapped": f"; read {other}-endian it is a valid {p['other_byte_order_kind']} header: the file "
                       f"mixes byte orders (the magic record says {this}-endian)"}


def _size_short(p: dict) -> dict:
    """ST001: when the content settled the size, by how much it is short and what follows."""
    if "content_words" not in p:
        return {"short": ""}
    kind = p.get("next_kind")
    follows = "the file ends right after it" if kind is None else f"a valid {kind} header follows it"
    return {"short": f": the size is probably {_n(p['content_words'] - p['words'], 'word')} too small "
                     f"({follows}); reading resumes after the content"}


def _article(word: str) -> str:
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def _magic_found(p: dict) -> dict:
    """MG001: where the magic record is, and what the file starts with instead."""
    place = "missing" if p.get("magic_index") is None else f"record {p['magic_index']}, not the first"
    if "first_kind" in p:
        kind = p["first_kind"]
        found = f"the file starts with {_article(kind)} {kind} record (first bytes: {p['first']})"
    else:
        found = f"the file is only {p['length']} bytes long" if p["length"] else "the file is empty"
    return {"place": place, "found": found}


def _trailing_reason(p: dict) -> dict:
    """EX001: why the words are there: an argument's payload, or an extension."""
    if "short_argument" in p:
        return {"reason": f": probably the rest of argument {p['short_argument']}, whose declared size is too small "
                          "(see ST005), not an extension", "n_words": _n(p["n"], "word")}
    return {"reason": " (an extension the spec allows)", "n_words": _n(p["n"], "word")}


def _which_string(p: dict) -> dict:
    """ST004: which string of which record: 'the name string of the event.instant record', 'the value of
    the string record for index 3', 'the value string of argument 0 "k" (string) of the event.instant record'."""
    arg = f"{p['arg']} of " if p.get("arg") else ""
    index = f" for index {p['index']}" if p.get("index") is not None else ""
    return {"which": f"the {p['part']} of {arg}the {p['record']} record{index}"}


def _declared_args(p: dict) -> dict:
    """ST006, ST007: how many arguments the record's header declares, where it has a count."""
    return {"declared": "" if p.get("count") is None else f" (its record's header declares {_n(p['count'], 'argument')})"}


def _padding_hint(p: dict) -> str:
    """ST002: the padding left out (the next record's header follows the stream), or a
    length one too short (the stream's text spills into the padding)."""
    if "next_kind" in p:
        return (f"; the padding is missing: the bytes right after the {p['part']} are a {p['next_kind']} "
                f"record header, so the next record starts {_n(p['missing'], 'byte')} early")
    if "suggested_length" in p:
        return (f"; the first non-zero byte directly follows the {p['part']}: is its length "
                f"{p['suggested_length']}, not {p['length']}?")
    return ""


def _ev(**kw):
    return B.event("instant", 100, **kw)


# ---------------------------------------------------------------- framing
record_size_zero = Rule(
    code="FR001",
    name="record-size-zero",
    severity=E,
    scope=("file",),
    reader_reason="size-zero",
    mutation=Later(lambda: M.size_zero),
    message="record header declares a size of 0 words; the {remaining} bytes from here on cannot be framed{swapped}",
    params=('remaining', 'other_byte_order?', 'other_byte_order_kind?'),
    positions=('remaining',),
    derived=('swapped',),
    what="A record header whose size field is 0.",
    why="Every record includes its header word, so the smallest size is 1. A reader "
    "cannot skip a record of size 0: the walk stops here and everything after it is lost "
    "(some readers loop forever).",
    bad=Example("a magic record, then a header of size 0", lambda: X.preamble() + B.words(0x0)),
    good=Example("a magic record, then an initialization record of size 2", lambda: X.preamble(B.initialization(1000))),
    spec="Record Header: [4 .. 15] record size (inclusive of this word)",
    derive=_swapped,
)

record_past_end_of_file = Rule(
    code="FR002",
    name="record-past-end-of-file",
    severity=E,
    scope=("file",),
    reader_reason="truncated",
    mutation=Later(lambda: M.truncated),
    message="record declares {words_n} ({bytes} bytes) but only {remaining} bytes remain: the file ends inside this record, or its size is wrong{swapped}",
    params=('bytes', 'remaining', 'words', 'other_byte_order?', 'other_byte_order_kind?'),
    positions=('remaining',),
    derived=('words_n', 'swapped'),
    what="A record whose declared size reaches past the end of the file.",
    why="The file was cut off while the record was written (a crash, a full disk, a "
    "partial copy), or the size field is wrong. Everything before it is still readable. "
    "When the header frames cleanly read in the other byte order, the message says so: "
    "the writer mixed byte orders (a big-endian magic record before little-endian "
    "records, or a switch mid-file).",
    bad=Example("a string record whose last word is missing", lambda: X.preamble(B.string(3, "truncated"))[:-8]),
    good=Example("the same string record, whole", lambda: X.preamble(B.string(3, "truncated"))),
    spec="Records: records are always a multiple of 8 bytes; Record Header [4 .. 15]",
    derive=lambda p: {"words_n": _n(p["words"], "word"), **_swapped(p)},
)

file_length_not_aligned = Rule(
    code="FR003",
    name="file-length-not-aligned",
    severity=E,
    scope=("file",),
    reader_reason="truncated",
    mutation=Later(lambda: M.unaligned),
    message="file length {length} is not a multiple of 8: the last {extra} bytes are not a record",
    params=('extra', 'length'),
    positions=('length',),
    what="A file whose length is not a multiple of 8 bytes.",
    why="Records are always a multiple of 8 bytes long, so an archive is too. The trailing "
    "bytes are a partial header or junk appended to the trace.",
    bad=Example("a clean archive followed by 3 stray bytes", lambda: X.preamble() + b"\x01\x02\x03"),
    good=Example("the clean archive alone", lambda: X.preamble()),
    spec="Records: records are always a multiple of 8 bytes in length",
)

# ---------------------------------------------------------------- reserved bits
reserved_bits_set = Rule(
    code="RB001",
    name="reserved-bits-set",
    severity=E,
    scope=("layout:reserved",),
    reader_reason="reserved-fields",
    mutation=Later(lambda: M.reserved),
    message="{where}: {name} {lo}..{hi} must be zero, but {set} set (the field holds {value:#x})",
    params=('expected', 'field', 'hi', 'lo', 'value', 'where'),
    derived=('set', 'name'),
    what="A reserved field of a record header (or of a word with sub-fields) that is not zero.",
    why="Reserved bits are where the format grows: a reader of a later revision will "
    "give them a meaning, and yours will then be misread. Non-zero reserved bits are also "
    "the usual sign of a field written at the wrong shift.",
    bad=Example("a thread record with bit 40 set", lambda: X.preamble()
                + X.with_header_bits(B.archive(B.thread(2, 10, 12)), 1 << 40)),
    good=Example("the same thread record with its reserved bits clear", lambda: X.preamble(B.thread(2, 10, 12))),
    spec="Fields: all unused bits are reserved for future use and must be set to 0",
    derive=_set_bits,
)

argument_reserved_bits_set = Rule(
    code="RB002",
    name="argument-reserved-bits-set",
    severity=E,
    scope=("arg_layout:reserved",),
    reader_reason="reserved-fields",
    mutation=Later(lambda: M.arg_reserved),
    message="{where}: {name} {lo}..{hi} must be zero, but {set} set (the field holds {value:#x})",
    params=('expected', 'field', 'hi', 'lo', 'value', 'where'),
    derived=('set', 'name'),
    what="A reserved field of an argument header that is not zero (for example bits "
    "[32..63] of a 64-bit integer argument, or [33..63] of a bool argument).",
    why="The argument header's upper half is reserved unless the type uses it; a writer "
    "that puts a value there wrote the wrong argument type or the wrong layout.",
    bad=Example("an int64 argument with its value also written into the header", lambda: X.preamble()
                + X.with_word(B.archive(_ev(args=[B.arg("int64", 1, 7)])), 2,
                              B.read_field(B.archive(_ev(args=[B.arg("int64", 1, 7)])), B.WORD, word=2) | (7 << 32))),
    good=Example("the same argument with the header's upper half zero", lambda: X.preamble(_ev(args=[B.arg("int64", 1, 7)]))),
    spec="Argument Header: [32 .. 63] varies (must be zero if not used)",
    derive=_set_bits,
)

always_zero_bit_set = Rule(
    code="RB003",
    name="always-zero-bit-set",
    severity=E,
    scope=("layout:zero",),
    reader_reason="always-zero",
    mutation=Later(lambda: M.always_zero),
    message="{where}: bit {lo} ({field}) is always zero but is set; a length or index over 15 bits has overflowed into it",
    params=('expected', 'field', 'hi', 'lo', 'value', 'where'),
    what="One of the spec's fixed \"always zero\" bits is set: bit 31 or 47 of a string "
    "record, bit 31 of a log record, bits [56..63] of the magic record.",
    why="These bits sit directly above a 15-bit index or length. A set bit almost always "
    "means the writer stored a value of 32768 or more into a 15-bit field.",
    bad=Example("a string record whose length overflowed into bit 47", lambda: X.preamble()
                + X.with_header_bits(B.archive(B.string(3, "abc")), 1 << 47)),
    good=Example("the same string record, length within 15 bits", lambda: X.preamble(B.string(3, "abc"))),
    spec="String Record: [31] always zero, [47] always zero",
)

# ---------------------------------------------------------------- streams and sizes
content_overruns_record = Rule(
    code="ST001",
    name="content-overruns-record",
    severity=E,
    scope=("records",),
    reader_reason="overrun",
    mutation=Later(lambda: M.short_record),
    message="{where}: its {part} needs {need} bytes but the record's size leaves {have}{short}",
    params=('have', 'need', 'part', 'where', 'words?', 'content_words?', 'next_kind?'),
    derived=('short',),
    what="A record whose declared content (words, inline strings, streams, arguments) does "
    "not fit in the size its header declares.",
    why="The size field and the content disagree, so one of them is wrong; a reader that "
    "trusts the content reads into the next record. When the size is what is wrong (the "
    "records framed from the content's end are well formed, or the file ends there, and "
    "those framed from the declared end are not), the message says by how many words, "
    "fxtlint reads the record to its content's end and goes on from there: a writer "
    "that leaves a word out of the size (an argument, an inline thread's koids) gets one "
    "finding, not made-up records built from its last words. Otherwise fxtlint reads "
    "nothing past the record.",
    bad=Example("an event record of size 1: its timestamp word is missing", lambda: X.preamble()
                + X.with_size(B.archive(_ev()), 1)[:8]),
    good=Example("the same event with its timestamp", lambda: X.preamble(_ev())),
    spec="Record Header: record size (inclusive of this word)",
    derive=_size_short,
)

padding_not_zero = Rule(
    code="ST002",
    name="padding-not-zero",
    severity=E,
    scope=("text", "kind:blob", "kind:large.blob.with_metadata", "kind:large.blob.no_metadata", "arg:blob"),
    reader_reason="zero-padding",
    mutation=Later(lambda: M.dirty_padding),
    message="{where}: the padding after the {part} is not zero{hint}",
    params=('part', 'where', 'length?', 'suggested_length?', 'next_kind?', 'missing?'),
    derived=('hint',),
    what="Bytes between the end of a stream (inline string, string record, blob payload) "
    "and the next 8-byte boundary that are not zero.",
    why="Streams are padded with zeros. Non-zero padding leaks memory contents into the "
    "trace and usually means a length field too short: when the first non-zero byte "
    "directly follows the stream and its text runs on from it (printable UTF-8, up to the "
    "first zero byte or byte that is not text, read no further than the record), the "
    "message suggests the length "
    "that would include it, if that length fits the record: the stream so padded ends where "
    "the declared one does, or, for a stream that ends its record or argument, where that "
    "ends. Otherwise it guesses no length. "
    "When the bytes right after a stream that ends its record read as the next record's "
    "header (the records framed from there are well formed, those framed from the padded "
    "end are not), the writer left the padding out and the message says so.",
    bad=Example("the string record \"abc\" padded with 'x'", lambda: X.preamble()
                + X.with_byte(B.archive(B.string(3, "abc")), 8 + 3, ord("x"))),
    good=Example("the same record with zero padding", lambda: X.preamble(B.string(3, "abc"))),
    spec="Atoms: Stream: a sequence of bytes padded with zeros to the next 8 byte boundary",
    derive=lambda p: {"hint": _padding_hint(p)},
)

invalid_utf8 = Rule(
    code="ST003",
    name="invalid-utf8",
    severity=E,
    scope=("text",),
    reader_reason="not-utf8",
    mutation=Later(lambda: M.bad_utf8),
    message="{where}: the {part} is not valid UTF-8 ({reason} at byte {at})",
    params=('at', 'part', 'reason', 'where'),
    what="A string (string record, inline string, provider name, log message) whose "
    "bytes are not UTF-8.",
    why="String content is stored as UTF-8. Readers differ on what they do with other "
    "bytes: replace, drop the record, or fail the whole trace.",
    bad=Example("the string record holding bytes ff fe", lambda: X.preamble()
                + X.with_byte(X.with_byte(B.archive(B.string(3, "ab")), 8, 0xFF), 9, 0xFE)),
    good=Example("the same record holding \"ab\"", lambda: X.preamble(B.string(3, "ab"))),
    spec="String References: string content itself is stored as a UTF-8 Stream",
)

string_too_long = Rule(
    code="ST004",
    name="string-too-long",
    severity=E,
    scope=("text",),
    reader_reason="string-limit",
    mutation=lambda recs, pick: B.archive(*recs, B.string(M.fresh_index(recs), "x" * (M.TABLES.max_string_length + 1))),
    message="{which} is {length} bytes, over the spec's limit of {limit}",
    params=('length', 'limit', 'part', 'record', 'arg?', 'index?'),
    derived=('which',),
    what="A string of a trace longer than 32000 bytes. Structured-log streams have no "
    "such limit (only their 32 KiB record), so it is not applied to them.",
    why="The spec sets a conservative maximum string length of 32000 bytes; writers and "
    "readers size their buffers by it.",
    bad=Example("a string record of 32001 bytes", lambda: X.preamble(B.string(3, "a" * 32001))),
    good=Example("a string record of 32000 bytes", lambda: X.preamble(B.string(3, "a" * 32000))),
    spec="String References: a conservative maximum string length limit of 32000 bytes",
    derive=_which_string,
)

argument_size_mismatch = Rule(
    code="ST005",
    name="argument-size-mismatch",
    severity=E,
    scope=("args",),
    reader_reason="argument-extra-words",  # content longer than the size: "overrun" (reason_for)
    mutation=lambda recs, pick: B.archive(*recs) + M.int64_arg_sized(pick.integers(3, 6)),
    message="{arg} declares {declared_n} but its content takes {actual}",
    params=('arg', 'declared', 'exact', 'expected', 'i', 'kind'),
    derived=('declared_n', 'actual'),
    what="An argument whose size field disagrees with the size its type and inline strings "
    "require.",
    why="Arguments are size-prefixed so that readers can skip them; a wrong size makes "
    "every reader that skips by size and every reader that decodes by type disagree. "
    "A size larger than the content stays an error, though a record may carry words after "
    "its content (EX001, an info): the spec's list of ways to extend the format names "
    "\"appending new information to existing record types\" and \"defining new argument "
    "types\", not appending to an argument, and \"all extensions must be documented "
    "authoritatively\". A reader may still read such an argument by skipping its size "
    "(the conformance suite grades it either way); content longer than the size overruns "
    "the argument, and no reader can read that.",
    bad=Example("an int64 argument declaring 3 words instead of 2", lambda: X.preamble()
                + _int64_arg_sized(3)),
    good=Example("the same argument declaring 2 words", lambda: X.preamble(_ev(args=[B.arg("int64", 1, 7)]))),
    spec="Argument Header: [4 .. 15] argument size (inclusive of this word)",
    derive=lambda p: {"declared_n": _n(p["declared"], "word"),
                      "actual": ("" if p["exact"] else "at least ") + _n(p["expected"], "word")},
)

argument_size_zero = Rule(
    code="ST006",
    name="argument-size-zero",
    severity=E,
    scope=("args",),
    reader_reason="argument-size-zero",
    mutation=lambda recs, pick: B.archive(*recs) + M.arg_sized(0),
    message="{arg} declares a size of 0 words{declared}; the record's remaining arguments cannot be read",
    params=('arg', 'i', 'count?'),
    derived=('declared',),
    what="An argument header whose size field is 0.",
    why="An argument includes its header word, so its size is at least 1; with size 0 a "
    "reader cannot skip it. Real writers have emitted this.",
    bad=Example("an event whose int32 argument has size 0", lambda: X.preamble()
                + _arg_with_size(0)),
    good=Example("the same argument of size 1", lambda: X.preamble(_ev(args=[B.arg("int32", 1, 5)]))),
    spec="Argument Header: [4 .. 15] argument size (inclusive of this word)",
    derive=_declared_args,
)

argument_overruns_record = Rule(
    code="ST007",
    name="argument-overruns-record",
    severity=E,
    scope=("args",),
    reader_reason="overrun",
    mutation=lambda recs, pick: B.archive(*recs) + M.arg_sized(pick.integers(2, 40)),
    message="{arg} declares {words_n} but its record has only {have_n} left{declared}",
    params=('arg', 'have', 'i', 'words', 'count?'),
    derived=('words_n', 'have_n', 'declared'),
    what="An argument that reaches past the end of the record holding it.",
    why="The argument's size or the record's size is wrong; reading it would read the next record.",
    bad=Example("an event whose int32 argument declares 4 words", lambda: X.preamble()
                + _arg_with_size(4)),
    good=Example("the same argument declaring 1 word", lambda: X.preamble(_ev(args=[B.arg("int32", 1, 5)]))),
    spec="Arguments: arguments are size-prefixed like ordinary records",
    derive=lambda p: {"words_n": _n(p["words"], "word"), "have_n": _n(p["have"], "word"), **_declared_args(p)},
)

string_ends_in_nul = Rule(
    code="ST008",
    name="string-ends-in-nul",
    severity=W,
    scope=("text",),
    reader_reason="well-formed",
    no_mutation="needs a string ending in NUL: see the rule's own examples",
    message="{where}: the {part} ends in a NUL byte: its length probably counts a C terminator",
    params=('length', 'part', 'where'),
    what="A string (string record, inline string, log string) whose last byte is 0.",
    why="Strings carry their length and no terminator. A writer that passes strlen + 1 "
    "(or sizeof a literal) stores the NUL, and every reader shows it as part of the text: "
    "names that look equal stop comparing equal.",
    bad=Example("the string record \"abc\\0\"", lambda: X.preamble(B.string(3, "abc\0"))),
    good=Example("the string record \"abc\"", lambda: X.preamble(B.string(3, "abc"))),
    spec="String References: string content itself is stored as a UTF-8 Stream without termination",
)

# ---------------------------------------------------------------- magic
magic_missing = Rule(
    code="MG001",
    name="magic-missing",
    severity=E,
    scope=("format:trace",),
    reader_reason="magic",
    mutation=Later(lambda: M.magic_dropped),
    message="the magic record is {place}: {found}",
    params=('first_kind?', 'first?', 'length?', 'magic_offset?', 'magic_index?'),
    positions=('magic_offset', 'magic_index', 'length'),
    derived=('place', 'found'),
    what="A trace whose first 8 bytes are not the magic record 10 00 04 46 78 54 16 00 "
    "(or its big-endian reverse), but whose records frame as trace records (a file "
    "that does not is MG005, not an FXT file). When a magic record comes later, the "
    "message says which record it is (and MG003 does not call it repeated).",
    why="The magic record is how tools recognise an FXT archive and its byte order. Files "
    "of other formats that share the name (EZTrace/LiTL \"FxT\") start differently.",
    bad=Example("a string record with no magic record before it", lambda: B.archive(B.string(1, "x"))),
    good=Example("the same string record after the magic record", lambda: B.archive(B.magic(), B.string(1, "x"))),
    spec="Magic Number Record (trace info type = 0)",
    derive=_magic_found,
)

magic_wrong_value = Rule(
    code="MG002",
    name="magic-wrong-value",
    severity=E,
    scope=("kind:metadata.trace_info.magic",),
    reader_reason="magic",
    mutation=Later(lambda: M.magic_value),
    message="a magic number record holds {value:#x} instead of {expected:#x}",
    params=('expected', 'field', 'value'),
    what="A magic number record (metadata type 4, trace info type 0) whose magic field is "
    "not 0x16547846.",
    why="The record claims to mark an FXT archive but carries the wrong number: a corrupt "
    "header or a writer that put the value at the wrong shift.",
    bad=Example("a magic record holding 0x16547847", lambda: X.with_header_bits(B.archive(B.magic()), 1 << 24)
                + B.archive(B.string(1, "x"))),
    good=Example("the exact magic record", lambda: B.archive(B.magic(), B.string(1, "x"))),
    spec="Magic Number Record: [24 .. 55] the magic number 0x16547846",
)

magic_repeated = Rule(
    code="MG003",
    name="magic-repeated",
    severity=W,
    scope=("kind:metadata.trace_info.magic",),
    reader_reason="magic-repeated",
    mutation=Later(lambda: M.append(B.magic())),
    message="a magic record at record {index}, not at the start: the lint reads on across it with every "
    "table in force (the current provider and each provider's strings, threads and tick rate carry on)",
    params=('index',),
    positions=('index',),
    what="A well-formed magic record that is not the first record (a malformed one is "
    "MG002 alone).",
    why="The magic record belongs at the start: \"generally it should appear at the start "
    "of a trace\". It \"carries no other information\", so a later one resets nothing: "
    "readers accept it and keep what they hold, and so does the lint, which reads on with "
    "the current provider and every provider's string table, thread table and tick rate "
    "carrying on across it. A magic record later in the file often means two archives were "
    "joined; the second half then reads the first half's tables wherever it does not "
    "register its own.",
    bad=Example("two archives concatenated", lambda: X.preamble() + X.preamble()),
    good=Example("one archive", lambda: X.preamble()),
    spec="Magic Number Record: generally it should appear at the start of a trace; it carries no other "
    "information",
)

magic_has_extra_words = Rule(
    code="MG004",
    name="magic-has-extra-words",
    severity=E,
    scope=("kind:metadata.trace_info.magic",),
    reader_reason="magic",
    mutation=Later(lambda: M.magic_extended),
    message="the magic record must be exactly one word but declares {words_n}",
    params=('expected', 'record', 'words'),
    derived=('words_n',),
    what="A magic record with words after its header.",
    why="The magic record is not extensible, so that the first eight bytes of a trace can "
    "be compared as one magic number.",
    bad=Example("a magic record of size 2", lambda: X.with_size(B.archive(B.magic()), 2) + B.words(0)),
    good=Example("a magic record of size 1", lambda: B.archive(B.magic())),
    spec="Magic Number Record: the record must not contain any words other than the header word",
    derive=lambda p: {"words_n": _n(p["words"], "word")},
)

not_fxt_file = Rule(
    code="MG005",
    name="not-fxt-file",
    severity=E,
    scope=("file",),
    reader_reason="not-fxt",
    no_mutation="a whole file that is not FXT: see the rule's own examples",
    message="not an FXT file: there is no magic record and the first bytes do not frame as trace records{looks} (first bytes: {first})",
    params=('first', 'looks_like'),
    derived=('looks',),
    what="A file that is not a Fuchsia trace at all: it does not start with the magic "
    "record and its first header does not frame as a trace record of a defined type.",
    why="Linting it as a trace would only produce a cascade of framing and layout "
    "errors about bytes that were never meant as records. fxtlint says so once and "
    "stops. (EZTrace/LiTL files are also called \"FxT\"; images and text files end up "
    "named .fxt too.)",
    bad=Example("the first bytes of a PNG image", lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(24))),
    good=Example("an archive that starts with the magic record", lambda: B.archive(B.magic(), B.string(1, "x"))),
    spec="Magic Number Record: the first record of a trace",
    derive=lambda p: {"looks": f"; it looks like {p['looks_like']}" if p["looks_like"] else ""},
)

# ---------------------------------------------------------------- undefined types and values
unknown_record_type = Rule(
    code="UN001",
    name="unknown-record-type",
    severity=W,
    scope=("records:trace",),
    reader_reason="unknown-record",
    mutation=Later(lambda: M.unknown_type),
    message="record type {value} is not defined; the record was skipped by its size",
    params=('value',),
    what="A record whose type (bits [0..3]) is not one the spec defines (10 to 14).",
    why="The format is extensible and readers skip such records, but a type that no spec "
    "defines is more often corruption than an extension.",
    bad=Example("a record of type 12", lambda: X.preamble(B.unknown(12, b"\0" * 8))),
    good=Example("a record of type 1", lambda: X.preamble(B.initialization(1000))),
    spec="Record Types; Extending the Format",
)

unknown_record_subtype = Rule(
    code="UN002",
    name="unknown-record-subtype",
    severity=W,
    scope=("layout:selector",),
    reader_reason="unknown-record",
    mutation=Later(lambda: M.unknown_event_type),
    message="{record}: {field} {value} is not defined; the record was skipped by its size",
    params=('field', 'record', 'value'),
    what="A metadata type, trace info type, event type, scheduling record type, large "
    "record type or large blob format the spec does not define.",
    why="Readers skip what they do not know, so the record's content is lost to them.",
    bad=Example("an event record of event type 11", lambda: X.preamble()
                + X.with_header_bits(B.archive(_ev()), 11 << X.field("event.instant", "event_type").lo)),
    good=Example("an instant event (event type 0)", lambda: X.preamble(_ev())),
    spec="Metadata Record; Event Record; Scheduling Record; Large Record Header",
)

unknown_argument_type = Rule(
    code="UN003",
    name="unknown-argument-type",
    severity=W,
    scope=("args",),
    reader_reason="unknown-argument",
    mutation=Later(lambda: M.unknown_arg_type),
    message="{arg} has type {value}, which is not defined; it was skipped by its size",
    params=('arg', 'i', 'value'),
    what="An argument whose type (bits [0..3]) is not one of 0 to 10.",
    why="Arguments are size-prefixed precisely so that readers can skip unknown types; "
    "the argument's value is lost to them.",
    bad=Example("an event with an argument of type 12", lambda: X.preamble(_ev(args=[B.raw_arg(12, 1, b"\0" * 8)]))),
    good=Example("an event with a uint64 argument", lambda: X.preamble(_ev(args=[B.arg("uint64", 1, 1)]))),
    spec="Argument Types",
)

undefined_enum_value = Rule(
    code="UN004",
    name="undefined-enum-value",
    severity=W,
    scope=("checks",),
    reader_reason="enum-value",
    mutation=Later(lambda: M.undefined_blob_type),
    message="{where}: {field} {value} is not a defined {enum} value",
    params=('enum', 'field', 'value', 'where'),
    what="A field with enumerated values (thread state, blob type, kernel object type, "
    "provider event) holding a value the spec does not define.",
    why="Consumers map these values to names and behaviour; an undefined one is shown as "
    "unknown, or dropped.",
    bad=Example("a blob record of blob type 9", lambda: X.preamble(B.blob(1, b"data", blob_type=9))),
    good=Example("a blob record of blob type 1 (data)", lambda: X.preamble(B.blob(1, b"data", blob_type=1))),
    spec="Blob Types; Thread States; Provider Event Metadata; Kernel Object Record",
)

# ---------------------------------------------------------------- extensions and notes
trailing_words = Rule(
    code="EX001",
    name="trailing-words",
    severity=I,
    scope=("records:trace",),
    reader_reason="appended-words",
    mutation=Later(lambda: M.trailing),
    message="{record} has {n_words} after its defined content{reason}",
    params=('n', 'record', 'short_argument?'),
    derived=('n_words', 'reason'),
    what="A record whose size leaves words after everything its layout defines.",
    why="Appending words is a documented way to extend a record, and real writers do it "
    "(a \"scope\" word on instant events, two words on the initialization record); "
    "readers ignore them. It is worth knowing, never an error.",
    bad=Example("an initialization record with one extra word", lambda: X.preamble()
                + B.archive(Record(1, "initialization", {"ticks_per_second": 1000}, extra_words=(7,)))),
    good=Example("an initialization record of 2 words", lambda: X.preamble(B.initialization(1000))),
    spec="Extending the Format: appending new information to existing record types",
    derive=_trailing_reason,
)

record_size_too_large = Rule(
    code="FR004",
    name="record-size-too-large",
    severity=W,
    scope=("records:trace",),
    reader_reason="appended-words",
    no_mutation="needs a size one too large that swallows a valid header: see the rule's own examples",
    message="{record} has {n_words} after its defined content, and the first is a valid {kind} header: the size may be {n} too large{consequence}",
    params=('kind', 'n', 'record', 'resumes_at?', 'skipped?', 'lands?', 'recovery?'),
    positions=('resumes_at', 'skipped', 'lands', 'recovery'),
    derived=('n_words', 'consequence'),
    what="A record with words after its defined content whose first such word is itself "
    "a well-formed record header (a defined type and subtype, reserved bits clear, a "
    "size that fits in the file).",
    why="The spec frames every record by its header's size (\"[4 .. 15] record size "
    "(inclusive of this word)\") and lets a writer append words to a record (\"the "
    "presence of this information can be detected by examining the record's size\"). "
    "So a reader following the size reads these words as part of the record and goes on "
    "after them: if they are the next record, written by a writer whose size is too large, "
    "that reader never sees it. The lint reads as that reader does, by the declared size, "
    "and this message names the records it skips and whether the size ends inside one. "
    "What the reader loses is then reported by the rule it breaks, at the severity of that "
    "rule: a string or thread the skipped records registered and a later record names is "
    "unregistered (RF001, RF002: errors), a size that ends inside a record frames that "
    "record's words as headers (FR001, FR002: errors). When nothing a later record needs "
    "is lost, the words are an extension as far as the spec can tell, and this stays a "
    "warning. Recovery (`decode`, `export`, the reader's records) frames such a record "
    "to its content and reads on from the swallowed header when the records framed from "
    "there are well formed and those framed from the declared end are not (its message "
    "then says \"reading resumes at that header\"); the lint's verdict never does.",
    bad=Example("a string record whose size is too large, swallowing a whole thread record",
                lambda: X.preamble() + X.with_size(B.archive(B.string(3, "abc")), 5)
                + B.archive(B.thread(2, 10, 12))),
    good=Example("the same records with the right size", lambda: X.preamble(B.string(3, "abc"), B.thread(2, 10, 12))),
    spec="Record Header: [4 .. 15] record size (inclusive of this word); Extending the Format: the "
    "presence of this information can be detected by examining the record's size",
    derive=lambda p: {"n_words": _n(p["n"], "word"), "consequence": _swallowed_clause(p)},
)


def _swallowed_clause(p: dict) -> str:
    """What becomes of the words after the content: where recovery reads on, or what a
    reader following the declared size skips and whether it reads on inside a record."""
    if "resumes_at" in p:
        return "; reading resumes at that header"
    skipped = list(p.get("skipped") or ())
    lands = p.get("lands")
    whole = skipped[:-1] if lands else skipped
    parts = []
    if whole:
        named = [f"the {kind} record at {off:#x}" for kind, off in whole]
        parts.append("skips " + (named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]))
    if lands:
        parts.append(f"reads on from inside the {lands[0]} record at {lands[1]:#x}")
    text = "; a reader following the size " + " and ".join(parts) if parts else ""
    if "recovery" in p:
        text += " (recovery, as in decode and export, reads on from that header)"
    return text


big_endian_archive = Rule(
    code="EX002",
    name="big-endian-archive",
    severity=I,
    scope=("format:trace",),
    reader_reason="well-formed",
    mutation=lambda recs, pick: B.archive(*recs, byte_order="big"),
    message="the archive is big-endian (its magic record is byte-reversed); all words were read big-endian",
    params=(),
    what="An archive written by a big-endian machine.",
    why="The format allows it, but many readers assume little-endian and will misread "
    "every word.",
    bad=Example("a big-endian archive", lambda: B.archive(B.magic(), B.string(1, "x"), byte_order="big")),
    good=Example("the same archive little-endian", lambda: B.archive(B.magic(), B.string(1, "x"))),
    spec="Magic Number Record: on a big endian system, it will be the reverse",
)


def _int64_arg_sized(words: int) -> bytes:
    """An instant event whose int64 argument declares ``words`` words (padded to fit)."""
    rec = B.archive(_ev(args=[B.arg("int64", 1, 7)]))
    extra = words - 2
    size_f = X._T.field(role="size", of="argument")
    out = B.patch_field(rec, size_f, words, word=2) + b"\0" * 8 * extra
    return X.with_size(out, len(out) // 8)


def _arg_with_size(words: int) -> bytes:
    """An instant event whose int32 argument's size field says ``words``."""
    rec = B.archive(_ev(args=[B.arg("int32", 1, 5)]))
    size_f = X._T.field(role="size", of="argument")
    return B.patch_field(rec, size_f, words, word=2)
