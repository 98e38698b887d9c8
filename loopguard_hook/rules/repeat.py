"""Repeat and escalation: the same call again and again (all four profiles).

Thresholds `remind_at`, `deny_at` and `stop_at` on the profile's counter (`counting`): identical
calls in a row (`consecutive`), or attempts of one signature since the last new evidence
(`no_progress`). A repeat that comes `slow_repeat_seconds` after the previous attempt finished
(a denied one: was made), or a shell call that first sleeps half as long or more before it checks
(`shellwords.sleeps_first`; not a test run or a build), is a poll, not a loop: free at the
reminder thresholds, only reminded (`LOOP_GUARD_SLOW_REPEAT`) where it would be denied or end
the turn. A call first counted at Claude Code's PostToolBatch fired no PreToolUse: an
input-validation rejection, which never ran (research/claude-code-hooks.md), so it is no poll
and is never excused as slow; it cannot be denied, so where the profile ends turns (`stop_at`)
it ends the turn at `deny_at` instead (PostToolBatch carries `continue: false`, 2.1.332 LAB):
the same input is rejected the same way every time, and a reminder is all the denial could have
been; its reminders quote the host's answer (`rejected_reminder`), as its end does. Only
attempts that were all rejected so end the turn early: the slot `Agent.rules["repeat_rejected"]`
keeps, per signature, how many attempts in a row the host rejected (`RejectedEntry`), and a
rejection after attempts that ran (slow polls, then one call with a timeout over the host's
limit) is reminded, since the signature leaves out what made it fail. Identical
calls rejected so in one reply count once under `parallel_duplicates = "count_once"`
(balanced): the count is of replies. A call so rejected with no input at all for a
missing parameter (`{}`: the reply was cut before it, `tools.cut_rejection`) is left to
`cut_input.py` while that rule is on: it is not a repeat to analyse but a reply too long. Any
other rejection of `{}` (an MCP tool that is gone: "No such tool available") stays this rule's.
Under `exact_repeat_code` (the progress profile) a denial of attempts that were all spelt alike
is coded `LOOP_GUARD_DUPLICATE`, as the progress seed codes it; the slot
`Agent.rules["repeat"]` keeps, per signature, how its last attempt was spelt and whether the
attempts since the evidence were spelt alike (`RepeatEntry`).

A write that changed nothing (`ResultContext.unchanged`: the workspace, or Claude Code's Write
result, shows its file as it was) is no progress, so the check run before and after it counts
on (issue class 2, check / no-op fix / check). Where `write_result_evidence` is on (balanced),
the reminder, denial or end of turn of a call made after such a write says so (`NOOP_NOTE`),
since the model believes its write was the fix: the slot `Agent.rules["repeat_noop"]` keeps the
last such write, `[tool, when it was made]` (`NoopEntry`), until the next prompt. Likewise, under
`revisit_evidence` (balanced), after an edit that put every file the agent edited back as it was
earlier (`ResultContext.revisited`: a value toggled back and forth), the texts say so
(`BACK_NOTE`; the slot `Agent.rules["repeat_back"]`, of the same shape). Where slow
polls are free (`slow_repeat_seconds`), a shell call's texts also say how to wait so that the
wait goes ahead (`_wait_note`): after a result saying nothing listened at the address asked
(`WAIT_NOTE`: a server still starting), or for a check that sleeps first too briefly to be a
poll (`PACE_NOTE`). The seed profiles' texts are theirs and do not change.
"""

import math
import re
from typing import TYPE_CHECKING, cast

from ..core import messages as msg
from ..core.ledger import MAX_ID_CHARS, Agent, Limits, Signature, drop_slot, slot, slots, waited_first
from ..core.messages import PREFIX, quote
from ..core.outcome import Failure, arguments_preview, preview
from ..core.redact import redact_prefix
from ..core.shellwords import SHELL_TOOLS, reruns_work, sleeps_first
from ..core.signature import CallKey, digest
from ..core.tools import cut_rejection, edits_in_place, matches
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext
from .polling import running_job, running_task


def arguments_text(key: CallKey, limit: int) -> str:
    """The canonical arguments of a call, cut to `limit` characters."""
    return arguments_preview(key, limit)


def _previous_result(ctx: CallContext) -> str | None:
    text = ctx.sig.get("preview") if ctx.sig is not None else None
    return text if isinstance(text, str) else None


NAME = "repeat"
#: The slot of the last write that changed nothing (module docstring).
NOOP = "repeat_noop"
#: The slot of the last call that put its files back as they were earlier (module docstring).
BACK = "repeat_back"
#: The slot of the rejections in a row per signature (module docstring).
REJECTED = "repeat_rejected"

if TYPE_CHECKING:
    #: `[spelling, mixed]`: a digest of the last attempt's arguments as given, and whether the
    #: attempts since the evidence were not all spelt alike.
    RepeatEntry = list[str | bool]
    #: `[tool, t]`: the tool of the last successful write that changed nothing, and when it was
    #: made (seconds since the epoch).
    NoopEntry = list[str | float]
    #: `{signature id: attempts in a row the host rejected before they ran}` (at least 1).
    RejectedEntry = dict[str, int]
else:
    RepeatEntry = list
    NoopEntry = list
    RejectedEntry = dict


def _note_spelling(agent: Agent, sig_id: str, sig: Signature, key: CallKey) -> bool:
    """Whether the attempts of `sig` since its last new evidence were all spelt alike: the
    canonical arguments as given (`key.head`), before the shell spacing that the signature
    ignores is removed. Kept in the rule's slot, per signature."""
    spelt = cast("dict[str, RepeatEntry]", slots(agent).setdefault(NAME, {}))
    spelling = digest(key.head.encode("utf-8", "surrogatepass"))[:16]
    entry = spelt.get(sig_id)
    mixed = False if sig["n"] <= 1 else (spelling != (entry[0] if entry else None) or bool(entry and entry[1]))
    spelt[sig_id] = [spelling, mixed]
    for stale in [k for k in spelt if k not in agent["sigs"]]:
        del spelt[stale]
    return not mixed


def fit(agent: Agent, share: Limits) -> None:
    """Keep the entries of the signatures the agent still holds."""
    for name in (NAME, REJECTED):
        table = cast("dict[str, object] | None", slot(agent, name))
        if table:
            for stale in [k for k in table if k not in agent["sigs"]]:
                del table[stale]
            if not table:
                drop_slot(agent, name)


def _tally_rejection(agent: Agent, sig_id: str, rejected: bool) -> int:
    """Note an attempt of `sig_id` the host rejected (or one that ran: the tally restarts);
    return the attempts in a row it rejected, this one included (0 for one that ran)."""
    table = cast("RejectedEntry | None", slot(agent, REJECTED))
    if not rejected:
        if table and table.pop(sig_id, None) is not None and not table:
            drop_slot(agent, REJECTED)
        return 0
    table = cast("RejectedEntry", slots(agent).setdefault(REJECTED, {}))
    table[sig_id] = table.get(sig_id, 0) + 1
    return table[sig_id]


def reset(agent: Agent, why: str) -> None:
    """A prompt forgets every signature and the last write that changed nothing; a compaction
    keeps them, and how they were spelt."""
    if why == "prompt":
        drop_slot(agent, NAME)
        drop_slot(agent, NOOP)
        drop_slot(agent, BACK)
        drop_slot(agent, REJECTED)


def on_result(ctx: ResultContext) -> Decision | None:
    """Note a successful write that changed nothing (`ResultContext.unchanged`), for the texts
    of the calls made after it (module docstring); never a decision. A write tool's or a
    patch's (`mutating_tools`), or a shell line of in-place edits and reads (`sed -i`, `perl
    -pi`: `tools.edits_in_place` of a `ResultContext.edit_line`), which changes only the files it names;
    not another shell command: what it changed is judged by the files it names as words, and it
    may change others (`git apply`, `cp a dir/`, a script's computed path) or their mode."""
    if ctx.unchanged and ctx.config.write_result_evidence and ctx.outcome.failure == Failure.NONE and (
        ctx.tool not in SHELL_TOOLS and matches(ctx.tool, ctx.config.mutating_tools)
        or ctx.edit_line and edits_in_place(ctx.tool, ctx.tool_input)
    ):
        slots(ctx.agent)[NOOP] = [ctx.tool[:MAX_ID_CHARS], ctx.call["t"]]
    # A shell line's too: the files it names are back as they were, whatever else it changed.
    if ctx.revisited and ctx.outcome.failure == Failure.NONE:
        slots(ctx.agent)[BACK] = [ctx.tool[:MAX_ID_CHARS], ctx.call["t"]]
    return None


def _noop_note(ctx: CallContext) -> str:
    """`NOOP_NOTE` when a write that changed nothing was made since this call's previous
    attempt, under `write_result_evidence`, and `BACK_NOTE` when a call that put its files back
    as they were earlier was, under `revisit_evidence`; else ""."""
    return (
        _since_previous(ctx, NOOP, NOOP_NOTE, on=ctx.config.write_result_evidence)
        + _since_previous(ctx, BACK, BACK_NOTE, on=ctx.config.revisit_evidence)
    )


def _since_previous(ctx: CallContext, name: str, text: str, *, on: bool) -> str:
    """`text` for the tool in the slot `name` when it was made since this call's previous attempt."""
    found = cast("NoopEntry | None", slot(ctx.agent, name))
    if not on or not isinstance(found, list) or len(found) != 2 or ctx.previous_time is None:
        return ""  # none, or not this rule's shape (a state file edited by hand)
    tool, when = found
    # Made after the previous attempt, and not later than now (a clock moved back, a hand edit).
    if not isinstance(tool, str) or not isinstance(when, float | int) or not ctx.previous_time < when <= ctx.now:
        return ""
    return text.format(tool=tool[:MAX_ID_CHARS])


def _wait_note(ctx: CallContext) -> str:
    """Where slow polls are free (`slow_repeat_seconds`, off in the seed profiles), for a shell
    call: `JOB_NOTE` when it looks at a background job the polling rule takes to run
    (`polling.running_job`),
    `WAIT_NOTE` when its previous result says nothing listened at the address it asked
    (`REFUSED`: a server not started, or still starting), `PACE_NOTE` when it sleeps first, too
    briefly to be a poll (`sleep 20 && gh pr checks`), `SPACED_NOTE` when it came a quarter of
    `slow_repeat_seconds` or more after the previous one, not a test run or a build (`gh pr checks`
    45 s apart); else ""."""
    slow = ctx.config.slow_repeat_seconds
    task = running_task(ctx) if slow else None
    if task is not None:
        notified = NOTIFIED_NOTE if ctx.tool == "TaskOutput" else ""
        return TASK_NOTE.format(what=task, notified=notified) + _halt_note(ctx)
    if not slow or ctx.tool not in SHELL_TOOLS:
        return ""
    half = math.ceil(slow / 2)
    job = running_job(ctx)
    if job is not None:
        return JOB_NOTE.format(what=job, seconds=half) + _halt_note(ctx)
    previous = _previous_result(ctx)
    if previous is not None and re.search(REFUSED, previous[:2000]) is not None:
        note = WAIT_TESTS_NOTE if reruns_work(ctx.tool, ctx.tool_input) else WAIT_NOTE
        return note.format(seconds=half) + _halt_note(ctx)
    waits = _waits(ctx)
    if 0 < waits < slow / 2:
        return PACE_NOTE.format(waits=f"{waits:g}", seconds=half) + _halt_note(ctx)
    gap = ctx.now - ctx.previous_time if ctx.previous_time is not None else 0.0
    if slow / 4 <= gap < slow and not reruns_work(ctx.tool, ctx.tool_input):
        return SPACED_NOTE.format(gap=int(gap), slow=f"{slow:g}", seconds=half) + _halt_note(ctx)
    return ""


def _halt_note(ctx: CallContext) -> str:
    """`HALT_NOTE` on a host that ends the run itself at its `halts_at`th identical call in a
    row, however far apart (Gemini CLI, Qwen Code: `Capabilities.halts_at`), where the texts
    advise waiting longer between checks; else ""."""
    return HALT_NOTE.format(n=ctx.caps.halts_at) if ctx.caps.halts_at else ""


#: What a result says when nothing listened at the address asked (curl, wget, Node's fetch,
#: psql, redis-cli, nc: their own words).
REFUSED = (
    r"Connection refused|ECONNREFUSED|Failed to connect to|Couldn't connect to server"
    r"|could not connect to server|Could not connect to Redis"
)
#: What a repeat's text adds then: the way out that goes ahead (`_slow`: a check that sleeps
#: half of `slow_repeat_seconds` first is a poll).
WAIT_NOTE = (
    " Nothing answered at that address. If a server is still starting, wait for it in one check that sleeps "
    "first (`sleep {seconds} && ...`, which is let through) or read its log; if none was started, start it or "
    "tell the user."
)


#: The same for a test run or a build, which a wait before it makes no poll (`reruns_work`): the
#: wait goes into a check of the server.
WAIT_TESTS_NOTE = (
    " Nothing answered at that address. If a server is still starting, wait for it with a check of the server "
    "that sleeps first (`sleep {seconds} && curl ...`, which is let through) or read its log, then run this "
    "again; if none was started, start it or tell the user."
)


#: What those texts add on a host that ends the run itself at its nth identical call in a row
#: (`_halt_note`): a slow poll goes ahead here, not there.
HALT_NOTE = (
    " This client itself stops the run at the {n}th identical call in a row, however far apart: past a few "
    "checks, change how you check or report the state."
)


#: What a repeat's text adds for a look at a background job of the agent's that may still run
#: (`polling.running_job`: a shell job's end is not seen): the answer it waits for comes when the
#: job ends.
JOB_NOTE = (
    " It looks at {what}: if that job is still running, checking again will not make it finish sooner; wait for "
    "it in one check that sleeps first (`sleep {seconds} && ...`, which is let through), do other work meanwhile, "
    "or end your turn and say what you are waiting for. If it has ended, what the previous call returned is its "
    "output: use it."
)


#: What a repeat's text adds for a read of the host's background task (`BashOutput`,
#: `TaskOutput`) that was still running at its last read (`polling.running_task`).
TASK_NOTE = (
    " It reads {what}, which was still running at its last check: checking again will not make it finish "
    "sooner{notified}. Do other work meanwhile, or end your turn and say what you are waiting for."
)
#: Claude Code 2.1 says itself when a `TaskOutput` task ends.
NOTIFIED_NOTE = ", and the host tells you when a background task ends"


#: What a repeat's text adds for a check that sleeps first, too briefly to be a poll (`_slow`).
#: What a repeat's text adds for a check that came a while after the previous one, not long
#: enough to be a poll (`gh pr checks` 45 s apart): how a poll goes ahead.
SPACED_NOTE = (
    " This check came {gap} s after the previous one; one that comes {slow} s or more after it, or waits "
    "{seconds} s first (`sleep {seconds} && ...`), is taken for a poll and let through: if you are waiting for "
    "something to finish, wait longer between checks, or use the command's own way to wait for it."
)
PACE_NOTE = (
    " This check waits {waits} s before it looks; one that waits {seconds} s or more first is taken for a poll and "
    "let through: if you are waiting for something to finish, wait longer between checks, or use the command's own "
    "way to wait for it."
)


#: What a call's text adds when a write made since its previous attempt changed nothing (a Write
#: whose result says so, or a write tool's or patch's call whose files the workspace showed as
#: they were).
NOOP_NOTE = " Your {tool} call made since this call's previous run left the files it names exactly as they were."
#: What a call's text adds when a call made since its previous attempt put the files it names
#: back as the agent's calls saw them earlier (`ResultContext.revisited`).
BACK_NOTE = (
    " Your {tool} call made since this call's previous run put the files it names back as they were earlier in this"
    " turn: that version was already tried."
)


def on_call(ctx: CallContext) -> Decision | None:
    """Remind, deny or end the turn at the profile's thresholds."""
    if not ctx.counted:
        return None
    cfg, n, tool = ctx.config, ctx.attempt, ctx.tool
    cut_on = cfg.cut_input_remind_at or cfg.cut_input_stop_at
    if cut_on and ctx.call.get("late") and cut_rejection(ctx.tool_input, ctx.response):
        return None  # a reply cut before its input, not a call repeated: `cut_input.py`'s
    alike = False
    if cfg.exact_repeat_code and ctx.sig is not None:
        alike = _note_spelling(ctx.agent, ctx.call["sig"], ctx.sig, ctx.key)
    in_a_row = cfg.counting == "consecutive"
    limit = cfg.result_preview_chars
    if cfg.stop_at and n >= cfg.stop_at or cfg.deny_at and n >= cfg.deny_at:
        # Looked up only where a text is made: most counted calls reach no threshold.
        note = _noop_note(ctx) + _wait_note(ctx)
        advice = detailed_reminder(tool, n, arguments_text(ctx.key, cfg.preview_chars), in_a_row=in_a_row, note=note)
    # A call the host rejected before it ran (Claude Code validates input before PreToolUse; only
    # PostToolBatch sees it) can never be denied: where the profile ends turns and the host can end
    # one here, the step after the denial comes at the denial's count.
    # Only its answer tells a rejection from a call that ran and whose PreToolUse record the
    # state budget dropped: Claude Code's `<tool_use_error>`.
    refusal = _rejection(ctx, limit)
    # Where rejections end turns, how many attempts in a row were rejected (`_tally_rejection`).
    in_turn = bool(cfg.stop_at and ctx.ends_turn)
    rejections = _tally_rejection(ctx.agent, ctx.call["sig"], refusal is not None) if in_turn else 0
    rejected = refusal is not None and in_turn
    if rejected and rejections < (cfg.deny_at or cfg.stop_at) and (cfg.deny_at and n >= cfg.deny_at or n >= cfg.stop_at):
        # Earlier attempts ran (and were judged as they came): this rejection alone is no loop of
        # rejections, and it cannot be denied. The host's answer says what to change.
        assert refusal is not None
        return Decision(Action.REMIND, Rule.REPEAT, rejected_reminder(tool, n, refusal, limit, rejections=rejections))
    if cfg.stop_at and (n >= cfg.stop_at or rejected and cfg.deny_at and n >= cfg.deny_at):
        # A rejection's text quotes this call's own answer.
        quoted = refusal if rejected else _previous_result(ctx)
        decision = Decision(
            Action.STOP,
            Rule.END_TURN,
            stop_text(
                tool, n, quoted, limit, ends_turn=ctx.ends_turn, pauses_tools=ctx.pauses_tools, note=note, rejected=rejected
            ),
            stop_reason=msg.stop_reason(tool, rejections if rejected else n, rejected=rejected, in_a_row=in_a_row),
            advice=advice,
        )
    elif cfg.deny_at and n >= cfg.deny_at:
        denial = repeat_denial(tool, n, _previous_result(ctx), limit, in_a_row=in_a_row, note=note)
        # Under `exact_repeat_code`, attempts all spelt alike are the progress seed's duplicate.
        decision = Decision(Action.DENY, Rule.DUPLICATE if alike else Rule.REPEAT, denial, advice=advice)
    else:
        thresholds = cfg.effective_remind_at()
        if n not in thresholds or _slow(ctx):
            # A poll spaced `slow_repeat_seconds` or more apart stays free (a job still running,
            # CI pending): it is what a reminder asks for, waiting longer between checks.
            return None
        note = _noop_note(ctx) + _wait_note(ctx)
        if refusal is not None and cfg.stop_at:
            # Where such rejections end the turn (`stop_text(rejected=True)`), the reminders before
            # it say what the host answered, not that the arguments were alike.
            text = rejected_reminder(tool, n, refusal, limit, rejections=rejections or n)
        elif n == thresholds[0]:
            text = gentle_reminder(tool, n, in_a_row=in_a_row, note=note)
        else:
            text = detailed_reminder(tool, n, arguments_text(ctx.key, cfg.preview_chars), in_a_row=in_a_row, note=note)
        return Decision(Action.REMIND, Rule.REPEAT, text)
    if _slow(ctx):
        assert ctx.previous_time is not None
        waits = sleeps_first(ctx.tool, ctx.tool_input)
        waited = 0.0 if waits else waited_first(ctx.agent, ctx.call)
        text = slow_repeat_reminder(tool, n, ctx.now - ctx.previous_time, waits=waits, waited=waited) + _halt_note(ctx)
        return Decision(Action.REMIND, Rule.SLOW_REPEAT, text)
    return decision


def _rejection(ctx: CallContext, limit: int) -> str | None:
    """What the host answered a call it rejected before the call ran (Claude Code's
    `<tool_use_error>`, seen only by PostToolBatch), cut to `2 * limit` characters with its
    secrets redacted; None for any other call."""
    answer = ctx.response if isinstance(ctx.response, str) else ""
    if ctx.event.event != "PostToolBatch" or "<tool_use_error>" not in answer[:256]:
        return None
    return preview(redact_prefix(answer, 2 * limit + 1), 2 * limit)


def _slow(ctx: CallContext) -> bool:
    """Whether the call is a poll (a server starting, CI pending): it comes `slow_repeat_seconds`
    or more after the previous one finished, or it first waits half that or more itself (`sleep
    45 && gh pr checks 412`, or a `sleep 45` call of its own right before it: `_waits`; each
    check about 50 s after the last, as a check that waited is no answer for the same-answer
    rule). A call first seen by PostToolBatch is a validation rejection, which never ran: no poll."""
    slow = ctx.config.slow_repeat_seconds
    unhooked = ctx.event.event == "PostToolBatch"
    if not slow or unhooked or ctx.previous_time is None:
        return False
    return ctx.now - ctx.previous_time >= slow or _waits(ctx) >= slow / 2


def _waits(ctx: CallContext) -> float:
    """The seconds a shell call waits before it checks: it sleeps first (`sleep 45 && gh pr
    checks`), or the calls right before it only waited (`sleep 45`, then `gh pr checks`:
    `ledger.waited_first`); 0.0 for a test run or a build (`sleep 30`, then the same failing
    `pytest`: no poll)."""
    if reruns_work(ctx.tool, ctx.tool_input):
        return 0.0  # a test run or a build repeats its work whatever it waited for
    return sleeps_first(ctx.tool, ctx.tool_input) or waited_first(ctx.agent, ctx.call)


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def gentle_reminder(tool: str, count: int, *, in_a_row: bool = True, note: str = "") -> str:
    """The first reminder threshold: a short nudge (`note`: `NOOP_NOTE`, `BACK_NOTE` or ""). A
    count of attempts since the last new result (not `in_a_row`) says so: the 5th run of a test
    may be the 3rd since its output last changed."""
    since = "" if in_a_row else " and no new result in between"
    return (
        f"[{PREFIX}] You are repeating yourself: this is call {count} of {tool} with the same "
        f"arguments{since}. Analyse the previous result before calling it again; if it already answers "
        f"the question, use it and move on.{note}"
    )


def detailed_reminder(tool: str, count: int, arguments: str, *, in_a_row: bool, note: str = "") -> str:
    """Later reminder thresholds: tool, count, canonical arguments, and that no call between
    them came (in a row) or none of them brought a result not seen before (since the last new
    result: a flaky test's results differ, each one seen before) (`note`: `NOOP_NOTE` or
    `BACK_NOTE`, which say what a call between them did, or "")."""
    how = "in a row with identical arguments" if in_a_row else "with identical arguments and no new result in between"
    # In a row, what they returned may have changed (the reminder seed counts identical calls
    # whatever they return): only that no other call came between them is sure.
    between = (
        "nothing between them moved the work on" if note
        else "no other call came between them" if in_a_row else "none of them brought a result not seen before"
    )
    return (
        f"[{PREFIX}] {tool} has now been called {count} times {how}: "
        f"{arguments}. These calls made no progress: {between}.{note} Do not call it "
        "again with the same arguments. Use what the earlier calls returned, change the approach "
        "(different arguments or a different tool), or answer the user with what you know."
    )


def rejected_reminder(tool: str, count: int, answer: str, limit: int, *, rejections: int) -> str:
    """A reminder for a call the host rejected before it ran (`_rejection`), attempt `count` of
    calls alike with no new result in between, the last `rejections` of them rejected: it quotes
    the host's `answer` (at most `limit` characters, 4,000 at most) and asks for what it names.
    Where some earlier ones were not rejected (they ran, or the guard denied them), the input
    may differ in what the signature leaves out (a Bash `timeout`), or the file may have changed
    since (an Edit that applied, sent again): the host's answer says which, and the text says
    neither "the same input" nor "identical arguments"."""
    earlier = count - rejections
    if earlier <= 0:
        head = f"attempt {count} with the same input and no new result in between"
    else:
        which = "this one was" if rejections <= 1 else f"the last {rejections} were"
        head = (
            f"attempt {count} with no new result in between; {which} rejected, the {earlier if earlier > 1 else 'one'} before "
            f"{'it' if rejections <= 1 else 'them'} not: the host's answer says why"
        )
    return (
        f"[{PREFIX}] The host rejected this {tool} call before it ran ({head}). It answered: "
        f'"""{quote(answer, min(limit, 4000))}""" Sending it again as it is will be rejected the same way: do what '
        "that answer asks, change the input it points at, or take another approach."
    )


def slow_repeat_reminder(tool: str, count: int, seconds: float, *, waits: float = 0.0, waited: float = 0.0) -> str:
    """A repeat that came long after the previous one, `seconds` after it finished, that `waits`
    seconds itself before it checks (`shellwords.sleeps_first`), or that came after calls that
    only `waited` so long (`ledger.waited_first`): reminded, never denied."""
    if waits:
        when = f"this call waits {int(waits)} s before it checks, {int(seconds + waits)} s after the previous check"
    elif waited:
        when = f"this call came {int(seconds)} s after the previous one, {int(waited)} s of it spent waiting"
    else:
        when = f"this call came {int(seconds)} s after the previous one"
    return (
        f"[{PREFIX}] {tool} returned the same result the last {count - 1} times ({when}). If you are "
        "waiting for something to change, wait longer between checks or stop polling and report the state."
    )


def repeat_denial(tool: str, count: int, previous: str | None, limit: int, *, in_a_row: bool, note: str = "") -> str:
    """`REPEAT_TOOL_BLOCKED`: the call was not run; quote the previous result's preview (at most
    4,000 characters, so the instruction after it always fits in what the clients pass on), then
    `note` (`NOOP_NOTE`, `BACK_NOTE` or "")."""
    how = "in a row" if in_a_row else "with no new result in between"
    limit = min(limit, 4000)
    quoted = f' The previous identical call returned: """{quote(previous, limit)}"""' if previous is not None else ""
    # With no result to quote (a record the state budget dropped), it names none.
    result = "that result" if previous is not None else "what the earlier calls returned"
    return (
        f"REPEAT_TOOL_BLOCKED: this {tool} call is identical to the previous ones and was not run "
        f"(attempt {count} {how}; loop guard policy, not a tool failure).{quoted}{note} "
        f"Do not retry it. Advance instead: use {result}, change the approach, or conclude "
        "and answer the user with what is known"
    )


def stop_text(
    tool: str, count: int, previous: str | None, limit: int, *, ends_turn: bool, pauses_tools: bool = False, note: str = "",
    rejected: bool = False,
) -> str:
    """The last resort, worded for what the client does: Claude Code ends the turn
    (`continue: false`); Codex only denies; where the turn cannot end (DSH), every further tool
    call of the turn is denied (`pauses_tools`). `rejected`: the calls were Claude Code's
    validation rejections (seen only by PostToolBatch): the host, not the guard, refused them."""
    if rejected:
        quoted = f' The host answered: """{quote(previous, min(limit, 4000))}"""' if previous is not None else ""
        base = (
            f"REPEAT_TOOL_BLOCKED: this {tool} call was rejected by the host before it ran (attempt {count} with the "
            f"same input and no new result in between).{quoted}{note} Do not send it again "
            "as it is: give the input the host's answer asks for, change the approach, or conclude and answer the "
            "user with what is known"
        )
    else:
        base = repeat_denial(tool, count, previous, limit, in_a_row=False, note=note)
    if ends_turn:
        return base + ". The loop guard is ending this turn"
    if pauses_tools:
        return (
            base + ". Tool calls are now paused for the rest of this turn: answer the user now in plain text with "
            "what you have; the next user message enables tools again"
        )
    return base + ". This is final: stop calling tools for this request and answer the user now with what you have"


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("stop_rejected", "REPEAT_TOOL_BLOCKED: this ", " call was rejected by the host before it ran (attempt "),
    ("stop_ending_turn", "REPEAT_TOOL_BLOCKED: this ", ". The loop guard is ending this turn"),
    ("stop_final", "REPEAT_TOOL_BLOCKED: this ", ". This is final: stop calling tools"),
    ("stop_pausing_tools", "REPEAT_TOOL_BLOCKED: ", ". Tool calls are now paused for the rest of this turn"),
    ("repeat_denial", "REPEAT_TOOL_BLOCKED: this ", ""),
    ("rejected_reminder", f"[{PREFIX}] The host rejected this ", " call before it ran (attempt "),
    ("gentle_reminder", f"[{PREFIX}] You are repeating yourself: this is call ", ""),
    ("detailed_reminder", f"[{PREFIX}] ", " has now been called "),
    ("slow_repeat_reminder", f"[{PREFIX}] ", " returned the same result the last "),
)
