"""install / uninstall keep the user's text and refuse what they cannot edit safely.

- one-line JSON stays one line, and install then uninstall gives back the very bytes;
- uninstall removes only the entries install wrote (its exact form), never hand-written ones;
- a key given twice in one object, or absurd nesting: one clear line, nothing changed;
- a read-only file: refused unless `--force` (its mode is kept);
- a dangling symlink: refused, no folder made for its target;
- uninstall deletes the `{}` file install created, keeps one backup per file (none once the
  file is back as it was before install), and prints a short summary (`--diff` for the whole diff).
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
    assert not path.exists() and "deleted" in out.stdout and "no backup kept" in out.stdout
    assert list(path.parent.iterdir()) == []  # no backup of a file that held only what install wrote
    # the user's own `{}`: kept as `{}`, and install's backup of it goes once it is back
    _settings(tmp_path, "{}\n")
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    assert len(list(path.parent.glob("settings.json.bak-*"))) == 1
    assert _cli(tmp_path, "uninstall", "--client", "claude-code").returncode == 0
    assert path.read_text() == "{}\n" and list(path.parent.glob("settings.json.bak-*")) == []


def test_the_users_own_backups_are_never_taken_for_installs(tmp_path: Path) -> None:
    """Backups the user made by hand beside a settings file, under the common
    `<file>.bak-YYYYmmddHHMMSS` name (one dated in the future too): install and uninstall neither
    remove them nor read them as install's (before, both were deleted as older backups of
    install's)."""
    path = _settings(tmp_path, json.dumps({"model": "opus"}, indent=2) + "\n")
    own = {path.with_name("settings.json.bak-20250101000000"): "MY OWN BACKUP\n",
           path.with_name("settings.json.bak-20991231235959"): '{"model": "haiku"}\n',
           # install's mark with other digits than the ASCII ones it writes
           path.with_name("settings.json.bak-loopguard-\u0662\u0660\u0662\u0665\u0660\u0661\u0660\u0661"
                          "\u0660\u0660\u0660\u0660\u0660\u0660"): "MINE TOO\n"}
    for backup, text in own.items():
        backup.write_text(text)
    for _ in range(2):
        assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
        assert all(backup.read_text() == text for backup, text in own.items())
        out = _cli(tmp_path, "uninstall", "--client", "claude-code")
        assert out.returncode == 0 and all(backup.read_text() == text for backup, text in own.items())
        assert json.loads(path.read_text()) == {"model": "opus"}, out.stdout
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(["settings.json", *(p.name for p in own)])


def test_a_settings_link_to_a_file_of_another_name_is_given_back_byte_for_byte(tmp_path: Path) -> None:
    """`settings.json` a link into a dotfiles folder whose file has no `.json` suffix: uninstall
    reads the backup as JSON by the link's name and gives the file back as it was, empty
    `"hooks": {}` included, with no backup left (before, the line was lost and two backups
    stayed beside the target)."""
    text = '{\n  "model": "x",\n  "hooks": {}\n}\n'
    target = tmp_path / "dotfiles" / "cs"
    target.parent.mkdir()
    target.write_text(text)
    path = _settings(tmp_path)
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    assert "loopguard-hook" in target.read_text() and path.is_symlink()
    out = _cli(tmp_path, "uninstall", "--client", "claude-code")
    assert out.returncode == 0, out.stderr
    assert target.read_text() == text and path.is_symlink()
    assert sorted(p.name for p in target.parent.iterdir()) == ["cs"], out.stdout


def test_one_backup_per_file_and_a_short_uninstall_report(tmp_path: Path) -> None:
    path = _settings(tmp_path, json.dumps({"model": "opus", "env": {"A": "1"}}, indent=2) + "\n")
    for _ in range(3):
        assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
        out = _cli(tmp_path, "uninstall", "--client", "claude-code")
        assert out.returncode == 0
    # each round trip puts the file back as it was: install's backup goes with it
    assert list(path.parent.glob("settings.json.bak-*")) == [] and "removed install's backup" in out.stdout
    assert len(out.stdout.splitlines()) <= 5 and "--diff shows them" in out.stdout and "+++" not in out.stdout, out.stdout
    # changed by hand in between: uninstall cannot give back the old text, so it keeps its own
    # backup and install's, which holds the text before install
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    path.write_text(path.read_text().replace('"opus"', '"sonnet"'))
    out = _cli(tmp_path, "uninstall", "--client", "claude-code")
    before, backup = sorted(path.parent.glob("settings.json.bak-*"))
    assert f"(backup: {backup})" in out.stdout and '"sonnet"' in path.read_text()
    assert '"opus"' in before.read_text() and "loopguard-hook" not in before.read_text()
    before.unlink()
    assert _cli(tmp_path, "install", "--client", "claude-code").returncode == 0
    full = _cli(tmp_path, "uninstall", "--client", "claude-code", "--diff")
    assert f"--- {path}\n+++ {path}\n" in full.stdout


#: Per host: the file install writes in an empty home, and what it holds once our handlers are
#: out of it (install's own skeleton).
SKELETONS = {
    "qwen-code": (".qwen/settings.json", "{}\n"),
    "gemini-cli": (".gemini/settings.json", "{}\n"),
    "droid": (".factory/settings.json", "{}\n"),
    "cursor": (".cursor/hooks.json", '{\n  "version": 1,\n  "hooks": {}\n}\n'),
}


def _host_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "QWEN_HOME", "GEMINI_CLI_HOME")}
    env.update(HOME=str(home), PATH=f"{Path(HOOK).parent}:/usr/bin:/bin")
    return subprocess.run([HOOK, *args], env=env, capture_output=True, text=True, timeout=120, cwd=home)


@pytest.mark.parametrize("client", sorted(SKELETONS))
def test_uninstall_removes_a_file_install_made_and_no_backup_stays(tmp_path: Path, client: str) -> None:
    name, skeleton = SKELETONS[client]
    path = tmp_path / name
    assert _host_cli(tmp_path, "install", "--client", client).returncode == 0 and path.exists()
    out = _host_cli(tmp_path, "uninstall", "--client", client)
    assert out.returncode == 0, out.stderr
    assert not path.exists() and "held only what install wrote" in out.stdout, out.stdout
    assert list(path.parent.iterdir()) == []  # no backup either
    # the same text, the user's own before install: it stays, and install's backup goes
    path.write_text(skeleton)
    assert _host_cli(tmp_path, "install", "--client", client).returncode == 0
    out = _host_cli(tmp_path, "uninstall", "--client", client)
    assert out.returncode == 0 and path.read_text() == skeleton, out.stdout
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_dry_run_says_what_would_be_done_and_writes_nothing(tmp_path: Path) -> None:
    out = _host_cli(tmp_path, "install", "--client", "qwen-code", "--dry-run")
    assert out.returncode == 0 and not (tmp_path / ".qwen").exists()
    assert "The hook is registered" not in out.stderr and "would be registered" in out.stderr, out.stderr


def test_install_and_uninstall_say_which_backups_stay(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text('{\n  "theme": "dark"\n}\n')
    out = _host_cli(tmp_path, "install", "--client", "gemini-cli")
    assert "note: a backup stays beside each file written; `uninstall` removes it" in out.stdout, out.stdout
    path.write_text(path.read_text().replace('"dark"', '"light"'))
    out = _host_cli(tmp_path, "uninstall", "--client", "gemini-cli")
    before, backup = sorted(path.parent.glob("settings.json.bak-*"))
    assert f"(backup: {backup})" in out.stdout, out.stdout
    assert "the backup made now (above) stays, and so does install's" in out.stdout, out.stdout
    assert '"dark"' in before.read_text()
