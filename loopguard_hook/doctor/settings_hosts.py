"""`doctor` for Qwen Code and Gemini CLI: their user and project `settings.json`.

Host facts (`install/settings_hosts.py` holds them, with their sources): both run hook commands
through a shell in the project folder, with their own environment plus `QWEN_PROJECT_DIR` /
`GEMINI_PROJECT_DIR`; Qwen Code fails open on a broken hook, Gemini CLI denies every tool call
on an exit of 2 or more (a missing command's 127 included), so its command must end `|| true`;
Gemini's `timeout` is in milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..install.jsontext import read_json_quietly
from ..install.settings_hosts import GEMINI, HOSTS, Host, notes, settings_path
from .common import check_events, check_handlers, check_log, failures_exit_0, found_by, registrations
from .model import HOSTS as PROGRAMS
from .model import ClientReport, Registration


def _sources(host: Host, home: Path, cwd: Path, env: Mapping[str, str], report: ClientReport) -> list[Registration]:
    regs: list[Registration] = []
    for scope in ("user", "project"):
        path = settings_path(host.client, scope, home=home, project_dir=cwd, env=env)
        data = read_json_quietly(path, jsonc=True)  # both hosts read comments in it
        if data is None:
            if path.exists():
                report.add("fail", "settings", f"{path} is not valid JSON to loopguard-hook", f"check {path}")
            continue
        for note in notes(host, path, data):
            if "runs no hooks" in note:
                report.add("fail", "settings", note.removeprefix("warning: "), f"turn hooks on in {path}")
            elif "|| true" in note or "timeout under 1000" in note:
                closed = "|| true" in note  # works, but a missing program would deny every call
                report.add("warn" if closed else "fail", "fails closed" if closed else "timeout", note.removeprefix("warning: "),
                           f"loopguard-hook uninstall --client {host.client}, then install")
        regs += registrations(path, data.get("hooks"))
    return regs


def payload(host: Host, cwd: Path) -> Any:
    """A first shell call, shaped as the host sends it (captured PreToolUse.run_shell_command /
    BeforeTool.run_shell_command)."""

    def build(session_id: str) -> dict[str, Any]:
        if host is GEMINI:
            chats = f"/home/user/.gemini/tmp/project/chats/session-2026-12-02T05-55-{session_id[:8]}.jsonl"
            return {"session_id": session_id, "transcript_path": chats, "cwd": str(cwd), "hook_event_name": "BeforeTool",
                    "timestamp": "2026-12-02T05:55:11.232Z", "tool_name": "run_shell_command",
                    "tool_input": {"command": "true", "description": "loopguard-hook doctor"}}
        return {"session_id": session_id, "transcript_path": "", "cwd": str(cwd), "hook_event_name": "PreToolUse",
                "permission_mode": "default", "prompt_id": f"{session_id}########0", "tool_name": "run_shell_command",
                "tool_input": {"command": "true", "description": "loopguard-hook doctor"},
                "tool_use_id": "toolu_loopguard_doctor_1", "tool_call_id": "call_loopguard_doctor_1"}

    return build


def check(client: str, *, home: Path, cwd: Path, env: Mapping[str, str], run: bool) -> ClientReport:
    """The report for `client` (`qwen-code`, `gemini-cli`); `run` sends the synthetic event."""
    host = HOSTS[client]
    program, title = PROGRAMS[client]
    report = ClientReport(client, title, found_by(program, env))
    regs = _sources(host, home, cwd, env, report)
    if not regs and report.found is None:
        return ClientReport(client, title, None)
    check_events(report, regs, host.event_names, f"loopguard-hook install --client {client}", host.tool_events)
    if regs:
        variable = "GEMINI_PROJECT_DIR" if host is GEMINI else "QWEN_PROJECT_DIR"
        check_handlers(
            report, regs, payload(host, cwd), dialect=client, who=title, env={**env, variable: str(cwd)},
            cwd=str(cwd), run=run, trailing_newline=False, pre_event=host.tool_events[0],
            tool_events=frozenset(host.tool_events) | ({"PostToolUseFailure"} if host is not GEMINI else set()),
        )
        if failures_exit_0(client):
            check_log(report, regs[0].command, env)
    return report
