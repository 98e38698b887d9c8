"""Where the state directory really is, and making it: the given directory when it is private
to this user, else a folder of the guard's own inside it (`private_subdir`), never chmod-ed."""

import errno
import os
import stat
from typing import Any

import orjson

from .files import _CLOEXEC, _DIRECTORY, _NOFOLLOW, StateError, _fault, _private, _read_regular, private_subdir, session_file_name


class StateDir:
    """The state directory and its `sessions/` folder, and the ledgers listed there; `Store` adds
    reading, locking and writing them."""

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

        A `sessions/` folder of this user's that its owner cannot write or enter (`chmod 0500`,
        a restore from a read-only copy) has its owner's bits put back: the guard made it, and
        every event would fail on it otherwise. Its other bits are left as they are. A state
        directory made read-only as a whole is left so (the events then fail open).

        Raises:
            StateError: the directory cannot be created or opened, or is a symlink.
        """
        sessions = os.path.join(self.ensure_root(), "sessions")
        try:
            self._mkdir_private(sessions, parents=False)
            st = os.lstat(sessions)
            if (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o700 != 0o700
                    and os.stat(self.root).st_mode & 0o200):
                # the state directory is this user's alone (`ensure_root`): nobody can swap the entry
                os.chmod(sessions, stat.S_IMODE(st.st_mode) | 0o700)
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

    # -- listing ------------------------------------------------------------------------

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
                out.append((entry[:-5], None if _fault(state, entry[:-5]) else state, info.st_mtime))
        finally:
            os.close(dir_fd)
        return out

    def find(self, session_id: str) -> str:
        """The file stem of a session id (or of a stem given directly)."""
        return session_file_name(session_id)
