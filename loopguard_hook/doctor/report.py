"""`doctor`'s output: a few lines per client, or one JSON document."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..process import printable
from .model import ClientReport

_MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def render_text(reports: Sequence[ClientReport]) -> str:
    """Per client: how it was found, each finding with its fix, then what that adds up to."""
    out: list[str] = []
    for report in reports:
        if report.state == "not found":
            # with findings, its files register it somewhere the host would not load it (yet)
            where = " where it would be loaded" if report.findings else ""
            out.append(f"{report.title}: not found (no `{report.program}` on PATH, loopguard-hook not registered{where})")
            out.extend(_finding_lines(report))  # what its files said all the same
            continue
        found = report.found or f"not found here (no `{report.program}` on PATH)"
        out.append(f"{report.title}: {found}")
        out.extend(_finding_lines(report))
        out.append(f"  => {_VERDICT[report.state].format(title=report.title, host=report.host, program=report.program)}")
    # A line break or an escape sequence in a folder's name that a path quotes, escaped as
    # `status` escapes it.
    return "\n".join(map(printable, out)) + "\n"


def _finding_lines(report: ClientReport) -> list[str]:
    """Each finding, with its fix unless it is ok."""
    out = []
    for finding in report.findings:
        out.append(f"  {_MARK[finding.status]}  {finding.check}: {finding.message}")
        if finding.fix and finding.status != "ok":
            out.append(f"        fix: {finding.fix}")
    return out


_VERDICT = {
    "live": "the guard is live",
    "not live": "the guard is NOT live",
    "not installed": "loopguard-hook is not installed for {title}",
    "host not found": "loopguard-hook is registered, but {host} was not found here (no `{program}` on PATH): "
    "nothing runs the hook until {host} is installed",
}


def render_json(reports: Sequence[ClientReport]) -> str:
    """`{"live": bool, "live_clients": [name], "not_live": [name], "clients": [{client, title, found,
    registered, state, live, findings: [...]}]}`.

    `live` is true when at least one client reported is live (so it is the OR of the clients'
    `live`); `live_clients` names those; `not_live` names the clients in state `not live` (the
    guard registered, the host here, a check failed), the ones that make `doctor` exit 1.
    """
    clients = [
        {
            "client": r.client,
            "title": r.title,
            "found": r.found,
            "registered": r.registered,
            "state": r.state,
            "live": r.live,
            "findings": [{"status": f.status, "check": f.check, "message": f.message, "fix": f.fix} for f in r.findings],
        }
        for r in reports
    ]
    document = {
        "live": any(r.live for r in reports),
        "live_clients": [r.client for r in reports if r.live],
        "not_live": [r.client for r in reports if r.state == "not live"],
        "clients": clients,
    }
    return json.dumps(document, indent=2) + "\n"


def all_live(reports: Sequence[ClientReport]) -> bool:
    """True when no host here has the guard registered but not live (hosts that are not here,
    or where the guard is not installed, do not count)."""
    return not any(r.state == "not live" for r in reports)


def exit_code(reports: Sequence[ClientReport], *, named: bool) -> int:
    """`doctor`'s exit status: 1 when a host here has the guard registered but not live, or,
    when the hosts were `named` (`--client`), when one of them is not live; else 0."""
    if not all_live(reports) or (named and not all(r.live for r in reports)):
        return 1
    return 0
