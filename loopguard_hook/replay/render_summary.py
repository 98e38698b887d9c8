"""The one-line-per-session text renderer (`replay --summary`)."""

from __future__ import annotations

from collections.abc import Sequence

from .cost import AFTER_SAVED, amount, plural, tokens
from .render_text import printable, profile_line
from .report import Report
from .style import Paint, painter

#: Columns of the summary table: title, and the role that colours a non-zero count.
COUNTS = (("calls", ""), ("reminders", "remind"), ("denials", "deny"), ("stops", "stop"), ("saved", "saved"))


def format_summary(reports: Sequence[Report], *, color: bool = False) -> str:
    """One line per session (its counts, client, session id and first file), under the profile
    line of the first report and over the totals of all of them."""
    paint = painter(color)
    head = [title for title, _ in COUNTS] + ["client", "session", "recording"]
    rows = [
        [
            *(str(getattr(r.summary, title)) for title, _ in COUNTS),
            r.client,
            printable(r.session_id) or "-",
            _recording(r),
        ]
        for r in reports
    ]
    roles = [role for _, role in COUNTS] + ["", "", ""]
    right = [True] * len(COUNTS) + [False] * 3
    out = [profile_line(reports[0]), "", *table(head, rows, roles, right, paint), "", _totals(reports), *_tokens(reports)]
    skipped, bad = _per_recording(reports, "skipped_lines"), _per_recording(reports, "bad_payloads")
    notes = [_where(f"unreadable or unknown {plural(sum(skipped.values()), 'line')} skipped", skipped)] if skipped else []
    notes += [_where(f"{plural(sum(bad.values()), 'payload')} the hook would reject", bad)] if bad else []
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    return "\n".join(out)


def _recording(report: Report) -> str:
    """The files a session was read from, as its row names them: the first, and how many more."""
    more = len(report.sources) - 1
    return report.sources[0] + (f" (+{more} more)" if more else "")


def _per_recording(reports: Sequence[Report], count: str) -> dict[str, int]:
    """A summary `count` summed by recording: one payload log may hold several sessions."""
    counts: dict[str, int] = {}
    for r in reports:
        n = getattr(r.summary, count)
        if n:
            counts[_recording(r)] = counts.get(_recording(r), 0) + n
    return counts


def _where(what: str, counts: dict[str, int]) -> str:
    """`3 lines skipped: 1 in a.jsonl, 2 in b.jsonl`: a total and the recordings it is of, so that
    a line skipped in one file of many is found there."""
    return f"{sum(counts.values())} {what}: " + ", ".join(f"{n} in {name}" for name, n in counts.items())


def table(
    head: Sequence[str], rows: Sequence[Sequence[str]], roles: Sequence[str], right: Sequence[bool], paint: Paint
) -> list[str]:
    """Rows under a heading, columns two spaces apart, right-aligned where `right` says; a cell
    other than `0` or `-` is painted in its column's role (`roles`, "" for none)."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(head)]

    def line(values: Sequence[str], painted: bool) -> str:
        cells = []
        for value, w, role, to_right in zip(values, widths, roles, right, strict=True):
            pad = " " * (w - len(value))
            text = paint(value, role if painted and value not in ("0", "-") else "")
            cells.append(pad + text if to_right else text + pad)
        return "  ".join(cells).rstrip()

    return [paint(line(head, False), "heading"), *(line(r, True) for r in rows)]


def _totals(reports: Sequence[Report]) -> str:
    calls, reminders, denials, stops, saved = (sum(getattr(r.summary, title) for r in reports) for title, _ in COUNTS)
    return (
        f"{calls} {plural(calls, 'call')} in {len(reports)} {plural(len(reports), 'session')}: "
        f"{reminders} {plural(reminders, 'reminder')}, {denials} {plural(denials, 'denial')}, "
        f"{stops} {plural(stops, 'stop')}; {saved} {plural(saved, 'call')} the {plural(len(reports), 'recording')} ran "
        "would have been saved"
    )


def _tokens(reports: Sequence[Report]) -> list[str]:
    """The tokens of the sessions whose recordings state usage, of their loops, and what the guard
    would have saved (`cost.py`); nothing when no recording states usage."""
    stated = [r for r in reports if r.usage is not None]
    if not stated:
        return []
    used = sum(r.usage.total for r in stated if r.usage is not None)
    loops = sum(loop.usage.total for r in stated for loop in r.loops)
    saved = sum(loop.saved_usage.total for r in stated for loop in r.loops)
    priced = stated[0].prices is not None
    money = amount(sum(loop.saved_money or 0.0 for r in stated for loop in r.loops) if priced else None)
    return [
        f"tokens: {tokens(used)} in the {len(stated)} {plural(len(stated), 'session')} whose recording states usage; "
        f"{tokens(loops)} in loops, {tokens(saved)}{money} of them {AFTER_SAVED}"
    ]
