"""The DeepSeek Harness through `@deepseek-ai/dsh-hooks-claude-code` (0.0.1-rc.5).

Recognised by DSH's session log as `transcript_path` and none of the Codex bridge's fields
(`turn_id`, `permission_mode`). `tool_input` is the model's arguments verbatim. Besides the
shared events it fires SubagentStart/SubagentStop (detached) around a `subagent` call; the
child is its own session. Shared facts: `dsh.py`.
"""

from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import Client
from ..core.verdict import Decision
from . import base, dsh

CLIENT = Client.DSH_CLAUDE_CODE

CAPABILITIES = dsh.capabilities(dsh.SENDS | {"SubagentStart", "SubagentStop"}, arguments=None)

outcome = dsh.outcome
denied_in_batch = dsh.denied_in_batch
cancelled_in_batch = dsh.cancelled_in_batch


def recognises(data: Mapping[str, Any]) -> bool:
    """A DSH session log, and no field only the Codex bridge sends."""
    return dsh.sent_by_dsh(data) and "turn_id" not in data and "permission_mode" not in data


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """The shared wire form with DSH's capabilities; the reason arrives as `Error: <text>`."""
    return base.wire(CAPABILITIES, decision, event, messages.fit(decision.message))


normalise = base.unchanged
