"""A call the permission settings refused, sent again as it was (`refused_again_deny_at`).

Claude Code refuses a call by its permission settings before it runs, in words of its own: a
`permissions.deny` rule, "Permission to use Bash with command <command> has been denied."
(anthropics/claude-code#92398, Claude Code 2.1.2xx), and a call that needs an approval nobody
can give, "Permission to use Write has been denied because Claude Code is running in don't ask
mode." or "… has been auto-denied (prompts unavailable)" (public 2.0-2.1 transcripts; hunt 48
of issue 22), in print mode "This command requires approval" (`claude -p`, 2.1.332). Those
settings answer the same call the same way until the user changes them, and
the user changes them between turns (a prompt follows `/permissions`) or by leaving the mode
(the payload's `permission_mode` says so). The same call sent again in the same turn and mode is
refused again: in the 658 distinct Claude Code transcripts on hand, all three such retries were
(two sessions of hunt 48: a model that re-sent `rm -rf /tmp/x*` a deny rule had refused, between
other attempts at the same removal; a model that re-sent one Write refused in `dontAsk` mode).
Such a retry is a loop whose outcome is known before it runs, so it is denied at PreToolUse
from the first retry on (balanced: `refused_again_deny_at = 2`, the 2nd attempt): the denial
costs nothing the host's own refusal would not, and says what will help instead, to tell the
user what to allow or go on without it. It does not say to reach the same end another way: the
settings are the user's decision.

Only that refusal is followed (`outcome.PERMISSION_REFUSAL`), and only as the host's own answer
to a call it did not run (`ResultContext.unrun`: a PostToolBatch entry for a call whose
PreToolUse was seen and no post event came): a log or a file whose text begins with those words,
read on any host, is no refusal. The user's own "no" in the approval dialog answers one call
(`The user doesn't want to proceed …`), a hook's denial says what its hook says, and Codex's
sandbox refusal is retried with escalated permissions as the same call (`every_call.py`). Calls
are compared by their signature (`Call["sig"]`: arguments as the repeat rule compares them), so
a reworded command is another call: what a deny rule covers beyond the one command is not known
(Claude Code matches sub-commands and prefixes, #92398), and the every-call wall judges those. A
call issued with the refused one (one parallel batch) did not see the refusal and goes ahead.
What may have changed the settings forgets the refusals: a prompt, also one that resumes a turn
the user interrupted (`rules.RESUMES`: `/permissions` fires no prompt of its own), a compaction
(`reset`), and a write tool's call on a settings file that went through (`tools.SETTINGS`, the
user having approved it; a refusal of a call issued with it, in one batch, is forgotten too); a
call in another permission mode than its refusal's goes ahead (the user
left `dontAsk` with Shift+Tab). The seed profiles leave the rule off.

Its slot `Agent.rules["refused_again"]` is `[when a settings file was last written (0: not this
turn), {signature: [refusals, permission mode, when the latest refusal came back]}]`, at most
`MAX_REFUSED` calls, the oldest refusal dropped first.
"""

import re
from typing import Any

from ..core.ledger import Agent, Limits, drop_slot, issued, new_round, slot, slots, trim
from ..core.messages import PREFIX
from ..core.outcome import PERMISSION_REFUSAL, Failure
from ..core.tools import writes_settings
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "refused_again"
#: At most this many refused calls are kept per agent (a wall of many is the every-call rule's).
MAX_REFUSED = 16

#: One refused call: `[refusals, permission mode, when the latest refusal came back]`.
Refused = list[Any]


def _slot(agent: Agent) -> tuple[float, dict[str, Refused] | None]:
    """The slot read leniently (an odd value is none): when a settings file was last written,
    and the table of refused calls."""
    held = slot(agent, NAME)
    if isinstance(held, list) and len(held) == 2 and isinstance(held[0], (int, float)) and isinstance(held[1], dict):
        return float(held[0]), held[1]
    return 0.0, None


def _table(agent: Agent) -> dict[str, Refused] | None:
    return _slot(agent)[1]


def _entry(held: object) -> tuple[int, str | None, float] | None:
    if isinstance(held, list) and len(held) == 3 and isinstance(held[0], int) and isinstance(held[2], (int, float)):
        return held[0], held[1] if isinstance(held[1], str) else None, float(held[2])
    return None


def on_result(ctx: ResultContext) -> Decision | None:
    """Remember a call the permission settings refused (a new round of refusal counts once);
    forget them all when a write to a settings file went through."""
    if not ctx.config.refused_again_deny_at:
        return None
    if ctx.outcome.failure == Failure.NONE:
        if writes_settings(ctx.tool, ctx.tool_input, ctx.config):
            slots(ctx.agent)[NAME] = [ctx.agent["updated"], {}]  # refusals before it are forgotten
        return None
    if not ctx.unrun or not re.match(PERMISSION_REFUSAL, ctx.error_text[:2000].lstrip()):
        return None  # only the host's own answer to a call it did not run: a log may quote one
    written, table = _slot(ctx.agent)
    if written and not new_round(issued(ctx.call), written):
        return None  # issued with the write (one batch): its refusal came before the settings changed
    if table is None:
        table = {}
        slots(ctx.agent)[NAME] = [written, table]
    sig = ctx.call["sig"][:16]
    held = _entry(table.get(sig))
    if held is None or held[1] != ctx.permission_mode:
        table[sig] = [1, ctx.permission_mode, ctx.agent["updated"]]
    elif new_round(issued(ctx.call), held[2]):  # sent after its refusal came back
        table[sig] = [held[0] + 1, held[1], ctx.agent["updated"]]
    trim(table, MAX_REFUSED, lambda s: _when(table[s]))
    return None


def _when(held: object) -> float:
    """When an entry's latest refusal came back; an odd entry sorts first, so it is dropped first."""
    entry = _entry(held)
    return entry[2] if entry is not None else float("-inf")


def on_call(ctx: CallContext) -> Decision | None:
    """Deny at PreToolUse a call that the permission settings already refused in this turn and
    mode, sent again after that refusal came back, from its `refused_again_deny_at`th attempt."""
    deny_at = ctx.config.refused_again_deny_at
    table = _table(ctx.agent)
    if not deny_at or table is None or not ctx.counted or ctx.sig is None or ctx.event.event != "PreToolUse":
        return None
    sig = ctx.call["sig"][:16]
    held = _entry(table.get(sig))
    if held is None or held[1] != ctx.event.permission_mode or not new_round(issued(ctx.call), held[2]):
        return None
    if held[0] + 1 < deny_at:
        return None
    refusals = held[0]  # the host's: the guard's own denials of it are not counted
    return Decision(
        Action.DENY, Rule.REFUSED_AGAIN, denial_text(ctx.tool, refusals), advice=advice_text(ctx.tool, refusals),
        times=refusals + 1, tool=ctx.tool,
    )


def fit(agent: Agent, share: Limits) -> None:
    """At most `MAX_REFUSED` calls per agent, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt (the user may have changed the settings) or a compaction: forget the refusals."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def _refused(tool: str, refusals: int) -> str:
    times = "once" if refusals == 1 else f"{refusals} times"
    return (
        f"the permission settings refused this same call {times} in this turn and answer it the same way until the "
        "user changes them"
    )


_WAY_OUT = (
    "If the task needs it, tell the user what to allow and why, and end your turn; otherwise go on with what it "
    "does not block."
)


def denial_text(tool: str, refusals: int) -> str:
    """`REPEAT_TOOL_BLOCKED` for a call the permission settings refused `refusals` times this turn."""
    return (
        f"REPEAT_TOOL_BLOCKED: this {tool[:64]} call was not run: {_refused(tool, refusals)} (loop guard policy, not "
        f"a tool failure). Sending it again will not help. {_WAY_OUT} A new user message lifts this."
    )


def advice_text(tool: str, refusals: int) -> str:
    """The denial's reminder form, for `advise` mode (the call goes ahead)."""
    return f"[{PREFIX}] This {tool[:64]} call is sent again as it was: {_refused(tool, refusals)}. {_WAY_OUT}"


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("refused_again_denial", "REPEAT_TOOL_BLOCKED: this ", " call was not run: the permission settings refused"),
    ("refused_again_advice", f"[{PREFIX}] This ", " call is sent again as it was: the permission settings refused"),
)
