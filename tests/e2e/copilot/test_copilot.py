"""The real Copilot CLI 1.0.102, offline, with the guard registered by `install --client copilot`
(its own camelCase hook file, one command per event): what the model receives.

Copilot facts checked here (notes/copilot-droid-hooks.md §3): a preToolUse `additionalContext` is
a user message after the call's result (`Additional context from preToolUse hook:`); a denial is
the call's result, `Denied by preToolUse hook: <reason>`, and the call does not run; a preToolUse
hook that fails denies the call (`… (hook errored)`), so the guard must never fail there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loopguard_hook.install import apply, plan_install

from ..clients import Workspace
from ..dsh.mock_deepseek import call
from ..mock_model import Script
from ..native_hosts import HostRun, NativeHost, run_once

pytestmark = pytest.mark.e2e

NOTES = "alpha\nbeta\ngamma\n"


def _bash(command: str) -> dict[str, Any]:
    return call("bash", {"command": command, "description": "Run it"})



@pytest.fixture(scope="module")
def identical(copilot: NativeHost, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    """The same bash call 7 times, each appending to ran.log when it really runs."""
    return run_once(copilot, tmp_path_factory.mktemp("copilot-identical"), [[_bash("echo run >> ran.log; cat notes.txt")]] * 7)


def test_identical_calls_run_four_times_then_are_denied(identical: HostRun) -> None:
    assert identical.prompt is not None and identical.prompt.exit_code == 0, identical.describe()
    assert identical.ran() == 4, identical.describe()
    calls = identical.by_turn()
    for turn in (4, 5, 6):
        result = calls[turn].result
        assert result.startswith("Denied by preToolUse hook: REPEAT_TOOL_BLOCKED"), (turn, result)
        assert f"attempt {turn + 1}" in result


def test_identical_calls_are_reminded_at_the_third_and_fourth(identical: HostRun) -> None:
    calls = identical.by_turn()
    for turn in (0, 1):
        assert calls[turn].reminders == [], turn
    for turn, count in ((2, "call 3"), (3, "4 times")):
        [reminder] = calls[turn].reminders  # a user message after the call's result
        assert reminder.startswith("Additional context from preToolUse hook:\n[loopguard]") and count in reminder


@pytest.fixture(scope="module")
def distinct(copilot: NativeHost, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    turns = [[_bash(f"echo {i} >> ran.log; ls")] for i in range(4)]
    turns += [[call("view", {"path": "notes.txt"})], [call("grep", {"pattern": "beta"})]]
    return run_once(copilot, tmp_path_factory.mktemp("copilot-distinct"), turns)


def test_distinct_calls_hear_nothing(distinct: HostRun) -> None:
    assert distinct.prompt is not None and distinct.prompt.exit_code == 0, distinct.describe()
    assert distinct.ran() == 4
    assert distinct.guard_texts() == []
    assert len(distinct.by_turn()) == 6


def test_a_hook_error_never_denies_a_call(copilot: NativeHost, tmp_path: Path) -> None:
    """A broken setting makes every hook event a failure: on Copilot that would deny every call
    (`hook errored`). The guard ends each with exit 0 and nothing printed, and logs why."""
    turns = [[_bash("echo run >> ran.log; cat notes.txt")]] * 6
    run = run_once(copilot, tmp_path, turns, env={"LOOPGUARD_MODE": "sideways"})
    assert run.prompt is not None and run.prompt.exit_code == 0, run.describe()
    assert run.ran() == 6, run.describe()
    texts = [t for c in run.by_turn() for t in (c.result, *c.after)]
    assert not any("Denied by preToolUse hook" in t for t in texts)
    assert "bad config" in run.errors_log()


def test_the_claude_code_install_in_a_repository_serves_copilot(copilot: NativeHost, tmp_path: Path) -> None:
    """Copilot runs a trusted repository's `.claude/settings.json`, in PascalCase with snake_case
    payloads: the Claude Code install (no `--client`) recognises Copilot there and denies in a
    form Copilot reads."""
    ws = Workspace.create(tmp_path)
    apply(plan_install("claude-code", "project", home=ws.home, project_dir=ws.work))
    ws.write("notes.txt", NOTES)
    turns = [[_bash("echo run >> ran.log; cat notes.txt")]] * 6
    run = copilot.run(ws, Script(turns), "Look at notes.txt.", register=False,
                      env={"GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS": "true"})
    assert run.prompt is not None and run.prompt.exit_code == 0, run.describe()
    assert run.ran() == 4, run.describe()
    assert run.by_turn()[4].result.startswith("Denied by preToolUse hook: REPEAT_TOOL_BLOCKED")
