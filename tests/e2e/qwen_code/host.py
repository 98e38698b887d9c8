"""Run the real Qwen Code 0.24.4 headless (`qwen -p PROMPT --approval-mode yolo`) against
`QwenMock`, with a hook command registered on every hook event it has.

Qwen Code facts used here (shared/research/qwen-code-hooks.md, verified against 0.24.4):

- User settings are `$HOME/.qwen/settings.json`; `security.auth.selectedType: "openai"` plus
  `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `OPENAI_MODEL` point it at the mock. The memory, dream
  and skill side agents and the follow-up suggestions are turned off so that a run is the
  scripted conversation only.
- Hooks use Claude Code's shape; 22 events are documented and an unknown name is skipped with a
  warning. A hook `timeout` is in seconds (a value >= 1000 is read as milliseconds). Matchers
  apply to tool events; PostToolBatch, UserPromptSubmit, Stop and the others in `NO_MATCHER` take
  none.
- Exit status: 0, or 1 when Qwen's own loop detection halts the run (the 5th identical
  consecutive call never runs; a StopFailure hook fires instead of Stop).
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
from .mock_openai import QwenMock

QWEN_CODE = NodeCli("qwen-code", "@qwen-code/qwen-code", "0.24.4", "cli-entry.js")

#: Every hook event Qwen Code 0.24.4 documents (the docs bundled in the package).
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "SessionDelete",
    "MessageDisplay",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Notification",
    "PermissionRequest",
    "PermissionDenied",
    "TodoCreated",
    "TodoCompleted",
    "InstructionsLoaded",
)
#: Events whose groups take no matcher.
NO_MATCHER = frozenset(
    {"PostToolBatch", "UserPromptSubmit", "Stop", "SessionDelete", "MessageDisplay", "TodoCreated", "TodoCompleted"}
)
#: Seconds (Qwen reads values >= 1000 as milliseconds).
HOOK_TIMEOUT_SECONDS = 30
RUN_TIMEOUT_SECONDS = 50
MODEL = "mock-coder"

#: The run is the scripted conversation and nothing else.
BASE_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "openai"}},
    "model": {"name": MODEL},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False},
    "ui": {"enableFollowupSuggestions": False},
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False, "enableAutoSkill": False},
}


def settings(
    command: str | None, *, events: tuple[str, ...] = EVENTS, timeout: int = HOOK_TIMEOUT_SECONDS,
    settings_file: Path | None = None,
) -> dict[str, Any]:
    """`~/.qwen/settings.json`: the mock provider and `command` on every event (`{event}` in it
    is replaced by each event's name). With `command` None, the hooks are those `settings_file`
    holds already (what `loopguard-hook install --client qwen-code` wrote)."""
    if command is None:
        assert settings_file is not None
        return BASE_SETTINGS | {"hooks": json.loads(settings_file.read_text())["hooks"]}
    return BASE_SETTINGS | {"hooks": hook_groups(events, command, timeout=timeout, no_matcher=NO_MATCHER)}


class QwenCode:
    """The real Qwen Code CLI."""

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
        timeout: float = RUN_TIMEOUT_SECONDS,
    ) -> HostRun:
        """Run `qwen -p PROMPT` once in `ws.work` with `command` as the hook of every event (None:
        the hooks `install` wrote into `~/.qwen/settings.json`); `extra_env` is added to the host's.

        On a timeout the whole process tree is killed and `timed_out` is set; the caller asserts
        on the exit code (1 is Qwen's own loop halt).
        """
        qwen_dir = ws.home / ".qwen"
        qwen_dir.mkdir(parents=True, exist_ok=True)
        path = qwen_dir / "settings.json"
        path.write_text(json.dumps(settings(command, events=events, settings_file=path), indent=2))
        run = HostRun("qwen-code", ws, [])
        with QwenMock(script, ws.root / "requests.jsonl") as mock:
            run.requests = mock.requests
            env = base_env(ws, keep_state=keep_state) | {
                # Node first, then loopguard-hook (the console script next to this Python)
                "PATH": os.pathsep.join(
                    [str(self.installed.node.parent), str(HOOK_BIN.parent), os.environ.get("PATH", "/usr/bin:/bin")]
                ),
                "OPENAI_BASE_URL": f"{mock.url}/v1",
                "OPENAI_API_KEY": "sk-mock",
                "OPENAI_MODEL": MODEL,
                "NO_COLOR": "1",
                "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
            } | dict(extra_env)
            cmd = [str(self.installed.node), str(self.installed.entry), "-p", prompt, "--approval-mode", "yolo"]
            (ws.root / "qwen.cmd.json").write_text(json.dumps({"cmd": cmd, "env": env}, indent=2))
            done = _run_process(prompt, cmd, cwd=ws.work, env=env, out=ws.root / "qwen", timeout=timeout)
        run.exit_code, run.timed_out, run.seconds = done.exit_code, done.timed_out, done.seconds
        run.stdout, run.stderr = done.stdout, done.stderr
        return run
