"""Reader of Claude Code transcripts (`~/.claude/projects/<munged-cwd>/<session>.jsonl`; subagents
in `<session>/subagents/agent-<id>.jsonl`, or `<file stem>/subagents/` for a renamed copy, read
along with the main file).

Client facts used to rebuild the hook sequence (verified on real files of Claude Code 2.1.332
produced by the shared end-to-end harnesses; research notes `claude-code-hooks.md` §3, §5, §8,
`claude-code-e2e.md`):

Claude Code
  - Each content block of an assistant message is its own line (same `message.id`); each
    `tool_result` comes back as its own `user` line in completion order, carrying the structured
    result in `toolUseResult` (the object `PostToolUse` gets as `tool_response`).
  - Consecutive concurrency-safe calls of one message run together (all PreToolUse first, then
    the posts in completion order); other calls run one at a time (Pre, post, Pre, post). Then
    one `PostToolBatch` whose `tool_response` is the `tool_result` content the model saw.
  - A `tool_result` that is `<tool_use_error>…` failed input validation: no PreToolUse, no post
    event, only the PostToolBatch entry. One that starts `PreToolUse:<Tool> hook error:` was
    denied by a hook (this guard or another): PreToolUse, then only the batch entry; the replay
    decides afresh. `is_error` otherwise means PostToolUseFailure with the text as `error`.
  - A PreToolUse `continue: false` (`hook_stopped_continuation` attachment) ends the turn: no
    PostToolBatch follows.
  - Real prompts are `user` lines with text content that are not meta, compact summaries, local
    command records or interruption notes; a subagent's task prompt fires no UserPromptSubmit.
    `system` `compact_boundary` (or, in files without one, an `isCompactSummary` user line) is a
    compaction: SessionStart `source: compact`.
  - Subagent events carry the parent's `session_id` and transcript path plus `agent_id`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import orjson

from ..config.load import read_regular_file
from ..core.event import Client
from .claude_code_stream import INLINE_SIDECHAIN, ClaudeStream
from .jsonl import Line, line_texts, merge_events, read_lines, with_texts, without_copies
from .model import Format, RecordedCall, Recording, ReplayError, respaced
from .reader import Reader

_TYPES = frozenset({"user", "assistant", "system", "attachment", "summary", "queue-operation"})


def recognises(data: Mapping[str, Any]) -> bool:
    """True for a line of a Claude Code transcript: a known record type with a `sessionId`, and
    not a line of Qwen Code's chat log (`qwen_chat_line`), whose records share those names."""
    return data.get("type") in _TYPES and "sessionId" in data and not qwen_chat_line(data)


def qwen_chat_line(data: Mapping[str, Any]) -> bool:
    """True for a line of Qwen Code's chat log (`~/.qwen/projects/<project>/chats/<session>.jsonl`,
    0.24.4 as its e2e run writes it): a message of Gemini's `parts`, a `systemPayload`, or a
    `toolCallResult`, none of which a Claude Code transcript holds."""
    message = data.get("message")
    return (isinstance(message, dict) and "parts" in message) or "systemPayload" in data or "toolCallResult" in data


def _subagent_files(transcript_path: str, session_id: str) -> list[tuple[str, str]]:
    """The files of `<dir>/<file stem>/subagents/` (where Claude Code 2.1 keeps them: the file is
    named by its session, also when a resumed session's copied lines keep the older id), else of
    `<dir>/<session id>/subagents/` (a copy saved under another name, `project__<id>.jsonl`):
    `(folder, name)` pairs, sorted by name; the first folder that holds any. A session id that
    is not a plain file name (`/etc`, `..`) names no folder."""
    folder = os.path.dirname(transcript_path)
    stem = os.path.basename(transcript_path).removesuffix(".jsonl")
    plain = (
        session_id not in ("", ".", "..") and os.path.basename(session_id) == session_id
        and "\\" not in session_id and "\x00" not in session_id
    )
    for name in dict.fromkeys((stem, session_id) if plain else (stem,)):
        sub_dir = os.path.join(folder, name, "subagents")
        try:
            entries = sorted(os.listdir(sub_dir))
        except (OSError, ValueError):  # ValueError: a NUL in a stem
            continue
        if entries:
            return [(sub_dir, entry) for entry in entries]
    return []


def _session_id(lines: list[Line]) -> str | None:
    """The session a transcript records: the `sessionId` of the record its conversation starts
    from (the first with `parentUuid: null`), else (a file trimmed after its start) of the first
    record that carries one. Records ahead of that start come from another session: a session
    started from a plan with a cleared context has the previous session's last record (the
    interruption of its plan call, chained to that session) ahead of its own first prompt. A
    resumed session's copy of the older conversation starts from the older session's record,
    so it keeps the older id (and merges with the older file when both are read)."""
    first = None
    for line in lines:
        session_id = line.data.get("sessionId")
        if not isinstance(session_id, str):
            continue
        if "parentUuid" in line.data and line.data["parentUuid"] is None:
            return session_id
        if first is None:
            first = session_id
    return first


def recording(path: str, lines: list[Line], skipped: int) -> Recording:
    transcript_path = os.path.abspath(path)
    session_id = _session_id(lines)
    files: list[tuple[str, list[Line], int]] = [(path, lines, skipped)]
    agent_types: dict[str, str] = {}
    if session_id is not None:
        names = _subagent_files(transcript_path, session_id)
        for sub_dir, name in names:
            sub_path = os.path.join(sub_dir, name)
            if name.endswith(".meta.json"):
                agent_types.update(_agent_type(sub_path, name[len("agent-") : -len(".meta.json")]))
            elif name.startswith("agent-") and name.endswith(".jsonl") and os.path.isfile(sub_path):
                try:
                    sub_lines, sub_skipped = read_lines(sub_path)
                except ReplayError:
                    continue
                files.append((sub_path, sub_lines, sub_skipped))
    if session_id is None:
        raise ReplayError(f"{path}: no sessionId in any line")
    streams: list[ClaudeStream] = []
    for file_path, file_lines, _ in files:
        # Subagent hook payloads carry the main session id and transcript path (captured
        # PreToolUse.Read.subagent.json); a subagent file names its agent (`agent-<id>.jsonl`).
        stem = os.path.basename(file_path).removesuffix(".jsonl")
        sidechain = stem.removeprefix("agent-") if stem.startswith("agent-") else INLINE_SIDECHAIN
        stream = ClaudeStream(file_path, transcript_path, agent_types, session_id=session_id, sidechain=sidechain)
        for line in file_lines:
            stream.feed(line)
        stream.finish()
        # The live hook reads the main transcript at main-thread PreToolUse, UserPromptSubmit and
        # Stop, and a subagent's own transcript at its SubagentStop (hook._new_texts).
        stream.events = with_texts(stream.events, line_texts(file_lines), _claude_reads)
        streams.append(stream)
    main = streams[0]
    calls: dict[str, RecordedCall] = {}
    for stream in streams:
        stream.events = without_copies(stream.events, calls)
        calls.update({k: v for k, v in stream.calls.items() if k not in calls})
    events, synthetic = respaced(list(merge_events([s.events for s in streams])))  # one time for every message
    return Recording(
        sources=tuple(f for f, _, _ in files),
        format=Format.CLAUDE_TRANSCRIPT,
        client=Client.CLAUDE_CODE,
        session_id=session_id,
        events=tuple(events),
        calls=calls,
        cwd=main.cwd,
        skipped_lines=sum(s for _, _, s in files) + sum(s.skipped for s in streams),
        requests=tuple(sorted((r for s in streams for r in s.usage.requests()), key=lambda r: r.time)),
        synthetic_times=synthetic,
    )


def _claude_reads(payload: Mapping[str, Any]) -> bool:
    name = payload.get("hook_event_name")
    if name == "PreToolUse":
        return "agent_id" not in payload
    return name in ("UserPromptSubmit", "Stop", "SubagentStop")


def _agent_type(path: str, agent_id: str) -> dict[str, str]:
    try:  # a FIFO or a device of that name must not hang the replay
        meta = orjson.loads(read_regular_file(path, 65536))
    except (OSError, orjson.JSONDecodeError):
        return {}
    agent_type = meta.get("agentType") if isinstance(meta, dict) else None
    return {agent_id: agent_type} if isinstance(agent_type, str) else {}


def read(path: str, lines: list[Line], skipped: int) -> list[Recording]:
    """The one recording of a file (the `Reader.read` shape)."""
    return [recording(path, lines, skipped)]


READER = Reader(Format.CLAUDE_TRANSCRIPT, "Claude Code transcript", recognises, read)
