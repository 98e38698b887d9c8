"""Text loops (contract section 9): the agent repeating itself in words, not in tool calls.

The detectors are in `textloop.py`; this rule decides what each event does with their verdicts:

- UserPromptSubmit: deliver a reminder held since the last Stop, or one found in new text;
- PreToolUse: deliver a held reminder; a loop found in new text is reminded once per turn, then
  the turn is ended (a denial where the client cannot end a turn from PreToolUse);
- Stop / SubagentStop: never blocks; holds the reminder for the next prompt or call (a
  subagent's goes to the main thread), tells the user, and ends a turn that keeps looping
  through Stop-hook continuations.
"""

from ..core import textloop
from ..core.event import MAIN_AGENT
from ..core.ledger import TextState
from ..core.redact import redact_prefix
from ..core.signature import digest
from ..core.textloop import TextVerdict
from ..core.verdict import Action, Decision, Rule, merge
from .base import TextContext

STOP_EVENTS = frozenset({"Stop", "SubagentStop"})


def text_loops(ctx: TextContext) -> Decision | None:
    """The merged verdict of the text rules on this event, before the mode is applied."""
    ts = textloop.text_state(ctx.state, ctx.event.agent_id)
    name, config = ctx.event.event, ctx.config
    final = _bounded(ctx.event.last_assistant_message, config.transcript_read_bytes)
    texts = list(ctx.texts)
    if name in STOP_EVENTS and not texts and final:
        # No transcript text yet (none, or it lags behind the Stop): judge the final message,
        # and remember it so that reading it from the transcript later does not count it twice.
        texts = [final]
        textloop.seen_before(ts, textloop.judged_key(digest(final.encode("utf-8", "surrogatepass"))))
    verdict = None
    for text in texts:
        found = textloop.feed(
            ts,
            text,
            max_lines=config.max_repeated_lines,
            max_blocks=config.max_repeated_blocks,
            max_block_chars=config.max_block_chars,
        )
        verdict = verdict or found
    if name == "UserPromptSubmit":
        decisions = _on_prompt(ts, ctx, verdict)
    elif name == "PreToolUse":
        decisions = _on_call(ts, ctx, verdict)
    elif name in STOP_EVENTS:
        decisions = _on_stop(ts, ctx, verdict, final)
    else:
        decisions = []
    return merge(decisions) if decisions else None


def _on_prompt(ts: TextState, ctx: TextContext, verdict: TextVerdict | None) -> list[Decision]:
    pending = ts["pending"]
    textloop.remember_prompt(ts, ctx.event.prompt, reset_lines=ctx.config.prompt_resets_text)
    ts["pending"] = None
    if verdict is not None:
        pending = textloop.reminder(verdict)
    return [Decision(Action.REMIND, Rule.TEXT, pending, summary="assistant text")] if pending else []


def _on_call(ts: TextState, ctx: TextContext, verdict: TextVerdict | None) -> list[Decision]:
    decisions = []
    if ts["pending"]:
        decisions.append(Decision(Action.REMIND, Rule.TEXT, ts["pending"], summary="assistant text"))
        ts["pending"] = None
    if verdict is None:
        return decisions
    if ts["reminded"]:
        # Still looping after a reminder in this turn: end it (or deny the call where the client
        # cannot end a turn from here).
        decisions.append(
            Decision(
                Action.STOP if ctx.ends_turn else Action.DENY,
                Rule.TEXT,
                textloop.reminder(verdict),
                stop_reason=textloop.text_loop_stop(verdict),
                times=verdict.repeats,
                summary=verdict.excerpt,
            )
        )
    else:
        ts["reminded"] = True
        decisions.append(
            Decision(Action.REMIND, Rule.TEXT, textloop.reminder(verdict), times=verdict.repeats, summary=verdict.excerpt)
        )
    return decisions


def _on_stop(ts: TextState, ctx: TextContext, verdict: TextVerdict | None, final: str | None) -> list[Decision]:
    event = ctx.event
    count, same_reply = textloop.final_message(ts, final, stop_hook_active=event.stop_hook_active)
    threshold = ctx.config.same_final_message_at
    if threshold and count >= threshold:
        summary = redact_prefix(event.last_assistant_message or "", 120)
        return [_text_stop(textloop.final_message_stop(count), count, summary)]
    if verdict is not None and event.stop_hook_active and ts["pending"]:
        # A Stop hook forced the turn on, the previous Stop already found a text loop, and no
        # tool call or prompt has delivered that reminder since: nothing else will reach the
        # model, so end the turn (Codex caps no Stop-hook chain: openai/codex#37937).
        ts["pending"] = None  # the turn ends; the next prompt starts afresh
        return [_text_stop(textloop.text_loop_stop(verdict), verdict.repeats, verdict.excerpt)]
    if verdict is not None:
        ts["pending"] = pending = textloop.reminder(verdict)
        if event.event == "SubagentStop" and event.agent_id != MAIN_AGENT:
            # The subagent is done and will read no reminder; the main thread reads its
            # result next, so that is who is told.
            textloop.text_state(ctx.state, MAIN_AGENT)["pending"] = textloop.subagent_reminder(verdict)
        notice = textloop.user_notice(verdict)
        return [
            Decision(
                Action.REMIND, Rule.TEXT, pending, system_message=notice, times=verdict.repeats, summary=verdict.excerpt
            )
        ]
    if same_reply:
        ts["pending"] = pending = textloop.same_reply_reminder()
        notice = textloop.user_notice(None, same_reply=True)
        summary = redact_prefix(event.last_assistant_message or "", 120)
        return [Decision(Action.REMIND, Rule.TEXT, pending, system_message=notice, summary=summary)]
    return []


def _text_stop(text: str, count: int, summary: str) -> Decision:
    """End the turn on Stop: the same words for the user (`systemMessage`) and the client."""
    return Decision(Action.STOP, Rule.TEXT, text, stop_reason=text, system_message=text, times=count, summary=summary)


def _bounded(text: str | None, limit: int) -> str | None:
    """A final message cut to its first and last `limit` characters: the text rules cost the
    same for a 20 MB message as for one of 512 KiB, and a loop shows at either end."""
    if text is None or len(text) <= 2 * limit:
        return text
    return text[:limit] + "\n" + text[-limit:]
