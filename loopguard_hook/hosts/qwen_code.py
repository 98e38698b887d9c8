"""Qwen Code 0.24.4 (npm `@qwen-code/qwen-code`): Claude Code's hook shape, its own tool names.

Facts, each verified against the real `qwen -p … --approval-mode yolo` on 0.24.4 with a scripted
model (shared research `qwen-code-hooks.md`, its matrix `hook-effects.json`; the captured
payloads in `tests/e2e/qwen_code/payloads/`; the e2e tests in `tests/e2e/qwen_code/`):

- payloads: Claude Code's field names plus `prompt_id` (`<session id>########<n>`) on every
  prompt-bound event, `permission_mode` on all, and `transcript_path`
  `~/.qwen/projects/<cwd slug>/chats/<session id>.jsonl` (captured, every event). Tool names are
  Qwen's (`run_shell_command`, `read_file`, `edit`, `write_file`, `glob`, `grep_search`,
  `agent`, `todo_write`), `tool_input` the model's arguments verbatim;
- call ids: Pre/PostToolUse carry Qwen's own `tool_use_id` (`toolu_<ms>_<9 chars>`) and the
  model's `tool_call_id`; PostToolBatch's `tool_use_id` is the model's id, so `normalise` keys
  every event by `tool_call_id` (captured `PreToolUse.*`, `PostToolBatch.*`);
- PostToolBatch fires once per call in headless runs, one entry each; an entry's
  `tool_response` is `{response_parts, result_display, execution_status, error?, error_type?}`
  and a call a hook denied is `status: "error"`, `error_type: "execution_denied"` (captured
  `PostToolBatch.run_shell_command.execution_denied.json`);
- UserPromptSubmit fires before every model request of a turn: the first carries
  `submitted_prompt`, each tool continuation `prompt: ""` and no `submitted_prompt` (e2e
  `harness_self_test_a_loop_of_identical_calls_is_seen_as_n_payloads`);
- a PreToolUse `permissionDecision: "deny"` refuses the call and the model reads exactly the
  reason as its result; PreToolUse `additionalContext` is ignored; PostToolUse,
  PostToolUseFailure and PostToolBatch `additionalContext` is appended to the result after a
  blank line; UserPromptSubmit context is a tagged user part; SessionStart context goes into the
  system prompt (matrix);
- no tool event ends the turn: `continue: false` on PreToolUse acts as a denial, on PostToolUse
  it replaces the result; a `decision: "block"` on a continuation's UserPromptSubmit ends the
  turn with no further model request (headless: silently, exit 0; the interactive UI shows
  "UserPromptSubmit operation blocked by hook: <reason>", source `chunk-NBWGGZY2.js`). So an end
  of turn is a denial and answer-only mode, ended at the next continuation if ignored;
- `systemMessage` reaches nobody (matrix); a failing hook (exit 1, a crash, a missing command,
  a timeout) fails open; exit 2 blocks, which the guard never uses (matrix);
- Qwen halts the run itself at the 5th identical call in a row (exit 1, StopFailure), and a
  hook's denial does not reset that count (e2e, source `TOOL_CALL_LOOP_THRESHOLD = 5`);
- a second `read_file` of an unchanged file returns a stub, not the content (captured
  `PostToolUse.read_file.unchanged.json`): no new evidence;
- `transcript_path` is Qwen's own chat log, not Claude Code's transcript format.
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
from . import base, llmcontent
from .payload import CONTINUATION

CLIENT = Client.QWEN_CODE

CAPABILITIES = Capabilities(
    context=frozenset({"PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart"}),
    deny=frozenset({"PreToolUse"}),
    # Only a continuation's UserPromptSubmit (a real prompt is never answered with an end).
    end_turn=frozenset({"UserPromptSubmit"}),
    block=frozenset({"PreToolUse", "PostToolBatch", "UserPromptSubmit", "Stop"}),
    system_message=frozenset(),
    sends=frozenset(
        {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart",
         "SessionEnd", "Stop", "SubagentStop"}
    ),
    transcript_text=False,
    turn_end_fallback="answer_only",
    halts_at=5,
)

#: `prompt_id`: the session id and the prompt's number (captured, every prompt-bound event).
_PROMPT_ID = r"#{8}\d+\Z"
#: `transcript_path`: `<QWEN_HOME>/projects/<cwd slug>/chats/<session id>.jsonl`.
_TRANSCRIPT = r"/projects/[^/]+/chats/[^/]+\.jsonl\Z"
#: How an error entry of a PostToolBatch reads after `normalise`: `<error_type>: <error>`.
DENIED = "execution_denied: "
#: The start of the stub a repeated read of an unchanged file returns.
_UNCHANGED = "[File "
_UNCHANGED_MARK = " unchanged since last read in this session"


def recognises(data: Mapping[str, Any]) -> bool:
    """A Qwen `prompt_id` (`…########<n>`), a `tool_call_id`, or a Qwen chat log as
    `transcript_path` (the events without a prompt id: SessionStart, SessionEnd)."""
    prompt_id = data.get("prompt_id")
    if isinstance(prompt_id, str) and re.search(_PROMPT_ID, prompt_id):
        return True
    if isinstance(data.get("tool_call_id"), str):
        return True
    path = data.get("transcript_path")
    return isinstance(path, str) and re.search(_TRANSCRIPT, path.replace("\\", "/")) is not None


def normalise(data: dict[str, Any], event: str | None) -> dict[str, Any]:
    """Key each call by the model's id (`tool_call_id`; PostToolBatch's `tool_use_id` already is
    it), write a PostToolBatch error entry's result as `<error_type>: <error>`, a failed shell
    call's error as `llmcontent.shell_text` does, and mark a UserPromptSubmit without
    `submitted_prompt` as a tool continuation."""
    name = data.get("hook_event_name")
    if name == "UserPromptSubmit" and "submitted_prompt" not in data:
        return {**data, CONTINUATION: True}
    call_id = data.get("tool_call_id")
    error = data.get("error")
    tool = data.get("tool_name")
    if name == "PostToolUseFailure" and isinstance(error, str) and isinstance(tool, str) and tool in SHELL_TOOLS:
        data = {**data, "error": llmcontent.shell_text(error)}  # without the `Command:` line that names the call
    if isinstance(call_id, str):
        return {**data, "tool_use_id": call_id}
    calls = data.get("tool_calls")
    if name == "PostToolBatch" and isinstance(calls, list):
        return {**data, "tool_calls": [_batch_entry(c) for c in calls]}
    return data


def _batch_entry(entry: Any) -> Any:
    if not isinstance(entry, dict) or entry.get("status") != "error":
        return entry
    response = entry.get("tool_response")
    if not isinstance(response, dict):
        return entry
    kind, error = response.get("error_type"), response.get("error")
    return {**entry, "tool_response": f"{kind}: {error}"}


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """A PostToolUse result: its `llmContent`, failed on a non-zero `Exit Code`; the stub of a
    repeated read is no new evidence. A PostToolBatch entry is read from its function response."""
    text = llmcontent.llm_text(response)
    shell = tool in SHELL_TOOLS
    if text is not None:
        unchanged = text.startswith(_UNCHANGED) and _UNCHANGED_MARK in text[:200]
        return llmcontent.outcome(text, unchanged=unchanged, now=now, shell=shell)
    if isinstance(response, str):  # a PostToolBatch error entry, as `normalise` writes it
        return llmcontent.outcome(response, failed=True, now=now)
    parts = response.get("response_parts") if isinstance(response, dict) else None
    if isinstance(parts, list) and parts:
        call = parts[0].get("functionResponse") if isinstance(parts[0], dict) else None
        reply = call.get("response") if isinstance(call, dict) else None
        if isinstance(reply, dict) and isinstance(reply.get("output"), str):
            return llmcontent.outcome(reply["output"], now=now, shell=shell)
    return outcome_of_response(tool, response, mutation=mutation, now=now)


def denied_in_batch(text: str) -> bool:
    """A batch entry of a call a hook denied (`error_type: "execution_denied"`)."""
    return text.startswith(DENIED)


def cancelled_in_batch(text: str) -> bool:
    """Never seen: Qwen runs every call of a batch (none cancelled in the captures)."""
    return False


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """The shared wire form with Qwen's capabilities; an end of turn on a continuation's
    UserPromptSubmit is `decision: "block"` (verified to end the turn)."""
    if event == "UserPromptSubmit" and decision.action is Action.STOP:
        return {"decision": "block", "reason": messages.fit(decision.stop_reason or decision.message)}
    return base.wire(CAPABILITIES, decision, event, messages.fit(decision.message))
