"""The hook process's side of the fast path: hand the event to the resident helper.

The console script calls `handle` with what the in-process hook would get (the parsed options,
the stdin bytes, the process start time, the environment, the working directory). It returns the
helper's answer `(exit code, stdout bytes, stderr text)`, or None when the event must be handled
in-process: no helper yet (one is then started for the next event), a helper that is stale,
busy, from another build or another user, or any error before the request was handed over.

A big payload (stdin not at its end after `process.FIRST_READ` bytes) is not copied through the
socket: the request carries the bytes read so far and the stdin descriptor itself
(`SCM_RIGHTS`), and the helper reads the rest (a regular file mapped, a pipe read into one
buffer: `request.py`). It decides whether it can serve the event
(its DECLINE) before it reads from that descriptor, so a declined event still finds all of stdin
here.

Once the whole request is in the socket the helper may have recorded the event, so it is never
handled a second time: if no answer comes (the helper was killed mid-event), the call is let
through with one stderr line and exit 1, as for any internal error.

Imports: `os`, `sys`, `marshal` (loaded by every interpreter), `_socket` and `_blake2` (one
shared library each, about 0.1 ms). `socket`, `json`, `re` and `struct` cost 3 to 5 ms each
here (bench/README.md) and are not used.

Where the helper lives: `<TMPDIR or /tmp>/loopguard-hook-<uid>/`, a 0700 directory this code
creates, owned by the user; anything else in its place (a symlink, another owner, wider modes)
disables the fast path. The system temp dir is used because sandboxed hooks may write there but
not under `$HOME` (DeepSeek Harness workspace-write, Codex workspace-write). One socket per
build: `<key>.sock`, where the key digests the package version, the stamp an install leaves on its
files and folders, the interpreter and the package path, so a client never talks to the helper of
another build (a module edited in place is caught by the helper itself, see `build_stamp`).
"""

import _socket
import marshal
import os
import stat
import sys
from _blake2 import blake2b

from .. import __version__

# No `from __future__ import annotations` (the `__future__` module is one more import on every
# event): annotations are evaluated, so names only imported for type checking are quoted.
TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` and `collections.abc` cost milliseconds to import here
    from collections.abc import Mapping

#: Answer of a helper: (exit code, stdout bytes, stderr text without its newline).
Reply = tuple[int, bytes, str]

#: Set to `off` (or 0, no, false) to handle every event in-process.
ENV_SWITCH = "LOOPGUARD_RESIDENT"
#: Seconds a helper waits for the next event before it exits (default `IDLE_SECONDS`).
ENV_IDLE = "LOOPGUARD_RESIDENT_IDLE_SECONDS"
IDLE_SECONDS = 600.0
_OFF = ("0", "off", "no", "false")

PROTOCOL = b"loopguard-hook resident 2\n"
#: How long a client waits for the helper's greeting before handling the event itself. The
#: greeting is sent as soon as the helper accepts (well under a millisecond when it is idle).
HELLO_TIMEOUT = 0.25
#: How long handing over the request may take (a 5 MiB Write is about 17 MB of JSON, a few
#: milliseconds). With the greeting's, it keeps what a stopped or overloaded helper can add to an
#: event (then run in-process) near the default 2 s lock bound.
SEND_TIMEOUT = 2.0
#: The answer comes after `hook.run`: its wait for the session lock (`lock_timeout_seconds`, 2 s by
#: default, longer while the queue moves: `state_files.QUEUE_WAIT_SECONDS`) plus the event's own
#: work. A worker that has not answered by then (stopped, frozen) has the call let through: the
#: shipped hook configs give the hook 10 s (`hooks/`) before the host kills it.
REPLY_TIMEOUT = 10.0
#: The environment's lock bound, when it sets one longer than that allows for.
ENV_LOCK_TIMEOUT = "LOOPGUARD_LOCK_TIMEOUT_SECONDS"
LOST = "loopguard-hook: internal error (no answer from the resident helper); the call was let through"

#: Reply tags: an answer, or "handle it yourself" (the helper could not enter the client's cwd,
#: or the stdin descriptor did not come with the request).
ANSWER = b"A"
DECLINE = b"D"


def handle(values: dict[str, object], raw: bytes, clock: float, environ: "Mapping[str, str]",
           rest: int | None = None, known: tuple[bool, bytes] | None = None) -> Reply | None:
    """Run one hook event in the resident helper.

    `values` are the hook's keyword options (`HookOptions` fields), `raw` the stdin bytes (the
    first of them when `rest` is the descriptor the rest of stdin is read from),
    `clock` the event time (Unix seconds), `environ` the environment the hook reads (`LOOPGUARD_*`,
    `CLAUDE_PROJECT_DIR`, and `HOME`/`XDG_CONFIG_HOME`/`XDG_CACHE_HOME` through platformdirs);
    the helper runs the event with exactly this environment and the current directory;
    `known`: `process_context()` when the caller has read it already. A confined process never
    meets this helper (its own is `confined.handle`'s).

    Returns the answer, or None when the caller must handle the event in-process.
    """
    if environ.get(ENV_SWITCH, "").strip().lower() in _OFF or not hasattr(_socket, "SO_PEERCRED"):
        return None
    confined, context = known or process_context()
    folder = None if confined else runtime_dir(environ)  # a sandboxed hook: see `confined.py`
    if folder is None:
        return None
    key = helper_key(context, environ)
    if len(os.fsencode(os.path.join(folder, key + ".sock"))) > MAX_SOCKET_PATH:
        return None
    sock = _connect(folder, key, environ, clock)
    if sock is None:
        return None
    try:
        if not _hand_over(sock, values, raw, clock, environ, rest):
            return None
        return _answer(sock, reply_timeout(environ))
    finally:
        sock.close()


#: Longest Unix socket path Linux takes (`sun_path` is 108 bytes with its NUL).
MAX_SOCKET_PATH = 107


#: Lines of /proc/self/status that decide what a process may do.
_STATUS_FIELDS = (b"Uid:", b"Gid:", b"Groups:", b"CapInh:", b"CapPrm:", b"CapEff:", b"CapBnd:", b"CapAmb:",
                  b"NoNewPrivs:", b"Seccomp:")


def process_context(proc: str = "/proc/self") -> tuple[bool, bytes]:
    """(confined, what a helper must share with this process to act for it).

    The second part holds the credentials, capabilities (`Cap*` of `status`), resource limits
    (`limits`: a hook started under `ulimit -f` must hit it in the helper too) and namespaces;
    it goes into the helper's key, so a process only ever meets a helper started with the same
    rights. A helper started by a client inherits them all.

    Confined: `NoNewPrivs: 1` or a seccomp filter, i.e. a sandbox. DeepSeek Harness confines
    hooks (Landlock or bubblewrap, both with no_new_privs; under bubblewrap /tmp is a fresh tmpfs
    per hook call; measured on dsh 0.1.0-rc.8): a helper started there could not be found again, and one started
    outside has other rights. Such events run in-process. Codex and Claude Code hooks are not
    confined (research/codex-hooks.md addendum). Without /proc nothing can be told: confined.
    """
    try:
        with open(f"{proc}/status", "rb") as fh:
            status = fh.read()
        with open(f"{proc}/limits", "rb") as fh:
            limits = fh.read()
        spaces = [os.readlink(f"{proc}/ns/{name}").encode() for name in ("mnt", "user", "pid")]
    except OSError:
        return True, b""
    lines = [line for line in status.split(b"\n") if line.startswith(_STATUS_FIELDS)]
    confined = b"NoNewPrivs:\t1" in lines or not any(line == b"Seccomp:\t0" for line in lines)
    return confined, b"\n".join([*lines, limits, *spaces])


def runtime_path(environ: "Mapping[str, str]") -> str:
    """`<TMPDIR>/loopguard-hook-<uid>` (`/tmp` when TMPDIR is unset or relative)."""
    base = environ.get("TMPDIR") or "/tmp"
    if not base.startswith("/"):
        base = "/tmp"
    return os.path.join(base, f"loopguard-hook-{os.getuid()}")


def runtime_dir(environ: "Mapping[str, str]") -> str | None:
    """The user's private helper directory, created 0700 if missing; None if it is not safe.

    Safe means: a real directory (not a symlink), owned by this user, no group or other bits.
    """
    uid = os.getuid()
    path = runtime_path(environ)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
        return None
    return path


#: The installed package's folder (`loopguard_hook/`).
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def helper_key(context: bytes, environ: "Mapping[str, str]", root: str = PACKAGE_ROOT) -> str:
    """The key of the helper that may serve this process: a digest of the build (version,
    interpreter, package path, `build_stamp`), of the interpreter's `PYTHON*` variables in
    `environ` (`PYTHONPATH` decides which modules load), and of `context` (`process_context`).
    32 hex characters. About 50 µs: it runs on every event."""
    return blake2b("\n".join(_key_parts(context, environ, root)).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def key_parts(context: bytes, environ: "Mapping[str, str]", root: str = PACKAGE_ROOT) -> dict[str, str]:
    """What `helper_key` is made of, each part as a digest of 16 hex characters: `build`, the
    `PYTHON*` variables (`environment`) and the rights (`context`). A helper writes its own in its
    status file, so that `helper status` can say how another helper's key differs from this one's."""
    build, python, rights = _key_parts(context, environ, root)
    return {name: blake2b(part.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
            for name, part in (("build", build), ("environment", python), ("rights", rights))}


def _key_parts(context: bytes, environ: "Mapping[str, str]", root: str) -> tuple[str, str, str]:
    python = sorted((k, v) for k, v in environ.items() if k.startswith("PYTHON"))
    # The interpreter by its real path and its environment's prefix: `python` and `python3` of one
    # virtualenv are one interpreter, and share a helper.
    interpreter = (os.path.realpath(sys.executable), sys.prefix, interpreter_flags())
    build = "\n".join([__version__, sys.version, repr(interpreter), root, build_stamp(root)])
    return build, repr(python), context.decode("utf-8", "replace")


def interpreter_flags() -> list[str]:
    """The options this interpreter was started with that decide what it imports (`-I`, `-E`,
    `-s`, `-S`): a helper is started with the same ones. pipx writes `#!…/python -E` as the
    script's first line, so such a hook ignores `PYTHONPATH` and its helper must too."""
    flags = sys.flags
    chosen = ((flags.isolated, "-I"), (flags.ignore_environment, "-E"), (flags.no_user_site, "-s"), (flags.no_site, "-S"))
    return [option for on, option in chosen if on]


def build_stamp(root: str = PACKAGE_ROOT) -> str:
    """What an install, upgrade or checkout of the package changes, read cheaply: the inode, size
    and mtime of `__init__.py` (it holds the version) and the inode and mtime of the package's
    folder and of each subpackage's folder (installers and git replace files, which changes the
    folder that holds them: pip unlinks before it writes, uv links, git renames). An edit made in
    place leaves these alone; the helper finds it with `build_digest` after its next event."""
    try:
        with os.scandir(root) as entries:
            folders = sorted(e.path for e in entries if e.name != "__pycache__" and e.is_dir(follow_symlinks=False))
    except OSError as exc:
        return repr(exc)
    parts = []
    for path in [os.path.join(root, "__init__.py"), root, *folders]:
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}")
        except OSError as exc:
            parts.append(repr(exc))
    return "\n".join(parts)


def build_digest(root: str = PACKAGE_ROOT) -> str:
    """A digest of every module of the package (path, size, mtime): any edit changes it. About
    1 ms (a walk of the package), so only the helper runs it, between events."""
    parts = []
    pending = [root]
    while pending:
        folder = pending.pop()
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.endswith(".py") and entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    parts.append(f"{entry.path}:{st.st_size}:{st.st_mtime_ns}")
                elif entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    pending.append(entry.path)
    return blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def hello(key: str) -> bytes:
    """The greeting a helper sends on every connection: protocol line and build key."""
    return PROTOCOL + key.encode("ascii") + b"\n"


def peer_uid(sock: _socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket (Linux `SO_PEERCRED`)."""
    cred = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)  # struct ucred: pid, uid, gid
    return int.from_bytes(cred[4:8], sys.byteorder)


def _connect(folder: str, key: str, environ: "Mapping[str, str]", clock: float) -> _socket.socket | None:
    """A connection to this build's helper that greeted us, or None (and a helper is started if
    there is none). `clock`: the hook's start (Unix seconds), which bounds a wait for a starting
    helper (`start.await_helper`)."""
    path = os.path.join(folder, key + ".sock")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        # The hook that starts the helper runs its event itself (idle, that is quicker than the
        # helper's start); one that finds it starting waits for it (`start.await_helper`).
        if start_helper(folder, key, environ) or not _await_helper(folder, key, clock):
            return None
        try:
            st = os.lstat(path)
        except OSError:
            return None
    except OSError:
        return None
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid():
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(HELLO_TIMEOUT)
        try:
            sock.connect(path)
        except (ConnectionRefusedError, FileNotFoundError):  # a helper that died: start another
            start_helper(folder, key, environ)
            raise
        want = hello(key)
        if peer_uid(sock) != os.getuid():
            raise ConnectionError("not this user's helper")
        try:
            greeting = read_exactly(sock, len(want))
        except ConnectionResetError:  # closed unanswered: a helper dying or stopping
            start_helper(folder, key, environ)
            raise
        if greeting != want:
            raise ConnectionError("not this build's helper")
        return sock
    except OSError:
        sock.close()
        return None


def _hand_over(sock: _socket.socket, values: dict[str, object], raw: bytes, clock: float, environ: "Mapping[str, str]",
               rest: int | None = None, proof: int | None = None) -> bool:
    """Send the whole request (with the descriptor `rest` when given, and last the descriptor
    `proof` for a workspace helper, `confined.py`); False if it could not be (then the helper
    does nothing)."""
    try:
        mask = os.umask(0o077)
        os.umask(mask)
        request = (values, dict(environ), os.getcwd(), mask, clock, len(raw))
        # A 7th field says that the rest of the payload is on the descriptor sent with the request.
        head = marshal.dumps(request if rest is None else (*request, True))
        sock.settimeout(SEND_TIMEOUT)
        data = len(head).to_bytes(8, "little") + head
        fds = [fd for fd in (rest, proof) if fd is not None]
        if not fds:
            sock.sendall(data)
        else:  # the descriptors ride on the request's first bytes (an int array, struct cmsghdr data)
            rights = b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds)
            sent = sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)])
            sock.sendall(data[sent:])
        if raw:  # nothing more for an empty payload: a send of no bytes to a worker that
            sock.sendall(raw)  # has answered from the head alone and closed fails (EPIPE), and
    except (OSError, ValueError):  # the event would then run here a second time
        return False
    return True


def reply_timeout(environ: "Mapping[str, str]") -> float:
    """Seconds to wait for the answer: `REPLY_TIMEOUT`, or the environment's lock bound (at most
    60 s, as config.py allows) and 8 s more when that is longer."""
    try:
        lock = min(float(environ.get(ENV_LOCK_TIMEOUT, "")), 60.0)
    except ValueError:
        return REPLY_TIMEOUT
    return max(REPLY_TIMEOUT, lock + 8.0)


def _answer(sock: _socket.socket, timeout: float = REPLY_TIMEOUT) -> Reply | None:
    """Read the helper's reply after the request was handed over (the point of no return)."""
    try:
        sock.settimeout(timeout)
        data = _read_to_end(sock)
    except OSError:
        return (1, b"", LOST)
    if data == DECLINE:
        return None
    if data[:1] == ANSWER:
        try:
            code, out, err = marshal.loads(data[1:])
        except (ValueError, EOFError, TypeError):
            return (1, b"", LOST)
        if isinstance(code, int) and isinstance(out, bytes) and isinstance(err, str):
            return (code, out, err)
    return (1, b"", LOST)


def read_exactly(sock: _socket.socket, size: int) -> bytes:
    """Exactly `size` bytes from `sock`; ConnectionResetError if it closes first."""
    chunks = []
    while size > 0:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ConnectionResetError("connection closed early")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_to_end(sock: _socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def start_helper(folder: str, key: str, environ: "Mapping[str, str]") -> bool:
    """Start this build's helper in the background, detached, unless one is already starting
    (`start.py`, imported only then), with this interpreter's options and the idle timeout from
    `LOOPGUARD_RESIDENT_IDLE_SECONDS`; True when this call started it."""
    from . import start

    return start.start_helper(folder, key, environ, interpreter_flags(),
                              environ.get(ENV_IDLE, "") or str(IDLE_SECONDS))


def _await_helper(folder: str, key: str, started: float) -> bool:
    from . import start

    return start.await_helper(folder, key, started=started)
