"""Harness self-tests: the real Gemini CLI 0.61.0, driven by a scripted model, with the scripted
probe hook (`tests/e2e/probe_hook.py`) on all 11 hook events. They pin the facts the guard's
host module relies on (`test_guard.py` runs the guard itself): they show that the harness sees
every payload and that what a hook answers reaches the model where the research says it does
(shared/research/gemini-cli-hooks.md):

- a BeforeTool top-level `decision: "deny"` + `reason` is the call's `functionResponse`
  `{"error": "Tool execution blocked: <reason>"}`; the tool does not run. Claude's
  `hookSpecificOutput.permissionDecision: "deny"` is ignored: the tool runs;
- an AfterTool `additionalContext` is appended inside the result as `<hook_context>…</hook_context>`;
- a BeforeAgent `additionalContext` is a `<hook_context>` part after the prompt;
- a loop of identical calls is one BeforeTool payload per call, until Gemini's own loop
  detection cuts the 5th (it never reaches BeforeTool) and halts on the 6th;
- a hook command that is missing (exit 127) or exits 3 denies every call (fail closed), unless
  it is registered as `<command> || true`.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from ..clients import Workspace
from ..node_clis import HostRun, neutralizer
from . import scenarios
from .capture import capture_run
from .conftest import ProbeRun
from .host import EVENTS, GeminiCli
from .model_view import calls, hook_contexts, new_contents, prompt_parts

pytestmark = pytest.mark.e2e

DENY = "PROBE-DENY of call {n}"
CONTEXT = "PROBE-CONTEXT after call {n}"
PROMPT_CONTEXT = "PROBE-PROMPT-CONTEXT"

#: Claude's deny form on the 1st call (ignored), Gemini's on the 3rd, context to the 2nd call's
#: result and to the prompt.
EFFECTS: list[dict[str, Any]] = [
    {
        "event": "BeforeTool",
        "nth": 1,
        "stdout": {
            "hookSpecificOutput": {"hookEventName": "BeforeTool", "permissionDecision": "deny", "permissionDecisionReason": DENY}
        },
    },
    {"event": "BeforeTool", "nth": 3, "stdout": {"decision": "deny", "reason": DENY}},
    {
        "event": "AfterTool",
        "nth": 2,
        "stdout": {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": CONTEXT}},
    },
    {
        "event": "BeforeAgent",
        "nth": 1,
        "stdout": {"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": PROMPT_CONTEXT}},
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
    assert third.response == {"error": "Tool execution blocked: PROBE-DENY of call 3"}, run.describe()
    assert run.ran() == 2  # the denied call never ran
    assert [r["rule"] for r in run.hook_records() if r["event"] == "BeforeTool"] == [0, None, 1]
    assert len(run.payloads("AfterTool")) == 2  # none for the denied call
    assert "Tool execution blocked: PROBE-DENY of call 3" in run.stderr


def test_host_fact_the_claude_form_deny_is_ignored(probe_run: ProbeRun) -> None:
    run = effects_run(probe_run)
    first = calls(run.conversation())[0]
    assert not first.error and "Output: alpha" in first.result, first  # the 1st call ran anyway
    assert "PROBE-DENY of call 1" not in json.dumps([r.body for r in run.requests])


def test_harness_self_test_injected_context_reaches_the_model(probe_run: ProbeRun) -> None:
    run = effects_run(probe_run)
    first, second, third = calls(run.conversation())
    assert second.result.startswith("<untrusted_context>\nOutput: alpha")
    assert second.result.endswith("\n\n<hook_context>PROBE-CONTEXT after call 2</hook_context>"), second.result
    assert hook_contexts(first.result + third.result) == []
    assert second.after == ()  # inside the result, not a part of its own

    parts = prompt_parts(run.conversation()[0])
    assert parts[-2] == "Check the notes with the shell."
    assert hook_contexts(parts[-1]) == [PROMPT_CONTEXT]
    assert sum(PROMPT_CONTEXT in part for part in prompt_parts(run.conversation()[-1])) == 1  # stays, once


def test_harness_self_test_a_loop_of_identical_calls_is_seen_as_n_payloads(probe_run: ProbeRun) -> None:
    run = probe_run(scenarios.same_shell(6), [])
    assert run.exit_code == 0, run.describe()
    before = run.payloads("BeforeTool")
    assert len(before) == 4  # Gemini cuts the 5th identical call before BeforeTool
    assert all(p["tool_input"] == before[0]["tool_input"] for p in before)
    assert not any(key in p for p in before for key in ("tool_use_id", "tool_call_id", "prompt_id"))  # no call id
    assert run.ran() == 4
    seen = calls(run.conversation())
    assert [c.name for c in seen] == ["run_shell_command"] * 4 and not any(c.error for c in seen)
    notices = [s.text for body in run.conversation() for s in new_contents(body) if "Potential loop detected" in s.text]
    assert notices and "Repeated tool call: run_shell_command" in notices[0], run.describe()
    assert run.payloads("AfterAgent") == []  # the 6th identical call halted the run
    assert [p["reason"] for p in run.payloads("SessionEnd")] == ["exit"]


def test_harness_self_test_capture_logs_every_event_that_fires(gemini_cli: GeminiCli, ws: Workspace) -> None:
    run = capture_run(gemini_cli, ws)
    assert run.exit_code == 0, run.describe()
    records = run.hook_records()
    fired = {r["event"] for r in records}
    assert fired == set(EVENTS) - {"Notification"}, run.describe()  # yolo mode raises no prompt
    for r in records:
        assert r["payload"]["hook_event_name"] == r["event"] and not r["stdin_newline"]
        assert r["payload"]["cwd"] == str(ws.work)
    # every call the model made that passed validation has its BeforeTool, arguments as sent
    made = Counter(
        (i["name"], json.dumps(i["args"], sort_keys=True)) for r in run.requests for i in r.reply if i["type"] == "call"
    )
    before = Counter((p["tool_name"], json.dumps(p["tool_input"], sort_keys=True)) for p in run.payloads("BeforeTool"))
    assert made - before == Counter({("read_file", "{}"): 1}), made - before  # no file_path: rejected first
    assert before - made == Counter()
    assert [p["stop_hook_active"] for p in run.payloads("AfterAgent")] == [False, True]  # blocked once
    neutral = neutralizer(ws)(run.payloads())
    assert str(ws.root) not in repr(neutral)


@pytest.mark.parametrize(
    "command, blocks",
    [
        ("/nonexistent/loopguard-hook", True),
        ("echo HOOK-BROKEN >&2; exit 3", True),
        ("/nonexistent/loopguard-hook || true", False),
        ("echo HOOK-BROKEN >&2; exit 1", False),
    ],
    ids=["missing command", "exit 3", "missing command || true", "exit 1"],
)
def test_host_fact_a_hook_exiting_2_or_more_blocks_every_call(
    gemini_cli: GeminiCli, ws: Workspace, command: str, blocks: bool
) -> None:
    scenario = scenarios.same_shell(2)
    scenario.prepare(ws)
    run = gemini_cli.run(ws, scenario.script, scenario.prompt, command=command, events=("BeforeTool", "AfterTool"))
    assert run.exit_code == 0, run.describe()
    results = calls(run.conversation())
    assert len(results) == 2
    if blocks:
        assert run.ran() == 0
        reason = "/nonexistent/loopguard-hook: No such file or directory" if "nonexistent" in command else "HOOK-BROKEN"
        for c in results:
            assert c.error and c.result.startswith("Tool execution blocked: ") and reason in c.result, c
    else:
        assert run.ran() == 2
        assert all(not c.error and "Output: alpha" in c.result for c in results), results
