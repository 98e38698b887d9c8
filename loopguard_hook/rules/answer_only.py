"""Answer-only mode: after a loop or budget denial (`answer_only_after_deny`, progress profile),
or an end of turn on a host that cannot end a turn from a tool event (DSH,
`turn_end_fallback = "answer_only"`), every tool call of the rest of the turn is denied; the next
user prompt ends the mode.

The policy step switches the mode on (`engage`, from `core/policy.py`); this rule keeps it. Its
slot is one flag, `Agent.rules["answer_only"]`, present only while the mode is on.
"""

from ..core import messages as msg
from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.verdict import Action, Decision, Rule
from .base import CallContext

NAME = "answer_only"


def answer_only(ctx: CallContext) -> Decision | None:
    """Deny every call while the agent is in answer-only mode."""
    if slot(ctx.agent, NAME):
        return Decision(Action.DENY, Rule.STOP, msg.answer_only_denial(Rule.STOP))
    return None


def engage(agent: Agent) -> None:
    """Deny every further tool call of this agent until the next user prompt."""
    slots(agent)[NAME] = True


def fit(agent: Agent, share: Limits) -> None:
    """A flag: nothing to trim."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction ends the mode."""
    drop_slot(agent, NAME)
