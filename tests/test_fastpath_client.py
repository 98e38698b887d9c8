"""The fast path's client: when it stands aside, what it trusts, and how it fails open.

Servers here are fakes bound where the client looks for its helper, so each failure (another
build, a helper that never greets, one that dies mid-event, one that declines) is exact.
"""

from __future__ import annotations

import marshal
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from resident import folder_of, this_key

from loopguard_hook.fastpath import client, start

VALUES: dict[str, object] = {"state_dir": "/nonexistent/state"}


def _no_spawn(monkeypatch: pytest.MonkeyPatch, pid: int = 1) -> list[list[str]]:
    started: list[list[str]] = []
    monkeypatch.setattr(client.os, "posix_spawn", lambda path, argv, env, **kw: started.append(argv) or pid)
    return started


def _serve(path: Path, behave: Callable[[socket.socket], None]) -> threading.Thread:
    """A fake helper on `path` that handles one connection with `behave`."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)

    def run() -> None:
        conn, _ = server.accept()
        with conn:
            behave(conn)
        server.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _socket_path(tmpdir: Path) -> Path:
    folder = client.runtime_dir(dict(os.environ))
    assert folder is not None and Path(folder) == folder_of(tmpdir)
    return Path(folder) / f"{this_key()}.sock"


def _read_request(conn: socket.socket) -> tuple[object, ...]:
    size = int.from_bytes(client.read_exactly(conn, 8), "little")  # type: ignore[arg-type]
    head = marshal.loads(client.read_exactly(conn, size))  # type: ignore[arg-type]
    client.read_exactly(conn, head[-1])  # type: ignore[arg-type]
    return tuple(head)


# -- when the fast path stands aside ---------------------------------------------------------


@pytest.mark.parametrize("value", ["off", "0", "no", "FALSE"])
def test_the_switch_turns_it_off(value: str, tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = _no_spawn(monkeypatch)
    assert client.handle(VALUES, b"{}", 1.0, {**os.environ, "LOOPGUARD_RESIDENT": value}) is None
    assert not started and not folder_of(tmpdir_env).exists()


def test_a_confined_process_runs_in_process_and_starts_nothing(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = _no_spawn(monkeypatch)
    monkeypatch.setattr(client, "process_context", lambda: (True, b""))
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert not started and not folder_of(tmpdir_env).exists()


def _fake_proc(tmp_path: Path, nnp: str, seccomp: str) -> str:
    proc = tmp_path / "proc"
    (proc / "ns").mkdir(parents=True)
    (proc / "status").write_bytes(
        b"Name:\tpython\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t\nCapEff:\t000001ffffffffff\n"
        + f"NoNewPrivs:\t{nnp}\nSeccomp:\t{seccomp}\nSeccomp_filters:\t0\nVmRSS:\t1 kB\n".encode()
    )
    (proc / "limits").write_bytes(b"Max file size  unlimited  unlimited  bytes\n")
    for name in ("mnt", "user", "pid"):
        os.symlink(f"{name}:[4026531840]", proc / "ns" / name)
    return str(proc)


@pytest.mark.parametrize(("nnp", "seccomp", "confined"), [("0", "0", False), ("1", "0", True), ("0", "2", True)])
def test_no_new_privs_or_seccomp_means_a_sandbox(tmp_path: Path, nnp: str, seccomp: str, confined: bool) -> None:
    """DeepSeek Harness's Landlock and bubblewrap sandboxes both set no_new_privs (measured on
    dsh 0.1.0-rc.8: `NoNewPrivs: 1` in the hook's /proc status)."""
    seen, context = client.process_context(_fake_proc(tmp_path, nnp, seccomp))
    assert seen is confined
    assert b"CapEff:" in context and b"Max file size" in context and b"VmRSS" not in context


def test_without_proc_nothing_can_be_told_so_it_counts_as_confined(tmp_path: Path) -> None:
    assert client.process_context(str(tmp_path / "missing"))[0] is True


def test_a_socket_path_too_long_for_linux_runs_in_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    started = _no_spawn(monkeypatch)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert client.handle(VALUES, b"{}", 1.0, {**os.environ, "TMPDIR": str(deep)}) is None
    assert not started


# -- the private folder ----------------------------------------------------------------------


def test_the_folder_is_created_0700(tmpdir_env: Path) -> None:
    folder = client.runtime_dir({"TMPDIR": str(tmpdir_env)})
    assert folder == str(folder_of(tmpdir_env))
    st = os.lstat(folder)
    assert st.st_mode & 0o777 == 0o700 and st.st_uid == os.getuid()


def test_a_relative_tmpdir_is_not_used() -> None:
    assert client.runtime_path({"TMPDIR": "relative/tmp"}) == f"/tmp/loopguard-hook-{os.getuid()}"
    assert client.runtime_path({}) == f"/tmp/loopguard-hook-{os.getuid()}"


@pytest.mark.parametrize("kind", ["symlink", "mode-0755", "file", "other-owner"])
def test_an_unsafe_folder_disables_the_fast_path(kind: str, tmpdir_env: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = folder_of(tmpdir_env)
    if kind == "symlink":
        target = tmp_path / "elsewhere"
        target.mkdir(mode=0o700)
        folder.symlink_to(target)
    elif kind == "file":
        folder.write_text("")
    else:
        folder.mkdir(mode=0o700)
        if kind == "mode-0755":
            folder.chmod(0o755)
        elif os.geteuid() == 0:
            os.chown(folder, 54321, -1)
        else:
            pytest.skip("needs root to give the folder another owner")
    started = _no_spawn(monkeypatch)
    assert client.runtime_dir(dict(os.environ)) is None
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert not started


# -- the key ---------------------------------------------------------------------------------


def test_the_key_changes_with_the_build_the_rights_and_the_python_variables(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    module = package / "sub" / "rules.py"
    module.write_text("A = 1\n")
    base = client.helper_key(b"ctx", {}, str(package))
    assert client.helper_key(b"ctx", {"HOME": "/elsewhere"}, str(package)) == base
    assert client.helper_key(b"ctx2", {}, str(package)) != base
    assert client.helper_key(b"ctx", {"PYTHONPATH": "/shadow"}, str(package)) != base
    assert len(base) == 32
    time.sleep(0.05)  # folder times tick at the kernel's coarse clock (a few ms); upgrades come later
    replaced = package / "sub" / "rules.py.new"  # an install or upgrade replaces files
    replaced.write_text("A = 22\n")
    replaced.replace(module)
    assert client.helper_key(b"ctx", {}, str(package)) != base
    upgraded = client.helper_key(b"ctx", {}, str(package))
    time.sleep(0.05)
    (package / "__init__.py").write_text("__version__ = '2'\n")
    assert client.helper_key(b"ctx", {}, str(package)) != upgraded


def test_an_edit_in_place_changes_the_digest_the_helper_checks(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    module = package / "sub" / "rules.py"
    module.write_text("A = 1\n")
    key, digest = client.helper_key(b"ctx", {}, str(package)), client.build_digest(str(package))
    module.write_text("A = 22\n")  # same file, same folder: the key cannot see it, the digest does
    assert client.helper_key(b"ctx", {}, str(package)) == key
    assert client.build_digest(str(package)) != digest


# -- fail open against fake helpers ----------------------------------------------------------


#: A pid no process has (above Linux's largest, 2**22).
GONE = 2**22 + 17


def test_no_helper_runs_in_process_and_starts_one_detached(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = _no_spawn(monkeypatch, pid=GONE)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert len(started) == 1 and started[0][1] == "-P"
    marker = _socket_path(tmpdir_env).with_suffix(".starting")
    assert marker.read_text() == str(GONE), "the starting hook names the helper's process"
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert len(started) == 1, "a helper was being started: no second one"


def test_a_hook_that_finds_the_helper_starting_waits_and_is_served_by_it(
        tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of hooks at once: only the one that starts the helper loads the package itself."""
    _no_spawn(monkeypatch)
    path = _socket_path(tmpdir_env)
    path.with_suffix(".starting").write_text(str(os.getpid()))  # a helper starting: this process stands in

    def answers(conn: socket.socket) -> None:
        conn.sendall(client.hello(this_key()))
        _read_request(conn)
        conn.sendall(client.ANSWER + marshal.dumps((0, b"served", "")))

    threading.Timer(0.3, _serve, (path, answers)).start()
    assert client.handle(VALUES, b"{}", time.time(), dict(os.environ)) == (0, b"served", "")


def test_a_helper_that_failed_to_start_is_not_waited_for(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its marker names a process that has exited (another helper held the lock, a broken
    install): the hook runs its event itself at once, without a single wait."""
    started = _no_spawn(monkeypatch)
    _socket_path(tmpdir_env).with_suffix(".starting").write_text(str(GONE))
    sleeps: list[float] = []
    monkeypatch.setattr(start.time, "sleep", sleeps.append)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert sleeps == [] and started == []


def test_a_zombie_helper_is_not_waited_for(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    while Path(f"/proc/{child.pid}/stat").read_bytes().rsplit(b")", 1)[1][1:2] != b"Z":
        time.sleep(0.01)
    (tmp_path / "k.starting").write_text(str(child.pid))
    assert start.await_helper(str(tmp_path), "k", wait=60) is False
    child.wait()


def test_a_helper_that_never_listens_is_waited_for_at_most_the_bound(
        tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_spawn(monkeypatch)
    _socket_path(tmpdir_env).with_suffix(".starting").write_text("")  # the starting hook has not named it yet
    monkeypatch.setattr(start, "START_WAIT_SECONDS", 0.2)
    sleeps: list[float] = []
    real_sleep = time.sleep
    monkeypatch.setattr(start.time, "sleep", lambda s: sleeps.append(s) or real_sleep(s))
    assert client.handle(VALUES, b"{}", time.time(), dict(os.environ)) is None
    assert 0.2 / start.START_POLL_SECONDS - 2 <= len(sleeps) <= 0.2 / start.START_POLL_SECONDS + 1

def test_a_hook_waits_for_a_starting_helper_only_early_in_its_own_life(
        tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook that started `START_WAIT_OF_HOOK_SECONDS` ago (a slow start under load) runs its
    event in-process at once: waiting more would leave too little of its 8 s deadline for that."""
    _no_spawn(monkeypatch)
    _socket_path(tmpdir_env).with_suffix(".starting").write_text(str(os.getpid()))  # starting, alive
    sleeps: list[float] = []
    monkeypatch.setattr(start.time, "sleep", sleeps.append)
    late = time.time() - start.START_WAIT_OF_HOOK_SECONDS - 0.1
    assert client.handle(VALUES, b"{}", late, dict(os.environ)) is None
    assert sleeps == []
    monkeypatch.setattr(start, "START_WAIT_OF_HOOK_SECONDS", 0.1)  # sleeps not slept: the bound ends it
    assert client.handle(VALUES, b"{}", time.time(), dict(os.environ)) is None
    assert sleeps, "a hook that has just started waits"


def test_a_helper_stuck_since_its_start_is_waited_for_only_in_its_first_seconds(
        tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait is counted from the marker's last write (the start), not from each hook's arrival:
    a helper alive but still not listening `START_WAIT_SECONDS` after its start (stuck in its
    warm-up, stopped) cost every later event of the `START_GRACE_SECONDS` window the whole wait
    (measured: 9 of 12 sequential events 3.2 s each, none before the change)."""
    started = _no_spawn(monkeypatch)
    marker = _socket_path(tmpdir_env).with_suffix(".starting")
    marker.write_text(str(os.getpid()))  # alive, never listens
    old = time.time() - start.START_WAIT_SECONDS - 0.5
    os.utime(marker, (old, old))
    sleeps: list[float] = []
    monkeypatch.setattr(start.time, "sleep", sleeps.append)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert sleeps == [] and started == []


def test_a_fifo_named_like_the_marker_never_blocks_a_hook(tmp_path: Path) -> None:
    """Opening a FIFO to read blocks until a writer comes: the hook hung to its deadline (8 s,
    exit 1 and a line on stderr) for every event until the FIFO was old enough to be removed."""
    os.mkfifo(tmp_path / "k.starting")
    thread = threading.Thread(target=start.await_helper, args=(str(tmp_path), "k", 0.1), daemon=True)
    thread.start()
    thread.join(5)
    blocked = thread.is_alive()
    if blocked:  # let the thread go
        os.close(os.open(tmp_path / "k.starting", os.O_WRONLY | os.O_NONBLOCK))
    assert not blocked



def test_a_helper_starts_with_the_hooks_interpreter_options(tmp_path: Path) -> None:
    """pipx writes `#!…/python -E`: that hook ignores PYTHONPATH, so must its helper, and the
    key tells such a hook from one without the option."""
    code = (
        "import os, sys; from loopguard_hook.fastpath import client; calls = []; "
        "os.posix_spawn = lambda path, argv, env, **kw: calls.append(argv); "
        "client.start_helper(sys.argv[1], 'k' * 32, {}); "
        "print(calls[0][1:3], client.helper_key(b'', {}))"
    )
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a")], capture_output=True, text=True,
                           check=True).stdout.split()
    isolated = subprocess.run([sys.executable, "-E", "-c", code, str(tmp_path / "b")], capture_output=True, text=True,
                              check=True).stdout.split()
    assert plain[:2] == ["['-P',", "'-c']"] and isolated[:2] == ["['-E',", "'-P']"]
    assert plain[2] != isolated[2]


def test_a_stale_start_marker_does_not_stop_a_new_start(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = _no_spawn(monkeypatch)
    folder = Path(client.runtime_dir(dict(os.environ)) or "")
    marker = folder / f"{this_key()}.starting"
    marker.write_text("")
    old = time.time() - 2 * start.START_GRACE_SECONDS
    os.utime(marker, (old, old))
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert len(started) == 1


def test_a_helper_of_another_build_is_never_sent_a_request(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_spawn(monkeypatch)
    got: list[bytes] = []

    def other_build(conn: socket.socket) -> None:
        conn.sendall(client.hello("0" * 32))
        conn.settimeout(2)
        try:
            got.append(conn.recv(100))
        except OSError:
            pass

    thread = _serve(_socket_path(tmpdir_env), other_build)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    thread.join(5)
    assert got == [b""], "the client closed without sending anything"


def test_a_helper_that_never_greets_costs_at_most_the_greeting_timeout(tmpdir_env: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _no_spawn(monkeypatch)
    _serve(_socket_path(tmpdir_env), lambda conn: time.sleep(3))
    started = time.monotonic()
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert time.monotonic() - started < client.HELLO_TIMEOUT + 0.5


def test_a_helper_that_closes_without_greeting_is_replaced(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper killed or stopping while a client connects leaves its socket taking connections
    for a moment: the event runs in-process and a new helper is started (it takes over the
    socket, or finds the old one still alive and exits)."""
    started = _no_spawn(monkeypatch)
    _serve(_socket_path(tmpdir_env), lambda conn: None)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    assert len(started) == 1


def test_a_helper_that_dies_after_the_request_lets_the_call_through(tmpdir_env: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _no_spawn(monkeypatch)
    seen: list[tuple[object, ...]] = []

    def dies(conn: socket.socket) -> None:
        conn.sendall(client.hello(this_key()))
        seen.append(_read_request(conn))

    _serve(_socket_path(tmpdir_env), dies)
    reply = client.handle(VALUES, b'{"x": 1}', 12.5, {**os.environ, "LOOPGUARD_DENY_AT": "5"})
    assert reply == (1, b"", client.LOST)
    assert reply[2].startswith("loopguard-hook: internal error") and "\n" not in reply[2]
    values, environ, cwd, mask, clock, length = seen[0]
    assert values == VALUES and clock == 12.5 and length == 8 and cwd == os.getcwd()
    assert isinstance(environ, dict) and environ["LOOPGUARD_DENY_AT"] == "5"
    assert isinstance(mask, int)


def test_a_helper_that_holds_the_event_lets_it_through_within_the_reply_bound(
        tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker stopped or frozen mid-event: the call is let through (one line, exit 1) once the
    event's lock bound is past, not after a fixed minute the host would not wait for."""
    _no_spawn(monkeypatch)
    monkeypatch.setattr(client, "REPLY_TIMEOUT", 0.5)

    def holds(conn: socket.socket) -> None:
        conn.sendall(client.hello(this_key()))
        _read_request(conn)
        time.sleep(3)

    _serve(_socket_path(tmpdir_env), holds)
    started = time.monotonic()
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) == (1, b"", client.LOST)
    assert time.monotonic() - started < 2.0


def test_the_reply_bound_follows_a_longer_lock_bound_of_the_environment() -> None:
    assert client.reply_timeout({}) == client.REPLY_TIMEOUT == 10.0
    assert client.reply_timeout({client.ENV_LOCK_TIMEOUT: "1"}) == 10.0
    assert client.reply_timeout({client.ENV_LOCK_TIMEOUT: "20"}) == 28.0
    assert client.reply_timeout({client.ENV_LOCK_TIMEOUT: "999"}) == 68.0
    assert client.reply_timeout({client.ENV_LOCK_TIMEOUT: "soon"}) == 10.0


def test_a_helper_that_declines_lets_the_client_run_the_event(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_spawn(monkeypatch)

    def declines(conn: socket.socket) -> None:
        conn.sendall(client.hello(this_key()))
        _read_request(conn)
        conn.sendall(client.DECLINE)

    _serve(_socket_path(tmpdir_env), declines)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None


@pytest.mark.parametrize("answer", [b"A" + b"garbage", b"A", b"X", b""])
def test_a_garbled_answer_lets_the_call_through(answer: bytes, tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_spawn(monkeypatch)

    def garbles(conn: socket.socket) -> None:
        conn.sendall(client.hello(this_key()))
        _read_request(conn)
        conn.sendall(answer)

    _serve(_socket_path(tmpdir_env), garbles)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) == (1, b"", client.LOST)


def test_a_socket_file_owned_by_someone_else_is_not_used(tmpdir_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the socket another owner")
    _no_spawn(monkeypatch)
    path = _socket_path(tmpdir_env)
    connected: list[bool] = []
    _serve(path, lambda conn: connected.append(True))
    os.chown(path, 54321, -1)
    assert client.handle(VALUES, b"{}", 1.0, dict(os.environ)) is None
    time.sleep(0.1)
    assert not connected


def test_an_empty_payload_is_handed_over_once_the_head_is_sent() -> None:
    """A worker needs no payload bytes for an empty payload: it may answer from the request's head
    and close before the client's next send. A send of no bytes then failed (EPIPE), the hand-over
    was reported failed, and the event ran a second time in the hook's own process (two lines in
    errors.log for one empty payload, about 10 runs in 40 with the helper up)."""
    left, right = socket.socketpair()

    class _AnsweredAfterTheHead:
        """`left`, whose peer reads the head and closes, as a worker that has answered does."""

        def settimeout(self, value: float) -> None:
            left.settimeout(value)

        def sendall(self, data: bytes) -> None:
            left.sendall(data)
            if not right._closed:  # type: ignore[attr-defined]
                size = int.from_bytes(right.recv(8), "little")
                assert len(right.recv(size, socket.MSG_WAITALL)) == size
                right.close()

    with left:
        sock: Any = _AnsweredAfterTheHead()
        assert client._hand_over(sock, {"client": "cursor"}, b"", time.time(), {}) is True
