"""Text loops (contract section 9): an agent repeating itself in words, not only in tool calls.

Detectors (the progress-aware loop guard's assistant-output checks, plus the cross-turn forms
from public reports):

- a normalised line repeated `max_repeated_lines` times in a row, across message, step and turn
  boundaries. Lines inside code fences, table rows, list items, separators and short lines never
  count: peers that compared prefixes tripped on tables and lists;
- an identical multi-line block (one assistant message of two or more lines, fingerprint capped
  at `max_block_chars`) seen `max_repeated_blocks` times among the recent blocks;
- the same final message on `same_final_message_at` consecutive Stops of a hook-forced
  continuation (`stop_hook_active`): a Stop-hook ping-pong (anthropics/claude-plugins-official
  #5312, openai/codex#37937);
- the same reply to two different prompts in a row (80 characters or more), or a short reply to
  three.

What each event does with their verdicts:

- UserPromptSubmit: deliver a reminder held since the last Stop, or one found in new text;
- PreToolUse: deliver a held reminder; a loop found in new text is reminded once per turn, then
  the turn is ended (a denial where the host cannot end a turn from PreToolUse);
- Stop / SubagentStop: never blocks; holds the reminder for the next prompt or call (a
  subagent's goes to the main thread), tells the user, and ends a turn that keeps looping
  through Stop-hook continuations.

The text it judges is what the host layer read from the transcript since the last event
(`take`: `(key, text)` pairs, streamed copies of one message sharing a key). Its table is
`Session.text`: a `TextState` per agent, at most `MAX_TEXT_AGENTS` (the least recently used goes
first, never "main"); each holds the transcript reader's cursor too (`Tail`, read by `cursor`
and advanced through `take`), and the idle-continuation rule's count (`continuations.py`).
"""

import re
from collections.abc import Sequence
from typing import NamedTuple

from ..config.settings import Config
from ..core.event import MAIN_AGENT, STOP_EVENTS, HookEvent
from ..core.host import Capabilities
from ..core.ledger import Session, Tail, TextState
from ..core.messages import PREFIX
from ..core.redact import redact_prefix
from ..core.signature import digest
from ..core.verdict import Action, Decision, Rule, merge
from .base import TextContext

MIN_LINE_CHARS = 12
MIN_REPLY_CHARS = 80
SHORT_REPLY_REPEATS = 3
RECENT_BLOCKS = 32
SEEN_IDS = 64
MAX_TEXT_AGENTS = 8  # like the tool-call ledger: the least recently active agent goes first

# Compiled on first use by `re`'s own cache: most events feed no text.
_SPACE = r"\s+"
_LIST_ITEM = r"^(?:[-*+•]|\d+[.)]|\[[ xX]\])\s"


class TextVerdict(NamedTuple):
    """What the text detectors found in one batch of assistant text."""

    kind: str  # "line" | "block"
    repeats: int
    excerpt: str


def new_text_state() -> TextState:
    """An empty text ledger for one agent."""
    return {
        "line": None,
        "line_count": 0,
        "fence": False,
        "blocks": [],
        "stop_hash": None,
        "stop_count": 0,
        "reply_hash": None,
        "reply_prompt": None,
        "prompt": None,
        "pending": None,
        "reminded": False,
        "seen": [],
    }


def text_state(state: Session, agent_id: str) -> TextState:
    """The text ledger of `agent_id`, created on first use. At most `MAX_TEXT_AGENTS` are kept
    (a session may start thousands of subagents): the least recently used one is dropped,
    never "main"."""
    texts = state.setdefault("text", {})
    entry: TextState | None = texts.pop(agent_id, None)
    if not isinstance(entry, dict) or "line_count" not in entry:
        entry = new_text_state()
    texts[agent_id] = entry  # last in the dict: the most recently used
    while len(texts) > MAX_TEXT_AGENTS:
        oldest = next(k for k in texts if k != "main")
        del texts[oldest]
    return entry


def _normal(line: str) -> str:
    return re.sub(_SPACE, " ", line.strip()).lower()


def _counts(line: str) -> bool:
    if len(line) < MIN_LINE_CHARS or line.startswith(("|", "#", ">")) or re.match(_LIST_ITEM, line):
        return False
    return any(ch.isalpha() for ch in line)


def _fence(stripped: str) -> str | None:
    """The fence marker a line opens or closes (three or more backticks or tildes), if any."""
    if not stripped.startswith(("```", "~~~")):
        return None
    char = stripped[0]
    return stripped[: len(stripped) - len(stripped.lstrip(char))]


def feed(ts: TextState, text: str, *, max_lines: int, max_blocks: int, max_block_chars: int) -> TextVerdict | None:
    """Feed one assistant message's text; return the first loop found, if any.

    Code never counts as repeated lines: fenced blocks (a fence closes only with the same
    character, at least as long, and nothing after it: CommonMark) and indented code (four
    spaces or a tab).
    """
    found: TextVerdict | None = None
    found_key = ""
    kept: list[str] = []
    first: str | None = None
    for raw in text.splitlines():
        stripped = raw.strip()
        marker = _fence(stripped)
        fence = ts["fence"]
        if marker is not None:
            if not fence:
                ts["fence"] = marker
                continue
            if isinstance(fence, str) and marker[0] == fence[0] and len(marker) >= len(fence) and stripped == marker:
                ts["fence"] = False
                continue
        if not stripped:
            continue
        norm = _normal(stripped)
        kept.append(norm)
        if first is None:
            first = stripped  # the excerpt: as written, since redaction patterns are case-sensitive
        if fence or raw.startswith(("    ", "\t")) or not _counts(norm):
            continue
        key = digest(norm.encode("utf-8", "surrogatepass"))
        if key == ts["line"]:
            ts["line_count"] += 1
        else:
            ts["line"], ts["line_count"] = key, 1
        if max_lines and ts["line_count"] >= max_lines:
            if found is None:
                found, found_key = TextVerdict("line", ts["line_count"], redact_prefix(stripped, 200)), key
            elif found_key == key and ts["line_count"] > found.repeats:
                # The run found goes on: the texts say how long it is, not the threshold.
                found = found._replace(repeats=ts["line_count"])
    ts["fence"] = False  # a message never leaves a fence open for the next one
    if found is None:
        found = _repeated_run(text, max_lines=max_lines, max_blocks=max_blocks)
    if max_blocks and len(kept) >= 2:
        block = "\n".join(kept)[:max_block_chars]
        fp = digest(block.encode("utf-8", "surrogatepass"))
        blocks: list[str] = ts["blocks"]
        blocks.append(fp)
        del blocks[:-RECENT_BLOCKS]
        count = blocks.count(fp)
        if count >= max_blocks and found is None:
            found = TextVerdict("block", count, redact_prefix(first or "", 200))
    return found


#: Sentences per repeated group the run detector looks for (a short message repeated whole).
MAX_GROUP_SENTENCES = 8
#: Sentences judged per message: the detector costs O(sentences x MAX_GROUP_SENTENCES).
MAX_SENTENCES = 4096
_SENTENCE_END = r"(?<=[.!?])\s+"


#: What follows a fence marker as a language name (CommonMark's info string), not prose.
_INFO_STRING = r"[\w+#.-]+"


def _prose_sentences(text: str) -> list[str]:
    """The normalised sentences of a message's prose. Fences are followed as in `feed`, and also
    where a chat renderer (and Gemini CLI's detector) sees them: text right after a closing
    fence is prose, and a fence opened after text on a line hides what follows it. A marker with
    a language name after it (`mermaid`) inside a fence closes nothing (a diagram drafted inside
    a ```markdown block, public Claude Code 2.1.x transcript): a closing fence has no info string."""
    sentences: list[str] = []
    fence: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        marker = _fence(line)
        if fence is not None:
            if marker is None or marker[0] != fence[0] or len(marker) < len(fence):
                continue
            if re.fullmatch(_INFO_STRING, line[len(marker) :]):
                continue  # "```mermaid" in a ```markdown draft: a fence inside the fence, no prose
            fence, line = None, line[len(marker) :].strip()
        elif marker is not None:
            fence = marker
            continue
        elif "```" in line:
            line, _, rest = line.partition("```")
            fence = "```" + rest[: len(rest) - len(rest.lstrip("`"))]
        if not line or raw.startswith(("    ", "\t")):
            continue
        norm = _normal(line)
        if norm.startswith(("|", "#", ">")) or re.match(_LIST_ITEM, norm):
            sentences.append(f"\0{len(sentences)}")  # structure: breaks a run, never repeats
            continue
        sentences.extend(part for part in re.split(_SENTENCE_END, norm) if part)
    return sentences


def _repeated_run(text: str, *, max_lines: int, max_blocks: int) -> TextVerdict | None:
    """A group of 1 to `MAX_GROUP_SENTENCES` sentences repeated back to back inside one message,
    whatever the line breaks: one sentence repeated on a single line (`max_lines` + 1 copies:
    prose repeats a short phrase more readily than whole lines), a short message repeated with no
    blank line between copies (`max_blocks` copies). Code (between ``` marks, wherever they
    stand, or indented) is left out; a list item, table row, heading or quote breaks a run and
    never repeats. The group must hold `MIN_LINE_CHARS` characters with letters; a
    report whose every other line is the same (`File: a` / `Status: ok`) is no run, as the lines
    between differ."""
    sentences = _prose_sentences(text)[:MAX_SENTENCES]
    ids: dict[str, int] = {}
    seq = [ids.setdefault(part, len(ids)) for part in sentences]
    if len(ids) == len(seq):
        return None  # no sentence repeats: the common case
    for size in range(1, min(MAX_GROUP_SENTENCES, len(seq) // 2) + 1):
        needed = max_lines + 1 if size == 1 and max_lines else max_blocks if size > 1 else 0
        if not needed:
            continue
        run = 0
        for j in range(size, len(seq)):
            run = run + 1 if seq[j] == seq[j - size] else 0
            if (run + size) // size < needed:
                continue
            window = seq[j - size + 1 : j + 1]
            group = " ".join(sentences[j - size + 1 : j + 1])
            if (size == 1 or len(set(window)) > 1) and len(group) >= MIN_LINE_CHARS and any(c.isalpha() for c in group):
                return TextVerdict("line" if size == 1 else "block", (run + size) // size, redact_prefix(group, 200))
    return None


def remember_prompt(ts: TextState, prompt: str | None, *, reset_lines: bool = False) -> None:
    """A new user prompt: keep its hash for the same-reply rule, and open a new turn (repeated
    blocks are judged within a turn; across turns the same-reply rule applies). With
    `reset_lines` (`prompt_resets_text`) the repeated-line run starts afresh too."""
    if reset_lines:
        ts["line"], ts["line_count"] = None, 0
    ts["prompt"] = digest(_normal(prompt or "").encode("utf-8", "surrogatepass"))
    ts["reminded"] = False
    ts["stop_hash"], ts["stop_count"] = None, 0
    ts["blocks"] = []
    ts.pop("said", None)
    ts.pop("changed", None)


def new_evidence(state: Session, agent_id: str, fingerprint: str, *, changed: bool = False) -> None:
    """A tool call produced a new result (`fingerprint`, its outcome's), or `changed` something
    (an edit, a write that applied): saying the same sentence before each step of real progress
    ("Let me check the CI status again.") is not a text loop, nor is the same final message
    after it, nor the same short sign-off ("Done.") to prompts whose turns each found something
    new (the result joins the turn's digest, `said`, that a short reply is compared by), nor a
    long one after a turn that changed something (`changed`)."""
    ts = state.get("text", {}).get(agent_id)
    if isinstance(ts, dict) and "line_count" in ts:
        ts["line"], ts["line_count"], ts["blocks"], ts["reminded"] = None, 0, [], False
        # The same final message again after a call with a new result is no Stop-hook
        # ping-pong yet: its copies count from here.
        ts["stop_count"] = 0
        said(ts, "\x1e" + fingerprint)
        if changed:
            ts["changed"] = True


def _fold(prior: str, text: str) -> str:
    """The digest of a turn's text so far, `prior`, with `text` after it."""
    return digest(f"{prior}\n{text}".encode("utf-8", "surrogatepass"))


def said(ts: TextState, text: str) -> None:
    """Fold one assistant text of the turn, as written, into the turn's digest (`final_message`).
    It runs for every text on every event that reads the transcript: no normalising pass."""
    ts["said"] = _fold(ts.get("said", ""), text)


def final_message(ts: TextState, message: str | None, *, stop_hook_active: bool) -> tuple[int, bool]:
    """Record a Stop's `last_assistant_message`.

    Returns `(consecutive identical final messages in this continuation chain, same reply to a
    different prompt)`. A long reply is compared by itself (a claimed fix given again, whatever
    was said or checked on the way: a health check's changing uptime is no answer), unless its
    turn changed something (`changed`: an edit or a write applied; the same long templated
    sign-off after each turn's edit is no loop); a short one by the turn's whole text (`said`,
    where the host's transcript gives it) and the new results its calls found (`new_evidence`):
    "Next report in 10 minutes." after a report that changed each turn is a sign-off, not the
    same reply (a public Claude Code 2.1 session monitoring a backtest, eight reminders), nor is
    "Done." after an edit or a check that found something new, while "Done." alone, or after the
    same words, to three prompts is.
    """
    if not message or not message.strip():
        return 0, False
    norm = _normal(message)
    fp = digest(norm.encode("utf-8", "surrogatepass"))
    long = len(norm) >= MIN_REPLY_CHARS
    reply = fp if long else _fold(ts.get("said", ""), norm)
    if stop_hook_active and fp == ts["stop_hash"]:
        ts["stop_count"] += 1
    else:
        ts["stop_count"] = 1
    ts["stop_hash"] = fp
    same_reply = False
    if not stop_hook_active:
        moved = long and ts.get("changed", False)  # a templated sign-off after the turn's edit
        if reply == ts["reply_hash"] and ts["prompt"] is not None and ts["prompt"] != ts["reply_prompt"] and not moved:
            ts["reply_count"] = ts.get("reply_count", 1) + 1
        else:
            ts["reply_count"] = 1
        # A long reply repeated once is already a loop; a short one ("Done.", "I cannot do
        # that.") only when it answers three different prompts in a row.
        needed = 2 if long else SHORT_REPLY_REPEATS
        same_reply = ts["reply_count"] >= needed
        ts["reply_hash"], ts["reply_prompt"] = reply, ts["prompt"]
    return ts["stop_count"], same_reply


def seen_before(ts: TextState, key: str) -> bool:
    """De-duplicate streamed copies of one message (same id or same text) in a transcript."""
    seen: list[str] = ts["seen"]
    if key in seen:
        return True
    seen.append(key)
    del seen[:-SEEN_IDS]
    return False


def reads_transcript(
    event_name: str, agent_id: str, subagent_transcripts: bool, max_lines: int, max_blocks: int
) -> bool:
    """Whether this event looks at new transcript text (text loops are on, and the transcript is
    this agent's: where subagents write their own transcripts (Claude Code), a subagent's text
    is not in `transcript_path`)."""
    if event_name not in ("PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop") or not (max_lines or max_blocks):
        return False
    return not (event_name == "PreToolUse" and agent_id != "main" and subagent_transcripts)


def judged_key(text_digest: str) -> str:
    """The dedup key of a text judged from a Stop's `last_assistant_message`, by its `digest`."""
    return "=" + text_digest


def unseen(state: Session, agent_id: str, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """The texts of `(dedup key, text)` pairs this agent has not seen yet (streamed copies of one
    message are written more than once, and a final message judged at Stop may reach the
    transcript only after it)."""
    ts = text_state(state, agent_id)
    out = []
    for key, text in pairs:
        # A transcript key ends in the text's digest (`transcript.assistant_texts`).
        if seen_before(ts, key) or judged_key(key.rpartition(":")[2]) in ts["seen"]:
            continue
        out.append(text)
    return out


# -- texts the model and the user read --------------------------------------------------------


def reminder(verdict: TextVerdict) -> str:
    """For the model: policy plus a next step."""
    what = (
        f"the same line {verdict.repeats} times in a row"
        if verdict.kind == "line"
        else f"the same block of text {verdict.repeats} times"
    )
    return (
        f'[loopguard] Your recent output repeats {what} ("{verdict.excerpt}"). You appear to be '
        "stuck in a text loop. Stop repeating it: state in one or two sentences what is blocking "
        "you, then either take a different concrete step or answer the user."
    )


def subagent_reminder(verdict: TextVerdict) -> str:
    """For the main thread, after a subagent it started ended in a text loop."""
    what = "the same line" if verdict.kind == "line" else "the same block of text"
    return (
        f'[loopguard] A subagent you started ended while repeating {what} {verdict.repeats} times '
        f'("{verdict.excerpt}"): it was stuck. Check its result before relying on it, and do not '
        "start it again with the same task; change the task or do the step yourself."
    )


def same_reply_reminder() -> str:
    """For the model, at the next prompt, after the same reply to different prompts."""
    return (
        "[loopguard] Your last replies were identical, though the user's messages differed and "
        "nothing new came between them. Read the newest user message and answer it specifically; "
        "if the answer is still the same, say so in a sentence instead of repeating the previous reply."
    )


def text_loop_stop(verdict: TextVerdict) -> str:
    """Stop reason when the agent keeps repeating text after a reminder in the same turn, or
    through a Stop-hook continuation that no reminder can reach."""
    return (
        f"loopguard ended the turn: the agent kept repeating the same {verdict.kind} of text "
        f"({verdict.repeats}x). Send a new message to continue."
    )


def final_message_stop(count: int) -> str:
    """Stop reason when the same completion message repeats under hook-forced continuations."""
    return (
        f"loopguard ended the turn: the same final message was produced {count} times in a row "
        "while a Stop hook kept the turn going (a Stop-hook loop). Send a new message to continue."
    )


def user_notice(verdict: TextVerdict | None, *, same_reply: bool = False) -> str:
    """For the user (`systemMessage`, never shown to the model by either client)."""
    if same_reply:
        return "loopguard: the agent gave the same reply to different prompts; it will be reminded."
    assert verdict is not None
    return f"loopguard: the agent is repeating {verdict.kind}s of text ({verdict.repeats}x); it will be reminded."


# -- the text read since the last event -------------------------------------------------------


def reads(event: HookEvent, config: Config, caps: Capabilities) -> bool:
    """Whether the host layer reads assistant text for this event: from a JSONL transcript on
    the events that look at it (`reads_transcript`), from a session log (DSH) on Stop alone,
    when the text rules are on."""
    if caps.session_log:
        return event.event in STOP_EVENTS and bool(
            config.max_repeated_lines or config.max_repeated_blocks or config.same_final_message_at
        )
    return caps.transcript_text and reads_transcript(
        event.event, event.agent_id, caps.subagent_transcripts, config.max_repeated_lines, config.max_repeated_blocks
    )


def cursor(state: Session, agent_id: str) -> Tail:
    """A copy of where the host layer stopped reading this agent's transcript (empty at first)."""
    entry = state.get("text", {}).get(agent_id)
    return dict(entry.get("tail", {})) if isinstance(entry, dict) else {}  # type: ignore[return-value]


def take(
    state: Session,
    event: HookEvent,
    config: Config,
    caps: Capabilities,
    pairs: Sequence[tuple[str, str]],
    final: tuple[str, str] | None = None,
    tail: Tail | None = None,
) -> tuple[list[str], str | None]:
    """The texts of `pairs` this agent has not seen yet, and the final message to judge in place
    of a Stop's missing `last_assistant_message` (a session log's, when it is new); `tail` is the
    reader's cursor after it read them. On an event no text is read for, nothing."""
    if caps.session_log:
        if event.event not in STOP_EVENTS or not (
            config.max_repeated_lines or config.max_repeated_blocks or config.same_final_message_at
        ):
            return [], None
    elif not reads_transcript(
        event.event, event.agent_id, caps.subagent_transcripts, config.max_repeated_lines, config.max_repeated_blocks
    ):
        return [], None
    ts = text_state(state, event.agent_id)
    if tail is not None:
        ts["tail"] = tail
    fresh = final is not None and final[0] not in ts["seen"]
    texts = unseen(state, event.agent_id, pairs)
    message = final[1] if fresh and final is not None and event.last_assistant_message is None else None
    return texts, message


# -- the rule --------------------------------------------------------------------------------





def on_text(ctx: TextContext) -> Decision | None:
    """The merged verdict of the text rules on this event, before the mode is applied."""
    ts = text_state(ctx.state, ctx.event.agent_id)
    name, config = ctx.event.event, ctx.config
    final = _bounded(ctx.event.last_assistant_message, config.transcript_read_bytes)
    texts = list(ctx.texts)
    if name in STOP_EVENTS and not texts and final:
        # No transcript text yet (none, or it lags behind the Stop): judge the final message,
        # and remember it so that reading it from the transcript later does not count it twice.
        texts = [final]
        seen_before(ts, judged_key(digest(final.encode("utf-8", "surrogatepass"))))
    verdict = None
    # The final message is compared apart (`final_message`): folded only where the transcript
    # already shows it, it would make two turns alike differ by when their Stop came.
    last = _normal(final) if final and name in STOP_EVENTS else None
    for text in texts:
        if last is None or _normal(text) != last:
            said(ts, text)
        found = feed(
            ts,
            text,
            max_lines=config.max_repeated_lines,
            max_blocks=config.max_repeated_blocks,
            max_block_chars=config.max_block_chars,
        )
        verdict = verdict or found
    if name == "UserPromptSubmit":
        decisions = _on_prompt(ts, ctx, verdict)
    elif name == "PreToolUse":
        decisions = _on_call(ts, ctx, verdict)
    elif name in STOP_EVENTS:
        decisions = _on_stop(ts, ctx, verdict, final)
    else:
        decisions = []
    return merge(decisions) if decisions else None


def _on_prompt(ts: TextState, ctx: TextContext, verdict: TextVerdict | None) -> list[Decision]:
    """A prompt carries a reminder held at a Stop (`DELIVERY`, no count: the Stop's record counted
    it) or one for a loop found now in the transcript (its count and excerpt). Where the host
    takes no context at a prompt (Droid, Cursor), either waits for the next call's result."""
    remember_prompt(ts, ctx.event.prompt, reset_lines=ctx.config.prompt_resets_text)
    carried = "UserPromptSubmit" in ctx.caps.context
    if verdict is not None:
        text = reminder(verdict)
        ts["pending"] = None if carried else text  # else sent with the next call's result, as a held one
        return [Decision(Action.REMIND, Rule.TEXT, text, times=verdict.repeats, summary=verdict.excerpt)] if carried else []
    pending = ts["pending"]
    if not pending or not carried:
        return []
    ts["pending"] = None
    return [Decision(Action.REMIND, Rule.TEXT, pending, summary=DELIVERY)]


#: The summary of a text reminder held at a Stop when it goes out (its record's `arguments`):
#: `stats` counts the Stop's record, and this one only marks it shown.
DELIVERY = "assistant text"


def _on_call(ts: TextState, ctx: TextContext, verdict: TextVerdict | None) -> list[Decision]:
    decisions = []
    if ts["pending"]:
        decisions.append(Decision(Action.REMIND, Rule.TEXT, ts["pending"], summary=DELIVERY))
        ts["pending"] = None
    if verdict is None:
        return decisions
    # A loop found now goes first (`insert`), so that a merged answer is recorded as the new
    # intervention it is (`merge` keeps the first of equals), not as the held one's delivery.
    if ts["reminded"]:
        # Still looping after a reminder in this turn: end it (or deny the call where the client
        # cannot end a turn from here).
        decisions.insert(
            0,
            Decision(
                Action.STOP if ctx.ends_turn else Action.DENY,
                Rule.TEXT,
                reminder(verdict),
                stop_reason=text_loop_stop(verdict),
                times=verdict.repeats,
                summary=verdict.excerpt,
            )
        )
    else:
        ts["reminded"] = True
        decisions.insert(
            0, Decision(Action.REMIND, Rule.TEXT, reminder(verdict), times=verdict.repeats, summary=verdict.excerpt)
        )
    return decisions


def _on_stop(ts: TextState, ctx: TextContext, verdict: TextVerdict | None, final: str | None) -> list[Decision]:
    event = ctx.event
    count, same_reply = final_message(ts, final, stop_hook_active=event.stop_hook_active)
    threshold = ctx.config.same_final_message_at
    if threshold and count >= threshold:
        summary = redact_prefix(event.last_assistant_message or "", 120)
        return [_text_stop(final_message_stop(count), count, summary)]
    if verdict is not None and event.stop_hook_active and ts["pending"]:
        # A Stop hook forced the turn on, the previous Stop already found a text loop, and no
        # tool call or prompt has delivered that reminder since: nothing else will reach the
        # model, so end the turn (Codex caps no Stop-hook chain: openai/codex#37937). Under
        # advise nothing ends it: the reminder stays held for the next call or prompt.
        if ctx.config.mode != "advise":
            ts["pending"] = None  # the turn ends; the next prompt starts afresh
        return [_text_stop(text_loop_stop(verdict), verdict.repeats, verdict.excerpt)]
    if verdict is not None:
        ts["pending"] = pending = reminder(verdict)
        if event.event == "SubagentStop" and event.agent_id != MAIN_AGENT:
            # The subagent is done and will read no reminder; the main thread reads its
            # result next, so that is who is told.
            text_state(ctx.state, MAIN_AGENT)["pending"] = subagent_reminder(verdict)
        notice = user_notice(verdict)
        return [
            Decision(
                Action.REMIND, Rule.TEXT, pending, system_message=notice, times=verdict.repeats, summary=verdict.excerpt
            )
        ]
    if same_reply:
        ts["pending"] = pending = same_reply_reminder()
        notice = user_notice(None, same_reply=True)
        summary = redact_prefix(event.last_assistant_message or "", 120)
        return [Decision(Action.REMIND, Rule.TEXT, pending, system_message=notice, summary=summary)]
    return []


def _text_stop(text: str, count: int, summary: str) -> Decision:
    """End the turn on Stop: the same words for the user (`systemMessage`) and the client."""
    return Decision(Action.STOP, Rule.TEXT, text, stop_reason=text, system_message=text, times=count, summary=summary)


def _bounded(text: str | None, limit: int) -> str | None:
    """A final message cut to its first and last `limit` characters: the text rules cost the
    same for a 20 MB message as for one of 512 KiB, and a loop shows at either end."""
    if text is None or len(text) <= 2 * limit:
        return text
    return text[:limit] + "\n" + text[-limit:]


#: How each of this rule's texts begins (or, second, what it holds), most specific first:
#: `messages.variant_of` names the template a text came from, so `stats` can compare how models
#: answer each one (`rules.VARIANTS` lists every rule's).
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("subagent_text_loop", f"[{PREFIX}] A subagent you started ended while repeating ", ""),
    ("same_reply", f"[{PREFIX}] Your last replies were identical", ""),
    ("text_loop", f"[{PREFIX}] Your recent output repeats ", ""),
)
