"""Cursor (the IDE, its `agent` CLI and its cloud agents): its documented hook protocol.

Cursor's CLI is not on the package registries, so nothing here was run against Cursor itself:
the facts come from its documentation (`cursor.com/docs/hooks.md` and
`cursor.com/docs/reference/third-party-hooks.md`, as mirrored in December 2026), a static
reading of CLI build 2026.09.18 published by another hook tool (`subcortex`
`docs/research/cursor-cli.md`) and a live probe of CLI 2026.02.13 (`entireio/cli`
`agent/cursor/AGENT.md`). The payloads in `tests/data/cursor/` are built from those.

- every payload has `conversation_id` (`session_id` is the same id), `generation_id`,
  `cursor_version`, `workspace_roots`, `hook_event_name` in camelCase (`preToolUse`,
  `postToolUse`, `postToolUseFailure`, `beforeSubmitPrompt`, `stop`, `subagentStop`,
  `sessionStart`, `sessionEnd`…); `transcript_path` is null in the CLI;
- tool events: `tool_name` (`Shell`, `Read`, `Write`, `StrReplace`, `Grep`, `Glob`, `Delete`,
  `Task`, `MCP:<tool>`), `tool_input`, `tool_use_id` (`call_…\\nctc_…`: a newline inside),
  postToolUse `tool_output` as a JSON *text* (Shell: `{"output", "exitCode"}`), postToolUseFailure
  `error_message`, `failure_type`, `is_interrupt`; a Shell call exiting non-zero gets
  postToolUseFailure;
- a denial: preToolUse `{"permission": "deny", "agent_message": <text for the model>,
  "user_message": <text for the user>}`; the Claude form is accepted too, but its
  `permissionDecisionReason` becomes `user_message`, which the model may not see;
- context: postToolUse `additional_context`, appended after the tool result, and sessionStart's;
  more than 10,000 characters and it is dropped; preToolUse and postToolUseFailure carry none;
- no output ends a turn (`stop` can only continue it); the headless CLI fires no `stop` and no
  `beforeSubmitPrompt`;
- **fails closed** on a permission hook (preToolUse, subagentStart, before*) whose stdout is not
  valid JSON or not valid for its schema; an empty stdout, another exit code, a crash and a
  timeout fail open unless the entry sets `failClosed: true`;
- Claude Code's settings (`~/.claude/settings.json`, a project's `.claude/settings*.json`) are
  loaded too, on by default, with their events mapped (`PreToolUse` → `preToolUse`, …) and
  Cursor's own payloads sent: a `loopguard-hook` registered for Claude Code runs here too;
- hook environment: `CURSOR_VERSION`, `CURSOR_PROJECT_DIR` (and `CLAUDE_PROJECT_DIR`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..core import messages
from ..core.event import HANDLED_EVENTS, Client
from ..core.host import Capabilities
from ..core.outcome import Failure, Outcome, classify_response, outcome_fingerprint, result_text
from ..core.verdict import Action, Decision
from .payload import json_text

CLIENT = Client.CURSOR

#: Cursor's hook events by the names the guard reads; the others (`beforeShellExecution`,
#: `afterFileEdit`, `beforeReadFile`…) get exit 0 and no output.
EVENT_NAMES = {
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "beforeSubmitPrompt": "UserPromptSubmit",
    "sessionStart": "SessionStart",
    "sessionEnd": "SessionEnd",
    "stop": "Stop",
    "subagentStop": "SubagentStop",
}
#: Every event `install` registers in `hooks.json`, in the order it writes them.
INSTALL_EVENTS = tuple(EVENT_NAMES)
#: Back again, for `log` (`hosts.host_event`).
OWN_NAMES = {ours: theirs for theirs, ours in EVENT_NAMES.items()}

#: Environment variables Cursor gives every hook (CLI 2026.09.18, `buildHookEnvironment`).
ENVIRONMENT = ("CURSOR_VERSION", "CURSOR_PROJECT_DIR")

CAPABILITIES = Capabilities(
    context=frozenset({"PostToolUse", "SessionStart"}),
    deny=frozenset({"PreToolUse"}),
    end_turn=frozenset(),
    block=frozenset(),
    system_message=frozenset(),
    sends=HANDLED_EVENTS - {"PostToolBatch"},
    turn_end_fallback="answer_only",
    fails_closed=True,
)


#: What marks the guard's own registration in a `hooks.json` (`install --client cursor`).
INSTALL_MARK = "--client cursor"


def own_install(cwd: str | None, environ: Mapping[str, str]) -> bool:
    """Whether Cursor runs the guard from its own `hooks.json` here (`~/.cursor/hooks.json` or
    `cwd`'s `.cursor/hooks.json` naming `--client cursor`): then a copy run from Claude Code's
    settings stays silent (`hosts.borrowed`)."""
    home = environ.get("HOME") or os.path.expanduser("~")
    places = [os.path.join(home, ".cursor", "hooks.json")]
    if cwd:
        places.append(os.path.join(cwd, ".cursor", "hooks.json"))
    from ..config.load import read_regular_file  # non-blocking, regular files only

    for path in places:
        try:  # a FIFO planted there must not hang the hook; a NUL in `cwd` is no path
            if INSTALL_MARK.encode() in read_regular_file(path, 1 << 20):
                return True
        except (OSError, ValueError):
            continue
    return False


#: Keys only Cursor sends (also how `hosts.client_from_head` tells a payload not yet parsed).
MARKS = ("cursor_version", "conversation_id")


def recognises(data: Mapping[str, Any]) -> bool:
    """`cursor_version` or `conversation_id` (`MARKS`): only Cursor sends them."""
    return any(key in data for key in MARKS)


def _output(value: Any) -> Any:
    """`tool_output` (a JSON text) as the object it holds; other values as they are."""
    return json_text(value) if isinstance(value, str) and value[:1] in ("{", "[") else value


def normalise(data: dict[str, Any], event: str | None) -> dict[str, Any]:
    """Cursor's payload with the fields the guard reads named as Claude Code names them."""
    name = event or data.get("hook_event_name")
    name = EVENT_NAMES.get(name, name) if isinstance(name, str) else name
    cwd = data.get("cwd")
    roots = data.get("workspace_roots")
    if not isinstance(cwd, str) and isinstance(roots, list) and roots and isinstance(roots[0], str):
        cwd = roots[0]
    out: dict[str, Any] = {
        "hook_event_name": name,
        "session_id": data.get("conversation_id") or data.get("session_id"),
        "cwd": cwd,
    }
    if isinstance(data.get("transcript_path"), str):
        out["transcript_path"] = data["transcript_path"]
    if name in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        out["tool_name"] = data.get("tool_name")
        out["tool_input"] = _output(data.get("tool_input"))
        if isinstance(data.get("tool_use_id"), str):
            out["tool_use_id"] = data["tool_use_id"]
        if name == "PostToolUse":
            out["tool_response"] = _output(data.get("tool_output", data.get("tool_response")))
        else:
            out["error"] = data.get("error_message", data.get("error"))
            out["is_interrupt"] = data.get("is_interrupt") is True
    elif name == "UserPromptSubmit":
        out["prompt"] = data.get("prompt")
    elif name in ("Stop", "SubagentStop"):
        loops = data.get("loop_count")
        out["stop_hook_active"] = isinstance(loops, int) and loops > 0
        if isinstance(data.get("summary"), str):
            out["last_assistant_message"] = data["summary"]
        if isinstance(data.get("agent_transcript_path"), str):
            out["agent_transcript_path"] = data["agent_transcript_path"]
        if isinstance(data.get("subagent_id"), str) and name == "SubagentStop":
            out["agent_id"] = data["subagent_id"]
    return out


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """A Shell result `{"output", "exitCode"}`: failed when the exit code is not 0 (Cursor sends
    those as postToolUseFailure; a forced one is read alike); other results as the shared rules
    read them."""
    failure = classify_response(tool, response)
    text = result_text(response)
    if isinstance(response, dict) and ("exitCode" in response or "output" in response):
        code = response.get("exitCode")
        if isinstance(code, int) and code != 0:
            failure = Failure.HARD
        if isinstance(response.get("output"), str):
            text = response["output"]
    return Outcome(fingerprint=outcome_fingerprint(response, mutation=mutation, now=now), failure=failure, text=text)


def denied_in_batch(text: str) -> bool:
    """Cursor sends no PostToolBatch; nothing reads as a hook's denial."""
    return False


def cancelled_in_batch(text: str) -> bool:
    """Never: Cursor sends no PostToolBatch."""
    return False


#: What the user sees in Cursor's client when the guard denies a call (the model gets the text).
USER_MESSAGE = "loopguard-hook denied a repeated call; the agent was told why."


def wire(decision: Decision, event: str) -> dict[str, Any] | None:
    """Cursor's own form: a denial as `permission: "deny"` with the text in `agent_message` (what
    the model reads) and a short `user_message`; a reminder as `additional_context` where Cursor
    carries one (postToolUse, sessionStart). Never `permission: "allow"` (it would skip the
    user's approval), never `continue` or `followup_message`."""
    if decision.action is Action.ALLOW:
        return None
    text = messages.fit(decision.message)
    if decision.action >= Action.DENY and event in CAPABILITIES.deny:
        return {"permission": "deny", "agent_message": text, "user_message": USER_MESSAGE}
    if event in CAPABILITIES.context:
        return {"additional_context": text}
    return None
