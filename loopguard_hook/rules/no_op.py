"""No-op calls: shell calls in a row that only print words the agent wrote, or nothing
(`no_op_remind_at`, `no_op_deny_at`; rebuilt from the public thread openai/codex#6970, where a
finished agent ran `true` and `echo 'Done again.'`, `echo 'Final done'`, `echo 'Finished.'` in
turn, turn after turn).

Each such call is new to the repeat rule (`echo 'Final done'` is not `echo 'Finished.'`) and its
answer is new evidence (the words it was given), so no count grows. What they share is that they
do nothing: a line whose every command is `echo`, `printf`, `true` or `:` with no expansion,
substitution, glob, redirect, pipe or background (`shellwords.prints_only`) tells the agent only
what it wrote itself. One such call now and then is a note or a separator; several in a row, with
nothing else between, is an agent that has finished and does not end its turn.

The rule counts them in a row per agent at PreToolUse: any other call of the agent ends the run,
and so do a prompt and a compaction (`reset`). A run counts only once one of its calls repeats an
earlier one of the run (the finished agent's `true`): five different lines printed one by one
(`echo step-1` … `echo step-5`, a user's request, a test of a terminal) are not a loop. From
then on, once the run holds `no_op_remind_at` (balanced: 3) calls, each is reminded that such a
call does nothing and that a finished task ends with a final answer, until, after a reminder,
each from the `no_op_deny_at`th (balanced: 5) on is denied with that way out. The seed profiles
leave the rule off.

Its slot `Agent.rules["no_op"]` is `[no-op calls in the current run, whether one repeated, the
run's calls (at most `MAX_SEEN` short digests), whether it was reminded]` (absent: no run).
"""

from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.messages import PREFIX
from ..core.shellwords import MAX_SHELL_CHARS, prints_only, shell_command
from ..core.verdict import Action, Decision, Rule
from .base import CallContext

NAME = "no_op"
#: At most this many of a run's calls are remembered (short digests).
MAX_SEEN = 8


def _run(held: object) -> tuple[int, bool, list[str], bool]:
    """The slot read leniently (an odd value is no run): `(no-op calls, whether one repeated,
    their digests, whether the run was reminded)`."""
    if isinstance(held, list) and len(held) == 4 and isinstance(held[0], int) and isinstance(held[2], list):
        return held[0], bool(held[1]), [s for s in held[2] if isinstance(s, str)], bool(held[3])
    return 0, False, [], False


def on_call(ctx: CallContext) -> Decision | None:
    """Count a no-op shell call in the agent's run (any other call ends it); once one repeated,
    remind at `no_op_remind_at` calls, deny from `no_op_deny_at` on."""
    cfg = ctx.config
    if not cfg.no_op_remind_at and not cfg.no_op_deny_at:
        return None
    command = shell_command(ctx.tool, ctx.tool_input, MAX_SHELL_CHARS + 1)
    if command is None or not prints_only(command):
        if slot(ctx.agent, NAME) is not None:
            drop_slot(ctx.agent, NAME)  # another call: the run is over
        return None
    count, repeated, seen, reminded = _run(slot(ctx.agent, NAME))
    said = ctx.call["sig"][:8]  # its signature: comments and spacing aside
    count, repeated = count + 1, repeated or said in seen
    seen = seen if said in seen else [*seen, said][-MAX_SEEN:]
    # denied only once the run was reminded (a reminder comes first), unless reminders are off
    first = reminded or not cfg.no_op_remind_at
    deny = repeated and first and cfg.no_op_deny_at and count >= cfg.no_op_deny_at and ctx.event.event == "PreToolUse"
    remind = repeated and not deny and cfg.no_op_remind_at and count >= cfg.no_op_remind_at
    slots(ctx.agent)[NAME] = [count, repeated, seen, reminded or bool(remind)]
    if deny:
        return Decision(Action.DENY, Rule.NO_OP, denial_text(count), times=count, tool=ctx.tool, advice=reminder_text(count))
    if remind:
        return Decision(Action.REMIND, Rule.NO_OP, reminder_text(count), times=count, tool=ctx.tool)
    return None


def fit(agent: Agent, share: Limits) -> None:
    """One short run per agent (at most `MAX_SEEN` digests), whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: the run is over."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def reminder_text(count: int) -> str:
    """The run of no-op calls, reminded (and a denial's advice in `advise` mode)."""
    return (
        f"[{PREFIX}] These {count} shell calls in a row only printed words you wrote, or nothing (`echo`, `printf`, `true`): "
        "such a call does nothing and tells you nothing new. If the task is done, stop calling tools and give "
        "your final answer; if it is not, make the next call one that does the work."
    )


def denial_text(count: int) -> str:
    """`REPEAT_TOOL_BLOCKED` for the no-op call past `no_op_deny_at`."""
    return (
        f"REPEAT_TOOL_BLOCKED: this shell call was not run: it only prints words you wrote ({count} such calls "
        "in a row) and would do nothing (loop guard policy, not a tool failure). If the task is done, "
        "end your turn with your final answer; if not, make a call that does the work. Any other call or a "
        "new user message lifts this"
    )


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("no_op_denial", "REPEAT_TOOL_BLOCKED: this shell call was not run: it only prints", ""),
    ("no_op_reminder", f"[{PREFIX}] These ", " shell calls in a row only printed words you wrote"),
)
