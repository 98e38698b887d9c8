"""The Codex rollout reader of the calls no hook sees (`hosts/rollout.py`): real records of a hung
`dotnet build` and its `write_stdin` polls (trimmed from a corpus rollout of Codex 0.111.0), read
incrementally from a real file as the hook reads them."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from loopguard_hook.core.event import Unhooked
from loopguard_hook.core.ledger import Tail
from loopguard_hook.hosts.rollout import command_state, read_unhooked, seconds, unhooked_items

DATA = Path(__file__).parent / "data" / "transcripts" / "codex-hung-build.jsonl"
LINES = DATA.read_bytes().splitlines(keepends=True)


def test_each_real_record_says_what_it_is() -> None:
    items = [item for line in LINES for item in unhooked_items(json.loads(line))]
    assert [(i.kind, i.session, i.empty, i.code) for i in items] == [
        ("command", None, False, None),
        ("output", 21283, False, None),  # left running, after printing its warnings
        ("poll", 21283, False, None),
        ("output", 21283, True, None),
        ("poll", 21283, False, None),
        ("output", 21283, True, None),
        ("poll", 21283, False, None),  # the Ctrl-C; its answer ("write_stdin failed: …") has no header
        ("command", None, False, None),
        ("output", 60363, True, None),
        ("poll", 60363, False, None),
        ("output", 60363, True, None),
    ]
    assert items[0].text == "dotnet build MicroCalc.sln --configuration Release --no-restore"
    assert items[6].text == "\u0003" and items[2].text == ""
    assert items[3].time == seconds("2026-03-06T15:18:31.065Z")


def test_command_output_headers() -> None:
    head = "Chunk ID: 1cf850\nWall time: 120.0018 seconds\n"
    running = head + "Process running with session ID 21283\nOriginal token count: 0\nOutput:\n"
    assert command_state(running) == (21283, None, True)
    exited = head + "Process exited with code 255\nOriginal token count: 842\nOutput:\nTimeoutException"
    assert command_state(exited) == (None, 255, False)
    assert command_state("Exit code: 0\nWall time: 0 seconds\nOutput:\n  \n") == (None, 0, True)
    assert command_state("write_stdin failed: stdin is closed for this session") is None


def test_rollout_timestamps() -> None:
    for stamp in ("2026-03-06T15:16:31.062Z", "2000-02-29T23:59:59Z", "1970-01-01T00:00:00.000Z"):
        assert seconds(stamp) == datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    assert seconds("2026-03-06 15:16:31") is None and seconds(1772810191) is None and seconds("2026-13-06T15:16:31Z") is None
    # `float` reads these: an infinite time saved as `null` broke the next event (a hostile review)
    for bad in ("2026-03-06T15:16:infZ", "2026-03-06T15:16:nanZ", "2026-03-06T15:16:-infZ", "2026-03-06T25:16:31Z"):
        assert seconds(bad) is None, bad


def test_read_from_the_cursor_whole_lines_only(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-03-06T15-07-24-019cc379.jsonl"
    path.write_bytes(b"".join(LINES[:3]))
    tail: Tail = {}
    assert read_unhooked(tail, str(path), 1 << 20) == []  # first sight: only what is written from now on
    assert tail["offset"] == os.path.getsize(path)
    with open(path, "ab") as fh:
        fh.write(b"".join(LINES[3:7]) + LINES[7][:40])  # a line still being written
    got = read_unhooked(tail, str(path), 1 << 20)
    assert [i.kind for i in got] == ["command", "output", "poll", "output"]
    with open(path, "ab") as fh:
        fh.write(LINES[7][40:])
    second = Unhooked("poll", "call_QkfH9XB15Jz0qoczHEMy2yJ2", seconds("2026-03-06T15:18:34.752Z"), 21283)
    assert read_unhooked(tail, str(path), 1 << 20) == [second]
    assert read_unhooked(tail, str(path), 1 << 20) == []


def test_records_skipped_past_the_budget_are_a_gap(tmp_path: Path) -> None:
    """More written since the last event than the reader reads at once (a chatty dev server's
    polls): it skips to the last `budget` bytes, and says so first (a hostile review: a skipped
    output that cleared a hang left the command denied)."""
    path = tmp_path / "rollout-2026-03-06T15-07-24-019cc379.jsonl"
    path.write_bytes(LINES[0])
    tail: Tail = {}
    assert read_unhooked(tail, str(path), 4096) == []
    with open(path, "ab") as fh:
        fh.write(b"".join(LINES[1:8]))
    budget = len(LINES[7]) + 10
    got = read_unhooked(tail, str(path), budget)
    assert got[0] == Unhooked("gap", "") and [i.kind for i in got[1:]] == ["poll"], got
    with open(path, "ab") as fh:
        fh.write(LINES[3])
    assert [i.kind for i in read_unhooked(tail, str(path), budget + 4096)] == ["command"]  # within the budget: no gap
    assert read_unhooked(tail, str(path), 4096) == []
    path.write_bytes(LINES[0] + LINES[1])  # cut short in place and written again
    assert read_unhooked(tail, str(path), 4096)[0] == Unhooked("gap", "")


def test_a_cursor_of_another_shape_starts_again_at_the_end(tmp_path: Path) -> None:
    """A damaged or hand-edited ledger's cursor (`"x"`, `1.5`, `true`, `-3`): read as a file not
    seen yet, never raised on (it was, at every event, and rollout reading stayed off)."""
    path = tmp_path / "rollout-2026-03-06T15-07-24-019cc379.jsonl"
    path.write_bytes(b"".join(LINES[:3]))
    for bad in ("x", 1.5, True, -3, None):
        tail: Tail = {}
        read_unhooked(tail, str(path), 4096)
        tail["offset"] = bad  # type: ignore[typeddict-item]
        assert read_unhooked(tail, str(path), 4096) == [] and tail["offset"] == os.path.getsize(path), bad
        with open(path, "ab") as fh:
            fh.write(LINES[3])
        assert [i.kind for i in read_unhooked(tail, str(path), 4096)] == ["command"], bad


def test_no_file_or_no_path_reads_nothing(tmp_path: Path) -> None:
    tail: Tail = {}
    assert read_unhooked(tail, str(tmp_path / "missing.jsonl"), 4096) == [] and tail == {}
    assert read_unhooked(tail, None, 4096) == []


def test_a_policy_refusal_that_names_its_command_is_read_as_one() -> None:
    """Codex 0.115-0.119 write `exec_command failed for `CMD`: CreateProcess { … Rejected(…) }`
    (public rollout of 0.115.0-alpha.27); 0.171.0 leaves the `for `CMD`` out. Both are refusals,
    read without the command line."""
    command = "/bin/bash -lc 'rm -rf /w/__pycache__'"
    rejected = f'Rejected(\\"`{command}` rejected: blocked by policy\\")'
    refused = f'exec_command failed for `{command}`: CreateProcess {{ message: "{rejected}" }}'
    record = {"timestamp": "2026-03-17T22:31:15.991Z", "type": "response_item",
              "payload": {"type": "function_call_output", "call_id": "call_p", "output": refused}}
    (item,) = unhooked_items(record)
    assert (item.kind, item.text) == ("refused", "exec_command failed: rejected: blocked by policy")
    record["payload"]["output"] = refused.replace(f"failed for `{command}`:", "failed:")
    assert [(i.kind, i.text) for i in unhooked_items(record)] == [("refused", "exec_command failed: rejected: blocked by policy")]
    # a command whose own output starts so is no refusal: it ran and printed it
    record["payload"]["output"] = "Exit code: 0\nWall time: 0 seconds\nOutput:\n" + refused
    assert [i.kind for i in unhooked_items(record)] == ["output"]


def test_a_patch_the_read_only_sandbox_refused_is_read_as_a_refusal(tmp_path: Path) -> None:
    """Codex 0.171.0 under `-s read-only` answers apply_patch "patch rejected: writing is blocked
    by read-only sandbox; …" in a `custom_tool_call_output` and fires no post event: the reader
    gives it as a refusal. A patch that applied, the user's own "patch rejected by user" and a
    command whose output holds the words are none."""
    rejected = "patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings"
    def record(kind: str, output: str) -> dict:  # type: ignore[type-arg]
        return {"timestamp": "2026-12-06T22:08:55.013Z", "type": "response_item",
                "payload": {"type": kind, "call_id": "call_2_0", "output": output}}
    (item,) = unhooked_items(record("custom_tool_call_output", rejected))
    assert (item.kind, item.call_id, item.text) == ("refused", "call_2_0", rejected)
    assert unhooked_items(record("custom_tool_call_output", "Success. Updated the following files:\nM calc.py\n")) == []
    assert unhooked_items(record("custom_tool_call_output", "patch rejected by user")) == []
    assert [i.kind for i in unhooked_items(record("function_call_output", "Exit code: 0\nOutput:\n" + rejected))] == ["output"]
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(json.dumps(record("custom_tool_call_output", rejected)) + "\n")
    tail: Tail = {}
    read_unhooked(tail, str(rollout), 4096)  # the cursor starts at the end
    with rollout.open("a") as f:
        f.write(json.dumps(record("custom_tool_call_output", rejected)) + "\n")
    assert [i.kind for i in read_unhooked(tail, str(rollout), 4096)] == ["refused"]
