"""The values `doctor` works with: one registered handler, one finding, one client's report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Status = Literal["ok", "warn", "fail"]
#: What `doctor` concludes for one host: `live` (the host is here, the guard registered, no check
#: failed), `not live` (the same with a check failed), `not installed` (the host is here, the guard
#: not registered), `host not found` (the guard is registered, the host's program is not on PATH)
#: and `not found` (neither).
State = Literal["live", "not live", "not installed", "host not found", "not found"]

#: Per client name: the host's program, looked for on PATH, and the host's name for people.
HOSTS: dict[str, tuple[str, str]] = {
    "claude-code": ("claude", "Claude Code"),
    "codex": ("codex", "Codex"),
    "dsh": ("dsh", "DSH"),
    "dsh-claude-code": ("dsh", "DSH"),
    "dsh-codex": ("dsh", "DSH"),
    "qwen-code": ("qwen", "Qwen Code"),
    "gemini-cli": ("gemini", "Gemini CLI"),
    "copilot": ("copilot", "GitHub Copilot CLI"),
    "cursor": ("cursor-agent", "Cursor"),
    "droid": ("droid", "Factory Droid"),
}


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
    """What `doctor` found for one client. `found` says where its program is on PATH (None: not
    here; a settings folder alone does not count, `install` may have made it); `registered`,
    whether loopguard-hook is registered in its settings."""

    client: str
    title: str
    found: str | None
    findings: list[Finding] = field(default_factory=list)
    registered: bool = False

    @property
    def state(self) -> State:
        """The conclusion (`State`)."""
        if not self.registered:
            return "not installed" if self.found is not None else "not found"
        if self.found is None:
            return "host not found"
        return "not live" if any(f.status == "fail" for f in self.findings) else "live"

    @property
    def live(self) -> bool:
        """Found, registered, and no check failed."""
        return self.state == "live"

    @property
    def program(self) -> str:
        """The host's program name (`claude`, `codex`, `dsh`)."""
        return HOSTS[self.client][0]

    @property
    def host(self) -> str:
        """The host's name (`Claude Code`, `Codex`, `DSH`, also for either DSH bridge)."""
        return HOSTS[self.client][1]

    def add(self, status: Status, check: str, message: str, fix: str | None = None) -> None:
        """Append one finding."""
        self.findings.append(Finding(status, check, message, fix))
