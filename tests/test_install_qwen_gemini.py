"""`install`, `uninstall` and `doctor` for Qwen Code and Gemini CLI, in their own settings files
(`~/.qwen/settings.json`, `~/.gemini/settings.json`, and a project's), through the real CLI."""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_doctor
from click.testing import CliRunner
from test_doctor import doctor as run_doctor_on

from loopguard_hook import install
from loopguard_hook.cli import cli
from loopguard_hook.doctor import render_text

FILES = {"qwen-code": ".qwen/settings.json", "gemini-cli": ".gemini/settings.json"}
COMMANDS = {"qwen-code": "loopguard-hook --client qwen-code", "gemini-cli": "loopguard-hook --client gemini-cli || true"}
EVENTS = {
    "qwen-code": ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart",
                  "SessionEnd", "Stop", "SubagentStop"],
    "gemini-cli": ["BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd"],
}
HOSTS = pytest.mark.parametrize("client", ["qwen-code", "gemini-cli"])
#: A home, a project and stand-in host programs on PATH (`test_doctor.box`).
box = test_doctor.box


def cli_run(box: dict[str, Any], *args: str) -> Any:
    return CliRunner().invoke(cli, list(args), env=box["env"], catch_exceptions=False)


@HOSTS
def test_dry_run_names_the_hosts_file_and_writes_nothing(box: dict[str, Any], client: str) -> None:
    result = cli_run(box, "install", "--client", client, "--dry-run")
    path = box["home"] / FILES[client]
    assert result.exit_code == 0 and str(path) in result.output, result.output
    assert f"registers `{COMMANDS[client]}`" in result.output
    assert not path.exists() and not path.parent.exists()


@HOSTS
def test_install_merges_into_the_settings_and_uninstall_takes_only_ours_out(
    box: dict[str, Any], client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(box["cwd"])
    path = box["home"] / FILES[client]
    path.parent.mkdir()
    theirs = {"matcher": "write_file", "hooks": [{"type": "command", "command": "my-linter", "timeout": 5}]}
    first_event = EVENTS[client][0]
    old = '{\n    "model": {"name": "m"},\n    "hooks": {"' + first_event + '": [' + json.dumps(theirs) + "]}\n}\n"
    path.write_text(old)
    assert cli_run(box, "install", "--client", client).exit_code == 0
    data = json.loads(path.read_text())
    assert list(data) == ["model", "hooks"] and list(data["hooks"]) == EVENTS[client]
    assert data["hooks"][first_event][0] == theirs  # theirs first, untouched
    ours = data["hooks"][first_event][1]
    assert ours == {"matcher": "*", "hooks": [{"type": "command", "command": COMMANDS[client],
                                               "timeout": 10000 if client == "gemini-cli" else 10}]}
    assert "matcher" not in data["hooks"][EVENTS[client][2 if client == "gemini-cli" else 3]][0]
    assert path.read_text().startswith('{\n    "model": {"name": "m"},')  # untouched text kept as it was
    backups = list(path.parent.glob("settings.json.bak-*"))
    assert [b.read_text() for b in backups] == [old]
    again = cli_run(box, "install", "--client", client)
    assert "already registered; nothing to change" in again.output and len(list(path.parent.glob("*.bak-*"))) == 1
    assert cli_run(box, "uninstall", "--client", client).exit_code == 0
    assert json.loads(path.read_text()) == json.loads(old)


#: A settings file with comments of both kinds, one on the line of the last member.
COMMENTED = """{
  // the theme
  "ui": {"theme": "dark"}, /* inline */
  "model": {"name": "x"} // the model
}
"""


@HOSTS
def test_install_keeps_comments_both_hosts_read_and_uninstall_gives_the_file_back(
    box: dict[str, Any], client: str
) -> None:
    """Both hosts read `//` and `/* */` comments in their settings: install reads such a file,
    keeps every comment in place, says so, and uninstall gives back the very bytes."""
    path = box["home"] / FILES[client]
    path.parent.mkdir()
    path.write_text(COMMENTED)
    result = cli_run(box, "install", "--client", client)
    assert result.exit_code == 0, result.output
    assert "has comments: each is kept in place" in result.output
    text = path.read_text()
    for comment in ("// the theme", "/* inline */", "// the model"):
        assert text.count(comment) == 1, text
    assert '"model": {"name": "x"}, // the model\n' in text  # still on its member's line
    data = install.jsontext.parse_json_object(path, text, jsonc=True)
    assert list(data["hooks"]) == EVENTS[client] and data["ui"] == {"theme": "dark"}
    assert cli_run(box, "uninstall", "--client", client).exit_code == 0
    assert path.read_text() == COMMENTED and list(path.parent.iterdir()) == [path]


@HOSTS
def test_install_refuses_a_file_it_cannot_parse(box: dict[str, Any], client: str) -> None:
    path = box["home"] / FILES[client]
    path.parent.mkdir()
    text = '{\n  // the theme\n  "ui": {"theme": "dark"},\n}\n'  # a trailing comma: neither host reads it
    path.write_text(text)
    for command in ("install", "uninstall"):
        result = CliRunner().invoke(cli, [command, "--client", client], env=box["env"])
        assert result.exit_code == 1 and "not valid JSON" in result.output and "Traceback" not in result.output
    assert path.read_text() == text and list(path.parent.iterdir()) == [path]


@HOSTS
def test_scopes_and_the_hosts_own_home_variable(box: dict[str, Any], client: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(box["cwd"])
    project = cli_run(box, "install", "--client", client, "--scope", "project", "--dry-run")
    assert str(box["cwd"].resolve() / FILES[client]) in project.output
    local = CliRunner().invoke(cli, ["install", "--client", client, "--scope", "local"], env=box["env"])
    assert local.exit_code != 0 and "no 'local' scope" in local.output
    moved = box["home"] / "elsewhere"
    variable, expect = (("QWEN_HOME", moved / "settings.json") if client == "qwen-code"
                        else ("GEMINI_CLI_HOME", moved / ".gemini" / "settings.json"))
    changes = install.plan_install(client, home=box["home"], project_dir=box["cwd"], env={variable: str(moved)})
    assert changes[0].path == expect


def test_gemini_notes_a_registration_that_fails_closed_or_times_out_at_once(box: dict[str, Any]) -> None:
    path = box["home"] / FILES["gemini-cli"]
    path.parent.mkdir()
    hooks = {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "loopguard-hook", "timeout": 10}]}]}
    path.write_text(json.dumps({"hooks": hooks}))
    result = cli_run(box, "install", "--client", "gemini-cli", "--dry-run")
    assert "has no `|| true`" in result.output and "timeout under 1000 on BeforeTool" in result.output
    report = run_doctor_on(box, "gemini-cli", run=False)["gemini-cli"]
    found = {f.check: f.status for f in report.findings}
    assert found["fails closed"] == "warn" and found["timeout"] == "fail" and not report.live, render_text([report])


@HOSTS
def test_doctor_live_after_install(box: dict[str, Any], client: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(box["cwd"])
    assert run_doctor_on(box, client)[client].state == "not installed"
    assert cli_run(box, "install", "--client", client).exit_code == 0
    report = run_doctor_on(box, client)[client]
    assert report.live, render_text([report])
    assert {f.check: f.status for f in report.findings} == {
        "registered": "ok", "on PATH": "ok", "matchers": "ok", "state dir": "ok", "runs": "ok"
    }
    assert "exit 0, no output" in report.findings[-1].message
    text = render_text([report])
    assert ("Qwen Code" if client == "qwen-code" else "Gemini CLI") in text


def test_doctor_reads_qwen_matchers_by_qwens_rules() -> None:
    from loopguard_hook.doctor.matchers import fires

    assert fires("qwen-code", "Bash", "run_shell_command") and fires("qwen-code", "read_file|edit", "edit")
    assert not fires("qwen-code", "Write", "run_shell_command")
    assert fires("gemini-cli", "run_shell_command|read_file", "read_file")
    assert not fires("gemini-cli", "Bash", "run_shell_command")
