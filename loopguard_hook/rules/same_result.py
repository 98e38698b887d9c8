"""Same result: where the client sends no arguments for a tool (DSH's Codex bridge: every tool
but `bash` arrives as `{"command": ""}`), identical payloads do not mean identical calls, so such
"argument-blind" calls are judged by what is known: the tool and its results.

The tool's signature counts its attempts since the last new evidence, as for any call; a result
the tool already returned is no new evidence. So:

- after a call ran (`same_result`): a repeated result at a `remind_at` threshold is reminded;
- before a call runs (`same_result_call`): once the tool's last result was a repeat, the
  thresholds `deny_at` and `stop_at` deny it (a read of another file never is: its first result
  is new, and a new result is never followed by a denial). The text says that the results
  repeat, never that the call is identical, and quotes the tool's last result as that.
"""

from .. import messages as msg
from ..decision import Action, Decision, Rule
from .base import CallContext, ResultContext


def same_result(ctx: ResultContext) -> Decision | None:
    """Remind at the `remind_at` thresholds, counted by results."""
    if ctx.caps.has_arguments(ctx.tool) or ctx.new:
        return None
    n = ctx.sig["n"]
    if n in ctx.config.effective_remind_at():
        return Decision(Action.REMIND, Rule.SAME_RESULT, msg.same_result_reminder(ctx.tool, n), times=n, tool=ctx.tool)
    return None


def same_result_call(ctx: CallContext) -> Decision | None:
    """Deny, or end the turn, at `deny_at` / `stop_at` once the tool's last result repeated."""
    sig = ctx.sig
    if not ctx.blind or sig is None or not sig.get("repeated"):
        return None
    cfg, n, tool = ctx.config, ctx.attempt, ctx.tool
    last = sig.get("preview")
    limit = min(cfg.result_preview_chars, 4000)
    advice = msg.same_result_reminder(tool, n)
    if cfg.stop_at and n >= cfg.stop_at:
        text = msg.same_result_denial(tool, n, last, limit, final=True, pauses_tools=ctx.pauses_tools)
        return Decision(Action.STOP, Rule.END_TURN, text, stop_reason=msg.stop_reason(tool, n), advice=advice)
    if cfg.deny_at and n >= cfg.deny_at:
        return Decision(Action.DENY, Rule.SAME_RESULT, msg.same_result_denial(tool, n, last, limit), advice=advice)
    return None
