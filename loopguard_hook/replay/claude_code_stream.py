"""One Claude Code transcript file turned into the hook payloads the live client would have sent
(the facts are in `claude_code`'s docstring)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.event import MAIN_AGENT
from ..hosts.transcript import SYNTHETIC
from .claude_code_tools import (
    INTERRUPTED,
    NOT_PROMPTS,
    classify_claude_result,
    claude_concurrent,
    is_stop_block,
    is_stop_feedback,
    is_tool_feedback,
    structured_result,
)
from .jsonl import Clock, Line, text_of, timestamp
from .model import Outcome, RecordedCall, RecordedEvent
from .usage import ClaudeRequests

#: The agent of the main transcript's subagent lines that name none (`ClaudeStream._inline_subagent`).
INLINE_SIDECHAIN = "sidechain"

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


class ClaudeStream:
    """Turns the lines of one Claude Code transcript file into hook payloads."""

    def __init__(
        self,
        path: str,
        transcript_path: str,
        agent_types: Mapping[str, str],
        *,
        session_id: str | None = None,
        sidechain: str = INLINE_SIDECHAIN,
    ) -> None:
        self.path = path
        self.transcript_path = transcript_path
        self.agent_types = agent_types
        self.sidechain = sidechain
        self.inline_agents: dict[str, str] = {}  # a subagent line's uuid -> its agent (`_inline_subagent`)
        self.inline_opened = 0
        self.events: list[RecordedEvent] = []
        self.calls: dict[str, RecordedCall] = {}
        self.clock = Clock()
        self.session_id = session_id
        self.cwd: str | None = None
        self.prompt_id: str | None = None
        self.permission_mode = "default"
        self.continued = False  # a Stop hook sent the model on (the next Stop has `stop_hook_active`)
        self.unended: tuple[str, float | None, int, str | None] | None = None  # a main-thread text whose turn may have ended
        self.marks_ends = False  # whether any message states its `stop_reason` (2.1.50 and newer)
        self.ended: set[str] = set()  # the message ids of the replies a Stop was emitted for
        self.pending: dict[str, _ClaudeMessage] = {}
        self.used: set[str] = set()  # the tool_use ids read so far (`_assistant`)
        self.replied: set[str] = set()  # the main thread's message ids read so far (`_copied`)
        self.last_reply: str | None = None  # the id of the main thread's latest assistant line
        self.copying = False  # whether that line's message is a copy (`_copied`)
        self.copied_at: float | None = None  # the time of the latest copied line
        self.prompted: set[int] = set()  # the hashes of the prompts' text blocks so far (`_copied`)
        self.retold: list[tuple[RecordedEvent, float | None]] = []  # unanswered prompts said before, and their times
        self.stopped: set[str] = set()
        self.compaction_open = False
        self.result_counter = 0
        self.skipped = 0
        self.usage = ClaudeRequests()

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

    def _emit(self, time: float | None, payload: dict[str, Any], line: int, reply: str | None = None) -> float:
        at = self.clock.at(time)
        self.events.append(RecordedEvent(at, payload, self.path, line, reply=reply))
        return at

    # lines

    def feed(self, line: Line) -> None:
        data = line.data
        kind = data.get("type")
        if isinstance(data.get("sessionId"), str) and self.session_id is None:
            self.session_id = data["sessionId"]
        if isinstance(data.get("cwd"), str):
            self.cwd = data["cwd"]
        time = timestamp(data.get("timestamp"))
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
            if not isinstance(attachment, dict):
                return
            if (
                attachment.get("type") == "hook_stopped_continuation"
                and attachment.get("hookEvent") == "PreToolUse"
                and isinstance(attachment.get("toolUseID"), str)
            ):
                self.stopped.add(attachment["toolUseID"])
            elif is_stop_block(attachment) and agent == MAIN_AGENT:
                self._continued()
        elif not isinstance(kind, str):
            self.skipped += 1  # not a transcript record; other record types are bookkeeping

    def _agent(self, data: Mapping[str, Any]) -> str:
        if data.get("isSidechain") is True:
            agent_id = data.get("agentId")
            if isinstance(agent_id, str) and agent_id:
                return agent_id
            return self._inline_subagent(data) if self.sidechain == INLINE_SIDECHAIN else self.sidechain
        return MAIN_AGENT

    def _inline_subagent(self, data: Mapping[str, Any]) -> str:
        """The agent of a subagent line kept in the main transcript with no `agentId` (Claude
        Code 1.0.x writes every subagent there, `isSidechain: true`; public 1.0.58-1.0.90
        transcripts): each subagent its own, as hosts that name agents send them, told by its
        chain of `parentUuid` back to the line that opened it (a `parentUuid` of null: the Task's
        prompt). Subagents run in parallel interleave their lines; one agent for all of them
        counted one subagent's failures with another's (a held-out 1.0.89 session: two subagents
        each reading a missing file twice, "failed 4 times", the second's turn ended). The first
        is `sidechain`, the next `sidechain-2`…; a line whose parent is not known opens one."""
        parent, uuid = data.get("parentUuid"), data.get("uuid")
        agent = self.inline_agents.get(parent) if isinstance(parent, str) else None
        if agent is None:
            self.inline_opened += 1
            agent = INLINE_SIDECHAIN if self.inline_opened == 1 else f"{INLINE_SIDECHAIN}-{self.inline_opened}"
        if isinstance(uuid, str):
            self.inline_agents[uuid] = agent
        return agent

    def _assistant(self, line: Line, data: Mapping[str, Any], agent: str, time: float | None) -> None:
        message = data.get("message")
        if not isinstance(message, dict):
            self.skipped += 1
            return
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        copy = agent == MAIN_AGENT and self._copied(message_id, time)
        self.marks_ends = self.marks_ends or message.get("stop_reason") is not None
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        uses = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        ids = [b["id"] for b in uses if isinstance(b.get("id"), str)]
        self.usage.note(message, data.get("requestId"), agent, time if time is not None else self.clock.now, ids)
        pending = self.pending.get(agent)
        if pending is not None and (message_id is None or pending.message_id != message_id):
            self._flush(agent)
            pending = None
        if uses:
            if agent == MAIN_AGENT:
                self.unended = None  # the turn went on with a tool call
            if pending is None:
                pending = self.pending[agent] = _ClaudeMessage(message_id, agent)
            for block in uses:
                tool_use_id, name = block.get("id"), block.get("name")
                if isinstance(tool_use_id, str) and isinstance(name, str) and not (copy and tool_use_id in self.used):
                    # A call read before, in a copied message, is a resumed session's copy of it
                    # (`_copied`): the live hooks saw it once.
                    self.used.add(tool_use_id)
                    pending.calls.append(_ClaudeCall(tool_use_id, name, block.get("input"), time, line.number))
        elif copy or (message_id is not None and message_id in self.ended):
            return  # a resumed session's copy of a reply: its Stop came long ago, if it ever did
        elif message.get("model") == SYNTHETIC:
            return  # the client's own message (an API error, "Not logged in"): no reply, no Stop
        elif message.get("stop_reason") == "end_turn":
            self._stop(agent, text_of(blocks), time, line.number, message_id)
        elif agent == MAIN_AGENT and message.get("stop_reason") is None and text_of(blocks).strip():
            # Older transcripts (1.0.x-2.1.49) leave `stop_reason` null on a turn's last message:
            # the user's next prompt, or a Stop hook's feedback, shows that the turn ended there.
            self.unended = (text_of(blocks), time, line.number, message_id)

    def _stop(self, agent: str, text: str, time: float | None, line: int, message_id: str | None = None) -> None:
        if message_id is not None and text.strip():
            # A reply line with no text (a thinking block written on a line of its own) leaves
            # the message's text line to come: that one is no copy.
            self.ended.add(message_id)
        name = "Stop" if agent == MAIN_AGENT else "SubagentStop"
        payload = self._base(name, agent)
        payload["stop_hook_active"] = self.continued and agent == MAIN_AGENT
        if agent != MAIN_AGENT:
            payload["agent_transcript_path"] = os.path.abspath(self.path)
        payload["last_assistant_message"] = text
        self._emit(time, payload, line, message_id)
        if agent == MAIN_AGENT:
            self.unended = None

    def _user(self, line: Line, data: Mapping[str, Any], agent: str, time: float | None) -> None:
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
            self._results(line, data, agent, time, results)
            return
        if data.get("isCompactSummary") is True:
            if not self.compaction_open and agent == MAIN_AGENT:
                self._compaction(line, time)
            self.compaction_open = False
            return
        if agent != MAIN_AGENT:
            return  # a subagent's task prompt
        text = text_of(content)
        if is_stop_feedback(text):
            self._continued()  # what a Stop hook said, fed back as a user message: no prompt
            return
        if is_tool_feedback(text):
            return  # what a PostToolUse hook said of a call: the turn goes on, its calls pending
        if data.get("isMeta") is True:
            return  # text the client added
        if not text.strip() or text.lstrip().startswith(NOT_PROMPTS):
            if text.lstrip().startswith(INTERRUPTED):  # no Stop; after `/cost`, `! ls`, one at the next prompt
                self.unended = None
            return
        if self.unended is not None:
            # Older transcripts leave `stop_reason` null: a reply followed by the user's next
            # prompt ended its turn, and the live host sent its Stop there.
            self._stop(MAIN_AGENT, *self.unended)
        self.continued = False
        self._flush_all()
        self.compaction_open = False
        if isinstance(data.get("promptId"), str):
            self.prompt_id = data["promptId"]
        payload = self._base("UserPromptSubmit", MAIN_AGENT)
        payload["prompt"] = text
        blocks = [hash(b) for b in text.split("\n") if b.strip()]  # a copy may split a prompt's blocks
        retold = all(b in self.prompted for b in blocks)
        self.prompted.update(blocks)
        self._emit(time, payload, line.number)
        self.copying, self.last_reply = False, None
        if retold:
            self.retold.append((self.events[-1], time))

    def _copied(self, message_id: str | None, time: float | None) -> bool:
        """Whether a main-thread assistant line belongs to a copied message: one read before,
        with others since. A session resumed in the same file (2.0.29 in a public transcript)
        writes the earlier conversation into it again, under new uuids and at one instant: its
        replies with their message ids, their calls with their `tool_use_id`s and results, its
        prompts (an IDE's `<ide_opened_file>` note and the text on two lines where they had been
        one). The user typed them once, and the live hooks fired once: the prompts said before
        that a copied reply answers, written at its instant, are dropped here (and those written
        at the copy's instant that a new reply answers: the copy's last prompt); the calls read
        before that it holds, and the end of a turn it would make, in `_assistant`. A line with
        no message id (a proxy's model) is taken as the message before it was, since the last
        prompt. A prompt with anything new in it stays, whatever answers it, and so does one
        typed before the copy was written (a "continue" left unanswered when the client was
        closed); a call in a new message stays whatever its id."""
        if message_id is None:
            self.retold = []
            return self.copying
        if message_id != self.last_reply:
            self.copying = message_id in self.replied
            if self.copying:
                self.copied_at = time
            copy_time = time if self.copying else self.copied_at
            dropped = {id(e) for e, t in self.retold if t == copy_time and (self.copying or t is not None)}
            if dropped:
                self.events = [e for e in self.events if id(e) not in dropped]
        self.retold = []
        self.replied.add(message_id)
        self.last_reply = message_id
        return self.copying

    def _results(self, line: Line, data: Mapping[str, Any], agent: str, time: float | None, results: list[Any]) -> None:
        """A user line's `tool_result` blocks: each the result of a pending call of `agent`."""
        pending = self.pending.get(agent)
        if pending is None:
            return  # results of calls this file does not show (cut before a resume)
        by_id = {c.tool_use_id: c for c in pending.calls}
        for block in results:
            call = by_id.get(block.get("tool_use_id"))
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

    def _continued(self) -> None:
        """A Stop hook blocked the end of the main thread's turn and sent the model on: the turn
        ended there (a 2025-07 transcript says so only now), and the next Stop has
        `stop_hook_active`. Claude Code 2.1 writes both the feedback and a `hook_blocking_error`
        attachment for one block: the second finds the turn's Stop already out."""
        if self.unended is not None:
            self._stop(MAIN_AGENT, *self.unended)
        self.continued = True

    def _compaction(self, line: Line, time: float | None) -> None:
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
            parallel = claude_concurrent(call.name, call.tool_input)
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
            payload["error"] = text_of(call.result)
            payload["is_interrupt"] = outcome is Outcome.INTERRUPTED
            return payload
        return None  # denied, refused, no result: no post event

    def finish(self) -> None:
        self._flush_all()
        if self.unended is not None and not self.marks_ends:
            # The file's last reply, in a transcript that leaves every `stop_reason` null: no
            # prompt follows, but the turn ended there all the same (an interrupt would have
            # cleared it), and the host sent its Stop. Where replies state theirs, a last one
            # stated null was cut short (a session still being written, a killed client).
            self._stop(MAIN_AGENT, *self.unended)
