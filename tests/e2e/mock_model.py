"""Scripted mock models on 127.0.0.1: the Anthropic Messages API (Claude Code) and the OpenAI
Responses API (Codex), each answering from a script and logging every request body.

A script is a list of assistant turns; one turn is a list of items, and several tool calls in one
turn are parallel tool calls. Each model request takes the next turn of its script; once the
turns are used up every answer is the script's final text. Build turns with `tool_use`/`text`
(Anthropic) or `exec_command`/`apply_patch`/`update_plan`/`message` (Responses).

Wire facts (verified against Claude Code 2.1.332 and Codex 0.171.0):

- Claude Code sends `POST /v1/messages?beta=true` with `stream: true` and reads SSE
  (`message_start`, `content_block_start/delta/stop`, `message_delta`, `message_stop`). An Agent-tool
  subagent starts a fresh conversation whose first user message holds the subagent's prompt; a
  `Subscript` whose `match` occurs there answers it instead of the main script.
- Codex sends `POST /v1/responses` and reads SSE (`response.created`, `response.output_item.added`
  and `.done` per item, `response.completed` with usage); it accepts a body sent with
  Content-Length. For slug `gpt-5.5` it offers `exec_command` (function) and freeform
  `apply_patch` (custom tool).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Turn = list[dict[str, Any]]


@dataclass(frozen=True)
class Subscript:
    """The script of an Agent-tool subagent: requests whose first user message contains `match`."""

    match: str
    turns: list[Turn]
    final_text: str = "Subagent done."


@dataclass(frozen=True)
class Script:
    """What the model does: `turns` in order, then `final_text` for every further request, each
    answer sent `think_seconds` after its request came (a real model is never instant: the guard
    takes a call started within `progress.CHAINED_SECONDS` of the previous result, on a host that
    sends no PostToolBatch, as run from the same reply)."""

    turns: list[Turn]
    final_text: str = "Done."
    subagents: tuple[Subscript, ...] = ()
    think_seconds: float = 0.0


# -- turn builders --------------------------------------------------------------------------------


def tool_use(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic `tool_use` block (id assigned by the mock: `toolu_<script>_<turn>_<index>`)."""
    return {"type": "tool_use", "name": name, "input": tool_input}


def text(content: str) -> dict[str, Any]:
    """An assistant text block / message; a turn of text only ends the prompt."""
    return {"type": "text", "text": content}


def exec_command(cmd: str, workdir: str | None = None, yield_time_ms: int | None = None) -> dict[str, Any]:
    """A Codex `exec_command` function call (call id `call_<turn>_<index>`), run in `workdir`
    when given (the model's own argument, relative to the turn's cwd or absolute); with
    `yield_time_ms`, Codex answers after that long, leaving a command that still runs running."""
    spec: dict[str, Any] = {"type": "exec_command", "cmd": cmd}
    return spec | ({"workdir": workdir} if workdir is not None else {}) | (
        {"yield_time_ms": yield_time_ms} if yield_time_ms is not None else {}
    )


def write_stdin(chars: str = "", yield_time_ms: int = 1000) -> dict[str, Any]:
    """A Codex `write_stdin` call ("" polls) to the command session the latest tool output of
    the request names (`Process running with session ID N`): the mock reads it from the request."""
    return {"type": "write_stdin", "chars": chars, "yield_time_ms": yield_time_ms}


def update_plan(plan: list[tuple[str, str]], explanation: str | None = None) -> dict[str, Any]:
    """A Codex `update_plan` function call setting the whole plan: `(step, status)` pairs, status
    "pending", "in_progress" or "completed"."""
    spec: dict[str, Any] = {"type": "update_plan", "plan": [{"step": step, "status": status} for step, status in plan]}
    return spec | ({"explanation": explanation} if explanation is not None else {})


def apply_patch(patch: str) -> dict[str, Any]:
    """A Codex `apply_patch` call with the raw patch text (`*** Begin Patch` ... `*** End Patch`)."""
    return {"type": "apply_patch", "patch": patch}


message = text


# -- the server -----------------------------------------------------------------------------------


@dataclass
class Logged:
    """One request as the mock saw it. `script` is "main", a subagent's match text, or "side"
    (a request the script does not answer); `turn` is the script turn served (None: final text);
    `retry` marks a repeated identical request that got the earlier answer again."""

    seq: int
    path: str
    body: Any
    script: str
    turn: int | None
    retry: bool = False
    reply: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "path": self.path,
            "script": self.script,
            "turn": self.turn,
            "retry": self.retry,
            "reply": self.reply,
            "body": self.body,
        }


class MockModel:
    """Base: a `ThreadingHTTPServer` on a free loopback port, served from a daemon thread.

    Use as a context manager; `url` is the base URL once started. Every request is kept in
    `requests` and appended as one JSON line to `log_path`.
    """

    def __init__(self, script: Script, log_path: Path) -> None:
        self.script = script
        self.log_path = log_path
        self.requests: list[Logged] = []
        self._lock = threading.Lock()
        self._cursors: dict[str, int] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # subclasses answer one POST: (status, content type, body bytes)
    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        raise NotImplementedError

    @property
    def url(self) -> str:
        assert self._server is not None, "mock not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> MockModel:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="mock-model",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def next_turn(self, name: str, turns: list[Turn]) -> int | None:
        """Advance the cursor of script `name`; the turn index to serve, or None when used up."""
        k = self._cursors.get(name, 0)
        self._cursors[name] = k + 1
        return k if k < len(turns) else None

    def log(self, entry: Logged) -> None:
        self.requests.append(entry)
        with open(self.log_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry.as_json(), ensure_ascii=False) + "\n")


def _handler(model: MockModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # the JSONL log is enough
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length > 0 else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = {"unparsed": raw[:2000].decode("utf-8", "replace")}
            status, ctype, data = model.answer(self.path, body)
            time.sleep(model.script.think_seconds)
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            data = json.dumps({"error": {"type": "not_found_error", "message": "not mocked"}}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode() for name, data in events)


# -- Anthropic Messages API -------------------------------------------------------------------------


class AnthropicMock(MockModel):
    """`POST /v1/messages` (streaming or not) answered from the script; other POSTs get a 404.

    A request with tools is scripted (the main script, or a subagent's when its `match` is in the
    first user message); one without tools (titles, summaries) gets a short side answer. A request
    whose messages equal an earlier one (a client retry) gets the same answer again.
    """

    USAGE = {
        "input_tokens": 100,
        "output_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }

    def __init__(self, script: Script, log_path: Path) -> None:
        super().__init__(script, log_path)
        self._answered: dict[str, tuple[str, int | None, list[dict[str, Any]]]] = {}

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        route = path.split("?", 1)[0].rstrip("/")
        if route.endswith("/v1/messages/count_tokens"):
            return 200, "application/json", b'{"input_tokens": 100}'
        if not route.endswith("/v1/messages") or not isinstance(body, dict):
            return (
                404,
                "application/json",
                b'{"type": "error", "error": {"type": "not_found_error"}}',
            )
        with self._lock:
            entry = self._reply(path, body)
            self.log(entry)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in entry.reply) else "end_turn"
        msg_id = f"msg_mock_{entry.seq}"
        model = str(body.get("model", "mock"))
        if not body.get("stream"):
            return (
                200,
                "application/json",
                json.dumps(self._message(msg_id, model, entry.reply, stop)).encode(),
            )
        return 200, "text/event-stream", _sse(self._events(msg_id, model, entry.reply, stop))

    def _reply(self, path: str, body: dict[str, Any]) -> Logged:
        seq = len(self.requests) + 1
        if not body.get("tools"):
            return Logged(seq, path, body, "side", None, reply=[text("OK")])
        name, turns, final, prefix = "main", self.script.turns, self.script.final_text, ""
        first = _first_user_text(body)
        for i, sub in enumerate(self.script.subagents):
            if sub.match in first:
                name, turns, final, prefix = sub.match, sub.turns, sub.final_text, f"sub{i}_"
                break
        key = hashlib.sha256(json.dumps([name, body.get("messages")], sort_keys=True).encode()).hexdigest()
        if key in self._answered:
            name, turn, blocks = self._answered[key]
            return Logged(seq, path, body, name, turn, retry=True, reply=blocks)
        turn = self.next_turn(name, turns)
        if turn is None:
            blocks = [text(final)]
        else:
            blocks = [
                dict(b, id=f"toolu_{prefix}{turn:02d}_{j}") if b["type"] == "tool_use" else dict(b)
                for j, b in enumerate(turns[turn])
            ]
        self._answered[key] = (name, turn, blocks)
        return Logged(seq, path, body, name, turn, reply=blocks)

    def _message(self, msg_id: str, model: str, blocks: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
        return {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": dict(self.USAGE),
        }

    def _events(self, msg_id: str, model: str, blocks: list[dict[str, Any]], stop: str) -> list[tuple[str, dict[str, Any]]]:
        events: list[tuple[str, dict[str, Any]]] = [
            (
                "message_start",
                {"type": "message_start", "message": self._message(msg_id, model, [], None)},
            )
        ]
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                start: dict[str, Any] = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {
                    "type": "input_json_delta",
                    "partial_json": json.dumps(block["input"], ensure_ascii=False),
                }
            events += [
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": start},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": i, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": i}),
            ]
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return events


def _first_user_text(body: dict[str, Any]) -> str:
    for msg in body.get("messages") or []:
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return content
            return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
    return ""


# -- OpenAI Responses API ---------------------------------------------------------------------------


class ResponsesMock(MockModel):
    """`POST .../responses` answered from the script as SSE; other POSTs get a 404."""

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if not path.split("?", 1)[0].rstrip("/").endswith("/responses") or not isinstance(body, dict):
            return (
                404,
                "application/json",
                b'{"error": {"message": "not mocked", "type": "not_found"}}',
            )
        offered = {str(t.get("name")): t.get("type") for t in body.get("tools") or [] if isinstance(t, dict)}
        with self._lock:
            seq = len(self.requests) + 1
            turn = self.next_turn("main", self.script.turns)
            spec = self.script.turns[turn] if turn is not None else [message(self.script.final_text)]
            items = [_response_item(item, f"{turn}_{j}", offered, body) for j, item in enumerate(spec)]
            self.log(Logged(seq, path, body, "main", turn, reply=items))
        resp = {"id": f"resp_mock_{seq}", "object": "response", "model": body.get("model", "mock")}
        events: list[tuple[str, dict[str, Any]]] = [
            (
                "response.created",
                {
                    "type": "response.created",
                    "response": dict(resp, status="in_progress", output=[]),
                },
            )
        ]
        for n, item in enumerate(items):
            added = dict(item, status="in_progress", content=[]) if item["type"] == "message" else item
            events.append(
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": n, "item": added},
                )
            )
            if item["type"] == "message":
                events.append(
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "item_id": item["id"],
                            "output_index": n,
                            "content_index": 0,
                            "delta": item["content"][0]["text"],
                        },
                    )
                )
            events.append(
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": n, "item": item},
                )
            )
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 110,
        }
        events.append(
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": dict(resp, status="completed", output=items, usage=usage),
                },
            )
        )
        return 200, "text/event-stream", _sse(events)


def _running_session(body: dict[str, Any]) -> int:
    """The command session the request's latest tool output leaves running."""
    for item in reversed(body.get("input") or []):
        output = item.get("output") if isinstance(item, dict) else None
        found = re.search(r"Process running with session ID (\d+)", output if isinstance(output, str) else "")
        if found:
            return int(found.group(1))
    raise ValueError("write_stdin scripted, but no tool output of the request names a running session")


def _function_call(suffix: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A Responses API `function_call` item (call id `call_<suffix>`)."""
    return {
        "type": "function_call",
        "id": f"fc_{suffix}",
        "status": "completed",
        "call_id": f"call_{suffix}",
        "name": name,
        "arguments": json.dumps(arguments),
    }


def _response_item(spec: dict[str, Any], suffix: str, offered: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    kind = spec["type"]
    if kind == "text":
        return {
            "type": "message",
            "id": f"msg_{suffix}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": spec["text"], "annotations": []}],
        }
    if kind == "exec_command":
        return _function_call(suffix, kind, {k: spec[k] for k in ("cmd", "workdir", "yield_time_ms") if k in spec})
    if kind == "update_plan":
        return _function_call(suffix, kind, {k: spec[k] for k in ("explanation", "plan") if k in spec})
    if kind == "write_stdin":
        arguments = {"session_id": _running_session(body), "chars": spec["chars"], "yield_time_ms": spec["yield_time_ms"]}
        return _function_call(suffix, kind, arguments)
    if kind == "apply_patch":
        if offered.get("apply_patch") == "custom":
            return {
                "type": "custom_tool_call",
                "id": f"ctc_{suffix}",
                "status": "completed",
                "call_id": f"call_{suffix}",
                "name": "apply_patch",
                "input": spec["patch"],
            }
        return _function_call(suffix, kind, {"input": spec["patch"]})
    raise ValueError(f"unknown script item type {kind!r}")
