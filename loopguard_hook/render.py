"""Decisions on the wire: exactly one JSON object, or nothing, valid for the client that asked.

| decision | stdout |
|---|---|
| allow | nothing |
| remind | `{"hookSpecificOutput": {"hookEventName": <event>, "additionalContext": <text>}}` |
| deny | `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
|      | "permissionDecisionReason": <text>}}` |
| stop | Claude Code: the deny plus top-level `"continue": false, "stopReason"`; Codex: the deny alone |

Client facts (research notes, verified on Claude Code 2.1.332 and Codex 0.171.0):

- Never `"allow"` or `"ask"`: Claude Code would skip the user's permission prompt; Codex marks
  the hook Failed.
- Codex rejects the whole answer on any field it does not know, and on `continue`/`stopReason`
  for PreToolUse; its output for `Stop` may not hold `hookSpecificOutput`.
- Codex appends `. Command: <cmd>` to a denial reason, so Codex reasons end without a period.
- Claude Code accepts `continue: false` on PostToolBatch and ends the loop before the next
  model request.
"""

from __future__ import annotations

from typing import Any

import orjson

from . import messages
from .engine import Action, Decision
from .payload import Client

#: Events whose `hookSpecificOutput` may carry `additionalContext` (both clients where they exist).
CONTEXT_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart"}
)


def wire(decision: Decision, event: str, client: Client) -> dict[str, Any] | None:
    """The JSON object to print for `decision`, or None to print nothing."""
    action = decision.action
    if event in ("Stop", "SubagentStop"):
        # Never `decision: block` on Stop (both clients would loop), and Codex rejects
        # `hookSpecificOutput` there: only `continue`/`stopReason` and `systemMessage`.
        stop: dict[str, Any] = {}
        if action is Action.STOP:
            stop = {"continue": False, "stopReason": messages.fit(decision.stop_reason or decision.message)}
        if decision.system_message:
            stop["systemMessage"] = messages.fit(decision.system_message)
        return stop or None
    if action is Action.ALLOW:
        return None
    text = messages.fit(decision.message)
    if client is Client.CODEX:
        text = text.rstrip().rstrip(".")
    out: dict[str, Any]
    if action is Action.REMIND or event != "PreToolUse":
        if event not in CONTEXT_EVENTS:
            if decision.system_message:
                return {"systemMessage": messages.fit(decision.system_message)}
            return None
        out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        if (
            action is Action.STOP
            and client is Client.CLAUDE_CODE
            and event in ("PostToolBatch", "PostToolUse", "PostToolUseFailure")
        ):
            out = {"continue": False, "stopReason": messages.fit(decision.stop_reason or text), **out}
    else:
        out = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": text,
            }
        }
        if action is Action.STOP and client is Client.CLAUDE_CODE:
            out = {"continue": False, "stopReason": messages.fit(decision.stop_reason or text), **out}
    if decision.system_message:
        out["systemMessage"] = messages.fit(decision.system_message)
    return out


def render(decision: Decision, event: str, client: Client) -> bytes:
    """Stdout bytes for `decision`: one JSON object and a newline, or empty."""
    out = wire(decision, event, client)
    if out is None:
        return b""
    return orjson.dumps(out) + b"\n"
