"""Same error: one tool failing the same way under different arguments (`same_error_remind_at`).

Two kinds of wall:

- a call that names no file (a shell command, a fetch) failing with the same error under
  different arguments: a sandbox, a permission rule, a missing tool, not a typo;
- a call on one file (an edit, a patch, a read) failing the same way on that file again and
  again, its arguments reworded each time: the patch that does not apply, the file that is not
  where the agent thinks. Distinct files failing once each are several answers, not a wall.

Errors are compared by `outcome.error_signature` (paths, numbers and the input they quote
removed), files by their last two path components (`tools.target_of`: a retry with the
absolute path is the same file). A failure counts for the rule only as a retry the model chose
after it saw the error: calls issued together (a parallel batch, all refused by one permission
rule) are one round. The rule reminds once the calls that failed this way, at least two of them distinct, reach
`same_error_remind_at` distinct calls or rounds (and at least two rounds), and again at twice
the threshold. Identical calls alone are the repeat rule's.

Not counted: an error that says nothing but `Exit code 1` (grep, test, `lsof`, `ps | grep`
answering "none", different questions with the same empty answer; Claude Code 2.1.332 gives a
failing command with no output as that line only), and failures from before a call that changed
a file succeeded (an edit or a patch): on that file, and walls met by calls that name no file,
since an edit before a rerun is ordinary work.
Its ledger is `Agent.errors`, at most `MAX_ERRORS` entries.

Balanced escalates a wall that goes on after its reminder (`same_error_deny_at`,
`same_error_stop_at`): an identical retry of a call that already failed this way is denied,
and a wall of validation rejections ends the turn (`walls.py`, which also says what makes a
call part of a wall and what ends or disarms one). A success disarms a wall (`walls.answered`);
an edit of its file, also by `sed -i` or `perl -pi`, ends it.
"""

import re

from ..core import messages as msg
from ..core.ledger import MAX_ERROR_SIGS, MAX_ERRORS, MAX_ID_CHARS, ErrorEntry, trim
from ..core.outcome import Failure, error_signature, preview
from ..core.redact import redact_prefix
from ..core.tools import matches, target_of
from ..core.verdict import Action, Decision, Rule
from . import walls
from .base import ResultContext

#: A failure text that is only an exit status of 1: the command's "no", not an error message.
_BARE_NO = r"\A\s*(?:Exit code:? |Process exited with code )1\s*\Z"


def same_error(ctx: ResultContext) -> Decision | None:
    """Record a failure; remind when it has become a wall (module docstring)."""
    outcome, tool = ctx.outcome, ctx.tool
    threshold = ctx.config.same_error_remind_at
    if not threshold:
        return None
    errors = ctx.agent["errors"]
    target = target_of(ctx.tool_input, ctx.config)
    # The ledger keeps a short digest of the file's name, not the name.
    file_id = walls.file_id_of(target)
    escalates = ctx.config.same_error_deny_at > 0
    shape = walls.shape_of(ctx.tool_input, has_file=target is not None) if escalates else None
    if outcome.failure == Failure.NONE:
        _succeeded(ctx, file_id, shape, escalates=escalates)
        return None
    if re.match(_BARE_NO, outcome.text[:64]):
        return None
    # A call first seen by PostToolBatch whose answer is a validation rejection never ran; one
    # whose PreToolUse record the state budget dropped ran, and its answer says so.
    rejected = bool(ctx.call.get("late")) and "<tool_use_error>" in outcome.text[:256]
    key = f"{tool[:MAX_ID_CHARS]}:{file_id or ''}:{error_signature(outcome.text, ctx.tool_input)}"
    entry = errors.setdefault(key, {"sigs": [], "t": ctx.call["t"]})
    rounds_before, level = entry.get("rounds", 0), entry.get("level", 0)
    # Calls seen first in one batch event (validation rejections issued together) came before
    # the model saw the reminder given at the first of them: no round after the reminder.
    sibling = rejected and entry["sigs"] and entry["t"] == ctx.call["t"]
    if file_id is not None:
        entry["target"] = file_id
    entry["t"] = ctx.call["t"]
    entry["n"] = entry.get("n", 0) + 1
    if not ctx.call.get("retry"):  # an escalated retry runs the refused call anew: no new round
        _count_round(entry, issued=ctx.call["t"], answered=ctx.agent["updated"])
    if ctx.call["sig"] not in entry["sigs"]:
        entry["sigs"].append(ctx.call["sig"])
        del entry["sigs"][:-MAX_ERROR_SIGS]
    walls.note_shape(entry, shape)
    if escalates:
        walls.failed_again(entry, rejected=rejected)
    trim(errors, MAX_ERRORS, lambda k: errors[k]["t"])
    distinct, rounds = len(entry["sigs"]), entry.get("rounds", 1)
    due = rounds >= 2 and distinct >= 2 and max(distinct, rounds) >= threshold * (level + 1) and level < 2
    # A new round of a reminded wall that no PreToolUse saw (parallel siblings are one round).
    late = escalates and level >= 1 and rejected and rounds > rounds_before and not sibling
    if not (due or late):
        return None
    count = max(entry["n"], distinct)
    limit = ctx.config.result_preview_chars
    quoted = preview(redact_prefix(outcome.text, 2 * limit + 1), 2 * limit)
    text = msg.same_error_reminder(tool, count, quoted, limit, target=target[:MAX_ID_CHARS] if target else None)
    if late:
        # A round no PreToolUse saw: past the reminder, only an end of turn can answer it.
        what = f"{tool} on {target[:MAX_ID_CHARS]}" if target else tool
        stop_text = walls.late_stop_text(what, count, preview(quoted, walls.QUOTE_CHARS))
        stop = walls.late_stop(entry, stop_text, text, tool, ctx.config.same_error_deny_at)
        if stop is not None or not due:
            return stop
    entry["level"] = level + 1
    if escalates:
        entry["quote"] = preview(quoted, walls.QUOTE_CHARS)
    return Decision(Action.REMIND, Rule.SAME_ERROR, text, times=count, tool=tool)


def _succeeded(ctx: ResultContext, file_id: str | None, shape: str | None, *, escalates: bool) -> None:
    errors = ctx.agent["errors"]
    if _changes_file(ctx):
        # Something changed: failures on this file, and walls met before the change, are
        # no longer the last word (an edit before a test rerun is ordinary work).
        for key in [k for k, e in errors.items() if e.get("target") in (file_id, None)]:
            del errors[key]
    elif escalates:
        walls.answered(errors, ctx.tool, file_id, shape)


def _count_round(entry: ErrorEntry, *, issued: float, answered: float) -> None:
    """A failure issued after the model saw this error (the first result of the latest round)
    opens a new round; one issued before it belongs to the same round (a parallel sibling)."""
    seen = entry.get("seen")
    if seen is None or issued >= seen:
        entry["rounds"] = entry.get("rounds", 0) + 1
        entry["seen"] = answered


def _changes_file(ctx: ResultContext) -> bool:
    """Whether the call writes its file: a mutating tool, a command carrying a patch, or one
    that edits in place (`sed -i`, `perl -pi`)."""
    if matches(ctx.tool, ctx.config.mutating_tools):
        return True
    command = ctx.tool_input.get("command") if isinstance(ctx.tool_input, dict) else None
    return isinstance(command, str) and ("*** Begin Patch" in command or re.search(_IN_PLACE, command[:4096]) is not None)


#: A shell edit in place of the file the command names (`sed -i`, `sed -i.bak`, `perl -pi -e`).
_IN_PLACE = r"\b(?:sed|gsed)\s+(?:-[^\s]*\s+)*-i|\bperl\s+(?:-\w+\s+)*-\w*i"
