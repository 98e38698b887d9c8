"""The DeepSeek Harness (DSH) through its two hook bridges: `install --client dsh-claude-code`
or `dsh-codex` writes a hooks config for the bridge and the patch-layer rows that mount it.

Two files change, three for the Codex bridge:

- the hooks config, `$DSH_HOME/loopguard-hook/hooks-claude-code.json` (or `hooks-codex.json`),
  in the shape the bridge reads: a Claude Code `hooks` map or a Codex `hooks.json`;
- Codex bridge only, while DSH lacks the `bash` service that bridge waits for and no layer
  mounts one: the plugin that provides it, `$DSH_HOME/loopguard-hook/dsh-bash-service.mjs`
  (`dsh_service`);
- a DSH patch layer: `$DSH_HOME/cordis.patch.yml`, which DSH applies over every profile, or with
  `profile` that profile's own `$DSH_HOME/profiles/<name>/cordis.patch.yml`.

DSH facts (dsh 0.1.0-rc.8 with dsh-hooks-claude-code 0.0.1-rc.5 and dsh-hooks-codex 0.0.1-rc.1;
`shared/research/dsh-hooks.md` and the packages' code): the Claude Code bridge maps
SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SubagentStart and SubagentStop;
the Codex bridge the first five. Matchers are tested as case-sensitive unanchored regexes
against DSH's lower-case tool names (`read`, `bash`, `edit`…), so `"Read"` never fires; absent,
`""` and `"*"` match everything (`dsh-hook-protocol` `isMatchAll`). The per-hook `timeout` is in
seconds. `configPath` is read once when the bridge loads and must be absolute (a relative one
resolves against dsh's launch directory). The bridges run hooks with `bash -c` in the session
workspace, with dsh's PATH.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .change import Change, InstallError, make_change
from .dsh_bridge import bridge_version, dsh_home, find_bridge, missing_services
from .dsh_patch import block_entry, block_lines, find_block, other_mounts, with_block, without_block
from .dsh_service import SERVICE, SERVICE_ROW_ID, SERVICE_SOURCE, bash_provider, service_path
from .files import read_text
from .handlers import loopguard_events, merge_groups, variant_notes, without_ours
from .jsontext import parse_json_object, rewrite_json
from .tables import CANONICAL_COMMAND, events_table

DSH_CLAUDE_CODE: Final = "dsh-claude-code"
DSH_CODEX: Final = "dsh-codex"
DSH_CLIENTS: Final = (DSH_CLAUDE_CODE, DSH_CODEX)


@dataclass(frozen=True, slots=True)
class Bridge:
    """One DSH hook bridge: its npm package, the events it maps and where its config goes."""

    client: str
    package: str
    title: str
    events: tuple[str, ...]
    hooks_file: str
    row_id: str


BRIDGES: Final[Mapping[str, Bridge]] = {
    DSH_CLAUDE_CODE: Bridge(
        DSH_CLAUDE_CODE,
        "@deepseek-ai/dsh-hooks-claude-code",
        "DSH Claude Code hook bridge",
        ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop", "SubagentStart", "SubagentStop"),
        "hooks-claude-code.json",
        "loopguard-hook-dsh-claude-code",
    ),
    DSH_CODEX: Bridge(
        DSH_CODEX,
        "@deepseek-ai/dsh-hooks-codex",
        "DSH Codex hook bridge",
        ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"),
        "hooks-codex.json",
        "loopguard-hook-dsh-codex",
    ),
}


def _bridge(client: str) -> Bridge:
    if client not in BRIDGES:
        raise InstallError(f"unknown DSH client {client!r}: use one of {', '.join(DSH_CLIENTS)}")
    return BRIDGES[client]


def dsh_hooks_table(client: str) -> dict[str, list[dict[str, Any]]]:
    """The `hooks` map for `client`'s bridge: every event it maps, tool events with `"*"` (all of
    DSH's tool names), the others without a matcher (which the bridges read as match-all).

    Raises:
        InstallError: unknown client.
    """
    return events_table(_bridge(client).events)


def dsh_paths(
    client: str, *, home: str | os.PathLike[str], env: Mapping[str, str] | None, profile: str | None
) -> tuple[Path, Path]:
    """(hooks config, patch layer) that `install` writes for `client`.

    Raises:
        InstallError: unknown client, or a profile name DSH would refuse.
    """
    bridge = _bridge(client)
    root = dsh_home(home=home, env=env)
    if profile is None:
        return root / "loopguard-hook" / bridge.hooks_file, root / "cordis.patch.yml"
    if profile in ("", ".", "..", "node_modules") or "/" in profile or "\\" in profile:
        raise InstallError(f"invalid DSH profile name {profile!r}")
    return root / "loopguard-hook" / bridge.hooks_file, root / "profiles" / profile / "cordis.patch.yml"


def plan_dsh_install(
    client: str,
    *,
    home: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    bridge_path: str | os.PathLike[str] | None = None,
    profile: str | None = None,
) -> list[Change]:
    """Plan the hooks config and the patch-layer block for `client` (`dsh-claude-code` or
    `dsh-codex`). Writes nothing. Idempotent: a second plan changes nothing; a block already
    there is rewritten in place when the bridge moved. The bridge is `bridge_path`, else the
    one the block already mounts (while it exists), else the first `find_bridge` finds. A bridge
    that waits for the `bash` service DSH lacks (the Codex bridge on dsh 0.1.0-rc.8) gets the
    plugin that provides it, mounted in the same block, unless another layer mounts one.

    Returns:
        The hooks config's `Change`, the service plugin's (only when one is mounted), then the
        patch layer's.

    Raises:
        InstallError: unknown client; the bridge cannot be found; a file is not valid JSON or
            its patch list cannot be extended by text edits.
    """
    bridge = _bridge(client)
    hooks_path, patch_path = dsh_paths(client, home=home, env=env, profile=profile)
    mounted = block_entry(read_text(patch_path), client) if bridge_path is None else None
    if mounted is not None and mounted.is_file():
        entry = mounted  # installed before, maybe with --bridge-path: keep that bridge
    else:
        entry = find_bridge(bridge.package, dsh_home_dir=dsh_home(home=home, env=env), env=env, explicit=bridge_path)
    service, provider = _plan_service(entry, patch_path, client, home=home, env=env)
    patch = _plan_patch(bridge, patch_path, entry, hooks_path, service, provider, home=home, env=env, profile=profile)
    return [_plan_hooks_file(client, hooks_path), *([service] if service else []), patch]


def _plan_service(
    entry: Path, patch_path: Path, client: str, *, home: str | os.PathLike[str], env: Mapping[str, str] | None
) -> tuple[Change | None, Path | None]:
    """(the `bash` service plugin's `Change`, the plugin that will provide `bash`): our plugin
    when the bridge needs the service and no layer mounts one of its own (ours, mounted in
    another layer's block, does not count: that block may go), else (None, the plugin a layer
    mounts), or (None, None) when the bridge needs no service."""
    if SERVICE not in missing_services(entry):
        return None, None
    path = service_path(dsh_home(home=home, env=env))
    layers = [(p, read_text(p)) for p in _layers(home=home, env=env)]
    elsewhere = bash_provider(((p, without_block(t, client) if p == patch_path else t) for p, t in layers), but=path)
    if elsewhere is not None:
        return None, elsewhere
    old_text = read_text(path)
    messages = [] if old_text == SERVICE_SOURCE else [
        f"{path}: a DSH plugin that provides the `{SERVICE}` service the bridge waits for "
        "(dsh 0.1.0-rc.8 has only `shell`, and without it DSH stops at boot with \"waiting for service: bash\")"
    ]
    return make_change(path, old_text, SERVICE_SOURCE, messages, deletable=True), path


def _plan_hooks_file(client: str, path: Path) -> Change:
    old_text = read_text(path)
    data = parse_json_object(path, old_text)
    value = copy.deepcopy(data)
    hooks: dict[str, Any] = value.get("hooks", {})
    added, _ = merge_groups(path, hooks, dsh_hooks_table(client), {})
    messages = variant_notes(path, loopguard_events(hooks))
    if not added:
        messages.insert(0, f"{path}: loopguard-hook is already registered; nothing to change")
        return make_change(path, old_text, old_text, messages)
    value["hooks"] = hooks
    messages.insert(0, f"registers `{CANONICAL_COMMAND}` in {path} for: {', '.join(added)}")
    return make_change(path, old_text, rewrite_json(old_text, value), messages)


def _plan_patch(
    bridge: Bridge,
    path: Path,
    entry: Path,
    hooks_path: Path,
    service: Change | None,
    provider: Path | None,
    *,
    home: str | os.PathLike[str],
    env: Mapping[str, str] | None,
    profile: str | None,
) -> Change:
    old_text = read_text(path)
    row = (SERVICE_ROW_ID, service.path) if service is not None else None
    new_text = with_block(
        path, old_text, bridge.client, block_lines(bridge.client, bridge.row_id, entry, hooks_path, service=row)
    )
    version = bridge_version(entry)
    scope = "every DSH profile" if profile is None else f"the DSH profile {profile}"
    if new_text == old_text:
        messages = [f"{path}: the {bridge.title} is already mounted; nothing to change"]
    else:
        messages = [
            f"mounts the {bridge.title}{f' {version}' if version else ''} in {path} (for {scope}): "
            f"{entry}, with configPath {hooks_path}"
            + (f", and the `{SERVICE}` service it waits for: {service.path}" if service is not None else "")
        ]
    if provider is not None and service is None:
        messages.append(f"the {bridge.title} waits for a `{SERVICE}` service: {provider}, mounted in a DSH layer, provides it")
    messages += _mount_notes(bridge, path, old_text, entry, provider is not None, home=home, env=env)
    return make_change(path, old_text, new_text, messages)


def _mount_notes(
    bridge: Bridge,
    path: Path,
    text: str | None,
    entry: Path,
    served: bool,
    *,
    home: str | os.PathLike[str],
    env: Mapping[str, str] | None,
) -> list[str]:
    """Warnings: the same bridge mounted elsewhere in the file, the other bridge (or another
    layer) also running loopguard-hook, a service the bridge needs that DSH lacks and that
    `served` (our plugin) or another layer does not provide."""
    notes = []
    lines = other_mounts(text, bridge.client, bridge.package)
    if lines:
        notes.append(
            f"warning: {path} also mounts {bridge.package} (line {', '.join(map(str, lines))}); if its hooks config "
            "runs loopguard-hook too, every event runs the hook twice"
        )
    for other in _layers(home=home, env=env):
        other_text = read_text(other) if other.is_file() else None
        for client in DSH_CLIENTS:
            if find_block(other_text, client) and (other != path or client != bridge.client):
                notes.append(
                    f"warning: {other} also mounts loopguard-hook through the {BRIDGES[client].title}; DSH runs "
                    f"both on every event (twice the processes): keep one "
                    f"(`loopguard-hook uninstall --client {client}`)"
                )
    for service in [] if served else missing_services(entry):
        notes.append(
            f"warning: the {bridge.title} waits for a DSH service named `{service}`, and no package beside it "
            f"provides one (dsh 0.1.0-rc.8 has `shell`): DSH then fails to boot with \"waiting for service: "
            f"{service}\" until a plugin provides `{service}`"
        )
    notes.append(
        f"DSH reads {path} when it starts (a running DSH reloads it); see the composed rows with "
        "`dsh --profile headless --dump-config`"
    )
    return notes


def _layers(*, home: str | os.PathLike[str], env: Mapping[str, str] | None) -> list[Path]:
    """Every DSH patch layer of this user: the home layer, then each profile's."""
    root = dsh_home(home=home, env=env)
    profiles = root / "profiles"
    found = sorted(profiles.glob("*/cordis.patch.yml")) if profiles.is_dir() else []
    return [root / "cordis.patch.yml", *found]


def plan_dsh_uninstall(
    client: str,
    *,
    home: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    profile: str | None = None,
) -> list[Change]:
    """Plan removing what `plan_dsh_install` added: our handlers from the hooks config (the
    file goes when nothing else is left in it; it stays while another layer still mounts the
    bridge with it), our block from the patch layer (the `[]` it replaced is put back; the
    file goes when nothing is left), then the `bash` service plugin (Codex bridge; it too stays
    while another layer still mounts the bridge). Writes nothing.

    Raises:
        InstallError: unknown client; the hooks config is not valid JSON.
    """
    bridge = _bridge(client)
    hooks_path, patch_path = dsh_paths(client, home=home, env=env, profile=profile)
    others = [p for p in _layers(home=home, env=env) if p != patch_path and p.is_file() and find_block(read_text(p), client)]
    if others:
        old_hooks = read_text(hooks_path)
        note = f"{hooks_path}: kept, {others[0]} still mounts the {bridge.title} with it"
        changes = [make_change(hooks_path, old_hooks, old_hooks, [note])]
    else:
        changes = [_unplan_hooks_file(hooks_path)]
    old_text = read_text(patch_path)
    new_text = without_block(old_text, client)
    if new_text == old_text:
        where = patch_path if old_text is not None else f"{patch_path} (absent)"
        messages = [f"{where}: the {bridge.title} is not mounted there by loopguard-hook; nothing to change"]
    else:
        messages = [f"removes the {bridge.title} rows from {patch_path}"]
    changes.append(make_change(patch_path, old_text, new_text, messages, deletable=True))
    service = service_path(dsh_home(home=home, env=env))
    old_service = read_text(service)
    if client == DSH_CODEX and old_service is not None and not others:
        changes.append(make_change(service, old_service, None, [f"removes {service}"], deletable=True))
    return changes


def _unplan_hooks_file(path: Path) -> Change:
    old_text = read_text(path)
    data = parse_json_object(path, old_text)
    kept, removed = without_ours(data.get("hooks", {}))
    if not removed:
        where = path if old_text is not None else f"{path} (absent)"
        return make_change(path, old_text, old_text, [f"{where}: loopguard-hook is not registered there; nothing to change"])
    value = copy.deepcopy(data)
    if kept:
        value["hooks"] = kept
    else:
        del value["hooks"]
    messages = [f"removes `{CANONICAL_COMMAND}` from {path} for: {', '.join(removed)}"]
    messages += variant_notes(path, loopguard_events(kept))
    new_text = None if not value else rewrite_json(old_text, value)
    return make_change(path, old_text, new_text, messages, deletable=True)
