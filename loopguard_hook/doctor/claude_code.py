"""`doctor` for Claude Code: its settings files (user, project, local) and the plugin.

Client facts (Claude Code 2.1.332, `shared/research/claude-code-hooks.md` §6): hooks from every
settings file run; shell-form commands run through `sh -c` with the environment of the Claude
Code process plus `CLAUDE_PROJECT_DIR`; `"disableAllHooks": true` turns every hook off; an
enabled loopguard-hook plugin registers the shipped `hooks/hooks.json` (enabled as Claude Code
reads `enabledPlugins` across the files: `_enabling_files`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..install import CLAUDE_CODE, HOOK_EVENTS, hooks_table, settings_path
from ..install.jsontext import read_json_quietly
from .clients import client_option
from .common import check_events, check_handlers, found_by, registrations
from .model import HOSTS, ClientReport, Finding, Registration

FIX = "loopguard-hook install --client claude-code"
UNINSTALL = "loopguard-hook uninstall --client claude-code"
#: How the plugin's hooks are named as a source: after the settings file that enables it.
PLUGIN = " (loopguard-hook plugin)"


def _enabling_files(plugins_by_file: list[tuple[Path, Any]]) -> list[Path]:
    """The settings files whose `enabledPlugins` turn the loopguard-hook plugin on, read as Claude
    Code reads that key: `plugins_by_file` holds each file's `enabledPlugins` from the lowest
    precedence to the highest (user, project, local), and for each plugin key
    (`loopguard-hook@<marketplace>`) the last file that sets it decides, so a project's `false`
    turns off the user's `true` and a local `true` turns the project's `false` back on.

    `shared/research/claude-code-hooks.md` §6.1 lists these files (and managed settings and
    `--settings`) and says hooks merge across all of them, but not how one key set in several
    files resolves; that order is Claude Code's settings precedence, key by key: managed > command
    line > local > project > user (code.claude.com/docs/en/settings). `doctor` reads neither
    managed settings nor a `--settings` of a session, so the three files decide here."""
    winner: dict[str, tuple[bool, Path]] = {}
    for path, plugins in plugins_by_file:
        if isinstance(plugins, dict):
            for key, value in plugins.items():
                if str(key).split("@")[0] == "loopguard-hook":
                    winner[str(key)] = (bool(value), path)
    return list(dict.fromkeys(path for on, path in winner.values() if on))


def _sources(home: Path, cwd: Path, env: Mapping[str, str], report: ClientReport) -> list[Registration]:
    regs: list[Registration] = []
    seen: set[Path] = set()
    plugins: list[tuple[Path, Any]] = []
    for scope in ("user", "project", "local"):
        path = settings_path(CLAUDE_CODE, scope, home=home, project_dir=cwd, env=env)
        if (real := Path(os.path.realpath(path))) in seen:
            continue  # run from the home folder: the project's settings are the user's, read once
        seen.add(real)
        data = read_json_quietly(path)
        if data is None:
            if path.exists():
                report.add("fail", "settings", f"{path} is not valid JSON; Claude Code ignores it", f"fix {path}")
            continue
        if data.get("disableAllHooks") is True:
            message = f'{path} sets "disableAllHooks": true: Claude Code runs no hooks'
            report.add("fail", "settings", message, f"remove it from {path}")
        regs += registrations(path, data.get("hooks"))
        plugins.append((path, data.get("enabledPlugins")))
    for path in _enabling_files(plugins):
        regs += registrations(path.with_name(f"{path.name}{PLUGIN}"), hooks_table(CLAUDE_CODE))
    return regs


def plugin_and_install(regs: list[Registration], home: Path, cwd: Path, env: Mapping[str, str]) -> Finding | None:
    """A warning when the plugin is enabled and a settings file registers the hook too: Claude
    Code runs a plugin's hooks and settings hooks separately, so those events run it twice."""
    plugin = {r.event for r in regs if r.source.name.endswith(PLUGIN)}
    own = [r for r in regs if not r.source.name.endswith(PLUGIN)]
    twice = [e for e in HOOK_EVENTS[CLAUDE_CODE] if e in plugin and any(r.event == e for r in own)]
    if not twice:
        return None
    files = sorted({str(r.source) for r in own})
    runs = ("every event runs" if len(twice) == len(HOOK_EVENTS[CLAUDE_CODE])
            else f"{', '.join(twice)} run{'s' if len(twice) == 1 else ''}")
    enabled = sorted({str(r.source).removesuffix(PLUGIN) for r in regs if r.source.name.endswith(PLUGIN)})
    scopes = {scope: Path(os.path.realpath(settings_path(CLAUDE_CODE, scope, home=home, project_dir=cwd, env=env)))
              for scope in ("user", "project", "local")}
    commands = [f"`{UNINSTALL}{'' if scope == 'user' else f' --scope {scope}'}`"
                for scope, path in scopes.items() if any(Path(os.path.realpath(Path(f))) == path for f in files)]
    message = (f"the loopguard-hook plugin (enabled in {', '.join(enabled)}) and the install in {', '.join(files)} "
               f"both register the hook, and Claude Code runs a plugin's hooks and settings hooks separately: "
               f"{runs} the hook twice")
    fix = (f"keep either the plugin or the install: {' and '.join(dict.fromkeys(commands))} removes the install, "
           f"or turn the plugin off in enabledPlugins")
    return Finding("warn", "registered", message, fix)


def borrowing_hosts(regs: list[Registration], home: Path, env: Mapping[str, str]) -> list[Finding]:
    """Which other hosts here run these registrations too: Cursor runs `~/.claude/settings.json`
    and a project's `.claude/settings*.json`, Copilot CLI a trusted repository's (their payloads
    are recognised and answered in their form). How to avoid counting a call twice: the host's own
    install, beside which this copy stays silent in that host."""
    from ..install.hosts import host_settings_path

    user = Path(os.path.realpath(home / ".claude" / "settings.json"))
    found: list[Finding] = []
    borrowers = (("cursor", "Cursor", ("cursor-agent", "agent", "cursor")), ("copilot", "Copilot CLI", ("copilot",)))
    for client, title, programs in borrowers:
        theirs = [r for r in regs if client == "cursor" or Path(os.path.realpath(r.source)) != user]
        files = sorted({str(r.source) for r in theirs})
        if not files or not any(found_by(p, env) for p in programs):
            continue
        fixed = sorted({r.command for r in theirs if client_option(r.command) not in (None, "auto", client)})
        if fixed:  # the hook answers every host of such a line in the named host's form
            found.append(Finding("warn", "other hosts", f"{title} runs {', '.join(files)} too, where `{fixed[0]}` answers "
                                 f"it in another host's form, which {title} drops (or misreads); and the copy does not "
                                 "stay silent beside its own registration", "leave --client out (or write --client auto): "
                                 "the hook then tells each host by its payload"))
            continue
        own = host_settings_path(client, "user", home=home, project_dir=home)
        if own.exists() and "loopguard" in own.read_text(errors="replace"):
            message = f"{title} runs {', '.join(files)} too; with its own registration ({own}) that copy stays silent there"
            found.append(Finding("ok", "other hosts", message))
        else:
            message = (f"{title} runs {', '.join(files)} too, and is served there in its own form; "
                       f"`loopguard-hook install --client {client}` gives it its own registration, beside which "
                       "this copy stays silent there (each call is counted once either way)")
            found.append(Finding("ok", "other hosts", message))
    return found


def payload(cwd: Path) -> Any:
    """A first Read call, shaped as Claude Code 2.1.332 sends it (captured PreToolUse.Read)."""

    def build(session_id: str) -> dict[str, Any]:
        return {
            "session_id": session_id,
            "transcript_path": "",
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": os.devnull},
            "tool_use_id": "toolu_loopguard_doctor_1",
        }

    return build


def check(*, home: Path, cwd: Path, env: Mapping[str, str], run: bool) -> ClientReport:
    """Claude Code's report; `run` sends the synthetic event."""
    report = ClientReport(CLAUDE_CODE, "Claude Code", found_by(HOSTS[CLAUDE_CODE][0], env))
    regs = _sources(home, cwd, env, report)
    if not regs and report.found is None:
        # Not here and not registered: only what its files said (a settings file Claude Code would
        # ignore, `disableAllHooks`), which `install` would meet too.
        return ClientReport(CLAUDE_CODE, "Claude Code", None, findings=report.findings)
    check_events(report, regs, HOOK_EVENTS[CLAUDE_CODE], FIX)
    if (twice := plugin_and_install(regs, home, cwd, env)) is not None:
        report.findings.append(twice)
    report.findings += borrowing_hosts(regs, home, env)
    if regs:
        hook_env = {**env, "CLAUDE_PROJECT_DIR": str(cwd)}
        check_handlers(
            report,
            regs,
            payload(cwd),
            dialect="claude-code",
            who="Claude Code",
            env=hook_env,
            cwd=str(cwd),
            run=run,
        )
    return report
