"""What the model did after an intervention: the evidence `stats` tunes reminder texts with.

After a reminder, denial or stop on a call (decided when the call was made, or on its result),
the agent's next counted attempt says what the model did with it:

- `repeated`: the same call again, answered no more severely, or another call that the same rule
  had to answer too (the loop went on in another form: the next read of a denied empty file, the
  next call into one wall);
- `escalated`: either of those, and the guard had to answer it more severely;
- `changed`: a different call that the rule let be (the model changed course);
- `ended`: no further call before the turn ended (a Stop, or the next user prompt).

Untracked tools and parallel twins say nothing either way. Each answer becomes one
`ResponseRecord`, returned to the engine, which returns them with its decision (at most
`MAX_RESPONSES` an event); the hook appends them to the `responses.jsonl` log. Pure: no I/O.
"""

from ..rules import VARIANTS
from .ledger import Agent, FollowUp, ResponseRecord, Session
from .messages import variant_of
from .verdict import Action, Decision

#: Answers one event returns at most (a prompt ends the turn of every agent at once).
MAX_RESPONSES = 32


def after_attempt(agent_id: str, agent: Agent, sig_id: str, decision: Decision, now: float) -> list[ResponseRecord]:
    """Judge the pending intervention by this counted attempt, then make `decision` the pending
    one if it intervened; the answer to the pending one, if there was one. `decision` is the
    verdict with the mode applied, before a post-call reminder is held back for the result (that
    reminder is still the intervention)."""
    pending = agent.get("followup")
    step = 1
    answered = []
    if pending is not None:
        again = decision.intended is not Action.ALLOW and decision.rule == pending["rule"]
        if pending["sig"] == sig_id or again:
            response = "escalated" if decision.intended > pending["level"] else "repeated"
            step = pending["step"] + 1
        else:
            response = "changed"
        answered.append(_answer(agent_id, pending, response, now))
        del agent["followup"]
    if decision.intended is not Action.ALLOW and decision.tool is not None:
        agent["followup"] = _pending(sig_id, decision, step, now)
    return answered


def after_result(agent: Agent, sig_id: str, decision: Decision, now: float) -> None:
    """A reminder decided on a call's result (a same-error wall, the same answer again) is an
    intervention too: the agent's next counted attempt answers it. It waits for that answer
    only when none is waiting already: one waiting is this call's own, decided when it was
    made (and answered by the same next call), or a parallel call's, which came first. The
    engine calls it only for a call whose attempt was judged at an earlier event (its
    PreToolUse): one counted at its result's own event answered the waiting one already."""
    if decision.intended is Action.ALLOW or decision.tool is None:
        return
    waiting = agent.get("followup")
    # One waiting already is kept, unless it was decided at this same event and this one is
    # stronger: one answer carries both, and the model met the stronger (an end of turn that a
    # PostToolBatch carried out after an earlier entry's reminder).
    if waiting is None or (waiting.get("t") == round(now, 3) and waiting.get("level", 0) < int(decision.intended)):
        agent["followup"] = _pending(sig_id, decision, 1, now)


def _pending(sig_id: str, decision: Decision, step: int, now: float) -> FollowUp:
    return {
        "sig": sig_id,
        "tool": decision.tool or "",
        "rule": decision.rule,
        "variant": variant_of(decision.message, VARIANTS),
        "action": decision.action.name.lower(),
        "level": int(decision.intended),
        "count": decision.times,
        "step": step,
        "t": round(now, 3),
    }


def turn_ended(state: Session, agent_ids: list[str], now: float) -> list[ResponseRecord]:
    """The turn of these agents ended: a pending intervention was answered by ending it."""
    answered = []
    for agent_id in agent_ids:
        agent = state["agents"].get(agent_id)
        if agent is not None and (pending := agent.pop("followup", None)) is not None:
            answered.append(_answer(agent_id, pending, "ended", now))
    return answered


def _answer(agent_id: str, pending: FollowUp, response: str, now: float) -> ResponseRecord:
    return {
        "time": round(now, 3),
        "agent": agent_id,
        "tool": pending["tool"],
        "rule": pending["rule"],
        "variant": pending["variant"],
        "action": pending["action"],
        "intended": Action(pending["level"]).name.lower(),
        "count": pending["count"],
        "step": pending["step"],
        "response": response,
        "after": round(now - pending["t"], 3),
    }
