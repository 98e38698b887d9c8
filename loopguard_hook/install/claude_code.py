"""Claude Code's settings files: where `install` writes for each scope, and what to warn about.

Client facts (Claude Code 2.1.332; hooks reference for v2.1.240, settings schema of 2.1.332):
hooks live in `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` when set),
`.claude/settings.json` and `.claude/settings.local.json`, shaped `{"hooks": {Event: [{"matcher":
…, "hooks": [{"type": "command", "command": …, "timeout": seconds}]}]}}`; hooks from every file
run, and handlers with an identical command string run once, while a different string (an added
flag, a full path) runs again in parallel: twice the hook processes per call (the ledger counts
the call once, by `tool_use_id`, and whichever copy runs first decides). `PostToolBatch`,
`UserPromptSubmit`, `Stop` take no matcher. The default timeout is 600 s (30 s on
`UserPromptSubmit`); `SessionEnd` hooks share a 1.5 s budget that is raised to the largest
`SessionEnd` timeout. `"disableAllHooks": true` turns every hook off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .handlers import loopguard_events, variant_notes
from .jsontext import read_json_quietly
from .plugin import enabled_plugin_notes
from .tables import CLAUDE_CODE, SCOPES, env_dir


def claude_settings_path(
    scope: str,
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> Path:
    """user `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` when set in `env`),
    project `<project_dir>/.claude/settings.json`, local `<project_dir>/.claude/settings.local.json`."""
    if scope == "user":
        config_dir = env_dir(env, "CLAUDE_CONFIG_DIR")
        base = (
            Path(os.path.abspath(os.path.expanduser(config_dir)))
            if config_dir
            else (Path(os.path.abspath(home)) / ".claude")
        )
        return base / "settings.json"
    name = "settings.json" if scope == "project" else "settings.local.json"
    return Path(os.path.abspath(project_dir)) / ".claude" / name


def claude_notes(
    scope: str,
    path: Path,
    data: Mapping[str, Any],
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None,
) -> list[str]:
    """Warnings for an install into `path` (settings `data`, scope `scope`): hooks switched off,
    loopguard under another spelling in another settings file, the plugin enabled too."""
    notes = []
    if data.get("disableAllHooks") is True:
        notes.append(
            f'warning: {path} sets "disableAllHooks": true, so Claude Code runs no hooks at all'
        )
    seen = {Path(os.path.realpath(path))}
    for other in SCOPES[CLAUDE_CODE]:
        other_path = claude_settings_path(other, home=home, project_dir=project_dir, env=env)
        if other != scope:
            # run from the home folder, the project's settings are the user's: one file, said once
            if (real := Path(os.path.realpath(other_path))) in seen:
                continue
            seen.add(real)
        other_data = data if other == scope else read_json_quietly(other_path)
        if other_data is None:
            continue
        if other != scope:
            notes += variant_notes(other_path, loopguard_events(other_data.get("hooks")))
        notes += enabled_plugin_notes(other_path, other_data)
    return notes
