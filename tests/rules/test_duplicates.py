"""Parallel duplicates (`rules/duplicates.py`): a twin (`progress.is_twin`) denied or counted once."""

from __future__ import annotations

import importlib

from rulekit import call_ctx

from loopguard_hook.config.settings import Config
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.duplicates")


def _twin() -> dict[str, object]:
    return {"sig": "s", "t": 100.0, "seq": 2, "phase": "pre", "duplicate": True}


def test_a_twin_is_denied_under_deny() -> None:
    verdict = rule.on_call(call_ctx(call=_twin(), config=Config(parallel_duplicates="deny"), tracked=False, counted=False))  # type: ignore[arg-type]
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.DUPLICATE)
    assert "already running in this batch" in verdict.message


def test_a_twin_goes_through_under_count_once_but_is_named() -> None:
    verdict = rule.on_call(call_ctx(call=_twin(), tracked=False, counted=False))  # type: ignore[arg-type]
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.ALLOW, Rule.DUPLICATE)


def test_a_call_that_is_no_twin_is_not_judged() -> None:
    assert rule.on_call(call_ctx(config=Config(parallel_duplicates="deny"))) is None
