"""The resident helper: keeps the hook's modules loaded and runs events in warm worker processes.

    python -P -c "from loopguard_hook.fastpath.helper import main; main()" FOLDER KEY IDLE_SECONDS

Started by `client.start_helper` when a hook finds no helper. It serves one build (KEY, see
`client.helper_key`) from `FOLDER/KEY.sock` and exits after IDLE_SECONDS without a
connection, or as soon as the package on disk is no longer the one it loaded (an upgrade, or a
module edited in place: checked after events, at most once per `RECHECK_SECONDS`).

The helper itself never serves: it forks `WORKERS` workers that wait on the socket, each serving
one connection after another. Every connection is checked (`SO_PEERCRED`: the peer must be this
user). For each event the worker takes the client's environment, working directory and umask,
calls `hook.run` exactly as the console script does (same lock on the session file, same bounded
wait), sends the answer, and puts its directory and umask back (the environment stays, and the
next event's is set by its differences from it). When every worker is
busy (parallel hooks), the helper forks one-event workers so that one is always waiting. In-process
hooks and helper workers of one session queue on the same lock. A worker that dies takes only its
own event with it and is replaced; a worker retires after `MAX_EVENTS` events.

Files in FOLDER (a 0700 directory of this user, checked again here): `KEY.lock` (flock held for
the helper's life, holds its pid), `KEY.sock` (0600, bound under a temporary name then renamed
into place), `KEY.starting` (a client's start marker, removed once listening) and `KEY.status`
(what `loopguard-hook helper status` shows: `status_fields`, rewritten at most every
`STATUS_SECONDS` while it changes, by the helper between events, never by a worker).

SIGTERM (`loopguard-hook helper stop`) stops it as idleness does: it stops listening, removes its
socket and status file, and its workers finish the event they serve.
"""

from __future__ import annotations

import fcntl
import gc
import marshal
import os
import select
import shutil
import signal
import socket
import stat
import struct
import sys
import tempfile
import time
from collections.abc import Callable

from .. import __version__, process
from . import client, confined
from .request import REQUEST_TIMEOUT, read_request
from .start import own_file, settable, unlink

#: How often an idle helper checks that it is still current (seconds).
CHECK_SECONDS = 30.0
#: Workers kept forked, warmed up and serving connection after connection.
WORKERS = 2
#: A worker exits after this many events and is replaced (bounds what one process accumulates).
MAX_EVENTS = 1000
#: One-event workers forked at most while every worker is busy (a burst of parallel hooks).
MAX_EXTRA = 32
#: How long the helper waits for a busy worker's "done" before it forks a one-event worker (seconds).
SETTLE_SECONDS = 0.005
#: After an event, the package on disk is compared with the loaded one at most this often (seconds).
RECHECK_SECONDS = 1.0
#: How often the helper reaps children and a worker checks that the helper is alive (seconds).
POLL_SECONDS = 1.0
#: The status file is rewritten at most this often (seconds), when something changed.
STATUS_SECONDS = 0.5
BACKLOG = 128


def main(argv: list[str] | None = None) -> int:
    """Serve FOLDER/KEY.sock until idle; 0 when it served, 1 when another helper already does."""
    folder, key, idle_text, *rest = (sys.argv[1:] if argv is None else argv)[:5]
    os.chdir("/")
    os.umask(0o077)
    try:
        idle = max(0.1, float(idle_text))
    except ValueError:
        idle = client.IDLE_SECONDS
    marker = os.path.join(folder, key + ".starting")
    digest = client.build_digest()  # before the modules load: an edit from now on is seen
    if client.helper_key(client.process_context()[1], os.environ) != key:
        # Another copy of the package than the client's was imported (a checkout shadowing the
        # install on sys.path): the marker stays, so clients retry only after its grace time.
        return 1
    keep_marker = False
    try:
        lock = _take_workspace_lock(folder, *rest[:2]) if rest else _take_lock(folder, key, LOCK_WAIT_SECONDS)
        if lock is None:
            # Another helper of this build holds the lock and did not let go: the marker stays,
            # so clients start no other helper for `START_GRACE_SECONDS` (one that lost its
            # socket lets go within `POLL_SECONDS`, and the next start after that serves).
            keep_marker = True
            return 1
        _remove_old_scratch(folder)
        warm_up(folder)
        server = _listen(folder, key)
    finally:
        if not keep_marker:
            unlink(marker)
    signal.signal(signal.SIGTERM, _stop)
    try:
        serve(server, (key, digest), idle, os.path.join(folder, key + ".sock"), lock)
    finally:
        server.close()
    return 0


class _Stopped(Exception):
    """SIGTERM arrived: leave the serving loop as when idle."""


def _stop(signum: int, frame: object) -> None:
    raise _Stopped


#: A warm-up scratch folder older than this was left by a worker that was killed.
SCRATCH_MAX_AGE_SECONDS = 3600.0


def _remove_old_scratch(folder: str) -> None:
    cutoff = time.time() - SCRATCH_MAX_AGE_SECONDS
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("warm-up.") and entry.is_dir(follow_symlinks=False):
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    shutil.rmtree(entry.path, ignore_errors=True)


#: How long a starting helper waits for the lock of a helper that is going away (its socket was
#: removed or replaced: it notices within `POLL_SECONDS`).
LOCK_WAIT_SECONDS = 2.5


def _take_lock(folder: str, key: str, wait: float = 0.0) -> int | None:
    """This build's helper lock, held for life; None when the folder is unsafe or it stays taken
    for `wait` seconds."""
    if client.runtime_dir({"TMPDIR": os.path.dirname(folder)}) != folder:
        return None
    fd = os.open(os.path.join(folder, key + ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    if not own_file(fd):  # the pid is written into it: never into a file planted there
        os.close(fd)
        return None
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            time.sleep(0.05)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _listen(folder: str, key: str) -> socket.socket:
    """Bind under a temporary name, then rename over `KEY.sock` (replacing a dead helper's).
    Bound from inside `folder` (a relative name is never too long for a socket's address)."""
    temporary = f".{os.getpid()}.sock"
    os.chdir(folder)
    unlink(temporary)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)
        try:
            server.bind(temporary)  # the socket file is 0600
        finally:
            os.umask(old)
        server.listen(BACKLOG)
        os.rename(temporary, key + ".sock")
    except BaseException:
        server.close()
        unlink(temporary)
        raise
    finally:
        os.chdir("/")
    return server


#: A workspace helper's own (`confined.py`): the workspace's (path, device, inode), the helper
#: lock's (device, inode), what a peer must share with it (`status_context`), and the
#: environment entries that decide where an event writes (`confined.PLACES`). Empty for the
#: user-wide helper.
_workspace: dict[str, object] = {}


#: A workspace helper whose host is gone exits once it has been idle this long (seconds).
HOST_GRACE_SECONDS = 5.0


def _host_gone() -> bool:
    """Whether a workspace helper's host (`confined.host`: the process that started the
    sandbox of the hook that started this helper, e.g. DSH) has exited."""
    host = _workspace.get("host")
    return isinstance(host, str) and bool(host) and confined_host_alive(host) is False


def confined_host_alive(host: str) -> bool:
    """Whether the process `pid:start` (`confined.host`) still runs."""
    pid, _, start = host.partition(":")
    return pid.isdigit() and confined.start_time(int(pid)) == start


def _take_workspace_lock(folder: str, workspace: str, host: str = "") -> int | None:
    """The workspace helper's lock (`confined.LOCK`, one helper per workspace, never waited
    for); None when the folder is not this user's and private, or another helper holds it.
    `host`: the `pid:start` of the process whose exit ends this helper (`confined.host`).
    The lock file holds the pid and `confined.build_key`."""
    try:
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            return None
        fd = os.open(os.path.join(folder, confined.LOCK), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        if not own_file(fd):  # the pid is written into it: never into a file planted there
            raise OSError("not a lock file of this helper")
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        own = status_context("/proc/self")
        home = os.stat(workspace)
        if own is None or os.path.realpath(os.path.join(workspace, confined.FOLDER)) != os.path.realpath(folder):
            raise OSError("not the helper folder of this workspace")
    except OSError:
        os.close(fd)
        return None
    lock = os.fstat(fd)
    _workspace.update(path=workspace, host=host, home=(home.st_dev, home.st_ino), lock=(lock.st_dev, lock.st_ino), context=own,
                      places={name: os.environ.get(name) for name in confined.PLACES})
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n{confined.build_key(confined.key_context(), os.environ)}\n".encode())
    return fd


def warm_up(folder: str, waiting: socket.socket | None = None, events: int = 5) -> None:
    """Import everything an event may need and run a few events, so that children start warm
    (modules loaded, regular expressions compiled, their own copy of the pages an event
    touches). Runs the first `events` of a short session in a scratch directory, removed after.
    Stops early as soon as a client waits on `waiting` (a worker serves it first)."""
    import platformdirs  # noqa: F401 - the default state and config paths, resolved per request

    from .. import hook
    from ..hosts import bigtext

    bigtext.decoders()  # msgspec, for big payloads: loaded once here rather than in an event

    scratch = tempfile.mkdtemp(prefix="warm-up.", dir=folder)
    try:
        options = hook.HookOptions(state_dir=os.path.join(scratch, "state"))
        for event in _warm_up_events(scratch)[:events]:
            if waiting is not None and select.select([waiting], [], [], 0)[0]:
                break
            hook.run(_json(event), options=options, environ={}, clock=time.time, user_config="")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _warm_up_events(cwd: str) -> list[dict[str, object]]:
    base = {"session_id": "warm-up", "cwd": cwd, "transcript_path": os.path.join(cwd, "none.jsonl")}
    call = {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "tool_use_id": "toolu_warm_up"}
    return [
        dict(base, hook_event_name="UserPromptSubmit", prompt="warm up"),
        dict(base, hook_event_name="PreToolUse", **call),
        dict(base, hook_event_name="PostToolUse", tool_response={"stdout": "3 passed in 0.12s", "stderr": ""}, **call),
        dict(base, hook_event_name="Stop", last_assistant_message="Done.", stop_hook_active=False),
        dict(base, hook_event_name="SessionEnd", reason="other"),
    ]


def _json(value: object) -> bytes:
    """JSON bytes of a warm-up event (orjson is loaded by the hook modules already)."""
    import orjson

    return orjson.dumps(value)


def serve(server: socket.socket, build: tuple[str, str], idle: float, path: str, lock: int) -> None:
    """Keep `WORKERS` workers, and one waiting worker while they are busy, on the socket until
    `idle` seconds pass without a connection or this build (`(key, build_digest)` as loaded) is
    replaced; then stop listening (workers finish their event)."""
    gc.freeze()  # children's collections skip what the helper loaded: fewer pages copied
    key, digest = build
    own = os.stat(path).st_ino
    taken, tell = os.pipe()
    workers: dict[int, bool] = {}  # pid -> lasting worker (True) or one-event worker
    busy: set[int] = set()
    last = checked = time.monotonic()
    served = False  # an event finished since the last check of the package
    folder = os.path.dirname(path)
    status = _Status(os.path.join(folder, key + ".status"), key, idle)
    try:
        while True:
            _reap(workers, busy)
            while sum(workers.values()) < WORKERS:
                workers[_fork_worker(server, key, (lock, taken, tell), folder, MAX_EVENTS)] = True
            if len(busy) >= len(workers) and len(workers) - WORKERS < MAX_EXTRA:
                # A worker says it is done after its answer is out, so the next event of a
                # sequence may be taken first: give that news a moment before forking.
                if select.select([taken], [], [], SETTLE_SECONDS)[0]:
                    served = status.served(_read_news(taken, busy)) or served
                    continue
                workers[_fork_worker(server, key, (lock, taken, tell), folder, 1)] = False
            ready, _, _ = select.select([taken], [], [], POLL_SECONDS)
            now = time.monotonic()
            if ready:
                served = status.served(_read_news(taken, busy)) or served
                last = now
            elif now - last >= idle:
                break
            elif now - last >= HOST_GRACE_SECONDS and _host_gone():
                if not status.fields["events"]:  # nobody could reach it: say so (`confined.UNREACHED`)
                    confined.mark_unreached(folder)
                break
            elif _workspace and confined.unreached_since(folder) >= status.started:
                break  # a hook of this build found it unreachable from its namespaces
            status.write(workers, busy, now)
            if not _current(None, path, own, None):
                break  # the socket was removed or replaced: no client can reach this helper
            due = CHECK_SECONDS if not served else RECHECK_SECONDS
            if now - checked >= due:
                checked, served = now, False
                if not _current(key, path, own, digest):
                    break
    except _Stopped:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if _current(None, path, own, None):
            unlink(path)
        unlink(status.path)
        os.close(taken)
        os.close(tell)


class _Status:
    """The helper's `KEY.status` file: what `status_fields` lists, written when it changed."""

    def __init__(self, path: str, key: str, idle: float) -> None:
        self.path = path
        self.started = time.time()
        self.fields: dict[str, object] = {
            "pid": os.getpid(), "key": key, "version": __version__, "python": sys.executable,
            "started": self.started, "idle_exit_seconds": idle, "events": 0, "last_event": None,
            # The parts of its key, and the names of the variables of one: `helper status` says
            # why another shell's key differs (a `PYTHONUNBUFFERED` set there and not in the host).
            "key_parts": client.key_parts(client.process_context()[1], os.environ),
            "python_variables": sorted(k for k in os.environ if k.startswith("PYTHON")),
        }
        self.dirty = True
        self.written = 0.0

    def served(self, events: int) -> bool:
        if events:
            self.fields["events"] = int(self.fields["events"]) + events  # type: ignore[call-overload]
            self.fields["last_event"] = time.time()
            self.dirty = True
        return bool(events)

    def write(self, workers: dict[int, bool], busy: set[int], now: float) -> None:
        shown = (sum(workers.values()), len(workers) - sum(workers.values()), len(busy))
        if shown != (self.fields.get("workers"), self.fields.get("extra_workers"), self.fields.get("busy")):
            self.fields.update(workers=shown[0], extra_workers=shown[1], busy=shown[2])
            self.dirty = True
        if not self.dirty or now - self.written < STATUS_SECONDS:
            return
        self.dirty, self.written = False, now
        temporary = self.path + f".{os.getpid()}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(_json(self.fields))
            os.rename(temporary, self.path)
        except OSError:  # a full disk: the status waits, the events do not
            unlink(temporary)


def _reap(workers: dict[int, bool], busy: set[int]) -> None:
    """Collect finished workers; the caller replaces them."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return
        workers.pop(pid, None)
        busy.discard(pid)


#: What a worker tells the helper, after its pid: it took a connection, or it is waiting again.
TOOK = b"T"
DONE = b"D"


def _read_news(fd: int, busy: set[int]) -> int:
    """Apply the workers' messages to `busy`; how many events finished."""
    data = os.read(fd, 4095)  # whole 5-byte messages (each written at once, so never split)
    finished = 0
    for i in range(0, len(data) - 4, 5):
        pid = int.from_bytes(data[i : i + 4], "little")
        if data[i + 4 : i + 5] == TOOK:
            busy.add(pid)
        else:
            busy.discard(pid)
            finished += 1
    return finished


def _current(key: str | None, path: str, own: int, digest: str | None) -> bool:
    """The socket path is still ours and (if `key` is given) the package is the one loaded."""
    try:
        if os.lstat(path).st_ino != own:
            return False
    except OSError:
        return False
    if key is None:
        return True
    return client.helper_key(client.process_context()[1], os.environ) == key and client.build_digest() == digest


def _fork_worker(server: socket.socket, key: str, fds: tuple[int, int, int], folder: str, events: int) -> int:
    """Fork a worker (see `_work`) that serves up to `events` connections; returns its pid."""
    pid = os.fork()
    if pid:
        return pid
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the helper's stop is not the worker's
    code = 0
    try:
        _work(server, key, fds, folder, events)
    except BaseException:  # a child never returns into the helper's loop, whatever happened
        code = 1
    finally:
        os._exit(code)


def _work(server: socket.socket, key: str, fds: tuple[int, int, int], folder: str, events: int) -> None:
    """In the child: warm up (its own copy of the pages an event touches) unless a client is
    already waiting, then serve up to `events` connections, telling the helper on `fds[2]` when
    it takes one and when it is done. Under a burst a new worker goes straight to a waiting
    client. Any error other than a client that went away ends the worker."""
    lock, taken, tell = fds
    os.close(lock)  # the helper's lock stays with the helper, not with its children
    os.close(taken)
    parent = os.getppid()
    own = os.getpid().to_bytes(4, "little")
    warm_up(folder, server, events=3)  # a prompt, a PreToolUse and its PostToolUse: most events
    for _ in range(events):
        conn = _accept(server, parent)
        if conn is None:
            return
        try:
            with conn:
                if client.peer_uid(conn) == os.getuid():
                    if _workspace:  # only hooks confined as the one that started this helper
                        refused, admit = peer_context(conn) != _workspace["context"], admitted
                    else:  # never a confined hook: it could make this helper write for it
                        refused, admit = peer_confined(conn), None
                    serve_one(conn, key, greeted=lambda: os.write(tell, own + TOOK), confined=refused, admit=admit)
        except (ConnectionError, TimeoutError, EOFError):  # the client went away mid-request
            pass
        finally:  # the environment stays as the event left it: the next one is compared to it
            os.chdir("/")
            os.umask(0o077)
        os.write(tell, own + DONE)


#: `SO_PEERPIDFD` (Linux 6.5+; Python 3.11's `socket` does not name it): a pidfd of the peer.
SO_PEERPIDFD = getattr(socket, "SO_PEERPIDFD", 77)
_CONFINED = (b"NoNewPrivs:\t1",)


def peer_confined(conn: socket.socket, proc: str = "/proc") -> bool:
    """Whether the process at the other end of `conn` runs confined: `NoNewPrivs: 1` or a
    seccomp filter (`Seccomp:` not 0) in `/proc/<pid>/status`, the pid from `SO_PEERCRED`.

    This helper is not confined (a confined client never starts or uses it: `client.handle`),
    so it must never act for a confined process: one in a Landlock sandbox (a DeepSeek Harness
    hook, or the model's own shell in that sandbox) reaches this socket through the shared /tmp,
    and could make the helper write where its sandbox forbids (`--state-dir` anywhere in the
    user's home). Landlock and seccomp both need no_new_privs (or CAP_SYS_ADMIN) to be set up.

    The pid is tied to the process by a pidfd when the kernel gives one (`SO_PEERPIDFD`): the
    status read counts only if that process is still alive afterwards, so the pid cannot have
    been reused by another process meanwhile. Anything that cannot be read counts as confined.
    About 50 µs per connection.
    """
    status = _of_peer(conn, proc, _read_status)
    if status is None:
        return True
    lines = status.split(b"\n")
    if any(line.startswith(_CONFINED) for line in lines):
        return True
    seccomp = [line for line in lines if line.startswith(b"Seccomp:")]
    return seccomp != [b"Seccomp:\t0"]


def _read_status(folder: str) -> bytes | None:
    with open(f"{folder}/status", "rb") as fh:
        return fh.read()


def _of_peer(conn: socket.socket, proc: str, read: Callable[[str], bytes | None]) -> bytes | None:
    """`read(<proc>/<pid>)` for the process at the other end of `conn` (its pid from
    `SO_PEERCRED`); None when it cannot be read, or that process is gone afterwards (told by a
    pidfd where the kernel gives one, `SO_PEERPIDFD`: then the pid was not reused meanwhile)."""
    try:
        pid = int.from_bytes(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)[0:4], sys.byteorder)
    except OSError:
        return None
    if pid <= 0:
        return None
    pidfd = -1
    try:
        pidfd = int.from_bytes(conn.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD, 4), sys.byteorder, signed=True)
    except OSError:
        pass  # an older kernel: the pid alone (the peer is connected and waiting for our greeting)
    try:
        found = read(f"{proc}/{pid}")
        if pidfd >= 0:
            try:
                signal.pidfd_send_signal(pidfd, 0)  # ProcessLookupError once it is gone
            except PermissionError:  # alive, in a Landlock domain that scopes signals
                pass
    except OSError:
        return None
    finally:
        if pidfd >= 0:
            os.close(pidfd)
    return found


def status_context(proc: str) -> bytes | None:
    """What a workspace helper and its peers must share: the lines of `<proc>/status` that
    decide what a process may do (credentials, capabilities, no_new_privs, seccomp:
    `client._STATUS_FIELDS`) and `<proc>/limits`. None when they cannot be read. (Namespaces
    are in the helper's key; a peer's cannot be read from inside a Landlock sandbox.)"""
    try:
        with open(f"{proc}/status", "rb") as fh:
            status = fh.read()
        with open(f"{proc}/limits", "rb") as fh:
            limits = fh.read()
    except OSError:
        return None
    return b"\n".join([*(line for line in status.split(b"\n") if line.startswith(client._STATUS_FIELDS)), limits])


def peer_context(conn: socket.socket, proc: str = "/proc") -> bytes | None:
    """`status_context` of the process at the other end of `conn` (`_of_peer`); None when it
    cannot be read."""
    return _of_peer(conn, proc, status_context)


#: `admit(values, environ, proof)`: whether a workspace helper may run a request (after the
#: worker entered the request's directory); `proof` is the last descriptor sent with it.
Admit = Callable[[dict[str, object], dict[str, str], int], bool]


def admitted(values: dict[str, object], environ: dict[str, str], proof: int) -> bool:
    """A workspace helper runs a request only when it is for this workspace (the worker is in
    its directory), asks for no other state folder, has the same `confined.PLACES` as the hook
    that started the helper, and `proof` is this helper's lock opened for writing (the client
    may write the workspace's state folder)."""
    try:
        here = os.stat(".")
        held = os.fstat(proof)
        mode = fcntl.fcntl(proof, fcntl.F_GETFL) & os.O_ACCMODE
    except OSError:
        return False
    places: dict[str, str | None] = _workspace["places"]  # type: ignore[assignment]
    return ((here.st_dev, here.st_ino) == _workspace["home"] and (held.st_dev, held.st_ino) == _workspace["lock"]
            and mode in (os.O_WRONLY, os.O_RDWR) and not values.get("state_dir")
            and not environ.get("LOOPGUARD_STATE_DIR") and all(environ.get(k) == v for k, v in places.items()))


def _accept(server: socket.socket, parent: int) -> socket.socket | None:
    """The next connection; None once the helper is gone.

    A blocking `accept` (the kernel wakes one waiting worker per connection; a socket timeout
    would make every worker poll and wake), bounded by `SO_RCVTIMEO`, which Linux applies to
    `accept`, so that the worker still sees the helper go."""
    server.settimeout(None)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("@ll", int(POLL_SECONDS), 0))
    while True:
        try:
            conn, _ = server.accept()
            return conn
        except (BlockingIOError, TimeoutError):
            if os.getppid() != parent:  # the helper stopped: so does its worker
                return None


def serve_one(conn: socket.socket, key: str, greeted: Callable[[], object] | None = None, *,
              confined: bool = False, admit: Admit | None = None) -> None:
    """Greet, read one request, run it as the console script would, answer. `greeted` is
    called once the greeting is sent (the client is waiting on it, the helper's news can wait).
    A `confined` peer (one this helper must not act for) gets DECLINE for its request: it runs
    the event itself; so does a request `admit` refuses (a workspace helper's, `admitted`)."""
    from ..hook import HookOptions, run

    conn.settimeout(REQUEST_TIMEOUT)
    conn.sendall(client.hello(key))
    if greeted is not None:
        greeted()
    request = read_request(conn, decline=confined, admit=admit)
    if request is None:
        return
    values, environ, mask, clock, payload = request
    if len(payload[0]) > process.MAX_PAYLOAD_BYTES:
        conn.sendall(client.ANSWER + marshal.dumps((1, b"", process.TOO_BIG)))
        return
    adopt_environ(environ)  # every name it cannot set is left out, so this cannot fail
    os.umask(mask)
    # `run` gets the only reference to the payload and drops it once parsed, as in-process.
    result = run(payload.pop(), options=HookOptions(**values), environ=os.environ, clock=lambda: float(clock))
    conn.sendall(client.ANSWER + marshal.dumps((int(result.exit_code), result.stdout, result.stderr)))


#: The environment `os.environ` was last made equal to (the worker's own at first).
_adopted: dict[str, str] = {}


def adopt_environ(environ: dict[str, str]) -> None:
    """Make `os.environ` exactly `environ`, setting and removing only what differs from the
    last event's: the hooks of one host send the same environment event after event, and each
    change is a `putenv` (clearing and refilling 50 variables took 0.1 ms a side)."""
    global _adopted
    if not _adopted:
        _adopted = dict(os.environ)
    environ = settable(environ)  # what cannot be set is left out: the event runs without it
    if environ == _adopted:
        return
    for name in _adopted.keys() - environ.keys():
        os.environ.pop(name, None)
    for name, value in environ.items():
        if _adopted.get(name) != value:
            os.environ[name] = value
    _adopted = environ


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
