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
from .jsonc import bare_separator, same_json, without_comments


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


#: Deepest nesting of a settings file install edits (Claude Code's and Codex's are 5 deep).
MAX_DEPTH = 64


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object from its members, refusing a key given twice: a rewrite would keep only the
    last one's value, and the first one's text would be lost."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {json.dumps(key, ensure_ascii=False)} appears twice in one object")
        out[key] = value
    return out


def _too_deep(text: str) -> bool:
    """Whether brackets nest past `MAX_DEPTH` (counted outside strings, without recursion)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def parse_json_object(path: Path, text: str | None, *, jsonc: bool = False) -> dict[str, Any]:
    """The file's top-level object ({} for a missing or blank file). With `jsonc`, `//` and
    `/* */` comments are read as white space (Gemini CLI and Qwen Code read their settings so).

    Raises:
        InstallError: not JSON, nested more than `MAX_DEPTH` deep, a key twice in one object,
            not an object, or `hooks` present but not an object.
    """
    if jsonc and text is not None:
        text = without_comments(text)
    if text is None or not text.strip():
        return {}
    if _too_deep(text):
        raise InstallError(
            f"{path}: nested more than {MAX_DEPTH} levels deep, not a settings file; nothing was changed"
        )
    try:
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except RecursionError:  # pragma: no cover - `_too_deep` stops such a file first
        raise InstallError(f"{path}: nested too deeply to be a settings file; nothing was changed") from None
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


def read_json_quietly(path: Path, *, jsonc: bool = False) -> dict[str, Any] | None:
    """Another settings file, for warnings only: None when absent or unreadable."""
    try:
        return parse_json_object(path, read_text(path), jsonc=jsonc)
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
    """A JSON value with its exact source text, and its children's, for a minimal rewrite.
    `starts`: where each member (its key) or item begins in the file, `start`/`end` the value's
    own place."""

    raw: str
    value: Any
    members: dict[str, _Span] | None = None
    items: list[_Span] | None = None
    start: int = 0
    end: int = 0
    starts: list[int] | None = None


_DECODER = json.JSONDecoder()


def _skip_ws(text: str, i: int) -> int:
    """Past white space and comments (a strict JSON text has none outside its strings)."""
    while i < len(text):
        if text[i] in " \t\n\r":
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        else:
            break
    return i


def _scan(text: str, idx: int) -> tuple[_Span, int]:
    """Parse the JSON value at `idx` (text already validated) keeping each child's source text."""
    idx = _skip_ws(text, idx)
    opener = text[idx : idx + 1]
    if opener not in ("{", "["):
        value, end = _DECODER.raw_decode(text, idx)
        return _Span(text[idx:end], value, start=idx, end=end), end
    closer = "}" if opener == "{" else "]"
    members: dict[str, _Span] = {}
    items: list[_Span] = []
    starts: list[int] = []
    i = _skip_ws(text, idx + 1)
    while text[i] != closer:
        starts.append(i)
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
        return _Span(text[idx : i + 1], {k: v.value for k, v in members.items()}, members=members,
                     start=idx, end=i + 1, starts=starts), i + 1
    return _Span(text[idx : i + 1], [c.value for c in items], items=items, start=idx, end=i + 1,
                 starts=starts), i + 1


def _aligned(old: _Span, value: Any, level: int, indent: str, newline: str
             ) -> tuple[list[_Span], list[tuple[int, Any]], list[str]] | None:
    """`old`'s children, the kept ones as (index among them, new value) in order, and the text
    of each member or item appended; None when `value` is no such edit of `old` (members
    reordered, or another type)."""
    if old.members is not None and isinstance(value, dict):
        old_keys, new_keys = list(old.members), list(value)
        kept = [k for k in old_keys if k in value]
        if new_keys[: len(kept)] != kept:
            return None
        added = [json.dumps(k, ensure_ascii=False) + ": " + _render(value[k], None, level + 1, indent, newline)
                 for k in new_keys[len(kept):]]
        return [old.members[k] for k in old_keys], [(old_keys.index(k), value[k]) for k in kept], added
    if old.items is None or not isinstance(value, list):
        return None
    olds, pairs, added, j = old.items, [], [], 0
    for position, item in enumerate(value):
        k = next((k for k in range(j, len(olds)) if same_json(olds[k].value, item)), None)
        follows = position + 1 >= len(value) or j + 1 >= len(olds) or same_json(olds[j + 1].value, value[position + 1])
        if k is None and j < len(olds) and type(olds[j].value) is type(item) and follows:
            k = j  # the same item, changed in place
        if k is None or added:
            added.append(_render(item, None, level + 1, indent, newline))
            continue
        pairs.append((k, item))
        j = k + 1
    return olds, pairs, added


def _edit(text: str, old: _Span, value: Any, level: int, indent: str, newline: str) -> str | None:
    """`value` as the old object or array `old` edited in place: its own text between members
    (spacing, commas, the user's layout) kept, changed members edited the same way, removed ones
    cut out with their comma, new ones appended after the last in the spacing the last one had
    (on the same line when `old` is written on one line). None when the change is no such edit:
    then `_render` lays the part out afresh."""
    if not old.starts:
        return None
    if "\n" not in old.raw:
        indent, newline = "", ""
    aligned = _aligned(old, value, level, indent, newline)
    if aligned is None:
        return None
    olds, pairs, added = aligned
    starts = old.starts
    pieces = []  # each kept member's text, from its key (or its own start) to its value's end, edited
    for k, item in pairs:
        child = olds[k]
        body = child.raw if same_json(child.value, item) else (
            _edit(text, child, item, level + 1, indent, newline) or _render(item, child, level + 1, indent, newline))
        pieces.append(text[starts[k] : child.start] + body)
    # between two kept members: what followed the first in the file; before an added one: what
    # separated the last two members (or `, ` after a single one)
    seps = [text[olds[k].end : starts[k + 1]] if k + 1 < len(olds) else "" for k, _ in pairs]
    joint = bare_separator(text[olds[-2].end : starts[-1]] if len(olds) > 1 else "," + (text[old.start + 1 : starts[0]] or " "))
    if not pieces and added:
        return None
    tail = text[olds[-1].end : old.end]
    # a comment on the last member's line stays on that line, after the comma an added member needs
    note = re.match(r"[ \t]*(?://[^\n]*|/\*.*?\*/)", tail) if added and pairs and pairs[-1][0] == len(olds) - 1 else None
    out = [text[old.start : starts[0]]]
    for n, piece in enumerate(pieces + added):
        out.append(piece)
        if n + 1 < len(pieces) + len(added):
            sep = seps[n] if n < len(pieces) and seps[n] and n + 1 < len(pieces) else joint
            if note is not None and n == len(pieces) - 1:
                comma = sep.index(",")
                sep = sep[: comma + 1] + note.group() + sep[comma + 1 :]
            out.append(sep)
    if not pieces:
        return old.raw[0] + old.raw[-1]
    last = pairs[-1][0]
    if not added and last < len(olds) - 1:  # the members after the last kept one go: not its comment
        after = re.match(r"[ \t]*,([ \t]*(?://[^\n]*|/\*.*?\*/))", text[olds[last].end : starts[last + 1]])
        if after is not None:
            out.append(after.group(1))
    out.append(tail[note.end() :] if note is not None else tail)
    return "".join(out)


def _render(value: Any, old: _Span | None, level: int, indent: str, newline: str, text: str = "") -> str:
    """`value` as JSON at nesting `level`, reusing the old source text of every unchanged part
    (and, given the file's `text`, editing a changed object or array in place: `_edit`)."""
    if old is not None and same_json(old.value, value):
        return old.raw
    if old is not None and text:
        edited = _edit(text, old, value, level, indent, newline)
        if edited is not None:
            return edited
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
    if not newline:  # one line: `{"a": 1, "b": 2}`
        return brackets[0] + ", ".join(parts) + brackets[1]
    return brackets[0] + newline + ("," + newline).join(parts) + newline + end_pad + brackets[1]


def rewrite_json(old_text: str | None, value: dict[str, Any]) -> str:
    """The new file text: untouched members keep their exact old text, new parts follow the
    file's indentation and line endings (a new file: 2 spaces, LF, as Claude Code writes). A
    file written on one line stays on one line (`{"a": 1, "hooks": {…}}`), its ending kept. The
    text before and after the top-level object (blank lines, a final newline or none) is kept."""
    if old_text is None or not without_comments(old_text).strip():
        return dump_json(value) if old_text is None or not old_text.strip() else old_text.rstrip() + "\n" + dump_json(value)
    start = len(old_text) - len(old_text.lstrip())
    try:
        root, end = _scan(old_text, 0)
        start = root.start
    except (ValueError, IndexError):  # pragma: no cover - the text was validated by json.loads
        root, end = None, len(old_text.rstrip())
    lead, trail = old_text[:start], old_text[end:]
    if "\n" not in old_text[start:end]:  # one line: new parts on it too
        return lead + _render(value, root, 0, "", "", old_text) + trail
    indent, newline = _json_style(old_text)
    return lead + _render(value, root, 0, indent, newline, old_text) + (trail or newline)
