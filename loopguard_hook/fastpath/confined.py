"""The fast path of a confined hook: a helper of the workspace, started inside the same sandbox.

A confined hook (`client.process_context`: no_new_privs or a seccomp filter) never meets the
user-wide helper, which runs outside any sandbox. The DeepSeek Harness (DSH 0.1.0-rc.8) starts
every hook in the session workspace, confined by its Landlock launcher (`landlock-run --ro /
--rw /dev/null --rw /tmp --rw <workspace>`, no_new_privs) or by bubblewrap (a private /tmp and
mount namespace per hook call); what the sandbox lets the hook do is write the workspace.
So such a hook gets a helper of its own workspace:

- It lives in `<workspace>/.loopguard-hook/resident/`, the state folder the guard has made (0700,
  this user's, never through a symlink): `<key>.sock`, `helper.lock` (flock held by the live
  helper, its pid), `<key>.starting`, `<key>.status` and `last-ns`. Nothing under /tmp, nothing
  shared with another workspace.
- It is started by a confined hook itself (`start.py`, detached), so it carries that hook's
  sandbox and no_new_privs: it can do nothing the hook could not. It exits after
  `IDLE_SECONDS` without an event (`LOOPGUARD_RESIDENT_IDLE_SECONDS` when shorter), after
  `helper.HOST_GRACE_SECONDS` without one once its host is gone (`host`: the unconfined process
  that started the sandbox, DSH itself), when the package changes, and at most one lives per
  workspace.
- It serves only hooks that are confined the same way (same credentials, capabilities,
  no_new_privs, seccomp mode and limits: `helper.peer_context`), in this workspace (the
  request's directory is the workspace), that prove they may write its state folder (each
  request carries a descriptor of `helper.lock` opened for writing: a process whose sandbox
  does not grant write access to this workspace cannot open it), and that ask for no other
  state folder (no `--state-dir`, no `LOOPGUARD_STATE_DIR`, the same `HOME`, `TMPDIR` and XDG
  folders as the hook that started it). Any other request is declined: it runs in-process.
- It is started only when two helperless hooks in a row ran in the same mount, user and pid
  namespaces (`last-ns`): under bubblewrap each hook call has namespaces of its own, where a
  helper could never be found again, so none is started there. The kernel reuses a freed
  namespace's number, so two bubblewrap calls may still look alike: the next call that finds
  that helper alive, of this build but of other namespaces (its lock file holds its key without
  the namespaces), leaves `unreached`: the helper exits at once and no other is started for
  `UNREACHED_SECONDS`. A helper whose host exits before it served anyone leaves it too.

Imports: nothing beyond what `client` has loaded.
"""

import _socket
import os
import stat
import time

from . import client

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: The helper's folder, relative to the workspace (the hook's working directory).
FOLDER = os.path.join(".loopguard-hook", "resident")
#: The lock the live helper holds; its descriptor, opened for writing, is each request's proof.
LOCK = "helper.lock"
#: Where the namespaces of the last helperless hook are kept.
LAST_NS = "last-ns"
#: Left by a hook that found the live helper of this build in other namespaces, or by a helper
#: whose host exited before any hook reached it (hook calls with namespaces of their own, whose
#: numbers the kernel reused); no helper is started while it is younger than `UNREACHED_SECONDS`.
UNREACHED = "unreached"
UNREACHED_SECONDS = 600.0
#: Seconds without an event after which a workspace helper exits.
IDLE_SECONDS = 120.0
#: The environment entries that decide where an event reads and writes: a request must carry
#: the same as the hook that started the helper.
PLACES = ("HOME", "TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME")


def handle(values: dict[str, object], raw: bytes, clock: float, environ: "Mapping[str, str]",
           rest: int | None, context: bytes) -> "client.Reply | None":
    """`client.handle` for a confined hook: the workspace helper's answer, or None to run the
    event in-process (and a helper may be started for the next event)."""
    if environ.get(client.ENV_SWITCH, "").strip().lower() in client._OFF or not hasattr(_socket, "SO_PEERCRED"):
        return None  # switched off, or not Linux
    if values.get("state_dir") or environ.get("LOOPGUARD_STATE_DIR"):
        return None
    folder = _folder()
    if folder is None:
        return None
    key = client.helper_key(context, environ)
    path = os.path.join(FOLDER, key + ".sock")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        _maybe_start(folder, key, environ)
        return None
    except OSError:
        return None
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid():
        return None
    try:  # the proof: this process may write the workspace's state folder
        proof = os.open(os.path.join(FOLDER, LOCK), os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        sock = _connect(path, key)
        if sock is None:
            if not helper_alive(folder):  # a helper that died: start another
                _maybe_start(folder, key, environ)
            return None
        try:
            if not client._hand_over(sock, values, raw, clock, environ, rest, proof):
                return None
            return client._answer(sock, client.reply_timeout(environ))
        finally:
            sock.close()
    finally:
        os.close(proof)


def _folder() -> str | None:
    """`<cwd>/.loopguard-hook/resident` (absolute), created 0700 if missing; None unless the
    state folder is there already (made by the guard), a real directory of this user, private."""
    uid = os.getuid()
    try:
        st = os.lstat(".loopguard-hook")
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
            return None
        try:
            os.mkdir(FOLDER, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(FOLDER)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
            return None
        return os.path.join(os.getcwd(), FOLDER)
    except OSError:
        return None


def _connect(path: str, key: str) -> _socket.socket | None:
    """A connection to the workspace helper that greeted with this build's key, or None."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(client.HELLO_TIMEOUT)
        sock.connect(path)  # relative to the workspace: short, whatever the workspace's path
        want = client.hello(key)
        if client.peer_uid(sock) != os.getuid() or client.read_exactly(sock, len(want)) != want:
            raise ConnectionError("not this build's helper")
        return sock
    except OSError:
        sock.close()
        return None


def namespaces() -> bytes:
    """This process's mount, user and pid namespaces (`/proc/self/ns`)."""
    try:
        return "\n".join(os.readlink(f"/proc/self/ns/{name}") for name in ("mnt", "user", "pid")).encode()
    except OSError:
        return b""


def helper_alive(folder: str) -> bool:
    """Whether a helper holds this workspace's lock (True when that cannot be told)."""
    import fcntl

    try:
        fd = _open_lock(folder)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _maybe_start(folder: str, key: str, environ: "Mapping[str, str]") -> None:
    """Start the workspace helper when none lives and the previous helperless hook ran in the
    same namespaces as this one; else remember this one's namespaces."""
    if helper_alive(folder):  # one helper per workspace: another build's, or of other namespaces
        if _lock_lines(folder)[1:2] == [build_key(key_context(), environ)]:
            mark_unreached(folder)  # this build, other namespaces: it can never serve this hook
        return
    if unreached_since(folder) > time.time() - UNREACHED_SECONDS:
        return
    spaces = namespaces()
    last = os.path.join(folder, LAST_NS)
    try:
        with open(last, "rb") as fh:
            same = bool(spaces) and fh.read() == spaces
    except OSError:
        same = False
    if not same:
        try:
            fd = os.open(last, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, spaces)
            finally:
                os.close(fd)
        except OSError:
            pass
        return
    from . import start

    idle = min(_seconds(environ.get(client.ENV_IDLE, "")), IDLE_SECONDS)
    start.start_helper(folder, key, environ, client.interpreter_flags(), str(idle), workspace=os.getcwd(), host=host())


def host() -> str:
    """`pid:start` (its start time in clock ticks since boot, `/proc/<pid>/stat` field 22) of
    the nearest ancestor that runs unconfined: the host that started this hook's sandbox (DSH's
    Node process), whose exit ends the helper once it is idle a few seconds; "" when none is
    found."""
    pid = os.getppid()
    for _ in range(16):
        try:
            with open(f"/proc/{pid}/status", "rb") as fh:
                status = fh.read()
        except OSError:
            return ""
        fields = dict(line.split(b":", 1) for line in status.split(b"\n") if b":" in line)
        if fields.get(b"NoNewPrivs", b"").strip() == b"0" and fields.get(b"Seccomp", b"").strip() == b"0":
            start = start_time(pid)
            return f"{pid}:{start}" if start else ""
        try:
            pid = int(fields.get(b"PPid", b"0").strip())
        except ValueError:
            return ""
        if pid <= 1:
            return ""
    return ""


def start_time(pid: int) -> str:
    """Field 22 of `/proc/<pid>/stat` (when the process started), "" when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rpartition(b")")[2].split()[19].decode()
    except (OSError, IndexError):
        return ""


def key_context() -> bytes:
    """`client.process_context()[1]` without the namespaces (its last three lines)."""
    return client.process_context()[1].rsplit(b"\n", 3)[0]


def build_key(context: bytes, environ: "Mapping[str, str]") -> str:
    """The helper key of this build and these rights, whatever the namespaces: written by a
    workspace helper in its lock file, beside its pid."""
    return client.helper_key(context, environ)


def _open_lock(folder: str) -> int:
    """The workspace lock opened for reading: never through a link, never waiting on a FIFO
    planted there (it would hang the hook).

    Raises:
        OSError: it cannot be opened (FileNotFoundError: there is none)."""
    return os.open(os.path.join(folder, LOCK), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)


def _lock_lines(folder: str) -> list[str]:
    try:
        fd = _open_lock(folder)
    except OSError:
        return []
    try:
        return os.read(fd, 4096).decode("ascii", "replace").split("\n")
    except OSError:
        return []
    finally:
        os.close(fd)


def mark_unreached(folder: str) -> None:
    """Leave `UNREACHED` (the live helper sees it and exits; none is started while it is young)."""
    try:
        os.close(os.open(os.path.join(folder, UNREACHED), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600))
    except OSError:
        pass


def unreached_since(folder: str) -> float:
    """When `UNREACHED` was last left in `folder` (0 when it is not there)."""
    try:
        return os.lstat(os.path.join(folder, UNREACHED)).st_mtime
    except OSError:
        return 0.0


def _seconds(text: str) -> float:
    try:
        return max(0.1, float(text))
    except ValueError:
        return IDLE_SECONDS
