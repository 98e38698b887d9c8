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
        assert hooks["preToolUse"][-1]["bash"] == "loopguard-hook --client copilot --event preToolUse"
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
