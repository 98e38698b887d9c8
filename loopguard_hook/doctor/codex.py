"""`doctor` for Codex: `$CODEX_HOME/hooks.json` and inline `config.toml` hooks, the trusted
project layer, and hook trust.

Client facts (Codex 0.171.0, `shared/research/codex-hooks.md`): every layer's hooks run; a
project's `.codex/` layer loads only in a trusted project; `[features] hooks = false` turns hooks
off; a hook runs only when `[hooks.state."<key>"] trusted_hash` equals its current hash, else
`codex exec` skips it without a word; commands run through `/bin/bash -c`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..install import CODEX, HOOK_EVENTS, codex_config_path, settings_path
from ..install.codex import inline_codex_hooks
from ..install.jsontext import read_json_quietly
from ..install.tomltext import read_toml_quietly
from ..install.trust import event_label, trust_status, trusted_hash
from .common import check_events, check_handlers, found_by, registrations
from .model import HOSTS, ClientReport, Registration

FIX = "loopguard-hook install --client codex"


def _layer(folder: Path) -> list[Registration]:
    hooks_json = folder / "hooks.json"
    data = read_json_quietly(hooks_json) or {}
    inline = folder / "config.toml"
    return registrations(hooks_json, data.get("hooks")) + registrations(inline, inline_codex_hooks(read_toml_quietly(inline)))


def _sources(home: Path, cwd: Path, env: Mapping[str, str], report: ClientReport) -> list[Registration]:
    config = codex_config_path(home=home, env=env)
    doc = read_toml_quietly(config)
    if doc is None:
        report.add("fail", "settings", f"{config} is not valid TOML: Codex does not start", f"fix {config}")
        doc = {}
    features = doc.get("features")
    if isinstance(features, dict) and (features.get("hooks") is False or features.get("codex_hooks") is False):
        report.add("fail", "settings", f"{config} turns hooks off ([features] hooks = false)", f"remove that line from {config}")
    regs = _layer(config.parent)
    project = settings_path(CODEX, "project", home=home, project_dir=cwd, env=env).parent
    if project != config.parent and project.is_dir():
        projects = doc.get("projects")
        entry = projects.get(os.path.realpath(cwd)) if isinstance(projects, dict) else None
        found = _layer(project)
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            regs += found
        elif found:
            report.add(
                "warn",
                "settings",
                f"{project} registers loopguard-hook, but Codex loads it only once this project is trusted",
                "accept Codex's trust prompt for this project",
            )
    return regs


def _check_trust(report: ClientReport, regs: list[Registration], config: Path) -> None:
    entries = {
        f"{r.source}:{event_label(r.event)}:{r.group}:{r.handler}": trusted_hash(r.event, r.matcher, r.entry)
        for r in regs
        if r.entry.get("type", "command") == "command"
    }
    status = trust_status(entries, config)
    bad = {s: [k for k, v in status.items() if v == s] for s in ("untrusted", "changed", "disabled")}
    if not any(bad.values()):
        report.add("ok", "trusted", f"all {len(entries)} handlers are trusted in {config}")
        return
    if bad["disabled"]:
        report.add("fail", "trusted", f"{len(bad['disabled'])} handler(s) are disabled in {config} (enabled = false)",
                   "enable them under /hooks in the Codex TUI")
    if bad["untrusted"] or bad["changed"]:
        n = len(bad["untrusted"]) + len(bad["changed"])
        changed = f" ({len(bad['changed'])} changed since they were trusted)" if bad["changed"] else ""
        report.add(
            "fail",
            "trusted",
            f"{n} of {len(entries)} handlers have no valid trusted_hash in {config}{changed}: "
            "Codex skips them without a word",
            "loopguard-hook install --client codex --trust (or review them under /hooks in the Codex TUI)",
        )


def payload(cwd: Path) -> Any:
    """A first shell call, shaped as Codex 0.171.0 sends it (captured PreToolUse__Bash)."""

    def build(session_id: str) -> dict[str, Any]:
        return {
            "session_id": session_id,
            "turn_id": "loopguard-doctor",
            "transcript_path": "",
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "model": "",
            "permission_mode": "default",
            "tool_name": "Bash",
            "tool_input": {"command": "true"},
            "tool_use_id": "call_loopguard_doctor_1",
        }

    return build


def check(*, home: Path, cwd: Path, env: Mapping[str, str], run: bool) -> ClientReport:
    """Codex's report; `run` sends the synthetic event."""
    report = ClientReport(CODEX, "Codex", found_by(HOSTS[CODEX][0], env))
    regs = _sources(home, cwd, env, report)
    if not regs and report.found is None:
        # Not here and not registered where Codex would load it: only what the files said (a
        # project's registration Codex would load once the project is trusted) is worth saying.
        return ClientReport(CODEX, "Codex", None, [f for f in report.findings if f.status != "fail"])
    check_events(report, regs, HOOK_EVENTS[CODEX], FIX)
    if regs:
        _check_trust(report, regs, codex_config_path(home=home, env=env))
        check_handlers(
            report, regs, payload(cwd), dialect="codex", who="Codex", env=env, cwd=str(cwd), run=run
        )
    return report
