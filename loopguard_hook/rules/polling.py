"""Background polling: rapid status probes of a task that is still running (`max_rapid_polls`).

A poll of a running task (Claude Code `BashOutput` whose `status` is `running`, `TaskOutput`
whose `task.status` is; a shell command that sleeps a little and then reads or asks again,
`sleep 5 && tail -n 20 build.log`) comes back a little different each time, so each one is new
evidence and no other rule counts it; users report such probes costing hundreds of dollars in
hours. Claude Code 2.1 says when a `TaskOutput` task finishes (a `<task-notification>` in the
transcripts of 2.1.37-2.1.170), so the model need not ask; no recording of `BashOutput` (1.0.72 to
2.0.61) or of a shell probe holds such a notice, and their texts do not promise one.

A probe is rapid when it comes less than `slow_repeat_seconds` after the previous probe of the
same task finished and did not itself wait `WAIT_SECONDS` or more (a blocking `TaskOutput` that
waited is waiting, not polling). Polls spaced further apart stay free. Past `max_rapid_polls`
rapid probes of one task, the next one is reminded with the way out (wait longer between
checks, do other work, or end the turn), and the ones after it are denied while they stay rapid.
A finished task, a user prompt or a compaction starts the count again.

A job the agent started in the background from the shell (`nohup bench/run_all.sh >
/tmp/bench.log 2>&1 &`, `npm run dev &> dev.log &`: `launched`) is a task too, watched another
way: its probes are shell commands that only read its log (`tail -3 /tmp/bench.log`, `grep -c
DONE /tmp/bench.log`) or ask whether its program still runs (`pgrep -f run_all.sh`, `ps aux |
grep run_all`), any of them in turn (rebuilt from anthropics/claude-code#95202: a subagent
rotating `tail`, `grep -c` and `pgrep` every six seconds for minutes, each answer a little
different). Only probes back to back count: any other call of the agent in between (an edit,
a test run, a probe of something else) is other work, and the job's count starts again, so an
edit→check-the-log cycle is never counted. A probe that itself waits (`sleep 30 && tail log`,
`until grep -q DONE log; do sleep 20; done`) is no rapid probe. A process check that finds
nothing (`pgrep` failing) says the job ended: its count goes.

Its slot is `Agent.rules["polling"]`: `{task key: [rapid probes, last probe's end, running]}`,
at most `MAX_TASKS` tasks; a job's key is `job:` with its log and its program's names.
"""

import re
from typing import Any, cast

from ..core.ledger import Agent, Limits, drop_slot, slot, slots, trim
from ..core.messages import PREFIX
from ..core.outcome import Failure
from ..core.shellwords import (
    MAX_SHELL_CHARS,
    OPERATORS,
    WRAPPERS,
    assignment,
    command_words,
    shell_command,
    shell_words,
    sleep_then,
)
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "polling"
MAX_TASKS = 8
#: A probe that took this long waited for the task itself (a blocking read): no rapid poll.
WAIT_SECONDS = 20.0
#: Claude Code's tools that read a background task's output (transcripts of 2.0-2.1).
POLL_TOOLS = frozenset({"BashOutput", "TaskOutput"})

#: `[rapid probes, the last probe's end (seconds since the epoch), still running]`.
Entry = list[float | bool]

#: A background job's task key starts so: `job:<its log>\n<its program's names, space-separated>`.
JOB = "job:"
#: Programs that ask whether a process still runs (a probe when they name the job's program).
_PROCESS_CHECKS = frozenset({"pgrep", "pidof", "ps"})
#: Programs a probe may read the job's log with (no other word of the command writing a file).
_LOG_READERS = frozenset({"cat", "tail", "head", "grep", "egrep", "fgrep", "rg", "wc", "less", "sed", "awk", "ls", "stat"})
#: What a probe may do besides: print, count, filter, wait a little.
_INERT = frozenset({"echo", "printf", "sleep", "date", "true", "sort", "uniq", "cut", "tr", "grep", "head", "tail", "wc"})
#: Words before a background job's program other than `WRAPPERS` (`setsid nohup x &`).
_DETACHERS = frozenset({"setsid", "disown", "stdbuf"})
#: Programs too common to name a job by (`python3 train.py` is known by `train.py`).
_GENERIC = frozenset(
    {"python", "python3", "node", "bash", "sh", "npm", "npx", "pnpm", "yarn", "bun", "uv", "java", "go", "run", "exec", "sleep"}
)


def _tasks(agent: Agent) -> dict[str, Entry]:
    return cast("dict[str, Entry]", slot(agent, NAME) or {})


def task_of(tool: str, tool_input: Any) -> str | None:
    """The task a call probes (its key), or None for a call that probes no background task."""
    if not isinstance(tool_input, dict):
        return None
    if tool in POLL_TOOLS:
        task = tool_input.get("bash_id") or tool_input.get("shell_id") or tool_input.get("task_id")
        return f"{tool}:{task}"[:160] if isinstance(task, str) else None
    # a shell command that sleeps a little, then reads or asks again: `sleep 5 && tail -n 20 log`
    found = sleep_then(shell_command(tool, tool_input, 1024) or "")
    if found is not None and found[0] < 60:
        return "sh:" + " ".join(found[1].split())[:160]
    return None


#: A lone `&` that puts a command in the background (not `&&`, `2>&1`, `&>`, `|&`).
_BACKGROUND = r"(?<![&>|])&(?![&>])"
#: What sends a command's standard output to a file (`> log`, `&>>log`).
_REDIRECTS = ("&>>", "&>", ">>", ">", "1>>", "1>")
#: `shellwords`' quote marks, dropped from a word.
_UNMARK = {1: None, 2: None, 3: None, 4: None}


def _segments(command: str) -> list[list[str]]:
    """A shell line's commands, each its words without quote marks or `VAR=value` prefixes,
    `&` kept as the last word of a command it puts in the background."""
    segments: list[list[str]] = [[]]
    for word in command_words(command):
        if word in OPERATORS:
            if word == "&" and segments[-1]:
                segments[-1].append("&")
            segments.append([])
        elif segments[-1] or not assignment(word):
            segments[-1].append(word.translate(_UNMARK))
    return [seg for seg in segments if seg]


def _redirect_target(words: list[str]) -> str | None:
    """The file a command's standard output goes to (`> log`, `>>log`, `&> log`), or None."""
    for i, word in enumerate(words):
        for op in _REDIRECTS:
            if word == op and i + 1 < len(words):
                target = words[i + 1]
            elif word.startswith(op) and len(word) > len(op) and word[len(op)] not in "&>":
                target = word[len(op) :]
            else:
                continue
            return None if target.startswith("/dev/") else target
    return None


def launched(command: str) -> str | None:
    """The task key of a job a shell line leaves running in the background (`nohup x > log 2>&1
    &`: `job:log\nx`), or None: the job's log (its output redirected to a file, "" when none)
    and the names its program is known by (the program's and its first operand's base names,
    not a generic interpreter's)."""
    if shell_words(command[:MAX_SHELL_CHARS]) is None:
        return None  # an unclosed quote, a here-document: where the job's words end is not told
    for words in _segments(command):
        if words[-1] != "&":
            continue
        targets = {i + 1 for i, w in enumerate(words) if w in _REDIRECTS}
        program = [
            w
            for i, w in enumerate(words[:-1])
            if i not in targets and w not in WRAPPERS and w not in _DETACHERS and w[0] != "-" and ">" not in w
        ]
        names = [n for w in program[:2] if (n := w.rstrip("/").rsplit("/", 1)[-1]) and n not in _GENERIC and len(n) > 2]
        log = _redirect_target(words[:-1]) or ""
        if log or names:
            return f"{JOB}{log}\n{' '.join(names[:2])}"[:240]
    return None


def _probes(command: str, key: str) -> bool:
    """Whether a shell line only looks at the job `key` names: reads its log or asks whether its
    program runs, printing, filtering and short sleeps aside, and names the job at least once."""
    log, _, names = key[len(JOB) :].partition("\n")
    segments = _segments(command)
    checks = False
    named = False
    for words in segments:
        head = words[0]
        if words[-1] == "&" or any(w.startswith((">", "&>", "1>")) or w in ("tee", "-i", "--in-place") for w in words):
            return False
        if head not in _PROCESS_CHECKS and head not in _LOG_READERS and head not in _INERT:
            return False
        checks = checks or head in _PROCESS_CHECKS
        named = named or bool(log) and any(w == log or w.endswith("/" + log) or log.endswith("/" + w) for w in words[1:])
    operands = [w for words in segments for w in words[1:] if len(w) > 3 and not w.startswith("-")]
    return named or checks and any(n in w or w in n for n in names.split() for w in operands)


def _waits(command: str) -> bool:
    """Whether a shell line waits on its own (`sleep 30`, `tail -f`): no rapid probe."""
    for words in _segments(command):
        if words[0] == "sleep" and len(words) > 1 and re.fullmatch(r"\d+(?:\.\d+)?[smh]?", words[1]):
            seconds = float(words[1].rstrip("smh")) * {"m": 60, "h": 3600}.get(words[1][-1], 1)
            if seconds >= WAIT_SECONDS:
                return True
        if words[0] == "tail" and any(w in ("-f", "-F", "--follow") for w in words):
            return True
    return False


def _key(tool: str, tool_input: Any, tasks: dict[str, Entry]) -> str | None:
    """The task a call probes: a background job of the agent's it looks at, or `task_of`'s."""
    command = shell_command(tool, tool_input, 1024) if any(k.startswith(JOB) for k in tasks) else None
    if command:
        found = next((k for k in tasks if k.startswith(JOB) and _probes(command, k)), None)
        if found is not None:
            return found
    return task_of(tool, tool_input)


def _checks_process_only(command: str) -> bool:
    """Whether a shell line's only question is whether a process runs (`pgrep -f x`, `ps aux |
    grep x`): its failure then says the process is gone."""
    segments = _segments(command)
    asks = all(s[0] in _PROCESS_CHECKS or s[0] in _INERT for s in segments)
    return bool(segments) and segments[0][0] in _PROCESS_CHECKS and asks


def _what(key: str) -> str:
    """How the texts name a task."""
    if key.startswith(JOB):
        log, _, names = key[len(JOB) :].partition("\n")
        program = f"the background job {names.split()[-1] if names else ''}".rstrip()
        return f"{program} (its output in {log})" if log else program
    return key.split(":", 1)[1] if key.startswith("sh:") else f"background task {key.split(':', 1)[1]}"


def _running(response: Any) -> bool:
    """Whether a probe's result says its task still runs (a shell probe tells nothing: yes)."""
    if not isinstance(response, dict):
        return True
    task = response.get("task")
    status = task.get("status") if isinstance(task, dict) else response.get("status")
    return status == "running" if isinstance(status, str) else True


def on_call(ctx: CallContext) -> Decision | None:
    """Remind the probe past the budget, deny the rapid ones after it."""
    budget = ctx.config.max_rapid_polls
    tasks = _tasks(ctx.agent)
    key = _key(ctx.tool, ctx.tool_input, tasks) if budget and ctx.tracked else None
    entry = tasks.get(key) if key is not None else None
    if key is None or entry is None or not entry[2] or ctx.now - float(entry[1]) >= ctx.config.slow_repeat_seconds:
        return None
    if key.startswith(JOB) and _waits(shell_command(ctx.tool, ctx.tool_input, 1024) or ""):
        return None
    probes = int(entry[0]) + 1
    what = _what(key)
    notified = key.startswith("TaskOutput:")
    if probes == budget + 1:
        text = poll_reminder(what, probes, notified=notified)
        return Decision(Action.REMIND, Rule.POLL, text, times=probes, tool=ctx.tool)
    if probes > budget + 1 and ctx.event.event == "PreToolUse":
        advice = poll_reminder(what, probes, notified=notified)
        return Decision(Action.DENY, Rule.POLL, poll_denial(what, probes), advice=advice, times=probes, tool=ctx.tool)
    return None


def on_result(ctx: ResultContext) -> None:
    """Note a probe: its task still running or not, and whether it came rapidly."""
    budget = ctx.config.max_rapid_polls
    if not budget:
        return None
    known = _tasks(ctx.agent)
    key = _key(ctx.tool, ctx.tool_input, known)
    command = shell_command(ctx.tool, ctx.tool_input, 1024)
    background = command is not None and "&" in command and re.search(_BACKGROUND, command) is not None
    job = launched(command or "") if background and ctx.outcome.failure == Failure.NONE else None
    for other, held in known.items():
        if other.startswith(JOB) and other != key:
            held[0] = 0  # other work between two probes of a job: its count starts again
    if key is None and job is None:
        return None
    tasks = cast("dict[str, Entry]", slots(ctx.agent).setdefault(NAME, {}))
    issued, done = ctx.call["t"], ctx.agent["updated"]
    if job is not None:
        tasks[job] = [0, done, True]
        trim(tasks, MAX_TASKS, lambda k: float(tasks[k][1]))
    if key is None or key == job:
        return None
    entry = tasks.get(key)
    running = _running(ctx.response)
    if key.startswith(JOB) and ctx.outcome.failure != Failure.NONE and _checks_process_only(command or ""):
        running = False  # `pgrep` found nothing: the job ended
    if not running:
        tasks.pop(key, None)
        return None
    waited = done - issued >= WAIT_SECONDS
    rapid = entry is not None and bool(entry[2]) and issued - float(entry[1]) < ctx.config.slow_repeat_seconds
    count = 0 if entry is None else int(entry[0]) + 1 if rapid and not waited else int(entry[0])
    tasks[key] = [count, done, True]
    trim(tasks, MAX_TASKS, lambda k: float(tasks[k][1]))
    return None


def fit(agent: Agent, share: Limits) -> None:
    """At most `MAX_TASKS` tasks, whatever the share: a few entries each."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: the counts start again."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def poll_reminder(what: str, count: int, *, notified: bool = False) -> str:
    """A rapid probe past the budget: the way out; `notified` when the host says itself that
    the task ended (Claude Code 2.1 `TaskOutput`: module docstring)."""
    told = ", and the host tells you when a background task ends" if notified else ""
    return (
        f"[{PREFIX}] {what} has been checked {count} times in quick succession and is still running. "
        f"Checking again will not make it finish sooner{told}. Wait a minute or more between checks, "
        "do other work meanwhile, or end your turn and say what you are waiting for."
    )


def poll_denial(what: str, count: int) -> str:
    """A rapid probe after the reminder: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this check of {what} was not run: it is still running and was checked "
        f"{count - 1} times in quick succession (loop guard policy, not a tool failure). Wait a minute "
        "or more before the next check, do other work meanwhile, or end your turn and say what you "
        "are waiting for"
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("poll_denial", "REPEAT_TOOL_BLOCKED: this check of ", ""),
    ("poll_reminder", f"[{PREFIX}] ", " times in quick succession and is still running"),
)
