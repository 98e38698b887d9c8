"""A patch in apply_patch's format (Codex's `*** Begin Patch` … `*** End Patch`), read as Codex's
apply_patch reads it, and whether its hunks fit a file's text.

Facts about apply_patch come from codex-rs/apply-patch (`parser.rs`: the chunks; `lib.rs`: the
failures; `seek_sequence.rs`: how a hunk's lines are looked for), from its failures as the corpus
rollouts record them (Codex 0.46 to 0.139), and from running the apply_patch of Codex 0.171.0
(`tests/e2e/test_codex_apply_patch.py`). A hunk's `@@` context, then its old lines, are looked
for after the previous hunk, first as they are, then with trailing, then with both ends'
whitespace trimmed, then with typographic dashes, quotes and spaces read as ASCII
(`_PUNCTUATION`); old lines whose last is empty, once more without it. Not found: `Failed to
find context '…'` or `Failed to find expected lines`.

Pure: text in, answers out. The host layer reads the file (`hosts/workspace.misfit`).
"""

from __future__ import annotations

import json
import re

from .outcome import preview
from .redact import redact_prefix

#: A patch's update of a file, and its creation of one.
UPDATE = r"(?m)^\*\*\* Update File: "
ADD = r"(?m)^\*\*\* Add File: "
#: The most characters of a patch, or of apply_patch's error, read.
PATCH_CHARS = 16384
#: The most characters of a line quoted back to the model.
QUOTE_CHARS = 160

#: apply_patch's failure that quotes the lines it looked for: Codex 0.4x-0.6x as a list
#: (`Failed to find expected lines ["a", "b"] in /w/f.py`), later ones as text
#: (`Failed to find expected lines in /w/f.py:\na\nb`); corpus rollouts.
_MISSING_LIST = r"Failed to find expected lines (\[.*?\]) in "
_MISSING_TEXT = r"Failed to find expected lines in [^\n]*?:\n(.*)"

#: seek_sequence.rs's last pass: these dashes, quotes and spaces are compared as ASCII.
_PUNCTUATION = str.maketrans(
    dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-")
    | dict.fromkeys("\u2018\u2019\u201a\u201b", "'")
    | dict.fromkeys("\u201c\u201d\u201e\u201f", '"')
    | dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " ")
)

#: A chunk as apply_patch parses it: its `@@` context (None for a bare `@@` or none: looked for
#: from the top; the text after `@@ ` verbatim, as Codex seeks it exactly first), its old lines,
#: and whether it ends with `*** End of File` (then looked for at the file's end only).
Chunk = tuple[str | None, list[str], bool]


def missing_lines(error: str) -> list[str] | None:
    """The lines a failed apply_patch says it could not find (`_MISSING_LIST`, `_MISSING_TEXT`),
    or None when the error quotes none."""
    found = re.search(_MISSING_LIST, error[:PATCH_CHARS], re.DOTALL)
    if found is not None:
        try:
            lines = json.loads(found.group(1))
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            return None
        return [str(line) for line in lines] if isinstance(lines, list) and lines else None
    found = re.search(_MISSING_TEXT, error[:PATCH_CHARS], re.DOTALL)
    if found is None:
        return None
    lines = found.group(1).rstrip("\n").split("\n")
    return lines if any(line.strip() for line in lines) else None


def chunks(patch: str) -> list[Chunk] | None:
    """The chunks of a patch that updates one file, parsed as apply_patch parses them (lines
    split as Rust's `lines()`, blank lines between chunks skipped, a chunk ended by a line that
    is no diff line); None for a patch of several files or none, a move, or a patch whose text
    is cut (no line ends its last chunk)."""
    if len(re.findall(UPDATE, patch)) != 1 or re.search(ADD, patch) or "*** Delete File: " in patch:
        return None
    body = [line.removesuffix("\r") for line in re.split(UPDATE, patch, maxsplit=1)[1].split("\n")[1:]]
    found: list[Chunk] = []
    i = 0
    while i < len(body):
        line = body[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("*"):
            return None if line.startswith("*** Move to: ") else found
        if line == "@@" or line.startswith("@@ "):
            anchor: str | None = line[3:] or (None if line == "@@" else "")
            i += 1
        elif found:
            return None  # Codex: a later chunk must start with `@@`
        else:
            anchor = None
        old: list[str] = []
        eof, parsed = False, 0
        while i < len(body):
            line = body[i]
            if line == "*** End of File":
                eof, i = True, i + 1
                break
            if line and line[0] not in " +-":
                break
            if line[:1] != "+":
                old.append(line[1:])
            parsed, i = parsed + 1, i + 1
        else:
            return None  # the text ends inside the chunk: cut
        if not parsed:
            return None
        found.append((anchor, old, eof))
    return None


def sought(old: list[str]) -> list[str]:
    """The least of a chunk's old lines apply_patch looks for: without its last line when that
    is empty (Codex retries so, for the newline at the file's end)."""
    return old[:-1] if old and old[-1] == "" else old


def updated_path(patch: str) -> str | None:
    """The path a patch's one `*** Update File:` names, as written (relative or absolute); None
    for a patch that updates no file or several."""
    found = re.findall(UPDATE + r"(.*)$", patch)
    return found[0].strip() or None if len(found) == 1 else None


def unseen_through_shell(patch: str) -> bool:
    """Whether a patch is sent through the shell (not apply_patch's own input, which starts with
    `*** Begin Patch`) so that the hook payload alone cannot tell what apply_patch gets, or where:
    a relative path (Codex runs it in the call's `workdir`, which its hook payload drops,
    research/codex-hooks.md row 11, so the turn's `cwd` may hold another file of that name), or
    a patch that is no quoted heredoc's body (`apply_patch "…"`, `<<EOF`: the shell takes out
    its `\\"`, `'\\''`, `$…` before apply_patch reads it). The call's own record in the rollout
    may tell (`recorded_shell_patch`)."""
    if patch.lstrip().startswith("*** Begin Patch"):
        return False
    path = updated_path(patch)
    return path is None or not path.startswith("/") or not _heredoc_alone(patch)  # C:\\… too: not judged


#: `apply_patch <<'EOF'` alone before the patch: inside `bash -lc "…"` the body is in double
#: quotes again, and an unquoted delimiter lets the shell expand the body.
_HEREDOC_ALONE = r"\s*(?:\S*/)?apply_patch\s*<<-?\s*(['\"])\w+\1[ \t]*\n\s*"


def _heredoc_alone(command: str) -> bool:
    mark = command.find("*** Begin Patch")
    return mark >= 0 and re.fullmatch(_HEREDOC_ALONE, command[:mark]) is not None


def recorded_shell_patch(arguments: object) -> tuple[str, str | None] | None:
    """What a Codex shell call's recorded arguments (the JSON object of its rollout
    `function_call`) say of a patch it has apply_patch apply: `(patch, workdir)`, the patch as
    apply_patch reads it and the folder the call runs in as the model gave it (None: the turn's
    `cwd`); None for a call that updates no one file, or whose patch the shell may change first.

    - `shell`'s argv, `{"command": ["apply_patch", PATCH], "workdir": …}` (corpus rollouts of
      Codex 0.4x-0.6x, 2025): apply_patch gets PATCH as it is;
    - a command line (`exec_command`'s `cmd`, Codex 0.171.0; `shell`'s `["bash", "-lc", LINE]`):
      only `apply_patch <<'EOF'` alone (`_HEREDOC_ALONE`), whose body the shell leaves as it is.
    """
    if not isinstance(arguments, dict):
        return None
    workdir = arguments.get("workdir")
    command = arguments.get("command", arguments.get("cmd"))
    if workdir is not None and not isinstance(workdir, str):
        return None
    if isinstance(command, list) and len(command) == 3 and command[1] in ("-lc", "-c") and command[0] in ("bash", "sh", "zsh"):
        command = command[2]
    if isinstance(command, list) and len(command) == 2 and command[0] in ("apply_patch", "applypatch"):
        patch = command[1] if isinstance(command[1], str) else None
    else:
        patch = command if isinstance(command, str) and _heredoc_alone(command) else None
    if patch is None or updated_path(patch) is None:
        return None
    return patch[:PATCH_CHARS], workdir or None


#: What Rust's `trim` takes off (Unicode White_Space): Python's `strip()` takes \x1c-\x1f too.
_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


def _rstrip(line: str) -> str:
    return line.rstrip(_WHITESPACE)


def _strip(line: str) -> str:
    return line.strip(_WHITESPACE)


def _loose(line: str) -> str:
    line = line.strip(_WHITESPACE)
    return line if line.isascii() else line.translate(_PUNCTUATION)


#: How seek_sequence.rs compares lines, pass after pass: as they are, without trailing
#: whitespace, without whitespace at either end, read loosely.
_FORMS = (None, _rstrip, _strip, _loose)


class _Unsure(Exception):
    """The search of a patch's hunks went past `MAX_COMPARED_LINES`: no verdict."""


#: The most lines `misfit` compares for one patch (a hunk's worth at each place its first
#: `_LEAD` lines match): a hunk of thousands of blank lines against a file of blank lines took
#: seconds of CPU on the hook path (a hostile test); past it the patch is not judged (None),
#: never denied. A place where only the first line matches (a `}`, a blank line, every few lines
#: of a large file) is not charged: charged so, a review found real misfits given up in files of
#: 10,000-40,000 lines, whose search costs hundredths of a second.
MAX_COMPARED_LINES = 2_000_000
_LEAD = 4


def _seek(
    lines: list[str],
    pattern: list[str],
    start: int,
    eof: bool,
    seen: dict[int, list[str]],
    budget: list[int],
    *,
    where: bool = True,
) -> int | None:
    """Where apply_patch finds `pattern` in `lines` (seek_sequence.rs): the first place at or
    after `start` (for a hunk marked `*** End of File`, from the file's end, or from `start` where
    that is earlier: releases differ, and the earlier finds more) whose lines equal the pattern's
    as compared by one of `_FORMS`, each form tried over the whole range before the next; None
    when there is none. Without `where` (nothing is looked for after it), only whether it is
    found: some place by the loosest form, which every other form's match is too. `seen` keeps
    `lines` in each form, by the form's index; `budget` the lines still to compare.

    Raises:
        _Unsure: past the budget.
    """
    n = len(pattern)
    if n == 0:
        return start
    if n > len(lines):
        return None
    last = len(lines) - n
    first = min(start, last) if eof else start
    for k, form in enumerate(_FORMS):
        if not where and form is not _loose:
            continue
        if form is None:
            have, want = lines, pattern
        else:
            have = seen.get(k) or seen.setdefault(k, [form(line) for line in lines])
            want = [form(line) for line in pattern]
        head = want[0]
        lead = min(n, _LEAD)
        for i in range(first, last + 1):
            if have[i] == head and have[i : i + lead] == want[:lead]:
                budget[0] -= n  # a place the hunk's first lines match: the whole hunk is compared
                if budget[0] < 0:
                    raise _Unsure
                if have[i : i + n] == want:
                    return i
    return None


def _quote(old: list[str]) -> str:
    """The first non-blank line, stripped, its secrets redacted before it is cut (a token cut in
    two escapes its pattern), at most `QUOTE_CHARS` characters."""
    line = next((line.strip() for line in old if line.strip()), "")
    return preview(redact_prefix(line, QUOTE_CHARS + 1), QUOTE_CHARS)


def misfit(patch: str, text: str) -> str | None:
    """Whether apply_patch would refuse a patch of a file whose text is `text` because a hunk
    does not fit it: a line (stripped, redacted, at most `QUOTE_CHARS` characters; "" for none)
    of the first hunk whose `@@` context or old lines it does not find where it looks for them:
    (`Failed to find context` / `Failed to find expected lines`): its context, or its first
    non-blank old line the file holds nowhere, else its first (`_absent`); None when every hunk
    is found, the patch is not one `chunks` reads, or finding out would compare more than
    `MAX_COMPARED_LINES` lines.

    It looks as lib.rs's `compute_replacements` does (`_refused`). Where releases differ, it
    answers None when any of them would apply the patch: a CRLF file's lines are read with and
    without their `\r`, a `@@` context as written and without trailing blanks (a blank one as
    none; Codex 0.171.0 reads the second of each), and a hunk at the end of the file is looked
    for from the previous hunk on too (`_seek`). Checked against the real apply_patch of Codex
    0.171.0 (`tests/e2e/test_codex_apply_patch.py`)."""
    parsed = chunks(patch)
    if not parsed:
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # lib.rs drops the empty string after the final newline
    # Codex 0.171.0's reading first (lines without their `\r`, a context without trailing
    # blanks), then the others: the first answer is the refusal it quotes.
    texts = [[line.removesuffix("\r") for line in lines], lines] if "\r" in text else [lines]
    trimmed = [(None if anchor is None else _rstrip(anchor) or None, old, eof) for anchor, old, eof in parsed]
    readings = [trimmed, parsed] if trimmed != parsed else [parsed]
    refused: str | None = None
    budget = [MAX_COMPARED_LINES]
    for file_lines in texts:
        seen: dict[int, list[str]] = {}
        for reading in readings:
            try:
                answer = _refused(reading, file_lines, seen, budget)
            except _Unsure:
                return None
            if answer is None:
                return None
            refused = answer if refused is None else refused
    return refused


def _refused(parsed: list[Chunk], lines: list[str], seen: dict[int, list[str]], budget: list[int]) -> str | None:
    """`misfit` for one reading of the chunks: hunk after hunk, each from the line after the
    previous one's match (after a hunk at the end of the file, from where that hunk was looked
    for: some releases fall back to an empty match there), its `@@` context first (then the old
    lines after it), its old lines without their last empty line when not found with it."""
    index = 0
    for i, (anchor, old, eof) in enumerate(parsed):
        if anchor is not None:
            found = _seek(lines, [anchor], index, False, seen, budget)
            if found is None:
                return _quote([anchor])
            index = found + 1
        if not old:
            continue  # a pure insertion: at the end
        pattern = old
        where = i < len(parsed) - 1  # the last hunk: whether it is found, not where
        found = _seek(lines, pattern, index, eof, seen, budget, where=where)
        if found is None and pattern[-1] == "":
            pattern = pattern[:-1]
            found = _seek(lines, pattern, index, eof, seen, budget, where=where)
        if found is None:
            return _quote(_absent(old, lines, seen))
        if not eof:  # where a hunk at the end leaves the next one to look from differs by release
            index = found + len(pattern)
    return None


def _absent(old: list[str], lines: list[str], seen: dict[int, list[str]]) -> list[str]:
    """From a hunk's first non-blank line that the file holds nowhere, even read loosely (the
    line to quote: the model can look for the others and find them); `old` when it holds each."""
    k = len(_FORMS) - 1
    have = set(seen.get(k) or seen.setdefault(k, [_loose(line) for line in lines]))
    return next((old[i:] for i, line in enumerate(old) if line.strip() and _loose(line) not in have), old)


def recorded_misfit(patch: str, error: str) -> str | None:
    """What `misfit` would have said of a patch before it ran, read from apply_patch's failure
    of it, for a replay, which has no file to look at: the `_quote` of the hunk lines or the
    `@@` context that `error` says apply_patch did not find; None for any other outcome."""
    if chunks(patch) is None:
        return None
    lines = missing_lines(error)
    if lines is not None:
        return _quote(lines)
    found = re.search(r"Failed to find context '(.*)' in ", error[:PATCH_CHARS])
    return _quote([found.group(1)]) if found is not None else None
