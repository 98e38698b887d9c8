"""`install` and `uninstall` for GitHub Copilot CLI, Cursor and Factory Droid, each in its own
file and format. Writes nothing (`apply` does).

Host facts (`hosts/copilot.py`, `hosts/cursor.py`, `hosts/droid.py` hold their sources):

- Copilot CLI 1.0.102 runs every `*.json` in `~/.copilot/hooks/` and, in a trusted folder, in a
  repository's `.github/hooks/`: `{"version": 1, "hooks": {"preToolUse": [{"type": "command",
  "bash": CMD, "timeoutSec": N}]}}`. Its camelCase files send no event name, so each event gets
  its own command (`--event preToolUse`). Install writes its own file, `loopguard-hook.json`.
  It denies a call whose preToolUse hook exits non-zero (`tests/e2e/copilot`, case
  `pre-exit127`): each command ends `|| true`, so a missing program lets every call through.
- Cursor reads `~/.cursor/hooks.json` and a trusted project's `.cursor/hooks.json`:
  `{"version": 1, "hooks": {"preToolUse": [{"command": CMD, "timeout": N}]}}`. An unknown event
  key, an invalid matcher or `//` inside a string makes it reject the whole file, and
  `failClosed: true` would turn a failure into a denial: install writes neither.
- Droid 0.215.0 reads hooks in Claude Code's nesting from `~/.factory/settings.json` (`"hooks"`),
  `~/.factory/hooks.json` (no `"hooks"` wrapper; with one the file is ignored) and, when that is
  absent, `~/.factory/hooks/hooks.json`; per event the hooks file **replaces** settings.json's
  entries, and one invalid handler disables a whole file. Install therefore merges into the
  hooks file when the user has one (it wins anyway) and otherwise into `settings.json` (a new
  hooks file would silently switch off the user's settings.json hooks of the same events).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ..hosts import copilot, cursor
from .change import Change, InstallError, make_change
from .files import made_by_install, read_text
from .handlers import is_our_command, merge_groups, without_ours
from .jsontext import kind, parse_json_object, rewrite_json
from .tables import CANONICAL_COMMAND, SESSION_END_TIMEOUT_SECONDS, TIMEOUT_SECONDS, events_table

COPILOT: Final = "copilot"
CURSOR: Final = "cursor"
DROID: Final = "droid"
HOST_CLIENTS: Final = (COPILOT, CURSOR, DROID)
HOST_NAMES: Final[Mapping[str, str]] = {COPILOT: "Copilot CLI", CURSOR: "Cursor", DROID: "Droid"}
HOST_SCOPES: Final[Mapping[str, tuple[str, ...]]] = {
    COPILOT: ("user", "project"),
    CURSOR: ("user", "project"),
    DROID: ("user", "project"),
}

#: Droid's hook events (its settings schema, 0.215.0) that the guard handles, in write order.
DROID_EVENTS: Final = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "SubagentStop",
)


def host_command(client: str, event: str | None = None) -> str:
    """The command each host runs: `loopguard-hook --client NAME`, with `--event E` for Copilot's
    camelCase files (their payloads do not name the event)."""
    command = f"{CANONICAL_COMMAND} --client {client}"
    return f"{command} --event {event}" if event else command


def host_settings_path(
    client: str, scope: str, *, home: str | os.PathLike[str], project_dir: str | os.PathLike[str]
) -> Path:
    """The file `install --client` writes for a host: Copilot `~/.copilot/hooks/loopguard-hook.json`
    (project: `<project>/.github/hooks/loopguard-hook.json`), Cursor `~/.cursor/hooks.json`
    (project: `<project>/.cursor/hooks.json`), Droid `~/.factory/hooks.json` when it exists, else
    `~/.factory/hooks/hooks.json` when that exists, else `~/.factory/settings.json` (project: the
    same under `<project>/.factory/`, without the `hooks/` folder).

    Raises:
        InstallError: a scope the host does not have.
    """
    if scope not in HOST_SCOPES[client]:
        raise InstallError(f"{HOST_NAMES[client]} has no {scope!r} scope: use one of {', '.join(HOST_SCOPES[client])}")
    base = Path(os.path.abspath(home if scope == "user" else project_dir))
    if client == COPILOT:
        return base / (".copilot" if scope == "user" else ".github") / "hooks" / copilot.INSTALL_FILE
    if client == CURSOR:
        return base / ".cursor" / "hooks.json"
    factory = base / ".factory"
    candidates = [factory / "hooks.json"] + ([factory / "hooks" / "hooks.json"] if scope == "user" else [])
    return next((p for p in candidates if p.exists()), factory / "settings.json")


def _flat_table(client: str) -> dict[str, list[dict[str, Any]]]:
    """The hooks Copilot's or Cursor's file gets: one handler per event, no matcher (all tools)."""
    table: dict[str, list[dict[str, Any]]] = {}
    for event in copilot.INSTALL_EVENTS if client == COPILOT else cursor.INSTALL_EVENTS:
        seconds = SESSION_END_TIMEOUT_SECONDS if event == "sessionEnd" else TIMEOUT_SECONDS
        if client == COPILOT:
            # `|| true`: Copilot denies a call whose preToolUse hook exits non-zero, 127 of a missing
            # program included (a venv not active, an uninstalled package, a teammate's checkout).
            table[event] = [{"type": "command", "bash": host_command(COPILOT, event) + " || true", "timeoutSec": seconds}]
        else:
            table[event] = [{"command": host_command(CURSOR), "timeout": seconds}]
    return table


def _flat_command(entry: object) -> str:
    if not isinstance(entry, dict):
        return ""
    command = entry.get("bash", entry.get("command"))
    return command if isinstance(command, str) else ""


def _check_flat(path: Path, hooks: dict[str, Any]) -> None:
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            raise InstallError(f"{path}: hooks.{event} is {kind(entries)}, not an array of hooks; nothing was changed")


def hooks_file_table(client: str) -> dict[str, list[dict[str, Any]]]:
    """The `hooks` object install merges for a host (Droid: Claude Code's nesting)."""
    if client == DROID:
        table = events_table(DROID_EVENTS)
        for groups in table.values():
            for group in groups:
                group["hooks"] = [dict(h, command=host_command(DROID)) for h in group["hooks"]]
        return table
    return _flat_table(client)


def _read(path: Path, client: str) -> tuple[str | None, dict[str, Any], bool]:
    """(text, object, whether the hooks sit at the top level, as in Droid's hooks file)."""
    text = read_text(path)
    data = parse_json_object(path, text)
    bare = client == DROID and path.name == "hooks.json"
    if bare and "hooks" in data:
        raise InstallError(
            f'{path}: has a "hooks" wrapper, so Droid ignores the whole file; move its events to the top level '
            "(or remove the file to use settings.json), nothing was changed"
        )
    if not bare and client != DROID and text is not None and "//" in text:
        raise InstallError(
            f"{path}: contains `//`, which {HOST_NAMES[client]} may read as a comment; nothing was changed"
        )
    return text, data, bare


def plan_host_install(
    client: str, scope: str, *, home: str | os.PathLike[str], project_dir: str | os.PathLike[str]
) -> list[Change]:
    """Merge the host's handlers into its file (`host_settings_path`): an event that runs the
    guard already is left alone, a missing one gets ours appended after the entries there; every
    other key keeps its text and place. Writes nothing.

    Raises:
        InstallError: a scope the host lacks; the file is not valid JSON, not an object, its hooks
            not the expected shape, a Droid hooks file wrapped in `"hooks"`, a Cursor or Copilot
            file with `//` in it.
    """
    path = host_settings_path(client, scope, home=home, project_dir=project_dir)
    text, data, bare = _read(path, client)
    value = copy.deepcopy(data)
    hooks: dict[str, Any] = value if bare else value.get("hooks", {})
    table = hooks_file_table(client)
    messages: list[str] = []
    if client == DROID:
        added, _ = merge_groups(path, hooks, table, {})
    else:
        _check_flat(path, hooks)
        added = []
        for event, entries in table.items():
            current = hooks.get(event) or []
            if any("loopguard" in _flat_command(e) for e in current):
                continue
            hooks[event] = current + copy.deepcopy(entries)
            added.append(event)
    if added:
        if not bare:
            value["hooks"] = hooks
        if client != DROID and "version" not in value:
            value = {"version": 1, **value}  # both hosts read it; Cursor rejects a file without it
        new_text: str | None = rewrite_json(text, value)
        messages.insert(0, f"registers `{host_command(client)}` in {path} for: {', '.join(added)}")
    else:
        new_text = text
        messages.insert(0, f"{path}: loopguard-hook is already registered; nothing to change")
    messages += _host_notes(client, scope, path)
    return [make_change(path, text, new_text, messages)]


def plan_host_uninstall(
    client: str, scope: str, *, home: str | os.PathLike[str], project_dir: str | os.PathLike[str]
) -> list[Change]:
    """Remove the guard's handlers from the host's file, and nothing else; a file left holding
    only what install wrote (Copilot's own file) is deleted. For Droid every file it reads is
    cleaned (install chose by what existed then). Writes nothing.

    Raises:
        InstallError: as `plan_host_install`.
    """
    path = host_settings_path(client, scope, home=home, project_dir=project_dir)
    if client != DROID:
        return [_uninstall_from(client, path)]
    factory = path.parent
    files = [factory / "hooks.json", factory / "hooks" / "hooks.json", factory / "settings.json"]
    changes = [_uninstall_from(client, p) for p in files if p.exists()]
    return [c for c in changes if c.changed] or changes[:1] or [_uninstall_from(client, path)]


def _uninstall_from(client: str, path: Path) -> Change:
    """The change that takes the guard's handlers out of one file."""
    text, data, bare = _read(path, client)
    hooks = data if bare else data.get("hooks", {})
    if client == DROID:
        kept, removed = without_ours(hooks)
    else:
        _check_flat(path, hooks)
        kept, removed = {}, []
        for event, entries in hooks.items():
            remaining = [e for e in entries if not is_our_command(_flat_command(e))]
            if len(remaining) < len(entries):
                removed.append(event)
                if not remaining:
                    continue
            kept[event] = remaining
    if not removed:
        where = path if text is not None else f"{path} (absent)"
        return make_change(path, text, text, [f"{where}: loopguard-hook is not registered there; nothing to change"])
    value = copy.deepcopy(data)
    if bare:
        value = kept
    elif kept or client == CURSOR:  # Cursor's file keeps its (maybe empty) "hooks" object
        value["hooks"] = kept
    else:
        del value["hooks"]
    only_ours = not kept and _skeleton(client, value) and (client == COPILOT or made_by_install(path))
    new_text = None if only_ours else rewrite_json(text, value)
    messages = [f"removes `{host_command(client)}` from {path} for: {', '.join(removed)}"]
    if only_ours and client != COPILOT:
        messages.append(f"{path} held only what install wrote: it goes")
    return make_change(path, text, new_text, messages, deletable=only_ours)


def _skeleton(client: str, value: Mapping[str, Any]) -> bool:
    """Whether `value` (a file without the guard's handlers) holds no more than what install
    writes around them in a new file: Copilot's own file and Cursor's `{"version": 1, "hooks":
    {}}`, Droid's `{}`."""
    if client == DROID:
        return not value
    return set(value) <= {"version", "hooks"} and (client == COPILOT or value.get("version", 1) == 1) and not value.get("hooks")


def _host_notes(client: str, scope: str, path: Path) -> list[str]:
    """What to know after installing for a host: where it runs Claude Code's settings too."""
    if client == COPILOT:
        notes = [
            "note: Copilot CLI loads a repository's .github/hooks/ and .claude/settings*.json only in a trusted "
            "folder; ~/.copilot/hooks/ always"
        ]
        if scope == "project":
            notes.append(f"note: {path} is in the repository: commit it for the Copilot cloud agent to run it")
        return notes
    if client == CURSOR:
        return [
            "note: Cursor also runs the hooks of ~/.claude/settings.json and a project's .claude/ settings; a "
            "loopguard-hook there stays silent in Cursor now that Cursor has its own registration"
        ]
    if path.name == "settings.json":
        return [
            f"note: Droid reads {path.parent / 'hooks.json'} first, event by event; while it has none, the hooks "
            f"are in {path.name}"
        ]
    return [f"note: Droid reads {path} before settings.json, event by event, so the hooks are merged here"]
