"""Repeat and escalation: the same call again and again (all four profiles).

Thresholds `remind_at`, `deny_at` and `stop_at` on the profile's counter (`counting`): identical
calls in a row (`consecutive`), or attempts of one signature since the last new evidence
(`no_progress`). A repeat that comes `slow_repeat_seconds` after the previous one finished is a
poll, not a loop: it is only reminded (`LOOP_GUARD_SLOW_REPEAT`). A call first counted at
Claude Code's PostToolBatch fired no PreToolUse: an input-validation rejection, which never ran
(research/claude-code-hooks.md), so it is no poll and is never excused as slow; it cannot be
denied, and ends the turn at `stop_at` (PostToolBatch carries `continue: false`, 2.1.332 LAB).
Under `exact_repeat_code` (the progress profile) a denial of attempts that were all spelt alike
is coded `LOOP_GUARD_DUPLICATE`, as the progress seed codes it; the slot
`Agent.rules["repeat"]` keeps, per signature, how its last attempt was spelt and whether the
attempts since the evidence were spelt alike (`RepeatEntry`).
"""

from typing import TYPE_CHECKING, cast

from ..core import messages as msg
from ..core.ledger import Agent, Limits, Signature, drop_slot, slot, slots
from ..core.outcome import preview
from ..core.signature import CallKey, digest
from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def arguments_text(key: CallKey, limit: int) -> str:
    """The canonical arguments of a call, cut to `limit` characters."""
    return preview(key.head, limit)


def _previous_result(ctx: CallContext) -> str | None:
    text = ctx.sig.get("preview") if ctx.sig is not None else None
    return text if isinstance(text, str) else None


NAME = "repeat"

if TYPE_CHECKING:
    #: `[spelling, mixed]`: a digest of the last attempt's arguments as given, and whether the
    #: attempts since the evidence were not all spelt alike.
    RepeatEntry = list[str | bool]
else:
    RepeatEntry = list


def _note_spelling(agent: Agent, sig_id: str, sig: Signature, key: CallKey) -> bool:
    """Whether the attempts of `sig` since its last new evidence were all spelt alike: the
    canonical arguments as given (`key.head`), before the shell spacing that the signature
    ignores is removed. Kept in the rule's slot, per signature."""
    spelt = cast("dict[str, RepeatEntry]", slots(agent).setdefault(NAME, {}))
    spelling = digest(key.head.encode("utf-8", "surrogatepass"))[:16]
    entry = spelt.get(sig_id)
    mixed = False if sig["n"] <= 1 else (spelling != (entry[0] if entry else None) or bool(entry and entry[1]))
    spelt[sig_id] = [spelling, mixed]
    for stale in [k for k in spelt if k not in agent["sigs"]]:
        del spelt[stale]
    return not mixed


def fit(agent: Agent, share: Limits) -> None:
    """Keep the entries of the signatures the agent still holds."""
    spelt = cast("dict[str, RepeatEntry] | None", slot(agent, NAME))
    if spelt:
        for stale in [k for k in spelt if k not in agent["sigs"]]:
            del spelt[stale]


def reset(agent: Agent, why: str) -> None:
    """A prompt forgets every signature; a compaction keeps them, and how they were spelt."""
    if why == "prompt":
        drop_slot(agent, NAME)


def repeat(ctx: CallContext) -> Decision | None:
    """Remind, deny or end the turn at the profile's thresholds."""
    if not ctx.counted:
        return None
    cfg, n, tool = ctx.config, ctx.attempt, ctx.tool
    alike = False
    if cfg.exact_repeat_code and ctx.sig is not None:
        alike = _note_spelling(ctx.agent, ctx.call["sig"], ctx.sig, ctx.key)
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
        # Under `exact_repeat_code`, attempts all spelt alike are the progress seed's duplicate.
        decision = Decision(Action.DENY, Rule.DUPLICATE if alike else Rule.REPEAT, denial, advice=advice)
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
