"""The picture of a replay (`replay --html FILE`): one self-contained HTML page, inline CSS and
SVG only (no script, no font, nothing fetched), a section per session:

- a timeline of the session's calls: one column per call in order, one row per signature (the
  tool and its canonical arguments, redacted, as the text report shows them) for calls made more
  than once, one row per tool for the others; each call a mark coloured by what the guard would
  have done (reminder, denial, end of turn; a call it would have kept from running is outlined),
  each loop (`cost.py`) a band across the rows, each user prompt a dashed line;
- the session's token use over time, where the recording states usage: the running total of the
  model requests' tokens, the loops shaded.

Every mark carries a `<title>` (the browser shows it on hover) and a class and `data-*`
attributes (`mark remind|deny|stop|saved|call`, `loop`, `tokens`) so that a test can find it in
the DOM. Text is escaped; arguments were redacted by the report.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from ..core.event import MAIN_AGENT
from .cost import AFTER_SAVED, amount, plural, tokens
from .readers import title
from .render_text import NO_TIMES, _offset, profile_line
from .report import CallReport, Report, Verdict

#: Colours by role (also what the screenshot test looks for).
COLOURS = {
    "call": "#9aa0a6",
    "remind": "#f2a900",
    "deny": "#d62728",
    "stop": "#6a1b9a",
    "saved": "#d62728",
    "loop": "#fbe3e4",
    "prompt": "#1a73e8",
    "tokens": "#1a73e8",
}
#: Rows kept for single signatures; the rest of the calls share their tool's row.
MAX_SIGNATURE_ROWS = 40
LABEL_WIDTH = 300
ROW_HEIGHT = 16
TOP = 36

CSS = """
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #202124; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 28px 0 4px; }
p { margin: 2px 0; } .muted { color: #5f6368; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
svg { display: block; margin-top: 8px; overflow: visible; }
svg text { font: 11px system-ui, sans-serif; fill: #3c4043; }
svg .label { font-family: ui-monospace, monospace; }
.scroll { overflow-x: auto; }
"""


def _esc(text: object) -> str:
    """`text` for the page: HTML escaped, and every control, format or line-separator character
    (Unicode Cc, Cf, Zl, Zp: `_hidden`) but a line break, a carriage return, a tab or an emoji's
    joiners written as Python writes it (`\\u202e`): a path in a transcript may hold a bidi
    override that reorders what the page shows."""
    text = str(text)
    if not text.isprintable():
        text = "".join(repr(ch)[1:-1] if _hidden(ch) else ch for ch in text)
    return html.escape(text, quote=True)


def _hidden(ch: str) -> bool:
    """Whether a character acts on the page rather than shows on it (`_esc`)."""
    return ch not in "\n\t\r\u200c\u200d" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")


def _role(call: CallReport) -> str:
    """The strongest thing the guard would have done about a call, as a role: none (`call`) for a
    call made after it had ended the turn, whose decisions are in no count."""
    if call.unmade:
        return "call"
    actions = [v.action for v in (call.pre, call.post) if v is not None and not v.quiet]
    for role in ("stop", "deny", "remind"):
        if role in actions:
            return role
    return "call"


def _verdict(v: Verdict | None) -> str:
    if v is None or v.quiet:
        return "-"
    would = f" (would {v.intended})" if v.intended != v.action else ""
    return f"{v.action} {v.rule.removeprefix('LOOP_GUARD_')} {v.count}{would}"


def _rows(calls: Sequence[CallReport]) -> tuple[list[str], dict[int, int]]:
    """Row labels and each call's row (by call index): signatures made more than once, most
    calls first, then a row per tool for the rest."""
    counts: dict[tuple[str, str], int] = {}
    for c in calls:
        counts[(c.tool, c.arguments)] = counts.get((c.tool, c.arguments), 0) + 1
    repeated = sorted((k for k, n in counts.items() if n > 1), key=lambda k: -counts[k])[:MAX_SIGNATURE_ROWS]
    labels: list[str] = []
    row_of_key: dict[tuple[str, str], int] = {}
    for key in repeated:
        row_of_key[key] = len(labels)
        labels.append(key[1] if key[1].startswith(key[0]) else f"{key[0]} {key[1]}")
    tool_rows: dict[str, int] = {}
    rows: dict[int, int] = {}
    for c in calls:
        key = (c.tool, c.arguments)
        if key in row_of_key:
            rows[c.index] = row_of_key[key]
            continue
        if c.tool not in tool_rows:
            tool_rows[c.tool] = len(labels)
            labels.append(f"{c.tool} (other calls)")
        rows[c.index] = tool_rows[c.tool]
    return labels, rows


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def timeline(report: Report) -> str:
    """The SVG timeline of one session's calls."""
    calls = report.calls
    if not calls:
        return '<p class="muted">no tool calls</p>'
    labels, rows = _rows(calls)
    step = max(3.0, min(18.0, 1100 / len(calls)))
    mark = max(2.0, step - 2)
    width = LABEL_WIDTH + step * len(calls) + 20
    height = TOP + ROW_HEIGHT * len(labels) + 24
    column = {c.index: i for i, c in enumerate(calls)}

    def x(index: int) -> float:
        return LABEL_WIDTH + step * column[index]

    out = [f'<svg class="timeline" width="{width:.0f}" height="{height}" viewBox="0 0 {width:.0f} {height}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="timeline of the calls">']
    for i in range(len(labels)):
        if i % 2:
            out.append(f'<rect x="0" y="{TOP + i * ROW_HEIGHT}" width="{width:.0f}" height="{ROW_HEIGHT}" fill="#f8f9fa"/>')
    out += _bands(report, x, step, len(labels))
    for i, label in enumerate(labels):
        out.append(f'<text class="label" x="4" y="{TOP + i * ROW_HEIGHT + 12}">{_esc(_cut(label, 44))}'
                   f"<title>{_esc(label)}</title></text>")
    base = report.started or 0.0
    for m in report.markers:
        if m.event != "UserPromptSubmit":
            continue
        after = next((c for c in calls if c.time >= m.time), None)
        if after is None:
            continue
        px = x(after.index) - 1
        tip = f"user prompt at +{m.time - base:.0f} s"
        out.append(f'<line class="prompt" x1="{px:.1f}" x2="{px:.1f}" y1="{TOP - 14}" y2="{height - 20}" '
                   f'stroke="{COLOURS["prompt"]}" stroke-dasharray="3,3"><title>{tip}</title></line>')
    out += [_mark(c, x(c.index), TOP + rows[c.index] * ROW_HEIGHT + 2, mark, base) for c in calls]
    ticks = max(1, len(calls) // 10)
    for i, c in enumerate(calls):
        if i % ticks == 0:
            out.append(f'<text x="{x(c.index):.1f}" y="{height - 6}">#{c.index}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _bands(report: Report, x: Callable[[int], float], step: float, rows: int) -> list[str]:
    """A band per loop across the timeline's rows, labelled with its tokens where it is wide enough."""
    out = []
    column = {c.index for c in report.calls}
    for n, loop in enumerate(report.loops, start=1):
        if loop.first_call not in column or loop.last_call not in column:
            continue
        left, right = x(loop.first_call) - 1, x(loop.last_call) + step + 1
        saved = f", {tokens(loop.saved_usage.total)} of them {AFTER_SAVED}" if loop.saved_requests else ""
        agent = "" if loop.agent == MAIN_AGENT else f" [{loop.agent}]"
        # A loop of no request the recording states usage for has no tokens to say, not 0 (as the text says).
        used = f", {tokens(loop.usage.total)} tokens{saved}" if loop.requests else "; the recording states no token usage for it"
        tip = (f"loop {n}{agent}: calls {loop.first_call}-{loop.last_call}, {loop.interventions} "
               f"{plural(loop.interventions, 'intervention')}{used}")
        out.append(
            f'<rect class="loop" data-loop="{n}" x="{left:.1f}" y="{TOP - 14}" width="{right - left:.1f}" '
            f'height="{ROW_HEIGHT * rows + 14}" fill="{COLOURS["loop"]}" stroke="#e8a6a9">'
            f"<title>{_esc(tip)}</title></rect>"
        )
        label = f"loop {n}: {tokens(loop.usage.total)} tokens" if right - left >= 110 and loop.requests else str(n)
        out.append(f'<text x="{left + 3:.1f}" y="{TOP - 4}">{_esc(label)}</text>')
    return out


def _mark(c: CallReport, px: float, py: float, mark: float, base: float) -> str:
    """One call's mark: coloured by what the guard would have done, its details in a `<title>`."""
    role = _role(c)
    tip = (f"#{c.index} +{c.time - base:.1f}s {c.agent} {c.tool}: {c.recorded}; PreToolUse {_verdict(c.pre)}; "
           f"after {_verdict(c.post)}{'; saved' if c.saved else ''}"
           f"{'; after the turn had ended (not counted)' if c.unmade else ''}\n{c.arguments}")
    # A call the model would not have made, the turn being over, is outlined; a denied one's colour says it.
    outlined = c.unmade or (c.saved and role == "call")
    stroke = f' stroke="{COLOURS["saved"]}" stroke-width="1.5"' if outlined else ""
    fill = "#ffffff" if outlined else COLOURS[role]
    kinds = f'{role}{" saved" if c.saved else ""}{" unmade" if c.unmade else ""}'
    return (
        f'<rect class="mark {kinds}" data-call="{c.index}" x="{px:.1f}" y="{py}" '
        f'width="{mark:.1f}" height="{ROW_HEIGHT - 4}" fill="{fill}"{stroke}><title>{_esc(tip)}</title></rect>'
    )


def token_chart(report: Report) -> str:
    """The SVG of the session's token use over time (the running total of its requests); a line
    saying why there is none when the recording states no usage or holds no times."""
    requests = sorted(report.requests, key=lambda r: r.time)
    if not requests:
        return '<p class="muted">the recording states no token usage</p>'
    if report.synthetic_times:
        # Times made up 0.1 s apart would draw the whole session as one step at +0 s.
        return '<p class="muted no-times">no chart: the recording holds no times to draw its token use over</p>'
    start, end = requests[0].time, max(requests[-1].time, requests[0].time + 1)
    total = sum(r.usage.total for r in requests) or 1
    width, height, left, top = 1100.0, 220.0, 70.0, 10.0
    plot_w, plot_h = width - left - 20, height - top - 30

    def tx(t: float) -> float:
        return left + (t - start) / (end - start) * plot_w

    def ty(v: float) -> float:
        return top + plot_h - v / total * plot_h

    out = [f'<svg class="tokens" width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
           'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="token use over time">']
    times = {c.index: c.time for c in report.calls}
    for n, loop in enumerate(report.loops, start=1):
        if loop.first_call in times and loop.last_call in times:
            a, b = tx(times[loop.first_call]), tx(times[loop.last_call])
            out.append(f'<rect class="loop" data-loop="{n}" x="{a:.1f}" y="{top}" width="{max(2.0, b - a):.1f}" '
                       f'height="{plot_h:.0f}" fill="{COLOURS["loop"]}"><title>loop {n}</title></rect>')
    points, running = [f"{tx(start):.1f},{ty(0):.1f}"], 0
    for r in requests:
        points.append(f"{tx(r.time):.1f},{ty(running):.1f}")
        running += r.usage.total
        points.append(f"{tx(r.time):.1f},{ty(running):.1f}")
    out.append(f'<polyline class="tokens" data-total="{running}" points="{" ".join(points)}" fill="none" '
               f'stroke="{COLOURS["tokens"]}" stroke-width="2"/>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" stroke="#5f6368"/>')
    out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#5f6368"/>')
    for share in (0.0, 0.5, 1.0):
        out.append(f'<text x="4" y="{ty(total * share) + 4:.1f}">{_esc(tokens(int(total * share)))}</text>')
        out.append(f'<text x="{left + share * plot_w - 14:.1f}" y="{height - 8}">{_offset((end - start) * share)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _legend() -> str:
    items = [("call", "call"), ("remind", "reminder"), ("deny", "denial"), ("stop", "end of turn"),
             ("loop", "loop"), ("prompt", "user prompt")]
    spans = "".join(f'<span><i style="background:{COLOURS[role]}"></i>{label}</span>' for role, label in items)
    spans += f'<span><i style="border:2px solid {COLOURS["saved"]};width:6px;height:6px"></i>kept from running</span>'
    return f'<p class="legend">{spans}</p>'


def _section(report: Report) -> str:
    s = report.summary
    started = (
        "" if report.started is None or report.synthetic_times
        else ", started " + datetime.fromtimestamp(report.started, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    )
    lines = [
        f"<h1>{_esc(title(report.format))}: session {_esc(report.session_id or '-')} [{_esc(report.client)}]</h1>",
        f'<p class="muted">{_esc(report.sources[0])}{_esc(started)}</p>',
        f"<p>{_esc(profile_line(report))}</p>",
        *([f'<p class="muted no-times">{_esc(NO_TIMES)}</p>'] if report.synthetic_times else []),
        f"<p>{s.calls} calls: {s.reminders} {plural(s.reminders, 'reminder')}, {s.denials} {plural(s.denials, 'denial')}, "
        f"{s.stops} {plural(s.stops, 'end')} of turn; {s.saved} {plural(s.saved, 'call')} the recording ran would have "
        "been kept from running</p>",
    ]
    if report.usage is not None:
        money = amount(report.prices.of(report.usage) if report.prices is not None else None)
        saved = sum(loop.saved_usage.total for loop in report.loops)
        lines.append(f"<p>{_esc(tokens(report.usage.total))} tokens{_esc(money)}; in loops "
                     f"{_esc(tokens(sum(loop.usage.total for loop in report.loops)))}, {_esc(tokens(saved))} of them "
                     f"{_esc(AFTER_SAVED)}</p>")
    lines += ["<h2>Calls</h2>", _legend(), f'<div class="scroll">{timeline(report)}</div>',
              "<h2>Token use over time</h2>", f'<div class="scroll">{token_chart(report)}</div>']
    return "<section>\n" + "\n".join(lines) + "\n</section>"


def format_html(reports: Sequence[Report]) -> str:
    """One self-contained page for `reports` (each replayed with every call listed)."""
    body = "\n<hr>\n".join(_section(r) for r in reports) or "<p>no sessions to replay</p>"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>loopguard-hook replay</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
