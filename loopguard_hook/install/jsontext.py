"""JSON settings files: strict parsing into an object, and a minimal rewrite that keeps every
untouched member's exact source text and follows the file's indentation and line endings."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .change import InstallError
from .files import read_text


def kind(value: object) -> str:
    """`value`'s JSON type with its article, for messages: "an object", "null"…"""
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


def parse_json_object(path: Path, text: str | None) -> dict[str, Any]:
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
            f"{path}: the top-level value is {kind(value)}, not an object; nothing was changed"
        )
    if "hooks" in value and not isinstance(value["hooks"], dict):
        raise InstallError(
            f'{path}: "hooks" is {kind(value["hooks"])}, not an object; nothing was changed'
        )
    return value


def read_json_quietly(path: Path) -> dict[str, Any] | None:
    """Another settings file, for warnings only: None when absent or unreadable."""
    try:
        return parse_json_object(path, read_text(path))
    except InstallError:
        return None


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


def same_json(a: Any, b: Any) -> bool:
    """Equal including types and key order (so `1` never stands in for `true` or `1.0`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _render(value: Any, old: _Span | None, level: int, indent: str, newline: str) -> str:
    """`value` as JSON at nesting `level`, reusing the old source text of every unchanged part."""
    if old is not None and same_json(old.value, value):
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
            k = next((k for k in range(j, len(old_items)) if same_json(old_items[k].value, v)), None)
            parts.append(
                pad + _render(v, None if k is None else old_items[k], level + 1, indent, newline)
            )
            j = j if k is None else k + 1
    else:
        return json.dumps(value, ensure_ascii=False)
    brackets = "{}" if isinstance(value, dict) else "[]"
    return brackets[0] + newline + ("," + newline).join(parts) + newline + end_pad + brackets[1]


def rewrite_json(old_text: str | None, value: dict[str, Any]) -> str:
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
