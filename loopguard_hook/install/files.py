"""Reading and writing the files `install` edits: strict UTF-8 reads, a timestamped backup
before every write, and atomic replacement through a temp file in the same folder."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from .change import Change, InstallError
from .dsh_patch import BLOCK_MARK, without_blocks


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
    base = f"{path.name}{BACKUP_MARK}{now.strftime('%Y%m%d%H%M%S')}"
    candidate = path.with_name(base)
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{base}-{n}")
        n += 1
    shutil.copy2(path, candidate)
    return candidate


def made_by_install(path: Path) -> bool:
    """Whether install made `path`, as far as can be told: it has no backup beside it. Install
    backs up every file it changes that was there before, and `uninstall` removes that backup
    only once the file is back as it was; so a file with no backup was new when install wrote it
    (or its backups were removed by hand)."""
    return not backups_of(path)


#: A backup `apply` makes: `<file>.bak-loopguard-YYYYmmddHHMMSS`, `-N` when that name was taken.
#: The guard's own mark in the name: a `<file>.bak-YYYYmmddHHMMSS` of the user's (or of an
#: earlier release of this program) is never taken for one, so never removed nor restored.
BACKUP_MARK = ".bak-loopguard-"
_BACKUP = re.compile(re.escape(BACKUP_MARK) + r"[0-9]{14}(?:-[0-9]+)?")  # ASCII digits, as `_backup` writes


def apply(
    changes: Sequence[Change], *, now: datetime | None = None, force: bool = False, undo: bool = False
) -> list[Change]:
    """Write every changed file: first a backup `<file>.bak-loopguard-YYYYmmddHHMMSS` (local time; `-1`,
    `-2`… if taken) of an existing file, then the new text through a temp file and `os.replace`;
    the other backups of that file made so are then removed (the one made just now stays).

    With `undo` (`uninstall`): a file whose new text is its latest backup's as the host reads it
    (`_restores`: the file back as it was before install, but for comments, layout or an emptied
    table) gets that backup's own text back, byte for byte, no new backup, and its backups are
    removed; a file deleted while it has no backup (install made it, and it holds only what
    install wrote) gets none either; one planned for deletion that has a backup (it was there
    before install) gets that backup's text back. A file whose old text is its new one plus blocks
    of the guard's (`dsh_patch.BLOCK_MARK`: the DSH patch layer both bridges share) gets no backup,
    and its backups that hold nothing else are removed. So a clean install-uninstall round trip
    leaves the files as they were and no backup behind; any other uninstall write keeps its new
    backup and the earlier ones.

    A symlinked settings file is written through to its target, but no folder is made for a
    dangling link's target. Unchanged files are not touched (no write, no backup). A `deletable`
    change to None deletes the file, after its backup.

    Every file is checked before any is written: one that changed since it was planned, or one
    that is read-only (its owner may not write it) unless `force`, stops the whole apply.

    Returns:
        The changes with `backup` and `written` filled in.

    Raises:
        InstallError: a file changed since it was planned, is read-only (without `force`), or
            is a symlink whose target's folder does not exist; a file cannot be written (OSError).
    """
    now = now or datetime.now()
    for change in changes:
        if not change.changed:
            continue
        if read_text(change.path) != change.old_text:
            raise InstallError(
                f"{change.path} changed since it was read; nothing was written, "
                "run the command again"
            )
        if change.new_text is None and not change.deletable:
            raise InstallError(f"{change.path}: refusing to delete a settings file")
        _check_writable(change.path, force=force)
    return [_write_one(change, now, undo=undo) if change.changed else change for change in changes]


def _write_one(change: Change, now: datetime, *, undo: bool) -> Change:
    """`apply` for one changed file, checked already: backup, write (or delete), tidy backups."""
    target = Path(os.path.realpath(change.path))
    earlier = backups_of(target)
    before = _text_of(earlier[-1]) if undo and earlier else None
    new_text = change.new_text
    # read as the host reads it: by the name it knows (a link's, `settings.json -> dotfiles/cs`)
    if before is not None and _restores(change.path, before, new_text):
        new_text = before  # the file as it was before install, byte for byte (comments, layout)
    restored = before is not None and new_text == before
    install_made_it = undo and new_text is None and not earlier
    # A file the guard's blocks share (a DSH patch layer both bridges mount from): a text that
    # is the new one plus blocks of the guard's holds nothing of the user's that is not kept.
    own_only = undo and change.old_text is not None and _only_blocks_more(change.old_text, new_text)
    try:
        backup = (
            _backup(target, now)
            if change.old_text is not None and not (restored or install_made_it or own_only) else None
        )
        if new_text is None:
            change.path.unlink()  # a link is removed, not what it points to
        else:
            write_atomic(target, new_text)
    except OSError as exc:
        raise InstallError(f"{change.path}: cannot write it ({exc.strerror or exc})") from None
    dropped: tuple[Path, ...] = ()
    if backup is not None and not undo:
        # install: one backup a file, the one just made. uninstall that could not give the file
        # back as it was keeps the earlier ones too (the oldest holds the text before install).
        _drop_older_backups(target, keep=backup)
    elif restored:
        dropped = tuple(_drop_older_backups(target, keep=None))
    elif own_only:
        dropped = tuple(_drop_older_backups(target, keep=None, only=lambda text: _only_blocks_more(text, new_text)))
    return replace(change, new_text=new_text, backup=backup, written=True, dropped=dropped, own_rows_only=own_only)


def _only_blocks_more(text: str | None, new_text: str | None) -> bool:
    """Whether `text` holds blocks of the guard's (`dsh_patch.BLOCK_MARK`) and, those set aside,
    the same lines as `new_text` (None: no file) with its own blocks set aside."""
    if text is None or BLOCK_MARK not in text:
        return False

    def lines(t: str | None) -> list[str]:
        return [line.rstrip() for line in (without_blocks(t) or "").splitlines() if line.strip()]

    return lines(text) == lines(new_text)


def _restores(path: Path, before: str, new_text: str | None) -> bool:
    """Whether `uninstall`'s `new_text` for `path` (None: delete it) is the text of its latest
    backup `before` as its host reads it: the same value once comments (JSON with comments),
    layout and emptied tables (`"hooks": {}`) are set aside; for a deletion (only install's
    skeleton was left), a backup that holds no hook of ours (the file was there before install).
    Then the backup's own text is written back. False for a file of another kind."""
    if "loopguard-hook" in before or "loopguard_hook" in before:
        return False  # not the text before install (a backup of an earlier installed state)
    if new_text is None:
        return True
    old, new = _value(path, before), _value(path, new_text)
    return old is not None and new is not None and _pruned(old) == _pruned(new)


def _value(path: Path, text: str) -> object | None:
    """A settings file's value as its host reads it (JSON with comments, or TOML), None if not."""
    try:
        if path.suffix == ".json":
            import json

            from .jsonc import without_comments

            value: object = json.loads(without_comments(text))
            return value
        if path.suffix == ".toml":
            import tomllib

            return tomllib.loads(text)
    except ValueError:
        return None
    return None


def _pruned(value: object) -> object:
    """`value` with empty objects and arrays left out of objects, at any depth."""
    if isinstance(value, dict):
        items = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in items.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _text_of(backup: Path) -> str | None:
    """A backup's text, None when it cannot be read as such."""
    try:
        return read_text(backup)
    except InstallError:
        return None


def _check_writable(path: Path, *, force: bool) -> None:
    """Refuse, before anything is written, a read-only file (unless `force`) and a symlink whose
    target's folder is missing (never made).

    Raises:
        InstallError: one line saying which and what to do.
    """
    if path.is_symlink() and not Path(os.path.realpath(path)).parent.is_dir():
        raise InstallError(
            f"{path} is a symlink to {os.path.realpath(path)}, whose folder does not exist; nothing was "
            "changed (no folder is made for a dangling link's target)"
        )
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # a new file
    if not mode & 0o200 and not force:
        raise InstallError(
            f"{path} is read-only (mode {mode & 0o777:04o}); nothing was changed: make it writable, or run "
            "again with --force to replace it (its mode is kept)"
        )


def backups_of(path: Path) -> list[Path]:
    """The backups `apply` made of `path` (`<name>.bak-loopguard-YYYYmmddHHMMSS[-N]`), by name:
    never a backup of another name (a user's own `<name>.bak-YYYYmmddHHMMSS`)."""
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    prefix = path.name
    return sorted(p for p in entries if p.name.startswith(prefix) and _BACKUP.fullmatch(p.name[len(prefix):]))


def _drop_older_backups(path: Path, *, keep: Path | None, only: Callable[[str | None], bool] | None = None) -> list[Path]:
    """Remove every backup of `path` but `keep`, the one just made (which holds the file as it
    was before this write): each write leaves one backup, not one per run; with `only`, just the
    backups whose text it accepts. Only regular files of the backup name are removed; a failure
    is not an error. Returns those removed."""
    removed = []
    for old in backups_of(path):
        if old == keep or (only is not None and not only(_text_of(old))):
            continue
        try:
            if old.is_file() and not old.is_symlink():
                old.unlink()
                removed.append(old)
        except OSError:
            pass
    return removed
