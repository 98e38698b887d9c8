"""`install` and `uninstall` for Copilot CLI, Cursor and Droid: each host's own file and format,
merged with what is there, undone exactly, refused when the file cannot be read safely."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loopguard_hook.install import InstallError, apply, host_settings_path, plan_host_install, plan_host_uninstall

FILES = {
    ("copilot", "user"): ".copilot/hooks/loopguard-hook.json",
    ("copilot", "project"): ".github/hooks/loopguard-hook.json",
    ("cursor", "user"): ".cursor/hooks.json",
    ("cursor", "project"): ".cursor/hooks.json",
    ("droid", "user"): ".factory/settings.json",
    ("droid", "project"): ".factory/settings.json",
}


def _cli(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "LOOPGUARD_RESIDENT": "0"}
    return subprocess.run([sys.executable, "-m", "loopguard_hook", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, check=False)


@pytest.mark.parametrize(("client", "scope"), sorted(FILES))
def test_dry_run_names_the_hosts_file_and_writes_nothing(client: str, scope: str, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    done = _cli(["install", "--client", client, "--scope", scope, "--dry-run"], home, project)
    assert done.returncode == 0, done.stderr
    where = (home if scope == "user" else project) / FILES[client, scope]
    assert str(where) in done.stdout and "dry run" in done.stdout
    assert not where.exists()


@pytest.mark.parametrize("client", ["copilot", "cursor", "droid"])
def test_install_then_uninstall_leaves_the_users_hooks_as_they_were(client: str, tmp_path: Path) -> None:
    path = host_settings_path(client, "user", home=tmp_path, project_dir=tmp_path)
    path.parent.mkdir(parents=True)
    if client == "droid":
        mine = {"matcher": "Execute", "hooks": [{"type": "command", "command": "mine"}]}
        before = {"model": "x", "hooks": {"PreToolUse": [mine]}}
    else:
        key = "bash" if client == "copilot" else "command"
        before = {"version": 1, "hooks": {"preToolUse": [{key: "mine"}], "afterFileEdit": [{key: "fmt"}]}}
    original = json.dumps(before, indent=4) + "\n"
    path.write_text(original)
    installed = apply(plan_host_install(client, "user", home=tmp_path, project_dir=tmp_path))
    data = json.loads(path.read_text())
    hooks = data if path.name == "hooks.json" and client == "droid" else data["hooks"]
    assert any("mine" in json.dumps(v) for v in hooks.values())  # the user's hook kept
    text = json.dumps(hooks)
    assert f"loopguard-hook --client {client}" in text and "failClosed" not in text
    if client == "copilot":
        # `|| true`: Copilot denies every call whose preToolUse hook cannot run (exit 127)
        assert hooks["preToolUse"][-1]["bash"] == "loopguard-hook --client copilot --event preToolUse || true"
        assert hooks["agentStop"][0]["timeoutSec"] == 10
    assert installed[0].backup is not None
    again = plan_host_install(client, "user", home=tmp_path, project_dir=tmp_path)
    assert not again[0].changed  # idempotent
    apply(plan_host_uninstall(client, "user", home=tmp_path, project_dir=tmp_path))
    assert json.loads(path.read_text()) == before


def test_copilots_own_file_is_created_and_deleted_whole(tmp_path: Path) -> None:
    path = tmp_path / ".copilot" / "hooks" / "loopguard-hook.json"
    apply(plan_host_install("copilot", "user", home=tmp_path, project_dir=tmp_path))
    data = json.loads(path.read_text())
    assert data["version"] == 1 and list(data["hooks"]) == [
        "preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted", "sessionStart", "sessionEnd",
        "agentStop", "subagentStop",
    ]
    apply(plan_host_uninstall("copilot", "user", home=tmp_path, project_dir=tmp_path))
    assert not path.exists()


def test_droid_writes_the_hooks_file_droid_reads_first(tmp_path: Path) -> None:
    """A user hooks.json replaces settings.json's entries event by event (Droid 0.215.0), so when
    there is one the hooks go there, at its top level; otherwise into settings.json, where a new
    hooks.json would switch off the user's settings.json hooks."""
    factory = tmp_path / ".factory"
    factory.mkdir()
    assert host_settings_path("droid", "user", home=tmp_path, project_dir=tmp_path) == factory / "settings.json"
    (factory / "hooks").mkdir()
    (factory / "hooks" / "hooks.json").write_text("{}")
    assert host_settings_path("droid", "user", home=tmp_path, project_dir=tmp_path) == factory / "hooks" / "hooks.json"
    (factory / "hooks.json").write_text('{"Stop": []}')
    assert host_settings_path("droid", "user", home=tmp_path, project_dir=tmp_path) == factory / "hooks.json"
    apply(plan_host_install("droid", "user", home=tmp_path, project_dir=tmp_path))
    data = json.loads((factory / "hooks.json").read_text())
    assert "hooks" not in data and "PreToolUse" in data and data["PreToolUse"][0]["matcher"] == "*"
    (factory / "hooks.json").write_text('{"hooks": {"PreToolUse": []}}')
    with pytest.raises(InstallError, match="wrapper"):
        plan_host_install("droid", "user", home=tmp_path, project_dir=tmp_path)


@pytest.mark.parametrize("client", ["copilot", "cursor", "droid"])
def test_a_file_it_cannot_read_safely_is_refused(client: str, tmp_path: Path) -> None:
    path = host_settings_path(client, "user", home=tmp_path, project_dir=tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {"preToolUse": ')
    with pytest.raises(InstallError, match="not valid JSON"):
        plan_host_install(client, "user", home=tmp_path, project_dir=tmp_path)
    if client != "droid":
        path.write_text('{"version": 1, "hooks": {"preToolUse": "x"}}')
        with pytest.raises(InstallError, match="not an array"):
            plan_host_install(client, "user", home=tmp_path, project_dir=tmp_path)


def test_cursor_refuses_a_file_with_a_double_slash(tmp_path: Path) -> None:
    """Cursor strips `//…` as a comment before parsing: one in a string breaks its whole file."""
    path = tmp_path / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"version": 1, "hooks": {"stop": [{"command": "curl http://example.test"}]}}')
    with pytest.raises(InstallError, match="//"):
        plan_host_install("cursor", "user", home=tmp_path, project_dir=tmp_path)


def test_a_scope_the_host_lacks_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="no 'local' scope"):
        plan_host_install("cursor", "local", home=tmp_path, project_dir=tmp_path)


#: Settings files as users write them, each a value install changes and uninstall gives back:
#: an emptied hooks table, comments (Gemini CLI and Qwen Code read JSON with comments), a TOML
#: file without a final newline, a host's own file that was there before install.
ROUND_TRIPS = [
    ("claude-code", ".claude/settings.json", '{\n  "model": "opus",\n  "hooks": {}\n}\n', []),
    ("claude-code", ".claude/settings.json", '{"hooks":{"Stop":[]}}', []),
    ("qwen-code", ".qwen/settings.json", '{"theme":"dark","hooks":{}}', []),
    ("gemini-cli", ".gemini/settings.json", '{\n  // mine\n  "theme": "dark" /* kept */\n}\n', []),
    ("qwen-code", ".qwen/settings.json", '{\n  "hooks": {}, // none yet\n  "theme": "dark"\n}', []),
    ("droid", ".factory/settings.json", '{"theme":"dark","hooks":{}}', []),
    ("cursor", ".cursor/hooks.json", '{"version":1,"hooks":{"stop":[]}}', []),
    ("copilot", ".copilot/hooks/loopguard-hook.json", '{"version":1,"hooks":{}}', []),
    ("codex", ".codex/config.toml", 'model = "gpt-5"', ["--trust"]),
]


@pytest.mark.parametrize(("client", "name", "text", "extra"), ROUND_TRIPS)
def test_uninstall_gives_back_the_users_file_byte_for_byte_and_no_backup(
    client: str, name: str, text: str, extra: list[str], tmp_path: Path
) -> None:
    """Uninstall used to write the file as its own serialiser spells the value (an emptied table
    dropped, comments gone, a newline added) and then remove install's backup, so the user's text
    was lost; a host's own file that held only a skeleton was deleted."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    path = home / name
    path.parent.mkdir(parents=True)
    path.write_text(text)
    installed = _cli(["install", "--client", client, *extra], home, project)
    assert installed.returncode == 0, installed.stderr
    assert "loopguard-hook" in path.read_text()
    removed = _cli(["uninstall", "--client", client], home, project)
    assert removed.returncode == 0, removed.stderr
    assert path.read_text() == text
    assert [p.name for p in path.parent.iterdir() if ".bak-" in p.name] == []


def test_an_uninstall_that_cannot_give_the_file_back_keeps_installs_backup(tmp_path: Path) -> None:
    """A file the user changed after install: uninstall's own backup stays, and so does install's,
    which holds the text before install."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "model": "opus"\n}\n')
    assert _cli(["install", "--client", "claude-code"], home, project).returncode == 0
    value = json.loads(path.read_text())
    value["theme"] = "dark"
    path.write_text(json.dumps(value, indent=2) + "\n")
    removed = _cli(["uninstall", "--client", "claude-code"], home, project)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(path.read_text()) == {"model": "opus", "theme": "dark"}
    backups = sorted(p.read_text() for p in path.parent.iterdir() if ".bak-" in p.name)
    assert '{\n  "model": "opus"\n}\n' in backups and len(backups) == 2


@pytest.mark.parametrize("text", ["{ /* a */ }", '{\n  "hooks": { // mine\n  }\n}\n'])
def test_install_refuses_rather_than_drop_a_comment_where_the_hooks_go(text: str, tmp_path: Path) -> None:
    """Gemini CLI reads comments in its settings; one inside the object install fills would be
    dropped, so install says so and writes nothing (it used to drop it, saying comments were kept)."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    done = _cli(["install", "--client", "gemini-cli"], home, project)
    assert done.returncode == 1 and "a comment where the hooks go would not survive this edit" in done.stderr, done
    assert path.read_text() == text and sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
    # The way out it names works: the entries as they would go into an empty file.
    hint = "`HOME=$(mktemp -d) loopguard-hook install --client gemini-cli --dry-run --diff`"
    assert hint in done.stderr, done.stderr
    shown = _cli(["install", "--client", "gemini-cli", "--dry-run", "--diff"], tmp_path / "empty", project)
    assert shown.returncode == 0 and '"command": "loopguard-hook --client gemini-cli || true"' in shown.stdout, shown
