"""The client dialects the guard speaks, one module each, listed here by hand.

Each module holds how its payloads are recognised, its decoding quirks, its capability table
(`core.host.Capabilities`, data) and its wire form. Recognition asks each dialect in `DIALECTS`
order: the DSH bridges first (the Codex bridge sends `turn_id` too), then Codex, then Qwen Code
and Gemini CLI, which claim only what carries their own marks (a Qwen `prompt_id` or chat log
path; a Gemini event name or chat log path), then the hosts that run Claude Code's settings with
payloads of their own (Cursor by `cursor_version`, Copilot by its camelCase fields or its
snake_case shape, Droid by its transcript path), Claude Code last, claiming whatever the others
do not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from ..core.event import Client
from ..core.host import Capabilities
from . import claude_code, codex, copilot, cursor, droid, dsh_claude_code, dsh_codex, gemini_cli, qwen_code
from .payload import json_lines

if TYPE_CHECKING:
    from ..core.host import Dialect

DIALECTS: tuple[Dialect, ...] = (
    dsh_codex, dsh_claude_code, codex, qwen_code, gemini_cli, cursor, copilot, droid, claude_code,
)

_BY_CLIENT: dict[Client, Dialect] = {d.CLIENT: d for d in DIALECTS}
#: The hosts that have a module here.
CLIENTS = frozenset(_BY_CLIENT)


def dialect(client: Client) -> Dialect:
    """The module of `client`."""
    return _BY_CLIENT[client]


def capabilities(client: Client) -> Capabilities:
    """What `client` can deliver, and what it sends."""
    return _BY_CLIENT[client].CAPABILITIES


def detect_client(data: Mapping[str, Any]) -> Client:
    """The first dialect in `DIALECTS` that recognises the decoded payload."""
    return next(d.CLIENT for d in DIALECTS if d.recognises(data))


def borrowed(client: Client, cwd: str | None, environ: Mapping[str, str]) -> bool:
    """Whether `client` runs this hook from Claude Code's settings although the guard has its own
    registration there too (the module's `own_install`): the caller, run with `--client auto`,
    then stays silent, so that one call is not counted twice. Cursor loads `~/.claude/settings.json`
    and a project's `.claude/` hooks; Copilot CLI a repository's `.claude/settings*.json`."""
    own_install = getattr(_BY_CLIENT[client], "own_install", None)
    return own_install is not None and bool(own_install(cwd, environ))


def host_event(client: str, event: str) -> str:
    """The name `client` gives hook event `event` (as the guard names it) where the host has
    names of its own for every payload (a module's `OWN_NAMES`: Gemini CLI's `BeforeTool`,
    Cursor's `preToolUse`); `event` elsewhere (Copilot CLI sends its own names or Claude Code's,
    as the file that registered the hook has them)."""
    module = _BY_CLIENT[Client(client)] if client in CLIENTS else None
    names: Mapping[str, str] = getattr(module, "OWN_NAMES", None) or {}
    return names.get(event, event)


def client_from_environment(environ: Mapping[str, str]) -> Client | None:
    """The host that started this hook, told by the variables it gives its hooks (a module's
    `ENVIRONMENT`); None when none is set. Used only to choose how a failure ends before the
    payload is read (`hook.quiet_client`): the payload names its host more surely."""
    for module in DIALECTS:
        if any(environ.get(name) for name in getattr(module, "ENVIRONMENT", ())):
            return module.CLIENT
    return None


def client_from_head(head: bytes) -> Client | None:
    """The host a payload's first bytes name by a key only it sends (a module's `MARKS`, which its
    `recognises` reads too), for a payload not parsed (too big, or the deadline came first); when
    they hold the whole payload, the host that recognises it (Copilot's snake_case payload has no
    key of its own: `copilot.recognises`); None when neither tells. Used only to choose how a
    failure ends (`hook.quiet_client`). Several JSON lines (a transcript or a file of payloads piped
    in by hand: `loopguard-hook < session.jsonl`) are no host's: every host sends one object, and a
    Claude Code transcript's `sessionId` would read as Copilot's, whose failures are silent."""
    if json_lines(head):
        return None
    for module in DIALECTS:
        if any(b'"' + key.encode() + b'"' in head for key in getattr(module, "MARKS", ())):
            return module.CLIENT
    try:
        data = orjson.loads(head)
    except orjson.JSONDecodeError:  # cut, or not JSON
        return None
    return detect_client(data) if isinstance(data, dict) else None


__all__ = [
    "CLIENTS", "DIALECTS", "Capabilities", "borrowed", "capabilities", "client_from_environment", "client_from_head",
    "detect_client", "dialect",
]
