"""Idle sessions are collected at SessionStart, without the user running `gc`.

DSH's bridges never send SessionEnd (shared/research/dsh-hooks.md §2), and a killed client
does not either, so without this every session would leave its ledger until `gc`. Each
SessionStart deletes the ledgers idle longer than `idle_session_seconds` (7 days; 0 = off),
with `gc`'s own locking: a session a hook is updating is kept.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

import pytest
from test_hardening_helpers import dumps, pre, run_hook

from loopguard_hook import hook
from loopguard_hook.config import load as config_mod
from loopguard_hook.config.keys import ConfigError
from loopguard_hook.hook import HookOptions, run
from loopguard_hook.store import Store

WEEK = 7 * 86400


def session_start(session: str, cwd: Path) -> bytes:
    """Claude Code 2.1.332's SessionStart shape (captured `SessionStart.json`)."""
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": f"{cwd}/{session}.jsonl",
            "cwd": str(cwd),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    ).encode()


def _seed(state: Path, session: str, cwd: Path, age: float) -> Path:
    result = run(dumps(pre("claude-code", session, "Bash", {"command": "ls"}, "toolu_1", cwd=str(cwd))),
                 options=HookOptions(state_dir=str(state)), environ={}, user_config="")
    assert result.exit_code == 0, result.stderr
    ledger = state / "sessions" / f"{session}.json"
    then = time.time() - age
    for path in (state / "sessions").glob(f"{session}.*"):
        os.utime(path, (then, then))
    return ledger


def _start(state: Path, cwd: Path, environ: dict[str, str] | None = None, session: str = "new") -> None:
    result = run(session_start(session, cwd), options=HookOptions(state_dir=str(state)), environ=environ or {}, user_config="")
    assert result.exit_code == 0 and result.stderr == "", result.stderr


def test_a_session_idle_for_more_than_a_week_goes_at_the_next_session_start(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = _seed(state, "old", tmp_path, WEEK + 60)
    recent = _seed(state, "recent", tmp_path, WEEK - 3600)
    _start(state, tmp_path)
    assert not old.exists() and not (state / "sessions" / "old.lock").exists()
    assert recent.exists()
    assert (state / "sessions" / "new.json").exists()


def test_other_events_do_not_scan(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = _seed(state, "old", tmp_path, WEEK + 60)
    _seed(state, "other", tmp_path, 0)
    assert old.exists(), "a PreToolUse of another session leaves it"


def test_zero_turns_it_off_and_the_setting_is_validated(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = _seed(state, "old", tmp_path, WEEK * 10)
    _start(state, tmp_path, {"LOOPGUARD_IDLE_SESSION_SECONDS": "0"})
    assert old.exists()
    # (a project file may not set it: it reaches other projects' sessions, test_config_trust.py)
    _start(state, tmp_path, {"LOOPGUARD_IDLE_SESSION_SECONDS": "3600"}, session="new2")
    assert not old.exists()
    result = run(session_start("s", tmp_path), options=HookOptions(state_dir=str(state)),
                 environ={"LOOPGUARD_IDLE_SESSION_SECONDS": "-1"}, user_config="")
    assert result.exit_code == 1 and "idle_session_seconds" in result.stderr and "\n" not in result.stderr
    with pytest.raises(ConfigError, match="idle_session_seconds"):
        config_mod.resolve([config_mod.Layer("test", {"idle_session_seconds": "soon"})])


def test_a_session_a_hook_is_updating_is_kept(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = _seed(state, "old", tmp_path, WEEK + 60)
    fd = os.open(state / "sessions" / "old.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _start(state, tmp_path)
        assert old.exists()
    finally:
        os.close(fd)
    _start(state, tmp_path, session="later")
    assert not old.exists()


def test_files_that_are_not_sessions_stay(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _seed(state, "old", tmp_path, WEEK + 60)
    sessions = state / "sessions"
    (sessions / "notes.txt").write_text("mine")
    (sessions / "planted.json").mkdir()
    then = time.time() - WEEK * 2
    for path in (sessions / "notes.txt", sessions / "planted.json"):
        os.utime(path, (then, then))
    _start(state, tmp_path)
    assert (sessions / "notes.txt").read_text() == "mine" and (sessions / "planted.json").is_dir()
    assert not (sessions / "old.json").exists()


def test_a_fake_event_clock_cannot_delete_the_current_session(tmp_path: Path) -> None:
    """File times are wall-clock times: the event clock (tests, replays) is not used."""
    state = tmp_path / "state"
    future = time.time() + WEEK * 4
    result = run(session_start("s1", tmp_path), options=HookOptions(state_dir=str(state)), environ={},
                 user_config="", clock=lambda: future)
    assert result.exit_code == 0, result.stderr
    assert (state / "sessions" / "s1.json").exists()


def test_a_scan_that_fails_never_fails_the_event(tmp_path: Path) -> None:
    calls: list[float] = []

    class Broken(Store):
        def gc(self, older_than: float, now: float, *, dry_run: bool = False) -> list[str]:
            calls.append(older_than)
            raise OSError(5, "I/O error")

    assert hook.collect_idle(Broken(str(tmp_path)), 60.0) == []
    assert calls == [60.0]


def test_the_real_console_script_collects_in_a_dsh_workspace(tmp_path: Path) -> None:
    """A DSH session's SessionStart collects the idle sessions of its workspace folder."""
    work = tmp_path / "project"
    work.mkdir()
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGUARD_")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"))
    log = f"{home}/.dsh/sessions/--project--/{{sid}}/session.jsonl.zstd"

    def payload(sid: str, event: str) -> bytes:
        body = {"session_id": sid, "transcript_path": log.format(sid=sid), "cwd": str(work), "hook_event_name": event}
        if event == "PreToolUse":
            body.update(tool_name="read", tool_input={"file_path": "notes.txt"}, tool_use_id="call_main_0_0")
        return dumps(body)

    assert run_hook(payload("session-old", "PreToolUse"), env=env, cwd=work).returncode == 0
    sessions = work / ".loopguard-hook" / "sessions"
    then = time.time() - WEEK - 60
    for path in sessions.iterdir():
        os.utime(path, (then, then))
    outcome = run_hook(payload("session-new", "SessionStart"), env=env, cwd=work)
    assert outcome.returncode == 0 and outcome.stderr == b"", outcome.stderr
    assert sorted(p.name for p in sessions.iterdir()) == ["session-new.json", "session-new.lock"]
