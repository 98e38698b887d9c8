"""`stats`: what the model did after each intervention, recorded by the hook and counted per
rule and text variant (`followup.py`, `stats.py`)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loopguard_hook import rules
from loopguard_hook.config.settings import Config
from loopguard_hook.core import engine, followup, ledger, messages
from loopguard_hook.core.event import Client, HookEvent
from loopguard_hook.core.verdict import Action, Decision, Rule
from loopguard_hook.entry import main
from loopguard_hook.hosts import claude_code

REPO = Path(__file__).parent.parent
EXAMPLES = REPO / "examples"
EXE = Path(sys.executable).with_name("loopguard-hook")


def _feed(state: Path, session_file: str, *args: str) -> None:
    for line in (EXAMPLES / "sessions" / session_file).read_bytes().splitlines():
        proc = subprocess.run([str(EXE), "--state-dir", str(state), *args], input=line, capture_output=True, timeout=30)
        assert proc.returncode == 0, proc.stderr


def _rule(name: str) -> Any:
    return importlib.import_module(f"loopguard_hook.rules.{name}")


def _stats(state: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["stats", "--state-dir", str(state), *args])
    out = capsys.readouterr()
    return code, out.out + out.err


TEMPLATES = {
    "gentle_reminder": _rule("repeat").gentle_reminder("Read", 3),
    "rejected_reminder": _rule("repeat").rejected_reminder("Task", 3, "<tool_use_error>", 800, rejections=3),
    "detailed_reminder": _rule("repeat").detailed_reminder("Read", 4, '{"file_path":"a"}', in_a_row=False),
    "slow_repeat_reminder": _rule("repeat").slow_repeat_reminder("Bash", 3, 75.0),
    "repeat_denial": _rule("repeat").repeat_denial("Read", 5, "alpha", 800, in_a_row=True),
    "stop_ending_turn": _rule("repeat").stop_text("Read", 8, "alpha", 800, ends_turn=True),
    "stop_rejected": _rule("repeat").stop_text("Task", 5, "<tool_use_error>", 800, ends_turn=True, rejected=True),
    "stop_final": _rule("repeat").stop_text("Read", 8, None, 800, ends_turn=False),
    "same_path_denial": _rule("same_path").same_path_denial("Read", "/p/a.py", 4, 3),
    "same_path_reminder": _rule("same_path").same_path_reminder("Read", "/p/a.py", 4, 3),
    "limit_denial": _rule("budgets").limit_denial("LOOP_GUARD_LIMIT", 65, 64, False),
    "answer_only_denial": _rule("answer_only").answer_only_denial("LOOP_GUARD_STOP"),
    "paused_turn_ended": _rule("answer_only").paused_turn_ended(),
    "duplicate_denial": _rule("duplicates").duplicate_denial("LOOP_GUARD_DUPLICATE", "Bash"),
    "same_error_reminder": _rule("same_error").same_error_reminder("Bash", 3, "Permission denied", 800),
    "same_answer_reminder": _rule("same_answer").same_answer_reminder("Bash", 3, "not accessible on a free plan", 800),
    "idle_continuation_stop": _rule("continuations").idle_continuation_stop(5),
    "empty_file_denial": _rule("same_answer").empty_file_denial("docs/prd.json", 5),
    "empty_file_advice": _rule("same_answer").empty_file_advice("docs/prd.json", 5),
    "finished_poll_reminder": _rule("same_answer").finished_poll_reminder("BashOutput", 3, "<status>failed</status>", 800),
    "poll_reminder": _rule("polling").poll_reminder("background task b1", 6),
    "job_poll_reminder": _rule("polling").job_poll_reminder("the background job train.sh", 6),
    "job_poll_denial": _rule("polling").job_poll_denial("the background job train.sh", 7),
    "poll_denial": _rule("polling").poll_denial("background task b1", 7),
    "shell_poll_reminder": _rule("polling").shell_poll_reminder("docker compose ps", 7),
    "shell_poll_denial": _rule("polling").shell_poll_denial("docker compose ps", 8),
    "target_reread_denial": _rule("target").reread_denial("src/app.py", 4, "Failed to find expected lines"),
    "target_resent_denial": _rule("target").resent_denial("src/app.py", 2, "Failed to find expected lines"),
    "target_resent_advice": _rule("target").resent_advice("src/app.py"),
    "target_doomed_denial": _rule("target").doomed_denial("src/app.py", "Failed to find expected lines"),
    "target_doomed_advice": _rule("target").doomed_advice("src/app.py"),
    "target_misfit_denial": _rule("target").misfit_denial("src/app.py", 2, "return total"),
    "target_misfit_advice": _rule("target").misfit_advice("src/app.py", "return total"),
    "target_stale_denial": _rule("target").stale_denial("C:/w/src/app.js", 2),
    "read_first_denial": _rule("read_first").read_first_denial("Edit", "src/app.vue", 2, "File has not been read yet."),
    "target_stale_advice": _rule("target").stale_advice("C:/w/src/app.js"),
    "target_stale_reminder": _rule("target").stale_reminder("C:/w/src/app.js"),
    "target_reread_advice": _rule("target").reread_advice("src/app.py", 4),
    "wall_reminder": _rule("every_call").wall_reminder(4, "Operation not permitted"),
    "hook_reminder": _rule("every_call").hook_reminder("npm (Bash), git (Bash)", "… Failed to spawn"),
    "hook_denial": _rule("every_call").hook_denial("npm (Bash), git (Bash), ls (Bash)"),
    "hook_stop": _rule("every_call").hook_stop(2, "npm (Bash), ls (Bash)", ends_turn=True, pauses=False, denied=False),
    "wall_denial": _rule("every_call").wall_denial(4),
    "wall_stop": _rule("every_call").wall_stop(4, ends_turn=True, pauses=False),
    "permission_reminder": _rule("every_call").permission_reminder(3, "WebSearch, curl (Bash)"),
    "permission_rule_reminder": _rule("every_call").permission_rule_reminder(3, "git (Bash), npm (Bash)"),
    "permission_denial": _rule("every_call").permission_denial(3, "WebSearch, curl (Bash)"),
    "permission_stop": _rule("every_call").permission_stop(3, "WebSearch, curl (Bash)", ends_turn=True, pauses=False),
    "policy_reminder": _rule("every_call").policy_reminder(3, ["git push"], "exec_command failed: rejected: …"),
    "policy_denial": _rule("every_call").policy_denial("git push"),
    "read_only_reminder": _rule("every_call").read_only_reminder(3, "patch rejected: writing is blocked by read-only sandbox"),
    "read_only_denial": _rule("every_call").read_only_denial(3),
    "read_only_stop": _rule("every_call").read_only_stop(3, ends_turn=False, pauses=False),
    "hung_reminder": _rule("unhooked").hung_reminder("dotnet build A.sln", 2, 4.0),
    "hung_denial": _rule("unhooked").hung_denial("dotnet build A.sln", 2, 4.0),
    "unmoved_denial": _rule("unmoved").denial_text("Bash", 4, "False"),
    "unmoved_reminder": _rule("unmoved").reminder_text("Bash", 3, "False"),
    "no_op_denial": _rule("no_op").denial_text(5),
    "no_op_reminder": _rule("no_op").reminder_text(3),
    "cut_input_reminder": _rule("cut_input").reminder_text(3),
    "cut_input_stop": _rule("cut_input").stop_text(4),
    "refused_again_denial": _rule("refused_again").denial_text("Bash", 1),
    "refused_again_advice": _rule("refused_again").advice_text("Bash", 1),
    "same_plan_denial": _rule("same_plan").denial_text(3),
    "same_plan_reminder": _rule("same_plan").reminder_text(3),
    "same_plan_stop": _rule("same_plan").stop_text(5, ends_turn=True, pauses=False),
}


#: Templates whose variants other tests pin: the same-error wall's (tests/test_walls.py), the text
#: rule's and the argument-blind repeats' (their scenarios), the pausing stop (DSH scenarios).
PINNED_ELSEWHERE = {
    "same_error_stop", "same_error_denial", "same_error_late_stop", "same_error_advice", "stop_pausing_tools",
    "same_error_killed_denial", "same_error_killed_advice",
    "same_result_denial", "same_result_reminder", "subagent_text_loop", "same_reply", "text_loop",
}


def test_every_template_is_named_by_its_variant() -> None:
    assert {name for name, _, _ in rules.VARIANTS} <= set(TEMPLATES) | PINNED_ELSEWHERE
    for name, text in TEMPLATES.items():
        assert messages.variant_of(text, rules.VARIANTS) == name, text
    assert messages.variant_of("something else entirely", rules.VARIANTS) == "other"


def _decision(action: Action, count: int, tool: str = "Read") -> Decision:
    if action >= Action.DENY:
        text = _rule("repeat").repeat_denial(tool, count, None, 800, in_a_row=False)
    else:
        text = _rule("repeat").gentle_reminder(tool, count)
    return Decision(action, Rule.REPEAT, text, count, tool, intended=action)


def test_followup_classifies_the_next_call() -> None:
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = ledger.agent(state, "main", 0.0, rules.fit)
    answered = []
    answered += followup.after_attempt("main", agent, "A", _decision(Action.REMIND, 3), 1.0)
    answered += followup.after_attempt("main", agent, "A", _decision(Action.REMIND, 4), 2.0)  # same call, same severity
    answered += followup.after_attempt("main", agent, "A", _decision(Action.DENY, 5), 3.0)  # same call, stronger answer
    answered += followup.after_attempt("main", agent, "B", Decision(), 4.0)  # another call: changed course
    assert "followup" not in agent
    answered += followup.after_attempt("main", agent, "B", _decision(Action.REMIND, 3), 5.0)
    answered += followup.turn_ended(state, ["main"], 6.0)
    got = [(r["variant"], r["step"], r["response"]) for r in answered]
    assert got == [
        ("gentle_reminder", 1, "repeated"),
        ("gentle_reminder", 2, "escalated"),
        ("repeat_denial", 3, "changed"),
        ("gentle_reminder", 1, "ended"),
    ]
    assert answered[-1]["after"] == 1.0
    assert "responses" not in state  # answers come back to the caller, never parked in the ledger


def test_another_call_the_same_rule_answers_is_no_change_of_course() -> None:
    """Three reads of one empty file in three forms, each denied by the same-answer rule: the model
    went on with the loop, it did not change course (a new user's `stats` counted each as
    "changed"). A call that rule lets be is a change of course, whatever another rule says."""
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = ledger.agent(state, "main", 0.0, rules.fit)
    denial = TEMPLATES["empty_file_denial"]

    def same_answer(action: Action) -> Decision:
        return Decision(action, Rule.SAME_ANSWER, denial, 5, "Bash", intended=action)

    answered = []
    answered += followup.after_attempt("main", agent, "cat", same_answer(Action.DENY), 1.0)
    answered += followup.after_attempt("main", agent, "head", same_answer(Action.DENY), 2.0)
    answered += followup.after_attempt("main", agent, "jq", same_answer(Action.STOP), 3.0)
    answered += followup.after_attempt("main", agent, "ls", _decision(Action.REMIND, 3, "Bash"), 4.0)
    got = [(r["rule"], r["step"], r["response"]) for r in answered]
    assert got == [
        (Rule.SAME_ANSWER, 1, "repeated"),
        (Rule.SAME_ANSWER, 2, "escalated"),
        (Rule.SAME_ANSWER, 3, "changed"),
    ]


def test_responses_are_bounded() -> None:
    """One event answers at most `MAX_RESPONSES` interventions (a prompt ends every agent's turn)."""
    state = ledger.new_session("s", "claude-code", 0.0)
    for i in range(3 * followup.MAX_RESPONSES):
        agent = ledger.agent(state, f"agent-{i}", float(i), rules.fit)
        followup.after_attempt(f"agent-{i}", agent, str(i), _decision(Action.REMIND, 3), float(i))
    prompt = HookEvent("UserPromptSubmit", Client.CLAUDE_CODE, "s", prompt="go on")
    state, step = engine.step(state, prompt, Config(), claude_code, 100.0)
    assert len(step.responses) == followup.MAX_RESPONSES
    assert {r["response"] for r in step.responses} == {"ended"}
    assert "responses" not in state


def test_stats_of_a_real_read_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _feed(tmp_path, "claude-code-read-loop.jsonl")  # reminders at 3 and 4, denials 5-7, stop at 8
    logged = [json.loads(x) for x in (tmp_path / "responses.jsonl").read_text().splitlines()]
    assert [(r["count"], r["response"]) for r in logged] == [
        (3, "repeated"), (4, "escalated"), (5, "repeated"), (6, "repeated"), (7, "escalated"), (8, "ended")
    ]
    assert {r["session"] for r in logged} == {"a2ca33ab-c6cd-4fd4-80f7-506cad2a95fc"}
    code, out = _stats(tmp_path, capsys, "--json")
    assert code == 0
    rows = {(r["variant"], r["mode"]): r for r in json.loads(out)["rows"]}
    assert rows["gentle_reminder", "enforce"]["shown"] == 1 and rows["gentle_reminder", "enforce"]["repeated"] == 1
    assert all(r["logged"] == r["shown"] for r in rows.values())  # enforce: every one went to the model
    assert rows["repeat_denial", "enforce"]["saved"] == 3 and rows["repeat_denial", "enforce"]["escalated"] == 1
    assert rows["stop_ending_turn", "enforce"]["ended"] == 1
    assert rows["gentle_reminder", "enforce"]["first"] == 1 and rows["gentle_reminder", "enforce"]["ended_after_first"] == 0
    code, text = _stats(tmp_path, capsys)
    assert code == 0 and "6 interventions, 6 answered" in text and "4 calls not run" in text


def test_observe_mode_is_the_control_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """In mode observe the interventions are logged, and the model is shown none of them (before,
    `stats` counted them as "shown")."""
    _feed(tmp_path, "codex-cat-loop.jsonl", "--mode", "observe")
    code, out = _stats(tmp_path, capsys, "--json")
    rows = json.loads(out)["rows"]
    assert code == 0 and rows and {r["mode"] for r in rows} == {"observe"}
    assert sum(r["saved"] for r in rows) == 0, "nothing was kept from running: the model saw nothing"
    assert [r["shown"] for r in rows] == [0, 0, 0], "the model was shown none of them"
    assert [r["logged"] for r in rows] == [2, 1, 1]
    code, text = _stats(tmp_path, capsys)
    lines = text.splitlines()
    assert lines[1].split()[2:6] == ["mode", "logged", "shown", "changed"]
    assert [line.split()[2:5] for line in lines[2:5]] == [["observe", "2", "0"], ["observe", "1", "0"], ["observe", "1", "0"]]
    assert "4 interventions (0 shown to the model, 4 logged only), 4 answered: " in text


def test_open_interventions_and_session_filter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = dict(os.environ, LOOPGUARD_KEEP_STATE="1")
    lines = (EXAMPLES / "sessions" / "claude-code-read-loop.jsonl").read_bytes().splitlines()
    for line in lines[:-1]:  # no SessionEnd: the stop waits for an answer
        subprocess.run([str(EXE), "--state-dir", str(tmp_path)], input=line, capture_output=True, env=env, timeout=30, check=True)
    code, out = _stats(tmp_path, capsys, "--json")
    assert code == 0 and sum(r["open"] for r in json.loads(out)["rows"]) == 1
    code, out = _stats(tmp_path, capsys, "--json", "--session", "another-session")
    assert code == 0 and json.loads(out)["rows"] == []


def test_unreadable_log_is_said_and_exits_non_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _feed(tmp_path, "claude-code-read-loop.jsonl")
    (tmp_path / "responses.jsonl.1").mkdir()  # a directory where a log belongs
    (tmp_path / "decisions.jsonl").write_bytes((tmp_path / "decisions.jsonl").read_bytes() + b"not json\n")
    code, out = _stats(tmp_path, capsys)
    assert code == 1
    assert "cannot read" in out and "responses.jsonl.1" in out
    assert "decisions.jsonl: skipped 1 line(s)" in out


def test_no_interventions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _stats(tmp_path, capsys)
    assert code == 0 and "no interventions logged yet" in out
    _feed(tmp_path, "claude-code-read-loop.jsonl")
    code, out = _stats(tmp_path, capsys, "--session", "nope")  # before: "no interventions logged yet"
    assert code == 0 and out.splitlines()[1:] == ["no interventions logged for session nope"]


def test_a_reminder_on_a_result_is_answered_by_the_next_call(tmp_path: Path) -> None:
    """A same-error wall reminded at its third failure (PostToolUseFailure), then denied at the
    next call into it: the reminder was answered by a stronger answer. Before, a reminder decided
    on a result was never followed up (the denial after it counted as the first intervention, so
    "ended after the first" read 2 of 2 for a wall that went on past its reminders)."""
    import scenario

    data = scenario.load(REPO / "tests/scenarios/escalate_same_program_wall.json")
    assert scenario.Runner(data, "balanced", "claude-code", str(tmp_path)).play() == []
    state = tmp_path if (tmp_path / "responses.jsonl").exists() else tmp_path / f"loopguard-hook-{os.getuid()}"
    answered = [json.loads(line) for line in (state / "responses.jsonl").read_text().splitlines()]
    reminders = [(r["variant"], r["step"], r["response"]) for r in answered if r["action"] == "remind"]
    assert reminders == [("same_error_reminder", 1, "escalated")] * 2
    assert [r["step"] for r in answered if r["action"] == "deny"][0] == 2


def test_a_result_reminder_leaves_a_waiting_intervention_be() -> None:
    """One already waiting (this call's own, decided when it was made, or a parallel call's) is
    the one the next call answers."""
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = ledger.agent(state, "main", 0.0, rules.fit)
    followup.after_attempt("main", agent, "A", _decision(Action.REMIND, 3), 1.0)
    wall = Decision(Action.REMIND, Rule.SAME_ERROR, "wall", 3, "Bash", intended=Action.REMIND)
    followup.after_result(agent, "B", wall, 2.0)
    assert agent["followup"]["sig"] == "A" and agent["followup"]["rule"] == Rule.REPEAT
    del agent["followup"]
    followup.after_result(agent, "B", wall, 3.0)
    assert agent["followup"]["sig"] == "B" and agent["followup"]["step"] == 1


def test_objects_that_are_not_the_guards_records_are_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A JSON object of another shape in a log (`{}`, `{"a": 1}`) is no intervention: it is
    skipped and said, not counted as a row of rule "-" and variant "unknown" (a new user's run)."""
    _feed(tmp_path, "claude-code-read-loop.jsonl")
    for name in ("decisions.jsonl", "responses.jsonl"):
        (tmp_path / name).write_bytes((tmp_path / name).read_bytes() + b'{}\n{"a": 1}\n{"rule": 5, "action": "deny"}\n')
    code, out = _stats(tmp_path, capsys)
    assert code == 1
    assert "decisions.jsonl: skipped 3 line(s)" in out and "responses.jsonl: skipped 3 line(s)" in out
    assert "unknown" not in out and "6 interventions, 6 answered" in out


def test_a_rejected_edit_answers_a_reminder_with_its_result(tmp_path: Path) -> None:
    """Edits that Claude Code's validation rejects are counted and judged at one event, the
    PostToolBatch: the next rejected Edit of the same wall answers the reminder with what its
    result decided too (escalated: the same rule stopped it), and the stop waits for the next.
    Before, such interventions were never followed up: `stats` showed a wall the guard ended as
    "0 answered" (a new user's finding)."""
    import scenario

    steps = [
        {"call": "Edit",
         "input": {"file_path": "/p/app.py", "old_string": f"NOT_THERE_{i}", "new_string": "x", "replace_all": False},
         "rejected": f"<tool_use_error>String to replace not found in file.\nString: NOT_THERE_{i}</tool_use_error>"}
        for i in range(5)
    ]
    steps[2]["post"] = "remind:LOOP_GUARD_SAME_ERROR"
    steps[3]["post"] = steps[4]["post"] = "stop:LOOP_GUARD_SAME_ERROR"
    assert scenario.Runner({"description": "", "steps": steps}, "balanced", "claude-code", str(tmp_path)).play() == []
    state = tmp_path if (tmp_path / "decisions.jsonl").exists() else tmp_path / f"loopguard-hook-{os.getuid()}"
    answered = [json.loads(line) for line in (state / "responses.jsonl").read_text().splitlines()]
    assert [(r["intended"], r["response"]) for r in answered] == [("remind", "escalated"), ("stop", "repeated")]


@pytest.mark.parametrize("odd", [{"config": "x"}, {"polls": "x"}])
def test_a_ledger_of_an_odd_shape_is_left_out_not_every_session(
    odd: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One hand-edited ledger (values of the wrong shape, which the hook itself takes): before, an
    internal error and nothing shown for the other sessions."""
    _feed(tmp_path, "claude-code-read-loop.jsonl", "--mode", "observe")  # observe keeps the ledger at SessionEnd
    good_code, good = _stats(tmp_path, capsys)
    assert good_code == 0
    ledger = next((tmp_path / "sessions").glob("*.json"))
    data = json.loads(ledger.read_text())
    if "polls" in odd:  # one agent's unhooked-polls table
        agent = next(iter(data["agents"].values()))
        agent.setdefault("rules", {})["unhooked"] = odd
    else:
        data.update(odd)
    ledger.write_text(json.dumps(data))
    code, out = _stats(tmp_path, capsys)
    assert code == 1 and "internal error" not in out
    assert "1 session ledger(s) hold values of the wrong shape; left out of the counts" in out
    assert out.splitlines()[:3] == good.splitlines()[:3]  # the logged interventions are still counted


@pytest.mark.parametrize(
    ("golden", "rule", "variant"),
    [
        ("every_call_broken_hook_two_replies_refused_whole.json", "LOOP_GUARD_WALL", "hook_stop"),
        ("cut_input_empty_calls_across_tools_and_reads.json", "LOOP_GUARD_CUT_INPUT", "cut_input_stop"),
    ],
)
def test_an_end_of_turn_at_a_batch_is_followed_up_as_the_end(tmp_path: Path, golden: str, rule: str, variant: str) -> None:
    """A result rule's end of turn is made a reminder on the result (the call ran) and restored by
    the PostToolBatch that carries it out: the intervention the next call answers is that end, also
    when another entry of the batch reminded first (a new user's `stats` row of a reminder that was
    never logged, for a stop that was)."""
    import scenario

    data = scenario.load(REPO / "tests/scenarios" / golden)
    data["steps"].append({"call": "Bash", "input": {"command": "pwd"}, "response": {"stdout": "/p", "stderr": "",
                          "interrupted": False}, "t": 500, "pre": "any", "post": "any"})
    assert scenario.Runner(data, "balanced", "claude-code", str(tmp_path)).play() == []
    state = tmp_path if (tmp_path / "responses.jsonl").exists() else tmp_path / f"loopguard-hook-{os.getuid()}"
    answered = [json.loads(line) for line in (state / "responses.jsonl").read_text().splitlines()]
    assert (rule, variant, "stop") in [(a["rule"], a["variant"], a["action"]) for a in answered]
