"""The resident helper as real processes: start on demand, files and modes, idle exit, kills,
a stopped helper, the peer check, and that the event runs with the client's environment.

Each test gets its own TMPDIR (so its own helper) and stops it by process group afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from resident import alive, folder_of, helper_pids, short_temp_dir, stop_helpers, this_key, wait_for_socket
from test_hardening_helpers import HOOK, dumps, load_state, pre

from loopguard_hook.fastpath import client, helper
from loopguard_hook.store import Store


@pytest.fixture(autouse=True)
def _patient_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behaviour, not timing: on a loaded machine a fresh spare may take longer than the greeting
    timeout, and the client would then (rightly) leave the event to the caller. The test of the
    timeout itself sets it back."""
    monkeypatch.setattr(client, "HELLO_TIMEOUT", 10.0)


def _event(session: str, n: int) -> bytes:
    return dumps(pre("claude-code", session, "Bash", {"command": f"ls -d src/part{n}"}, f"toolu_{n}"))


def _start(tmpdir: Path, state: Path, idle: str = "60") -> dict[str, str]:
    """Start a helper the way a hook does (first event in-process); the environment it serves."""
    env = {**os.environ, "LOOPGUARD_RESIDENT_IDLE_SECONDS": idle}
    assert client.handle({"state_dir": str(state)}, _event("warm", 0), time.time(), env) is None
    wait_for_socket(tmpdir)
    return env


def _children(pid: int) -> list[int]:
    """Direct children of `pid` (the helper's spares and serving children)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def test_the_first_event_starts_a_helper_and_the_next_ones_are_served_by_it(tmpdir_env: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = _start(tmpdir_env, state)
    [pid] = helper_pids(tmpdir_env)
    for n in range(1, 6):
        reply = client.handle({"state_dir": str(state)}, _event("s1", n), time.time(), env)
        assert reply == (0, b"", ""), reply
    assert load_state(state, "s1")["agents"]["main"]["attempts"] == 5
    assert helper_pids(tmpdir_env) == [pid] and alive(pid)


def test_a_helper_started_while_sigint_is_held_does_not_hold_it(tmpdir_env: Path, tmp_path: Path) -> None:
    """The hook holds SIGINT while it decides (`process.held_interrupts`), and a helper it starts
    then must not inherit the mask: `helper stop`, a terminal's Ctrl-C and the idle exit rely on
    signals reaching it (before, the helper ran with SIGINT blocked for its whole life)."""
    import signal

    from loopguard_hook.process import held_interrupts

    with held_interrupts():
        _start(tmpdir_env, tmp_path / "state")
    assert not signal.pthread_sigmask(signal.SIG_BLOCK, set())  # released here
    [pid] = helper_pids(tmpdir_env)
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("SigBlk:", "SigIgn:")):
            assert int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)) == 0, line


def test_folder_socket_and_lock_are_private_to_the_user(tmpdir_env: Path, tmp_path: Path) -> None:
    _start(tmpdir_env, tmp_path / "state")
    folder = folder_of(tmpdir_env)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    files = [p for p in folder.iterdir() if not p.name.startswith("warm-up.")]  # spares' scratch dirs
    assert sorted(p.name.split(".", 1)[1] for p in files) == ["lock", "sock"], files
    for path in files:
        st = path.lstat()
        assert st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o177 == 0, path


def test_a_hard_link_planted_at_the_lock_is_never_written_through(tmpdir_env: Path, tmp_path: Path) -> None:
    """A hard link at `<key>.lock` to a file of the user's: before, the starting helper wrote its
    pid into that file. Now no helper takes such a lock (events run in-process), and the file is
    untouched."""
    folder = folder_of(tmpdir_env)
    folder.mkdir(mode=0o700)
    precious = tmp_path / "precious"
    precious.write_text("precious\n")
    os.link(precious, folder / f"{this_key()}.lock")
    assert helper._take_lock(str(folder), this_key()) is None
    env = {**os.environ, "LOOPGUARD_RESIDENT_IDLE_SECONDS": "60"}
    assert client.handle({"state_dir": str(tmp_path / "state")}, _event("s", 1), time.time(), env) is None
    time.sleep(1.0)  # a helper started by the event would have written its pid by now
    assert precious.read_text() == "precious\n" and not helper_pids(tmpdir_env)


def test_each_event_runs_with_its_own_environment_and_directory(tmpdir_env: Path, tmp_path: Path) -> None:
    """Two clients with different settings and directories share one helper; neither's
    environment leaks into the other's event."""
    state = tmp_path / "state"
    env = _start(tmpdir_env, state)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".loopguard.toml").write_text("deny_at = 2\n")
    strict = {**env, "LOOPGUARD_STATE_DIR": str(state), "LOOPGUARD_PROFILE": "breaker"}
    plain = {**env, "LOOPGUARD_STATE_DIR": str(state)}
    denied = json.dumps(pre("claude-code", "s2", "Bash", {"command": "ls"}, None, cwd=str(project))).encode()
    results = []
    for n in range(3):
        allowed = json.dumps(pre("claude-code", "s3", "Bash", {"command": "ls"}, None, cwd=str(project))).encode()
        results.append(client.handle({}, denied, time.time(), strict))
        results.append(client.handle({}, allowed.replace(b"ls", f"ls {n}".encode()), time.time(), plain))
    assert all(r is not None for r in results)
    assert [r[0] for r in results if r] == [0] * 6
    assert b"deny" in (results[2] or (0, b"", ""))[1], results[2]
    assert all(r == (0, b"", "") for r in results[1::2]), results[1::2]


def test_the_helper_runs_in_the_clients_directory(tmpdir_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative `--state-dir` means the same folder as in-process: the client's cwd."""
    env = _start(tmpdir_env, tmp_path / "state")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert client.handle({"state_dir": "rel-state"}, _event("s4", 1), time.time(), env) == (0, b"", "")
    assert load_state(work / "rel-state", "s4")["agents"]["main"]["attempts"] == 1


def test_the_helper_exits_when_idle_and_its_spares_with_it(tmpdir_env: Path, tmp_path: Path) -> None:
    _start(tmpdir_env, tmp_path / "state", idle="1")
    [pid] = helper_pids(tmpdir_env)
    deadline = time.monotonic() + 10  # the helper listens first, then forks its workers
    while not (spares := _children(pid)) and alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(spares) >= 1
    deadline = time.monotonic() + 15
    while (alive(pid) or any(alive(s) for s in spares)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid) and not any(alive(s) for s in spares)
    assert not list(folder_of(tmpdir_env).glob("*.sock")), "the socket is removed on exit"


def test_a_killed_helper_is_replaced_and_the_event_runs_in_process_meanwhile(tmpdir_env: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = _start(tmpdir_env, state)
    [pid] = helper_pids(tmpdir_env)
    os.killpg(pid, signal.SIGKILL)
    while alive(pid):
        time.sleep(0.01)
    [stale] = folder_of(tmpdir_env).glob("*.sock")  # a dead helper leaves its socket behind
    inode = stale.stat().st_ino
    assert client.handle({"state_dir": str(state)}, _event("s5", 1), time.time(), env) is None
    deadline = time.monotonic() + 30
    while stale.stat().st_ino == inode and time.monotonic() < deadline:  # the new one renames its own over it
        time.sleep(0.05)
    wait_for_socket(tmpdir_env)
    assert helper_pids(tmpdir_env) != [pid]
    assert client.handle({"state_dir": str(state)}, _event("s5", 2), time.time(), env) == (0, b"", "")


def test_a_stopped_helper_delays_an_event_by_the_greeting_timeout_at_most(
    tmpdir_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _start(tmpdir_env, tmp_path / "state")
    monkeypatch.setattr(client, "HELLO_TIMEOUT", 0.25)
    [pid] = helper_pids(tmpdir_env)
    os.killpg(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        assert client.handle({"state_dir": str(tmp_path / "state")}, _event("s6", 1), time.time(), env) is None
        assert time.monotonic() - started < client.HELLO_TIMEOUT + 0.5
    finally:
        os.killpg(pid, signal.SIGCONT)


def test_a_child_killed_mid_event_lets_the_call_through_and_the_ledger_stays_whole(tmpdir_env: Path, tmp_path: Path) -> None:
    """The child waits on the session lock (held here); SIGKILL it: the client answers at once
    with one line and exit 1, the ledger is intact, and the next event is counted."""
    state = tmp_path / "state"
    env = {**_start(tmpdir_env, state), "LOOPGUARD_LOCK_TIMEOUT_SECONDS": "20"}
    assert client.handle({"state_dir": str(state)}, _event("s7", 1), time.time(), env) == (0, b"", "")
    [pid] = helper_pids(tmpdir_env)
    replies: list[object] = []
    with Store(str(state), lock_timeout=10).session("s7"):
        before = set(_children(pid))
        thread = threading.Thread(
            target=lambda: replies.append(client.handle({"state_dir": str(state)}, _event("s7", 2), time.time(), env))
        )
        thread.start()
        time.sleep(1.0)  # the serving child is parked in flock
        serving = [c for c in before if alive(c) and c not in _children(pid)] or [c for c in before if alive(c)]
        for child in before:
            if alive(child):
                os.kill(child, signal.SIGKILL)
        thread.join(10)
    assert serving
    assert replies == [(1, b"", client.LOST)]
    assert load_state(state, "s7")["agents"]["main"]["attempts"] == 1
    deadline = time.monotonic() + 10
    reply = None
    while reply is None and time.monotonic() < deadline:
        reply = client.handle({"state_dir": str(state)}, _event("s7", 3), time.time(), env)
    assert reply == (0, b"", "")
    assert load_state(state, "s7")["agents"]["main"]["attempts"] == 2


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
def test_a_peer_of_another_user_is_not_served(tmpdir_env: Path, tmp_path: Path) -> None:
    """Even with the folder opened up, a connection from another uid gets no greeting."""
    _start(tmpdir_env, tmp_path / "state")
    folder = folder_of(tmpdir_env)
    [sock_path] = folder.glob("*.sock")
    for opened in (tmpdir_env, folder):
        opened.chmod(0o711)
    sock_path.chmod(0o777)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(65534)
            os.setuid(65534)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(str(sock_path))
            os.write(write, b"got:" + s.recv(100))
        except BaseException as exc:
            os.write(write, f"error:{exc!r}".encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    seen = os.read(read, 1000)
    os.close(read)
    folder.chmod(0o700)
    assert seen == b"got:", seen


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs util-linux setpriv")
def test_a_hook_with_no_new_privs_runs_in_process_and_starts_no_helper(tmpdir_env: Path, tmp_path: Path) -> None:
    """A sandboxed hook (DeepSeek Harness: Landlock or bubblewrap, both set no_new_privs) that
    names its own state folder decides in its own process and leaves nothing behind: no
    user-wide helper, and no workspace helper (`test_resident_confined.py`)."""
    state = tmp_path / "state"
    for n in range(1, 4):
        outcome = subprocess.run(["setpriv", "--no-new-privs", HOOK, "--state-dir", str(state)], input=_event("nnp", n),
                                 env=dict(os.environ), capture_output=True, timeout=60, check=False)
        assert (outcome.returncode, outcome.stdout, outcome.stderr) == (0, b"", b"")
    time.sleep(0.5)
    assert not folder_of(tmpdir_env).exists()
    assert load_state(state, "nnp")["agents"]["main"]["attempts"] == 3


def test_scratch_left_by_a_killed_spare_is_removed_by_the_next_helper(tmpdir_env: Path, tmp_path: Path) -> None:
    folder = client.runtime_dir(dict(os.environ))
    assert folder is not None
    old, fresh = Path(folder, "warm-up.old"), Path(folder, "warm-up.fresh")
    for path in (old, fresh):
        (path / "state").mkdir(parents=True)
    past = time.time() - 2 * 3600
    os.utime(old, (past, past))
    _start(tmpdir_env, tmp_path / "state")
    assert not old.exists() and fresh.exists()


def test_workers_last_across_events_and_a_burst_gets_one_event_workers(tmpdir_env: Path, tmp_path: Path) -> None:
    """Events one after another are served by the same warm workers (no fork per event); while
    every worker is busy (here: parked on a held session lock) the helper forks more, so a
    parallel hook never waits for a worker; each event is still counted once."""
    state = tmp_path / "state"
    env = {**_start(tmpdir_env, state), "LOOPGUARD_LOCK_TIMEOUT_SECONDS": "20"}
    [pid] = helper_pids(tmpdir_env)
    for n in range(1, 4):
        assert client.handle({"state_dir": str(state)}, _event("w1", n), time.time(), env) == (0, b"", "")
    workers = set(_children(pid))
    for n in range(4, 12):
        assert client.handle({"state_dir": str(state)}, _event("w1", n), time.time(), env) == (0, b"", "")
    assert set(_children(pid)) == workers and len(workers) == helper.WORKERS
    replies: list[object] = []
    with Store(str(state), lock_timeout=10).session("w2"):
        threads = [threading.Thread(target=lambda n=n: replies.append(
            client.handle({"state_dir": str(state)}, _event("w2", n), time.time(), env))) for n in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(1.5)
        assert len(_children(pid)) > len(workers)  # the lasting workers are parked: one-event workers came
    for thread in threads:
        thread.join(20)
    assert replies == [(0, b"", "")] * 4
    assert load_state(state, "w2")["agents"]["main"]["attempts"] == 4


#: Long enough for the helper to compare its modules after an event (`helper.RECHECK_SECONDS`).
RECHECK_WAIT = helper.RECHECK_SECONDS + helper.POLL_SECONDS


def test_a_module_edited_in_place_retires_the_helper_after_its_next_event(tmp_path: Path) -> None:
    """An edit that leaves the package's folders alone does not change the key; the helper
    compares its modules after events and stops listening, so the next event starts a helper
    that loads the edited code."""
    tmpdir = short_temp_dir()
    copy = tmp_path / "site"
    shutil.copytree(Path(client.__file__).parents[1], copy / "loopguard_hook",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "TMPDIR": str(tmpdir), "PYTHONPATH": str(copy), "LOOPGUARD_RESIDENT_IDLE_SECONDS": "60"}
    env.pop("LOOPGUARD_RESIDENT", None)
    state = tmp_path / "state"
    code = "import sys; from loopguard_hook.entry import main; sys.exit(main())"

    def hook(n: int) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-P", "-c", code, "--state-dir", str(state)], input=_event("ed", n),
                              env=env, capture_output=True, timeout=60, check=False, cwd=tmp_path)

    try:
        assert hook(1).returncode == 0
        sock = wait_for_socket(tmpdir, "*")
        [first] = helper_pids(tmpdir)
        rules = copy / "loopguard_hook" / "rules" / "repeat.py"
        with rules.open("a") as fh:  # in place: same inode, same folder
            fh.write("\n# edited\n")
        events = 1
        deadline = time.monotonic() + 20
        while sock.exists() and time.monotonic() < deadline:  # an event the helper serves (not
            events += 1  # one a loaded machine left to the client) makes it look
            assert hook(events).returncode == 0
            time.sleep(RECHECK_WAIT)
        assert not sock.exists(), "the helper stopped listening once it saw the edit"
        events += 1
        assert hook(events).returncode == 0
        wait_for_socket(tmpdir, "*")
        assert [p for p in helper_pids(tmpdir) if alive(p)] != [first]
        assert load_state(state, "ed")["agents"]["main"]["attempts"] == events
    finally:
        stop_helpers(tmpdir)


def test_a_worker_takes_each_events_environment_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers serve event after event: each runs with its client's environment, nothing more
    (a variable of the previous event is gone), nothing less."""
    saved = dict(os.environ)
    monkeypatch.setattr(helper, "_adopted", {})
    first = {**saved, "LOOPGUARD_PROFILE": "breaker", "ONLY_FIRST": "1"}
    second = {k: v for k, v in saved.items() if k != "HOME"} | {"LOOPGUARD_PROFILE": "reminder"}
    try:
        helper.adopt_environ(first)
        assert dict(os.environ) == first
        helper.adopt_environ(second)
        assert dict(os.environ) == second
        helper.adopt_environ(second)
        assert dict(os.environ) == second
        helper.adopt_environ(first)
        assert dict(os.environ) == first
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_an_environment_entry_putenv_refuses_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exec may pass `=x` (an empty name): `os.environ` shows it, `putenv` refuses it. The
    event still runs, with everything else of its environment."""
    saved = dict(os.environ)
    monkeypatch.setattr(helper, "_adopted", {})
    try:
        helper.adopt_environ({**saved, "": "x", "LOOPGUARD_PROFILE": "breaker"})
        assert dict(os.environ) == {**saved, "LOOPGUARD_PROFILE": "breaker"}
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_the_temporary_socket_name_is_no_longer_than_the_final_one(tmpdir_env: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The client checks the final socket path against Linux's limit; the name the helper binds
    first must fit wherever the final one does, or every event would start a helper that fails."""
    names: list[str] = []
    real_bind = socket.socket.bind
    monkeypatch.setattr(socket.socket, "bind", lambda self, path: (names.append(str(path)), real_bind(self, path))[1])
    folder = client.runtime_dir(dict(os.environ))
    assert folder is not None
    server = helper._listen(folder, "k" * 32)
    server.close()
    assert names and all(len(name) <= len(os.path.join(folder, "k" * 32 + ".sock")) for name in names)


#: A forged request sent straight to a running helper's socket, as a process in a sandbox could:
#: argv is the socket folder, the helper key and the state dir to ask for; prints the reply.
_FORGE = """
import os, sys, time
from loopguard_hook.fastpath import client
folder, key, state = sys.argv[1:4]
sock = client._connect(folder, key, dict(os.environ), time.time())
if sock is None:
    print("no-connection")
    sys.exit(0)
payload = sys.stdin.buffer.read()
assert client._hand_over(sock, {"state_dir": state}, payload, time.time(), dict(os.environ))
print(repr(client._answer(sock, 30.0)))
"""


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs util-linux setpriv")
def test_a_confined_process_cannot_make_the_global_helper_write_for_it(tmpdir_env: Path, tmp_path: Path) -> None:
    """A process with no_new_privs (a Landlock sandbox sets it: DSH's hooks and its model's own
    shell) that reaches the unconfined helper's socket through the shared /tmp is declined: the
    helper never writes where the sandbox would forbid. An unconfined process is still served."""
    env = _start(tmpdir_env, tmp_path / "state")
    folder, key = str(folder_of(tmpdir_env)), this_key()
    escaped = tmp_path / "escaped-state"
    forge = [sys.executable, "-c", _FORGE, folder, key, str(escaped)]
    confined = subprocess.run(["setpriv", "--no-new-privs", *forge], input=_event("forged", 1), env=env,
                              capture_output=True, timeout=60, check=True)
    assert confined.stdout.strip() == b"None", confined  # DECLINE: the client would run it itself
    assert not escaped.exists()
    served = subprocess.run(forge, input=_event("forged", 2), env=env, capture_output=True, timeout=60, check=True)
    assert served.stdout.strip() == b"(0, b'', '')", served
    assert (escaped / "sessions").is_dir()  # the same request, unconfined, is served


def test_peer_confined_reads_the_peers_status(tmp_path: Path) -> None:
    """No_new_privs or a seccomp filter is confined; an unreadable status is too."""
    left, right = socket.socketpair()
    with left, right:
        assert helper.peer_confined(left) is False  # this test process: not confined
        pid = os.getpid()
        for status, confined in ((b"NoNewPrivs:\t1\nSeccomp:\t0\n", True), (b"NoNewPrivs:\t0\nSeccomp:\t2\n", True),
                                 (b"NoNewPrivs:\t0\nSeccomp:\t0\n", False), (b"Name:\tx\n", True)):
            (tmp_path / str(pid)).mkdir(exist_ok=True)
            (tmp_path / str(pid) / "status").write_bytes(status)
            assert helper.peer_confined(left, str(tmp_path)) is confined, status
        assert helper.peer_confined(left, str(tmp_path / "none")) is True


def test_a_helper_whose_socket_was_removed_is_replaced_without_a_start_per_event(
    tmpdir_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old helper lets go of its lock once its socket is gone, and the one started then takes
    over; the events in between run in-process and start at most one or two helpers in all (a
    helper that cannot take the lock used to die at once, and every event started another)."""
    from loopguard_hook.fastpath import start

    env = _start(tmpdir_env, tmp_path / "state")
    [old] = helper_pids(tmpdir_env)
    (folder_of(tmpdir_env) / f"{this_key()}.sock").unlink()
    claims: list[bool] = []
    real_claim = start._claim_start

    def counting(marker: str) -> bool:
        claims.append(real_claim(marker))
        return claims[-1]

    monkeypatch.setattr(start, "_claim_start", counting)
    served = None
    for n in range(1, 400):
        served = client.handle({"state_dir": str(tmp_path / "state")}, _event("gone", n), time.time(), env)
        if served is not None:
            break
        time.sleep(0.05)
    assert served == (0, b"", ""), "no helper took over"
    assert 1 <= claims.count(True) <= 2, claims
    assert not alive(old)
