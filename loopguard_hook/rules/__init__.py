"""The detection rules, one module each, listed here by hand (all follow `base.Rule`).

`ON_CALL` runs on every counted attempt, in this order; the most severe verdict wins, the first
listed on a tie. `ON_RESULT` runs on each tracked call's result, `ON_TEXT` on the events that
carry or deliver assistant text. `SLOTS` are the rule modules that keep a table of their own in
each agent's ledger (`base.SlotRule`): `fit` and `reset` pass a budget or a reset on to each.
Profiles are data (`config/settings.py`): they set the thresholds these rules read, and a
threshold of 0 turns a rule off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import answer_only as _answer_only
from . import repeat as _repeat
from . import same_answer as _same_answer
from . import same_error as _same_error
from . import same_path as _same_path
from . import same_result as _same_result
from .answer_only import answer_only
from .base import CallContext, ResultContext, TextContext
from .budgets import bookkeeping_budget, call_budget
from .continuations import idle_continuations
from .duplicates import duplicate
from .repeat import repeat
from .same_answer import same_answer
from .same_error import same_error, same_error_call
from .same_path import forget_reads, same_path
from .same_result import same_result, same_result_call
from .text_loops import text_loops

if TYPE_CHECKING:
    from ..core.ledger import Agent, Limits
    from .base import Rule, SlotRule

ON_CALL: tuple[Rule[CallContext], ...] = (
    answer_only, bookkeeping_budget, duplicate, repeat, same_result_call, same_path, same_error_call, call_budget
)
ON_RESULT: tuple[Rule[ResultContext], ...] = (forget_reads, same_error, same_result, same_answer)
ON_TEXT: tuple[Rule[TextContext], ...] = (text_loops, idle_continuations)
SLOTS: tuple[SlotRule, ...] = (_answer_only, _repeat, _same_result, _same_path, _same_error, _same_answer)


def fit(agent: Agent, share: Limits) -> None:
    """Trim every rule's table of the agent to its share of the session's budget."""
    for rule in SLOTS:
        rule.fit(agent, share)


def reset(agent: Agent, why: str) -> None:
    """Pass a reset (`"prompt"` or `"compaction"`) on to every rule's table of the agent."""
    for rule in SLOTS:
        rule.reset(agent, why)


__all__ = ["ON_CALL", "ON_RESULT", "ON_TEXT", "SLOTS", "CallContext", "ResultContext", "TextContext", "fit", "reset"]
