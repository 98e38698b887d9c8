"""Same result: where the client sends no arguments for a tool (DSH's Codex bridge: every tool
but `bash` arrives as `{"command": ""}`), identical payloads do not mean identical calls, so such
"argument-blind" calls are judged by what is known: the tool and its results.

The tool's signature counts its attempts since the last new evidence, as for any call; a result
the tool already returned is no new evidence. So:

- after a call ran (`on_result`): a repeated result at a `remind_at` threshold is reminded;
- before a call runs (`on_call`): once the tool's last result was a repeat (the slot
  `Agent.rules["same_result"]` keeps, per signature, whether its last result was no evidence), the
  thresholds `deny_at` and `stop_at` deny it (a read of another file never is: its first result
  is new, and a new result is never followed by a denial). The text says that the results
  repeat, never that the call is identical, and quotes the tool's last result as that.

A result that says only that nothing was found (`_NOTHING`: `No files found`, no output, or
nothing but punctuation, an empty `[]`) is
never followed by a denial, only by the reminders: greps for six unused helpers each answer
"No files found" (ordinary work, and a hostile test of stop 51), and with no arguments such
answers cannot be told from one search asked again. Nor is a success that only acknowledges
the call in one short line (`_acknowledgement`: `Query OK, 1 row affected`, `Clicked`): other
inserts or clicks answer the same words.
"""

import re
from typing import cast

from ..core import messages as msg
from ..core.ledger import Agent, Limits, drop_slot, slot, slots
from ..core.messages import PREFIX
from ..core.outcome import preview
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext

NAME = "same_result"
#: A result that says only that nothing was found (DSH's grep and glob: `No files found`), or
#: nothing at all but punctuation (`[]`, `{}`).
_NOTHING = r"(?i)\A\W*(?:no (?:files|matches|results|entries)(?: were)? found|\(?no (?:output|content)\)?)?\W*\Z"


def _repeated(agent: Agent) -> dict[str, bool]:
    """Per signature of an argument-blind call: whether its last result was no evidence."""
    return cast("dict[str, bool]", slot(agent, NAME) or {})


def on_result(ctx: ResultContext) -> Decision | None:
    """Note whether the result repeated; remind at the `remind_at` thresholds, counted by results."""
    if ctx.caps.has_arguments(ctx.tool):
        return None
    repeated = cast("dict[str, bool]", slots(ctx.agent).setdefault(NAME, {}))
    repeated[ctx.call["sig"]] = not (ctx.new or ctx.productive)
    for stale in [k for k in repeated if k not in ctx.agent["sigs"]]:
        del repeated[stale]
    if ctx.new:
        return None
    n = ctx.sig["n"]
    if n in ctx.config.effective_remind_at():
        return Decision(Action.REMIND, Rule.SAME_RESULT, reminder_text(ctx.tool, n), times=n, tool=ctx.tool)
    return None


def on_call(ctx: CallContext) -> Decision | None:
    """Deny, or end the turn, at `deny_at` / `stop_at` once the tool's last result repeated."""
    sig = ctx.sig
    # A signature attempted once since it was made (again) has no last result of its own yet.
    if not ctx.blind or sig is None or sig["total"] < 2 or not _repeated(ctx.agent).get(ctx.call["sig"]):
        return None
    cfg, n, tool = ctx.config, ctx.attempt, ctx.tool
    last = sig.get("preview")
    if isinstance(last, str) and re.match(_NOTHING, last[:200]):
        return None  # nothing found, again: other searches, as far as anyone can tell
    if cfg.slow_repeat_seconds and isinstance(last, str) and not sig.get("failed") and _acknowledgement(last):
        # `Query OK, 1 row affected`, `Clicked`: other work may answer so, each time. Balanced's
        # judgement (`slow_repeat_seconds`, off in the seed profiles, which keep their seeds' decisions).
        return None
    limit = min(cfg.result_preview_chars, 4000)
    advice = reminder_text(tool, n)
    if cfg.stop_at and n >= cfg.stop_at:
        text = denial_text(tool, n, last, limit, final=True, pauses_tools=ctx.pauses_tools)
        return Decision(Action.STOP, Rule.END_TURN, text, stop_reason=msg.stop_reason(tool, n), advice=advice)
    if cfg.deny_at and n >= cfg.deny_at:
        return Decision(Action.DENY, Rule.SAME_RESULT, denial_text(tool, n, last, limit), advice=advice)
    return None


#: The longest success that only acknowledges a call (`Query OK, 1 row affected`, `Clicked`,
#: `Saved.`), in characters, on one line.
ACK_CHARS = 80
#: Words of a success that says an action was done (not what state something is in).
_DONE = (
    r"(?i)\b(?:ok|okay|done|success(?:ful(?:ly)?)?|affected|clicked|typed|pressed|saved|created|updated|deleted"
    r"|removed|inserted|added|written|wrote|sent|applied|moved|copied|navigated|selected|scrolled|uploaded|committed)\b"
)
#: Words of a state still waited for: a status tool answering so is a poll, and a poll repeated is a loop.
_WAITING = r"(?i)\b(?:pending|running|queued|waiting|in[ _-]?progress|starting|not (?:yet|ready|done|found))\b"


def _acknowledgement(result: str) -> bool:
    """Whether a success says only that an action was done, in one short line (`_DONE`, and not
    `_WAITING`): five different inserts, or clicks, answer the same words, and with no arguments
    they cannot be told from one call sent five times (a hostile test: five INSERTs through an MCP
    tool on DSH's Codex bridge, the 5th denied). A result that shows content (several lines, a
    longer one), a state (`pending`, `running`: a status polled forever, which a review found
    left undenied by a first version that took every short line) or a bare value (`0`, `false`)
    is judged as before."""
    text = result.strip()
    if len(text) > ACK_CHARS or "\n" in text:
        return False
    return re.search(_DONE, text) is not None and re.search(_WAITING, text) is None


def fit(agent: Agent, share: Limits) -> None:
    """Keep the entries of the signatures the agent still holds."""
    repeated = _repeated(agent)
    if repeated:
        for stale in [k for k in repeated if k not in agent["sigs"]]:
            del repeated[stale]


def reset(agent: Agent, why: str) -> None:
    """A prompt forgets every signature; a compaction keeps them, and their last results."""
    if why == "prompt":
        drop_slot(agent, NAME)


# -- the texts (`messages.variant_of` knows them) --------------------------------------------


def reminder_text(tool: str, count: int) -> str:
    """A call whose arguments the client does not send, returning a result its tool already
    returned: judged by tool and result only, so it never claims the arguments were the same."""
    return (
        f"[{PREFIX}] {tool} has been called {count} times since anything new came back: its results "
        "repeat what it already returned. Use what the earlier calls returned, change the approach "
        "(a different tool or different input), or answer the user with what you know."
    )


def denial_text(
    tool: str, count: int, last: str | None, limit: int, *, final: bool = False, pauses_tools: bool = False
) -> str:
    """A call of a tool whose arguments the client does not send, after the tool's results kept
    repeating: judged by its results, so the text never says the call is identical, and quotes
    the tool's last result as that (at most `limit` characters)."""
    shown = (preview(last.strip(), limit) or "(empty result)") if last is not None else None
    quoted = f' The last {tool} result was: """{shown}"""' if shown is not None else ""
    text = (
        f"REPEAT_TOOL_BLOCKED: {tool} has returned nothing new for {count - 1} calls in a row (each result "
        f"repeated an earlier one), so this {tool} call was not run (attempt {count} with no new result in "
        f"between; loop guard policy, not a tool failure).{quoted} "
        f"Do not call {tool} again for the same thing: use what it returned, change the approach, or answer "
        "the user with what is known"
    )
    if final and pauses_tools:
        return (
            text + ". Tool calls are now paused for the rest of this turn: answer the user now in plain text with "
            "what you have; the next user message enables tools again"
        )
    if final:
        return text + ". This is final: stop calling tools for this request and answer the user now with what you have"
    return text


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("same_result_denial", "REPEAT_TOOL_BLOCKED: ", " has returned nothing new for "),
    ("same_result_reminder", f"[{PREFIX}] ", " times since anything new came back: "),
)
