"""Same path: one file read too often since it last changed (`max_same_path`, breaker profile).

Reads (`read_tools`, the path from `path_keys`) are counted per path whatever the other
arguments (offsets, limits); a successful mutation of the path (all paths, when the mutation
names none) sets its count back. The slot is `Agent.rules["same_path"]`: `{path: reads}`, at
most `MAX_PATHS` entries (a path longer than `4 * MAX_ID_CHARS` is kept as its digest).
"""

from typing import Any, cast

from ..core.ledger import MAX_ID_CHARS, Agent, Limits, drop_slot, slot, slots, trim
from ..core.messages import PREFIX
from ..core.outcome import Failure
from ..core.signature import call_key
from ..core.tools import is_read_tool, matches, mutated_paths, path_of
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "same_path"
MAX_PATHS = 64


def on_call(ctx: CallContext) -> Decision | None:
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
        same_path_denial(ctx.tool, path, count, cap),
        advice=same_path_reminder(ctx.tool, path, count, cap),
        times=count,  # the reads of the path the text names, not the attempts of this one call
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


def on_result(ctx: ResultContext) -> None:
    """A successful mutation: the paths it touched (all of them when unknown) may be read again."""
    paths = cast("dict[str, int] | None", slot(ctx.agent, NAME))
    if not paths or not (matches(ctx.tool, ctx.config.mutating_tools) and ctx.outcome.failure == Failure.NONE):
        return None
    if ctx.unchanged:  # the workspace shows the file as it was: the reads before still count
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


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def same_path_denial(tool: str, path: str, count: int, limit: int) -> str:
    """The breaker's read cap: one path read too often since it last changed."""
    return (
        f"REPEAT_TOOL_BLOCKED: {path} has been read {count} times by {tool} since it last "
        f"changed (limit {limit}; loop guard policy, not a tool failure). What those reads returned "
        "is already in your context: use it (a search finds the lines you still need), or edit the "
        "file before reading it again"
    )


def same_path_reminder(tool: str, path: str, count: int, limit: int) -> str:
    """The same-path cap as a reminder (the read went ahead)."""
    return (
        f"[{PREFIX}] {path} has now been read {count} times by {tool} since it last changed "
        f"(limit {limit}). What those reads returned is already in your context: use it (a search "
        "finds the lines you still need), or edit the file before reading it again."
    )


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("same_path_denial", "REPEAT_TOOL_BLOCKED: ", " since it last changed (limit "),
    ("same_path_reminder", f"[{PREFIX}] ", " since it last changed (limit "),
)
