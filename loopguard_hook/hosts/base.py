"""The wire form every host shares, and the host module protocol (`core.host.Host`).

A host is a module of this package with the names of `core.host.Host` plus `recognises` and
`wire`. The core never tests a host's name: it asks the host's `Capabilities` (`core/host.py`)
what it can deliver on an event.
"""

from typing import Any

from ..core import messages
from ..core.host import Capabilities
from ..core.verdict import Action, Decision

#: Events after which the agent's turn would end; their wire form never has `hookSpecificOutput`.
TURN_END_EVENTS = frozenset({"Stop", "SubagentStop"})


def wire(caps: Capabilities, decision: Decision, event: str, text: str) -> dict[str, Any] | None:
    """The wire form every client shares, using only the output forms `caps` says take effect.

    `text` is the model-facing text as this client wants it (already cut with `messages.fit`).
    Never `decision: block` on Stop (the clients would loop), never `"allow"` or `"ask"`.
    Nothing on an event the host never sends (`caps.sends`: a PostToolBatch registered by hand
    for Codex): it defines no output for it, and Codex fails a whole answer over one unknown
    field or value (research/codex-hooks.md §7.1).
    """
    if event not in caps.sends:
        return None
    action = decision.action
    if event in TURN_END_EVENTS:
        stop: dict[str, Any] = {}
        if action is Action.STOP and event in caps.end_turn:
            stop = {"continue": False, "stopReason": messages.fit(decision.stop_reason or decision.message)}
        if decision.system_message and event in caps.system_message:
            stop["systemMessage"] = messages.fit(decision.system_message)
        return stop or None
    if action is Action.ALLOW:
        return None
    out: dict[str, Any]
    if action is Action.REMIND or event not in caps.deny:
        if event not in caps.context:
            if decision.system_message and event in caps.system_message:
                return {"systemMessage": messages.fit(decision.system_message)}
            return None
        out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    else:
        out = {"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": text}}
    if action is Action.STOP and event in caps.end_turn:
        out = {"continue": False, "stopReason": messages.fit(decision.stop_reason or text), **out}
    if decision.system_message and event in caps.system_message:
        out["systemMessage"] = messages.fit(decision.system_message)
    return out


def unchanged(data: dict[str, Any], event: str | None) -> dict[str, Any]:
    """The `normalise` of a host that already sends Claude Code's field names."""
    return data
