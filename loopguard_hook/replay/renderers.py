"""The renderers by name, and all reports as one text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

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
        return "\n".join(each_text(reports, width=width, color=color))
    if fmt == "json":
        dump = summary_report_json if summary else to_json
        data: dict[str, object] = {"reports": [dump(r) for r in reports]}
        if unreadable:
            data["unreadable"] = list(unreadable)
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    raise ValueError(f"unknown format {fmt!r} (text or json)")


def each_text(reports: Iterable[Report], *, width: int = 120, color: bool = False) -> Iterator[str]:
    """The text of `render(reports, "text")` (not `summary`) a report at a time, as `reports` gives
    them: the first report's, then each next one's after a blank line. Joined by line ends, the
    parts are that text to the byte; a part written as a line each as it comes (`replay | head`)
    is that text with its line end, the first sessions shown while the others are replayed."""
    for n, report in enumerate(reports):
        yield ("\n" if n else "") + format_text(report, width=width, color=color)
