"""The detection rules, one module each, listed here by hand (`base.py` says what a rule is).

`ON_CALL` runs on every counted attempt, in this order; the most severe verdict wins, the first
listed on a tie. `ON_RESULT` runs on each tracked call's result, `ON_TEXT` on the events that
carry or deliver assistant text. `SLOTS` are the rule modules that keep a table of their own in
each agent's ledger (`base.SlotRule`): `fit` and `reset` pass a budget or a reset on to each.
Profiles are data (`config/settings.py`): they set the thresholds these rules read, and a
threshold of 0 turns a rule off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import (
    answer_only,
    budgets,
    continuations,
    cut_input,
    duplicates,
    every_call,
    no_op,
    polling,
    read_first,
    refused_again,
    repeat,
    same_answer,
    same_error,
    same_path,
    same_plan,
    same_result,
    target,
    text_loops,
    unhooked,
    unmoved,
)
from .base import CallContext, ResultContext, TextContext

if TYPE_CHECKING:
    from ..core.ledger import Agent, Limits
    from .base import Rule, SlotRule

ON_CALL: tuple[Rule[CallContext], ...] = (
    answer_only.on_call,
    budgets.bookkeeping_budget,
    duplicates.on_call,
    repeat.on_call,
    same_result.on_call,
    same_path.on_call,
    same_error.on_call,
    same_answer.on_call,
    target.on_call,
    read_first.on_call,
    every_call.on_call,
    refused_again.on_call,
    polling.on_call,
    unhooked.on_call,
    unmoved.on_call,
    no_op.on_call,
    same_plan.on_call,
    budgets.call_budget,
)
ON_RESULT: tuple[Rule[ResultContext], ...] = (
    cut_input.on_result, same_path.on_result, same_error.on_result, same_result.on_result, same_answer.on_result,
    polling.on_result, target.on_result, read_first.on_result,
    every_call.on_result, refused_again.on_result, unmoved.on_result, unhooked.on_result, repeat.on_result,
)
ON_TEXT: tuple[Rule[TextContext], ...] = (text_loops.on_text, continuations.on_text)
SLOTS: tuple[SlotRule, ...] = (
    answer_only, repeat, same_result, same_path, same_error, same_answer, polling, target, every_call, unhooked, unmoved, no_op,
    cut_input, refused_again, same_plan, read_first,
)
#: The rules whose tables hold what the user may change before saying to go on with a turn they
#: interrupted (`policy.resumes`: the turn's counts go on, these tables are forgotten): the
#: permission refusals of the refused-again rule (`/permissions` fires no prompt of its own).
RESUMES: tuple[SlotRule, ...] = (refused_again,)
#: Every rule's text templates, for `messages.variant_of`: a rule whose texts begin like a more
#: general template of another is listed before it (the same-error wall's denials before the
#: repeat rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    *refused_again.VARIANTS,
    *no_op.VARIANTS,
    *same_plan.VARIANTS,
    *cut_input.VARIANTS,
    *polling.VARIANTS,
    *target.VARIANTS,
    *read_first.VARIANTS,
    *every_call.VARIANTS,
    *unhooked.VARIANTS,
    *unmoved.VARIANTS,
    *same_answer.VARIANTS,
    *same_error.VARIANTS,
    *continuations.VARIANTS,
    *repeat.VARIANTS,
    *same_result.VARIANTS,
    *same_path.VARIANTS,
    *answer_only.VARIANTS,
    *duplicates.VARIANTS,
    *budgets.VARIANTS,
    *text_loops.VARIANTS,
)


def fit(agent: Agent, share: Limits) -> None:
    """Trim every rule's table of the agent to its share of the session's budget."""
    for rule in SLOTS:
        rule.fit(agent, share)


def reset(agent: Agent, why: str) -> None:
    """Pass a reset (`"prompt"` or `"compaction"`) on to every rule's table of the agent."""
    for rule in SLOTS:
        rule.reset(agent, why)


def resume(agent: Agent) -> None:
    """A prompt that resumes an interrupted turn: reset the tables of `RESUMES` as a prompt would."""
    for rule in RESUMES:
        rule.reset(agent, "prompt")


__all__ = [
    "ON_CALL", "ON_RESULT", "ON_TEXT", "RESUMES", "SLOTS", "VARIANTS", "CallContext", "ResultContext", "TextContext", "fit",
    "reset", "resume",
]
