"""The text renderer (`--format text`): a table of calls for people."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from .model import SYNTHETIC_STEP
from .readers import title
from .report import DecisionReport, Report, Verdict


def _short_rule(rule: str) -> str:
    return rule.removeprefix("LOOP_GUARD_")


def _verdict_text(verdict: Verdict | None, *, show_count: bool) -> str:
    if verdict is None:
        return "-"
    if verdict.quiet:
        parts = ["allow"] if verdict.rule or (show_count and verdict.count) else ["-"]
    else:
        parts = [verdict.action]
    if verdict.rule:
        parts.append(_short_rule(verdict.rule))
    if verdict.count and (show_count or not verdict.quiet):
        parts.append(str(verdict.count))
    if verdict.intended != verdict.action:
        parts.append(f"(would {verdict.intended})")
    return " ".join(parts)


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else " " for ch in text)


def format_text(report: Report, *, width: int = 120) -> str:
    """The report for people (`--format text`): a header, one line per call (time since the first
    event, agent, tool, what the recording says happened, the replayed decision at PreToolUse and
    after the call, arguments cut to fit `width` characters), the prompts, compactions and
    decisions not tied to a call in between, and the summary."""
    return "\n".join([*_header(report), "", *_table(report, width), "", *_footer(report)])


def _header(report: Report) -> list[str]:
    source = report.sources[0] + (f" (+{len(report.sources) - 1} more)" if len(report.sources) > 1 else "")
    started = (
        ""
        if report.started is None or report.synthetic_times
        else ", started " + datetime.fromtimestamp(report.started, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    )
    remind = ", ".join(map(str, report.remind_at)) or "-"
    return [
        f"{title(report.format)} {source}",
        f"session {_printable(report.session_id) or '-'} [{report.client}]{started}",
        f"profile {report.profile} ({report.mode}, {report.counting}): remind at {remind}, "
        f"deny at {report.deny_at or '-'}, stop at {report.stop_at or '-'}",
    ]


def _table(report: Report, width: int) -> list[str]:
    base = report.started or 0.0
    agents = {c.agent: c.agent if len(c.agent) <= 10 else c.agent[:9] + "…" for c in report.calls}
    rows = [
        (
            f"{call.index:>4}",
            _offset(call.time - base),
            agents[call.agent],
            _printable(call.tool)[:24],
            call.recorded + (f" {call.exit_code}" if call.exit_code not in (None, 0) else ""),
            _verdict_text(call.pre, show_count=True),
            _verdict_text(call.post, show_count=False),
        )
        for call in report.calls
    ]
    titles = ("#", "time", "agent", "tool", "recorded", "PreToolUse", "after")
    widths = [max([len(t), *(len(r[i]) for r in rows)]) for i, t in enumerate(titles)]

    def cells(values: Sequence[str]) -> str:
        aligned = [v.rjust(w) if i < 2 else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths, strict=True))]
        return "  ".join(aligned) + "  "

    out = [cells(titles) + "arguments"]
    indent = " " * (widths[0] + 2)
    loose = sorted(
        [(d.time, indent + _loose_line(d, base, widths[1])) for d in report.decisions if d.call is None]
        + [(m.time, f"{indent}{_offset(m.time - base):>{widths[1]}}  -- {m.detail} ({m.event})") for m in report.markers],
        key=lambda item: item[0],
    )
    loose_at = 0
    for call, row in zip(report.calls, rows, strict=True):
        while loose_at < len(loose) and loose[loose_at][0] <= call.time:
            out.append(loose[loose_at][1])
            loose_at += 1
        line = cells(row)
        tail = "  [saved]" if call.saved else ""
        room = max(16, width - len(line) - len(tail))
        args = _printable(call.arguments)
        line += (args if len(args) <= room else args[: room - 1] + "…") + tail
        out.append(line.rstrip())
    out.extend(line for _, line in loose[loose_at:])
    return out


def _footer(report: Report) -> list[str]:
    s = report.summary
    out = [
        f"{s.calls} calls: {s.reminders} {_plural(s.reminders, 'reminder')}, {s.denials} "
        f"{_plural(s.denials, 'denial')}, {s.stops} {_plural(s.stops, 'stop')}; "
        f"{s.saved} {_plural(s.saved, 'call')} the recording ran would have been saved"
    ]
    notes = []
    if s.skipped_lines:
        notes.append(f"{s.skipped_lines} unreadable or unknown {_plural(s.skipped_lines, 'line')} skipped")
    if s.bad_payloads:
        notes.append(f"{s.bad_payloads} {_plural(s.bad_payloads, 'payload')} the hook would reject")
    if report.synthetic_times:
        notes.append(f"no times in the file: events spaced {SYNTHETIC_STEP:g} s apart")
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    return out


def _loose_line(decision: DecisionReport, base: float, time_width: int) -> str:
    tool = f" {decision.tool}" if decision.tool else ""
    verdict = _verdict_text(decision.verdict, show_count=False)
    return f"{_offset(decision.time - base):>{time_width}}  {decision.event}{tool}: {verdict}"


def _offset(seconds: float) -> str:
    if seconds < 60:
        return f"+{seconds:.1f}s"
    if seconds < 3600:
        return f"+{int(seconds // 60)}m{int(seconds % 60):02d}s"
    return f"+{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
