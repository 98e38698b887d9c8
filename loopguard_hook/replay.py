"""Replay a recorded session through the detection engine: what would the guard have done?

Three kinds of file are read, the format found from the lines themselves:

- a **Claude Code transcript** (`~/.claude/projects/<munged-cwd>/<session>.jsonl`; subagents in
  `<session>/subagents/agent-<id>.jsonl`, read along with the main file);
- a **Codex rollout** (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`);
- a **hook payload log**: one hook payload per line, bare or wrapped as `{"payload": {...}}`
  (the shape of the captured `payloads/*/all.jsonl` files), with an optional wrapper time
  (`ts`, `time` or `timestamp`).

A transcript or rollout is turned into the hook payloads the live client would have sent, in the
order it would have sent them, each with a time in seconds since the epoch; those are fed to
`engine.apply` on a scratch in-memory ledger exactly as `hook.run` would (`payload.parse`, the
ledger written back as JSON after every event, `SessionEnd` forgetting the session), together
with the assistant text the live hook would have found newly written to the transcript at that
moment (text-loop rules). Feeding the same payload sequence through the live hook with a clock
giving the same times, while the transcript grows line by line, yields the same decisions
(`tests/test_replay.py`): `decide` is that loop, `replay` summarises it per tool call.

Client facts used to rebuild the hook sequence (verified on real files of Claude Code 2.1.332 and
Codex 0.171.0 produced by the shared end-to-end harnesses; research notes `claude-code-hooks.md`
§3, §5, §8, `claude-code-e2e.md`, `codex-hooks.md` §6, §8):

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

Codex
  - `function_call` `exec_command` is hook tool `Bash` with `tool_input {"command": cmd}` (only
    the command); `shell_command`/`shell`/`local_shell_call` likewise; `custom_tool_call`
    `apply_patch` is `apply_patch` with `{"command": patch}`; a namespaced MCP call is
    `mcp__<server>__<tool>`. `write_stdin`, `tool_search`, web search and the outer Code Mode
    `exec` fire no hooks; Code Mode's nested calls appear as `item_completed` items with
    `exec-<uuid>` ids.
  - Bash `tool_response` is the plain output (the `item_completed` `aggregated_output`, or the
    `function_call_output` without its `Chunk ID/Wall time/Process exited/Original token
    count/Output:` header); the exit code is not in the payload (it is kept for the report).
    `apply_patch` gets its output text as is. PostToolUse comes when the command completes
    (`item_completed`), so parallel posts arrive in completion order; a command still running
    when its call returned gets one only if it later exits normally.
  - `Command blocked by PreToolUse hook:` / `Tool call blocked by PreToolUse hook:` outputs are
    hook denials: PreToolUse only. `compacted` is SessionStart `source: compact`; `task_complete`
    is Stop. Turn-scoped payloads carry `turn_id`, and all the rollout path as `transcript_path`
    (how `--client auto` tells Codex apart).

Malformed lines and a truncated last line are skipped and counted; records of types the replay
does not use (API request logs, attachments, token counts, new kinds) are passed over.
"""

from __future__ import annotations

import enum
import heapq
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import orjson

from . import engine, textloop
from .clients import capabilities, detect_client
from .config import Config, read_regular_file
from .engine import Decision
from .ledger import Session
from .payload import HANDLED_EVENTS, MAIN_AGENT, Client, HookEvent, PayloadError, decode, parse
from .redact import redact_prefix
from .signature import HEAD_CHARS, call_key, preview
from .transcript import assistant_texts

#: Characters of canonical arguments kept per call in a report (text output cuts further).
ARGUMENT_CHARS = 160
#: Lines read to recognise a file's format.
SNIFF_LINES = 200
#: Spacing of made-up times when a payload log has none (seconds): well inside the parallel
#: window for neighbours, far from the slow-repeat threshold for a few hundred events.
SYNTHETIC_STEP = 0.1


class ReplayError(ValueError):
    """A file cannot be replayed (unreadable, empty, or not a known format); one line for stderr."""


class Format(enum.StrEnum):
    """The kinds of recording `load` reads."""

    CLAUDE_TRANSCRIPT = "claude-code-transcript"
    CODEX_ROLLOUT = "codex-rollout"
    HOOK_PAYLOADS = "hook-payloads"


class Outcome(enum.StrEnum):
    """What the recording says happened to a tool call."""

    RAN = "ran"  # the tool ran and succeeded
    FAILED = "failed"  # the tool ran and failed (error result, non-zero exit code)
    DENIED = "denied"  # a PreToolUse hook (this guard or another) denied it; it did not run
    REJECTED = "rejected"  # Claude Code input validation refused it; no hook but PostToolBatch
    REFUSED = "refused"  # the user or a permission rule refused it
    INTERRUPTED = "interrupted"  # the user interrupted it
    RUNNING = "running"  # Codex: still running when its call returned, no normal exit recorded
    UNKNOWN = "no result"  # the recording has no result for it (cut short, or a payload log)


#: Outcomes of calls that really ran in the recording: a denial there would have saved them.
RAN_OUTCOMES = frozenset({Outcome.RAN, Outcome.FAILED})


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One tool call as recorded. `exit_code` only where the recording has one (Codex)."""

    tool_use_id: str
    outcome: Outcome
    exit_code: int | None = None


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """One hook payload the live client would have sent, at `time` (seconds since the epoch).

    `line` is the 1-based line of `source` it was made from (0 when it has none). `texts` are the
    assistant texts, as `(dedup key, text)`, that the live hook would find newly written to the
    transcript when it reads it at this event (text-loop detection; see `hook._new_texts`).
    """

    time: float
    payload: Mapping[str, Any]
    source: str = ""
    line: int = 0
    texts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Recording:
    """A session rebuilt as hook payloads, ready for `replay`.

    `client` is None for payload logs (each payload's client is detected as the live hook does).
    `skipped_lines` counts malformed lines and unknown records that were passed over.
    `synthetic_times` is true when the file had no times and `SYNTHETIC_STEP` spacing was used.
    """

    sources: tuple[str, ...]
    format: Format
    client: Client | None
    session_id: str
    events: tuple[RecordedEvent, ...]
    calls: Mapping[str, RecordedCall] = field(default_factory=dict)
    cwd: str | None = None
    skipped_lines: int = 0
    synthetic_times: bool = False


# -- reading files ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Line:
    number: int
    data: dict[str, Any]


def _read_lines(path: str) -> tuple[list[_Line], int]:
    """The JSON object lines of `path` and the number of lines skipped as malformed.

    Raises:
        ReplayError: the file cannot be read.
    """
    try:
        raw = read_regular_file(path)
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    lines: list[_Line] = []
    skipped = 0
    for number, text in enumerate(raw.split(b"\n"), start=1):
        if not text.strip():
            continue
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            skipped += 1  # a malformed line, or the last line cut by a crash mid-write
            continue
        if isinstance(data, dict):
            lines.append(_Line(number, data))
        else:
            skipped += 1
    return lines, skipped


_CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state"})
_CLAUDE_TYPES = frozenset({"user", "assistant", "system", "attachment", "summary", "queue-operation"})
#: Response items as written by rollouts from before records were wrapped in `{type, payload}`.
_BARE_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "reasoning",
    }
)


def sniff(lines: Sequence[_Line]) -> Format | None:
    """The format of a file from its first `SNIFF_LINES` lines, or None."""
    for line in lines[:SNIFF_LINES]:
        data = line.data
        if isinstance(data.get("hook_event_name"), str):
            return Format.HOOK_PAYLOADS
        inner = data.get("payload")
        if isinstance(inner, dict) and isinstance(inner.get("hook_event_name"), str):
            return Format.HOOK_PAYLOADS
        kind = data.get("type")
        if kind in _CODEX_TYPES and isinstance(inner, dict):
            return Format.CODEX_ROLLOUT
        if kind in _CLAUDE_TYPES and "sessionId" in data:
            return Format.CLAUDE_TRANSCRIPT
        if kind in _BARE_ITEMS and "sessionId" not in data:
            return Format.CODEX_ROLLOUT
    return None


def _read(path: str) -> tuple[Format, list[Recording]]:
    """The recordings in one file of any known format.

    Raises:
        ReplayError: the file cannot be read, holds no records, or is not a recognised format.
    """
    lines, skipped = _read_lines(path)
    kind = sniff(lines)
    if kind is Format.CLAUDE_TRANSCRIPT:
        return kind, [_claude_recording(path, lines, skipped)]
    if kind is Format.CODEX_ROLLOUT:
        return kind, [_codex_recording(path, lines, skipped)]
    if kind is Format.HOOK_PAYLOADS:
        return kind, _payload_recordings(path, [(ln.number, ln.data) for ln in lines], skipped)
    if not lines:
        hint = "; replay reads JSON Lines (one JSON object per line), e.g. `jq -c . payload.json`" if skipped else ""
        raise ReplayError(f"{path}: no JSON records ({skipped} unreadable lines){hint}")
    raise ReplayError(f"{path}: not a Claude Code transcript, a Codex rollout or a hook payload log")


def read_transcript(path: str) -> Recording:
    """Read one Claude Code transcript or Codex rollout and rebuild its hook payload sequence.

    For a Claude Code main transcript, the subagent transcripts stored next to it
    (`<dir>/<session_id>/subagents/agent-*.jsonl`, Claude Code 2.1.332) are read too and merged
    by time, as their hook events interleave with the main thread's.

    Raises:
        ReplayError: the file cannot be read, holds no records, is a hook payload log (use
            `load` or `replay_payloads`), or is not a recognised format.
    """
    kind, recordings = _read(path)
    if kind is Format.HOOK_PAYLOADS:
        raise ReplayError(f"{path}: a hook payload log, not a transcript (use load or replay_payloads)")
    return recordings[0]


def load(paths: Iterable[str]) -> list[Recording]:
    """Read every file, whatever its format, into recordings: one per session.

    Files of one session (a Codex rollout and its subagents' rollouts, a Claude Code subagent
    transcript named next to its main one, several payload logs) are merged by time, each file
    read once; a payload log holding several sessions gives one recording each. Sessions keep the
    order in which they first appear.

    Raises:
        ReplayError: a file cannot be read or is not a recognised format.
    """
    recordings: list[Recording] = []
    for path in paths:
        recordings.extend(_read(path)[1])
    return _merge_sessions(recordings)


def _merge_sessions(recordings: list[Recording]) -> list[Recording]:
    merged: dict[tuple[str, str, str], Recording] = {}
    for rec in recordings:
        key = (rec.format.value, rec.client.value if rec.client else "", rec.session_id)
        prior = merged.get(key)
        if prior is None:
            merged[key] = rec
            continue
        known = {os.path.realpath(s) for s in prior.sources}
        fresh = tuple(s for s in rec.sources if os.path.realpath(s) not in known)
        events = [e for e in rec.events if e.source in fresh]
        merged[key] = replace(
            prior,
            sources=prior.sources + fresh,
            events=tuple(_merge_events([list(prior.events), events])),
            calls={**prior.calls, **rec.calls},
            skipped_lines=prior.skipped_lines + (rec.skipped_lines if fresh else 0),
            synthetic_times=prior.synthetic_times or rec.synthetic_times,
        )
    return list(merged.values())


def _merge_events(streams: list[list[RecordedEvent]]) -> Iterator[RecordedEvent]:
    # Each stream is in order already; merge by time, earlier streams first on a tie.
    return heapq.merge(*streams, key=lambda e: e.time)


def _timestamp(value: Any) -> float | None:
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


def _text_of(content: Any) -> str:
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


class _Clock:
    """Times of one event stream, kept in order: lines are not always written in time order."""

    def __init__(self) -> None:
        self.now = 0.0

    def at(self, value: float | None) -> float:
        if value is not None and value > self.now:
            self.now = value
        return self.now


def _with_texts(
    events: list[RecordedEvent], texts: list[tuple[int, str, str]], reads: Callable[[Mapping[str, Any]], bool]
) -> list[RecordedEvent]:
    """Give each event that reads the transcript the assistant texts written since the last such
    event: the lines up to the furthest line any event so far came from (those were on disk)."""
    out: list[RecordedEvent] = []
    mark = cursor = 0
    for event in events:
        mark = max(mark, event.line)
        if reads(event.payload):
            start = cursor
            while cursor < len(texts) and texts[cursor][0] <= mark:
                cursor += 1
            if cursor > start:
                event = replace(event, texts=tuple((key, text) for _, key, text in texts[start:cursor]))
        out.append(event)
    return out


def _line_texts(lines: Iterable[_Line]) -> list[tuple[int, str, str]]:
    # The same keys the live hook's transcript reader gives (transcript.py), for de-duplication.
    return [(line.number, key, text) for line in lines for key, text in assistant_texts(line.data)]


# -- Claude Code transcripts ------------------------------------------------------------------

#: Tools Claude Code runs concurrently with their neighbours (2.1.332 `isConcurrencySafe`:
#: read-only tools; research notes §5). Everything else, MCP tools included, runs alone.
CLAUDE_CONCURRENT_TOOLS = frozenset(
    {
        "Read",
        "Glob",
        "Grep",
        "LS",
        "NotebookRead",
        "WebFetch",
        "WebSearch",
        "ToolSearch",
        "Agent",
        "Task",
        "TaskGet",
        "TaskList",
        "TaskOutput",
        "ListAgents",
    }
)

# Bash is concurrency-safe when Claude Code judges the command read-only. Its real check is an
# allowlist of commands and flags; this is a conservative approximation (unsure means serial,
# which only matters for identical calls in one message).
_READ_ONLY_COMMANDS = frozenset(
    {
        "cat",
        "head",
        "tail",
        "ls",
        "pwd",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "wc",
        "stat",
        "file",
        "du",
        "df",
        "which",
        "whoami",
        "id",
        "date",
        "uname",
        "tree",
        "diff",
        "cmp",
        "sort",
        "uniq",
        "cut",
        "jq",
        "echo",
        "printf",
        "cd",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "test",
        "true",
        "false",
        "nl",
        "od",
        "hexdump",
        "md5sum",
        "sha256sum",
        "printenv",
        "env",
        "type",
        "less",
        "more",
        "column",
    }
)
_READ_ONLY_GIT = frozenset(
    {
        "status",
        "log",
        "diff",
        "show",
        "rev-parse",
        "ls-files",
        "grep",
        "blame",
        "describe",
        "shortlog",
        "cat-file",
        "ls-tree",
        "reflog",
    }
)
_SEGMENT_SPLIT = re.compile(r"&&|\|\||[;|\n]")
_REDIRECT = re.compile(r"(?<![0-9&])>|>>|\$\(|`|<\(")
_HARMLESS_REDIRECT = re.compile(r"\d?>&\d|\d?>\s*/dev/null")


def bash_is_read_only(command: str) -> bool:
    """True when a Bash command looks read-only, so Claude Code would run it in parallel."""
    if _REDIRECT.search(_HARMLESS_REDIRECT.sub("", command)):
        return False
    for segment in _SEGMENT_SPLIT.split(command):
        words = segment.split()
        while words and "=" in words[0] and not words[0].startswith("="):
            words.pop(0)  # VAR=value prefixes
        if not words:
            continue
        head = words[0]
        if head == "git":
            sub = next((w for w in words[1:] if not w.startswith("-")), "")
            if sub not in _READ_ONLY_GIT:
                return False
        elif head == "find":
            if any(w in ("-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint", "-fprintf", "-fls") for w in words):
                return False
        elif head == "sed":
            if "-n" not in words or any(w.startswith("-i") or w.startswith("--in-place") for w in words):
                return False
        elif head not in _READ_ONLY_COMMANDS:
            return False
    return True


def _claude_concurrent(name: str, tool_input: Any) -> bool:
    if name in CLAUDE_CONCURRENT_TOOLS:
        return True
    if name == "Bash" and isinstance(tool_input, dict):
        command = tool_input.get("command")
        return isinstance(command, str) and bash_is_read_only(command)
    return False


_HOOK_DENIAL = re.compile(r"^PreToolUse:\S+ hook (?:error|stopped continuation):")
_REFUSALS = (
    "The user doesn't want to proceed with this tool use",
    "The user doesn't want to take this action",
    "Permission to use ",
    "Claude requested permissions to ",
)
_INTERRUPTED = "[Request interrupted by user"
_NOT_PROMPTS = (
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-memory-input>",
    _INTERRUPTED,
    "Caveat: The messages below were generated by the user while running local commands",
)


def classify_claude_result(content: Any, is_error: bool) -> Outcome:
    """What a Claude Code `tool_result` says happened (facts: module docstring)."""
    text = _text_of(content)
    head = text.lstrip()[:200]
    if "<tool_use_error>" in head[:40]:
        return Outcome.REJECTED
    if _HOOK_DENIAL.match(head):
        return Outcome.DENIED
    if head.startswith(_INTERRUPTED):
        return Outcome.INTERRUPTED
    if is_error and head.startswith(_REFUSALS):
        return Outcome.REFUSED
    return Outcome.FAILED if is_error else Outcome.RAN


_NUMBERED_LINE = re.compile(r"^ *(\d+)\t", re.M)


def structured_result(tool: str, tool_input: Any, content: Any) -> Any:
    """The PostToolUse `tool_response` of a Claude Code call whose transcript line has no
    `toolUseResult` (subagent transcripts of 2.1.332 have none), rebuilt from the text the model
    saw where its shape is known: Read (`1\talpha\n2\t` -> `{type, file: {filePath, content,
    numLines, startLine, totalLines}}`) and Bash (`{stdout, stderr, interrupted, isImage,
    noOutputExpected}`; stderr cannot be told apart and stays in `stdout`). Other tools: the text.
    """
    if not isinstance(content, str):
        return content
    if tool == "Read" and isinstance(tool_input, dict) and isinstance(tool_input.get("file_path"), str):
        lines = content.split("\n")
        numbers = [_NUMBERED_LINE.match(line) for line in lines]
        if lines and all(numbers):
            start = int(numbers[0].group(1)) if numbers[0] else 1
            body = "\n".join(line[m.end() :] for line, m in zip(lines, numbers, strict=True) if m)
            file = {
                "filePath": tool_input["file_path"],
                "content": body,
                "numLines": len(lines),
                "startLine": start,
                "totalLines": start + len(lines) - 1,
            }
            return {"type": "text", "file": file}
    if tool == "Bash":
        stdout = "" if content == "(Bash completed with no output)" else content
        return {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
    return content


@dataclass(slots=True)
class _ClaudeCall:
    tool_use_id: str
    name: str
    tool_input: Any
    time: float | None
    line: int
    result: Any = None
    result_time: float | None = None
    result_line: int = 0
    result_order: int = 0
    structured: Any = None
    has_structured: bool = False
    is_error: bool = False
    has_result: bool = False

    def outcome(self) -> Outcome:
        if not self.has_result:
            return Outcome.UNKNOWN
        return classify_claude_result(self.result, self.is_error)


@dataclass(slots=True)
class _ClaudeMessage:
    message_id: str | None
    agent: str
    calls: list[_ClaudeCall] = field(default_factory=list)


class _ClaudeStream:
    """Turns the lines of one Claude Code transcript file into hook payloads."""

    def __init__(
        self,
        path: str,
        transcript_path: str,
        agent_types: Mapping[str, str],
        *,
        session_id: str | None = None,
        sidechain: str = "sidechain",
    ) -> None:
        self.path = path
        self.transcript_path = transcript_path
        self.agent_types = agent_types
        self.sidechain = sidechain
        self.events: list[RecordedEvent] = []
        self.calls: dict[str, RecordedCall] = {}
        self.clock = _Clock()
        self.session_id = session_id
        self.cwd: str | None = None
        self.prompt_id: str | None = None
        self.permission_mode = "default"
        self.pending: dict[str, _ClaudeMessage] = {}
        self.stopped: set[str] = set()
        self.compaction_open = False
        self.result_counter = 0
        self.skipped = 0

    # payloads

    def _base(self, name: str, agent: str) -> dict[str, Any]:
        data: dict[str, Any] = {
            "session_id": self.session_id or "",
            "transcript_path": self.transcript_path,
            "cwd": self.cwd or "",
        }
        if self.prompt_id is not None:
            data["prompt_id"] = self.prompt_id
        if name not in ("SessionStart", "SessionEnd"):
            data["permission_mode"] = self.permission_mode
        data["hook_event_name"] = name
        if agent != MAIN_AGENT:
            data["agent_id"] = agent
            agent_type = self.agent_types.get(agent)
            if agent_type is not None:
                data["agent_type"] = agent_type
        return data

    def _emit(self, time: float | None, payload: dict[str, Any], line: int) -> float:
        at = self.clock.at(time)
        self.events.append(RecordedEvent(at, payload, self.path, line))
        return at

    # lines

    def feed(self, line: _Line) -> None:
        data = line.data
        kind = data.get("type")
        if isinstance(data.get("sessionId"), str) and self.session_id is None:
            self.session_id = data["sessionId"]
        if isinstance(data.get("cwd"), str):
            self.cwd = data["cwd"]
        time = _timestamp(data.get("timestamp"))
        agent = self._agent(data)
        if kind == "assistant":
            self._assistant(line, data, agent, time)
        elif kind == "user":
            self._user(line, data, agent, time)
        elif kind == "system":
            if data.get("subtype") == "compact_boundary" and agent == MAIN_AGENT:
                self._compaction(line, time)
                self.compaction_open = True
        elif kind == "attachment":
            attachment = data.get("attachment")
            if (
                isinstance(attachment, dict)
                and attachment.get("type") == "hook_stopped_continuation"
                and attachment.get("hookEvent") == "PreToolUse"
                and isinstance(attachment.get("toolUseID"), str)
            ):
                self.stopped.add(attachment["toolUseID"])
        elif not isinstance(kind, str):
            self.skipped += 1  # not a transcript record; other record types are bookkeeping

    def _agent(self, data: Mapping[str, Any]) -> str:
        if data.get("isSidechain") is True:
            agent_id = data.get("agentId")
            return agent_id if isinstance(agent_id, str) and agent_id else self.sidechain
        return MAIN_AGENT

    def _assistant(self, line: _Line, data: Mapping[str, Any], agent: str, time: float | None) -> None:
        message = data.get("message")
        if not isinstance(message, dict):
            self.skipped += 1
            return
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        uses = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        pending = self.pending.get(agent)
        if pending is not None and (message_id is None or pending.message_id != message_id):
            self._flush(agent)
            pending = None
        if uses:
            if pending is None:
                pending = self.pending[agent] = _ClaudeMessage(message_id, agent)
            for block in uses:
                tool_use_id, name = block.get("id"), block.get("name")
                if isinstance(tool_use_id, str) and isinstance(name, str):
                    pending.calls.append(_ClaudeCall(tool_use_id, name, block.get("input"), time, line.number))
        elif message.get("stop_reason") == "end_turn":
            name = "Stop" if agent == MAIN_AGENT else "SubagentStop"
            payload = self._base(name, agent)
            payload["stop_hook_active"] = False
            if agent != MAIN_AGENT:
                payload["agent_transcript_path"] = os.path.abspath(self.path)
            payload["last_assistant_message"] = _text_of(blocks)
            self._emit(time, payload, line.number)

    def _user(self, line: _Line, data: Mapping[str, Any], agent: str, time: float | None) -> None:
        message = data.get("message")
        if not isinstance(message, dict):
            self.skipped += 1
            return
        if isinstance(data.get("permissionMode"), str):
            self.permission_mode = data["permissionMode"]
        content = message.get("content")
        results = (
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] if isinstance(content, list) else []
        )
        if results:
            pending = self.pending.get(agent)
            if pending is None:
                return  # results of calls this file does not show (cut before a resume)
            by_id = {c.tool_use_id: c for c in pending.calls}
            for block in results:
                call = by_id.get(block.get("tool_use_id"))  # type: ignore[arg-type]
                if call is None or call.has_result:
                    continue
                self.result_counter += 1
                call.has_result = True
                call.result = block.get("content")
                call.is_error = block.get("is_error") is True
                call.result_time = time
                call.result_line = line.number
                call.result_order = self.result_counter
                if len(results) == 1 and "toolUseResult" in data:
                    call.structured = data["toolUseResult"]
                    call.has_structured = True
            return
        if data.get("isCompactSummary") is True:
            if not self.compaction_open and agent == MAIN_AGENT:
                self._compaction(line, time)
            self.compaction_open = False
            return
        if agent != MAIN_AGENT or data.get("isMeta") is True:
            return  # a subagent's task prompt, or text the client added
        text = _text_of(content)
        if not text.strip() or text.lstrip().startswith(_NOT_PROMPTS):
            return
        self._flush_all()
        self.compaction_open = False
        if isinstance(data.get("promptId"), str):
            self.prompt_id = data["promptId"]
        payload = self._base("UserPromptSubmit", MAIN_AGENT)
        payload["prompt"] = text
        self._emit(time, payload, line.number)

    def _compaction(self, line: _Line, time: float | None) -> None:
        self._flush_all()
        payload = self._base("SessionStart", MAIN_AGENT)
        payload.pop("prompt_id", None)
        payload["source"] = "compact"
        self._emit(time, payload, line.number)

    # one assistant message's calls -> hook events

    def _flush_all(self) -> None:
        for agent in list(self.pending):
            self._flush(agent)

    def _flush(self, agent: str) -> None:
        message = self.pending.pop(agent, None)
        if message is None or not message.calls:
            return
        groups: list[list[_ClaudeCall]] = []
        joinable = False
        for call in message.calls:
            parallel = _claude_concurrent(call.name, call.tool_input)
            if parallel and joinable:
                groups[-1].append(call)
            else:
                groups.append([call])
            joinable = parallel
        last = self.clock.now
        for group in groups:
            runs = [c for c in group if c.outcome() is not Outcome.REJECTED]
            for call in runs:
                start = max(call.time, last) if call.time is not None else last
                self._emit(start, self._tool_payload("PreToolUse", agent, call), call.line)
            for call in sorted(runs, key=lambda c: c.result_order):
                post = self._post_payload(agent, call)
                if post is not None:
                    self._emit(call.result_time, post, call.result_line)
            last = self.clock.now
        for call in message.calls:
            self.calls[call.tool_use_id] = RecordedCall(call.tool_use_id, call.outcome())
        complete = all(c.has_result for c in message.calls)
        if complete and not any(c.tool_use_id in self.stopped for c in message.calls):
            payload = self._base("PostToolBatch", agent)
            payload["tool_calls"] = [
                {"tool_name": c.name, "tool_input": c.tool_input, "tool_use_id": c.tool_use_id, "tool_response": c.result}
                for c in message.calls
            ]
            final = max(message.calls, key=lambda c: c.result_order)
            self._emit(final.result_time, payload, final.result_line)

    def _tool_payload(self, name: str, agent: str, call: _ClaudeCall) -> dict[str, Any]:
        payload = self._base(name, agent)
        payload["tool_name"] = call.name
        payload["tool_input"] = call.tool_input
        payload["tool_use_id"] = call.tool_use_id
        return payload

    def _post_payload(self, agent: str, call: _ClaudeCall) -> dict[str, Any] | None:
        outcome = call.outcome()
        if outcome is Outcome.RAN:
            payload = self._tool_payload("PostToolUse", agent, call)
            if call.has_structured:
                payload["tool_response"] = call.structured
            else:
                payload["tool_response"] = structured_result(call.name, call.tool_input, call.result)
            return payload
        if outcome in (Outcome.FAILED, Outcome.INTERRUPTED):
            payload = self._tool_payload("PostToolUseFailure", agent, call)
            payload["error"] = _text_of(call.result)
            payload["is_interrupt"] = outcome is Outcome.INTERRUPTED
            return payload
        return None  # denied, refused, no result: no post event

    def finish(self) -> None:
        self._flush_all()


def _claude_recording(path: str, lines: list[_Line], skipped: int) -> Recording:
    transcript_path = os.path.abspath(path)
    session_id = next((ln.data["sessionId"] for ln in lines if isinstance(ln.data.get("sessionId"), str)), None)
    files: list[tuple[str, list[_Line], int]] = [(path, lines, skipped)]
    agent_types: dict[str, str] = {}
    if session_id is not None:
        sub_dir = os.path.join(os.path.dirname(transcript_path), session_id, "subagents")
        try:
            names = sorted(os.listdir(sub_dir))
        except OSError:
            names = []
        for name in names:
            sub_path = os.path.join(sub_dir, name)
            if name.endswith(".meta.json"):
                agent_types.update(_agent_type(sub_path, name[len("agent-") : -len(".meta.json")]))
            elif name.startswith("agent-") and name.endswith(".jsonl") and os.path.isfile(sub_path):
                try:
                    sub_lines, sub_skipped = _read_lines(sub_path)
                except ReplayError:
                    continue
                files.append((sub_path, sub_lines, sub_skipped))
    if session_id is None:
        raise ReplayError(f"{path}: no sessionId in any line")
    streams: list[_ClaudeStream] = []
    for file_path, file_lines, _ in files:
        # Subagent hook payloads carry the main session id and transcript path (captured
        # PreToolUse.Read.subagent.json); a subagent file names its agent (`agent-<id>.jsonl`).
        stem = os.path.basename(file_path).removesuffix(".jsonl")
        sidechain = stem.removeprefix("agent-") if stem.startswith("agent-") else "sidechain"
        stream = _ClaudeStream(file_path, transcript_path, agent_types, session_id=session_id, sidechain=sidechain)
        for line in file_lines:
            stream.feed(line)
        stream.finish()
        # The live hook reads the main transcript at main-thread PreToolUse, UserPromptSubmit and
        # Stop, and a subagent's own transcript at its SubagentStop (hook._new_texts).
        stream.events = _with_texts(stream.events, _line_texts(file_lines), _claude_reads)
        streams.append(stream)
    main = streams[0]
    calls: dict[str, RecordedCall] = {}
    for stream in streams:
        calls.update(stream.calls)
    return Recording(
        sources=tuple(f for f, _, _ in files),
        format=Format.CLAUDE_TRANSCRIPT,
        client=Client.CLAUDE_CODE,
        session_id=session_id,
        events=tuple(_merge_events([s.events for s in streams])),
        calls=calls,
        cwd=main.cwd,
        skipped_lines=sum(s for _, _, s in files) + sum(s.skipped for s in streams),
    )


def _claude_reads(payload: Mapping[str, Any]) -> bool:
    name = payload.get("hook_event_name")
    if name == "PreToolUse":
        return "agent_id" not in payload
    return name in ("UserPromptSubmit", "Stop", "SubagentStop")


def _agent_type(path: str, agent_id: str) -> dict[str, str]:
    try:
        with open(path, "rb") as fh:
            meta = orjson.loads(fh.read(65536))
    except (OSError, orjson.JSONDecodeError):
        return {}
    agent_type = meta.get("agentType") if isinstance(meta, dict) else None
    return {agent_id: agent_type} if isinstance(agent_type, str) else {}


# -- Codex rollouts ---------------------------------------------------------------------------

_EXEC_HEADER = re.compile(
    r"\A(?:(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count"
    r"|Exit code|Total output lines)\b[^\n]*\n)+Output:\n?"
)
_EXIT_LINE = re.compile(r"^(?:Process exited with code|Exit code:) ?(-?\d+)", re.M)
_STILL_RUNNING = re.compile(r"^Process running with session ID", re.M)
_CODEX_BLOCKED = ("Command blocked by PreToolUse hook:", "Tool call blocked by PreToolUse hook:")
#: Model-side tools that run no hooks in Codex 0.171.0 (research notes §6).
CODEX_UNHOOKED_TOOLS = frozenset({"write_stdin", "tool_search", "web_search", "exec", "wait"})
_SHELL_TOOLS = frozenset({"exec_command", "shell_command", "shell", "container.exec", "local_shell"})
_COMPLETION_EVENTS = frozenset({"exec_command_end", "patch_apply_end", "mcp_tool_call_end"})


def split_exec_output(output: str) -> tuple[str, int | None]:
    """Codex shell output as the hook sees it, and the exit code the header states.

    `"Chunk ID: …\\nWall time: …\\nProcess exited with code 2\\nOriginal token count: 15\\nOutput:\\nls: …"`
    gives `("ls: …", 2)` (Codex 0.171.0 `function_call_output`). Older rollouts wrap the output
    as JSON `{"output": …, "metadata": {"exit_code": N}}`; that form is unwrapped too.
    """
    stripped = output.lstrip()
    if stripped.startswith("{") and '"output"' in stripped[:200]:
        try:
            wrapped = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            wrapped = None
        if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
            meta = wrapped.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return wrapped["output"], code if isinstance(code, int) else None
    match = _EXEC_HEADER.match(output)
    if match is None:
        return output, None
    exit_match = _EXIT_LINE.search(match.group(0))
    return output[match.end() :], int(exit_match.group(1)) if exit_match else None


def _shell_script(argv: Any) -> str | None:
    """The script of a Codex `shell` argv (`["bash", "-lc", "cat x"]` gives `cat x`)."""
    if isinstance(argv, str):
        return argv
    if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
        if len(argv) >= 3 and argv[-2] in ("-lc", "-c") and os.path.basename(argv[0]) in ("bash", "sh", "zsh", "dash"):
            return str(argv[-1])
        return " ".join(argv)
    return None


def _codex_tool(item: Mapping[str, Any]) -> tuple[str, Any] | None:
    """Hook `tool_name` and `tool_input` of a rollout call item, or None if no hook fires for it."""
    kind = item.get("type")
    name = item.get("name")
    if kind == "local_shell_call":
        action = item.get("action")
        command = _shell_script(action.get("command")) if isinstance(action, dict) else None
        return ("Bash", {"command": command}) if command is not None else None
    if not isinstance(name, str) or name in CODEX_UNHOOKED_TOOLS:
        return None
    if kind == "custom_tool_call":
        raw = item.get("input")
        if name == "apply_patch":
            return "apply_patch", {"command": raw if isinstance(raw, str) else ""}
        return name, raw
    if kind != "function_call":
        return None
    arguments = item.get("arguments")
    try:
        args = orjson.loads(arguments) if isinstance(arguments, str) else arguments
    except orjson.JSONDecodeError:
        args = arguments  # malformed input is compared as the raw string, as the hook would
    namespace = item.get("namespace")
    if isinstance(namespace, str) and namespace:
        # MCP tools are `mcp__<server>__<tool>`; other namespaces are joined as Codex does
        # (0.171.0 probe P20: `multi_agent_v1wait_agent`).
        joined = f"{namespace}__{name}" if namespace.startswith("mcp__") else namespace + name
        return joined, args
    if name in _SHELL_TOOLS:
        if not isinstance(args, dict):
            return "Bash", {"command": args if isinstance(args, str) else ""}
        command = args.get("cmd", args.get("command"))
        script = _shell_script(command)
        return "Bash", {"command": script if script is not None else ""}
    if name == "apply_patch":
        patch = args.get("input", args.get("patch")) if isinstance(args, dict) else args
        return "apply_patch", {"command": patch if isinstance(patch, str) else ""}
    return name, args


@dataclass(slots=True)
class _CodexCall:
    call_id: str
    tool: str
    tool_input: Any
    turn_id: str | None
    output: Any = None
    has_output: bool = False
    completion: dict[str, Any] | None = None
    posted: bool = False


class _CodexStream:
    """Turns the records of one Codex rollout into hook payloads."""

    def __init__(self, path: str, lines: list[_Line]) -> None:
        self.path = path
        self.transcript_path = os.path.abspath(path)
        self.lines = lines
        self.events: list[RecordedEvent] = []
        self.calls: dict[str, _CodexCall] = {}
        self.clock = _Clock()
        self.session_id: str | None = None
        self.agent = MAIN_AGENT
        self.agent_type: str | None = None
        self.cwd: str | None = None
        self.model: str | None = None
        self.turn_id: str | None = None
        self.permission_mode = "bypassPermissions"
        self.skipped = 0
        self.last_message = ""
        self.outputs: dict[str, Any] = {}
        self.completions: dict[str, dict[str, Any]] = {}
        self.prompt_source = "response_item"
        self.compaction_open = False

    def _records(self) -> Iterator[tuple[_Line, str, dict[str, Any], float | None]]:
        for line in self.lines:
            data = line.data
            kind, payload = data.get("type"), data.get("payload")
            if not isinstance(payload, dict):
                if kind in _BARE_ITEMS:
                    kind, payload = "response_item", data
                elif "id" in data and "instructions" in data and kind is None:
                    kind, payload = "session_meta", data  # the oldest rollouts' first line
                else:
                    continue
            yield line, str(kind), payload, _timestamp(data.get("timestamp"))

    def _count_skipped(self) -> None:
        self.skipped = sum(
            1
            for line in self.lines
            if not isinstance(line.data.get("payload"), dict)
            and line.data.get("type") not in _BARE_ITEMS
            and not ("id" in line.data and "instructions" in line.data)
        )

    def _index(self) -> None:
        for _, kind, payload, _ in self._records():
            ptype = payload.get("type")
            if kind == "response_item" and ptype in ("function_call_output", "custom_tool_call_output"):
                if isinstance(payload.get("call_id"), str):
                    self.outputs.setdefault(payload["call_id"], payload.get("output"))
            elif kind == "event_msg":
                item = payload.get("item") if ptype == "item_completed" else None
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    self.completions.setdefault(item["id"], item)
                    if item.get("type") == "UserMessage":
                        self.prompt_source = "event_msg"
                elif ptype in _COMPLETION_EVENTS and isinstance(payload.get("call_id"), str):
                    self.completions.setdefault(payload["call_id"], payload)
                elif ptype == "user_message":
                    self.prompt_source = "event_msg"

    def _base(self, name: str, turn_id: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"session_id": self.session_id or ""}
        turn = turn_id if turn_id is not None else self.turn_id
        if name != "SessionStart" and turn is not None:
            data["turn_id"] = turn
        data["transcript_path"] = self.transcript_path
        data["cwd"] = self.cwd or ""
        data["hook_event_name"] = name
        if self.model is not None:
            data["model"] = self.model
        data["permission_mode"] = self.permission_mode
        if self.agent != MAIN_AGENT:
            data["agent_id"] = self.agent
            if self.agent_type is not None:
                data["agent_type"] = self.agent_type
        return data

    def _emit(self, time: float | None, payload: dict[str, Any], line: int) -> None:
        self.events.append(RecordedEvent(self.clock.at(time), payload, self.path, line))

    def run(self) -> None:
        self._count_skipped()
        self._index()
        for line, kind, payload, time in self._records():
            turn = payload.get("turn_id")
            meta = payload.get("internal_chat_message_metadata_passthrough")
            if isinstance(meta, dict) and isinstance(meta.get("turn_id"), str):
                turn = meta["turn_id"]
            if isinstance(turn, str) and kind != "session_meta":
                self.turn_id = turn
            if kind == "session_meta":
                self._session_meta(payload)
            elif kind == "turn_context":
                self._turn_context(payload)
            elif kind == "compacted":
                self._compaction(time, line.number)
            elif kind == "response_item":
                self._response_item(line, payload, time)
            elif kind == "event_msg":
                self._event_msg(line, payload, time)

    def _session_meta(self, payload: Mapping[str, Any]) -> None:
        if self.session_id is not None:
            return  # the first session_meta is this rollout's own thread
        own = payload.get("id") if isinstance(payload.get("id"), str) else payload.get("session_id")
        self.session_id = own if isinstance(own, str) else None
        if isinstance(payload.get("cwd"), str):
            self.cwd = payload["cwd"]
        source = payload.get("source")
        sub = source.get("subagent") if isinstance(source, dict) else None
        if sub is not None and isinstance(own, str):
            # A thread-spawned subagent (`SessionSource::SubAgent(ThreadSpawn {parent_thread_id,
            # ..})` in codex-rs): its hooks carry the parent's session id and its own thread id
            # as `agent_id` (Codex 0.171.0 probe P20).
            parent = _find_key(sub, ("root_thread_id", "parent_thread_id", "parent_id"))
            if parent is not None:
                self.session_id = parent
                self.agent = own
                agent_type = _find_key(sub, ("agent_type", "role", "agent_role"))
                self.agent_type = agent_type or "default"

    def _turn_context(self, payload: Mapping[str, Any]) -> None:
        if isinstance(payload.get("cwd"), str):
            self.cwd = payload["cwd"]
        if isinstance(payload.get("model"), str):
            self.model = payload["model"]
        policy = payload.get("approval_policy")
        if isinstance(policy, str):
            self.permission_mode = "bypassPermissions" if policy == "never" else "default"

    def _compaction(self, time: float | None, line: int) -> None:
        if self.compaction_open:
            return
        self.compaction_open = True
        payload = self._base("SessionStart")
        payload["source"] = "compact"
        self._emit(time, payload, line)

    def _prompt(self, text: str, time: float | None, line: int) -> None:
        if self.agent != MAIN_AGENT or not text.strip() or text.lstrip().startswith(_CODEX_NOT_PROMPTS):
            return
        self.compaction_open = False
        payload = self._base("UserPromptSubmit")
        payload["prompt"] = text
        self._emit(time, payload, line)

    def _response_item(self, line: _Line, item: Mapping[str, Any], time: float | None) -> None:
        ptype = item.get("type")
        if ptype == "message":
            role = item.get("role")
            if role == "user" and self.prompt_source == "response_item":
                self._prompt(_text_of(item.get("content")), time, line.number)
            elif role == "assistant":
                self.last_message = _text_of(item.get("content"))
            return
        if ptype in ("function_call", "custom_tool_call", "local_shell_call"):
            call_id = item.get("call_id", item.get("id"))
            tool = _codex_tool(item)
            if tool is None or not isinstance(call_id, str) or call_id in self.calls:
                return
            self.compaction_open = False
            call = self.calls[call_id] = _CodexCall(call_id, tool[0], tool[1], self.turn_id)
            self._emit(time, self._tool_payload("PreToolUse", call), line.number)
            return
        if ptype in ("function_call_output", "custom_tool_call_output"):
            call_id = item.get("call_id")
            found = self.calls.get(call_id) if isinstance(call_id, str) else None
            if found is None or found.has_output:
                return
            call = found
            call.has_output = True
            call.output = item.get("output")
            if call.posted or _blocked(call.output):
                return
            completion = self.completions.get(call.call_id)
            if completion is not None and self._posts_at_completion(call):
                return  # its PostToolUse came (or comes) with the completion record
            self._post(call, completion, time, line.number)

    def _posts_at_completion(self, call: _CodexCall) -> bool:
        # Commands: PostToolUse fires when the process ends (item_completed), so parallel posts
        # come in completion order. Other tools: when their output is recorded.
        return call.tool == "Bash"

    def _event_msg(self, line: _Line, payload: Mapping[str, Any], time: float | None) -> None:
        ptype = payload.get("type")
        if ptype == "item_completed":
            item = payload.get("item")
            if not isinstance(item, dict):
                return
            item_type = item.get("type")
            if item_type == "UserMessage" and self.prompt_source == "event_msg":
                self._prompt(_text_of(item.get("content")), time, line.number)
            elif item_type == "AgentMessage":
                self.last_message = _text_of(item.get("content"))
            elif isinstance(item.get("id"), str):
                self._completion(line, item["id"], item, time)
        elif ptype in _COMPLETION_EVENTS and isinstance(payload.get("call_id"), str):
            self._completion(line, payload["call_id"], dict(payload), time)
        elif ptype == "user_message" and self.prompt_source == "event_msg":
            message = payload.get("message")
            self._prompt(message if isinstance(message, str) else "", time, line.number)
        elif ptype == "task_complete":
            last = payload.get("last_agent_message")
            stop = self._base("Stop")
            stop["stop_hook_active"] = False
            stop["last_assistant_message"] = last if isinstance(last, str) else (self.last_message or None)
            if self.agent != MAIN_AGENT:
                stop["hook_event_name"] = "SubagentStop"
                stop["agent_transcript_path"] = self.transcript_path
            self._emit(time, stop, line.number)
        elif ptype in ("context_compacted", "compacted"):
            self._compaction(time, line.number)

    def _completion(self, line: _Line, item_id: str, item: dict[str, Any], time: float | None) -> None:
        call = self.calls.get(item_id)
        if call is None:
            if item_id.startswith("exec-"):
                self._nested(line, item_id, item, time)
            return
        call.completion = item
        if call.posted or not self._posts_at_completion(call):
            return
        output = self.outputs.get(call.call_id)
        if output is not None and _blocked(output):
            return
        if isinstance(output, str) and _STILL_RUNNING.search(output[:300]):
            code = _exit_code(item)
            if code is None or code < 0:
                return  # killed at exit, never finished: no PostToolUse (probe P10)
        self._post(call, item, time, line.number)

    def _nested(self, line: _Line, item_id: str, item: dict[str, Any], time: float | None) -> None:
        # Code Mode: the outer `exec` runs no hook; each nested tool call does, with this id.
        item_type = item.get("type")
        if item_type == "CommandExecution":
            tool: tuple[str, Any] = ("Bash", {"command": _shell_script(item.get("command")) or ""})
        elif item_type == "FileChange":
            return  # the patch text is not in the record; nothing faithful to replay
        elif item_type == "McpToolCall" and isinstance(item.get("server"), str) and isinstance(item.get("tool"), str):
            tool = (f"mcp__{item['server']}__{item['tool']}", item.get("arguments"))
        else:
            return
        call = self.calls[item_id] = _CodexCall(item_id, tool[0], tool[1], self.turn_id)
        started = _timestamp(_seconds(item, "started_at_ms"))
        self._emit(started if started is not None else time, self._tool_payload("PreToolUse", call), line.number)
        call.completion = item
        self._post(call, item, _timestamp(_seconds(item, "completed_at_ms")) or time, line.number)

    def _tool_payload(self, name: str, call: _CodexCall) -> dict[str, Any]:
        payload = self._base(name, call.turn_id)
        payload["tool_name"] = call.tool
        payload["tool_input"] = call.tool_input
        payload["tool_use_id"] = call.call_id
        return payload

    def _post(self, call: _CodexCall, completion: Mapping[str, Any] | None, time: float | None, line: int) -> None:
        call.posted = True
        payload = self._tool_payload("PostToolUse", call)
        payload["tool_response"] = self._response(call, completion)
        self._emit(time, payload, line)

    def _response(self, call: _CodexCall, completion: Mapping[str, Any] | None) -> Any:
        output = self.outputs.get(call.call_id, call.output)
        if call.tool == "Bash":
            if completion is not None and isinstance(completion.get("aggregated_output"), str):
                return completion["aggregated_output"]
            if isinstance(output, str):
                return split_exec_output(output)[0]
            if completion is not None:
                out = completion.get("stdout")
                err = completion.get("stderr")
                return (out if isinstance(out, str) else "") + (err if isinstance(err, str) else "")
        if call.tool.startswith("mcp__") and completion is not None:
            result = completion.get("result")
            if isinstance(result, dict):
                ok = result.get("Ok", result.get("ok"))
                return ok if isinstance(ok, dict) else result
        return output if output is not None else ""

    def recorded(self) -> dict[str, RecordedCall]:
        return {call_id: self._recorded(call) for call_id, call in self.calls.items()}

    def _recorded(self, call: _CodexCall) -> RecordedCall:
        output = self.outputs.get(call.call_id, call.output)
        if output is not None and _blocked(output):
            return RecordedCall(call.call_id, Outcome.DENIED)
        code = _exit_code(call.completion) if call.completion is not None else None
        if code is None and isinstance(output, str):
            code = split_exec_output(output)[1]
        if not call.posted:
            still = isinstance(output, str) and _STILL_RUNNING.search(output[:300]) is not None
            return RecordedCall(call.call_id, Outcome.RUNNING if still else Outcome.UNKNOWN, code)
        failed = (code is not None and code != 0) or (call.completion is not None and call.completion.get("status") == "failed")
        return RecordedCall(call.call_id, Outcome.FAILED if failed else Outcome.RAN, code)


_CODEX_NOT_PROMPTS = ("<environment_context>", "<user_instructions>", "<hook_prompt", "# AGENTS.md", "<turn_aborted>")


def _seconds(item: Mapping[str, Any], key: str) -> float | None:
    """A millisecond epoch field of a Codex item (`started_at_ms`) in seconds, or None."""
    value = item.get(key)
    return value / 1000.0 if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _exit_code(item: Mapping[str, Any] | None) -> int | None:
    if item is None:
        return None
    code = item.get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _blocked(output: Any) -> bool:
    text = _text_of(output) if not isinstance(output, str) else output
    return text.lstrip().startswith(_CODEX_BLOCKED)


def _find_key(value: Any, keys: tuple[str, ...]) -> str | None:
    if isinstance(value, dict):
        for key in keys:
            found = value.get(key)
            if isinstance(found, str) and found:
                return found
        for inner in value.values():
            found = _find_key(inner, keys)
            if found is not None:
                return found
    return None


def _codex_recording(path: str, lines: list[_Line], skipped: int) -> Recording:
    stream = _CodexStream(path, lines)
    stream.run()
    if stream.session_id is None:
        raise ReplayError(f"{path}: no session_meta record with a session id")
    reads = {"PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop"}
    events = _with_texts(stream.events, _line_texts(lines), lambda p: p.get("hook_event_name") in reads)
    return Recording(
        sources=(path,),
        format=Format.CODEX_ROLLOUT,
        client=Client.CODEX,
        session_id=stream.session_id,
        events=tuple(events),
        calls=stream.recorded(),
        cwd=stream.cwd,
        skipped_lines=skipped + stream.skipped,
    )


# -- hook payload logs ------------------------------------------------------------------------


def _payload_recordings(source: str, items: Iterable[tuple[int, Any]], skipped: int = 0) -> list[Recording]:
    """Group payload-log lines (bare payloads or `{"payload": …}` wrappers) by session."""
    by_session: dict[str, list[tuple[float | None, dict[str, Any], int]]] = {}
    for number, item in items:
        if not isinstance(item, Mapping):
            skipped += 1
            continue
        inner = item.get("payload")
        payload: Mapping[str, Any] = inner if isinstance(inner, Mapping) else item
        if not isinstance(payload.get("hook_event_name"), str):
            skipped += 1
            continue
        session_id = payload.get("session_id")
        key = session_id if isinstance(session_id, str) else ""
        when = None
        if payload is not item:
            for name in ("ts", "time", "timestamp"):
                when = _timestamp(item.get(name))
                if when is not None:
                    break
        by_session.setdefault(key, []).append((when, dict(payload), number))
    recordings = []
    for session_id, rows in by_session.items():
        synthetic = any(when is None for when, _, _ in rows)
        clock = _Clock()
        events = []
        for position, (when, payload, number) in enumerate(rows):
            at = position * SYNTHETIC_STEP if synthetic else when
            events.append(RecordedEvent(clock.at(at), payload, source, number))
        recordings.append(
            Recording(
                sources=(source,),
                format=Format.HOOK_PAYLOADS,
                client=None,
                session_id=session_id,
                events=tuple(events),
                calls=_payload_calls(events),
                cwd=next((e.payload["cwd"] for e in events if isinstance(e.payload.get("cwd"), str)), None),
                skipped_lines=skipped,
                synthetic_times=synthetic,
            )
        )
        skipped = 0  # counted once, on the first session of the file
    return recordings


def _payload_calls(events: Iterable[RecordedEvent]) -> dict[str, RecordedCall]:
    calls: dict[str, RecordedCall] = {}
    for event in events:
        data = event.payload
        name = data.get("hook_event_name")
        tool_use_id = data.get("tool_use_id")
        if name == "PostToolUse" and isinstance(tool_use_id, str):
            calls[tool_use_id] = RecordedCall(tool_use_id, Outcome.RAN)
        elif name == "PostToolUseFailure" and isinstance(tool_use_id, str):
            interrupted = data.get("is_interrupt") is True
            calls[tool_use_id] = RecordedCall(tool_use_id, Outcome.INTERRUPTED if interrupted else Outcome.FAILED)
        elif name == "PostToolBatch" and isinstance(data.get("tool_calls"), list):
            for item in data["tool_calls"]:
                if isinstance(item, dict) and isinstance(item.get("tool_use_id"), str) and item["tool_use_id"] not in calls:
                    outcome = classify_claude_result(item.get("tool_response"), False)
                    if outcome in (Outcome.REJECTED, Outcome.DENIED, Outcome.REFUSED):
                        calls[item["tool_use_id"]] = RecordedCall(item["tool_use_id"], outcome)
    return calls


# -- replay -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One replayed event: what was fed in and what the engine answered.

    `event` is None and `decision` None for events the hook ignores (unhandled names) or cannot
    parse (`error` says why); `decision` is None for `SessionEnd` (the hook forgets the session).
    """

    recorded: RecordedEvent
    event: HookEvent | None
    decision: Decision | None
    error: str = ""


def _client_for(recording: Recording, option: str) -> Client | None:
    """The client to parse with, or None to detect it per payload exactly as `--client auto` does
    (`payload.detect_client`), so that thread-scoped Codex events are read as the hook reads them."""
    if option == "auto":
        return None
    chosen = Client(option)
    if recording.client is not None and recording.client is not chosen:
        raise ReplayError(f"{recording.sources[0]} is a {recording.client.value} recording; --client {option} does not fit it")
    return chosen


def decide(recording: Recording, config: Config, *, client: str = "auto") -> Iterator[Step]:
    """Feed every recorded payload to the engine, in order, on scratch in-memory ledgers.

    Mirrors `hook.run` for each payload: the payload decoded from its JSON bytes, events it
    ignores passed over, `payload.parse` with the client (`auto`: `payload.detect_client`, as the
    hook decides), a fresh `engine.new_session` for an
    unknown session, `engine.apply` at the recorded time with the assistant texts recorded for
    the event (where the hook would read the transcript), the ledger written back as JSON (as
    the state file is), and `SessionEnd` deleting the session unless `keep_state`. `config` is used for every event (the live hook
    resolves it per payload, which differs only when project files differ between events).

    Raises:
        ReplayError: `client` names a client that does not fit the recording.
        ValueError: `client` is not `auto`, `claude-code` or `codex`.
    """
    fixed = _client_for(recording, client)
    ledgers: dict[str, Session] = {}
    for recorded in recording.events:
        try:
            # The hook reads bytes: the same decoding (and its limits) applies here.
            data = decode(orjson.dumps(recorded.payload))
            name = data.get("hook_event_name")
            if name not in HANDLED_EVENTS:
                yield Step(recorded, None, None)
                continue
            event = parse(data, fixed if fixed is not None else detect_client(data))
        except (PayloadError, TypeError) as exc:
            yield Step(recorded, None, None, f"bad payload: {exc}")
            continue
        if event.event == "SessionEnd":
            if not config.keep_state:
                ledgers.pop(event.session_id, None)
            yield Step(recorded, event, None)
            continue
        state = ledgers.get(event.session_id)
        if state is None:
            state = engine.new_session(event.session_id, event.client, recorded.time)
        decision = engine.apply(state, event, config, recorded.time, _new_texts(state, event, config, recorded.texts))
        ledgers[event.session_id] = orjson.loads(orjson.dumps(state))
        yield Step(recorded, event, decision)


def _new_texts(state: Session, event: HookEvent, config: Config, texts: tuple[tuple[str, str], ...]) -> list[str]:
    """What `hook._new_texts` gives, with the recorded texts in place of a read of the transcript."""
    own = capabilities(event.client).subagent_transcripts
    if not textloop.reads_transcript(event.event, event.agent_id, own, config.max_repeated_lines, config.max_repeated_blocks):
        return []
    textloop.text_state(state, event.agent_id).setdefault("tail", {})
    return textloop.unseen(state, event.agent_id, texts)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One decision, reduced for a report: action on the wire, what the rules intended, rule code,
    and the count the rule saw (attempts of the signature, or the cap it counted)."""

    action: str
    intended: str
    rule: str
    count: int

    @classmethod
    def of(cls, decision: Decision) -> Verdict:
        return cls(decision.action.name.lower(), decision.intended.name.lower(), decision.rule, decision.times)

    @property
    def quiet(self) -> bool:
        return self.action == "allow" and self.intended == "allow"


@dataclass(frozen=True, slots=True)
class CallReport:
    """One tool call: when, by whom, what; what the recording says happened to it; the replayed
    decisions at PreToolUse (`pre`, None when the client fired none, as for a validation
    rejection) and at its post event (`post`: PostToolUse/Failure, or the PostToolBatch that
    counted it). `saved` is true when the recording ran it but the guard would have stopped it.
    `time` is seconds since the epoch (or since the start, for payload logs without times)."""

    index: int
    time: float
    agent: str
    tool: str
    arguments: str
    tool_use_id: str | None
    recorded: str
    exit_code: int | None
    pre: Verdict | None
    post: Verdict | None
    saved: bool


@dataclass(frozen=True, slots=True)
class DecisionReport:
    """A decision other than allow, at any event; `call` is the `CallReport.index` it concerns."""

    step: int
    time: float
    event: str
    agent: str
    tool: str | None
    tool_use_id: str | None
    call: int | None
    verdict: Verdict
    message: str


@dataclass(frozen=True, slots=True)
class Marker:
    """A point where counters reset: a user prompt (`UserPromptSubmit`), a compaction
    (`SessionStart` `compact`), or the end of a session (`SessionEnd`: the ledger is forgotten)."""

    time: float
    event: str
    detail: str


@dataclass(frozen=True, slots=True)
class Summary:
    """Totals. `reminders`/`denials`/`stops` count decisions (a call can get one at Pre and one
    after), by the action on the wire. `saved`: calls the recording ran that the guard would have
    denied, or (Claude Code) that came after it ended the turn."""

    events: int
    calls: int
    reminders: int
    denials: int
    stops: int
    saved: int
    skipped_lines: int
    bad_payloads: int


@dataclass(frozen=True, slots=True)
class Report:
    """What the guard would have done over one recorded session."""

    sources: tuple[str, ...]
    format: str
    client: str
    session_id: str
    profile: str
    mode: str
    counting: str
    remind_at: tuple[int, ...]
    deny_at: int
    stop_at: int
    started: float | None
    synthetic_times: bool
    calls: tuple[CallReport, ...]
    decisions: tuple[DecisionReport, ...]
    summary: Summary
    markers: tuple[Marker, ...] = ()
    errors: tuple[str, ...] = ()


def arguments_summary(tool: str, tool_input: Any, config: Config, limit: int = ARGUMENT_CHARS) -> str:
    """A call's canonical arguments (as its signature has them: keys sorted, decoy keys dropped),
    secrets redacted, cut to `limit` characters."""
    key = call_key(tool, tool_input, frozenset(config.ignore_args))
    return preview(redact_prefix(key.head, limit + 1, complete=len(key.head) <= HEAD_CHARS), limit)


class _Collector:
    """Builds the per-call reports and the decision list of a report from replayed steps."""

    def __init__(self, recording: Recording, config: Config) -> None:
        self.recording = recording
        self.config = config
        self.rows: list[CallReport] = []
        self.turn_of: list[tuple[Client, int]] = []  # per row: the client and the user turn
        self.by_id: dict[tuple[str, str], int] = {}
        self.decisions: list[DecisionReport] = []
        self.markers: list[Marker] = []
        self.turn = 0

    def _row(self, event: HookEvent, time: float, tool: str, tool_input: Any, tool_use_id: str | None) -> int:
        record = self.recording.calls.get(tool_use_id) if tool_use_id is not None else None
        self.rows.append(
            CallReport(
                index=len(self.rows) + 1,
                time=time,
                agent=event.agent_id,
                tool=tool,
                arguments=arguments_summary(tool, tool_input, self.config),
                tool_use_id=tool_use_id,
                recorded=(record.outcome if record is not None else Outcome.UNKNOWN).value,
                exit_code=record.exit_code if record is not None else None,
                pre=None,
                post=None,
                saved=False,
            )
        )
        self.turn_of.append((event.client, self.turn))
        if tool_use_id is not None:
            self.by_id[(event.agent_id, tool_use_id)] = len(self.rows) - 1
        return len(self.rows) - 1

    def add(self, step_number: int, time: float, event: HookEvent, decision: Decision | None) -> None:
        if decision is None:
            if event.event == "SessionEnd":
                self.markers.append(Marker(time, event.event, "session ended"))
            return
        verdict = Verdict.of(decision)
        owner: int | None = None
        if event.event == "UserPromptSubmit":
            self.turn += 1
            self.markers.append(Marker(time, event.event, "user prompt"))
        elif event.event == "SessionStart" and event.source == "compact":
            self.markers.append(Marker(time, event.event, "compaction"))
        elif event.event in ("PreToolUse", "PostToolUse", "PostToolUseFailure") and event.tool_name is not None:
            owner = self.by_id.get((event.agent_id, event.tool_use_id)) if event.tool_use_id is not None else None
            if owner is None or (event.event == "PreToolUse" and self.rows[owner].pre is not None):
                owner = self._row(event, time, event.tool_name, event.tool_input, event.tool_use_id)
            row = self.rows[owner]
            self.rows[owner] = replace(row, pre=verdict) if event.event == "PreToolUse" else replace(row, post=verdict)
        elif event.event == "PostToolBatch":
            # Calls only the batch saw (validation rejections) are counted there; the batch's one
            # answer goes to the call it names, the others get a quiet verdict.
            fresh = [
                self._row(event, time, item.tool_name, item.tool_input, item.tool_use_id)
                for item in event.tool_calls
                if item.tool_use_id is None or (event.agent_id, item.tool_use_id) not in self.by_id
            ]
            owner = next((i for i in fresh if self.rows[i].tool == decision.tool), fresh[0] if fresh else None)
            for i in fresh:
                self.rows[i] = replace(self.rows[i], post=verdict if i == owner else Verdict("allow", "allow", "", 0))
        if not verdict.quiet:
            self.decisions.append(
                DecisionReport(
                    step=step_number,
                    time=time,
                    event=event.event,
                    agent=event.agent_id,
                    tool=decision.tool or event.tool_name,
                    tool_use_id=event.tool_use_id,
                    call=owner + 1 if owner is not None else None,
                    verdict=verdict,
                    message=decision.message,
                )
            )

    def calls(self) -> tuple[CallReport, ...]:
        """The call reports with `saved` set. A call the recording ran is saved when the replay
        denies it at PreToolUse, or when it comes after a stop in the same turn of the same agent
        (Claude Code ends the turn on `continue: false`; Codex takes no such field, so there a
        stop is a denial only: render.py)."""
        stops = {d.call for d in self.decisions if d.verdict.action == "stop"}
        stopped_turn: dict[str, int] = {}
        out = []
        for row, (client, turn) in zip(self.rows, self.turn_of, strict=True):
            denied = row.pre is not None and row.pre.action in ("deny", "stop")
            ran = row.recorded in (o.value for o in RAN_OUTCOMES)
            out.append(replace(row, saved=ran and (denied or stopped_turn.get(row.agent) == turn)))
            if row.index in stops and client is Client.CLAUDE_CODE:
                stopped_turn[row.agent] = turn
        return tuple(out)


def replay(recording: Recording, config: Config, *, client: str = "auto") -> Report:
    """Replay `recording` with `config` and report every call and every non-allow decision.

    `client`: `auto` (per payload, as the hook decides it), or `claude-code`/`codex` (must fit a
    transcript or rollout; for a payload log it is used for every payload, as `--client` is).

    Raises:
        ReplayError: `client` does not fit the recording.
        ValueError: `client` is not a known client name.
    """
    collector = _Collector(recording, config)
    errors: list[str] = []
    steps = 0
    clients: set[str] = set()
    for steps, step in enumerate(decide(recording, config, client=client), start=1):
        if step.error:
            errors.append(f"{step.recorded.source}:{step.recorded.line}: {step.error}")
        if step.event is not None:
            clients.add(step.event.client.value)
            collector.add(steps, step.recorded.time, step.event, step.decision)
    calls = collector.calls()
    decisions = tuple(collector.decisions)
    counts = {action: sum(1 for d in decisions if d.verdict.action == action) for action in ("remind", "deny", "stop")}
    return Report(
        sources=recording.sources,
        format=recording.format.value,
        client=recording.client.value if recording.client else "+".join(sorted(clients)) or client,
        session_id=recording.session_id,
        profile=config.profile,
        mode=config.mode,
        counting=config.counting,
        remind_at=config.effective_remind_at(),
        deny_at=config.deny_at,
        stop_at=config.stop_at,
        started=recording.events[0].time if recording.events else None,
        synthetic_times=recording.synthetic_times,
        calls=calls,
        decisions=decisions,
        markers=tuple(collector.markers),
        summary=Summary(
            events=steps,
            calls=len(calls),
            reminders=counts["remind"],
            denials=counts["deny"],
            stops=counts["stop"],
            saved=sum(1 for c in calls if c.saved),
            skipped_lines=recording.skipped_lines,
            bad_payloads=len(errors),
        ),
        errors=tuple(errors),
    )


def replay_payloads(
    payloads: Iterable[Mapping[str, Any]], config: Config, *, client: str = "auto", source: str = "<payloads>"
) -> list[Report]:
    """Replay captured hook payloads (bare, or `{"payload": …}` wrappers with an optional `ts`,
    `time` or `timestamp`), one report per session, sessions in order of first appearance.

    Raises:
        ValueError: `client` is not a known client name.
    """
    recordings = _payload_recordings(source, enumerate(payloads, start=1))
    return [replay(r, config, client=client) for r in recordings]


def replay_files(paths: Iterable[str], config: Config, *, client: str = "auto") -> list[Report]:
    """`load` the files and `replay` each session: what `loopguard-hook replay FILE...` runs.

    Raises:
        ReplayError: a file cannot be read, is not a known format, or does not fit `client`.
    """
    try:
        return [replay(r, config, client=client) for r in load(paths)]
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError, UnicodeError) as exc:
        # A recording with values of shapes no client writes (edited by hand, or hostile).
        raise ReplayError(f"a record has a value of an unexpected shape ({type(exc).__name__}: {exc})") from None


# -- output -----------------------------------------------------------------------------------


def _verdict_json(verdict: Verdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {"action": verdict.action, "intended": verdict.intended, "rule": verdict.rule, "count": verdict.count}


def to_json(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data with stable keys (`--format json`). Times are seconds since
    the epoch, rounded to milliseconds."""
    return {
        "sources": list(report.sources),
        "format": report.format,
        "client": report.client,
        "session_id": report.session_id,
        "config": {
            "profile": report.profile,
            "mode": report.mode,
            "counting": report.counting,
            "remind_at": list(report.remind_at),
            "deny_at": report.deny_at,
            "stop_at": report.stop_at,
        },
        "started": round(report.started, 3) if report.started is not None else None,
        "synthetic_times": report.synthetic_times,
        "summary": {
            "events": report.summary.events,
            "calls": report.summary.calls,
            "reminders": report.summary.reminders,
            "denials": report.summary.denials,
            "stops": report.summary.stops,
            "saved": report.summary.saved,
            "skipped_lines": report.summary.skipped_lines,
            "bad_payloads": report.summary.bad_payloads,
        },
        "calls": [
            {
                "index": c.index,
                "time": round(c.time, 3),
                "agent": c.agent,
                "tool": c.tool,
                "arguments": c.arguments,
                "tool_use_id": c.tool_use_id,
                "recorded": c.recorded,
                "exit_code": c.exit_code,
                "pre": _verdict_json(c.pre),
                "post": _verdict_json(c.post),
                "saved": c.saved,
            }
            for c in report.calls
        ],
        "decisions": [
            {
                "step": d.step,
                "time": round(d.time, 3),
                "event": d.event,
                "agent": d.agent,
                "tool": d.tool,
                "tool_use_id": d.tool_use_id,
                "call": d.call,
                **(_verdict_json(d.verdict) or {}),
                "message": d.message,
            }
            for d in report.decisions
        ],
        "markers": [{"time": round(m.time, 3), "event": m.event, "detail": m.detail} for m in report.markers],
        "errors": list(report.errors),
    }


def _short_rule(rule: str) -> str:
    return rule.removeprefix("LOOP_GUARD_")


def _verdict_text(verdict: Verdict | None, *, show_count: bool) -> str:
    if verdict is None:
        return "-"
    if verdict.quiet:
        parts = ["allow"] if verdict.rule or (show_count and verdict.count) else ["-"]
    else:
        parts = [verdict.action]
    if verdict.rule:
        parts.append(_short_rule(verdict.rule))
    if verdict.count and (show_count or not verdict.quiet):
        parts.append(str(verdict.count))
    if verdict.intended != verdict.action:
        parts.append(f"(would {verdict.intended})")
    return " ".join(parts)


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else " " for ch in text)


_FORMAT_NAMES = {
    Format.CLAUDE_TRANSCRIPT.value: "Claude Code transcript",
    Format.CODEX_ROLLOUT.value: "Codex rollout",
    Format.HOOK_PAYLOADS.value: "hook payload log",
}


def format_text(report: Report, *, width: int = 120) -> str:
    """The report for people (`--format text`): a header, one line per call (time since the first
    event, agent, tool, what the recording says happened, the replayed decision at PreToolUse and
    after the call, arguments cut to fit `width` characters), the prompts, compactions and
    decisions not tied to a call in between, and the summary."""
    out: list[str] = []
    source = report.sources[0] + (f" (+{len(report.sources) - 1} more)" if len(report.sources) > 1 else "")
    out.append(f"{_FORMAT_NAMES.get(report.format, report.format)} {source}")
    started = (
        ""
        if report.started is None or report.synthetic_times
        else ", started " + datetime.fromtimestamp(report.started, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    )
    out.append(f"session {_printable(report.session_id) or '-'} [{report.client}]{started}")
    remind = ", ".join(map(str, report.remind_at)) or "-"
    out.append(
        f"profile {report.profile} ({report.mode}, {report.counting}): remind at {remind}, "
        f"deny at {report.deny_at or '-'}, stop at {report.stop_at or '-'}"
    )
    out.append("")
    base = report.started or 0.0
    agents = {c.agent: c.agent if len(c.agent) <= 10 else c.agent[:9] + "…" for c in report.calls}
    rows = [
        (
            f"{call.index:>4}",
            _offset(call.time - base),
            agents[call.agent],
            _printable(call.tool)[:24],
            call.recorded + (f" {call.exit_code}" if call.exit_code not in (None, 0) else ""),
            _verdict_text(call.pre, show_count=True),
            _verdict_text(call.post, show_count=False),
        )
        for call in report.calls
    ]
    titles = ("#", "time", "agent", "tool", "recorded", "PreToolUse", "after")
    widths = [max([len(t), *(len(r[i]) for r in rows)]) for i, t in enumerate(titles)]

    def cells(values: Sequence[str]) -> str:
        aligned = [v.rjust(w) if i < 2 else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths, strict=True))]
        return "  ".join(aligned) + "  "

    out.append(cells(titles) + "arguments")
    indent = " " * (widths[0] + 2)
    loose = sorted(
        [(d.time, indent + _loose_line(d, base, widths[1])) for d in report.decisions if d.call is None]
        + [(m.time, f"{indent}{_offset(m.time - base):>{widths[1]}}  -- {m.detail} ({m.event})") for m in report.markers],
        key=lambda item: item[0],
    )
    loose_at = 0
    for call, row in zip(report.calls, rows, strict=True):
        while loose_at < len(loose) and loose[loose_at][0] <= call.time:
            out.append(loose[loose_at][1])
            loose_at += 1
        line = cells(row)
        tail = "  [saved]" if call.saved else ""
        room = max(16, width - len(line) - len(tail))
        args = _printable(call.arguments)
        line += (args if len(args) <= room else args[: room - 1] + "…") + tail
        out.append(line.rstrip())
    out.extend(line for _, line in loose[loose_at:])
    s = report.summary
    out.append("")
    out.append(
        f"{s.calls} calls: {s.reminders} {_plural(s.reminders, 'reminder')}, {s.denials} "
        f"{_plural(s.denials, 'denial')}, {s.stops} {_plural(s.stops, 'stop')}; "
        f"{s.saved} {_plural(s.saved, 'call')} the recording ran would have been saved"
    )
    notes = []
    if s.skipped_lines:
        notes.append(f"{s.skipped_lines} unreadable or unknown {_plural(s.skipped_lines, 'line')} skipped")
    if s.bad_payloads:
        notes.append(f"{s.bad_payloads} {_plural(s.bad_payloads, 'payload')} the hook would reject")
    if report.synthetic_times:
        notes.append(f"no times in the file: events spaced {SYNTHETIC_STEP:g} s apart")
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    return "\n".join(out)


def _loose_line(decision: DecisionReport, base: float, time_width: int) -> str:
    tool = f" {decision.tool}" if decision.tool else ""
    verdict = _verdict_text(decision.verdict, show_count=False)
    return f"{_offset(decision.time - base):>{time_width}}  {decision.event}{tool}: {verdict}"


def _offset(seconds: float) -> str:
    if seconds < 60:
        return f"+{seconds:.1f}s"
    if seconds < 3600:
        return f"+{int(seconds // 60)}m{int(seconds % 60):02d}s"
    return f"+{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def render(reports: Sequence[Report], fmt: str = "text", *, width: int = 120) -> str:
    """All reports as one text (`text`, reports separated by a blank line, lines cut to `width`
    characters where the arguments allow) or one JSON document (`json`: `{"reports": [...]}`,
    keys sorted, indented).

    Raises:
        ValueError: `fmt` is not `text` or `json`.
    """
    if fmt == "text":
        return "\n\n".join(format_text(r, width=width) for r in reports) if reports else "no sessions to replay"
    if fmt == "json":
        return orjson.dumps(
            {"reports": [to_json(r) for r in reports]}, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
        ).decode()
    raise ValueError(f"unknown format {fmt!r} (text or json)")
