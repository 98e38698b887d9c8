"""Colour for text reports: ANSI SGR codes by role, or none at all.

Whether to colour is the caller's choice (the command: a terminal on stdout, `NO_COLOR` unset,
or `--color`); this module only paints. Text is padded before it is painted, so columns line up
with or without colour.
"""

from __future__ import annotations

from collections.abc import Callable

#: SGR codes by role: decisions by their action, saved calls, reset points, headings.
CODES = {
    "remind": "33",  # yellow
    "deny": "31",  # red
    "stop": "1;31",  # bold red
    "saved": "32",  # green
    "marker": "2",  # dim
    "heading": "1",  # bold
}

Paint = Callable[[str, str], str]


def plain(text: str, role: str) -> str:
    """No colour: `text` as it is."""
    return text


def ansi(text: str, role: str) -> str:
    """`text` in the colour of `role` (unchanged for a role without one, or empty text)."""
    code = CODES.get(role)
    return f"\x1b[{code}m{text}\x1b[0m" if code and text else text


def painter(color: bool) -> Paint:
    """`ansi` when `color`, else `plain`."""
    return ansi if color else plain
