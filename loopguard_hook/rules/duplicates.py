"""Parallel duplicates: an identical call issued in the same batch as one not yet answered.

The model could not have seen the twin's result, so the call is no repeat: under
`parallel_duplicates = "count_once"` it is let through and counted once, under `"deny"` it is
denied (`LOOP_GUARD_DUPLICATE`); `"count"` counts it like any other call. Which calls are twins
is part of the shared count (`progress.is_twin`): a twin moves no counter. No slot of its own.
"""

from ..core import messages as msg
from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def duplicate(ctx: CallContext) -> Decision | None:
    """A twin is denied (`"deny"`) or let through under the rule's name (`"count_once"`)."""
    if not ctx.call.get("duplicate"):
        return None
    if ctx.config.parallel_duplicates == "deny":
        return Decision(Action.DENY, Rule.DUPLICATE, msg.duplicate_denial(Rule.DUPLICATE, ctx.tool))
    return Decision(Action.ALLOW, Rule.DUPLICATE)
