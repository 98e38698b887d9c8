"""Same error: one tool failing the same way under different arguments (`same_error_remind_at`).

Two kinds of wall:

- a call that names no file (a shell command, a fetch) failing with the same error under
  different arguments: a sandbox, a permission rule, a missing tool, not a typo;
- a call on one file (an edit, a patch, a read) failing the same way on that file again and
  again, its arguments reworded each time: the patch that does not apply, the file that is not
  where the agent thinks. Distinct files failing once each are several answers, not a wall.

Errors are compared by `outcome.error_signature` (paths, numbers and the input they quote
removed), files by their last two path components (`tools.target_of`: a retry with the
absolute path is the same file). A failure counts for the rule only as a retry the model chose
after it saw the error: calls issued together (a parallel batch, all refused by one permission
rule) are one round. The rule reminds once the calls that failed this way, at least two of them distinct, reach
`same_error_remind_at` distinct calls or rounds (and at least two rounds), and again at twice
the threshold, in a later round than the first (a batch of parallel siblings that passes both
thresholds at once is reminded once). Identical calls alone are the repeat rule's.

A fetch's page not found (HTTP 404, 410) is an error of its URL (`_missing_page`): several
URLs missing are several answers, one URL missing under reworded prompts a wall of that page,
which only a success of that page ends (another page of the site working says nothing of it,
nor does a search: neither disarms it; any other success does, as for any wall of calls that
name no file: a build, a server started, a deploy or a subagent may have put the page there),
and whose texts say to check the address, not that the environment is limited. At most
`MAX_PAGES` such walls are kept, the oldest dropped first: guessed addresses never push other
walls out of the table.

Not counted: a failure of a call whose edits the workspace saw apply (`ResultContext.changed`:
`sed -i … a.py && pytest`, a fix and a rerun in one line); an error that says nothing but
`Exit code 1` (grep, test, `lsof`, `ps | grep`, `nc -z`, a check script answering "none",
different questions with the same empty answer; Claude Code 2.1.332 gives a failing command
with no output as that line only), Claude Code 1.0.x's bare `Error` and `grep -c`'s `0` from a
command that asks or silences itself (`_asked`), and failures from before a call that changed
a file succeeded (an edit or a patch): on that file, and walls met by calls that name no file,
since an edit before a rerun is ordinary work. An edit, write or patch tool's call that left its
file as it was (the workspace, or a Write's result, says so: `ResultContext.unchanged`) ends only
the walls of calls that name no file (its mtime moved, which a reloader acts on): that file's
failures stand. A shell edit ends them all whatever the workspace shows (the command may change
what no file it names shows).
Its slot is `Agent.rules["same_error"]`: `{tool:file:error: ErrorEntry}`, at most `MAX_ERRORS`
entries, which the wall escalation below reads and writes too.

Balanced escalates a wall that goes on after its reminder (`same_error_deny_at`,
`same_error_stop_at`): an identical retry of a call that already failed this way is denied,
and a wall of validation rejections ends the turn (below, which also says what makes a call part
of a wall and what ends or disarms one). A success disarms a wall (`answered`);
an edit of its file, also by `sed -i` or `perl -pi`, ends it.

Escalation (the call side, `on_call`):

Escalation of a same-error wall that goes on after its reminder (`same_error_deny_at`,
`same_error_stop_at`; balanced denies at 4 and leaves the end of turn to the repeat rule, stop
0; 0 in the seed profiles).

The same-error rule (`same_error.py`) reminds when calls keep failing the same way. When the
model goes on and sends again a call that already failed this way (an identical retry: it
would fail the same way), it is denied at PreToolUse, with the error quoted and what to do
instead, unless it is a poll (a server starting, CI pending, a rate limit: it comes
`slow_repeat_seconds` or more after its last run, or first sleeps half as long,
`shellwords.sleeps_first`, or in a call of its own right before it, `ledger.waited_first`) or
the model has chosen fewer than `same_error_deny_at` rounds (a parallel batch of distinct calls
is one), or it is a call the permission settings refused (`outcome.PERMISSION_REFUSAL`, the
wall's `permission` flag) while the refused-again rule is on:
that rule denies it (from its `refused_again_deny_at`th attempt, 2 in balanced) and lets it go
ahead in another permission mode, which this rule does not know. A new call of the wall goes
ahead: it may be the fix (a patch matching the file's real text, a command with another flag),
and on held-out real sessions denying such calls denied the working one. A program Codex's sandbox killed
more than once (`KILLED`: `sandbox error: command was killed by a signal`, Codex's own report, not
those words in a command's output) is the exception: every run of it is killed again, so a new run
of it is denied as well (`killed_denial`, which says to run it another way), and a shell command
that only reads does not disarm such a wall; an interpreter or runner (`_RUNNERS`: `python3`,
`npm`, `make`) is not the program, its other scripts and modules go ahead. With `same_error_stop_at`
set, the call after the denial goes ahead (the model may have changed its approach); once one
has failed the same way again, the next one ends the turn (Claude Code `continue: false`;
Codex takes no end of turn at PreToolUse: a denial with a final text; on DSH tool calls pause
for the rest of the turn, `delivery.end_of_turn`). Balanced leaves that end to the repeat
rule's `stop_at`.

A call is in a wall when it is the same tool, on the same file (`tools.target_of`; a patch of
the same kind) or, for a call that names no file, run the same way (`shape_of`: the programs of
a shell command, the host a fetch asks) as one of the calls that failed; only a call whose
signature is one of the wall's failed calls is denied or ends the turn. Thresholds count the
wall's rounds as its reminder does (`wall_round`: `max(distinct calls, rounds)`): the call
that would be round `same_error_deny_at` is denied once the wall has been reminded, and after
that denial and one more such failure, the call that would be round `same_error_stop_at` (or
later) ends the turn. Calls issued with the denied one (one parallel batch, within
`parallel_window_seconds`) are denied with it. A call whose way of running cannot be told (a
tool with no command or URL) is never denied: never every shell call.

A call that fires no PreToolUse cannot be denied: a Claude Code input-validation rejection (an
Edit whose `old_string` is not in the file, a Write with no `file_path`) is seen only by
PostToolBatch (research/claude-code-hooks.md; anthropics/claude-code#72996), which can end the
turn (`continue: false`, 2.1.332 LAB). A new round of such a reminded wall (not a sibling of
the batch that was reminded), from round `same_error_deny_at` on, ends the turn there; on a
post event that cannot end it, it is a reminder. Such a wall is never denied at PreToolUse:
the host validates the next call before it runs, so an Edit made right after a Read goes ahead,
and a wrong one is rejected and ends the turn.

A wall ends when a call of the same tool run the same way succeeds (it works now), a wall of
a tool other than a shell naming no file when any call of that tool succeeds (a fetch that
works for other pages: each failure answered what its call asked), unless the wall is of one
other host (that host keeps refusing: it stands, and only that host's failures join it), and, as
before, when a call that changes the file succeeds (`same_error.py`: an edit tool, a patch,
`sed -i`). Any other success disarms every reminded wall of calls that name no file (the agent
found a way on, or fixed something the guard cannot see): its rounds and reminder are kept, and
it is armed again once it has failed two more rounds (one flaky failure does not arm it).
"""

import re
from typing import TYPE_CHECKING, Any, cast

from ..core.ledger import MAX_ID_CHARS, Agent, Limits, drop_slot, issued, new_round, slot, slots, trim, waited_first
from ..core.messages import PREFIX, quote
from ..core.outcome import PERMISSION_REFUSAL, Failure, error_signature, for_command, preview
from ..core.redact import redact_prefix
from ..core.shellwords import (
    MAX_SHELL_CHARS,
    SHELL_KEYS,
    SHELL_TOOLS,
    WRAPPERS,
    reads_only,
    reruns_work,
    shell_command,
    sleeps_first,
)
from ..core.signature import digest
from ..core.tools import change_paths, edits_in_place, matches, named_path, only_looks, short_path, target_of
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "same_error"
MAX_ERRORS = 32
MAX_ERROR_SIGS = 16  # signatures kept per same-error entry
MAX_PAGES = 8  # walls of one missing page (`_missing_page`) kept, of the MAX_ERRORS

if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    class ErrorEntry(TypedDict):
        """One tool:target:error signature of the same-error rule."""

        sigs: list[str]  # the call signatures that failed this way, at most MAX_ERROR_SIGS
        t: float
        n: NotRequired[int]  # failing calls
        seen: NotRequired[float]  # when the first result of the latest round came back
        rounds: NotRequired[int]  # rounds of calls that failed this way: each made after the model saw the last
        level: NotRequired[int]  # reminders given for this error (1 at the threshold, 2 at twice it)
        target: NotRequired[str]  # a digest of the name of the file the calls worked on (`tools.target_of`)
        shapes: NotRequired[list[str]]  # digests of how the failing calls ran (`shape_of`)
        quote: NotRequired[str]  # the error as the reminder quoted it, cut to `QUOTE_CHARS`
        permission: NotRequired[bool]  # that error is a permission refusal (`outcome.PERMISSION_REFUSAL`)
        denied_t: NotRequired[float]  # when a call of this wall was denied after the reminder (escalation)
        denied_r: NotRequired[int]  # the wall's rounds then
        late: NotRequired[bool]  # its last failure was seen only by a post event (escalation)
        idle: NotRequired[int]  # its rounds when a call last succeeded: not armed until two more (escalation)
        killed: NotRequired[bool]  # its error is Codex's sandbox killing the command (`KILLED`, escalation)
        kills_itself: NotRequired[bool]  # its reminded call killed its own shell (`_kills_itself`, escalation)
        sealed: NotRequired[bool]  # one host's wall that a success of the tool elsewhere left standing
        again: NotRequired[list[str]]  # shapes the sandbox killed more than once (`KILLED`, escalation)
        page: NotRequired[str]  # a digest of the URL of a page not found, for a wall of that page (`_missing_page`)
        at: NotRequired[int]  # its rounds at the last reminder: the next one waits for a later round
else:
    ErrorEntry = dict


def table(agent: Agent) -> "dict[str, ErrorEntry]":
    """The rule's table of the agent (created on first use)."""
    return cast("dict[str, ErrorEntry]", slots(agent).setdefault(NAME, {}))


def _walls(agent: Agent) -> "dict[str, ErrorEntry] | None":
    return cast("dict[str, ErrorEntry] | None", slot(agent, NAME))


def fit(agent: Agent, share: Limits) -> None:
    errors = _walls(agent)
    if errors:
        trim(errors, share.table(MAX_ERRORS), lambda k: _when(errors[k]))


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: every wall is forgotten."""
    drop_slot(agent, NAME)


#: Codex's sandbox killing the command it runs (`failed in sandbox: sandbox error: command was
#: killed by a signal`: corpus rollout of 2025-10-17, cli 0.46.0, pytest killed five ways; public
#: Codex transcripts and notes show `pytest -q`, a built program and `bun run dev` killed the same
#: way). Every run of a program the sandbox kills is killed again, whatever its arguments. Only
#: Codex's own report, the whole start of the result (after at most a short `failed in sandbox:`
#: lead): the same words inside a command's output (a test that checks them, a `cat` of a log,
#: Claude Code's `Exit code 1` and what the program printed) are the program's answer.
KILLED = r"\A\s*(?:[A-Za-z][A-Za-z ]{0,40}:\s*)?sandbox error: command was killed by a signal\b"
#: A command that kills by a pattern of whole command lines (`pkill -f`, `kill $(pgrep -f …)`):
#: the command's own shell holds the pattern in its command line, so it is killed with its
#: target, and what follows the kill never runs. Claude Code answers such a command with an exit
#: status of a signal and no other text (`Exit code 144`: 121 of the 219 `pkill … -f` calls in
#: the 676 distinct public Claude Code transcripts on hand, 2.1.x; two held-out sets had walls of
#: them reminded with the text of an environment limit).
_KILLS_BY_PATTERN = (
    r"\bpkill\b[^\n;|&]*?\s-[A-Za-z]*f|\bkill\b[^\n;|&]*\$\(\s*pgrep\b[^)\n]*?\s-[A-Za-z]*f"
    r"|\bpgrep\b[^\n;|&]*?\s-[A-Za-z]*f[^\n;&]*\|\s*xargs\s+(?:-\S+\s+)*kill\b"
)
_SIGNALLED = r"\A\s*Exit code:? 1(?:37|43|44)\b"
#: A failure that is only an exit status of 1 (Claude Code 2.1, Codex): never counted, whatever
#: ran. A polled port (`nc -z`), a check script, `command -v`, a test run whose output went to a
#: log answer "no" that way too, and such failures of several programs would make one wall,
#: denied by the identical retry of a poll (a hostile review of stop 51). A shell broken so that
#: it answers every command that way (its folder deleted) goes unjudged.
_EXIT_ONE = r"\A\s*(?:Exit code:? |Process exited with code )1\s*\Z"
#: Other failure texts that say nothing but that the command failed: Claude Code 1.0.x's `Error`
#: (whatever the status) and `grep -c`'s count of none, `0`: counted unless the command asks
#: (`_asked`).
_SAYS_NOTHING = r"\A\s*(?:(?:Exit code:? |Process exited with code )1\s+0|Error|0)\s*\Z"
#: Programs whose failure with nothing printed is an answer, "none" or "no": a search, a test, a
#: look for a process, a port or a program, a comparison, git's queries (lower case).
_ASKS = frozenset(
    {
        "grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "test", "[", "[[", "pgrep", "pidof", "pkill",
        "killall", "which", "where", "where.exe", "command", "type", "hash", "lsof", "fuser", "diff", "cmp",
        "false", "find", "ps", "git", "jq", "findstr", "select-string", "test-path", "exit", "timeout",
        "nc", "ncat", "netcat", "awk", "wait", "locate", "ugrep", "ggrep", "yq", "curl", "wget",
    }
)
#: A command that silences itself (its output to /dev/null, `-q`, `--quiet`, `-s`) or asks in code
#: of its own (`python3 -c '…sys.exit(1)'`, `./check.sh`): its status is the answer it asks for.
_SILENCED = (
    r"/dev/null|\$null|\bNUL\b|(?<![\w-])(?:-[A-Za-z]*[qs][A-Za-z]*|--quiet|--silent)\b"
    r"|\b(?:python[\d.]*|py|node|ruby|perl|php|deno|bun)\s+-[ce]\b|(?:^|[\s;&|(])\.{0,2}/\S*\.(?:sh|py)\b"
)


def on_result(ctx: ResultContext) -> Decision | None:
    """Record a failure; remind when it has become a wall (module docstring)."""
    outcome, tool = ctx.outcome, ctx.tool
    threshold = ctx.config.same_error_remind_at
    if not threshold:
        return None
    errors = table(ctx.agent)
    target = target_of(ctx.tool_input, ctx.config)
    # The ledger keeps a short digest of the file's name, not the name.
    file_id = file_id_of(target)
    escalates = ctx.config.same_error_deny_at > 0
    fetches = file_id is None and not _runs_commands(tool, ctx.tool_input)
    failed = outcome.failure != Failure.NONE
    # How the call ran matters to a failure, and to a success only where there are walls to end:
    # most calls succeed with none (a shell command's programs are read through three patterns).
    shape = shape_of(ctx.tool_input, has_file=target is not None) if (escalates or fetches) and (failed or errors) else None
    if not failed:
        _succeeded(ctx, file_id, shape, escalates=escalates, fetches=fetches)
        return None
    if ctx.changed:
        return None  # its edits applied, then what it ran after them failed (`sed -i … && pytest`): a fix and a rerun
    bare = ctx.error_text[:64]
    if re.match(_EXIT_ONE, bare) or (re.match(_SAYS_NOTHING, bare) and _asked(ctx.tool, ctx.tool_input, shape)):
        return None
    # A call first seen by PostToolBatch whose answer is a validation rejection never ran; one
    # whose PreToolUse record the state budget dropped ran, and its answer says so.
    rejected = bool(ctx.call.get("late")) and "<tool_use_error>" in outcome.text[:256]
    page = _missing_page(ctx.tool_input, ctx.error_text) if fetches else None
    signature = error_signature(ctx.error_text, ctx.tool_input) + (f"@{page}" if page else "")
    key = f"{tool[:MAX_ID_CHARS]}:{file_id or ''}:{signature}"
    entry = errors.setdefault(key, {"sigs": [], "t": ctx.call["t"]})
    if page:
        entry["page"] = page
        _keep_pages(errors, key)
    if entry.get("sealed") is True and shape is not None and shape_id(shape) not in entry.get("shapes", ()):
        # One host's wall that the tool's successes elsewhere left standing: another host's
        # failure is the answer to its own call, and starts a wall of its own.
        entry = errors[key] = {"sigs": [], "t": ctx.call["t"]}
    rounds_before, level = entry.get("rounds", 0), entry.get("level", 0)
    # Calls seen first in one batch event (validation rejections issued together) came before
    # the model saw the reminder given at the first of them: no round after the reminder.
    sibling = rejected and entry["sigs"] and entry["t"] == ctx.call["t"]
    if file_id is not None:
        entry["target"] = file_id
    entry["t"] = ctx.call["t"]
    entry["n"] = entry.get("n", 0) + 1
    if not ctx.call.get("retry"):  # an escalated retry runs the refused call anew: no new round
        _count_round(entry, issued=issued(ctx.call), answered=ctx.agent["updated"])
    if ctx.call["sig"] not in entry["sigs"]:
        entry["sigs"].append(ctx.call["sig"])
        del entry["sigs"][:-MAX_ERROR_SIGS]
    # Codex's report that its sandbox killed the command, and whether it killed this program before.
    kill = escalates and re.match(KILLED, ctx.error_text[:512]) is not None
    killed_before = kill and shape is not None and shape_id(shape) in entry.get("shapes", ())
    note_shape(entry, shape)
    if escalates:
        failed_again(entry, rejected=rejected)
        if killed_before and shape is not None:
            _killed_again(entry, shape)
    trim(errors, MAX_ERRORS, lambda k: _when(errors[k]))
    distinct, rounds = len(entry["sigs"]), entry.get("rounds", 1)
    # The second reminder comes in a later round than the first: the siblings of one batch that
    # reach twice the threshold together are one reminder, not two of one wall in one answer.
    later = level == 0 or rounds > entry.get("at", 0)
    due = rounds >= 2 and distinct >= 2 and max(distinct, rounds) >= threshold * (level + 1) and level < 2 and later
    # A new round of a reminded wall that no PreToolUse saw (parallel siblings are one round).
    late = escalates and level >= 1 and rejected and rounds > rounds_before and not sibling
    if not (due or late):
        return None
    count = max(entry["n"], distinct)
    limit = ctx.config.result_preview_chars
    quoted = preview(redact_prefix(outcome.text, 2 * limit + 1), 2 * limit)
    kills_itself = target is None and _kills_itself(tool, ctx.tool_input, ctx.error_text)
    named = _as_named(ctx, target)
    # A wall of reads or searches on one path (a Read of a file not there, a Glob timing out on a
    # home folder) is not mended by writing the file: its text says to look, not to rewrite.
    # Decided from the tools known to only look (`tools.only_looks`) or to change files
    # (`mutating_tools`, a shell): any other (an MCP reader or editor the profile does not list)
    # gets a text that fits both, never "rewrite the file whole" for a file not found.
    looks: bool | None = None
    if named is not None and only_looks(tool, ctx.config):
        looks = True
    elif named is not None and (tool in SHELL_TOOLS or matches(tool, ctx.config.mutating_tools)):
        looks = False
    text = same_error_reminder(
        tool, count, quoted, limit, target=named, page=bool(page), kills_itself=kills_itself, looks=looks
    )
    if late:
        # A round no PreToolUse saw: past the reminder, only an end of turn can answer it.
        what = f"{tool} on {named}" if named else tool
        stop_text = late_stop_text(what, count, preview(quoted, QUOTE_CHARS))
        stop = late_stop(entry, stop_text, text, tool, ctx.config.same_error_deny_at)
        if stop is not None or not due:
            return stop
    entry["level"], entry["at"] = level + 1, rounds
    if escalates:
        entry["quote"] = preview(quoted, QUOTE_CHARS)
        if re.match(PERMISSION_REFUSAL, outcome.text[:2000].lstrip()):
            entry["permission"] = True  # the refused-again rule's to deny (`on_call`)
        if file_id is None and kill:
            entry["killed"] = True
        if kills_itself:
            entry["kills_itself"] = True
    return Decision(Action.REMIND, Rule.SAME_ERROR, text, times=count, tool=tool)


def _kills_itself(tool: str, tool_input: Any, error: str) -> bool:
    """Whether a failed shell call killed its own shell: it kills by a pattern of command lines
    (`_KILLS_BY_PATTERN`) and ended by a signal (`_SIGNALLED`)."""
    if not re.match(_SIGNALLED, error[:64]):
        return False
    command = shell_command(tool, tool_input)
    return command is not None and re.search(_KILLS_BY_PATTERN, command[:MAX_SHELL_CHARS]) is not None


def _asked(tool: str, tool_input: Any, shape: str | None) -> bool:
    """Whether a failure that says nothing (`_SAYS_NOTHING`) is the call's answer "none": a
    program of its (`shape`'s) asks (`_ASKS`), the command silences itself (`_SILENCED`), or its
    programs are not known; a call that runs no command line asked. From anything else (a
    `git clone`, an `npm install` answered `Error` by Claude Code 1.0.x) it is an error, and counts."""
    command = shell_command(tool, tool_input)
    if command is None:
        return True
    programs = [p for p in (shape or _program(command[:1024]) or "").split("|") if p]
    return not programs or any(p in _ASKS for p in programs) or re.search(_SILENCED, command[:1024]) is not None


def _succeeded(ctx: ResultContext, file_id: str | None, shape: str | None, *, escalates: bool, fetches: bool) -> None:
    """A success: it ends the walls it answers (module docstring). `fetches`: a call of a tool
    that runs no command lines, naming no file (`_runs_commands`)."""
    errors = table(ctx.agent)
    # The page a fetch asked (`_page_of`): only a wall of that missing page ends with its success.
    page = _page_of(ctx.tool_input, "") if fetches and errors else None
    if _changes_file(ctx):
        # Something changed: failures on this file, and walls met before the change, are
        # no longer the last word (an edit before a test rerun is ordinary work). A shell edit
        # in place names its files as words (`sed -i 's/a/b/' src/app.py`).
        changed = {file_id, None} | {file_id_of(short_path(p)) for p in change_paths(ctx.tool, ctx.tool_input, ctx.config)}
        if ctx.unchanged and _edit_tool(ctx.tool, ctx.tool_input):
            # An edit or write tool's call that left its file as it was (the workspace, or a
            # Write's result, says so): that file's failures still stand. Walls of calls that
            # name no file end as before: a rewrite of the same bytes still moves the file's
            # mtime, which a reloader or `make` acts on. Not a shell command, which may change
            # what no file it names shows (`sed -i … && pip install …`).
            changed = {None}
        for key in [k for k, e in errors.items() if e.get("target") in changed]:
            del errors[key]
        return
    if fetches:
        # A tool other than a shell that works for one call and fails for others (a fetch of
        # twenty pages, three of them gone, on two hosts): its failures are answers to what each
        # call asked, not a wall (corpus transcript 1fb5e404, WebFetch). A wall of one other host
        # stands, sealed: that host keeps refusing, and only its own failures join it.
        sid = shape_id(shape) if shape is not None else None
        for key in [k for k in errors if k.startswith(wall_prefix(ctx.tool, None))]:
            if _page(errors[key]) is not None:  # a missing page: only that page working ends it
                if _page(errors[key]) == page:
                    del errors[key]
                continue
            shapes = errors[key].get("shapes", [])
            if isinstance(shapes, list) and len(shapes) == 1 and sid not in shapes:
                errors[key]["sealed"] = True
            else:
                del errors[key]
    if escalates:
        command = shell_command(ctx.tool, ctx.tool_input) if any(e.get("killed") is True for e in errors.values()) else None
        reads = command is not None and reads_only(command[:MAX_SHELL_CHARS])
        web = fetches and _asks_the_web(ctx.tool_input, page)
        answered(errors, ctx.tool, file_id, shape, reads=reads, page=page, web=web)


#: A fetch told that the page it asked for is not there: HTTP 404 or 410 (Claude Code's WebFetch:
#: `Request failed with status code 404`, public transcript of 2026-03-06, 2.1.x).
_NOT_FOUND = r"(?i)\b(?:status(?: code)?|HTTP(?:/\d(?:\.\d)?)?|error)\s*:?\s*(?:404|410)\b|\b(?:404|410)\s+(?:Not Found|Gone)\b"


def _missing_page(tool_input: Any, error: str) -> str | None:
    """The digest of the page a fetch was told is not there (`_NOT_FOUND`), else None: pages
    missing at several URLs (guessed documentation addresses, between searches) are several
    answers, each to what its call asked, as distinct files failing once each are; only one URL
    asked again and again, its prompt reworded, is a wall."""
    if re.search(_NOT_FOUND, error[:512]) is None:
        return None
    return _page_of(tool_input, error)


#: A web address in a fetch's prompt or error: Gemini CLI's `web_fetch` takes its URLs in
#: `prompt`, and its fallback names the one that failed (`Error during fallback fetch for ${url}:
#: ${error.message}`, later `All fallback fetch attempts failed: ${url}: ${message}`,
#: packages/core/src/tools/web-fetch.ts). Punctuation that ends it (`_URL_END`: that colon, a
#: prompt's full stop) is the text's, not the address's.
_URL = r"https?://[^\s\"'<>`)\]]+"
_URL_END = ".,:;!?"


def _page_of(tool_input: Any, error: str) -> str | None:
    """A digest of the page a fetch asked: its `url`, else the address its error names, else the
    first in its `prompt` (Gemini CLI), without the punctuation the text puts after it
    (`_URL_END`); its `#fragment` left out. None when it names none."""
    url = tool_input.get("url") if isinstance(tool_input, dict) else None
    if not isinstance(url, str):
        prompt = tool_input.get("prompt") if isinstance(tool_input, dict) else None
        found = re.search(_URL, error[:1024]) or (re.search(_URL, prompt[:8192]) if isinstance(prompt, str) else None)
        url = found.group(0).rstrip(_URL_END) if found else None
    if url is None or not url.strip():
        return None
    page = url[:8192].strip().partition("#")[0]
    return digest(page.encode("utf-8", "surrogatepass"))[:12]


def _keep_pages(errors: "dict[str, ErrorEntry]", key: str) -> None:
    """At most `MAX_PAGES` walls of a missing page, the oldest dropped first (never `key`'s)."""
    pages = sorted((k for k, e in errors.items() if _page(e) is not None and k != key), key=lambda k: _when(errors[k]))
    for old in pages[: max(len(pages) + 1 - MAX_PAGES, 0)]:
        del errors[old]


def _asks_the_web(tool_input: Any, page: str | None) -> bool:
    """Whether a call of a tool naming no file that runs no command only asks the web: a fetch
    naming its `page` (`_page_of`), or a search (`query`). Its success says nothing of another
    page that was missing; a subagent's or another tool's may have put it there."""
    return page is not None or (isinstance(tool_input, dict) and isinstance(tool_input.get("query"), str))


def _page(entry: "ErrorEntry") -> str | None:
    """The page of a wall of one missing page (`_missing_page`), else None. A damaged mark (not a
    string: a hand-edited or corrupted ledger) is none: the wall is then one of calls that name no
    file, which a success of its tool ends and any other success disarms, never one held longer."""
    page = entry.get("page")
    return page if isinstance(page, str) else None


def _when(entry: "ErrorEntry") -> float:
    """When a wall last failed, to drop the oldest first; a damaged time (not a number) is the
    oldest, never a comparison that fails on the hook's path."""
    t = entry.get("t")
    return t if isinstance(t, (int, float)) and not isinstance(t, bool) else float("-inf")


def _runs_commands(tool: str, tool_input: Any) -> bool:
    """Whether a tool runs command lines: a known shell, or any tool given a `command` or `cmd`
    (a shell this list does not know yet: one program's success says nothing of another's)."""
    return tool in SHELL_TOOLS or (isinstance(tool_input, dict) and any(isinstance(tool_input.get(k), str) for k in SHELL_KEYS))


def _count_round(entry: "ErrorEntry", *, issued: float, answered: float) -> None:
    """A failure issued after the model saw this error (the first result of the latest round)
    opens a new round; one issued before it belongs to the same round (a parallel sibling)."""
    seen = entry.get("seen")
    if new_round(issued, seen):
        entry["rounds"] = entry.get("rounds", 0) + 1
        entry["seen"] = answered


def _changes_file(ctx: ResultContext) -> bool:
    """Whether the call writes its file: a mutating tool, a command carrying a patch, or one
    that edits in place (`sed -i`, `perl -pi`)."""
    if matches(ctx.tool, ctx.config.mutating_tools):
        return True
    return edits_in_place(ctx.tool, ctx.tool_input)


def _edit_tool(tool: str, tool_input: Any) -> bool:
    """Whether a call is an edit or write tool's, or a patch tool's (Codex's apply_patch, whose
    input is a `command` too), not a shell command."""
    if not _runs_commands(tool, tool_input):
        return True
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    return tool not in SHELL_TOOLS and isinstance(command, str) and "*** Begin Patch" in command[:4096]



# -- the wall's escalation: the call side --------------------------------------------------




#: Shapes kept per wall, and characters of the error kept to quote in a denial.
MAX_SHAPES = 8
QUOTE_CHARS = 240

#: Interpreters given the script: words before the program a command runs (as `shellwords.WRAPPERS`).
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "pwsh", "pwsh.exe", "powershell", "powershell.exe", "cmd", "cmd.exe"})
_ASSIGNMENT = r"\$?[A-Za-z_][A-Za-z0-9_]*="
_SEGMENTS = r"\|\|?|&&|;|\n"
#: A quoted string (an unclosed quote is left as it is).
_QUOTED = "'[^']*'|\"(?:[^\"\\\\]|\\\\.)*\""
#: A shell given its whole script in quotes (`bash -lc '…'`, `sh -c "…"`, `pwsh -Command "…"`).
_SCRIPT = (
    r"(?is)\A\s*(?:(?:sudo|env|nohup|exec|command)\s+)*(?:\S*/)?(?:bash|sh|zsh|dash|pwsh|powershell)(?:\.exe)?"
    r"(?:\s+--?(?!c\b|command\b)\w[\w-]*)*\s+-(?:\w*c|command)\s+(?:'((?:[^']|'\\'')*)'|\"((?:[^\"\\]|\\.)*)\")"
)
#: A here-document's operator and closing word (`<<'EOF'`, `<<-PY`).
_HEREDOC = r"""(?<![\w<])<<-?[ \t]*(['"]?)(\w+)\1"""
MAX_PROGRAMS = 8
_HOST = r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)"
_PATCH_VERB = r"(?m)^\*\*\* (Add|Update|Delete) File: "


def shape_of(tool_input: Any, *, has_file: bool) -> str | None:
    """How a call runs, narrowly: `patch-update` (`-add`, `-delete`) for a patch; for a shell
    command the program each part of its pipelines and lists starts, in order (`ss|awk`; past
    variable assignments, `sudo`/`env`/`timeout N`, a shell or PowerShell given the script;
    a bare `cd DIR` is left out; lower case); the host of a `url`; "" for any other call on a
    file (the tool and the file say it all); None when it cannot be told."""
    if not isinstance(tool_input, dict):
        return "" if has_file else None
    command = tool_input.get("command")
    if isinstance(command, str):
        verb = re.search(_PATCH_VERB, command[:4096])
        if verb is not None:
            return "patch-" + verb.group(1).lower()
        if not has_file:
            return _program(command[:1024])
    url = tool_input.get("url")
    if not has_file and isinstance(url, str):
        host = re.match(_HOST, url[:1024].strip())
        return f"//{host.group(1).lower()}" if host else None
    return "" if has_file else None


def _program(command: str) -> str | None:
    """The programs of a command's pipelines and lists, in order (`ss|awk`, `sleep|gh`). A shell
    given its script in quotes (`bash -lc '…'`, Codex's form) runs the script's programs. Other
    quoted text and a here-document's body are a program's arguments, not commands of the line:
    the lines of `python3 -c "…"` or of `cat <<EOF … EOF` start no program (quoted text with no line
    break or operator in it, a program's path among them, stays one word)."""
    script = re.match(_SCRIPT, command)
    if script is not None:
        command = script.group(1) if script.group(1) is not None else script.group(2).replace('\\"', '"')
    command = re.sub(_QUOTED, _quoted_word, _without_bodies(command))
    programs = [p for p in (_first_program(part) for part in re.split(_SEGMENTS, command)) if p]
    return "|".join(programs[:MAX_PROGRAMS]) or None


def _quoted_word(quoted: re.Match[str]) -> str:
    text = quoted.group()[1:-1]
    return text.replace(" ", "_") if re.fullmatch(r"[^\n|;&]+", text) else "''"


def _without_bodies(command: str) -> str:
    """`command` with each here-document's body (the lines after its operator's line, up to the
    closing word's line, or to the end) left out."""
    if "<<" not in command:
        return command
    start = 0
    while (op := re.compile(_HEREDOC).search(command, start)) is not None:
        body = command.find("\n", op.end())
        if body < 0:
            break
        end = re.compile(rf"^[ \t]*{op.group(2)}[ \t]*$", re.M).search(command, body + 1)
        command = command[:body] + (command[end.end():] if end else "")
        start = body
    return command


def _first_program(segment: str) -> str | None:
    words = [w.strip("'\"()") for w in segment.split()]
    i = 0
    while i < len(words):
        word = words[i].lower()
        if word == "cd":
            return None  # `cd DIR`: where, not what
        if word in _SHELLS or word in WRAPPERS or word.startswith("-") or word.isdigit() or re.match(_ASSIGNMENT, word):
            i += 1
        else:
            return word.rsplit("/", 1)[-1][:64] or None
    return None


def shape_id(shape: str) -> str:
    return digest(shape.encode("utf-8", "surrogatepass"))[:8]


def note_shape(entry: ErrorEntry, shape: str | None) -> None:
    """Remember how a failing call of the wall ran (at most `MAX_SHAPES`, the latest kept)."""
    if shape is None:
        return
    shapes = entry.setdefault("shapes", [])
    sid = shape_id(shape)
    if sid in shapes:
        shapes.remove(sid)
    shapes.append(sid)
    del shapes[:-MAX_SHAPES]


def wall_prefix(tool: str, file_id: str | None) -> str:
    """The start of the ledger keys of `tool`'s walls on that file (`same_error.py` keys)."""
    return f"{tool[:MAX_ID_CHARS]}:{file_id or ''}:"


def walls_of(errors: dict[str, ErrorEntry], tool: str, file_id: str | None, shape: str | None) -> list[str]:
    """The keys of the walls a call of `tool` on that file, run that way, belongs to."""
    if shape is None:
        return []
    prefix, sid = wall_prefix(tool, file_id), shape_id(shape)
    return [k for k, e in errors.items() if k.startswith(prefix) and sid in e.get("shapes", ())]


def answered(
    errors: dict[str, ErrorEntry], tool: str, file_id: str | None, shape: str | None, *, reads: bool = False,
    page: str | None = None, web: bool = False,
) -> None:
    """A call that succeeded: the walls of the same tool run the same way are gone (it works
    now), and every reminded wall of calls that name no file is disarmed (its denial
    forgotten, its rounds and reminder kept): the agent found a way on, and the wall is armed
    again once it has failed two more rounds (`failed_again`). A read of the file between
    failed edits disarms nothing, and a shell command that only reads (`reads`:
    `shellwords.reads_only`) leaves a wall of sandbox kills armed: it changed nothing the
    sandbox kills for. A wall of a missing page is gone only when that `page` works; a call that
    only asks the web (`web`: a fetch of another page, a search) leaves it armed, since it says
    nothing of that address, but any other success disarms it as any wall of calls naming no
    file: a build, a server started, a deploy, a subagent may have put the page there."""
    for key in walls_of(errors, tool, file_id, shape):
        if _page(errors[key]) in (None, page):
            del errors[key]
    for entry in errors.values():
        if reads and entry.get("killed") is True:
            continue
        if web and _page(entry) is not None:
            continue
        if "target" not in entry and entry.get("level", 0) >= 1:
            entry["idle"] = entry.get("rounds", 1)
            entry.pop("denied_t", None)
            entry.pop("denied_r", None)


def failed_again(entry: ErrorEntry, *, rejected: bool) -> None:
    """A wall's new failure: whether it was a validation rejection (`late`), and, after a
    success disarmed it (a fix the guard cannot see: a subagent's, a shell edit), armed again
    only once it has failed two more rounds, not by one flaky rerun."""
    entry["late"] = rejected
    if entry.get("rounds", 1) - entry.get("idle", -2) >= 2:
        entry.pop("idle", None)


def file_id_of(target: str | None) -> str | None:
    """The ledger's short digest of a file's name (never the name)."""
    return digest(target.encode("utf-8", "surrogatepass"))[:12] if target is not None else None


def on_call(ctx: CallContext) -> Decision | None:
    """Deny an identical retry of a reminded wall's failed call; with `same_error_stop_at`,
    end the turn when it still goes on (module docstring)."""
    cfg = ctx.config
    if not cfg.same_error_remind_at or not ctx.counted:
        return None
    if ctx.event.event != "PreToolUse":
        # First seen by a post event: it cannot be denied (a call first seen by PostToolBatch was
        # rejected before it ran, and `progress` marks it `late` for the same-error rule).
        return None
    if not cfg.same_error_deny_at:
        return None
    errors = _walls(ctx.agent)
    if not errors or ctx.call.get("retry"):  # a retry with escalation after a refusal is a first run
        return None
    target = target_of(ctx.tool_input, cfg)
    file_id = file_id_of(target)
    shape = shape_of(ctx.tool_input, has_file=target is not None)
    keys = walls_of(errors, ctx.tool, file_id, shape)
    # A wall of validation rejections is not denied: the host checks such a call before it runs,
    # so the next one is rejected (and ends the turn, `late_stop`) or is right and goes ahead.
    # Only a call that already failed this way is denied: a different one may be the fix. A
    # program the sandbox kills is the exception: any run of it is killed again (`KILLED`).
    armed = [e for e in (errors[k] for k in keys) if e.get("level", 0) >= 1 and not e.get("late") and not e.get("idle")]
    armed = [e for e in armed if ctx.call["sig"] in e["sigs"] or _kills_every_run(e, shape)]
    if cfg.refused_again_deny_at:
        # A call the permission settings refused is the refused-again rule's, which knows the
        # permission mode: after the user left `dontAsk` the same call may go through.
        armed = [e for e in armed if not e.get("permission")]
    if not armed:
        return None
    entry = max(armed, key=wall_round)
    this_round, rounds = wall_round(entry) + 1, entry.get("rounds", 1)
    # Counted in rounds the model chose (a parallel batch of distinct calls is one), and a
    # retry after a wait is a poll (a server starting, CI pending, a rate limit), as for repeats.
    if rounds + 1 < cfg.same_error_deny_at or this_round < cfg.same_error_deny_at:
        return None
    slow = cfg.slow_repeat_seconds
    if slow and ctx.previous_time is not None and ctx.now - ctx.previous_time >= slow:
        return None
    if slow and (
        sleeps_first(ctx.tool, ctx.tool_input)
        or (0.0 if reruns_work(ctx.tool, ctx.tool_input) else waited_first(ctx.agent, ctx.call))
    ) >= slow / 2:
        return None  # it waits first: a poll, as for repeats
    what = f"{ctx.tool} on {_as_named(ctx, target)}" if target else ctx.tool
    # The wall's quote is the reminded call's error; a refusal that names its command is given as
    # the host words it for this one (redacted and cut as the quote was).
    command = shell_command(ctx.tool, ctx.tool_input)
    quote = entry.get("quote", "")
    said = for_command(quote, redact_prefix(command, QUOTE_CHARS)) if command is not None else quote
    if said != quote:
        quote = preview(said, QUOTE_CHARS)
    has_file, page = target is not None, _page(entry) is not None
    kills_itself = entry.get("kills_itself") is True
    # A call that has not failed yet is held only by a killed wall (`_kills_every_run`: a wall of
    # calls naming no file, `shape` the program the sandbox killed).
    new_run = ctx.call["sig"] not in entry["sigs"]
    program = shape or ctx.tool
    if new_run:
        advice = killed_advice(program, this_round - 1, quote)
    else:
        advice = advice_text(what, this_round - 1, quote, has_file=has_file, page=page, kills_itself=kills_itself)
    denied_t = entry.get("denied_t")
    # A call issued with the denied one (one parallel batch: within the window, and no failure
    # of the wall came back since) is denied with it; a failure since means the model went on.
    failed_since = rounds > entry.get("denied_r", rounds)
    if denied_t is not None and (failed_since or ctx.now - denied_t > cfg.parallel_window_seconds):
        # After its denial the wall's next call goes ahead (the model may have changed its
        # approach); once one has failed the same way again, the next one ends the turn.
        if not (cfg.same_error_stop_at and this_round >= cfg.same_error_stop_at and rounds > entry.get("denied_r", rounds)):
            return None
        text = stop_text(
            what, this_round, quote, has_file=has_file, ends_turn=ctx.ends_turn, pauses=ctx.pauses_tools, page=page,
            kills_itself=kills_itself,
        )
        reason = f"{PREFIX} ended the turn: {what} kept failing the same way after a denial. Send a new message to continue."
        return Decision(
            Action.STOP, Rule.SAME_ERROR, text, times=this_round - 1, tool=ctx.tool, stop_reason=reason, advice=advice
        )
    # The first call after the reminder, and any issued with it (a parallel batch), is denied;
    # the batch is timed from the first denial.
    if denied_t is None:
        entry["denied_t"], entry["denied_r"] = ctx.now, rounds
    text = (
        killed_denial(program, this_round, quote) if new_run
        else denial_text(what, this_round, quote, has_file=has_file, page=page, kills_itself=kills_itself)
    )
    return Decision(Action.DENY, Rule.SAME_ERROR, text, times=this_round - 1, tool=ctx.tool, advice=advice)


#: Programs that run another one they are given (an interpreter and its script or `-m` module,
#: a package manager or build tool and its script or task): the sandbox kills what they run, so
#: a new run of one of them is another program, the way out a killed wall's denial suggests
#: (`python3 -m pytest` after `pytest`, another script). Version suffixes are dropped
#: (`python3.12`, `node18`).
_RUNNERS = frozenset(
    {
        "python", "py", "pypy", "node", "deno", "bun", "ruby", "perl", "php", "java", "lua", "rscript",
        "npm", "npx", "pnpm", "yarn", "uv", "uvx", "poetry", "pipenv", "hatch", "tox", "nox", "pdm",
        "cargo", "go", "make", "gmake", "just", "dotnet", "gradle", "gradlew", "mvn", "mvnw", "bundle",
        "rake", "docker", "podman", "xargs", "watch", "script", "tsx", "ts-node",
    }
)


def _kills_every_run(entry: ErrorEntry, shape: str | None) -> bool:
    """Whether a killed wall (`KILLED`) holds a new call run this way: a wall of calls naming no
    file, a program the sandbox killed more than once (`_killed_again`) that runs nothing it is
    given (`_RUNNERS`). A corrupted mark is none."""
    if entry.get("killed") is not True or "target" in entry or not shape:
        return False
    again = entry.get("again")
    if not isinstance(again, list) or shape_id(shape) not in again:
        return False  # a program killed once, with others: its kill may be what that run did
    return not any(re.sub(r"[\d.]+$", "", p) in _RUNNERS for p in shape.split("|"))


def _killed_again(entry: ErrorEntry, shape: str) -> None:
    """A program the sandbox killed once more (`KILLED`): every sandbox kill has one text, so
    one wall holds every program killed, and only one killed again is hopeless whatever its
    arguments (`_kills_every_run`)."""
    again = entry.get("again")
    again = again if isinstance(again, list) else []
    sid = shape_id(shape)
    if sid not in again:
        again.append(sid)
    entry["again"] = again[-MAX_SHAPES:]


def wall_round(entry: ErrorEntry) -> int:
    """The rounds a wall has reached, as its reminder counts them."""
    return max(len(entry["sigs"]), entry.get("rounds", 1))


def late_stop(entry: ErrorEntry, text: str, advice: str, tool: str, deny_at: int) -> Decision | None:
    """A round of a reminded wall that no PreToolUse saw, from `deny_at` on: end the turn (the
    only hard answer PostToolBatch carries; elsewhere `advice` goes out as a reminder)."""
    if entry.get("level", 0) < 1 or not deny_at or wall_round(entry) < deny_at:
        return None
    reason = f"{PREFIX} ended the turn: {tool} kept failing with the same error after a reminder. Send a new message to continue."
    return Decision(Action.STOP, Rule.SAME_ERROR, text, times=wall_round(entry), tool=tool, stop_reason=reason, advice=advice)


def _instead(has_file: bool, page: bool = False, kills_itself: bool = False) -> str:
    if kills_itself:
        return (
            "The command kills by a pattern of command lines (`pkill -f`, `pgrep -f`), and its own shell's command "
            "line holds that pattern: the shell was killed with its target, and nothing after the kill ran. Use a "
            "pattern that cannot match itself (`pkill -f '[n]ext-server'` for `next-server`), then run what "
            "followed the kill"
        )
    if page:
        return (
            "The page is not at that address, whatever is asked of it: check the address (search for the page, or "
            "open the site's index for the right link), or go on without it"
        )
    if has_file:
        return (
            "Look at the file as it is now (read the exact lines, or grep them), then write the file whole or "
            "change it another way; or ask the user"
        )
    return (
        "This looks like an environment limit (permissions, sandbox, network, a missing tool): use another "
        "tool or approach, or ask the user"
    )


def denial_text(what: str, count: int, quote: str, *, has_file: bool, page: bool = False, kills_itself: bool = False) -> str:
    """`REPEAT_TOOL_BLOCKED` for an identical retry of a failed call of a wall the model was reminded of."""
    return (
        f"REPEAT_TOOL_BLOCKED: this call was not run: it is a retry of a call that already failed, and {what} has "
        f"failed {count - 1} times with the same error (loop guard policy, not a tool failure). The error: "
        f'"""{quote}""". Do not retry a failed call unchanged. {_instead(has_file, page, kills_itself)}'
    )


def killed_denial(program: str, count: int, quote: str) -> str:
    """`REPEAT_TOOL_BLOCKED` for a new run of a program Codex's sandbox kept killing (`KILLED`)."""
    return (
        f"REPEAT_TOOL_BLOCKED: this call was not run: the sandbox killed `{program}` more than once, with other "
        f"arguments, and {count - 1} calls in all failed this way (loop guard policy, not a tool failure). The "
        f'error: """{quote}""". Another run of '
        f"`{program}` will be killed the same way, whatever its arguments: {_KILLED_INSTEAD}"
    )


def killed_advice(program: str, count: int, quote: str) -> str:
    """A denial of a killed program's new run as a reminder (`advise` mode: the call goes ahead)."""
    return (
        f"[{PREFIX}] the sandbox killed `{program}` more than once, with other arguments, and {count} calls in all "
        f'failed this way, reminded before: """{quote}""". '
        f"Another run of it will be killed the same way, whatever its arguments: {_KILLED_INSTEAD}."
    )


_KILLED_INSTEAD = (
    "run it another way (another program or interpreter, a smaller step), do other work, or ask the user to "
    "run it outside the sandbox"
)


def stop_text(
    what: str,
    count: int,
    quote: str,
    *,
    has_file: bool,
    ends_turn: bool,
    pauses: bool,
    page: bool = False,
    kills_itself: bool = False,
) -> str:
    """The end of turn for a wall that goes on after its denial, worded for what the client does."""
    base = (
        f"REPEAT_TOOL_BLOCKED: this call was not run: {what} has failed with the same error {count - 1} times and "
        f'went on after it was denied (loop guard policy, not a tool failure). The error: """{quote}"""'
    )
    if ends_turn:
        return base + ". The loop guard is ending this turn"
    if pauses:
        return base + (
            ". Tool calls are now paused for the rest of this turn: answer the user now in plain text with what "
            "you have; the next user message enables tools again"
        )
    instead = _instead(has_file, page, kills_itself)
    return base + f". This is final: stop calling tools for this request and answer the user now. {instead}"


def advice_text(what: str, count: int, quote: str, *, has_file: bool, page: bool = False, kills_itself: bool = False) -> str:
    """A denial of a wall's call as a reminder (`advise` mode: the call goes ahead)."""
    return (
        f'[{PREFIX}] {what} has failed {count} times with the same error, also after the reminder: """{quote}""". '
        f"Retrying a call that already failed this way will not help. {_instead(has_file, page, kills_itself)}."
    )


def late_stop_text(what: str, count: int, quote: str) -> str:
    """The end of turn for a wall of calls no PreToolUse saw, going on after its reminder."""
    return (
        f'[{PREFIX}] {what} has failed {count} times with the same error, also after the reminder: """{quote}""". '
        "The loop guard is ending this turn: tell the user what fails and what you tried"
    )


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def _as_named(ctx: CallContext | ResultContext, target: str | None) -> str | None:
    """The file of a wall on one file as the call names it (`tools.named_path`, redacted), for the
    text: the key (`target_of`, its last two components) is no path the model can use. The key
    when the call names none, or a path longer than `MAX_ID_CHARS` (cut, it would lose its name)."""
    if target is None:
        return None
    named = named_path(ctx.tool_input, ctx.config)
    return redact_prefix(named if named and len(named) <= MAX_ID_CHARS else target, MAX_ID_CHARS)


def same_error_reminder(
    tool: str, count: int, error: str, limit: int, *, target: str | None = None, page: bool = False, kills_itself: bool = False,
    looks: bool | None = False,
) -> str:
    """The same failure under different arguments: a wall, not a typo. With `target`, the
    calls all worked on that one file (a patch that does not apply, a file not where it is
    looked for), and with `looks` too they only read or searched it (a Read, a Glob of one
    folder): no rewrite mends that; with `looks` None, a tool neither known to look nor to
    change files (an MCP tool the profile does not list): a text that fits either; with `page`,
    they all asked one web address that is not there; with `kills_itself`, the last of them
    killed its own shell (`_kills_itself`)."""
    if kills_itself:
        return (
            f"[{PREFIX}] {tool} has failed {count} times with different arguments but the same error: "
            f'"""{quote(error, limit)}""". {_instead(False, kills_itself=True)}.'
        )
    if page:
        return (
            f"[{PREFIX}] {tool} of one address has failed {count} times with different arguments but the same "
            f'error: """{quote(error, limit)}""". {_instead(False, page=True)}.'
        )
    if target is not None and looks is None:
        return (
            f"[{PREFIX}] {tool} on {target} has failed {count} times with different arguments but the same "
            f'error: """{quote(error, limit)}""". Rewording the call is not helping: check that the path is '
            "where you think and what the error asks of it, then change the approach, go on with what you have, "
            "or ask the user."
        )
    if target is not None and looks:
        return (
            f"[{PREFIX}] {tool} on {target} has failed {count} times with different arguments but the same "
            f'error: """{quote(error, limit)}""". Rewording the call is not helping: check that the path is '
            "where you think and what the error asks of it (a narrower folder or pattern, another tool), then "
            "change the approach, go on with what you have, or ask the user."
        )
    if target is not None:
        return (
            f"[{PREFIX}] {tool} on {target} has failed {count} times with different arguments but the same "
            f'error: """{quote(error, limit)}""". Rewording the call is not helping: look at the file as it '
            "is now (or check that it is where you think), then change the approach, for example "
            "rewrite the file whole, or ask the user."
        )
    return (
        f"[{PREFIX}] {tool} has failed {count} times with different arguments but the same error: "
        f'"""{quote(error, limit)}""". Changing the arguments is not helping: the cause is likely outside '
        "them (permissions, a sandbox, a missing tool, a service's limit, or nothing there to find). Change "
        "the approach, go on with what you have, or ask the user."
    )


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("same_error_stop", "REPEAT_TOOL_BLOCKED: this call was not run: ", " went on after it was denied"),
    ("same_error_killed_denial", "REPEAT_TOOL_BLOCKED: this call was not run: the sandbox killed ", ""),
    ("same_error_killed_advice", f"[{PREFIX}] the sandbox killed ", ""),
    ("same_error_denial", "REPEAT_TOOL_BLOCKED: this call was not run: ", " is a retry of a call that already failed"),
    ("same_error_late_stop", f"[{PREFIX}] ", ". The loop guard is ending this turn: tell the user"),
    ("same_error_advice", f"[{PREFIX}] ", " also after the reminder: "),
    ("same_error_reminder", f"[{PREFIX}] ", " times with different arguments but the same error: "),
)
