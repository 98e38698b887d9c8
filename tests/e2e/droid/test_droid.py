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

import pytest

from ..clients import Workspace
from ..mock_model import Script, tool_use
from ..native_hosts import HostRun, NativeHost

pytestmark = pytest.mark.e2e

NOTES = "alpha\nbeta\ngamma\n"


def _execute(command: str) -> dict[str, object]:
    return tool_use("Execute", {"command": command, "riskLevel": "low", "riskLevelReason": "reads a file"})


def _run(droid: NativeHost, root: Path, turns: list[list[dict[str, object]]], **kwargs: object) -> HostRun:
    ws = Workspace.create(root)
    ws.write("notes.txt", NOTES)
    run = droid.run(ws, Script(turns, final_text="Done."), "Look at notes.txt.", **kwargs)  # type: ignore[arg-type]
    assert run.prompt is not None and not run.prompt.timed_out, run.describe()
    return run


@pytest.fixture(scope="module")
def identical(droid: NativeHost, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    """The same Execute call 6 times, each appending to ran.log when it really runs."""
    return _run(droid, tmp_path_factory.mktemp("droid-identical"), [[_execute("echo run >> ran.log; cat notes.txt")]] * 6)


def test_identical_calls_run_four_times_then_are_denied(identical: HostRun) -> None:
    assert identical.prompt is not None and identical.prompt.exit_code == 0, identical.describe()
    assert identical.ran() == 4, identical.describe()
    calls = identical.by_call()
    result = calls["call_4_0"][0]
    assert result.text.startswith("Error: REPEAT_TOOL_BLOCKED") and "attempt 5" in result.text, result.text


def test_identical_calls_are_reminded_with_their_results(identical: HostRun) -> None:
    calls = identical.by_call()
    for turn in (0, 1):
        assert not any(s.guard for s in calls[f"call_{turn}_0"]), turn
    for turn, count in ((2, "call 3"), (3, "4 times")):
        after = [s for s in calls[f"call_{turn}_0"][1:] if s.guard]
        assert after and after[0].where == "user" and after[0].text.startswith("[loopguard]"), calls[f"call_{turn}_0"]
        assert count in after[0].text


@pytest.fixture(scope="module")
def distinct(droid: NativeHost, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    turns = [[_execute(f"echo {i} >> ran.log; ls")] for i in range(4)]
    turns += [[tool_use("Read", {"file_path": "notes.txt"})], [tool_use("Grep", {"pattern": "beta"})]]
    return _run(droid, tmp_path_factory.mktemp("droid-distinct"), turns)


def test_distinct_calls_hear_nothing(distinct: HostRun) -> None:
    assert distinct.prompt is not None and distinct.prompt.exit_code == 0, distinct.describe()
    assert distinct.ran() == 4
    assert distinct.guard_texts() == []
    assert len(distinct.by_call()) == 6


def test_a_hook_failure_reaches_neither_the_model_nor_the_call(droid: NativeHost, tmp_path: Path) -> None:
    """A broken setting makes every hook event a failure; Droid would put a failing hook's stderr in
    front of the tool result. The guard exits 0 with nothing on stderr and logs why."""
    run = _run(droid, tmp_path, [[_execute(f"echo {i} >> ran.log; cat notes.txt")] for i in range(3)],
               env={"LOOPGUARD_MODE": "sideways"})
    assert run.prompt is not None and run.prompt.exit_code == 0, run.describe()
    assert run.ran() == 3
    texts = [s.text for seen in run.by_call().values() for s in seen]
    assert texts and not any("loopguard-hook" in t for t in texts), texts
    assert "bad config" in run.errors_log()
