"""A scripted mock of the OpenAI chat-completions API (`POST …/chat/completions`, streaming or
not), for the hosts that speak it to a custom endpoint: GitHub Copilot CLI (`COPILOT_OFFLINE` with
`COPILOT_PROVIDER_BASE_URL`) and Factory Droid (a `customModels` entry).

Each request that offers tools takes the next turn of its script (a subagent's when its `match`
occurs in the first user message) and is answered with one assistant message: its text items as
content, its `tool_use` items as `tool_calls` (ids `call_<turn>_<index>`). A request without tools
(a title, a summary) gets a short side answer and takes no turn. Every request is logged.

`chat_new(body)` is what the model received since its previous turn: the `tool` messages (a
call's result, with its `tool_call_id`) and the `user` messages after the last assistant message.
"""

from __future__ import annotations

import json
import time
from typing import Any

from .mock_model import Logged, MockModel, text
from .model_view import Seen


class ChatMock(MockModel):
    """`POST …/chat/completions` answered from the script; `GET …/models` lists one model."""

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if not path.split("?", 1)[0].rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            return 404, "application/json", b'{"error": {"message": "not mocked"}}'
        with self._lock:
            entry = self._reply(path, body)
            self.log(entry)
        calls = [
            {"id": b["id"], "type": "function", "function": {"name": b["name"], "arguments": json.dumps(b["input"])}}
            for b in entry.reply
            if b["type"] == "tool_use"
        ]
        content = "".join(b["text"] for b in entry.reply if b["type"] == "text")
        model = str(body.get("model", "mock"))
        usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        finish = "tool_calls" if calls else "stop"
        cid = f"chatcmpl-{entry.seq}"
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": content or None}
            if calls:
                message["tool_calls"] = calls
            reply = {"id": cid, "object": "chat.completion", "created": int(time.time()), "model": model,
                     "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}
            return 200, "application/json", json.dumps(reply).encode()
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        if content:
            deltas.append({"content": content})
        deltas += [{"tool_calls": [dict(call, index=n)]} for n, call in enumerate(calls)]
        chunks = [self._chunk(cid, model, {"delta": d, "finish_reason": None}) for d in deltas]
        chunks.append(self._chunk(cid, model, {"delta": {}, "finish_reason": finish}))
        chunks.append(self._chunk(cid, model, None, usage))
        return 200, "text/event-stream", b"".join(chunks) + b"data: [DONE]\n\n"

    @staticmethod
    def _chunk(cid: str, model: str, choice: dict[str, Any] | None, usage: dict[str, int] | None = None) -> bytes:
        obj: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                               "choices": [dict(choice, index=0)] if choice else []}
        if usage:
            obj["usage"] = usage
        return f"data: {json.dumps(obj)}\n\n".encode()

    def _reply(self, path: str, body: dict[str, Any]) -> Logged:
        seq = len(self.requests) + 1
        if not body.get("tools"):
            return Logged(seq, path, body, "side", None, reply=[text("OK")])
        name, turns, final = "main", self.script.turns, self.script.final_text
        first = next((_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user"), "")
        for sub in self.script.subagents:
            if sub.match in first:
                name, turns, final = sub.match, sub.turns, sub.final_text
                break
        turn = self.next_turn(name, turns)
        if turn is None:
            return Logged(seq, path, body, name, None, reply=[text(final)])
        blocks = [dict(b, id=f"call_{turn}_{j}") if b["type"] == "tool_use" else dict(b) for j, b in enumerate(turns[turn])]
        return Logged(seq, path, body, name, turn, reply=blocks)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def chat_new(body: dict[str, Any]) -> list[Seen]:
    """What a chat-completions request added since the model's previous turn: each `tool` message
    (`where="tool"`, with its `tool_call_id`) and each `user` message, in order."""
    messages = body.get("messages") or []
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    seen = []
    for msg in messages[last + 1 :]:
        role = str(msg.get("role"))
        if role == "tool":
            seen.append(Seen("tool", _text(msg.get("content")), call_id=str(msg.get("tool_call_id"))))
        elif role == "user":
            seen.append(Seen("user", _text(msg.get("content"))))
    return seen


def results_by_call(bodies: list[dict[str, Any]]) -> dict[str, list[Seen]]:
    """For each call id: its result, then the user messages that came with it (a hook's context)."""
    out: dict[str, list[Seen]] = {}
    for body in bodies:
        current: str | None = None
        for item in chat_new(body):
            if item.call_id is not None:
                current = item.call_id
                out.setdefault(current, []).append(item)
            elif current is not None:
                out[current].append(item)
    return out
