"""The renderers by name, and all reports as one text."""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from .render_json import summary_report_json, to_json
from .render_summary import format_summary
from .render_text import format_text
from .report import Report

FORMATS = ("text", "json")


def render(
    reports: Sequence[Report],
    fmt: str = "text",
    *,
    width: int = 120,
    summary: bool = False,
    color: bool = False,
    unreadable: Sequence[str] = (),
) -> str:
    """All reports as one text (`text`, reports separated by a blank line, lines cut to `width`
    characters where the arguments allow) or one JSON document (`json`: `{"reports": [...]}`,
    keys sorted, indented, with `"unreadable": [...]` when `unreadable` names files that could
    not be replayed; the text leaves them to the caller, who says them on stderr).

    `summary`: one line per report (`format_summary`), or in JSON each report without its
    `calls`, `decisions` and `markers`. `color`: ANSI colours in text (`style`); JSON has none.

    Raises:
        ValueError: `fmt` is not `text` or `json`.
    """
    if fmt == "text":
        if not reports:
            return "no sessions to replay"
        if summary:
            return format_summary(reports, color=color)
        return "\n\n".join(format_text(r, width=width, color=color) for r in reports)
    if fmt == "json":
        dump = summary_report_json if summary else to_json
        data: dict[str, object] = {"reports": [dump(r) for r in reports]}
        if unreadable:
            data["unreadable"] = list(unreadable)
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    raise ValueError(f"unknown format {fmt!r} (text or json)")
