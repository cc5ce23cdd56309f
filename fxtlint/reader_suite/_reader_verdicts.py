"""What a *reader* must do with each fault the linter reports: the one question
"must a reader reject this to read the trace correctly?", answered from the spec's words.

The linter grades writers: a set reserved bit is an error because the spec says a writer
"must set [it] to 0". A reader is graded differently: the same spec lists "storing new
information in reserved fields" as a way the format is extended, so a reader that
rejects the bit cannot read a later revision's traces. Each rule that can fire on a
trace archive gets one of four verdicts, with the spec's own words:

- ``accept``: the spec defines the bytes or tells a reader what to do with them (skip by
  size, ignore); a reader must read the trace, decoding it as the spec says;
- ``either``: a writer broke a rule, or the spec leaves the reader's action open, but the
  bytes still read one way; a reader may reject, or accept with that decoding;
- ``skip``: one record is malformed (content that overruns its record or argument, an
  argument of size 0, text that is not UTF-8, a reference to nothing) but its header's
  size still frames it, and the spec says "Unrecognized or malformed trace records can be
  skipped": a reader may skip that record and read on (the records after it decoded as if
  it were not there), or reject, after the records before it;
- ``reject``: no reader can go on past the fault (a record of size 0, a record past the
  end of the file, bytes that are not FXT at all). The spec recovers partial data "by
  reading everything up to the last well-formed record": a reader returns the records
  before the fault, and rejects (says the file is damaged); the conformance suite grades
  it by those records, an exit 0 recorded apart as a warning, and requires the rejection
  only where no record comes before the fault (fxtlint.reader_suite._runner).

Used by the canonical decoding (``fxtlint decode`` rejects only ``reject`` faults) and by
the conformance suite's generator, which files each case by the strictest verdict of what
it trips, so the same fault gets the same verdict everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import all_rules
from ..spec._errors import FxtError

ACCEPT, EITHER, SKIP, REJECT = "accept", "either", "skip", "reject"
VERDICTS = (ACCEPT, EITHER, SKIP, REJECT)  # in order of strictness


@dataclass(frozen=True)
class Reason:
    """Why readers get a verdict: the spec's words (English of the v1 text, which the
    current revision keeps; the current Chinese text beside it) and what follows."""

    key: str
    verdict: str
    section: str
    words: str
    zh: str
    so: str


_REASONS = (
    # ---------------------------------------------------------------- accept
    Reason("reserved-fields", ACCEPT, "Extending the Format",
           "The trace format can be extended in the following ways: [...] Storing new information in reserved "
           "fields of existing record types.",
           "可以通过以下方式扩展轨迹格式:[...] 在现有记录类型的预留字段中存储新信息。",
           "a set reserved bit may be a later revision's information: a reader ignores it (a writer must still "
           "write 0: the linter's RB001/RB002 stay errors)"),
    Reason("appended-words", ACCEPT, "Extending the Format",
           "Appending new information to existing record types (the presence of this information can be detected "
           "by examining the record's size and payload).",
           "将新信息附加到现有记录类型(通过检查记录的大小和载荷可以检测到是否存在此信息)。",
           "words after a record's defined content are skipped by its size"),
    Reason("unknown-record", ACCEPT, "Overview: Extensible",
           "There's room to define new record types as needed. [...] Unrecognized or malformed trace records can "
           "be skipped.",
           "您可以根据需要定义新的记录类型。[...] 系统可以跳过无法识别或格式错误的轨迹记录。",
           "a record of a type or subtype the reader does not know is skipped by its size and the walk goes on"),
    Reason("unknown-argument", ACCEPT, "Arguments",
           "Arguments are size-prefixed like ordinary records so that unrecognized argument types can be skipped.",
           "实参会像普通记录一样添加大小前缀,以便跳过无法识别的实参类型。",
           "an argument of a type the reader does not know is skipped by its size, like an unknown record"),
    Reason("index-zero", ACCEPT, "String Record; Thread Record",
           "String records which attempt to set a value for string index 0x0000 must be ignored [...]. Thread "
           "records which attempt to set a value for this value must be ignored.",
           "尝试为字符串索引 0x0000 设置值的字符串记录必须被忽略 [...] 必须忽略尝试为此值设置值的线程记录。",
           "the record is ignored: ref 0 stays the empty string, thread ref 0 stays inline"),
    Reason("provider-sections", ACCEPT, "Provider Section Metadata",
           "All data which follows until the next Provider Section Metadata or Provider Info Metadata is "
           "encountered is assumed to have been collected from the same provider.",
           "在遇到下一个提供方部分元数据或提供方信息元数据之前的所有后续数据均假定为从同一提供方收集。",
           "a section names its provider by id; nothing requires a Provider Info record first, nor any "
           "provider record before the first records"),
    Reason("magic-repeated", ACCEPT, "Magic Number Record",
           "Generally it should appear at the start of a trace. It carries no other information.",
           "通常,它应出现在轨迹的开头。不包含任何其他信息。",
           "a second magic record changes nothing a reader holds"),
    Reason("well-formed", ACCEPT, "(the rule's own section)",
           "Trace archives are intended to be read sequentially since records which appear earlier in the trace "
           "may influence the interpretation of records which appear later in the trace.",
           "跟踪归档旨在按顺序读取,因为跟踪中较早出现的记录可能会影响对跟踪中较晚出现的记录的解读。",
           "every record is well-formed and reads one way; the rule is about what the records say (pairing, "
           "timing, counters, registrations, byte order), which is the consumer's business, not the reader's"),
    # ---------------------------------------------------------------- either
    Reason("zero-padding", EITHER, "Atoms: Stream",
           "Stream: A sequence of bytes padded with zeros to the next 8 byte boundary.",
           "Stream:一个字节序列,用零填充到下一个 8 字节边界。",
           "the writer's obligation; the content is the bytes the length counts, and a reader never needs the "
           "padding"),
    Reason("string-limit", EITHER, "String References",
           "[...] so we set a conservative maximum string length limit of 32000 bytes.",
           "[...] 因此我们将保守的最大字符串长度限制设置为 32000 字节。",
           "a limit for writers; the length field and the record's size still frame a longer string"),
    Reason("always-zero", EITHER, "String Record",
           "[31]: always zero (0) [...] [47]: always zero (0)",
           "[31]:始终为零 (0) [...] [47]:始终为零 (0)",
           "not a reserved field the format may extend, so no reader needs to accept it; but a reader that "
           "reads the index from [16 .. 30] and the length from [32 .. 46] reads the record one way (words "
           "past the stream are appended words)"),
    Reason("argument-extra-words", EITHER, "Arguments; Extending the Format",
           "Arguments are size-prefixed like ordinary records so that unrecognized argument types can be skipped.",
           "实参会像普通记录一样添加大小前缀,以便跳过无法识别的实参类型。",
           "the extension list names appending for record types and new argument types, not appending to an "
           "argument, so a writer may not (the linter's ST005 stays an error); a reader that skips by the size "
           "reads the value and the next argument correctly"),
    Reason("magic", EITHER, "Magic Number Record",
           "Generally it should appear at the start of a trace. [...] To allow the first eight bytes of a trace "
           "to be treated together as a magic number without caring about the internal record structure, this "
           "record type is not extensible. The record must not contain any words other than the header word, and "
           "there are no reserved fields.",
           "通常,它应出现在轨迹的开头。[...] 为了允许将轨迹的前 8 个字节一起视为魔数,而不必关心内部记录结构,"
           "此记录类型是不可扩展的。记录不得包含标题字词以外的任何字词,并且没有预留字段。",
           "'should', not 'must', for its place; a reader that checks the first eight bytes rejects, one that "
           "walks the records reads the rest the same way (little-endian)"),
    Reason("tick-rate-zero", EITHER, "Initialization Record",
           "Provides parameters needed to interpret the records which follow. In absence of this record, the "
           "reader may assume that 1 tick is 1 nanosecond.",
           "提供了解释后续记录所需的参数。如果没有此记录,读取器可能会假设 1 个时钟周期为 1 纳秒。",
           "0 ticks per second converts to nothing, but timestamps in ticks (the canonical form) still read"),
    Reason("enum-value", EITHER, "Blob Record; Kernel Object Record; Context Switch Record; Provider Event Metadata",
           "The following blob types are defined: [...] The following thread states are defined: [...] The "
           "following events are defined.",
           "定义了以下 blob 类型:[...] 定义了以下线程状态:[...] 定义了以下事件。",
           "the lists say which values are defined and nothing of the others (a kernel object type is any "
           "ZX_OBJ_TYPE constant): the record frames and decodes, a reader may pass the value through raw, map it "
           "to 'unknown' or reject"),
    # ---------------------------------------------------------------- reject
    # ---------------------------------------------------------------- skip (or reject)
    Reason("overrun", SKIP, "Record Header; Arguments; Overview: Extensible",
           "Record Size: [...] the number of words [...] within the record including the record header itself. "
           "[...] Arguments are size-prefixed like ordinary records [...] Unrecognized or malformed trace records "
           "can be skipped.",
           "记录大小:[...] 包括记录头本身。[...] 实参会像普通记录一样添加大小前缀 [...] "
           "系统可以跳过无法识别或格式错误的轨迹记录。",
           "content that does not fit its record's or argument's size would be read from the next one: the record "
           "cannot be decoded, but its header's size frames it, so a reader may skip it and read on, or reject"),
    Reason("argument-size-zero", SKIP, "Argument Header; Overview: Extensible",
           "[4 .. 15]: argument size (inclusive of this word) as a multiple of 8 bytes [...] Unrecognized or "
           "malformed trace records can be skipped.",
           "实参大小(包括此字),以 8 字节为倍数 [...] 系统可以跳过无法识别或格式错误的轨迹记录。",
           "an argument of 0 words cannot hold its own header, so the record's arguments cannot be read; the "
           "record's size still frames the record: a reader may skip it and read on, or reject"),
    Reason("not-utf8", SKIP, "String References; Overview: Extensible",
           "String content itself is stored as a UTF-8 Stream without termination. [...] Unrecognized or malformed "
           "trace records can be skipped.",
           "字符串内容本身以不带终止符的 UTF-8 流形式存储。[...] 系统可以跳过无法识别或格式错误的轨迹记录。",
           "bytes that are not UTF-8 are no string: any text a reader hands out is not what was written; the "
           "record is malformed, and a reader may skip it and read on, or reject"),
    Reason("unregistered", SKIP, "String References; Thread References; Overview: Extensible",
           "Indexed strings: [...] The lower 15 bits denote an index in the string table which was previously "
           "assigned using a String Record. [...] Indexed threads: [...] The value denotes an index in the thread "
           "table which was previously assigned using a Thread Record. [...] Unrecognized or malformed trace "
           "records can be skipped.",
           "索引字符串:[...] 低 15 位表示之前使用 String 记录分配的字符串表中的索引。[...] 该值表示之前使用线程记录"
           "分配的线程表中的索引。[...] 系统可以跳过无法识别或格式错误的轨迹记录。",
           "a ref to an index nothing assigned names nothing: the record cannot be decoded; a reader may skip it "
           "and read on, or reject"),
    # ---------------------------------------------------------------- reject
    Reason("size-zero", REJECT, "Record Header",
           "Record Size: [...] the number of words (multiples of 8 byte units) within the record including the "
           "record header itself.",
           "记录大小:[...] 用于指示记录中的字数(8 字节单位的倍数),包括记录头本身。",
           "a record of 0 words cannot hold its own header: no reader can step over it to the next record, so "
           "everything after it is unreadable"),
    Reason("truncated", REJECT, "Records; Overview",
           "Records are always a multiple of 8 bytes in length and are stored with 8 byte alignment. [...] the "
           "trace manager can still recover partial trace data [...] by reading everything up to the last "
           "well-formed record.",
           "记录的长度始终为 8 字节的倍数,并且以 8 字节对齐方式存储。[...] 轨迹管理器仍可通过读取最后一个格式正确的"
           "记录之前的所有内容来恢复已存储在轨迹缓冲区中的部分轨迹数据。",
           "a record cut by the end of the file is not well-formed and has no next record to go on to: what came "
           "before is a partial trace, which a reader recovers by returning the records up to the last well-formed "
           "one (and should say the file is damaged: a reader that calls it whole hides the cut)"),
    Reason("not-fxt", REJECT, "Magic Number Record",
           "This record serves as an indicator that the binary data is in the Fuchsia tracing format.",
           "此记录用于指示二进制数据采用的是 Fuchsia 跟踪格式。",
           "no magic record and no record structure: the bytes are not a trace, so there is no record to skip to"),
)
REASONS = {r.key: r for r in _REASONS}

# Every rule that can fire on a trace archive (the SL rules belong to the structured-log
# format), from its declaration (``Rule.reader_reason``).
_DECLARED = {r.code: r.reader_reason for r in all_rules() if r.bad.input_format == "trace"}
_UNREASONED = sorted(code for code, reason in _DECLARED.items() if reason not in REASONS)
if _UNREASONED:
    raise FxtError(f"trace rules {_UNREASONED} name no reader reason (one of {sorted(REASONS)})")
RULES: dict[str, str] = {code: reason for code, reason in _DECLARED.items() if reason is not None}


def reason_for(code: str, details: dict | None = None) -> Reason:
    """The reason (and so the verdict) for one finding. ST005 is the one rule whose
    verdict depends on its details: a size larger than the content (``exact``) leaves
    words a reader skips; content longer than the size overruns the argument."""
    if code == "ST005" and not (details or {}).get("exact", True):
        return REASONS["overrun"]
    return REASONS[RULES[code]]


def verdict(diagnostic) -> str:
    return reason_for(diagnostic.code, diagnostic.details).verdict


def strictest(verdicts) -> str:
    """The strictest of some verdicts; ``accept`` for none."""
    return max(verdicts, key=VERDICTS.index, default=ACCEPT)
