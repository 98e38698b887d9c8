"""Same path: one file read too often since it last changed (`max_same_path`, breaker profile).

Reads are counted per path whatever the other arguments (offsets, limits); a successful
mutation of the path sets its count back (`engine._record_outcome`).
"""

from ..core import messages as msg
from ..core.verdict import Action, Decision, Rule
from .base import CallContext


def same_path(ctx: CallContext) -> Decision | None:
    """Deny a read of a path read more than `max_same_path` times since its last mutation."""
    cap = ctx.config.max_same_path
    if cap and ctx.counted and ctx.path is not None and ctx.path_count > cap:
        return Decision(
            Action.DENY,
            Rule.SAME_PATH,
            msg.same_path_denial(ctx.tool, ctx.path, ctx.path_count, cap),
            advice=msg.same_path_reminder(ctx.tool, ctx.path, ctx.path_count, cap),
        )
    return None
