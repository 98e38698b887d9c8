"""loopguard-hook in the real Gemini CLI 0.61.0, registered by `loopguard-hook install --client
gemini-cli` (the console script next to this Python), judged by what the scripted model receives
next:

- the same call in a row is reminded at the 3rd (inside its result as `<hook_context>`: Gemini
  ignores BeforeTool context) and denied at the 4th with Gemini's own form (`decision: "deny"`;
  the model reads `Tool execution blocked: REPEAT_TOOL_BLOCKED…` and the command does not run),
  before Gemini's own cut at the 5th;
- distinct calls hear nothing;
- the registered command cannot block a call when loopguard-hook is missing (Gemini denies
  every call on an exit of 2 or more, a missing command's 127 included);
- an end of turn (here `stop_at = 5` over a read repeated between differing shell commands,
  which Gemini's own guard does not cut) denies the call and ends the run: no further model
  request.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

from .. import ledger
from ..clients import Workspace
from ..mock_model import Script
from ..node_clis import HostRun, Scenario, install_guard, once_more_if_output_lost
from . import scenarios
from .host import GeminiCli
from .mock_gemini import call
from .model_view import calls, hook_contexts

pytestmark = pytest.mark.e2e

NOTES = scenarios.NOTES
REMINDER = "[loopguard] You are repeating yourself: this is call 3 of "
BLOCKED = "Tool execution blocked: REPEAT_TOOL_BLOCKED: this "


def guarded(
    gemini_cli: GeminiCli, ws: Workspace, scenario: Scenario, env: dict[str, str] | None = None, **settings: str
) -> HostRun:
    """`scenario` run with the guard as `install` registers it; `settings` as LOOPGUARD_* variables."""
    scenario.prepare(ws)
    install_guard(ws, "gemini-cli")
    extra = {"LOOPGUARD_STATE_DIR": str(ws.state)} | {f"LOOPGUARD_{k.upper()}": v for k, v in settings.items()}
    run = gemini_cli.run(ws, scenario.script, scenario.prompt, command=None, extra_env=extra | (env or {}))
    assert not run.timed_out, run.describe()
    assert ledger.errors(ws) == "", ledger.errors(ws)
    return run



def repeated_shell(host: GeminiCli, ws: Workspace, times: int) -> tuple[HostRun, Workspace]:
    """`scenarios.warmed_shell(times)` guarded, and its workspace (`node_clis.once_more_if_output_lost`)."""
    return once_more_if_output_lost(
        lambda w: guarded(host, w, scenarios.warmed_shell(times)), ws,
        lambda run: [c.result for c in calls(run.conversation())[1:]], NOTES["notes.txt"],
    )


def audit(ws: Workspace) -> list[tuple[str, str, str]]:
    """(event, action, rule) of every intervention in decisions.jsonl (the guard's event names)."""
    return [(r["event"], r["action"], r["rule"]) for r in ledger.audit(ws)]


def test_identical_shell_calls_are_reminded_then_denied_before_geminis_own_cut(gemini_cli: GeminiCli, ws: Workspace) -> None:
    run, ws = repeated_shell(gemini_cli, ws, 4)
    assert run.exit_code == 0 and "Potential loop detected" not in str(run.requests[-1].body), run.describe()
    _, first, second, third, fourth = calls(run.conversation())  # after the warm-up call
    assert hook_contexts(first.result + second.result) == []
    assert not third.error and [c for c in hook_contexts(third.result) if c.startswith(REMINDER + "run_shell_command")]
    assert fourth.error and fourth.result.startswith(BLOCKED + "run_shell_command call is identical"), fourth.response
    assert run.ran() == 3  # the 4th never ran
    assert audit(ws) == [("PostToolUse", "remind", "LOOP_GUARD_REPEAT"), ("PreToolUse", "deny", "LOOP_GUARD_REPEAT")]
    assert ledger.only_session(ws)["client"] == "gemini-cli"


def test_distinct_calls_hear_nothing(gemini_cli: GeminiCli, ws: Workspace) -> None:
    turns: list[list[dict[str, Any]]] = [
        [scenarios.read("notes.txt")],
        [scenarios.read("src/app.py")],
        [scenarios.shell("ls")],
        [scenarios.shell("cat missing.txt")],
        [call("list_directory", {"dir_path": "."})],
        [call("write_file", {"file_path": "new.txt", "content": "one\ntwo\n"})],
        [call("replace", {"file_path": "new.txt", "instruction": "two to three", "old_string": "two", "new_string": "three"})],
        [scenarios.shell("cat new.txt")],
    ]
    files = NOTES | {"src/app.py": "print('hello')\n"}
    run = guarded(gemini_cli, ws, Scenario("distinct", "Tidy up.", Script(turns, final_text="Tidied."), files))
    assert run.exit_code == 0, run.describe()
    seen = calls(run.conversation())
    assert len(seen) == 8 and all(hook_contexts(c.result) == [] and "REPEAT_TOOL" not in c.result for c in seen)
    assert audit(ws) == []
    assert (ws.work / "new.txt").read_text() == "one\nthree\n"


def test_identical_calls_of_one_reply_are_one_attempt(gemini_cli: GeminiCli, ws: Workspace) -> None:
    """Three identical `read_file` calls in one reply run in parallel: their BeforeTool hooks
    start within milliseconds, and Gemini sends no call id, so each took the others' entry in
    the ledger and the third was reminded "call 3" inside its result. They are one attempt."""
    turns: list[list[dict[str, Any]]] = [[scenarios.read("notes.txt")] * 3]
    run = guarded(gemini_cli, ws, Scenario("parallel", "Study the notes.", Script(turns, final_text="Read."), NOTES))
    assert run.exit_code == 0, run.describe()
    seen = calls(run.conversation())
    assert len(seen) == 3 and all(hook_contexts(c.result) == [] and not c.error for c in seen), run.describe()
    assert audit(ws) == []


def test_the_registered_command_lets_every_call_through_when_loopguard_hook_is_missing(
    gemini_cli: GeminiCli, ws: Workspace
) -> None:
    path = os.pathsep.join([str(gemini_cli.installed.node.parent), "/usr/bin", "/bin"])
    if shutil.which("loopguard-hook", path=path):
        pytest.skip("loopguard-hook is installed system-wide here")
    run = guarded(gemini_cli, ws, scenarios.same_shell(2), env={"PATH": path})
    assert run.exit_code == 0, run.describe()
    assert run.ran() == 2 and not any(c.error for c in calls(run.conversation()))
    assert "command not found" in (ws.root / "gemini.stderr").read_text() or not (ws.state / "sessions").exists()


def test_an_end_of_turn_denies_the_call_and_ends_the_run(gemini_cli: GeminiCli, ws: Workspace) -> None:
    """The same read between shell commands that differ but print the same (no new result):
    Gemini's own guard cuts a call repeated 5 times in a row, or a cycle of up to 5 calls
    repeated 5 times, and this is neither; the guard ends the run at the 6th read."""
    turns = []
    for i in range(1, 6):
        turns += [[scenarios.read("notes.txt")], [scenarios.shell(f"head -n {10 + i} notes.txt")]]
    turns += [[scenarios.read("notes.txt")], [call("glob", {"pattern": "*.md"})]]
    scenario = Scenario("end_of_turn", "Look at the notes.", Script(turns, final_text="Never sent."), NOTES)
    run = guarded(gemini_cli, ws, scenario, deny_at="4", stop_at="5")
    assert run.exit_code == 0, run.describe()
    bodies = run.conversation()
    assert len(bodies) == 11, run.describe()  # the 11th call ended the run: no request with its result
    reads = [c for c in calls(bodies) if c.name == "read_file"]
    assert [c.error for c in reads] == [False, False, False, False, True]
    assert reads[-1].result.startswith(BLOCKED + "read_file call")
    assert "Agent execution stopped by hook: loopguard ended the turn" in run.stderr, run.stderr[-2000:]
    assert audit(ws)[-1] == ("PreToolUse", "stop", "LOOP_GUARD_END_TURN")
