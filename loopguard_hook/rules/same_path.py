"""Same path: one file read too often since it last changed (`max_same_path`, breaker profile).

Reads (`read_tools`, the path from `path_keys`) are counted per path whatever the other
arguments (offsets, limits); a successful mutation of the path (all paths, when the mutation
names none) sets its count back. The slot is `Agent.rules["same_path"]`: `{path: reads}`, at
most `MAX_PATHS` entries (a path longer than `4 * MAX_ID_CHARS` is kept as its digest).
"""

from typing import Any, cast

from ..core import messages as msg
from ..core.ledger import MAX_ID_CHARS, Agent, Limits, drop_slot, slot, slots, trim
from ..core.outcome import Failure
from ..core.signature import call_key
from ..core.tools import is_read_tool, matches, mutated_paths, path_of
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "same_path"
MAX_PATHS = 64


def same_path(ctx: CallContext) -> Decision | None:
    """Count a read of its path; deny one read more than `max_same_path` times since the path's
    last mutation."""
    cap = ctx.config.max_same_path
    if not (cap and ctx.counted and is_read_tool(ctx.tool, ctx.config)):
        return None
    path, count = _count(ctx.agent, ctx.tool_input, ctx)
    if path is None or count <= cap:
        return None
    return Decision(
        Action.DENY,
        Rule.SAME_PATH,
        msg.same_path_denial(ctx.tool, path, count, cap),
        advice=msg.same_path_reminder(ctx.tool, path, count, cap),
    )


def _count(agent: Agent, tool_input: Any, ctx: CallContext) -> tuple[str | None, int]:
    path = path_of(tool_input, ctx.config)
    if path is None:
        return None, 0
    if len(path) > 4 * MAX_ID_CHARS:
        path = "#" + call_key("", path, frozenset(), 0).digest
    paths = cast("dict[str, int]", slots(agent).setdefault(NAME, {}))
    paths[path] = count = paths.get(path, 0) + 1
    trim(paths, min(ctx.share.table(MAX_PATHS), MAX_PATHS), lambda k: 0)
    return path, count


def forget_reads(ctx: ResultContext) -> None:
    """A successful mutation: the paths it touched (all of them when unknown) may be read again."""
    paths = cast("dict[str, int] | None", slot(ctx.agent, NAME))
    if not paths or not (matches(ctx.tool, ctx.config.mutating_tools) and ctx.outcome.failure == Failure.NONE):
        return None
    touched = mutated_paths(ctx.tool, ctx.tool_input, ctx.config)
    if touched is None:
        paths.clear()
    else:
        for path in touched:
            paths.pop(path, None)
    return None


def fit(agent: Agent, share: Limits) -> None:
    paths = cast("dict[str, int] | None", slot(agent, NAME))
    if paths:
        trim(paths, share.table(MAX_PATHS), lambda k: 0)


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction: every path may be read again."""
    drop_slot(agent, NAME)
