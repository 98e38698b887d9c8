"""The quick off switch (docs/turning-it-off.md): `mode = "observe"` in the user config file
silences the guard from the next event, with the resident helper already running and no restart
of anything; taking the line out brings the denials back at the next event. Real hook processes
on the README's read loop (captured from Claude Code)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOK = str(Path(sys.executable).with_name("loopguard-hook"))
READ_LOOP = ROOT / "examples" / "sessions" / "claude-code-read-loop.jsonl"


def hook(payload: bytes, state: Path) -> str:
    done = subprocess.run([HOOK, "--state-dir", str(state)], input=payload, capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return done.stdout.decode()


def test_observe_in_the_user_config_silences_the_next_event(tmp_path: Path) -> None:
    assert os.environ.get("LOOPGUARD_RESIDENT") != "off", "the point is a helper that is already running"
    user_config = Path(os.environ["XDG_CONFIG_HOME"]) / "loopguard-hook" / "config.toml"
    events = READ_LOOP.read_bytes().splitlines(keepends=True)
    state = tmp_path / "state"
    answers: list[str] = []
    for event in events:
        answers.append(hook(event, state))
        if "permissionDecision" in answers[-1]:
            break
    assert '"permissionDecision":"deny"' in answers[-1], answers
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('mode = "observe"\n')
    rest = events[len(answers) : -1]  # up to the session's end
    assert json.loads(events[-1])["hook_event_name"] == "SessionEnd"
    assert [hook(event, state) for event in rest] == [""] * len(rest)
    status = subprocess.run([HOOK, "status", "--state-dir", str(state)], capture_output=True, text=True, timeout=60)
    for would in ("deny", "stop"):
        assert f"nothing shown (observe; would {would})" in status.stdout, status.stdout
    user_config.unlink()
    # The last Read ran (observe let it) and came back as the one before (no new evidence); the
    # model reads once more in the same turn.
    last, batch = json.loads(events[-2]), json.loads(events[-3])
    assert (last["hook_event_name"], batch["hook_event_name"]) == ("PreToolUse", "PostToolBatch")
    batch["tool_calls"] = [dict(batch["tool_calls"][0], tool_use_id=last["tool_use_id"])]
    assert hook(json.dumps(batch).encode() + b"\n", state) == ""
    answer = hook(json.dumps(dict(last, tool_use_id="toolu_after_the_switch")).encode() + b"\n", state)
    assert '"continue":false' in answer, answer


@pytest.mark.parametrize("mode", ["observe", "advise"])
def test_the_environment_variable_is_read_by_each_hook_process(tmp_path: Path, mode: str) -> None:
    """`LOOPGUARD_MODE` works for the processes that have it: a host passes its own environment,
    fixed when it started, so setting it takes a restart of the host (which this cannot show)."""
    env = dict(os.environ, LOOPGUARD_MODE=mode)
    state = tmp_path / "state"
    outputs = [
        subprocess.run([HOOK, "--state-dir", str(state)], input=event, capture_output=True, env=env, timeout=60).stdout
        for event in READ_LOOP.read_bytes().splitlines(keepends=True)
    ]
    assert not any(b"permissionDecision" in out or b'"continue":false' in out for out in outputs)
    assert any(b"additionalContext" in out for out in outputs) == (mode == "advise")
