"""Answer-only mode: after a loop or budget denial (`answer_only_after_deny`, progress profile),
every tool call of the rest of the turn is denied; the next user prompt ends the mode.

The engine switches the mode on (`LOOP_RULES` denials, `engine._finish_pre`); this rule keeps it.
"""

from ..core import messages as msg
from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def answer_only(ctx: CallContext) -> Decision | None:
    """Deny every call while the agent is in answer-only mode."""
    if ctx.agent["answer_only"]:
        return Decision(Action.DENY, Rule.STOP, msg.answer_only_denial(Rule.STOP))
    return None
