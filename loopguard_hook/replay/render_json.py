"""The JSON renderer (`--format json`)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..core.redact import redact
from .cost import usage_json
from .model import Poll
from .report import CallReport, DecisionReport, Report, Summary, Verdict


def to_json(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data with stable keys (`--format json`). Times are seconds since
    the epoch, rounded to milliseconds."""
    return {
        "sources": list(report.sources),
        "format": report.format,
        "client": report.client,
        "session_id": report.session_id,
        "config": {
            "profile": report.profile,
            "mode": report.mode,
            "counting": report.counting,
            "remind_at": list(report.remind_at),
            "deny_at": report.deny_at,
            "stop_at": report.stop_at,
        },
        "started": round(report.started, 3) if report.started is not None else None,
        "synthetic_times": report.synthetic_times,
        "summary": summary_json(report.summary),
        "calls": [_call_json(c) for c in report.calls],
        "decisions": [_decision_json(d) for d in report.decisions],
        "markers": [{"time": round(m.time, 3), "event": m.event, "detail": m.detail} for m in report.markers],
        "unhooked_polls": [_poll_json(p) for p in report.polls],
        "unhooked_calls": dict(report.unseen),
        "unread_cell_calls": report.unread,
        "errors": list(report.errors),
        "cost": cost_json(report),
    }


def cost_json(report: Report) -> dict[str, Any]:
    """`{"tokens": {input, cache_read, cache_write, output, total} | null, "loops": [...],
    "loop_tokens", "saved_tokens", "money", "loop_money", "saved_money", "prices"}`: the
    session's usage as the recording states it (null: none), each loop's (`cost.LoopCost`), and
    in money at `prices` (null when no price is given)."""
    loops = [loop.as_json() for loop in report.loops]
    priced = report.prices
    return {
        "tokens": usage_json(report.usage) if report.usage is not None else None,
        "loops": loops,
        "loop_tokens": sum(loop.usage.total for loop in report.loops),
        "saved_tokens": sum(loop.saved_usage.total for loop in report.loops),
        "money": priced.of(report.usage) if priced is not None and report.usage is not None else None,
        "loop_money": sum(loop.money or 0.0 for loop in report.loops) if priced is not None else None,
        "saved_money": sum(loop.saved_money or 0.0 for loop in report.loops) if priced is not None else None,
        "prices": priced.as_json() if priced is not None else None,
    }


def summary_report_json(report: Report) -> dict[str, Any]:
    """`to_json` without the per-call and per-event lists (`calls`, `decisions`, `markers`,
    `unhooked_polls`)."""
    data = to_json(report)
    for key in ("calls", "decisions", "markers", "unhooked_polls"):
        del data[key]
    return data


def summary_json(summary: Summary) -> dict[str, int]:
    """A report's totals as JSON-ready data (the `summary` of `to_json`)."""
    return _fields(summary)


def _fields(value: Any) -> dict[str, Any]:
    # The JSON keys are the report's own field names.
    return {f.name: getattr(value, f.name) for f in fields(value)}


def _verdict_json(verdict: Verdict | None) -> dict[str, Any] | None:
    return _fields(verdict) if verdict is not None else None


def _call_json(call: CallReport) -> dict[str, Any]:
    return {**_fields(call), "time": round(call.time, 3), "pre": _verdict_json(call.pre), "post": _verdict_json(call.post)}


def _poll_json(poll: Poll) -> dict[str, Any]:
    """One `write_stdin` poll: `time` and `done` (seconds since the epoch, `done` null without an
    answer), `call_id`, `session`, the session's `command` (redacted), what it `typed`, whether
    its answer was `empty`, and the command's exit `code` once it ended (null while it ran)."""
    data = _fields(poll)
    data["time"] = round(poll.time, 3)
    data["done"] = round(poll.done, 3) if poll.done is not None else None
    data["command"] = redact(poll.command)
    return data


def _decision_json(decision: DecisionReport) -> dict[str, Any]:
    data = _fields(decision)
    del data["verdict"]
    return {**data, "time": round(decision.time, 3), **_fields(decision.verdict)}
