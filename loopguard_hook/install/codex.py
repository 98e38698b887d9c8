"""Codex's hook sources: where `install` writes for each scope, the other sources Codex loads
beside it, and the Codex-only parts of installing and uninstalling (layers, notes, trust).

Client facts (Codex 0.171.0, `codex app-server` hooks/list; developers.openai.com/codex/hooks):
hooks live in `$CODEX_HOME/hooks.json` (`~/.codex`; `CODEX_HOME` is canonicalised by Codex) or
inline in that folder's `config.toml` (`[[hooks.Event]]` / `[[hooks.Event.hooks]]`), and in
`<repo>/.codex/` of trusted projects. Every layer's hooks run and Codex does not de-duplicate
them. Unknown event keys are ignored. `SessionEnd` timeouts are clamped to 3 s. `[features]
hooks = false` (or `codex_hooks = false`) turns hooks off. Trust: see `trust`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .change import Change
from .handlers import handlers, installed_by_us, loopguard_events, variant_notes
from .jsontext import read_json_quietly
from .tables import env_dir
from .tomltext import read_toml_quietly
from .trust import plan_trust, plan_untrust, trust_entries, trust_hint


def codex_home(*, home: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Path:
    """`$CODEX_HOME` (canonicalised, as Codex 0.171.0 does) or `<home>/.codex`."""
    value = env_dir(env, "CODEX_HOME")
    if value is not None:
        return Path(os.path.realpath(os.path.expanduser(value)))
    return Path(os.path.abspath(home)) / ".codex"


def codex_hooks_path(
    scope: str,
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> Path:
    """user `$CODEX_HOME/hooks.json` (`~/.codex/hooks.json`), project
    `<project_dir>/.codex/hooks.json` (the project directory resolved, as Codex sees its cwd)."""
    if scope == "user":
        return codex_home(home=home, env=env) / "hooks.json"
    return Path(os.path.realpath(project_dir)) / ".codex" / "hooks.json"


def codex_config_path(
    *, home: str | os.PathLike[str], env: Mapping[str, str] | None = None
) -> Path:
    """`$CODEX_HOME/config.toml`: where Codex keeps hook trust records (`[hooks.state]`)."""
    return codex_home(home=home, env=env) / "config.toml"


def inline_codex_hooks(doc: Mapping[str, Any] | None) -> dict[str, Any]:
    """The `[[hooks.Event]]` arrays of a Codex config.toml (`hooks.state` is not an event)."""
    hooks = (doc or {}).get("hooks")
    if not isinstance(hooks, dict):
        return {}
    return {k: v for k, v in hooks.items() if isinstance(v, list)}


def _other_sources(
    scope: str,
    path: Path,
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None,
) -> list[tuple[Path, dict[str, Any]]]:
    """Codex hook sources loaded together with `path`: its folder's config.toml, the other layer."""
    sources: list[tuple[Path, dict[str, Any]]] = []
    same_toml = path.parent / "config.toml"
    sources.append((same_toml, inline_codex_hooks(read_toml_quietly(same_toml))))
    other = "project" if scope == "user" else "user"
    other_json = codex_hooks_path(other, home=home, project_dir=project_dir, env=env)
    if other_json != path:
        other_data = read_json_quietly(other_json) or {}
        sources.append((other_json, other_data.get("hooks") or {}))
        other_toml = other_json.parent / "config.toml"
        sources.append((other_toml, inline_codex_hooks(read_toml_quietly(other_toml))))
    return sources


def codex_layers(
    scope: str,
    path: Path,
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None,
) -> tuple[list[str], dict[str, Path]]:
    """(notes, event -> source) for an install into `path`: loopguard already registered in a
    source Codex loads with it, so that event must not be added again (Codex runs every copy).
    A user install only warns about a project layer's copy: it applies in that project alone."""
    messages: list[str] = []
    elsewhere: dict[str, Path] = {}
    for source, source_hooks in _other_sources(
        scope, path, home=home, project_dir=project_dir, env=env
    ):
        found = loopguard_events(source_hooks)
        messages += variant_notes(source, found)
        if source.parent != path.parent and scope == "user":
            if found:
                messages.append(
                    f"warning: {source} also registers loopguard-hook; in that project "
                    "Codex runs both copies on every event (twice the processes, and the first "
                    "to run decides): remove it there "
                    "(run `loopguard-hook uninstall --client codex --scope project` in it)"
                )
            continue
        for event in found:
            elsewhere.setdefault(event, source)
    return messages, elsewhere


def skipped_notes(elsewhere: Mapping[str, Path], skipped: list[str]) -> list[str]:
    """One note per source for the events `skipped` because `elsewhere` already registers them."""
    notes = []
    for source in sorted(set(elsewhere.values())):
        events = [e for e in skipped if elsewhere[e] == source]
        if events:
            notes.append(
                f"skipped {', '.join(events)}: already registered in {source}, and Codex "
                "would run a second copy (it does not de-duplicate hooks across files)"
            )
    return notes


def _codex_notes(scope: str, project_dir: str | os.PathLike[str], config: Path, *, registered: bool) -> list[str]:
    """config.toml warnings, and for a project layer that holds the guard (`registered`) that
    Codex loads it only in a trusted project."""
    notes = []
    doc = read_toml_quietly(config)
    if doc is None:
        return [f"warning: {config} is not valid TOML; Codex will not start until it is fixed"]
    features = doc.get("features")
    if isinstance(features, dict) and (
        features.get("hooks") is False or features.get("codex_hooks") is False
    ):
        notes.append(
            f"warning: {config} turns hooks off ([features] hooks = false); Codex runs none"
        )
    if scope == "project" and registered:
        root = os.path.realpath(project_dir)
        projects = doc.get("projects")
        entry = projects.get(root) if isinstance(projects, dict) else None
        if not (isinstance(entry, dict) and entry.get("trust_level") == "trusted"):
            notes.append(
                f"note: Codex loads {root}/.codex/hooks.json only in a trusted project: accept the "
                'trust prompt when Codex opens it (it records [projects."…"] trust_level = '
                f'"trusted" in {config})'
            )
    return notes


def codex_trust_step(
    path: Path,
    hooks: Mapping[str, Any],
    scope: str,
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None,
    trust: bool,
) -> tuple[list[str], list[Change]]:
    """(notes for the hooks.json change, further changes) once `hooks` is planned for `path`:
    config.toml warnings (a project's trust only when its layer holds the guard), then either the
    config.toml trust change (`trust`) or a hint."""
    config = codex_config_path(home=home, env=env)
    inline = path.parent / "config.toml"
    inline_hooks = inline_codex_hooks(read_toml_quietly(inline))
    registered = bool(loopguard_events(hooks) or loopguard_events(inline_hooks))
    messages = _codex_notes(scope, project_dir, config, registered=registered)
    entries = trust_entries(path, hooks)
    entries.update(trust_entries(inline, inline_hooks))
    if not trust:
        return messages + trust_hint(entries, config, scope), []
    return messages, [plan_trust(config, entries)]


SHIFTED_NOTE = (
    "note: hooks listed after ours in the same event move up, and Codex keys trust by "
    "position, so it will ask you to review those hooks again (/hooks)"
)


def shifted_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a handler other than ours gets a different (group, handler) position."""

    def positions(hooks: Mapping[str, Any]) -> dict[str, list[tuple[int, int]]]:
        out: dict[str, list[tuple[int, int]]] = {}
        for event, gi, hi, entry in handlers(hooks):
            if not installed_by_us(entry):
                out.setdefault(event, []).append((gi, hi))
        return out

    return positions(old) != positions(new)


def codex_uninstall_notes(path: Path) -> list[str]:
    """After removing our handlers from `path`: inline copies left in config.toml."""
    inline = path.parent / "config.toml"
    found = loopguard_events(inline_codex_hooks(read_toml_quietly(inline)))
    if not found:
        return []
    return [
        f"note: {inline} still registers loopguard-hook inline ([[hooks.{next(iter(found))}]] …); "
        "remove those tables by hand"
    ]


def codex_untrust(
    path: Path, before: Mapping[str, Any], after: Mapping[str, Any], *, home: str | os.PathLike[str],
    env: Mapping[str, str] | None,
) -> tuple[Change | None, list[str]]:
    """The config.toml change taking out the trust records of the handlers that `before` (the
    file's `hooks`) has and `after` has not, with notes on records that stay (`plan_untrust`)."""
    keep = trust_entries(path, after)
    gone = {k: h for k, h in trust_entries(path, before).items() if keep.get(k) != h}
    if not gone:
        return None, []
    return plan_untrust(codex_config_path(home=home, env=env), gone)
