"""Capture mode: real Qwen Code payloads of every event that fires, saved with neutral paths.

    .venv/bin/python -m tests.e2e.qwen_code.capture [--dest DIR]

Runs the real Qwen Code twice with the probe hook on all 22 events: `capture_all` (every tool,
a failing command, a missing file, a rejected relative path, a parallel batch, a subagent; the
first Stop blocked once, so a Stop with `stop_hook_active` follows) and the same shell command
six times with the 3rd call denied (a denied call's PostToolBatch, then Qwen's own loop halt:
StopFailure). Writes `<Event>[.<tool>][.<variant>].json` (the first payload of each kind),
`all.jsonl` (every payload in order) and `capture.json` to `tests/e2e/qwen_code/payloads/` by
default, replacing an earlier capture. Paths are neutral (`/home/user/project`, `/home/user`,
`-home-user-project`); session ids, call ids and timestamps are as captured.

Variants: `subagent` (`agent_id` set), `unchanged` (read_file's "unchanged since last read"
stub), `continuation` (UserPromptSubmit before a tool-result continuation: `prompt` is "" and
there is no `submitted_prompt`), `retry` (Stop with `stop_hook_active`), PostToolBatch's
`error_type` (`execution_denied`, `invalid_tool_params`, `file_not_found`,
`shell_execute_error`), SessionStart's source, StopFailure's error, Notification's type,
MessageDisplay `final`/`partial`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..clients import Workspace
from ..node_clis import HostRun, install, probe_command, write_payloads
from . import scenarios
from .host import EVENTS, QWEN_CODE, QwenCode

DEST = Path(__file__).with_name("payloads")
STOP_ONCE = [{"event": "Stop", "nth": 1, "stdout": {"decision": "block", "reason": "Check the notes once more."}}]
DENY_THIRD = [
    {
        "event": "PreToolUse",
        "nth": 3,
        "stdout": {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Denied by the capture run.",
            }
        },
    }
]


def capture_run(qwen: QwenCode, ws: Workspace) -> HostRun:
    """The `capture_all` run: every tool, with the probe logging every event (Stop blocked once)."""
    scenario = scenarios.capture_all(ws.work)
    scenario.prepare(ws)
    return qwen.run(ws, scenario.script, scenario.prompt, command=probe_command(ws, STOP_ONCE))


def loop_run(qwen: QwenCode, ws: Workspace) -> HostRun:
    """The same shell command six times, the 3rd denied: Qwen halts the run at the 5th."""
    scenario = scenarios.same_shell(6)
    scenario.prepare(ws)
    return qwen.run(ws, scenario.script, scenario.prompt, command=probe_command(ws, DENY_THIRD))


def kind(payload: dict[str, Any]) -> str:
    """`<Event>[.<tool>][.<variant>]` of one payload."""
    event = str(payload.get("hook_event_name"))
    parts: list[Any] = [event]
    if event == "PostToolBatch" and payload.get("tool_calls"):
        first = payload["tool_calls"][0]
        parts += [first.get("tool_name"), (first.get("tool_response") or {}).get("error_type")]
    elif payload.get("tool_name"):
        parts.append(payload["tool_name"])
        llm = str((payload.get("tool_response") or {}).get("llmContent", ""))
        if "unchanged since last read" in llm:
            parts.append("unchanged")
    if event == "UserPromptSubmit" and "submitted_prompt" not in payload:
        parts.append("continuation")
    if event in ("Stop", "SubagentStop") and payload.get("stop_hook_active"):
        parts.append("retry")
    for field, events in (("source", ("SessionStart",)), ("error", ("StopFailure",)), ("notification_type", ("Notification",))):
        if event in events and payload.get(field):
            parts.append(payload[field])
    if event == "MessageDisplay":
        parts.append("final" if payload.get("is_final") else "partial")
    if payload.get("agent_id") and event not in ("SubagentStart", "SubagentStop"):
        parts.append("subagent")
    return ".".join(str(p) for p in parts if p)


def kinds(payloads: list[dict[str, Any]]) -> list[str]:
    return [kind(p) for p in payloads]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=DEST, help=f"where to write (default {DEST})")
    args = parser.parse_args(argv)
    qwen = QwenCode(install(QWEN_CODE))
    with tempfile.TemporaryDirectory(prefix="qwen-capture-") as tmp:
        runs = [
            capture_run(qwen, Workspace.create(Path(tmp) / "capture_all")),
            loop_run(qwen, Workspace.create(Path(tmp) / "loop")),
        ]
        for run in runs:
            print(f"{run.ws.root.name}: exit {run.exit_code} in {run.seconds} s, {len(run.payloads())} payloads", file=sys.stderr)
        meta = {
            "host": "qwen-code",
            "version": qwen.installed.version(),
            "registered": list(EVENTS),
            "runs": ["capture_all (Stop blocked once)", "shell_x6 (3rd PreToolUse denied; Qwen halts at the 5th)"],
        }
        names = write_payloads(args.dest, runs, kinds, meta)
    print("\n".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
