"""Policy: fit what the rules decided to the mode and to what the host carries. Pure: no I/O.

The rules decide as if every output form worked and every mode were `enforce`. This module is
the only place that applies `mode` (`enforce`, `advise`: denials become reminders, `observe`:
nothing is printed) and the host's capability table (`host.Capabilities`) to a verdict; the
engine passes each verdict through it once:

- `fit_call`: the verdict of the call rules on one attempt. A call that already ran (a post
  event of a call whose Pre was not seen) can only be reminded. An end of turn on an event where
  `continue: false` does nothing becomes, under `turn_end_fallback = "answer_only"`, a denial and
  answer-only mode for the rest of the turn (DSH). A denial marks the call as not run, and under
  `answer_only_after_deny` (the progress profile) a loop denial starts answer-only mode. The
  reminder and breaker profiles (`remind_phase = "post"`) hold a repeat reminder on the call, to go
  out with its result;
- `fit_result`, `fit_text`, `fit_batch`: the verdicts of the result rules, the text rules and a
  `PostToolBatch`;
- `hold_for_result`: a PreToolUse reminder on a host that ignores PreToolUse context but carries
  PostToolUse context (DSH's bridges) is held on the call; `held_reminder` delivers it with the
  call's result;
- `injected_prompt`: on a host whose injected context comes back as a UserPromptSubmit, such a
  prompt resets nothing. It is one when it repeats a text this guard emitted (a digest of each is
  kept), or when it arrives after tool events of the current turn and before its Stop (on DSH a
  real user prompt starts a turn). The bridge fires it before the next model request, so within
  `INJECTED_WITHIN` seconds of the last tool event, and in the same turn (`turn_id`, where sent);
  a turn that ended without a Stop (a killed run) thus holds no later prompt back.
"""

import re

from ..config.settings import Config
from ..rules.answer_only import engage, ignored, paused_turn_ended
from .event import MAIN_AGENT, STOP_EVENTS, HookEvent
from .host import Capabilities
from .ledger import MAX_EMITTED, Agent, Call, Session, TurnMark
from .messages import fit
from .redact import redact
from .signature import digest
from .verdict import ALLOW, LOOP_RULES, Action, Decision, Rule

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch"})

#: Seconds from the last tool event within which a prompt can be that event's injected context
#: (hooks run one at a time on DSH, so another hook's run may come between).
INJECTED_WITHIN = 120.0


def with_mode(decision: Decision, config: Config, *, can_deny: bool = True) -> Decision:
    """Apply `mode` (and what the event can carry) to what the rules decided. A denial or an end
    of turn made a reminder goes out with its `advice` as the message, and keeps its own text as
    `advice` (`fit_batch` sends it again where an end of turn can still be carried out)."""
    intended = decision.action
    action = intended
    if config.mode == "observe":
        action = Action.ALLOW
    elif config.mode == "advise" or not can_deny:
        action = min(action, Action.REMIND)
    if action == intended and decision.intended == intended:
        return decision
    message, advice = decision.message, decision.advice
    if action is Action.REMIND and intended >= Action.DENY and decision.advice:
        # the reminder's text goes out; the stronger one is kept for `fit_batch` to restore
        message, advice = decision.advice, decision.message
    return decision._replace(action=action, intended=intended, message=message, advice=advice)


def _stop_mode(decision: Decision, config: Config) -> Decision:
    """Apply `mode` to a verdict on Stop: `advise` never ends a turn, `observe` says nothing."""
    intended = max(decision.action, decision.intended)
    if config.mode == "observe":
        return decision._replace(action=Action.ALLOW, intended=intended, system_message="")
    if config.mode == "advise" and decision.action is Action.STOP:
        # Nothing ends: the user's notice would say the turn was ended (`loopguard ended the turn…`).
        return decision._replace(action=Action.ALLOW, intended=intended, system_message="")
    return decision._replace(intended=intended, summary=redact(decision.summary))


def for_host(config: Config, caps: Capabilities) -> Config:
    """The settings on a host that halts the run itself at `caps.halts_at` identical calls in a
    row (Qwen Code and Gemini CLI at the 5th; a hook's denial does not reset their count): the
    denial comes the call before, and a reminder before that, or the guard would never speak.
    Where the call that brought new evidence counts 0 (`evidence_call_counts = false`, the
    progress profile), the nth identical call is count n - 1, so the thresholds are one lower."""
    halt = caps.halts_at
    first = 0 if config.counting == "no_progress" and not config.evidence_call_counts else 1
    halt -= 1 - first
    if not caps.halts_at or not config.deny_at or config.deny_at < halt:
        return config
    deny_at = max(2, halt - 1)
    remind_at = tuple(n for n in config.remind_at if n < deny_at) or ((deny_at - 1,) if deny_at > 2 else ())
    return config._replace(deny_at=deny_at, remind_at=remind_at, stop_at=config.stop_at and max(config.stop_at, deny_at + 1))


def shared_by(config: Config, agents: int) -> Config:
    """The settings for calls that `agents` subagents running at once share one count for (a
    host that does not tell their calls apart: `engine.SUBAGENTS`): each may make a call once
    that another made, so the repeat thresholds are `agents - 1` higher."""
    more = agents - 1
    if more <= 0:
        return config
    return config._replace(
        remind_at=tuple(n + more for n in config.remind_at),
        deny_at=config.deny_at and config.deny_at + more,
        stop_at=config.stop_at and config.stop_at + more,
    )


# -- the verdicts of each kind of rule --------------------------------------------------------


def fit_call(
    agent: Agent, call: Call, decision: Decision, config: Config, caps: Capabilities, event: str, *, can_deny: bool
) -> tuple[Decision, Decision]:
    """The verdict of the call rules, fitted, and what goes on the wire now (ALLOW when a
    reminder is held for the call's result). The first is the intervention as the model meets
    it, which the follow-up record judges (`followup.after_attempt`)."""
    decision = with_mode(decision, config, can_deny=can_deny)
    if decision.action is Action.STOP and event not in caps.end_turn and caps.turn_end_fallback == "answer_only":
        engage(agent)
        decision = decision._replace(action=Action.DENY)
    wire = decision
    if decision.action >= Action.DENY:
        call["phase"] = "denied"
        if config.answer_only_after_deny and (
            decision.rule in LOOP_RULES or (decision.rule == Rule.DUPLICATE and not call.get("duplicate"))
        ):
            engage(agent)
    if decision.action is Action.REMIND and decision.rule == Rule.REPEAT and config.remind_phase == "post" and can_deny:
        # The reminder and breaker profiles deliver reminders after the call, attached to its result.
        call["remind"] = decision.message
        call["remind_times"] = decision.times
        wire = ALLOW
    return decision, wire


def fit_result(decision: Decision, config: Config) -> Decision:
    """A verdict decided on a call's result: the call already ran, so at most a reminder."""
    return with_mode(decision, config, can_deny=False)


def fit_text(decision: Decision, event: HookEvent, config: Config) -> Decision:
    """The text rules' verdict. Never a reminder on Stop: the user is told (`systemMessage`), the
    model at the next prompt or call; a turn that keeps looping is ended."""
    if event.event in STOP_EVENTS:
        if decision.action is Action.REMIND:
            decision = decision._replace(action=Action.ALLOW, intended=Action.REMIND)
        return _stop_mode(decision, config)
    return with_mode(decision._replace(summary=redact(decision.summary)), config)


def fit_batch(decision: Decision, event: str, config: Config, caps: Capabilities) -> Decision:
    """A `PostToolBatch`'s verdict as the batch's answer carries it: an end of turn decided there
    is carried out where the host ends the turn from it (Claude Code: `continue: false` before the
    next model call, 2.1.332 LAB). Given the merged verdict, for the answer; given one entry's, for
    the intervention its next call is judged against (`engine._as_sent`)."""
    if decision.intended is Action.STOP and config.mode == "enforce" and event in caps.end_turn:
        if decision.action is Action.REMIND and decision.advice:
            # `fit_result` made it a reminder with its advice: the end of turn goes out with its
            # own text, which says the turn is ended (and is logged and counted as an end)
            return decision._replace(action=Action.STOP, message=decision.advice, advice=decision.message)
        return decision._replace(action=Action.STOP)
    return decision


# -- reminders held for a call's result -------------------------------------------------------


def held_for_result(caps: Capabilities) -> bool:
    """Whether a PreToolUse reminder must wait for the call's result to reach the model."""
    return "PreToolUse" not in caps.context and "PostToolUse" in caps.context


def hold_for_result(call: Call | None, decision: Decision, caps: Capabilities) -> Decision:
    """A PreToolUse reminder the host would drop, held on `call` for its PostToolUse."""
    if decision.action is not Action.REMIND or call is None or not held_for_result(caps):
        return decision
    held = call.get("remind")
    call["remind"] = f"{held}\n\n{decision.message}" if held else decision.message
    call["remind_rule"] = decision.rule
    call["remind_times"] = max(decision.times, call.get("remind_times", 0))
    return ALLOW


def held_reminder(call: Call, tool: str, config: Config, *, summary: str = "", rule: str | None = None) -> Decision | None:
    """The reminder held on `call` (taken off it), fitted, to go out with the call's result;
    None when none is held. `rule` overrides the code it was held with."""
    pending = call.pop("remind", None)
    held_rule = call.pop("remind_rule", Rule.REPEAT)
    times = call.pop("remind_times", 0)
    if not pending:
        return None
    reminder = Decision(Action.REMIND, rule or held_rule, pending, times=times, tool=tool, summary=summary)
    return with_mode(reminder, config, can_deny=False)


# -- context that comes back as a prompt ------------------------------------------------------


def note_event(state: Session, event: HookEvent, caps: Capabilities, now: float) -> None:
    """Track the turn for `injected_prompt` (tool events open it, with their time and turn; Stop
    closes it) and for `resumes` (a Stop seen, tool events since the last prompt or Stop)."""
    if caps.stop_skips_interrupts:
        turn = _turn(state)
        if event.event in TOOL_EVENTS and event.agent_id == MAIN_AGENT:
            # Only the main thread's calls: a background subagent works on after the turn's
            # Stop, and its calls do not make the turn that ended an interrupted one.
            turn["open"] = True
        elif event.event == "Stop":
            turn["open"], turn["stopped"] = False, True
        elif event.event == "SessionStart" and event.source != "compact":
            turn["open"] = False  # the client started again (`--resume`): no turn goes on from before
    if not caps.context_returns_as_prompt:
        return
    if event.event in TOOL_EVENTS:
        state["turn_open"] = {"t": now, "turn": event.turn_id}
    elif event.event == "Stop":
        state.pop("turn_open", None)


def note_blocked(state: Session, caps: Capabilities) -> None:
    """An intervention, a reminder included (the engine calls this for every decision it
    records): the user may answer it with "continue", after fixing what it was about (a server
    started, a folder made writable), so that prompt is a new turn (`resumes`). Counts carried
    past a reminder would deny the very next attempt, the one the user's fix makes work."""
    if caps.stop_skips_interrupts:
        _turn(state)["blocked"] = True


#: A prompt that only says to go on: "continue", "keep going", "ok, go on", 继续, 続けて.
_GO_ON = (
    r"(?i)\s*(?:(?:ok(?:ay)?|yes|please)[,.!]?\s+)?"
    r"(?:continue|go on|keep going|carry on|proceed|resume|go ahead|continua|continúa|continuar|weiter"
    r"|继续|繼續|続けて|계속)(?:,?\s+please)?[\s.!。！]*\Z"
)


def resumes(state: Session, event: HookEvent, caps: Capabilities) -> bool:
    """Whether a UserPromptSubmit resumes a turn the user interrupted, so the counts go on: the
    host's Stop skips interrupts (`Capabilities.stop_skips_interrupts`), a Stop came before in
    the session (so the host sends it), the turn had tool events and no Stop since, the guard
    said nothing in it, not even a reminder (a "continue" may answer that, the user having
    fixed what it was about: such a prompt starts afresh), and the prompt only says to go on
    (`_GO_ON`, at most 64 characters). A user who interrupts a loop and says "continue" has
    added nothing the loop lacked (held-out transcripts: curl refused the same way before and
    after "continue", Claude Code 2.1.x; a Windows edit refused across "继续", 2.0.69). Only
    `start_turn` runs for it."""
    if not caps.stop_skips_interrupts or event.prompt is None or len(event.prompt) > 64:
        return False
    turn = _turn(state)
    if not (turn["stopped"] and turn["open"]) or turn["blocked"]:
        return False
    return re.match(_GO_ON, event.prompt) is not None


def resumed(state: Session) -> bool:
    """Whether the latest prompt resumed an interrupted turn (`resumes`), for the replay."""
    turn = state.get("turn")
    return isinstance(turn, dict) and turn.get("resumed") is True


def _turn(state: Session) -> TurnMark:
    turn = state.get("turn")
    if not isinstance(turn, dict) or {k: type(v) for k, v in turn.items()} != _TURN_SHAPE:
        turn = state["turn"] = {"stopped": False, "open": False, "blocked": False, "resumed": False}
    return turn


_TURN_SHAPE = {"stopped": bool, "open": bool, "blocked": bool, "resumed": bool}


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


def continuation(state: Session, event: HookEvent, caps: Capabilities, config: Config) -> Decision:
    """A host's tool continuation (`HookEvent.continuation`, Qwen Code) starts no turn. Where the
    host ends the turn from it (`end_turn`) and the agent went on calling tools in answer-only
    mode (`turn_end_fallback = "answer_only"`, or the progress profile's), the turn ends here:
    the model was told to answer and did not."""
    agent = state["agents"].get(event.agent_id)
    if agent is None or event.event not in caps.end_turn or config.mode != "enforce" or not ignored(agent):
        return ALLOW
    text = paused_turn_ended()
    return Decision(Action.STOP, Rule.STOP, text, intended=Action.STOP, stop_reason=text)


def start_turn(state: Session, caps: Capabilities, *, resuming: bool = False) -> None:
    """A real user prompt: the turn it starts has seen no tool event yet, nor an intervention; or
    (`resuming`) it goes on with the turn the user interrupted (`resumes`)."""
    if caps.context_returns_as_prompt:
        state.pop("turn_open", None)
    if caps.stop_skips_interrupts:
        turn = _turn(state)
        turn["open"] = turn["blocked"] = False
        turn["resumed"] = resuming


def _digest(text: str) -> str:
    return digest(text.strip().encode("utf-8", "surrogatepass"))
