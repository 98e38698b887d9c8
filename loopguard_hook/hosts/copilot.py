"""GitHub Copilot CLI 1.0.102 (npm `@github/copilot`; its hook files also serve the Copilot cloud
coding agent and VS Code's Copilot sessions).

Facts (verified offline on 1.0.102, `notes/copilot-droid-hooks.md` §2-§3, §7; payloads captured
in `tests/e2e/copilot/payloads/`):

- two payload shapes. A camelCase hook file (`~/.copilot/hooks/*.json` with `preToolUse`…)
  sends `sessionId`, `timestamp` (epoch ms), `cwd`, `toolName` (Copilot's names: `bash`, `view`,
  `create`, `edit`, `grep`, `glob`, `task`…), `toolArgs` (the model's arguments: an object, or
  per the public docs a JSON string), `toolResult {resultType, textResultForLlm}`, and **no
  event name** (the command line's `--event` names it). A PascalCase file, a Claude-format
  nesting or a repository's `.claude/settings*.json` sends snake_case: `hook_event_name`,
  `session_id`, `timestamp` (ISO 8601), `tool_name` (Claude's names `Bash`, `Read`, `Write`…),
  `tool_input` (Copilot's argument keys), `tool_result {result_type, text_result_for_llm}`;
- no per-call id in any tool payload: a Pre pairs with its Post by tool and arguments;
- a bash call that exits non-zero still gets `postToolUse` with `resultType: "success"`, its
  text ending `<shellId: N completed with exit code C>`; a view of a missing file, an edit that
  does not apply, arguments that do not parse get `postToolUseFailure` with `error`; a denied
  call gets no post event;
- a denial: top-level `permissionDecision: "deny"` + `permissionDecisionReason` works in every
  file form, the nested `hookSpecificOutput` copy only in PascalCase files (both together: one
  denial); the model reads `Denied by preToolUse hook: <reason>` as the call's result;
- context: top-level `additionalContext` only. On preToolUse it becomes a user message after the
  call's result, on postToolUse it is appended to the result, on postToolUseFailure,
  userPromptSubmitted and sessionStart it is a user message;
- `continue: false` does nothing on any event, so no tool hook ends a turn (answer-only
  denials instead); `systemMessage` reaches nobody;
- **fails closed**: a preToolUse hook that exits 1, 3, 127 or crashes denies the call
  (`Denied by preToolUse hook from "<file>" (hook errored)`); invalid JSON and a timeout fail
  open. Hooks run one after another; all preToolUse hooks of a batch before its posts;
- hook environment: `COPILOT_CLI=1`, `COPILOT_HOOK_DIR`, `COPILOT_PROJECT_DIR`,
  `COPILOT_CLI_BINARY_VERSION`;
- a subagent's events carry `agentId` and `parentAgentId`, with the child's id as `sessionId`;
- `agentStop`/`Stop` names `~/.copilot/session-state/<id>/events.jsonl`, whose
  `assistant.message` records hold the assistant's text (`transcript.py`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import HANDLED_EVENTS, Client
from ..core.host import Capabilities
from ..core.outcome import Failure, Outcome, classify_response, outcome_fingerprint, result_text
from ..core.verdict import Action, Decision
from .payload import json_text

CLIENT = Client.COPILOT

#: The hook events of Copilot's camelCase files, by the names the guard reads (the others, such
#: as `permissionRequest` and `errorOccurred`, get exit 0 and no output).
EVENT_NAMES = {
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "userPromptSubmitted": "UserPromptSubmit",
    "sessionStart": "SessionStart",
    "sessionEnd": "SessionEnd",
    "agentStop": "Stop",
    "subagentStop": "SubagentStop",
}
#: Every event `install` registers in a camelCase file, in the order it writes them.
INSTALL_EVENTS = tuple(EVENT_NAMES)

#: Environment variables Copilot CLI gives every hook (1.0.102, `notes` §2.3).
ENVIRONMENT = ("COPILOT_CLI", "COPILOT_HOOK_DIR", "COPILOT_CLI_BINARY_VERSION")

CAPABILITIES = Capabilities(
    context=frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart"}),
    deny=frozenset({"PreToolUse"}),
    end_turn=frozenset(),
    block=frozenset({"Stop", "SubagentStop"}),
    system_message=frozenset(),
    sends=HANDLED_EVENTS - {"PostToolBatch"},
    turn_end_fallback="answer_only",
    fails_closed=True,
)

#: The hook file `install --client copilot` writes, in `~/.copilot/hooks/` (user) or a
#: repository's `.github/hooks/` (project).
INSTALL_FILE = "loopguard-hook.json"


def own_install(cwd: str | None, environ: Mapping[str, str]) -> bool:
    """Whether Copilot runs the guard from its own hook file here (`INSTALL_FILE` in the user's
    `~/.copilot/hooks/` or in `cwd`'s `.github/hooks/`): then a copy run from Claude Code's
    settings stays silent (`hosts.borrowed`)."""
    home = environ.get("HOME") or os.path.expanduser("~")
    places = [os.path.join(home, ".copilot", "hooks")]
    if cwd:
        places.append(os.path.join(cwd, ".github", "hooks"))
    return any(os.path.isfile(os.path.join(place, INSTALL_FILE)) for place in places)


#: Where Copilot keeps a session's events (`agentStop`'s `transcriptPath`).
SESSION_STATE = "/.copilot/session-state/"


#: Keys of its camelCase payloads only Copilot CLI sends (also how `hosts.client_from_head`
#: tells a payload not yet parsed).
MARKS = ("sessionId", "toolName", "hookName")


def recognises(data: Mapping[str, Any]) -> bool:
    """A camelCase payload (`MARKS`), or a snake_case one from a PascalCase file: an ISO
    `timestamp` string, and no transcript but Copilot's session state (Claude Code, Codex, Qwen
    Code and Gemini CLI send `transcript_path` on every event)."""
    if any(key in data for key in MARKS):
        return True
    if not isinstance(data.get("timestamp"), str) or "tool_use_id" in data or "permission_mode" in data:
        return False
    path = data.get("transcript_path")
    return path is None or (isinstance(path, str) and SESSION_STATE in path.replace("\\", "/"))


def event_of(data: Mapping[str, Any], given: str | None) -> str | None:
    """The hook event: the command line's `--event` (camelCase or PascalCase), else the payload's
    `hook_event_name`, else told by a camelCase payload's fields."""
    name = given or data.get("hook_event_name") or data.get("hookName")
    if isinstance(name, str) and name:
        return EVENT_NAMES.get(name, name)
    if "toolResult" in data:
        return "PostToolUse"
    if "toolName" in data:
        return "PostToolUseFailure" if "error" in data else "PreToolUse"
    if "initialPrompt" in data:
        return "SessionStart"
    if "prompt" in data:
        return "UserPromptSubmit"
    if "agentName" in data:
        return "SubagentStop"
    if "stopReason" in data:
        return "Stop"
    if "reason" in data:
        return "SessionEnd"
    return None


def _arguments(value: Any) -> Any:
    """`toolArgs` as an object: the public docs show it as a JSON string, 1.0.102 sends an object."""
    return json_text(value) if isinstance(value, str) else value


def normalise(data: dict[str, Any], event: str | None) -> dict[str, Any]:
    """Either payload shape with the fields the guard reads named as Claude Code names them. A
    tool result whose `resultType` is not `success` becomes a `PostToolUseFailure` with its text
    as `error`."""
    name = event_of(data, event)
    out: dict[str, Any] = {
        "hook_event_name": name,
        "session_id": data.get("session_id", data.get("sessionId")),
        "cwd": data.get("cwd"),
    }
    transcript = data.get("transcript_path", data.get("transcriptPath"))
    if isinstance(transcript, str):
        out["transcript_path"] = transcript
    agent = data.get("agent_id", data.get("agentId"))
    if isinstance(agent, str) and agent and name == "SubagentStop":
        out["agent_id"] = agent
    if name in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        out["tool_name"] = data.get("tool_name", data.get("toolName"))
        out["tool_input"] = _arguments(data.get("tool_input", data.get("toolArgs")))
        result = data.get("tool_result", data.get("toolResult"))
        if name == "PostToolUse" and isinstance(result, dict):
            kind = result.get("result_type", result.get("resultType"))
            text = result.get("text_result_for_llm", result.get("textResultForLlm"))
            if kind in (None, "success"):
                out["tool_response"] = text
            else:
                out["hook_event_name"] = "PostToolUseFailure"
                out["error"] = text if isinstance(text, str) else str(kind)
        elif name == "PostToolUse":
            out["tool_response"] = result
        if name == "PostToolUseFailure":
            out["error"] = data.get("error")
    elif name == "UserPromptSubmit":
        out["prompt"] = data.get("prompt")
    elif name == "SessionStart":
        source = data.get("source")
        out["source"] = "startup" if source == "new" else source
    elif name in ("Stop", "SubagentStop"):
        out["stop_hook_active"] = data.get("stop_hook_active", False)
        last = data.get("last_assistant_message", data.get("response"))
        if isinstance(last, str):
            out["last_assistant_message"] = last
    return out


#: A bash call's result ends so, its exit code included (`resultType` is `success` either way);
#: the shell id counts up with every call of the session, so the same output reads differently.
_SHELL_EXIT = r"<shellId: [^>]* completed with exit code (-?\d+)>\s*\Z"


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """A result text: failed when a bash call says it exited non-zero, else as the shared rules
    read any text (failures that Copilot reports come as `PostToolUseFailure`). A bash result is
    fingerprinted without its shell id line (`<shellId: 3 completed with exit code 0>`), which
    changes with every call even when the output does not."""
    failure = classify_response(tool, response)
    text = result_text(response)
    fingerprinted = response
    if isinstance(response, str):
        code = re.search(_SHELL_EXIT, response[-200:])
        if code is not None:
            failure = Failure.HARD if code.group(1) != "0" else Failure.NONE
            text = response[: max(0, len(response) - 200) + code.start()].rstrip("\n")  # the output alone
            fingerprinted = f"{text}\n<exit code {code.group(1)}>"
    return Outcome(fingerprint=outcome_fingerprint(fingerprinted, mutation=mutation, now=now), failure=failure, text=text)


def denied_in_batch(text: str) -> bool:
    """Copilot 1.0.102 reports a hook's denial as `Denied by preToolUse hook…` (it sends no
    PostToolBatch; this reads the text form)."""
    return text.startswith("Denied by preToolUse hook")


def cancelled_in_batch(text: str) -> bool:
    """Never: Copilot sends no PostToolBatch."""
    return False


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """Copilot's own form: a denial as top-level `permissionDecision` (every file form) with the
    nested copy that PascalCase files read (one denial either way, matrix `denyboth`), a reminder
    as top-level `additionalContext`. Nothing on Stop, SubagentStop or SessionEnd."""
    if decision.action is Action.ALLOW or event not in CAPABILITIES.context:
        return None
    text = messages.fit(decision.message)
    if decision.action >= Action.DENY and event in CAPABILITIES.deny:
        return {
            "permissionDecision": "deny",
            "permissionDecisionReason": text,
            "hookSpecificOutput": {"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": text},
        }
    return {"additionalContext": text}
