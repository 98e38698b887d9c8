"""Bounded growth: a ledger stays small however long the session, the audit log rotates at
`audit_log_max_bytes`, and `gc` keeps the state directory bounded over 10,000 sessions.

Contract (behavior.md section 8): "The file stays small whatever the session length (bounded
ledger; digests, not outputs)"; the audit log is "bounded"; `gc --older-than` deletes the state
of idle sessions.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from test_hardening_helpers import HOOK, dumps, load_state, post, pre

from loopguard_hook.hook import HookOptions, run
from loopguard_hook.store import session_file_name

T0 = 1_800_000_000.0
AUDIT_MAX = 4096  # the smallest value config accepts
ENV = {"LOOPGUARD_AUDIT_LOG_MAX_BYTES": str(AUDIT_MAX)}


def _send(options: HookOptions, payload: dict[str, object], now: float) -> None:
    result = run(dumps(payload), options=options, environ=ENV, clock=lambda: now, user_config="")
    assert result.exit_code == 0, result.stderr


def _audit_files(state: Path) -> dict[str, int]:
    return {name: (state / name).stat().st_size for name in os.listdir(state) if name.startswith("decisions.jsonl")}


def _assert_audit_bounded(state: Path) -> None:
    files = _audit_files(state)
    assert set(files) <= {"decisions.jsonl", "decisions.jsonl.1"}, files
    longest = max(len(line) + 1 for name in files for line in (state / name).read_bytes().splitlines())
    for name, size in files.items():
        assert size <= AUDIT_MAX + longest, f"{name} is {size} bytes"


def test_a_long_session_keeps_a_small_ledger_and_the_audit_log_rotates(tmp_path: Path) -> None:
    state = tmp_path / "state"
    options = HookOptions(state_dir=str(state))
    now = T0
    sizes = []
    for i in range(120):
        agent = {"agent_id": f"a{i % 12:016x}"} if i % 3 else {}
        command = f"grep -rn 'pattern {i}' src/ " + "x" * 400
        response = {"stdout": f"result {i}\n" + "line of output\n" * 400, "stderr": ""}
        for repeat in range(2 if i % 10 else 6):  # every tenth call repeats until denied
            now += 2.0
            tid = f"toolu_{i}_{repeat}"
            _send(options, pre("claude-code", "long", "Bash", {"command": command}, tid, **agent), now)
            _send(options, post("claude-code", "long", "Bash", {"command": command}, tid, response, **agent), now + 0.5)
        sizes.append((state / "sessions" / "long.json").stat().st_size)
    ledger = load_state(state, "long")
    assert ledger["attempts"] == 12 * 6 + 108 * 2
    # Bounded: the last hundred calls did not grow it, and it stays far below one response.
    assert max(sizes) < 96 * 1024, f"ledger grew to {max(sizes)} bytes"
    assert max(sizes[90:]) <= max(sizes[60:90]) * 1.2, sizes[60:]
    _assert_audit_bounded(state)
    assert "decisions.jsonl.1" in _audit_files(state), "the audit log never rotated"
    print(
        f"\nlong session: 288 calls over 12 agents, ledger peaks at {max(sizes) // 1024} KiB; audit log "
        f"{_audit_files(state)} bytes with audit_log_max_bytes={AUDIT_MAX}"
    )


@pytest.mark.slow
def test_gc_keeps_the_state_directory_bounded_over_10000_sessions(tmp_path: Path) -> None:
    """Ten waves of 1,000 sessions; after each wave the previous one is idle for 2 h and
    `loopguard-hook gc --older-than 1h` (the real console script) removes it."""
    state = tmp_path / "state"
    sessions_dir = state / "sessions"
    options = HookOptions(state_dir=str(state))
    waves, per_wave = 10, 1000
    peak_files = peak_bytes = 0
    gc_seconds = []
    started = time.monotonic()
    for wave in range(waves):
        for n in range(per_wave):
            session = f"wave{wave}-{n:04d}-" + "0f6c2d8e-4e77-84b5"
            for i in range(3):  # the third identical call is reminded: one audit line per session
                _send(options, pre("claude-code", session, "Bash", {"command": "ls"}, f"toolu_{i}"), T0 + 5 * i)
        entries = os.listdir(sessions_dir)
        total = sum((sessions_dir / e).stat().st_size for e in entries)
        peak_files, peak_bytes = max(peak_files, len(entries)), max(peak_bytes, total)
        assert len(entries) <= 2 * 2 * per_wave, f"wave {wave}: {len(entries)} files"
        t = time.monotonic()
        gc = subprocess.run([HOOK, "gc", "--older-than", "1h", "--state-dir", str(state)], capture_output=True, timeout=300)
        gc_seconds.append(time.monotonic() - t)
        assert gc.returncode == 0, gc.stderr
        expected = per_wave if wave else 0
        assert f"deleted {expected} idle session(s)".encode() in gc.stdout, gc.stdout
        # this wave goes idle: its files are two hours old now
        old = time.time() - 2 * 3600
        for entry in os.listdir(sessions_dir):
            os.utime(sessions_dir / entry, (old, old))
        _assert_audit_bounded(state)
    remaining = os.listdir(sessions_dir)
    assert len(remaining) == 2 * per_wave and all(e.startswith("wave9-") for e in remaining)
    assert not any(e.endswith((".tmp", ".corrupt")) for e in remaining)
    assert set(os.listdir(state)) == {"sessions", "decisions.jsonl", "decisions.jsonl.1"}
    one = load_state(state, "wave9-0000-0f6c2d8e-4e77-84b5")
    assert one["attempts"] == 3 and session_file_name("wave9-0000-0f6c2d8e-4e77-84b5") + ".json" in remaining
    print(
        f"\n10,000 sessions in 10 waves: at most {peak_files} files / {peak_bytes // 1024} KiB in sessions/, "
        f"gc of 1,000 idle sessions in {max(gc_seconds):.2f} s at worst, audit log {_audit_files(state)} bytes, "
        f"{time.monotonic() - started:.0f} s in all"
    )


# -- ids of any length are stored bounded -------------------------------------------------------


def test_a_huge_session_or_agent_id_is_stored_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_hardening_helpers import at

    from loopguard_hook.entry import main

    big_session = "sess-" + "x" * 3_000_000
    big_agent = "agent-" + "y" * 3_000_000
    options = HookOptions(state_dir=str(tmp_path))
    outs = []
    for i in range(5):
        call = pre("claude-code", big_session, "Bash", {"command": "ls"}, f"t{i}", agent_id=big_agent, agent_type="x")
        outs.append(run(dumps(call), options=options, environ={}, user_config="", clock=at(1_800_000_000 + 10 * i)))
        done = post("claude-code", big_session, "Bash", {"command": "ls"}, f"t{i}", {"stdout": "", "stderr": ""},
                    agent_id=big_agent, agent_type="x")
        assert run(dumps(done), options=options, environ={}, user_config="", clock=at(1_800_000_001 + 10 * i)).exit_code == 0
    assert all(o.exit_code == 0 for o in outs) and outs[2].stdout and outs[4].stdout  # counting works
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_size < 16 * 1024 for p in files), {p.name: p.stat().st_size for p in files}
    audit = (tmp_path / "decisions.jsonl").read_text()
    assert "sess-xxxx" in audit and "agent-yyyy" in audit  # a readable head is kept
    capsys.readouterr()
    for args in (["status"], ["status", "--json"], ["status", "--session", big_session]):
        assert main([*args, "--state-dir", str(tmp_path)]) == 0
        shown = capsys.readouterr().out
        assert "sess-xxxx" in shown and len(shown) < 16 * 1024
    assert main(["reset", "--session", big_session, "--state-dir", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "reset session" in shown and len(shown) < 1024
    assert main(["reset", "--session", big_session, "--state-dir", str(tmp_path)]) == 1  # nothing left to reset
    again = capsys.readouterr()
    assert "no state for session sess-xxxx" in again.err and len(again.err) < 1024
