"""One file, patches that keep failing (`reread_after_failed_edits`).

A patch of one file that fails to apply, retried with the hunk changed a little each time, is a
new call each time, so neither the repeat rule nor the same-error wall's identical-retry denial
meets it. What the retries share is the target: one file, with no change of it applied since.

This rule counts the failed attempts to change a file (an edit tool, a patch's `*** Update
File`, also sent through the shell, and a shell command or script that names the file and
writes) since the file last changed, whatever their errors say (one target, changing errors),
and escalates with a precondition the model can meet: after `reread_after_failed_edits`
failures (4) with no read of the file since the first of them, a patch of the file is denied
until the file has been read (a read tool on it, or a shell command that names it and writes
nothing): its text is not what the patches expect. So is a shell command or script that names
the file and writes (`sed -i`, `perl -pi`, a Python rewrite): a wall that goes on with scripts
after the patches (one target, changing errors: issue class 5) is the same wall. A read, a
change of the file that applies (a patch or a shell edit, not one that changed nothing; a write
tool's call or a here-document into it, even of the text the file held: the file is then what
the model sent), a subagent call's result for the files that failed while it ran (where the
host sends no `agent_id`, the subagent's failures were counted as the main agent's), a user
prompt or a compaction lifts it (three failures, then a smaller patch that applies without a
read, is ordinary on real sessions). Writing the file whole is never denied, it is a way out: a
write tool, a patch's `*** Add File`, or a command whose `>` or `tee` has the file as its target.
A wall the model read the file during is left to the reminders: on real sessions a patch made
after reading, even several failures later, or a smaller one, often applies.

Not counted: a whole-file write that fails (the host says why: the file exists, or was not
read), and an attempt whose own text did not parse (`_UNPARSED`: a script's SyntaxError, the
shell's syntax error, a patch `git apply` cannot read), which never reached the file: a read
would not mend it; nor a failed shell line that runs more than edits and reads (`sed -i … a.py &&
pytest`: its failure may be the test's) whose edits the workspace saw apply (it applied, as one
that succeeds: the files its edits name changed by their content, a log the line sends a
program's output into or a report its test run writes set aside, `| tee test.log`), or that no
workspace was looked at for (a replay; but one that sends a program's output into a file
counts there). One the workspace saw leave the file unchanged counts, and so does one it cannot
tell of (a file judged by its mtime). A diff of one file applied on a line of edits alone (`git
apply <<'EOF'`) is a patch of that file; one that failed but changed it (GNU patch's exit 1 for
the hunks that did not fit) is a change.
A call the host rejected before it ran counts as an attempt (Claude Code validates an Edit
before its PreToolUse: a wall of rejected Edits that goes on with scripts is one wall),
but an edit tool of such a host is then never denied: an Edit that reaches PreToolUse passed
the host's check and applies (the same-error wall ends a turn of rejections).

A shell command is an attempt on a tracked file only when it names it as a word (not
`test_app.py` for `app.py`, not `lib/app.py` for `src/app.py`) and writes it: an in-place
editor or a Python write, or a redirect or `tee` into it. One that reads it into another file
(`grep … app.py > /tmp/hits`, `cp app.py /tmp/app.py.bak`), or redirects only a descriptor or
a device (`2>&1`, `2>/dev/null`), is a read. A `cp` or `mv` onto it, or a `git checkout` or
`git restore` of it, writes it whole.

A patch (apply_patch's `*** Update File` of one file, not an edit tool) sent again as it is
after it failed `RESENT_AFTER` (2) times in a row on a file that has not changed since, each
time as a patch that does not fit the file (`_MISMATCH`), is denied too, read or not (a read
does not change the file): apply_patch would fail the same way. A change that applies, a call
that may change files without naming them (a shell command other than reads, another agent's
run: `_may_change_unseen`) or a prompt lifts it. An edit tool's
identical retry is left to the other rules: Claude Code's Edit has failed and then applied as it
was after a Read (anthropics/claude-code#60894, 2.1.139).

On Codex, the host layer looks at the file at a patch's PreToolUse and says whether apply_patch
would find its hunks (`HookEvent.misfit`, `core/patch.py`). After `MISFIT_AFTER` (2) patches of
the file that did not fit it since it last changed, a patch that does not fit either is denied,
read or not, naming the hunk's first line the file lacks. A patch found not to fit that goes
ahead is counted as failed at its PreToolUse: Codex 0.171.0 sends no PostToolUse for it. A call
that may change files without naming them ends the count, as it ends the resend count.

On Claude Code under Windows, an edit whose path names a drive with forward slashes (`C:/x/y.js`)
after `STALE_AFTER` (2) edits of the file spelled so refused `File has been unexpectedly modified`
is denied, read or not: Claude Code does not match that spelling to the read of it, so every round
fails so; the denial says to write the path with backslashes, and an edit that does goes ahead.
The second refusal, when the file was read after the first (the host's own advice, which cannot
help), is reminded with that way out. A call that may change files without naming them (a
formatter) leaves these refusals counted: no change of the file mends the path's spelling. But a
refusal after such a call since the file's last read is not counted: that change explains it.

Its slot is `Agent.rules["target"]`: `{file: [failed attempts, read since the first of them,
the last failure's time, its error, whether the host rejected some before they ran, what the
last failed patch looked for, the last failed patch's signature and its failures in a row, the
patches that did not fit, the edits refused as changed since their read, whether a call that
may change files ran since its last read, the failures counted where each file was]}`, the file
by its last two path components (`tools.target_of`), at most `MAX_FILES` files.

Two files may share that key (`packages/api/src/index.ts`, `packages/web/src/index.ts`): six
failing edits alternating between them were one wall, the 5th and 6th denied. So each failure
is also counted where its file is (`_place`: an edit or patch tool's path in the session's
folder, or the path a patch sent through the shell, a diff or a shell command names, as
spelled), and a patch or a command is denied only for the failures at a place that may be its
own and those of no known place (`_own`): the other file's are not its. Everything else is the
key's, as before: a read or a change of any file of the key lifts the walls of all of them.
"""

import re
from typing import Any, cast

from ..config.settings import Config
from ..core import patch as patch_format
from ..core.ledger import MAX_ID_CHARS, Agent, Limits, drop_slot, slot, slots, trim
from ..core.outcome import PATCH_REJECTED, Failure, preview
from ..core.patch import ADD, PATCH_CHARS, UPDATE, missing_lines, unseen_through_shell, updated_path
from ..core.redact import redact_prefix
from ..core.shellwords import MAX_SHELL_CHARS, SHELL_TOOLS, only_reads, shell_command
from ..core.signature import digest
from ..core.tools import (
    AGENT_TOOLS,
    SHELL_WRITES,
    WORKSPACE_BY_TIME,
    diff_paths,
    edits_only,
    matches,
    named_path,
    output_paths,
    patch_text,
    place_of,
    short_path,
    target_of,
)
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "target"
MAX_FILES = 8
QUOTE_CHARS = 160
#: Tools that change part of a file (Claude Code, DSH, Cursor, Gemini CLI, Copilot names).
PATCH_TOOLS = frozenset({"Edit", "MultiEdit", "edit", "StrReplace", "replace", "str_replace", "NotebookEdit"})
#: Tools that write a file whole.
WRITE_TOOLS = frozenset({"Write", "write", "Create", "create", "write_file"})
#: `[failed patches, read since the first of them, the last one's time, its error (quoted,
#: redacted), some were rejected by the host before they ran, what the last failed patch looked
#: for and did not find (`looked_for`; "" when unknown or read since), the last failed patch's
#: signature and how many times in a row it failed as it is (`sig:n`), the patches of it that did
#: not fit it (`_misfits`), the edits of it refused as changed since their read (`_stale`), 1 when
#: a call that may change files ran since its last read (`_changed_since_read`), the failures by
#: where their file was (`_places`)]`.
Entry = list[float | bool | str]


def _files(agent: Agent) -> dict[str, Entry]:
    return cast("dict[str, Entry]", slot(agent, NAME) or {})


#: Shell writes that change, in place, a file the command names (an editor, a Python write).
_IN_PLACE = (
    r"\bsed\s+(?:-[^\s]*\s+)*-i|\bperl\s+(?:-\w+\s+)*-\w*i|\bsponge\b|write_text\s*\(|\.write\s*\("
    r"|open\s*\([^)]*['\"][wa]\+?['\"]|\btruncate\b|\bdd\b[^|]*\bof="
)
#: What may stand right before a file's name in a command (a word's start, a quote, `=`, `(`...).
_BEFORE = r"(?:\A|(?<=[\s'\"=(,:<>|;&]))"


def _named(command: str, files: dict[str, Entry]) -> str | None:
    """The tracked file a shell command names, if any: its file name as a whole word (not
    `test_utils.py` for `utils.py`), in no other folder (not `lib/utils.py` for `src/utils.py`;
    a bare name, or a tracked name without a folder, may be it)."""
    for name in files:
        if _naming(command, name, first=True):
            return name
    return None


def _naming(command: str, name: str, *, first: bool = False) -> list[str]:
    """The paths in a shell command that name the tracked file `name` (its file name as a whole
    word, in no other folder: `_named`), each as the pattern finds it: cut at a `:`, `=`, `(`,
    `,` or a space, a glob or an expansion kept; `first`: only the first."""
    folder, _, base = name.replace("\\", "/").rpartition("/")
    pattern = rf"{_BEFORE}((?:[^\s'\"=(,:<>|;&]*[/\\])?){re.escape(base)}(?=$|[\s'\");|&,:>)])"
    words = []
    for found in re.finditer(pattern, command):
        named = found.group(1).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if not folder or named in ("", ".", "..", "~") or named == folder.rsplit("/", 1)[-1]:
            words.append(found.group(1) + base)
            if first:
                break
    return words


#: What makes a path's part stand for others: a glob, a brace, an expansion.
_PATTERN_MARKS = frozenset("*?[]{}$`")


def _script_place(command: str, file: str) -> str:
    """`_place` of a shell command that names the tracked `file`: the path it names, as spelled
    (`_tail`), when it names one that can be compared; "" otherwise (none, a glob or an
    expansion, or several: `sed -i … /tmp/copy/src/app.py src/app.py`). A path otherwise cut or
    spelled (`/mnt/c/…`) may give other parts: fewer failures then count against it (`_own`)."""
    places = set()
    for word in _naming(command[:MAX_SHELL_CHARS], file):
        place = _tail(word, spelled=True)
        if not place:
            return ""
        places.add(place)
    return places.pop() if len(places) == 1 else ""


def _target(file: str) -> str:
    """A pattern for `file` as a command's word, quoted or not: its name alone (or after `./`),
    or after a path whose last folder is the file's (`src/app.py`: `/repo/src/app.py`, not
    `/tmp/app.py`); any folder when the file is tracked without one."""
    folder, _, base = file.rpartition("/")
    name = re.escape(base)
    where = rf"(?:[^\s'\";|&<>]*[/\\])?{re.escape(folder.rsplit('/', 1)[-1])}[/\\]|\.[/\\]" if folder else r"[^\s'\";|&<>]*[/\\]"
    return rf"['\"]?(?:{where})?{name}['\"]?(?=$|[\s;|&)])"


def _writes_it(command: str, file: str) -> bool:
    """Whether a shell command that names `file` changes it: an in-place editor or a Python write
    (`_IN_PLACE`), or a redirect or `tee` into it; not one that only reads it into another file
    (`grep … file > /tmp/hits`, `cp file /tmp/file.bak`)."""
    target = _target(file)
    return (
        re.search(_IN_PLACE, command) is not None
        or re.search(rf"(?:\A|[^>&0-9=-])>>?\s*{target}|\btee\b[^|;&]*\s{target}", command) is not None
    )


def _attempt(tool: str, tool_input: Any, config: Config, files: dict[str, Entry]) -> tuple[str | None, str]:
    """The file a call works on and how: `patch` (an edit or patch tool changing part of it, a
    patch sent through the shell, a unified diff of that one file applied by `git apply` or
    `patch`), `write` (whole), `script` (a shell command that names a file
    whose patches failed and writes), `read` (any other call naming it: a read tool, a shell
    command that names such a file); `(None, "")` for none."""
    command = shell_command(tool, tool_input)
    if command is not None and "*** " not in command:
        diffed = {short_path(path) for path in diff_paths(command) or ()}
        if len(diffed) == 1 and edits_only(tool, tool_input):
            # a diff of one file applied on a line of edits alone (`git apply <<'EOF'`); one
            # followed by a test run (`… && pytest`) may fail as the test: as before
            return diffed.pop()[:MAX_ID_CHARS], "patch"
        name = _named(command, files)
        if name is None:
            return None, ""
        changes = re.search(SHELL_WRITES, command) is not None and (_writes_it(command, name) or _writes_whole(command, name))
        return name, "script" if changes else "read"
    file = target_of(tool_input, config)
    if file is None:
        return None, ""
    file = file[:MAX_ID_CHARS]
    patch = tool_input.get("command") if isinstance(tool_input, dict) else None  # Codex's apply_patch input
    patch = patch[:4096] if isinstance(patch, str) else None
    if tool in PATCH_TOOLS or (patch is not None and re.search(UPDATE, patch)):
        return file, "patch"
    if tool in WRITE_TOOLS or (patch is not None and re.search(ADD, patch)) or matches(tool, config.mutating_tools):
        return file, "write"
    return file, "read"


def on_call(ctx: CallContext) -> Decision | None:
    """Deny a patch of a file whose patches keep failing, until the file is read again; count a
    patch the file cannot take (`HookEvent.misfit`) that goes ahead as failed already."""
    cfg = ctx.config
    files = _files(ctx.agent)
    misfit = ctx.event.misfit
    if (not files and misfit is None) or not ctx.counted or ctx.event.event != "PreToolUse":
        return None
    file, how = _attempt(ctx.tool, ctx.tool_input, cfg, files)
    decision = _verdict(ctx, files, file, how)
    if decision is None and misfit is not None and file is not None and how == "patch" and cfg.reread_after_failed_edits:
        _count_misfit(ctx, file, misfit)
    return decision


def _misfits(entry: Entry) -> int:
    """An entry's patches that did not fit its file (0 for an entry written before they were
    counted, or one whose count is not a number)."""
    value = entry[7] if len(entry) > 7 else 0
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 100 else 0


#: Claude Code's refusal of an edit whose file it takes to have changed since its read (2.x, in
#: `call()`, after the PreToolUse): on Windows a path written with forward slashes is never
#: matched to the read of it, so every Read→Edit round fails so (anthropics/claude-code#10882,
#: #7918; corpus transcripts agent-ac9dcb8 and agent-a313b4c, where the Write that worked used
#: backslashes).
_STALE = r"File has been unexpectedly modified"
#: Edits of a file refused so before one written with forward slashes on a drive is denied: a
#: read between them did not help the second.
STALE_AFTER = 2
#: An entry's index of `_changed_since_read`.
CHANGED = 9
#: An entry's index of `_places`.
PLACES = 10
#: Places whose failures an entry keeps (the latest), and the last parts of a path kept of each.
MAX_PLACES = 4
PLACE_PARTS = 6


def _place(tool: str, tool_input: Any, config: Config, cwd: str | None) -> str:
    """Where the file a patch changes is: the last `PLACE_PARTS` parts of an edit or patch tool's
    path in the session's folder `cwd` (`tools.place_of`, written one way), else of the path a
    patch sent through the shell or a diff of one file applied by the shell spells (from the
    shell's folder); "" when unknown or when it may be anything (`..`, `~`, a variable)."""
    command = shell_command(tool, tool_input)  # None for another tool than a shell
    diffed = diff_paths(command) if command is not None and "*** " not in command else None
    if diffed:
        return _tail(diffed[0], spelled=True) if len(diffed) == 1 else ""
    named = named_path(tool_input, config)
    where = place_of(tool, named, cwd)
    if where is not None:
        return _tail(where, spelled=False)
    return _tail(named, spelled=True) if named else ""


#: Characters a place is written without (`_places` keeps one place a line, its count first).
_UNPRINTED = {9: None, 10: None, 13: None}


def _tail(path: str, *, spelled: bool) -> str:
    """A place (`_place`): the last `PLACE_PARTS` parts of `path`, in lower case; "" for one
    that may be anything (`..`; as a command spells it, `~`, a glob, a brace, an expansion: a
    tool's path names one file, brackets and all, `app/[id]/page.tsx`). Of a path a command
    `spelled` (a shell word, a diff's, a patch's sent through the shell), its first part is left
    out when it has three or more: it may be a word's cut end (`auth)` of `(auth)`, `app` of `web
    app`), Git Bash's drive (`/c/`), a diff's prefix (`new/` for `patch -p1`), and a place is
    compared by its end (`_same_place`)."""
    parts = [p.translate(_UNPRINTED) for p in path.lower().replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts or (spelled and any(p.startswith(("~", "$")) or _PATTERN_MARKS & set(p) for p in parts)):
        return ""
    if spelled and len(parts) >= 3:
        parts = parts[1:]
    return "/".join(parts[-PLACE_PARTS:])[-MAX_ID_CHARS:]


def _attempt_place(tool: str, tool_input: Any, config: Config, cwd: str | None, file: str, how: str) -> str:
    """Where an attempt (`_attempt`'s `how`) on the tracked `file` works: a patch's `_place`, a
    script's `_script_place`."""
    if how == "script":
        return _script_place(str(shell_command(tool, tool_input)), file)
    return _place(tool, tool_input, config, cwd) if how == "patch" else ""


def _same_place(one: str, other: str) -> bool:
    """Whether two places (`_place`) may be one file: their last parts agree as far as both go
    (`src/app.py` is the end of `project/src/app.py`; `api/src/index.ts` is not `web/src/index.ts`)."""
    a, b = one.split("/"), other.split("/")
    n = min(len(a), len(b))
    return a[-n:] == b[-n:]


def _places(entry: Entry) -> list[tuple[str, int]]:
    """An entry's failures by place (`_place`), oldest first; none for none known, or an entry
    written before they were kept."""
    value = entry[PLACES] if len(entry) > PLACES else ""
    found = []
    for line in value.split("\n") if isinstance(value, str) and value else ():
        n, _, place = line.partition("\t")
        if n.isascii() and n.isdigit() and len(n) <= 2 and place:  # counts stop at 99
            found.append((place, int(n)))
    return found


def _counted(entry: Entry, place: str, new: int) -> str:
    """`_places` with `new` more failures at `place`, written back (the latest `MAX_PLACES`)."""
    counts = dict(_places(entry))
    if place and new:
        counts[place] = min(counts.pop(place, 0) + new, 99)
    return "\n".join(f"{n}\t{p}" for p, n in list(counts.items())[-MAX_PLACES:])


def _own(entry: Entry, place: str) -> int:
    """The failures of an entry that may be its file's where `place` is (`_place`): those
    counted at a place that may be that one (`_same_place`) and those of no known place (a call
    whose path could not be compared, an earlier release's, the places past `MAX_PLACES`); all of
    them when the place is unknown."""
    failures = int(entry[0])
    counts = _places(entry)
    if not place or not counts:
        return failures
    known = sum(n for _, n in counts)
    return sum(n for p, n in counts if _same_place(p, place)) + max(0, failures - known)


def _stale(entry: Entry) -> int:
    """An entry's edits with a `C:/…` path refused as `_STALE` (0 for an entry written before
    they were counted)."""
    value = entry[8] if len(entry) > 8 else 0
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 100 else 0


def _changed_since_read(entry: Entry) -> bool:
    """Whether a call that may change files without naming them ran since the file's last read
    (`_changed_unseen`): a refusal as changed since the read is then that change's."""
    return len(entry) > CHANGED and entry[CHANGED] == 1


def _slashed_drive_path(tool_input: Any) -> str | None:
    """An edit's `file_path` when it names a Windows drive with forward slashes (`C:/x/y.js`),
    the spelling Claude Code on Windows does not match to a read; None otherwise."""
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    return path[:MAX_ID_CHARS] if isinstance(path, str) and re.match(r"[A-Za-z]:/", path) else None


def _count_misfit(ctx: CallContext, file: str, line: str) -> None:
    """Count, at its PreToolUse, a patch the host layer found its file cannot take: apply_patch
    will refuse it, and Codex 0.171.0 sends no PostToolUse for a patch it refuses so
    (`tests/e2e/test_codex.py`), so its result may never come. If it does (a replay, another
    release), it is not counted again (`Call.misfit`)."""
    table = cast("dict[str, Entry]", slots(ctx.agent).setdefault(NAME, {}))
    entry = table.setdefault(file, [0, False, 0.0, "", False, ""])
    since = int(str(entry[5]).partition(":")[0] or 0) if len(entry) > 5 else 0
    sig = ctx.call["sig"]
    patch = patch_text(ctx.tool, ctx.tool_input, PATCH_CHARS)
    same = f"{sig[:16]}:{min(resent(entry, sig) + 1, 99)}" if _one_file(patch) else ""
    if patch is not None and ctx.tool in SHELL_TOOLS and unseen_through_shell(patch):
        # Judged in the folder the call's record gives (`hosts/workspace.misfit`), which the
        # payload does not: the same command sent in another `workdir` is another file's patch,
        # so it is no resend (the misfit count, which looks at the file, still denies the third).
        same = str(entry[6]) if len(entry) > 6 else ""
    misfits = min(_misfits(entry) + 1, 99)
    rejected = len(entry) > 4 and bool(entry[4])
    # no error to quote: the host sends none (the model reads apply_patch's own)
    since = min(since + 1, 99)
    row: Entry = [int(entry[0]) + 1, bool(entry[1]), ctx.call["t"], "", rejected, f"{since}:", same, misfits, _stale(entry)]
    place = _place(ctx.tool, ctx.tool_input, ctx.config, ctx.event.cwd)
    table[file] = [*row, 0, _counted(entry, place, 1)]
    trim(table, MAX_FILES, lambda k: float(table[k][2]))
    ctx.call["misfit"] = True


def _verdict(ctx: CallContext, files: dict[str, Entry], file: str | None, how: str) -> Decision | None:
    """`on_call`'s decision on an attempt on `file` (`_attempt`'s `how`). Its count (`times`: the
    log's `x2`, replay's) is the failures its text names, as a wall's count is (the same-error
    and every-call walls'): `the last 2 patches of it did not fit` is 2, `this very patch has
    failed 2 times` is 2 whatever other patches of the file failed."""
    cfg = ctx.config
    entry = files.get(file) if file else None
    if entry is None or how not in ("patch", "script"):
        return None
    failures, read, error = int(entry[0]), bool(entry[1]), str(entry[3])
    assert file is not None
    path = _slashed_drive_path(ctx.tool_input) if ctx.tool in PATCH_TOOLS else None
    if path is not None and _stale(entry) >= STALE_AFTER:
        # before the host-check exemption below: this failure comes after the PreToolUse
        text = stale_denial(path, _stale(entry))
        return Decision(Action.DENY, Rule.TARGET, text, advice=stale_advice(path), times=_stale(entry), tool=ctx.tool)
    if how == "script" and _writes_whole(str(shell_command(ctx.tool, ctx.tool_input)), file):
        return None
    if how == "patch" and ctx.tool in PATCH_TOOLS and len(entry) > 4 and entry[4]:
        return None  # the host checks this edit before its PreToolUse: reaching it, it applies
    times = resent(entry, ctx.call["sig"]) if how == "patch" and ctx.tool not in PATCH_TOOLS else 0
    if times >= RESENT_AFTER:
        named = _as_named(ctx, file)
        text = resent_denial(named, times, error)
        return Decision(Action.DENY, Rule.TARGET, text, advice=resent_advice(named), times=times, tool=ctx.tool)
    patch = patch_text(ctx.tool, ctx.tool_input, PATCH_CHARS) if how == "patch" else None
    since, _, missed = str(entry[5]).partition(":") if len(entry) > 5 else ("", "", "")
    if patch is not None and missed and int(since or 0) >= DOOMED_AFTER and _doomed(patch, missed):
        named = _as_named(ctx, file)
        text = doomed_denial(named, error)
        return Decision(Action.DENY, Rule.TARGET, text, advice=doomed_advice(named), times=failures, tool=ctx.tool)
    misfit = ctx.event.misfit
    misfits = _misfits(entry)
    if patch is not None and misfit is not None and misfits >= MISFIT_AFTER:
        line = preview(redact_prefix(misfit, QUOTE_CHARS + 1), QUOTE_CHARS)
        path = redact_prefix(updated_path(patch) or file, QUOTE_CHARS)  # as the model wrote it: a command can use it
        windows = re.match(r"[A-Za-z]:[\\/]", ctx.event.cwd or "") is not None  # Codex there runs PowerShell
        text = misfit_denial(path, misfits, line, windows=windows)
        return Decision(Action.DENY, Rule.TARGET, text, advice=misfit_advice(path, line), times=misfits, tool=ctx.tool)
    if how in ("patch", "script") and failures >= cfg.reread_after_failed_edits:
        failures = _own(entry, _attempt_place(ctx.tool, ctx.tool_input, cfg, ctx.event.cwd, file, how))
    if cfg.reread_after_failed_edits and failures >= cfg.reread_after_failed_edits and not read:
        named = _as_named(ctx, file)
        text = reread_denial(named, failures, error, script=how == "script")
        return Decision(Action.DENY, Rule.TARGET, text, advice=reread_advice(named, failures), times=failures, tool=ctx.tool)
    return None


def _as_named(ctx: CallContext, file: str) -> str:
    """The file a call works on as the call names it (`./calc.py`, `/w/src/calc.py`, a patch's
    first `*** … File:` path: `tools.named_path`; of a shell command, the one spelling among its
    words, an option's `--file=` value included, that names the file as `_attempt` finds it),
    redacted as a quote is, for the texts: a model can read that path. `file`, the key (its
    last two components, `target_of`), when the call names it no way or two ways (a here-document
    quoting another tree's copy), or at more than `QUOTE_CHARS` (cut, a path would lose its name):
    the key is no path in general (`proj/calc.py` for `./calc.py` run in `/x/proj`; a new user's
    Gemini CLI and Qwen Code sessions were told to read it first)."""
    named = named_path(ctx.tool_input, ctx.config)
    command = shell_command(ctx.tool, ctx.tool_input) if named is None else None
    if command is not None:
        words = [*(diff_paths(command) or ()), *re.findall(r"[^\s'\"<>|;&()`=]+", command[:MAX_SHELL_CHARS])]
        words = [w.rstrip(":,") for w in words if not w.startswith("-")]  # `src/calc.py:` in a message
        spellings = {w for w in words if _named(w, {file: []}) == file}  # as `_attempt` finds it
        named = spellings.pop() if len(spellings) == 1 else None
    elif named is not None and short_path(named) != file:
        named = None
    return redact_prefix(named if named and len(named) <= QUOTE_CHARS else file, QUOTE_CHARS)


def _sent_whole(tool: str, tool_input: Any, file: str) -> bool:
    """Whether a call wrote the file whole with text the model sent: a write tool, or a shell
    here-document redirected (`>`, `tee`) into it (`cat > src/app.py <<'EOF'`). Not a copy, a
    `git checkout` or a program's output into it: their text is not in the call."""
    if tool in WRITE_TOOLS:
        return True
    command = shell_command(tool, tool_input)
    return command is not None and "<<" in command and re.search(_into(_target(file)), command) is not None


def _into(target: str) -> str:
    """A pattern for a `>` (not `>>`) or a `tee` (not `-a`) whose target is `target`."""
    return rf"(?:\A|[^>&0-9=-])>\s*{target}|\btee\s+(?:-[^a\s]\S*\s+)*{target}"


def _writes_whole(command: str, file: str) -> bool:
    """Whether a shell command writes the file whole: a `>` (not `>>`) or a `tee` (not `-a`)
    whose target is the file (by its name), a `cp` or `mv` onto it, or a `git checkout` or
    `git restore` of it (back to a known text)."""
    target = _target(file)
    return re.search(
        rf"{_into(target)}"
        rf"|\b(?:cp|mv)\s+(?:-\S+\s+)*[^;&|]*?\S\s+{target}\s*(?:$|[;&|])"
        rf"|\bgit\s+(?:checkout|restore)\b[^;&|]*\s{target}",
        command,
    ) is not None


#: The most lines of a hunk compared.
MAX_HUNK_LINES = 48
#: Failed patches of a file in a row, with no read between, before a patch that expects what
#: the last one did not find is denied: one retry of a patch that just failed is ordinary (a
#: model often resends it unchanged once), a third try of the same lines is a wall.
DOOMED_AFTER = 2
#: Times one patch, as it is, failed on a file in a row before it is denied: the file has not
#: changed since (a change that applies ends the wall), so it fails again, read or not. In the
#: Codex rollouts of 94 public repositories and the corpus, none of 45 resends of a patch that
#: had failed once applied, nor any of 8 sent again after two failures.
RESENT_AFTER = 2
#: Patches of a file that did not fit it (`_NO_FIT`, or `HookEvent.misfit` at their PreToolUse),
#: since it last changed, before a patch of it that the file, as it is, cannot take (a hunk
#: apply_patch would not find where it looks) is denied, read or not: one or two patches that do
#: not fit are ordinary (apply_patch says so), a third is a wall. The denial names the hunk's
#: first line the file lacks, which a read of the file can then be searched for.
MISFIT_AFTER = 2
#: apply_patch's failures of a patch whose lines the file does not hold (codex-rs apply-patch;
#: an edit's text not found, as the scenarios' Codex translation words it).
_NO_FIT = r"Failed to find (?:expected lines|context)|not found in (?:the )?file"


#: Failures of an attempt whose own text did not parse, so it never reached the file: Python's
#: `SyntaxError` (or `IndentationError`) in the script it was sent (`<stdin>`, `-c`), the shell's
#: syntax errors, `git apply`'s "unrecognized input" (a patch in another format) or "corrupt
#: patch", Perl's and sed's errors in their own expression. Such a failure says nothing of the
#: file's text, so a read would not help: it is not counted (public Codex rollout of 2025-10-08,
#: Codex 0.45.0: three patches fed to `git apply` in apply_patch's format, then four Python
#: rewrites each refused by its parser for its quoting, the fourth applying; counted, the last
#: three were denied "read the file first", the one that worked among them).
UNPARSED_CHARS = 12_288  # a parser's report quotes the line it stopped at: one line may be long
#: Python's report: the header, at most a few lines (the line it stopped at, however long, and its
#: caret), then the error, each line matched whole: a search stays linear in the text (a window of
#: any characters with `\s*` at each line start took over a minute on 12 KB of headers and blank
#: lines, past the hook's deadline, while a resident worker went on burning a CPU).
_UNPARSED = (
    r"File \"<(?:stdin|string)>\", line \d+[ \t]*\r?\n(?:[^\n]*\n){0,6}?[ \t]*(?:SyntaxError|IndentationError|TabError):"
    r"|\bsyntax error near unexpected token\b|\bunexpected EOF while looking for matching\b"
    r"|\bsyntax error: unexpected end of file\b|\berror: unrecognized input\b|\bcorrupt patch at line\b"
    r"|\bNo valid patches in input\b|\bsyntax error at -e line\b|\bsed: -e expression #\d+, char \d+: "
)


#: apply_patch's failures of a patch whose text does not fit the file (codex-rs apply-patch):
#: lines or context not found (an edit's text, as the scenarios' Codex translation words it),
#: an invalid hunk, a file that is not there. Only these fail again
#: on an unchanged file; a write refused (a file another process holds, a permission, a
#: sandbox, the user) may go through when sent again.
_MISMATCH = (
    r"Failed to find (?:expected lines|context)|[Ii]nvalid (?:patch|hunk)|is not a valid hunk"
    r"|Failed to read file to update|not found in (?:the )?file"
)


def _unparsed(tool: str, text: str) -> bool:
    """Whether a failed attempt's text did not parse (`_UNPARSED`): only a shell command's or
    script's output says so (Python's, the shell's, git apply's, Perl's or sed's own report). An
    edit tool's or apply_patch's failure quotes the lines it did not find (`_MISMATCH`: a failure
    about the file's text), and those lines may hold the same words (a test of a shell linter
    asserting `syntax error near unexpected token`, a doc showing Python's SyntaxError): such a
    wall is counted as any other."""
    if tool not in SHELL_TOOLS or re.search(_MISMATCH, text[:4096]) is not None:
        return False
    return re.search(_UNPARSED, text[:UNPARSED_CHARS]) is not None


def resent(entry: Entry, sig: str) -> int:
    """How many times in a row the patch with signature `sig` failed as it is on the entry's file."""
    last, _, times = str(entry[6]).partition(":") if len(entry) > 6 else ("", "", "")
    return int(times or 0) if last and last == sig[:16] else 0


def _one_file(patch: str | None) -> bool:
    """Whether a patch changes one file only (an edit tool's call, or a patch naming one file):
    one of several files is tracked (`target_of` names the first), so a patch of several that
    failed may apply once another of its files changed (a patch of that one alone that applied)."""
    return patch is None or (
        len(re.findall(r"(?m)^\*\*\* (?:Update|Add|Delete) File: ", patch)) == 1 and "*** Move to: " not in patch
    )


def _line_ids(lines: list[str]) -> list[str]:
    return [digest(line.strip().encode("utf-8", "surrogatepass"))[:8] for line in lines[:MAX_HUNK_LINES]]


def first_hunk(patch: str) -> tuple[str | None, list[str]] | None:
    """The first hunk of a patch that updates one file: its `@@` context (None for none) and its
    old lines (context and removed, without their one-character mark); None for a patch of
    several files or none, or a first hunk that only adds lines."""
    chunks = patch_format.chunks(patch)
    return (chunks[0][0], chunks[0][1]) if chunks and chunks[0][1] else None


def _contains(whole: list[str], part: list[str]) -> bool:
    n = len(part)
    return n > 0 and any(whole[i : i + n] == part for i in range(len(whole) - n + 1))


def _anchor_id(anchor: str | None) -> str:
    return "-" if anchor is None else digest(anchor.encode("utf-8", "surrogatepass"))[:8]


def _blankless(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _patch_file(patch: str) -> str:
    """The path a patch updates, its last four parts at most (what `_same_file` compares)."""
    found = re.search(UPDATE + r"(.+)$", patch)
    parts = found.group(1).strip().replace("\\", "/").split("/") if found else []
    return "/".join(parts[-4:])[:MAX_ID_CHARS]


def _same_file(a: str, b: str) -> bool:
    """Two spellings of a patch's path name the same file: one ends with the other, whole folders."""
    x, y = [p for p in a.split("/") if p not in ("", ".")], [p for p in b.split("/") if p not in ("", ".")]
    n = min(len(x), len(y))
    return n > 0 and x[-n:] == y[-n:]


def _doomed(patch: str, looked_for: str) -> bool:
    """Whether a patch's first hunk, from the same `@@` context, expects every line that the last
    failed patch of the file looked for and did not find (`looked_for`: `anchor|ids|path`): the
    file has not changed since, so it cannot apply either. A hunk marked `*** End of File` is
    looked for at the file's end, wherever its context is: never judged."""
    chunks = patch_format.chunks(patch)
    if not chunks or not chunks[0][1] or chunks[0][2] or looked_for.count("|") < 2:
        return False
    anchor, ids, path = looked_for.split("|", 2)
    if not _same_file(path, _patch_file(patch)):
        return False  # another file with the same last two folders (`a/src/app.py`, `b/src/app.py`)
    return anchor == _anchor_id(chunks[0][0]) and _contains(_line_ids(patch_format.sought(chunks[0][1])), ids.split(","))


def looked_for(patch: str | None, error: str) -> str:
    """What a failed patch looked for and did not find, as `_doomed` compares it: the digests of
    its first hunk's anchor and of the lines apply_patch sought, and its path, when the error
    quotes exactly that hunk's old lines (a later hunk is looked for after the earlier ones, so
    from another place: one whose old lines are the first's, or inside them, is not told apart);
    "" otherwise: a hunk marked `*** End of File` (looked for at the end only), one longer than
    `MAX_HUNK_LINES` (only its start would be compared), an error whose lines are not the hunk's."""
    lines = missing_lines(error) if patch is not None else None
    chunks = patch_format.chunks(patch) if patch is not None and lines is not None else None
    if not chunks or lines is None or not chunks[0][1] or chunks[0][2]:
        return ""
    anchor, old, _ = chunks[0]
    sought = patch_format.sought(old)
    quoted = _line_ids(_blankless(lines)) if len(lines) <= MAX_HUNK_LINES else []
    if len(old) > MAX_HUNK_LINES or not quoted or quoted != _line_ids(_blankless(old)):
        return ""
    if any(_contains(_line_ids(later[1]), quoted) for later in chunks[1:]):
        return ""  # a later hunk expects these lines too: which one failed is not told
    return _anchor_id(anchor) + "|" + ",".join(_line_ids(sought)) + "|" + _patch_file(patch or "")


def on_result(ctx: ResultContext) -> Decision | None:
    """Count a failed attempt to change a file; note a read of it; an edit that applies ends it,
    and a subagent call's result forgets the files that failed while it ran. Remind when an edit
    of a Windows path spelled `C:/…` is refused as changed since its read again after a read of
    it (`STALE_AFTER`)."""
    cfg = ctx.config
    if not cfg.reread_after_failed_edits:
        return None
    files = _files(ctx.agent)
    file, how = _attempt(ctx.tool, ctx.tool_input, cfg, files)
    failed = ctx.outcome.failure != Failure.NONE
    # (a call that failed is taken to have changed nothing: a script refused by its parser
    # between two sends of one patch, public Codex rollout of 2025-09-21)
    if files and ctx.tool in AGENT_TOOLS:
        # A subagent came back, done or not: where the host sends no `agent_id` (Claude Code
        # before it, anthropics/claude-code#15998) the failures counted while it ran were its own,
        # and its reads are its own; those from before it stay.
        for counted in [f for f, entry in files.items() if float(entry[2]) >= ctx.call["t"]]:
            del files[counted]
    if files and not failed and not ctx.unchanged:
        _changed_unseen(ctx.tool, ctx.tool_input, files)
    if not file:
        return None
    if how == "read":
        if not failed and file in files:
            files[file][1] = True
            # read: what the model sends next may be written from what it saw (a patch resent as
            # it is still fails)
            files[file][5:6] = [""]
            del files[file][CHANGED:]  # read since any change: a refusal now is not that change's
        return None
    if not failed:
        # It applied: the file is as the model thinks. So it is after a whole write of the text
        # the model sent that changed nothing: that text was the file's already.
        if not ctx.unchanged or _sent_whole(ctx.tool, ctx.tool_input, file):
            files.pop(file, None)
        return None
    if how not in ("patch", "script"):
        return None  # a whole write fails for other reasons (the file exists, was not read: the host says which)
    if ctx.tool == "apply_patch" and ctx.outcome.text.startswith(PATCH_REJECTED):
        return None  # Codex's sandbox refused it (`PATCH_REJECTED`), not for the file's text: no read mends it
    if how == "patch" and ctx.changed:
        files.pop(file, None)  # a diff applied in part (GNU patch's exit 1 for the hunks that did not fit): a change
        return None
    told = ctx.unchanged or ctx.edits_looked or edits_only(ctx.tool, ctx.tool_input)
    told = told or bool(output_paths(ctx.tool, ctx.tool_input))
    if how == "script" and (ctx.changed or not (told or str(ctx.call.get("ws", "")).startswith(WORKSPACE_BY_TIME))):
        # A line that edits the file and runs something else (`sed -i … a.py && pytest`): its
        # failure may be that program's, not the edit's. The workspace saw the file change: the
        # edit applied, as one that succeeds (a log the line writes, `| tee test.log`, or a
        # report its test run writes, set aside); saw it unchanged: the edit failed, counted.
        # Where the workspace cannot tell (a big file judged by its mtime), it counts; in a
        # replay, which has no workspace, it does not, but for a line that sends output into a
        # file.
        if ctx.changed:
            files.pop(file, None)
        return None
    if _unparsed(ctx.tool, ctx.outcome.text):
        return None  # the attempt's own text did not parse: it never reached the file (`_UNPARSED`)
    table = cast("dict[str, Entry]", slots(ctx.agent).setdefault(NAME, {}))
    entry = table.setdefault(file, [0, False, 0.0, "", False, ""])
    quote = preview(redact_prefix(ctx.outcome.text.strip(), QUOTE_CHARS + 1), QUOTE_CHARS)
    rejected = bool(ctx.call.get("late")) or (len(entry) > 4 and bool(entry[4]))
    patch = patch_text(ctx.tool, ctx.tool_input, PATCH_CHARS) if how == "patch" else None
    missed = looked_for(patch, ctx.outcome.text) if how == "patch" else ""
    # Failures since the file was last read, and what the last one looked for and did not find.
    since = int(str(entry[5]).partition(":")[0] or 0) if len(entry) > 5 else 0
    # The same patch failed again as it is, not fitting the file (`_MISMATCH`).
    one = how == "patch" and _one_file(patch) and re.search(_MISMATCH, ctx.outcome.text[:4096]) is not None
    # Counted at its PreToolUse already (`_count_misfit`): its text is read, not counted again.
    new = ctx.call.get("misfit") is not True
    same = f"{ctx.call['sig'][:16]}:{min(resent(entry, ctx.call['sig']) + new, 99)}" if one else ""
    failures = int(entry[0]) + new
    # Patches of the file whose lines it did not hold, since it last changed (not a file not
    # found at a wrong path: the same two last folders may be another file).
    no_fit = new and how == "patch" and re.search(_NO_FIT, ctx.outcome.text[:4096]) is not None
    misfits = min(_misfits(entry) + no_fit, 99)
    since = min(since + new, 99)
    # Claude Code's "unexpectedly modified" of an edit whose path is spelled `C:/…`: the spelling
    # it does not match to a read (one spelled otherwise failed for another reason)
    slashed = how == "patch" and ctx.tool in PATCH_TOOLS and _slashed_drive_path(ctx.tool_input) is not None
    # (not one after a call that may have changed the file since its last read: that change's)
    explained = _changed_since_read(entry)
    refused = slashed and not explained and re.search(_STALE, ctx.outcome.text[:512]) is not None
    stale = min(_stale(entry) + refused, 99)
    row: Entry = [failures, bool(entry[1]), ctx.call["t"], quote, rejected, f"{since}:{missed}", same, misfits, stale]
    place = _attempt_place(ctx.tool, ctx.tool_input, ctx.config, ctx.cwd, file, how)
    table[file] = [*row, 1 if explained else 0, _counted(entry, place, new)]
    trim(table, MAX_FILES, lambda k: float(table[k][2]))
    if refused and new and stale == STALE_AFTER and bool(entry[1]):
        # Refused again after the read the host asked for: its advice ("Read it again") cannot
        # help this spelling; said now, before the next edit is denied (held-out 2.0.61-2.0.69
        # sessions: Read, refused, Read, refused, three to five times per file, Writes refused
        # "not read yet" between, which no hook of that host sees).
        path = _slashed_drive_path(ctx.tool_input) or file
        return Decision(Action.REMIND, Rule.TARGET, stale_reminder(path), times=stale, tool=ctx.tool)
    return None


def _changed_unseen(tool: str, tool_input: Any, files: dict[str, Entry]) -> None:
    """A call that applied and may have changed tracked files other than the one `_attempt`
    sees: every file of a patch of several (`target_of` names the first) is forgotten; after a
    call that may change files without naming them (`_may_change_unseen`: a formatter, `git
    stash`, another agent's run), what every failed patch looked for, how often it was resent
    and which patches did not fit are forgotten (their failures still count): it may apply now;
    edits refused for a `C:/` path's spelling stay counted, and each file is marked changed since
    its last read (`_changed_since_read`) until it is read again."""
    patch = patch_text(tool, tool_input, PATCH_CHARS)
    if patch is not None:
        for path in re.findall(r"(?m)^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", patch):
            files.pop(short_path((path[0] or path[1]).strip()), None)
    elif _may_change_unseen(tool, tool_input):
        for entry in files.values():
            if len(entry) > 5:
                entry[5] = str(entry[5]).partition(":")[0] + ":"
                # and the patches that did not fit: the file may hold their lines now; edits refused
                # for the path's spelling stay counted (no change of the file mends the spelling),
                # and a refusal as changed since the read is this change's, until the next read
                entry[6:] = ["", 0, _stale(entry), 1, *entry[PLACES : PLACES + 1]]


def _may_change_unseen(tool: str, tool_input: Any) -> bool:
    """Whether a call may have changed files without naming them, so that a patch that failed
    as it is may apply now: a shell command other than reads (`shellwords.only_reads`: also
    PowerShell's, for Codex on Windows) and other than a patch (a
    formatter, `dos2unix`, a codemod over a glob, `npm run format`, `chmod`), or another
    agent's run (`tools.AGENT_TOOLS`)."""
    if tool in AGENT_TOOLS:
        return True
    if tool not in SHELL_TOOLS:
        return False
    command = shell_command(tool, tool_input)
    if command is None:
        return True  # a command given as a list, or none: not known to only read
    if "*** " in command:
        return False  # a patch sent through the shell: judged as a patch
    return not only_reads(command)


def fit(agent: Agent, share: Limits) -> None:
    """At most `MAX_FILES` files, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: the walls are forgotten."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def _error(error: str) -> str:
    return f' The last one failed with: """{error}"""' if error else ""


def reread_denial(file: str, failures: int, error: str, *, script: bool = False) -> str:
    """An edit (`script`: a shell command that changes the file) of a file whose last edits
    failed, with no read of it since."""
    head = f"this command was not run: it changes {file}, and" if script else f"this edit of {file} was not run:"
    return (
        f"REPEAT_TOOL_BLOCKED: {head} the last {failures} attempts to change it "
        f"failed and it has not been read since they began (loop guard policy, not a tool failure).{_error(error)} "
        f"The file's text is not what your edits expect. Read {file} first (a read tool, or `cat`, "
        "`sed -n`), or write it whole; a read, an edit that applies or a new user message lifts this"
    )


def doomed_denial(file: str, error: str) -> str:
    """A patch whose first hunk expects the very lines the last failed patch of the file did not
    find there, with no change or read of the file since."""
    return (
        f"REPEAT_TOOL_BLOCKED: this patch of {file} was not run: it expects lines that the last patch of "
        f"{file} looked for and did not find, and the file has not changed since, so it would fail the same "
        f"way (loop guard policy, not a tool failure).{_error(error)} Read {file} first (`cat`, `sed -n`, a "
        "read tool) and build the hunk from its real text; a read, an edit that applies or a new user message "
        "lifts this"
    )


def misfit_denial(path: str, misfits: int, line: str, *, windows: bool = False) -> str:
    """A patch of `path` (as the patch names it) with a hunk the file, as it is now, does not hold
    where apply_patch looks (`line`: its first line the file holds nowhere, else its first: the
    lines are all there, but not together as the hunk has them), after
    `misfits` patches of it that did not fit; `windows`: the cwd is a Windows path, where Codex
    runs shell commands in PowerShell, so the way to print numbered lines is PowerShell's."""
    numbered = (
        f"`$i=0; Get-Content '{path}' | ForEach-Object {{ $i++; if ($i -ge <from> -and $i -le <to>) {{ \"$i`t$_\" }} }}`"
        if windows
        else f"`nl -ba {path} | sed -n '<from>,<to>p'`"
    )
    return (
        f"REPEAT_TOOL_BLOCKED: this patch of {path} was not run: its hunk does not match {path} as it is now "
        f"(the guard looked before the call; its lines from `{line}` on are not in the file as the hunk has them), "
        "so apply_patch would refuse it, and the "
        f"last {misfits} patches of it did not fit either (loop guard policy, not a tool failure). Print the lines "
        f"you mean to change with their numbers ({numbered}, a read tool) and copy "
        "them exactly, change fewer lines at a time, or write the file whole; a patch whose lines are in the file "
        "goes ahead"
    )


def misfit_advice(path: str, line: str) -> str:
    """The same as a reminder (advise mode)."""
    return (
        f"[loopguard] This patch of {path} will not apply: its hunk does not match the file as it is now (its lines "
        f"from `{line}` on are not in the file as the hunk has them), and the last patches of it did not fit either. "
        "Print those lines with their numbers and copy them exactly."
    )


def stale_denial(path: str, times: int) -> str:
    """An edit of `path` (a Windows drive's path with forward slashes) after `times` edits of the
    file that Claude Code refused as changed since its read."""
    return (
        f"REPEAT_TOOL_BLOCKED: this edit of {path} was not run: the last {times} edits of it failed with "
        "'File has been unexpectedly modified' (loop guard policy, not a tool failure). On Windows, Claude Code "
        "does not match a path written with forward slashes to the read of it, so reading it again does not help. "
        "Write the path with backslashes, as Windows does "
        f"({_backslashed(path)}), read it once so, then edit it; or change it with one shell command"
    )


def stale_reminder(path: str) -> str:
    """An edit of `path` (a Windows drive's path with forward slashes) that Claude Code refused
    as changed since its read, again after the read it asked for: reading again will not help."""
    return (
        f"[loopguard] This edit of {path} failed again with 'File has been unexpectedly modified' though you read "
        "the file just before: reading it again will not help. On Windows, Claude Code does not match a path written "
        "with forward slashes to the read of it, so every edit and write of it spelled so fails. Write the path with "
        f"backslashes ({_backslashed(path)}), read it once so, then edit it; or change it with one shell command."
    )


def stale_advice(path: str) -> str:
    """The same as a reminder (advise mode)."""
    return (
        f"[loopguard] Edits of {path} keep failing with 'File has been unexpectedly modified': on Windows, write "
        f"the path with backslashes ({_backslashed(path)}), read it once so, then edit it."
    )


def _backslashed(path: str) -> str:
    return redact_prefix(path.replace("/", "\\"), QUOTE_CHARS)


def resent_denial(file: str, times: int, error: str) -> str:
    """A patch sent again as it is after it failed `times` times on a file that has not changed."""
    return (
        f"REPEAT_TOOL_BLOCKED: this patch of {file} was not run: this very patch has failed {times} times on "
        f"{file}, and the file has not changed since, so it would fail the same way (loop guard policy, not a "
        f"tool failure).{_error(error)} Read {file} (`cat`, `sed -n`, a read tool) and build a new hunk from its "
        "real text, or write the file whole; an edit that applies or a new user message lifts this"
    )


def resent_advice(file: str) -> str:
    """The same as a reminder (advise mode)."""
    return (
        f"[loopguard] This very patch of {file} has already failed, and the file has not changed since: "
        "read it and build a new hunk from its real text."
    )


def doomed_advice(file: str) -> str:
    """The same as a reminder (advise mode)."""
    return (
        f"[loopguard] This patch of {file} expects lines the last patch did not find there, and the file has not "
        "changed since: read it and build the hunk from its real text."
    )


def reread_advice(file: str, failures: int) -> str:
    """The same as a reminder (advise mode)."""
    return (
        f"[loopguard] The last {failures} attempts to change {file} failed and it has not been read since they began: "
        "its text is not what your edits expect. Read it before you edit it again."
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("target_resent_denial", "REPEAT_TOOL_BLOCKED: this patch of ", " this very patch has failed "),
    ("target_resent_advice", "[loopguard] This very patch of ", " has already failed"),
    ("target_stale_denial", "REPEAT_TOOL_BLOCKED: this edit of ", "'File has been unexpectedly modified' (loop"),
    ("target_stale_advice", "[loopguard] Edits of ", " keep failing with 'File has been unexpectedly modified'"),
    ("target_stale_reminder", "[loopguard] This edit of ", " reading it again will not help"),
    ("target_misfit_denial", "REPEAT_TOOL_BLOCKED: this patch of ", " (the guard looked before the call;"),
    ("target_misfit_advice", "[loopguard] This patch of ", " will not apply: its hunk"),
    ("target_doomed_denial", "REPEAT_TOOL_BLOCKED: this patch of ", " looked for and did not find"),
    ("target_doomed_advice", "[loopguard] This patch of ", " expects lines the last patch did not find"),
    ("target_reread_denial", "REPEAT_TOOL_BLOCKED: this edit of ", " has not been read since they began"),
    ("target_reread_denial", "REPEAT_TOOL_BLOCKED: this command was not run: it changes ", " has not been read since they began"),
    ("target_reread_advice", "[loopguard] The last ", " has not been read since they began: its text"),
)
