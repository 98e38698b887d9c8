"""Reading and writing the files `install` edits: strict UTF-8 reads, a timestamped backup
before every write, and atomic replacement through a temp file in the same folder."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from .change import Change, InstallError


def read_text(path: Path) -> str | None:
    """The file's text, None when it does not exist.

    Raises:
        InstallError: a directory, unreadable, or not UTF-8.
    """
    from ..config.load import read_regular_file

    try:
        data = read_regular_file(str(path))
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InstallError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        if path.is_dir():
            raise InstallError(f"{path}: is a directory, not a file") from None
        raise InstallError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(
            f"{path}: not UTF-8 text (byte {exc.start}); nothing was changed"
        ) from None


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temp file in the same folder and `os.replace`, keeping
    the old file's permission bits (new files: 0666 less the umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _backup(path: Path, now: datetime) -> Path:
    base = f"{path.name}.bak-{now.strftime('%Y%m%d%H%M%S')}"
    candidate = path.with_name(base)
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{base}-{n}")
        n += 1
    shutil.copy2(path, candidate)
    return candidate


def apply(changes: Sequence[Change], *, now: datetime | None = None) -> list[Change]:
    """Write every changed file: first a backup `<file>.bak-YYYYmmddHHMMSS` (local time; `-1`,
    `-2`… if taken) of an existing file, then the new text through a temp file and `os.replace`.
    A symlinked settings file is written through to its target. Unchanged files are not touched
    (no write, no backup). A `deletable` change to None deletes the file, after its backup.

    Every file is checked before any is written: one that changed since it was planned stops
    the whole apply.

    Returns:
        The changes with `backup` and `written` filled in.

    Raises:
        InstallError: a file changed since it was planned; a file cannot be written (OSError).
    """
    now = now or datetime.now()
    for change in changes:
        if change.changed and read_text(change.path) != change.old_text:
            raise InstallError(
                f"{change.path} changed since it was read; nothing was written, "
                "run the command again"
            )
        if change.changed and change.new_text is None and not change.deletable:
            raise InstallError(f"{change.path}: refusing to delete a settings file")
    done = []
    for change in changes:
        if not change.changed:
            done.append(change)
            continue
        target = Path(os.path.realpath(change.path))
        try:
            backup = _backup(target, now) if change.old_text is not None else None
            if change.new_text is None:
                change.path.unlink()  # a link is removed, not what it points to
            else:
                write_atomic(target, change.new_text)
        except OSError as exc:
            raise InstallError(f"{change.path}: cannot write it ({exc.strerror or exc})") from None
        done.append(replace(change, backup=backup, written=True))
    return done
