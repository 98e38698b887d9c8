"""The same plan sent again: a plan or todo list sent with the input of the agent's call just
before it, again and again (`same_plan_deny_at`).

A list tool (`bookkeeping_tools`: Claude Code's TodoWrite, Codex's update_plan, Gemini CLI's
write_todos, Qwen Code's todo_write) sets the agent's whole list; sent again as it was, it changes
nothing. An agent that has nothing left it can do sometimes goes on calling it, reply after reply,
each time telling the user the same thing (corpus transcript 5aab28de, Claude Code: six TodoWrite
calls in six replies with no other call between, the last three the same list). These calls are
not tracked, so the repeat rule does not count them (a plan is updated many times in a turn),
and the progress profile's budget counts such calls, not their sameness. Claude Code's task tools
(`progress.TASK_TOOLS`) are left out: each TaskCreate makes a task, the same words or not, and a
TaskUpdate changes one.

The rule counts, per agent, the list calls in a row made with the same tool and the same whole
input (`signature.call_signature` with no key left out: none is a decoy here): any other call of
the agent ends the run (also one the host ran with no hook, read from the rollout:
`HookEvent.unseen_calls`), and so do a prompt and a compaction (`reset`). A call of the same reply
as the previous one (`ledger.issued`: Claude Code runs a reply's calls one after another) or issued
before it came back (a parallel twin, or one call delivered twice by a host that sends no call id:
`_answered`) is the same send, not counted again. The call that brings the run to
`same_plan_deny_at` (balanced: 3) sends is denied, with the way out: do the next step of the plan,
or tell the user what is left; so is the next, and the one after ends the turn (Claude Code
`continue: false`; elsewhere a final denial or answer-only). There is no reminder before: a list
sent twice in a row is ordinary (sent again after a long explanation to the user: corpus transcript
4530697c), and a third time it is already a call that does nothing. Of the 127 Claude Code
transcripts on hand that use plan tools and 324 Codex rollouts (of them, 113 sessions nobody here
had read, with 845 plan calls), only that loop sends one list three times in a row, and one other
session twice. A call whose arguments the host does not send is never counted (its sameness cannot
be told). The seed profiles leave the rule off.

Its slot `Agent.rules["same_plan"]` is `[the run's signature, its sends, the latest one's seq,
when it was issued]` (absent: no run).
"""

from ..core.ledger import Agent, Limits, drop_slot, issued, slot, slots
from ..core.messages import PREFIX, ended_turn
from ..core.progress import TASK_TOOLS
from ..core.signature import call_signature
from ..core.tools import matches
from ..core.verdict import Action, Decision, Rule
from .base import CallContext

NAME = "same_plan"
#: A run's count is kept below this (a state file edited by hand holds anything).
MAX_RUN = 1_000_000


def _run(held: object) -> tuple[str, int, int, float]:
    """The slot read leniently (an odd value is no run): `(signature, sends, seq of the latest,
    when the latest was issued)`."""
    if (
        isinstance(held, list) and len(held) == 4 and isinstance(held[0], str)
        and type(held[1]) is int and 0 < held[1] < MAX_RUN and type(held[2]) is int and type(held[3]) in (int, float)
    ):
        return held[0], held[1], held[2], float(held[3])
    return "", 0, -1, -1.0


def _answered(agent: Agent, seq: int) -> bool:
    """Whether the agent's call `seq` came back (or was denied) before this one: else this one was
    issued with it (a parallel twin, or the same call delivered twice by a host that sends no
    call id), and they are one send. A call no longer held counts as answered."""
    return next((c["phase"] != "pre" for c in agent["calls"].values() if c["seq"] == seq), True)


def on_call(ctx: CallContext) -> Decision | None:
    """Count a plan call sent with the input of the call before it; deny from `same_plan_deny_at`
    on, and end the turn two calls later."""
    cfg = ctx.config
    deny_at = cfg.same_plan_deny_at
    if not deny_at:
        return None
    if not matches(ctx.tool, cfg.bookkeeping_tools) or ctx.tool in TASK_TOOLS or not ctx.caps.has_arguments(ctx.tool):
        if slot(ctx.agent, NAME) is not None:
            drop_slot(ctx.agent, NAME)  # another call: the run is over
        return None
    sig, count, seq, when = _run(slot(ctx.agent, NAME))
    if ctx.event.unseen_calls:
        sig, count = "", 0  # calls no hook saw came between (Codex's polls of a running command)
    # its whole input: none of it is a decoy (`ignore_args` drops a list's `description`)
    sent, now_issued = call_signature(ctx.tool, ctx.tool_input, frozenset()), issued(ctx.call)
    if sent == sig and (now_issued == when or not _answered(ctx.agent, seq)):
        return None  # issued with the one before (one reply, run one after the other or at once): one send
    count = count + 1 if sent == sig else 1
    slots(ctx.agent)[NAME] = [sent, min(count, MAX_RUN - 1), ctx.call["seq"], now_issued]
    if count < deny_at:
        return None
    advice = reminder_text(count)
    if count >= deny_at + 2:
        text = stop_text(count, ends_turn=ctx.ends_turn, pauses=ctx.pauses_tools)
        reason = f"{PREFIX} ended the turn: the same plan was sent {count} times in a row. Send a new message to continue."
        return Decision(Action.STOP, Rule.SAME_PLAN, text, times=count, tool=ctx.tool, stop_reason=reason, advice=advice)
    return Decision(Action.DENY, Rule.SAME_PLAN, denial_text(count), times=count, tool=ctx.tool, advice=advice)


def sends(agent: Agent) -> int:
    """The sends of the agent's run of one list (0: none, or the rule is off): how many times in a
    row its latest call, a list call, sent that list (any other call of the agent ends the run).
    0 too when the latest call is not the run's (nor a call issued with it): a run left by the
    rule turned off since."""
    _, count, seq, when = _run(slot(agent, NAME))
    latest = max(agent["calls"].values(), key=lambda c: c.get("seq", -1), default=None)
    if not count or latest is None or (latest.get("seq") != seq and latest.get("issued", latest.get("t")) != when):
        return 0
    return count


def fit(agent: Agent, share: Limits) -> None:
    """One signature and a count per agent, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: the run is over."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def denial_text(count: int) -> str:
    """`REPEAT_TOOL_BLOCKED` for the plan call sent as it was, the `same_plan_deny_at`th in a row on."""
    return (
        f"REPEAT_TOOL_BLOCKED: this plan update was not made: it is the same list you sent in the calls just "
        f"before it ({count} in a row), and sending it again changes nothing (loop guard policy, not a tool "
        "failure). Do the next step it lists; or, if nothing can be done now, stop calling tools and tell the "
        "user what is left and why. Any other call or a new user message lifts this"
    )


def reminder_text(count: int) -> str:
    """The same, as a reminder: a denial's advice (`advise` mode, or a call that already ran)."""
    return (
        f"[{PREFIX}] You sent the same plan {count} times in a row: sending it again changes nothing. Do the next "
        "step it lists; or, if nothing can be done now, stop calling tools and tell the user what is left and why."
    )


def stop_text(count: int, *, ends_turn: bool, pauses: bool) -> str:
    """The same plan sent on after two denials: the end of the turn, worded for what the host does."""
    base = (
        f"REPEAT_TOOL_BLOCKED: the same plan was sent {count} times in a row, also after denials (loop guard "
        "policy, not a tool failure)"
    )
    return ended_turn(base, "tell the user what is left and why", ends_turn=ends_turn, pauses=pauses)


VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("same_plan_stop", "REPEAT_TOOL_BLOCKED: the same plan was sent ", ""),
    ("same_plan_denial", "REPEAT_TOOL_BLOCKED: this plan update was not made", ""),
    ("same_plan_reminder", f"[{PREFIX}] You sent the same plan ", ""),
)
