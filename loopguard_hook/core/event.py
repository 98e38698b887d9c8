"""The event model: one hook event as the core reads it, whatever host sent it. Pure values.

The host layer (`hosts/payload.py` and each host's module) makes a `HookEvent` out of a payload;
the core and the rules read nothing else of it.
"""

import enum
from typing import Any, NamedTuple


class Client(enum.StrEnum):
    """The hosts whose hook protocol the guard speaks (`hosts/` has one module each): Claude Code,
    Codex, the DeepSeek Harness through its Claude Code and its Codex hook bridge, GitHub Copilot
    CLI, Cursor, Qwen Code, Factory Droid and Gemini CLI."""

    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    DSH_CLAUDE_CODE = "dsh-claude-code"
    DSH_CODEX = "dsh-codex"
    COPILOT = "copilot"
    CURSOR = "cursor"
    QWEN_CODE = "qwen-code"
    DROID = "droid"
    GEMINI_CLI = "gemini-cli"


#: Hook events the guard acts on, in the order config files list them; every other event name
#: gets exit 0 and no output.
HANDLED_EVENT_ORDER = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "SubagentStop",
)
HANDLED_EVENTS = frozenset(HANDLED_EVENT_ORDER)

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
#: The events that end a turn (the main agent's, a subagent's): no host passes the model a text
#: there, so a reminder decided at one is held for the next prompt or call (`policy.fit_text`).
STOP_EVENTS = frozenset({"Stop", "SubagentStop"})

MAIN_AGENT = "main"

class BatchCall(NamedTuple):
    """One entry of a Claude Code `PostToolBatch` `tool_calls` list.

    `tool_response` is the serialised text the model saw, including the
    `<tool_use_error>` of a validation rejection and the text of a hook denial
    (Claude Code 2.1.332, captured `PostToolBatch.json`).
    """

    tool_name: str
    tool_input: Any
    tool_use_id: str | None
    tool_response: Any


class HookEvent(NamedTuple):
    """One hook event, reduced to what the guard reads. Large fields are kept by reference."""

    event: str
    client: Client
    session_id: str
    agent_id: str = MAIN_AGENT
    cwd: str | None = None
    transcript_path: str | None = None
    turn_id: str | None = None
    #: The host's permission mode at this event (Claude Code: `default`, `acceptEdits`, `plan`,
    #: `auto`, `dontAsk`, `bypassPermissions` on most events, research/claude-code-hooks.md; Codex:
    #: `bypassPermissions` or `default`, research/codex-hooks.md); None when not sent.
    permission_mode: str | None = None
    tool_name: str | None = None
    tool_input: Any = None
    tool_use_id: str | None = None
    tool_response: Any = None
    error: str | None = None
    is_interrupt: bool = False
    tool_calls: tuple[BatchCall, ...] = ()
    source: str | None = None
    prompt: str | None = None
    last_assistant_message: str | None = None
    stop_hook_active: bool = False
    agent_transcript_path: str | None = None
    #: A UserPromptSubmit the host fires when it goes on after tool results, not the user's
    #: words (Qwen Code fires one on every tool continuation): it starts no turn.
    continuation: bool = False
    #: A digest of the state of the files the call names to change (`tools.change_paths`), as
    #: the host layer found them at this event (`hosts/workspace.py`); None when not looked at
    #: (a replay, another event, a call that names none).
    workspace: str | None = None
    #: The same files one by one, as `"PPPPPPPP:SSSSSSSS"` (8 hex digits of a digest of the
    #: path, 8 of its state), in the order named; () when not looked at.
    workspace_files: tuple[str, ...] = ()
    #: A digest of the same files but those the line sends a program's output into (`pytest |
    #: tee test.log`) or names only in its test runs (a report), all judged by their content:
    #: what the line's edits name (`hosts/workspace.Snapshot.edits`); None when not looked at, or
    #: when one of them is judged by size and mtime.
    workspace_edits: str | None = None
    #: At a patch's PreToolUse (apply_patch's format, `core/patch.py`): the first line of a hunk
    #: that the file it updates holds nowhere, as the host layer found the file
    #: (`hosts/workspace.misfit`), or as a replay reads it from the recorded failure; None when
    #: the patch fits, or the file was not looked at.
    misfit: str | None = None
    #: Calls of the agent the host ran with no hook since its previous event, as the host layer
    #: read them from the transcript (`Unhooked` `poll`: Codex's `write_stdin`, research/codex-hooks.md
    #: §6); set by the engine, 0 where none were read.
    unseen_calls: int = 0


class Unhooked(NamedTuple):
    """One record of a tool the host runs without a hook, as the host layer read it from the
    agent's transcript: Codex 0.171.0 fires no hook for `write_stdin`, the tool that polls (or
    types into) a command `exec_command` left running (research/codex-hooks.md §6, §8).

    `kind` is `"command"` (a shell call that may leave its command running: `text` is its command
    line), `"poll"` (a `write_stdin`: `session` the command session it polls, `text` what it
    types, "" for a bare poll) or `"output"` (what a command or a poll returned: `session` while
    the command still runs, `code` its exit code once it ended, `empty` when it printed nothing),
    `"refused"` (a shell call the host's execution policy refused before it started, or an
    apply_patch its read-only sandbox rejected, either of which fired no post event: `text` is
    the refusal, `hosts/rollout.refusal` or apply_patch's answer), or `"gap"` (records
    were skipped unread: more was written since the last event than the reader reads at once,
    or the rollout was cut short in place).
    `call_id` pairs an output with its call; `time` is seconds since the epoch (None: the record
    has none).
    """

    kind: str
    call_id: str
    time: float | None = None
    session: int | None = None
    text: str = ""
    code: int | None = None
    empty: bool = False
