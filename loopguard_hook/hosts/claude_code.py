"""Claude Code 2.1.332: the default dialect (a payload no other client claims).

Facts (research/claude-code-hooks.md, verified on 2.1.332 LAB):

- `additionalContext` reaches the model on PreToolUse, PostToolUse, PostToolUseFailure,
  PostToolBatch, UserPromptSubmit and SessionStart;
- a PreToolUse `permissionDecision: "deny"` is shown as `PreToolUse:<Tool> hook error: <reason>`;
- `continue: false` ends the turn after the hook, on PostToolBatch before the next model call;
- `systemMessage` is shown to the user, never to the model;
- a subagent's text is in its own transcript, named by SubagentStop's `agent_transcript_path`.
"""

import re
from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import HANDLED_EVENTS, Client
from ..core.host import Capabilities
from ..core.outcome import Outcome, outcome_of_response
from ..core.verdict import Decision
from . import base

CLIENT = Client.CLAUDE_CODE

_CONTEXT = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart"})

CAPABILITIES = Capabilities(
    context=_CONTEXT,
    deny=frozenset({"PreToolUse"}),
    end_turn=frozenset(
        {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "Stop", "SubagentStop"}
    ),
    block=frozenset({"PreToolUse", "PostToolUse", "Stop", "SubagentStop"}),
    system_message=HANDLED_EVENTS,
    sends=HANDLED_EVENTS,
    subagent_transcripts=True,
    # "Stop does not fire on user interrupt" (research/claude-code-hooks.md, 2.1.332 LAB); an
    # interrupted turn's transcript has no `end_turn` message either (corpus 1.0.x-2.1.x).
    stop_skips_interrupts=True,
    # "stopReason: message shown to the user when continue is false" (research/claude-code-hooks.md).
    shows_stop_reason=True,
)


def recognises(data: Mapping[str, Any]) -> bool:
    """Always: Claude Code is the dialect of a payload that no other client claims."""
    return True


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """A result as the shared rules read it (Claude Code reports failures in the response),
    without the note Claude Code adds to a Bash result's `stderr` when it moved the shell back
    into the project (`Shell cwd was reset to <dir>`; corpus transcripts of 2.1.x, in
    `toolUseResult` as in the hook's `tool_response`): that line is the host's, not the
    command's, and under it an empty answer (`ls` of an empty folder, a list with no match)
    read as one answer shared by every command of the session."""
    if isinstance(response, dict) and isinstance(stderr := response.get("stderr"), str) and _CWD_RESET in stderr:
        response = {**response, "stderr": re.sub(_CWD_RESET_LINE, "", stderr).strip("\n")}
    return outcome_of_response(tool, response, mutation=mutation, now=now)


_CWD_RESET = "Shell cwd was reset to "
_CWD_RESET_LINE = r"(?m)^Shell cwd was reset to [^\n]*\n?"


def denied_in_batch(text: str) -> bool:
    """Claude Code 2.1.332 renders a PreToolUse denial as "PreToolUse:<Tool> hook error: <reason>"."""
    return text.startswith("PreToolUse:") and " hook " in text[:200]


#: Claude Code's texts for a call it never ran because a parallel sibling failed (PostToolBatch
#: only; anthropics/claude-code#64346, #64247): 2.1.332's, and the one public 2.1.49 transcripts
#: give (`<tool_use_error>Sibling tool call errored</tool_use_error>`).
CANCELLED = ("<tool_use_error>Cancelled: parallel tool call", "<tool_use_error>Sibling tool call errored")


def cancelled_in_batch(text: str) -> bool:
    """Whether a batch result says the call never ran (cancelled with a failing sibling)."""
    return text.startswith(CANCELLED)


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """The shared wire form, the text as written."""
    return base.wire(CAPABILITIES, decision, event, messages.fit(decision.message))


normalise = base.unchanged
