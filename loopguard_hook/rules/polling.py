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

Its slot is `Agent.rules["polling"]`: `{task key: [rapid probes, last probe's end, running]}`,
at most `MAX_TASKS` tasks.
"""

from typing import Any, cast

from ..core.ledger import Agent, Limits, drop_slot, slot, slots, trim
from ..core.messages import PREFIX
from ..core.shellwords import shell_command, sleep_then
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
    key = task_of(ctx.tool, ctx.tool_input) if budget and ctx.tracked else None
    entry = _tasks(ctx.agent).get(key) if key is not None else None
    if key is None or entry is None or not entry[2] or ctx.now - float(entry[1]) >= ctx.config.slow_repeat_seconds:
        return None
    probes = int(entry[0]) + 1
    what = key.split(":", 1)[1] if key.startswith("sh:") else f"background task {key.split(':', 1)[1]}"
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
    key = task_of(ctx.tool, ctx.tool_input) if budget else None
    if key is None:
        return None
    tasks = cast("dict[str, Entry]", slots(ctx.agent).setdefault(NAME, {}))
    entry = tasks.get(key)
    issued, done = ctx.call["t"], ctx.agent["updated"]
    running = _running(ctx.response)
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
