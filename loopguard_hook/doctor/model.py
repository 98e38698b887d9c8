"""The values `doctor` works with: one registered handler, one finding, one client's report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True, slots=True)
class Registration:
    """One handler that runs loopguard, as a client will read it.

    Attributes:
        source: the file it is in (settings.json, hooks.json, config.toml, a bridge's config).
        event: the hook event key (`PreToolUse`…).
        group: the matcher group's index in that event's list; handler: its index in the group.
        matcher: the group's matcher, None when absent.
        command: the command string exactly as the client runs it.
        timeout: the handler's `timeout` in seconds, None when unset.
        entry: the handler object itself (for Codex's trust hash).
    """

    source: Path
    event: str
    group: int
    handler: int
    matcher: str | None
    command: str
    timeout: float | None
    entry: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's result: `ok`, `warn` (works, but not as it should) or `fail` (the guard is
    not live for that client); `fix` says what to do."""

    status: Status
    check: str
    message: str
    fix: str | None = None


@dataclass(slots=True)
class ClientReport:
    """What `doctor` found for one client. `found` says how it was found (None: not here)."""

    client: str
    title: str
    found: str | None
    findings: list[Finding] = field(default_factory=list)

    @property
    def live(self) -> bool:
        """Found, and no check failed."""
        return self.found is not None and not any(f.status == "fail" for f in self.findings)

    def add(self, status: Status, check: str, message: str, fix: str | None = None) -> None:
        """Append one finding."""
        self.findings.append(Finding(status, check, message, fix))
