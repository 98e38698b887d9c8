"""Decisions on the wire: exactly one JSON object, or nothing, valid for the client that asked.

| decision | stdout |
|---|---|
| allow | nothing |
| remind | `{"hookSpecificOutput": {"hookEventName": <event>, "additionalContext": <text>}}` |
| deny | `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
|      | "permissionDecisionReason": <text>}}` |
| stop | the deny (or the context) plus top-level `"continue": false, "stopReason"` where the client
|      | ends a turn from that event; the deny alone where it cannot |

Each client's module in `clients/` holds its wire form and the facts behind it (which forms
take effect where, Codex's strict parser, its `. Command: <cmd>` suffix). Never `"allow"` or
`"ask"`: Claude Code would skip the user's permission prompt; Codex marks the hook Failed.
"""

from typing import Any

import orjson

from .. import hosts as clients
from ..core.event import Client
from ..core.verdict import Decision


def wire(decision: Decision, event: str, client: Client) -> dict[str, Any] | None:
    """The JSON object to print for `decision`, or None to print nothing."""
    return clients.dialect(client).wire(decision, event)


def render(decision: Decision, event: str, client: Client) -> bytes:
    """Stdout bytes for `decision`: one JSON object and a newline, or empty."""
    out = wire(decision, event, client)
    if out is None:
        return b""
    return orjson.dumps(out) + b"\n"
