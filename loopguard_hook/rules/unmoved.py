"""Unmoved: a check that keeps giving the identical answer across the "fixes" between its runs
(`unmoved_remind_at`, `unmoved_deny_at`; issue class 2, check / no-op fix / check, and class 3,
re-reads across writes that change nothing).

The repeat rule counts a call's attempts since the last new evidence, and a fix script that
prints something new is new evidence: `python3 -c 'print(config.RETRIES == 5)'` → `False`,
`sed -i …` → `patched`, the check → `False`, `perl -pi …` → `1`… restarts the check's count at
every fix. Where the workspace can be looked at, a fix that changed nothing on disk is no
progress (`hosts/workspace.py`), but a recording (`replay`) has no disk, and a fix that names
no file shows nothing there. The check's own answer is the evidence then: the same call, run
again after a fix, answering exactly as before, says the fix did not reach what it checks.

So this rule keeps, per signature, its run of identical answers, carried across the calls
between two runs only while every one of them was a change whose effect nothing confirmed: a
shell command that writes (`tools.SHELL_WRITES`: `sed -i`, `perl -pi`, a redirect, a Python
`write_text`…) or a change that failed. The run ends at

- any other call between two runs (a read, a search, a test of something else: the agent
  looked, it is not only retrying the fix);
- a change the host confirms took effect (an edit tool or a patch that applied; a shell write
  the workspace shows changed a file): an edit before a rerun is ordinary work, and a re-read
  after it reads another text. A re-read of one file (a read tool, or a shell command that only
  prints it) keeps its run only across unconfirmed writes that name that file: a change of
  another file ends it (re-reading a reference file while editing others is ordinary work);
- a successful answer that says nothing is wrong (no `False`, failure or error word:
  `outcome.says_not_right`): a check that keeps passing across changes (`42 passed`, `{"status": "ok"}`)
  is a regression check, not a fix that does not take effect;
- a different answer; a run `slow_repeat_seconds` or more after the previous one (a poll);
  a user prompt or a compaction (`reset`).

Polls are the polling rule's (`BashOutput`, `TaskOutput`, a command that starts with `sleep`),
an empty answer of a successful call says nothing, and parallel twins are one run (a twin is
not counted, and a run counts only when the call was issued after the previous run's answer
came back).

At `unmoved_remind_at` identical answers (balanced: 3) the rule reminds, and from the
`unmoved_deny_at`th run on (balanced: 5) it denies the check at PreToolUse, quoting its answer,
until the run ends as above: a read of what it checks, a change that takes effect or a prompt
lifts it. Where the repeat rule already counts as far (no new evidence between the runs), this
rule stays silent: one loop, one voice.

Since any other call ends a run, only the last call that answered can have one: the slot
`Agent.rules["unmoved"]` is `{"n": changes that took effect, "run": [signature, identical
answers, answer fingerprint, when the last answer came back, changes then, and for a re-read
the file it reads]}`. A call whose arguments the host does not send (DSH's Codex bridge) is
the same-result rule's.
"""

import re
from typing import TYPE_CHECKING, Any, cast

from ..config.settings import Config
from ..core.ledger import MAX_ID_CHARS, Agent, Limits, Signature, drop_slot, issued, slot, slots
from ..core.messages import PREFIX, quote
from ..core.outcome import Failure, says_not_right
from ..core.shellwords import shell_command
from ..core.tools import SHELL_WRITES, command_text, matches, patch_text, target_of
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "unmoved"
#: Reads of a background command's output: the polling rule's.
POLL_TOOLS = frozenset({"BashOutput", "TaskOutput"})
_WAIT = r"\A\s*(?:sleep|wait|timeout\s+\S+\s+sleep)\b"
QUOTE_CHARS = 400
#: `[signature, identical answers, answer fingerprint, when the last answer came back, changes
#: that took effect then, and for a re-read (a read tool, `cat f`) the file it reads]`.
Run = list[float | str]

if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    class Table(TypedDict):
        """The rule's slot of one agent."""

        n: int  # changes that took effect (the host or the workspace says so)
        run: NotRequired[Run]  # the last call that answered, while only changes came after it
else:
    Table = dict


def _table(agent: Agent) -> "Table":
    return cast("Table", slots(agent).setdefault(NAME, {"n": 0}))


def _is_change(tool: str, tool_input: Any, mutating: tuple[str, ...]) -> bool:
    """An edit tool, a patch, or a shell command that writes."""
    if matches(tool, mutating) or patch_text(tool, tool_input) is not None:
        return True
    command = shell_command(tool, tool_input)
    return command is not None and re.search(SHELL_WRITES, command) is not None


def _took_effect(ctx: ResultContext) -> bool:
    """A successful change whose effect the host confirms (an edit tool, a patch that applied)
    or the workspace showed (a shell write whose files were looked at before and after), or a
    diff applied (`ResultContext.edits`: `git apply /tmp/fix.patch` succeeds only by changing files)."""
    if matches(ctx.tool, ctx.config.mutating_tools) or "ws" in ctx.call or ctx.edits:
        return True
    return patch_text(ctx.tool, ctx.tool_input) is not None


def _is_poll(tool: str, tool_input: Any) -> bool:
    if tool in POLL_TOOLS:
        return True
    command = shell_command(tool, tool_input)
    return command is not None and re.match(_WAIT, command) is not None


def on_result(ctx: ResultContext) -> Decision | None:
    """Move the counters; extend or restart this call's run; remind at `unmoved_remind_at`."""
    cfg = ctx.config
    if (not cfg.unmoved_remind_at and not cfg.unmoved_deny_at) or ctx.call.get("duplicate"):
        return None
    table = _table(ctx.agent)
    if not ctx.caps.has_arguments(ctx.tool):
        table.pop("run", None)  # argument-blind (DSH's Codex bridge): the same-result rule's
        return None
    failed = ctx.outcome.failure != Failure.NONE
    if _is_change(ctx.tool, ctx.tool_input, cfg.mutating_tools):
        if not failed and not ctx.unchanged and _took_effect(ctx):
            table["n"] += 1
        run = table.get("run")
        if run is not None and len(run) > 5 and not _names(ctx.tool, ctx.tool_input, str(run[5]), ctx):
            table.pop("run", None)  # a re-read across a change of another file: ordinary work
        return None
    if _is_poll(ctx.tool, ctx.tool_input) or (not failed and not ctx.outcome.text.strip()):
        table.pop("run", None)  # another call between: the run is over
        return None
    file = _read_of(ctx.tool, ctx.tool_input, cfg)
    read = file is not None
    if not failed and not read and not says_not_right(ctx.outcome.text):
        table.pop("run", None)  # a check that keeps passing: no fix is failing to reach it
        return None
    sig_id, fingerprint = ctx.call["sig"], ctx.outcome.fingerprint
    changes = table["n"]
    run = table.get("run")
    slow = cfg.slow_repeat_seconds
    if run is not None and run[0] == sig_id and issued(ctx.call) < float(run[3]):
        return None  # a parallel twin of the last run: one run
    goes_on = (
        run is not None and run[0] == sig_id and run[2] == fingerprint and run[4] == changes
        and not (slow and ctx.call["t"] - float(run[3]) >= slow)
    )
    n = int(run[1]) + 1 if goes_on and run is not None else 1
    table["run"] = [sig_id, n, fingerprint, ctx.agent["updated"], changes]
    if file:
        table["run"].append(file)  # a re-read: only changes of this file carry its run
    if cfg.unmoved_remind_at and n == cfg.unmoved_remind_at and ctx.sig.get("n", 0) < n:
        return Decision(Action.REMIND, Rule.UNMOVED, reminder_text(ctx.tool, n, _answer(ctx.sig)), times=n, tool=ctx.tool)
    return None


#: A shell command that only prints one file, or part of it (`cat -n f`, `sed -n '1,80p' f`,
#: `head -50 f`; Codex reads files this way): a re-read, as a read tool's call is.
_SHELL_READ = (
    r"\A\s*(?:cd\s+\S+\s*&&\s*)?(?:cat|head|tail|nl|bat|sed\s+-n)"
    r"(?:\s+(?:-\S+|'[^']*'|\"[^\"]*\"|\d+))*\s+(['\"]?)([^\s'\";|&<>()$`]+)\1\s*\Z"
)


def _read_of(tool: str, tool_input: Any, config: Config) -> str | None:
    """The file a re-read reads: a read tool's, or a shell command's that only prints it."""
    if matches(tool, config.read_tools):
        return target_of(tool_input, config) or ""
    command = shell_command(tool, tool_input)
    found = re.match(_SHELL_READ, command[:1024]) if command is not None else None
    return found.group(2)[:MAX_ID_CHARS] if found is not None else None


def _names(tool: str, tool_input: Any, file: str, ctx: ResultContext) -> bool:
    """Whether a change names `file` (by its last two path components, or its name in a
    command)."""
    raw = command_text(tool, tool_input)
    if raw is not None:
        return file.rsplit("/", 1)[-1] in raw[:4096]
    return target_of(tool_input, ctx.config) == file


def _answer(sig: "Signature | None") -> str:
    text = sig.get("preview") if sig is not None else None
    return quote(text, QUOTE_CHARS) if isinstance(text, str) else ""


def on_call(ctx: CallContext) -> Decision | None:
    """Deny the check from its `unmoved_deny_at`th identical answer on, while the run holds."""
    cfg = ctx.config
    if not cfg.unmoved_deny_at or not ctx.counted or ctx.event.event != "PreToolUse":
        return None
    table = cast("Table | None", slot(ctx.agent, NAME))
    run = table.get("run") if table is not None else None
    if table is None or run is None or run[0] != ctx.call["sig"] or int(run[1]) + 1 < cfg.unmoved_deny_at:
        return None
    if run[4] != table["n"]:
        return None  # a change took effect since: the run is over
    slow = cfg.slow_repeat_seconds
    if (slow and ctx.now - float(run[3]) >= slow) or ctx.attempt > int(run[1]):
        return None  # a poll; or the repeat rule counts this call as far already
    n, answer = int(run[1]), _answer(ctx.sig)
    advice = reminder_text(ctx.tool, n, answer)
    return Decision(Action.DENY, Rule.UNMOVED, denial_text(ctx.tool, n, answer), times=n + 1, tool=ctx.tool, advice=advice)


def fit(agent: Agent, share: Limits) -> None:
    """One run an agent, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: every run is over."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def reminder_text(tool: str, count: int, answer: str) -> str:
    """The run of identical answers, reminded (and a denial's advice in `advise` mode)."""
    said = f': """{answer}"""' if answer else ""
    return (
        f"[{PREFIX}] This {tool} call has given the identical answer {count} times in a row, and the changes "
        f"tried between its runs did not change it{said}. They are not reaching what it checks: find out why "
        "(read the file or code it checks, confirm the change took effect) before you change and run it again."
    )


def denial_text(tool: str, count: int, answer: str) -> str:
    """`REPEAT_TOOL_BLOCKED` for a check whose answer the changes between its runs never moved."""
    said = f' Its answer: """{answer}"""' if answer else ""
    return (
        f"REPEAT_TOOL_BLOCKED: this {tool} call was not run: it has given the identical answer {count} times in a "
        f"row, and the changes tried between its runs did not change it (loop guard policy, not a tool failure).{said} "
        "Run again now, it would answer the same. Find out why the changes do not take effect (read the file or "
        "code it checks, `git diff`, `ls -l`), change the approach, or ask the user; a read, a change that takes "
        "effect or a new user message lifts this"
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("unmoved_denial", "REPEAT_TOOL_BLOCKED: this ", " did not change it (loop guard policy"),
    ("unmoved_reminder", f"[{PREFIX}] This ", " tried between its runs did not change it"),
)
