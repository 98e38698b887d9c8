"""Answer-only mode: after a loop or budget denial (`answer_only_after_deny`, progress profile),
or an end of turn on a host that cannot end a turn from a tool event (DSH,
`turn_end_fallback = "answer_only"`), every tool call of the rest of the turn is denied; the next
user prompt ends the mode.

The policy step switches the mode on (`engage`, from `core/policy.py`); this rule keeps it. Its
slot is one flag, `Agent.rules["answer_only"]`, present only while the mode is on: `True`, or
`IGNORED` once the agent called a tool all the same. On a host that fires a UserPromptSubmit
before each tool continuation and ends the turn when it is blocked (Qwen Code), the policy step
ends the turn there once the mode was ignored (`policy.continuation`).
"""

from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.messages import PREFIX, WHY_HINT
from ..core.verdict import Action, Decision, Rule
from .base import CallContext

NAME = "answer_only"
#: The slot's value once a tool was called in answer-only mode.
IGNORED = "ignored"


def on_call(ctx: CallContext) -> Decision | None:
    """Deny every call while the agent is in answer-only mode (and note that it was ignored)."""
    if slot(ctx.agent, NAME):
        slots(ctx.agent)[NAME] = IGNORED
        return Decision(Action.DENY, Rule.STOP, answer_only_denial(Rule.STOP))
    return None


def ignored(agent: Agent) -> bool:
    """Whether the agent called a tool after answer-only mode began."""
    return slot(agent, NAME) == IGNORED


def engage(agent: Agent) -> None:
    """Deny every further tool call of this agent until the next user prompt. Engaged again by
    a call made in the mode (another rule's end of turn outranks the mode's own denial), it
    stays `IGNORED`: the call was made all the same."""
    if not slot(agent, NAME):
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


def paused_turn_ended() -> str:
    """Why the turn ended (the user reads it where the host shows a blocked prompt): the agent
    went on calling tools in answer-only mode (Qwen Code, at its next tool continuation)."""
    return (
        f"{PREFIX} ended the turn: tool calls were paused after a loop and the agent kept calling "
        f"tools. Send a new message to continue. {WHY_HINT}"
    )


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("answer_only_denial", "", ": tool calls are paused for the rest of this turn"),
    ("paused_turn_ended", f"{PREFIX} ended the turn: tool calls were paused", ""),
)
