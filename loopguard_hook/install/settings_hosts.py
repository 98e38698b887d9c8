"""`install` and `uninstall` for the hosts whose `settings.json` takes Claude Code's `hooks` shape
under their own event names: Qwen Code and Gemini CLI. Plans only (`apply` writes).

Host facts (each verified against the real host, shared research `qwen-code-hooks.md` §2 and
`gemini-cli-hooks.md` §2, and the e2e tests that run what `install` writes):

- Qwen Code 0.24.4: user `~/.qwen/settings.json` (`$QWEN_HOME/settings.json`, `QWEN_HOME` being
  the `.qwen` folder itself), project `<project>/.qwen/settings.json` (loaded with no trust
  step); Claude Code's event names; `timeout` in seconds (a value of 1000 or more is read as
  milliseconds); PostToolBatch, UserPromptSubmit and Stop take no matcher; a failing hook
  fails open; `"disableAllHooks": true` turns every hook off.
- Gemini CLI 0.61.0: user `~/.gemini/settings.json` (`$GEMINI_CLI_HOME/.gemini/settings.json`),
  project `<project>/.gemini/settings.json` (run only in a trusted folder, after a warning);
  its own event names (`BeforeTool`, `AfterTool`, `BeforeAgent`, `AfterAgent`, `SessionStart`,
  `SessionEnd`); `timeout` in **milliseconds**; `hooksConfig.enabled: false` turns hooks off.
  Any exit of 2 or more blocks the call, 127 (a missing command) included, so the command is
  `… || true`: a missing or killed loopguard-hook then lets every call through.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .change import Change, InstallError, make_change
from .files import made_by_install, read_text
from .handlers import loopguard_events, merge_groups, take_out
from .jsonc import comments, kept_comments
from .jsontext import parse_json_object, read_json_quietly, rewrite_json
from .tables import CANONICAL_COMMAND, TIMEOUT_SECONDS

QWEN_CODE = "qwen-code"
GEMINI_CLI = "gemini-cli"


@dataclass(frozen=True)
class Host:
    """What `install` writes for one host, and where."""

    client: str
    name: str
    #: The settings folder under the home directory (`.qwen`, `.gemini`).
    folder: str
    #: The variable that moves the user settings: `QWEN_HOME` names the folder itself,
    #: `GEMINI_CLI_HOME` the home directory it sits in.
    home_variable: str
    variable_is_folder: bool
    #: The exact command string (the guard's canonical command, the host named, and for a host
    #: that fails closed the `|| true` that keeps a missing command from blocking every call).
    command: str
    #: (host event name, matcher or None), in the order written.
    events: tuple[tuple[str, str | None], ...]
    #: The handler's `timeout`, in the host's unit.
    timeout: int
    #: The essential events: without them the guard sees no tool call.
    tool_events: tuple[str, str]

    @property
    def event_names(self) -> tuple[str, ...]:
        return tuple(e for e, _ in self.events)

    def handler(self) -> dict[str, Any]:
        return {"type": "command", "command": self.command, "timeout": self.timeout}

    def table(self) -> dict[str, list[dict[str, Any]]]:
        """The `hooks` object install merges: one matcher group per event."""
        table: dict[str, list[dict[str, Any]]] = {}
        for event, matcher in self.events:
            group: dict[str, Any] = {"matcher": matcher} if matcher is not None else {}
            group["hooks"] = [self.handler()]
            table[event] = [group]
        return table


QWEN = Host(
    QWEN_CODE,
    "Qwen Code",
    ".qwen",
    "QWEN_HOME",
    True,
    f"{CANONICAL_COMMAND} --client {QWEN_CODE}",
    (
        ("PreToolUse", "*"),
        ("PostToolUse", "*"),
        ("PostToolUseFailure", "*"),
        ("PostToolBatch", None),
        ("UserPromptSubmit", None),
        ("SessionStart", None),
        ("SessionEnd", None),
        ("Stop", None),
        ("SubagentStop", None),
    ),
    TIMEOUT_SECONDS,
    ("PreToolUse", "PostToolUse"),
)
GEMINI = Host(
    GEMINI_CLI,
    "Gemini CLI",
    ".gemini",
    "GEMINI_CLI_HOME",
    False,
    f"{CANONICAL_COMMAND} --client {GEMINI_CLI} || true",
    (
        ("BeforeTool", "*"),
        ("AfterTool", "*"),
        ("BeforeAgent", None),
        ("AfterAgent", None),
        ("SessionStart", None),
        ("SessionEnd", None),
    ),
    TIMEOUT_SECONDS * 1000,
    ("BeforeTool", "AfterTool"),
)
HOSTS: Mapping[str, Host] = {QWEN_CODE: QWEN, GEMINI_CLI: GEMINI}
SCOPES = ("user", "project")


def settings_path(
    client: str, scope: str, *, home: str | os.PathLike[str], project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> Path:
    """The settings file of `client` for `scope` (`user` or `project`).

    Raises:
        InstallError: a scope the host does not have.
    """
    host = HOSTS[client]
    if scope not in SCOPES:
        raise InstallError(f"{host.name} has no {scope!r} scope: use one of {', '.join(SCOPES)}")
    if scope == "project":
        return Path(os.path.abspath(project_dir)) / host.folder / "settings.json"
    moved = (env or {}).get(host.home_variable)
    if moved:
        base = Path(os.path.abspath(os.path.expanduser(moved)))
        return (base if host.variable_is_folder else base / host.folder) / "settings.json"
    return Path(os.path.abspath(home)) / host.folder / "settings.json"


def notes(host: Host, path: Path, data: Mapping[str, Any]) -> list[str]:
    """Warnings about one settings file: hooks switched off, loopguard under another command
    string (each runs on every event), a Gemini command that a missing program would turn into a
    denial of every call, a Gemini timeout written in seconds."""
    found: list[str] = []
    if host is QWEN and data.get("disableAllHooks") is True:
        found.append(f'warning: {path} sets "disableAllHooks": true, so Qwen Code runs no hooks at all')
    config = data.get("hooksConfig")
    if host is GEMINI and isinstance(config, dict) and config.get("enabled") is False:
        found.append(f'warning: {path} sets "hooksConfig.enabled": false, so Gemini CLI runs no hooks at all')
    hooks = data.get("hooks")
    for command in sorted({c for cmds in loopguard_events(hooks).values() for c in cmds}):
        if command.strip() == host.command:
            continue
        found.append(
            f"warning: {path} runs loopguard as `{command}`, not as `{host.command}`: each command string runs on "
            "every event (twice the processes, and the first to run decides)"
        )
        if host is GEMINI and not command.rstrip().endswith("|| true"):
            found.append(
                f"warning: `{command}` has no `|| true`: Gemini CLI denies every tool call when a hook exits 2 or "
                "more, and a missing or killed loopguard-hook does (uninstall, then install, writes the safe form)"
            )
    if host is GEMINI and isinstance(hooks, dict):
        found += _gemini_timeouts(path, hooks)
    return found


def _gemini_timeouts(path: Path, hooks: Mapping[str, Any]) -> list[str]:
    from .handlers import handlers, runs_loopguard

    short = sorted({event for event, _, _, entry in handlers(hooks) if runs_loopguard(entry) and _ms(entry) < 1000})
    if not short:
        return []
    return [
        f"warning: {path} gives loopguard a timeout under 1000 on {', '.join(short)}: Gemini CLI reads milliseconds "
        "(a Claude Code timeout in seconds copied over kills the hook before it answers)"
    ]


def _ms(entry: Mapping[str, Any]) -> float:
    timeout = entry.get("timeout")
    return float(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) else 60000.0


def plan_install(
    client: str, scope: str = "user", *, home: str | os.PathLike[str], project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> list[Change]:
    """Plan registering the host's command on each of its events. Writes nothing.

    An event that already runs loopguard (any spelling) is left alone; a missing one gets a
    matcher group appended after the existing ones; every other key and its order is kept.

    Raises:
        InstallError: a scope the host does not have; the file is not valid JSON with comments
            (`//` and `/* */` are read, and kept in place; a trailing comma is refused), not an
            object, or `hooks` or one of our events in it is not the expected shape; its comments
            could not be kept in place (`jsonc.kept_comments`).
    """
    host = HOSTS[client]
    path = settings_path(client, scope, home=home, project_dir=project_dir, env=env)
    old_text = read_text(path)
    data = parse_json_object(path, old_text, jsonc=True)
    value = copy.deepcopy(data)
    hooks: dict[str, Any] = value.get("hooks", {})
    added, _ = merge_groups(path, hooks, host.table(), {})
    messages = notes(host, path, data) + _other_scope_notes(host, scope, home=home, project_dir=project_dir, env=env)
    if scope == "project" and host is GEMINI:
        messages.append(
            "note: Gemini CLI runs a project's hooks only in a trusted folder, and warns about them the first time"
        )
    if added:
        value["hooks"] = hooks
        new_text: str | None = rewrite_json(old_text, value)
        if kept_comments(path, old_text, new_text or "", value):  # install takes nothing out: none may go
            raise InstallError(
                f"{path}: a comment where the hooks go would not survive this edit; nothing was changed (move the "
                "comment out of the way, or add the entries by hand: `HOME=$(mktemp -d) loopguard-hook install "
                f"--client {client} --dry-run --diff` shows them as they would go into an empty file)"
            )
        messages.insert(0, f"registers `{host.command}` in {path} for: {', '.join(added)}")
        messages += _comments_note(path, old_text)
    else:
        new_text = old_text
        messages.insert(0, f"{path}: loopguard-hook is already registered; nothing to change")
    return [make_change(path, old_text, new_text, messages)]


def _other_scope_notes(
    host: Host, scope: str, *, home: str | os.PathLike[str], project_dir: str | os.PathLike[str], env: Mapping[str, str] | None
) -> list[str]:
    """A registration in the other scope's file runs too: every call would be seen twice."""
    other = "project" if scope == "user" else "user"
    path = settings_path(host.client, other, home=home, project_dir=project_dir, env=env)
    data = read_json_quietly(path, jsonc=True)
    if data is None or not loopguard_events(data.get("hooks")):
        return []
    return [f"note: {path} ({other} scope) registers loopguard too; {host.name} runs both (uninstall one)"]


def plan_uninstall(
    client: str, scope: str = "user", *, home: str | os.PathLike[str], project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
) -> list[Change]:
    """Plan removing our handlers (a command starting `loopguard-hook`) from the host's settings
    file. Writes nothing. A matcher group or event left empty goes too, and `hooks` when nothing is
    left in it; other spellings of loopguard are reported, not removed.

    Raises:
        InstallError: as `plan_install`.
    """
    host = HOSTS[client]
    path = settings_path(client, scope, home=home, project_dir=project_dir, env=env)
    old_text = read_text(path)
    data = parse_json_object(path, old_text, jsonc=True)
    new_text, kept, removed, said = take_out(path, old_text, data)
    messages = [said]
    if removed and old_text is not None and comments(old_text):
        lost = kept_comments(path, old_text, new_text or "", _without_hooks(data, kept))
        messages += _comments_note(path, old_text, lost)
    messages += [n for n in notes(host, path, {**data, "hooks": kept}) if "runs loopguard as" in n]
    if removed and not kept and set(data) == {"hooks"} and made_by_install(path) and not comments(old_text or ""):
        messages.append(f"{path} held only what install wrote: it goes")
        return [make_change(path, old_text, None, messages, deletable=True)]
    return [make_change(path, old_text, new_text, messages)]


def _without_hooks(data: Mapping[str, Any], kept: dict[str, Any]) -> dict[str, Any]:
    """The settings object less our handlers: `kept` as `hooks`, or no `hooks` when it is empty."""
    value = {k: v for k, v in data.items() if k != "hooks"}
    if kept:
        value = {k: (kept if k == "hooks" else v) for k, v in data.items()}
    return value


def _comments_note(path: Path, old_text: str | None, lost: list[str] | None = None) -> list[str]:
    """What became of a settings file's comments (both hosts read `//` and `/* */` comments in
    it: Gemini CLI 0.61.0 parses it as `JSON.parse(stripJsonComments(text))`, Qwen Code 0.24.4
    as `JSON.parse(stripJsonComments(stripUtf8Bom(text)))`, their bundled settings loaders)."""
    if old_text is None or not comments(old_text):
        return []
    if lost:
        return [f"note: {path}: {len(lost)} comment(s) inside the entries removed go with them; every other comment "
                "is kept in place"]
    return [f"note: {path} has comments: each is kept in place"]
