"""A planned file change and its report: the value every planner returns and `apply` writes."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..process import printable


class InstallError(Exception):
    """A settings file cannot be changed safely; the message names the file and the reason."""


@dataclass(frozen=True, slots=True)
class Change:
    """One file's planned (or, after `apply`, performed) change.

    Attributes:
        path: the file as the client names it (absolute).
        old_text: its text now; None when it does not exist.
        new_text: its text after the change; None when it stays absent.
        diff: unified diff from old to new ("" when unchanged).
        messages: notes for the user (what was skipped and why, what to do next).
        backup: after `apply`, the copy of the old file (`<file>.bak-loopguard-YYYYmmddHHMMSS`), if any.
        written: after `apply`, whether the file was written (or deleted).
        deletable: the file holds only what install wrote, so `new_text` None deletes it.
        dropped: after `apply(undo=True)`, the backups removed because the file is back to
            the text they held (or was deleted, install having made it).
        own_rows_only: after `apply(undo=True)`, the file differed from its new text only by
            the guard's own rows (a DSH patch layer both bridges share), so no backup was made.
    """

    path: Path
    old_text: str | None
    new_text: str | None
    diff: str
    messages: list[str] = field(default_factory=list)
    backup: Path | None = None
    written: bool = False
    deletable: bool = False
    dropped: tuple[Path, ...] = ()
    own_rows_only: bool = False

    @property
    def changed(self) -> bool:
        """Whether applying this change would write (or, after `apply`, wrote) the file."""
        return self.old_text != self.new_text


def unified_diff(path: Path, old_text: str | None, new_text: str | None) -> str:
    """A unified diff of one file ("" when unchanged); a missing side is `/dev/null`."""
    if old_text == new_text:
        return ""
    old_lines = (old_text or "").splitlines(keepends=True)
    new_lines = (new_text or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old_lines,
        new_lines,
        fromfile=str(path) if old_text is not None else "/dev/null",
        tofile=str(path) if new_text is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def make_change(
    path: Path, old_text: str | None, new_text: str | None, messages: list[str], *, deletable: bool = False
) -> Change:
    """A `Change` with its diff filled in."""
    diff = unified_diff(path, old_text, new_text)
    return Change(path, old_text, new_text, diff, messages, deletable=deletable)


def format_report(
    changes: Sequence[Change], *, dry_run: bool = False, full_diff: bool = False, brief: bool = False
) -> str:
    """Human text for `install` / `uninstall`: each file's diff, what was written, the messages.

    A file that is created (or deleted) gets a one-line summary instead of its whole text as a
    diff (its messages say what it registers), unless `full_diff`; a change to an existing file
    shows its diff, or with `brief` (`uninstall`) how many lines it takes out and puts in.
    `brief` also says each file's messages first (what comes out of it, and why the file goes),
    so that `deleted FILE` and `wrote FILE` end its lines rather than come before the reason.
    """
    out: list[str] = []
    for change in changes:
        if brief:
            out += map(printable, change.messages)
        if change.changed:
            whole = change.old_text is None or change.new_text is None
            if full_diff or not (whole or brief):
                out.append(change.diff.rstrip("\n"))
            elif not whole:
                out.append(_counted(change))
            if change.written:
                out.append(_written_line(change, summary=whole and not full_diff))
            elif dry_run:
                out.append(_dry_run_line(change, summary=whole and not full_diff))
        if not brief:
            out += map(printable, change.messages)  # they name paths too
    return "\n".join(out) + "\n"


def _counted(change: Change) -> str:
    """`path: 80 lines out, 0 in (--diff shows them)` for a diff not shown."""
    lines = change.diff.splitlines()
    gone = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    came = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    return f"{shown(change.path)}: {gone} line{'' if gone == 1 else 's'} out, {came} in (--diff shows them)"


def shown(path: object) -> str:
    """A path as one line (`process.printable`: a line break in a folder's name escaped), so
    `cat PATH` can be read off the line that names it."""
    return printable(str(path))


def _lines(text: str | None) -> str:
    n = len((text or "").splitlines())
    return f"{n} line{'' if n == 1 else 's'}"


def _written_line(change: Change, *, summary: bool) -> str:
    dropped = ", ".join(shown(p) for p in change.dropped)
    if change.new_text is None:
        if change.backup:
            return f"deleted {shown(change.path)} (backup: {shown(change.backup)})"
        return f"deleted {shown(change.path)} (install had made it; no backup kept)" + (
            f"; removed its backup {dropped}" if dropped else "")
    if change.own_rows_only and change.new_text is not None:
        # A patch layer both DSH bridges share: only another block of the guard's is left.
        return f"wrote {shown(change.path)} (it differs from before only by the guard's own rows, so no backup" + (
            f"; removed the backups that held nothing else: {dropped})" if dropped else ")")
    if dropped:
        return f"wrote {shown(change.path)} (back to its text before install; removed install's backup {dropped})"
    if change.backup:
        return f"wrote {shown(change.path)} (backup: {shown(change.backup)})"
    if summary:
        return f"wrote {shown(change.path)} (new file, {_lines(change.new_text)}; see it with: cat {shown(change.path)})"
    return f"wrote {shown(change.path)} (new file)"


def _dry_run_line(change: Change, *, summary: bool) -> str:
    if change.new_text is None:
        return f"dry run: {shown(change.path)} not deleted" + (
            f" ({_lines(change.old_text)}; --diff shows them)" if summary else ""
        )
    if summary:
        return f"dry run: {shown(change.path)} not written (a new file of {_lines(change.new_text)}; --diff shows them)"
    return f"dry run: {shown(change.path)} not written"
