"""The hook process's own input and output: a payload too big to be one, a closed stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).parent.parent / "examples" / "payloads" / "claude-code-2.1.332"
EXE = Path(sys.executable).with_name("loopguard-hook")


def test_an_endless_stdin_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([str(EXE), "--state-dir", str(tmp_path)], stdin=zero, capture_output=True, timeout=30)
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr.decode().splitlines() == [
        "loopguard-hook: bad payload: larger than 134217728 bytes; the call was let through"
    ]


def test_a_decision_written_to_a_closed_stdout_is_said(tmp_path: Path) -> None:
    pre, post = (json.loads((EXAMPLES / name).read_text()) for name in ("PreToolUse.Read.json", "PostToolUse.Read.json"))
    env = dict(os.environ)
    for i in range(2):
        for payload in (pre, post):
            payload["tool_use_id"] = f"t{i}"
            subprocess.run([str(EXE), "--state-dir", str(tmp_path)], input=json.dumps(payload).encode(), env=env,
                           capture_output=True, timeout=30, check=True)
    pre["tool_use_id"] = "t2"  # the third identical call is reminded
    proc = subprocess.run(f'"{EXE}" --state-dir "{tmp_path}" >&-', shell=True, input=json.dumps(pre).encode(),
                          capture_output=True, timeout=30, env=env)
    assert proc.returncode == 1
    assert proc.stderr.decode().splitlines() == [
        "loopguard-hook: standard output is closed; the decision was not delivered; the call was let through"
    ]


def test_the_fast_entry_knows_every_client() -> None:
    """`_entry` spells the client names out (the fast path imports no payload module)."""
    from loopguard_hook import entry as _entry
    from loopguard_hook.core.event import Client

    assert _entry._CLIENTS == ("auto", *(c.value for c in Client))


def test_a_whole_jsonl_file_on_stdin_is_pointed_at_replay(tmp_path: Path) -> None:
    """`loopguard-hook < session.jsonl` (the README's loop, captured from Claude Code) is one line
    that says what went wrong and which command reads such a file; one bad JSON text is not."""
    session = Path(__file__).parent.parent / "examples" / "sessions" / "claude-code-read-loop.jsonl"
    proc = subprocess.run([str(EXE), "--state-dir", str(tmp_path)], input=session.read_bytes(), capture_output=True, timeout=30)
    [line] = proc.stderr.decode().splitlines()
    assert proc.returncode == 1 and proc.stdout == b""
    assert line.startswith("loopguard-hook: bad payload: payload is not valid JSON: unexpected content after document")
    assert line.endswith("several JSON lines on stdin, and the hook reads one payload per event "
                         "(for a file of payloads or a transcript: `loopguard-hook replay FILE`)")
    proc = subprocess.run([str(EXE), "--state-dir", str(tmp_path)], input=b'{"a": 1} x', capture_output=True, timeout=30)
    assert proc.returncode == 1 and "replay" not in proc.stderr.decode()
