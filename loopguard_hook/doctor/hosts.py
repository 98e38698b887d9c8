"""`doctor` for GitHub Copilot CLI, Cursor and Factory Droid: the guard's own registration in each
host's file, the Claude Code install the host runs too, and the latest problem in `errors.log`.

Host facts (the host modules `hosts/copilot.py`, `hosts/cursor.py`, `hosts/droid.py` hold their
sources): Copilot CLI runs every file of `~/.copilot/hooks/` and a trusted repository's
`.github/hooks/` and `.claude/settings*.json`; Cursor runs `~/.cursor/hooks.json`, a trusted
project's `.cursor/hooks.json`, and Claude Code's `~/.claude/settings.json` and a project's
`.claude/settings*.json` (on by default); Droid runs `~/.factory/hooks.json` (else
`~/.factory/hooks/hooks.json`) over `~/.factory/settings.json`, event by event, and never Claude
Code's files. Copilot and Cursor read a failing hook as a denial and Droid shows its stderr to the
model, so the guard ends every failure there with exit 0 and writes it to `errors.log` instead:
a synthetic event that fails is seen there, not in its exit code.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..hosts import copilot, cursor
from ..install.handlers import loopguard_events
from ..install.hosts import COPILOT, CURSOR, DROID, HOST_NAMES, host_settings_path
from ..install.jsontext import read_json_quietly
from .common import check_events, check_handlers, check_log, registrations
from .model import ClientReport, Registration
from .probe import OR_TRUE

#: The programs that tell each host is here (Cursor: its CLI under either name, or the IDE).
PROGRAMS: dict[str, tuple[str, ...]] = {COPILOT: ("copilot",), CURSOR: ("cursor-agent", "agent", "cursor"), DROID: ("droid",)}


def _found(client: str, env: Mapping[str, str]) -> str | None:
    for program in PROGRAMS[client]:
        where = shutil.which(program, path=env.get("PATH", os.defpath))
        if where is not None:
            return f"{program} on PATH: {where}"
    return None


def _flat(source: Path, hooks: object, names: Mapping[str, str]) -> list[Registration]:
    """The guard's handlers in Copilot's or Cursor's flat `hooks` object, by the event names the
    guard reads."""
    found: list[Registration] = []
    if not isinstance(hooks, dict):
        return found
    for event, entries in hooks.items():
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            command = entry.get("bash", entry.get("command")) if isinstance(entry, dict) else None
            if isinstance(command, str) and "loopguard" in command:
                timeout = entry.get("timeoutSec", entry.get("timeout"))
                seconds = float(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) else None
                found.append(Registration(source, names.get(event, event), 0, i, None, command, seconds, entry))
    return found


def _registrations(client: str, home: Path, cwd: Path) -> list[Registration]:
    regs: list[Registration] = []
    for scope in ("user", "project"):
        if client == DROID:
            factory = host_settings_path(DROID, scope, home=home, project_dir=cwd).parent
            for path in (factory / "hooks.json", factory / "hooks" / "hooks.json", factory / "settings.json"):
                data = read_json_quietly(path)
                if data is not None:
                    regs += registrations(path, data if path.name == "hooks.json" else data.get("hooks"))
            continue
        path = host_settings_path(client, scope, home=home, project_dir=cwd)
        data = read_json_quietly(path)
        if data is not None:
            regs += _flat(path, data.get("hooks"), copilot.EVENT_NAMES if client == COPILOT else cursor.EVENT_NAMES)
    return regs


def _payload(client: str, cwd: Path) -> Any:
    """A first shell call, shaped as the host sends it (Copilot: its camelCase file)."""

    def build(session_id: str) -> dict[str, Any]:
        if client == COPILOT:
            # `session_id` too: the check forgets the synthetic session by it (Copilot reads either)
            return {"sessionId": session_id, "session_id": session_id, "timestamp": 0, "cwd": str(cwd),
                    "toolName": "bash", "toolArgs": {"command": "true", "description": "loopguard doctor"}}
        if client == CURSOR:
            return {"conversation_id": session_id, "session_id": session_id, "hook_event_name": "preToolUse",
                    "cursor_version": "doctor", "workspace_roots": [str(cwd)], "cwd": str(cwd), "tool_name": "Shell",
                    "tool_input": {"command": "true"}, "tool_use_id": "call_doctor\nctc_doctor", "transcript_path": None}
        return {"session_id": session_id, "cwd": str(cwd), "hook_event_name": "PreToolUse", "permission_mode": "auto-high",
                "transcript_path": f"{cwd}/.factory/sessions/doctor/{session_id}.jsonl", "tool_name": "Execute",
                "tool_input": {"command": "true", "riskLevel": "low", "riskLevelReason": "doctor"}}

    return build


def borrowed(client: str, home: Path, cwd: Path) -> list[Path]:
    """The Claude Code settings files registering the guard that `client` runs too."""
    paths = [cwd / ".claude" / "settings.json", cwd / ".claude" / "settings.local.json"]
    if client == CURSOR:
        paths.insert(0, home / ".claude" / "settings.json")
    if client == DROID:
        return []
    found = [Path(os.path.realpath(p)) for p in paths if loopguard_events((read_json_quietly(p) or {}).get("hooks"))]
    return list(dict.fromkeys(found))


def check(client: str, *, home: Path, cwd: Path, env: Mapping[str, str], run: bool) -> ClientReport:
    """One host's report; `run` sends the synthetic event through the registered command."""
    title = HOST_NAMES[client]
    report = ClientReport(client, title, _found(client, env))
    regs = _registrations(client, home, cwd)
    shared = list(dict.fromkeys(borrowed(client, home, cwd)))
    if not regs and report.found is None and not shared:
        return ClientReport(client, title, None)
    expected = tuple((copilot.EVENT_NAMES if client == COPILOT else cursor.EVENT_NAMES).values()) if client != DROID else (
        "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "SubagentStop"
    )
    if regs or not shared:
        check_events(report, regs, expected, f"loopguard-hook install --client {client}")
    for path in shared:
        if regs:
            report.add("ok", "Claude Code install", f"{title} runs {path} too; that copy stays silent here, since "
                       f"{title} has its own registration (it recognises {title}'s payloads)")
        else:
            # Registered through the Claude Code install alone: the "registered" check says so,
            # so that it agrees with the verdict (`registered` true, no failed check).
            report.registered = True
            report.add("ok", "registered", f"through the Claude Code install in {path}: {title} runs it, and it "
                       f"recognises {title}'s payloads and answers in its form (`loopguard-hook install --client "
                       f"{client}` gives {title} its own registration, beside which that copy stays silent)")
    if regs:
        hook_env = {**env, "CLAUDE_PROJECT_DIR": str(cwd)}
        check_handlers(report, regs, _payload(client, cwd), dialect=client, who=title, env=hook_env,
                       cwd=str(cwd), run=run, trailing_newline=False, fails_closed=client == COPILOT)
        check_log(report, regs[0].command, env)
    if client == COPILOT:  # one command per event is how its file is meant to be: no spelling warning
        per_event = all(copilot_command(r.command) for r in regs)
        pre = {r.command for r in regs if r.event in ("preToolUse", "PreToolUse")}
        bare = sorted(c for c in pre if not c.rstrip().endswith(OR_TRUE))
        for command in bare:
            report.add("warn", "fails closed", f"`{command}` has no `|| true`: Copilot CLI denies every tool call when "
                       "it cannot run the hook (loopguard-hook not on its PATH, uninstalled)",
                       "loopguard-hook uninstall --client copilot, then install")
        report.findings = [f for f in report.findings if not (per_event and "several command strings" in f.message)]
    report.findings = list(dict.fromkeys(report.findings))  # one line per program found on PATH
    return report


def copilot_command(command: str) -> bool:
    """Whether `command` is the one install writes for a Copilot event (`… --event NAME`, and
    `|| true` after it since install added it)."""
    head, _, event = command.strip().removesuffix(OR_TRUE).rpartition(" --event ")
    return head.strip().endswith("loopguard-hook --client copilot") and event in copilot.EVENT_NAMES
