"""Factory Droid 0.215.0 (npm `droid`).

Facts (verified offline with `droid exec` on 0.215.0, `notes/copilot-droid-hooks.md` §4-§7;
payloads captured in `tests/e2e/droid/payloads/`):

- Claude Code's payload shape and event names; recognised by its transcript,
  `~/.factory/sessions/<cwd slug>/<session id>.jsonl` (JSONL `message` records whose
  `message.role` is `assistant`: `transcript.py`); no per-call id;
- tool names `Execute`, `Read`, `LS`, `Edit`, `Create`, `ApplyPatch`, `Grep`, `Glob`, `Task`…;
  `tool_response` is always a string: an Execute result ends `[Process exited with code N]`,
  Create/Edit send a JSON text (`{"success": true, …}`); a failed Execute, a read of a missing
  file and a denied call get no PostToolUse at all;
- a denial: only the nested `hookSpecificOutput.permissionDecision: "deny"` (top-level is
  ignored); the model reads `Error: <reason>` as the call's result;
- context: only PostToolUse's nested `additionalContext` (a user message right after the result)
  and SessionStart's; PreToolUse context is ignored (a reminder waits for the result);
- `continue: false` on PreToolUse or PostToolUse ends the turn silently (no further model
  request, exit 0); on Stop it does nothing, `decision: "block"` there gives one more request;
- fails open, but a hook that exits 1 on PreToolUse has its stderr **prepended to the tool
  result** (a traceback would reach the model); exit 3 ends the turn;
- its own loop guard: the 3rd identical consecutive call gets a reminder, the 6th halts the turn;
- `droid exec` never fires UserPromptSubmit, Notification or PreCompact; auto-compaction keeps
  the session id; hooks of parallel calls run concurrently;
- hook environment: `DROID_PROJECT_DIR`, `FACTORY_PROJECT_DIR`, and each scalar payload field
  as a lowercase variable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import Client
from ..core.host import Capabilities
from ..core.outcome import Failure, Outcome, classify_response, outcome_fingerprint, result_text
from ..core.verdict import Decision
from . import base

CLIENT = Client.DROID

#: Environment variables Droid gives every hook (0.215.0, `notes` §4.3).
ENVIRONMENT = ("DROID_PROJECT_DIR", "FACTORY_PROJECT_DIR")

CAPABILITIES = Capabilities(
    context=frozenset({"PostToolUse", "SessionStart"}),
    deny=frozenset({"PreToolUse"}),
    end_turn=frozenset({"PreToolUse", "PostToolUse"}),
    block=frozenset({"Stop"}),
    system_message=frozenset(),
    # UserPromptSubmit and SubagentStop run only outside `droid exec` (its code; not seen here).
    sends=frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "SessionEnd"}),
    halts_at=6,
    quiet_failures=True,
)

#: Where Droid keeps its sessions (`transcript_path` of every event).
SESSIONS = "/.factory/sessions/"

_EXIT_CODE = r"\[Process exited with code (-?\d+)\]\s*\Z"
_FAILED_EDIT = r'^\s*\{.*"success"\s*:\s*false'


def recognises(data: Mapping[str, Any]) -> bool:
    """A transcript under `~/.factory/sessions/`."""
    path = data.get("transcript_path")
    return isinstance(path, str) and SESSIONS in path.replace("\\", "/")


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """A result string: failed when it ends `[Process exited with code N]` with N != 0, starts
    `Error: `, or is a JSON text saying `"success": false`; else as the shared rules read text.
    An Execute result's text, which the rules read and quote, is its output without that line."""
    failure = classify_response(tool, response)
    text = result_text(response)
    if isinstance(response, str):
        code = re.search(_EXIT_CODE, response[-200:])
        if code is not None:
            failure = Failure.HARD if code.group(1) != "0" else Failure.NONE
            text = response[: max(0, len(response) - 200) + code.start()].rstrip("\n")  # the output alone
        elif response.startswith("Error: ") or re.match(_FAILED_EDIT, response[:200], re.DOTALL):
            failure = Failure.HARD
    return Outcome(fingerprint=outcome_fingerprint(response, mutation=mutation, now=now), failure=failure, text=text)


def denied_in_batch(text: str) -> bool:
    """Droid sends no PostToolBatch; a denial reads `Error: <reason>`."""
    return text.startswith("Error: ")


def cancelled_in_batch(text: str) -> bool:
    """Never: Droid sends no PostToolBatch."""
    return False


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """The shared (Claude Code) wire form with Droid's capabilities."""
    return base.wire(CAPABILITIES, decision, event, messages.fit(decision.message))


normalise = base.unchanged
