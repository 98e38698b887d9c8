"""The policy step (`core/policy.py`): the one place the mode and the host's capabilities are
applied to what the rules decided."""

from __future__ import annotations

from loopguard_hook.config.settings import Config
from loopguard_hook.core import ledger, policy
from loopguard_hook.core.event import Client, HookEvent
from loopguard_hook.core.host import Capabilities
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


def _turn(
    prompt: str, *, stopped: bool = True, tools: bool = True, blocked: bool = False, caps: Capabilities | None = None
) -> bool:
    """Whether `prompt` resumes a Claude Code turn: a Stop before it in the session (`stopped`),
    then a prompt, tool events (`tools`), a denial (`blocked`), and no Stop."""
    caps = caps or claude_code.CAPABILITIES
    state = ledger.new_session("s", "claude-code", 1.0)
    if stopped:
        policy.note_event(state, HookEvent("Stop", Client.CLAUDE_CODE, "s"), caps, 2.0)
    policy.start_turn(state, caps)
    if tools:
        policy.note_event(state, HookEvent("PostToolUse", Client.CLAUDE_CODE, "s"), caps, 3.0)
    if blocked:
        policy.note_blocked(state, caps)
    return policy.resumes(state, HookEvent("UserPromptSubmit", Client.CLAUDE_CODE, "s", prompt=prompt), caps)


def test_a_bare_continue_after_an_interrupted_turn_resumes_it() -> None:
    """Claude Code sends no Stop when the user interrupts a turn (research, 2.1.332 LAB): a
    prompt that only says to go on, after tool events and no Stop, resumes that turn."""
    for prompt in ("continue", "Continue.", "ok, continue", "please continue", "keep going!", "继续", "go on please"):
        assert _turn(prompt), prompt


def test_every_other_prompt_starts_afresh() -> None:
    assert not _turn("continue, I upgraded the plan")  # the user says what changed
    assert not _turn("fix the tests")
    assert not _turn("continue", stopped=False)  # no Stop in the session yet: the host may not send it
    assert not _turn("continue", tools=False)  # interrupted before any call: nothing to resume
    assert not _turn("continue", blocked=True)  # "continue" may answer the guard's denial
    assert not _turn("continue", caps=codex.CAPABILITIES)  # not verified there: every prompt resets
    state = ledger.new_session("s", "claude-code", 1.0)
    caps = claude_code.CAPABILITIES
    for name in ("Stop", "PostToolUse", "Stop"):  # the turn ended after its tool events
        policy.note_event(state, HookEvent(name, Client.CLAUDE_CODE, "s"), caps, 2.0)
    assert not policy.resumes(state, HookEvent("UserPromptSubmit", Client.CLAUDE_CODE, "s", prompt="continue"), caps)
    for source, resumes in (("compact", True), ("resume", False)):  # a compaction goes on; a restart does not
        policy.note_event(state, HookEvent("PostToolUse", Client.CLAUDE_CODE, "s"), caps, 3.0)
        policy.note_event(state, HookEvent("SessionStart", Client.CLAUDE_CODE, "s", source=source), caps, 4.0)
        prompt = HookEvent("UserPromptSubmit", Client.CLAUDE_CODE, "s", prompt="continue")
        assert policy.resumes(state, prompt, caps) is resumes, source


def test_a_damaged_turn_mark_is_started_afresh() -> None:
    state = ledger.new_session("s", "claude-code", 1.0)
    state["turn"] = {"stopped": "yes", "open": 1}  # type: ignore[typeddict-item]
    prompt = HookEvent("UserPromptSubmit", Client.CLAUDE_CODE, "s", prompt="continue")
    assert not policy.resumes(state, prompt, claude_code.CAPABILITIES)
    assert state["turn"] == {"stopped": False, "open": False, "blocked": False, "resumed": False}


def test_a_resumed_turn_counts_on() -> None:
    """After "continue" resumes an interrupted turn the guard said nothing in, the same failing
    call is the 3rd of its run (reminded), not the 1st; had the guard reminded before the
    interrupt, the prompt would start afresh (the user may have fixed what it was about)."""
    from loopguard_hook.core import engine

    def ev(name: str, **kw: object) -> HookEvent:
        return HookEvent(name, Client.CLAUDE_CODE, "s", **kw)  # type: ignore[arg-type]

    def run(failures: int) -> tuple[ledger.Session, list[tuple[Action, int]], list[ledger.ResponseRecord]]:
        call = {"tool_name": "Bash", "tool_input": {"command": "npm test"}}
        error = "Exit code 1\nError: Cannot find module 'jest'"
        events = [ev("UserPromptSubmit", prompt="read the notes"), ev("Stop", last_assistant_message="Read."),
                  ev("UserPromptSubmit", prompt="run the tests")]
        for n in range(failures):
            events += [ev("PreToolUse", tool_use_id=f"t{n}", **call)]
            events += [ev("PostToolUseFailure", tool_use_id=f"t{n}", error=error, **call)]
        events += [ev("UserPromptSubmit", prompt="continue"), ev("PreToolUse", tool_use_id="t9", **call)]
        state, now, seen, responses = None, 1000.0, [], []
        for event in events:
            now += 5.0
            state, step = engine.step(state, event, Config(), claude_code, now)
            seen.append((step.decision.action, step.decision.times))
            responses += step.responses
        assert state is not None
        return state, seen, responses

    state, seen, responses = run(2)
    assert policy.resumed(state) and seen[-1] == (Action.REMIND, 3) and responses == []
    state, seen, _ = run(3)  # reminded at the 3rd: "continue" starts afresh
    assert not policy.resumed(state) and seen[-1][0] is Action.ALLOW


def test_advise_at_a_stop_ends_nothing_and_tells_the_user_nothing_of_an_end() -> None:
    """Under advise a text loop's end of turn at a Stop ends nothing, so the user's notice, which
    says "loopguard ended the turn", is not sent either; enforce keeps both."""
    stop = Decision(Action.STOP, Rule.TEXT, "[loopguard] the same reply", stop_reason="loopguard ended the turn: …",
                    system_message="loopguard ended the turn: the same final message …")
    event = HookEvent("Stop", Client.CLAUDE_CODE, "s")
    advised = policy.fit_text(stop, event, Config(mode="advise"))
    assert (advised.action, advised.intended, advised.system_message) == (Action.ALLOW, Action.STOP, "")
    enforced = policy.fit_text(stop, event, Config())
    assert enforced.action is Action.STOP and enforced.system_message.startswith("loopguard ended the turn")


def test_an_end_of_turn_decided_on_a_batch_goes_out_with_its_own_text() -> None:
    """A result's verdict is fitted as a reminder (its advice), then `fit_batch` restores the end
    of turn where the host ends the turn from a PostToolBatch: with the end's text, which says the
    turn is ended, not the reminder's (a new user's `stats` counted such ends as reminders, by
    their text, and the model's context said only 'change the approach')."""
    caps = claude_code.CAPABILITIES
    fitted = policy.fit_batch(policy.fit_result(STOP, Config()), "PostToolBatch", Config(), caps)
    assert (fitted.action, fitted.message) == (Action.STOP, STOP.message)
    advised = policy.fit_batch(policy.fit_result(STOP, Config(mode="advise")), "PostToolBatch", Config(mode="advise"), caps)
    assert (advised.action, advised.message) == (Action.REMIND, "[loopguard] advice")
