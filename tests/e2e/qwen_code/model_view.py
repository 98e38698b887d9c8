"""What the model received from Qwen Code: the messages each chat-completions request added after
the model's previous turn.

Where hook output lands (Qwen Code 0.24.4, shared/research/qwen-code-hooks.md §5):

- a PreToolUse denial (`permissionDecision: "deny"`, top-level `decision: "block"`, exit 2 with
  the reason on stderr) replaces the call's result: its `role: "tool"` message is exactly the
  reason, no prefix;
- a PostToolUse / PostToolUseFailure / PostToolBatch `additionalContext` is appended to the call's
  `tool` message after a blank line;
- a UserPromptSubmit `additionalContext` is a text part
  `<qwen:user-prompt-submit-context>\\n<text>\\n</qwen:user-prompt-submit-context>`: at the end
  of the first user message for the real prompt, in a new `user` message after the tool results
  for a continuation (UserPromptSubmit fires before every request of the turn);
- a SessionStart context goes into the system prompt.

Each request resends the whole history, so what is new is everything after the last
`assistant` message; a tool message's content is a list with one text part.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..dsh.mock_deepseek import content_text
from ..model_view import Seen

__all__ = ["Call", "calls", "new_messages", "prompt_parts", "system_text", "tagged", "views"]


def new_messages(body: dict[str, Any]) -> list[Seen]:
    """The `tool` and `user` messages after the last `assistant` message of one request body
    (for the first request: the user messages, the prompt with whatever hooks added to it)."""
    messages = body.get("messages") or []
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    seen = []
    for msg in messages[last + 1 :]:
        role = str(msg.get("role"))
        if role == "system":
            continue
        seen.append(Seen(role, content_text(msg.get("content")), msg.get("tool_call_id") if role == "tool" else None))
    return seen


def views(bodies: list[dict[str, Any]]) -> list[list[Seen]]:
    """`new_messages` of every request after the first: view k holds the results of the model's k-th turn."""
    return [new_messages(body) for body in bodies[1:]]


@dataclass(frozen=True)
class Call:
    """One tool call as the model saw it come back: its `tool` message (`result`) and the `user`
    messages after its batch (`after`, shared by every call of a parallel batch)."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    result: str
    after: tuple[str, ...]


def calls(bodies: list[dict[str, Any]]) -> list[Call]:
    """Every tool call of one conversation, in order: request k+1 carries the results of the
    calls in the model's k-th answer (its last `assistant` message)."""
    out: list[Call] = []
    for body in bodies[1:]:
        messages = body.get("messages") or []
        turn: dict[str, Any] = next((m for m in reversed(messages) if m.get("role") == "assistant"), {})
        view = new_messages(body)
        results = {s.call_id: s.text for s in view if s.call_id is not None}
        after = tuple(s.text for s in view if s.call_id is None)
        for tc in turn.get("tool_calls") or []:
            function = tc.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except ValueError:
                arguments = {"unparsed": function.get("arguments")}
            out.append(Call(str(tc.get("id")), str(function.get("name", "")), arguments, results.get(tc.get("id"), ""), after))
    return out


def prompt_parts(body: dict[str, Any]) -> list[str]:
    """The text parts of the first user message: Qwen's reminders, the prompt, then what a
    UserPromptSubmit hook added."""
    for msg in body.get("messages") or []:
        if msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return [content]
            return [str(p.get("text", "")) for p in content or [] if isinstance(p, dict)]
    return []


def system_text(body: dict[str, Any]) -> str:
    """The system prompt (where a SessionStart context goes)."""
    return "".join(content_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system")


def tagged(text: str, tag: str = "user-prompt-submit-context") -> list[str]:
    """The bodies of the `<qwen:TAG ...>` blocks in `text`, stripped."""
    return [m.strip() for m in re.findall(rf"<qwen:{tag}[^>]*>(.*?)</qwen:{tag}>", text, re.S)]
