"""The `client` check: a `--client` on a registered command line that names another host than
the one running the file (the hook then reads that host's events and answers in its form)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from .model import HOSTS, ClientReport, Registration
from .probe import words

#: The hosts whose answers share one wire form (`hosts/base.wire`): each reads the others' form,
#: though what takes effect where differs. Copilot CLI, Cursor and Gemini CLI have their own.
SHARED_FORM = frozenset({"claude-code", "codex", "dsh-claude-code", "dsh-codex", "qwen-code", "droid"})
_PROGRAM = re.compile(r"loopguard[-_]hook(?:\.exe|\.py)?")
_SHELL_OPERATORS = frozenset({"|", "||", "&&", ";", "&"})


def client_option(command: str) -> str | None:
    """The `--client NAME` the command line gives loopguard-hook (the words after its program, up
    to a shell operator; the last one, as the hook takes it), or None."""
    parts = words(command)
    start = next((i for i, w in enumerate(parts) if _PROGRAM.fullmatch(os.path.basename(w))), None)
    if start is None:
        return None
    named = None
    for i in range(start + 1, len(parts)):
        if parts[i] in _SHELL_OPERATORS:
            break
        if parts[i] == "--client" and i + 1 < len(parts):
            named = parts[i + 1]
        elif parts[i].startswith("--client="):
            named = parts[i].partition("=")[2]
    return named


def check_client(report: ClientReport, regs: Sequence[Registration]) -> None:
    """A `--client` that names another host than the one running the file: the hook reads that
    host's events and answers in its form. Another form is one this host does not read (fail);
    the shared form is read, but decided by that host's rules (warn). `auto`, none at all, or a
    name the hook does not know (the synthetic event tells) are not judged here."""
    from ..core.event import Client

    names = {c.value for c in Client}
    for command in sorted({r.command for r in regs}):
        named = client_option(command)
        if named is None or named == report.client or named not in names:
            continue
        sources = ", ".join(sorted({str(r.source) for r in regs if r.command == command}))
        other, host, needs = _title(named), report.host, f"`--client {report.client}`"
        fix = f"write {needs} there, or leave --client out (the hook then tells the host by its payload)"
        shared = report.client in SHARED_FORM and named in SHARED_FORM
        if shared and _shows_failures(named) and not _shows_failures(report.client):
            # the named host's failures exit 1 with a line: this host shows that line to the model
            report.add("fail", "client", f"{sources} runs `{command}`: with `--client {named}` a problem of the guard's "
                       f"exits 1 with a line {host} shows its model, where {host} needs exit 0 and the line in errors.log; "
                       f"{host} needs {needs} or none", fix)
        elif shared:
            report.add("warn", "client", f"{sources} runs `{command}`: `--client {named}` answers {host} in a form it "
                       f"reads, but decided by {other}'s rules; {host} needs {needs} or none", fix)
        else:
            report.add("fail", "client", f"{sources} runs `{command}`: `--client {named}` answers {host} in {other}'s "
                       f"form, not its own, so it drops (or misreads) the guard's decisions; {host} needs {needs} or none",
                       fix)


def _shows_failures(client: str) -> bool:
    """Whether the hook, told it runs for `client`, says its own problems with exit 1 and a line
    on stderr (not that host's `failures_exit_0`)."""
    from ..core.event import Client
    from ..hosts import capabilities

    return not capabilities(Client(client)).failures_exit_0


def _title(client: str) -> str:
    """A host's name for people (a DSH bridge's with the bridge)."""
    if client.startswith("dsh-"):
        return "the DSH " + ("Claude Code" if client == "dsh-claude-code" else "Codex") + " bridge"
    return HOSTS[client][1]
