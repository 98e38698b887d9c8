"""A scripted mock of the OpenAI chat-completions API on 127.0.0.1, for the real Qwen Code.

Scripts are the suite's `Script` / `Subscript` (`tests/e2e/mock_model.py`); build turns with
`call(name, arguments)` and `text(...)`. Call ids are `call_<script>_<turn>_<index>` (`script`
"main" or "sub<i>").

Wire facts (Qwen Code 0.24.4, shared/research/qwen-code-hooks.md §1): with
`OPENAI_BASE_URL=<mock>/v1` it POSTs `/v1/chat/completions`, `stream: true`, one request per model
turn, the whole history each time, and reads the same `chat.completion.chunk` frames DSH does,
so the frames come from the DSH suite's mock. What differs is routing: a tools-bearing request
whose system prompt lacks "You are Qwen Code" and that matches no `Subscript` belongs to a
background side agent (0.24.4's managed memory extraction, when the settings leave it on); it
is answered with plain text, logged as "side", and takes no turn. A subagent's first user
message is its task, so a `Subscript` whose `match` occurs there answers it.
"""

from __future__ import annotations

from typing import Any

from ..dsh.mock_deepseek import ChatCompletionsMock, call, content_text, first_user_text
from ..mock_model import Logged, text

__all__ = ["QwenMock", "call", "text"]

#: The opening of the main agent's system prompt (a subagent's differs; it is routed by `match`).
MAIN_MARKER = "You are Qwen Code"


class QwenMock(ChatCompletionsMock):
    """`POST .../chat/completions` answered from the script as SSE; side agents get plain text."""

    def _reply(self, path: str, body: dict[str, Any]) -> Logged:
        if body.get("tools") and not self._scripted(body):
            return Logged(len(self.requests) + 1, path, body, "side", None, reply=[text("Nothing to note.")])
        return super()._reply(path, body)

    def _scripted(self, body: dict[str, Any]) -> bool:
        first = first_user_text(body)
        if any(sub.match in first for sub in self.script.subagents):
            return True
        system = "".join(content_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system")
        return MAIN_MARKER in system
