"""What each client accepts on a hook's stdout, as a checker for tests.

Facts: Claude Code 2.1.332 output schema (research notes §4), Codex 0.171.0 embedded output
schemas (`*.command.output`, `additionalProperties: false`; research notes §7), and for Copilot
CLI, Droid and Cursor what takes effect (their host modules).
"""

from __future__ import annotations

import json
from typing import Any

from loopguard_hook.hook import HookResult

CODEX_TOP = {
    "PreToolUse": {"systemMessage", "hookSpecificOutput", "decision", "reason"},
    "PostToolUse": {"systemMessage", "hookSpecificOutput", "decision", "reason"},
    "UserPromptSubmit": {"systemMessage", "hookSpecificOutput", "decision", "reason", "continue", "stopReason"},
    "SessionStart": {"systemMessage", "hookSpecificOutput", "continue", "stopReason"},
    "Stop": {"systemMessage", "decision", "reason", "continue", "stopReason"},
    "SubagentStop": {"systemMessage", "decision", "reason", "continue", "stopReason"},
}
CODEX_SPECIFIC = {
    "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReason", "additionalContext"},
    "PostToolUse": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
}
#: What takes effect on the DeepSeek Harness bridges (DSH 0.1.0-rc.8, research/dsh-hooks.md §4):
#: a PreToolUse deny, and context on PostToolUse and UserPromptSubmit. The guard prints nothing
#: else there (`continue`, `systemMessage` and PreToolUse context would reach nobody).
DSH_SPECIFIC = {
    "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReason"},
    "PostToolUse": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
}
#: What takes effect on Qwen Code 0.24.4 (research/qwen-code-hooks.md §5): a PreToolUse deny;
#: context appended to a result (PostToolUse, PostToolUseFailure, PostToolBatch), on
#: UserPromptSubmit and SessionStart; a `decision: "block"` on a continuation's UserPromptSubmit
#: (the end of the turn). PreToolUse context and `systemMessage` reach nobody.
QWEN_SPECIFIC = {
    "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReason"},
    "PostToolUse": {"hookEventName", "additionalContext"},
    "PostToolUseFailure": {"hookEventName", "additionalContext"},
    "PostToolBatch": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
}
#: Gemini CLI 0.61.0 (research/gemini-cli-hooks.md §5), by the guard's names for its events:
#: a denial only as top-level `decision: "deny"` + `reason` (Claude Code's form is ignored),
#: context only on AfterTool, BeforeAgent and SessionStart, under Gemini's event name.
GEMINI_TOP = {
    "PreToolUse": {"decision", "reason", "continue", "stopReason", "systemMessage"},
    "PostToolUse": {"hookSpecificOutput", "continue", "stopReason", "systemMessage"},
    "UserPromptSubmit": {"hookSpecificOutput"},
    "SessionStart": {"hookSpecificOutput"},
    "Stop": {"continue", "stopReason"},
}
GEMINI_NAMES = {"PostToolUse": "AfterTool", "UserPromptSubmit": "BeforeAgent", "SessionStart": "SessionStart"}
CLAUDE_TOP = {"continue", "suppressOutput", "stopReason", "decision", "reason", "systemMessage", "hookSpecificOutput"}
CLAUDE_SPECIFIC = {
    "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReason", "additionalContext"},
    "PostToolUse": {"hookEventName", "additionalContext"},
    "PostToolUseFailure": {"hookEventName", "additionalContext"},
    "PostToolBatch": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
}


#: GitHub Copilot CLI 1.0.102 (notes/copilot-droid-hooks.md §3): the top-level fields that take
#: effect on each event; the nested deny copy is read by PascalCase files.
COPILOT_TOP = {
    "PreToolUse": {"permissionDecision", "permissionDecisionReason", "additionalContext", "hookSpecificOutput"},
    "PostToolUse": {"additionalContext"},
    "PostToolUseFailure": {"additionalContext"},
    "UserPromptSubmit": {"additionalContext"},
    "SessionStart": {"additionalContext"},
}
#: Factory Droid 0.215.0 (§5): nested context on PostToolUse and SessionStart, a nested deny on
#: PreToolUse, `continue: false` on both tool events.
DROID_SPECIFIC = {
    "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReason"},
    "PostToolUse": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
}
#: Cursor's documented output schemas (cursor.com/docs/hooks.md): preToolUse's permission
#: fields, postToolUse's and sessionStart's `additional_context` (dropped over 10,000 characters).
CURSOR_TOP = {
    "PreToolUse": {"permission", "agent_message", "user_message"},
    "PostToolUse": {"additional_context"},
    "SessionStart": {"additional_context"},
}


def _new_host(out: dict[str, Any], event: str, client: str) -> list[str]:
    """Problems with an answer for Copilot, Droid or Cursor."""
    if client == "copilot":
        allowed = COPILOT_TOP.get(event)
        if allowed is None:
            return [f"nothing printed on {event} reaches Copilot's model"]
        problems = [f"Copilot ignores top-level {sorted(set(out) - allowed)} on {event}"] if set(out) - allowed else []
        if "permissionDecision" in out and (out["permissionDecision"] != "deny" or not out.get("permissionDecisionReason")):
            problems.append("a Copilot denial is permissionDecision 'deny' with a reason")
        specific = out.get("hookSpecificOutput")
        if specific is not None and specific.get("permissionDecisionReason") != out.get("permissionDecisionReason"):
            problems.append("the nested deny copy must say what the top-level one says (one denial)")
        if "additionalContext" in out and "permissionDecision" in out:
            problems.append("a denial and a reminder in one answer")
        return problems
    if client == "droid":
        allowed = DROID_SPECIFIC.get(event)
        specific = out.get("hookSpecificOutput")
        if allowed is None or not isinstance(specific, dict):
            return [f"Droid reads only hookSpecificOutput on {', '.join(DROID_SPECIFIC)}; got {sorted(out)} on {event}"]
        problems = [f"Droid ignores top-level {sorted(set(out) - {'hookSpecificOutput', 'continue', 'stopReason'})}"] if (
            set(out) - {"hookSpecificOutput", "continue", "stopReason"}
        ) else []
        if set(specific) - allowed:
            problems.append(f"Droid ignores hookSpecificOutput {sorted(set(specific) - allowed)} on {event}")
        if specific.get("hookEventName") != event:
            problems.append(f"hookEventName {specific.get('hookEventName')!r} != {event!r}")
        if "continue" in out and (out["continue"] is not False or event not in ("PreToolUse", "PostToolUse")):
            problems.append("continue: false only on PreToolUse/PostToolUse")
        return problems
    allowed = CURSOR_TOP.get(event)
    if allowed is None:
        return [f"Cursor reads no answer on {event}"]
    problems = [f"Cursor's schema has no {sorted(set(out) - allowed)} on {event}"] if set(out) - allowed else []
    if event == "PreToolUse" and (out.get("permission") != "deny" or not out.get("agent_message")):
        problems.append("the guard's only preToolUse answer is permission 'deny' with an agent_message")
    for key in ("additional_context", "agent_message", "user_message"):
        if key in out and (not isinstance(out[key], str) or len(out[key]) > 10000):
            problems.append(f"{key} must be a string of at most 10,000 characters")
    return problems


def validate_output(stdout: bytes, event: str, client: str) -> list[str]:
    """Problems with `stdout` as the answer to `event` for `client` (empty list: valid)."""
    if not stdout:
        return []
    problems: list[str] = []
    text = stdout.decode("utf-8")
    if text.count("\n") > 1 or not text.endswith("\n"):
        problems.append("stdout must be one JSON object on one line")
    try:
        out: Any = json.loads(text)
    except ValueError as exc:
        return [f"stdout is not JSON: {exc}"]
    if not isinstance(out, dict):
        return ["stdout is not a JSON object"]
    if client in ("copilot", "droid", "cursor"):
        return problems + _new_host(out, event, client)
    specific = out.get("hookSpecificOutput")
    if client == "gemini-cli":
        return _gemini(out, event)
    if client == "qwen-code":
        if event == "UserPromptSubmit" and out.get("decision") is not None:
            if out != {"decision": "block", "reason": out.get("reason")} or not out.get("reason"):
                problems.append(f"a Qwen end of turn is decision block with a reason, got {out}")
            return problems
        if set(out) - {"hookSpecificOutput"}:
            problems.append(f"Qwen applies no top-level {sorted(set(out) - {'hookSpecificOutput'})} here")
        if specific is None or set(specific) - QWEN_SPECIFIC.get(event, set()):
            problems.append(f"Qwen ignores {specific} on {event}")
    elif client.startswith("dsh-"):
        if event not in DSH_SPECIFIC:
            return [f"nothing printed on {event} reaches the model on DSH"]
        extra = set(out) - {"hookSpecificOutput"}
        if extra:
            problems.append(f"DSH applies no top-level {sorted(extra)}")
        if specific is None:
            problems.append("DSH reads only hookSpecificOutput")
        elif set(specific) - DSH_SPECIFIC[event]:
            problems.append(f"DSH ignores hookSpecificOutput {sorted(set(specific) - DSH_SPECIFIC[event])} on {event}")
    elif client == "codex":
        allowed = CODEX_TOP.get(event)
        if allowed is None:
            return [f"Codex sends no {event}; nothing may be printed"]
        extra = set(out) - allowed
        if extra:
            problems.append(f"Codex rejects top-level {sorted(extra)} on {event}")
        if specific is not None:
            extra = set(specific) - CODEX_SPECIFIC.get(event, set())
            if extra:
                problems.append(f"Codex rejects hookSpecificOutput {sorted(extra)} on {event}")
    else:
        extra = set(out) - CLAUDE_TOP
        if extra:
            problems.append(f"Claude Code does not know {sorted(extra)}")
        if specific is not None:
            extra = set(specific) - CLAUDE_SPECIFIC.get(event, set())
            if extra:
                problems.append(f"Claude Code rejects hookSpecificOutput {sorted(extra)} on {event}")
    if specific is not None:
        if specific.get("hookEventName") != event:
            problems.append(f"hookEventName {specific.get('hookEventName')!r} != {event!r}")
        decision = specific.get("permissionDecision")
        if decision is not None and decision != "deny":
            problems.append(f"permissionDecision {decision!r}: the guard only ever denies")
        if decision == "deny" and not specific.get("permissionDecisionReason"):
            problems.append("a denial needs a non-empty reason")
        for key in ("additionalContext", "permissionDecisionReason"):
            if key in specific and (not isinstance(specific[key], str) or len(specific[key]) > 9500):
                problems.append(f"{key} must be a string under ~9,500 characters")
    if out.get("continue") is not None and out.get("continue") is not False:
        problems.append("continue, when present, is false")
    if out.get("decision") is not None:
        problems.append("the guard never uses the legacy decision field")
    return problems


def _gemini(out: dict[str, Any], event: str) -> list[str]:
    """Problems with `out` as Gemini CLI's answer to `event` (the guard's name for it)."""
    allowed = GEMINI_TOP.get(event)
    if allowed is None:
        return [f"nothing printed on {event} reaches anyone on Gemini CLI"]
    problems = [f"Gemini CLI ignores top-level {sorted(set(out) - allowed)} on {event}"] if set(out) - allowed else []
    if "decision" in out and (out["decision"] != "deny" or not isinstance(out.get("reason"), str) or not out["reason"]):
        problems.append(f"a Gemini denial is decision deny with a reason, got {out}")
    specific = out.get("hookSpecificOutput")
    if specific is not None and (
        set(specific) != {"hookEventName", "additionalContext"} or specific["hookEventName"] != GEMINI_NAMES.get(event)
    ):
        problems.append(f"Gemini context is {{hookEventName: {GEMINI_NAMES.get(event)}, additionalContext}}, got {specific}")
    if out.get("continue") is not None and out.get("continue") is not False:
        problems.append("continue, when present, is false")
    return problems


def validate(result: HookResult, client: str) -> list[str]:
    """Check a hook result: exit code, stderr shape, and stdout for the client."""
    problems: list[str] = []
    if result.exit_code not in (0, 1):
        problems.append(f"exit code {int(result.exit_code)}")
    if result.exit_code == 1 and result.stdout:
        problems.append("stdout must be empty on exit 1")
    if "Traceback" in result.stderr:
        problems.append("traceback on stderr")
    event = result.event.event if result.event is not None else ""
    problems.extend(validate_output(result.stdout, event, client))
    return problems
