"""The helper of a confined hook's workspace (fastpath/confined.py) as real processes.

DSH runs every hook confined (no_new_privs, under Landlock or bubblewrap), in the session
workspace. Here `setpriv --no-new-privs` confines the hook as DSH's launchers do for what the
fast path can see; `tests/test_dsh_sandbox.py` runs the same under DSH's real Landlock launcher.
Each test stops the helpers it started (by process group).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from resident import alive, short_temp_dir, stop_helpers, wait_for_socket
from test_hardening_helpers import HOOK

from loopguard_hook.fastpath import confined

pytestmark = pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs util-linux setpriv")

SESSION = "session-b50b3b41-09fd-4bf7-a09d-d5ed9d1c2073"


def _pre(workspace: Path, n: int, command: str = "ls") -> bytes:
    """A PreToolUse of DSH's Claude Code bridge (captured shape), call `n`."""
    return json.dumps({
        "session_id": SESSION, "cwd": str(workspace), "hook_event_name": "PreToolUse", "tool_name": "bash",
        "transcript_path": f"{workspace.parent}/home/.dsh/sessions/--p--/{SESSION}/session.jsonl.zstd",
        "tool_input": {"command": f"{command} {n}"}, "tool_use_id": f"call_main_{n}_0",
    }).encode()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LOOPGUARD_", "XDG_"))}
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    return dict(base, HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def _stop(tmp_path: Path):  # type: ignore[no-untyped-def]
    yield
    for lock in tmp_path.glob("*/.loopguard-hook/resident/helper.lock"):
        pid = _pid(lock.parent)
        if pid:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _pid(folder: Path) -> int | None:
    try:
        text = (folder / "helper.lock").read_text().split("\n")[0]
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _hook(workspace: Path, env: dict[str, str], n: int, *, launcher: tuple[str, ...] = ("setpriv", "--no-new-privs"),
          **extra: str) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run([*launcher, HOOK], input=_pre(workspace, n), env=dict(env, **extra), cwd=workspace,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == b"", done
    return done


def _served(folder: Path) -> int:
    """Events the workspace helper has served (its status file, rewritten between events)."""
    for status in folder.glob("*.status"):
        try:
            return int(json.loads(status.read_bytes())["events"])
        except (OSError, ValueError):
            pass
    return 0


def _wait_until(check, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _listening(folder: Path) -> bool:
    return any(folder.glob("*.sock")) and not any(folder.glob("*.starting"))


def _start(workspace: Path, env: dict[str, str], **extra: str) -> Path:
    """Three confined events (the first makes the state folder, the third starts the helper: the
    second ran in the same namespaces); its folder once it listens."""
    folder = workspace / ".loopguard-hook" / "resident"
    for n in (1, 2, 3):
        _hook(workspace, env, n, **extra)
    _wait_until(lambda: _listening(folder))
    return folder


def _attempts(workspace: Path) -> int:
    return int(json.loads((workspace / ".loopguard-hook" / "sessions" / f"{SESSION}.json").read_bytes())["attempts"])


def test_a_confined_hook_is_served_by_a_helper_of_its_workspace_inside_the_same_confinement(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    folder = _start(workspace, env)
    pid = _pid(folder)
    assert pid and alive(pid)
    assert b"NoNewPrivs:\t1" in Path(f"/proc/{pid}/status").read_bytes(), "the helper carries the hook's no_new_privs"
    assert os.stat(folder).st_mode & 0o777 == 0o700
    for n in range(4, 9):
        _hook(workspace, env, n)
    _wait_until(lambda: _served(folder) >= 4)
    assert _attempts(workspace) == 8, "every event recorded once, by the hook or by the helper"
    assert list((tmp_path / "tmp").iterdir()) == [], "nothing under the temp dir: no user-wide helper"
    assert not (tmp_path / "home" / ".cache").exists()


def test_the_workspace_helper_exits_when_idle(workspace: Path, env: dict[str, str]) -> None:
    folder = _start(workspace, env, LOOPGUARD_RESIDENT_IDLE_SECONDS="1")
    pid = _pid(folder)
    assert pid
    _wait_until(lambda: not alive(pid))
    assert not list(folder.glob("*.sock")), "its socket goes with it"
    _hook(workspace, env, 4)  # the next event runs in-process, as the first did
    assert _attempts(workspace) == 4


def test_the_idle_time_of_a_workspace_helper_is_short_whatever_the_environment_says() -> None:
    assert confined.IDLE_SECONDS <= 120
    assert confined._seconds("600") == 600.0 and confined._seconds("x") == confined.IDLE_SECONDS


def test_a_killed_workspace_helper_is_replaced_and_events_run_in_process_meanwhile(
        workspace: Path, env: dict[str, str]) -> None:
    folder = _start(workspace, env)
    first = _pid(folder)
    assert first
    os.killpg(first, signal.SIGKILL)
    _wait_until(lambda: not alive(first))
    _hook(workspace, env, 4)  # its socket is there, nobody listens: in-process, and a new helper
    _wait_until(lambda: _pid(folder) not in (None, first) and _listening(folder))
    _hook(workspace, env, 5)
    assert _attempts(workspace) == 5


@pytest.mark.parametrize("planted", ["file", "symlink", "open"])
def test_no_helper_when_its_folder_is_not_a_private_folder_of_this_user(
        workspace: Path, env: dict[str, str], tmp_path: Path, planted: str) -> None:
    """Fails open: the events run in-process, with their decisions, and nothing is started."""
    state = workspace / ".loopguard-hook"
    _hook(workspace, env, 1)  # the guard makes its state folder
    if planted == "file":
        (state / "resident").write_bytes(b"")
    elif planted == "symlink":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        (state / "resident").symlink_to(tmp_path / "elsewhere")
    else:
        (state / "resident").mkdir(mode=0o755)
        (state / "resident").chmod(0o755)
    for n in range(2, 6):
        _hook(workspace, env, n)
    time.sleep(0.5)
    assert _attempts(workspace) == 5
    assert not list((tmp_path / "elsewhere").iterdir()) if planted == "symlink" else True
    if planted == "open":
        assert _pid(state / "resident") is None


def test_no_helper_for_a_confined_hook_that_names_its_own_state_folder(
        workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    for n in range(1, 5):
        _hook(workspace, env, n, LOOPGUARD_STATE_DIR=str(tmp_path / "state"))
    time.sleep(0.5)
    assert not (workspace / ".loopguard-hook").exists()


def test_no_helper_where_each_hook_call_has_namespaces_of_its_own(workspace: Path, env: dict[str, str]) -> None:
    """Under bubblewrap each hook call gets its own mount namespace: a helper started by one
    could never be found by the next. The previous helperless hook's namespaces differ, so
    nothing is started (and this one's are remembered)."""
    _hook(workspace, env, 1)
    folder = workspace / ".loopguard-hook" / "resident"
    folder.mkdir(mode=0o700)
    for n in range(2, 5):
        (folder / "last-ns").write_bytes(b"mnt:[1]\nuser:[2]\npid:[3]")  # another call's namespaces
        _hook(workspace, env, n)
        time.sleep(0.3)
        assert _pid(folder) is None and not list(folder.glob("*.starting")), "no helper started"
    assert (folder / "last-ns").read_bytes() == confined.namespaces()


def test_each_workspace_has_its_own_helper(tmp_path: Path, env: dict[str, str]) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    folders = [_start(one, env), _start(two, env)]
    pids = [_pid(f) for f in folders]
    assert pids[0] and pids[1] and pids[0] != pids[1]
    for n in range(4, 6):
        _hook(one, env, n)
        _hook(two, env, n)
    assert (_attempts(one), _attempts(two)) == (5, 5)


#: A forged request to a workspace helper: connect to `argv[1]` (its socket), greet, send the
#: request of an event with the directory `argv[2]` and, as its proof, `argv[3]` opened with
#: mode `argv[4]` ("w" or "r"); prints the answer (None: declined, the client would run it).
FORGE = r"""
import os, sys, time, _socket
from loopguard_hook.fastpath import client
sock_path, cwd, proof_path, mode, payload = sys.argv[1:6]
key = os.path.basename(sock_path)[:-5]
sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
sock.settimeout(10)
os.chdir(os.path.dirname(sock_path))  # a relative address: the workspace's path may be long
sock.connect(os.path.basename(sock_path))
assert client.read_exactly(sock, len(client.hello(key))) == client.hello(key)
proof = os.open(proof_path, os.O_WRONLY if mode == "w" else os.O_RDONLY)
os.chdir(cwd)
assert client._hand_over(sock, {}, payload.encode(), time.time(), dict(os.environ), None, proof)
print(client._answer(sock, 10.0))
"""


def _forge(env: dict[str, str], sock: Path, cwd: Path, proof: Path, mode: str, payload: bytes, *,
           confine: bool = True) -> str:
    argv = [sys.executable, "-c", FORGE, str(sock), str(cwd), str(proof), mode, payload.decode()]
    done = subprocess.run(["setpriv", "--no-new-privs", *argv] if confine else argv, env=env, capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


def test_a_workspace_helper_serves_only_requests_of_its_workspace_with_a_proof_of_write_access(
        tmp_path: Path, env: dict[str, str]) -> None:
    """What a process in another sandbox (another workspace) could try through the socket: all
    declined, so the helper never writes anywhere for it. The same request from this workspace,
    confined the same way and with the proof, is served."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    folder = _start(one, env)
    _hook(two, env, 1)  # two's state folder exists
    sock = next(folder.glob("*.sock"))
    lock = folder / "helper.lock"
    other = two / ".loopguard-hook" / ".gitignore"
    assert _forge(env, sock, two, lock, "w", _pre(two, 7)) == "None", "another workspace's event"
    assert _forge(env, sock, one, lock, "r", _pre(one, 7)) == "None", "a proof opened read-only"
    assert _forge(env, sock, one, other, "w", _pre(one, 7)) == "None", "another file as the proof"
    assert _forge(env, sock, one, lock, "w", _pre(one, 7), confine=False) == "None", "an unconfined peer"
    assert _forge(dict(env, LOOPGUARD_STATE_DIR=str(tmp_path / "x")), sock, one, lock, "w", _pre(one, 7)) == "None"
    assert _forge(dict(env, HOME=str(tmp_path)), sock, one, lock, "w", _pre(one, 7)) == "None", "another home"
    assert not (tmp_path / "x").exists() and _attempts(two) == 1 and _attempts(one) == 3
    assert _forge(env, sock, one, lock, "w", _pre(one, 7)).startswith("(0,"), "this workspace's hook is served"
    assert _attempts(one) == 4


def test_the_user_wide_path_is_unchanged_for_an_unconfined_hook(workspace: Path, env: dict[str, str]) -> None:
    tmpdir = short_temp_dir()
    try:
        env = dict(env, TMPDIR=str(tmpdir))
        subprocess.run([HOOK], input=_pre(workspace, 1), env=env, cwd=workspace, capture_output=True, timeout=60,
                       check=True)
        wait_for_socket(tmpdir, "*")
        assert not (workspace / ".loopguard-hook" / "resident").exists()
    finally:
        stop_helpers(tmpdir)


def test_the_workspace_helper_ends_soon_after_its_host(workspace: Path, env: dict[str, str]) -> None:
    """The host is the unconfined process that started the hook's sandbox (DSH's Node process;
    here a Python process that runs `setpriv` and exits): once it is gone the helper exits after
    a few idle seconds, not after its idle time."""
    host = "import subprocess, sys; subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read(), check=True)"
    for n in (1, 2, 3):
        done = subprocess.run([sys.executable, "-c", host, "setpriv", "--no-new-privs", HOOK], input=_pre(workspace, n),
                              env=env, cwd=workspace, capture_output=True, timeout=60, check=False)
        assert done.returncode == 0, done
    folder = workspace / ".loopguard-hook" / "resident"
    _wait_until(lambda: _listening(folder))
    pid = _pid(folder)
    assert pid
    _wait_until(lambda: not alive(pid), timeout=confined.IDLE_SECONDS / 4)


def test_the_host_is_the_nearest_unconfined_ancestor() -> None:
    found = subprocess.run(["setpriv", "--no-new-privs", sys.executable, "-c",
                            "from loopguard_hook.fastpath import confined; print(confined.host())"],
                           capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    assert found == f"{os.getpid()}:{confined.start_time(os.getpid())}"


def test_switched_off_a_confined_hook_starts_nothing(workspace: Path, env: dict[str, str]) -> None:
    for n in range(1, 6):
        _hook(workspace, env, n, LOOPGUARD_RESIDENT="off")
    time.sleep(0.5)
    assert not (workspace / ".loopguard-hook" / "resident").exists()
    assert _attempts(workspace) == 5


def test_without_peer_credentials_a_confined_hook_runs_in_process(
        workspace: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the platform has no `SO_PEERCRED` (not Linux) nothing is started."""
    import _socket

    (workspace / ".loopguard-hook").mkdir(mode=0o700)
    monkeypatch.chdir(workspace)
    monkeypatch.delattr(_socket, "SO_PEERCRED")
    assert confined.handle({}, _pre(workspace, 1), time.time(), env, None, b"context") is None
    assert not (workspace / ".loopguard-hook" / "resident").exists()


def test_a_fifo_at_the_workspace_lock_does_not_hang_the_hook(tmp_path: Path) -> None:
    """A FIFO planted at the workspace helper's lock: opened without O_NONBLOCK it blocked the
    sandboxed hook (and `helper status`) for ever."""
    import subprocess
    import sys

    os.mkfifo(tmp_path / "helper.lock")
    code = ("import sys; from loopguard_hook.fastpath import confined as c; "
            "print(c.helper_alive(sys.argv[1]), c._lock_lines(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0 and done.stdout.strip() == "False ['']", done
