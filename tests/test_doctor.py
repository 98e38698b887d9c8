"""`loopguard-hook doctor`: fake client homes in temp directories, the real console script for
the synthetic event, and the real clients when `which claude codex dsh` finds them."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loopguard_hook import install
from loopguard_hook.cli import cli
from loopguard_hook.doctor import all_live, render_json, render_text, run_doctor
from loopguard_hook.doctor.common import check_path
from loopguard_hook.doctor.matchers import fires
from loopguard_hook.doctor.model import ClientReport, Registration

BIN = str(Path(sys.executable).parent)  # the venv's bin/, holding the loopguard-hook script


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A home and a project with no client settings in them, and a PATH with loopguard-hook, the
    basic tools and stand-ins for the three clients' programs (`claude`, `codex`, `dsh`: doctor
    looks for them on PATH; `gone(box, ...)` takes them away). The process environment agrees
    (the default state dir is read from it)."""
    home, cwd, hosts = tmp_path / "home", tmp_path / "project", tmp_path / "hosts"
    for folder in (home, cwd, hosts):
        folder.mkdir()
    for program in ("claude", "codex", "dsh", "qwen", "gemini"):
        (hosts / program).write_text("#!/bin/sh\nexit 0\n")
        (hosts / program).chmod(0o755)
    path = os.pathsep.join([BIN, "/usr/bin", "/bin", str(hosts)])
    env = {"HOME": str(home), "PATH": path, "XDG_CACHE_HOME": str(home / ".cache"),
           # the suite's own helper folder: a helper doctor's synthetic event starts is stopped with the run
           "TMPDIR": os.environ["TMPDIR"]}
    monkeypatch.setenv("HOME", env["HOME"])
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    return {"home": home, "cwd": cwd, "env": env, "hosts": hosts}


def stand_ins(box: dict[str, Any], *programs: str) -> None:
    """Put stand-ins for more hosts' programs on the box's PATH."""
    for program in programs:
        (box["hosts"] / program).write_text("#!/bin/sh\nexit 0\n")
        (box["hosts"] / program).chmod(0o755)


def gone(box: dict[str, Any], *programs: str) -> None:
    """Take the clients' programs off PATH (all three when none is named)."""
    for program in programs or ("claude", "codex", "dsh", "qwen", "gemini"):
        (box["hosts"] / program).unlink()


def doctor(box: dict[str, Any], *clients: str, run: bool = True) -> dict[str, ClientReport]:
    chosen = clients or ("claude-code", "codex", "dsh")
    reports = run_doctor(home=box["home"], cwd=box["cwd"], env=box["env"], clients=chosen, run=run)
    return {r.client: r for r in reports}


def statuses(report: ClientReport) -> dict[str, str]:
    """check -> worst status."""
    order = {"ok": 0, "warn": 1, "fail": 2}
    out: dict[str, str] = {}
    for f in report.findings:
        if order[f.status] >= order.get(out.get(f.check, "ok"), 0):
            out[f.check] = f.status
    return out


def install_cc(box: dict[str, Any], scope: str = "user") -> None:
    install.apply(install.plan_install("claude-code", scope, home=box["home"], project_dir=box["cwd"], env=box["env"]))


def install_codex(box: dict[str, Any], trust: bool) -> None:
    install.apply(install.plan_install("codex", "user", home=box["home"], project_dir=box["cwd"], env=box["env"], trust=trust))


def edit_json(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


# -- nothing installed ---------------------------------------------------------------------------


def test_no_client_on_the_machine(box: dict[str, Any]) -> None:
    gone(box)
    (box["home"] / ".claude").mkdir()  # a settings folder alone is no client: install makes it
    reports = doctor(box)
    assert all(r.found is None and r.state == "not found" for r in reports.values())
    assert all_live(list(reports.values()))
    assert render_text(list(reports.values())) == (
        "Claude Code: not found (no `claude` on PATH, loopguard-hook not registered)\n"
        "Codex: not found (no `codex` on PATH, loopguard-hook not registered)\n"
        "DSH: not found (no `dsh` on PATH, loopguard-hook not registered)\n"
    )


def test_client_found_but_hook_not_registered(box: dict[str, Any]) -> None:
    report = doctor(box, "claude-code")["claude-code"]
    assert report.state == "not installed" and not report.live and statuses(report) == {"registered": "fail"}
    assert report.findings[0].fix == "loopguard-hook install --client claude-code"
    assert "=> loopguard-hook is not installed for Claude Code" in render_text([report])


@pytest.mark.parametrize(
    ("client", "program", "title"),
    [("claude-code", "claude", "Claude Code"), ("codex", "codex", "Codex"), ("dsh-claude-code", "dsh", "DSH")],
)
def test_install_and_uninstall_where_the_client_is_not_here(
    box: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, client: str, program: str, title: str
) -> None:
    """The real CLI, as on a machine with no client: install warns, doctor says the client was not
    found (exit 0, exit 1 when it is named), and after uninstall doctor has nothing to fail on."""
    gone(box)
    monkeypatch.chdir(box["cwd"])
    extra = []
    if program == "dsh":
        extra = ["--bridge-path", str(fake_bridge(tmp_path / "prefix", install.dsh.BRIDGES[client].package, ""))]
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "--client", client, *extra], env=box["env"])
    assert result.exit_code == 0, result.output
    assert f"warning: no `{program}` program on PATH: {title} was not found here" in result.stderr
    result = runner.invoke(cli, ["doctor", "--no-run"], env=box["env"])
    assert result.exit_code == 0, result.output
    assert f": not found here (no `{program}` on PATH)" in result.output
    assert f"was not found here (no `{program}` on PATH): nothing runs the hook" in result.output
    assert "the guard is live" not in result.output and "NOT live" not in result.output
    assert runner.invoke(cli, ["doctor", "--no-run", "--client", client], env=box["env"]).exit_code == 1
    data = json.loads(runner.invoke(cli, ["doctor", "--no-run", "--json", "--client", client], env=box["env"]).output)
    assert [c["state"] for c in data["clients"]] == ["host not found"]
    assert runner.invoke(cli, ["uninstall", "--client", client], env=box["env"]).exit_code == 0
    result = runner.invoke(cli, ["doctor", "--no-run"], env=box["env"])
    assert result.exit_code == 0 and "FAIL" not in result.output, result.output
    assert f"{title}: not found (no `{program}` on PATH" in result.output


def test_doctor_takes_every_client_name_install_takes(
    box: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loopguard_hook.commands.registration import INSTALL_CLIENTS

    monkeypatch.chdir(box["cwd"])
    stand_ins(box, "copilot", "cursor-agent", "droid")
    for name in INSTALL_CLIENTS.choices:
        result = CliRunner().invoke(cli, ["doctor", "--no-run", "--json", "--client", name], env=box["env"])
        [report] = json.loads(result.output)["clients"]
        assert result.exit_code == 1 and report["client"] == name and report["state"] == "not installed", result.output
    bridge = fake_bridge(tmp_path / "prefix", install.dsh.BRIDGES["dsh-codex"].package, 'const inject = ["bash"];\n')
    install.apply(install.plan_dsh_install("dsh-codex", home=box["home"], env=box["env"], bridge_path=bridge))
    result = CliRunner().invoke(cli, ["doctor", "--no-run", "--client", "dsh-claude-code"], env=box["env"])
    assert "DSH Claude Code hook bridge" in result.output and "DSH Codex hook bridge" not in result.output
    result = CliRunner().invoke(cli, ["doctor", "--no-run", "--client", "dsh-codex"], env=box["env"])
    assert "DSH Codex hook bridge" in result.output and "=> the guard is live" in result.output, result.output


# -- Claude Code ---------------------------------------------------------------------------------


def test_claude_code_live_after_install(box: dict[str, Any]) -> None:
    install_cc(box)
    report = doctor(box, "claude-code")["claude-code"]
    assert report.live, render_text([report])
    assert statuses(report) == {"registered": "ok", "on PATH": "ok", "matchers": "ok", "state dir": "ok", "runs": "ok"}
    assert "exit 0, no output" in report.findings[-1].message
    sessions = box["home"] / ".cache" / "loopguard-hook" / "sessions"
    assert not any(p.suffix == ".json" for p in sessions.glob("*")), "the synthetic session is forgotten again"


def test_a_command_only_in_the_active_virtualenv_is_a_warning(box: dict[str, Any]) -> None:
    """Found on this shell's PATH because a virtualenv is active: a host started elsewhere may
    not find it."""
    install_cc(box)
    box["env"]["VIRTUAL_ENV"] = str(Path(BIN).parent)
    report = doctor(box, "claude-code")["claude-code"]
    assert statuses(report)["on PATH"] == "warn", render_text([report])
    assert "pipx install" in next(f.fix or "" for f in report.findings if f.check == "on PATH")


def test_not_on_path(box: dict[str, Any]) -> None:
    install_cc(box)
    box["env"]["PATH"] = "/usr/bin:/bin"
    if shutil.which("loopguard-hook", path=box["env"]["PATH"]):
        pytest.skip("loopguard-hook is installed system-wide here")
    report = doctor(box, "claude-code")["claude-code"]
    assert statuses(report)["on PATH"] == "fail" and "runs" not in statuses(report)
    assert "pipx install" in (report.findings[1].fix or "")


def test_not_on_path_names_the_folder_it_runs_from(box: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as a virtualenv's `bin/loopguard-hook` that the host's PATH lacks (a new user's
    install from the README): the fix also offers that folder, as `install` does."""
    install_cc(box)
    box["env"]["PATH"] = "/usr/bin:/bin"
    if shutil.which("loopguard-hook", path=box["env"]["PATH"]):
        pytest.skip("loopguard-hook is installed system-wide here")
    script = Path(BIN) / "loopguard-hook"
    assert script.is_file()
    monkeypatch.setattr(sys, "argv", [str(script), "doctor"])
    report = doctor(box, "claude-code")["claude-code"]
    fix = next(f.fix or "" for f in report.findings if f.check == "on PATH")
    assert f"or put {BIN} (where this loopguard-hook runs from) on the PATH Claude Code runs hooks with" in fix, fix
    monkeypatch.setattr(sys, "argv", ["/usr/lib/python3/dist-packages/x.py"])
    assert "where this loopguard-hook runs from" not in (doctor(box, "claude-code")["claude-code"].findings[1].fix or "")
    # a hook run through another program (`uvx loopguard-hook`): that folder does not hold it
    monkeypatch.setattr(sys, "argv", [str(script), "doctor"])
    registration = Registration(Path("/x/settings.json"), "PreToolUse", 0, 0, None, "uvx loopguard-hook", None, {})
    report = ClientReport("claude-code", "Claude Code", "/usr/bin/claude")
    check_path(report, [registration], {"PATH": "/nowhere"}, "Claude Code")
    [finding] = [f for f in report.findings if f.check == "on PATH"]
    assert finding.status == "fail" and "runs from" not in (finding.fix or ""), finding


def test_a_path_that_is_no_program_is_said_as_such(box: dict[str, Any]) -> None:
    """An absolute path is not looked up on PATH: doctor says the file is missing or cannot run."""
    install_cc(box)
    settings = box["home"] / ".claude" / "settings.json"
    script = box["home"] / "loopguard-hook"
    script.write_text("#!/bin/sh\nexit 0\n")
    for command, said in (("/opt/nowhere/loopguard-hook", "does not exist"), (str(script), "is not executable")):
        edit_json(settings, lambda d, c=command: d["hooks"]["PreToolUse"][0]["hooks"][0].update(command=c))
        report = doctor(box, "claude-code", run=False)["claude-code"]
        [finding] = [f for f in report.findings if f.check == "on PATH" and f.status == "fail"]
        assert finding.message.startswith(f"`{command}` {said}"), finding.message
        assert "PATH" not in finding.message and "pipx" not in (finding.fix or "")


def test_a_path_through_the_hosts_variable_is_not_failed(box: dict[str, Any]) -> None:
    """`"$CLAUDE_PROJECT_DIR"/.venv/bin/loopguard-hook`, Claude Code's documented idiom: the
    host's shell expands it, doctor cannot; a warn, never "does not exist" or "not on PATH"."""
    install_cc(box)
    settings = box["home"] / ".claude" / "settings.json"
    command = '"$CLAUDE_PROJECT_DIR"/.venv/bin/loopguard-hook'
    edit_json(settings, lambda d: d["hooks"]["PreToolUse"][0]["hooks"][0].update(command=command))
    report = doctor(box, "claude-code", run=False)["claude-code"]
    said = [f for f in report.findings if f.check == "on PATH" and "CLAUDE_PROJECT_DIR" in f.message]
    assert [f.status for f in said] == ["warn"], said
    assert "holds a shell variable, expanded only when Claude Code runs the hook" in said[0].message
    assert "fail" not in [f.status for f in report.findings if f.check == "on PATH"]


def test_disabled_hooks_and_narrow_matchers(box: dict[str, Any]) -> None:
    install_cc(box)
    settings = box["home"] / ".claude" / "settings.json"

    def narrow(data: dict[str, Any]) -> None:
        data["disableAllHooks"] = True
        data["hooks"]["PreToolUse"][0]["matcher"] = "Bash"
        data["hooks"]["PostToolUse"][0]["matcher"] = "bash"

    edit_json(settings, narrow)
    report = doctor(box, "claude-code", run=False)["claude-code"]
    text = render_text([report])
    assert statuses(report)["settings"] == "fail"
    assert "PreToolUse matcher 'Bash' misses Read, Edit, Write" in text
    assert "PostToolUse matcher 'bash' fires on none of Bash, Read, Edit, Write" in text
    assert "=> the guard is NOT live" in text


def test_two_spellings_and_a_missing_event(box: dict[str, Any]) -> None:
    install_cc(box)
    settings = box["home"] / ".claude" / "settings.json"

    def change(data: dict[str, Any]) -> None:
        del data["hooks"]["Stop"]
        data["hooks"]["SessionEnd"][0]["hooks"][0]["command"] = "/opt/bin/loopguard-hook"

    edit_json(settings, change)
    report = doctor(box, "claude-code", run=False)["claude-code"]
    messages = [f.message for f in report.findings if f.status == "warn"]
    assert any("missing Stop" in m for m in messages)
    assert any("several command strings" in m for m in messages)
    # Each event runs one of them: not "twice the processes".
    assert any("on different events: each event runs one" in m for m in messages)
    assert statuses(report)["on PATH"] == "fail"  # /opt/bin/loopguard-hook does not exist

    def both(data: dict[str, Any]) -> None:
        data["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "/opt/bin/loopguard-hook"})

    edit_json(settings, both)
    messages = [f.message for f in doctor(box, "claude-code", run=False)["claude-code"].findings if f.status == "warn"]
    assert any("each on PreToolUse (twice the processes there" in m for m in messages), messages


def test_a_hand_written_command_line_is_not_run(box: dict[str, Any]) -> None:
    """Only a command line `install` writes is run (`test_doctor_commands` has the rest): another
    is said, not run, and not counted as a failure of the guard."""
    install_cc(box)
    settings = box["home"] / ".claude" / "settings.json"
    edit_json(settings, lambda d: d["hooks"]["PreToolUse"][0]["hooks"][0].update(command="loopguard-hook --profile nope"))
    report = doctor(box, "claude-code")["claude-code"]
    [run] = [f for f in report.findings if f.check == "runs"]
    assert run.status == "warn" and run.message.startswith("registered command `loopguard-hook --profile nope` not run")
    assert f"check {settings}: Claude Code runs that command as it is written" in (run.fix or "")


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("loopguard-hook --client gemini-cli", "fail"),  # Gemini's form: Claude Code reads none of it
        ("loopguard-hook --client=cursor", "fail"),  # Cursor runs this file too, but Claude Code gets Cursor's form
        ("/usr/local/bin/loopguard-hook --profile strict --client copilot --event preToolUse", "fail"),
        ("loopguard-hook --client codex", "warn"),  # the shared form, decided by Codex's rules
        ("loopguard-hook --client droid", "warn"),
        ("loopguard-hook --client claude-code", None),
        ("loopguard-hook --client gemini-cli --client claude-code", None),  # the hook takes the last
        ("loopguard-hook --client claude-code --client gemini-cli", "fail"),
        ("loopguard-hook --client auto", None),
        ("loopguard-hook", None),
        ("other-tool --client gemini-cli | loopguard-hook", None),  # not loopguard's option
    ],
)
def test_a_client_option_naming_another_host(box: dict[str, Any], command: str, status: str | None) -> None:
    install_cc(box)
    settings = box["home"] / ".claude" / "settings.json"
    edit_json(settings, lambda d: d["hooks"]["PreToolUse"][0]["hooks"][0].update(command=command))
    report = doctor(box, "claude-code")["claude-code"]
    found = [f for f in report.findings if f.check == "client"]
    if status is None:
        assert not found, found
        return
    [finding] = found
    assert finding.status == status and f"{settings} runs `{command}`" in finding.message
    assert "Claude Code needs `--client claude-code` or none" in finding.message
    assert (finding.fix or "").startswith("write `--client claude-code` there, or leave --client out")
    assert (report.state == "not live") == (status == "fail")


def test_what_install_writes_for_each_host_names_the_right_client(box: dict[str, Any], tmp_path: Path) -> None:
    """Each host's own registration (and a Claude Code install that Cursor and Copilot run too) is
    never flagged."""
    stand_ins(box, "copilot", "cursor-agent", "droid")
    kw = {"home": box["home"], "project_dir": box["cwd"]}
    for scope in ("user", "project"):
        install.apply(install.plan_install("claude-code", scope, **kw, env=box["env"]))
        install.apply(install.plan_install("codex", scope, **kw, env=box["env"]))
        for client in ("qwen-code", "gemini-cli"):
            install.apply(install.plan_install(client, scope, **kw, env=box["env"]))
        for client in ("copilot", "cursor", "droid"):
            install.apply(install.plan_host_install(client, scope, **kw))
    for bridge in install.DSH_CLIENTS:
        install_dsh(box, bridge, tmp_path / bridge)
    clients = ("claude-code", "codex", "dsh", "qwen-code", "gemini-cli", "copilot", "cursor", "droid")
    reports = doctor(box, *clients, run=False)
    assert len(reports) == 9
    assert not [(c, f.message) for c, r in reports.items() for f in r.findings if f.check == "client"]


def test_a_client_that_says_failures_on_stderr_is_a_fail_for_droid(box: dict[str, Any]) -> None:
    """Droid shows a hook's stderr to its model, so its hook exits 0 and logs its problems: a Droid
    file running `--client claude-code` (the shared form) would put a failing event's line before
    the model. Before, only a warn."""
    stand_ins(box, "droid")
    install.apply(install.plan_host_install("droid", "user", home=box["home"], project_dir=box["cwd"]))
    [settings] = [p for p in box["home"].rglob("*.json") if "loopguard-hook" in p.read_text()]
    text = settings.read_text()
    settings.write_text(text.replace("--client droid", "--client claude-code"))
    report = doctor(box, "droid", run=False)["droid"]
    [finding] = [f for f in report.findings if f.check == "client"]
    assert finding.status == "fail" and "exits 1 with a line Factory Droid shows its model" in finding.message


def test_plugin_counts_as_registered(box: dict[str, Any]) -> None:
    settings = box["home"] / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledPlugins": {"loopguard-hook@loopguard-hook": True}}))
    report = doctor(box, "claude-code", run=False)["claude-code"]
    assert statuses(report)["registered"] == "ok" and "(loopguard-hook plugin)" in report.findings[0].message


@pytest.mark.parametrize("scope", ["user", "project"])
def test_plugin_beside_an_install_is_a_warning(box: dict[str, Any], scope: str) -> None:
    """Claude Code runs a plugin's hooks and settings hooks separately: both mean every event twice."""
    install_cc(box, scope)
    settings = box["home"] / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({**json.loads(settings.read_text() if settings.exists() else "{}"),
                                    "enabledPlugins": {"loopguard-hook@loopguard-hook": True}}))
    report = doctor(box, "claude-code", run=False)["claude-code"]
    [twice] = [f for f in report.findings if f.check == "registered" and f.status == "warn"]
    assert "the loopguard-hook plugin" in twice.message and "every event runs the hook twice" in twice.message
    where = "" if scope == "user" else " --scope project"
    assert f"`loopguard-hook uninstall --client claude-code{where}` removes the install" in (twice.fix or "")
    assert "keep either the plugin or the install" in (twice.fix or "")


PLUGIN_KEY = "loopguard-hook@loopguard-hook"


@pytest.mark.parametrize(
    ("user", "project", "local", "enabled_in"),
    [
        (True, False, None, None),  # the project's false turns off the user's true
        (True, None, False, None),  # and so does a local false
        (True, False, True, "local"),  # a local true turns the project's false back on
        (False, True, None, "project"),  # a project's true over the user's false
        (True, None, None, "user"),
    ],
)
def test_the_plugin_is_enabled_as_claude_code_reads_enabled_plugins(
    box: dict[str, Any], user: bool, project: bool | None, local: bool | None, enabled_in: str | None
) -> None:
    """`enabledPlugins` set in several settings files: for each plugin key the most specific file
    decides (local > project > user), so a project that turns the plugin off beside a user
    install is no "runs twice" warning, and the warning names only the file that enables it."""
    install_cc(box)
    files = {"user": box["home"] / ".claude" / "settings.json", "project": box["cwd"] / ".claude" / "settings.json",
             "local": box["cwd"] / ".claude" / "settings.local.json"}
    for scope, value in (("user", user), ("project", project), ("local", local)):
        if value is not None:
            files[scope].parent.mkdir(exist_ok=True)
            data = json.loads(files[scope].read_text()) if files[scope].exists() else {}
            files[scope].write_text(json.dumps({**data, "enabledPlugins": {PLUGIN_KEY: value}}))
    report = doctor(box, "claude-code", run=False)["claude-code"]
    twice = [f for f in report.findings if f.check == "registered" and f.status == "warn"]
    if enabled_in is None:
        assert twice == [] and "(loopguard-hook plugin)" not in render_text([report]), render_text([report])
        return
    assert len(twice) == 1 and "every event runs the hook twice" in twice[0].message, render_text([report])
    named = twice[0].message.split("(enabled in ")[1].split(")")[0]
    assert named == str(files[enabled_in]), twice[0].message


# -- Codex ---------------------------------------------------------------------------------------


def test_codex_untrusted_then_trusted(box: dict[str, Any]) -> None:
    install_codex(box, trust=False)
    report = doctor(box, "codex")["codex"]
    assert statuses(report)["trusted"] == "fail" and not report.live
    assert "loopguard-hook install --client codex --trust" in (report.findings[1].fix or "")
    install_codex(box, trust=True)
    report = doctor(box, "codex")["codex"]
    assert report.live, render_text([report])


def test_codex_changed_hook_is_no_longer_trusted(box: dict[str, Any]) -> None:
    install_codex(box, trust=True)
    edit_json(box["home"] / ".codex" / "hooks.json", lambda d: d["hooks"]["Stop"][0]["hooks"][0].update(timeout=11))
    report = doctor(box, "codex", run=False)["codex"]
    [trust] = [f for f in report.findings if f.check == "trusted"]
    assert trust.status == "fail" and "1 of 7 handlers" in trust.message and "1 changed" in trust.message


def test_codex_hooks_feature_off(box: dict[str, Any]) -> None:
    install_codex(box, trust=True)
    config = box["home"] / ".codex" / "config.toml"
    config.write_text("[features]\nhooks = false\n" + config.read_text())
    report = doctor(box, "codex", run=False)["codex"]
    assert statuses(report)["settings"] == "fail"


def test_codex_untrusted_project_layer(box: dict[str, Any]) -> None:
    install.apply(install.plan_install("codex", "project", home=box["home"], project_dir=box["cwd"], env=box["env"]))
    (box["home"] / ".codex").mkdir(exist_ok=True)
    report = doctor(box, "codex", run=False)["codex"]
    assert "loads it only once this project is trusted" in render_text([report])
    assert statuses(report)["registered"] == "fail"


def test_codex_untrusted_project_layer_is_said_when_codex_is_not_here(box: dict[str, Any]) -> None:
    """With no `codex` on PATH the report is "not found", but the project's registration that
    Codex would load once trusted is still said, not dropped."""
    install.apply(install.plan_install("codex", "project", home=box["home"], project_dir=box["cwd"], env=box["env"]))
    gone(box, "codex")
    report = doctor(box, "codex", run=False)["codex"]
    assert report.state == "not found"
    text = render_text([report])
    assert "Codex: not found" in text and "loads it only once this project is trusted" in text
    # the head line does not say the opposite of the finding under it
    assert "Codex: not found (no `codex` on PATH, loopguard-hook not registered where it would be loaded)\n" in text


# -- DSH -----------------------------------------------------------------------------------------


def fake_bridge(root: Path, package: str, source: str) -> Path:
    folder = root / "node_modules" / package
    (folder / "lib").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": package, "version": "0.0.1-rc.5"}))
    (folder / "lib" / "index.js").write_text(source)
    return folder


def install_dsh(box: dict[str, Any], client: str, tmp_path: Path) -> None:
    package = install.dsh.BRIDGES[client].package
    bridge = fake_bridge(tmp_path / "prefix", package, 'const inject = ["bash"];\n' if client == "dsh-codex" else "")
    install.apply(install.plan_dsh_install(client, home=box["home"], env=box["env"], bridge_path=bridge))


def test_dsh_not_registered(box: dict[str, Any]) -> None:
    (box["home"] / ".dsh").mkdir()
    report = doctor(box, "dsh")["dsh"]
    assert report.found is not None and not report.live and statuses(report) == {"registered": "fail"}


def test_dsh_state_dir_outside_the_sandbox(box: dict[str, Any], tmp_path: Path) -> None:
    install_dsh(box, "dsh-claude-code", tmp_path)
    box["env"]["LOOPGUARD_STATE_DIR"] = "/var/lib/loopguard-doctor-test/state"
    report = doctor(box, "dsh", run=False)["dsh-claude-code"]
    [sandbox] = [f for f in report.findings if f.check == "sandbox"]
    assert sandbox.status == "fail" and "workspace-write sandbox" in sandbox.message
    assert "LOOPGUARD_STATE_DIR=" in (sandbox.fix or "")
    box["env"]["DSH_PERMISSION_MODE"] = "danger-full-access"
    report = doctor(box, "dsh", run=False)["dsh-claude-code"]
    assert statuses(report)["sandbox"] == "ok"


def test_dsh_live_with_a_state_dir_in_tmp(box: dict[str, Any], tmp_path: Path) -> None:
    install_dsh(box, "dsh-claude-code", tmp_path)
    box["env"]["LOOPGUARD_STATE_DIR"] = str(tmp_path / "state")  # pytest's tmp_path is under the temp dir
    report = doctor(box, "dsh")["dsh-claude-code"]
    if shutil.which("bwrap", path=box["env"]["PATH"]):
        assert statuses(report)["sandbox"] == "fail"  # a fresh /tmp for every hook process
    else:
        assert report.live, render_text([report])
    assert statuses(report)["runs"] == "ok" and statuses(report)["matchers"] == "ok"


def test_dsh_bwrap_gives_each_hook_a_fresh_tmp(box: dict[str, Any], tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("bwrap is the Linux runner")
    install_dsh(box, "dsh-claude-code", tmp_path)
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\n")
    (fake / "bwrap").chmod(0o755)
    box["env"]["PATH"] = f"{fake}{os.pathsep}{box['env']['PATH']}"
    box["env"]["LOOPGUARD_STATE_DIR"] = str(tmp_path / "state")
    report = doctor(box, "dsh", run=False)["dsh-claude-code"]
    [sandbox] = [f for f in report.findings if f.check == "sandbox"]
    assert sandbox.status == "fail" and "fresh, empty /tmp" in sandbox.message
    box["env"]["LOOPGUARD_STATE_DIR"] = ".loopguard-hook"  # relative: in the workspace
    assert statuses(doctor(box, "dsh", run=False)["dsh-claude-code"])["sandbox"] == "ok"


def test_dsh_codex_bridge_and_its_bash_service_and_both_bridges(box: dict[str, Any], tmp_path: Path) -> None:
    install_dsh(box, "dsh-codex", tmp_path)
    install_dsh(box, "dsh-claude-code", tmp_path / "second")
    reports = doctor(box, "dsh", run=False)
    assert set(reports) == {"dsh-claude-code", "dsh-codex"}
    codex = reports["dsh-codex"]
    service = box["home"] / ".dsh" / "loopguard-hook" / "dsh-bash-service.mjs"
    assert statuses(codex)["service"] == "ok" and f"{service} provides it" in render_text([codex])
    assert "service" not in statuses(reports["dsh-claude-code"])
    assert any("both bridges run loopguard-hook" in f.message for f in reports["dsh-claude-code"].findings)
    service.unlink()  # the row is still mounted, its file gone: DSH cannot boot
    codex = doctor(box, "dsh", run=False)["dsh-codex"]
    assert statuses(codex)["service"] == "fail" and not codex.live
    assert "fix: loopguard-hook install --client dsh-codex (it writes and mounts a plugin" in render_text([codex])


def test_dsh_a_bash_service_mounted_by_hand_is_recognised(box: dict[str, Any], tmp_path: Path) -> None:
    """A layer written before `install` mounted the service, plus a plugin of the user's own."""
    install_dsh(box, "dsh-codex", tmp_path)
    layer = box["home"] / ".dsh" / "cordis.patch.yml"
    (box["home"] / ".dsh" / "loopguard-hook" / "dsh-bash-service.mjs").unlink()
    text = "\n".join(line for line in layer.read_text().splitlines() if "bash-service" not in line) + "\n"
    layer.write_text(text)
    assert statuses(doctor(box, "dsh", run=False)["dsh-codex"])["service"] == "fail"
    own = tmp_path / "bash_alias.mjs"
    own.write_text("export const inject = ['shell']\nexport function apply(ctx) { ctx.provide('bash', ctx.shell) }\n")
    layer.write_text(text + f"- insert:\n    - id: my-bash\n      name: {json.dumps(str(own))}\n")
    codex = doctor(box, "dsh", run=False)["dsh-codex"]
    assert statuses(codex)["service"] == "ok" and f"{own} provides it" in render_text([codex])


def test_dsh_bridge_file_gone(box: dict[str, Any], tmp_path: Path) -> None:
    install_dsh(box, "dsh-claude-code", tmp_path)
    shutil.rmtree(tmp_path / "prefix")
    report = doctor(box, "dsh", run=False)["dsh-claude-code"]
    assert statuses(report)["bridge"] == "fail" and "which is missing" in render_text([report])


# -- matchers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "matcher", "name", "expected"),
    [
        ("claude-code", None, "Read", True),
        ("claude-code", "*", "Read", True),
        ("claude-code", "Bash|Read", "Read", True),
        ("claude-code", "Edit, Write", "Write", True),
        ("claude-code", "Bash", "Read", False),
        ("claude-code", "Ba", "Bash", False),  # a plain name is exact
        ("claude-code", "Edit.*", "Edit", True),  # a regex is unanchored
        ("codex", "Bash", "Bash", True),
        ("codex", "Edit|Write", "apply_patch", True),  # alias
        ("codex", "bash", "Bash", False),
        ("codex", "^Ba", "Bash", True),
        ("dsh", "Read", "read", False),  # case-sensitive
        ("dsh", "ea", "read", True),  # unanchored
        ("dsh", "", "bash", True),
        ("dsh", "(", "bash", False),  # invalid regex: the bridge registers nothing
    ],
)
def test_matcher_rules(dialect: str, matcher: str | None, name: str, expected: bool) -> None:
    assert fires(dialect, matcher, name) is expected


# -- command line and real clients -----------------------------------------------------------------


def test_cli_exit_code_and_json(box: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    install_codex(box, trust=False)
    monkeypatch.chdir(box["cwd"])
    runner = CliRunner()
    result = runner.invoke(cli, ["doctor", "--client", "codex", "--json", "--no-run"], env=box["env"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert data["live"] is False and data["clients"][0]["client"] == "codex"
    assert data["not_live"] == ["codex"] and data["live_clients"] == []
    assert {"status": "fail", "check": "trusted"}.items() <= data["clients"][0]["findings"][1].items()
    install_codex(box, trust=True)
    result = runner.invoke(cli, ["doctor", "--client", "codex"], env=box["env"])
    assert result.exit_code == 0 and "=> the guard is live" in result.output


def test_json_live_is_true_only_when_a_client_is_live(box: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The top-level `live` agrees with the clients': registered where the host is not found (so
    no client is live, and none failed) reads `live: false`, with exit status 0."""
    install_cc(box)
    gone(box)
    monkeypatch.chdir(box["cwd"])
    result = CliRunner().invoke(cli, ["doctor", "--json", "--no-run"], env=box["env"])
    data = json.loads(result.output)
    assert result.exit_code == 0, result.output
    assert not any(c["live"] for c in data["clients"]) and data["live"] is False
    assert data["live_clients"] == [] and data["not_live"] == []
    assert set(data) == {"live", "live_clients", "not_live", "clients"}


@pytest.mark.parametrize("client", ["claude", "codex", "dsh"])
def test_real_client_if_installed(client: str) -> None:
    """On a machine with the real client: doctor runs to the end and says something definite."""
    if shutil.which(client) is None:
        pytest.skip(f"{client} is not on PATH")
    name = "claude-code" if client == "claude" else client
    reports = run_doctor(home=Path.home(), cwd=Path.cwd(), env=dict(os.environ), clients=(name,), run=False)
    assert reports and all(r.found for r in reports)
    assert render_json(reports)


def test_doctor_help() -> None:
    result = CliRunner().invoke(cli, ["doctor", "--help"])
    assert result.exit_code == 0 and "doctor [OPTIONS]" in result.output and "--no-run" in result.output


def test_a_bad_project_config_is_found_with_config_check_as_the_fix(box: dict[str, Any]) -> None:
    install_cc(box)
    config = box["cwd"] / ".loopguard.toml"
    config.write_text("deny_at = 10\n")
    report = doctor(box, "claude-code")["claude-code"]
    assert not report.live and statuses(report)["config"] == "fail" and statuses(report)["runs"] == "fail"
    fixes = {f.check: f.fix for f in report.findings if f.status == "fail"}
    assert fixes == {"config": f"loopguard-hook config check {config} (it lists every problem)"} | {"runs": fixes["config"]}
    assert "deny_at = 10, but stop_at must be greater than deny_at" in render_text([report])
    config.write_text("deny_at = 10\nstop_at = 12\n")
    assert doctor(box, "claude-code")["claude-code"].live


def test_a_project_file_that_turns_the_mode_down_is_a_warning_with_the_override(box: dict[str, Any]) -> None:
    """A cloned repository's `.loopguard.toml` with `mode = "observe"` leaves the guard registered
    and running, but it only logs there: doctor says so, names the file and what wins over it."""
    install_cc(box)
    config = box["cwd"] / ".loopguard.toml"
    config.write_text('mode = "observe"\n')
    report = doctor(box, "claude-code")["claude-code"]
    assert report.live and statuses(report)["config"] == "warn", render_text([report])
    finding = next(f for f in report.findings if f.check == "config")
    assert f"the project's file {config} turns enforcement down" in finding.message, finding
    assert finding.fix is not None and "LOOPGUARD_MODE=enforce" in finding.fix
    box["env"]["LOOPGUARD_MODE"] = "enforce"  # the override it names: then nothing to say
    assert "config" not in statuses(doctor(box, "claude-code")["claude-code"])


@pytest.mark.parametrize(
    "text, said",
    [
        ('profile = "reminder"\n', 'turns enforcement down: profile = "reminder"'),
        ("deny_at = 0\nstop_at = 0\n", "turns enforcement down: deny_at = 0 and stop_at = 0"),
        ('exclude = ["*"]\n', 'exclude = ["*"] (project file '),
        ("deny_at = 8\nstop_at = 12\n", None),
    ],
)
def test_a_project_file_that_turns_the_guard_down_or_off_is_a_warning(box: dict[str, Any], text: str, said: str | None) -> None:
    """Not only `mode`: a project's `profile = "reminder"` or `deny_at = 0` with `stop_at = 0`
    never lets a loop be denied, and `exclude = ["*"]` leaves no tool tracked (which `status`
    said and doctor did not). Each is `warn config` naming the file; thresholds only tuned are not."""
    install_cc(box)
    config = box["cwd"] / ".loopguard.toml"
    config.write_text(text)
    report = doctor(box, "claude-code")["claude-code"]
    assert report.live, render_text([report])
    findings = [f for f in report.findings if f.check == "config"]
    if said is None:
        assert findings == [], render_text([report])
        return
    assert [f.status for f in findings] == ["warn"] and said in findings[0].message, render_text([report])
    assert str(config) in findings[0].message and findings[0].fix and "LOOPGUARD_" in findings[0].fix


def test_the_override_the_config_warning_names_is_one_doctor_accepts(box: dict[str, Any]) -> None:
    """The fix of `warn config` named `--mode enforce` on the registered command too, but doctor
    loads the config without the command's flags and warns that such a command is not the form
    `install` writes: following that advice left two warnings. The fix names only what doctor
    sees: `LOOPGUARD_MODE=enforce` in the agent's environment, and with it doctor is silent."""
    install_cc(box)
    (box["cwd"] / ".loopguard.toml").write_text('mode = "advise"\n')
    finding = next(f for f in doctor(box, "claude-code")["claude-code"].findings if f.check == "config")
    assert finding.fix is not None and "LOOPGUARD_MODE=enforce" in finding.fix and "--mode" not in finding.fix, finding
    settings = box["home"] / ".claude" / "settings.json"
    edit_json(settings, lambda data: [h.update(command=h["command"] + " --mode enforce")
                                      for group in data["hooks"]["PreToolUse"] for h in group["hooks"]])
    report = doctor(box, "claude-code")["claude-code"]
    assert statuses(report).get("config") == "warn" and statuses(report).get("runs") == "warn", render_text([report])


@pytest.mark.parametrize("writer", ["hook", "worker"])
def test_doctor_interrupted_during_its_probe_leaves_no_session(box: dict[str, Any], tmp_path: Path, writer: str) -> None:
    """Ctrl-C while the synthetic event runs left its `loopguard-doctor-…` ledger and lock in the
    real state dir, which `status` then listed as a session: the interrupt skipped the clean-up.
    A real doctor process gets a real SIGINT at a known point, from a marker file the registered
    `loopguard-hook` (first on PATH) writes. `hook`: it runs the real hook, which writes the
    probe's session, then marks and hangs. `worker`: it marks, then has the real hook run in a
    session of its own 0.3 s later, as a resident helper's worker goes on after its client is
    killed; doctor lets the event end before it removes the session."""
    import signal
    import subprocess
    import time

    if writer == "worker" and shutil.which("setsid") is None:
        pytest.skip("no setsid")
    install_cc(box)
    wrapper_dir, marker, payload = tmp_path / "wrapper", tmp_path / "marker", tmp_path / "payload"
    wrapper_dir.mkdir()
    wrapper = wrapper_dir / "loopguard-hook"
    real = f'"{BIN}/loopguard-hook" "$@"'
    if writer == "hook":
        wrapper.write_text(f'#!/bin/sh\n{real}\n: > "{marker}"\nexec sleep 60\n')
    else:
        worker = f'sleep 0.3; {real} < "{payload}" > /dev/null'
        wrapper.write_text(f'#!/bin/sh\ncat > "{payload}"\n: > "{marker}"\nsetsid sh -c \'{worker}\' sh "$@" &\nwait\n')
    wrapper.chmod(0o755)
    env = {**box["env"], "PATH": os.pathsep.join([str(wrapper_dir), box["env"]["PATH"]]), "LOOPGUARD_RESIDENT": "off"}
    sessions = box["home"] / ".cache" / "loopguard-hook" / "sessions"
    proc = subprocess.Popen([f"{BIN}/loopguard-hook", "doctor", "--client", "claude-code"], cwd=box["cwd"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert marker.exists(), proc.communicate(timeout=30)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and b"interrupted" in err, (proc.returncode, err)
    time.sleep(1.0 if writer == "worker" else 0)  # a worker left running would have written by now
    assert sorted(p.name for p in sessions.iterdir() if p.name.startswith("loopguard-doctor-")) == []


def test_a_broken_settings_file_is_named_when_claude_code_is_not_here(box: dict[str, Any]) -> None:
    """No `claude` on PATH and no registration, but a `~/.claude/settings.json` that is not JSON:
    the report still names the file (before, the not-found report dropped what the files said,
    and `install` then refused the file with no earlier word from doctor)."""
    gone(box, "claude")
    settings = box["home"] / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{bad json")
    report = doctor(box, "claude-code")["claude-code"]
    assert report.state == "not found" and statuses(report) == {"settings": "fail"}, render_text([report])
    assert str(settings) in render_text([report])
    box["cwd"] = box["home"]  # run from the home folder: one file, one finding
    settings.write_text("{bad json")
    assert len(doctor(box, "claude-code")["claude-code"].findings) == 1
    settings.write_text("{}")
    assert doctor(box, "claude-code")["claude-code"].findings == []


def test_a_path_with_control_characters_is_printed_escaped(box: dict[str, Any], tmp_path: Path) -> None:
    """A folder named with an escape sequence and a line break (a cloned repository's name): the
    report quotes the project's settings path, and printed it raw, clearing the terminal and
    splitting the finding over two lines. It is written escaped, as `status` writes it."""
    project = tmp_path / "repo\x1b[2J\nfake ok line"
    project.mkdir()
    box["cwd"] = project
    install_cc(box, scope="project")
    text = render_text(list(doctor(box, "claude-code").values()))
    assert str(project) not in text and "\x1b" not in text, text
    assert "repo\\x1b[2J\\nfake ok line" in text, text
    assert all(line.isprintable() for line in text.splitlines()), text


def test_a_bad_config_is_said_where_no_host_checked_it(
    box: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No host here: no client's checks load the config, so `doctor` said nothing of a bad one
    (a project file's typo) and exited 0, though every hook event from here would fail."""
    from loopguard_hook.cli import run_cli

    gone(box)
    monkeypatch.setenv("PATH", box["env"]["PATH"])
    monkeypatch.chdir(box["cwd"])
    assert run_cli(["doctor", "--no-run"]) == 0
    assert "config here" not in capsys.readouterr().out
    (box["cwd"] / ".loopguard.toml").write_text("deny_att = 6\n")
    assert run_cli(["doctor", "--no-run"]) == 1
    out = capsys.readouterr().out
    assert "config here: BAD, every hook event from here would fail" in out and "deny_att" in out
    assert "  fix: loopguard-hook config check" in out
