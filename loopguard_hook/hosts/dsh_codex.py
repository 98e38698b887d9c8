"""The DeepSeek Harness through `@deepseek-ai/dsh-hooks-codex` (0.0.1-rc.1).

Recognised by DSH's session log as `transcript_path` together with a Codex-bridge field:
`turn_id` (a small decimal string, on every event but SessionStart) or `permission_mode`
(always `"default"`). Its `tool_input` is always `{"command": <string>}`: the model's command
for `bash`, and `""` for every other tool, so two reads of different files look the same
(research/dsh-hooks.md §3): the capability table says only `bash` carries arguments. Shared
facts: `dsh.py`.
"""

from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import Client
from ..core.verdict import Decision
from . import base, dsh

CLIENT = Client.DSH_CODEX

CAPABILITIES = dsh.capabilities(dsh.SENDS, arguments=frozenset({"bash"}))

outcome = dsh.outcome
denied_in_batch = dsh.denied_in_batch
cancelled_in_batch = dsh.cancelled_in_batch


def recognises(data: Mapping[str, Any]) -> bool:
    """A DSH session log with `turn_id` or `permission_mode`."""
    return dsh.sent_by_dsh(data) and ("turn_id" in data or "permission_mode" in data)


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """The shared wire form with DSH's capabilities; the reason arrives as `Error: <text>` with
    nothing appended (unlike Codex), so it keeps its last character. Nothing on an event the
    bridge never fires (`base.wire`; research/dsh-hooks.md §2, §4)."""
    return base.wire(CAPABILITIES, decision, event, messages.fit(decision.message))


normalise = base.unchanged
