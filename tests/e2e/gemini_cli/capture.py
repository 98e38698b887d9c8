"""Capture mode: real Gemini CLI payloads of every event that fires, saved with neutral paths.

    .venv/bin/python -m tests.e2e.gemini_cli.capture [--dest DIR]

Runs the real Gemini CLI twice with the probe hook on all 11 events: `capture_all` (every tool,
a command exiting 1, a missing file, a call without arguments, a parallel batch, the generalist
subagent; the first AfterAgent blocked once, so a BeforeAgent carrying the block's reason and an
AfterAgent with `stop_hook_active` follow) and the same shell command six times with the 3rd
call denied (then Gemini's own loop detection cuts the 5th and halts on the 6th). Writes
`<Event>[.<tool>][.<variant>].json` (the first payload of each kind), `all.jsonl` (every
payload in order) and `capture.json` to `tests/e2e/gemini_cli/payloads/` by default, replacing
an earlier capture. Paths are neutral (`/home/user/project`, `/home/user`, Gemini's
per-project folder `~/.gemini/tmp/project`); session ids and timestamps are as captured.

Variants: `failed` (`tool_response.error` present), `nonzero-exit` (a shell exit != 0, which is
no error for Gemini), `subagent` (a call made inside `invoke_agent`: the payload itself does not
say so, it is inferred from the surrounding BeforeTool/AfterTool of `invoke_agent`), `retry`
(AfterAgent with `stop_hook_active`), `after-afteragent-block` (the BeforeAgent whose `prompt`
is the block's reason), SessionStart's source, SessionEnd's reason, PreCompress's trigger.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..clients import Workspace
from ..node_clis import HostRun, install, probe_command, write_payloads
from . import scenarios
from .host import EVENTS, GEMINI_CLI, GeminiCli

DEST = Path(__file__).with_name("payloads")
AFTER_AGENT_ONCE = [{"event": "AfterAgent", "nth": 1, "stdout": {"decision": "block", "reason": "Check the notes once more."}}]
DENY_THIRD = [{"event": "BeforeTool", "nth": 3, "stdout": {"decision": "deny", "reason": "Denied by the capture run."}}]


def capture_run(gemini: GeminiCli, ws: Workspace) -> HostRun:
    """The `capture_all` run: every tool, with the probe logging every event (AfterAgent blocked once)."""
    scenario = scenarios.capture_all(ws.work)
    scenario.prepare(ws)
    return gemini.run(ws, scenario.script, scenario.prompt, command=probe_command(ws, AFTER_AGENT_ONCE))


def loop_run(gemini: GeminiCli, ws: Workspace) -> HostRun:
    """The same shell command six times, the 3rd denied: Gemini cuts the 5th and halts on the 6th."""
    scenario = scenarios.same_shell(6)
    scenario.prepare(ws)
    return gemini.run(ws, scenario.script, scenario.prompt, command=probe_command(ws, DENY_THIRD))


def kinds(payloads: list[dict[str, Any]]) -> list[str]:
    """`<Event>[.<tool>][.<variant>]` of each payload of one run, in order."""
    out = []
    open_agents = 0
    after_agent_seen = False
    for p in payloads:
        event = str(p.get("hook_event_name"))
        parts = [event]
        tool = p.get("tool_name")
        if tool:
            parts.append(tool)
            response = p.get("tool_response") or {}
            if isinstance(response, dict) and response.get("error"):
                parts.append("failed")
            elif isinstance(response, dict) and re.search(r"Exit Code: [1-9]", str(response.get("llmContent", ""))):
                parts.append("nonzero-exit")
            if tool == "invoke_agent":
                open_agents += 1 if event == "BeforeTool" else -1 if event == "AfterTool" else 0
            elif open_agents > 0:
                parts.append("subagent")
        if event == "AfterAgent":
            if p.get("stop_hook_active"):
                parts.append("retry")
            after_agent_seen = True
        if event == "BeforeAgent" and after_agent_seen:
            parts.append("after-afteragent-block")
        for field, on in (("source", "SessionStart"), ("reason", "SessionEnd"), ("trigger", "PreCompress")):
            if event == on and p.get(field):
                parts.append(str(p[field]))
        out.append(".".join(parts))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dest", type=Path, default=DEST, help=f"where to write (default {DEST})")
    args = parser.parse_args(argv)
    gemini = GeminiCli(install(GEMINI_CLI))
    with tempfile.TemporaryDirectory(prefix="gemini-capture-") as tmp:
        runs = [
            capture_run(gemini, Workspace.create(Path(tmp) / "capture_all")),
            loop_run(gemini, Workspace.create(Path(tmp) / "loop")),
        ]
        for run in runs:
            print(f"{run.ws.root.name}: exit {run.exit_code} in {run.seconds} s, {len(run.payloads())} payloads", file=sys.stderr)
        meta = {
            "host": "gemini-cli",
            "version": gemini.installed.version(),
            "registered": list(EVENTS),
            "runs": [
                "capture_all (AfterAgent blocked once)",
                "shell_x6 (3rd BeforeTool denied; Gemini cuts the 5th, halts on the 6th)",
            ],
        }
        names = write_payloads(args.dest, runs, kinds, meta)
    print("\n".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
