"""The policy step (`core/policy.py`): the one place the mode and the host's capabilities are
applied to what the rules decided."""

from __future__ import annotations

from loopguard_hook.config.settings import Config
from loopguard_hook.core import ledger, policy
from loopguard_hook.core.event import Client, HookEvent
from loopguard_hook.core.verdict import Action, Decision, Rule
from loopguard_hook.hosts import claude_code, codex, dsh_claude_code

DENY = Decision(Action.DENY, Rule.REPEAT, "REPEAT_TOOL_BLOCKED: …", advice="[loopguard] advice")
STOP = Decision(Action.STOP, Rule.END_TURN, "REPEAT_TOOL_BLOCKED: … final", advice="[loopguard] advice")


def _call() -> ledger.Call:
    return {"sig": "s", "t": 1.0, "seq": 1, "phase": "pre"}


def test_advise_turns_a_denial_into_its_advice_and_observe_says_nothing() -> None:
    advised = policy.with_mode(DENY, Config(mode="advise"))
    assert (advised.action, advised.intended, advised.message) == (Action.REMIND, Action.DENY, "[loopguard] advice")
    observed = policy.with_mode(DENY, Config(mode="observe"))
    assert (observed.action, observed.intended) == (Action.ALLOW, Action.DENY)


def test_a_call_that_already_ran_is_at_most_reminded() -> None:
    agent, caps = ledger.new_agent(1.0), claude_code.CAPABILITIES
    fitted, wire = policy.fit_call(agent, _call(), DENY, Config(), caps, "PostToolUse", can_deny=False)
    assert wire.action is Action.REMIND and fitted.intended is Action.DENY


def test_a_denial_marks_the_call_as_not_run() -> None:
    call = _call()
    policy.fit_call(ledger.new_agent(1.0), call, DENY, Config(), codex.CAPABILITIES, "PreToolUse", can_deny=True)
    assert call["phase"] == "denied"


def test_an_end_of_turn_a_host_cannot_carry_becomes_answer_only_mode() -> None:
    agent = ledger.new_agent(1.0)
    fitted, wire = policy.fit_call(agent, _call(), STOP, Config(), dsh_claude_code.CAPABILITIES, "PreToolUse", can_deny=True)
    assert wire.action is Action.DENY and agent["rules"]["answer_only"] is True
    agent = ledger.new_agent(1.0)
    fitted, wire = policy.fit_call(agent, _call(), STOP, Config(), claude_code.CAPABILITIES, "PreToolUse", can_deny=True)
    assert wire.action is Action.STOP and "rules" not in agent


def test_a_pretooluse_reminder_is_held_for_the_result_where_the_host_drops_it() -> None:
    call = _call()
    reminder = Decision(Action.REMIND, Rule.REPEAT, "[loopguard] r", times=3)
    assert policy.hold_for_result(call, reminder, dsh_claude_code.CAPABILITIES).action is Action.ALLOW
    held = policy.held_reminder(call, "read", Config())
    # It goes out with the count it was given for (the audit's `count`), and leaves nothing behind.
    assert held is not None and held.message == "[loopguard] r" and held.times == 3
    assert "remind" not in call and "remind_times" not in call
    assert policy.hold_for_result(_call(), reminder, claude_code.CAPABILITIES) is reminder


def test_a_text_verdict_on_stop_never_blocks_the_stop() -> None:
    stop = HookEvent("Stop", Client.CLAUDE_CODE, "s")
    fitted = policy.fit_text(Decision(Action.REMIND, Rule.TEXT, "[loopguard] t"), stop, Config())
    assert (fitted.action, fitted.intended) == (Action.ALLOW, Action.REMIND)


def test_context_that_comes_back_as_a_prompt_is_recognised() -> None:
    state = ledger.new_session("s", "dsh-claude-code", 1.0)
    caps = dsh_claude_code.CAPABILITIES
    post = HookEvent("PostToolUse", Client.DSH_CLAUDE_CODE, "s")
    policy.note_event(state, post, caps, 10.0)
    prompt = HookEvent("UserPromptSubmit", Client.DSH_CLAUDE_CODE, "s", prompt="[loopguard] r")
    assert policy.injected_prompt(state, prompt, caps, 11.0)
    assert not policy.injected_prompt(state, prompt, claude_code.CAPABILITIES, 11.0)
