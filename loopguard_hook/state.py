"""The state store: one JSON file per session, updated under a lock. The only module that does I/O
on the state directory and the only one that imports platformdirs.

Layout under the state directory (default `platformdirs.user_cache_dir("loopguard-hook")`):

    sessions/<name>.json      the session ledger (mode 0600; directory 0700)
    sessions/<name>.lock      sidecar lock file (`flock`; the data file is swapped by os.replace)
    sessions/<name>.tmp       the next version, written then renamed over the ledger
    sessions/<name>.corrupt   the last unreadable ledger, moved aside
    decisions.jsonl           redacted audit log of every non-allow decision (rotates to .1)
    errors.log                tracebacks of unexpected errors (rotates to .1)

A state directory that exists but is not private to the user (`--state-dir .`, a shared group
directory, `/` as root) is never chmod-ed: the state goes to `loopguard-hook-<uid>/` inside it,
a folder the guard makes (0700) and never follows through a symlink.

Hook processes for parallel tool calls run at the same instant (both clients), so every update is
a read-modify-write under an exclusive lock with a bounded wait. Every file is opened relative to
the `sessions` directory with `O_NOFOLLOW`: a symlink planted in place of a state, temp or lock
file is never followed.
"""

import errno
import os
import re
import stat
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

import orjson

from .ledger import STATE_VERSION, Session
from .signature import blake2b

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
#: Largest ledger read back; anything bigger is not ours and is moved aside.
MAX_STATE_BYTES = 4 * 1024 * 1024


class StateError(OSError):
    """The state directory or a state file cannot be used (one stderr line, exit 1, fail open)."""


class LockTimeout(StateError):
    """Another hook process held the session lock for longer than `lock_timeout_seconds`."""


def default_state_dir(environ: Mapping[str, str]) -> str:
    """`LOOPGUARD_STATE_DIR`, else the platform's user cache dir for `loopguard-hook`.

    Raises:
        StateError: no home directory can be found for the cache dir.
    """
    configured = environ.get("LOOPGUARD_STATE_DIR")
    if configured:
        return configured
    try:
        import platformdirs

        return platformdirs.user_cache_dir(APP, appauthor=False)
    except (KeyError, RuntimeError, OSError) as exc:  # no HOME and no passwd entry
        raise StateError(f"cannot find a cache directory ({exc}); set LOOPGUARD_STATE_DIR") from None


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


class Loaded(NamedTuple):
    """A ledger as read from disk. `warning` is one line for stderr when the file was bad."""

    state: Session | None
    warning: str | None = None


def _valid(state: Any) -> bool:
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        return False
    agents = state.get("agents")
    if not isinstance(agents, dict) or not isinstance(state.get("recent"), list):
        return False
    for agent in agents.values():
        if not isinstance(agent, dict):
            return False
        for key, kind in (("sigs", dict), ("calls", dict), ("paths", dict), ("errors", dict)):
            if not isinstance(agent.get(key), kind):
                return False
        for key in ("attempts", "seq", "batch_seq", "since", "bookkeeping"):
            if not isinstance(agent.get(key), int):
                return False
    return True


class SessionHandle:
    """A locked session: read `state`, replace or mutate it, then set `dirty` (or `delete`).

    A plain class, not a dataclass: defining a dataclass costs about 0.6 ms of every hook start,
    more than the event's own work.
    """

    __slots__ = ("state", "warning", "dirty", "delete")

    def __init__(self, state: Session | None, warning: str | None = None) -> None:
        self.state = state
        self.warning = warning
        self.dirty = False
        self.delete = False


def _private(st: os.stat_result) -> bool:
    """A directory of this user that nobody else can read, enter or write."""
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def private_subdir(root: str) -> str:
    """Where the state lives when `root` exists but is not private to this user (a project
    directory, a shared group directory, `/`): a folder of the guard's own inside it."""
    return os.path.join(root, f"{APP}-{os.getuid()}")


class Store:
    """The state directory. Cheap to create: nothing touches the disk until a method is called."""

    def __init__(self, root: str, *, lock_timeout: float = 2.0, audit_max_bytes: int = 1048576) -> None:
        self.given = root
        self.lock_timeout = lock_timeout
        self.audit_max_bytes = audit_max_bytes
        self._root: str | None = None

    @property
    def root(self) -> str:
        """The directory the state really lives in: the one given when it is private to this
        user (or does not exist yet), else `private_subdir` of it. The guard never changes the
        mode of a directory it did not create."""
        if self._root is None:
            try:
                st = os.stat(self.given)
            except OSError:
                return self.given
            self._root = self.given if _private(st) or not stat.S_ISDIR(st.st_mode) else private_subdir(self.given)
        return self._root

    @property
    def sessions(self) -> str:
        return os.path.join(self.root, "sessions")

    # -- directories ----------------------------------------------------------------------

    def ensure_root(self) -> str:
        """Create the state directory if need be (0700) and return it.

        Raises:
            StateError: it cannot be created, is not a directory, or (the private folder made
                inside a directory that is not private) is a symlink or not this user's alone.
        """
        given = self.given
        try:
            try:
                st: os.stat_result | None = os.stat(given)
            except FileNotFoundError:
                st = None
            if st is None:
                # Parents made on the way are private too, whatever the umask (makedirs applies
                # `mode` to the last folder only).
                self._mkdir_private(given, parents=True)
                self._root = given
                return given
            if not stat.S_ISDIR(st.st_mode):
                raise StateError(f"state directory {given} is not a directory")
            if _private(st):
                self._root = given
                return given
            # Not ours alone: a folder of our own inside it, its mode left as it is.
            sub = private_subdir(given)
            self._mkdir_private(sub, parents=False)
            try:
                fd = os.open(sub, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise StateError(f"{sub} is a symlink or not a directory; not following it") from None
                raise
            try:
                own = os.fstat(fd)
            finally:
                os.close(fd)
            if not _private(own):
                raise StateError(
                    f"{sub} is not private to this user (owner uid {own.st_uid}, mode {stat.S_IMODE(own.st_mode):04o}); "
                    f"not using it: remove it, or set a private --state-dir"
                )
            self._root = sub
            return sub
        except StateError:
            raise
        except OSError as exc:
            raise StateError(f"state directory {given}: {exc.strerror or exc}") from None

    @staticmethod
    def _mkdir_private(path: str, *, parents: bool) -> None:
        """Make `path` 0700 unless it exists; only a directory made here has its mode set."""
        old_umask = os.umask(0o077)
        try:
            if parents:
                head = os.path.dirname(os.path.abspath(path))
                os.makedirs(head, mode=0o700, exist_ok=True)
            os.mkdir(path, 0o700)
        except FileExistsError:
            return
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o700)  # no setgid bit inherited from a shared parent

    def _ensure(self) -> int:
        """Create the directories (0700) and return an fd of `sessions/`.

        Raises:
            StateError: the directory cannot be created or opened, or is a symlink.
        """
        sessions = os.path.join(self.ensure_root(), "sessions")
        try:
            self._mkdir_private(sessions, parents=False)
            return os.open(sessions, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        except OSError as exc:
            raise StateError(f"state directory {sessions}: {exc.strerror or exc}") from None

    def _dir_fd(self, *, strict: bool = False) -> int | None:
        """An fd of `sessions/`, or None when there is none yet.

        Raises:
            StateError: with `strict` (the operator commands), it exists but cannot be opened:
                an unreadable folder must not look empty.
        """
        try:
            return os.open(self.sessions, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if not strict:
                return None
            raise StateError(f"cannot read state directory {self.sessions}: {exc.strerror or exc}") from None

    # -- locking --------------------------------------------------------------------------

    @contextmanager
    def _lock(self, dir_fd: int, name: str, *, wait: bool = True, recover: bool = True) -> Iterator[bool]:
        """Hold the session's exclusive lock; yields False only when `wait=False` and it is busy.

        With `recover`, a directory or unopenable file at the lock's name is moved aside; bulk
        cleanup (`gc`, `reset --all`) passes False and skips such a session instead.

        Raises:
            StateError: the lock file cannot be opened.
            LockTimeout: `wait=True` and the lock stayed busy for `lock_timeout` seconds.
        """
        lock_name = name + ".lock"
        deadline = time.monotonic() + (self.lock_timeout if wait else 0.0)
        while True:
            fd = self._open_lock(dir_fd, lock_name, recover)
            try:
                got = fcntl is None or self._acquire(fd, deadline, raise_on_timeout=wait)
                # `gc` or `reset` may have deleted the lock file while this process waited on it;
                # the next process would lock a new file of that name, so take that one instead.
                current = got and (fcntl is None or self._is_current(fd, dir_fd, lock_name))
            except BaseException:
                os.close(fd)
                raise
            if current:
                break
            os.close(fd)
            if not got:
                yield False
                return
        try:
            yield True
        finally:
            os.close(fd)  # closing releases the flock

    @staticmethod
    def _open_lock(dir_fd: int, lock_name: str, recover: bool) -> int:
        flags = os.O_RDWR | _NOFOLLOW | _CLOEXEC | _NONBLOCK
        for _ in range(3):
            try:
                fd = _open_or_create(lock_name, flags, dir_fd)
            except OSError as exc:
                if recover and exc.errno in _NOT_A_FILE and exc.errno != errno.ENXIO:
                    # a directory (or a file its owner cannot open) where the lock file belongs:
                    # move it aside and make a lock file of our own
                    if not _set_aside(dir_fd, lock_name, lock_name[: -len(".lock")] + ".corrupt"):
                        raise StateError(f"lock file {lock_name}: {exc.strerror or exc}") from None
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

    @staticmethod
    def _is_current(fd: int, dir_fd: int, lock_name: str) -> bool:
        try:
            named = os.stat(lock_name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)

    def _acquire(self, fd: int, deadline: float, *, raise_on_timeout: bool = True) -> bool:
        delay = 0.0005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
            now = time.monotonic()
            if now >= deadline:
                if not raise_on_timeout:
                    return False
                raise LockTimeout(
                    f"session lock busy for {self.lock_timeout:g} s (another hook process hangs?); "
                    "letting this call through"
                )
            time.sleep(min(delay, deadline - now))
            delay = min(delay * 2, 0.01)

    # -- ledger ---------------------------------------------------------------------------

    def _read(self, dir_fd: int, name: str) -> Loaded:
        path = name + ".json"
        try:
            data = _read_regular(dir_fd, path)
        except FileNotFoundError:
            return Loaded(None)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                os.unlink(path, dir_fd=dir_fd)
                return Loaded(None, "state file was a symlink; removed it and started the session afresh")
            if exc.errno in _NOT_A_FILE and _set_aside(dir_fd, path, name + ".corrupt"):
                return Loaded(
                    None, f"state file {path} could not be read ({exc.strerror}); moved it to {name}.corrupt and started afresh"
                )
            raise StateError(f"state file {path}: {exc.strerror or exc}") from None
        try:
            state = orjson.loads(data) if data is not None and len(data) <= MAX_STATE_BYTES else None
        except orjson.JSONDecodeError:
            state = None
        if _valid(state):
            return Loaded(state)
        aside = name + ".corrupt"
        if not _set_aside(dir_fd, path, aside):
            raise StateError(f"state file {path} is unreadable and cannot be moved aside")
        return Loaded(None, f"state file {path} was unreadable or from another version; moved it to {aside} and started afresh")

    def _write(self, dir_fd: int, name: str, state: Session) -> None:
        tmp = name + ".tmp"
        data = orjson.dumps(state)
        # Always a fresh file: whatever sits at the temp name (a leftover of a killed writer, or
        # a planted symlink, hard link or FIFO) is unlinked, never written through. The session
        # lock is held, so no other writer of ours can be using it.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        try:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            except OSError as exc:  # a directory planted at the temp name
                if exc.errno not in _NOT_A_FILE or not _set_aside(dir_fd, tmp, name + ".corrupt"):
                    raise
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            try:
                os.fchmod(fd, 0o600)
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            finally:
                os.close(fd)
            os.replace(tmp, name + ".json", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as exc:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except OSError:
                pass
            raise StateError(f"cannot write state file {name}.json: {exc.strerror or exc}") from None

    @contextmanager
    def session(self, session_id: str, *, write: bool = True) -> Iterator[SessionHandle]:
        """Lock the session, yield its ledger, and write it back if the handle was marked dirty.

        With `write=False` (`--dry-run`) nothing is created or changed on disk.

        Raises:
            StateError: the directory or files cannot be used.
            LockTimeout: the lock was not free within `lock_timeout` seconds.
        """
        name = session_file_name(session_id)
        if not write:
            dir_fd = self._dir_fd()
            try:
                loaded = self._read_only(dir_fd, name)
                yield SessionHandle(loaded.state, loaded.warning)
            finally:
                if dir_fd is not None:
                    os.close(dir_fd)
            return
        dir_fd = self._ensure()
        try:
            with self._lock(dir_fd, name):
                loaded = self._read(dir_fd, name)
                handle = SessionHandle(loaded.state, loaded.warning)
                yield handle
                if handle.delete:
                    # Every file of the session, the lock too (held here; a process waiting on it
                    # notices and locks the new one), so ended sessions leave nothing behind.
                    self._unlink_session(dir_fd, name)
                elif handle.dirty and handle.state is not None:
                    self._write(dir_fd, name, handle.state)
        finally:
            os.close(dir_fd)

    def _read_only(self, dir_fd: int | None, name: str) -> Loaded:
        if dir_fd is None:
            return Loaded(None)
        try:
            data = _read_regular(dir_fd, name + ".json")
        except OSError:
            return Loaded(None)
        try:
            state = orjson.loads(data) if data is not None else None
        except orjson.JSONDecodeError:
            return Loaded(None, f"state file {name}.json is unreadable; ignoring it (dry run)")
        return Loaded(state if _valid(state) else None)

    # -- operator commands ----------------------------------------------------------------

    def list_sessions(self) -> list[tuple[str, dict[str, Any] | None, float]]:
        """Every ledger as `(file stem, state or None if unreadable, mtime in seconds)`."""
        out: list[tuple[str, dict[str, Any] | None, float]] = []
        dir_fd = self._dir_fd(strict=True)
        if dir_fd is None:
            return out
        try:
            try:
                names = sorted(os.listdir(dir_fd))
            except OSError as exc:
                raise StateError(f"cannot list state directory {self.sessions}: {exc.strerror or exc}") from None
            for entry in names:
                if not entry.endswith(".json"):
                    continue
                try:
                    info = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False)
                    if stat.S_ISLNK(info.st_mode):
                        continue
                    data = _read_regular(dir_fd, entry)
                    state = orjson.loads(data) if data is not None else None
                except (OSError, orjson.JSONDecodeError):
                    out.append((entry[:-5], None, 0.0))
                    continue
                out.append((entry[:-5], state if _valid(state) else None, info.st_mtime))
        finally:
            os.close(dir_fd)
        return out

    def find(self, session_id: str) -> str:
        """The file stem of a session id (or of a stem given directly)."""
        return session_file_name(session_id)

    def remove(self, stem: str, *, recover: bool = False) -> bool:
        """Delete one session's files, under its lock so that a hook in the middle of an update
        finishes first. True if any of them existed.

        Raises:
            StateError: a file cannot be deleted, or the lock stayed busy.
        """
        dir_fd = self._dir_fd(strict=True)
        if dir_fd is None:
            return False
        try:
            # a lock file planted alone (a FIFO, a directory) is replaced on locking: it counts
            existed = any(self._is_file(dir_fd, stem + suffix) for suffix in _SUFFIXES)
            with self._lock(dir_fd, stem, recover=recover):
                return bool(self._unlink_session(dir_fd, stem) - {".lock"}) or existed
        except LockTimeout:
            raise StateError(f"session {stem} is locked by a hook process; try again") from None
        finally:
            os.close(dir_fd)

    def gc(self, older_than: float, now: float, *, dry_run: bool = False) -> list[str]:
        """Delete the files of sessions idle for more than `older_than` seconds; return their stems.

        A session is as old as the newest of its files. One whose lock is held (a hook is
        updating it) is not idle and is kept. With `dry_run`, delete nothing and return the
        sessions that would go.

        Raises:
            StateError: the state directory cannot be listed or a file cannot be removed.
        """
        removed: list[str] = []
        dir_fd = self._dir_fd(strict=True)
        if dir_fd is None:
            return removed
        try:
            stems: dict[str, float] = {}
            for entry in os.listdir(dir_fd):
                stem, dot, suffix = entry.rpartition(".")
                # only a session's own files (`notes.txt` is not one, nor a folder `x.json`)
                if dot and "." + suffix in _SUFFIXES and self._is_file(dir_fd, entry):
                    stems[stem] = max(stems.get(stem, 0.0), self._mtime(dir_fd, entry))
            for stem, mtime in sorted(stems.items()):
                if now - mtime <= older_than:
                    continue
                if dry_run:
                    if not self._busy(dir_fd, stem):
                        removed.append(stem)
                    continue
                try:
                    with self._lock(dir_fd, stem, wait=False, recover=False) as held:
                        if not held:
                            continue
                        newest = max(self._mtime(dir_fd, stem + suffix) for suffix in _SUFFIXES)
                        if now - newest <= older_than:
                            continue  # written between the listing and the lock
                        if not self._unlink_session(dir_fd, stem):
                            continue
                except (StateError, OSError):
                    continue  # not a session of ours (a directory planted there): leave it
                removed.append(stem)
        except OSError as exc:
            if isinstance(exc, StateError):
                raise
            raise StateError(f"state directory {self.sessions}: {exc.strerror or exc}") from None
        finally:
            os.close(dir_fd)
        return removed

    @staticmethod
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

    @staticmethod
    def _is_file(dir_fd: int, entry: str) -> bool:
        try:
            return not stat.S_ISDIR(os.stat(entry, dir_fd=dir_fd, follow_symlinks=False).st_mode)
        except OSError:
            return False

    @staticmethod
    def _mtime(dir_fd: int, entry: str) -> float:
        try:
            return os.stat(entry, dir_fd=dir_fd, follow_symlinks=False).st_mtime
        except OSError:
            return 0.0

    @staticmethod
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

    # -- logs -----------------------------------------------------------------------------

    def append_log(self, filename: str, line: bytes) -> None:
        """Append one line to a log in the state directory, rotating it past the size bound.

        Raises:
            StateError: the log cannot be written.
        """
        try:
            path = os.path.join(self.ensure_root(), filename)
        except StateError as exc:
            raise StateError(f"cannot write {filename}: {exc}") from None
        try:
            fd = _open_or_create(path, os.O_WRONLY | os.O_APPEND | _NOFOLLOW | _CLOEXEC | _NONBLOCK)
        except OSError as exc:
            raise StateError(f"cannot write {path}: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
                # a FIFO would block, a hard link would write into someone else's file
                raise StateError(f"{path} is not a plain file of its own; not writing to it")
            os.write(fd, line if line.endswith(b"\n") else line + b"\n")
            size = os.fstat(fd).st_size
        except OSError as exc:  # a full disk must not turn a decision into an internal error
            raise StateError(f"cannot write {path}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
        if size > self.audit_max_bytes:
            try:
                os.replace(path, path + ".1")
            except OSError:
                pass

    def read_log(self, filename: str) -> list[bytes]:
        """The lines of a log and its rotated predecessor, oldest first."""
        lines: list[bytes] = []
        for path in (os.path.join(self.root, filename + ".1"), os.path.join(self.root, filename)):
            try:
                with open(path, "rb") as fh:
                    lines.extend(fh.read().splitlines())
            except OSError:
                continue
        return lines
