"""Same error: one tool failing with the same error under different arguments is a wall (a
sandbox, a permission, a missing tool), not a typo (`same_error_remind_at`).

Errors are compared by `outcome.error_signature` (paths and numbers removed); the rule reminds
when the count of distinct failing signatures reaches the threshold and twice the threshold.
Its ledger is `Agent.errors`, at most `MAX_ERRORS` entries.
"""

from .. import messages as msg
from ..decision import Action, Decision, Rule
from ..ledger import MAX_ERROR_SIGS, MAX_ERRORS, MAX_ID_CHARS, trim
from ..outcome import error_signature, preview
from ..redact import redact_prefix
from .base import ResultContext


def same_error(ctx: ResultContext) -> Decision | None:
    """Record a failure; remind at `same_error_remind_at` distinct calls failing the same way."""
    outcome, tool = ctx.outcome, ctx.tool
    threshold = ctx.config.same_error_remind_at
    if not (outcome.failure and threshold):
        return None
    errors = ctx.agent["errors"]
    key = tool[:MAX_ID_CHARS] + ":" + error_signature(outcome.text)
    entry = errors.setdefault(key, {"sigs": [], "t": ctx.call["t"]})
    entry["t"] = ctx.call["t"]
    verdict = None
    if ctx.call["sig"] not in entry["sigs"]:
        entry["sigs"].append(ctx.call["sig"])
        del entry["sigs"][:-MAX_ERROR_SIGS]
        count = len(entry["sigs"])
        if count == threshold or count == 2 * threshold:
            limit = ctx.config.result_preview_chars
            quoted = preview(redact_prefix(outcome.text, 2 * limit + 1), 2 * limit)
            verdict = Decision(
                Action.REMIND, Rule.SAME_ERROR, msg.same_error_reminder(tool, count, quoted, limit), times=count, tool=tool
            )
    trim(errors, MAX_ERRORS, lambda k: errors[k]["t"])
    return verdict
