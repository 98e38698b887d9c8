"""Read first: edits of a file the host refuses until its own read tool has read it
(`read_first_deny_at`).

Claude Code refuses an edit or a write of a file it has not read with its Read tool since the
file last changed ("File has not been read yet. Read it first before writing to it.", "File has
been modified since read, either by the user or by a linter. Read it again…", "File has been
unexpectedly modified. Read it again before attempting to write it."). Only that tool's
read counts: a Grep of the file, a Glob or a shell `cat` does not. A model that takes one of
those for a read sends the edit again, and again, each refused the same way (a public 2.0
transcript: a subagent's eight Edits and Writes of one component refused so, a Grep of the
whole file between each, until it gave up). Each attempt differs (an edit, then a write of the
whole file, then a smaller edit), so no repeat count grows, and a whole-file write's failure is
not the one-file rule's (`target.py`).

The rule counts such refusals per file (by its whole path, made absolute in the call's folder:
`_key`; `packages/api/src/index.ts` and `packages/web/src/index.ts` are two files, whatever
their last parts), one per round: a parallel batch of edits refused together is one. After
`read_first_deny_at` of them (balanced: 2) with no read of the file by a read tool
(`tools.is_read_tool`) since the first, the next edit or write of it is denied at its
PreToolUse, saying which tool the host takes for a read. A read of the file by such a tool, an
edit or a write of it that applies, a shell command that changes it (`rm`, `mv`, `git checkout
--`: `tools.change_paths`; a Write may then create it afresh), a user prompt or a compaction
lifts it. So does the result of a subagent call (`tools.AGENT_TOOLS`), for the files refused
while it ran: Claude Code before `agent_id` (anthropics/claude-code#15998, 2026-01: a subagent's
hook payloads carry the main thread's session and nothing else) sends a subagent's calls as the
main agent's, so its refusals were counted in the main agent's table, while the host keeps each
agent's reads apart (a public 2.0 transcript: the subagent gave up on a file after eight
refusals, and the main agent, which had read it, edited it next, and the edit applied). Refusals
counted before the call stay: a subagent started between two refused edits of the agent's own
does not lift them.

Only a refusal of a call that came through a PreToolUse counts: Claude Code 2.0 checks the read
in the tool's run, after the PreToolUse, so the next edit is refused the same way after it too.
Where the host checks before the PreToolUse (2.1.332 answers "not read yet" as an input
validation, seen only by PostToolBatch: research/claude-code-hooks.md), an edit that reaches
its PreToolUse has passed the check, and denying it would deny one that applies: such
refusals (`Call.late`) are not counted. And 2.1.332 refuses less: in the real-host test a Write
of a file never read applies, and so does an Edit of a file a shell command changed since its
Read (with a note), so the rule is for the releases that refuse (the 2.0 transcripts the corpus
holds). The seed profiles leave the rule off.

Its slot `Agent.rules["read_first"]` is `{file: [refusals, when the last counted one's result
came (seconds since the epoch), its error (quoted, redacted)]}`, at most `MAX_FILES` files.
"""

import re
from typing import TYPE_CHECKING, cast

from ..core.ledger import MAX_ID_CHARS, Agent, Limits, drop_slot, issued, new_round, slot, slots, trim
from ..core.outcome import Failure, preview
from ..core.redact import redact_prefix
from ..core.shellwords import SHELL_TOOLS
from ..core.tools import AGENT_TOOLS, change_paths, is_read_tool, named_path, resolve_path
from ..core.verdict import Action, Decision, Rule
from .base import CallContext, ResultContext
from .target import PATCH_TOOLS, WRITE_TOOLS

NAME = "read_first"
MAX_FILES = 8
QUOTE_CHARS = 160
#: The tools whose calls the host refuses as unread: an edit or a write of a file.
_CHANGES = PATCH_TOOLS | WRITE_TOOLS
#: Claude Code's refusals of an edit or write of a file its Read tool has not read since the file
#: last changed (2.0.x transcripts; 2.1.332 LAB: `modified since read`, an input validation there).
_UNREAD = r"File has not been read yet|File has been unexpectedly modified|File has been modified since read"

if TYPE_CHECKING:
    #: `[refusals, when the last counted refusal's result came, its error]`, by `_key`.
    Entry = list[int | float | str]
else:
    Entry = list


def _key(path: str | None, cwd: str | None) -> str | None:
    """A file as the table knows it: its path made absolute in the folder `cwd` and normalised
    (`tools.resolve_path`), else as written (a Windows path, no folder known); at most
    `MAX_ID_CHARS` characters."""
    if not path:
        return None
    return (resolve_path(path, cwd) or path)[:MAX_ID_CHARS]


def _files(agent: Agent) -> dict[str, Entry]:
    found = slot(agent, NAME)
    return cast("dict[str, Entry]", found) if isinstance(found, dict) else {}


def on_call(ctx: CallContext) -> Decision | None:
    """Deny an edit or a write of a file refused `read_first_deny_at` times as unread, until a
    read tool has read it."""
    files = _files(ctx.agent)
    if not files or not ctx.counted or ctx.event.event != "PreToolUse" or ctx.tool not in _CHANGES:
        return None
    named = named_path(ctx.tool_input, ctx.config)
    file = _key(named, ctx.event.cwd)
    entry = files.get(file) if file else None
    limit = ctx.config.read_first_deny_at
    if entry is None or not limit or int(entry[0]) < limit:
        return None
    path = redact_prefix(named or str(file), QUOTE_CHARS)
    refusals, error = int(entry[0]), str(entry[2])
    return Decision(
        Action.DENY, Rule.TARGET, read_first_denial(ctx.tool, path, refusals, error), times=refusals, tool=ctx.tool
    )


def on_result(ctx: ResultContext) -> None:
    """Count a refusal of an edit or a write as unread; a read tool's read of the file, an edit
    or a write of it that applies, or a shell command that changes it (`tools.change_paths`)
    lifts it, and a subagent call's result lifts the files refused while it ran."""
    if not ctx.config.read_first_deny_at:
        return None
    writes = ctx.tool in _CHANGES
    files = _files(ctx.agent)
    if files and ctx.tool in AGENT_TOOLS:
        # A subagent came back: the refusals counted while it ran may have been its own
        started = ctx.call["t"]
        for counted in [f for f, entry in files.items() if float(entry[1]) >= started]:
            del files[counted]
        if not files:
            drop_slot(ctx.agent, NAME)
        return None
    failed = ctx.outcome.failure != Failure.NONE
    if files and not failed and ctx.tool in SHELL_TOOLS:
        # A command that changed a file (removed, moved, checked out): a write may create it anew.
        for path in change_paths(ctx.tool, ctx.tool_input, ctx.config):
            files.pop(_key(path, ctx.cwd) or "", None)
        if not files:
            drop_slot(ctx.agent, NAME)
        return None
    if not writes and not (files and is_read_tool(ctx.tool, ctx.config)):
        return None
    file = _key(named_path(ctx.tool_input, ctx.config), ctx.cwd)
    if file is None:
        return None
    if not failed:
        if files.pop(file, None) is not None and not files:
            drop_slot(ctx.agent, NAME)  # read, or changed as the model meant: the host takes it as read
        return None
    if not writes or ctx.call.get("late") or re.search(_UNREAD, ctx.outcome.text[:512]) is None:
        return None  # refused before its PreToolUse: a call that reaches it passed the host's check
    files = cast("dict[str, Entry]", slots(ctx.agent).setdefault(NAME, {}))
    entry = files.get(file)
    now = float(ctx.agent["updated"])
    if entry is not None and not new_round(issued(ctx.call), float(entry[1])):
        return None  # a sibling of the batch already counted
    quote = preview(redact_prefix(ctx.outcome.text.strip(), QUOTE_CHARS + 1), QUOTE_CHARS)
    files[file] = [min(int(entry[0]) + 1 if entry else 1, 99), now, quote]
    trim(files, MAX_FILES, lambda k: float(files[k][1]))
    return None


def fit(agent: Agent, share: Limits) -> None:
    """At most `MAX_FILES` files, whatever the share."""


def reset(agent: Agent, why: str) -> None:
    """A prompt or a compaction forgets the refusals."""
    drop_slot(agent, NAME)


# -- the texts the model reads (`messages.variant_of` names them) ----------------------------


def read_first_denial(tool: str, path: str, refusals: int, error: str) -> str:
    """An edit or a write (`tool`) of `path` after `refusals` refusals of it as unread, the last
    with `error` (quoted): which read the host takes, and the way on."""
    said = f' The last refusal: """{error}"""' if error else ""
    return (
        f"REPEAT_TOOL_BLOCKED: this {tool} of {path} was not run: the host refused the last {refusals} edits or writes "
        f"of it as unread, and it has not been read with the Read tool since (loop guard policy, not a tool failure).{said} "
        "The host takes only its Read tool as a read: a Grep, a Glob or a shell command that prints the file does not "
        f"count, so this call would be refused the same way. Read {path} with the Read tool, then make the change; "
        "a Read of it, a change of it that applies or a new user message lifts this"
    )


#: How each of this rule's texts begins (or, second, what it holds): `rules.VARIANTS`.
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("read_first_denial", "REPEAT_TOOL_BLOCKED: this ", " as unread, and it has not been read with the Read tool since"),
)
