"""The state store's low-level file IO: safe names, and opening, reading, creating, locking
and unlinking files relative to the `sessions` directory without following a symlink.

No postponed annotations here: `Loaded` is a NamedTuple (see `tests/test_imports.py`).
"""

import errno
import os
import re
import stat
from collections.abc import Mapping
from typing import Any, NamedTuple

import orjson

from ..core.ledger import STATE_VERSION, Session, bad_count, migrate
from ..core.signature import blake2b

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

APP = "loopguard-hook"
_SAFE_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"  # compiled by `re` on first use
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: A session's files; the lock file last, since deleting a session happens under its lock.
_SUFFIXES = (".json", ".tmp", ".corrupt", ".lock")
#: Longest wait for the lock while other hooks keep committing the session (seconds): the tool
#: hooks of the shipped configs time out after 10 s (`hooks/`), and under a heavy load starting
#: the process takes a few of them.
QUEUE_WAIT_SECONDS = 6.0
#: Largest ledger read back; anything bigger is not ours and is moved aside.
MAX_STATE_BYTES = 4 * 1024 * 1024


class StateError(OSError):
    """The state directory or a state file cannot be used (one stderr line, exit 1, fail open)."""


class LockTimeout(StateError):
    """Another hook process held the session lock for longer than `lock_timeout_seconds`."""


def default_state_dir(environ: Mapping[str, str]) -> str:
    """`LOOPGUARD_STATE_DIR`, else the platform's user cache dir for `loopguard-hook`.

    A cache dir inside a home directory that does not exist (`HOME=/nonexistent`, the home of
    Debian's `nobody`) is refused rather than made: the home is not the guard's to create.

    Raises:
        StateError: no home directory can be found for the cache dir, or it does not exist.
    """
    configured = environ.get("LOOPGUARD_STATE_DIR")
    if configured:
        return configured
    try:
        import platformdirs

        found = platformdirs.user_cache_dir(APP, appauthor=False)
        home = os.path.expanduser("~")
    except (KeyError, RuntimeError, OSError) as exc:  # no HOME and no passwd entry
        raise StateError(f"cannot find a cache directory ({exc}); set LOOPGUARD_STATE_DIR") from None
    if found.startswith(os.path.join(home, "")) and not os.path.isdir(home):
        raise StateError(f"the home directory {home} does not exist; set LOOPGUARD_STATE_DIR")
    return found


def session_file_name(session_id: str) -> str:
    """The file stem for a session: the id itself when it is a safe name, else a hash of it.

    Safe: 1-128 characters of `[A-Za-z0-9._-]`, starting with a letter or digit. Anything else
    (`../x`, `served:…`, NUL bytes, empty, very long) becomes `_<32 hex digits>`, which no safe
    id can equal.
    """
    if re.fullmatch(_SAFE_NAME, session_id) and session_id != "." and ".." not in session_id:
        return session_id
    raw = session_id.encode("utf-8", "surrogatepass")
    return "_" + blake2b(raw, digest_size=16).hexdigest()


def _read_regular(dir_fd: int, path: str) -> bytes | None:
    """Up to `MAX_STATE_BYTES + 1` bytes of a regular file; None when it is anything else.

    Opened without following a symlink (ELOOP) and without blocking: a FIFO planted in place of
    a ledger would otherwise hang the hook until the client's timeout.
    """
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return fh.read(MAX_STATE_BYTES + 1)


def _open_or_create(path: str, flags: int, dir_fd: int | None = None) -> int:
    """Open `path`, creating it if missing: a file made here is 0600 whatever the umask, one
    that exists keeps its mode (the guard never changes a file it did not create)."""
    for _ in range(3):
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            try:
                return os.open(path, flags, dir_fd=dir_fd)
            except FileNotFoundError:
                continue  # deleted in between (gc, reset): create it after all
        os.fchmod(fd, 0o600)
        return fd
    return os.open(path, flags | os.O_CREAT, 0o600, dir_fd=dir_fd)


#: Why a file planted where state belongs cannot be opened, or unlinked, as the file it should be.
_NOT_A_FILE = (errno.EISDIR, errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.ENXIO, errno.ENOTEMPTY, errno.EEXIST)


def _set_aside(dir_fd: int, entry: str, aside: str) -> bool:
    """Rename `entry` (a directory, FIFO or unreadable file where a state file belongs) to
    `aside`, replacing an earlier one there; False when it cannot be moved."""
    for _ in range(2):
        try:
            os.replace(entry, aside, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno not in _NOT_A_FILE:
                return False
            # a file where a directory goes (or the reverse): drop the previous aside first
            try:
                os.unlink(aside, dir_fd=dir_fd)
            except IsADirectoryError:
                try:
                    os.rmdir(aside, dir_fd=dir_fd)
                except OSError:
                    return False
            except FileNotFoundError:
                pass
            except OSError:
                return False
    return False


def _discard(dir_fd: int, entry: str, aside: str) -> str:
    """Get a bad ledger out of the way: moved to `aside`, or, when something there cannot be
    replaced (a directory with files in it, set aside by an earlier event: not the guard's to
    delete), unlinked unless it is a directory itself. What was done, for the stderr line, or ""
    when neither worked."""
    if _set_aside(dir_fd, entry, aside):
        return f"moved it to {aside}"
    try:
        os.unlink(entry, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError:
        return ""
    return f"deleted it ({aside} is in the way)"


class Loaded(NamedTuple):
    """A ledger as read from disk. `warning` is one line for stderr when the file was bad."""

    state: Session | None
    warning: str | None = None


def _valid(state: Any) -> bool:
    """Whether a parsed ledger has the shape of this version's (`core.ledger`); a ledger of an
    earlier version is migrated in place first (`ledger.migrate`), so its counts survive."""
    if isinstance(state, dict):
        migrate(state)
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        return False
    agents = state.get("agents")
    if not isinstance(agents, dict) or not isinstance(state.get("recent"), list):
        return False
    for agent in agents.values():
        if not isinstance(agent, dict):
            return False
        for key, kind in (("sigs", dict), ("calls", dict)):
            if not isinstance(agent.get(key), kind):
                return False
        if not isinstance(agent.get("rules", {}), dict):
            return False
        for key in ("attempts", "seq", "batch_seq", "since", "bookkeeping"):
            if not isinstance(agent.get(key), int):
                return False
    return True


def _fault(state: Any, stem: str) -> str:
    """Why a parsed ledger cannot be the ledger of the session whose file stem is `stem`, as the
    rest of the stderr line `state file <stem>.json …`; "" when it can. It is not of this
    version's shape (`_valid`); its `session_id` names another session (one session's ledger
    copied over another's: its counts are not this session's); or it holds a count no event
    writes (`ledger.bad_count`: negative, a fraction or past any session's; edited by hand).
    Each is a damaged ledger:
    the store moves it aside and the session starts afresh."""
    if not _valid(state):
        return "was unreadable or from another version"
    owner = state.get("session_id", None)
    if "session_id" in state and (not isinstance(owner, str) or session_file_name(owner) != stem):
        return "belongs to another session (its session_id is not the one the file is named for)"
    if bad := bad_count(state):
        return f"held a count no event writes ({bad})"
    return ""


class SessionHandle:
    """A locked session: read `state`, replace or mutate it, then set `dirty` (or `delete`).

    A plain class, not a dataclass: defining a dataclass costs about 0.6 ms of every hook start,
    more than the event's own work.
    """

    __slots__ = ("state", "warning", "dirty", "delete", "unchanged")

    def __init__(self, state: Session | None, warning: str | None = None, *, unchanged: bool = False) -> None:
        self.state = state
        self.warning = warning
        self.dirty = False
        self.delete = False
        #: The ledger holds exactly the bytes given as `expect` (`state` is then None: the
        #: caller already has it, decided on).
        self.unchanged = unchanged


def _private(st: os.stat_result) -> bool:
    """A directory of this user that nobody else can read, enter or write."""
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def private_subdir(root: str) -> str:
    """Where the state lives when `root` exists but is not private to this user (a project
    directory, a shared group directory, `/`): a folder of the guard's own inside it."""
    return os.path.join(root, f"{APP}-{os.getuid()}")


# -- a session's files and its lock (`Store` has these as its static methods) --------------


def _open_lock(dir_fd: int, lock_name: str, recover: bool, notes: list[str] | None = None) -> int:
    """A descriptor of the session's lock file, made when missing. With `recover`, a directory
    or a file that cannot be opened at its name is moved aside, and `notes` gets one line saying
    so (for stderr, as for a damaged ledger).

    Raises:
        StateError: the lock file cannot be opened or made.
    """
    flags = os.O_RDWR | _NOFOLLOW | _CLOEXEC | _NONBLOCK
    for _ in range(3):
        try:
            fd = _open_or_create(lock_name, flags, dir_fd)
        except OSError as exc:
            if recover and exc.errno in _NOT_A_FILE and exc.errno != errno.ENXIO:
                # a directory (or a file its owner cannot open) where the lock file belongs:
                # move it aside and make a lock file of our own
                aside = lock_name[: -len(".lock")] + ".corrupt"
                if not _set_aside(dir_fd, lock_name, aside):
                    raise StateError(f"lock file {lock_name}: {exc.strerror or exc}") from None
                if notes is not None:
                    notes.append(f"lock file {lock_name} could not be opened ({exc.strerror}); moved it to {aside}")
                continue
            if exc.errno != errno.ELOOP:
                raise StateError(f"lock file {lock_name}: {exc.strerror or exc}") from None
        else:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
                return fd
            # A hard link to another file, or a FIFO, planted as the lock: never chmod or
            # lock someone else's file; replace it with a lock file of our own.
            os.close(fd)
        # A symlink was planted as the lock file: remove the link, never follow it.
        try:
            os.unlink(lock_name, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StateError(f"lock file {lock_name} is a symlink: {exc.strerror or exc}") from None
    raise StateError(f"lock file {lock_name} keeps being replaced by a symlink")


def _is_current(fd: int, dir_fd: int, lock_name: str) -> bool:
    try:
        named = os.stat(lock_name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _stamp(dir_fd: int, name: str) -> tuple[int, int, int]:
    """What changes whenever a hook commits the session's ledger."""
    try:
        st = os.stat(name + ".json", dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return (0, 0, 0)
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _busy(dir_fd: int, stem: str) -> bool:
    """True when a hook holds the session's lock; an absent lock file is not created."""
    if fcntl is None:
        return False
    try:
        fd = os.open(stem + ".lock", os.O_RDWR | _NOFOLLOW | _CLOEXEC | _NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _ours(dir_fd: int, stem: str) -> bool:
    """Whether the files of `stem` in `sessions/` are a session the guard wrote, so that `gc` and
    `reset` may delete them: a ledger (a regular file holding a JSON object with the ledger's
    `version` and `agents`, of this version or another), or, with no ledger, the guard's own empty
    lock file (left beside a ledger it set aside). A stray `notes.json` is neither: never touched."""
    try:
        data = _read_regular(dir_fd, stem + ".json")
    except FileNotFoundError:
        data = None
    except OSError:
        return False
    if data is not None:
        try:
            state = orjson.loads(data)
        except orjson.JSONDecodeError:
            return False
        return isinstance(state, dict) and isinstance(state.get("version"), int) and isinstance(state.get("agents"), dict)
    try:
        st = os.stat(stem + ".lock", dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == 0


def _is_file(dir_fd: int, entry: str) -> bool:
    try:
        return not stat.S_ISDIR(os.stat(entry, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _mtime(dir_fd: int, entry: str) -> float:
    try:
        return os.stat(entry, dir_fd=dir_fd, follow_symlinks=False).st_mtime
    except OSError:
        return 0.0


def _unlink_session(dir_fd: int, stem: str) -> set[str]:
    """Unlink a session's files, the lock file last (the caller holds it); the suffixes
    of those that were there."""
    found: set[str] = set()
    for suffix in _SUFFIXES:
        try:
            os.unlink(stem + suffix, dir_fd=dir_fd)
            found.add(suffix)
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            pass  # a directory of that name is not ours to delete (the next event moves it aside)
        except OSError as exc:
            raise StateError(f"cannot delete {stem}{suffix}: {exc.strerror or exc}") from None
    return found
