"""The text renderer (`--format text`): a table of calls for people."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

from ..core.event import MAIN_AGENT
from ..core.redact import redact
from .cost import AFTER_SAVED, amount, format_cost, plural, tokens
from .model import SYNTHETIC_STEP, SYNTHETIC_TURN, Poll
from .readers import title
from .report import DecisionReport, Report, Verdict
from .style import Paint, painter


def _short_rule(rule: str) -> str:
    return rule.removeprefix("LOOP_GUARD_")


#: The words for a reminder the engine decided at a Stop and holds for the next prompt or tool
#: call (`engine._text_rules`: never a reminder on Stop): it reaches the model only if the session
#: goes on, and is counted among the reminders when it does.
HELD_REMINDER = "(reminder held for the next prompt or call)"


def held(verdict: Verdict, mode: str) -> bool:
    """A reminder held for later, not one that `mode` (observe) kept from the wire."""
    return mode != "observe" and verdict.action == "allow" and verdict.intended == "remind"


def _verdict_text(verdict: Verdict | None, *, show_count: bool, mode: str = "enforce") -> str:
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
    if held(verdict, mode):
        parts.append(HELD_REMINDER)
    elif verdict.intended != verdict.action:
        parts.append(f"(would {verdict.intended})")
    return " ".join(parts)


def printable(text: str) -> str:
    """`text` with characters a terminal would not print as themselves turned into spaces."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def format_text(report: Report, *, width: int = 120, color: bool = False) -> str:
    """The report for people (`--format text`): a header, one line per call (time since the first
    event, agent, tool, what the recording says happened, the replayed decision at PreToolUse and
    after the call, arguments cut to fit `width` characters, or on a line of their own under the
    call when fewer than `MIN_ARGUMENTS` would fit), the prompts, compactions and decisions not
    tied to a call in between, and the summary. `color`: ANSI colours by action (`style`)."""
    paint = painter(color)
    # No call and no decision to list (`--only-decisions` where the guard would not have acted):
    # no table, not even its heading.
    listed = report.calls or any(d.call is None for d in report.decisions)
    table = _table(report, width, paint) if listed else []
    return "\n".join([*_header(report), *(["", *table] if table else []), "", *_footer(report, width)])


#: Fewest characters of arguments worth showing at the end of a call's line (text output).
MIN_ARGUMENTS = 32


def _header(report: Report) -> list[str]:
    source = report.sources[0] + (f" (+{len(report.sources) - 1} more)" if len(report.sources) > 1 else "")
    started = (
        ""
        if report.started is None or report.synthetic_times
        else ", started " + datetime.fromtimestamp(report.started, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    )
    return [
        f"{title(report.format)} {source}",
        f"session {printable(report.session_id) or '-'} [{report.client}]{started}",
        profile_line(report),
    ]


def profile_line(report: Report) -> str:
    """The settings a report was made with, in one line."""
    remind = ", ".join(map(str, report.remind_at)) or "-"
    return (
        f"profile {report.profile} ({report.mode}, {report.counting}): remind at {remind}, "
        f"deny at {report.deny_at or '-'}, stop at {report.stop_at or '-'}"
    )


def _role(verdict: Verdict | None) -> str:
    return "" if verdict is None or verdict.quiet else verdict.action


def _agent_columns(names: set[str]) -> dict[str, str]:
    """Each agent's name cut to 10 columns (its start and `…`), or, where two cut so would read
    alike (`sidechain-2`, `sidechain-3`), its start and its end (`side…ain-2`)."""
    cut = {n: n if len(n) <= 10 else n[:9] + "…" for n in names}
    seen = Counter(cut.values())
    return {n: s if seen[s] == 1 else n[:4] + "…" + n[-5:] for n, s in cut.items()}


def _table(report: Report, width: int, paint: Paint) -> list[str]:
    base = report.started or 0.0
    agents = _agent_columns({c.agent for c in report.calls})
    rows = [
        (
            f"{call.index:>4}",
            _offset(call.time - base),
            agents[call.agent],
            printable(call.tool)[:24],
            call.recorded + (f" {call.exit_code}" if call.exit_code not in (None, 0) else ""),
            _verdict_text(call.pre, show_count=True, mode=report.mode),
            _verdict_text(call.post, show_count=False, mode=report.mode),
        )
        for call in report.calls
    ]
    titles = ("#", "time", "agent", "tool", "recorded", "PreToolUse", "after")
    widths = [max([len(t), *(len(r[i]) for r in rows)]) for i, t in enumerate(titles)]

    def cells(values: Sequence[str], roles: Sequence[str] = ()) -> str:
        aligned = [
            v.rjust(w) if i < 2 else paint(v, roles[i - 5] if i >= 5 and roles else "") + " " * (w - len(v))
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "  ".join(aligned) + "  "

    out = [paint(cells(titles) + "arguments", "heading")]
    indent = " " * (widths[0] + 2)
    loose = sorted(
        [
            (d.time, indent + paint(_loose_line(d, base, widths[1], report.mode), _role(d.verdict)))
            for d in report.decisions
            if d.call is None
        ]
        + [
            (m.time, indent + paint(f"{_offset(m.time - base):>{widths[1]}}  -- {m.detail} ({m.event})", "marker"))
            for m in report.markers
        ]
        + [
            (time, indent + paint(f"{_offset(time - base):>{widths[1]}}  -- {detail}", "marker"))
            for time, detail in poll_runs(report)
        ],
        key=lambda item: item[0],
    )
    fixed = sum(widths) + 2 * len(widths)  # what `cells` gives, before any colour
    loose_at = 0
    for call, row in zip(report.calls, rows, strict=True):
        while loose_at < len(loose) and loose[loose_at][0] <= call.time:
            out.append(loose[loose_at][1])
            loose_at += 1
        line = cells(row, (_role(call.pre), _role(call.post)))
        tail = "  " + paint("[saved]", "saved") if call.saved else ""
        room = width - fixed - (len("  [saved]") if call.saved else 0)
        args = printable(call.arguments)
        if room >= MIN_ARGUMENTS or room >= len(args):
            out.append((line + _cut(args, max(16, room)) + tail).rstrip())
        else:
            out.append(line.rstrip() + tail)
            out.append(indent + _cut(args, max(16, width - len(indent))))
    out.extend(line for _, line in loose[loose_at:])
    return out


def poll_runs(report: Report) -> list[tuple[float, str]]:
    """The report's unhooked polls as runs, each `(time of its first poll, what it shows)`: the
    polls of one session with no hooked call between them (`write_stdin` fires no hook)."""
    import bisect

    calls = sorted(c.time for c in report.calls)
    runs: list[list[Poll]] = []
    for poll in sorted(report.polls, key=lambda p: p.time):
        last = runs[-1][-1] if runs else None
        between = last is not None and bisect.bisect_right(calls, last.time) != bisect.bisect_right(calls, poll.time)
        if last is None or last.session != poll.session or between:
            runs.append([poll])
        else:
            runs[-1].append(poll)
    return [(run[0].time, _poll_run(run)) for run in runs]


def _poll_run(run: list[Poll]) -> str:
    first, last = run[0], run[-1]
    command = f" `{_cut(printable(redact(first.command)), 60)}`" if first.command else ""
    bare = [p for p in run if not p.typed]
    parts = [f"{len(run)} write_stdin {plural(len(run), 'poll')} of session {first.session}{command} (no hook sees them)"]
    printed = sum(not p.empty for p in run if p.done is not None)
    if bare and not printed and last.done is not None:
        parts.append(f"nothing new for {_offset(last.done - first.time).lstrip('+')}")
    elif printed:
        parts.append(f"{printed} printed output")
    if len(bare) < len(run):
        parts.append(f"{len(run) - len(bare)} typed input")
    if last.code is not None:
        parts.append(f"then it exited with code {last.code}")
    return ": ".join(parts[:2]) + "".join(f", {p}" for p in parts[2:])


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - 1] + "…"


def _footer(report: Report, width: int = 120) -> list[str]:
    s = report.summary
    out = [
        f"{s.calls} {plural(s.calls, 'call')}: {s.reminders} {plural(s.reminders, 'reminder')}, {s.denials} "
        f"{plural(s.denials, 'denial')}, {s.stops} {plural(s.stops, 'stop')}; "
        f"{s.saved} {plural(s.saved, 'call')} the recording ran would have been saved"
    ]
    out += [wrapped for line in cost_lines(report) for wrapped in _wrap(line, width)]
    notes = []
    waiting = sum(held(d.verdict, report.mode) for d in report.decisions)
    if waiting:
        notes.append(
            f"{waiting} {plural(waiting, 'reminder')} held at a Stop for the next prompt or call, "
            "counted above only once sent"
        )
    if report.polls:
        empty = sum(p.empty and not p.typed for p in report.polls)
        notes.append(
            f"{len(report.polls)} write_stdin {plural(len(report.polls), 'poll')} no hook sees "
            f"({empty} empty), read from the rollout"
        )
    if report.unseen:
        unseen = sum(n for _, n in report.unseen)
        each = ", ".join(f"{tool} {n}" for tool, n in report.unseen)
        notes.append(f"{unseen} more {plural(unseen, 'call')} no hook fires for ({each}): not judged")
    if report.unread:
        notes.append(
            f"{report.unread} {plural(report.unread, 'call')} in Code Mode scripts replay cannot read "
            "(an argument that is no literal): not judged"
        )
    if s.skipped_lines:
        notes.append(f"{s.skipped_lines} unreadable or unknown {plural(s.skipped_lines, 'line')} skipped")
    if s.bad_payloads:
        notes.append(f"{s.bad_payloads} {plural(s.bad_payloads, 'payload')} the hook would reject")
    if report.synthetic_times:
        notes.append(NO_TIMES)
    if len(report.calls) < s.calls:
        notes.append(_listed(report))
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    return out


#: What the text and the page say of a recording with no times (`Report.synthetic_times`).
NO_TIMES = (f"no times in the file: events spaced {SYNTHETIC_STEP:g} s apart "
            f"({SYNTHETIC_TURN:g} s before a call made after a result)")


def _listed(report: Report) -> str:
    """What a table of only the calls the guard would have acted on holds (`--only-decisions`):
    those calls, and its decisions at events of no call (a Stop), which are rows of it too."""
    calls = len(report.calls)
    loose = sum(d.call is None for d in report.decisions)
    what = f"the {calls} {plural(calls, 'call')} the guard would have acted on"
    if loose:
        what += f" and its {loose} {plural(loose, 'decision')} at events of no call"
    return f"listed: {what}"


def _wrap(line: str, width: int) -> list[str]:
    """`line` in lines of at most `width` characters, the next ones indented under its first word."""
    import textwrap

    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(line, max(40, width), subsequent_indent=indent, break_on_hyphens=False) or [line]


def cost_lines(report: Report) -> list[str]:
    """The session's tokens and each loop's (`cost.py`), when the recording states usage or the
    guard found loops."""
    out = []
    if report.usage is not None:
        u = report.usage
        priced = report.prices
        out.append(
            f"tokens: {tokens(u.total)} in the session (input {tokens(u.input)}, "
            f"cache read {tokens(u.cache_read)}, cache write {tokens(u.cache_write)}, output {tokens(u.output)})"
            + amount(priced.of(u) if priced is not None else None)
        )
    if report.loops:
        used = sum(loop.usage.total for loop in report.loops)
        saved = sum(loop.saved_usage.total for loop in report.loops)
        priced_loops = report.prices is not None
        money_used = amount(sum(loop.money or 0.0 for loop in report.loops) if priced_loops else None)
        money_saved = amount(sum(loop.saved_money or 0.0 for loop in report.loops) if priced_loops else None)
        if report.usage is not None:
            out.append(
                f"{len(report.loops)} {plural(len(report.loops), 'loop')}: {tokens(used)} tokens{money_used}; "
                f"{tokens(saved)}{money_saved} of them {AFTER_SAVED}"
            )
        for n, loop in enumerate(report.loops, start=1):
            agent = "" if loop.agent == MAIN_AGENT else f" [{printable(loop.agent)}]"
            out.append("  " + format_cost(loop.as_json(), f"loop {n}{agent}"))
    return out


def _loose_line(decision: DecisionReport, base: float, time_width: int, mode: str) -> str:
    tool = f" {decision.tool}" if decision.tool else ""
    verdict = _verdict_text(decision.verdict, show_count=False, mode=mode)
    return f"{_offset(decision.time - base):>{time_width}}  {decision.event}{tool}: {verdict}"


def _offset(seconds: float) -> str:
    if seconds < 60:
        return f"+{seconds:.1f}s"
    if seconds < 3600:
        return f"+{int(seconds // 60)}m{int(seconds % 60):02d}s"
    return f"+{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"
