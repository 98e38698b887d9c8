"""What the model received: the guard's texts found in the requests a client sent to the mock.

Where hook output lands (verified against the real clients):

- Claude Code 2.1.332, default model: a PreToolUse/PostToolUse `additionalContext` becomes a
  `role: "system"` message after the user message holding the tool results (older models get a
  `<system-reminder>` block inside that user message or tool_result instead); a PreToolUse denial
  becomes the call's `tool_result` with `is_error: true` and content
  `PreToolUse:<Tool> hook error: <reason>`.
- Codex 0.171.0: an `additionalContext` becomes a `developer` message next to the call's output; a
  denial becomes the call's `function_call_output` `Command blocked by PreToolUse hook: <reason>.
  Command: <cmd>`.

So the search covers everything the client added since the model's previous turn, whatever its
structure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

#: Texts only the guard writes: reminders start with "[loopguard]", denials with a rule code
#: (`REPEAT_TOOL_BLOCKED`, `LOOP_GUARD_*`).
MARKERS = ("[loopguard]", "REPEAT_TOOL_BLOCKED", "LOOP_GUARD_")
_COUNT = re.compile(r"\b(?:call|called|attempt) (\d+)\b")


@dataclass(frozen=True)
class Seen:
    """One piece of text the model received: `where` is "tool_result", "function_call_output",
    "custom_tool_call_output" or the role of a message; `call_id` joins a result to its call."""

    where: str
    text: str
    call_id: str | None = None
    is_error: bool = False

    @property
    def is_result(self) -> bool:
        return self.call_id is not None

    @property
    def guard(self) -> bool:
        return any(marker in self.text for marker in MARKERS)


# -- Claude Code ------------------------------------------------------------------------------------


def claude_new(body: dict[str, Any]) -> list[Seen]:
    """The content of every message after the last assistant message of a Messages API request."""
    messages = body.get("messages") or []
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    seen: list[Seen] = []
    for msg in messages[last + 1 :]:
        role = str(msg.get("role"))
        content = msg.get("content")
        if isinstance(content, str):
            seen.append(Seen(role, content))
            continue
        for block in content or []:
            if block.get("type") == "tool_result":
                seen.append(
                    Seen(
                        "tool_result",
                        _flatten(block.get("content")),
                        block.get("tool_use_id"),
                        bool(block.get("is_error")),
                    )
                )
            elif "text" in block:
                seen.append(Seen(role, str(block["text"])))
    return seen


def claude_calls(body: dict[str, Any]) -> list[str]:
    """tool_use ids of the last assistant message (the calls whose results this request carries)."""
    messages = body.get("messages") or []
    for msg in reversed(messages):
        if msg.get("role") == "assistant" and isinstance(msg.get("content"), list):
            return [b["id"] for b in msg["content"] if b.get("type") == "tool_use"]
    return []


# -- Codex ------------------------------------------------------------------------------------------


def codex_new(body: dict[str, Any], previous: dict[str, Any] | None) -> list[Seen]:
    """Input items of a Responses API request that the previous request did not have.

    Codex resends the whole history each time, so the new items are the model's last output
    (calls) and everything the client added: outputs and developer messages."""
    items = body.get("input") or []
    start = len(previous.get("input") or []) if previous else 0
    seen: list[Seen] = []
    for item in items[start:]:
        kind = item.get("type")
        if kind in ("function_call_output", "custom_tool_call_output"):
            seen.append(Seen(kind, _flatten(item.get("output")), item.get("call_id")))
        elif kind == "message" and item.get("role") != "assistant":
            seen.append(Seen(str(item.get("role")), _flatten(item.get("content"))))
    return seen


def codex_views(bodies: list[dict[str, Any]]) -> list[list[Seen]]:
    """`codex_new` of every request in order."""
    return [codex_new(body, bodies[i - 1] if i else None) for i, body in enumerate(bodies)]


def codex_calls(body: dict[str, Any], previous: dict[str, Any] | None) -> list[str]:
    """call ids of the tool calls that are new in this request."""
    items = body.get("input") or []
    start = len(previous.get("input") or []) if previous else 0
    return [i["call_id"] for i in items[start:] if i.get("type") in ("function_call", "custom_tool_call")]


# -- verdicts ---------------------------------------------------------------------------------------


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_flatten(part.get("text", part)) if isinstance(part, dict) else str(part) for part in content)
    return json.dumps(content, ensure_ascii=False)


def guard_texts(seen: list[Seen]) -> list[Seen]:
    """The pieces that carry guard text."""
    return [s for s in seen if s.guard]


def verdict(seen: list[Seen]) -> str:
    """A short label of what the guard told the model in one request: "-" for nothing,
    "remind@N" for a reminder naming count N, "deny@N" for a denial that replaced a tool result;
    several are joined with "+"."""
    labels = []
    for s in guard_texts(seen):
        match = _COUNT.search(s.text)
        count = match.group(1) if match else "?"
        denied = s.is_result and any(code in s.text for code in MARKERS[1:])
        labels.append(f"{'deny' if denied else 'remind'}@{count}")
    return "+".join(sorted(labels)) or "-"
