"""The answer-only rule (`rules/answer_only.py`): its flag, its denial, its reset."""

from __future__ import annotations

import importlib

from rulekit import agent, call_ctx

from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.answer_only")


def test_it_denies_every_call_once_engaged_and_nothing_before() -> None:
    entry = agent()
    assert rule.on_call(call_ctx(entry=entry)) is None
    rule.engage(entry)
    verdict = rule.on_call(call_ctx("Bash", {"command": "ls"}, entry=entry))
    assert verdict is not None and verdict.action is Action.DENY and verdict.rule == Rule.STOP
    assert "paused for the rest of this turn" in verdict.message


def test_a_prompt_or_a_compaction_ends_it_and_leaves_no_empty_slot() -> None:
    for why in ("prompt", "compaction"):
        entry = agent()
        rule.engage(entry)
        rule.reset(entry, why)
        assert rule.on_call(call_ctx(entry=entry)) is None
        assert "rules" not in entry
