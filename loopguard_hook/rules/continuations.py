"""Idle continuations: a turn a Stop hook keeps sending on while the agent only restates itself
(`max_idle_continuations`).

A Stop hook that blocks sends the model on with its reason; the next Stop says so
(`stop_hook_active`; research/claude-code-e2e.md, Codex alike). A model that then ends again
with no tool call and a final message that says nothing new has only restated its answer,
usually in other words, so the text detectors, which look for copies, do not see it: a Stop
hook that fails to spawn kept one Claude Code turn going for about 60 messages restating one fix
(corpus claude/08e71d8b). A final message says something new when at least `NEW_SHARE` of its
words are new to the chain (a chapter after a chapter, a test count that moves); restating ones
fall to almost none. After `max_idle_continuations` restating continuations in a row the turn is
ended (the guard never blocks a Stop; it ends the turn, as for a final message repeated under
continuations). A tool call, a user prompt, a Stop that no hook forced, or a message with new
words starts the count again.

Its ledger is `TextState.idle`: `[count, words]`, the words of the chain as 4-hex digests, at most
`MAX_WORDS` of them.
"""

import re

from ..core.event import STOP_EVENTS
from ..core.messages import PREFIX
from ..core.redact import redact_prefix
from ..core.signature import digest
from ..core.verdict import Action, Decision, Rule
from . import text_loops
from .base import TextContext

#: A final message with at least this share of words new to the chain says something new.
NEW_SHARE = 0.25
#: Words of a chain remembered (4 hex characters each).
MAX_WORDS = 160
_WORD = r"[\w.-]{3,}"  # any script: Chinese or Russian chapters are words too


def on_text(ctx: TextContext) -> Decision | None:
    """Count the restating Stop-hook continuations in a row; end the turn at the limit."""
    limit = ctx.config.max_idle_continuations
    name = ctx.event.event
    if not limit or name not in STOP_EVENTS | {"PreToolUse", "UserPromptSubmit"}:
        return None
    ts = text_loops.text_state(ctx.state, ctx.event.agent_id)
    if name not in STOP_EVENTS:
        ts.pop("idle", None)  # a tool call or a prompt: the agent is doing something
        return None
    final = ctx.event.last_assistant_message or ""
    found = (w.strip(".-").lower() for w in re.findall(_WORD, final[:20000]))
    words = {digest(w.encode("utf-8", "surrogatepass"))[:4] for w in found if len(w) >= 3}
    idle = ts.get("idle")
    if not ctx.event.stop_hook_active or not isinstance(idle, list) or len(idle) != 2:
        ts["idle"] = [0, "".join(sorted(words))[: 4 * MAX_WORDS]]
        return None
    count, known = int(idle[0]), str(idle[1])
    seen = {known[i : i + 4] for i in range(0, len(known), 4)}
    new = words - seen
    count = 0 if len(new) >= NEW_SHARE * max(1, len(words)) else count + 1
    ts["idle"] = [count, (known + "".join(sorted(new)))[-4 * MAX_WORDS :]]
    if count < limit:
        return None
    ts.pop("idle", None)
    text = idle_continuation_stop(count)
    summary = redact_prefix(final, 120)
    return Decision(Action.STOP, Rule.TEXT, text, stop_reason=text, system_message=text, times=count, summary=summary)


# -- the texts the model reads (`messages.variant_of` names them) --------------------


def idle_continuation_stop(count: int) -> str:
    """Stop reason when a Stop hook keeps sending the agent on and it makes no tool call (`rules/continuations.py`)."""
    return (
        f"{PREFIX} ended the turn: a Stop hook sent the agent on {count} times in a row and it made no tool "
        "call, only restating its answer in other words. Check the Stop hook, then send a new message to continue."
    )


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("idle_continuation_stop", f"{PREFIX} ended the turn: a Stop hook sent the agent on ", ""),
)
