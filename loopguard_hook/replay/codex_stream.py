"""One Codex rollout turned into the hook payloads the live client would have sent (facts: `codex`'s docstring)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..core.event import MAIN_AGENT
from ..core.patch import PATCH_CHARS, recorded_misfit, recorded_shell_patch, unseen_through_shell
from ..core.tools import patch_text
from ..hosts.rollout import call_arguments
from .codex_cells import Printed, Script, printed, read_script, shares
from .codex_tools import (
    BARE_ITEMS,
    COMPLETION_EVENTS,
    NOT_PROMPTS,
    STILL_RUNNING,
    blocked,
    call_folder,
    codex_tool,
    denied_misfit,
    exit_code,
    find_key,
    is_stop_continuation,
    patch_failed,
    patch_output,
    seconds,
    shell_script,
    split_exec_output,
    wall_seconds,
)
from .jsonl import Clock, Line, text_of, timestamp
from .model import Outcome, RecordedCall, RecordedEvent
from .usage import CodexRequests


def _made_at(text: str) -> int | None:
    """When a UUID of version 7 was made (`019d52ee-4600-7181-…`: its first 48 bits, in
    milliseconds since the epoch); None for any other text."""
    parts = text.split("-")
    if [len(p) for p in parts] != [8, 4, 4, 4, 12] or parts[2][:1] != "7":
        return None
    try:
        return int(parts[0] + parts[1], 16)
    except ValueError:
        return None


def _turn_of(kind: str, payload: Mapping[str, Any]) -> str | None:
    """The turn id a rollout record names, if any (`turn_id`, or in a message's passthrough
    metadata); none for a `session_meta`."""
    turn = payload.get("turn_id")
    meta = payload.get("internal_chat_message_metadata_passthrough")
    if isinstance(meta, dict) and isinstance(meta.get("turn_id"), str):
        turn = meta["turn_id"]
    return turn if isinstance(turn, str) and kind != "session_meta" else None


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
    arguments: Any = None  #: a `function_call`'s, as recorded (the live hook reads it: `hosts.rollout.call_record`)


@dataclass(slots=True)
class _Cell:
    """A Code Mode `exec` whose nested calls were read from its script (`codex_cells`): what was
    read of the script, those calls, and what the cell printed so far."""

    script: Script
    calls: list[_CodexCall]
    items: list[Any]


class CodexStream:
    """Turns the records of one Codex rollout into hook payloads."""

    def __init__(self, path: str, lines: list[Line]) -> None:
        self.path = path
        self.transcript_path = os.path.abspath(path)
        self.lines = lines
        self.events: list[RecordedEvent] = []
        self.calls: dict[str, _CodexCall] = {}
        self.clock = Clock()
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
        self.continued = False  # a Stop hook sent the model on: the next Stop has `stop_hook_active`
        self.usage = CodexRequests()
        self.forked: int | None = None  # when a forked thread was made, ms (`_copied`)
        self.latest_turn: int | None = None  # when the latest turn the rollout names was made, ms
        self.nested: set[str] = set()  # `exec` calls whose nested calls are recorded as `exec-` items
        self.cells: dict[str, _Cell] = {}  # `exec` call id: its calls read from its script
        self.running: dict[str, str] = {}  # a still-running cell's id: its `exec` call id
        self.waits: dict[str, str] = {}  # a `wait` call id: the cell id it waits for
        self.unread: dict[str, int] = {}  # an `exec` call id: the call sites of its script not read

    def _records(self) -> Iterator[tuple[Line, str, dict[str, Any], float | None]]:
        for line in self.lines:
            data = line.data
            kind, payload = data.get("type"), data.get("payload")
            if not isinstance(payload, dict):
                if kind in BARE_ITEMS:
                    kind, payload = "response_item", data
                elif "id" in data and "instructions" in data and kind is None:
                    kind, payload = "session_meta", data  # the oldest rollouts' first line
                else:
                    continue
            yield line, str(kind), payload, timestamp(data.get("timestamp"))

    def _count_skipped(self) -> None:
        self.skipped = sum(
            1
            for line in self.lines
            if not isinstance(line.data.get("payload"), dict)
            and line.data.get("type") not in BARE_ITEMS
            and not ("id" in line.data and "instructions" in line.data or line.data.get("record_type") == "state")
        )

    def _index(self) -> None:
        open_cells: dict[str, str] = {}  # a call id an `exec` cell's output may come with: the `exec`'s
        for _, kind, payload, _ in self._records():
            self._index_cell(kind, payload, open_cells)
            turn = _turn_of(kind, payload)
            made = _made_at(turn) if turn is not None else None
            if made is not None and (self.latest_turn is None or made > self.latest_turn):
                self.latest_turn = made
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
                elif ptype in COMPLETION_EVENTS and isinstance(payload.get("call_id"), str):
                    self.completions.setdefault(payload["call_id"], payload)
                elif ptype == "user_message":
                    self.prompt_source = "event_msg"

    def _index_cell(self, kind: str, payload: Mapping[str, Any], open_cells: dict[str, str]) -> None:
        """Note the `exec` cells that `item_completed` items with `exec-` ids came in while they
        ran (Codex 0.171.0 records Code Mode's nested calls so: those are read, not the script)."""
        ptype, call_id = payload.get("type"), payload.get("call_id")
        if kind == "response_item" and ptype == "custom_tool_call" and payload.get("name") == "exec" and isinstance(call_id, str):
            open_cells[call_id] = call_id
        elif kind == "response_item" and ptype == "function_call" and payload.get("name") == "wait" and isinstance(call_id, str):
            cell = call_arguments(payload.get("arguments")).get("cell_id")
            exec_id = open_cells.get(f"cell {cell}")
            if exec_id is not None:
                open_cells[call_id] = exec_id
        elif kind == "response_item" and ptype in ("custom_tool_call_output", "function_call_output") and call_id in open_cells:
            exec_id = open_cells.pop(str(call_id))
            done = printed(payload.get("output"))
            if done is not None and done.cell is not None:
                open_cells[f"cell {done.cell}"] = exec_id
            else:
                for key in [c for c, e in open_cells.items() if e == exec_id]:
                    del open_cells[key]  # the cell is over: its id may be given to another
        elif kind == "event_msg" and ptype == "item_completed":
            item = payload.get("item")
            if isinstance(item, dict) and str(item.get("id")).startswith("exec-"):
                self.nested.update(open_cells.values())

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
            turn = _turn_of(kind, payload)
            if turn is not None:
                self.turn_id = turn
            if kind == "session_meta":
                self.clock.at(time)  # the oldest rollouts time their first line only: the session's start
                self._session_meta(payload)
            elif self._copied():
                if kind == "event_msg" and payload.get("type") == "token_count":
                    self.usage.baseline(payload)  # a fork's running totals go on from its parent's
                continue
            elif kind == "turn_context":
                self._turn_context(payload)
            elif kind == "compacted":
                self._compaction(time, line.number)
            elif kind == "response_item":
                self._response_item(line, payload, time)
            elif kind == "event_msg":
                self._event_msg(line, payload, time)

    def _copied(self) -> bool:
        """Whether the record read now is part of the history a forked thread's rollout copies
        from its parent (0.118.0, public rollouts: a subagent spawned with `fork_context` has
        the parent's `session_meta` and every record of its conversation written after its own,
        at one instant). The live hooks fired for those calls in the parent's thread, not in
        this one: the copy gives no events (read along with the parent's rollout, its calls
        were dropped as copies anyway, `jsonl.without_copies`). A record is the copy's while the
        turn it belongs to is older than the thread: thread and turn ids are UUIDv7, which sort
        by the time they were made (to the millisecond: a turn made in the thread's millisecond
        is the thread's own). A rollout whose turns are all older is all copy (a fork killed
        before its first turn); one that names no UUIDv7 turn at all is read whole, as before."""
        if self.forked is None:
            return False
        made = _made_at(self.turn_id) if self.turn_id is not None else None
        return made is None or made < self.forked

    def _session_meta(self, payload: Mapping[str, Any]) -> None:
        if self.session_id is not None:
            return  # the first session_meta is this rollout's own thread
        own = payload.get("id") if isinstance(payload.get("id"), str) else payload.get("session_id")
        self.session_id = own if isinstance(own, str) else None
        made = _made_at(own) if isinstance(own, str) and isinstance(payload.get("forked_from_id"), str) else None
        if made is not None and self.latest_turn is not None:
            self.forked = made
        if isinstance(payload.get("cwd"), str):
            self.cwd = payload["cwd"]
        source = payload.get("source")
        sub = source.get("subagent") if isinstance(source, dict) else None
        if sub is not None and isinstance(own, str):
            # A thread-spawned subagent (`SessionSource::SubAgent(ThreadSpawn {parent_thread_id,
            # ..})` in codex-rs): its hooks carry the parent's session id and its own thread id
            # as `agent_id` (Codex 0.171.0 probe P20).
            parent = find_key(sub, ("root_thread_id", "parent_thread_id", "parent_id"))
            if parent is not None:
                self.session_id = parent
                self.agent = own
                agent_type = find_key(sub, ("agent_type", "role", "agent_role"))
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
        if self.agent != MAIN_AGENT or not text.strip() or text.lstrip().startswith(NOT_PROMPTS):
            return
        self.compaction_open = False
        self.continued = False
        self.last_message = ""  # a turn ended with no reply (`last_agent_message: null`) has none
        payload = self._base("UserPromptSubmit")
        payload["prompt"] = text
        self._emit(time, payload, line)

    def _response_item(self, line: Line, item: Mapping[str, Any], time: float | None) -> None:
        ptype = item.get("type")
        if ptype == "message":
            role = item.get("role")
            if role == "user" and is_stop_continuation(text_of(item.get("content"))):
                # A Stop hook blocked (no task_complete for it): its Stop came first; the turn goes on.
                self._stop(None, time, line.number)
                self.continued = True
            elif role == "user" and self.prompt_source == "response_item":
                self._prompt(text_of(item.get("content")), time, line.number)
            elif role == "assistant":
                self.last_message = text_of(item.get("content"))
            return
        if ptype in ("function_call", "custom_tool_call", "local_shell_call"):
            call_id = item.get("call_id", item.get("id"))
            if item.get("name") in ("exec", "wait") and isinstance(call_id, str):
                self._cell_call(line, item, call_id, time)
            tool = codex_tool(item)
            if tool is None or not isinstance(call_id, str) or call_id in self.calls:
                return
            self.compaction_open = False
            call = self.calls[call_id] = _CodexCall(call_id, tool[0], tool[1], self.turn_id)
            call.arguments = item.get("arguments") if ptype == "function_call" else None
            self.usage.call(call_id)
            self._emit(time, self._tool_payload("PreToolUse", call), line.number)
            return
        if ptype in ("function_call_output", "custom_tool_call_output"):
            call_id = item.get("call_id")
            if isinstance(call_id, str) and (call_id in self.cells or call_id in self.waits):
                self._cell_output(line, call_id, item.get("output"), time)
                return
            found = self.calls.get(call_id) if isinstance(call_id, str) else None
            if found is None or found.has_output:
                return
            call = found
            call.has_output = True
            call.output = item.get("output")
            if call.posted or blocked(call.output):
                self._misfit_at_start(call, denied_misfit(call.output))  # as the live hook saw it
                return
            completion = self.completions.get(call.call_id)
            if completion is not None and self._posts_at_completion(call):
                return  # its PostToolUse came (or comes) with the completion record
            self._post(call, completion, time, line.number)

    def _cell_call(self, line: Line, item: Mapping[str, Any], call_id: str, time: float | None) -> None:
        """A Code Mode `exec` (no hook of its own) whose nested calls no `exec-` item records
        (Codex Desktop 0.144): each call its script makes (`codex_cells.read_script`) fires the
        hooks a direct call of that tool does, with the id `<exec call id>:<index>`; the call
        sites it could not read are counted (`unread`). A `wait` is noted with the cell it waits
        for."""
        if item.get("type") == "function_call":
            cell = call_arguments(item.get("arguments")).get("cell_id")
            if isinstance(cell, (str, int)) and str(cell) in self.running:
                self.waits[call_id] = str(cell)
            return
        script = item.get("input")
        if call_id in self.nested or call_id in self.cells or not isinstance(script, str):
            return
        read = read_script(script)
        if read.sites > len(read.calls):
            self.unread[call_id] = read.sites - len(read.calls)
        calls: list[_CodexCall] = []
        for k, nested in enumerate(read.calls):
            tool = codex_tool({"type": "function_call", "name": nested.name, "arguments": nested.argument})
            if tool is None:
                continue
            call = self.calls[f"{call_id}:{k}"] = _CodexCall(f"{call_id}:{k}", tool[0], tool[1], self.turn_id)
            call.arguments = nested.argument if tool[0] == "Bash" else None
            self.compaction_open = False
            self.usage.call(call.call_id)
            self._emit(time, self._tool_payload("PreToolUse", call), line.number)
            calls.append(call)
        if calls:
            self.cells[call_id] = _Cell(read, calls, [])

    def _cell_output(self, line: Line, call_id: str, output: Any, time: float | None) -> None:
        """An `exec` cell's output, or a `wait`'s for a cell still running: once the cell is over,
        each nested call's PostToolUse, with its share of what the cell printed
        (`codex_cells.shares`); a call a hook blocked gets none."""
        exec_id = self.running.get(self.waits.pop(call_id, ""), call_id)
        cell = self.cells.get(exec_id)
        done = printed(output)
        if cell is None or done is None:
            return
        cell.items.extend(done.items)
        if done.cell is not None:
            self.running[done.cell] = exec_id
            return
        del self.cells[exec_id]
        self.running = {c: e for c, e in self.running.items() if e != exec_id}
        outputs = shares(cell.script, Printed(None, done.failed, tuple(cell.items)))
        by_id = {f"{exec_id}:{k}": out for k, out in enumerate(outputs)}
        for call in cell.calls:
            call.has_output, call.output = True, by_id.get(call.call_id, "")
            if not blocked(call.output):
                self._post(call, None, time, line.number)

    def _posts_at_completion(self, call: _CodexCall) -> bool:
        # Commands: PostToolUse fires when the process ends (item_completed), so parallel posts
        # come in completion order. Other tools: when their output is recorded.
        return call.tool == "Bash"

    def _event_msg(self, line: Line, payload: Mapping[str, Any], time: float | None) -> None:
        ptype = payload.get("type")
        if ptype == "item_completed":
            item = payload.get("item")
            if not isinstance(item, dict):
                return
            item_type = item.get("type")
            if item_type == "UserMessage" and self.prompt_source == "event_msg":
                self._prompt(text_of(item.get("content")), time, line.number)
            elif item_type == "AgentMessage":
                self.last_message = text_of(item.get("content"))
            elif isinstance(item.get("id"), str):
                self._completion(line, item["id"], item, time)
        elif ptype in COMPLETION_EVENTS and isinstance(payload.get("call_id"), str):
            self._completion(line, payload["call_id"], dict(payload), time)
        elif ptype == "user_message" and self.prompt_source == "event_msg":
            message = payload.get("message")
            self._prompt(message if isinstance(message, str) else "", time, line.number)
        elif ptype == "task_complete":
            last = payload.get("last_agent_message")
            self._stop(last if isinstance(last, str) else None, time, line.number)
            self.continued = False
        elif ptype in ("context_compacted", "compacted"):
            self._compaction(time, line.number)
        elif ptype == "token_count":
            self.usage.token_count(payload, self.agent, time if time is not None else self.clock.now)

    def _stop(self, last: str | None, time: float | None, line: int) -> None:
        """The Stop (a subagent's: SubagentStop) that ends a turn, or that a Stop hook blocked."""
        stop = self._base("Stop")
        stop["stop_hook_active"] = self.continued
        stop["last_assistant_message"] = last if last is not None else (self.last_message or None)
        if self.agent != MAIN_AGENT:
            stop["hook_event_name"] = "SubagentStop"
            stop["agent_transcript_path"] = self.transcript_path
        self._emit(time, stop, line)

    def _completion(self, line: Line, item_id: str, item: dict[str, Any], time: float | None) -> None:
        call = self.calls.get(item_id)
        if call is None:
            if item_id.startswith("exec-"):
                self._nested(line, item_id, item, time)
            return
        call.completion = item
        if call.posted or not self._posts_at_completion(call):
            return
        output = self.outputs.get(call.call_id)
        if output is not None and blocked(output):
            return
        if isinstance(output, str) and STILL_RUNNING.search(output[:300]):
            code = exit_code(item)
            if code is None or code < 0:
                return  # killed at exit, never finished: no PostToolUse (probe P10)
        self._post(call, item, time, line.number)

    def _nested(self, line: Line, item_id: str, item: dict[str, Any], time: float | None) -> None:
        # Code Mode: the outer `exec` runs no hook; each nested tool call does, with this id.
        item_type = item.get("type")
        if item_type == "CommandExecution":
            tool: tuple[str, Any] = ("Bash", {"command": shell_script(item.get("command")) or ""})
        elif item_type == "FileChange":
            return  # the patch text is not in the record; nothing faithful to replay
        elif item_type == "McpToolCall" and isinstance(item.get("server"), str) and isinstance(item.get("tool"), str):
            tool = (f"mcp__{item['server']}__{item['tool']}", item.get("arguments"))
        else:
            return
        call = self.calls[item_id] = _CodexCall(item_id, tool[0], tool[1], self.turn_id)
        started = timestamp(seconds(item, "started_at_ms"))
        self._emit(started if started is not None else time, self._tool_payload("PreToolUse", call), line.number)
        call.completion = item
        self._post(call, item, timestamp(seconds(item, "completed_at_ms")) or time, line.number)

    def _tool_payload(self, name: str, call: _CodexCall) -> dict[str, Any]:
        payload = self._base(name, call.turn_id)
        payload["tool_name"] = call.tool
        payload["tool_input"] = call.tool_input
        payload["tool_use_id"] = call.call_id
        payload["cwd"] = (call_folder(payload["cwd"], call.arguments) if call.tool == "Bash" else None) or payload["cwd"]
        return payload

    def _post(self, call: _CodexCall, completion: Mapping[str, Any] | None, time: float | None, line: int) -> None:
        call.posted = True
        payload = self._tool_payload("PostToolUse", call)
        payload["tool_response"] = self._response(call, completion)
        self._start_at_wall_time(call)
        self._misfit_at_start(call, payload["tool_response"])
        self._emit(time, payload, line)

    def _misfit_at_start(self, call: _CodexCall, response: Any) -> None:
        """A patch apply_patch refused for a hunk it did not find (`core.patch.recorded_misfit`): the
        live hook would have seen so at its PreToolUse, looking at the file (`HookEvent.misfit`)."""
        patch = patch_text(call.tool, call.tool_input, PATCH_CHARS)  # apply_patch's, or sent through a shell
        shell = patch is not None and unseen_through_shell(patch)  # judged only as its record has it
        if patch is None or not isinstance(response, str) or shell and not recorded_shell_patch(call_arguments(call.arguments)):
            return  # the live hook does not judge it (`hosts/workspace.misfit`)
        found = recorded_misfit(patch, response)
        i = self._pre_tool_use(call) if found is not None else None
        if i is not None:
            self.events[i] = replace(self.events[i], misfit=found)

    def _pre_tool_use(self, call: _CodexCall) -> int | None:
        """Where the call's PreToolUse is among the events replayed so far (the newest first)."""
        for i in range(len(self.events) - 1, -1, -1):
            payload = self.events[i].payload
            if payload.get("tool_use_id") == call.call_id and payload.get("hook_event_name") == "PreToolUse":
                return i
        return None

    def _start_at_wall_time(self, call: _CodexCall) -> None:
        """Rollouts that write a command's call and output at one time (Codex 0.6x) still state
        how long it ran (`Wall time: 120 seconds`): its PreToolUse fired that long before the
        output, as the live hook sees it (not before the events already replayed)."""
        wall = wall_seconds(call.output) if call.tool == "Bash" else None
        i = self._pre_tool_use(call) if wall else None
        if i is not None and wall:
            event = self.events[i]
            start = max(self.events[i - 1].time if i else 0.0, event.time - wall)
            if start < event.time:
                self.events[i] = replace(event, time=start)

    def _response(self, call: _CodexCall, completion: Mapping[str, Any] | None) -> Any:
        output = self.outputs.get(call.call_id, call.output)
        if call.tool == "Bash":
            if completion is not None and isinstance(completion.get("aggregated_output"), str):
                return completion["aggregated_output"]
            if isinstance(output, str):
                return split_exec_output(output)[0]
            if completion is not None:
                out, err = completion.get("stdout"), completion.get("stderr")
                return (out if isinstance(out, str) else "") + (err if isinstance(err, str) else "")
        if call.tool == "apply_patch" and isinstance(output, str):
            return patch_output(output)
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
        if output is not None and (why := blocked(output)):
            return RecordedCall(call.call_id, why)
        code = exit_code(call.completion) if call.completion is not None else None
        if code is None and isinstance(output, str):
            code = split_exec_output(output)[1]
        if not call.posted:
            still = isinstance(output, str) and STILL_RUNNING.search(output[:300]) is not None
            return RecordedCall(call.call_id, Outcome.RUNNING if still else Outcome.UNKNOWN, code)
        failed = (code is not None and code != 0) or (call.completion is not None and call.completion.get("status") == "failed")
        failed = failed or patch_failed(call.tool, output)
        return RecordedCall(call.call_id, Outcome.FAILED if failed else Outcome.RAN, code)
