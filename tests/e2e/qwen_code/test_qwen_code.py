"""Harness self-tests: the real Qwen Code 0.24.4, driven by a scripted model, with the scripted
probe hook (`tests/e2e/probe_hook.py`) on all 22 hook events. They pin the facts the guard's
host module relies on (`test_guard.py` runs the guard itself): they show that the harness sees
every payload and that what a hook answers reaches the model where the research says it does
(shared/research/qwen-code-hooks.md):

- a PreToolUse deny is the call's `tool` message, exactly the reason; the tool does not run;
- a PostToolUse `additionalContext` is appended to the call's result after a blank line;
- a UserPromptSubmit `additionalContext` is a tagged part of the first user message;
- a loop of identical calls is one PreToolUse payload per call, until Qwen's own loop detection
  halts the run at the 5th (exit 1, StopFailure);
- a hook command that is missing fails open.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..clients import Workspace
from ..node_clis import HostRun, neutralizer
from . import scenarios
from .capture import capture_run
from .conftest import ProbeRun
from .host import EVENTS, QwenCode
from .model_view import calls, new_messages, prompt_parts, tagged

pytestmark = pytest.mark.e2e

DENY = "PROBE-DENY of call {n}"
CONTEXT = "PROBE-CONTEXT after call {n}"
PROMPT_CONTEXT = "PROBE-PROMPT-CONTEXT"

#: Deny the 3rd call, add context to the 2nd call's result and to the prompt.
EFFECTS: list[dict[str, Any]] = [
    {
        "event": "PreToolUse",
        "nth": 3,
        "stdout": {
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": DENY}
        },
    },
    {
        "event": "PostToolUse",
        "nth": 2,
        "stdout": {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": CONTEXT}},
    },
    {
        "event": "UserPromptSubmit",
        "nth": 1,
        "stdout": {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": PROMPT_CONTEXT}},
    },
]


def effects_run(probe_run: ProbeRun) -> HostRun:
    """The same counted shell command three times, the probe answering from `EFFECTS`."""
    run = probe_run(scenarios.same_shell(3), EFFECTS)
    assert not run.timed_out and run.exit_code == 0, run.describe()
    return run


def test_harness_self_test_a_denial_reaches_the_model_in_place_of_the_result(probe_run: ProbeRun) -> None:
    run = effects_run(probe_run)
    first, second, third = calls(run.conversation())
    assert third.result == "PROBE-DENY of call 3", run.describe()  # no prefix, nothing else
    assert first.result.startswith("Command: echo ran >> ran.log") and "Exit Code: 0" in first.result
    assert run.ran() == 2  # the denied call never ran
    assert [r["rule"] for r in run.hook_records() if r["event"] == "PreToolUse"] == [None, None, 0]
    # a denied call gets no PostToolUse(Failure), only its PostToolBatch with status error
    assert len(run.payloads("PostToolUse")) == 2 and run.payloads("PostToolUseFailure") == []
    batch = run.payloads("PostToolBatch")[2]["tool_calls"]
    assert [(c["status"], c["tool_response"]["error_type"]) for c in batch] == [("error", "execution_denied")]


def test_harness_self_test_injected_context_reaches_the_model(probe_run: ProbeRun) -> None:
    run = effects_run(probe_run)
    first, second, third = calls(run.conversation())
    assert second.result.startswith("Command: echo ran >> ran.log")
    assert second.result.endswith("\n\nPROBE-CONTEXT after call 2"), second.result
    assert "PROBE-CONTEXT" not in first.result + third.result
    assert second.after == ()  # appended to the result, not a message of its own

    parts = prompt_parts(run.conversation()[0])
    assert parts[-2] == "Check the notes with the shell."
    assert tagged(parts[-1]) == [PROMPT_CONTEXT]
    # the prompt context stays in the history, once
    last = run.conversation()[-1]
    assert sum(PROMPT_CONTEXT in part for part in prompt_parts(last)) == 1


def test_harness_self_test_a_loop_of_identical_calls_is_seen_as_n_payloads(probe_run: ProbeRun) -> None:
    run = probe_run(scenarios.same_shell(6), [])
    assert run.exit_code == 1 and "Loop detection halted the run" in run.stderr, run.describe()
    pre = run.payloads("PreToolUse")
    assert len(pre) == 4  # Qwen never runs the 5th identical call
    assert all(p["tool_input"] == pre[0]["tool_input"] for p in pre)
    seen = calls(run.conversation())
    assert [p["tool_call_id"] for p in pre] == [c.call_id for c in seen]  # one payload per call the model made
    assert len({p["tool_use_id"] for p in pre}) == 4
    assert run.ran() == 4
    (failure,) = run.payloads("StopFailure")
    assert (failure["error"], failure["error_details"]) == ("loop_detected", "consecutive_identical_tool_calls")
    assert run.payloads("Stop") == []
    # UserPromptSubmit before every request; only the first is the user's prompt
    prompts = run.payloads("UserPromptSubmit")
    assert len(prompts) == 5 and [("submitted_prompt" in p) for p in prompts] == [True] + [False] * 4
    assert {p["prompt_id"] for p in prompts} == {pre[0]["prompt_id"]}


def test_harness_self_test_capture_logs_every_event_that_fires(qwen_code: QwenCode, ws: Workspace) -> None:
    run = capture_run(qwen_code, ws)
    assert run.exit_code == 0, run.describe()
    records = run.hook_records()
    fired = {r["event"] for r in records}
    assert fired == {
        "InstructionsLoaded",
        "SessionStart",
        "Notification",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "MessageDisplay",
        "SubagentStart",
        "SubagentStop",
        "Stop",
    }, run.describe()
    assert fired <= set(EVENTS)
    for r in records:
        assert r["payload"]["hook_event_name"] == r["event"] and not r["stdin_newline"]
        assert r["payload"]["cwd"] == str(ws.work)
    # every call the model made that passed validation has its PreToolUse, with the model's id
    made = [i["id"] for r in run.requests for i in r.reply if i["type"] == "call"]
    pre = [p["tool_call_id"] for p in run.payloads("PreToolUse")]
    assert sorted(pre) == sorted(i for i in made if i != "call_main_9_0")  # the relative read_file is rejected first
    neutral = neutralizer(ws)(run.payloads())
    assert str(ws.root) not in repr(neutral)


@pytest.mark.parametrize("answer", ["missing command", "exit 1", "exit 3"])
def test_host_fact_a_broken_hook_fails_open(qwen_code: QwenCode, ws: Workspace, answer: str) -> None:
    """Qwen Code lets the call run when the hook cannot answer: only exit 2 (with stderr) or a
    JSON decision blocks."""
    command = {
        "missing command": "/nonexistent/loopguard-hook --event {event}",
        "exit 1": "echo HOOK-BROKEN >&2; exit 1",
        "exit 3": "echo HOOK-BROKEN >&2; exit 3",
    }[answer]
    scenario = scenarios.same_shell(2)
    scenario.prepare(ws)
    run = qwen_code.run(ws, scenario.script, scenario.prompt, command=command, events=("PreToolUse", "PostToolUse"))
    assert run.exit_code == 0, run.describe()
    assert run.ran() == 2
    results = [c.result for c in calls(run.conversation())]
    assert len(results) == 2 and all(r.startswith("Command: echo ran") for r in results), results
    assert not any("HOOK-BROKEN" in s.text or "/nonexistent/" in s.text for b in run.conversation() for s in new_messages(b))
