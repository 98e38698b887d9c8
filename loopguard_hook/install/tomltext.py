"""TOML text for Codex's `config.toml`: strict parsing, header recognition, and the few scalar
forms the installer writes (inline hook tables, trust records)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .change import InstallError
from .files import read_text


def toml_string(value: str) -> str:
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
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
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


def parse_toml(path: Path, text: str | None) -> dict[str, Any]:
    """The document ({} for a missing file).

    Raises:
        InstallError: not valid TOML.
    """
    if text is None:
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(
            f"{path}: not valid TOML ({exc}); fix the file first, nothing was changed"
        ) from None


def read_toml_quietly(path: Path) -> dict[str, Any] | None:
    """A TOML file for warnings only: None when unreadable or invalid ({} when absent)."""
    try:
        return parse_toml(path, read_text(path))
    except InstallError:
        return None


def header_path(line: str) -> tuple[str, ...] | None:
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


def is_any_header(line: str) -> bool:
    """A `[table]` or `[[array]]` header line."""
    return line.lstrip().startswith("[")
