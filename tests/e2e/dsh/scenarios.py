"""The scripted model's behaviour for each DSH test: files to create, the task, the script.

DSH's tools and required arguments (dsh 0.1.0-rc.8): `read {file_path}`, `bash {command,
description}`, `write {file_path, content}`, `edit {file_path, old_string, new_string}`,
`grep {pattern, path?}`, `subagent {description, prompt}`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..mock_model import Script, Subscript
from .mock_deepseek import call

SUBTASK = "SUBTASK-READ-NOTES"  # the subagent's task contains it; the mock routes on it


@dataclass(frozen=True)
class Scenario:
    """Files in the workspace, the task given to `dsh`, and what the model does."""

    name: str
    task: str
    script: Script
    files: dict[str, str] = field(default_factory=dict)


def read(path: str) -> dict[str, object]:
    return call("read", {"file_path": path})


def bash(command: str) -> dict[str, object]:
    return call("bash", {"command": command, "description": "run a command"})


NOTES = {"notes.txt": "alpha\nbeta\ngamma\n"}


def same_read(times: int, *, then: tuple[dict[str, object], ...] = ()) -> Scenario:
    """The same `read` of an unchanged file `times` times, one call per turn, then `then` (one per turn)."""
    turns = [[read("notes.txt")] for _ in range(times)] + [[item] for item in then]
    return Scenario(f"read_x{times}", "Summarise notes.txt", Script(turns, final_text="Notes summarised."), NOTES)


def read_loop_past_the_end() -> Scenario:
    """Same read ×8, then a different command, then the read again: what happens after the guard's end of turn."""
    return same_read(8, then=(bash("echo ran >> after.log"), read("notes.txt")))


def failing_bash(times: int) -> Scenario:
    turns = [[bash("cat missing.txt")] for _ in range(times)]
    return Scenario(f"bash_fail_x{times}", "Show missing.txt", Script(turns, final_text="It is missing."), NOTES)


#: A shell command longer than `bigtext.THRESHOLD` (1 MiB): 1.3 MB, words with spaces (where a
#: stand-in cuts its ends); the file it would append to tells whether it ever ran.
BIG_COMMAND = "echo ran >> big.log # " + ("lorem ipsum dolor sit amet " * 48_149)[:1_300_000]


def big_bash(times: int) -> Scenario:
    """The same 1.3 MB `bash` command `times` times, one call per turn (DSH compacts between)."""
    turns = [[bash(BIG_COMMAND)] for _ in range(times)]
    return Scenario(f"big_bash_x{times}", "Run the big command", Script(turns, final_text="Gave up."), NOTES)


def alternate() -> Scenario:
    """read, grep, read, grep … (4 each), every result unchanged."""
    turns = [[read("notes.txt")] if i % 2 == 0 else [call("grep", {"pattern": "alpha", "path": "notes.txt"})] for i in range(8)]
    return Scenario("alternate_ab", "Find alpha in notes.txt", Script(turns, final_text="Found it."), NOTES)


def parallel_identical() -> Scenario:
    """2, then 3 identical reads in one message each, then 4 more one per message (calls 1-2, 3-5, 6-9)."""
    turns = [[read("notes.txt")] * 2, [read("notes.txt")] * 3] + [[read("notes.txt")] for _ in range(4)]
    return Scenario("parallel_identical", "Summarise notes.txt", Script(turns, final_text="Notes summarised."), NOTES)


def subagent_loop(times: int) -> Scenario:
    """The main agent starts one subagent, which reads the same file `times` times."""
    child = Subscript(SUBTASK, [[read("notes.txt")] for _ in range(times)], final_text="Child done.")
    main = [
        [call("subagent", {"description": "read notes", "prompt": f"{SUBTASK}: summarise notes.txt", "run_in_background": False})]
    ]
    return Scenario("subagent", "Delegate the notes", Script(main, final_text="Delegated.", subagents=(child,)), NOTES)


def distinct() -> Scenario:
    """Reads of four different files, then two writes of different files."""
    files = {f"{n}.txt": f"file {n}\n" for n in "abcd"}
    turns = [[read(f"{n}.txt")] for n in "abcd"]
    turns += [[call("write", {"file_path": f"out{i}.txt", "content": f"out {i}\n"})] for i in (1, 2)]
    return Scenario("distinct_calls", "Read every file", Script(turns, final_text="Read all."), files)


def edit_test_cycle() -> Scenario:
    """read app.txt, then (edit x=1→2, cat, edit x=2→1, cat) three times; every edit succeeds."""
    turns = [[read("app.txt")]]
    for _ in range(3):
        turns += [
            [call("edit", {"file_path": "app.txt", "old_string": "x = 1", "new_string": "x = 2"})],
            [bash("cat app.txt")],
            [call("edit", {"file_path": "app.txt", "old_string": "x = 2", "new_string": "x = 1"})],
            [bash("cat app.txt")],
        ]
    return Scenario("edit_test_cycle", "Try both values of x", Script(turns, final_text="Tried both."), {"app.txt": "x = 1\n"})


def parallel_distinct() -> Scenario:
    """Four different reads in one message, then four different commands in one message."""
    files = {f"{n}.txt": f"file {n}\n" for n in "abcd"}
    turns = [[read(f"{n}.txt") for n in "abcd"], [bash(f"wc -c {n}.txt") for n in "abcd"]]
    return Scenario("parallel_distinct", "Read every file", Script(turns, final_text="Read all."), files)
