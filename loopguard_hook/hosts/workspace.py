"""What the workspace shows of the files a call names to change: one digest of their states,
taken at the call's PreToolUse and again at its result (`HookEvent.workspace`), and the same
file by file (`HookEvent.workspace_files`, for the agent's map of edited files). The same
digest before and after means the call changed none of them: a "fix" that fixed nothing, an
edit script whose pattern matched nothing (`core/progress.record_result` then counts it as no
progress).

A file's state is its content's CRC-32 and length when it is at most `CONTENT_BYTES` long (a rewrite with
the same bytes is no change), else its size and modification time; a name that is no file is
"absent", and anything but a regular file is its kind. A pattern the shell expands (`calc*.py`)
names every file it matches, sorted, one state for them all (`_expanded`). Only regular files are opened, read-only
and non-blocking (a FIFO named in a command must not hang the hook), without moving their
access time where the kernel allows it (`O_NOATIME`), and at most
`BUDGET_BYTES` are read per event. Paths are taken relative to the payload's `cwd`, or to the
folder a shell line first moves to (`cd /srv/app &&`, `cd web &&`: `_folder`); a relative path with no
`cwd` is left out. Nothing is written, created or kept: the digest alone goes into
the ledger.

Cost (bench/run.py, `workspace` cases): one `stat` per named path, plus reading and hashing the
small files, at most `MAX_CHANGE_PATHS` paths and `BUDGET_BYTES` bytes; a pattern adds one
directory listing and a `stat` per match, at most `GLOB_MATCHES`.
"""

import os
import re
import stat
from itertools import islice
from typing import NamedTuple

from ..config.settings import Config
from ..core.event import Client, HookEvent
from ..core.patch import PATCH_CHARS, recorded_shell_patch, unseen_through_shell, updated_path
from ..core.patch import misfit as patch_misfit
from ..core.shellwords import SHELL_KEYS
from ..core.signature import blake2b
from ..core.tools import (
    GLOB_WORD_CHARS,
    PATCH_MARK,
    WORKSPACE_BY_TIME,
    bare_line,
    change_paths,
    command_text,
    output_paths,
    patch_text,
    run_paths,
)

#: Files at most this long are judged by their content, longer ones by size and mtime (bytes).
CONTENT_BYTES = 256 << 10
#: The most bytes read for one event (bytes); past it, files are judged by size and mtime.
BUDGET_BYTES = 1 << 20
#: The most files the patterns of one call may match (`_expanded`): past it, they say nothing.
GLOB_MATCHES = 256
#: The events that carry a call whose files may be looked at.
EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})


class Snapshot(NamedTuple):
    """What the workspace shows of the files a call names to change (`snapshot_files`)."""

    #: `snapshot`'s digest of them all, or None.
    digest: str | None
    #: The same files one by one (`HookEvent.workspace_files`).
    files: tuple[str, ...]
    #: A digest of the files the line's edits name, judged by their content: every named file
    #: but those a program's output is sent into (`tools.output_paths`: `pytest | tee
    #: test.log`) and those only its test runs name (`tools.run_paths`: a report), unless an
    #: edit names the same file, however spelt; None when any of them is judged by size and
    #: mtime, or none is a file (`HookEvent.workspace_edits`).
    edits: str | None


def snapshot(event: HookEvent, config: Config) -> str | None:
    """The digest (32 hex characters, after `tools.WORKSPACE_BY_TIME` when some file was judged by size and
    mtime) of the states of the files `event`'s call names to change (`tools.change_paths`);
    None when it names none, or for another event. Never raises: a path
    that cannot be looked at is stated as the error's number."""
    return snapshot_files(event, config).digest


def snapshot_files(event: HookEvent, config: Config) -> Snapshot:
    """`snapshot`'s digest, the same files one by one (`HookEvent.workspace_files`:
    `"PPPPPPPP:SSSSSSSS"`, 8 hex digits of a digest of the path and 8 of its state), and the
    digest of the files the line's edits name (`Snapshot.edits`, 32 hex characters); `(None, (),
    None)` when `snapshot` is None. Never raises."""
    if event.event not in EVENTS or not event.tool_name:
        return _NOTHING
    tool, event = event.tool_name, _pwd_spelt_out(event)
    paths = change_paths(tool, event.tool_input, config)
    if not paths:
        return _NOTHING
    folder = _folder(event)
    if folder is _NOWHERE:
        return _NOTHING
    # The files a program's output goes into, and the files only its test runs and builds name
    # (a report), change whatever the line's edits did; a file the edits also name, spelt
    # otherwise (`sed -i … /repo/tests/t.py && pytest tests/t.py`), stays theirs.
    others = output_paths(tool, event.tool_input) + run_paths(tool, event.tool_input, paths)
    kept = {os.path.normpath(full) for path in paths if path not in others and (full := _resolve(path, folder))}
    outputs = {os.path.normpath(full) for path in others if (full := _resolve(path, folder))} - kept
    h, edits = blake2b(digest_size=16), blake2b(digest_size=16)
    budget = [BUDGET_BYTES]
    found = by_time = edited = edits_by_time = False
    files: list[str] = []
    for named, fulls in _expanded(paths, folder):
        states = blake2b(digest_size=4)  # a pattern's matches make one state
        edit = not outputs or os.path.normpath(named) not in outputs
        for full in fulls:
            state = _state(full, budget)
            is_file = state.startswith((b"content", b"size"))
            found = found or is_file
            by_time = by_time or state.startswith(b"size")
            name = full.encode("utf-8", "surrogatepass")
            h.update(name + b"\0" + state + b"\n")
            states.update(name + b"\0" + state + b"\n")
            if edit:
                edited = edited or is_file
                edits_by_time = edits_by_time or state.startswith(b"size")
                edits.update(name + b"\0" + state + b"\n")
        files.append(blake2b(named.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest() + ":" + states.hexdigest())
    # Names none of which is a file here (a path relative to a folder the command moves to, a
    # file it creates) say nothing either way. A `~` marks a state judged in part by size and
    # mtime: a rewrite of the same bytes (`sed -i` whose pattern matched nothing) moves it.
    if not found:
        return _NOTHING
    digest = (WORKSPACE_BY_TIME if by_time else "") + h.hexdigest()
    return Snapshot(digest, tuple(files), edits.hexdigest() if edited and not edits_by_time else None)


#: `snapshot_files`' answer for a call whose files were not looked at.
_NOTHING = Snapshot(None, (), None)


#: The cwd spelt through the shell before a `/` (`_pwd_spelt_out`).
_PWD = r"\"\$(?:PWD|\{PWD\}|\(pwd\))\"(?=/)|\$(?:PWD\b|\{PWD\}|\(pwd\))(?=/)"


def _pwd_spelt_out(event: HookEvent) -> HookEvent:
    """`event` with `$PWD/`, `${PWD}/`, `"$PWD"/`, `$(pwd)/` and `"$(pwd)"/` in its shell line spelt
    `./`, its `cwd` (`sed -i … "$PWD/calc.py"` names `calc.py` there), for a line that moves
    nowhere (a `cd` changes what `$PWD` is); as it is otherwise. Not spelt as the `cwd` itself,
    whose spaces (`~/My Project`) would split the path into words."""
    tool_input, cwd = event.tool_input, event.cwd
    if not isinstance(tool_input, dict) or not cwd or not os.path.isabs(cwd):
        return event
    for key in SHELL_KEYS:
        command = tool_input.get(key)
        if isinstance(command, str) and ("PWD" in command or "$(pwd)" in command) and not _elsewhere(command):
            spelt = re.sub(_PWD, ".", command)
            return event._replace(tool_input={**tool_input, key: spelt})
    return event


def _command(event: HookEvent) -> str:
    """The command line a call runs (`tools.command_text`: its first 4,096 characters), or ""."""
    return command_text(event.tool_name or "", event.tool_input) or ""


def _elsewhere(command: str) -> bool:
    """Whether a command line runs in another folder (`cd`, `pushd`, `git -C`, `make -C`,
    `--prefix`, `--cwd`): its relative paths are not the payload's `cwd`'s. Only what comes
    before a patch's `*** Begin Patch` is a command: the patch's own lines are the file's text
    (a Makefile's `cd src && make`), and apply_patch's own input runs in the `cwd`. Quoted text
    and here-documents are what a program is given (`sed -i 's|cd build|cd out|' build.sh`), but
    in a line that hands a script to a shell (`bash -c '…'`, `eval`, `ssh`), where they run
    too; `-C` moves only git (before its subcommand: `git grep -C 1` prints context), make,
    ninja and tar (`grep -C 3` prints context)."""
    mark = command.find(PATCH_MARK)
    command = command[:mark] if mark >= 0 else command
    if not re.search(_SHELL_GIVEN_SCRIPT, command):
        command = bare_line(command)
    return bool(re.search(_MOVES, command))


#: A line whose quoted text a shell runs (`_elsewhere`).
_SHELL_GIVEN_SCRIPT = r"\b(?:(?:ba|z|da|k)?sh\s+(?:-\w+\s+)*-\w*c|eval|ssh|su|sudo\s+-s|exec)\b"
#: A word that moves a line to another folder (`_elsewhere`).
_MOVES = (
    r"""(?:^|[\s;&|('"])(?:cd|pushd)\s|\bgit\s+(?:(?:-c\s+\S+|--?[\w-]+(?:=\S+)?)\s+)*-C\s|\b(?:g?make|ninja|tar)\s(?:[^;&|\n]*\s)?-C\s"""
    r"|--prefix\b|--cwd\b|--dir(?:ectory)?\b"
)


#: `_folder`'s answer for a line whose relative paths belong to a folder not known.
_NOWHERE = "\0"
#: A line that first moves to one folder given whole (`cd /srv/app && sed -i … a.py`, `cd ~/app;
#: …`) or below the `cwd` (`cd web && …`), a plain word (no quote, variable or substitution).
_LEADING_CD = r"\s*cd\s+((?:/|~/)[\w.~/+@%,:-]*|(?!-)[\w.+@%,:-][\w.~/+@%,:-]*)\s*(?:&&|;)"


def _folder(event: HookEvent) -> str | None:
    """The folder a call's relative paths are taken from: the payload's `cwd`, or for a shell
    line that first moves to one folder and nowhere else (`_LEADING_CD`, then no `_elsewhere`
    word), that folder; `_NOWHERE` for a line that moves otherwise (`cd $APP`, `cd ../api`,
    `pushd`, `git -C`, two `cd`s). A folder given whole is the same at the call and at its result.
    One below the `cwd` (`cd web && sed -i … src/App.tsx`) is taken from the `cwd` at the call; at
    the result, Claude Code gives the folder the `cd` led to as the `cwd` (research/claude-code-hooks.md:
    `cwd` follows `cd`) and Codex the folder the line started in, so a `cwd` that already ends
    with that folder is taken as it is (a folder nested in one of its own name, `src/src`, is then
    misread at one side: the digests differ, and the call counts as a change, never as a no-op)."""
    command = _command(event)
    if not _elsewhere(command):
        return event.cwd
    moved = re.match(_LEADING_CD, command)
    if moved is None or PATCH_MARK in command or _elsewhere(command[moved.end() :]):
        return _NOWHERE
    folder = moved.group(1)
    if folder.startswith(("/", "~")):
        return os.path.normpath(os.path.expanduser(folder))
    below, cwd = os.path.normpath(folder), event.cwd
    if not cwd or not os.path.isabs(cwd) or below == ".." or below.startswith("../"):
        return _NOWHERE
    cwd = os.path.normpath(cwd)
    if event.event != "PreToolUse" and cwd.endswith(os.sep + below):
        return cwd
    return os.path.normpath(os.path.join(cwd, below))


def _expanded(paths: tuple[str, ...], folder: str | None) -> list[tuple[str, list[str]]]:
    """The full paths `paths` name from `folder` (`_resolve`), each as `(name, [full path])`, and
    a pattern the shell expands in its last part (`calc*.py`: `tools.GLOB_WORD_CHARS`) as
    `(pattern, [every file it matches there, sorted])`: one directory listing, the folder taken
    literally (a `[` in its name is no pattern), left out when its folder holds a pattern
    (`src/*/a.go`, `.*/config`: a walk), lies under /proc, /sys or /dev, or matches more than
    `GLOB_MATCHES` names in all (a subset would differ between the call and its result). None of
    a relative path with no folder. Never raises."""
    found: list[tuple[str, list[str]]] = []
    matched = 0
    for path in paths:
        full = _resolve(path, folder)
        if full is None:
            continue
        if not any(c in path for c in GLOB_WORD_CHARS):
            found.append((full, [full]))
            continue
        where, pattern = os.path.split(full)
        if any(c in where for c in GLOB_WORD_CHARS) or where.startswith(("/proc", "/sys", "/dev")):
            continue
        import glob  # only for a pattern: most calls name plain paths

        try:
            names = list(islice(glob.iglob(glob.escape(where) + os.sep + pattern), GLOB_MATCHES - matched + 1))
        except (OSError, ValueError, RecursionError):
            continue
        matched += len(names)
        if matched > GLOB_MATCHES:
            break
        found.append((full, sorted(names)))
    return found


def _resolve(path: str, cwd: str | None) -> str | None:
    path = os.path.expanduser(path) if path.startswith("~") else path
    if os.path.isabs(path):
        return path
    return os.path.join(cwd, path) if cwd and os.path.isabs(cwd) else None


def _state(path: str, budget: list[int]) -> bytes:
    """One file's state (see the module's docstring); `budget` is the bytes still to be read."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return b"absent"
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        return b"error %d" % getattr(exc, "errno", 0)
    if not stat.S_ISREG(st.st_mode):
        return b"kind %o" % stat.S_IFMT(st.st_mode)
    if st.st_size > CONTENT_BYTES or st.st_size > budget[0]:
        return b"size %d mtime %d" % (st.st_size, st.st_mtime_ns)
    try:
        data = _read(path, min(CONTENT_BYTES, budget[0]))
    except OSError as exc:
        return b"size %d mtime %d error %d" % (st.st_size, st.st_mtime_ns, exc.errno or 0)
    if data is None:  # swapped for something else since the stat
        return b"kind changed"
    import zlib  # CRC-32 runs at memory speed; imported only when a file is read

    budget[0] -= len(data)
    return b"content %d %08x" % (len(data), zlib.crc32(data))


def _read(path: str, limit: int) -> bytes | None:
    """At most `limit` + 1 bytes of a regular file, opened read-only and non-blocking, without
    moving its access time where the kernel allows it; None when it is no regular file.

    Raises:
        OSError: it cannot be opened or read.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:  # not even the access time moves (allowed on the user's own files only)
        fd = os.open(path, flags | getattr(os, "O_NOATIME", 0))
    except PermissionError:
        fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit + 1)
    finally:
        os.close(fd)


def _recorded(event: HookEvent) -> tuple[str, str] | None:
    """`(patch, folder)` of a patch sent through Codex's shell, from the call's record in the
    rollout (`core.patch.recorded_shell_patch`): the folder is its `workdir` when absolute, else
    that `workdir` (or none) under the turn's cwd from the rollout's `turn_context`. Not the
    payload's `cwd`: Codex 0.171.0 sent there the call's folder, `workdir` already applied, in
    probes of the real client (2026-12-03; no test pins it), where research/codex-hooks.md row 11
    reports the turn's; so a relative `workdir` with no `turn_context` in sight is not judged.
    None when not known."""
    from .rollout import call_record  # only for such a patch: most events need no rollout

    found = call_record(event.transcript_path, event.tool_use_id)
    recorded = recorded_shell_patch(found[0]) if found is not None else None
    if found is None or recorded is None:
        return None
    (patch, workdir), turn = recorded, found[1]
    if workdir is not None and workdir.startswith("~"):
        return None  # Codex joins `~/x` to the cwd as it is
    if workdir is not None and os.path.isabs(workdir):
        return patch, workdir
    base = turn if turn is not None else event.cwd if workdir is None else None
    if base is None or not os.path.isabs(base):
        return None
    return patch, os.path.join(base, workdir) if workdir is not None else base


def misfit(event: HookEvent, config: Config) -> str | None:
    """At Codex's PreToolUse of a patch in apply_patch's format that updates one file (its
    apply_patch tool, or `apply_patch` through its shell, which Codex runs itself): the line
    `core.patch.misfit` quotes when apply_patch would refuse the patch for a hunk the file, as it
    is now, does not hold where apply_patch looks; None when it would find every hunk, for any
    other call or host, or when the file cannot be judged: not found, no regular file, longer
    than `CONTENT_BYTES`, not UTF-8 (apply_patch cannot read it either), a relative path with no
    `cwd`, a shell command that runs elsewhere. A patch sent through the shell that the payload
    alone cannot judge (`core.patch.unseen_through_shell`: its `workdir` is not in the payload)
    is judged as the call's record in the rollout at `transcript_path` has it, patch and folder
    (`_recorded`), and not at all without one. Never raises.

    Cost (`bench/workspace.py --patch`): only a patch's PreToolUse reads its file here, at most
    `CONTENT_BYTES` (a second read of it after `snapshot`'s, from the page cache), and compares
    its lines with the hunks': a pass over them per hunk and way of comparing that it needs, most
    patches needing the first (lines as they are) only."""
    if event.event != "PreToolUse" or not event.tool_name or event.client is not Client.CODEX:
        return None  # another host's apply_patch, if any, may read a patch otherwise
    text = patch_text(event.tool_name, event.tool_input, PATCH_CHARS)
    path = updated_path(text) if text is not None else None
    if text is None or path is None or _elsewhere(_command(event)):
        return None
    where = event.cwd
    if unseen_through_shell(text):
        found = _recorded(event)
        if found is None:
            return None  # a patch that applies in its workdir would be counted, then denied
        text, where = found
        path = updated_path(text)
        if path is None:
            return None
    # apply_patch reads `~` as a folder's name, not as home: ./~/f
    full = _resolve(path, where) if not path.startswith("~") else _resolve(os.path.join(".", path), where)
    if full is None:
        return None
    try:
        st = os.stat(full)  # before any open: opening a FIFO or a device is not harmless
        if not stat.S_ISREG(st.st_mode) or st.st_size > CONTENT_BYTES:
            return None
        data = _read(full, CONTENT_BYTES)
        content = data.decode("utf-8") if data is not None and len(data) <= CONTENT_BYTES else None
    except (OSError, ValueError):  # ValueError: a NUL in the path; UnicodeDecodeError
        return None
    return patch_misfit(text, content) if content is not None else None
