"""Calls cut short: tool calls that reach the host without their arguments, again and again in
one turn (`cut_input_remind_at`, `cut_input_stop_at`).

A model that writes a long file in one call can have its reply cut before the tool's input is
written out: the call reaches the host as `{}` (or with its first keys only), and Claude Code's
input validation rejects it, "InputValidationError: Write failed due to the following issues:
The required parameter `file_path` is missing" (public Claude Code 2.1 transcripts, hunt 48 of
issue 22: 14 empty Writes in one turn; a Bash `{}` after three Writes `{}`). The model then
tries again with the same long input, and is cut again. Such calls fire no PreToolUse and no
post event, only PostToolBatch (research/claude-code-hooks.md §3.1), so they cannot be denied,
and each is a different call to the other rules: a Write `{}` and a Bash `{}`, or the reads
and small probes the model runs between two of them, each a success that restarts the repeat
rule's count.

What they share is the rejection's form: a call seen first by PostToolBatch (`Call["late"]`),
its input `{}` (or only Claude Code's `raw` text of input it could not parse:
`tools.cut_input`), and its `<tool_use_error>` an `InputValidationError` naming a required
parameter missing (`_MISSING`). A call that came with arguments and was refused for a missing or
misnamed one (a WebFetch with no `prompt`, a Read given `path`) is a slip the model mends at
once, not counted. The rule counts such rejections per agent in rounds (the calls of one
PostToolBatch are one round, `batch_seq`), whatever the tool, and whatever reads and probes
succeeded between: they do not mend a reply too long to be sent. A call that may have sent it
does: a write tool's (`mutating_tools`) or a shell command that does more than read
(`shellwords.reads_only`: a here-document into the file, `cp`, `sed -i`) that succeeds, and the
count starts again; so does a rejection more than `MAX_GAP` calls after the last one (slips far
apart in a long turn). At `cut_input_remind_at` rounds (balanced: 3) the model is reminded of
the cause and the way out (smaller calls: a long file in parts); a round after the reminder,
from `cut_input_stop_at` (balanced: 4), ends the turn (Claude Code `continue: false` at
PostToolBatch, 2.1.332 LAB; where PostToolBatch cannot end it, the reminder goes out again; with
`cut_input_remind_at = 0`, at `cut_input_stop_at` with no reminder first). A
prompt or a compaction starts the count again. Identical empty calls are left to this rule while
it is on: the repeat rule's "analyse the previous result" would misread them (`repeat.on_call`).
In the 424 real Claude Code transcripts on hand (37,000 calls), each turn with three or more
such rejections is this loop; turns with one or two are recovered slips. The seed profiles leave
the rule off.

Its slot `Agent.rules["cut_input"]` is `[rounds, the round's batch_seq, whether reminded, the
round reminded, the agent's attempts at the latest rejection]` (absent: none this turn).
"""

import re

from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.messages import PREFIX, WHY_HINT
from ..core.outcome import Failure
from ..core.shellwords import reads_only, shell_command
from ..core.tools import cut_input, matches
from ..core.verdict import Action, Decision, Rule
from .base import ResultContext

NAME = "cut_input"
#: Claude Code's words for a call whose input lacks a parameter the tool requires (2.1
#: transcripts: "The required parameter `command` is missing").
_MISSING = r"\nThe required parameter `[^`\n]{1,80}` is missing"
#: Calls between two such rejections past which the count starts again: in every real loop of
#: this kind on hand at most three calls come between two of them (reads, a probe); slips far
#: apart in a long turn are slips.
MAX_GAP = 8


def _count(held: object) -> tuple[int, int, bool, int, int]:
    """The slot read leniently (an odd value is no count): `(rounds, batch_seq of the latest
    round, reminded, round of the reminder, the agent's attempts at the latest rejection)`."""
    if isinstance(held, list) and len(held) == 5 and all(isinstance(v, int) for v in held):
        return held[0], held[1], bool(held[2]), held[3], held[4]
    return 0, -1, False, 0, 0


def cut_short(ctx: ResultContext) -> bool:
    """Whether the result is Claude Code's rejection of a call whose reply was cut before its
    input: seen first by PostToolBatch (it never ran), its input `{}` (`tools.cut_input`), and its
    `<tool_use_error>` an `InputValidationError` that says a required parameter is missing."""
    if not ctx.call.get("late") or not cut_input(ctx.tool_input):
        return False
    text = ctx.outcome.text
    return text.startswith("<tool_use_error>InputValidationError: ") and re.search(_MISSING, text[:1024]) is not None


def _way_found(ctx: ResultContext) -> bool:
    """A call that succeeded and may have written what the cut calls could not: a write tool's,
    or a shell command that does more than read (a here-document into the file, `cp`, `sed -i`)."""
    if ctx.outcome.failure != Failure.NONE:
        return False
    if matches(ctx.tool, ctx.config.mutating_tools):
        return True
    command = shell_command(ctx.tool, ctx.tool_input)
    return command is not None and not reads_only(command)


def on_result(ctx: ResultContext) -> Decision | None:
    """Count a round of calls cut short; remind at `cut_input_remind_at` rounds, end the turn
    from `cut_input_stop_at` in a later round."""
    cfg = ctx.config
    if not cfg.cut_input_remind_at and not cfg.cut_input_stop_at:
        return None
    if not cut_short(ctx):
        if slot(ctx.agent, NAME) is not None and _way_found(ctx):
            drop_slot(ctx.agent, NAME)  # the model found how to send it: a later slip is a slip
        return None
    rounds, batch, reminded, at, last = _count(slot(ctx.agent, NAME))
    attempts = ctx.agent.get("attempts", 0)
    if rounds and attempts - last > MAX_GAP + 1:
        rounds, batch, reminded, at = 0, -1, False, 0  # far from the last one: a slip, not a loop
    this_batch = ctx.agent.get("batch_seq", 0)
    new = this_batch != batch
    if new:
        rounds += 1
    # the turn ends a round after the reminder, unless reminders are off
    first = (reminded and rounds > at) or not cfg.cut_input_remind_at
    stop = first and new and cfg.cut_input_stop_at and rounds >= cfg.cut_input_stop_at
    remind = not reminded and cfg.cut_input_remind_at and rounds >= cfg.cut_input_remind_at
    if remind:
        reminded, at = True, rounds
    slots(ctx.agent)[NAME] = [rounds, this_batch, int(reminded), at, attempts]
    if stop:
        return Decision(
            Action.STOP, Rule.CUT_INPUT, stop_text(rounds), times=rounds, tool=ctx.tool, stop_reason=stop_reason(rounds),
            advice=reminder_text(rounds),
        )
    if remind:
        return Decision(Action.REMIND, Rule.CUT_INPUT, reminder_text(rounds), times=rounds, tool=ctx.tool)
    return None


def fit(agent: Agent, share: Limits) -> None:
    """Four numbers per agent, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction starts the count again."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def reminder_text(count: int) -> str:
    """The replies whose tool calls reached the host without their arguments, reminded."""
    return (
        f"[{PREFIX}] In {count} of your replies this turn, tool calls reached the tool without their arguments "
        "(\"The required parameter ... is missing\"): most often the reply was cut off before the call's input was "
        "written, because the input was too long for one reply. Sent again the same way, it will be cut again. Make "
        "each call small: write a long file in parts (a first Write of its opening part, then Edits, or appends with "
        "the shell, of a few hundred lines each), or change it with several small edits; or tell the user."
    )


def stop_text(count: int) -> str:
    """The end of turn once such calls went on after the reminder."""
    return (
        f"[{PREFIX}] In {count} of your replies this turn, tool calls reached the tool without their arguments, also "
        "after the reminder: the loop guard is ending this turn. Tell the user what you were writing and that it "
        "has to be sent in smaller parts."
    )


def stop_reason(count: int) -> str:
    """What the user reads when the turn ends (Claude Code `stopReason`)."""
    return (
        f"{PREFIX} ended the turn: in {count} replies, tool calls arrived without their arguments (the model's reply "
        f"was cut off before the call's input, usually a file too long for one reply). Ask for it in smaller parts. "
        f"{WHY_HINT}"
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("cut_input_stop", f"[{PREFIX}] In ", " without their arguments, also after the reminder"),
    ("cut_input_reminder", f"[{PREFIX}] In ", " of your replies this turn, tool calls reached the tool without"),
)
