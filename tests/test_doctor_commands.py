"""What `doctor` runs: only a registered command line of the form `install` writes, without a
shell; a probe that hangs is killed with everything it started. A project's settings are the
project's to write, and doctor is run in projects nobody has vetted yet."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_doctor import BIN, box, doctor, edit_json, install_cc, stand_ins, statuses  # noqa: F401  (box is a fixture)

from loopguard_hook import install
from loopguard_hook.cli import cli
from loopguard_hook.doctor.probe import hook_argv
from loopguard_hook.install import settings_hosts


def fake_guard(folder: Path, body: str) -> Path:
    """A `loopguard-hook` of the test's own in `folder` (put first on PATH to be the one found)."""
    folder.mkdir(exist_ok=True)
    script = folder / "loopguard-hook"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return script


def hostile(command: str, project: Path) -> None:
    """A project whose Claude Code, Cursor and Gemini CLI settings register `command` on every
    event (each of those hosts loads a project's settings)."""
    claude = install.hooks_table("claude-code")
    for groups in claude.values():
        groups[0]["hooks"][0]["command"] = command
    gemini = settings_hosts.GEMINI.table()
    for groups in gemini.values():
        groups[0]["hooks"][0]["command"] = command
    cursor = {"version": 1, "hooks": {"preToolUse": [{"command": command}], "postToolUse": [{"command": command}]}}
    for folder, name, data in ((".claude", "settings.json", {"hooks": claude}), (".cursor", "hooks.json", cursor),
                               (".gemini", "settings.json", {"hooks": gemini})):
        (project / folder).mkdir(exist_ok=True)
        (project / folder / name).write_text(json.dumps(data))


HOSTILE = [
    "loopguard-hook && touch {marker}",
    "loopguard-hook --client cursor; touch {marker}",
    "touch {marker}; loopguard-hook",
    "loopguard-hook $(touch {marker})",
    "loopguard-hook `touch {marker}`",
    "loopguard-hook | touch {marker}",
    "loopguard-hook\ntouch {marker}",
    "loopguard-hook --client gemini-cli || touch {marker}",
    "loopguard-hook --state-dir {marker}",
    "loopguard-hook --client cursor --state-dir={marker}",
    "LOOPGUARD_STATE_DIR={marker} loopguard-hook",
    "{project}/bin/loopguard-hook",
    "'{project}/bin/loopguard-hook' --client cursor",
]


@pytest.mark.parametrize("template", HOSTILE)
def test_a_project_cannot_make_doctor_run_its_command(template: str, box: dict[str, Any], tmp_path: Path) -> None:  # noqa: F811
    marker = tmp_path / "pwned"
    fake_guard(box["cwd"] / "bin", f"touch {marker}")  # the project's own "loopguard-hook"
    hostile(template.format(marker=marker, project=box["cwd"]), box["cwd"])
    stand_ins(box, "cursor-agent")
    reports = doctor(box, "claude-code", "gemini-cli", "cursor")
    time.sleep(0.2)  # anything started in the background has had its chance
    assert not marker.exists()
    for report in reports.values():
        assert report.registered, report.client
        [run] = [f for f in report.findings if f.check == "runs"]
        assert run.status == "warn" and run.message.startswith("registered command `"), run.message
        assert "not run: it is not the form `install` writes (" in run.message
        assert str(box["cwd"]) in (run.fix or "")


def test_the_reported_repro_through_the_cli(box: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """`loopguard-hook doctor` in a hostile checkout: nothing of it runs, and text and JSON say so."""
    marker = tmp_path / "pwned"
    hostile(f"loopguard-hook && touch {marker}", box["cwd"])
    (box["cwd"] / ".cursor" / "hooks.json").write_text(json.dumps(
        {"version": 1, "hooks": {"preToolUse": [{"command": f"loopguard-hook --client cursor; touch {marker}"}]}}))
    stand_ins(box, "cursor-agent")
    monkeypatch.chdir(box["cwd"])
    runner = CliRunner()
    text = runner.invoke(cli, ["doctor"], env=box["env"]).output
    data = json.loads(runner.invoke(cli, ["doctor", "--json"], env=box["env"]).output)
    assert not marker.exists()
    assert "ok    runs" not in text and "  warn  runs: registered command `loopguard-hook && touch" in text
    runs = [f for c in data["clients"] for f in c["findings"] if f["check"] == "runs"]
    assert runs and all(f["status"] == "warn" and "not run" in f["message"] and f["fix"] for f in runs)


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("loopguard-hook", []),
        ("loopguard-hook --client cursor", ["--client", "cursor"]),
        ("loopguard-hook --client copilot --event preToolUse", ["--client", "copilot", "--event", "preToolUse"]),
        ("loopguard-hook --client gemini-cli || true", ["--client", "gemini-cli"]),
        (f"{BIN}/loopguard-hook", []),
        (f"'{BIN}/loopguard-hook' --client codex", ["--client", "codex"]),
    ],
)
def test_the_command_lines_install_writes_are_run_without_a_shell(command: str, argv: list[str]) -> None:
    found, why = hook_argv(command, {"PATH": f"relative{os.pathsep}{BIN}"})
    assert found == [f"{BIN}/loopguard-hook", *argv] and why == ""


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("loopguard-hook --profile strict", "the options after the program are not"),
        ("loopguard-hook --config /etc/passwd", "the options after the program are not"),
        ("loopguard-hook '--client cursor'", "the options after the program are not"),
        ("python -m loopguard_hook", "it runs `python`"),
        ("/opt/bin/loopguard-hook", "it runs `/opt/bin/loopguard-hook`, not the `loopguard-hook` found on PATH"),
        ("loopguard-hook 'a", "its quotes are not closed"),
        ("loopguard-hook > /dev/null", "it holds shell syntax ('>')"),
        ("", "it is empty"),
        # characters `str.strip` takes for spaces and a shell keeps in the word before them
        ("loopguard-hook --client claude-code\u2028", "the options after the program are not"),
        ("loopguard-hook --client claude-code\x1c", "the options after the program are not"),
    ],
)
def test_any_other_command_line_is_not_run(command: str, why: str) -> None:
    found, reason = hook_argv(command, {"PATH": BIN})
    assert found is None and reason.startswith(why), reason


def test_a_guard_found_only_through_a_relative_path_entry_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_guard(tmp_path / "bin", "exit 0")
    monkeypatch.chdir(tmp_path)
    found, why = hook_argv("loopguard-hook", {"PATH": "bin"})
    assert found is None and "not in an absolute folder of PATH" in why


def test_install_then_doctor_still_runs_the_guard(box: dict[str, Any]) -> None:  # noqa: F811
    install_cc(box)
    install.apply(settings_hosts.plan_install("gemini-cli", "user", home=box["home"], project_dir=box["cwd"], env=box["env"]))
    reports = doctor(box, "claude-code", "gemini-cli")
    for report in reports.values():
        [run] = [f for f in report.findings if f.check == "runs"]
        assert report.live and run.status == "ok" and "(run without a shell): exit 0" in run.message, run.message


def test_a_synthetic_event_that_fails(box: dict[str, Any], tmp_path: Path) -> None:  # noqa: F811
    fake_guard(tmp_path / "fake", "echo 'bad payload: doctor test' >&2; exit 1")
    box["env"]["PATH"] = f"{tmp_path / 'fake'}{os.pathsep}{box['env']['PATH']}"
    install_cc(box)
    report = doctor(box, "claude-code")["claude-code"]
    [run] = [f for f in report.findings if f.check == "runs"]
    assert run.status == "fail" and not report.live
    assert run.message.startswith("a synthetic PreToolUse through `loopguard-hook` (run without a shell): exit 1: bad payload")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_probe_that_hangs_is_killed_with_its_children(box: dict[str, Any], tmp_path: Path) -> None:  # noqa: F811
    pidfile = tmp_path / "child.pid"
    fake_guard(tmp_path / "fake", f"sleep 100 &\necho $! > {pidfile}\nsleep 100")
    box["env"]["PATH"] = f"{tmp_path / 'fake'}{os.pathsep}{box['env']['PATH']}"
    install_cc(box)
    edit_json(box["home"] / ".claude" / "settings.json", lambda d: d["hooks"]["PreToolUse"][0]["hooks"][0].update(timeout=1))
    started = time.monotonic()
    report = doctor(box, "claude-code")["claude-code"]
    assert time.monotonic() - started < 10
    [run] = [f for f in report.findings if f.check == "runs"]
    assert run.status == "fail" and "no answer in 1 s" in run.message
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(pid)
    if alive:
        os.kill(pid, 9)
    assert not alive, "the hanging probe's child is still running"
    assert statuses(report)["runs"] == "fail"
