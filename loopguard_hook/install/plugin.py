"""The Claude Code plugin: its manifests (`.claude-plugin/`), and the check that it is not
enabled beside a settings install.

Client facts (Claude Code 2.1.332): a plugin's `hooks/hooks.json` is loaded automatically; naming
that same file again in `plugin.json` fails with "Duplicate hooks file detected". A plugin's hooks
and settings hooks run separately, even with identical command strings. Enabled plugins are listed
in a settings file's `enabledPlugins` as `{"<plugin>@<marketplace>": true}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from .. import __version__

PLUGIN_NAME: Final = "loopguard-hook"
PLUGIN_DESCRIPTION: Final = (
    "Catches an agent repeating the same tool call without progress: reminds the model, then "
    "denies the repeat. Runs the `loopguard-hook` command, so the loopguard-hook Python package "
    "must be installed with its command on PATH."
)
_AUTHOR: Final = {"name": "loopguard-hook maintainers"}


def plugin_manifest() -> dict[str, Any]:
    """`.claude-plugin/plugin.json`. No `hooks` field: Claude Code loads the plugin's standard
    `hooks/hooks.json` by itself, and naming it again is rejected as a duplicate hooks file."""
    return {
        "name": PLUGIN_NAME,
        "version": __version__,
        "description": PLUGIN_DESCRIPTION,
        "author": _AUTHOR,
        "license": "MIT",
        "keywords": ["hooks", "loop-detection", "repeat-tool-calls", "guard"],
    }


def marketplace_manifest() -> dict[str, Any]:
    """`.claude-plugin/marketplace.json`: this repository as a one-plugin marketplace, so
    `/plugin marketplace add <repo>` then `/plugin install loopguard-hook@loopguard-hook` works."""
    return {
        "name": PLUGIN_NAME,
        "description": (
            "loopguard-hook, a repeat-call loop guard for Claude Code, as a one-plugin marketplace."
        ),
        "owner": _AUTHOR,
        "plugins": [
            {
                "name": PLUGIN_NAME,
                "source": "./",
                "description": PLUGIN_DESCRIPTION,
                "version": __version__,
            }
        ],
    }


def enabled_plugin_notes(path: Path, data: Mapping[str, Any]) -> list[str]:
    """Warnings when the settings `data` of file `path` enable the loopguard-hook plugin."""
    notes = []
    plugins = data.get("enabledPlugins")
    if isinstance(plugins, dict):
        for name, enabled in plugins.items():
            if enabled and str(name).split("@")[0] == "loopguard-hook":
                notes.append(
                    f"warning: the loopguard-hook plugin ({name}) is enabled in {path}; "
                    "Claude Code runs a plugin's hooks and settings hooks separately, so with "
                    "both every event runs the hook twice: keep either the plugin or this install"
                )
    return notes
