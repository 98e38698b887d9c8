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
checks, do other work, or end the turn), and the ones after it are denied while they stay rapid,
once the reminder had its round (the probes issued with the reminded one, one parallel batch,
are not: a batch that passes the budget at once is reminded, not denied unwarned). A finished
task, a user prompt or a compaction starts the count again, and so does a call that changed
files (`ResultContext.edits`: an edit tool's, or a shell edit the workspace saw): an
edit→check cycle (a dev server's output read after each change, `sleep 2 && curl` of a server
that reloads) is work between probes, not polling; and so does a call that probes nothing, made
for the first time (a `curl` of one endpoint after another, the server's output read after each:
the other work the reminder asks for; one made before, or a wait, is none).

A job the agent started in the background from the shell (`nohup bench/run_all.sh >
/tmp/bench.log 2>&1 &`, `npm run dev &> dev.log &`: `shell_jobs.launched`) is a task too,
watched another way: its probes are shell commands that only read its log (`tail -3
/tmp/bench.log`, `grep -c DONE /tmp/bench.log`) or ask whether its program still runs (`pgrep -f
run_all.sh`, `ps aux | grep [r]un_all.sh`; a job run as a shell's script is known by the
programs it runs: `pgrep -f seq` for `nohup sh -c 'for i in $(seq 1 90); …' > log &`), any of
them in turn (rebuilt from
anthropics/claude-code#95202: a subagent rotating `tail`, `grep -c` and `pgrep` every six seconds
for minutes, each answer a little different), or a read tool on its log (Claude Code's `Read`;
the log and the file read against the payload's `cwd`, which on Codex has the call's `workdir`
applied, so a log of the same name in another folder is another file). A shell probe cannot say whether the job still runs, so
only what polling looks like counts:

- probes back to back: any other call of the agent in between (an edit, a test run, a look at
  something else) is other work, and a new run of probes starts, so an edit→check-the-log cycle
  is never counted;
- probes asked before in the run: a rapid probe counts only when it repeats one made since the
  run began (`tail`, `grep -c`, `pgrep`, then `tail` again). Reading a finished job's log part
  by part (other ranges, other patterns, other files) asks something new each time;
- rapid ones: a probe that waits on its own (`sleep 30 && tail log`, `tail -f`) or comes
  `slow_repeat_seconds` after the last starts a new run, as the reminder asks;
- a process check that finds nothing (`pgrep` failing) says the job ended, and so does a line
  that waits for or kills the jobs it starts (`a & b & wait`): no task.

Past `max_rapid_polls` counted probes the next repeated one is reminded and later ones denied,
as for any task. A prompt or a compaction starts the counts again and keeps the jobs (the next
turn may watch the same job).

Its slot is `Agent.rules["polling"]`: `{task key: [rapid probes, last probe's end, running, a
job's probes of its current run (`MAX_PROBES` short digests), when the reminder was given]}`, at
most `MAX_TASKS` tasks (an entry written before the last two fields existed has three); a job's
key is `job:` with its log and its program's names, a host task's `BashOutput:<id>`, a check
that sleeps then looks `sh:` with its command, a key over `MAX_KEY` characters cut with a digest
of the whole (`_capped`). A check denied after the reminder counts among the rapid probes at its
PreToolUse (the call marked `poll_counted`, so that one run anyway under advise or observe adds
none at its result); a successful `STOP_TOOLS` call forgets its task.
"""

import json
import posixpath
from typing import Any, cast

from ..config.settings import Config
from ..core.ledger import Agent, Limits, drop_slot, slot, slots, trim
from ..core.messages import PREFIX
from ..core.outcome import Failure
from ..core.shellwords import MAX_SHELL_CHARS, shell_command, sleep_then
from ..core.signature import digest
from ..core.tools import is_read_tool, path_of
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext
from .shell_jobs import JOB, WAIT_SECONDS, checks_process_only, launched, probes, same_log, waits

NAME = "polling"
MAX_TASKS = 8
#: Claude Code's tools that read a background task's output (transcripts of 2.0-2.1).
POLL_TOOLS = frozenset({"BashOutput", "TaskOutput"})
#: Claude Code tools that stop a host task (`TaskStop` `task_id`, 2.1.332, research notes §
#: tools; `KillShell`/`KillBash` `shell_id` in earlier versions): the task is known ended.
STOP_TOOLS = frozenset({"TaskStop", "KillShell", "KillBash"})

#: `[rapid probes (a denied check included), the last probe's end (seconds since the epoch), still
#: running, a job's probes of its current run (short digests), when the reminder was given (0.0:
#: not yet)]`.
Entry = list[Any]

#: At most this many probes of a job's run are remembered.
MAX_PROBES = 8


def _tasks(agent: Agent) -> dict[str, Entry]:
    return cast("dict[str, Entry]", slot(agent, NAME) or {})


#: Characters of a task key; a longer one keeps its start and a digest of the whole (`_capped`).
MAX_KEY = 160
#: Characters of a shell line read as a check that sleeps then looks.
_MAX_CHECK = 1024
_CUT = "…#"


def _capped(key: str) -> str:
    """`key` in at most `MAX_KEY` characters: a longer one cut, marked, with the whole's digest,
    so two long checks that differ past the cut (`sleep 2 && curl '…&page=2'`, `…&page=3`) stay
    two tasks, not one polled again."""
    if len(key) <= MAX_KEY:
        return key
    mark = _CUT + digest(key.encode())
    return key[: MAX_KEY - len(mark)] + mark


def task_of(tool: str, tool_input: Any) -> str | None:
    """The task a call probes (its key), or None for a call that probes no background task."""
    if not isinstance(tool_input, dict):
        return None
    if tool in POLL_TOOLS:
        task = tool_input.get("bash_id") or tool_input.get("shell_id") or tool_input.get("task_id")
        return _capped(f"{tool}:{task}") if isinstance(task, str) else None
    # a shell command that sleeps a little, then reads or asks again: `sleep 5 && tail -n 20 log`;
    # one over `_MAX_CHECK` characters is no such check (and its cut would stand for others)
    command = shell_command(tool, tool_input, _MAX_CHECK + 1) or ""
    found = sleep_then(command) if len(command) <= _MAX_CHECK else None
    if found is not None and found[0] < 60:
        return _capped("sh:" + " ".join(found[1].split()))
    return None


def where(cwd: str | None) -> str | None:
    """The folder a call runs in, when known: the payload's `cwd`, absolute (Codex 0.171.0 gives
    it with the call's `workdir` applied, and leaves `workdir` out of `tool_input`; a replay of a
    rollout does the same: `Capabilities.cwd_is_workdir`)."""
    return posixpath.normpath(cwd) if isinstance(cwd, str) and posixpath.isabs(cwd) else None


def _started_in(ctx: ResultContext, command: str | None) -> str | None:
    """The folder a call's line started in, at its result: noted at its PreToolUse for a line
    with a `cd` (the result's `cwd` may be where the `cd` led: Claude Code keeps its shell's
    folder), unknown for such a line not seen there, else the result's `cwd`."""
    noted = ctx.call.get("cwd")
    if isinstance(noted, str):
        return noted
    return None if command and "cd" in command else where(ctx.cwd)


def _key(
    tool: str, tool_input: Any, tasks: dict[str, Entry], command: str | None, folder: str | None, config: Config
) -> str | None:
    """The task a call probes: a background job of the agent's it looks at (a shell line, or a
    read tool on its log), or `task_of`'s."""
    jobs = [k for k in tasks if k.startswith(JOB)]
    found = None
    if jobs and command:
        found = next((k for k in jobs if probes(command, k, folder)), None)
    elif jobs and command is None and is_read_tool(tool, config):
        path = path_of(tool_input, config) or ""
        found = next((k for k in jobs if same_log(path, k[len(JOB) :].partition("\n")[0], folder, "")), None)
    return found if found is not None else task_of(tool, tool_input)


def _new_runs(tasks: dict[str, Entry], key: str | None, *, new_work: bool = False) -> None:
    """Other work between two probes of a job (a call that probes another task or none): each
    job but `key` starts a new run of probes. A call that probes nothing and is made for the
    first time (`new_work`: a `curl` of another endpoint of the dev server whose log is read
    after each, the other work the reminder asks for) starts a new run of every task's probes."""
    for other, held in tasks.items():
        if other != key and len(held) > 4 and (new_work or other.startswith(JOB)):
            held[0], held[3], held[4] = 0, [], 0.0


def _probe_id(command: str | None, tool_input: Any) -> str:
    """What a probe asks, as a short digest: its command line, or a read tool's arguments."""
    asked = " ".join(command.split()) if command is not None else json.dumps(tool_input, sort_keys=True, default=str)
    return digest(asked.encode("utf-8", "surrogatepass"))[:8]


def _asked(entry: Entry) -> list[str]:
    """A job's probes of its current run (`MAX_PROBES` short digests); [] for a malformed entry."""
    asked = entry[3] if len(entry) > 3 else None
    return asked if isinstance(asked, list) else []


def _what(key: str) -> str:
    """How the texts name a task."""
    if key.startswith(JOB):
        log, _, names = key[len(JOB) :].partition("\n")
        program = f"the background job {names.split()[0] if names else ''}".rstrip()  # the program, not its operand
        return f"{program} (its output in {log})" if log else program
    what = key.split(":", 1)[1].partition(_CUT)[0] + ("…" if _CUT in key else "")
    return what if key.startswith("sh:") else f"background task {what}"


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
    if not budget:
        return None
    tasks = _tasks(ctx.agent)
    command = shell_command(ctx.tool, ctx.tool_input, MAX_SHELL_CHARS)
    noted = command is not None and "cd" in command and (tasks or "&" in command) and ctx.event.event == "PreToolUse"
    if not tasks and not noted:
        return None  # the common case: no job, and no line with a `cd` that could start one
    folder = where(ctx.event.cwd)
    if noted and folder:
        # Claude Code's result of `cd x && …` gives the folder the `cd` led to: the line is read
        # at its result from the folder it started in.
        ctx.call["cwd"] = folder
    if not tasks:
        return None
    key = _key(ctx.tool, ctx.tool_input, tasks, command, folder, ctx.config)
    # Other work starts a new run of a job's probes as it starts: on Codex a command left
    # running (a test suite finished through `write_stdin`) sends no result to start it by.
    new_work = key is None and ctx.counted and ctx.sig is not None and ctx.sig.get("total", 0) == 1
    _new_runs(tasks, key, new_work=new_work)
    if not ctx.tracked:
        return None
    entry = tasks.get(key) if key is not None else None
    if key is None or entry is None or not entry[2] or ctx.now - float(entry[1]) >= ctx.config.slow_repeat_seconds:
        return None
    probes_made = int(entry[0]) + 1
    job = key.startswith(JOB)
    if probes_made < budget + 1:
        return None
    if job and (waits(command or "") or _probe_id(command, ctx.tool_input) not in _asked(entry)):
        return None  # a job's probe that waits, or asks something new in this run, is no poll
    reminder, denial = _texts(key, probes_made)
    reminded = _reminded(entry)
    if not reminded:
        _remind(entry, ctx.now)
        return Decision(Action.REMIND, Rule.POLL, reminder, times=probes_made, tool=ctx.tool)
    # Denied once the reminder had its round: not the probes issued with the reminded one.
    if ctx.event.event != "PreToolUse" or ctx.now - reminded <= ctx.config.parallel_window_seconds:
        return None
    entry[0] = probes_made  # a denied check was asked all the same: the next text counts it
    ctx.call["poll_counted"] = True  # run all the same (advise, observe): its result adds none
    return Decision(Action.DENY, Rule.POLL, denial, advice=reminder, times=probes_made, tool=ctx.tool)


def running_job(ctx: CallContext) -> str | None:
    """How the texts name the background job of the agent's that a call looks at, by its log or
    its process (`the background job make (its output in build.log)`), while this rule takes it
    to run (no process check found it gone); None for any other call, or with the rule off. The
    repeat rule's texts then say how to wait for it, or to use its output if it ended."""
    tasks = _tasks(ctx.agent) if ctx.config.max_rapid_polls else {}
    if not any(k.startswith(JOB) for k in tasks):
        return None
    command = shell_command(ctx.tool, ctx.tool_input, MAX_SHELL_CHARS)
    folder = ctx.call.get("cwd") if isinstance(ctx.call.get("cwd"), str) else where(ctx.event.cwd)
    key = _key(ctx.tool, ctx.tool_input, tasks, command, folder, ctx.config)
    return _still_running(tasks, key) if key is not None and key.startswith(JOB) else None


def running_task(ctx: CallContext) -> str | None:
    """How the texts name the host's background task a `POLL_TOOLS` call reads (`background task
    722599`) while its last read said it still runs; None for any other call, or with the rule
    off. The repeat rule's texts then say that checking again will not make it end sooner (a
    public transcript: a 14-minute install read 13 times, a sleep between each, told only that
    it was repeating itself)."""
    if ctx.tool not in POLL_TOOLS or not ctx.config.max_rapid_polls:
        return None
    if ctx.sig is not None and ctx.sig.get("failed"):
        return None  # its last read failed (`No shell found with ID`): no task said it runs
    key = task_of(ctx.tool, ctx.tool_input)
    return _still_running(_tasks(ctx.agent), key) if key is not None else None


def _still_running(tasks: dict[str, Entry], key: str) -> str | None:
    """How the texts name task `key` while the rule takes it to run (`running_job`,
    `running_task`); None when it is not known or was seen ended."""
    entry = tasks.get(key)
    return _what(key) if entry is not None and len(entry) > 2 and entry[2] else None


def _texts(key: str, probes: int) -> tuple[str, str]:
    """The reminder and the denial for the `probes`th rapid probe of task `key`: a background
    job's, a shell check's that sleeps and looks (`sh:`), or a host task's."""
    what = _what(key)
    if key.startswith(JOB):
        return job_poll_reminder(what, probes), job_poll_denial(what, probes)
    if key.startswith("sh:"):
        return shell_poll_reminder(what, probes), shell_poll_denial(what, probes)
    return poll_reminder(what, probes, notified=key.startswith("TaskOutput:")), poll_denial(what, probes)


def _reminded(entry: Entry) -> float:
    """When a task's reminder was given (seconds since the epoch), 0.0 if not yet."""
    when = entry[4] if len(entry) > 4 else 0.0
    return float(when) if isinstance(when, (int, float)) and not isinstance(when, bool) else 0.0


def _remind(entry: Entry, now: float) -> None:
    """Note the reminder in a task's entry (an entry of 351db38 has three fields: two added)."""
    while len(entry) < 5:
        entry.append(0.0 if len(entry) == 4 else [])
    entry[4] = now


def on_result(ctx: ResultContext) -> None:
    """Note a probe: its task still running or not, and whether it came rapidly."""
    budget = ctx.config.max_rapid_polls
    if not budget:
        return None
    known = _tasks(ctx.agent)
    if ctx.edits:
        _edited(known)
    if ctx.tool in STOP_TOOLS and ctx.outcome.failure == Failure.NONE and isinstance(ctx.tool_input, dict):
        _stopped(known, ctx.tool_input.get("task_id") or ctx.tool_input.get("shell_id"))
    command = shell_command(ctx.tool, ctx.tool_input, MAX_SHELL_CHARS)
    folder = _started_in(ctx, command)
    key = _key(ctx.tool, ctx.tool_input, known, command, folder, ctx.config)
    jobs = launched(command, folder) if command and ctx.outcome.failure == Failure.NONE else []
    _new_runs(known, key)
    if key is None and not jobs:
        return None
    tasks = cast("dict[str, Entry]", slots(ctx.agent).setdefault(NAME, {}))
    issued, done = ctx.call["t"], ctx.agent["updated"]
    for job in jobs:
        tasks[job] = [0, done, True, [], 0.0]
    trim(tasks, MAX_TASKS, lambda k: float(tasks[k][1]))
    if key is None or key in jobs:
        return None
    entry = tasks.get(key)
    running = _running(ctx.response)
    if key.startswith(JOB) and ctx.outcome.failure != Failure.NONE and checks_process_only(command or ""):
        running = False  # `pgrep` found nothing: the job ended
    if not running:
        tasks.pop(key, None)
        return None
    waited = done - issued >= WAIT_SECONDS
    rapid = entry is not None and bool(entry[2]) and issued - float(entry[1]) < ctx.config.slow_repeat_seconds
    if key.startswith(JOB) and entry is not None:
        tasks[key] = _job_probed(entry, _probe_id(command, ctx.tool_input), done, rapid=rapid and not waited)
        return None
    counted = ctx.call.get("poll_counted") is True  # at its PreToolUse, as a denied check
    count = 0 if entry is None else int(entry[0]) + 1 if rapid and not waited and not counted else int(entry[0])
    tasks[key] = [count, done, True, [], _reminded(entry) if entry is not None else 0.0]
    trim(tasks, MAX_TASKS, lambda k: float(tasks[k][1]))
    return None


def _stopped(tasks: dict[str, Entry], task: object) -> None:
    """A host task stopped (`STOP_TOOLS`): its reads no longer say it runs."""
    if isinstance(task, str):
        for tool in POLL_TOOLS:
            tasks.pop(_capped(f"{tool}:{task}"), None)


def _edited(tasks: dict[str, Entry]) -> None:
    """A call that changed files (`ResultContext.edits`) is work between probes: every task's
    run of probes starts again, its reminder with it (an edit→check cycle: a dev server's output
    read after each change, `sleep 2 && curl` of a server that reloads)."""
    for entry in tasks.values():
        if isinstance(entry, list) and entry:
            entry[0] = 0
            if len(entry) > 4:
                entry[3], entry[4] = [], 0.0


def _job_probed(entry: Entry, probe: str, done: float, *, rapid: bool) -> Entry:
    """A job's entry after a probe: a rapid one it made before in this run counts; a new one is
    remembered; a slow or waiting one starts a new run (the agent waited, as a reminder asks)."""
    asked = _asked(entry)
    if not rapid:
        return [0, done, True, [probe], 0.0]
    if probe in asked:
        count = int(entry[0]) + 1
    else:
        count = int(entry[0])
        asked = [*asked, probe][-MAX_PROBES:]
    return [count, done, True, asked, _reminded(entry)]


def fit(agent: Agent, share: Limits) -> None:
    """At most `MAX_TASKS` tasks, whatever the share: a few entries each."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: the counts start again; the background jobs still run."""
    tasks = _tasks(agent)
    jobs: dict[str, Entry] = {
        k: [0, v[1] if isinstance(v[1], (int, float)) else 0.0, True, [], 0.0]
        for k, v in tasks.items()
        if k.startswith(JOB) and isinstance(v, list) and len(v) > 1
    }
    drop_slot(agent, NAME)
    if jobs:
        slots(agent)[NAME] = jobs


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


def shell_poll_reminder(what: str, count: int) -> str:
    """A shell check that sleeps a little and looks (`sleep 8 && docker compose ps`), run past the
    budget in quick succession: what it waits for is not known to the guard, so the text says
    the checks repeat, not that a task still runs."""
    return (
        f"[{PREFIX}] `{what}` has been run {count} times in quick succession, each a short wait and a look. "
        "What it waits for will not come sooner by being looked at more often: wait a minute or more between "
        "checks, do other work meanwhile, or end your turn and say what you are waiting for."
    )


def shell_poll_denial(what: str, count: int) -> str:
    """Such a check after the reminder: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this check was not run: `{what}` was run {count - 1} times in quick succession, "
        "each a short wait and a look (loop guard policy, not a tool failure). Wait a minute or more before the "
        "next check, do other work meanwhile, or end your turn and say what you are waiting for"
    )


def job_poll_reminder(what: str, count: int) -> str:
    """Repeated rapid probes of a background job past the budget: the way out. A shell probe
    cannot say whether the job still runs (a server runs on), so the text says the probes repeat."""
    return (
        f"[{PREFIX}] {what} has been checked {count} times in quick succession, asking the same things again. "
        "Its log and its process will not tell you more by being asked sooner. Wait a minute or more between "
        "checks, do other work meanwhile, or end your turn and say what you are waiting for."
    )


def job_poll_denial(what: str, count: int) -> str:
    """A repeated rapid probe of a background job after the reminder: not run."""
    return (
        f"REPEAT_TOOL_BLOCKED: this check of {what} was not run: it was checked {count - 1} times in quick "
        "succession with the same questions (loop guard policy, not a tool failure). Wait a minute or more "
        "before the next check, do other work meanwhile, or end your turn and say what you are waiting for"
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("shell_poll_denial", "REPEAT_TOOL_BLOCKED: this check was not run: ", " each a short wait and a look"),
    ("shell_poll_reminder", f"[{PREFIX}] ", " times in quick succession, each a short wait and a look"),
    ("job_poll_denial", "REPEAT_TOOL_BLOCKED: this check of ", " in quick succession with the same questions"),
    ("job_poll_reminder", f"[{PREFIX}] ", " in quick succession, asking the same things again"),
    ("poll_denial", "REPEAT_TOOL_BLOCKED: this check of ", ""),
    ("poll_reminder", f"[{PREFIX}] ", " times in quick succession and is still running"),
)
