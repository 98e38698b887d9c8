"""`loopguard-hook doctor`: for each client on this machine (Claude Code, Codex, DSH through its
two bridges, Qwen Code, Gemini CLI, Copilot CLI, Cursor, Droid), whether the guard is live there,
and what to do when it is not.

Per client: is loopguard-hook registered (and for all the events install writes), does a
`--client` on its command line name that client, is its program on the PATH the client passes
to hooks, is it trusted (Codex), do its matchers fire on that
client's tool names, can it write its state dir (for DSH: from DSH's sandbox), and does one
synthetic PreToolUse through the registered command string come back clean (run without a shell,
and only when it is a command line `install` writes: a project's settings could hold any other).
Imported only by the CLI: it runs subprocesses.

Modules: `model` (values), `matchers` (each client's matcher rules and tool names), `probe` (PATH,
state dir, one event), `common` (the checks over registrations), `claude_code`, `codex`, `dsh`,
`settings_hosts` (Qwen Code, Gemini CLI), `hosts` (Copilot CLI, Cursor, Droid: finding each
client's registrations), `report` (text and JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..install.dsh import DSH_CLIENTS
from ..install.hosts import HOST_CLIENTS
from . import claude_code, codex, dsh, hosts, settings_hosts
from .model import ClientReport, Finding, Registration
from .report import all_live, exit_code, render_json, render_text

#: The hosts `doctor` checks by default (`dsh`: both bridges).
CLIENTS = ("claude-code", "codex", "dsh", "qwen-code", "gemini-cli", *HOST_CLIENTS)
#: Every name `--client` takes: those, and each name `install --client` takes.
CLIENT_NAMES = ("claude-code", "codex", "dsh", *DSH_CLIENTS, "qwen-code", "gemini-cli", *HOST_CLIENTS)


def run_doctor(
    *,
    home: str | Path,
    cwd: str | Path,
    env: Mapping[str, str],
    clients: Sequence[str] = CLIENTS,
    run: bool = True,
) -> list[ClientReport]:
    """One report per client in `clients`, names of `CLIENT_NAMES` (`dsh`: one per mounted
    bridge; `dsh-claude-code`, `dsh-codex`: that bridge only). `home`, `cwd` and
    `env` are the user's home, the project directory and the environment the clients start
    with; `run` sends the synthetic event (a subprocess per client, bounded by the handler's
    timeout, at most 60 s)."""
    home, cwd = Path(home), Path(cwd)
    reports: list[ClientReport] = []
    if "claude-code" in clients:
        reports.append(claude_code.check(home=home, cwd=cwd, env=env, run=run))
    if "codex" in clients:
        reports.append(codex.check(home=home, cwd=cwd, env=env, run=run))
    bridges = DSH_CLIENTS if "dsh" in clients else tuple(c for c in DSH_CLIENTS if c in clients)
    if bridges:
        reports += dsh.check(home=home, cwd=cwd, env=env, run=run, bridges=bridges)
    for client in ("qwen-code", "gemini-cli"):
        if client in clients:
            reports.append(settings_hosts.check(client, home=home, cwd=cwd, env=env, run=run))
    reports += [hosts.check(c, home=home, cwd=cwd, env=env, run=run) for c in HOST_CLIENTS if c in clients]
    return reports


__all__ = [
    "CLIENTS",
    "CLIENT_NAMES",
    "ClientReport",
    "Finding",
    "Registration",
    "all_live",
    "exit_code",
    "render_json",
    "render_text",
    "run_doctor",
]
