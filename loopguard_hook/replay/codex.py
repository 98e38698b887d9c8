"""Reader of Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Client facts used to rebuild the hook sequence (verified on real files of Codex 0.171.0 produced
by the shared end-to-end harnesses; research notes `codex-hooks.md` §6, §8):

Codex
  - `function_call` `exec_command` is hook tool `Bash` with `tool_input {"command": cmd}` (only
    the command); `shell_command`/`shell`/`local_shell_call` likewise; `custom_tool_call`
    `apply_patch` is `apply_patch` with `{"command": patch}`; a namespaced MCP call is
    `mcp__<server>__<tool>`. `write_stdin`, `tool_search`, web search and the outer Code Mode
    `exec` fire no hooks; Code Mode's nested calls appear as `item_completed` items with
    `exec-<uuid>` ids; where no such item is recorded (Codex Desktop 0.144), they are read from the
    cell's script and output (`codex_cells`). The live hook reads the `write_stdin` polls from the rollout at each
    event, and so does replay (`unhooked.py`), which lists them in the report.
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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.event import Client
from .codex_stream import CodexStream
from .codex_tools import BARE_ITEMS
from .jsonl import Line, attach, line_texts, with_texts
from .model import Format, Recording, ReplayError, respaced
from .reader import Reader
from .unhooked import line_items, polls, unseen_calls

_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state"})


def recognises(data: Mapping[str, Any]) -> bool:
    """True for a line of a Codex rollout: a `{type, payload}` record, or a bare response item
    as rollouts wrote them before records were wrapped."""
    kind = data.get("type")
    if kind in _TYPES and isinstance(data.get("payload"), dict):
        return True
    return kind in BARE_ITEMS and "sessionId" not in data


def recording(path: str, lines: list[Line], skipped: int) -> Recording:
    stream = CodexStream(path, lines)
    stream.run()
    if stream.session_id is None:
        raise ReplayError(f"{path}: no session_meta record with a session id (not a Codex rollout replay can read)")
    reads = {"PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop"}
    events = with_texts(stream.events, line_texts(lines), lambda p: p.get("hook_event_name") in reads)
    # The live hook reads the rollout's unhooked calls at every event but SessionEnd (`hook._unhooked`).
    items = line_items(lines)
    found = attach(events, items, lambda p: p.get("hook_event_name") != "SessionEnd")
    events = [replace(e, unhooked=tuple(f)) if f else e for e, f in zip(events, found, strict=True)]
    events, synthetic = respaced(events)  # the oldest rollouts time their first line only
    return Recording(
        sources=(path,),
        format=Format.CODEX_ROLLOUT,
        client=Client.CODEX,
        session_id=stream.session_id,
        events=tuple(events),
        calls=stream.recorded(),
        cwd=stream.cwd,
        skipped_lines=skipped + stream.skipped,
        requests=tuple(stream.usage.out),
        polls=tuple(polls(item for _, item in items)),
        unhooked=unseen_calls(lines),
        unread=stream.unread,
        synthetic_times=synthetic,
    )


def read(path: str, lines: list[Line], skipped: int) -> list[Recording]:
    """The one recording of a file (the `Reader.read` shape)."""
    return [recording(path, lines, skipped)]


READER = Reader(Format.CODEX_ROLLOUT, "Codex rollout", recognises, read)
