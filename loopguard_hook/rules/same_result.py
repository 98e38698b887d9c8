"""Same result: where the client sends no arguments for a tool (DSH's Codex bridge: every tool
but `bash` arrives as `{"command": ""}`), identical payloads do not mean identical calls. Such a
call is judged after it ran, by its tool and its result: a result the tool already returned
since the last new evidence counts as a repeat, and the profile's thresholds remind (never deny:
the guard cannot tell this call from a different one before it runs, and the call has run).
"""

from .. import messages as msg
from ..decision import Action, Decision, Rule
from .base import ResultContext


def same_result(ctx: ResultContext) -> Decision | None:
    """Remind at `remind_at`, and at every repeat from `deny_at` on, counted by results."""
    if ctx.caps.has_arguments(ctx.tool) or ctx.new:
        return None
    cfg, n = ctx.config, ctx.sig["n"]
    escalated = bool(cfg.deny_at and n >= cfg.deny_at or cfg.stop_at and n >= cfg.stop_at)
    if n in cfg.effective_remind_at() or escalated:
        return Decision(Action.REMIND, Rule.SAME_RESULT, msg.same_result_reminder(ctx.tool, n), times=n, tool=ctx.tool)
    return None
