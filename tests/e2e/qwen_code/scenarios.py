"""The scripted model's behaviour for the Qwen Code runs.

Qwen Code 0.24.4's tools and arguments (from a request's `tools`): `read_file {file_path,
offset?, limit?, pages?}`, `run_shell_command {command, description?, is_background?, timeout?,
directory?}`, `edit {file_path, old_string, new_string, replace_all?}`, `write_file {file_path,
content}`, `glob {pattern, path?}`, `grep_search {pattern, glob?, path?, limit?}`, `agent
{description, prompt, subagent_type?, run_in_background?}`. `read_file`, `write_file` and
`edit` reject a relative path before PreToolUse ("File path must be absolute"), so scenarios
take the workspace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..mock_model import Script, Subscript
from ..node_clis import Scenario
from .mock_openai import call

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
    """Each tool once or twice: reads (the second gets the unchanged stub), shell commands (one
    failing), glob, grep, write, edit, a missing file, a relative path (rejected before
    PreToolUse), a parallel batch, and a foreground subagent that reads and runs `cat`."""
    notes = work / "notes.txt"
    turns = [
        [read(notes)],
        [read(notes)],
        [shell("cat notes.txt")],
        [shell("cat missing.txt")],
        [call("glob", {"pattern": "**/*.py"})],
        [call("grep_search", {"pattern": "beta"})],
        [call("write_file", {"file_path": str(work / "new.txt"), "content": "one\ntwo\n"})],
        [call("edit", {"file_path": str(work / "new.txt"), "old_string": "two", "new_string": "three"})],
        [read(work / "missing.txt")],
        [read("notes.txt")],
        [read(notes), read(notes), shell("echo batch")],
        [
            call(
                "agent",
                {
                    "description": "Read the notes",
                    "prompt": f"{SUBTASK}: read notes.txt and report",
                    "subagent_type": "general-purpose",
                    "run_in_background": False,
                },
            )
        ],
    ]
    sub = Subscript(SUBTASK, [[read(notes)], [shell("cat notes.txt")]], final_text="The notes say alpha, beta, gamma.")
    files = NOTES | {"src/app.py": "print('hello')\n"}
    script = Script(turns, final_text="All done.", subagents=(sub,))
    return Scenario("capture_all", "Look at notes.txt and tidy up the project.", script, files)
