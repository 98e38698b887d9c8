"""The renderers by name, and all reports as one text."""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from .render_json import to_json
from .render_text import format_text
from .report import Report


def render(reports: Sequence[Report], fmt: str = "text", *, width: int = 120) -> str:
    """All reports as one text (`text`, reports separated by a blank line, lines cut to `width`
    characters where the arguments allow) or one JSON document (`json`: `{"reports": [...]}`,
    keys sorted, indented).

    Raises:
        ValueError: `fmt` is not `text` or `json`.
    """
    if fmt == "text":
        return "\n\n".join(format_text(r, width=width) for r in reports) if reports else "no sessions to replay"
    if fmt == "json":
        return orjson.dumps(
            {"reports": [to_json(r) for r in reports]}, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
        ).decode()
    raise ValueError(f"unknown format {fmt!r} (text or json)")
