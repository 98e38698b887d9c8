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
its input `{}` (or only Claude Code's `raw` text of input it could not parse), and its
`<tool_use_error>` an `InputValidationError` naming a required parameter missing
(`tools.cut_rejection`). A call that came with arguments and was refused for a missing or
misnamed one (a WebFetch with no `prompt`, a Read given `path`) is a slip the model mends at
once, and an empty call refused otherwise (an MCP tool that is gone) is the repeat rule's:
neither is counted. The rule counts such rejections per agent in rounds (the calls of one
PostToolBatch are one round, `batch_seq`), whatever the tool, and whatever reads and probes
succeeded between: they do not mend a reply too long to be sent. A call that may have sent it
does, and the count starts again: a write tool's (`mutating_tools`, or a tool named for writing:
an MCP server's `write_file`), a subagent's (`tools.AGENT_TOOLS`: it may have written the file),
or a shell command that writes a file of the project (output into a file, not a probe under `/tmp`,
`tee`, `cp`, `mv`, `sed -i`: a here-document appending a part) that succeeds; so does a
rejection more than `MAX_GAP` replies after the last one (slips far apart in a long turn). At
`cut_input_remind_at` rounds (balanced: 3) the model is reminded of the cause and the way out
(smaller calls: a long file in parts); a round after the reminder, from `cut_input_stop_at`
(balanced: 4), ends the turn (Claude Code `continue: false` at PostToolBatch, 2.1.332 LAB; where
PostToolBatch cannot end it, the reminder goes out again; with `cut_input_remind_at = 0`, at
`cut_input_stop_at` with no reminder first). A prompt or a compaction starts the count again.
Such calls are left to this rule while it is on: the repeat rule's "analyse the previous result"
would misread them (`repeat.on_call`). In the 424 real Claude Code transcripts on hand (37,000
calls), each turn with three or more such rejections is this loop; turns with one or two are
recovered slips. The seed profiles leave the rule off.

Its slot `Agent.rules["cut_input"]` is seven numbers (`_count`): the rounds, the latest round's
batch_seq, whether and at which round it was reminded, the latest result's batch_seq, the
replies seen and the replies at the latest rejection (absent: none this turn).
"""

import re

from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.messages import PREFIX, WHY_HINT
from ..core.outcome import Failure
from ..core.shellwords import IN_PLACE, shell_command
from ..core.tools import AGENT_TOOLS, cut_rejection, matches
from ..core.verdict import Action, Decision, Rule
from .base import ResultContext

NAME = "cut_input"
#: Replies between two such rejections past which the count starts again: in every real loop of
#: this kind on hand at most three (reads, a probe) come between two of them; slips far apart in
#: a long turn are slips. Counted in replies, not calls: a parallel batch is one.
MAX_GAP = 4
#: A tool that writes by its name, where `mutating_tools` does not list it (an MCP server's
#: `write_file`, `edit_file`, `create_file`, `replace_content`).
_WRITE_NAME = r"(?i)write|edit|create|replace|insert|append|patch|save"
#: A shell command that writes a file of the project: output redirected into a file (`> F`,
#: `>> F`; not `/dev/null`, nor a probe under `/tmp` when the project is not there), `tee`, a copy
#: or move, an in-place edit.
_REDIRECT = r"(?<![0-9&<>])>{1,2}\s*([^\s|;&<>()]+)"
_SHELL_WRITES = rf"(?:^|[\s;&|(])(?:tee|cp|mv|rsync|install|dd)\s|{IN_PLACE}"


def _count(held: object) -> list[int]:
    """The slot read leniently (an odd value is no count): `[rounds, batch_seq of the latest
    round, reminded, round of the reminder, batch_seq of the latest result, replies seen, replies
    at the latest rejection]`."""
    if isinstance(held, list) and len(held) == 7 and all(type(v) is int for v in held):
        return list(held)
    return [0, -1, 0, 0, -1, 0, 0]


def cut_short(ctx: ResultContext) -> bool:
    """Whether the result is Claude Code's rejection of a call whose reply was cut before its
    input: seen first by PostToolBatch (it never ran), with input `{}` and an
    `InputValidationError` naming a required parameter missing (`tools.cut_rejection`)."""
    return bool(ctx.call.get("late")) and cut_rejection(ctx.tool_input, ctx.outcome.text)


def _way_found(ctx: ResultContext) -> bool:
    """A call that succeeded and may have sent what the cut calls could not: a write tool's (by
    `mutating_tools` or by its name), a subagent's (it may have written the file), or a shell
    command that writes a file of the project (a here-document into it, `cp`, `sed -i`)."""
    if ctx.outcome.failure != Failure.NONE:
        return False
    tool = ctx.tool
    if matches(tool, ctx.config.mutating_tools) or tool in AGENT_TOOLS or re.search(_WRITE_NAME, tool[:128]):
        return True
    command = shell_command(tool, ctx.tool_input)
    if command is None:
        return False
    if re.search(_SHELL_WRITES, command[:4096]):
        return True
    scratch = not (ctx.cwd or "").startswith("/tmp/")  # a project under /tmp writes its files there
    for found in re.finditer(_REDIRECT, command[:4096]):
        target = found.group(1).strip("'\"")
        if target != "/dev/null" and not (scratch and target.startswith("/tmp/")):
            return True
    return False


def _reply(ctx: ResultContext, held: list[int]) -> None:
    """Count the agent's replies while a count is open: every result of one reply comes under
    one batch_seq (the seq at the previous PostToolBatch)."""
    batch = ctx.agent.get("batch_seq", 0)
    if batch != held[4]:
        held[4], held[5] = batch, held[5] + 1


def on_result(ctx: ResultContext) -> Decision | None:
    """Count a round of calls cut short; remind at `cut_input_remind_at` rounds, end the turn
    from `cut_input_stop_at` in a later round."""
    cfg = ctx.config
    if not cfg.cut_input_remind_at and not cfg.cut_input_stop_at:
        return None
    held = slot(ctx.agent, NAME)
    if not cut_short(ctx):
        if held is None:
            return None
        if _way_found(ctx):
            drop_slot(ctx.agent, NAME)  # the model found how to send it: a later slip is a slip
        else:
            count = _count(held)
            _reply(ctx, count)
            slots(ctx.agent)[NAME] = count
        return None
    count = _count(held)
    _reply(ctx, count)
    if count[0] and count[5] - count[6] > MAX_GAP + 1:  # replies between, and this one
        count = [0, -1, 0, 0, count[4], count[5], count[6]]  # far from the last one: a slip, not a loop
    rounds, batch, reminded, at = count[0], count[1], bool(count[2]), count[3]
    new = ctx.agent.get("batch_seq", 0) != batch
    if new:
        rounds += 1
    # the turn ends a round after the reminder, unless reminders are off
    first = (reminded and rounds > at) or not cfg.cut_input_remind_at
    stop = first and new and cfg.cut_input_stop_at and rounds >= cfg.cut_input_stop_at
    remind = not reminded and cfg.cut_input_remind_at and rounds >= cfg.cut_input_remind_at
    if remind:
        reminded, at = True, rounds
    slots(ctx.agent)[NAME] = [rounds, ctx.agent.get("batch_seq", 0), int(reminded), at, count[4], count[5], count[5]]
    if stop:
        return Decision(
            Action.STOP, Rule.CUT_INPUT, stop_text(rounds), times=rounds, tool=ctx.tool, stop_reason=stop_reason(rounds),
            advice=reminder_text(rounds),
        )
    if remind:
        return Decision(Action.REMIND, Rule.CUT_INPUT, reminder_text(rounds), times=rounds, tool=ctx.tool)
    return None


def fit(agent: Agent, share: Limits) -> None:
    """Seven numbers per agent, whatever the share."""


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
