"""Answer-only mode: after a loop or budget denial (`answer_only_after_deny`, progress profile),
or an end of turn on a host that cannot end a turn from a tool event (DSH,
`turn_end_fallback = "answer_only"`), every tool call of the rest of the turn is denied; the next
user prompt ends the mode.

The policy step switches the mode on (`engage`, from `core/policy.py`); this rule keeps it. Its
slot is one flag, `Agent.rules["answer_only"]`, present only while the mode is on.
"""

from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.verdict import Action, Decision, Rule
from .base import CallContext

NAME = "answer_only"


def on_call(ctx: CallContext) -> Decision | None:
    """Deny every call while the agent is in answer-only mode."""
    if slot(ctx.agent, NAME):
        return Decision(Action.DENY, Rule.STOP, answer_only_denial(Rule.STOP))
    return None


def engage(agent: Agent) -> None:
    """Deny every further tool call of this agent until the next user prompt."""
    slots(agent)[NAME] = True


def fit(agent: Agent, share: Limits) -> None:
    """A flag: nothing to trim."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction ends the mode."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def answer_only_denial(code: str) -> str:
    """The progress profile's answer-only mode after a loop or budget denial."""
    return (
        f"{code}: tool calls are paused for the rest of this turn because a loop was detected. "
        "Answer the user now in plain text with what you know; the next user message enables "
        "tools again"
    )


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("answer_only_denial", "", ": tool calls are paused for the rest of this turn"),
)
