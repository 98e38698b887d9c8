"""Read the assistant's new text from a DeepSeek Harness session log, incrementally.

DSH 0.1.0-rc.8 sends no `last_assistant_message` on Stop; its `transcript_path` is the session
log `$DSH_HOME/sessions/<encoded cwd>/<session id>/session.jsonl.zstd` (both bridges;
research/dsh-hooks.md §3; measured on dsh 0.1.0-rc.8 logs, kept in tests/data/dsh/):

- a series of independently decodable, checksummed zstd frames, one per durable batch of
  events, without a content size in their headers; each frame holds whole JSONL records
  `{"type", "seq", "time", "data", ...}`;
- the assistant's messages are `type: "assistant/message"` records, their text in
  `data.message.content[]` items of `type: "text"` (tool calls are `tool-call` items of the
  same message); the streamed deltas (`assistant/chunk`) are skipped;
- the log is written asynchronously: a file read while DSH appends may end in a torn frame,
  and at Stop the final message reaches the disk about 0.1 s after the hook starts (1 run in
  8 had it at once; 6 of 6 after 0.1 s), followed by Stop's own `hook/invoked` record.

So a Stop polls, for at most `STOP_WAIT_SECONDS`, until a `hook/invoked` record of Stop is on
disk; frames are decoded one by one, a torn tail is left for the next read, and the offset kept
in the ledger is a frame boundary in compressed bytes, like `transcript.py`'s byte offset.

The decompressor is the standard library's `compression.zstd` on Python 3.14+, else its
backport `backports.zstd` (same API; 3.4 ms to import, against 8 ms for `zstandard` and 14.6 ms
for `pyzstd`, measured with `-X importtime`). It is imported only here, and this module only
on a Stop whose transcript is a DSH log.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from ..core.ledger import Tail
from ..core.signature import digest
from .transcript import json_objects, open_regular

#: Every zstd frame starts so (RFC 8878 §3.1.1).
MAGIC = b"\x28\xb5\x2f\xfd"
#: Longest wait at Stop for the final message to reach the disk (measured lag: about 0.1 s).
STOP_WAIT_SECONDS = 0.5
POLL_SECONDS = 0.02
#: Decoded bytes per compressed byte read, at the most (DSH's own logs decode to about 3 times
#: their size: one small frame per batch): a frame that decodes to more is skipped, and so is
#: every frame once an event (or a replay) has decoded that much in all.
MAX_RATIO = 16
#: Decoded bytes one event reads at most, whatever `transcript_read_bytes` allows: a zstd bomb (a
#: 214-byte frame decodes to 4 MiB) costs the hook at most this, plus one frame's records.
MAX_DECODED_PER_EVENT = 32 << 20
#: Decoded bytes of one log in a replay: `MAX_RATIO` times its size, at least
#: `MIN_DECODED_PER_LOG` and at most `MAX_DECODED_PER_LOG`.
MIN_DECODED_PER_LOG = 4 << 20
#: Past a budget, a frame is still decoded if it holds at most `SMALL_FRAME` bytes, until
#: `AFTER_CAP` more bytes in all were decoded (a Stop's own `hook/invoked` record after a bomb).
SMALL_FRAME = 64 << 10
AFTER_CAP = 1 << 20
MAX_DECODED_PER_LOG = 256 << 20
#: Bytes `zstd.get_frame_size` may walk per byte read, at the most. A call walks a frame's chain
#: of blocks, and one that fails may have walked to the end of the bytes read: a crafted log of
#: frames nested in one another's blocks, their chains all running to its end, made the search for
#: the next whole frame try every magic number over the whole rest (a 261 KB log: 14000 walks of
#: 45000 blocks, 2 s). Each call is charged the most it can walk; once this many times the bytes
#: read are spent, the rest of them is skipped as unreadable, and the read goes on past it.
SCAN_RATIO = 8
#: Frames decoded per read, at the most: `MIN_FRAMES`, or one per `FRAME_BYTES` bytes read if
#: more. Each frame costs a decompressor (about 20 microseconds) whatever its size: a crafted log
#: of 9-byte empty frames (16 MiB, 1.8 million of them) took past the 8 s deadline at every Stop,
#: and 36 s to replay. DSH writes one frame per batch of records, about 1.3 KB each (the logs
#: under tests/data/dsh). Past the bound, the rest is skipped as with `SCAN_RATIO`.
MIN_FRAMES = 4096
FRAME_BYTES = 256
STOP_POINTS = frozenset({"Stop", "SubagentStop"})


def _zstd() -> Any:
    if sys.version_info >= (3, 14):
        from compression import zstd
    else:
        from backports import zstd
    return zstd


class Read:
    """What one read found: `texts` as `(dedup key, text)` pairs, the `final` message's pair
    (the last assistant message without tool calls, if it was among them), and whether the
    hook's own Stop was seen on disk (`stop_seen`)."""

    __slots__ = ("texts", "final", "stop_seen", "decoded", "skipped")

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []
        self.final: tuple[str, str] | None = None
        self.stop_seen = False
        #: Decoded bytes so far, and frames skipped (corrupt, or past the decoded-bytes budget).
        self.decoded = 0
        self.skipped = 0


def read_new_texts(
    tail: Tail,
    path: str | None,
    budget: int,
    *,
    wait: float = 0.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Read:
    """The assistant texts written to the DSH session log `path` since `tail` (updated).

    `tail` holds `path` (digest), `ino` and `offset` (compressed bytes, at a frame boundary).
    A log seen for the first time is read from its start, or from the first frame in its last
    `budget` bytes; so is one that shrank. With `wait` > 0 (Stop), reads again every
    `POLL_SECONDS` until a `hook/invoked` record of Stop arrives or `wait` seconds pass (a
    poll that finds the log as the last read left it reads nothing).
    Never raises for a missing, unreadable or corrupt file: it returns what it could read.
    """
    found = Read()
    opened = open_regular(path)
    if opened is None or path is None:
        return found
    fd, st = opened
    try:
        try:
            zstd = _zstd()
        except ImportError:  # installed without its decompressor: no text to judge, never a bug
            return found
        ident = digest(path.encode("utf-8", "surrogatepass"))
        if tail.get("path") != ident or tail.get("ino") != st.st_ino:
            tail["path"], tail["ino"], tail["offset"] = ident, st.st_ino, 0
        deadline = clock() + wait
        seen: tuple[int, object] | None = None
        while True:
            size = os.fstat(fd).st_size
            if (size, tail.get("offset")) != seen:  # else the same bytes from the same offset again
                _read_once(zstd, fd, tail, budget, found, size)
                seen = size, tail.get("offset")
            if found.stop_seen or clock() >= deadline:
                break
            sleep(POLL_SECONDS)
    except OSError:
        pass
    finally:
        os.close(fd)
    return found


def _read_once(zstd: Any, fd: int, tail: Tail, budget: int, found: Read, size: int) -> None:
    offset = tail.get("offset", 0)
    if not isinstance(offset, int) or offset < 0 or offset > size:
        offset = 0  # replaced or truncated in place: start again
    resync = size - offset > budget
    start = size - budget if resync else offset
    if start >= size:
        tail["offset"] = offset
        return
    data = memoryview(os.pread(fd, size - start, start))
    scan = _Scan(data)
    first = _frame_start(zstd, scan, 0)[0] if resync else 0
    if first == NO_FRAME:  # no whole frame in the last `budget` bytes yet
        tail["offset"] = start
        return
    if first == len(data):  # none found before the scan ran out of room: skipped
        found.skipped += 1
    cap = min(budget * MAX_RATIO, MAX_DECODED_PER_EVENT)
    used = _frames(zstd, scan, first, lambda chunk: _records(chunk, found), cap, found)
    tail["offset"] = start + used


def decode_all(data: bytes) -> tuple[bytes, int]:
    """The records of a whole session log (`replay`), every frame decoded and joined, and the
    number of frames skipped: a torn last frame is dropped, a corrupt one skipped, and so is
    every frame past `MAX_RATIO` times the log's size in decoded bytes (at least
    `MIN_DECODED_PER_LOG`, at most `MAX_DECODED_PER_LOG`)."""
    chunks: list[bytes] = []
    cap = min(max(MAX_RATIO * len(data), MIN_DECODED_PER_LOG), MAX_DECODED_PER_LOG)
    tally = Read()
    _frames(_zstd(), _Scan(memoryview(data)), 0, chunks.append, cap, tally)
    return b"".join(c if c.endswith(b"\n") else c + b"\n" for c in chunks), tally.skipped


#: What `_frame_start` finds when no whole frame follows.
NO_FRAME = -1


class _Scan:
    """The bytes read, and the read's two budgets: how many more bytes `zstd.get_frame_size` may
    walk in them (`room`, `SCAN_RATIO` times their number) and how many more frames may be
    decoded (`frames`, `MIN_FRAMES` or one per `FRAME_BYTES`)."""

    __slots__ = ("data", "raw", "room", "frames")

    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.raw = data.obj if isinstance(data.obj, bytes) else bytes(data)
        self.room = SCAN_RATIO * len(data)
        self.frames = max(MIN_FRAMES, len(data) // FRAME_BYTES)

    def frame_size(self, zstd: Any, pos: int) -> int | None:
        """The size of the whole frame at `pos`, or None (none there, or cut short). Charged
        with the most the call can walk: the frame found, else every byte after `pos` when they
        start with a magic number (its chain of blocks may run to their end); a call at any other
        bytes fails on the frame header, or reads a skippable frame's size from its own."""
        try:
            size: int = zstd.get_frame_size(self.data[pos:])
        except zstd.ZstdError:
            if self.raw.startswith(MAGIC, pos):
                self.room -= len(self.data) - pos
            return None
        self.room -= size
        return size


def _frame_start(zstd: Any, scan: _Scan, pos: int) -> tuple[int, int]:
    """The first whole frame at or after `pos` (a magic number followed by a frame that parses)
    and its size; `NO_FRAME` and 0 if none follows, or the end of the bytes read and 0 if the scan
    ran out of room (`_Scan.room`) first."""
    while True:
        pos = scan.raw.find(MAGIC, pos)
        if pos < 0:
            return NO_FRAME, 0
        if scan.room <= 0:
            return len(scan.data), 0
        size = scan.frame_size(zstd, pos)
        if size is not None:
            return pos, size
        pos += 1


def _frames(zstd: Any, scan: _Scan, pos: int, take: Callable[[bytes], object], cap: int, tally: Read) -> int:
    """Decode whole frames from `pos`, handing each to `take` as it comes (none is kept here);
    return the offset after the last one consumed (a torn last frame is not consumed). A corrupt
    frame is skipped, and so is each one that would take the decoded bytes in `tally` past
    `cap` (counted in `tally.skipped`), but for small frames (`SMALL_FRAME`) up to `AFTER_CAP`
    bytes more. A frame cut short counts its decoded bytes too: the work is bounded as well.
    So are the search for frames and their number (`_Scan`'s budgets): past either, the rest is
    skipped (one more in `tally.skipped`) and consumed, so that the next read does not search it
    again."""
    data = scan.data
    while pos < len(data):
        if scan.frames <= 0:  # too many frames for the bytes read: the rest is skipped, and consumed
            tally.skipped += 1
            return len(data)
        scan.frames -= 1
        size = scan.frame_size(zstd, pos) if scan.room > 0 else None
        if size is None:
            # A torn last frame (DSH is still writing it), or garbage before a later frame.
            later, size = _frame_start(zstd, scan, pos + 1)
            if later == NO_FRAME:
                return pos
            if later == len(data):
                tally.skipped += 1
                return later
            pos = later
        room = cap - tally.decoded
        if room <= 0:  # past the budget: small frames still (a Stop's own record), to a little more
            room = min(SMALL_FRAME, cap + AFTER_CAP - tally.decoded)
        chunk, complete = b"", False
        if room > 0:
            decoder = zstd.ZstdDecompressor()
            try:
                chunk = decoder.decompress(data[pos : pos + size], max_length=room)
                complete = decoder.eof
            except zstd.ZstdError:
                pass
        pos += size
        tally.decoded += len(chunk)
        if complete:
            take(chunk)
        else:
            tally.skipped += 1
        del chunk
    return pos


def _records(chunk: bytes, found: Read) -> None:
    for record in json_objects(chunk.split(b"\n")):
        kind = record.get("type")
        data = record.get("data")
        if not isinstance(data, dict):
            continue
        if kind == "assistant/message":
            pair, calls = message_text(data)
            if pair is not None:
                found.texts.append(pair)
            found.final = pair if not calls else None
        elif kind == "hook/invoked" and isinstance(point := data.get("point"), str) and point in STOP_POINTS:
            found.stop_seen = True


def message_text(data: dict[str, Any]) -> tuple[tuple[str, str] | None, bool]:
    """The `(dedup key, text)` of one `assistant/message` record's `data` (its text items joined
    by newlines; None without text), and whether it holds tool calls. The key is the message's
    id, `:` and the text's `digest`, as `transcript.assistant_texts` makes them."""
    message = data.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return None, False
    parts: list[str] = []
    calls = False
    for item in message["content"]:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "text" and isinstance(item.get("text"), str):
            parts.append(item["text"])
        elif item.get("type") == "tool-call":
            calls = True
    if not parts:
        return None, calls
    text = "\n".join(parts)
    ident = str(message.get("id") or f"{data.get('turn')}.{data.get('step')}")
    return (ident + ":" + digest(text.encode("utf-8", "surrogatepass")), text), calls
