"""What the guard stored during a run: session ledgers, `status --json`, the audit log."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from .clients import HOOK_BIN, Workspace, base_env

#: Fields every audit record carries (behaviour contract, state section).
AUDIT_FIELDS = frozenset({"time", "session", "agent", "event", "tool", "rule", "action", "count"})


def sessions(ws: Workspace) -> dict[str, dict[str, Any]]:
    """Every ledger in `<state>/sessions/*.json`, keyed by its session_id."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((ws.state / "sessions").glob("*.json")):
        state = json.loads(path.read_text(encoding="utf-8"))
        out[state["session_id"]] = state
    return out


def only_session(ws: Workspace) -> dict[str, Any]:
    """The one ledger of a single-session run (AssertionError otherwise)."""
    found = sessions(ws)
    assert len(found) == 1, f"expected one session ledger in {ws.state}, found {sorted(found)}"
    return next(iter(found.values()))


def status(ws: Workspace) -> dict[str, Any]:
    """`loopguard-hook status --json --state-dir <state>`, parsed."""
    proc = subprocess.run(
        [str(HOOK_BIN), "status", "--json", "--state-dir", str(ws.state)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ws.work,
        env=base_env(ws, keep_state=False),
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"status --json exited {proc.returncode}: {proc.stderr}"
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def audit(ws: Workspace) -> list[dict[str, Any]]:
    """`<state>/decisions.jsonl`, one record per non-allow decision, oldest first."""
    path = ws.state / "decisions.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def errors(ws: Workspace) -> str:
    """`<state>/errors.log` (tracebacks of hook bugs), or "" when there is none."""
    path: Path = ws.state / "errors.log"
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def decisions(records: list[dict[str, Any]]) -> list[str]:
    """Audit records (or status `recent_decisions`) as "action@count" labels, in order."""
    return [f"{r['action']}@{r['count']}" for r in records]


def checked_audit(ws: Workspace, expected: list[str], **fields: str) -> list[dict[str, Any]]:
    """The audit records after checking that each has every `AUDIT_FIELDS` key and the given
    field values (e.g. `session=`, `tool=`), and that their "action@count" labels are `expected`."""
    records = audit(ws)
    assert decisions(records) == expected, records
    for record in records:
        assert AUDIT_FIELDS <= record.keys(), record
        assert {k: record[k] for k in fields} == fields, record
    return records
