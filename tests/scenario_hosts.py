"""Golden scenarios in the payload shapes of Qwen Code 0.24.4 and Gemini CLI 0.61.0
(`"clients": ["qwen-code", "gemini-cli"]`, never a default), as the real hosts send them.

Steps are written with the host's own tool names and results (`run_shell_command`,
`read_file`, …): `response` is the `llmContent` the model gets (a string), `error` a failure
text. Only single calls (no `batch`, `rejected`, `refused`) and literal events. Each call expands
to what the host fires (the captured payloads in `tests/e2e/*/payloads/`):

- Qwen Code: PreToolUse (with Qwen's `toolu_…` id and the model's `tool_call_id`), then
  PostToolUse, or PostToolUseFailure for an `error`, then a one-entry PostToolBatch (a denied
  call gets only that, `status: "error"`, `error_type: "execution_denied"`), then the
  UserPromptSubmit of the tool continuation (`prompt: ""`, no `submitted_prompt`), expected
  silent unless the step says `"continuation": E`. A literal UserPromptSubmit is a real prompt
  (`submitted_prompt` set) unless it says `"continuation": true`.
- Gemini CLI: BeforeTool, then (unless denied) AfterTool, its `tool_response.error` set for an
  `error`. No call id. A literal UserPromptSubmit is sent as BeforeAgent, Stop as AfterAgent
  (`last_assistant_message` as `prompt_response`).

The hook is run with `--client auto`: every answer also checks that the payload was recognised as
the host's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenario import Runner

HOST_CLIENTS = ("qwen-code", "gemini-cli")
GEMINI_EVENTS = {"UserPromptSubmit": "BeforeAgent", "Stop": "AfterAgent"}


def base(client: str, session_id: str, agent_id: str | None, turn: int) -> dict[str, Any]:
    """The fields every event of `client` carries."""
    if client == "qwen-code":
        out: dict[str, Any] = {
            "session_id": session_id,
            "transcript_path": f"/home/user/.qwen/projects/-home-user-project/chats/{session_id}.jsonl",
            "cwd": "/home/user/project",
            "timestamp": "2026-12-02T05:50:38.869Z",
            "permission_mode": "yolo",
            "prompt_id": f"{session_id}########{max(turn - 1, 0)}",
        }
        if agent_id:
            out.update(agent_id=agent_id, agent_type="general-purpose")
        return out
    return {
        "session_id": session_id,
        "transcript_path": f"/home/user/.gemini/tmp/project/chats/session-2026-12-02T05-55-{session_id[:8]}.jsonl",
        "cwd": "/home/user/project",
        "timestamp": "2026-12-02T05:55:11.232Z",
    }


def play(runner: Runner, steps: list[dict[str, Any]]) -> list[str]:
    """Every step of a host scenario through the hook; the mismatches."""
    from scenario import START, Step, expected

    errors: list[str] = []
    client = runner.client
    named: dict[str, dict[str, Any]] = {}
    t = 0.0
    turn = 0
    for position, raw in enumerate(steps):
        step = dict(raw)
        if "same" in step:
            step = {**named[step["same"]], **{k: v for k, v in step.items() if k != "same"}}
        elif "id" in step:
            named[step["id"]] = {k: v for k, v in step.items() if k not in ("id", "pre", "post", "t", "note", "continuation")}
        if any(k in step for k in ("batch", "rejected", "refused")):
            raise ValueError(f"step {position}: host scenarios take single calls only")
        t = float(step["t"]) if "t" in step else t + 2.0
        now = START + t
        if "event" in step:
            event = step["event"]
            continuation = step.get("continuation") is True
            if event == "UserPromptSubmit" and not continuation:
                turn += 1
            payload = base(client, step.get("session_id", "s1"), step.get("agent_id"), turn)
            payload.update({k: v for k, v in step.items() if k not in ("event", "expect", "t", "note", "id", "continuation")})
            if client == "qwen-code" and event == "UserPromptSubmit":
                if continuation:
                    payload["prompt"] = ""
                else:
                    payload["submitted_prompt"] = payload.get("prompt", "")
            if client == "gemini-cli":
                if event == "Stop":
                    payload["prompt_response"] = payload.pop("last_assistant_message", None)
                    payload["stop_hook_active"] = bool(payload.get("stop_hook_active", False))
                event = GEMINI_EVENTS.get(event, event)
            payload["hook_event_name"] = event
            want = expected(step.get("expect"), runner.profile, client)
            result = runner.send(Step(position, event, payload, want, step.get("note", "")), now)
            errors += runner.check(position, event, want, result, where=(position, "expect"))
            continue
        errors += _call(runner, position, step, base(client, step.get("session_id", "s1"), step.get("agent_id"), turn), now)
    return errors


def _call(runner: Runner, index: int, step: dict[str, Any], common: dict[str, Any], now: float) -> list[str]:
    """One tool call as the host reports it."""
    from scenario import Step, expected

    client, profile = runner.client, runner.profile
    tool, tool_input = step["call"], step.get("input", {})
    error, response = step.get("error"), step.get("response", "")
    call_id = f"call_main_{index}_0"
    errors: list[str] = []
    pre = dict(common, tool_name=tool, tool_input=tool_input)
    if client == "qwen-code":
        pre.update(hook_event_name="PreToolUse", tool_use_id=f"toolu_17961869{index:05d}_abcdefghi", tool_call_id=call_id)
    else:
        pre["hook_event_name"] = "BeforeTool"
    want = expected(step.get("pre"), profile, client)
    result = runner.send(Step(index, pre["hook_event_name"], pre, want, step.get("note", "")), now)
    errors += runner.check(index, f"{pre['hook_event_name']} {tool}", want, result, where=(index, "pre"))
    denied = denial(result.stdout, client)
    want = expected(step.get("post"), profile, client)
    if client == "gemini-cli":
        if denied is None:
            out: dict[str, Any] = {"llmContent": error if error is not None else response, "returnDisplay": ""}
            if error is not None:
                out["error"] = {"message": error, "type": "execution_failed"}
            post = dict(common, hook_event_name="AfterTool", tool_name=tool, tool_input=tool_input, tool_response=out)
            result = runner.send(Step(index, "AfterTool", post, want), now + 0.5)
            errors += runner.check(index, f"AfterTool {tool}", want, result, where=(index, "post"))
        return errors
    ids = {"tool_use_id": pre["tool_use_id"], "tool_call_id": call_id}
    if denied is None:
        if error is not None:
            post = dict(common, hook_event_name="PostToolUseFailure", tool_name=tool, tool_input=tool_input, error=error,
                        is_interrupt=False, duration_ms=12, **ids)
        else:
            post = dict(common, hook_event_name="PostToolUse", tool_name=tool, tool_input=tool_input,
                        tool_response={"llmContent": response, "returnDisplay": ""}, duration_ms=12, **ids)
        result = runner.send(Step(index, post["hook_event_name"], post, want), now + 0.5)
        errors += runner.check(index, f"{post['hook_event_name']} {tool}", want, result, where=(index, "post"))
        text = error if error is not None else response
        entry = {"status": "error" if error is not None else "success", "tool_response": {
            "response_parts": [{"functionResponse": {"id": call_id, "name": tool, "response": (
                {"error": text} if error is not None else {"output": text})}}],
            "result_display": text, "execution_status": "completed", "content_length": len(text),
            **({"error": text, "error_type": "shell_execute_error"} if error is not None else {}),
        }}
    else:
        entry = {"status": "error", "tool_response": {
            "response_parts": [{"functionResponse": {"id": call_id, "name": tool, "response": {"error": denied}}}],
            "result_display": denied, "error": denied, "error_type": "execution_denied",
            "execution_status": "not_started", "content_length": len(denied),
        }}
    batch = dict(common, hook_event_name="PostToolBatch", tool_calls=[
        {"tool_name": tool, "tool_input": tool_input, "tool_use_id": call_id, "tool_call_id": call_id, **entry}
    ])
    result = runner.send(Step(index, "PostToolBatch", batch, "silent"), now + 0.7)
    errors += runner.check(index, "PostToolBatch", "silent", result)
    want = expected(step.get("continuation"), profile, client)
    prompt = dict(common, hook_event_name="UserPromptSubmit", prompt="")
    prompt.pop("agent_id", None)
    prompt.pop("agent_type", None)
    if "agent_id" not in common:  # a subagent's turn fires no UserPromptSubmit
        result = runner.send(Step(index, "UserPromptSubmit", prompt, want, "continuation"), now + 0.9)
        errors += runner.check(index, "UserPromptSubmit (continuation)", want, result, where=(index, "continuation"))
    return errors


def denial(stdout: bytes, client: str) -> str | None:
    """The reason of a denial in `client`'s wire form, or None when `stdout` denies nothing."""
    if not stdout:
        return None
    out = json.loads(stdout)
    if client == "gemini-cli":
        return str(out["reason"]) if out.get("decision") == "deny" else None
    specific = out.get("hookSpecificOutput") or {}
    return str(specific["permissionDecisionReason"]) if specific.get("permissionDecision") == "deny" else None
