"""Codex 0.171.0.

Facts (research/codex-hooks.md, verified on 0.171.0):

- recognised by `turn_id` (only Codex sends it, payload schema) or, on the thread-scoped events
  that lack it (SessionStart, SessionEnd), by a rollout transcript path
  (`…/rollout-<time>-<id>.jsonl`);
- Bash output arrives as plain text with no exit code (openai/codex#34289), so a failure is
  inferred from `Exit code: N` lines and the texts shells print (`outcome.classify_response`);
- `additionalContext` reaches the model as a developer message; a PreToolUse deny is shown as
  `Command blocked by PreToolUse hook: <reason>. Command: <cmd>`, so reasons end without a period;
- the answer is rejected (and the tool runs) on any unknown field, and on `continue`/`stopReason`
  for PreToolUse; PostToolUse `continue: false` does not end the turn; UserPromptSubmit and
  Stop `continue: false` do;
- no PostToolUseFailure or PostToolBatch is ever sent (a forced one is answered with nothing);
  a subagent's text is in the rollout;
- `write_stdin` (polling a command left running) fires no hook; the rollout shows it (§6, §8).
"""

from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import HANDLED_EVENTS, Client
from ..core.host import Capabilities
from ..core.outcome import Outcome, outcome_of_response
from ..core.verdict import Action, Decision
from . import base, claude_code

CLIENT = Client.CODEX

#: The events Codex defines of those the guard handles: it has no PostToolUseFailure and no
#: PostToolBatch (no output schema either), so it never sends them.
SENDS = HANDLED_EVENTS - {"PostToolUseFailure", "PostToolBatch"}

CAPABILITIES = Capabilities(
    context=frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart"}),
    deny=frozenset({"PreToolUse"}),
    end_turn=frozenset({"UserPromptSubmit", "Stop", "SubagentStop"}),
    block=frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"}),
    system_message=SENDS,
    sends=SENDS,
    unhooked_polls=True,
    cwd_is_workdir=True,
)


def recognises(data: Mapping[str, Any]) -> bool:
    """`turn_id`, or a rollout transcript path on the events that carry no `turn_id`."""
    if "turn_id" in data:
        return True
    path = data.get("transcript_path")
    return isinstance(path, str) and "/rollout-" in path.replace("\\", "/")


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """A result as the shared rules read it (`Exit code: N` and shell failure texts included)."""
    return outcome_of_response(tool, response, mutation=mutation, now=now)


#: Codex sends no PostToolBatch; a forced one is read as Claude Code writes it.
denied_in_batch = claude_code.denied_in_batch
cancelled_in_batch = claude_code.cancelled_in_batch


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """The shared wire form; Codex appends `. Command: <cmd>` to a denial's reason, so a denial
    has no final period (a reminder, `additionalContext`, keeps its own). Nothing on an event Codex
    does not define (`base.wire`: a PostToolBatch registered by hand)."""
    text = messages.fit(decision.message).rstrip()
    if decision.action is not Action.REMIND and event in CAPABILITIES.deny:
        text = text.rstrip(".")
    return base.wire(CAPABILITIES, decision, event, text)


normalise = base.unchanged
