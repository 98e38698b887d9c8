"""install / uninstall keep the user's text and refuse what they cannot edit safely.

- one-line JSON stays one line, and install then uninstall gives back the very bytes;
- uninstall removes only the entries install wrote (its exact form), never hand-written ones;
- a key given twice in one object, or absurd nesting: one clear line, nothing changed;
- a read-only file: refused unless `--force` (its mode is kept);
- a dangling symlink: refused, no folder made for its target;
- uninstall deletes the `{}` file install created, keeps one backup per file, and prints a
  short summary (`--diff` for the whole diff).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from test_hardening_helpers import HOOK

from loopguard_hook.install import CLAUDE_CODE, InstallError, apply, plan_install, plan_uninstall


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env.update(HOME=str(home), PATH=f"{Path(HOOK).parent}:{os.environ.get('PATH', '')}")
    return subprocess.run([HOOK, *args], env=env, capture_output=True, text=True, timeout=120, cwd=home)


def _settings(home: Path, text: str | None = None) -> Path:
    path = home / ".claude" / "settings.json"
    if text is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


@pytest.mark.parametrize("text", [
    '{"model": "opus", "env": {"A": "1"}}',
    '{"model":"opus","hooks":{"Notification":[{"hooks":[{"type":"command","command":"say hi"}]}]}}\n',
    '\n\n  {"permissions": {"allow": []}}  \n',
])
def test_one_line_json_stays_one_line_and_comes_back_byte_for_byte(tmp_path: Path, text: str) -> None:
    path = _settings(tmp_path, text)
    [installed] = apply(plan_install(CLAUDE_CODE, "user", home=tmp_path, project_dir=tmp_path, env={}))
    after = path.read_text()
    assert installed.written and after.strip().count("\n") == 0, after
    assert after.startswith(text[: len(text) - len(text.lstrip())])  # what came before the object, kept
    apply(plan_uninstall(CLAUDE_CODE, "user", home=tmp_path, project_dir=tmp_path, env={}))
    assert path.read_text() == text


HAND = [
    {"type": "command", "command": "loopguard-hook --profile breaker", "timeout": 10},
    {"type": "command", "command": "loopguard-hook", "timeout": 30},
    {"type": "command", "command": "loopguard-hook", "timeout": 10, "statusMessage": "guarding"},
    {"type": "command", "command": "loopguard-hook"},
]


def test_uninstall_leaves_hand_written_entries_for_the_guard(tmp_path: Path) -> None:
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": HAND}]}}
    path = _settings(tmp_path, json.dumps(settings, indent=2) + "\n")
    apply(plan_install(CLAUDE_CODE, "user", home=tmp_path, project_dir=tmp_path, env={}))
    [change] = apply(plan_uninstall(CLAUDE_CODE, "user", home=tmp_path, project_dir=tmp_path, env={}))
    assert json.loads(path.read_text()) == settings
    assert path.read_text() == json.dumps(settings, indent=2) + "\n"
    assert any("written by hand" in m for m in change.messages), change.messages


@pytest.mark.parametrize("text", [
    '{"hooks": {"Stop": []}, "model": "x", "hooks": {"PreToolUse": []}}',
    '{"hooks": {"Stop": [{"hooks": [], "hooks": []}]}}',
    '{"env": {"A": "1", "A": "2"}}',
])
def test_a_key_given_twice_is_refused_with_one_line(tmp_path: Path, text: str) -> None:
    path = _settings(tmp_path, text)
    with pytest.raises(InstallError, match="appears twice"):
        plan_install(CLAUDE_CODE, "user", home=tmp_path, project_dir=tmp_path, env={})
    for command in ("install", "uninstall"):
        proc = _cli(tmp_path, command, "--client", "claude-code")
        assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and "appears twice" in proc.stderr, proc
    assert path.read_text() == text


@pytest.mark.parametrize("depth", [65, 50_000])
def test_absurd_nesting_is_one_clear_line_not_a_recursion_error(tmp_path: Path, depth: int) -> None:
    text = '{"a": ' + "[" * depth + "]" * depth + "}"
    path = _settings(tmp_path, text)
    for command in ("install", "uninstall"):
        proc = _cli(tmp_path, command, "--client", "claude-code")
        assert proc.returncode == 1 and proc.stderr.splitlines() == [
            f"loopguard-hook: {path}: nested more than 64 levels deep, not a settings file; nothing was changed"], proc
    assert path.read_text() == text


def test_a_read_only_file_is_refused_unless_forced_and_keeps_its_mode(tmp_path: Path) -> None:
    path = _settings(tmp_path, '{"model": "opus"}\n')
    path.chmod(0o444)
    proc = _cli(tmp_path, "install", "--client", "claude-code")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and "read-only (mode 0444)" in proc.stderr
    assert path.read_text() == '{"model": "opus"}\n'
    forced = _cli(tmp_path, "install", "--client", "claude-code", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "loopguard-hook" in path.read_text() and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_dangling_symlink_gets_no_folders_made_for_its_target(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir(parents=True)
    target = tmp_path / "dotfiles" / "claude" / "settings.json"
    path.symlink_to(target)
    proc = _cli(tmp_path, "install", "--client", "claude-code")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and "dangling" in proc.stderr, proc
    assert not (tmp_path / "dotfiles").exists() and path.is_symlink()
    target.parent.mkdir(parents=True)  # the folder is there: the link's file is written
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    assert path.is_symlink() and "loopguard-hook" in target.read_text()


def test_uninstall_deletes_the_file_install_created_and_keeps_one_the_user_had(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0  # again: nothing to do
    out = _cli(tmp_path, "uninstall", "--client", "claude-code")
    assert out.returncode == 0, out.stderr
    assert not path.exists() and "deleted" in out.stdout
    assert [p.name for p in path.parent.iterdir()] == [f"{path.name}.bak-{p.name.rsplit('.bak-', 1)[1]}"
                                                        for p in path.parent.iterdir()]  # only its backup
    # the user's own `{}`: kept as `{}`
    for old in path.parent.iterdir():
        old.unlink()
    _settings(tmp_path, "{}\n")
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    assert _cli(tmp_path, "uninstall", "--client", "claude-code").returncode == 0
    assert path.read_text() == "{}\n"


def test_one_backup_per_file_and_a_short_uninstall_report(tmp_path: Path) -> None:
    path = _settings(tmp_path, json.dumps({"model": "opus", "env": {"A": "1"}}, indent=2) + "\n")
    for _ in range(3):
        assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
        out = _cli(tmp_path, "uninstall", "--client", "claude-code")
        assert out.returncode == 0
    assert len(list(path.parent.glob("settings.json.bak-*"))) == 1
    assert len(out.stdout.splitlines()) <= 5 and "--diff shows them" in out.stdout and "+++" not in out.stdout, out.stdout
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    full = _cli(tmp_path, "uninstall", "--client", "claude-code", "--diff")
    assert f"--- {path}\n+++ {path}\n" in full.stdout
