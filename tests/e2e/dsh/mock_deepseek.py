"""A scripted mock of DeepSeek's chat-completions API on 127.0.0.1, for the real DSH.

Scripts are the suite's `Script` / `Subscript` (see `tests/e2e/mock_model.py`); build turns with
`call(name, arguments)` and `text(...)`. Each request that offers tools takes the next turn of
its script (a subagent's `Subscript` when its `match` occurs in the request's first user
message); a request that offers no tools (DSH's session title) gets a short side answer and
takes no turn, and so does DSH's compaction request (`COMPACTION_PROMPT`), which gets a short
checkpoint text. Call ids are `call_<script>_<turn>_<index>` (`script` "main" or
"sub<i>").

Wire facts (verified against dsh 0.1.0-rc.8's `deepseek-official` provider, see
shared/research/dsh-hooks.md §9): DSH sends `POST ${DEEPSEEK_BASE_URL}/chat/completions` with
`stream: true` and the whole history each time; it accepts SSE `chat.completion.chunk` frames
(a role delta, one `content` delta per text item, one `tool_calls` delta per call, a finish
chunk `tool_calls`/`stop`, a usage-only chunk, `data: [DONE]`). It never calls `/models`.

Compaction (`dsh-compaction-basic`, on by default): once the history nears the model's context
window (80 %), DSH summarises it with a request that offers the *same tools* and history as a
turn, followed by one user message, the compaction instruction. Only the reply's text becomes the
checkpoint; a reply with tool calls is dropped unrun. So a script turn served to that request is
lost: with six 1.3 MB calls in the history, two of six scripted calls were never made.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..mock_model import Logged, MockModel, text

__all__ = ["COMPACTION_PROMPT", "ChatCompletionsMock", "call", "text"]

#: How DSH's compaction instruction starts (dsh-compaction-basic 0.1.0-rc.8, its last user message).
COMPACTION_PROMPT = "You are now acting as a compaction engine for this AI coding assistant."
#: The checkpoint the mock writes for a compaction request.
CHECKPOINT = "## Primary Request and Intent\n- (mock checkpoint)\n"


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A function call of DSH tool `name` (`read`, `bash`, `edit`, `subagent`, ...) with JSON `arguments`."""
    return {"type": "call", "name": name, "arguments": arguments}


class ChatCompletionsMock(MockModel):
    """`POST .../chat/completions` answered from the script as SSE; other POSTs get a 404."""

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        if not path.split("?", 1)[0].rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            return 404, "application/json", b'{"error": {"message": "not mocked"}}'
        with self._lock:
            entry = self._reply(path, body)
            self.log(entry)
        return 200, "text/event-stream", _stream(f"chatcmpl-{entry.seq}", str(body.get("model", "mock")), entry.reply)

    def _reply(self, path: str, body: dict[str, Any]) -> Logged:
        seq = len(self.requests) + 1
        if not body.get("tools"):
            return Logged(seq, path, body, "side", None, reply=[text("Mock title")])
        if last_user_text(body).startswith(COMPACTION_PROMPT):
            return Logged(seq, path, body, "compaction", None, reply=[text(CHECKPOINT)])
        name, tag, turns, final = "main", "main", self.script.turns, self.script.final_text
        first = first_user_text(body)
        for i, sub in enumerate(self.script.subagents):
            if sub.match in first:
                name, tag, turns, final = sub.match, f"sub{i}", sub.turns, sub.final_text
                break
        turn = self.next_turn(name, turns)
        if turn is None:
            return Logged(seq, path, body, name, None, reply=[text(final)])
        items = [
            dict(item, id=f"call_{tag}_{turn}_{j}") if item["type"] == "call" else dict(item)
            for j, item in enumerate(turns[turn])
        ]
        return Logged(seq, path, body, name, turn, reply=items)


def first_user_text(body: dict[str, Any]) -> str:
    """The text of the first `user` message of a chat-completions request body."""
    for msg in body.get("messages") or []:
        if isinstance(msg, dict) and msg.get("role") == "user":
            return content_text(msg.get("content"))
    return ""


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last message of a request body when it is a `user` message, else ""."""
    messages = body.get("messages") or []
    last = messages[-1] if messages else None
    if isinstance(last, dict) and last.get("role") == "user":
        return content_text(last.get("content"))
    return ""


def content_text(content: Any) -> str:
    """A message's `content` (a string or a list of `{type: text, text}` parts) as one string."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _stream(chunk_id: str, model: str, items: list[dict[str, Any]]) -> bytes:
    def frame(delta: dict[str, Any] | None = None, finish: str | None = None, usage: dict[str, int] | None = None) -> str:
        obj: dict[str, Any] = {"id": chunk_id, "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        obj["choices"] = [] if usage else [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
        if usage:
            obj["usage"] = usage
        return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"

    frames = [frame({"role": "assistant", "content": ""})]
    calls = 0
    for item in items:
        if item["type"] == "text":
            frames.append(frame({"content": item["text"]}))
        elif item["type"] == "call":
            function = {"name": item["name"], "arguments": json.dumps(item["arguments"], ensure_ascii=False)}
            frames.append(frame({"tool_calls": [{"index": calls, "id": item["id"], "type": "function", "function": function}]}))
            calls += 1
        else:
            raise ValueError(f"unknown script item type {item['type']!r}")
    frames.append(frame({}, finish="tool_calls" if calls else "stop"))
    frames.append(frame(usage={"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}))
    frames.append("data: [DONE]\n\n")
    return "".join(frames).encode()
