"""Parallel duplicates: an identical call issued in the same batch as one not yet answered.

The model could not have seen the twin's result, so the call is no repeat: under
`parallel_duplicates = "count_once"` it is let through and counted once, under `"deny"` it is
denied (`LOOP_GUARD_DUPLICATE`); `"count"` counts it like any other call.
"""

from ..config.settings import Config
from ..core import messages as msg
from ..core.ledger import Agent, Call
from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def is_twin(agent: Agent, call: Call, config: Config, *, can_deny: bool, lost_posts: bool = False) -> bool:
    """Whether `call` is to be judged as a parallel twin (only where it can still be denied).
    `lost_posts`: the client reports no batches (its capability table sends no PostToolBatch)."""
    return (
        config.parallel_duplicates != "count"
        and can_deny
        and _parallel_twin(agent, call, config.parallel_window_seconds, lost_posts=lost_posts)
    )


def _parallel_twin(agent: Agent, call: Call, window: float, *, lost_posts: bool = False) -> bool:
    """True when an identical call of this agent was issued together with `call`, so the model
    could not have seen its result first: it belongs to the same batch (no `PostToolBatch` since,
    for an agent whose batches Claude Code reports) or, for one whose batches no event reports
    (Codex; a Claude Code agent before its first batch ends), its result had not arrived when
    `call` was issued. Either way within `window` seconds.

    The hook processes of parallel calls start together but take the lock in any order, so a
    twin's post event may already be in the ledger (Claude Code 2.1.332 and Codex 0.171.0 LAB:
    the PreToolUse hooks of parallel calls start within 20 ms and overlap). A twin denied by a
    rule does not count: the new call is judged on its own.

    `lost_posts` (a client whose batches no event ever reports: Codex): an identical call whose
    result never came is a twin only within `NO_RESULT_WINDOW_SECONDS`, so that a lost
    PostToolUse does not merge a retry into its batch.
    """
    now = call["t"]
    batch_start = agent.get("batch_seq", 0)
    batched = batch_start > 0
    for other in agent["calls"].values():
        if (
            other is not call
            and other["sig"] == call["sig"]
            and other["phase"] != "denied"
            and not other.get("untracked")
            and other["seq"] > batch_start
            and abs(now - other["t"]) <= _twin_window(window, batched, other, lost_posts)
            and (batched or other.get("done", now + 1) > now)
        ):
            return True
    return False


#: Seconds within which an identical call whose result never came (its PostToolUse lost, or not
#: yet run) is taken for its parallel twin: the hooks of one batch are started within ~20 ms
#: (LAB notes above; the clock is the kernel's record of the process start), while a retry
#: waits for the tool to run and the model to answer.
NO_RESULT_WINDOW_SECONDS = 0.3
#: Seconds within which a call of the same reported batch (no `PostToolBatch` since) is a twin:
#: the batch boundary is known, so a loaded machine that starts a batch's hooks seconds apart
#: does not split it.
BATCH_WINDOW_SECONDS = 5.0


def _twin_window(window: float, batched: bool, other: Call, lost_posts: bool) -> float:
    if batched:
        return max(window, BATCH_WINDOW_SECONDS)
    return window if "done" in other or not lost_posts else min(window, NO_RESULT_WINDOW_SECONDS)


def duplicate(ctx: CallContext) -> Decision | None:
    """A twin is denied (`"deny"`) or let through under the rule's name (`"count_once"`)."""
    if not ctx.call.get("duplicate"):
        return None
    if ctx.config.parallel_duplicates == "deny":
        return Decision(Action.DENY, Rule.DUPLICATE, msg.duplicate_denial(Rule.DUPLICATE, ctx.tool))
    return Decision(Action.ALLOW, Rule.DUPLICATE)
