"""The client dialects the guard speaks, one module each, listed here by hand.

Each module holds how its payloads are recognised, its decoding quirks, its capability table
(`core.host.Capabilities`, data) and its wire form. Recognition asks each dialect in `DIALECTS`
order: the DSH bridges first (the Codex bridge sends `turn_id` too), Claude Code last, claiming
whatever the others do not. Qwen Code and Gemini CLI claim only what carries their own marks (a
Qwen `prompt_id` or chat log path; a Gemini event name or chat log path), never a Claude Code or
Codex payload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.event import Client
from ..core.host import Capabilities
from . import claude_code, codex, dsh_claude_code, dsh_codex, gemini_cli, qwen_code

if TYPE_CHECKING:
    from ..core.host import Dialect

DIALECTS: tuple[Dialect, ...] = (dsh_codex, dsh_claude_code, codex, qwen_code, gemini_cli, claude_code)

_BY_CLIENT: dict[Client, Dialect] = {d.CLIENT: d for d in DIALECTS}


def dialect(client: Client) -> Dialect:
    """The module of `client`."""
    return _BY_CLIENT[client]


def capabilities(client: Client) -> Capabilities:
    """What `client` can deliver, and what it sends."""
    return _BY_CLIENT[client].CAPABILITIES


def detect_client(data: Mapping[str, Any]) -> Client:
    """The first dialect in `DIALECTS` that recognises the decoded payload."""
    return next(d.CLIENT for d in DIALECTS if d.recognises(data))


__all__ = ["DIALECTS", "Capabilities", "capabilities", "detect_client", "dialect"]
