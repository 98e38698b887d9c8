"""`loopguard-hook helper status|stop`: the resident helper as the hooks start it, shown (pid,
build key, socket, workers, events served, idle time) and stopped (socket and status file gone,
workers gone, the next event served in-process and a new helper started)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from resident import alive, folder_of, helper_pids, wait_for_socket

from loopguard_hook.entry import main

SESSION = Path(__file__).parent.parent / "examples/sessions/claude-code-read-loop.jsonl"
EXE = Path(sys.executable).with_name("loopguard-hook")


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def hook(line: bytes, state: Path) -> None:
    done = subprocess.run([str(EXE), "--state-dir", str(state)], input=line, capture_output=True,
                          env=dict(os.environ), timeout=60)
    assert done.returncode == 0, done.stderr


def status(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, _ = cli(["helper", "status", "--json"], capsys)
    assert code == 0
    return json.loads(out)  # type: ignore[no-any-return]


def test_helper_status_shows_the_helper_and_stop_stops_it(
    tmpdir_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = SESSION.read_bytes().splitlines()
    assert status(capsys)["helpers"] == []
    code, out, _ = cli(["helper", "status"], capsys)
    assert "no resident helper running" in out
    hook(lines[0], tmp_path)  # in-process; starts the helper
    wait_for_socket(tmpdir_env, "*")
    for line in lines[1:6]:
        hook(line, tmp_path)
    (pid,) = helper_pids(tmpdir_env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the status file follows the events within a second
        (h,) = status(capsys)["helpers"]  # type: ignore[misc]
        if h.get("events") == 5:
            break
        time.sleep(0.1)
    assert h["pid"] == pid and h["events"] == 5 and h["workers"] == 2
    folder = folder_of(tmpdir_env)
    assert h["socket"] == str(folder / f"{h['key']}.sock") and Path(h["socket"]).is_socket()
    assert isinstance(h["last_event"], float) and h["started"] <= h["last_event"] <= time.time()
    code, out, _ = cli(["helper", "status"], capsys)
    assert f"helper pid {pid}  key {h['key']}" in out and "5 events served" in out and "workers: 2 kept" in out

    workers = [int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(int(p)) == pid]
    assert len(workers) >= 2
    code, out, _ = cli(["helper", "stop"], capsys)
    assert code == 0 and f"helper pid {pid} ({h['key']}): stopped" in out
    assert not Path(h["socket"]).exists() and not (folder / f"{h['key']}.status").exists()
    deadline = time.monotonic() + 30
    while any(alive(p) for p in [pid, *workers]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in [pid, *workers])
    assert status(capsys)["helpers"] == []
    hook(lines[6], tmp_path)  # in-process again, and a new helper starts
    wait_for_socket(tmpdir_env, "*")
    assert [p for p in helper_pids(tmpdir_env) if p != pid]


def test_status_says_a_helper_differs_by_the_python_variables_of_the_shell(
    tmpdir_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The helper a host started (same install, interpreter and user) seen from a shell that sets
    PYTHONUNBUFFERED: it was "an older install, another interpreter or rights", none of them true."""
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    hook(SESSION.read_bytes().splitlines()[0], tmp_path)  # starts the helper, without the variable
    wait_for_socket(tmpdir_env, "*")
    (h,) = status(capsys)["helpers"]  # type: ignore[misc]
    assert h["current"]
    deadline = time.monotonic() + 30
    while "key_parts" not in h and time.monotonic() < deadline:  # its status file is written at start
        time.sleep(0.1)
        (h,) = status(capsys)["helpers"]  # type: ignore[misc]
    here = sorted({*(k for k in os.environ if k.startswith("PYTHON")), "PYTHONUNBUFFERED"})
    there = [k for k in here if k != "PYTHONUNBUFFERED"]  # the host's: the same but that one
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    code, out, _ = cli(["helper", "status"], capsys)
    assert code == 0 and out.splitlines()[0] == (
        f"helper pid {h['pid']}  key {h['key']}  (another build: other PYTHON* environment variables "
        f"(this shell: {', '.join(here)}; the helper: {', '.join(there) or 'none'}))"
    )


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def test_stop_leaves_a_process_that_is_not_a_helper_alone(
    tmpdir_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lock file held by some other process (a pid reused, a file planted): not signalled."""
    import fcntl

    folder = folder_of(tmpdir_env)
    folder.mkdir(mode=0o700)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = folder / "0123456789abcdef0123456789abcdef.lock"
        lock.write_text(f"{sleeper.pid}\n")
        fd = os.open(lock, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            code, _, err = cli(["helper", "stop"], capsys)
        finally:
            os.close(fd)
        assert code == 1 and f"pid {sleeper.pid} is not a helper of this user; left alone" in err
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_switch_the_command_reads_is_the_fast_paths() -> None:
    from loopguard_hook.commands import helper
    from loopguard_hook.fastpath import client

    assert helper.SWITCH == client.ENV_SWITCH


def test_stop_takes_only_the_helpers_named(tmpdir_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--key` and `--current` narrow `stop` to those helpers: the others are not even looked at,
    and a key no helper has is one line on stderr and exit 1."""
    import fcntl

    folder = folder_of(tmpdir_env)
    folder.mkdir(mode=0o700)
    sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(2)]
    fds = []
    try:
        for key, sleeper in zip(("aaaa" + "0" * 28, "bbbb" + "0" * 28), sleepers, strict=True):
            lock = folder / f"{key}.lock"
            lock.write_text(f"{sleeper.pid}\n")
            fds.append(os.open(lock, os.O_RDWR))
            fcntl.flock(fds[-1], fcntl.LOCK_EX)
        code, _, err = cli(["helper", "stop", "--key", "aaaa"], capsys)
        assert code == 1 and f"pid {sleepers[0].pid} is not a helper" in err and str(sleepers[1].pid) not in err
        code, out, err = cli(["helper", "stop", "--key", "cccc"], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1 and "no resident helper with key cccc" in err
        code, out, err = cli(["helper", "stop", "--current"], capsys)  # neither is this build's
        assert code == 0 and "no resident helper of this build running" in out and err == ""
        assert all(s.poll() is None for s in sleepers)
    finally:
        for fd in fds:
            os.close(fd)
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()


@pytest.mark.parametrize("planted", ["sock-file", "lock-folder", "lock-link", "lock-fifo", "folder-open", "folder-file"])
def test_status_says_what_keeps_a_helper_from_running(
    planted: str, tmpdir_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file, folder or link the guard did not make where its helper's files belong: every event
    runs in-process and no helper ever starts. Before, `helper status` said "the next hook event
    starts one" (and `"enabled": true` alone in --json)."""
    from resident import this_key

    folder = folder_of(tmpdir_env)
    if planted == "folder-file":
        folder.write_text("x")
    else:
        folder.mkdir(mode=0o700)
    key = this_key()
    if planted == "sock-file":
        (folder / f"{key}.sock").write_text("x")
    elif planted == "lock-folder":
        (folder / f"{key}.lock").mkdir()
    elif planted == "lock-link":
        (folder / f"{key}.lock").symlink_to(tmp_path / "elsewhere")
    elif planted == "lock-fifo":  # before: status and stop waited on it for ever
        os.mkfifo(folder / f"{key}.lock")
    elif planted == "folder-open":
        folder.chmod(0o777)
    line = SESSION.read_bytes().splitlines()[2]
    hook(line, tmp_path / "state")
    hook(line, tmp_path / "state")
    time.sleep(1.0)  # a helper the events started would be listening by now
    found = status(capsys)
    assert found["helpers"] == [] and isinstance(found["problem"], str) and str(folder) in found["problem"]
    code, out, _ = cli(["helper", "status"], capsys)
    assert code == 0 and out.startswith("the resident helper cannot run here: ") and "the next hook event starts one" not in out
    lock = folder / f"{key}.lock"
    if lock.is_dir():  # the fixture's teardown reads the lock files
        lock.rmdir()
    elif lock.is_symlink() or lock.is_fifo():
        lock.unlink()


def test_status_says_a_value_differs_when_the_python_variable_names_are_the_same() -> None:
    """Only a value of a PYTHON* variable differs (PYTHONPATH elsewhere): listing the same names
    twice would not say what differs."""
    from loopguard_hook.commands import helper as command

    theirs = {"key_parts": {"build": "b", "environment": "e1", "rights": "r"}, "python_variables": ["PYTHONPATH"]}
    mine = {"build": "b", "environment": "e2", "rights": "r"}
    said = command._why_another(theirs, mine, {"PYTHONPATH": "/elsewhere", "HOME": "/root"})
    assert said == "another build: other PYTHON* environment variables (the same names, PYTHONPATH: a value differs)"
