"""The ready-made configs in `hooks/` and `.claude-plugin/`: they parse, they call the console
script for exactly the events the product handles per client, and they equal what `install`
writes (so the files and the installer never drift apart)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from loopguard_hook import __version__, install
from loopguard_hook.core.event import HANDLED_EVENTS, TOOL_EVENTS
from loopguard_hook.install import CANONICAL_COMMAND, CLAUDE_CODE, CODEX, HOOK_EVENTS, hooks_table

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = "regenerate them with: python -m loopguard_hook.install ."

#: Event keys codex-cli 0.171.0 accepts in hooks.json and config.toml (`codex app-server`
#: hooks/list); it silently ignores any other key.
CODEX_EVENTS = frozenset(
    "PreToolUse PermissionRequest PostToolUse PreCompact PostCompact SessionStart SessionEnd "
    "UserPromptSubmit SubagentStart SubagentStop Stop Interrupt".split()
)

CLAUDE_FILES = ("hooks/hooks.json", "hooks/claude-code-settings.json")
CODEX_FILES = ("hooks/codex-hooks.json", "hooks/codex-config.toml")


def load(relative: str) -> dict[str, Any]:
    text = (ROOT / relative).read_text(encoding="utf-8")
    value = tomllib.loads(text) if relative.endswith(".toml") else json.loads(text)
    assert isinstance(value, dict)
    return value


def test_every_generated_file_is_committed_and_current() -> None:
    for relative, text in install.config_files().items():
        path = ROOT / relative
        assert path.is_file(), f"{relative} is missing; {REGENERATE}"
        assert path.read_text(encoding="utf-8") == text, f"{relative} is out of date; {REGENERATE}"


def test_no_stray_files_in_the_config_folders() -> None:
    shipped = {
        p.relative_to(ROOT).as_posix()
        for d in ("hooks", ".claude-plugin")
        for p in (ROOT / d).iterdir()
    }
    assert shipped == set(install.config_files())


@pytest.mark.parametrize(
    ("client", "relative"),
    [(CLAUDE_CODE, f) for f in CLAUDE_FILES] + [(CODEX, f) for f in CODEX_FILES],
)
def test_each_file_registers_the_console_script_for_exactly_the_handled_events(
    client: str, relative: str
) -> None:
    hooks = load(relative)["hooks"]
    expected = HANDLED_EVENTS if client == CLAUDE_CODE else HANDLED_EVENTS & CODEX_EVENTS
    assert set(hooks) == expected
    assert tuple(hooks) == HOOK_EVENTS[client]
    for event, groups in hooks.items():
        handlers = [h for g in groups for h in g["hooks"]]
        assert len(handlers) == 1, event
        [handler] = handlers
        assert handler["type"] == "command"
        assert handler["command"] == CANONICAL_COMMAND == "loopguard-hook"
        assert isinstance(handler["timeout"], int) and 1 <= handler["timeout"] <= 60
        if event == "SessionEnd":
            assert handler["timeout"] <= 3  # Codex 0.171.0 clamps SessionEnd to 3 s
        [group] = groups
        if event in TOOL_EVENTS:
            assert group["matcher"] == "*"
        else:
            assert "matcher" not in group
    assert hooks == hooks_table(client)


def test_codex_files_carry_no_event_codex_would_ignore() -> None:
    assert install.CODEX_KNOWN_EVENTS == CODEX_EVENTS
    for relative in CODEX_FILES:
        assert set(load(relative)["hooks"]) <= CODEX_EVENTS
    assert (
        "PostToolUseFailure" not in HOOK_EVENTS[CODEX] and "PostToolBatch" not in HOOK_EVENTS[CODEX]
    )


def test_settings_snippets_equal_what_install_writes_into_an_empty_folder(tmp_path: Path) -> None:
    [claude] = install.plan_install(
        CLAUDE_CODE, "project", home=tmp_path, project_dir=tmp_path / "p"
    )
    assert claude.new_text == (ROOT / "hooks/claude-code-settings.json").read_text(encoding="utf-8")
    [codex] = install.plan_install(CODEX, "user", home=tmp_path, project_dir=tmp_path / "p")
    assert codex.new_text == (ROOT / "hooks/codex-hooks.json").read_text(encoding="utf-8")


def test_codex_toml_snippet_is_the_inline_form_of_the_hooks_json() -> None:
    assert load("hooks/codex-config.toml") == load("hooks/codex-hooks.json")
    text = (ROOT / "hooks/codex-config.toml").read_text(encoding="utf-8")
    assert '[[hooks.PreToolUse]]\nmatcher = "*"\n[[hooks.PreToolUse.hooks]]\n' in text


def test_plugin_hooks_file_has_a_description_and_claude_code_events() -> None:
    plugin_hooks = load("hooks/hooks.json")
    assert set(plugin_hooks) == {"description", "hooks"}
    assert (
        isinstance(plugin_hooks["description"], str)
        and "loopguard-hook" in plugin_hooks["description"]
    )
    assert plugin_hooks["hooks"] == load("hooks/claude-code-settings.json")["hooks"]


def test_plugin_manifest() -> None:
    manifest = load(".claude-plugin/plugin.json")
    assert manifest["name"] == "loopguard-hook"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert manifest["version"] == __version__ == pyproject["project"]["version"]
    assert manifest["description"]
    # hooks/hooks.json is the plugin's standard hooks file, which Claude Code loads by itself;
    # naming it again in the manifest fails to load as "Duplicate hooks file detected".
    assert "hooks" not in manifest
    marketplace = load(".claude-plugin/marketplace.json")
    [entry] = marketplace["plugins"]
    assert entry["name"] == manifest["name"] and entry["source"] == "./"
    assert entry["version"] == manifest["version"]
    assert marketplace["owner"]["name"]


def test_pyproject_ships_the_console_script_as_a_script_file() -> None:
    """Installers write their own wrapper for `[project.scripts]` (pip's imports `re`, 1.5x the
    interpreter's start on its own, bench/README.md), so the command is a script file; installers
    rewrite its `#!python` line to the environment's interpreter."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "scripts" not in pyproject["project"]
    [script] = pyproject["tool"]["setuptools"]["script-files"]
    path = ROOT / script
    assert path.name == CANONICAL_COMMAND and os.access(path, os.X_OK)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("#!python\n")
    imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
    # `_signal` is the C module every interpreter has loaded: SIGINT is held while main loads
    assert imports == ["import sys", "import _signal", "from loopguard_hook.entry import main  # noqa: E402"]


@pytest.mark.parametrize(
    "payload",
    [
        {
            "session_id": "cfg-claude",
            "transcript_path": "",
            "cwd": "/",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "toolu_1",
            "permission_mode": "default",
        },
        {
            "session_id": "cfg-codex",
            "turn_id": "t1",
            "transcript_path": None,
            "cwd": "/",
            "model": "gpt-5.5",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "call_1",
            "permission_mode": "bypassPermissions",
        },
    ],
    ids=["claude-code", "codex"],
)
def test_the_configured_command_runs_the_hook_through_a_shell(
    tmp_path: Path, payload: dict[str, Any]
) -> None:
    """Both clients run the command string through a shell; it must find and run the hook."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / CANONICAL_COMMAND).exists():
        pytest.skip("the console script is not installed next to this Python")
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "LOOPGUARD_STATE_DIR": str(tmp_path / "state"),
    }
    shell = shutil.which("sh") or "/bin/sh"
    proc = subprocess.run(
        [shell, "-c", CANONICAL_COMMAND],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b""  # a first call is allowed: nothing printed
