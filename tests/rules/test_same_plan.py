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


def test_the_third_same_plan_in_a_row_is_denied_so_is_the_fourth_and_the_fifth_ends_the_turn() -> None:
    got = _calls([("TodoWrite", STUCK)] * 5)
    assert got[:2] == [None, None]
    assert [(v.action, v.rule, v.times) for v in got[2:]] == [
        (Action.DENY, Rule.SAME_PLAN, 3), (Action.DENY, Rule.SAME_PLAN, 4), (Action.STOP, Rule.SAME_PLAN, 5),
    ]
    assert "same list you sent in the calls just before it (3 in a row)" in got[2].message
    assert "Do the next step it lists" in got[2].message and "tell the user" in got[2].message
    assert "already recorded" not in got[2].message  # the sends before may have failed
    assert "same plan 3 times in a row" in got[2].advice  # what `advise` mode, or a call that ran, delivers
    assert "The loop guard is ending this turn" in got[4].message and got[4].stop_reason


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
    same = {"todos": STUCK["todos"]}
    assert _calls([("TodoWrite", same), ("todo_write", same), ("TodoWrite", same)]) == [None] * 3
    assert [v and v.rule for v in _calls([("update_plan", {"plan": [{"step": "a", "status": "pending"}]})] * 3)] == [
        None, None, Rule.SAME_PLAN,
    ]


def test_the_task_tools_are_left_out_each_call_makes_or_changes_one_task() -> None:
    # a hostile review: three tasks created with one subject, their `description`s differing
    create = [("TaskCreate", {"subject": "Fix failing test", "description": f"Make test_{n} pass"}) for n in range(3)]
    assert _calls(create) == [None] * 3
    assert _calls([("TaskUpdate", {"taskId": "1", "status": "completed"})] * 4) == [None] * 4


def test_every_key_of_the_list_counts_a_description_too() -> None:
    plans = [("write_todos", {"todos": [{"description": f"step {n}", "status": "pending"}]}) for n in range(3)]
    assert _calls(plans) == [None] * 3


def _sent(entry: ledger.Agent, seq: int, issued: float | None = None) -> Any:
    call: ledger.Call = {"sig": "x", "t": 100.0 + seq, "seq": seq, "phase": "pre"}
    if issued is not None:
        call["issued"] = issued
    ctx = call_ctx("TodoWrite", STUCK, entry=entry, now=100.0 + seq, tracked=False, call=call)
    entry["calls"][f"c{seq}"] = ctx.call
    return rule.on_call(ctx)


def test_a_call_issued_before_the_one_before_came_back_is_the_same_send() -> None:
    # parallel twins of one reply, or one call delivered twice by a host that sends no call id
    entry = agent()
    assert [_sent(entry, 0), _sent(entry, 1)] == [None, None]  # the second came before the first's result
    for call in entry["calls"].values():
        call["phase"] = "done"
    assert _sent(entry, 2) is None  # the second send
    entry["calls"]["c2"]["phase"] = "done"
    verdict = _sent(entry, 3)
    assert verdict is not None and (verdict.action, verdict.times) == (Action.DENY, 3)


def test_calls_of_one_reply_run_one_after_the_other_are_the_same_send() -> None:
    # Claude Code runs a reply's calls in turn (Pre, Post, Pre, Post): they share the reply's issue time
    entry = agent()
    assert _sent(entry, 0) is None
    entry["calls"]["c0"]["phase"] = "done"
    assert _sent(entry, 1, issued=100.0) is None  # the same reply as the first
    entry["calls"]["c1"]["phase"] = "done"
    assert _sent(entry, 2) is None  # the next reply: the second send
    entry["calls"]["c2"]["phase"] = "done"
    verdict = _sent(entry, 3)
    assert verdict is not None and (verdict.action, verdict.times) == (Action.DENY, 3)


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
    for held in (["x", "three"], ["x", 3], [1, 2, 3], ["x", 10**30, 1], ["x", 2.0, 1], {"a": 1}, None, "x"):
        entry = agent()
        ledger.slots(entry)[rule.NAME] = held
        assert _calls([("TodoWrite", STUCK)] * 2, entry=entry) == [None, None], held


@pytest.mark.parametrize("profile", ["reminder", "breaker", "progress"])
def test_the_seed_profiles_leave_the_rule_off(profile: str) -> None:
    assert _calls([("TodoWrite", STUCK)] * 5, Config(**PROFILE_DEFAULTS[profile])) == [None] * 5


def test_calls_no_hook_saw_between_two_sends_end_the_run() -> None:
    # Codex's write_stdin polls fire no hook; the engine reads them from the rollout (`unseen_calls`)
    entry = agent()
    plan = {"plan": [{"step": "Wait for the build", "status": "in_progress"}]}
    got = []
    for n in range(4):
        ctx = call_ctx("update_plan", plan, entry=entry, now=100.0 + n, tracked=False)
        got.append(rule.on_call(ctx._replace(event=ctx.event._replace(unseen_calls=1 if n else 0))))
    assert got == [None] * 4


def test_sends_is_the_run_status_shows() -> None:
    """The run of the agent's latest call (`call_ctx` makes every call seq 1, issued at its time);
    a later call the rule did not see (turned off since) is not the run's: no count."""
    entry = agent()
    assert rule.sends(entry) == 0
    _calls([("TodoWrite", STUCK)] * 2, entry=entry)
    entry["calls"]["latest"] = {"sig": "s", "t": 101.0, "seq": 1, "phase": "post", "untracked": True}
    assert rule.sends(entry) == 2
    _calls([("TodoWrite", DONE)], entry=entry)
    assert rule.sends(entry) == 1
    entry["calls"]["unseen"] = {"sig": "t", "t": 205.0, "seq": 2, "phase": "post", "untracked": True}
    assert rule.sends(entry) == 0
    del entry["calls"]["unseen"]
    _calls([("Read", {"file_path": "/p/a.py"})], entry=entry)
    assert rule.sends(entry) == 0
    ledger.slots(entry)[rule.NAME] = ["x", "three", 1, 1.0]  # edited by hand
    assert rule.sends(entry) == 0
