"""The same plan sent again (`rules/same_plan.py`): plan calls in a row with the same input."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from rulekit import agent, call_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import ledger
from loopguard_hook.core.host import Capabilities
from loopguard_hook.core.verdict import Action, Rule
from loopguard_hook.hosts import claude_code

rule = importlib.import_module("loopguard_hook.rules.same_plan")

#: The shape of the corpus loop (transcript 5aab28de): the list reworded twice, then sent as it was.
STUCK = {"todos": [{"content": "Apply the redesign", "activeForm": "Applying the redesign", "status": "in_progress"}]}
DONE = {"todos": [{"content": "Apply the redesign", "activeForm": "Applying the redesign", "status": "completed"}]}


def _calls(
    calls: list[tuple[str, Any]], config: Config | None = None, entry: ledger.Agent | None = None,
    caps: Capabilities = claude_code.CAPABILITIES,
) -> list[Any]:
    entry = agent() if entry is None else entry
    return [
        rule.on_call(call_ctx(tool, tool_input, entry=entry, now=100.0 + i, config=config, caps=caps, tracked=False))
        for i, (tool, tool_input) in enumerate(calls)
    ]


def test_the_third_same_plan_in_a_row_is_denied_and_every_one_after_it() -> None:
    got = _calls([("TodoWrite", STUCK)] * 5)
    assert got[:2] == [None, None]
    assert [(v.action, v.rule, v.times) for v in got[2:]] == [
        (Action.DENY, Rule.SAME_PLAN, 3), (Action.DENY, Rule.SAME_PLAN, 4), (Action.DENY, Rule.SAME_PLAN, 5),
    ]
    assert "same list you sent in the calls just before it (3 in a row)" in got[2].message
    assert "Do the next step it lists" in got[2].message and "tell the user" in got[2].message
    assert "same plan 3 times in a row" in got[2].advice  # what `advise` mode, or a call that ran, delivers


def test_a_plan_sent_twice_is_ordinary() -> None:
    # a list sent again after a long explanation to the user (corpus transcript 4530697c)
    assert _calls([("TodoWrite", STUCK), ("TodoWrite", STUCK), ("Write", {"file_path": "/p/a.py", "content": "x"})]) == [None] * 3


def test_a_changed_plan_starts_the_run_again() -> None:
    assert _calls([("TodoWrite", STUCK), ("TodoWrite", STUCK), ("TodoWrite", DONE), ("TodoWrite", DONE)]) == [None] * 4
    assert _calls([("TodoWrite", STUCK), ("TodoWrite", DONE), ("TodoWrite", STUCK), ("TodoWrite", DONE)]) == [None] * 4


def test_any_other_call_between_ends_the_run() -> None:
    read = ("Read", {"file_path": "/p/a.py"})
    assert _calls([("TodoWrite", STUCK), ("TodoWrite", STUCK), read, ("TodoWrite", STUCK), ("TodoWrite", STUCK)]) == [None] * 5


def test_another_plan_tool_with_the_same_input_is_another_call() -> None:
    same = {"taskId": "3", "status": "completed"}
    got = _calls([("TaskUpdate", same), ("TaskCreate", same), ("TaskUpdate", same)])
    assert got == [None] * 3
    assert [v and v.rule for v in _calls([("update_plan", {"plan": [{"step": "a", "status": "pending"}]})] * 3)] == [
        None, None, Rule.SAME_PLAN,
    ]


def test_a_prompt_or_a_compaction_ends_the_run() -> None:
    for why in ("prompt", "compaction"):
        entry = agent()
        _calls([("TodoWrite", STUCK)] * 2, entry=entry)
        rule.reset(entry, why)
        assert _calls([("TodoWrite", STUCK)], entry=entry) == [None]


def test_a_host_that_sends_no_arguments_is_never_judged() -> None:
    blind = claude_code.CAPABILITIES._replace(arguments=frozenset({"Bash"}))
    assert _calls([("TodoWrite", {})] * 4, caps=blind) == [None] * 4


def test_an_odd_slot_is_no_run() -> None:
    entry = agent()
    ledger.slots(entry)[rule.NAME] = ["x", "three"]
    assert _calls([("TodoWrite", STUCK)] * 2, entry=entry) == [None, None]


@pytest.mark.parametrize("profile", ["reminder", "breaker", "progress"])
def test_the_seed_profiles_leave_the_rule_off(profile: str) -> None:
    assert _calls([("TodoWrite", STUCK)] * 5, Config(**PROFILE_DEFAULTS[profile])) == [None] * 5
