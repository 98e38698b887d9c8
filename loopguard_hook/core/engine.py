"""The detection engine: one hook event + the session ledger -> a decision. Pure: no I/O.

The ledger (`ledger.Session`, the state file's content) is changed in place. The clock is
passed in as `now` (seconds since the epoch), so live hooks and `replay` run the same code.

Each event moves the ledger's counters, then the rules (`rules/`, one module each) judge it,
then the verdict is fitted to the mode and to what the client can deliver
(`clients/`, one capability table each). The engine never tests a client's name.

Counting (`counting.py`; both counters count the attempt at `PreToolUse`; denied attempts count too):

- `consecutive`: identical tracked calls in a row (the reminder and breaker profiles); excluded
  tools are transparent; a different tracked call restarts the chain at 1.
- `no_progress`: attempts of a signature since the last new evidence. A productive call (not a
  failure, and either a mutation or an outcome this signature has not produced before) sets every
  other signature back to 0 and restarts its own count at 1. A failure with a new text restarts
  only its own count, and only with `new_failure_is_evidence`.

The call rules (`rules.ON_CALL`) are listed by hand; the most severe verdict wins, the first
listed on a tie.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import rules
from ..config.settings import Config
from . import counting, delivery, followup, ledger, textloop
from .event import BatchCall, Client, HookEvent
from .host import Capabilities
from .ledger import MAX_ID_CHARS, STATE_VERSION, Agent, Call, DecisionRecord, Session
from .messages import variant_of
from .outcome import Outcome, outcome_of_error
from .redact import redact
from .signature import call_key
from .tools import matches
from .verdict import ALLOW, Action, Decision, Rule, merge, stop_mode, with_mode

if TYPE_CHECKING:
    from .host import Dialect

__all__ = ["STATE_VERSION", "Action", "Decision", "Rule", "apply", "decision_record", "matches", "new_session"]


def new_session(session_id: str, client: Client, now: float) -> Session:
    """An empty session ledger."""
    return ledger.new_session(session_id, client.value, now)


# -- events -----------------------------------------------------------------------------------


def apply(
    state: Session, event: HookEvent, config: Config, now: float, texts: Sequence[str] = (), *, host: "Dialect"
) -> Decision:
    """Update `state` with `event` and decide. The returned decision already has the mode applied.

    `texts` are assistant texts written since the previous event (read from the transcript by
    the caller); they feed the text-loop detectors. `host` is the module of the host that sent
    the event (`hosts/`): its capability table and how its results read.
    """
    state["events"] = state.get("events", 0) + 1
    state["updated"] = now
    state["config"] = {
        "profile": config.profile,
        "mode": config.mode,
        "counting": config.counting,
        "remind_at": list(config.effective_remind_at()),
        "deny_at": config.deny_at,
        "stop_at": config.stop_at,
    }
    caps = host.CAPABILITIES
    name = event.event
    delivery.note_event(state, event, caps, now)
    if name == "PreToolUse":
        decision = merge([_pre_tool_use(state, event, config, caps, now), _text_rules(state, event, config, caps, texts)])
        decision = delivery.hold_for_result(_call_of(state, event, config), decision, caps)
    elif name in ("PostToolUse", "PostToolUseFailure"):
        decision = _post_tool_use(state, event, config, host, now)
    elif name == "PostToolBatch":
        decision = _post_tool_batch(state, event, config, host, now)
    elif name == "UserPromptSubmit":
        decision = _user_prompt(state, event, config, caps, texts, now)
    elif name == "SessionStart":
        if event.source == "compact" and config.reset_on_compaction:
            for agent in state["agents"].values():
                ledger.reset_agent(agent, keep_outcomes=True)
        decision = ALLOW
    elif name in ("Stop", "SubagentStop"):
        followup.turn_ended(state, [event.agent_id], now)
        decision = _text_rules(state, event, config, caps, texts)
    else:
        decision = ALLOW
    if decision.intended is not Action.ALLOW:
        _remember(state, event, decision, now)
        delivery.note_emitted(state, decision, name, caps)
    return decision


def _user_prompt(
    state: Session, event: HookEvent, config: Config, caps: Capabilities, texts: Sequence[str], now: float
) -> Decision:
    """A new user prompt ends the turn and resets every agent's counters and answer-only mode;
    context injected by a hook that comes back as a prompt (`delivery.injected_prompt`) does
    neither."""
    if delivery.injected_prompt(state, event, caps, now):
        return ALLOW
    delivery.start_turn(state, caps)
    followup.turn_ended(state, list(state["agents"]), now)
    for agent in state["agents"].values():
        ledger.reset_agent(agent)
    return _text_rules(state, event, config, caps, texts)


def _call_of(state: Session, event: HookEvent, config: Config) -> Call | None:
    """The ledger entry of this event's call, if it is still pending."""
    agent = state["agents"].get(event.agent_id)
    if agent is None or event.tool_name is None:
        return None
    call = agent["calls"].get(counting.post_call_id(event.tool_use_id, event.tool_name, event.tool_input, config))
    return call if call is not None and call["phase"] == "pre" else None


def _pre_tool_use(state: Session, event: HookEvent, config: Config, caps: Capabilities, now: float) -> Decision:
    agent = ledger.agent(state, event.agent_id, now)
    assert event.tool_name is not None
    if event.tool_use_id is not None and counting.call_id(event.tool_use_id, "") in agent["calls"]:
        # The same call delivered again: the hook is registered twice (a plugin copy and a
        # settings copy run in parallel), or a payload was re-sent. Count each call once; the
        # client merges both answers, and a denial from the first one wins.
        return ALLOW
    attempt = counting.Attempt(event.tool_name, event.tool_input, event.tool_use_id)
    return counting.count_attempt(state, agent, event, attempt, config, caps, now, can_deny=True)


def _post_tool_use(state: Session, event: HookEvent, config: Config, host: "Dialect", now: float) -> Decision:
    caps = host.CAPABILITIES
    agent = ledger.agent(state, event.agent_id, now)
    assert event.tool_name is not None
    tool = event.tool_name
    agent["seq"] += 1
    call = agent["calls"].get(counting.post_call_id(event.tool_use_id, tool, event.tool_input, config))
    if call is not None and call["phase"] != "pre":
        return ALLOW  # already recorded: a second registration of the hook, or a replayed event
    decisions: list[Decision] = []
    if call is None:
        # Only a post hook is registered (or the Pre fell out of the ledger): count here.
        attempt = counting.Attempt(tool, event.tool_input, event.tool_use_id)
        decisions.append(counting.count_attempt(state, agent, event, attempt, config, caps, now, can_deny=False))
        call = agent["calls"].get(counting.post_call_id(event.tool_use_id, tool, event.tool_input, config))
        if call is None:
            call = {
                "sig": call_key(tool, event.tool_input, frozenset(config.ignore_args)).digest,
                "t": now,
                "seq": agent["seq"],
                "phase": "pre",
            }
    pending = call.pop("remind", None)
    rule = call.pop("remind_rule", Rule.REPEAT)
    outcome: Outcome | None
    if event.event == "PostToolUseFailure":
        if event.is_interrupt:
            call["phase"] = "done"
            call["done"] = now
            outcome = None
        else:
            outcome = outcome_of_error(event.error or "")
    else:
        mutation = matches(tool, config.mutating_tools)
        outcome = host.outcome(tool, event.tool_response, mutation=mutation)
    if outcome is not None:
        verdict = counting.record_outcome(
            agent, call, tool, event.tool_input, event.tool_response, outcome, config, caps, agents=len(state["agents"])
        )
        if verdict is not None:
            decisions.append(with_mode(verdict, config, can_deny=False))
        if call.get("new"):
            textloop.new_evidence(state, event.agent_id)
    if pending:
        summary = counting.summary(tool, call_key(tool, event.tool_input, frozenset(config.ignore_args)))
        reminder = Decision(Action.REMIND, rule, pending, tool=tool, summary=summary)
        decisions.append(with_mode(reminder, config, can_deny=False))
    return merge(decisions)


def _post_tool_batch(state: Session, event: HookEvent, config: Config, host: "Dialect", now: float) -> Decision:
    """Claude Code `PostToolBatch`: the only event that sees validation rejections.

    A call with no PreToolUse and no post event is a `<tool_use_error>` validation rejection
    (Claude Code 2.1.332 LAB; anthropics/claude-code#72996) and counts as a failed attempt. A
    call whose Pre was seen but not its post was denied by a hook (ours or another's): not a
    failure.
    """
    agent = ledger.agent(state, event.agent_id, now)
    agent["seq"] += 1
    decisions: list[Decision] = []
    for item in event.tool_calls:
        decisions.extend(_batch_call(state, agent, event, item, config, host, now))
    agent["batch_seq"] = agent["seq"]  # the model sees these results next: later calls are a new batch
    merged = merge(decisions)
    if merged.intended is Action.STOP and config.mode == "enforce" and event.event in host.CAPABILITIES.end_turn:
        # PostToolBatch `continue: false` ends the loop before the next model call (2.1.332 LAB).
        return merged._replace(action=Action.STOP)
    return merged


def _batch_call(
    state: Session, agent: Agent, event: HookEvent, item: BatchCall, config: Config, host: "Dialect", now: float
) -> list[Decision]:
    caps = host.CAPABILITIES
    calls = agent["calls"]
    call = calls.get(counting.post_call_id(item.tool_use_id, item.tool_name, item.tool_input, config))
    text = item.tool_response if isinstance(item.tool_response, str) else None
    client = host
    decisions: list[Decision] = []
    if call is not None:
        if call["phase"] != "pre":
            return decisions
        if text is not None and client.denied_in_batch(text):
            # Another hook denied it: still an attempt (the reminder seed counts denied calls),
            # so a reminder held for its result goes out with the batch.
            call["phase"] = "denied"
            held = call.pop("remind", None)
            if held:
                reminder = Decision(Action.REMIND, Rule.REPEAT, held, tool=item.tool_name)
                decisions.append(with_mode(reminder, config, can_deny=False))
            return decisions
        if text is not None and counting.is_cancelled(text):
            counting.uncount(agent, call)
            return decisions
    else:
        attempt = counting.Attempt(item.tool_name, item.tool_input, item.tool_use_id)
        decisions.append(counting.count_attempt(state, agent, event, attempt, config, caps, now, can_deny=False))
        call = calls.get(counting.post_call_id(item.tool_use_id, item.tool_name, item.tool_input, config))
        if call is None:
            return decisions
    pending = call.pop("remind", None)
    rule = call.pop("remind_rule", Rule.REPEAT)
    mutation = matches(item.tool_name, config.mutating_tools)
    outcome = client.outcome(item.tool_name, item.tool_response, mutation=mutation)
    verdict = counting.record_outcome(
        agent, call, item.tool_name, item.tool_input, item.tool_response, outcome, config, caps, agents=len(state["agents"])
    )
    if verdict is not None:
        decisions.append(with_mode(verdict, config, can_deny=False))
    if call.get("new"):
        textloop.new_evidence(state, event.agent_id)
    if pending:
        decisions.append(with_mode(Decision(Action.REMIND, rule, pending, tool=item.tool_name), config, can_deny=False))
    return decisions


# -- text -------------------------------------------------------------------------------------


def _text_rules(state: Session, event: HookEvent, config: Config, caps: Capabilities, texts: Sequence[str]) -> Decision:
    """Text loops (contract section 9). Never blocks a Stop; ends a turn that keeps looping."""
    ctx = rules.TextContext(state=state, event=event, config=config, caps=caps, texts=texts)
    verdicts = [verdict for rule in rules.ON_TEXT if (verdict := rule(ctx)) is not None]
    if not verdicts:
        return ALLOW
    best = merge(verdicts)
    if event.event in ("Stop", "SubagentStop"):
        if best.action is Action.REMIND:
            # Never a reminder on Stop: the user is told (systemMessage), the model at the next prompt.
            best = best._replace(action=Action.ALLOW, intended=Action.REMIND)
        return stop_mode(best, config)
    return with_mode(best._replace(summary=redact(best.summary)), config)


# -- the record -------------------------------------------------------------------------------

MAX_RECENT = ledger.MAX_RECENT


def _remember(state: Session, event: HookEvent, decision: Decision, now: float) -> None:
    recent = state.setdefault("recent", [])
    recent.append(decision_record(event, decision, now))
    del recent[:-MAX_RECENT]


def decision_record(event: HookEvent, decision: Decision, now: float) -> DecisionRecord:
    """The redacted record of one decision (state `recent` list and `decisions.jsonl`)."""
    return {
        "time": round(now, 3),
        "agent": event.agent_id,
        "event": event.event,
        "tool": decision.tool[:MAX_ID_CHARS] if decision.tool else decision.tool,
        "rule": decision.rule,
        "action": decision.action.name.lower(),
        "intended": decision.intended.name.lower() if decision.intended else decision.action.name.lower(),
        "count": decision.times,
        "arguments": decision.summary,
        "variant": variant_of(decision.message),
    }
