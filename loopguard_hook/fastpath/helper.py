"""The resident helper: keeps the hook's modules loaded and runs each event in a forked child.

    python -P -c "from loopguard_hook.fastpath.helper import main; main()" FOLDER KEY IDLE_SECONDS

Started by `client.start_helper` when a hook finds no helper. It serves one build (KEY, see
`client.helper_key`) from `FOLDER/KEY.sock` and exits after IDLE_SECONDS without a
connection, or as soon as the package on disk is no longer the one it loaded (an upgrade).

Every connection is checked (`SO_PEERCRED`: the peer must be this user) and then served by a
child forked for it. The child takes the client's environment, working directory and umask,
calls `hook.run` exactly as the console script does (same lock on the session file, same
bounded wait), sends the answer and exits. So requests never share an environment, a directory
or memory, parallel hooks run in parallel, and in-process hooks and helper children of one
session queue on the same lock. A child that dies takes only its own event with it.

Files in FOLDER (a 0700 directory of this user, checked again here): `KEY.lock` (flock held for
the helper's life, holds its pid), `KEY.sock` (0600, bound under a temporary name then renamed
into place) and `KEY.starting` (a client's start marker, removed once listening).
"""

from __future__ import annotations

import fcntl
import gc
import marshal
import os
import select
import shutil
import socket
import struct
import sys
import tempfile
import time

from . import client

#: How often an idle helper checks that it is still current (seconds).
CHECK_SECONDS = 30.0
#: Children kept forked, warmed up and waiting for a connection.
SPARES = 2
#: How often the helper reaps children and a spare checks that the helper is alive (seconds).
POLL_SECONDS = 1.0
#: A client sends its request right after the greeting; a child waits this long for it.
REQUEST_TIMEOUT = 10.0
#: Largest request header (options, environment, directory) accepted.
MAX_HEAD_BYTES = 4 << 20
BACKLOG = 128


def main(argv: list[str] | None = None) -> int:
    """Serve FOLDER/KEY.sock until idle; 0 when it served, 1 when another helper already does."""
    folder, key, idle_text = (sys.argv[1:] if argv is None else argv)[:3]
    os.chdir("/")
    os.umask(0o077)
    try:
        idle = max(0.1, float(idle_text))
    except ValueError:
        idle = client.IDLE_SECONDS
    marker = os.path.join(folder, key + ".starting")
    if client.helper_key(client.process_context()[1], os.environ) != key:
        # Another copy of the package than the client's was imported (a checkout shadowing the
        # install on sys.path): the marker stays, so clients retry only after its grace time.
        return 1
    try:
        lock = _take_lock(folder, key)
        if lock is None:
            return 1
        _remove_old_scratch(folder)
        warm_up(folder)
        server = _listen(folder, key)
    finally:
        _unlink(marker)
    try:
        serve(server, key, idle, os.path.join(folder, key + ".sock"), lock)
    finally:
        server.close()
    return 0


#: A warm-up scratch folder older than this was left by a spare that was killed.
SCRATCH_MAX_AGE_SECONDS = 3600.0


def _remove_old_scratch(folder: str) -> None:
    cutoff = time.time() - SCRATCH_MAX_AGE_SECONDS
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("warm-up.") and entry.is_dir(follow_symlinks=False):
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    shutil.rmtree(entry.path, ignore_errors=True)


def _take_lock(folder: str, key: str) -> int | None:
    """This build's helper lock, held for life; None when the folder is unsafe or it is taken."""
    if client.runtime_dir({"TMPDIR": os.path.dirname(folder)}) != folder:
        return None
    fd = os.open(os.path.join(folder, key + ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _listen(folder: str, key: str) -> socket.socket:
    """Bind under a temporary name, then rename over `KEY.sock` (replacing a dead helper's)."""
    final = os.path.join(folder, key + ".sock")
    temporary = os.path.join(folder, f"{key}.{os.getpid()}.sock")
    _unlink(temporary)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)
        try:
            server.bind(temporary)  # the socket file is 0600
        finally:
            os.umask(old)
        server.listen(BACKLOG)
        os.rename(temporary, final)
    except BaseException:
        server.close()
        _unlink(temporary)
        raise
    return server


def warm_up(folder: str, waiting: socket.socket | None = None, events: int = 5) -> None:
    """Import everything an event may need and run a few events, so that children start warm
    (modules loaded, regular expressions compiled, their own copy of the pages an event
    touches). Runs the first `events` of a short session in a scratch directory, removed after.
    Stops early as soon as a client waits on `waiting` (a spare serves it first)."""
    import platformdirs  # noqa: F401 - the default state and config paths, resolved per request

    from .. import hook, transcript  # noqa: F401

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


def serve(server: socket.socket, key: str, idle: float, path: str, lock: int) -> None:
    """Keep `SPARES` children waiting on the socket until `idle` seconds pass without a
    connection, or this build is replaced; then stop listening (children finish their event)."""
    gc.freeze()  # children's collections skip what the helper loaded: fewer pages copied
    own = os.stat(path).st_ino
    taken, tell = os.pipe()
    spares: set[int] = set()
    last = checked = time.monotonic()
    try:
        while True:
            _reap(spares)
            while len(spares) < SPARES:
                spares.add(_fork_spare(server, key, (lock, taken, tell), os.path.dirname(path)))
            ready, _, _ = select.select([taken], [], [], POLL_SECONDS)
            now = time.monotonic()
            if ready:
                for pid in _read_pids(taken):
                    spares.discard(pid)
                last = now
            elif now - last >= idle:
                break
            elif now - checked >= CHECK_SECONDS:
                checked = now
                if not _current(key, path, own):
                    break
    finally:
        if _current(None, path, own):
            _unlink(path)
        os.close(taken)
        os.close(tell)


def _reap(spares: set[int]) -> None:
    """Collect finished children; a spare that died (killed) is replaced by the caller."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return
        spares.discard(pid)


def _read_pids(fd: int) -> list[int]:
    data = os.read(fd, 4096)
    return [int.from_bytes(data[i : i + 4], "little") for i in range(0, len(data) - 3, 4)]


def _current(key: str | None, path: str, own: int) -> bool:
    """The socket path is still ours and (if `key` is given) the package is unchanged."""
    try:
        if os.lstat(path).st_ino != own:
            return False
    except OSError:
        return False
    return key is None or client.helper_key(client.process_context()[1], os.environ) == key


def _fork_spare(server: socket.socket, key: str, fds: tuple[int, int, int], folder: str) -> int:
    """Fork a spare child (see `_spare`); returns its pid."""
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        _spare(server, key, fds, folder)
    except BaseException:  # a child never returns into the helper's loop, whatever happened
        code = 1
    finally:
        os._exit(code)


def _spare(server: socket.socket, key: str, fds: tuple[int, int, int], folder: str) -> None:
    """In the child: warm up (its own copy of the pages an event touches) unless a client is
    already waiting, wait for one connection, tell the helper on `fds[2]` that it took one, and
    serve it. Under a burst every spare goes straight to a waiting client."""
    lock, taken, tell = fds
    os.close(lock)  # the helper's lock stays with the helper, not with its children
    os.close(taken)
    parent = os.getppid()
    warm_up(folder, server, events=3)  # a prompt, a PreToolUse and its PostToolUse: most events
    server.settimeout(POLL_SECONDS)
    while True:
        try:
            conn, _ = server.accept()
            break
        except TimeoutError:
            if os.getppid() != parent:  # the helper stopped: so does its spare
                return
    os.write(tell, os.getpid().to_bytes(4, "little"))
    with conn:
        if client.peer_uid(conn) == os.getuid():
            serve_one(conn, key)


def serve_one(conn: socket.socket, key: str) -> None:
    """Greet, read one request, run it as the console script would, answer."""
    from ..hook import HookOptions, run

    conn.settimeout(REQUEST_TIMEOUT)
    conn.sendall(client.hello(key))
    size = int.from_bytes(client.read_exactly(conn, 8), "little")
    if size > MAX_HEAD_BYTES:
        return
    values, environ, cwd, mask, clock, length = marshal.loads(client.read_exactly(conn, size))
    payload = [_read_payload(conn, length)]
    try:
        os.chdir(cwd)
    except OSError:  # the client's directory is not reachable from here: it runs the event itself
        conn.sendall(client.DECLINE)
        return
    os.umask(mask)
    os.environ.clear()
    os.environ.update(environ)
    # `run` gets the only reference to the payload and drops it once parsed, as in-process.
    result = run(payload.pop(), options=HookOptions(**values), environ=os.environ, clock=lambda: float(clock))
    conn.sendall(client.ANSWER + marshal.dumps((int(result.exit_code), result.stdout, result.stderr)))


def _read_payload(conn: socket.socket, length: int) -> bytes:
    """The `length` payload bytes, received straight into one bytes object (a 5 MiB Write is
    17 MB: no second copy). A blocking receive with a kernel timeout, so a stalled client still
    frees this child."""
    conn.settimeout(None)
    seconds = int(REQUEST_TIMEOUT)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("@ll", seconds, 0))
    raw = conn.recv(length, socket.MSG_WAITALL) if length else b""
    if len(raw) != length:
        raise ConnectionError("request cut short")
    return raw


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
