"""Read the assistant's new text from the client's transcript, incrementally.

Claude Code writes a JSONL transcript at `transcript_path` (lines with `type: "assistant"` and
`message.content` blocks of `type: "text"`; 2.1.332); Codex writes a rollout JSONL
(`response_item` records whose payload is a `message` with `role: "assistant"` and
`output_text` content; 0.171.0). Copilot CLI writes `events.jsonl` (`assistant.message` records with
`data.content`; 1.0.102), Droid a session JSONL (`message` records whose `message.role` is
`assistant`, text blocks in `message.content`; 0.215.0), Cursor an agent transcript
(`{"role": "assistant", "message": {"content": [...]}}`; its documented format). All only grow
while a session runs, but they can lag, be rotated, truncated, or end in a partial line.

Per event at most `budget` bytes are read, starting from the offset kept in the ledger, and only
whole lines are consumed, so the cost per event stays flat however long the session is.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from ..core.ledger import Tail
from ..core.signature import digest

#: The `model` of a Claude Code transcript message the client wrote itself, not the model: an
#: API error, "Not logged in · Please run /login", "No response requested." (public transcripts
#: of 2.0.x-2.1.x; the live hook reads them from the transcript like any reply).
SYNTHETIC = "<synthetic>"


def read_new_texts(tail: Tail, path: str | None, budget: int) -> list[tuple[str, str]]:
    """New assistant texts as `(dedup key, text)` since the offset stored in `tail` (updated),
    as `read_new_lines` reads them."""
    texts: list[tuple[str, str]] = []
    for record in json_objects(read_new_lines(tail, path, budget)):
        texts.extend(assistant_texts(record))
    return texts


def read_new_lines(tail: Tail, path: str | None, budget: int) -> list[bytes]:
    """The whole lines written to the transcript at `path` since the offset stored in `tail`
    (updated), at most `budget` bytes of them.

    `tail` holds `path` (digest), `ino`, `offset` (bytes). A file seen for the first time gives
    nothing and is read from its end on. Never raises for a missing or unreadable file: it
    returns nothing.
    """
    opened = open_regular(path)
    if opened is None or path is None:
        return []
    fd, st = opened
    try:
        ident = digest(path.encode("utf-8", "surrogatepass"))
        offset = tail.get("offset", 0)
        if tail.get("path") != ident or tail.get("ino") != st.st_ino or type(offset) is not int or offset < 0:
            # A cursor of another shape (a hand-edited or damaged ledger) is one not seen either.
            # A transcript seen for the first time (a resumed session, the hook installed
            # mid-session): its history is not this run's; read only what is written from now on.
            tail["path"], tail["ino"], tail["offset"] = ident, st.st_ino, st.st_size
            return []
        if st.st_size < offset:
            offset = -1  # truncated in place: start near the end
        tail["path"], tail["ino"] = ident, st.st_ino
        size = st.st_size
        if offset == size:
            return []
        start = max(0, size - budget) if offset < 0 else offset
        skip_partial = False
        if size - start > budget:
            start = size - budget
            skip_partial = True
        elif offset < 0 and start > 0:
            skip_partial = True
        data = os.pread(fd, size - start, start)
    except OSError:
        return []
    finally:
        os.close(fd)
    return _whole_lines(tail, data, start, skip_partial)


def open_regular(path: str | None) -> tuple[int, os.stat_result] | None:
    """A descriptor of the transcript at `path`, open read-only and non-blocking (a FIFO planted
    as the transcript must not hang the hook), and its state: the caller closes it. None for no
    path, a file that cannot be opened (a NUL byte in the path too), or one that is no regular
    file. Never raises. The path is looked at before it is opened: opening a FIFO, even without
    blocking, releases a writer blocked on it, and opening a device may act. The descriptor is
    checked again after (the path may have been swapped in between)."""
    if not path:
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):  # ValueError: a NUL byte in the path
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None
    return fd, st


def read_last(path: str | None, budget: int) -> bytes | None:
    """The last `budget` bytes of the transcript at `path` (all of it when shorter); None for no
    path, a missing or unreadable file, or one that is no regular file (a FIFO planted as the
    transcript must not hang the hook). Never raises."""
    opened = open_regular(path)
    if opened is None:
        return None
    fd, st = opened
    try:
        start = max(0, st.st_size - budget)
        return os.pread(fd, st.st_size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)


def json_objects(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """The JSON objects among `lines`; blank, malformed and non-object lines are skipped."""
    for line in lines:
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            yield record


def _whole_lines(tail: Tail, data: bytes, start: int, skip_partial: bool) -> list[bytes]:
    """The whole lines of `data` (read at byte `start`), without a partial first line when
    `skip_partial`, nor a partial last one; `tail["offset"]` moves past the last whole line."""
    first = 0
    if skip_partial:
        newline = data.find(b"\n")
        if newline < 0:
            tail["offset"] = start
            return []
        first = newline + 1
    last = data.rfind(b"\n")
    if last < first:
        tail["offset"] = start + first
        return []
    tail["offset"] = start + last + 1
    return data[first:last].split(b"\n")


def assistant_texts(record: dict[str, Any]) -> list[tuple[str, str]]:
    """The assistant texts of one transcript record as `(dedup key, text)` pairs (Claude Code
    `assistant` lines, Codex `response_item` assistant messages, Copilot `assistant.message`
    events, Droid and Cursor assistant messages; anything else gives none). A key
    is the message's id, `:` and the text's `digest`."""
    out: list[tuple[str, str]] = []
    if record.get("type") == "assistant":  # Claude Code transcript
        message = record.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            return out
        if message.get("model") == SYNTHETIC:
            return out  # the client's own message, not the model's: an API error, "Not logged in"
        ident = str(message.get("id") or record.get("uuid") or "")
        for block in message["content"]:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                text = block["text"]
                out.append((ident + ":" + digest(text.encode("utf-8", "surrogatepass")), text))
    elif record.get("type") == "assistant.message":  # Copilot CLI events.jsonl
        data = record.get("data")
        if isinstance(data, dict) and isinstance(data.get("content"), str) and data["content"]:
            text = data["content"]
            key = str(data.get("messageId") or record.get("id") or "") + ":" + digest(text.encode("utf-8", "surrogatepass"))
            out.append((key, text))
    elif record.get("type") == "message" or record.get("role") == "assistant":  # Droid session, Cursor transcript
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role", record.get("role")) != "assistant":
            return out
        content = message.get("content")
        ident = str(record.get("id") or "")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                text = block["text"]
                out.append((ident + ":" + digest(text.encode("utf-8", "surrogatepass")), text))
    elif record.get("type") == "response_item":  # Codex rollout
        payload = record.get("payload")
        if not isinstance(payload, dict) or payload.get("type") != "message" or payload.get("role") != "assistant":
            return out
        content = payload.get("content")
        blocks = content if isinstance(content, list) else ()  # a number there must not raise
        parts = [c["text"] for c in blocks if isinstance(c, dict) and isinstance(c.get("text"), str)]
        if parts:
            text = "\n".join(parts)
            key = str(payload.get("id") or record.get("timestamp") or "") + ":" + digest(text.encode("utf-8", "surrogatepass"))
            out.append((key, text))
    return out
