"""Delivery: fit a verdict to what the client really carries to the model. Pure: no I/O.

The rules decide as if every output form worked; a client's capability table
(`clients.base.Capabilities`) says which do. Three rules live here:

- a reminder decided at PreToolUse, on a client that ignores PreToolUse context but carries
  PostToolUse context (DSH's bridges), is held on the call and goes out with its PostToolUse
  (`hold_for_result`; delivered by `engine._post_tool_use`);
- an end of turn on an event where `continue: false` does nothing becomes, under
  `turn_end_fallback = "answer_only"`, a denial and answer-only mode for the rest of the turn
  (`end_of_turn`); the texts say so (`messages.stop_text`, `messages.answer_only_denial`);
- on a client whose injected context comes back as a UserPromptSubmit, such a prompt resets
  nothing (`injected_prompt`): it is one when it repeats a text this guard emitted (a digest of
  each is kept), or when it arrives after tool events of the current turn and before its Stop
  (on DSH a real user prompt starts a turn). The bridge fires it before the next model request,
  so within `INJECTED_WITHIN` seconds of the last tool event, and in the same turn (`turn_id`,
  where sent); a turn that ended without a Stop (a killed run) thus holds no later prompt back.
"""

from .event import HookEvent
from .host import Capabilities
from .ledger import MAX_EMITTED, Agent, Call, Session
from .messages import fit
from .signature import digest
from .verdict import ALLOW, Action, Decision

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch"})

#: Seconds from the last tool event within which a prompt can be that event's injected context
#: (hooks run one at a time on DSH, so another hook's run may come between).
INJECTED_WITHIN = 120.0


def held_for_result(caps: Capabilities) -> bool:
    """Whether a PreToolUse reminder must wait for the call's result to reach the model."""
    return "PreToolUse" not in caps.context and "PostToolUse" in caps.context


def hold_for_result(call: Call | None, decision: Decision, caps: Capabilities) -> Decision:
    """A PreToolUse reminder the client would drop, held on `call` for its PostToolUse."""
    if decision.action is not Action.REMIND or call is None or not held_for_result(caps):
        return decision
    held = call.get("remind")
    call["remind"] = f"{held}\n\n{decision.message}" if held else decision.message
    call["remind_rule"] = decision.rule
    return ALLOW


def end_of_turn(agent: Agent, decision: Decision, event: str, caps: Capabilities) -> Decision:
    """An end of turn the client cannot carry out from `event`, as its fallback does it."""
    if decision.action is not Action.STOP or event in caps.end_turn or caps.turn_end_fallback != "answer_only":
        return decision
    agent["answer_only"] = True
    return decision._replace(action=Action.DENY)


def note_event(state: Session, event: HookEvent, caps: Capabilities, now: float) -> None:
    """Track the turn for `injected_prompt`: tool events open it (with their time and turn),
    Stop closes it."""
    if not caps.context_returns_as_prompt:
        return
    if event.event in TOOL_EVENTS:
        state["turn_open"] = {"t": now, "turn": event.turn_id}
    elif event.event == "Stop":
        state.pop("turn_open", None)


def note_emitted(state: Session, decision: Decision, event: str, caps: Capabilities) -> None:
    """Remember the digest of a context text that will come back as a prompt."""
    if not caps.context_returns_as_prompt or decision.action is Action.ALLOW or event not in caps.context:
        return
    if decision.action is Action.REMIND or event not in caps.deny:
        emitted = state.setdefault("emitted", [])
        emitted.append(_digest(fit(decision.message)))
        del emitted[:-MAX_EMITTED]


def injected_prompt(state: Session, event: HookEvent, caps: Capabilities, now: float) -> bool:
    """Whether a UserPromptSubmit carries injected context rather than the user's words."""
    if not caps.context_returns_as_prompt:
        return False
    opened = state.get("turn_open")
    if opened is not None and now - opened["t"] <= INJECTED_WITHIN and opened["turn"] == event.turn_id:
        return True
    return event.prompt is not None and _digest(event.prompt) in state.get("emitted", [])


def start_turn(state: Session, caps: Capabilities) -> None:
    """A real user prompt: the turn it starts has seen no tool event yet."""
    if caps.context_returns_as_prompt:
        state.pop("turn_open", None)


def _digest(text: str) -> str:
    return digest(text.strip().encode("utf-8", "surrogatepass"))
