"""Gemini CLI 0.61.0 (npm `@google/gemini-cli`): its own event names and its own deny form.

Facts, each verified against the real `gemini -p … --approval-mode yolo` on 0.61.0 with a
scripted model (shared research `gemini-cli-hooks.md`, its matrix `hook-effects.json`; the
captured payloads in `tests/e2e/gemini_cli/payloads/`; the e2e tests in `tests/e2e/gemini_cli/`):

- events: `BeforeTool`, `AfterTool` (success or failure; a failure has `tool_response.error`),
  `BeforeAgent` (once per user prompt), `AfterAgent` (the turn's end, with `prompt_response`),
  `SessionStart`, `SessionEnd`, and `BeforeModel`, `AfterModel`, `BeforeToolSelection`,
  `PreCompress` (before every model request, no compression), `Notification`, which the guard
  ignores. `normalise` gives the four it reads Claude Code's names;
- payloads: `session_id`, `transcript_path`
  (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`), `cwd`, `hook_event_name`,
  `timestamp`; no `permission_mode`, no `prompt_id`, **no per-call id** (pairs are found by
  `tool_name` + `tool_input`). Tool names: `run_shell_command`, `read_file`, `replace`,
  `write_file`, `glob`, `grep_search`, `list_directory`, `invoke_agent`, `write_todos`…;
- a subagent's calls carry the parent's `session_id` and nothing that marks them (captured
  `BeforeTool.read_file.subagent.json`); they come between the parent's BeforeTool and AfterTool
  of `invoke_agent` (research §7), so while the main agent waits on one they count under one
  agent of their own, apart from the main agent's (`unmarked_subagents`, `engine.SUBAGENTS`);
- deny: top-level `decision: "deny"` + `reason` (the model reads `{"error": "Tool execution
  blocked: <reason>"}`); Claude Code's `hookSpecificOutput.permissionDecision` is ignored and the
  tool runs (e2e `host_fact_the_claude_form_deny_is_ignored`);
- context: AfterTool `hookSpecificOutput.additionalContext` is appended inside the result as
  `<hook_context>…</hook_context>`; BeforeAgent context is a part after the prompt; SessionStart
  context is prepended to the prompt; BeforeTool context is ignored (matrix);
- end of turn: `continue: false` on BeforeTool or AfterTool ends the run (no further model
  request; the user reads `Agent execution stopped by hook: <stopReason>` on stderr, the model
  nothing); on AfterAgent it prints `Agent execution stopped: <reason>` (matrix);
- `systemMessage` is printed to the user (`Hook system message: …`) on BeforeTool and AfterTool
  (matrix);
- fails closed: any exit >= 2 blocks the call, 127 for a missing command included, while exit 1
  and timeouts fail open (e2e `host_fact_a_hook_exiting_2_or_more_blocks_every_call`); `install`
  registers `loopguard-hook … || true`;
- Gemini cuts the 5th identical call in a row itself and halts the run at the 6th; a hook's
  denial does not reset its count (e2e, source `LoopDetectionService`). It cuts a cycle of up to
  5 calls repeated 5 times too (`checkToolCallLoop`, seen in e2e: a read and a shell command
  alternated, cut at the 10th call), where the guard's counts have denied both by their 4th;
- `transcript_path` is Gemini's own chat log, not Claude Code's transcript format.
"""

import re
from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import Client
from ..core.host import Capabilities
from ..core.outcome import Outcome, outcome_of_response
from ..core.shellwords import SHELL_TOOLS
from ..core.verdict import Action, Decision
from . import llmcontent

CLIENT = Client.GEMINI_CLI

#: Gemini's event names for the ones the guard reads (the others keep theirs and are ignored).
EVENTS = {"BeforeTool": "PreToolUse", "AfterTool": "PostToolUse", "BeforeAgent": "UserPromptSubmit", "AfterAgent": "Stop"}
#: Back again, for `hookEventName` in an answer, and for `log` (`hosts.host_event`).
OWN_NAMES = {ours: theirs for theirs, ours in EVENTS.items()}
#: Event names only Gemini CLI sends (it also sends SessionStart, SessionEnd, Notification).
OWN_EVENTS = frozenset({*EVENTS, "BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress"})

CAPABILITIES = Capabilities(
    context=frozenset({"PostToolUse", "UserPromptSubmit", "SessionStart"}),
    deny=frozenset({"PreToolUse"}),
    end_turn=frozenset({"PreToolUse", "PostToolUse", "Stop"}),
    block=frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"}),
    system_message=frozenset({"PreToolUse", "PostToolUse"}),
    sends=frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd"}),
    transcript_text=False,
    fails_closed=True,
    halts_at=5,
    shows_stop_reason=True,  # `Agent execution stopped by hook: <stopReason>` on stderr (module docstring)
    unmarked_subagents=True,  # research/gemini-cli-hooks.md §7, `BeforeTool.read_file.subagent.json`
)

#: Variables Gemini CLI 0.61.0 gives its hooks and Qwen Code's do not (Qwen Code sets
#: `GEMINI_PROJECT_DIR` too), captured in a run: a failure before the payload is read ends as
#: this host needs (`hosts.client_from_environment`).
ENVIRONMENT = ("GEMINI_SESSION_ID", "GEMINI_CWD")

#: `transcript_path`: `<GEMINI_CLI_HOME or ~>/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`.
_TRANSCRIPT = r"/chats/session-[^/]*\.jsonl\Z"


def recognises(data: Mapping[str, Any]) -> bool:
    """A Gemini event name, or (SessionStart, SessionEnd, Notification) a Gemini chat log as
    `transcript_path` with none of the fields Gemini never sends (`permission_mode`, `prompt_id`)."""
    name = data.get("hook_event_name")
    if isinstance(name, str) and name in OWN_EVENTS:  # a list or object is no name (unhashable)
        return True
    path = data.get("transcript_path")
    return (
        isinstance(path, str)
        and re.search(_TRANSCRIPT, path.replace("\\", "/")) is not None
        and "permission_mode" not in data
        and "prompt_id" not in data
    )


def normalise(data: dict[str, Any], event: str | None) -> dict[str, Any]:
    """Gemini's event names as Claude Code's, and AfterAgent's `prompt_response` as the turn's
    last assistant message."""
    given = data.get("hook_event_name")
    name = EVENTS.get(given) if isinstance(given, str) else None  # the parser refuses a non-string
    if name is None:
        return data
    out = {**data, "hook_event_name": name}
    if name == "Stop":
        out["last_assistant_message"] = data.get("prompt_response")
    return out


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """An AfterTool result: its `llmContent`, failed when it has an `error` or a non-zero `Exit
    Code` (a failing shell command is no error to Gemini); the process group id is ignored."""
    text = llmcontent.llm_text(response)
    if text is None:
        return outcome_of_response(tool, response, mutation=mutation, now=now)
    error = response.get("error") if isinstance(response, dict) else None
    if isinstance(error, dict):
        message = error.get("message")
        return llmcontent.outcome(message if isinstance(message, str) and message else text, failed=True, now=now)
    return llmcontent.outcome(text, now=now, shell=tool in SHELL_TOOLS)


def denied_in_batch(text: str) -> bool:
    """Never: Gemini CLI sends no PostToolBatch."""
    return False


def cancelled_in_batch(text: str) -> bool:
    """Never: Gemini CLI sends no PostToolBatch."""
    return False


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """Gemini's answer: a denial as top-level `decision: "deny"` + `reason`, a reminder as
    `hookSpecificOutput.additionalContext` where it reaches the model (AfterTool, BeforeAgent,
    SessionStart), an end of turn as `continue: false` + `stopReason` (with the denial on
    BeforeTool). Never `"allow"` or `"ask"`, never a `decision` on AfterAgent (a retry)."""
    caps = CAPABILITIES
    action = decision.action
    text = messages.fit(decision.message)
    out: dict[str, Any] = {}
    if event == "Stop":
        if action is Action.STOP:
            out = {"continue": False, "stopReason": messages.fit(decision.stop_reason or decision.message)}
        return out or None
    if action is Action.ALLOW:
        return None
    if action >= Action.DENY and event in caps.deny:
        out = {"decision": "deny", "reason": text}
    elif event in caps.context:
        out = {"hookSpecificOutput": {"hookEventName": OWN_NAMES.get(event, event), "additionalContext": text}}
    if action is Action.STOP and event in caps.end_turn:
        out = {**out, "continue": False, "stopReason": messages.fit(decision.stop_reason or text)}
    if decision.system_message and event in caps.system_message:
        out["systemMessage"] = messages.fit(decision.system_message)
    return out or None
