"""What the guard answers: actions, rule codes, the `Decision` value and how verdicts combine.

Pure values and pure functions; shared by the engine, the rules and the host renderers. The mode
and the host's capabilities are applied to a verdict in `policy.py` alone.
"""

import enum
from typing import NamedTuple


class Action(enum.IntEnum):
    """What the hook answers, in rising severity."""

    ALLOW = 0
    REMIND = 1
    DENY = 2
    STOP = 3


class Rule(enum.StrEnum):
    """Rule codes, written to the audit log and quoted in `status`."""

    REPEAT = "LOOP_GUARD_REPEAT"
    END_TURN = "LOOP_GUARD_END_TURN"
    SLOW_REPEAT = "LOOP_GUARD_SLOW_REPEAT"
    SAME_PATH = "LOOP_GUARD_SAME_PATH"
    LIMIT = "LOOP_GUARD_LIMIT"
    PROGRESS_LIMIT = "LOOP_GUARD_PROGRESS_LIMIT"
    STOP = "LOOP_GUARD_STOP"
    DUPLICATE = "LOOP_GUARD_DUPLICATE"
    SAME_ERROR = "LOOP_GUARD_SAME_ERROR"
    SAME_RESULT = "LOOP_GUARD_SAME_RESULT"
    SAME_ANSWER = "LOOP_GUARD_SAME_ANSWER"
    TEXT = "LOOP_GUARD_TEXT"
    POLL = "LOOP_GUARD_POLL"
    TARGET = "LOOP_GUARD_TARGET"
    WALL = "LOOP_GUARD_WALL"
    HUNG = "LOOP_GUARD_HUNG"
    UNMOVED = "LOOP_GUARD_UNMOVED"
    NO_OP = "LOOP_GUARD_NO_OP"
    CUT_INPUT = "LOOP_GUARD_CUT_INPUT"
    REFUSED_AGAIN = "LOOP_GUARD_REFUSED_AGAIN"
    SAME_PLAN = "LOOP_GUARD_SAME_PLAN"


#: Denials after which the progress profile switches the turn to answer-only mode.
LOOP_RULES = frozenset(
    {Rule.REPEAT, Rule.END_TURN, Rule.SAME_PATH, Rule.LIMIT, Rule.PROGRESS_LIMIT, Rule.SAME_RESULT}
)


class Decision(NamedTuple):
    """The guard's answer to one event.

    `action` is what goes on the wire after the mode is applied; `intended` is what the rules
    decided (they differ under `advise` and `observe`). `message` is the model-facing text,
    `stop_reason` the Claude Code `stopReason`, `system_message` a user-only notice. `advice` is
    the text used instead of `message` when a denial is turned into a reminder (`advise` mode, or
    a call that already ran): a denial's text would tell the model the call was not run. Once
    `policy.with_mode` has made that swap, `advice` holds the stronger text instead.
    """

    action: Action = Action.ALLOW
    rule: str = ""
    message: str = ""
    times: int = 0
    tool: str | None = None
    summary: str = ""
    intended: Action = Action.ALLOW
    stop_reason: str = ""
    system_message: str = ""
    advice: str = ""


ALLOW = Decision()


def strongest(decisions: list[Decision]) -> Decision:
    """The most severe verdict, the first listed on a tie; `ALLOW` for none."""
    best = decisions[0] if decisions else ALLOW
    for decision in decisions:
        if decision.action > best.action:
            best = decision
    return best


def merge(decisions: list[Decision]) -> Decision:
    """Several verdicts for one answer: the strongest, carrying every reminder text; an end of
    turn carries none (its text says what to tell the user: another rule's "change the approach"
    would contradict it, and there is no next call to make)."""
    decisions = [d for d in decisions if d.intended is not Action.ALLOW or d.rule]
    if not decisions:
        return ALLOW
    best = max(decisions, key=lambda d: (d.action, d.intended))
    if Action.STOP in (best.action, best.intended):
        return best
    texts = [d.message for d in decisions if d.action is Action.REMIND and d.message and d is not best]
    if texts and best.message:
        best = best._replace(message="\n\n".join([best.message, *texts]))
    elif texts:
        best = best._replace(message="\n\n".join(texts))
    return best
