"""JSON with comments, as Gemini CLI and Qwen Code read their settings (Gemini CLI 0.61.0 and
Qwen Code 0.24.4: `JSON.parse(stripJsonComments(text))` in their settings loaders, so `//` and
`/* */` comments, no trailing commas): finding the comments, masking them, and checking that a
rewrite kept them. Also `same_json`, the comparison every rewrite is checked with."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .change import InstallError

_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)


def comments(text: str) -> list[str]:
    """The `//` and `/* */` comments of a JSON-with-comments text, in order (not those inside
    strings)."""
    return [m.group() for m in _COMMENT.finditer(text) if not m.group().startswith('"')]


def without_comments(text: str) -> str:
    """`text` with each comment replaced by spaces (its line breaks kept), as strip-json-comments
    does: every other character keeps its offset, so positions in the result are positions in
    `text`."""
    return _COMMENT.sub(
        lambda m: m.group() if m.group().startswith('"') else re.sub(r"[^\r\n]", " ", m.group()), text
    )


def bare_separator(separator: str) -> str:
    """A separator between members with its comments and the lines they leave empty taken out:
    laid between new members, the user's comments would be copied."""
    if "/" not in separator:
        return separator
    text = re.sub(r"[ \t]+(?=\r?\n)", "", _COMMENT.sub("", separator))
    return re.sub(r"\n[ \t]*(?=\r?\n)", "", text)


def same_json(a: Any, b: Any) -> bool:
    """Equal including types and key order (so `1` never stands in for `true` or `1.0`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def kept_comments(path: Path, old_text: str | None, new_text: str, value: Any) -> list[str]:
    """Check a rewrite of a file with comments (Gemini CLI's and Qwen Code's settings): `new_text`
    reads back as `value`, and its comments are the old ones, in their order, less some (those
    inside the members taken out, which are returned).

    Raises:
        InstallError: the rewrite does not read back as `value`, or holds a comment that was not
            there, or in another order (nothing is written then).
    """
    before, after = comments(old_text or ""), comments(new_text)
    lost: list[str] = []
    matched = 0
    for comment in before:  # `after` must be `before` less some comments, in the same order
        if matched < len(after) and after[matched] == comment:
            matched += 1
        else:
            lost.append(comment)
    try:
        same = same_json(json.loads(without_comments(new_text)), value)
    except ValueError:
        same = False
    if not (same and matched == len(after)):
        raise InstallError(
            f"{path}: its comments cannot be kept in place by this edit; nothing was changed (move the comments "
            "out of the hooks, or add the entries by hand: `HOME=$(mktemp -d) loopguard-hook install --client "
            "qwen-code` (or `gemini-cli`) `--dry-run --diff` shows them as they would go into an empty file)"
        )
    return lost
