"""Same answer: different calls of one tool getting one answer (`same_answer_remind_at`).

Progress means evidence new to the agent, not new to one signature. Once a tool has given the
agent an answer, the same answer to another call of that tool is no new evidence: the curl that
gets "not accessible on a free plan" from every endpoint, the `find` that prints nothing in every
directory, `gh run list --limit 1, 2, 3` showing the same old run, every rewording of a commit
refused by the sandbox. The rule reminds once at least `same_answer_remind_at` distinct calls, in
as many rounds, got one answer with at most `MAX_GAP` other calls between two of them, and again
at twice that, quoting the answer.

Answers are compared as `outcome.error_signature` compares errors (paths, numbers, volatile text
and the lines quoting the call's input removed), after the words the call itself sent are masked
(`api/v1/people/search is not accessible`: the endpoint is the agent's own) and, in a Codex
sandbox refusal, the refused command's stdout is left out. What is not an answer, and counts
neither way:

- an empty or short output of a successful call (`mkdir`, `cp`, `git add` print nothing; a test
  prints `OK`), except an empty answer to a question (`find`, `ls`… `QUESTIONS`; not one that
  acts on what it finds, `find … -exec sed -i`, `-delete`: `_acts`), an empty
  read of one file (`cat`, `head`, `jq … FILE`… `READERS`, output not sent to a file: the file
  is empty, however it is read), or a
  shell command that ran `SILENT_SECONDS` or more and printed nothing (a hung `git push` whose
  timeout the client does not report);
- a bare `Exit code 1` of a command that is not a question;
- the host's stub for a file it gave before (`Outcome.unchanged`: Qwen Code's "[File a.py
  unchanged since last read in this session …]"): re-reads of several context files after each
  edit of another one all get it, one text with only the file's name changed, and it says nothing
  of what was asked;
- the success of a tool whose name says it changes something (`state_write`, `create_issue`,
  `notepad_write_working`, `TodoWrite`, `start_search`: `ACTIONS`; not one whose name starts with a read verb,
  `get_commit_status`: `READ_VERBS`), other than a shell: it acknowledges what it
  was told to do (`{"success": true, "path": …}`, also with the changed thing's state in it,
  `"active": false`: `says_not_right(states=True)`), the same for every change, and no question was
  asked (public Codex rollout of 2026-04-03: an MCP state tool and a notepad tool written at
  every round of an interview, reminded six times per subagent). An answer saying something
  is not right (`{"success": false, "error": …}`, `outcome.says_not_right`) still counts.

A successful edit, write or patch forgets every answer (an edit before a rerun is ordinary work;
a shell edit too, where the workspace saw it change its files),
and so does a user prompt (`ledger.reset_agent`). Identical calls are the repeat rule's; calls
issued together (one batch) are one round, as for the same-error rule.

A finished poll (`finished_poll`): re-reading the output of a background command that has ended
(`BashOutput`, `TaskOutput` with status completed, failed or killed) gives the same answer every
time, however much else happens between the reads: the third read of one unchanged finished
output is reminded whatever the calls between brought.

An empty file, read again (`on_call`, `same_answer_deny_empty_reads`): once the empty reads of
one file have been reminded, a further shell read of that file (`READERS`, naming it as the
reminded reads did) is denied at PreToolUse while nothing could have changed it since its last
empty read: it would print nothing too (held-out corpus sessions 05033c3a and d3f2b3cb: a JSON
file emptied on disk, asked by id, by index, by `head`, 10 and 20 times in two minutes). One of
those reads must have printed the file as it is (`cat F`, `head F`, `cat F | jq '.a[3]'`:
`_prints_whole`): searches that matched nothing (`cat F | grep x`, `jq '.[] | select(…)'`) say
that F holds none of it, not that F is empty, and the next question may print something. A
file is known by its path resolved in the session's `cwd` and the command's `cd` prefixes
(`_file_key`: `data.json`, `./data.json` and `/w/p/data.json` are one file in `/w/p`;
`cd pkg_a && cat __init__.py` and `cd pkg_b && cat __init__.py` are two). The
denial says how to look at the file instead. It is lifted by a call that may have changed the
file (a write, a patch, a shell command other than reads, another agent's run, an MCP tool), by a
look at the file other than printing it (`ls -l`, `wc -c`, `stat`, `file`, `du`, `git diff`,
`git show`, `git status` or `git log` naming it; a read tool or a shell read that showed
something of it), by a read `slow_repeat_seconds` or more after its last empty one (a log that
something may be filling), and by a user prompt; reads of it that print nothing again put it
back, and once its empty reads were reminded a single whole read that prints nothing again,
less than `slow_repeat_seconds` after the last one, is enough, however many other answers and
calls came between (a reminded file's entry keeps its `level` and reads when it starts again,
and the newest such file leaves a table of two or more entries last: `_kept_last`; held-out
corpus session 05033c3a, calls 159-178: a Read tool showed a cached view of the file, git was
asked a dozen ways, and the file was read empty again and again). After the agent started a
command or a subagent in the background (`&`, `nohup`, `run_in_background`: `_in_background`;
or a shell result with Claude Code's `backgroundTaskId`, a command it moved there at its
timeout: `_backgrounded`; kept in the slot `BACKGROUND`), nothing is denied for the rest of the session, prompts
included: it may be filling the file; nor while an earlier call of the agent has no result yet
(Codex 0.171.0 sends no PostToolUse for a command it left running).

Its slot is `Agent.rules["same_answer"]`: `{key: AnswerEntry}`, at most `MAX_ANSWERS` entries,
fewer as agents join (`answer_limit`); in a session of more than `SESSION_ANSWERS` agents the
rule rests.
"""

import functools
import re
from typing import TYPE_CHECKING, Any, cast

from ..core.ledger import MAX_ID_CHARS, Agent, Limits, drop_slot, issued, limits, new_round, slot, slots, trim
from ..core.messages import PREFIX, quote
from ..core.outcome import SANDBOX_STDOUT, Failure, error_signature, preview, says_not_right
from ..core.redact import redact_prefix
from ..core.shellwords import SHELL_KEYS, SHELL_TOOLS, reads_only
from ..core.signature import digest, normalise_text
from ..core.tools import AGENT_TOOLS, SHELL_WRITES, matches, resolve_path
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "same_answer"
#: Its second slot: when the agent last started a command in the background (seconds since the
#: epoch); no empty file is denied after that in this session.
BACKGROUND = "same_answer_background"
MAX_ANSWERS = 4  # answers the rule follows per agent
MAX_ANSWER_SIGS = 6  # signatures kept per answer: enough for its second reminder
#: The share of the session's budget its table takes, as the same-error rule's.
MAX_TABLE = 32

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NotRequired, TypedDict

    class AnswerEntry(TypedDict):
        """One tool:answer of the rule."""

        sigs: list[str]  # the call signatures that got this answer, at most MAX_ANSWER_SIGS
        seq: int  # the agent's attempts when it last came back
        t: float
        seen: NotRequired[float]  # when the first result of the latest round came back
        rounds: NotRequired[int]  # rounds of calls that got it: each made after the model saw the last
        reads: NotRequired[int]  # a finished poll's reads of one unchanged output
        level: NotRequired[int]  # reminders given for this answer (1 at the threshold, 2 at twice it)
        file: NotRequired[str]  # the file whose reads printed nothing (this answer), as named
        moved: NotRequired[bool]  # a call since its last such read may have changed the file
        whole: NotRequired[bool]  # one of its empty reads since then printed the file as it is
else:
    AnswerEntry = dict


def fit(agent: Agent, share: Limits) -> None:
    answers = cast("dict[str, AnswerEntry] | None", slot(agent, NAME))
    if answers:
        _trim(answers, min(share.table(MAX_TABLE), MAX_ANSWERS))


def _trim(answers: "dict[str, AnswerEntry]", limit: int) -> None:
    """Keep at most `limit` answers, leaving in `_kept_last`'s order (not computed while they fit)."""
    if len(answers) > limit:
        trim(answers, limit, _kept_last(answers, limit))


def _kept_last(answers: "dict[str, AnswerEntry]", limit: int) -> "Callable[[str], tuple[bool, float]]":
    """The order answers leave a full table of `limit` entries in: the oldest first, except the
    newest file whose empty reads were reminded, which leaves last (it holds the rule's one
    denial; other answers seen since must not push it out, held-out corpus session 05033c3a).
    Never more than one is kept so, and none in a table of one: other answers still get their
    reminders."""
    files = [k for k, e in answers.items() if e.get("level") and e.get("file")] if limit >= 2 else []
    kept = max(files, key=lambda k: answers[k]["t"], default=None)
    return lambda k: (k == kept, answers[k]["t"])


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: every answer is forgotten. Not a command started in the
    background (`BACKGROUND`): it may run on into the next turns, filling a log the user then
    asks about ("is it training yet?")."""
    drop_slot(agent, NAME)


#: Other calls allowed between two calls that got one answer (a status check, a diagnostic).
MAX_GAP = 2
#: Answer entries the session's agents share (at most `MAX_ANSWERS` each): the state budget
#: (`tests/test_many_agents.py`) has room for about one an agent at 32 agents and none beyond,
#: where the rule rests.
SESSION_ANSWERS = 32
#: How much of an answer is masked and compared; a longer one must also be equal as a whole.
HEAD_CHARS = 2000
#: Characters of a tool's name read for its words.
MAX_NAME_CHARS = 128
#: A successful output shorter than this (after trimming) says too little to be "one answer":
#: `OK`, `0`, `done`, a commit id.
MIN_ANSWER_CHARS = 40
#: A successful check that took this long waited first: its answer may repeat.
WAIT_SECONDS = 30.0
#: A shell command that printed nothing after this long most likely hung and was killed (Codex
#: sends no exit code and no text for a timed-out command to its hooks: corpus rollout of
#: 2025-11-29, `git push` x4 at 2-4 minutes each).
SILENT_SECONDS = 60.0
#: Commands that look for a file, whose empty output is an answer ("not here"), not the silence
#: of success. A text search (`grep`, `rg`) is left out: each pattern is another question, and
#: many finding nothing is how a search narrows down.
QUESTIONS = r"(find|ls|fd|locate|which|whereis|git\s+ls-files)\b"
#: A question that acts on what it finds (`find … -exec sed -i …`, `find … -delete`, a listing sent
#: into a file): silent on success, so its empty output is no answer (a public transcript:
#: successive `find . -name "*.vue" -exec sed -i '' 's/…/…/g' {} +` colour replacements).
_ACTS = SHELL_WRITES + r"|\s-delete\b"


def _acts(command: str) -> bool:
    """Whether a shell command changes files (`tools.SHELL_WRITES`, or `find -delete`)."""
    return re.search(_ACTS, command[:4096]) is not None


#: Commands that only read a file and print it, or part of it: printing nothing, the file is
#: empty, or holds nothing of what was asked, whichever way it is asked (jq by id, by index,
#: head, cat: a file emptied on disk, read ten ways; held-out corpus session 05033c3a).
READERS = r"(cat|head|tail|jq|nl|tac|cut|sort|uniq|xxd|od|hexdump|strings)\s"
_SEGMENTS = r"\|\|?|&&|;|\n"
_TO_FILE = r"(?:\A|[^0-9&>])>>?(?!\s*&)|\btee\b|\bsponge\b"
_LEAD = r"\A\s*(?:(?:cd|pushd)\s+\S+\s*(?:&&|;)\s*)*(?:[A-Za-z_]\w*=\S*\s+)*(?:sudo\s+|command\s+)?"
_BARE_NO = r"\A\s*(?:Exit code:? |Process exited with code )1\s*\Z"
_WAIT = r"\A\s*(?:sleep|wait|timeout\s+\S+\s+sleep)\b[\s\d.smh]*\Z"
#: A word of the output that the call may have sent itself: a path or URL piece, a file name,
#: an identifier with `_` or `.` (plain words such as `main` stay: an answer is made of them).
_WORD = r"[\w.@+-]*(?:/[\w.@+-]+)+|[\w@+-]*[._][\w.@+-]+"
#: The statuses of a background command that has ended (Claude Code `BashOutput` `status`,
#: `TaskOutput` `task.status`; transcript text `<status>failed</status>`; corpus transcripts).
FINISHED = frozenset({"completed", "failed", "killed"})
POLL_TOOLS = frozenset({"BashOutput", "TaskOutput"})
_STATUS_TEXT = r"<status>(\w+)</status>"
#: Words of a tool's name that say it changes something: its success is an acknowledgement.
#: Acting on a page (`click`, `navigate`, `type`) is left out: the page it answers with is data.
ACTIONS = frozenset(
    "write save set update create add put post delete remove append insert store upsert record send notify publish "
    "commit push upload move rename mark assign submit edit replace clear reset "
    # A tool that starts a job answers with its handle, the same for every job until it is read
    # (desktop-commander's `start_search`: "Started file search session: search_3_… Status:
    # RUNNING … Total results: 0", a public Codex rollout of 2025-12, reminded at its 3rd search).
    "start launch spawn schedule trigger enqueue".split()
)
_NAME_WORDS = r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+"
#: A name's first word that says the tool answers: the action word after it is what it reads
#: (`get_post`, `get_commit_status`, `read_record`, `check_for_update`: the GitHub and WordPress
#: MCP servers' reads).
READ_VERBS = frozenset(
    "get list read fetch search find query check view show describe lookup look retrieve poll wait count".split()
)


def on_result(ctx: ResultContext) -> Decision | None:
    """Record the call's answer; remind when different calls keep getting it (module docstring)."""
    backgrounded = _command(ctx.tool, ctx.tool_input) is not None and _backgrounded(ctx.response)
    if backgrounded:
        # Claude Code runs it in the background, asked to or at its two-minute timeout (no `&`,
        # no `run_in_background` in the call): it may fill any file from now on, as a command
        # started with `&` may (`_in_background`)
        slots(ctx.agent)[BACKGROUND] = ctx.call["t"]
    threshold = ctx.config.same_answer_remind_at
    if not threshold or not answer_limit(ctx.agents):
        drop_slot(ctx.agent, NAME)
        return None
    answers = cast("dict[str, AnswerEntry]", slots(ctx.agent).setdefault(NAME, {}))
    if ctx.outcome.failure == Failure.NONE and _writes(ctx):
        answers.clear()
        return None
    if _may_change(ctx.tool, ctx.tool_input):
        for other in answers.values():
            if other.get("file"):
                other["moved"] = True  # the file may not be empty any more
    else:
        _looked_at(ctx, answers)
    if ctx.tool in POLL_TOOLS:
        return finished_poll(ctx, answers, threshold)
    if ctx.outcome.unchanged:
        return None  # the host's own stub for a file it gave before (Qwen Code): no answer to this call
    if ctx.outcome.failure == Failure.NONE and acknowledges(ctx.tool) and not says_not_right(ctx.outcome.text, states=True):
        return None
    if backgrounded:
        return None  # the command goes on: its empty output so far is no answer
    keys = answer_key(ctx)
    if keys is None:
        return None
    # The ledger keeps a short digest of each answer's key (the state file's budget).
    short = [("e" if ":empty:" in k else "a") + digest(k.encode("utf-8", "surrogatepass"))[:15] for k in keys]
    key = next((k for k in short if k in answers), short[-1])
    seq = ctx.agent["attempts"]  # the agent's attempts so far: how far apart two answers are
    entry = answers.get(key)
    if entry is None or seq - entry["seq"] - 1 > MAX_GAP:
        before, entry = entry, {"sigs": [], "seq": seq, "t": ctx.call["t"]}
        window = ctx.config.slow_repeat_seconds
        if before is not None and before.get("file") and before.get("level") and ctx.call["t"] - before["t"] < window:
            # this file's empty reads were reminded a moment ago: read empty again, it is
            entry["level"], entry["sigs"] = before["level"], before["sigs"]
        answers[key] = entry
    entry["seq"], entry["t"] = seq, ctx.call["t"]
    if len(keys) == 1 and ":empty:file:" in keys[0]:
        # read empty again: it is empty now, or holds nothing of what was asked
        command = _command(ctx.tool, ctx.tool_input) or ""
        entry["whole"] = _prints_whole(command) or bool(entry.get("whole") and not entry.get("moved"))
        entry["file"], entry["moved"] = keys[0].split(":empty:file:", 1)[1].split("\n", 1)[0][:MAX_ID_CHARS], False
    seen = entry.get("seen")
    if new_round(issued(ctx.call), seen):  # issued after the model saw this answer
        entry["rounds"] = entry.get("rounds", 0) + 1
        entry["seen"] = ctx.agent["updated"]
    if ctx.call["sig"] not in entry["sigs"]:
        entry["sigs"].append(ctx.call["sig"])
        del entry["sigs"][:-MAX_ANSWER_SIGS]
    _trim(answers, answer_limit(ctx.agents))
    distinct, level = len(entry["sigs"]), entry.get("level", 0)
    # "Nothing here" from different places is the answer of many a search: one call more.
    need = threshold * (level + 1) + (1 if key.startswith("e") else 0)
    if min(distinct, entry["rounds"]) < need or level >= 2:
        return None
    entry["level"] = level + 1
    return _reminder(ctx, distinct)


def on_call(ctx: CallContext) -> Decision | None:
    """Deny another read of a file that printed nothing to every read since it last could have
    changed, once that wall was reminded (module docstring)."""
    cfg = ctx.config
    if not (cfg.same_answer_remind_at and cfg.same_answer_deny_empty_reads and ctx.counted) or ctx.event.event != "PreToolUse":
        return None
    if _in_background(ctx.tool, ctx.tool_input):
        slots(ctx.agent)[BACKGROUND] = ctx.now  # it may fill any file from now on
        return None
    answers = cast("dict[str, AnswerEntry] | None", slot(ctx.agent, NAME))
    command = _command(ctx.tool, ctx.tool_input) if answers else None
    file = _file_read(command) if command is not None else None
    if file is None or answers is None or slot(ctx.agent, BACKGROUND) is not None:
        return None
    key = _file_key(ctx.tool, file, command or "", ctx.event.cwd)
    entry = answers.get("e" + digest(key.encode("utf-8", "surrogatepass"))[:15])
    if entry is None or not entry.get("level") or entry.get("moved") or not entry.get("file"):
        return None
    if not entry.get("whole"):
        return None  # only filters printed nothing (`cat F | grep x`, `jq 'select(…)'`): F may be full
    if cfg.slow_repeat_seconds and ctx.now - entry["t"] >= cfg.slow_repeat_seconds:
        return None  # a read long after: something else may be filling it (a log)
    if any(c["phase"] == "pre" and c["seq"] < ctx.call["seq"] for c in ctx.agent["calls"].values()):
        return None  # a call still running (Codex leaves a long command running: no result yet) may fill it
    reads = len(entry["sigs"])
    text, advice = empty_file_denial(file, reads), empty_file_advice(file, reads)
    return Decision(Action.DENY, Rule.SAME_ANSWER, text, advice=advice, times=reads, tool=ctx.tool)


def _in_background(tool: str, tool_input: Any) -> bool:
    """Whether a call starts a command that goes on in the background (Claude Code's
    `run_in_background`, Gemini CLI's and Qwen Code's `is_background`, Copilot CLI's `mode:
    "async"` or `detach`, a shell `&`, `nohup`, `setsid`, PowerShell's `Start-Process` or
    `Start-Job`): it may write any file, a log it redirects to or one of its own, for as long
    as it runs, unseen by the hook (a training script's log, empty while Python buffers)."""
    if not isinstance(tool_input, dict):
        return False
    if tool_input.get("run_in_background") is True:
        return True  # a shell command, or a subagent (`Agent`, `Task`) that writes as it goes
    if tool_input.get("is_background") is True or tool_input.get("detach") is True or tool_input.get("mode") == "async":
        return True  # the same asked another host's way: Gemini CLI's and Qwen Code's `is_background`,
        # Copilot CLI's `bash` `mode: "async"` (and its Windows `powershell` `detach`)
    if tool not in SHELL_TOOLS:
        return False
    command = _command(tool, tool_input)
    if command is None:
        return False
    command = _inert(command[:4096])
    return re.search(_BACKGROUND, command) is not None


#: A shell command sent to the background: a lone `&` ending a command (not `&&`, `>&`, `&>`,
#: `2>&1`), or a program that detaches one.
_BACKGROUND = r"(?<![&>|])&(?![&>\d])\s*(?:\Z|[\n;)]|\w)|(?:\A|[\s;&|(])(?:nohup|setsid|disown|Start-Process|Start-Job)\b"


def _may_change(tool: str, tool_input: Any) -> bool:
    """Whether a call may have changed a file without the rule seeing a write: a shell command
    other than reads (`shellwords.reads_only`), another agent's run, an MCP tool."""
    if tool in SHELL_TOOLS:
        command = _command(tool, tool_input)
        return command is None or not reads_only(command)
    return tool in AGENT_TOOLS or tool.startswith("mcp__")


def _looked_at(ctx: ResultContext, answers: "dict[str, AnswerEntry]") -> None:
    """A call that looked at a file that read empty, other than by printing it again, lifts its
    denial: a size or status check (`ls -l F`, `wc -c F`, `stat F`, `git diff F`) or a read
    tool that showed something of it (the agent has seen what the file holds, and may read on)."""
    command = _command(ctx.tool, ctx.tool_input)
    if command is not None:
        words = [w.strip("'\"") for found in re.finditer(_CHECKS, command[:1024]) for w in found.group(1).split()]
        read = _file_read(command) if ctx.outcome.text.strip() else None
        words += [read] if read is not None else []  # printed something: it is not empty now
    elif matches(ctx.tool, ctx.config.read_tools) and ctx.outcome.text.strip() and isinstance(ctx.tool_input, dict):
        words = [v for k in ctx.config.path_keys if isinstance(v := ctx.tool_input.get(k), str)]
    else:
        return
    paths = {"/" + w.replace("\\", "/").removeprefix("./") for w in words}
    paths |= {p for w in words if (p := resolve_path(w, ctx.cwd)) is not None}
    for entry in answers.values():
        file = entry.get("file")
        if file and any(p == file or p.endswith("/" + file.removeprefix("./")) for p in paths):
            entry["moved"] = True


#: A look at a file other than printing it: its size, its type, its status in git (the words
#: after the program, up to the end of that command).
_CHECKS = r"(?:\A|[;&|(]\s*)(?:ls|wc|stat|file|du|git\s+(?:diff|status|log|show))\b([^;&|\n]*)"


def finished_poll(ctx: ResultContext, answers: "dict[str, AnswerEntry]", threshold: int) -> Decision | None:
    """The reads of one finished background command's unchanged output (module docstring)."""
    if not _finished(ctx.response, ctx.outcome.text):
        return None
    key = "p" + digest(f"{ctx.call['sig']}:{ctx.outcome.fingerprint}".encode())[:15]
    entry = answers.setdefault(key, {"sigs": [], "seq": 0, "t": ctx.call["t"]})
    entry["reads"] = reads = entry.get("reads", 0) + 1
    entry["t"] = ctx.call["t"]
    _trim(answers, answer_limit(ctx.agents))
    level = entry.get("level", 0)
    if reads < threshold * (level + 1) or level >= 2:
        return None
    entry["level"] = level + 1
    limit = ctx.config.result_preview_chars
    quoted = preview(redact_prefix(ctx.outcome.text, limit + 1), limit)
    text = finished_poll_reminder(ctx.tool, reads, quoted, limit)
    return Decision(Action.REMIND, Rule.SAME_ANSWER, text, times=reads, tool=ctx.tool)


@functools.lru_cache(maxsize=256)
def acknowledges(tool: str) -> bool:
    """Whether a success of `tool` only acknowledges a change: a tool other than a shell whose
    name (after an MCP server's `mcp__<server>__`) holds a word of `ACTIONS` and does not start
    with one of `READ_VERBS`."""
    if tool in SHELL_TOOLS:
        return False
    words = [word.lower() for word in re.findall(_NAME_WORDS, tool.rsplit("__", 1)[-1][:MAX_NAME_CHARS])]
    return bool(words) and words[0] not in READ_VERBS and any(word in ACTIONS for word in words)


def answer_limit(agents: int) -> int:
    """The entries each agent keeps when the session holds `agents` agents (as `fit`)."""
    return min(limits(agents).table(MAX_TABLE), MAX_ANSWERS, SESSION_ANSWERS // max(1, agents))


def _backgrounded(response: Any) -> bool:
    """Whether a shell's result says its command goes on in the background: Claude Code's Bash
    `backgroundTaskId` (`run_in_background`, or moved there by Claude Code at its timeout, after
    two minutes with nothing printed), as the hook gets it or a transcript's text words it. Its
    empty output is not an answer: two such test runs were "the same empty answer" on a public
    transcript (Claude Code 2.1.88)."""
    if isinstance(response, dict):
        task = response.get("backgroundTaskId")
        return isinstance(task, str) and task != ""
    return isinstance(response, str) and response.startswith(BACKGROUND_TEXT)


#: How Claude Code's Bash result starts, in the transcript, for a command it runs in the background.
BACKGROUND_TEXT = "Command running in background with ID: "


def answer_key(ctx: ResultContext) -> tuple[str, ...] | None:
    """What the call's answer is, as compared between calls (the keys it may be known by, the
    one to file it under last), or None when it says nothing."""
    text, tool_input = ctx.error_text, ctx.tool_input  # without the shell's own lines
    command = _command(ctx.tool, tool_input)
    body = text.strip()
    asked = re.match(_LEAD + QUESTIONS, command) if command is not None else None
    if asked and command is not None and _acts(command):
        asked = None  # it changed files: silent on success (looked for only in a question: most calls are none)
    nothing = _no_match(ctx.response)
    if not body or (asked and re.match(_BARE_NO, body[:64])) or nothing:
        if asked or (nothing and ctx.tool == "Glob"):  # a file looked for in place after place
            return (f"{ctx.tool}:empty:{asked.group(1) if asked else ''}",)
        read = _file_read(command) if command is not None and not body else None
        if read is not None:  # one file read by one command after another, printing nothing
            return (_file_key(ctx.tool, read, command or "", ctx.cwd),)
        duration = ctx.agent["updated"] - ctx.call["t"]
        if command is not None and duration >= SILENT_SECONDS and not re.match(_WAIT, command):
            return (f"{ctx.tool}:silent",)
        return None
    if ctx.outcome.failure == Failure.HARD or (ctx.outcome.failure == Failure.NONE and len(body) < MIN_ANSWER_CHARS):
        return None  # a failure the client reports is the same-error rule's
    if ctx.outcome.failure == Failure.SOFT:
        # An error read from the text is the same-error rule's too, except a sandbox refusal:
        # there the refused command's own output, which differs each time, is left out.
        head, found = re.subn(SANDBOX_STDOUT, r"\1, stderr: ", body[:HEAD_CHARS], count=1, flags=re.DOTALL)
        if not found:
            return None
        return (f"{ctx.tool}:{error_signature(_mask_sent(head, tool_input), tool_input)}",)
    if ctx.agent["updated"] - ctx.call["t"] >= WAIT_SECONDS:
        return None  # a check that waited first (`sleep 60 && gh run view`): a poll, not a loop
    if ctx.tool in AGENT_TOOLS and ctx.outcome.failure == Failure.NONE:
        # A subagent's finding on its own task ("No bugs found." for each module reviewed in
        # turn): Gemini CLI's `invoke_agent` answers with the finding alone, where Claude Code's
        # Agent result carries its prompt and ids and never matches another's.
        return None
    # A success is data: its numbers and paths stay (two files of one template differ in their
    # dates), and a long one is compared whole. It is known by what it says as it is and with
    # the words the call sent masked, whichever the agent has met.
    whole = ctx.outcome.fingerprint[:16] if len(body) > HEAD_CHARS else ""
    texts = (body[:HEAD_CHARS], _mask_sent(body[:HEAD_CHARS], tool_input))
    now = ctx.agent["updated"]  # the event's time: a number near it that reads as epoch seconds is its clock
    # A file printed is that file's answer: copies of one file in several packages, read in turn
    # to compare them, are as many answers (a blind hunt: three apps' identical api.ts read so).
    read = _printed_file(command) if command is not None else None
    where = f"@{read}" if read is not None else ""
    return tuple(f"{ctx.tool}:{digest(normalise_text(t, now).encode('utf-8', 'surrogatepass'))}{whole}{where}" for t in texts)


#: `sed -n` printing lines of one file (`sed -n '1,200p' src/app.py`), the whole line.
_SED_READ = r"\A\s*(?:cd\s+\S+\s*(?:&&|;)\s*)?sed\s+-n\s+['\"]?[\d,$p;{}]+['\"]?\s+([\w.~/@+-]+)\s*\Z"
#: PowerShell printing one file, last in its line (`Set-Location …; Get-Content -Path 'a.ts'`).
_PS_READ = r"(?i)(?:\A|;)\s*(?:Get-Content|gc|type)\s+(?:-(?:Path|LiteralPath)\s+)?['\"]?([^'\";|\s]+)['\"]?\s*\Z"


def _printed_file(command: str) -> str | None:
    """The one file a shell command prints, as it names it (`_file_read`, `sed -n '1,200p' F`, or
    PowerShell's `Get-Content`), else None."""
    found = _file_read(command)
    if found is not None:
        return found
    read = re.match(_SED_READ, command[:1024]) or re.search(_PS_READ, command[:1024])
    return read.group(1).removeprefix("./") if read is not None else None


def _mask_sent(text: str, tool_input: Any) -> str:
    """`text` with the words that the call's own arguments hold masked."""
    if not isinstance(tool_input, dict):
        return text
    sent = "\n".join(v for v in tool_input.values() if isinstance(v, str))
    if not sent:
        return text

    def mask(found: re.Match[str]) -> str:
        word = found.group(0)
        last = word.rstrip("/").rsplit("/", 1)[-1]
        return "<sent>" if word in sent or (len(last) >= 3 and last in sent) else word

    return re.sub(_WORD, mask, text)


def _no_match(response: Any) -> bool:
    """A search tool finding nothing (Claude Code Glob and Grep: `numFiles` 0 and no `content`;
    2.1.332 transcripts)."""
    return isinstance(response, dict) and response.get("numFiles") == 0 and not response.get("content")


#: A quoted word of a shell command, and the characters that mean nothing to the shell inside one.
_QUOTED = r"'[^']*'|\"(?:[^\"\\\\]|\\\\.)*\""
_INERT = str.maketrans("|;&<>\n", "      ")


def _inert(command: str) -> str:
    """`command` with the shell's operators inside quoted words blanked out, so that a jq
    filter's `|`, `>` or `;` (`jq '.a[] | select(.n > 3)' f.json`) is no pipe, redirect or list."""
    return re.sub(_QUOTED, lambda q: q.group(0).translate(_INERT), command)


def _file_read(command: str) -> str | None:
    """The file a command only reads and prints (`cat`, `head`, `jq … FILE`), as the command
    names it, when it is the last word of the command's first part; else None."""
    # A jq filter's `|` or `>` (`jq '.a[] | select(.n > 3)' f.json`) is no pipe or redirect.
    command = _inert(command[:1024])
    found = re.match(_LEAD + READERS, command)
    if found is None or re.search(_TO_FILE, command):
        return None  # its output went to a file (`cat a | jq … > b && mv b a`): a write
    part = re.split(_SEGMENTS, command[found.end() :], maxsplit=1)[0]
    words = [w for w in part.split() if not re.fullmatch(r"2>(?:&1|/dev/null)", w)]
    last = words[-1].strip("'\"") if words else ""
    if last.startswith("-") or not re.fullmatch(r"[\w.~/@+-]*[\w~@+-][./][\w.@+-]*\w", last):
        return None
    return last.removeprefix("./")


#: Programs that print what they read as it is, whole or its first or last lines (a count of
#: lines from the start or the end only: `tail -n +N`, `head -n -N` and a count of 0 may print
#: nothing of a full file).
_AS_IS = r"(cat|head|tail|nl|tac|xxd|od|hexdump|less|more)"
_NOT_ALL = r"(?:-[nc]\s*|--(?:lines|bytes)=)[+-]|(?:-[nc]\s*|--(?:lines|bytes)=|\s-)0+(?![\d.])|\s\+\d"
#: What in a jq filter may yield nothing from a full file: a selection, an iteration, `empty`,
#: an alternative, a recursion, `-e`/`-n`; a plain path prints `null` for what is not there.
_JQ_FILTERS = r"select|empty|\[\s*\]|\.\.|//|recurse|limit|first|last|until|while|range|splits|scan|test|match|\s-[a-zA-Z]*[en]"


def _prints_whole(command: str) -> bool:
    """Whether a read that printed nothing shows the file empty: every stage of its first
    pipeline prints what it reads as it is (`cat F`, `head -20 F`, `cat F | jq '.a[3]'`), none
    keeps only what matches a question (`cat F | grep x`, `jq '.[] | select(…)'`, `awk`) or
    starts past the end (`tail -n +500 F`)."""
    first = re.split(r"&&|\|\||;|\n", _inert(re.sub(_LEAD, "", command[:1024], count=1)), maxsplit=1)[0]
    for stage in first.split("|"):
        stage = stage.strip()
        if re.match(r"jq\b", stage):
            if re.search(_JQ_FILTERS, stage):
                return False
        elif not re.match(_AS_IS + r"\b", stage) or re.search(_NOT_ALL, " " + stage):
            return False
    return True


def _file_key(tool: str, file: str, command: str, cwd: str | None) -> str:
    """The answer key of empty reads of `file` as `command` names it, in the session's folder
    `cwd` (`HookEvent.cwd`, which follows `cd` in Claude Code): the file's path resolved there
    and through the command's `cd` prefixes (`data.json`, `./data.json` and `/w/p/data.json` are
    one file in `/w/p`; `cd pkg_a && cat __init__.py` and `cd pkg_b && cat __init__.py` are two).
    Without a folder to resolve it in, the name as given and the `cd` prefixes."""
    lead = re.match(r"\A\s*(?:(?:cd|pushd)\s+\S+\s*(?:&&|;)\s*)*", command[:1024])
    dirs = tuple(d.strip("'\"") for d in re.findall(r"(?:cd|pushd)\s+(\S+)", lead.group(0) if lead else ""))
    resolved = resolve_path(file, cwd, dirs)
    if resolved is not None:
        return f"{tool}:empty:file:{resolved}\n"
    where = "" if file.startswith(("/", "~")) else "/".join(dirs)
    return f"{tool}:empty:file:{file}\n{where}"


def _command(tool: str, tool_input: Any) -> str | None:
    if tool not in SHELL_TOOLS or not isinstance(tool_input, dict):
        return None
    for key in SHELL_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return str(value[-1])  # Codex's argv: ["bash", "-lc", "<script>"]
    return None


def _finished(response: Any, text: str) -> bool:
    """Whether a poll's result says its background command has ended."""
    if isinstance(response, dict):
        task = response.get("task")
        status = task.get("status") if isinstance(task, dict) else response.get("status")
        return isinstance(status, str) and status in FINISHED
    found = re.search(_STATUS_TEXT, text[:200])
    return found is not None and found.group(1) in FINISHED


def _writes(ctx: ResultContext) -> bool:
    """A call that wrote a file: a mutating tool, a shell command carrying a patch, or a shell
    edit the workspace saw change the files it names (`ResultContext.edits`: `python3 - <<'PY'`
    rewriting a file that prints the same "Patched …" line each time)."""
    if ctx.edits or matches(ctx.tool, ctx.config.mutating_tools):
        return True
    command = _command(ctx.tool, ctx.tool_input)
    return command is not None and "*** Begin Patch" in command


def _reminder(ctx: ResultContext, count: int) -> Decision:
    limit = ctx.config.result_preview_chars
    shown = ctx.error_text.strip()
    quoted = preview(redact_prefix(shown, limit + 1), limit) if shown else ""
    text = same_answer_reminder(ctx.tool, count, quoted, limit)
    return Decision(Action.REMIND, Rule.SAME_ANSWER, text, times=count, tool=ctx.tool)


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def same_answer_reminder(tool: str, count: int, answer: str, limit: int) -> str:
    """Different calls of one tool getting one answer: no new evidence (`rules/same_answer.py`).
    `answer` is the latest one ("" for an empty answer)."""
    shown = f'"""{quote(answer, limit)}"""' if answer else "nothing (an empty output)"
    return (
        f"[{PREFIX}] {tool} has given the same answer to {count} different calls: {shown}. Rewording "
        "or redirecting the call is not bringing anything new. Take that answer as it is: change "
        "the approach, or tell the user what it says and ask."
    )


def empty_file_denial(file: str, reads: int) -> str:
    """A read of a file that printed nothing to every read since it last could have changed."""
    return (
        f"REPEAT_TOOL_BLOCKED: this read of {file} was not run: {reads} different reads of it have printed "
        "nothing since it last could have changed, also after a reminder (loop guard policy, not a tool "
        f"failure). It is most likely empty on disk, or holds nothing of what is asked. Look at the file "
        f"itself instead (`ls -l {file}`, `wc -c {file}`, `git diff -- {file}`, `git show HEAD:{file}`), or "
        "change the approach; a change of the file or a new user message lifts this"
    )


def empty_file_advice(file: str, reads: int) -> str:
    """The denial as a reminder (`advise` mode)."""
    return (
        f"[{PREFIX}] {reads} different reads of {file} have printed nothing, also after a reminder: it is most "
        f"likely empty on disk. Look at the file itself (`ls -l {file}`, `wc -c {file}`) instead of reading it again."
    )


def finished_poll_reminder(tool: str, count: int, output: str, limit: int) -> str:
    """The output of a background command that has ended, read again unchanged (`rules/same_answer.py`)."""
    quoted = quote(output, limit)
    ended = f"{tool} has returned the same output {count} times: the background command has ended"
    return f'[{PREFIX}] {ended}, so reading it again cannot show anything new: """{quoted}""". Act on that output.'


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("empty_file_denial", "REPEAT_TOOL_BLOCKED: this read of ", " different reads of it have printed nothing "),
    ("empty_file_advice", f"[{PREFIX}] ", " have printed nothing, also after a reminder: "),
    ("same_answer_reminder", f"[{PREFIX}] ", " has given the same answer to "),
    ("finished_poll_reminder", f"[{PREFIX}] ", " the background command has ended, "),
)
