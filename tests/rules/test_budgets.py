"""The progress profile's budgets (`rules/budgets.py`): calls and bookkeeping calls since the
last new evidence, read from the shared count."""

from __future__ import annotations

import importlib

from rulekit import call_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.budgets")
PROGRESS = Config(**PROFILE_DEFAULTS["progress"])


def test_a_tracked_call_past_the_budget_is_denied() -> None:
    assert rule.call_budget(call_ctx(config=PROGRESS, since=64)) is None
    verdict = rule.call_budget(call_ctx(config=PROGRESS, since=65))
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.LIMIT)
    assert "65 tool calls since the last call that produced a new result (limit 64" in verdict.message


def test_an_untracked_call_never_spends_the_budget() -> None:
    assert rule.call_budget(call_ctx(config=PROGRESS, since=500, tracked=False, counted=False)) is None


def test_bookkeeping_past_its_budget_is_denied_only_for_bookkeeping_tools() -> None:
    todo = {"todos": [{"content": "x"}]}
    verdict = rule.bookkeeping_budget(call_ctx("TodoWrite", todo, config=PROGRESS, bookkeeping=17))
    assert verdict is not None and verdict.rule == Rule.PROGRESS_LIMIT and "planning/bookkeeping" in verdict.message
    assert rule.bookkeeping_budget(call_ctx("TodoWrite", todo, config=PROGRESS, bookkeeping=16)) is None
    assert rule.bookkeeping_budget(call_ctx("Read", config=PROGRESS, bookkeeping=17)) is None


def test_a_budget_of_zero_is_off() -> None:
    off = PROGRESS._replace(max_calls_since_progress=0, max_bookkeeping_calls_since_progress=0)
    assert rule.call_budget(call_ctx(config=off, since=10_000)) is None
    assert rule.bookkeeping_budget(call_ctx("TodoWrite", {}, config=off, bookkeeping=10_000)) is None
