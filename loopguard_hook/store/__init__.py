"""The state store: one JSON file per session, updated under a lock. With `state_dirs.py` (the
directory) and `state_files.py` (low-level file IO, `default_state_dir`), the only modules that
do I/O on the state directory and the only ones that import platformdirs.

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
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import orjson

from ..core.ledger import Session
from . import files as files
from .dirs import StateDir
from .files import (
    _CLOEXEC,
    _NOFOLLOW,
    _NONBLOCK,
    _NOT_A_FILE,
    _SUFFIXES,
    APP,
    MAX_STATE_BYTES,
    QUEUE_WAIT_SECONDS,
    Loaded,
    LockTimeout,
    SessionHandle,
    StateError,
    _discard,
    _fault,
    _open_or_create,
    _read_regular,
    _set_aside,
    _valid,
    default_state_dir,
    private_subdir,
    session_file_name,
)

#: What other modules import from here (the store's public face).
__all__ = [
    "Store", "APP", "MAX_STATE_BYTES", "QUEUE_WAIT_SECONDS", "Loaded", "LockTimeout",
    "SessionHandle", "StateError", "_valid", "default_state_dir", "private_subdir", "session_file_name",
]

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class Store(StateDir):
    """The state directory. Cheap to create: nothing touches the disk until a method is called."""

    _open_lock = staticmethod(files._open_lock)
    _is_current = staticmethod(files._is_current)
    _stamp = staticmethod(files._stamp)
    _busy = staticmethod(files._busy)
    _is_file = staticmethod(files._is_file)
    _ours = staticmethod(files._ours)
    _mtime = staticmethod(files._mtime)
    _unlink_session = staticmethod(files._unlink_session)

    # -- locking --------------------------------------------------------------------------

    @contextmanager
    def _lock(
        self, dir_fd: int, name: str, *, wait: bool = True, recover: bool = True, notes: list[str] | None = None
    ) -> Iterator[bool]:
        """Hold the session's exclusive lock; yields False only when `wait=False` and it is busy.

        With `recover`, a directory or unopenable file at the lock's name is moved aside (one
        line in `notes`, when given); bulk cleanup (`gc`, `reset --all`) passes False and skips
        such a session instead.

        Raises:
            StateError: the lock file cannot be opened.
            LockTimeout: `wait=True` and the lock stayed busy for `lock_timeout` seconds.
        """
        lock_name = name + ".lock"
        deadline = time.monotonic() + (self.lock_timeout if wait else 0.0)
        while True:
            fd = self._open_lock(dir_fd, lock_name, recover, notes)
            try:
                progress = (lambda: self._stamp(dir_fd, name)) if wait else None
                got = fcntl is None or self._acquire(fd, deadline, raise_on_timeout=wait, progress=progress)
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

    def _acquire(
        self, fd: int, deadline: float, *, raise_on_timeout: bool = True, progress: Callable[[], object] | None = None
    ) -> bool:
        """Poll for the flock until `deadline`. With `progress`, a wait that ends while other
        hooks keep committing the ledger (a queue of parallel calls on a starved CPU, not a hung
        holder) goes on, `lock_timeout` at a time, up to `QUEUE_WAIT_SECONDS` in all."""
        delay = 0.0005
        started = time.monotonic()
        cap = started + max(self.lock_timeout, QUEUE_WAIT_SECONDS)
        seen = progress() if progress is not None else None
        limit = self.lock_timeout  # what the message says was waited for
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
            now = time.monotonic()
            if now >= deadline and progress is not None and now < cap:
                current = progress()
                if current != seen:  # the queue moves: wait on
                    seen = current
                    deadline = min(now + self.lock_timeout, cap)
                    limit = round(deadline - started, 1)
                    continue
            if now >= deadline:
                if not raise_on_timeout:
                    return False
                raise LockTimeout(
                    f"session lock busy for {limit:g} s (another hook process hangs?); letting this call through"
                )
            time.sleep(min(delay, deadline - now))
            delay = min(delay * 2, 0.01)

    # -- ledger ---------------------------------------------------------------------------

    def _read(self, dir_fd: int, name: str, expect: bytes | None = None) -> Loaded | None:
        """The ledger; None when its bytes are `expect` (b"" for no ledger), unparsed."""
        path = name + ".json"
        try:
            data = _read_regular(dir_fd, path)
        except FileNotFoundError:
            return None if expect == b"" else Loaded(None)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                os.unlink(path, dir_fd=dir_fd)
                return Loaded(None, "state file was a symlink; removed it and started the session afresh")
            done = _discard(dir_fd, path, name + ".corrupt") if exc.errno in _NOT_A_FILE else ""
            if done:
                return Loaded(None, f"state file {path} could not be read ({exc.strerror}); {done} and started afresh")
            raise StateError(f"state file {path}: {exc.strerror or exc}") from None
        if expect and data == expect:
            return None
        try:
            state = orjson.loads(data) if data is not None and len(data) <= MAX_STATE_BYTES else None
        except orjson.JSONDecodeError:
            state = None
        fault = _fault(state, name)
        if not fault:
            return Loaded(state)
        done = _discard(dir_fd, path, name + ".corrupt")
        if not done:
            raise StateError(f"state file {path} {fault} and cannot be moved aside")
        return Loaded(None, f"state file {path} {fault}; {done} and started afresh")

    def _damaged(self, dir_fd: int, name: str) -> str:
        """Move a damaged ledger aside (`files._discard`); what was done, for the stderr line."""
        try:
            os.stat(name + ".json", dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return "started afresh"  # a first write: nothing on disk to move
        except OSError:
            pass
        done = _discard(dir_fd, name + ".json", name + ".corrupt")
        return f"{done} and started afresh" if done else "it could not be moved aside"

    def _write(self, dir_fd: int, name: str, state: Session) -> None:
        tmp = name + ".tmp"
        try:
            data = orjson.dumps(state)
        except TypeError as exc:
            # An integer past 64 bits, grown from a damaged ledger's number (1e308, 2**64 - 1): the
            # ledger read back as valid but cannot be kept. It is set aside, so that the next event
            # starts the session afresh instead of failing again. Any other value JSON cannot hold
            # is a bug of ours: raised as it is, logged, and the ledger on disk kept.
            if "64-bit" not in str(exc):
                raise
            raise StateError(f"state file {name}.json held a number too large to save; {self._damaged(dir_fd, name)}") from None
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

    def peek(self, session_id: str) -> tuple[bytes, Session | None] | None:
        """The ledger's bytes (b"" when there is none) and its state, read without the lock,
        so that a decision can be prepared before taking it; None when anything is odd (the
        locked read then deals with it)."""
        dir_fd = self._dir_fd()
        if dir_fd is None:
            return None
        name = session_file_name(session_id)
        try:
            data = _read_regular(dir_fd, name + ".json")
            state = orjson.loads(data) if data is not None and len(data) <= MAX_STATE_BYTES else None
        except FileNotFoundError:
            return b"", None
        except (OSError, orjson.JSONDecodeError):
            return None
        finally:
            os.close(dir_fd)
        return (data, state) if data and not _fault(state, name) else None

    @contextmanager
    def session(self, session_id: str, *, write: bool = True, expect: bytes | None = None) -> Iterator[SessionHandle]:
        """Lock the session, yield its ledger, and write it back if the handle was marked dirty.

        With `write=False` (`--dry-run`) nothing is created or changed on disk. With `expect`
        (bytes from `peek`), a ledger still holding exactly those bytes is not parsed again:
        the handle says `unchanged`, and the caller sets the `state` it prepared.

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
            notes: list[str] = []
            with self._lock(dir_fd, name, notes=notes):
                read = self._read(dir_fd, name, expect)
                handle = SessionHandle(None, unchanged=True) if read is None else SessionHandle(read.state, read.warning)
                if notes:  # a damaged lock and a damaged ledger: still one line
                    handle.warning = "; ".join([*notes, *([handle.warning] if handle.warning else [])])
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
        return Loaded(None if _fault(state, name) else state)

    # -- operator commands ----------------------------------------------------------------

    def remove(self, stem: str, *, recover: bool = False, only_ours: bool = True) -> bool:
        """Delete one session's files, under its lock so that a hook in the middle of an update
        finishes first. True if any of them existed; with `only_ours` (bulk removal: `reset
        --all`), False and nothing touched when they are not a session the guard wrote
        (`files._ours`). `reset --session ID` names its session and clears whatever sits there.

        Raises:
            StateError: a file cannot be deleted, or the lock stayed busy.
        """
        dir_fd = self._dir_fd(strict=True)
        if dir_fd is None:
            return False
        try:
            if only_ours and not self._ours(dir_fd, stem):
                return False  # not a session the guard wrote (a stray `notes.json`): left alone
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

        Only sessions the guard wrote (`files._ours`) are considered, by the listing and the
        deletion alike. A session is as old as the newest of its files. One whose lock is held (a hook is
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
                if now - mtime <= older_than or not self._ours(dir_fd, stem):
                    continue  # recent, or not a session the guard wrote: a listing shows what goes
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

    def read_log(self, filename: str, problems: list[str]) -> list[bytes]:
        """The lines of a log and its rotated predecessor, oldest first. A missing file is an
        empty log; one that cannot be read (a FIFO, a directory: never waited on) is named in
        `problems`."""
        from ..config.load import read_regular_file

        lines: list[bytes] = []
        for path in (os.path.join(self.root, filename + ".1"), os.path.join(self.root, filename)):
            try:
                lines.extend(read_regular_file(path).splitlines())
            except FileNotFoundError:
                continue
            except NotADirectoryError as exc:  # the root itself: said once, not per log file
                problems.append(f"cannot read state directory {self.root}: {exc.strerror or exc}")
                break
            except OSError as exc:
                problems.append(f"cannot read {path}: {exc.strerror or exc}")
        return lines
