"""Reader of DeepSeek Harness session logs (`$DSH_HOME/sessions/<encoded cwd>/<id>/session.jsonl.zstd`).

`jsonl.read_lines` decodes the zstd frames (`dshlog.decode_all`); this module turns the records
into the payloads DSH 0.1.0-rc.8's hook bridges send (research/dsh-hooks.md §2-§3, checked
against the real logs in tests/data/dsh/):

- `session` (`id`, `cwd`, `createdAt`) is SessionStart `source: "startup"`;
- `user/message` whose `source.kind` is `user` is UserPromptSubmit with its text as `prompt`
  (the runtime-context snapshots DSH's plugins add are not prompts);
- `tool/call` (`callId`, `name`, `arguments` as a JSON string) is PreToolUse with DSH's own
  lower-case tool name; `tool/result` is PostToolUse with the text the model got as
  `tool_response` (a string, as both bridges send it); `isError` marks a failed call;
- `turn/end` is Stop, carrying the turn's assistant texts (`assistant/message` records) and its
  final message as `last_assistant_message`, as the live hook reads them from this log.
- The bridge is the `dialect` of the log's `hook/invoked` records (`claude-code` or `codex`); the
  Codex bridge's payloads carry `turn_id` and `tool_input: {"command": …}` only (`""` for every
  tool but `bash`). A log without hook records reads as the Claude Code bridge's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ..core.event import Client
from ..hosts.dshlog import message_text
from .jsonl import Clock, Line, text_of, timestamp
from .model import Outcome, RecordedCall, RecordedEvent, Recording, ReplayError
from .reader import Reader

FORMAT = "dsh-session-log"
_TYPES = frozenset({
    "turn/start", "turn/end", "step/start", "step/end", "assistant/message", "assistant/chunk", "tool/call",
    "tool/result", "hook/invoked", "hook/result", "user/message", "request/header", "request/context",
    "permission/preset", "sandbox/mode", "approval/policy", "agent/inbox/spliced", "session/title",
})


def recognises(data: Mapping[str, Any]) -> bool:
    """True for a record of a DSH session log: `{type, seq, time, data}`, or its `session` head."""
    kind = data.get("type")
    if kind == "session":
        return isinstance(data.get("id"), str) and "delegationDepth" in data
    return kind in _TYPES and isinstance(data.get("data"), dict) and "seq" in data


def _dialect(lines: list[Line]) -> str:
    for line in lines:
        data = line.data.get("data")
        if line.data.get("type") == "hook/invoked" and isinstance(data, dict) and data.get("dialect") == "codex":
            return "codex"
    return "claude-code"


class _Log:
    """The payloads of one log, built record by record."""

    def __init__(self, path: str, lines: list[Line]) -> None:
        self.path = path
        self.codex = _dialect(lines) == "codex"
        self.clock = Clock()
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.turn = "1"
        self.events: list[RecordedEvent] = []
        self.calls: dict[str, RecordedCall] = {}
        self.inputs: dict[str, tuple[str, Any]] = {}
        self.texts: list[tuple[str, str]] = []
        self.final: str | None = None
        self.skipped = 0

    def emit(self, line: Line, event: str, **fields: Any) -> None:
        payload: dict[str, Any] = {
            "session_id": self.session_id, "transcript_path": self.path, "cwd": self.cwd, "hook_event_name": event,
        }
        if self.codex:
            payload.update(model="", permission_mode="default")
            if event != "SessionStart":
                payload["turn_id"] = self.turn
        payload.update(fields)
        texts: tuple[tuple[str, str], ...] = ()
        if event == "Stop":
            texts, self.texts = tuple(self.texts), []
        time = self.clock.at(timestamp(line.data.get("time", line.data.get("createdAt"))))
        self.events.append(RecordedEvent(time, payload, self.path, line.number, texts))

    def tool_input(self, name: str, arguments: Any) -> Any:
        try:
            args = orjson.loads(arguments) if isinstance(arguments, str) and arguments else arguments
        except orjson.JSONDecodeError:
            args = {}
        if not isinstance(args, dict):
            args = {}
        if self.codex:  # the Codex bridge passes only a shell command (dsh-hooks.md §3)
            return {"command": str(args.get("command", "")) if name == "bash" else ""}
        return args

    def record(self, line: Line) -> None:
        kind = line.data.get("type")
        data = line.data.get("data")
        if kind == "session":
            self.session_id, self.cwd = str(line.data["id"]), line.data.get("cwd")
            self.emit(line, "SessionStart", source="startup")
            return
        if not isinstance(data, dict) or self.session_id is None:
            self.skipped += kind != "session"
            return
        if isinstance(data.get("turn"), int):
            self.turn = str(data["turn"])
        if kind == "user/message" and isinstance(data.get("source"), dict) and data["source"].get("kind") == "user":
            self.emit(line, "UserPromptSubmit", prompt=text_of(data.get("content")))
        elif kind == "assistant/message":
            pair, calls = message_text(data)
            if pair is not None:
                self.texts.append(pair)
            self.final = pair[1] if pair is not None and not calls else None
        elif kind == "tool/call" and isinstance(data.get("callId"), str):
            name = str(data.get("name") or "")
            self.inputs[data["callId"]] = (name, self.tool_input(name, data.get("arguments")))
            self.emit(line, "PreToolUse", tool_name=name, tool_input=self.inputs[data["callId"]][1], tool_use_id=data["callId"])
        elif kind == "tool/result":
            self.result(line, data)
        elif kind == "turn/end":
            stop: dict[str, Any] = {"stop_hook_active": False}
            if self.final is not None:
                stop["last_assistant_message"] = self.final
            self.emit(line, "Stop", **stop)
            self.final = None

    def result(self, line: Line, data: dict[str, Any]) -> None:
        message = data.get("message")
        items = message.get("content") if isinstance(message, dict) else None
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or item.get("type") != "tool-result":
                continue
            call = str(item.get("toolCallId") or "")
            name, tool_input = self.inputs.get(call, ("", {}))
            self.emit(line, "PostToolUse", tool_name=name, tool_input=tool_input, tool_use_id=call,
                      tool_response=text_of(item.get("content")))
            self.calls[call] = RecordedCall(call, Outcome.FAILED if item.get("isError") else Outcome.RAN)


def read(path: str, lines: list[Line], skipped: int) -> list[Recording]:
    """The one recording of a session log (the `Reader.read` shape).

    Raises:
        ReplayError: the log has no `session` record.
    """
    log = _Log(path, lines)
    for line in lines:
        log.record(line)
    if log.session_id is None:
        raise ReplayError(f"{path}: no session record with a session id")
    client = Client.DSH_CODEX if log.codex else Client.DSH_CLAUDE_CODE
    return [Recording(
        sources=(path,), format=FORMAT, client=client, session_id=log.session_id, events=tuple(log.events),
        calls=log.calls, cwd=log.cwd, skipped_lines=skipped + log.skipped,
    )]


READER = Reader(FORMAT, "DSH session log", recognises, read)
