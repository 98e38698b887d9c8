"""What the texts the model reads share. Each rule writes its own texts (`rules/`), each a policy
result plus a next step, never an error.

Both clients show a denial to the model as a hook "error" (Claude Code renders
`PreToolUse:<Tool> hook error: <reason>`, Codex `Command blocked by PreToolUse hook: <reason>.
Command: <cmd>`; research notes for 2.1.332 and 0.171.0), which invites blind retries, so every
text says that nothing is broken and what to do instead.
"""

from __future__ import annotations

import re

from .outcome import preview

#: Both clients move text beyond ~10,000 characters to a file; the guard cuts earlier.
MAX_TEXT = 9000

PREFIX = "loopguard"


def quote(text: str, limit: int) -> str:
    """`text` stripped and cut to `limit` characters, or \"(empty result)\"."""
    text = preview(text.strip(), limit)
    return text if text else "(empty result)"


#: Where the user finds out why the guard acted, at the end of the texts the user sees. It names
#: `log` and not `pause`: a stop reason also reaches the model on the next turn (Claude Code
#: 2.1.332 replays it as a system reminder), and the model must not be handed the off switch.
WHY_HINT = "`loopguard-hook log` shows why."


def stop_reason(tool: str, count: int, *, rejected: bool = False, in_a_row: bool = False) -> str:
    """Claude Code `stopReason`: shown to the user, and to the model on the next turn. `rejected`:
    the calls were the host's validation rejections, which never ran. `count` counts calls in a
    row (`in_a_row`: the seeds' counting, whatever they returned) or since the last new result
    (a flaky test's results may differ each time, each one seen before: nothing new, not nothing
    changed)."""
    if rejected:
        return (
            f"{PREFIX} ended the turn: {tool} was sent in {count} replies with the same input, and the host rejected "
            f"it before it ran. Send a new message to continue. {WHY_HINT}"
        )
    return (
        f"{PREFIX} ended the turn: {tool} was called {count} times "
        f"{'in a row with identical arguments' if in_a_row else 'with identical arguments and no new result'}. "
        f"Send a new message to continue. {WHY_HINT}"
    )


#: What begins every denial the guard writes (`REPEAT_TOOL_BLOCKED: …`; the seed profiles' codes,
#: `LOOP_GUARD_STOP: …`, `LOOP_GUARD_PROGRESS_LIMIT: …`).
DENIAL_CODES = r"REPEAT_TOOL_BLOCKED|LOOP_GUARD_[A-Z_]+:"


def is_guard_denial(text: str) -> bool:
    """Whether a host's text of a hook's denial quotes one of the guard's own (within its first
    1,000 characters: the host's prefix and the hook's command come first)."""
    return re.search(DENIAL_CODES, text[:1000]) is not None


def variant_of(text: str, variants: tuple[tuple[str, str, str], ...]) -> str:
    """The name of the template `text` was made from (`gentle_reminder`, `repeat_denial`, …), or
    "other", by the first of `variants` (name, start, marker) whose start the text begins with
    and whose marker it holds (`rules.VARIANTS`). Only the text's start and a marker phrase are
    looked at: cheap on any length."""
    for name, start, marker in variants:
        if text.startswith(start) and (not marker or marker in text):
            return name
    return "other"


def ended_turn(base: str, tell: str, *, ends_turn: bool, pauses: bool) -> str:
    """An end of turn's text: `base`, then what the host does (ends the turn, pauses tools, or
    neither: the denial is final), then what to `tell` the user."""
    if ends_turn:
        return base + f". The loop guard is ending this turn: {tell}"
    if pauses:
        return base + f". Tool calls are now paused for the rest of this turn: {tell}"
    return base + f". This is final: stop calling tools and {tell}"


def fit(text: str) -> str:
    """Cut `text` to `MAX_TEXT` characters (both clients spill longer text to a file)."""
    return preview(text, MAX_TEXT)
