"""Register loopguard-hook in a client's hook settings, or remove it: the engine behind
`loopguard-hook install` and `uninstall`, and the source of the ready-made files in `hooks/`.

Pure functions plus one writer (`apply`): nothing here imports click, and nothing on the hook path
imports this package. The caller passes the home directory, the project directory and the
environment in; `plan_install` / `plan_uninstall` read files and return `Change` values (old text,
new text, unified diff, messages) without writing anything; `apply` writes them, each after a
timestamped backup, through a temp file and `os.replace`.

The modules, and the client facts each relies on:

- `tables`: the command string, clients, scopes and the `hooks` table per client;
- `claude_code`: Claude Code's settings files and what to warn about in them;
- `codex`: Codex's `hooks.json` layers and `config.toml` notes;
- `trust`: Codex's `trusted_hash` and the `[hooks.state]` records;
- `plugin`: the Claude Code plugin's manifests and the check that it is not enabled twice;
- `plan`: `plan_install` / `plan_uninstall` over those;
- `settings_hosts`: Qwen Code's and Gemini CLI's `settings.json` (paths, events, command);
- `hosts`: GitHub Copilot CLI, Cursor and Factory Droid, each in its own file and format;
- `dsh`, `dsh_bridge`, `dsh_patch`: the DeepSeek Harness bridges (hooks config, finding the
  bridge, the patch-layer rows that mount it);
- `change`, `files`, `jsontext`, `jsonc`, `tomltext`: the shared pieces (the `Change` value and its
  report, backups and atomic writes, minimal JSON edits, the comments Gemini CLI and Qwen Code
  allow in theirs, TOML edits);
- `shipped`: the files in `hooks/` and `.claude-plugin/`.
"""

from .change import Change, InstallError, format_report, unified_diff
from .codex import codex_config_path, codex_home
from .dsh import DSH_CLAUDE_CODE, DSH_CLIENTS, DSH_CODEX, dsh_hooks_table, plan_dsh_install, plan_dsh_uninstall
from .files import apply
from .handlers import is_our_command
from .hosts import HOST_CLIENTS, hooks_file_table, host_command, host_settings_path, plan_host_install, plan_host_uninstall
from .jsonc import same_json as _same
from .jsontext import dump_json
from .jsontext import rewrite_json as _rewrite_json
from .plan import plan_install, plan_uninstall, settings_path
from .plugin import PLUGIN_DESCRIPTION, PLUGIN_NAME, marketplace_manifest, plugin_manifest
from .shipped import config_files, write_config_files
from .tables import (
    CANONICAL_COMMAND,
    CLAUDE_CODE,
    CLIENT_NAMES,
    CLIENTS,
    CODEX,
    CODEX_KNOWN_EVENTS,
    HOOK_EVENTS,
    SCOPES,
    SESSION_END_TIMEOUT_SECONDS,
    TIMEOUT_SECONDS,
    TOOL_MATCHER,
    TOOL_MATCHER_EVENTS,
    handler,
    hooks_table,
)
from .tomltext import render_codex_toml
from .trust import event_label, plan_trust, trust_entries, trusted_hash

__all__ = [
    "CANONICAL_COMMAND",
    "CLAUDE_CODE",
    "CLIENTS",
    "CLIENT_NAMES",
    "CODEX",
    "CODEX_KNOWN_EVENTS",
    "HOOK_EVENTS",
    "PLUGIN_DESCRIPTION",
    "PLUGIN_NAME",
    "SCOPES",
    "SESSION_END_TIMEOUT_SECONDS",
    "TIMEOUT_SECONDS",
    "TOOL_MATCHER",
    "TOOL_MATCHER_EVENTS",
    "DSH_CLAUDE_CODE",
    "DSH_CLIENTS",
    "DSH_CODEX",
    "HOST_CLIENTS",
    "Change",
    "InstallError",
    "_rewrite_json",
    "_same",
    "apply",
    "codex_config_path",
    "codex_home",
    "config_files",
    "dsh_hooks_table",
    "dump_json",
    "event_label",
    "format_report",
    "handler",
    "hooks_file_table",
    "host_command",
    "host_settings_path",
    "hooks_table",
    "is_our_command",
    "marketplace_manifest",
    "plan_dsh_install",
    "plan_dsh_uninstall",
    "plan_host_install",
    "plan_host_uninstall",
    "plan_install",
    "plan_trust",
    "plan_uninstall",
    "plugin_manifest",
    "render_codex_toml",
    "settings_path",
    "trust_entries",
    "trusted_hash",
    "unified_diff",
    "write_config_files",
]
