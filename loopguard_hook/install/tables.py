"""What `install` writes: the one command string, the clients and scopes, and the `hooks` table
per client (events, matchers, timeouts). Shared by the installers and the files in `hooks/`.

Client facts: Claude Code 2.1.332 and Codex 0.171.0 both default hook timeouts to 600 s; Codex
clamps `SessionEnd` timeouts to 3 s; Claude Code raises its 1.5 s `SessionEnd` budget to the
largest `SessionEnd` timeout; Codex's accepted event keys come from `codex app-server` hooks/list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..core.event import HANDLED_EVENT_ORDER
from .change import InstallError

#: The one command string every config uses. Claude Code runs identical command strings once
#: across settings files; any other spelling runs again and double-counts every call.
CANONICAL_COMMAND: Final = "loopguard-hook"

CLAUDE_CODE: Final = "claude-code"
CODEX: Final = "codex"
CLIENTS: Final = (CLAUDE_CODE, CODEX)
CLIENT_NAMES: Final[Mapping[str, str]] = {CLAUDE_CODE: "Claude Code", CODEX: "Codex"}
SCOPES: Final[Mapping[str, tuple[str, ...]]] = {
    CLAUDE_CODE: ("user", "project", "local"),
    CODEX: ("user", "project"),
}

#: Seconds a client waits for the hook. Explicit because both clients default to 600 s, and a
#: timed-out hook fails open anyway (Claude Code 2.1.332, Codex 0.171.0).
TIMEOUT_SECONDS: Final = 10
#: Codex 0.171.0 clamps SessionEnd timeouts to 3 s (with a warning); Claude Code 2.1.332 raises its
#: 1.5 s SessionEnd budget to the largest SessionEnd timeout, so 3 s suits both.
SESSION_END_TIMEOUT_SECONDS: Final = 3

#: Hook event keys Codex 0.171.0 accepts (`codex app-server` hooks/list); it ignores other keys.
CODEX_KNOWN_EVENTS: Final = frozenset(
    {
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "Interrupt",
    }
)

_HANDLED_EVENTS: Final = HANDLED_EVENT_ORDER

#: Hook events registered per client, in the order they are written: Claude Code gets every event
#: the guard handles; Codex those of them it knows (it has no PostToolUseFailure or
#: PostToolBatch, and although it would ignore the keys, they are not written).
HOOK_EVENTS: Final[Mapping[str, tuple[str, ...]]] = {
    CLAUDE_CODE: _HANDLED_EVENTS,
    CODEX: tuple(e for e in _HANDLED_EVENTS if e in CODEX_KNOWN_EVENTS),
}

#: Events whose matcher selects tools; they get `"*"`. The others are written without a matcher:
#: it is ignored (UserPromptSubmit, Stop, PostToolBatch) or would filter what the guard must see
#: (SessionStart's source, SubagentStop's agent type).
TOOL_MATCHER_EVENTS: Final = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
TOOL_MATCHER: Final = "*"


def env_dir(env: Mapping[str, str] | None, name: str) -> str | None:
    """The variable's value, None when unset or empty (an empty variable counts as unset in
    both clients)."""
    value = (env or {}).get(name)
    return value or None


def check_client_scope(client: str, scope: str) -> None:
    """Raises `InstallError` for an unknown client, or a scope that client does not have."""
    if client not in SCOPES:
        raise InstallError(f"unknown client {client!r}: use one of {', '.join(CLIENTS)}")
    if scope not in SCOPES[client]:
        raise InstallError(
            f"{CLIENT_NAMES[client]} has no {scope!r} scope: use one of {', '.join(SCOPES[client])}"
        )


def handler() -> dict[str, Any]:
    """The handler object for one event: `{"type": "command", "command": …, "timeout": s}`."""
    return {"type": "command", "command": CANONICAL_COMMAND, "timeout": TIMEOUT_SECONDS}


def hooks_table(client: str) -> dict[str, list[dict[str, Any]]]:
    """The `hooks` object install merges for `client`: event -> one matcher group.

    The same table feeds `plan_install` and every file in `hooks/`, so they cannot drift.

    Raises:
        InstallError: unknown client.
    """
    check_client_scope(client, "user")
    return events_table(HOOK_EVENTS[client])


def events_table(events: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """A `hooks` object registering `handler()` once per event, in order: tool events with the
    `"*"` matcher, the others without one, SessionEnd with its shorter timeout."""
    table: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        entry = handler()
        if event == "SessionEnd":
            entry["timeout"] = SESSION_END_TIMEOUT_SECONDS
        group: dict[str, Any] = {"matcher": TOOL_MATCHER} if event in TOOL_MATCHER_EVENTS else {}
        group["hooks"] = [entry]
        table[event] = [group]
    return table
