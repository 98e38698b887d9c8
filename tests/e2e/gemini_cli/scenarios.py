"""The scripted model's behaviour for the Gemini CLI runs.

Gemini CLI 0.61.0's tools and arguments (from a request's `functionDeclarations`): `read_file
{file_path, start_line?, end_line?}` (relative paths accepted), `run_shell_command {command,
description?, dir_path?, is_background?}`, `replace {file_path, instruction, old_string,
new_string}`, `write_file {file_path, content}`, `glob {pattern}`, `grep_search {pattern}`,
`list_directory {dir_path}`, `invoke_agent {agent_name, prompt}` (agent `generalist`). A
subagent must end with `complete_task {result: {response}}`, or its parent gets "Termination
Reason: ERROR_NO_COMPLETE_TASK_CALL".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..mock_model import Script, Subscript
from ..node_clis import Scenario
from .mock_gemini import call

NOTES = {"notes.txt": "alpha\nbeta\ngamma\n"}
#: Each run of it leaves one line in `ran.log`: how many calls really ran.
COUNTED_SHELL = "echo ran >> ran.log; cat notes.txt"
SUBTASK = "SUBTASK-READ-NOTES"  # the subagent's task contains it; the mock routes on it


def shell(command: str) -> dict[str, Any]:
    return call("run_shell_command", {"command": command, "description": "Show notes"})


def read(path: Path | str) -> dict[str, Any]:
    return call("read_file", {"file_path": str(path)})


def same_shell(times: int) -> Scenario:
    """The same counted shell command `times` times, one call per turn."""
    turns = [[shell(COUNTED_SHELL)] for _ in range(times)]
    return Scenario(f"shell_x{times}", "Check the notes with the shell.", Script(turns, final_text="Notes checked."), NOTES)


def warmed_shell(times: int) -> Scenario:
    """`same_shell(times)` after one other shell command (`pwd`): the host's first shell call of a
    run now and then comes back without its output on a loaded machine (`node_clis.LOST_OUTPUT`,
    seen in CI twice in a row), which would be another outcome among the identical calls."""
    turns = [[shell("pwd")]] + [[shell(COUNTED_SHELL)] for _ in range(times)]
    return Scenario(f"warm_shell_x{times}", "Check the notes with the shell.", Script(turns, final_text="Notes checked."), NOTES)


def capture_all(work: Path) -> Scenario:
    """Each tool once or twice: reads, shell commands (one exiting 1), glob, grep, a directory
    listing, write, replace, a missing file, a read without arguments (rejected before
    BeforeTool), a parallel batch, and the generalist subagent reading and running `cat`."""
    turns = [
        [read("notes.txt")],
        [read("notes.txt")],
        [shell("cat notes.txt")],
        [shell("cat missing.txt")],
        [call("glob", {"pattern": "**/*.py"})],
        [call("grep_search", {"pattern": "beta"})],
        [call("list_directory", {"dir_path": "."})],
        [call("write_file", {"file_path": "new.txt", "content": "one\ntwo\n"})],
        [
            call(
                "replace",
                {"file_path": "new.txt", "instruction": "Change two to three", "old_string": "two", "new_string": "three"},
            )
        ],
        [read("missing.txt")],
        [call("read_file", {})],
        [read(work / "notes.txt"), read(work / "notes.txt"), shell("echo batch")],
        [call("invoke_agent", {"agent_name": "generalist", "prompt": f"{SUBTASK}: read notes.txt and report"})],
    ]
    sub = Subscript(
        SUBTASK,
        [
            [read("notes.txt")],
            [shell("cat notes.txt")],
            [call("complete_task", {"result": {"response": "The notes say alpha, beta, gamma."}})],
        ],
        final_text="The notes say alpha, beta, gamma.",
    )
    files = NOTES | {"src/app.py": "print('hello')\n"}
    script = Script(turns, final_text="All done.", subagents=(sub,))
    return Scenario("capture_all", "Look at notes.txt and tidy up the project.", script, files)
