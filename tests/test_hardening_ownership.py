"""Directories and files the guard did not create keep their mode, owner and contents: a state
directory that is not private to the user (a project directory, a shared group directory, `/`)
gets a private folder of the guard's own inside it, and the operator commands find it there."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from test_hardening_helpers import HOOK, dumps, post, pre

from loopguard_hook.store import private_subdir


def _hook(state_dir: str, payload: bytes, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([HOOK, "--state-dir", state_dir], input=payload, capture_output=True, cwd=cwd, timeout=60)


def _same_call(state_dir: str, session: str, cwd: Path | None = None) -> list[subprocess.CompletedProcess[bytes]]:
    """Three identical calls, each answered (a PostToolUse) before the next: the third is reminded."""
    runs = []
    for i in range(3):
        runs.append(_hook(state_dir, dumps(pre("claude-code", session, "Bash", {"command": "ls"}, f"toolu_{i}")), cwd))
        call = post("claude-code", session, "Bash", {"command": "ls"}, f"toolu_{i}", {"stdout": "a\n", "stderr": ""})
        assert _hook(state_dir, dumps(call), cwd).returncode == 0
    return runs


def _mode(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


@pytest.mark.parametrize("mode", [0o755, 0o2775, 0o777, 0o1777])
def test_an_existing_directory_that_is_not_private_keeps_its_mode(mode: int, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    (shared / "notes.txt").write_text("mine\n")
    os.chmod(shared / "notes.txt", 0o644)
    before = _mode(shared), _mode(shared / "notes.txt")
    runs = _same_call(str(shared), "s1")
    assert [r.returncode for r in runs] == [0, 0, 0], runs[-1].stderr
    assert runs[-1].stdout  # the third identical call is reminded: counting works there
    assert (_mode(shared), _mode(shared / "notes.txt")) == before
    own = Path(private_subdir(str(shared)))
    assert stat.S_IMODE(own.stat().st_mode) == 0o700 and own.stat().st_uid == os.getuid()
    assert (own / "sessions" / "s1.json").is_file()
    assert sorted(p.name for p in shared.iterdir()) == sorted(["notes.txt", own.name])
    # status, gc and reset look in the same place
    status = subprocess.run([HOOK, "status", "--json", "--state-dir", str(shared)], capture_output=True, timeout=60)
    assert status.returncode == 0, status.stderr
    shown = json.loads(status.stdout)
    assert shown["state_dir"] == str(own) and [s["session_id"] for s in shown["sessions"]] == ["s1"]
    reset = subprocess.run([HOOK, "reset", "--session", "s1", "--state-dir", str(shared)], capture_output=True, timeout=60)
    assert reset.returncode == 0 and b"reset session s1" in reset.stdout, reset
    assert _mode(shared) == before[0]


def test_state_dir_dot_leaves_the_project_directory_alone(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.chmod(project, 0o755)
    before = _mode(project)
    runs = _same_call(".", "s1", cwd=project)
    assert [r.returncode for r in runs] == [0, 0, 0], runs[-1].stderr
    assert _mode(project) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to own a directory of another user")
def test_a_directory_owned_by_someone_else_keeps_its_mode_and_owner(tmp_path: Path) -> None:
    """As root with LOOPGUARD_STATE_DIR=/ (here: a root-owned 0755 directory standing in for it),
    and a private directory of another user."""
    for owner, mode in ((0, 0o755), (65534, 0o700)):
        other = tmp_path / f"other-{owner}"
        other.mkdir()
        os.chown(other, owner, owner)
        os.chmod(other, mode)
        before = _mode(other)
        env = {**os.environ, "LOOPGUARD_STATE_DIR": str(other)}
        proc = subprocess.run([HOOK], input=dumps(pre("codex", "s1", "Bash", {"command": "ls"}, "c1")),
                              capture_output=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert _mode(other) == before


def test_a_planted_private_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    os.symlink(target, private_subdir(str(shared)))
    proc = _hook(str(shared), dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "t1")))
    assert proc.returncode == 1 and proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and "symlink" in lines[0], lines
    assert list(target.iterdir()) == []
    os.unlink(private_subdir(str(shared)))
    loose = Path(private_subdir(str(shared)))
    loose.mkdir()
    os.chmod(loose, 0o755)
    proc = _hook(str(shared), dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "t1")))
    assert proc.returncode == 1 and proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and "not private" in lines[0], lines
    assert stat.S_IMODE(loose.stat().st_mode) == 0o755


def test_existing_log_and_lock_files_keep_their_mode(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / "sessions").mkdir(mode=0o700)
    for name in ("decisions.jsonl", "sessions/s1.lock"):
        (state / name).write_text("")
        os.chmod(state / name, 0o640)
    runs = _same_call(str(state), "s1")
    assert [r.returncode for r in runs] == [0, 0, 0] and runs[-1].stdout
    assert (state / "decisions.jsonl").read_text()
    for name in ("decisions.jsonl", "sessions/s1.lock"):
        assert stat.S_IMODE((state / name).stat().st_mode) == 0o640, name
