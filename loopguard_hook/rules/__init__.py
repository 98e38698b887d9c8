"""The detection rules, one module each, listed here by hand (all follow `base.Rule`).

`ON_CALL` runs on every counted attempt, in this order; the most severe verdict wins, the first
listed on a tie. `ON_RESULT` runs on each tracked call's result, `ON_TEXT` on the events that
carry or deliver assistant text. Profiles are data (`config.py`): they set the thresholds these
rules read, and a threshold of 0 turns a rule off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .answer_only import answer_only
from .base import CallContext, ResultContext, TextContext
from .budgets import bookkeeping_budget, call_budget
from .continuations import idle_continuations
from .duplicates import duplicate
from .repeat import repeat
from .same_answer import same_answer
from .same_error import same_error
from .same_path import same_path
from .same_result import same_result, same_result_call
from .text_loops import text_loops
from .walls import same_error_call

if TYPE_CHECKING:
    from .base import Rule

ON_CALL: tuple[Rule[CallContext], ...] = (
    answer_only, bookkeeping_budget, duplicate, repeat, same_result_call, same_path, same_error_call, call_budget
)
ON_RESULT: tuple[Rule[ResultContext], ...] = (same_error, same_result, same_answer)
ON_TEXT: tuple[Rule[TextContext], ...] = (text_loops, idle_continuations)

__all__ = ["ON_CALL", "ON_RESULT", "ON_TEXT", "CallContext", "ResultContext", "TextContext"]
