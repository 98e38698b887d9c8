"""The texts the model reads. Each is a policy result plus a next step, never an error.

Both clients show a denial to the model as a hook "error" (Claude Code renders
`PreToolUse:<Tool> hook error: <reason>`, Codex `Command blocked by PreToolUse hook: <reason>.
Command: <cmd>`; research notes for 2.1.332 and 0.171.0), which invites blind retries, so every
text says that nothing is broken and what to do instead.
"""

from __future__ import annotations

from .outcome import preview

#: Both clients move text beyond ~10,000 characters to a file; the guard cuts earlier.
MAX_TEXT = 9000

PREFIX = "loopguard"


def _quote(text: str, limit: int) -> str:
    text = preview(text.strip(), limit)
    return text if text else "(empty result)"


def gentle_reminder(tool: str, count: int) -> str:
    """The first reminder threshold: a short nudge."""
    return (
        f"[{PREFIX}] You are repeating yourself: this is call {count} of {tool} with the same "
        "arguments. Analyse the previous result before calling it again; if it already answers "
        "the question, use it and move on."
    )


def detailed_reminder(tool: str, count: int, arguments: str, *, in_a_row: bool) -> str:
    """Later reminder thresholds: tool, count, canonical arguments, and that nothing changed."""
    how = "in a row" if in_a_row else "with no new result in between"
    return (
        f"[{PREFIX}] {tool} has now been called {count} times {how} with identical arguments: "
        f"{arguments}. These calls made no progress: nothing changed between them. Do not call it "
        "again with the same arguments. Use what the earlier calls returned, change the approach "
        "(different arguments or a different tool), or answer the user with what you know."
    )


def slow_repeat_reminder(tool: str, count: int, seconds: float) -> str:
    """A repeat that came long after the previous one: reminded, never denied."""
    return (
        f"[{PREFIX}] {tool} returned the same result the last {count - 1} times "
        f"(this call came {int(seconds)} s after the previous one). If you are waiting for "
        "something to change, wait longer between checks or stop polling and report the state."
    )


def repeat_denial(tool: str, count: int, previous: str | None, limit: int, *, in_a_row: bool) -> str:
    """`REPEAT_TOOL_BLOCKED`: the call was not run; quote the previous result's preview (at most
    4,000 characters, so the instruction after it always fits in what the clients pass on)."""
    how = "in a row" if in_a_row else "with no new result in between"
    limit = min(limit, 4000)
    quoted = f' The previous identical call returned: """{_quote(previous, limit)}"""' if previous is not None else ""
    return (
        f"REPEAT_TOOL_BLOCKED: this {tool} call is identical to the previous ones and was not run "
        f"(attempt {count} {how}; loop guard policy, not a tool failure).{quoted} "
        "Do not retry it. Advance instead: use that result, change the approach, or conclude "
        "and answer the user with what is known"
    )


def stop_text(
    tool: str, count: int, previous: str | None, limit: int, *, ends_turn: bool, pauses_tools: bool = False
) -> str:
    """The last resort, worded for what the client does: Claude Code ends the turn
    (`continue: false`); Codex only denies; where the turn cannot end (DSH), every further tool
    call of the turn is denied (`pauses_tools`)."""
    base = repeat_denial(tool, count, previous, limit, in_a_row=False)
    if ends_turn:
        return base + ". The loop guard is ending this turn"
    if pauses_tools:
        return (
            base + ". Tool calls are now paused for the rest of this turn: answer the user now in plain text with "
            "what you have; the next user message enables tools again"
        )
    return base + ". This is final: stop calling tools for this request and answer the user now with what you have"


#: Where the user finds out why the guard acted, at the end of the texts the user sees. It names
#: `log` and not `pause`: a stop reason also reaches the model on the next turn (Claude Code
#: 2.1.332 replays it as a system reminder), and the model must not be handed the off switch.
WHY_HINT = "`loopguard-hook log` shows why."


def stop_reason(tool: str, count: int) -> str:
    """Claude Code `stopReason`: shown to the user, and to the model on the next turn."""
    return (
        f"{PREFIX} ended the turn: {tool} was called {count} times with identical arguments "
        f"and nothing changed. Send a new message to continue. {WHY_HINT}"
    )


def same_path_denial(tool: str, path: str, count: int, limit: int) -> str:
    """The breaker's read cap: one path read too often since it last changed."""
    return (
        f"REPEAT_TOOL_BLOCKED: {path} has been read {count} times by {tool} since it last "
        f"changed (limit {limit}; loop guard policy, not a tool failure). Its content is already "
        "in your context: use it, or edit the file before reading it again"
    )


def same_path_reminder(tool: str, path: str, count: int, limit: int) -> str:
    """The same-path cap as a reminder (the read went ahead)."""
    return (
        f"[{PREFIX}] {path} has now been read {count} times by {tool} since it last changed "
        f"(limit {limit}). Its content is already in your context: use it, or edit the file before "
        "reading it again."
    )


def limit_denial(code: str, count: int, limit: int, bookkeeping: bool) -> str:
    """The progress profile's budgets: too many calls since the last new result."""
    what = "planning/bookkeeping calls" if bookkeeping else "tool calls"
    return (
        f"{code}: {count} {what} since the last call that produced a new result "
        f"(limit {limit}; loop guard policy, not a tool failure). Stop and take stock: summarise "
        "what you have found, change the approach, or answer the user"
    )


def answer_only_denial(code: str) -> str:
    """The progress profile's answer-only mode after a loop or budget denial."""
    return (
        f"{code}: tool calls are paused for the rest of this turn because a loop was detected. "
        "Answer the user now in plain text with what you know; the next user message enables "
        "tools again"
    )


def duplicate_denial(code: str, tool: str) -> str:
    """An identical call issued in the same batch as one still running."""
    return (
        f"{code}: an identical {tool} call is already running in this batch, so this duplicate "
        "was not run. Use the result of the first one"
    )


def same_error_reminder(tool: str, count: int, error: str, limit: int, *, target: str | None = None) -> str:
    """The same failure under different arguments: a wall, not a typo. With `target`, the
    calls all worked on that one file (a patch that does not apply, a file not where it is
    looked for)."""
    if target is not None:
        return (
            f"[{PREFIX}] {tool} on {target} has failed {count} times with different arguments but the same "
            f'error: """{_quote(error, limit)}""". Rewording the call is not helping: look at the file as it '
            "is now (or check that it is where you think), then change the approach, for example "
            "rewrite the file whole, or ask the user."
        )
    return (
        f"[{PREFIX}] {tool} has failed {count} times with different arguments but the same error: "
        f'"""{_quote(error, limit)}""". Changing the arguments is not helping; this looks like an '
        "environment limit (permissions, sandbox, missing tool). Change the approach or ask the "
        "user."
    )


def same_answer_reminder(tool: str, count: int, answer: str, limit: int) -> str:
    """Different calls of one tool getting one answer: no new evidence (`rules/same_answer.py`).
    `answer` is the latest one ("" for an empty answer)."""
    shown = f'"""{_quote(answer, limit)}"""' if answer else "nothing (an empty output)"
    return (
        f"[{PREFIX}] {tool} has given the same answer to {count} different calls: {shown}. Rewording "
        "or redirecting the call is not bringing anything new. Take that answer as it is: change "
        "the approach, or tell the user what it says and ask."
    )


def finished_poll_reminder(tool: str, count: int, output: str, limit: int) -> str:
    """The output of a background command that has ended, read again unchanged (`rules/same_answer.py`)."""
    quoted = _quote(output, limit)
    ended = f"{tool} has returned the same output {count} times: the background command has ended"
    return f'[{PREFIX}] {ended}, so reading it again cannot show anything new: """{quoted}""". Act on that output.'


def idle_continuation_stop(count: int) -> str:
    """Stop reason when a Stop hook keeps sending the agent on and it makes no tool call (`rules/continuations.py`)."""
    return (
        f"{PREFIX} ended the turn: a Stop hook sent the agent on {count} times in a row and it made no tool "
        "call, only restating its answer in other words. Check the Stop hook, then send a new message to continue."
    )


#: How each template's text begins (or, second, what it holds), most specific first: `variant_of`
#: names the template a text came from, so `stats` can compare how models answer each one.
_VARIANTS: tuple[tuple[str, str, str], ...] = (
    # The same-error wall's escalation (`rules/walls.py`).
    ("same_error_stop", "REPEAT_TOOL_BLOCKED: this call was not run: ", " went on after it was denied"),
    ("same_error_denial", "REPEAT_TOOL_BLOCKED: this call was not run: ", " is a retry of a call that already failed"),
    ("same_error_late_stop", f"[{PREFIX}] ", ". The loop guard is ending this turn: tell the user"),
    ("same_error_advice", f"[{PREFIX}] ", " also after the reminder: "),
    ("stop_ending_turn", "REPEAT_TOOL_BLOCKED: this ", ". The loop guard is ending this turn"),
    ("stop_final", "REPEAT_TOOL_BLOCKED: this ", ". This is final: stop calling tools"),
    ("idle_continuation_stop", f"{PREFIX} ended the turn: a Stop hook sent the agent on ", ""),
    ("stop_pausing_tools", "REPEAT_TOOL_BLOCKED: ", ". Tool calls are now paused for the rest of this turn"),
    ("same_result_denial", "REPEAT_TOOL_BLOCKED: ", " has returned nothing new for "),
    ("repeat_denial", "REPEAT_TOOL_BLOCKED: this ", ""),
    ("same_path_denial", "REPEAT_TOOL_BLOCKED: ", " since it last changed (limit "),
    ("answer_only_denial", "", ": tool calls are paused for the rest of this turn"),
    ("duplicate_denial", "", " call is already running in this batch"),
    ("limit_denial", "", " since the last call that produced a new result (limit "),
    ("gentle_reminder", f"[{PREFIX}] You are repeating yourself: this is call ", ""),
    ("detailed_reminder", f"[{PREFIX}] ", " with identical arguments: "),
    ("slow_repeat_reminder", f"[{PREFIX}] ", " returned the same result the last "),
    ("same_path_reminder", f"[{PREFIX}] ", " since it last changed (limit "),
    ("same_error_reminder", f"[{PREFIX}] ", " times with different arguments but the same error: "),
    ("same_result_reminder", f"[{PREFIX}] ", " times since anything new came back: "),
    ("same_answer_reminder", f"[{PREFIX}] ", " has given the same answer to "),
    ("finished_poll_reminder", f"[{PREFIX}] ", " the background command has ended, "),
    ("subagent_text_loop", f"[{PREFIX}] A subagent you started ended while repeating ", ""),
    ("same_reply", f"[{PREFIX}] Your last replies were identical", ""),
    ("text_loop", f"[{PREFIX}] Your recent output repeats ", ""),
)


def variant_of(text: str) -> str:
    """The name of the template `text` was made from (`gentle_reminder`, `repeat_denial`, …), or
    "other". Only the text's start and a marker phrase are looked at: cheap on any length."""
    for name, start, marker in _VARIANTS:
        if text.startswith(start) and (not marker or marker in text):
            return name
    return "other"


def fit(text: str) -> str:
    """Cut `text` to `MAX_TEXT` characters (both clients spill longer text to a file)."""
    return preview(text, MAX_TEXT)
