"""`doctor` for Copilot CLI, Cursor and Droid: live after `install --client`, the Claude Code
install each host runs too, and the latest problem in errors.log (where failures go on them)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_doctor import box, doctor, stand_ins, statuses  # noqa: F401  (box is a fixture)

from loopguard_hook import install


@pytest.mark.parametrize("client", ["copilot", "cursor", "droid"])
def test_live_after_install(client: str, box: dict[str, Any]) -> None:  # noqa: F811
    stand_ins(box, "copilot", "cursor-agent", "droid")
    install.apply(install.plan_host_install(client, "user", home=box["home"], project_dir=box["cwd"]))
    report = doctor(box, client)[client]
    assert report.state == "live", [(f.status, f.message) for f in report.findings]
    checks = statuses(report)
    assert checks["registered"] == "ok" and checks["runs"] == "ok" and checks["matchers"] == "ok"
    if client == "copilot":  # one command per event is meant: no warning about several spellings
        assert not any("several command strings" in f.message for f in report.findings)


def test_copilot_is_told_to_deny_every_call_when_its_hook_cannot_run(box: dict[str, Any]) -> None:  # noqa: F811
    """Copilot denies a call whose preToolUse hook exits non-zero, 127 of a missing program
    included: install ends each command `|| true`; a file written without it is a warning, and
    with the program off PATH doctor says what Copilot then does (a new user's report)."""
    import json
    import shutil

    stand_ins(box, "copilot")
    install.apply(install.plan_host_install("copilot", "user", home=box["home"], project_dir=box["cwd"]))
    path = box["home"] / ".copilot" / "hooks" / "loopguard-hook.json"
    assert all(h[0]["bash"].endswith(" || true") for h in json.loads(path.read_text())["hooks"].values())
    assert "fails closed" not in statuses(doctor(box, "copilot", run=False)["copilot"])
    path.write_text(path.read_text().replace(" || true", ""))
    report = doctor(box, "copilot", run=False)["copilot"]
    assert statuses(report)["fails closed"] == "warn" and "denies every tool call" in next(
        f.message for f in report.findings if f.check == "fails closed")
    box["env"]["PATH"] = os.pathsep.join(["/usr/bin", "/bin", str(box["hosts"])])
    if shutil.which("loopguard-hook", path=box["env"]["PATH"]):
        pytest.skip("loopguard-hook is installed system-wide here")
    [line] = [f for f in doctor(box, "copilot", run=False)["copilot"].findings if f.check == "on PATH"]
    assert line.status == "fail" and "Copilot CLI denies every tool call" in line.message


def test_a_failure_on_these_hosts_is_shown_from_errors_log(box: dict[str, Any]) -> None:  # noqa: F811
    stand_ins(box, "cursor-agent")
    install.apply(install.plan_host_install("cursor", "user", home=box["home"], project_dir=box["cwd"]))
    state = Path(box["env"]["XDG_CACHE_HOME"]) / "loopguard-hook"
    state.mkdir(parents=True)
    (state / "errors.log").write_text("--- 2026-12-02T07:00:00+0000 pid 1\nloopguard-hook: bad payload: empty payload\n")
    report = doctor(box, "cursor", run=False)["cursor"]
    [line] = [f for f in report.findings if f.check == "errors.log"]
    assert line.status == "warn" and "bad payload: empty payload" in line.message and "07:00:00" in line.message


def test_doctor_says_which_hosts_run_the_claude_code_install(box: dict[str, Any]) -> None:  # noqa: F811
    stand_ins(box, "copilot", "cursor-agent")
    install.apply(install.plan_install("claude-code", "user", home=box["home"], project_dir=box["cwd"], env=box["env"]))
    reports = doctor(box, "claude-code", "cursor", "copilot", run=False)
    others = [f.message for f in reports["claude-code"].findings if f.check == "other hosts"]
    assert len(others) == 1 and others[0].startswith("Cursor runs") and "install --client cursor" in others[0]
    assert reports["cursor"].registered and reports["copilot"].state == "not installed"  # Copilot skips ~/.claude
    install.apply(install.plan_host_install("cursor", "user", home=box["home"], project_dir=box["cwd"]))
    reports = doctor(box, "claude-code", "cursor", run=False)
    assert any("stays silent" in f.message for f in reports["claude-code"].findings if f.check == "other hosts")
    assert any("stays silent" in f.message for f in reports["cursor"].findings)


def test_a_host_registered_through_the_claude_code_install_alone_has_no_failed_check(box: dict[str, Any]) -> None:  # noqa: F811
    """Cursor runs `~/.claude/settings.json`: with only that install, the "registered" check says
    so (ok), and the verdict agrees with the checks in text and JSON alike."""
    from loopguard_hook.doctor import render_json, render_text

    install.apply(install.plan_install("claude-code", "user", home=box["home"], project_dir=box["cwd"], env=box["env"]))
    report = doctor(box, "cursor", run=False)["cursor"]  # no cursor-agent on PATH
    checks = statuses(report)
    assert checks["registered"] == "ok" and "fail" not in checks.values(), report.findings
    assert report.registered and report.state == "host not found"
    text = render_text([report])
    assert "FAIL" not in text and "through the Claude Code install" in text and "=> loopguard-hook is registered" in text
    import json

    assert json.loads(render_json([report]))["clients"][0]["registered"] is True
    stand_ins(box, "cursor-agent")
    assert doctor(box, "cursor", run=False)["cursor"].state == "live"


def test_each_host_is_shown_its_own_latest_failure_with_its_age(box: dict[str, Any]) -> None:  # noqa: F811
    """errors.log names the host of each entry (`hook.log_problem`); doctor shows a host its own
    latest entry (or one that names no host), with how long ago it was. Gemini CLI ends its
    failures with exit 0 too, so it is shown its entries as well."""
    import time

    from loopguard_hook.install import settings_hosts

    stand_ins(box, "cursor-agent", "gemini")
    install.apply(install.plan_host_install("cursor", "user", home=box["home"], project_dir=box["cwd"]))
    install.apply(settings_hosts.plan_install("gemini-cli", "user", home=box["home"], project_dir=box["cwd"], env=box["env"]))
    state = Path(box["env"]["XDG_CACHE_HOME"]) / "loopguard-hook"
    state.mkdir(parents=True)
    hour_ago = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time() - 3700))
    (state / "errors.log").write_text(
        f"--- {hour_ago} pid 1 host cursor\nloopguard-hook: bad payload: empty payload\n"
        f"--- {hour_ago} pid 2 host gemini-cli\nloopguard-hook: profile balanced: bad config\n"
    )
    reports = doctor(box, "cursor", "gemini-cli", run=False)
    [cursor] = [f.message for f in reports["cursor"].findings if f.check == "errors.log"]
    [gemini] = [f.message for f in reports["gemini-cli"].findings if f.check == "errors.log"]
    assert "empty payload" in cursor and "(1 hour ago)" in cursor
    assert "bad config" in gemini and "empty payload" not in gemini


def test_a_quiet_hosts_failure_names_its_host_in_errors_log(tmp_path: Path) -> None:
    """A bad payload on Cursor: exit 0, nothing on stderr, and the entry names `host cursor`."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "loopguard_hook", "--client", "cursor", "--state-dir", str(tmp_path)],
        input=b"{not json", capture_output=True, timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    head = (tmp_path / "errors.log").read_text().splitlines()[0]
    assert head.startswith("--- ") and head.endswith(" host cursor"), head


def test_a_claude_code_line_with_a_client_is_said_for_the_hosts_that_run_it_too(box: dict[str, Any]) -> None:  # noqa: F811
    """`~/.claude/settings.json` running `loopguard-hook --client claude-code`: Cursor runs it too
    and gets Claude Code's form. Before, doctor said Cursor is "served there in its own form"."""
    import json

    stand_ins(box, "cursor-agent")
    install.apply(install.plan_install("claude-code", "user", home=box["home"], project_dir=box["cwd"], env=box["env"]))
    settings = box["home"] / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('"loopguard-hook"', '"loopguard-hook --client claude-code"'))
    assert "--client claude-code" in json.loads(settings.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    report = doctor(box, "claude-code", run=False)["claude-code"]
    [other] = [f for f in report.findings if f.check == "other hosts"]
    assert other.status == "warn" and "answers it in another host's form" in other.message
    assert "served there in its own form" not in other.message and "leave --client out" in (other.fix or "")
