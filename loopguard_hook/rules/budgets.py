"""The progress profile's budgets: too many calls since the last new evidence.

- `max_bookkeeping_calls_since_progress`: planning and todo calls (`bookkeeping_tools`), tracked
  or not (`LOOP_GUARD_PROGRESS_LIMIT`); of Claude Code's task tools, which change one task a
  call, only a call made again with the same arguments, or past the first 64 distinct ones
  (`progress.TASK_TOOLS`: a team's plan is built one call per task, dependency and owner; the
  progress profile counts every call, as its seed);
- `max_calls_since_progress`: tracked calls of any signature (`LOOP_GUARD_LIMIT`).

Both count from the shared progress (`core/progress.py`: `Agent.bookkeeping`, `Agent.since`),
which the context carries as values. No slot of its own.
"""

from ..core.tools import matches
from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def bookkeeping_budget(ctx: CallContext) -> Decision | None:
    """Deny a bookkeeping call past its budget."""
    cap = ctx.config.max_bookkeeping_calls_since_progress
    spent = ctx.bookkeeping
    if cap and spent > cap and matches(ctx.tool, ctx.config.bookkeeping_tools):
        return Decision(Action.DENY, Rule.PROGRESS_LIMIT, limit_denial(Rule.PROGRESS_LIMIT, spent, cap, True), times=spent)
    return None


def call_budget(ctx: CallContext) -> Decision | None:
    """Deny a tracked call past the budget of calls since the last new evidence."""
    cap = ctx.config.max_calls_since_progress
    since = ctx.since
    if cap and ctx.tracked and since > cap:
        return Decision(Action.DENY, Rule.LIMIT, limit_denial(Rule.LIMIT, since, cap, False), times=since)
    return None


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def limit_denial(code: str, count: int, limit: int, bookkeeping: bool) -> str:
    """The progress profile's budgets: too many calls since the last new result."""
    what = "planning/bookkeeping calls" if bookkeeping else "tool calls"
    return (
        f"{code}: {count} {what} since the last call that produced a new result "
        f"(limit {limit}; loop guard policy, not a tool failure). Stop and take stock: summarise "
        "what you have found, change the approach, or answer the user"
    )


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("limit_denial", "", " since the last call that produced a new result (limit "),
)
