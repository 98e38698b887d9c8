"""Repeat and escalation: the same call again and again (all four profiles).

Thresholds `remind_at`, `deny_at` and `stop_at` on the profile's counter (`counting`): identical
calls in a row (`consecutive`), or attempts of one signature since the last new evidence
(`no_progress`). A repeat that comes `slow_repeat_seconds` after the previous one finished is a
poll, not a loop: it is only reminded (`LOOP_GUARD_SLOW_REPEAT`). A call first counted at
Claude Code's PostToolBatch fired no PreToolUse: an input-validation rejection, which never ran
(research/claude-code-hooks.md), so it is no poll and is never excused as slow; it cannot be
denied, and ends the turn at `stop_at` (PostToolBatch carries `continue: false`, 2.1.332 LAB).
Under `exact_repeat_code` (the progress profile) a denial of attempts that were all spelt alike is coded `LOOP_GUARD_DUPLICATE`,
as the progress seed codes it.
"""

from ..core import messages as msg
from ..core.ledger import Signature
from ..core.outcome import arguments_preview
from ..core.signature import CallKey, digest
from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def arguments_text(key: CallKey, limit: int) -> str:
    """The canonical arguments of a call, cut to `limit` characters."""
    return arguments_preview(key, limit)


def _previous_result(ctx: CallContext) -> str | None:
    text = ctx.sig.get("preview") if ctx.sig is not None else None
    return text if isinstance(text, str) else None


def _note_spelling(sig: Signature, key: CallKey) -> None:
    """Whether the attempts of `sig` since its last new evidence were all spelt alike: the
    canonical arguments as given (`key.head`), before the shell spacing that the signature
    ignores is removed. Kept in the signature (`spelling`, `mixed`)."""
    spelling = digest(key.head.encode("utf-8", "surrogatepass"))[:16]
    if sig["n"] <= 1:
        sig["mixed"] = False
    elif spelling != sig.get("spelling"):
        sig["mixed"] = True
    sig["spelling"] = spelling


def _repeat_code(ctx: CallContext) -> Rule:
    """`LOOP_GUARD_DUPLICATE` for a repeat whose attempts since the evidence were all spelt alike
    under `exact_repeat_code` (the progress seed's code), else `LOOP_GUARD_REPEAT`."""
    if ctx.config.exact_repeat_code and ctx.sig is not None and ctx.sig.get("mixed") is False:
        return Rule.DUPLICATE
    return Rule.REPEAT


def repeat(ctx: CallContext) -> Decision | None:
    """Remind, deny or end the turn at the profile's thresholds."""
    if not ctx.counted:
        return None
    cfg, n, tool = ctx.config, ctx.attempt, ctx.tool
    if cfg.exact_repeat_code and ctx.sig is not None:
        _note_spelling(ctx.sig, ctx.key)
    in_a_row = cfg.counting == "consecutive"
    limit = cfg.result_preview_chars
    if cfg.stop_at and n >= cfg.stop_at or cfg.deny_at and n >= cfg.deny_at:
        advice = msg.detailed_reminder(tool, n, arguments_text(ctx.key, cfg.preview_chars), in_a_row=in_a_row)
    if cfg.stop_at and n >= cfg.stop_at:
        decision = Decision(
            Action.STOP,
            Rule.END_TURN,
            msg.stop_text(tool, n, _previous_result(ctx), limit, ends_turn=ctx.ends_turn, pauses_tools=ctx.pauses_tools),
            stop_reason=msg.stop_reason(tool, n),
            advice=advice,
        )
    elif cfg.deny_at and n >= cfg.deny_at:
        denial = msg.repeat_denial(tool, n, _previous_result(ctx), limit, in_a_row=in_a_row)
        decision = Decision(Action.DENY, _repeat_code(ctx), denial, advice=advice)
    else:
        thresholds = cfg.effective_remind_at()
        if n not in thresholds:
            return None
        if n == thresholds[0]:
            text = msg.gentle_reminder(tool, n)
        else:
            text = msg.detailed_reminder(tool, n, arguments_text(ctx.key, cfg.preview_chars), in_a_row=in_a_row)
        return Decision(Action.REMIND, Rule.REPEAT, text)
    slow = cfg.slow_repeat_seconds
    unhooked = ctx.event.event == "PostToolBatch"  # a validation rejection: it never ran, no poll
    if slow and not unhooked and ctx.previous_time is not None and ctx.now - ctx.previous_time >= slow:
        return Decision(Action.REMIND, Rule.SLOW_REPEAT, msg.slow_repeat_reminder(tool, n, ctx.now - ctx.previous_time))
    return decision
