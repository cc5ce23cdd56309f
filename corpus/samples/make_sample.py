"""Writes sample.fxt: a small, clean trace using every record kind (python corpus/samples/make_sample.py)."""

from pathlib import Path

from fxtlint import build as B


def sample() -> bytes:
    a = B.arg
    return B.archive(
        B.magic(),
        B.provider_info(1, "sample-provider"),
        B.provider_section(1),
        B.initialization(1_000_000_000),
        B.string(1, "app"),
        B.string(2, "frame"),
        B.string(3, "draw"),
        B.string(4, "requests"),
        B.thread(1, 1000, 1001),
        B.thread(2, 1000, 1002),
        B.kernel_object(1000, 1, "sample process"),
        B.kernel_object(1001, 2, "main thread", args=[a("koid", "process", 1000)]),
        B.userspace_object(0x7F00, 1, "renderer", args=[a("string", "type", "Renderer")]),
        B.event("duration_begin", 100, thread=1, category=1, name=2, args=[a("uint32", "frame", 1)]),
        B.event("duration_begin", 110, thread=1, category=1, name=3),
        B.event("flow_begin", 115, thread=1, category=1, name="submit", id=7),
        B.event("duration_end", 150, thread=1, category=1, name=3),
        B.event("counter", 155, thread=1, category=1, name=4, id=1,
                args=[a("int64", "queued", 3), a("double", "rate", 0.75)]),
        B.event("instant", 160, thread=1, category=1, name="vsync", args=[a("bool", "late", False)]),
        B.event("duration_end", 200, thread=1, category=1, name=2),
        B.event("async_begin", 210, thread=2, category=1, name="load", id=42),
        B.event("duration_complete", 220, thread=2, category=1, name="decode", end_timestamp=260),
        B.event("flow_end", 230, thread=2, category=1, name="submit", id=7),
        B.event("async_end", 300, thread=(1000, 1002), category=1, name="load", id=42),
        B.blob("config", b'{"fps": 60}', blob_type=1),
        B.context_switch(310, 0, 3, 1001, 1002, args=[a("int32", "incoming_weight", 1)]),
        B.thread_wakeup(320, 1, 1001),
        B.log(330, "frame done", thread=1),
        B.large_blob(1, "snapshot", bytes(range(64)), timestamp=340, thread=2),
    )


if __name__ == "__main__":
    out = Path(__file__).with_name("sample.fxt")
    out.write_bytes(sample())
    print(f"wrote {out}")
