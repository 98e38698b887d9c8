"""Outcomes: what a tool's result says (its fingerprint, whether it failed, a short preview).

- An outcome fingerprint is a short digest of the normalised `tool_response` (or failure text):
  volatile keys (`duration_ms`, timestamps) and volatile text (`Wall time: 0.3 seconds`,
  `took 12ms`, `in 0.12s`) are removed first (`signature.normalise_text`), so a result that
  differs only in timing is equal. Responses are never stored, only digests and a short preview.
- A failure is told by the client's sign of it, or by the text (an exit code, a refusal).
"""

import json
import re
from typing import Any, NamedTuple

from .redact import redact_prefix
from .signature import (
    _DIGEST_BYTES,
    HEAD_CHARS,
    VOLATILE_KEYS,
    CallKey,
    _feed_bounded,
    blake2b,
    digest,
    json_head,
    normalise_text,
)
from .standin import is_stand_in, shown, token_of

#: Whole-file copies in Claude Code's Write/Edit responses (`content`, `originalFile`; 2.1.332
#: captured payloads): a mutation's outcome is told by its path, type and patch, and hashing two
#: more copies of a 5 MB file would double the cost of the call.
FILE_BODY_KEYS = frozenset({"content", "originalFile"})


def outcome_fingerprint(response: Any, *, mutation: bool = False, now: float | None = None) -> str:
    """Digest of a normalised `tool_response` or error text: volatile keys dropped, volatile text
    removed (within `NORMALISE_WINDOW` characters of each end of long texts; `now`, the event's
    time in epoch seconds, tells the polling's clock from a number of the work:
    `signature.normalise_text`). For a mutation the file bodies are left out (`FILE_BODY_KEYS`)."""
    h = blake2b(digest_size=_DIGEST_BYTES)
    skip = VOLATILE_KEYS
    if mutation and isinstance(response, dict):
        skip = VOLATILE_KEYS | FILE_BODY_KEYS
        bodies = [response.get(key) for key in sorted(FILE_BODY_KEYS)]
        # What the bodies say without hashing them: their sizes, and whether anything changed.
        h.update(repr([len(b) if isinstance(b, str) else None for b in bodies]).encode())
        h.update(b"unchanged" if bodies[0] == bodies[1] else b"changed")
        # A big body is a stand-in (bigtext.py): its token tells different contents apart.
        h.update("".join(token_of(b) for b in bodies if isinstance(b, str) and is_stand_in(b)).encode())
    _feed_bounded(h, response, skip, True, now)
    return h.hexdigest()


def result_text(response: Any, limit: int = 4000) -> str:
    """The human part of a `tool_response` (at least its first `limit` characters), for previews
    quoted back to the model.

    Claude Code Read gives `{"file": {"content"}}`, Bash `{"stdout", "stderr"}`, Grep and Glob
    their matches (2.1.332 captured payloads; `_search_text`); Codex gives a plain string; MCP
    gives a content list.
    """
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return str(file["content"])
        if "stdout" in response or "stderr" in response:
            out = str(response.get("stdout") or "")
            err = str(response.get("stderr") or "")
            return out + ("\n" + err if err else "")
        if isinstance(response.get("filenames"), list):
            return _search_text(response)
        content = response.get("content")
        if isinstance(content, list):
            return _content_text(content)
    if isinstance(response, list):
        return _content_text(response)
    return json_head(response, limit)


def _search_text(response: dict[str, Any]) -> str:
    """What the model reads for a Claude Code Grep or Glob result, which the hook gets
    structured (`{"mode", "filenames", "numFiles", "content", "numMatches"}`; Glob's has no
    `mode` and may be `truncated`), as Claude Code 1.0-2.1 writes it into the transcript
    (corpus transcripts: 'No files found', 'Found 7 files\n…', 'No matches found', a count's
    'Found 103 total occurrences across 6 files.'); pagination notes are left out."""
    names = [str(n) for n in response.get("filenames") or ()]
    mode = response.get("mode")
    content = response.get("content")
    if mode in ("content", "count"):
        text = str(content) if isinstance(content, str) else ""
        if mode == "content":
            return text or "No matches found"
        matches, files = response.get("numMatches", 0), response.get("numFiles", len(names))
        occurrences, named = ("occurrence" if matches == 1 else "occurrences"), ("file" if files == 1 else "files")
        return f"{text}\n\nFound {matches} total {occurrences} across {files} {named}."
    if not names:
        return "No files found"
    if mode is None:  # Glob
        cut = "\n(Results are truncated. Consider using a more specific path or pattern.)" if response.get("truncated") else ""
        return "\n".join(names) + cut
    count = response.get("numFiles", len(names))
    return f"Found {count} {'file' if count == 1 else 'files'}\n" + "\n".join(names)


def _content_text(items: list[Any]) -> str:
    parts = [str(i.get("text")) for i in items if isinstance(i, dict) and "text" in i]
    return "\n".join(parts) if parts else json_head(items, 4000)


def preview(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with a marker when cut (also at a big text's stand-in
    token, which is never shown: bigtext.py)."""
    text = shown(text)
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


def arguments_preview(key: CallKey, limit: int) -> str:
    """A call's canonical arguments as a message may quote them: `key.head` with its secrets
    redacted (`redact_prefix`; a head cut at `HEAD_CHARS` may end in half a secret, which is
    dropped), cut to `limit` characters."""
    return preview(redact_prefix(key.head, limit + 1, complete=len(key.head) <= HEAD_CHARS), limit)


# -- failures ---------------------------------------------------------------------------------

_EXIT_CODE = r"^(?:Exit code:? |Process exited with code )(-?\d+)"

# Codex 0.171.0 PostToolUse gives Bash output as plain text with no exit code
# (openai/codex#34289; captured `PostToolUse__Bash__failed.json`), so a failure can only be
# inferred from what shells and common tools print when they fail.
_FAILURE_TEXT = (
    r"command not found"
    r"|No such file or directory"
    r"|Permission denied"
    r"|Operation not permitted"
    r"|Read-only file system"
    r"|^Traceback \(most recent call last\):"
    r"|^fatal: |^[\w.+-]+: .*\bfatal: "
    r"|^error(?:\[E\d+\])?: "
    r"|^Error: "
    r"|cannot access '"
    r"|\bsyntax error\b"
    # Codex's own apply_patch and sandbox refusals (rollouts of Codex 0.4x-0.5x in the corpus)
    r"|verification failed|Failed to find expected lines|sandbox denied|failed in sandbox"
    r"|^execution error: "
    # Codex's own failure of a command it did not start (0.171.0: a refusal by the execution
    # policy, `hosts/rollout.REFUSED`; checked with the real client)
    r"|^exec_command failed: "
    r"|^command timed out after "
    # Windows PowerShell's error record, under every error it prints (public Codex rollouts run
    # through powershell.exe, 2025-09): `    + FullyQualifiedErrorId : CommandNotFoundException`
    r"|^\s*\+ FullyQualifiedErrorId : "
    # PowerShell 7's concise view of a script that does not parse, in its error colour (corpus
    # rollouts through pwsh.exe, 2025-11): `\x1b[31;1mParserError: \x1b[0m`
    r"|^(?:\x1b\[[\d;]*m)*ParserError: "
)

#: Tools whose plain-text results carry no failure flag, so that a failure is read from the text:
#: Codex's shell and its `apply_patch`, whose output in rollouts of Codex 0.4x-0.5x is the bare
#: error ("execution error: Io(Os { code: 2, kind: NotFound, … })", "Failed to find expected
#: lines in …") with no `Exit code: N` line (corpus rollouts of 2025-10 and 2026-03).
TEXT_FAILURE_TOOLS = frozenset({"Bash", "apply_patch"})

#: Codex 0.171.0 refusing a patch it did not apply, as apply_patch's whole answer (a new user's
#: rollout under `-s read-only`: "patch rejected: writing is blocked by read-only sandbox; rejected
#: by user approval settings"): a failure of apply_patch only (a shell command printing a file that
#: holds the line is a read). Not the user's own "patch rejected by user" (corpus rollout of
#: 2025-11-29): a person said no to one patch, which no rule should count as a failure to work around.
PATCH_REJECTED = "patch rejected: "

#: How Claude Code words a call it refused to run (a permission rule, or the user saying no):
#: the tool never ran and the model got this text as its result (PostToolBatch only; transcript
#: `tool_result`s in the corpus).
REFUSALS = (
    "Permission to use ",
    "The user doesn't want to proceed with this tool use",
    "The user doesn't want to take this action",
    "Claude requested permissions to ",
    "This command requires approval",
)
#: Claude Code's refusal, in print mode (`claude -p`, 2.1.332), of a shell command that writes
#: where no rule allows it: `touch in '/w/z' needs approval. The path is inside …`.
NEEDS_APPROVAL = r"\A[\w.+-]{1,64} in '[^'\n]{1,400}' needs approval\."


class Failure:
    """How sure the guard is that a call failed."""

    NONE = 0
    #: Inferred from output text only (Codex shell output with no exit code): counted for the
    #: same-error rule, but a changed text still counts as new evidence.
    SOFT = 1
    #: Reported by the client: `PostToolUseFailure`, `<tool_use_error>`, `is_error`/`isError`,
    #: or an `Exit code: N` line with N != 0.
    HARD = 2


class Outcome(NamedTuple):
    """What the guard keeps of one call's result. `unchanged`: the host says the result repeats
    one it gave before instead of giving it again (Qwen Code 0.24.4's "unchanged since last
    read" stub for a second read of a file), so it is no new evidence."""

    fingerprint: str
    failure: int
    text: str
    unchanged: bool = False


def classify_response(tool_name: str, response: Any) -> int:
    """Failure level of a `PostToolUse` `tool_response` (see `Failure`). Codex's sandbox wrapper
    states the exit code as `Exit code: N` does (`SANDBOX_EXIT`), so it is as sure a failure."""
    if isinstance(response, dict):
        if response.get("is_error") is True or response.get("isError") is True:
            return Failure.HARD
        return Failure.NONE
    if isinstance(response, str):
        head = response[:4096]
        if "<tool_use_error>" in head or head.startswith(REFUSALS) or re.match(NEEDS_APPROVAL, head):
            return Failure.HARD
        match = re.match(SANDBOX_EXIT, head) or re.compile(_EXIT_CODE, re.MULTILINE).search(head)
        if match:
            return Failure.HARD if match.group(1) != "0" else Failure.NONE
        if tool_name == "apply_patch" and head.startswith(PATCH_REJECTED):
            return Failure.SOFT
        tail = response[-4096:] if len(response) > 8192 else response
        if tool_name in TEXT_FAILURE_TOOLS and re.compile(_FAILURE_TEXT, re.MULTILINE).search(tail):
            return Failure.SOFT
    return Failure.NONE


def text_failure(text: str) -> bool:
    """Whether a plain text reads as a failure of a shell command (what `Failure.SOFT` means)."""
    tail = text[-4096:] if len(text) > 8192 else text
    return re.compile(_FAILURE_TEXT, re.MULTILINE).search(tail) is not None


def outcome_of_response(tool_name: str, response: Any, *, mutation: bool = False, now: float | None = None) -> Outcome:
    """Fingerprint, failure level and human text of a `tool_response` (`now`: the event's time,
    `outcome_fingerprint`)."""
    return Outcome(
        fingerprint=outcome_fingerprint(response, mutation=mutation, now=now),
        failure=classify_response(tool_name, response),
        text=result_text(response),
    )


def outcome_of_error(error: str, now: float | None = None) -> Outcome:
    """A `PostToolUseFailure` `error` text (Claude Code 2.1.332) as an outcome (`now`: the
    event's time, `outcome_fingerprint`)."""
    return Outcome(fingerprint=outcome_fingerprint(error, now=now), failure=Failure.HARD, text=error)


_DEFERRED_HINT = r"\n+This tool's input schema was not in your prompt.*"
_PATHS = r"(?:/[\w.@+-]+)+/?"
#: A Codex sandbox refusal: `failed in sandbox <kind> with execution error: sandbox denied exec
#: error, exit code: N, stdout: <output>, stderr: <error>` (rollouts of Codex 0.2x-0.3x). The
#: refused command's own output (what it printed before the refusal) is not the error.
SANDBOX_STDOUT = r"\Afailed in sandbox .*?(exit code: -?\d+), stdout: .*?, stderr: "
#: The same wrapper up to its exit code (group 1), after which comes what the command printed.
#: Codex 0.2x-0.45 put any non-zero exit under it (openai/codex#4859: `bash -c false` "failed in
#: sandbox"; public rollouts of cli 0.39: a script exiting 1 with empty output), so the wrapper
#: alone says no more than the exit code does.
SANDBOX_EXIT = r"\Afailed in sandbox \S+ with execution error: sandbox denied exec error, exit code: (-?\d+), "
_NUMBERS = r"\d+"


def error_signature(text: str, tool_input: Any = None) -> str:
    """Digest of an error with paths, numbers, client hints and quoted input removed.

    Used by the same-error rule: the same tool failing with the same error under different
    arguments (a sandbox or permission wall, a patch that does not apply). Claude Code appends a
    long hint to first calls of deferred tools (2.1.332 notes), so it is removed too. Errors
    often quote the input they refused (apply_patch's "Failed to find expected lines in <file>:"
    followed by the hunk, Edit's "String: <old_string>"): a line of the error that the call's
    own arguments hold (`tool_input`'s strings) is left out, so a retry with a reworded hunk
    fails "the same way"; so is the command inside Claude Code's permission refusal ("Permission
    to use Bash with command <command> has been denied.", `_REFUSED_COMMAND`), so reworded
    commands refused by one rule are one wall; and so is the name of a program the command runs
    where a line of the error begins with it (`pip: Operation not permitted`, `bash: line 1: uv:
    Operation not permitted`): one sandbox refusing each program in turn is one wall. A Codex
    sandbox refusal is compared without the refused command's stdout (`SANDBOX_STDOUT`): `ls
    .git && git commit` and `git commit` refused by one sandbox rule fail the same way.
    """
    text = re.compile(_DEFERRED_HINT, re.DOTALL).sub("", text[:2000])
    text = re.compile(SANDBOX_STDOUT, re.DOTALL).sub(r"\1, stderr: ", text, count=1)
    if isinstance(tool_input, dict):
        text = _without_quoted_input(text, [v for v in tool_input.values() if isinstance(v, str)])
        text = _without_own_program(text, tool_input)
    text = re.compile(_PATHS).sub("<p>", normalise_text(text))
    return digest(re.compile(_NUMBERS).sub("<n>", text).strip().encode("utf-8", "surrogatepass"))


#: Where a line of a shell's error names the program it ran and, right after its name, says the
#: environment refused it (`pip: Operation not permitted`, `bash: line 1: uv: network access
#: denied by sandbox policy`). Not a program missing (`rg: command not found`): another program
#: may be there. A file the program was refused (`cat: /root/a: Permission denied`) is
#: `_PROGRAM_FILE_SAYS`'s: the program goes, the file stays (other files may be readable).
_PROGRAM_SAYS = (
    r"(?im)^((?:(?:ba|z|da)?sh: )?(?:line \d+: )?)([\w.+-]+): "
    r"(?=Operation not permitted|Permission denied|(?:network )?access denied|denied by|not allowed)"
)


#: Digits written as letters (`_without_own_program`), which the number mask leaves alone.
_LETTERS = str.maketrans("0123456789", "ghijklmnop")
#: A line of a shell's error where the program it ran says it was refused one file (`cat:
#: /root/a: Permission denied`): the program, then the file.
_PROGRAM_FILE_SAYS = (
    r"(?im)^((?:(?:ba|z|da)?sh: )?(?:line \d+: )?)([\w.+-]+): ([^\s:]+): (?=Operation not permitted|Permission denied)"
)


def _without_own_program(text: str, tool_input: dict[str, Any]) -> str:
    """`text` with the name of a program its command runs left out where a line begins with it
    and says the environment refused it (`_PROGRAM_SAYS`), or refused it a file, which is kept
    as a digest written in letters (`_PROGRAM_FILE_SAYS`); as it is for a call with no shell
    command."""
    command = next((v for k in ("command", "cmd") if isinstance(v := tool_input.get(k), str)), None)
    if command is None or ":" not in text:
        return text
    from .shellwords import programs_of  # only for a failed shell call

    programs = set(programs_of(command))
    if not programs:
        return text
    def named(found: re.Match[str]) -> str:
        return found.group(1) + ("<program>" if found.group(2).lower() in programs else found.group(2)) + ": "

    def file_named(found: re.Match[str]) -> str:
        if found.group(2).lower() not in programs:
            return found.group(0)
        # in letters only: numbers are masked after this, and a digest's digits with them
        name = digest(found.group(3).encode("utf-8", "surrogatepass"))[:12].translate(_LETTERS)
        return f"{found.group(1)}<program>: file-{name}: "

    # One file a program was refused (`cat: /root/a: Permission denied`): the same file through
    # another program is the same error, another file another (paths are masked after this).
    text = re.sub(_PROGRAM_FILE_SAYS, file_named, text)
    return re.sub(_PROGRAM_SAYS, named, text)


#: Codex 0.2x-0.3x quotes the lines apply_patch looked for as a JSON list on the message's own
#: line: `Failed to find expected lines ["…", "…"] in <file>` (public rollouts of 2025-09).
_QUOTED_LIST = r'(expected lines \[)((?:"(?:[^"\\]|\\.)*"(?:, )?)*(?:"(?:[^"\\]|\\.)*\Z)?)'
_QUOTED_ITEM = r'"(?:[^"\\]|\\.)*(?:"|\Z)'


#: Claude Code's refusal of a shell call by a permission rule, the refused command inside its one
#: line (public Claude Code 2.1 transcripts): the command is the call's own, not the error. Only
#: this form: a first line that only names the command (Qwen Code's `Command: <cmd>`, newer Codex
#: output's) heads a result whose rest, the same for every command that printed nothing, is not
#: one error.
_REFUSED_COMMAND = r"\A((?:Error: )?Permission to use \S+ with command ).*( has been (?:auto-)?denied\b)"
#: How a deny rule's refusal begins: it names the command it refused (`_REFUSED_COMMAND`), which
#: the other refusals of `PERMISSION_REFUSAL` do not.
DENY_RULE_REFUSAL = r"\A(?:Error: )?Permission to use \S+ with command "
#: Claude Code's refusal of a call by its permission settings, before the call runs: a
#: `permissions.deny` rule's `Permission to use Bash with command <command> has been denied.`
#: (anthropics/claude-code#92398, 2.1.2xx), and a call that needs an approval nobody can give,
#: `Permission to use WebSearch has been denied. IMPORTANT: You *may* attempt …` (2.1.x; `…
#: because Claude Code is running in don't ask mode.`) or `… has been auto-denied (prompts
#: unavailable)` (2.0.74, corpus transcript 4530697c). Not the user's own "no" in the approval
#: dialog (`The user doesn't want to proceed …`), which answers one call. In print mode (`claude
#: -p`, 2.1.332, e2e capture) a call that needs an approval is refused `This command requires
#: approval`, `Claude requested permissions to write to <path>, but you haven't granted it yet.`
#: or `touch in '<path>' needs approval. …` (`NEEDS_APPROVAL`): nobody can approve it there.
PERMISSION_REFUSAL = (
    r"\A(?:Error: )?(?:Permission to use \S+ (?:with command (?s:.*?) )?has been (?:auto-)?denied\b"
    r"|Claude requested permissions to [^\n]{1,600}?, but you haven't granted it yet\b|This command requires approval\b"
    r"|" + NEEDS_APPROVAL[2:] + ")"
)


def for_command(text: str, command: str | None) -> str:
    """`text` as the host words it for `command` where it names the refused command
    (`_REFUSED_COMMAND`: one wall's quote, written for the call that was reminded, shown to a
    retry of another of its calls); any other text as it is."""
    if command is None:
        return text
    return re.sub(_REFUSED_COMMAND, lambda m: m.group(1) + command + m.group(2), text, count=1)


def _without_quoted_input(text: str, values: list[str]) -> str:
    """`text` without the lines after its first (the message itself stays) that one of `values`
    holds, stripped of their indentation, without such lines quoted in a list on the first, and
    with the command inside a permission refusal's first line left out (`_REFUSED_COMMAND`)."""
    if not values:
        return text
    first, *rest = text.split("\n")

    def unquoted(found: re.Match[str]) -> str:
        items = re.findall(_QUOTED_ITEM, found.group(2))
        return found.group(1) + ", ".join(item for item in items if not _held(_decoded(item), values))

    first = re.sub(_QUOTED_LIST, unquoted, first, count=1)
    first = re.sub(_REFUSED_COMMAND, r"\1<input>\2", first, count=1)
    kept = [first]
    for line in rest:
        body = line.strip().removeprefix("String: ").removesuffix("</tool_use_error>")
        if body and any(body in value for value in values):
            continue
        kept.append(line)
    return "\n".join(kept)


def _decoded(item: str) -> str:
    """A JSON string as quoted (its closing quote missing when the error was cut short)."""
    try:
        value = json.loads(item)
    except ValueError:
        return item[1:-1] if len(item) > 1 and item.endswith('"') else item[1:]
    return value if isinstance(value, str) else item[1:-1]


def _held(line: str, values: list[str]) -> bool:
    body = line.strip()
    return not body or any(body in value for value in values)


#: Words of an answer that says something is not yet right (`False`, a failure, an error, an
#: exception's name, `ValueError`): a successful answer without one (`42 passed`, `{"status":
#: "ok"}`, `Finished`) says all is well.
_NEGATIVE = (
    r"(?i)\b(?:false|fail\w*|errors?|not found|no such|missing|mismatch\w*|expected|assert\w*|traceback"
    r"|exception|denied|refused|invalid|cannot|can't|unable|undefined|wrong|incorrect|none|null|nil)\b"
    r"|\b\w+(?-i:Error|Exception)\b"
)
_NONE_FAILED = (
    r"(?i)\b0 (?:failed|failures|errors?)\b|\bno (?:errors?|failures)\b"
    # a field naming an error, empty: `"error": null`, `'errors': []`, `error=None` says there is none
    r"|[\"']?\b(?:errors?|err|failures?|exception)[\"']?\s*[:=]\s*(?:null|None|nil|\[\s*\]|\{\s*\}|\"\"|'')(?=\s*[,}\])\n]|\s*\Z)"
)


#: Field names that give a verdict on the call or on the change it made (`success`, `isValid`,
#: `was_applied`, `updated`, `allowed`): false, they say it did not happen.
_VERDICT_NAMES = (
    r"success\w*|succe(?:ed|eded)|ok|valid|passed|done|complete[ds]?|applied|found|exists?|updated|changed"
    r"|modified|written|saved|created|deleted|removed|added|inserted|replaced|moved|renamed|committed|merged"
    r"|sent|delivered|stored|persisted|executed|accepted|acknowledged|matched|processed|uploaded|imported"
    r"|installed|allowed|authori[sz]ed|permitted|granted|healthy|ready|available|reachable|connected"
)
#: A field set to false or null whose name is no verdict (`"active": false`, `"parentId": null`):
#: the state of what was changed, as an acknowledgement reports it (`says_not_right(states=True)`).
_STATE_FIELD = (
    r"(?i)(?<![\w-])[\"']?(?!(?:is|was|has|had)?[_-]?(?:" + _VERDICT_NAMES + r")[\"'\s:=])"
    r"[a-z_][\w-]*[\"']?\s*[:=]\s*(?:false|null|none|nil)(?=\s*[,}\])\n]|\s*\Z)"
)


def says_not_right(text: str, *, states: bool = False) -> bool:
    """Whether an answer (its first 4 KiB) holds a word saying something is not right yet
    (`_NEGATIVE`; "0 failed", "no errors" and an empty error field, `"error": null`, are not
    such words). `states`: the answer acknowledges a change, and a field of it that is false or
    null but names no verdict (`"active": false`, `_STATE_FIELD`) is the changed thing's state,
    not a word against it (`{"success": false}` still is one)."""
    head = re.sub(_NONE_FAILED, "", text[:4096])
    if states:
        head = re.sub(_STATE_FIELD, "", head)
    return re.search(_NEGATIVE, head) is not None
