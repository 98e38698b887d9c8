"""Run the real Gemini CLI 0.61.0 headless (`gemini -p PROMPT --approval-mode yolo`) against
`GeminiMock`, with a hook command registered on every hook event it has.

Gemini CLI facts used here (shared/research/gemini-cli-hooks.md, verified against 0.61.0):

- User settings are `$HOME/.gemini/settings.json`; `GOOGLE_GEMINI_BASE_URL` points the client at
  the mock, `GEMINI_API_KEY` with `security.auth.selectedType: "gemini-api-key"` authenticates.
- Folder trust is enforced headless: an untrusted folder exits 55 before any request;
  `GEMINI_CLI_TRUST_WORKSPACE=true` trusts the scratch workspace.
- Hooks use Claude Code's shape with Gemini's own 11 event names; `timeout` is in
  **milliseconds**. Matchers are regexes on the tool name for BeforeTool/AfterTool and exact
  strings for the others; `*` matches everything everywhere.
- A hook that exits 2 or more blocks, **127 included**: a missing hook command denies every
  tool call ("Tool execution blocked: bash: line 1: …: command not found"). A product command
  meant to fail open is registered as `<command> || true`; this writer takes the command as
  given, so the tests can show both.
- Exit status 0 also when its loop detection halts the run (the 5th identical consecutive call
  is cut before BeforeTool and the turn retried with a "Potential loop detected" notice; a 6th
  ends the run without AfterAgent).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..clients import HOOK_BIN, Workspace, _run_process, base_env
from ..mock_model import Script
from ..node_clis import HostRun, Installed, NodeCli, hook_groups
from .mock_gemini import GeminiMock

GEMINI_CLI = NodeCli("gemini-cli", "@google/gemini-cli", "0.61.0", "bundle/gemini.js")

#: Every hook event of Gemini CLI 0.61.0 (its `HookEventName` enum).
EVENTS = (
    "BeforeTool",
    "AfterTool",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "SessionStart",
    "SessionEnd",
    "PreCompress",
    "Notification",
)
#: Milliseconds.
HOOK_TIMEOUT_MS = 30_000
RUN_TIMEOUT_SECONDS = 50

#: API-key auth, nothing sent anywhere else, no update check.
BASE_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def settings(
    command: str | None, *, events: tuple[str, ...] = EVENTS, timeout_ms: int = HOOK_TIMEOUT_MS,
    settings_file: Path | None = None,
) -> dict[str, Any]:
    """`~/.gemini/settings.json`: API-key auth and `command` on every event (`{event}` in it is
    replaced by each event's name), matcher `*`. With `command` None, the hooks are those
    `settings_file` holds already (what `loopguard-hook install --client gemini-cli` wrote)."""
    if command is None:
        assert settings_file is not None
        return BASE_SETTINGS | {"hooks": json.loads(settings_file.read_text())["hooks"]}
    return BASE_SETTINGS | {"hooks": hook_groups(events, command, timeout=timeout_ms)}


class GeminiCli:
    """The real Gemini CLI."""

    def __init__(self, installed: Installed) -> None:
        self.installed = installed

    def run(
        self,
        ws: Workspace,
        script: Script,
        prompt: str,
        *,
        command: str | None,
        events: tuple[str, ...] = EVENTS,
        extra_env: Mapping[str, str] = {},
        keep_state: bool = True,
        call_ids: bool = False,
        timeout: float = RUN_TIMEOUT_SECONDS,
    ) -> HostRun:
        """Run `gemini -p PROMPT` once in `ws.work` with `command` as the hook of every event (None:
        the hooks `install` wrote into `~/.gemini/settings.json`); `extra_env` is added to the host's.

        `call_ids` makes the mock give every functionCall an id (the real API sends none, and
        the CLI then makes its own). On a timeout the whole process tree is killed and
        `timed_out` is set; the caller asserts on the exit code.
        """
        gemini_dir = ws.home / ".gemini"
        gemini_dir.mkdir(parents=True, exist_ok=True)
        path = gemini_dir / "settings.json"
        path.write_text(json.dumps(settings(command, events=events, settings_file=path), indent=2))
        run = HostRun("gemini-cli", ws, [])
        with GeminiMock(script, ws.root / "requests.jsonl", call_ids=call_ids) as mock:
            run.requests = mock.requests
            env = base_env(ws, keep_state=keep_state) | {
                # Node first, then loopguard-hook (the console script next to this Python)
                "PATH": os.pathsep.join(
                    [str(self.installed.node.parent), str(HOOK_BIN.parent), os.environ.get("PATH", "/usr/bin:/bin")]
                ),
                "GOOGLE_GEMINI_BASE_URL": mock.url,
                "GEMINI_API_KEY": "mock-key",
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
                "NO_COLOR": "1",
            } | dict(extra_env)
            cmd = [str(self.installed.node), str(self.installed.entry), "-p", prompt, "--approval-mode", "yolo"]
            (ws.root / "gemini.cmd.json").write_text(json.dumps({"cmd": cmd, "env": env}, indent=2))
            done = _run_process(prompt, cmd, cwd=ws.work, env=env, out=ws.root / "gemini", timeout=timeout)
        run.exit_code, run.timed_out, run.seconds = done.exit_code, done.timed_out, done.seconds
        run.stdout, run.stderr = done.stdout, done.stderr
        return run
