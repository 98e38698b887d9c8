"""The real Factory Droid 0.215.0 (`droid exec`), offline, with the guard registered by
`install --client droid`: what the model receives.

Droid facts checked here (notes/copilot-droid-hooks.md §5-§6): a PostToolUse `additionalContext`
is a user message right after the call's result (a PreToolUse one is dropped, so the guard holds
its reminder for the result); a denial is the call's result, `Error: <reason>`, and the call does
not run; Droid halts a run itself at the 6th identical call, so the guard's denial comes first; a
hook that exits 1 would have its stderr put in front of the tool result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..dsh.mock_deepseek import call
from ..native_hosts import HostRun, NativeHost, run_once

pytestmark = pytest.mark.e2e


def _execute(command: str) -> dict[str, Any]:
    return call("Execute", {"command": command, "riskLevel": "low", "riskLevelReason": "reads a file"})


@pytest.fixture(scope="module")
def identical(droid: NativeHost, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    """The same Execute call 6 times, each appending to ran.log when it really runs."""
    return run_once(droid, tmp_path_factory.mktemp("droid-identical"), [[_execute("echo run >> ran.log; cat notes.txt")]] * 6)


def test_identical_calls_run_four_times_then_are_denied(identical: HostRun) -> None:
    assert identical.prompt is not None and identical.prompt.exit_code == 0, identical.describe()
    assert identical.ran() == 4, identical.describe()
    result = identical.by_turn()[4].result
    assert result.startswith("Error: REPEAT_TOOL_BLOCKED") and "attempt 5" in result, result


def test_identical_calls_are_reminded_with_their_results(identical: HostRun) -> None:
    calls = identical.by_turn()
    for turn in (0, 1):
        assert calls[turn].reminders == [], turn
    for turn, count in ((2, "call 3"), (3, "4 times")):
        # a user message right after the call's result (Droid's own reminder may follow it)
        assert calls[turn].reminders[:1] and calls[turn].reminders[0].startswith("[loopguard]"), calls[turn]
        assert count in calls[turn].reminders[0]


@pytest.fixture(scope="module")
def distinct(droid: NativeHost, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    turns = [[_execute(f"echo {i} >> ran.log; ls")] for i in range(4)]
    turns += [[call("Read", {"file_path": "notes.txt"})], [call("Grep", {"pattern": "beta"})]]
    return run_once(droid, tmp_path_factory.mktemp("droid-distinct"), turns)


def test_distinct_calls_hear_nothing(distinct: HostRun) -> None:
    assert distinct.prompt is not None and distinct.prompt.exit_code == 0, distinct.describe()
    assert distinct.ran() == 4
    assert distinct.guard_texts() == []
    assert len(distinct.by_turn()) == 6


def test_a_hook_failure_reaches_neither_the_model_nor_the_call(droid: NativeHost, tmp_path: Path) -> None:
    """A broken setting makes every hook event a failure; Droid would put a failing hook's stderr in
    front of the tool result. The guard exits 0 with nothing on stderr and logs why."""
    run = run_once(droid, tmp_path, [[_execute(f"echo {i} >> ran.log; cat notes.txt")] for i in range(3)],
               env={"LOOPGUARD_MODE": "sideways"})
    assert run.prompt is not None and run.prompt.exit_code == 0, run.describe()
    assert run.ran() == 3
    texts = [t for c in run.by_turn() for t in (c.result, *c.after)]
    assert texts and not any("loopguard-hook" in t for t in texts), texts
    assert "bad config" in run.errors_log()
