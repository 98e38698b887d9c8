"""The recording formats replay reads, listed by hand, and reading files of any of them.

A new format is a module that defines a `Reader` and one line in `READERS`.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from . import claude_code, codex, dsh, payload_log
from .jsonl import Line, merge_events, read_lines, without_copies
from .model import Format, Recording, ReplayError, Request, odd_shapes_refused
from .reader import Reader

#: Every format, in the order error messages name them.
READERS: tuple[Reader, ...] = (
    claude_code.READER,
    codex.READER,
    dsh.READER,
    payload_log.READER,
)
#: Lines read to recognise a file's format.
SNIFF_LINES = 200

# Hook payload logs first: a line with the hook's own fields is a payload whatever else it holds.
_SNIFF_ORDER = tuple(sorted(READERS, key=lambda reader: reader.transcript))


def title(fmt: str) -> str:
    """The name people read for a format (`Codex rollout`), or `fmt` itself when unknown."""
    return next((reader.title for reader in READERS if reader.format == fmt), fmt)


def reader_for(lines: Sequence[Line]) -> Reader | None:
    """The reader of a file, from its first `SNIFF_LINES` lines: the first line any format
    recognises decides. None when no line is recognised."""
    for line in lines[:SNIFF_LINES]:
        for reader in _SNIFF_ORDER:
            if reader.recognises(line.data):
                return reader
    return None


def sniff(lines: Sequence[Line]) -> str | None:
    """The format of a file from its first `SNIFF_LINES` lines (a `Format` for the built-in
    ones), or None."""
    reader = reader_for(lines)
    return reader.format if reader is not None else None


def _read(path: str) -> tuple[Reader, list[Recording]]:
    """The recordings in one file of any known format.

    Raises:
        ReplayError: the file cannot be read, holds no records, or is not a recognised format.
    """
    lines, skipped = read_lines(path)
    reader = reader_for(lines)
    if reader is not None:
        return reader, reader.read(path, lines, skipped)
    if not lines and not skipped:
        raise ReplayError(f"{path}: empty, nothing to replay")
    if not lines:
        hint = "; replay reads JSON Lines (one JSON object per line), e.g. `jq -c . payload.json`" if skipped else ""
        raise ReplayError(f"{path}: no JSON records ({skipped} unreadable lines){hint}")
    kinds = {line.data.get("type") if isinstance(line.data, dict) else None for line in lines}
    also = f"; {skipped} unreadable lines" if skipped else ""
    if kinds == {"summary"}:
        # Claude Code writes a file of only `{"type": "summary", …}` lines beside some sessions.
        raise ReplayError(f"{path}: only a session summary (no messages, no tool calls{also}), nothing to replay")
    if kinds <= {"summary", "file-history-snapshot"}:
        # … and of only file-history snapshots for a session whose messages went elsewhere.
        raise ReplayError(
            f"{path}: only Claude Code file-history snapshots (no messages, no tool calls{also}), nothing to replay"
        )
    if any(isinstance(line.data, dict) and claude_code.qwen_chat_line(line.data) for line in lines[:SNIFF_LINES]):
        raise ReplayError(f"{path}: a Qwen Code chat log, which replay does not read yet: replay its hook payloads instead")
    titles = [reader.title for reader in READERS]
    raise ReplayError(f"{path}: not a {', a '.join(titles[:-1])} or a {titles[-1]}")


def read_transcript(path: str) -> Recording:
    """Read one Claude Code transcript or Codex rollout and rebuild its hook payload sequence.

    For a Claude Code main transcript, the subagent transcripts stored next to it
    (`<dir>/<session_id>/subagents/agent-*.jsonl`, Claude Code 2.1.332; `<dir>/<file
    stem>/subagents/` for a copy saved under another name) are read too and merged
    by time, as their hook events interleave with the main thread's.

    Raises:
        ReplayError: the file cannot be read, holds no records, is a hook payload log (use
            `load` or `replay_payloads`), or is not a recognised format.
    """
    reader, recordings = _read(path)
    if not reader.transcript:
        raise ReplayError(f"{path}: a {reader.title}, not a transcript (use load or replay_payloads)")
    return recordings[0]


def load(paths: Iterable[str], *, unreadable: list[str] | None = None) -> list[Recording]:
    """Read every file, whatever its format, into recordings: one per session.

    Files of one session (a Codex rollout and its subagents' rollouts, a Claude Code subagent
    transcript named next to its main one, several payload logs) are merged by time, each file
    read once; a payload log holding several sessions gives one recording each. Sessions keep the
    order in which they first appear.

    `unreadable`, when given, collects one message (starting with the file's path) per file that
    cannot be read, and the other files are still read; without it the first such file raises.

    Raises:
        ReplayError: a file cannot be read or is not a recognised format (without `unreadable`).
    """
    recordings: list[Recording] = []
    with _no_cycle_collection():
        for path in paths:
            try:
                with odd_shapes_refused():
                    recordings.extend(_read(path)[1])
            except ReplayError as exc:
                if unreadable is None:
                    raise
                message = str(exc)
                unreadable.append(message if message.startswith(path) else f"{path}: {message}")
    return _merge_sessions(recordings)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    # Reading makes millions of parsed-JSON objects and no reference cycles; the cycle
    # collector's passes over them took more than half the reading time of a long transcript.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _merge_sessions(recordings: list[Recording]) -> list[Recording]:
    merged: dict[tuple[str, str, str], Recording] = {}
    for rec in recordings:
        key = (str(rec.format), rec.client.value if rec.client else "", rec.session_id)
        prior = merged.get(key)
        if prior is None:
            merged[key] = rec
            continue
        known = {os.path.realpath(s) for s in prior.sources}
        fresh = tuple(s for s in rec.sources if os.path.realpath(s) not in known)
        events = [e for e in rec.events if e.source in fresh]
        if rec.format != Format.HOOK_PAYLOADS:  # a payload log's lines are events the hooks each saw
            events = without_copies(events, prior.calls, prior.events)
        merged[key] = replace(
            prior,
            sources=prior.sources + fresh,
            events=tuple(merge_events([list(prior.events), events])),
            calls={**prior.calls, **rec.calls},
            skipped_lines=prior.skipped_lines + (rec.skipped_lines if fresh else 0),
            synthetic_times=prior.synthetic_times or rec.synthetic_times,
            requests=_requests(prior, rec) if fresh else prior.requests,
            **(_unhooked(prior, rec) if fresh else {}),
        )
    return list(merged.values())


def _unhooked(prior: Recording, rec: Recording) -> dict[str, Any]:
    """The calls no hook fires for of a session read from `prior`'s files and then `rec`'s
    (`Recording.polls`, `unhooked`, `unread`), each call once."""
    known = {poll.call_id for poll in prior.polls}
    polls = sorted((*prior.polls, *(p for p in rec.polls if p.call_id not in known)), key=lambda p: p.time)
    return {"polls": tuple(polls), "unhooked": {**rec.unhooked, **prior.unhooked}, "unread": {**rec.unread, **prior.unread}}


def _requests(prior: Recording, rec: Recording) -> tuple[Request, ...]:
    """The requests of a session read from `prior`'s files and then `rec`'s. A Codex subagent's
    rollout states its own usage (a fork's counted from its own turns on): it is added, but for
    requests `prior` holds already (a copy of a rollout under another name) or that made only
    calls `prior` holds (a fork's copy of its parent's history, read whole). A Claude Code file of
    the session may repeat the older file's requests: the first file's are kept."""
    if rec.format != Format.CODEX_ROLLOUT:
        return prior.requests
    held = set(prior.requests)
    own = [r for r in rec.requests if r not in held and not (r.calls and all(c in prior.calls for c in r.calls))]
    return tuple(sorted((*prior.requests, *own), key=lambda r: r.time))

