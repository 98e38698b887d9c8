"""JSON Lines reading and the small pieces every recording reader shares."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import IO, Any, TypeVar

import orjson

from ..config.load import open_regular_file
from ..hosts.transcript import assistant_texts
from ..process import MAX_PAYLOAD_BYTES
from .model import RecordedEvent, ReplayError

#: How a zstd frame starts (RFC 8878): DSH writes its session log so.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass(slots=True)
class Line:
    """One JSON object line of a file: its 1-based number and its object."""

    number: int
    data: dict[str, Any]


#: The longest line read: the hook takes no payload longer (`process.MAX_PAYLOAD_BYTES`), and a
#: longer line (a damaged file, one huge line with no newline) is skipped as unreadable.
MAX_LINE_BYTES = MAX_PAYLOAD_BYTES
#: The most of a zstd session log read (`hosts.dshlog.MAX_DECODED_PER_LOG`, the most its
#: frames may decode to): the frames past it are not read, and count as one unreadable line.
MAX_ZSTD_BYTES = 256 << 20
#: Bytes read at a time while passing over a line longer than the cap.
_SKIP_CHUNK = 1 << 20


def read_lines(path: str, cap: int = MAX_LINE_BYTES) -> tuple[list[Line], int]:
    """The JSON object lines of `path` and the number of lines skipped as malformed.

    A line longer than `cap` bytes counts as malformed, and is passed over in reads of at most
    `cap + 1` bytes, never held whole: memory stays about `cap` for any file. Of a zstd session
    log (DSH's), at most `MAX_ZSTD_BYTES` are read.

    Raises:
        ReplayError: the file cannot be read.
    """
    try:
        with open_regular_file(path) as fh:
            if fh.read(len(ZSTD_MAGIC)) != ZSTD_MAGIC:
                fh.seek(0)
                return _object_lines(_capped_lines(fh, cap))
            raw = ZSTD_MAGIC + fh.read(MAX_ZSTD_BYTES - len(ZSTD_MAGIC))
            beyond = bool(fh.read(1))
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None
    # A DSH session log: zstd frames of JSON lines, their decoded bytes bounded (`decode_all`).
    from ..hosts.dshlog import decode_all

    raw, skipped = decode_all(raw)  # a frame skipped counts as one line, the cut last one too
    if beyond and not skipped:
        skipped = 1  # the frames past the cap: at least one line unread (a cut last frame says so already)
    if not raw and not skipped:  # not "empty": it had bytes, only no frame decoded whole
        raise ReplayError(f"{path}: no whole zstd frame (corrupt, or cut short), nothing to replay")
    lines, bad = _object_lines(raw.split(b"\n"))
    return lines, skipped + bad


#: A line `_capped_lines` gives for one longer than the cap (no JSON text is blank).
_OVERLONG = b"\0"


def _capped_lines(fh: IO[bytes], cap: int) -> Iterator[bytes]:
    """The lines of `fh` without their newline, `_OVERLONG` for each longer than `cap` bytes;
    every read asks at most `cap + 1` bytes. A byte order mark before the first is dropped."""
    first = True
    while True:
        text = fh.readline(cap + 1)
        if not text:
            return
        if first:
            first = False
            if text.startswith(b"\xef\xbb\xbf"):
                text = text[3:]
        if text.endswith(b"\n"):
            yield text[:-1]
            continue
        if len(text) <= cap:  # the last line, with no newline
            yield text
            return
        del text
        while (rest := fh.readline(min(cap + 1, _SKIP_CHUNK))) and not rest.endswith(b"\n"):
            pass
        yield _OVERLONG


def _object_lines(texts: Iterable[bytes]) -> tuple[list[Line], int]:
    """The JSON object lines among `texts` (numbered from 1) and the count of the others that
    are not blank."""
    skipped = 0
    lines: list[Line] = []
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            continue
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            skipped += 1  # a malformed line, or the last line cut by a crash mid-write
            continue
        if isinstance(data, dict):
            lines.append(Line(number, data))
        else:
            skipped += 1
    return lines, skipped


def timestamp(value: Any) -> float | None:
    """Seconds since the epoch from an RFC 3339 string (`2026-11-30T06:47:18.440Z`) or a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = float(value) / 1000.0 if value > 1e11 else float(value)
        # Milliseconds or seconds of a real date (1970 to about 5138): anything else is no time.
        return seconds if 0 <= seconds < 1e11 else None
    if isinstance(value, str) and value:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    return None


def text_of(content: Any) -> str:
    """The text of a message or tool_result `content`: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


class Clock:
    """Times of one event stream, kept in order: lines are not always written in time order."""

    def __init__(self) -> None:
        self.now = 0.0

    def at(self, value: float | None) -> float:
        if value is not None and value > self.now:
            self.now = value
        return self.now


def with_texts(
    events: list[RecordedEvent], texts: list[tuple[int, str, str]], reads: Callable[[Mapping[str, Any]], bool]
) -> list[RecordedEvent]:
    """Give each event that reads the transcript the assistant texts written since the last such
    event: the lines up to the furthest line any event so far came from (those were on disk)."""
    found = attach(events, [(line, (key, text)) for line, key, text in texts], reads)
    return [replace(e, texts=tuple(f)) if f else e for e, f in zip(events, found, strict=True)]


T = TypeVar("T")


def attach(events: list[RecordedEvent], items: list[tuple[int, T]], reads: Callable[[Mapping[str, Any]], bool]) -> list[list[T]]:
    """What each event that reads the transcript finds newly written there: the `(line, item)`
    pairs (in line order) up to the furthest line any event so far came from (those were on
    disk), not given to an earlier reading event. One list per event."""
    out: list[list[T]] = []
    mark = cursor = 0
    for event in events:
        mark = max(mark, event.line)
        start = cursor
        if reads(event.payload):
            while cursor < len(items) and items[cursor][0] <= mark:
                cursor += 1
        out.append([item for _, item in items[start:cursor]])
    return out


def line_texts(lines: Iterable[Line]) -> list[tuple[int, str, str]]:
    # The same keys the live hook's transcript reader gives (transcript.py), for de-duplication.
    return [(line.number, key, text) for line in lines for key, text in assistant_texts(line.data)]


def merge_events(streams: list[list[RecordedEvent]]) -> Iterator[RecordedEvent]:
    """Event streams, each in order already, merged by time (earlier streams first on a tie)."""
    return heapq.merge(*streams, key=lambda e: e.time)


def without_copies(
    events: list[RecordedEvent], seen: Mapping[str, object], prior: Iterable[RecordedEvent] = ()
) -> list[RecordedEvent]:
    """`events` without those of calls an earlier file of the session already holds (their
    `tool_use_id` in `seen`; a batch whose calls all are): a side question's transcript
    (`agent-aside_question-<id>.jsonl`, Claude Code 2.1.92 in public transcripts) carries a copy
    of the main thread's calls under the same ids, which the live hooks saw once; nor the Stops
    of replies the `prior` events already ended a turn with (`RecordedEvent.reply`: a resumed
    session's file holds a copy of the older conversation, public 1.0.x transcripts)."""
    replies = {e.reply for e in prior if e.reply is not None}
    events = [e for e in events if e.reply is None or e.reply not in replies]
    if not seen:
        return events

    def copied(payload: Mapping[str, Any]) -> bool:
        if payload.get("hook_event_name") == "PostToolBatch":
            batch = payload.get("tool_calls")
            return isinstance(batch, list) and bool(batch) and all(
                isinstance(c, dict) and c.get("tool_use_id") in seen for c in batch
            )
        return payload.get("tool_use_id") in seen

    return [e for e in events if not copied(e.payload)]
