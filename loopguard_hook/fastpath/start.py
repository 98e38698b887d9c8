"""Starting the resident helper: detached, once, with the hook's interpreter options.

Imported by the client only when it finds no helper (the first event, or after an idle exit),
so a served event never loads it. Imports only `os`, `stat` (which `os` loads), `sys` and
`time`.
"""

import os
import stat
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: A start marker younger than this means a helper is starting: do not start another.
START_GRACE_SECONDS = 10.0
#: How long a hook that finds a helper starting waits for its socket rather than loading the
#: whole package itself. In a burst (dozens of subagents at a session's first call) every hook
#: but the one that started the helper would otherwise import and warm the engine at once; on a
#: 2-core machine under a load of 30 that took the slowest hook near its 8 s deadline
#: (bench/load.py). Idle, the helper listens about 0.1 s after its start.
START_WAIT_SECONDS = 3.0
#: Nor does a hook wait past this many seconds of its own life: if the helper is not there by
#: then, the hook runs its event in-process under whatever load the burst brings (up to 4.5 s
#: from the payload in the cold round of bench/load.py, 64 hooks under a load of 30) and must
#: still meet its 8 s deadline (`process.DEADLINE_SECONDS`).
START_WAIT_OF_HOOK_SECONDS = 3.0
#: Between two looks for the socket while waiting.
START_POLL_SECONDS = 0.02


def start_helper(folder: str, key: str, environ: "Mapping[str, str]", options: list[str], idle: str,
                 workspace: str = "", host: str = "") -> bool:
    """Start this build's helper in the background, detached, unless one is already starting;
    True when this call started it (its pid is then written into the start marker).

    `options` are the interpreter's own (`client.interpreter_flags`), `idle` the idle timeout in
    seconds as text, `workspace` the workspace a confined hook's helper serves and `host` the
    process whose exit ends it (`confined.py`; "" for the user-wide helper). The helper gets
    this process's environment (to import the same package); it never serves a request with it
    (each request carries its own). `-P` keeps the current directory (an agent's workspace) off
    its `sys.path`.
    """
    marker = os.path.join(folder, key + ".starting")
    if not _claim_start(marker):
        return False
    code = "from loopguard_hook.fastpath.helper import main; main()"
    argv = [sys.executable, *options, "-P", "-c", code, folder, key, idle, *([workspace, host] if workspace else [])]
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
        (os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)
    ]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _open_fds() if fd > 2]
    try:
        # setsigmask=(): the hook holds SIGINT while it decides (`process.held_interrupts`)
        pid = os.posix_spawn(sys.executable, argv, settable(environ), file_actions=actions, setsid=True, setsigmask=())
    except (OSError, ValueError):
        unlink(marker)
        return False
    try:  # no O_CREAT: a helper that already listens has removed the marker (O_NONBLOCK: see await_helper)
        fd = os.open(marker, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if own_file(fd):
                os.write(fd, str(pid).encode())
        finally:
            os.close(fd)
    except OSError:
        pass
    return True


def await_helper(folder: str, key: str, wait: float | None = None, started: float | None = None) -> bool:
    """Wait for the helper another hook is starting (`KEY.starting` there): True once its socket
    `KEY.sock` is in `folder`; False as soon as the marker is gone without a socket, or names a
    process that has exited (a helper that failed or found another one serving), or after `wait`
    seconds (default `START_WAIT_SECONDS`) from now or from the marker's last write (the helper's
    start), whichever comes first: a helper alive but not listening by then (stuck, stopped) is
    not waited for by every hook until the marker's grace time ends; and never past
    `START_WAIT_OF_HOOK_SECONDS` after `started` (the hook's own start, Unix seconds). Never
    raises."""
    sock, marker = os.path.join(folder, key + ".sock"), os.path.join(folder, key + ".starting")
    limit = START_WAIT_SECONDS if wait is None else wait
    end = time.monotonic() + limit
    if started is not None:
        end = min(end, time.monotonic() + started + START_WAIT_OF_HOOK_SECONDS - time.time())
    while True:
        if os.path.lexists(sock):
            return True
        try:  # O_NONBLOCK: a FIFO named like the marker would block the open until a writer came
            fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                text, age = os.read(fd, 32), time.time() - os.fstat(fd).st_mtime
            finally:
                os.close(fd)
        except OSError:
            return os.path.lexists(sock)
        if text.isdigit() and not _running(int(text)):
            return os.path.lexists(sock)
        if time.monotonic() >= end or age >= limit:
            return False
        time.sleep(START_POLL_SECONDS)


def _running(pid: int) -> bool:
    """Whether process `pid` is there and not a zombie (`/proc/<pid>/stat`: the state follows
    the command name's closing parenthesis)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] not in (b"Z", b"X", b"")


def settable(environ: "Mapping[str, str]") -> dict[str, str]:
    """`environ` without the entries `putenv` and `posix_spawn` refuse: an empty name, or one
    with "=" or NUL, or a value with NUL (an exec may pass `=x`). The hook reads none of them."""
    return {name: value for name, value in environ.items()
            if name and "=" not in name and "\0" not in name and "\0" not in value}


def _open_fds() -> list[int]:
    """This process's open descriptors (so the helper inherits none of the host's pipes)."""
    try:
        return [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return list(range(3, 64))


def _claim_start(marker: str) -> bool:
    """Create the start marker; False when a helper started less than `START_GRACE_SECONDS` ago."""
    for _ in range(2):
        try:
            os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
            return True
        except FileExistsError:
            try:
                if os.lstat(marker).st_mtime > time.time() - START_GRACE_SECONDS:
                    return False
            except OSError:
                return False
            unlink(marker)  # left by a helper that never came up
        except OSError:
            return False
    return False


def own_file(fd: int) -> bool:
    """Whether the open file `fd` is one the guard may write: a regular file of this user with
    one name (a hard link planted at a lock's or marker's name would make a write land in
    another file, of this user or not)."""
    st = os.fstat(fd)
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1 and st.st_uid == os.getuid()


def unlink(path: str) -> None:
    """Remove `path` if it is there (a marker or socket of ours); errors are ignored."""
    try:
        os.unlink(path)
    except OSError:
        pass
