"""Planning `install` and `uninstall` for Claude Code and Codex: read the settings file, merge
our handlers in or take them out, and return `Change` values. Writes nothing (`apply` does).
Qwen Code and Gemini CLI are planned by `settings_hosts`."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .change import Change, make_change
from .claude_code import claude_notes, claude_settings_path
from .codex import (
    SHIFTED_NOTE,
    codex_hooks_path,
    codex_layers,
    codex_trust_step,
    codex_uninstall_notes,
    codex_untrust,
    shifted_keys,
    skipped_notes,
)
from .files import made_by_install, read_text
from .handlers import loopguard_events, merge_groups, take_out, variant_notes
from .jsontext import parse_json_object, rewrite_json
from .settings_hosts import HOSTS as SETTINGS_HOSTS
from .settings_hosts import plan_install as plan_settings_install
from .settings_hosts import plan_uninstall as plan_settings_uninstall
from .settings_hosts import settings_path as settings_host_path
from .tables import CANONICAL_COMMAND, CLAUDE_CODE, CODEX, check_client_scope, hooks_table


def settings_path(
    client: str,
    scope: str = "user",
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> Path:
    """The file `install` edits for `client` and `scope`.

    Claude Code: user `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` when set in
    `env`), project `<project_dir>/.claude/settings.json`, local
    `<project_dir>/.claude/settings.local.json`. Codex: user `$CODEX_HOME/hooks.json`
    (`~/.codex/hooks.json`), project `<project_dir>/.codex/hooks.json` (the project directory
    resolved, as Codex sees its cwd).

    Raises:
        InstallError: unknown client, or a scope the client does not have (Codex: `local`).
    """
    if client in SETTINGS_HOSTS:  # Qwen Code, Gemini CLI
        return settings_host_path(client, scope, home=home, project_dir=project_dir, env=env)
    check_client_scope(client, scope)
    where = claude_settings_path if client == CLAUDE_CODE else codex_hooks_path
    return where(scope, home=home, project_dir=project_dir, env=env)


def plan_install(
    client: str,
    scope: str = "user",
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    trust: bool = False,
) -> list[Change]:
    """Plan registering `CANONICAL_COMMAND` for each event of `HOOK_EVENTS[client]`. Writes nothing.

    Merges into the settings file (`settings_path`): an event that already runs loopguard (any
    spelling) is left alone, a missing one gets a new matcher group appended after the existing
    ones (so other hooks, and their Codex trust keys, stay put); every other key and its order is
    kept. For Codex, an event already registered in the same folder's `config.toml` or, for a
    project install, in the user layer is skipped: Codex runs every copy. With `trust` (Codex only)
    a second change records the handlers' `trusted_hash` in `$CODEX_HOME/config.toml`.

    Returns:
        The settings file's `Change` first, then (with `trust`) the config.toml `Change`.

    Raises:
        InstallError: unknown client or scope; the file is not valid JSON, its top-level value is
            not an object, `hooks` or one of our events in it is not the expected shape; with
            `trust`, config.toml cannot be merged.
    """
    if client in SETTINGS_HOSTS:
        return plan_settings_install(client, scope, home=home, project_dir=project_dir, env=env)
    path = settings_path(client, scope, home=home, project_dir=project_dir, env=env)
    old_text = read_text(path)
    data = parse_json_object(path, old_text)
    value = copy.deepcopy(data)
    hooks: dict[str, Any] = value.get("hooks", {})
    elsewhere: dict[str, Path] = {}
    if client == CODEX:
        messages, elsewhere = codex_layers(scope, path, home=home, project_dir=project_dir, env=env)
    else:
        messages = claude_notes(scope, path, data, home=home, project_dir=project_dir, env=env)
        if trust:
            messages.append(
                "note: --trust is for Codex only; Claude Code has no per-hook trust record"
            )
    added, skipped = merge_groups(path, hooks, hooks_table(client), elsewhere)
    messages += variant_notes(path, loopguard_events(hooks))
    messages += skipped_notes(elsewhere, skipped)
    if added:
        value["hooks"] = hooks
        new_text: str | None = rewrite_json(old_text, value)
        messages.insert(0, f"registers `{CANONICAL_COMMAND}` in {path} for: {', '.join(added)}")
    else:
        new_text = old_text
        done = "nothing to add" if skipped else "loopguard-hook is already registered; nothing to change"
        messages.insert(0, f"{path}: {done}")
    if client != CODEX:
        return [make_change(path, old_text, new_text, messages)]
    notes, more = codex_trust_step(
        path, hooks, scope, home=home, project_dir=project_dir, env=env, trust=trust
    )
    return [make_change(path, old_text, new_text, messages + notes), *more]


def plan_uninstall(
    client: str,
    scope: str = "user",
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> list[Change]:
    """Plan removing our handlers (command `CANONICAL_COMMAND`, with or without arguments) from
    the settings file of `client` and `scope`. Writes nothing.

    Only the handlers install wrote go (exactly its form: `handlers.installed_by_us`); a matcher
    group or an event key left empty by that goes too, and `hooks` itself when nothing is left
    in it. Everything else stays as it is, in its order. Handlers that run loopguard in another
    form (written by hand) are reported, not removed. A file left holding `{}` with no backup
    beside it was made by install (which backs up every file it changes): it is deleted.

    Returns:
        One `Change` (a list, like `plan_install`).

    Raises:
        InstallError: as `plan_install` (invalid JSON, wrong top-level shapes).
    """
    if client in SETTINGS_HOSTS:
        return plan_settings_uninstall(client, scope, home=home, project_dir=project_dir, env=env)
    path = settings_path(client, scope, home=home, project_dir=project_dir, env=env)
    old_text = read_text(path)
    data = parse_json_object(path, old_text)
    hooks = data.get("hooks", {})
    new_text, kept_hooks, removed, said = take_out(path, old_text, data)
    messages = [said]
    if client == CODEX and removed and shifted_keys(hooks, kept_hooks):
        messages.append(SHIFTED_NOTE)
    if removed and not kept_hooks and set(data) == {"hooks"} and made_by_install(path):
        # Nothing left, and no backup beside it: install made this file (it backs up every
        # file it changes that was there before), so uninstall takes it away again.
        messages.append(f"{path} held only what install wrote: it goes")
        change = make_change(path, old_text, None, messages, deletable=True)
        if client != CODEX:
            return [change]
        untrust, notes = codex_untrust(path, hooks, kept_hooks, home=home, env=env)
        change.messages.extend(notes)
        return [change, *([untrust] if untrust else [])]
    messages += variant_notes(path, loopguard_events(kept_hooks))
    if client != CODEX:
        return [make_change(path, old_text, new_text, messages)]
    untrust, notes = codex_untrust(path, hooks, kept_hooks, home=home, env=env)
    messages += codex_uninstall_notes(path) + notes
    return [make_change(path, old_text, new_text, messages), *([untrust] if untrust else [])]
