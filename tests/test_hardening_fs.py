"""Hostile session ids and filesystem faults, through the real console script.

Contract (behavior.md sections 4 and 8): files stay inside the state directory whatever the
session id; a symlink planted in place of a state, lock or temp file is never followed; a state
directory that cannot be written, a full disk or a lock held by a hung process make the hook
fail open (exit 1, one stderr line, no stdout) within the bounded wait; directory 0700, files
0600.
"""

from __future__ import annotations

import functools
import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import orjson
import pytest
from test_hardening_helpers import (
    HOOK,
    at,
    can_drop_capabilities,
    can_unshare_mount,
    drop_file_capabilities,
    dumps,
    in_private_mount_namespace,
    load_state,
    post,
    pre,
    run_hook,
    snapshot,
)

from loopguard_hook.hook import HookOptions, run
from loopguard_hook.store import Store, session_file_name

T0 = 1_800_000_000.0

HOSTILE_IDS = {
    "dotdot": "../../x",
    "dotdot-deep": "../../../../../../../../tmp/loopguard-escape",
    "absolute": "/tmp/loopguard-absolute-escape",
    "nul": "a\x00b/../../nul",
    "long": "s" * 10_000,
    "non-ascii": "sessión-😀-ключ/..\\..",
    "served": "served:claude-code/abc:123",
    "empty": "",
    "dot": ".",
    "dash": "-rf",
    "lock-suffix": "x.lock",
}


#: Ids also sent through the real console script (the rest in-process, where the same store runs).
REAL_PROCESS = {"dotdot-deep", "absolute", "nul", "long", "empty"}


def _call_sequence(client: str, session_id: str, cwd: str) -> list[bytes]:
    """Enough events to write a ledger, a temp file, an audit log line and a denial."""
    events = []
    for i in range(5):
        events.append(dumps(pre(client, session_id, "Bash", {"command": "ls"}, f"toolu_{i}", cwd=cwd)))
        events.append(
            dumps(post(client, session_id, "Bash", {"command": "ls"}, f"toolu_{i}", {"stdout": "a", "stderr": ""}, cwd=cwd))
        )
    return events


@pytest.mark.parametrize("label", sorted(HOSTILE_IDS))
def test_hostile_session_ids_stay_inside_the_state_directory(label: str, tmp_path: Path) -> None:
    session_id = HOSTILE_IDS[label]
    world = tmp_path / "world"
    state = world / "a" / "b" / "state"
    cwd = world / "a" / "b" / "cwd"
    cwd.mkdir(parents=True)
    before = snapshot(world)
    # The whole sequence in-process (the same store code, real files), then one real process.
    opts = HookOptions(state_dir=str(state))
    for i, raw in enumerate(_call_sequence("claude-code", session_id, str(cwd))):
        result = run(raw, options=opts, environ={}, user_config="", clock=at(T0 + 3 * i))
        assert result.exit_code == 0, result.stderr
    last = dumps(pre("codex", session_id, "Bash", {"command": "pwd"}, "call_x", cwd=str(cwd)))
    if label in REAL_PROCESS:
        outcome = run_hook(last, "--state-dir", str(state), cwd=cwd)
        assert outcome.returncode == 0, outcome.stderr
        assert outcome.stderr == b""
    else:
        result = run(last, options=opts, environ={}, user_config="", clock=at(T0 + 60))
        assert result.exit_code == 0 and result.stderr == "", result.stderr

    after = snapshot(world)
    new = sorted(set(after) - set(before))
    outside = [p for p in new if p != "a/b/state" and not p.startswith("a/b/state/")]
    assert not outside, f"written outside the state directory: {outside}"
    assert not os.path.lexists("/tmp/loopguard-absolute-escape")
    assert not os.path.lexists("/tmp/loopguard-escape")
    sessions = os.listdir(state / "sessions")
    stem = session_file_name(session_id)
    assert sessions and all(name.startswith(stem + ".") for name in sessions), sessions
    assert set(sessions) <= {stem + ".json", stem + ".lock"}, "no temp file left behind"
    ledger = load_state(state, session_id)
    assert ledger["session_id"] == session_id, "the ledger still names the real id"
    assert ledger["attempts"] == 6
    assert (state / "decisions.jsonl").exists(), "the denial at the fifth identical call is logged"
    if label in ("served", "empty", "nul", "long", "non-ascii", "dotdot", "absolute", "dot", "dash"):
        assert stem.startswith("_") and len(stem) == 33, "unsafe ids are hashed"


# -- symlinks ---------------------------------------------------------------------------------


def _seed(state: Path, session: str = "s1") -> None:
    """One attempt in the ledger (in-process: the same store code, without a process start)."""
    payload = dumps(pre("claude-code", session, "Bash", {"command": "ls"}, "toolu_seed"))
    result = run(payload, options=HookOptions(state_dir=str(state)), environ={}, user_config="", clock=at(T0))
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("suffix", [".json", ".lock", ".tmp"])
@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
def test_a_planted_symlink_is_never_followed(suffix: str, dangling: bool, tmp_path: Path) -> None:
    state = tmp_path / "state"
    _seed(state)
    target = tmp_path / "victim.txt"
    if not dangling:
        target.write_text("precious\n")
        os.utime(target, (T0, T0))
    before = snapshot(tmp_path / "victim.txt") if not dangling else None
    link = state / "sessions" / ("s1" + suffix)
    if link.exists():
        link.unlink()
    link.symlink_to(target)
    target_stat = target.stat() if not dangling else None

    outcome = run_hook(dumps(pre("claude-code", "s1", "Bash", {"command": "ls -la"}, "toolu_2")), "--state-dir", str(state))

    assert outcome.returncode == 0, outcome.stderr
    assert len(outcome.stderr_lines) <= 1 and b"Traceback" not in outcome.stderr
    if dangling:
        assert not os.path.lexists(target), "the symlink's target was created"
    else:
        assert target.read_text() == "precious\n"
        assert target.stat().st_mtime_ns == target_stat.st_mtime_ns  # type: ignore[union-attr]
        assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(target_stat.st_mode)  # type: ignore[union-attr]
        assert snapshot(tmp_path / "victim.txt") == before
    for name in os.listdir(state / "sessions"):
        assert not (state / "sessions" / name).is_symlink(), f"{name} is still a symlink"
    load_state(state, "s1")


def test_a_symlinked_sessions_directory_fails_open(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)  # private: the guard uses it as it is
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (state / "sessions").symlink_to(elsewhere)
    outcome = run_hook(dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")), "--state-dir", str(state))
    assert outcome.returncode == 1
    assert len(outcome.stderr_lines) == 1 and outcome.stdout == b""
    assert os.listdir(elsewhere) == []


def test_a_symlinked_audit_log_is_not_followed(tmp_path: Path) -> None:
    state = tmp_path / "state"
    victim = tmp_path / "victim.log"
    victim.write_text("precious\n")
    state.mkdir(mode=0o700)  # private: the guard uses it as it is
    (state / "decisions.jsonl").symlink_to(victim)
    opts = HookOptions(state_dir=str(state))
    results = [
        run(
            dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, f"toolu_{i}")),
            options=opts,
            environ={},
            user_config="",
            clock=at(T0 + 5 * i),
        )
        for i in range(3)
    ]
    assert victim.read_text() == "precious\n"
    reminded = results[-1]
    assert reminded.exit_code == 0 and reminded.stdout, "the decision is still given"
    assert "audit log" in reminded.stderr and "\n" not in reminded.stderr


def test_a_fifo_in_place_of_the_ledger_does_not_hang_the_hook(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _seed(state)
    ledger = state / "sessions" / "s1.json"
    ledger.unlink()
    os.mkfifo(ledger)
    outcome = run_hook(
        dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_2")), "--state-dir", str(state), timeout=15
    )
    assert outcome.returncode == 0, outcome.stderr
    assert len(outcome.stderr_lines) == 1, "one line says the ledger was moved aside"
    assert load_state(state, "s1")["attempts"] == 1
    assert outcome.seconds < 5


# -- permissions and a full disk ----------------------------------------------------------------

needs_dropped_caps = pytest.mark.skipif(
    os.geteuid() == 0 and not can_drop_capabilities(),
    reason="root here keeps CAP_DAC_OVERRIDE: a 0500 directory would not stop the hook",
)


@needs_dropped_caps
@pytest.mark.parametrize("existing", [False, True], ids=["new-session", "existing-session"])
def test_a_read_only_state_directory_fails_open(existing: bool, tmp_path: Path) -> None:
    state = tmp_path / "state"
    if existing:
        _seed(state)
        locked = [state / "sessions", state]
    else:
        state.mkdir(mode=0o700)
        locked = [state]
    for path in locked:
        path.chmod(0o500)
    before = snapshot(state)
    try:
        outcome = run_hook(
            dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_2")),
            "--state-dir",
            str(state),
            preexec_fn=drop_file_capabilities if os.geteuid() == 0 else None,
        )
        after = snapshot(state)
    finally:
        for path in locked:
            path.chmod(0o700)
    assert outcome.returncode == 1
    assert len(outcome.stderr_lines) == 1 and outcome.stdout == b""
    assert outcome.stderr_lines[0].startswith("loopguard-hook: state: ")
    assert b"Traceback" not in outcome.stderr
    assert after == before


@pytest.mark.parametrize("mode", [0o500, 0o000, 0o300])
def test_a_sessions_folder_its_owner_cannot_write_is_repaired(mode: int, tmp_path: Path) -> None:
    """`sessions/` alone set to 0500 (the state directory still writable): the guard made it, so
    it gives its owner's bits back rather than failing every event."""
    state = tmp_path / "state"
    _seed(state)
    (state / "sessions").chmod(mode)
    try:
        outcome = run_hook(
            dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_2")), "--state-dir", str(state),
            preexec_fn=drop_file_capabilities if os.geteuid() == 0 and can_drop_capabilities() else None,
        )
    finally:
        mode_after = stat.S_IMODE((state / "sessions").stat().st_mode)
        (state / "sessions").chmod(0o700)
    assert (outcome.returncode, outcome.stdout, outcome.stderr) == (0, b"", b"")
    assert mode_after == 0o700
    assert load_state(state, "s1")["attempts"] == 2


def _set_fsize_limit() -> None:
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() returns EFBIG instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))


def test_a_full_disk_fails_open_and_keeps_the_ledger(tmp_path: Path) -> None:
    """ENOSPC simulated with RLIMIT_FSIZE: no file may grow past 64 bytes in the child."""
    state = tmp_path / "state"
    _seed(state)
    before = snapshot(state)
    outcome = run_hook(
        dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_2")),
        "--state-dir",
        str(state),
        preexec_fn=_set_fsize_limit,
    )
    assert outcome.returncode == 1
    assert len(outcome.stderr_lines) == 1 and outcome.stdout == b""
    assert "cannot write state file" in outcome.stderr_lines[0]
    assert snapshot(state) == before, "the old ledger is intact and no temp file is left"
    # Space again: the next call works and sees the seeded attempt.
    outcome = run_hook(dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_3")), "--state-dir", str(state))
    assert outcome.returncode == 0 and load_state(state, "s1")["attempts"] == 2


_TMPFS_DRIVER = textwrap.dedent(
    """
    import json, os, subprocess, sys
    hook, mount_point, payloads = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mount_point], check=True)
    state = os.path.join(mount_point, "state")
    def hook_run(payload):
        r = subprocess.run([hook, "--state-dir", state], input=payload.encode(), capture_output=True)
        return {"rc": r.returncode, "out": r.stdout.decode(), "err": r.stderr.decode()}
    results = {"seed": hook_run(payloads[0])}
    ledger = os.path.join(state, "sessions", "s1.json")
    results["seed_ledger"] = open(ledger).read()
    # fill the filesystem to the last byte
    fd = os.open(os.path.join(mount_point, "filler"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"x" * 512)
    except OSError:
        pass
    os.close(fd)
    results["full"] = [hook_run(p) for p in payloads[1:]]
    results["full_ledger"] = open(ledger).read()
    results["files"] = sorted(os.listdir(os.path.join(state, "sessions")))
    os.unlink(os.path.join(mount_point, "filler"))
    results["after"] = hook_run(payloads[-1])
    results["after_ledger"] = open(ledger).read()
    print(json.dumps(results))
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not can_unshare_mount(), reason="needs root and unshare -m for a private tmpfs")
def test_a_really_full_tmpfs_fails_open(tmp_path: Path) -> None:
    """A 64 KiB tmpfs in a private mount namespace, filled up: real ENOSPC."""
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    payloads = [dumps(pre("claude-code", "s1", "Bash", {"command": f"ls -d src/p{i}"}, f"toolu_{i}")).decode() for i in range(4)]
    payloads.append(dumps(pre("claude-code", "s1", "Bash", {"command": "ls -d src/done"}, "toolu_done")).decode())
    proc = in_private_mount_namespace(_TMPFS_DRIVER, HOOK, str(mount_point), orjson.dumps(payloads).decode())
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    results = orjson.loads(proc.stdout)
    assert results["seed"]["rc"] == 0
    for outcome in results["full"]:
        assert outcome["rc"] == 1, outcome
        assert outcome["out"] == "" and outcome["err"].count("\n") == 1 and "Traceback" not in outcome["err"], outcome
    assert results["full_ledger"] == results["seed_ledger"], "a failed write leaves the old ledger"
    assert results["files"] == ["s1.json", "s1.lock"], "no temp file left on a full disk"
    assert results["after"]["rc"] == 0
    assert orjson.loads(results["after_ledger"])["attempts"] == 2


# -- no home directory ---------------------------------------------------------------------------


def test_no_home_and_no_passwd_entry_fails_open_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME, XDG_* unset and no passwd entry: platformdirs cannot place the cache or config dir."""
    import pwd

    for name in list(os.environ):
        if name == "HOME" or name.startswith("XDG_"):
            monkeypatch.delenv(name)

    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    monkeypatch.chdir(tmp_path)
    result = run(
        dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")), options=HookOptions(), environ=dict(os.environ)
    )
    assert result.exit_code == 1
    assert result.stdout == b""
    assert result.stderr.startswith("loopguard-hook: state: cannot find a cache directory")
    assert "\n" not in result.stderr and "internal error" not in result.stderr
    assert os.listdir(tmp_path) == [], "nothing written relative to the working directory (no '~' dir)"



def test_a_home_that_does_not_exist_is_not_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME names a folder that does not exist (`/nonexistent`, the home of Debian's `nobody`):
    the guard does not make the home to put its cache in (as root it did: a new user's run
    found `/nonexistent/home/.cache/loopguard-hook` made). One line, exit 1, nothing made."""
    home = tmp_path / "nonexistent" / "home"
    for name in list(os.environ):
        if name.startswith("XDG_") or name == "LOOPGUARD_STATE_DIR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    result = run(
        dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")), options=HookOptions(), environ=dict(os.environ)
    )
    assert result.exit_code == 1 and result.stdout == b""
    assert result.stderr == f"loopguard-hook: state: the home directory {home} does not exist; set LOOPGUARD_STATE_DIR"
    assert os.listdir(tmp_path) == []
    home.mkdir(parents=True)  # once it exists, its cache dir is made as ever
    result = run(
        dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")), options=HookOptions(), environ=dict(os.environ)
    )
    assert result.exit_code == 0 and (home / ".cache" / "loopguard-hook" / "sessions" / "s1.json").exists()

_NO_HOME_DRIVER = textwrap.dedent(
    """
    import json, os, pwd, subprocess, sys
    hook, scratch, payload, hide_passwd = sys.argv[1], sys.argv[2], sys.argv[3].encode(), sys.argv[4] == "1"
    entry = pwd.getpwuid(os.getuid())
    home = os.path.join(scratch, "home")  # the real home stays untouched
    os.makedirs(home)
    passwd = os.path.join(scratch, "passwd")
    with open(passwd, "w") as fh:
        if not hide_passwd:
            fh.write(f"{entry.pw_name}:x:{entry.pw_uid}:{entry.pw_gid}::{home}:/bin/sh\\n")
    # this namespace only: the passwd database gives the scratch home, or no entry at all
    # (nss-systemd would synthesise root with home /root: files only)
    nsswitch = os.path.join(scratch, "nsswitch.conf")
    with open(nsswitch, "w") as fh:
        fh.write("passwd: files\\ngroup: files\\n")
    subprocess.run(["mount", "--bind", passwd, "/etc/passwd"], check=True)
    subprocess.run(["mount", "--bind", nsswitch, "/etc/nsswitch.conf"], check=True)
    probe = subprocess.run([sys.executable, "-c", "import os, pwd; print(pwd.getpwuid(os.getuid()).pw_dir)"],
                           capture_output=True, text=True)
    seen = probe.stdout.strip() if probe.returncode == 0 else None
    if seen != (None if hide_passwd else home):
        sys.exit(f"refusing to run: the passwd database still gives home {seen!r}")
    env = {k: v for k, v in os.environ.items() if k != "HOME" and not k.startswith(("XDG_", "LOOPGUARD_"))}
    work = os.path.join(scratch, "cwd")
    os.makedirs(work)
    r = subprocess.run([hook], input=payload, capture_output=True, env=env, cwd=work)
    found = []
    for d, _, files in os.walk(home):
        found += [os.path.relpath(os.path.join(d, f), home) for f in files]
    print(json.dumps({"rc": r.returncode, "out": r.stdout.decode(), "err": r.stderr.decode(),
                      "home_files": sorted(found), "cwd_files": os.listdir(work)}))
    """
)


@pytest.mark.skipif(not can_unshare_mount(), reason="needs root and unshare -m to hide the real home directory")
@pytest.mark.parametrize("hide_passwd", [False, True], ids=["passwd-home", "no-passwd-entry"])
def test_no_home_in_a_real_process(hide_passwd: bool, tmp_path: Path) -> None:
    """The real console script with HOME and XDG_* unset and no --state-dir."""
    payload = dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")).decode()
    proc = in_private_mount_namespace(_NO_HOME_DRIVER, HOOK, str(tmp_path), payload, "1" if hide_passwd else "0")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    got = orjson.loads(proc.stdout)
    assert "Traceback" not in got["err"] and got["out"] == ""
    assert got["cwd_files"] == [], "nothing written relative to the working directory"
    if hide_passwd:
        assert got["rc"] == 1 and got["err"].count("\n") == 1, got
        assert "set LOOPGUARD_STATE_DIR" in got["err"]
        assert got["home_files"] == []
    else:
        assert got["rc"] == 0 and got["err"] == "", got
        assert got["home_files"] == [".cache/loopguard-hook/sessions/s1.json", ".cache/loopguard-hook/sessions/s1.lock"]


# -- locks ----------------------------------------------------------------------------------------

_HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("locked", flush=True)
    time.sleep(600)
    """
)


def test_a_hung_lock_holder_makes_the_hook_fail_open_and_its_death_frees_the_lock(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _seed(state)
    before = snapshot(state)
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(state / "sessions" / "s1.lock")], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        outcome = run_hook(dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_2")), "--state-dir", str(state))
        assert outcome.returncode == 1
        assert len(outcome.stderr_lines) == 1 and outcome.stdout == b""
        assert "lock busy for 2 s" in outcome.stderr_lines[0]
        # lock_timeout_seconds defaults to 2 s: the wait is bounded, and really waited.
        assert 1.9 <= outcome.seconds <= 6.0, outcome.seconds
        assert snapshot(state) == before
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    # The holder died without unlocking: the kernel released the flock; no stale lock remains.
    outcome = run_hook(dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_3")), "--state-dir", str(state))
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.seconds < 1.9, "the next hook did not wait for a dead holder"
    assert load_state(state, "s1")["attempts"] == 2


def test_gc_keeps_a_session_whose_lock_is_held_and_a_waiting_hook_is_not_split_off(tmp_path: Path) -> None:
    """`gc` deleting a session mid-update would let two hooks hold "the" lock on two files."""
    state = tmp_path / "state"
    _seed(state)
    store = Store(str(state))
    entered, release = threading.Event(), threading.Event()

    def slow_update() -> None:
        with store.session("s1") as handle:
            entered.set()
            release.wait(10)
            assert handle.state is not None
            handle.state["attempts"] += 100
            handle.dirty = True

    worker = threading.Thread(target=slow_update)
    worker.start()
    try:
        assert entered.wait(10)
        old = time.time() - 10 * 86400
        for name in os.listdir(state / "sessions"):
            os.utime(state / "sessions" / name, (old, old))
        gc = subprocess.run([HOOK, "gc", "--older-than", "1d", "--state-dir", str(state)], capture_output=True, timeout=30)
        assert gc.returncode == 0, gc.stderr
        assert b"deleted 0 idle session(s)" in gc.stdout
        assert (state / "sessions" / "s1.lock").exists()
    finally:
        release.set()
        worker.join(10)
    outcome = run_hook(dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_2")), "--state-dir", str(state))
    assert outcome.returncode == 0
    assert load_state(state, "s1")["attempts"] == 102


def _has_open(pid: int, path: Path) -> bool:
    fd_dir = f"/proc/{pid}/fd"
    try:
        return any(os.readlink(os.path.join(fd_dir, fd)) == str(path) for fd in os.listdir(fd_dir))
    except OSError:
        return False


def test_a_hook_waiting_on_a_lock_file_that_gets_deleted_locks_the_new_one(tmp_path: Path) -> None:
    """`reset`/`gc`/SessionEnd unlink the lock file while holding it; a hook already waiting on
    that file must not go ahead while another process holds the lock file now at that path."""
    state = tmp_path / "state"
    _seed(state)
    lock_path = state / "sessions" / "s1.lock"
    store = Store(str(state), lock_timeout=10)
    first, second = ExitStack(), ExitStack()
    with first, second:
        first.enter_context(store.session("s1"))  # holds the lock on the current file
        waiter = subprocess.Popen(
            [HOOK, "--state-dir", str(state)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "LOOPGUARD_LOCK_TIMEOUT_SECONDS": "20"},
        )
        assert waiter.stdin is not None
        waiter.stdin.write(dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_2")))
        waiter.stdin.close()
        deadline = time.monotonic() + 20
        while not _has_open(waiter.pid, lock_path) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert _has_open(waiter.pid, lock_path), "the hook never opened the lock file"
        dir_fd = os.open(state / "sessions", os.O_RDONLY)
        try:
            Store._unlink_session(dir_fd, "s1")  # what reset/gc do, lock file last, while held
        finally:
            os.close(dir_fd)
        second.enter_context(store.session("s1"))  # a new lock file at the path, held
        first.close()  # the old file's lock is free now
        time.sleep(0.5)
        assert waiter.poll() is None, "the hook went ahead while another process held the current lock"
        second.close()
        assert waiter.wait(timeout=20) == 0, waiter.stderr.read() if waiter.stderr else b""
        for pipe in (waiter.stdout, waiter.stderr):
            if pipe is not None:
                pipe.close()
    assert load_state(state, "s1")["attempts"] == 1, "the session was deleted before this call"


# -- modes ------------------------------------------------------------------------------------------


def _set_umask(mask: int) -> None:
    os.umask(mask)


@pytest.mark.parametrize("mask", [0o000, 0o077], ids=["umask-000", "umask-077"])
def test_directories_are_0700_and_files_0600_whatever_the_umask(mask: int, tmp_path: Path) -> None:
    state = tmp_path / "deep" / "state"
    payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")
    old = os.umask(mask)
    try:
        options = HookOptions(state_dir=str(state))
        for i in range(3):  # the third identical call is reminded: decisions.jsonl is written
            result = run(
                dumps({**payload, "tool_use_id": f"toolu_{i}"}),
                options=options,
                environ={},
                user_config="",
                clock=at(T0 + 5 * i),
            )
            assert result.exit_code == 0 and bool(result.stdout) == (i == 2), result.stderr
        # A ledger that loads but breaks the engine: its traceback goes to errors.log.
        ledger = load_state(state, "s1")
        ledger["agents"]["main"]["calls"]["toolu_bad"] = 5
        (state / "sessions" / "s1.json").write_bytes(orjson.dumps(ledger))
        (state / "sessions" / "s1.json").chmod(0o600)
        bug = run(
            dumps(post("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_bad", "ok")),
            options=options,
            environ={},
            user_config="",
            clock=at(T0 + 60),
        )
        # and one real process under that umask
        outcome = run_hook(
            dumps(pre("codex", "s2", "Bash", {"command": "ls"}, "call_1")),
            "--state-dir",
            str(state),
            preexec_fn=functools.partial(_set_umask, mask),
        )
    finally:
        os.umask(old)
    # The session starts afresh (one warning line); the traceback still goes to errors.log.
    assert bug.exit_code == 0 and "wrong shape" in bug.stderr and "\n" not in bug.stderr
    assert "Traceback" in (state / "errors.log").read_text()
    assert outcome.returncode == 0, outcome.stderr
    modes = {os.path.relpath(p, state): stat.S_IMODE(p.lstat().st_mode) for p in [state, *state.rglob("*")]}
    assert {"sessions/s1.json", "sessions/s1.lock", "sessions/s2.json", "decisions.jsonl", "errors.log"} <= set(modes)
    wrong = {p: oct(m) for p, m in modes.items() if m != (0o700 if (state / p).is_dir() else 0o600)}
    assert not wrong, wrong


# -- a broken install -------------------------------------------------------------------------------


def test_a_package_that_does_not_import_fails_open_without_a_traceback(tmp_path: Path) -> None:
    """A dependency half-installed (or a file mid-upgrade): the error handler itself cannot import
    the hook module, and must still print one line, not a traceback."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "orjson.py").write_text("raise ImportError('orjson is half-installed')\n")
    state = tmp_path / "state"
    outcome = run_hook(
        dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")),
        "--state-dir",
        str(state),
        env={**os.environ, "PYTHONPATH": str(shadow)},
    )
    assert outcome.returncode == 1
    assert outcome.stdout == b""
    assert len(outcome.stderr_lines) == 1, outcome.stderr
    assert outcome.stderr_lines[0].startswith("loopguard-hook: internal error (ImportError"), outcome.stderr
    assert b"Traceback" not in outcome.stderr


def test_both_logs_failing_is_one_stderr_line(tmp_path: Path) -> None:
    """The audit log and the responses log unwritable (folders planted at their names): each
    event still exits with its decision and at most one stderr line naming both."""
    from loopguard_hook.hook import HookOptions, run

    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    for name in ("decisions.jsonl", "responses.jsonl"):
        (state / name).mkdir()
    options = HookOptions(client="claude-code", state_dir=str(state))
    lines: list[str] = []
    for i in range(8):
        call = {"command": "make"}
        for payload in (pre("claude-code", "s1", "Bash", call, f"toolu_{i}"),
                        {**pre("claude-code", "s1", "Bash", call, f"toolu_{i}"), "hook_event_name": "PostToolUse",
                         "tool_response": {"stdout": "", "stderr": "make: *** No rule", "interrupted": False}}):
            result = run(dumps(payload), options=options, environ={}, clock=lambda i=i: 1_800_000_000.0 + 10 * i,
                         user_config="")
            assert result.exit_code == 0
            assert result.stderr.count("\n") == 0, result.stderr
            lines += [result.stderr] if result.stderr else []
    both = [line for line in lines if "audit log" in line and "responses log" in line]
    assert both and all(line.startswith("loopguard-hook: ") for line in lines), lines


def test_escape_sequences_from_a_payload_never_reach_the_terminal(tmp_path: Path) -> None:
    """A project path holding terminal escapes (a window title, a colour) named in the one stderr
    line of a bad project config: written as `\\x1b`, never raw."""
    project = tmp_path / "p\x1b]0;pwned\x07\x1b[31mred"
    project.mkdir()
    (project / ".loopguard.toml").write_text("deny_at = 'many'\n")
    payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(project))
    outcome = run_hook(dumps(payload), "--state-dir", str(tmp_path / "state"))
    assert outcome.returncode == 1 and len(outcome.stderr_lines) == 1, outcome.stderr
    assert b"\x1b" not in outcome.stderr and b"\x07" not in outcome.stderr
    assert "\\x1b]0;pwned\\x07" in outcome.stderr_lines[0]
