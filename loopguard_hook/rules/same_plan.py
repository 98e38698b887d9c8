"""The same plan sent again: a plan or todo call made with the input of the agent's call just
before it, again and again (`same_plan_deny_at`).

A plan tool (`bookkeeping_tools`: Claude Code's TodoWrite, TaskCreate and TaskUpdate, Codex's
update_plan, Gemini CLI's write_todos) sets the agent's list; sent again as it was, it changes
nothing. An agent that has nothing left it can do sometimes goes on calling it, reply after reply,
each time telling the user the same thing (corpus transcript 5aab28de, Claude Code: six TodoWrite
calls in six replies with no other call between, the last three the same list). These calls are
not tracked, so the repeat rule does not count them (a plan is updated many times in a turn),
and the progress profile's budget counts such calls, not their sameness.

The rule counts, per agent, the plan calls in a row made with the same tool and the same input
(their signature: `CallContext.key`): any other call of the agent ends the run, and so do a prompt
and a compaction (`reset`). The call that brings the run to `same_plan_deny_at` (balanced: 3) calls
is denied, and so is each one after it, with the way out: do the next step of the plan, or tell the
user what is left. There is no reminder before: a list sent twice in a row is ordinary (sent again
after a long explanation to the user: corpus transcript 4530697c), and a third time it is already a
call that does nothing. Of the 127 Claude Code transcripts on hand that use plan tools and 324
Codex rollouts (of them, 113 sessions nobody here had read, with 845 plan calls), only that loop
sends one list three times in a row, and one other session twice. A call whose arguments the host
does not send is never counted (its sameness cannot be told). The seed profiles leave the rule off.

Its slot `Agent.rules["same_plan"]` is `[the run's signature, its calls]` (absent: no run).
"""

from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.messages import PREFIX
from ..core.tools import matches
from ..core.verdict import Action, Decision, Rule
from .base import CallContext

NAME = "same_plan"


def _run(held: object) -> tuple[str, int]:
    """The slot read leniently (an odd value is no run): `(signature, calls)`."""
    if isinstance(held, list) and len(held) == 2 and isinstance(held[0], str) and type(held[1]) is int:
        return held[0], held[1]
    return "", 0


def on_call(ctx: CallContext) -> Decision | None:
    """Count a plan call sent with the input of the call before it; deny from `same_plan_deny_at` on."""
    deny_at = ctx.config.same_plan_deny_at
    if not deny_at:
        return None
    if not matches(ctx.tool, ctx.config.bookkeeping_tools) or not ctx.caps.has_arguments(ctx.tool):
        if slot(ctx.agent, NAME) is not None:
            drop_slot(ctx.agent, NAME)  # another call: the run is over
        return None
    sig, count = _run(slot(ctx.agent, NAME))
    count = count + 1 if sig == ctx.key.digest else 1
    slots(ctx.agent)[NAME] = [ctx.key.digest, count]
    if count < deny_at:
        return None
    return Decision(Action.DENY, Rule.SAME_PLAN, denial_text(count), times=count, tool=ctx.tool, advice=reminder_text(count))


def fit(agent: Agent, share: Limits) -> None:
    """One signature and a count per agent, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: the run is over."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def denial_text(count: int) -> str:
    """`REPEAT_TOOL_BLOCKED` for the plan call sent as it was, the `same_plan_deny_at`th in a row on."""
    return (
        f"REPEAT_TOOL_BLOCKED: this plan update was not made: it is the same list you sent in the calls just "
        f"before it ({count} in a row), so it would change nothing (loop guard policy, not a tool failure). "
        "The plan is already recorded. Do the next step it lists; or, if nothing can be done now, stop calling "
        "tools and tell the user what is left and why. Any other call or a new user message lifts this"
    )


def reminder_text(count: int) -> str:
    """The same, as a reminder: a denial's advice (`advise` mode, or a call that already ran)."""
    return (
        f"[{PREFIX}] You sent the same plan {count} times in a row: it changes nothing. Do the next step it "
        "lists; or, if nothing can be done now, stop calling tools and tell the user what is left and why."
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("same_plan_denial", "REPEAT_TOOL_BLOCKED: this plan update was not made", ""),
    ("same_plan_reminder", f"[{PREFIX}] You sent the same plan ", ""),
)
