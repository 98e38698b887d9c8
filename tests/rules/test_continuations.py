"""Idle continuations (`rules/continuations.py`): a Stop hook that keeps sending the agent on
while it only restates its answer."""

from __future__ import annotations

import importlib

from rulekit import text_ctx

from loopguard_hook.core import ledger
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.continuations")
ANSWER = "The fix is in parser.py: the tokenizer now keeps the quote, and the tests pass."
RESTATED = "Parser fix done: tokenizer keeps the quote; the tests pass now, in parser.py."


def test_restating_continuations_end_the_turn_at_the_limit() -> None:
    state = ledger.new_session("s", "claude-code", 100.0)
    assert rule.on_text(text_ctx("Stop", state=state, last_assistant_message=ANSWER)) is None
    verdicts = [
        rule.on_text(text_ctx("Stop", state=state, last_assistant_message=RESTATED, stop_hook_active=True)) for _ in range(5)
    ]
    assert verdicts[:4] == [None] * 4
    assert verdicts[4] is not None and (verdicts[4].action, verdicts[4].rule) == (Action.STOP, Rule.TEXT)


def test_new_words_or_a_tool_call_start_the_count_again() -> None:
    state = ledger.new_session("s", "claude-code", 100.0)
    rule.on_text(text_ctx("Stop", state=state, last_assistant_message=ANSWER))
    for n in range(12):
        fresh = " ".join(f"part{n}word{k}" for k in range(8))  # a new chapter: words new to the chain
        message = RESTATED if n % 3 else f"Next: {fresh}."
        assert rule.on_text(text_ctx("Stop", state=state, last_assistant_message=message, stop_hook_active=True)) is None
        if n == 8:
            rule.on_text(text_ctx("PreToolUse", state=state, tool_name="Read"))
