"""What the model received from DSH: the messages each chat-completions request added after the
model's previous turn.

Where hook output lands (dsh 0.1.0-rc.8 with either bridge, shared/research/dsh-hooks.md §4):
a PreToolUse denial replaces the call's result, so it is the call's `role: "tool"` message
`Error: <reason>`; a PostToolUse `additionalContext` is a separate `role: "user"` message after
the tool results (after all results of a parallel batch). Each request resends the whole
history, so the new part is everything after the last `assistant` message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model_view import MARKERS, Seen, guard_texts, verdict
from .mock_deepseek import content_text

__all__ = ["Call", "calls", "guard_texts", "new_messages", "verdict", "views"]


def new_messages(body: dict[str, Any]) -> list[Seen]:
    """The `tool` and `user` messages after the last `assistant` message of one request body."""
    messages = body.get("messages") or []
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=len(messages))
    seen = []
    for msg in messages[last + 1 :]:
        role = str(msg.get("role"))
        call_id = msg.get("tool_call_id") if role == "tool" else None
        seen.append(Seen(role, content_text(msg.get("content")), call_id))
    return seen


def views(bodies: list[dict[str, Any]]) -> list[list[Seen]]:
    """`new_messages` of every request after the first: view k holds the results of the model's k-th turn."""
    return [new_messages(body) for body in bodies[1:]]


@dataclass(frozen=True)
class Call:
    """One tool call as the model saw it come back: its result (`tool` message) and the user
    messages that followed its batch (`after`; shared by every call of a parallel batch)."""

    call_id: str
    name: str
    result: str
    after: tuple[str, ...]

    @property
    def denied(self) -> bool:
        """The guard answered in place of the tool (`Error: REPEAT_TOOL_BLOCKED…`, `Error: LOOP_GUARD_…`)."""
        return self.result.startswith("Error: ") and any(code in self.result for code in MARKERS[1:])

    @property
    def reminders(self) -> list[str]:
        """Guard texts among the user messages after this call's batch."""
        return [text for text in self.after if any(marker in text for marker in MARKERS)]

    @property
    def label(self) -> str:
        """`verdict`-style label of this call alone: "-", "remind@N", "deny@N" or both joined by "+"."""
        seen = [Seen("tool", self.result, self.call_id)] + [Seen("user", t) for t in self.after]
        return verdict(seen)


def calls(bodies: list[dict[str, Any]]) -> list[Call]:
    """Every tool call of one conversation, in order, with what came back for it: request k+1
    carries the results of the calls in the model's k-th answer (its last `assistant` message)."""
    out: list[Call] = []
    for body in bodies[1:]:
        messages = body.get("messages") or []
        turn: dict[str, Any] = next((m for m in reversed(messages) if m.get("role") == "assistant"), {})
        view = new_messages(body)
        results = {s.call_id: s.text for s in view if s.call_id is not None}
        after = tuple(s.text for s in view if s.call_id is None)
        for tc in turn.get("tool_calls") or []:
            name = str((tc.get("function") or {}).get("name", ""))
            out.append(Call(str(tc.get("id")), name, results.get(tc.get("id"), ""), after))
    return out
