"""loopguard-hook in the real Qwen Code 0.24.4, registered by `loopguard-hook install --client
qwen-code` (the console script next to this Python), judged by what the scripted model receives
next:

- the same call in a row is reminded at the 3rd (appended to its result after a blank line: Qwen
  ignores PreToolUse context) and denied at the 4th (the denial is the 4th call's result, the
  command does not run), before Qwen's own halt at the 5th; the UserPromptSubmit Qwen fires
  before every continuation resets nothing;
- a repeated `read_file`, whose result is Qwen's "unchanged since last read" stub from the 2nd on,
  is denied at the 4th as well;
- distinct calls hear nothing;
- an end of turn (here `stop_at = 5` over two alternating calls, which Qwen's own guard does not
  halt) is a denial that pauses tools; a tool called all the same is denied, and the next
  continuation's UserPromptSubmit ends the turn: no further model request;
- edits whose old text the file never holds are denied at the 5th, and the denial names the file
  by the path the edits used.
"""

from __future__ import annotations

from typing import Any

import pytest

from .. import ledger
from ..clients import Workspace
from ..mock_model import Script
from ..node_clis import HostRun, Scenario, install_guard, once_more_if_output_lost
from . import scenarios
from .host import QwenCode
from .mock_openai import call
from .model_view import calls

pytestmark = pytest.mark.e2e

NOTES = scenarios.NOTES
REMINDER = "[loopguard] You are repeating yourself: this is call 3 of "


def guarded(qwen_code: QwenCode, ws: Workspace, scenario: Scenario, **settings: str) -> HostRun:
    """`scenario` run with the guard as `install` registers it; `settings` as LOOPGUARD_* variables."""
    scenario.prepare(ws)
    install_guard(ws, "qwen-code")
    env = {"LOOPGUARD_STATE_DIR": str(ws.state)} | {f"LOOPGUARD_{k.upper()}": v for k, v in settings.items()}
    run = qwen_code.run(ws, scenario.script, scenario.prompt, command=None, extra_env=env)
    assert not run.timed_out, run.describe()
    assert ledger.errors(ws) == "", ledger.errors(ws)
    return run



def repeated_shell(host: QwenCode, ws: Workspace, times: int) -> tuple[HostRun, Workspace]:
    """`scenarios.warmed_shell(times)` guarded, and its workspace (`node_clis.once_more_if_output_lost`)."""
    return once_more_if_output_lost(
        lambda w: guarded(host, w, scenarios.warmed_shell(times)), ws,
        lambda run: [c.result for c in calls(run.conversation())[1:]], NOTES["notes.txt"],
    )


def audit(ws: Workspace) -> list[tuple[str, str, str]]:
    """(event, action, rule) of every intervention in decisions.jsonl."""
    return [(r["event"], r["action"], r["rule"]) for r in ledger.audit(ws)]


def guard_texts(run: HostRun) -> list[str]:
    """Every text the model received that the guard wrote."""
    texts: list[str] = []
    for body in run.conversation():
        for message in body.get("messages") or []:
            text = str(message.get("content"))
            if "loopguard" in text or "REPEAT_TOOL_BLOCKED" in text or "LOOP_GUARD" in text:
                texts.append(text)
    return texts


def test_identical_shell_calls_are_reminded_then_denied_before_qwens_own_halt(qwen_code: QwenCode, ws: Workspace) -> None:
    run, ws = repeated_shell(qwen_code, ws, 4)
    assert run.exit_code == 0 and "Loop detection" not in run.stderr, run.describe()
    _, first, second, third, fourth = calls(run.conversation())  # after the warm-up call
    assert "loopguard" not in first.result + second.result
    # On failure, what the guard recorded tells a late answer (the deadline, or Qwen Code's 10 s
    # hook timeout on a loaded machine: a decision logged but not delivered) from a wrong count.
    assert third.result.startswith("Command: echo ran >> ran.log") and f"\n\n{REMINDER}run_shell_command" in third.result, (
        third.result, audit(ws), run.stderr[-2000:])
    assert fourth.result.startswith("REPEAT_TOOL_BLOCKED: this run_shell_command call is identical"), (
        fourth.result, audit(ws), run.stderr[-2000:])
    assert fourth.result.endswith("conclude and answer the user with what is known")  # exactly the denial
    assert run.ran() == 3  # the 4th never ran
    assert audit(ws) == [("PostToolUse", "remind", "LOOP_GUARD_REPEAT"), ("PreToolUse", "deny", "LOOP_GUARD_REPEAT")]
    assert ledger.only_session(ws)["client"] == "qwen-code"


def test_identical_reads_of_an_unchanged_file_are_denied_by_the_fourth(qwen_code: QwenCode, ws: Workspace) -> None:
    notes = ws.work / "notes.txt"
    turns = [[scenarios.read(notes)] for _ in range(4)]
    run = guarded(qwen_code, ws, Scenario("read_x4", "Read the notes.", Script(turns, final_text="Read."), NOTES))
    assert run.exit_code == 0, run.describe()
    results = [c.result for c in calls(run.conversation())]
    assert "unchanged since last read" in results[1]  # Qwen's stub, no new evidence
    assert REMINDER + "read_file" in results[2]
    assert results[3].startswith("REPEAT_TOOL_BLOCKED: this read_file call"), results[3]


def test_distinct_calls_hear_nothing(qwen_code: QwenCode, ws: Workspace) -> None:
    work = ws.work
    turns: list[list[dict[str, Any]]] = [
        [scenarios.read(work / "notes.txt")],
        [scenarios.read(work / "src/app.py")],
        [scenarios.shell("ls")],
        [scenarios.shell("cat missing.txt")],
        [call("glob", {"pattern": "**/*.py"})],
        [call("grep_search", {"pattern": "beta"})],
        [call("write_file", {"file_path": str(work / "new.txt"), "content": "one\ntwo\n"})],
        [call("edit", {"file_path": str(work / "new.txt"), "old_string": "two", "new_string": "three"})],
        [scenarios.shell("cat new.txt")],
    ]
    files = NOTES | {"src/app.py": "print('hello')\n"}
    run = guarded(qwen_code, ws, Scenario("distinct", "Tidy up.", Script(turns, final_text="Tidied."), files))
    assert run.exit_code == 0, run.describe()
    assert len(calls(run.conversation())) == 9
    assert guard_texts(run) == [] and audit(ws) == []
    assert (work / "new.txt").read_text() == "one\nthree\n"


def test_an_end_of_turn_pauses_tools_and_the_next_continuation_ends_the_turn(qwen_code: QwenCode, ws: Workspace) -> None:
    notes = ws.work / "notes.txt"
    read, shell = scenarios.read(notes), scenarios.shell("cat notes.txt")
    turns = [[read], [shell]] * 5 + [[call("glob", {"pattern": "*.txt"})], [call("glob", {"pattern": "*.md"})]]
    scenario = Scenario("end_of_turn", "Look at the notes.", Script(turns, final_text="Never sent."), NOTES)
    run = guarded(qwen_code, ws, scenario, deny_at="4", stop_at="5")
    assert run.exit_code == 0 and run.stdout.strip() == "", run.describe()
    bodies = run.conversation()
    assert len(bodies) == 11, run.describe()  # the request after the glob call never came
    seen = calls(bodies)
    assert [c.name for c in seen[-2:]] == ["read_file", "run_shell_command"]
    assert seen[-1].result.startswith("REPEAT_TOOL_BLOCKED: this run_shell_command call")
    assert "Tool calls are now paused for the rest of this turn" in seen[-1].result
    assert audit(ws)[-3:] == [
        ("PreToolUse", "deny", "LOOP_GUARD_END_TURN"),
        ("PreToolUse", "deny", "LOOP_GUARD_STOP"),  # the glob, in answer-only mode
        ("UserPromptSubmit", "stop", "LOOP_GUARD_STOP"),  # the continuation: the turn ends
    ]


def test_edits_that_never_match_are_denied_with_the_files_own_path(qwen_code: QwenCode, ws: Workspace) -> None:
    """Five `edit` calls of calc.py whose old text the file never holds (varied a little each
    time), after one read: the 5th is denied (LOOP_GUARD_TARGET), and the denial tells the model
    to read the file by the path its calls used. It once named the rule's key, `work/calc.py`,
    a path that does not exist from the workspace (a new user's session)."""
    calc = ws.work / "calc.py"
    turns = [[scenarios.read(calc)]] + [
        [call("edit", {"file_path": str(calc), "old_string": f"return a - b  # v{n}", "new_string": "return a + b"})]
        for n in range(5)
    ]
    files = NOTES | {"calc.py": "def add(a, b):\n    return a - b\n"}
    run = guarded(qwen_code, ws, Scenario("edit_never_matches", "Fix add.", Script(turns, final_text="Stopped."), files))
    assert run.exit_code == 0, run.describe()
    fifth = calls(run.conversation())[5].result
    assert fifth.startswith(f"REPEAT_TOOL_BLOCKED: this edit of {calc} was not run"), (fifth, audit(ws))
    assert f"Read {calc} first" in fifth and "Read work/calc.py" not in fifth, fifth
    assert ("PreToolUse", "deny", "LOOP_GUARD_TARGET") in audit(ws)
    assert calc.read_text() == "def add(a, b):\n    return a - b\n"
