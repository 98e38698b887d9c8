"""What `install` prints: a short summary for a file it creates, the diff for a file it changes."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from loopguard_hook.cli import cli
from loopguard_hook.install import CLAUDE_CODE, CODEX, apply, format_report, plan_install

NOW = datetime(2026, 12, 1, 15, 0, 0)


def test_a_new_file_is_summarised_not_printed(tmp_path: Path) -> None:
    done = apply(plan_install(CLAUDE_CODE, "user", home=tmp_path / "home", project_dir=tmp_path / "p", env={}), now=NOW)
    path = tmp_path / "home" / ".claude" / "settings.json"
    report = format_report(done)
    lines = len(path.read_text().splitlines())
    assert report.splitlines()[0] == f"wrote {path} (new file, {lines} lines; see it with: cat {path})"
    assert f"registers `loopguard-hook` in {path} for: PreToolUse, PostToolUse" in report
    assert "+++" not in report and len(report.splitlines()) <= 3


def test_dry_run_of_a_new_file_says_how_to_see_it(tmp_path: Path) -> None:
    changes = plan_install(CODEX, "user", trust=True, home=tmp_path / "home", project_dir=tmp_path / "p", env={})
    report = format_report(changes, dry_run=True)
    hooks_json = tmp_path / "home" / ".codex" / "hooks.json"
    assert f"dry run: {hooks_json} not written (a new file of " in report and "--diff shows them" in report
    assert "--- /dev/null" not in report
    full = format_report(changes, dry_run=True, full_diff=True)
    assert f"--- /dev/null\n+++ {hooks_json}\n" in full and f"dry run: {hooks_json} not written\n" in full


def test_a_changed_file_still_shows_its_diff(tmp_path: Path) -> None:
    path = tmp_path / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "model": "opus"\n}\n')
    changes = plan_install(CLAUDE_CODE, "user", home=tmp_path / "home", project_dir=tmp_path / "p", env={})
    report = format_report(apply(changes, now=NOW))
    assert report.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert f"wrote {path} (backup: {path}.bak-loopguard-20261201150000)" in report


def test_cli_diff_flag(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""), "CLAUDE_CONFIG_DIR": ""}
    short = CliRunner().invoke(cli, ["install", "--client", "claude-code", "--dry-run"], env=env)
    full = CliRunner().invoke(cli, ["install", "--client", "claude-code", "--dry-run", "--diff"], env=env)
    assert short.exit_code == 0 and full.exit_code == 0
    assert "--- /dev/null" not in short.output and "--- /dev/null" in full.output
    assert len(short.output.splitlines()) < 6 < len(full.output.splitlines())


def test_dsh_options_given_for_another_host_are_said_to_be_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--dsh-profile` and `--bridge-path` change nothing for a host that is not DSH: said, as `--trust` is."""
    monkeypatch.chdir(tmp_path)
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""}
    for client in ("claude-code", "codex", "gemini-cli", "cursor"):
        for command in ("install", "uninstall"):
            args = [command, "--client", client, "--dry-run", "--dsh-profile", "foo"]
            result = CliRunner().invoke(cli, args, env=env)
            assert result.exit_code == 0, result.output
            assert "note: --dsh-profile is for DSH only (--client dsh-claude-code or dsh-codex); ignored" in result.output
        result = CliRunner().invoke(cli, ["install", "--client", client, "--dry-run", "--bridge-path", "/x/index.js"], env=env)
        assert "note: --bridge-path is for DSH only (--client dsh-claude-code or dsh-codex); ignored" in result.output
        assert "--dsh-profile" not in result.output


def test_trust_given_for_a_host_without_trust_records_is_said_to_be_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}
    for client in ("qwen-code", "gemini-cli", "copilot", "cursor", "droid"):
        result = CliRunner().invoke(cli, ["install", "--client", client, "--dry-run", "--trust"], env=env)
        assert result.exit_code == 0 and "note: --trust is for Codex only; ignored" in result.output, result.output


def test_a_path_with_a_line_break_stays_on_one_line(tmp_path: Path) -> None:
    """A project folder named with a line break: install's summary split its path over two
    lines, so its own `cat PATH` could not be read off it (doctor already escaped it). Written
    escaped now, on install, its dry run and uninstall alike."""
    project = tmp_path / "a\nb\x1b[2J"
    project.mkdir()
    changes = plan_install(CLAUDE_CODE, "project", home=tmp_path / "home", project_dir=project, env={})
    for report in (format_report(changes, dry_run=True), format_report(apply(changes, now=NOW))):
        assert "a\\nb\\x1b[2J" in report and all(line.isprintable() for line in report.splitlines()), report
        assert str(project) not in report, report


def test_uninstall_says_what_comes_out_of_a_file_before_it_says_the_file_went(tmp_path: Path) -> None:
    """`deleted FILE` came before `removes loopguard-hook from FILE …` and the reason the file
    goes: the report read backwards. Each file's lines now end with what was done to it, on a
    dry run, a file deleted and a file written back alike; a note naming a backup made now stays
    after the line that names it."""
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""), "CLAUDE_CONFIG_DIR": ""}
    path = tmp_path / ".claude" / "settings.json"
    assert CliRunner().invoke(cli, ["install", "--client", "claude-code"], env=env).exit_code == 0
    dry = CliRunner().invoke(cli, ["uninstall", "--client", "claude-code", "--dry-run"], env=env)
    done = CliRunner().invoke(cli, ["uninstall", "--client", "claude-code"], env=env)
    for result, last in ((dry, f"dry run: {path} not deleted"), (done, f"deleted {path} (install had made it")):
        lines = result.output.splitlines()
        assert result.exit_code == 0 and len(lines) == 3, result.output
        assert lines[0].startswith(f"removes `loopguard-hook` from {path} for: PreToolUse, ")
        assert lines[1] == f"{path} held only what install wrote: it goes"
        assert lines[2].startswith(last), result.output
    path.write_text('{"theme": "dark"}\n')
    assert CliRunner().invoke(cli, ["install", "--client", "claude-code"], env=env).exit_code == 0
    path.write_text(path.read_text().replace('"dark"', '"light"'))
    lines = CliRunner().invoke(cli, ["uninstall", "--client", "claude-code"], env=env).output.splitlines()
    assert lines[0].startswith(f"removes `loopguard-hook` from {path} for: ")
    assert lines[1].startswith(f"{path}: ") and lines[2].startswith(f"wrote {path} (backup: "), lines
    assert lines[-1].startswith("note: the file is not as it was before install"), lines
