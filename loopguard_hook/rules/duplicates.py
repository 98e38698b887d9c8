"""Parallel duplicates: an identical call issued in the same batch as one not yet answered.

The model could not have seen the twin's result, so the call is no repeat: under
`parallel_duplicates = "count_once"` it is let through and counted once, under `"deny"` it is
denied (`LOOP_GUARD_DUPLICATE`); `"count"` counts it like any other call. Which calls are twins
is part of the shared count (`progress.is_twin`): a twin moves no counter. Calls the host
rejected before they ran (Claude Code's validation, seen first by `PostToolBatch`) cannot be
denied, but identical ones of one reply are twins too under `"count_once"`
(`progress._rejected_twin`): one reply is one round. No slot of its own.
"""

from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def on_call(ctx: CallContext) -> Decision | None:
    """A twin is denied (`"deny"`) or let through under the rule's name (`"count_once"`)."""
    if not ctx.call.get("duplicate"):
        return None
    if ctx.config.parallel_duplicates == "deny":
        return Decision(Action.DENY, Rule.DUPLICATE, duplicate_denial(Rule.DUPLICATE, ctx.tool))
    return Decision(Action.ALLOW, Rule.DUPLICATE)


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def duplicate_denial(code: str, tool: str) -> str:
    """An identical call issued in the same batch as one still running."""
    return (
        f"{code}: an identical {tool} call is already running in this batch, so this duplicate "
        "was not run. Use the result of the first one"
    )


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("duplicate_denial", "", " call is already running in this batch"),
)
