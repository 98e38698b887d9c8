"""Register loopguard-hook in a client's hook settings, or remove it: the engine behind
`loopguard-hook install` and `uninstall`, and the source of the ready-made files in `hooks/`.

Pure functions plus one writer (`apply`): nothing here imports click, and nothing on the hook path
imports this module. The caller passes the home directory, the project directory and the
environment in; `plan_install` / `plan_uninstall` read files and return `Change` values (old text,
new text, unified diff, messages) without writing anything; `apply` writes them, each after a
timestamped backup, through a temp file and `os.replace`.

Client facts this module relies on:

- Claude Code 2.1.332 (hooks reference for v2.1.240; settings schema of 2.1.332): hooks live in
  `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` when set), `.claude/settings.json`
  and `.claude/settings.local.json`, shaped `{"hooks": {Event: [{"matcher": …, "hooks":
  [{"type": "command", "command": …, "timeout": seconds}]}]}}`; hooks from every file run, and
  handlers with an identical command string run once, while a different string (an added flag, a
  full path) runs again in parallel: twice the hook processes per call (the ledger counts the
  call once, by `tool_use_id`, and whichever copy runs first decides). `PostToolBatch`,
  `UserPromptSubmit`, `Stop` take no matcher. The default timeout is 600 s (30 s on
  `UserPromptSubmit`); `SessionEnd` hooks share a 1.5 s budget that is raised to the largest
  `SessionEnd` timeout. A plugin's `hooks/hooks.json` is loaded automatically; naming that same
  file again in `plugin.json` fails with "Duplicate hooks file detected".
- Codex 0.171.0 (`codex app-server` hooks/list; developers.openai.com/codex/hooks): hooks live in
  `$CODEX_HOME/hooks.json` (`~/.codex`; `CODEX_HOME` is canonicalised by Codex) or inline in that
  folder's `config.toml` (`[[hooks.Event]]` / `[[hooks.Event.hooks]]`), and in `<repo>/.codex/`
  of trusted projects. Every layer's hooks run and Codex does not de-duplicate them. Unknown event
  keys are ignored. `SessionEnd` timeouts are clamped to 3 s. A hook runs only when
  `config.toml` holds `[hooks.state."<file>:<event_snake>:<group>:<handler>"] trusted_hash =
  "sha256:…"` equal to its current hash (`trusted_hash`), or under
  `codex exec --dangerously-bypass-hook-trust`; otherwise `codex exec` skips it silently.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from . import __version__
from .payload import HANDLED_EVENT_ORDER

#: The one command string every config uses. Claude Code runs identical command strings once
#: across settings files; any other spelling runs again and double-counts every call.
CANONICAL_COMMAND: Final = "loopguard-hook"

CLAUDE_CODE: Final = "claude-code"
CODEX: Final = "codex"
CLIENTS: Final = (CLAUDE_CODE, CODEX)
CLIENT_NAMES: Final[Mapping[str, str]] = {CLAUDE_CODE: "Claude Code", CODEX: "Codex"}
SCOPES: Final[Mapping[str, tuple[str, ...]]] = {
    CLAUDE_CODE: ("user", "project", "local"),
    CODEX: ("user", "project"),
}

#: Seconds a client waits for the hook. Explicit because both clients default to 600 s, and a
#: timed-out hook fails open anyway (Claude Code 2.1.332, Codex 0.171.0).
TIMEOUT_SECONDS: Final = 10
#: Codex 0.171.0 clamps SessionEnd timeouts to 3 s (with a warning); Claude Code 2.1.332 raises its
#: 1.5 s SessionEnd budget to the largest SessionEnd timeout, so 3 s suits both.
SESSION_END_TIMEOUT_SECONDS: Final = 3

#: Hook event keys Codex 0.171.0 accepts (`codex app-server` hooks/list); it ignores other keys.
CODEX_KNOWN_EVENTS: Final = frozenset(
    {
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "Interrupt",
    }
)

_HANDLED_EVENTS: Final = HANDLED_EVENT_ORDER

#: Hook events registered per client, in the order they are written: Claude Code gets every event
#: the guard handles; Codex those of them it knows (it has no PostToolUseFailure or
#: PostToolBatch, and although it would ignore the keys, they are not written).
HOOK_EVENTS: Final[Mapping[str, tuple[str, ...]]] = {
    CLAUDE_CODE: _HANDLED_EVENTS,
    CODEX: tuple(e for e in _HANDLED_EVENTS if e in CODEX_KNOWN_EVENTS),
}

#: Events whose matcher selects tools; they get `"*"`. The others are written without a matcher:
#: it is ignored (UserPromptSubmit, Stop, PostToolBatch) or would filter what the guard must see
#: (SessionStart's source, SubagentStop's agent type).
TOOL_MATCHER_EVENTS: Final = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
TOOL_MATCHER: Final = "*"

#: Codex 0.171.0 events that honour `matcher` (hooks/list; dispatcher). For the others Codex drops
#: the matcher, also from the trust hash.
_CODEX_MATCHER_EVENTS: Final = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PermissionRequest",
        "SessionStart",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
    }
)
_CODEX_DEFAULT_TIMEOUT: Final = 600

PLUGIN_DESCRIPTION: Final = (
    "Catches an agent repeating the same tool call without progress: reminds the model, then "
    "denies the repeat. Runs the `loopguard-hook` command, so the loopguard-hook Python package "
    "must be installed with its command on PATH."
)
_AUTHOR: Final = {"name": "loopguard-hook maintainers"}


class InstallError(Exception):
    """A settings file cannot be changed safely; the message names the file and the reason."""


@dataclass(frozen=True, slots=True)
class Change:
    """One file's planned (or, after `apply`, performed) change.

    Attributes:
        path: the file as the client names it (absolute).
        old_text: its text now; None when it does not exist.
        new_text: its text after the change; None when it stays absent.
        diff: unified diff from old to new ("" when unchanged).
        messages: notes for the user (what was skipped and why, what to do next).
        backup: after `apply`, the copy of the old file (`<file>.bak-YYYYmmddHHMMSS`), if any.
        written: after `apply`, whether the file was written.
    """

    path: Path
    old_text: str | None
    new_text: str | None
    diff: str
    messages: list[str] = field(default_factory=list)
    backup: Path | None = None
    written: bool = False

    @property
    def changed(self) -> bool:
        """Whether applying this change would write (or, after `apply`, wrote) the file."""
        return self.old_text != self.new_text


# -- tables -----------------------------------------------------------------------------------


def _check_client_scope(client: str, scope: str) -> None:
    if client not in SCOPES:
        raise InstallError(f"unknown client {client!r}: use one of {', '.join(CLIENTS)}")
    if scope not in SCOPES[client]:
        raise InstallError(
            f"{CLIENT_NAMES[client]} has no {scope!r} scope: use one of {', '.join(SCOPES[client])}"
        )


def handler() -> dict[str, Any]:
    """The handler object for one event: `{"type": "command", "command": …, "timeout": s}`."""
    return {"type": "command", "command": CANONICAL_COMMAND, "timeout": TIMEOUT_SECONDS}


def hooks_table(client: str) -> dict[str, list[dict[str, Any]]]:
    """The `hooks` object install merges for `client`: event -> one matcher group.

    The same table feeds `plan_install` and every file in `hooks/`, so they cannot drift.

    Raises:
        InstallError: unknown client.
    """
    _check_client_scope(client, "user")
    table: dict[str, list[dict[str, Any]]] = {}
    for event in HOOK_EVENTS[client]:
        entry = handler()
        if event == "SessionEnd":
            entry["timeout"] = SESSION_END_TIMEOUT_SECONDS
        group: dict[str, Any] = {"matcher": TOOL_MATCHER} if event in TOOL_MATCHER_EVENTS else {}
        group["hooks"] = [entry]
        table[event] = [group]
    return table


# -- paths ------------------------------------------------------------------------------------


def _env_dir(env: Mapping[str, str] | None, name: str) -> str | None:
    value = (env or {}).get(name)
    return value or None  # an empty variable counts as unset (as in both clients)


def codex_home(*, home: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Path:
    """`$CODEX_HOME` (canonicalised, as Codex 0.171.0 does) or `<home>/.codex`."""
    value = _env_dir(env, "CODEX_HOME")
    if value is not None:
        return Path(os.path.realpath(os.path.expanduser(value)))
    return Path(os.path.abspath(home)) / ".codex"


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
    _check_client_scope(client, scope)
    if client == CLAUDE_CODE:
        if scope == "user":
            config_dir = _env_dir(env, "CLAUDE_CONFIG_DIR")
            base = (
                Path(os.path.abspath(os.path.expanduser(config_dir)))
                if config_dir
                else (Path(os.path.abspath(home)) / ".claude")
            )
            return base / "settings.json"
        name = "settings.json" if scope == "project" else "settings.local.json"
        return Path(os.path.abspath(project_dir)) / ".claude" / name
    if scope == "user":
        return codex_home(home=home, env=env) / "hooks.json"
    return Path(os.path.realpath(project_dir)) / ".codex" / "hooks.json"


def codex_config_path(
    *, home: str | os.PathLike[str], env: Mapping[str, str] | None = None
) -> Path:
    """`$CODEX_HOME/config.toml`: where Codex keeps hook trust records (`[hooks.state]`)."""
    return codex_home(home=home, env=env) / "config.toml"


# -- recognising our handlers -----------------------------------------------------------------

_LOOPGUARD_WORD = re.compile(r"(?:^|[\s/\\'\"=])loopguard[-_]hook(?:\.exe|\.py)?(?=$|[\s'\"])")


def is_our_command(command: object) -> bool:
    """True for the canonical command, alone or with arguments after it (`loopguard-hook …`)."""
    if not isinstance(command, str):
        return False
    text = command.strip()
    return text == CANONICAL_COMMAND or (
        text.startswith(CANONICAL_COMMAND) and text[len(CANONICAL_COMMAND)].isspace()
    )


def _command_line(entry: Mapping[str, Any]) -> str:
    command = entry.get("command")
    parts = [command] if isinstance(command, str) else []
    args = entry.get("args")  # Claude Code's exec form
    if isinstance(args, list):
        parts += [a for a in args if isinstance(a, str)]
    return " ".join(parts)


def _is_ours(entry: object) -> bool:
    return isinstance(entry, dict) and is_our_command(entry.get("command"))


def _runs_loopguard(entry: object) -> bool:
    """Ours, or another spelling of the same program (a full path, `python -m loopguard_hook`)."""
    return isinstance(entry, dict) and (
        _is_ours(entry) or bool(_LOOPGUARD_WORD.search(_command_line(entry)))
    )


def _handlers(hooks: Mapping[str, Any]) -> Iterator[tuple[str, int, int, dict[str, Any]]]:
    """(event, group index, handler index, handler) for every well-formed handler."""
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for gi, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            for hi, entry in enumerate(group["hooks"]):
                if isinstance(entry, dict):
                    yield event, gi, hi, entry


# -- JSON files -------------------------------------------------------------------------------


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InstallError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise InstallError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(
            f"{path}: not UTF-8 text (byte {exc.start}); nothing was changed"
        ) from None


def _parse_json_object(path: Path, text: str | None) -> dict[str, Any]:
    """The file's top-level object ({} for a missing or blank file).

    Raises:
        InstallError: not JSON, not an object, or `hooks` present but not an object.
    """
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "fix the file first, nothing was changed"
        ) from None
    except ValueError as exc:
        raise InstallError(
            f"{path}: not valid JSON ({exc}); fix the file first, nothing was changed"
        ) from None
    if not isinstance(value, dict):
        raise InstallError(
            f"{path}: the top-level value is {_kind(value)}, not an object; nothing was changed"
        )
    if "hooks" in value and not isinstance(value["hooks"], dict):
        raise InstallError(
            f'{path}: "hooks" is {_kind(value["hooks"])}, not an object; nothing was changed'
        )
    return value


def _json_style(text: str | None) -> tuple[str, str]:
    """(indent, newline) of an existing JSON file, so new parts match its look.

    A new or one-line file gets 2 spaces and LF, as Claude Code writes its settings.
    """
    if not text:
        return "  ", "\n"
    newline = "\r\n" if "\r\n" in text else "\n"
    match = re.search(r"\n([ \t]+)\S", text)
    if match is None:
        return "  ", newline
    indent = match.group(1)
    return ("\t" if indent.startswith("\t") else indent), newline


def dump_json(value: Any, *, indent: str | int = 2, newline: str = "\n") -> str:
    """JSON text as Claude Code writes its settings (indented, non-ASCII kept, final newline)."""
    text = json.dumps(value, indent=indent, ensure_ascii=False) + "\n"
    return text if newline == "\n" else text.replace("\n", newline)


@dataclass(slots=True)
class _Span:
    """A JSON value with its exact source text, and its children's, for a minimal rewrite."""

    raw: str
    value: Any
    members: dict[str, _Span] | None = None
    items: list[_Span] | None = None


_DECODER = json.JSONDecoder()


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i


def _scan(text: str, idx: int) -> tuple[_Span, int]:
    """Parse the JSON value at `idx` (text already validated) keeping each child's source text."""
    idx = _skip_ws(text, idx)
    opener = text[idx : idx + 1]
    if opener not in ("{", "["):
        value, end = _DECODER.raw_decode(text, idx)
        return _Span(text[idx:end], value), end
    closer = "}" if opener == "{" else "]"
    members: dict[str, _Span] = {}
    items: list[_Span] = []
    i = _skip_ws(text, idx + 1)
    while text[i] != closer:
        if opener == "{":
            key, i = _DECODER.raw_decode(text, i)
            i = _skip_ws(text, i) + 1  # past ":"
            members[key], i = _scan(text, i)
        else:
            child, i = _scan(text, i)
            items.append(child)
        i = _skip_ws(text, i)
        if text[i] == ",":
            i = _skip_ws(text, i + 1)
    if opener == "{":
        return _Span(
            text[idx : i + 1], {k: v.value for k, v in members.items()}, members=members
        ), i + 1
    return _Span(text[idx : i + 1], [c.value for c in items], items=items), i + 1


def _same(a: Any, b: Any) -> bool:
    """Equal including types and key order (so `1` never stands in for `true` or `1.0`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _render(value: Any, old: _Span | None, level: int, indent: str, newline: str) -> str:
    """`value` as JSON at nesting `level`, reusing the old source text of every unchanged part."""
    if old is not None and _same(old.value, value):
        return old.raw
    pad, end_pad = indent * (level + 1), indent * level
    if isinstance(value, dict) and value:
        olds = old.members if old is not None and old.members is not None else {}
        parts = [
            pad
            + json.dumps(k, ensure_ascii=False)
            + ": "
            + _render(v, olds.get(k), level + 1, indent, newline)
            for k, v in value.items()
        ]
    elif isinstance(value, list) and value:
        old_items = old.items if old is not None and old.items is not None else []
        parts, j = [], 0
        for v in value:  # items keep their order; removed ones are skipped over
            k = next((k for k in range(j, len(old_items)) if _same(old_items[k].value, v)), None)
            parts.append(
                pad + _render(v, None if k is None else old_items[k], level + 1, indent, newline)
            )
            j = j if k is None else k + 1
    else:
        return json.dumps(value, ensure_ascii=False)
    brackets = "{}" if isinstance(value, dict) else "[]"
    return brackets[0] + newline + ("," + newline).join(parts) + newline + end_pad + brackets[1]


def _rewrite_json(old_text: str | None, value: dict[str, Any]) -> str:
    """The new file text: untouched members keep their exact old text, new parts follow the
    file's indentation and line endings (a new file: 2 spaces, LF, as Claude Code writes)."""
    if old_text is None or not old_text.strip():
        return dump_json(value)
    indent, newline = _json_style(old_text)
    try:
        root, _ = _scan(old_text, 0)
    except (ValueError, IndexError):  # pragma: no cover - the text was validated by json.loads
        root = None
    return _render(value, root, 0, indent, newline) + newline


# -- diffs ------------------------------------------------------------------------------------


def unified_diff(path: Path, old_text: str | None, new_text: str | None) -> str:
    """A unified diff of one file ("" when unchanged); a missing side is `/dev/null`."""
    if old_text == new_text:
        return ""
    old_lines = (old_text or "").splitlines(keepends=True)
    new_lines = (new_text or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old_lines,
        new_lines,
        fromfile=str(path) if old_text is not None else "/dev/null",
        tofile=str(path) if new_text is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _change(path: Path, old_text: str | None, new_text: str | None, messages: list[str]) -> Change:
    return Change(path, old_text, new_text, unified_diff(path, old_text, new_text), messages)


# -- Codex trust ------------------------------------------------------------------------------


def event_label(event: str) -> str:
    """Codex's snake_case event label used in trust keys: `PreToolUse` -> `pre_tool_use`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def trusted_hash(event: str, matcher: str | None, entry: Mapping[str, Any]) -> str:
    """Codex 0.171.0's current hash of one command handler (hook trust recipe).

    `"sha256:" + hex(sha256(canonical_json(identity)))`, where identity is
    `{"event_name": <snake label>, "matcher": <matcher, omitted if absent or if the event takes
    none>, "hooks": [{"type": "command", "command": …, "timeout": <seconds, 600 if unset>,
    "async": <bool>, "statusMessage": <only if set>}]}` and canonical JSON means keys sorted at
    every depth, `,`/`:` separators, UTF-8 (Codex serialises it with serde_json).
    """
    timeout = entry.get("timeout")
    normalized: dict[str, Any] = {
        "type": "command",
        "command": entry.get("command"),
        "timeout": max(
            1,
            timeout
            if isinstance(timeout, int) and not isinstance(timeout, bool)
            else _CODEX_DEFAULT_TIMEOUT,
        ),
        "async": bool(entry.get("async", False)),
    }
    if entry.get("statusMessage") is not None:
        normalized["statusMessage"] = entry["statusMessage"]
    identity: dict[str, Any] = {"event_name": event_label(event), "hooks": [normalized]}
    if matcher is not None and event in _CODEX_MATCHER_EVENTS:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def trust_entries(
    hooks_json_path: str | os.PathLike[str], hooks: Mapping[str, Any]
) -> dict[str, str]:
    """Trust records for our handlers in one Codex hooks source: key -> trusted_hash.

    `hooks_json_path` is the source file as Codex names it (absolute: `$CODEX_HOME/hooks.json`,
    `<repo>/.codex/hooks.json`, or a `config.toml` for inline hooks); `hooks` is that file's
    `hooks` object. The key is `<path>:<event_snake>:<group index>:<handler index>` (Codex
    0.171.0), indices counted over the event's whole list. Only handlers running
    `CANONICAL_COMMAND` are included: trusting other people's hooks is not ours to do.
    """
    entries: dict[str, str] = {}
    for event, gi, hi, entry in _handlers(hooks):
        if _is_ours(entry) and entry.get("type", "command") == "command":
            matcher = hooks[event][gi].get("matcher")
            key = f"{os.fspath(hooks_json_path)}:{event_label(event)}:{gi}:{hi}"
            entries[key] = trusted_hash(event, matcher if isinstance(matcher, str) else None, entry)
    return entries


def _toml_string(value: str) -> str:
    """A TOML basic string (quotes, backslashes and control characters escaped)."""
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_string(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    raise TypeError(f"no TOML form for {value!r}")  # only the scalars our tables hold


def render_codex_toml(hooks: Mapping[str, list[dict[str, Any]]]) -> str:
    """Inline Codex hooks for `config.toml`: `[[hooks.E]]` groups, `[[hooks.E.hooks]]` handlers.

    Handles the tables this module writes (scalar string/int/bool fields).
    """
    blocks = []
    for event, groups in hooks.items():
        for group in groups:
            lines = [f"[[hooks.{_toml_key(event)}]]"]
            lines += [
                f"{_toml_key(k)} = {_toml_value(v)}" for k, v in group.items() if k != "hooks"
            ]
            for entry in group["hooks"]:
                lines.append(f"[[hooks.{_toml_key(event)}.hooks]]")
                lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in entry.items()]
            blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _parse_toml(path: Path, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(
            f"{path}: not valid TOML ({exc}); fix the file first, nothing was changed"
        ) from None


def _header_path(line: str) -> tuple[str, ...] | None:
    """The dotted key of a `[table]` header line (quoting resolved by tomllib), else None."""
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    try:
        doc = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError:
        return None
    keys: list[str] = []
    node: Any = doc
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        keys.append(key)
    return tuple(keys) if keys and node == {} else None


_TRUSTED_HASH_LINE = re.compile(r"""^(\s*)(?:trusted_hash|"trusted_hash"|'trusted_hash')\s*=""")


def _is_any_header(line: str) -> bool:
    return line.lstrip().startswith("[")


def plan_trust(config_path: str | os.PathLike[str], entries: Mapping[str, str]) -> Change:
    """Merge `[hooks.state."<key>"] trusted_hash = "…"` records into Codex's `config.toml`.

    Minimal text edits: a record whose table already exists gets its `trusted_hash` line replaced
    (or added under the header); a missing one is appended at the end. Nothing else in the file
    changes (comments, order, layout). The result is parsed back and must equal the old content
    plus the records, or nothing is planned. Idempotent: records already equal change nothing.

    Raises:
        InstallError: the file is not valid TOML, or a record cannot be merged by these edits
            (e.g. `hooks` is an inline table); the message gives the lines to add by hand.
    """
    path = Path(config_path)
    old_text = _read_text(path)
    doc = _parse_toml(path, old_text)
    hooks = doc.get("hooks", {})
    state = hooks.get("state", {}) if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        raise InstallError(
            f"{path}: hooks.state is not a table; add the trust records by hand:\n"
            + _trust_snippet(entries)
        )
    pending = {
        k: h
        for k, h in entries.items()
        if not (isinstance(state.get(k), dict) and state[k].get("trusted_hash") == h)
    }
    messages = [
        f"note: Codex hook {key} is disabled in {path} (enabled = false); "
        "trusting does not enable it"
        for key in entries
        if isinstance(state.get(key), dict) and state[key].get("enabled") is False
    ]
    if not pending:
        if entries:
            messages.append(
                f"Codex trust: all {len(entries)} loopguard-hook handlers are already trusted "
                f"in {path}"
            )
        return _change(path, old_text, old_text, messages)
    messages.insert(
        0,
        f"records Codex trust for {len(pending)} loopguard-hook handler(s) in {path} "
        "(this skips Codex's own review of them)",
    )

    newline = "\r\n" if old_text and "\r\n" in old_text else "\n"
    lines = (old_text or "").splitlines(keepends=True)
    appended: list[str] = []
    for key, digest in pending.items():
        record = f"trusted_hash = {_toml_string(digest)}{newline}"
        starts = [
            i for i, line in enumerate(lines) if _header_path(line) == ("hooks", "state", key)
        ]
        if not starts:
            if key in state:
                raise InstallError(
                    f"{path}: the trust record {key!r} is not written as a [hooks.state.…] "
                    "table, so it cannot be edited safely; set it by hand:\n"
                    + _trust_snippet({key: digest})
                )
            appended += [newline, f"[hooks.state.{_toml_string(key)}]{newline}", record]
            continue
        start = starts[0]
        end = next(
            (i for i in range(start + 1, len(lines)) if _is_any_header(lines[i])), len(lines)
        )
        for i in range(start + 1, end):
            match = _TRUSTED_HASH_LINE.match(lines[i])
            if match:
                lines[i] = match.group(1) + record
                break
        else:
            lines.insert(start + 1, record)
    if appended:
        comment = (
            "# Codex hook trust for loopguard-hook (written by `loopguard-hook install --trust`)"
            + newline
        )
        if lines:
            if not lines[-1].endswith(("\n", "\r")):
                lines[-1] += newline
            lines += [newline, comment] + appended[1:]
        else:
            lines += [comment] + appended[1:]
    new_text = "".join(lines)

    expected = copy.deepcopy(doc)
    target = expected.setdefault("hooks", {}).setdefault("state", {})
    for key, digest in pending.items():
        target.setdefault(key, {})["trusted_hash"] = digest
    try:
        merged = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        merged = {"<unparsable>": str(exc)}
    if merged != expected:
        raise InstallError(
            f"{path}: cannot add the trust records without disturbing the file (its hooks tables "
            "are written in a form these edits do not handle); add them by hand:\n"
            + _trust_snippet(pending)
        )
    return _change(path, old_text, new_text, messages)


def _trust_snippet(entries: Mapping[str, str]) -> str:
    return "".join(
        f"[hooks.state.{_toml_string(key)}]\ntrusted_hash = {_toml_string(digest)}\n"
        for key, digest in entries.items()
    )


# -- planning ---------------------------------------------------------------------------------


def _read_json_quietly(path: Path) -> dict[str, Any] | None:
    """Another settings file, for warnings only: None when absent or unreadable."""
    try:
        return _parse_json_object(path, _read_text(path))
    except InstallError:
        return None


def _read_toml_quietly(path: Path) -> dict[str, Any] | None:
    try:
        return _parse_toml(path, _read_text(path))
    except InstallError:
        return None


def _loopguard_events(hooks: object) -> dict[str, list[str]]:
    """Event -> command lines of every handler that runs loopguard, in one `hooks` object."""
    found: dict[str, list[str]] = {}
    if isinstance(hooks, dict):
        for event, _, _, entry in _handlers(hooks):
            if _runs_loopguard(entry):
                found.setdefault(event, []).append(_command_line(entry))
    return found


def _inline_codex_hooks(doc: Mapping[str, Any] | None) -> dict[str, Any]:
    """The `[[hooks.Event]]` arrays of a Codex config.toml (`hooks.state` is not an event)."""
    hooks = (doc or {}).get("hooks")
    if not isinstance(hooks, dict):
        return {}
    return {k: v for k, v in hooks.items() if isinstance(v, list)}


def _variant_notes(where: Path, found: Mapping[str, list[str]]) -> list[str]:
    variants = sorted({cmd for cmds in found.values() for cmd in cmds if not is_our_command(cmd)})
    notes = [
        f"warning: {where} runs loopguard as `{cmd}`, not as `{CANONICAL_COMMAND}`: two different "
        "command strings both run on every event (twice the processes, and the first to run "
        "decides); replace it with "
        f"`{CANONICAL_COMMAND}` (or remove it)"
        for cmd in variants
    ]
    for event, cmds in found.items():
        for cmd in cmds:
            if is_our_command(cmd) and cmd.strip() != CANONICAL_COMMAND:
                notes.append(
                    f"note: {where} already runs `{cmd}` on {event}; kept as it is (uninstall removes it)"
                )
    return notes


def _claude_notes(
    scope: str,
    path: Path,
    data: Mapping[str, Any],
    *,
    home: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    env: Mapping[str, str] | None,
) -> list[str]:
    notes = []
    if data.get("disableAllHooks") is True:
        notes.append(
            f'warning: {path} sets "disableAllHooks": true, so Claude Code runs no hooks at all'
        )
    for other in SCOPES[CLAUDE_CODE]:
        other_path = settings_path(CLAUDE_CODE, other, home=home, project_dir=project_dir, env=env)
        other_data = data if other == scope else _read_json_quietly(other_path)
        if other_data is None:
            continue
        if other != scope:
            notes += _variant_notes(other_path, _loopguard_events(other_data.get("hooks")))
        plugins = other_data.get("enabledPlugins")
        if isinstance(plugins, dict):
            for name, enabled in plugins.items():
                if enabled and str(name).split("@")[0] == "loopguard-hook":
                    notes.append(
                        f"warning: the loopguard-hook plugin ({name}) is enabled in {other_path}; "
                        "Claude Code runs a plugin's hooks and settings hooks separately, so with "
                        "both every event runs the hook twice: keep either the plugin or this install"
                    )
    return notes


def _codex_other_sources(
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
    sources.append((same_toml, _inline_codex_hooks(_read_toml_quietly(same_toml))))
    other = "project" if scope == "user" else "user"
    other_json = settings_path(CODEX, other, home=home, project_dir=project_dir, env=env)
    if other_json != path:
        other_data = _read_json_quietly(other_json) or {}
        sources.append((other_json, other_data.get("hooks") or {}))
        other_toml = other_json.parent / "config.toml"
        sources.append((other_toml, _inline_codex_hooks(_read_toml_quietly(other_toml))))
    return sources


def _codex_trust_state(config: Path) -> tuple[dict[str, Any], str | None]:
    """(hooks.state table, error) of Codex's config.toml."""
    try:
        doc = _parse_toml(config, _read_text(config))
    except InstallError as exc:
        return {}, str(exc)
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return (state if isinstance(state, dict) else {}), None


def _codex_notes(scope: str, project_dir: str | os.PathLike[str], config: Path) -> list[str]:
    notes = []
    doc = _read_toml_quietly(config)
    if doc is None:
        return [f"warning: {config} is not valid TOML; Codex will not start until it is fixed"]
    features = doc.get("features")
    if isinstance(features, dict) and (
        features.get("hooks") is False or features.get("codex_hooks") is False
    ):
        notes.append(
            f"warning: {config} turns hooks off ([features] hooks = false); Codex runs none"
        )
    if scope == "project":
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


def _trust_hint(entries: Mapping[str, str], config: Path, scope: str) -> list[str]:
    if not entries:
        return []
    state, error = _codex_trust_state(config)
    if error is None and all(
        isinstance(state.get(k), dict) and state[k].get("trusted_hash") == h
        for k, h in entries.items()
    ):
        return [f"Codex trust: all {len(entries)} handlers are trusted in {config}"]
    return [
        "Codex runs a new hook only after you trust it (until then `codex exec` skips it without a "
        "word). Either review and trust it under /hooks in the Codex TUI, or run "
        f"`loopguard-hook install --client codex{'' if scope == 'user' else ' --scope ' + scope} --trust` "
        "to record its hash in "
        f"{config} (this skips Codex's review of the hook), or, for a one-off test, run "
        "`codex exec --dangerously-bypass-hook-trust`."
    ]


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
    path = settings_path(client, scope, home=home, project_dir=project_dir, env=env)
    old_text = _read_text(path)
    data = _parse_json_object(path, old_text)
    value = copy.deepcopy(data)
    hooks: dict[str, Any] = value.get("hooks", {})
    messages: list[str] = []
    elsewhere: dict[str, Path] = {}
    if client == CODEX:
        for source, source_hooks in _codex_other_sources(
            scope, path, home=home, project_dir=project_dir, env=env
        ):
            found = _loopguard_events(source_hooks)
            messages += _variant_notes(source, found)
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
    else:
        messages += _claude_notes(scope, path, data, home=home, project_dir=project_dir, env=env)
        if trust:
            messages.append(
                "note: --trust is for Codex only; Claude Code has no per-hook trust record"
            )

    added: list[str] = []
    skipped: list[str] = []
    for event, groups in hooks_table(client).items():
        current = hooks.get(event)
        if current is not None and not isinstance(current, list):
            raise InstallError(
                f"{path}: hooks.{event} is {_kind(current)}, not an array of matcher groups; "
                "nothing was changed"
            )
        if _loopguard_events({event: current or []}):
            continue  # already there, in whatever form the user gave it
        if event in elsewhere:
            skipped.append(event)
            continue
        hooks[event] = (current or []) + copy.deepcopy(groups)
        added.append(event)
    messages += _variant_notes(path, _loopguard_events(hooks))
    for source in sorted(set(elsewhere.values())):
        events = [e for e in skipped if elsewhere[e] == source]
        if events:
            messages.append(
                f"skipped {', '.join(events)}: already registered in {source}, and Codex "
                "would run a second copy (it does not de-duplicate hooks across files)"
            )

    if added:
        value["hooks"] = hooks
        new_text: str | None = _rewrite_json(old_text, value)
        messages.insert(0, f"registers `{CANONICAL_COMMAND}` in {path} for: {', '.join(added)}")
    else:
        new_text = old_text
        done = (
            "nothing to add"
            if skipped
            else "loopguard-hook is already registered; nothing to change"
        )
        messages.insert(0, f"{path}: {done}")
    if client != CODEX:
        return [_change(path, old_text, new_text, messages)]

    config = codex_config_path(home=home, env=env)
    messages += _codex_notes(scope, project_dir, config)
    entries = trust_entries(path, hooks)
    inline = path.parent / "config.toml"
    entries.update(trust_entries(inline, _inline_codex_hooks(_read_toml_quietly(inline))))
    if not trust:
        messages += _trust_hint(entries, config, scope)
        return [_change(path, old_text, new_text, messages)]
    return [_change(path, old_text, new_text, messages), plan_trust(config, entries)]


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

    Only our handlers go; a matcher group or an event key left empty by that goes too, and
    `hooks` itself when nothing is left in it. Everything else stays as it is, in its order.
    Handlers that run loopguard under another spelling are reported, not removed.

    Returns:
        One `Change` (a list, like `plan_install`).

    Raises:
        InstallError: as `plan_install` (invalid JSON, wrong top-level shapes).
    """
    path = settings_path(client, scope, home=home, project_dir=project_dir, env=env)
    old_text = _read_text(path)
    data = _parse_json_object(path, old_text)
    hooks = data.get("hooks", {})
    kept_hooks: dict[str, Any] = {}
    removed: list[str] = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept_hooks[event] = groups
            continue
        kept_groups = []
        for group in groups:
            entries = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(entries, list) and any(_is_ours(e) for e in entries):
                remaining = [e for e in entries if not _is_ours(e)]
                if event not in removed:
                    removed.append(event)
                if not remaining:
                    continue
                group = {**group, "hooks": remaining}
            kept_groups.append(group)
        if kept_groups or event not in removed:
            kept_hooks[event] = kept_groups

    messages: list[str] = []
    if removed:
        value = copy.deepcopy(data)
        if kept_hooks:
            value["hooks"] = kept_hooks
        else:
            del value["hooks"]
        new_text: str | None = _rewrite_json(old_text, value)
        messages.insert(0, f"removes `{CANONICAL_COMMAND}` from {path} for: {', '.join(removed)}")
        if client == CODEX and _shifted_keys(hooks, kept_hooks):
            messages.append(
                "note: hooks listed after ours in the same event move up, and Codex keys trust by "
                "position, so it will ask you to review those hooks again (/hooks)"
            )
    else:
        new_text = old_text
        where = path if old_text is not None else f"{path} (absent)"
        messages.append(f"{where}: loopguard-hook is not registered there; nothing to change")
    messages += _variant_notes(path, _loopguard_events(kept_hooks))
    if client == CODEX:
        inline = path.parent / "config.toml"
        found = _loopguard_events(_inline_codex_hooks(_read_toml_quietly(inline)))
        if found:
            messages.append(
                f"note: {inline} still registers loopguard-hook inline "
                f"([[hooks.{next(iter(found))}]] …); "
                "remove those tables by hand"
            )
        if removed:
            messages.append(
                "note: trust records for the removed hooks stay in "
                f"{codex_config_path(home=home, env=env)} "
                "([hooks.state.…]); they match only these exact hooks and are harmless"
            )
    return [_change(path, old_text, new_text, messages)]


def _shifted_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a handler other than ours gets a different (group, handler) position."""

    def positions(hooks: Mapping[str, Any]) -> dict[str, list[tuple[int, int]]]:
        out: dict[str, list[tuple[int, int]]] = {}
        for event, gi, hi, entry in _handlers(hooks):
            if not _is_ours(entry):
                out.setdefault(event, []).append((gi, hi))
        return out

    return positions(old) != positions(new)


# -- writing ----------------------------------------------------------------------------------


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temp file in the same folder and `os.replace`, keeping
    the old file's permission bits (new files: 0666 less the umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _backup(path: Path, now: datetime) -> Path:
    base = f"{path.name}.bak-{now.strftime('%Y%m%d%H%M%S')}"
    candidate = path.with_name(base)
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{base}-{n}")
        n += 1
    shutil.copy2(path, candidate)
    return candidate


def apply(changes: Sequence[Change], *, now: datetime | None = None) -> list[Change]:
    """Write every changed file: first a backup `<file>.bak-YYYYmmddHHMMSS` (local time; `-1`,
    `-2`… if taken) of an existing file, then the new text through a temp file and `os.replace`.
    A symlinked settings file is written through to its target. Unchanged files are not touched
    (no write, no backup).

    Every file is checked before any is written: one that changed since it was planned stops
    the whole apply.

    Returns:
        The changes with `backup` and `written` filled in.

    Raises:
        InstallError: a file changed since it was planned; a file cannot be written (OSError).
    """
    now = now or datetime.now()
    for change in changes:
        if change.changed and _read_text(change.path) != change.old_text:
            raise InstallError(
                f"{change.path} changed since it was read; nothing was written, "
                "run the command again"
            )
        if change.changed and change.new_text is None:
            raise InstallError(f"{change.path}: refusing to delete a settings file")
    done = []
    for change in changes:
        if not change.changed:
            done.append(change)
            continue
        assert change.new_text is not None
        target = Path(os.path.realpath(change.path))
        try:
            backup = _backup(target, now) if change.old_text is not None else None
            _write_atomic(target, change.new_text)
        except OSError as exc:
            raise InstallError(f"{change.path}: cannot write it ({exc.strerror or exc})") from None
        done.append(replace(change, backup=backup, written=True))
    return done


def format_report(changes: Sequence[Change], *, dry_run: bool = False) -> str:
    """Human text for `install` / `uninstall`: each file's diff, what was written, the messages."""
    out: list[str] = []
    for change in changes:
        if change.changed:
            out.append(change.diff.rstrip("\n"))
            if change.written:
                out.append(
                    f"wrote {change.path}"
                    + (f" (backup: {change.backup})" if change.backup else " (new file)")
                )
            elif dry_run:
                out.append(f"dry run: {change.path} not written")
        out += change.messages
    return "\n".join(out) + "\n"


# -- the ready-made files in hooks/ and .claude-plugin/ -----------------------------------------

PLUGIN_NAME: Final = "loopguard-hook"


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


_CODEX_TOML_HEADER: Final = """\
# loopguard-hook for Codex (0.171.0): the inline form for ~/.codex/config.toml (or a trusted
# project's .codex/config.toml). Generated by `python -m loopguard_hook.install .`; do not edit.
#
# Use this OR hooks.json in the same folder (`loopguard-hook install --client codex` writes
# that one), never both: Codex runs every copy, so every event would run the hook twice.
# Codex runs a new hook only once you trust it: review it under /hooks in the Codex TUI, or
# run `codex exec --dangerously-bypass-hook-trust` for a one-off test.

"""


def config_files() -> dict[str, str]:
    """Relative path -> text of every ready-made config file, from the same tables as install."""
    return {
        ".claude-plugin/plugin.json": dump_json(plugin_manifest()),
        ".claude-plugin/marketplace.json": dump_json(marketplace_manifest()),
        "hooks/hooks.json": dump_json(
            {"description": PLUGIN_DESCRIPTION, "hooks": hooks_table(CLAUDE_CODE)}
        ),
        "hooks/claude-code-settings.json": dump_json({"hooks": hooks_table(CLAUDE_CODE)}),
        "hooks/codex-hooks.json": dump_json({"hooks": hooks_table(CODEX)}),
        "hooks/codex-config.toml": _CODEX_TOML_HEADER + render_codex_toml(hooks_table(CODEX)),
    }


def write_config_files(root: str | os.PathLike[str]) -> list[Path]:
    """Regenerate the files of `config_files` under `root`; returns those that changed."""
    written = []
    for relative, text in config_files().items():
        path = Path(root) / relative
        if _read_text(path) != text:
            _write_atomic(path, text)
            written.append(path)
    return written


if __name__ == "__main__":  # python -m loopguard_hook.install REPO_ROOT
    if len(sys.argv) != 2 or not os.path.isfile(os.path.join(sys.argv[1], "pyproject.toml")):
        sys.exit(
            "usage: python -m loopguard_hook.install REPO_ROOT\n"
            "regenerates hooks/ and .claude-plugin/ in a loopguard-hook checkout (REPO_ROOT holds pyproject.toml)"
        )
    for written_path in write_config_files(sys.argv[1]):
        print(f"wrote {written_path}")
