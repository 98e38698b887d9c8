"""`doctor`'s output: a few lines per client, or one JSON document."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .model import ClientReport

_MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def render_text(reports: Sequence[ClientReport]) -> str:
    """Per client: how it was found, each finding with its fix, then `live` or `NOT LIVE`."""
    out: list[str] = []
    for report in reports:
        if report.found is None:
            out.append(f"{report.title}: not found")
            continue
        out.append(f"{report.title}: {report.found}")
        for finding in report.findings:
            out.append(f"  {_MARK[finding.status]}  {finding.check}: {finding.message}")
            if finding.fix and finding.status != "ok":
                out.append(f"        fix: {finding.fix}")
        out.append("  => the guard is live" if report.live else "  => the guard is NOT live")
    return "\n".join(out) + "\n"


def render_json(reports: Sequence[ClientReport]) -> str:
    """`{"live": bool, "clients": [{client, title, found, live, findings: [...]}]}`."""
    clients = [
        {
            "client": r.client,
            "title": r.title,
            "found": r.found,
            "live": r.live,
            "findings": [{"status": f.status, "check": f.check, "message": f.message, "fix": f.fix} for f in r.findings],
        }
        for r in reports
    ]
    return json.dumps({"live": all_live(reports), "clients": clients}, indent=2) + "\n"


def all_live(reports: Sequence[ClientReport]) -> bool:
    """True when every client found on the machine has a live guard."""
    return all(r.live for r in reports if r.found is not None)
