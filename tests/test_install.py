"""`install.py`: merging our hook entries into Claude Code and Codex settings, and back out.

Every test works in temp directories with the home, project and environment passed in.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopguard_hook import install
from loopguard_hook.install import (
    CANONICAL_COMMAND,
    CLAUDE_CODE,
    CODEX,
    HOOK_EVENTS,
    InstallError,
    apply,
    plan_install,
    plan_trust,
    plan_uninstall,
    settings_path,
    trust_entries,
    trusted_hash,
)

NOW = datetime(2026, 11, 30, 12, 34, 56)

#: A user's settings in Claude Code's own layout, with other hooks and settings around.
CLAUDE_SETTINGS = """\
{
  "permissions": {
    "allow": [
      "Bash(git status:*)",
      "Read(~/notes/**)"
    ]
  },
  "model": "opus",
  "env": {
    "GREETING": "grüß dich ✓"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/audit-bash.sh",
            "timeout": 5
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send claude"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "echo hi"
  }
}
"""

#: The same kind of file written by hand: compact lines, 4-space indent, odd number forms.
HAND_WRITTEN = """\
{
    "model": "opus",
    "cleanupPeriodDays": 1e2,
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]},
    "escaped": "caf\\u00e9 \\"quoted\\""
}
"""


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Any]:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return {"home": home, "project_dir": project, "env": {}}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def without_ours(value: Any) -> Any:
    """The settings as they would be had loopguard never been installed (for semantic checks)."""
    value = json.loads(json.dumps(value))
    hooks = value.get("hooks", {})
    for event in list(hooks):
        groups = [
            {**g, "hooks": [h for h in g["hooks"] if h.get("command") != CANONICAL_COMMAND]}
            for g in hooks[event]
        ]
        hooks[event] = [g for g in groups if g["hooks"]]
        if not hooks[event]:
            del hooks[event]
    return value


def commands_by_event(hooks: dict[str, Any]) -> dict[str, list[str]]:
    return {
        event: [h["command"] for g in groups for h in g["hooks"]] for event, groups in hooks.items()
    }


# -- paths ------------------------------------------------------------------------------------


def test_settings_paths_per_client_and_scope(tmp_path: Path) -> None:
    home, project = tmp_path / "h", tmp_path / "p"
    kw: dict[str, Any] = {"home": home, "project_dir": project}
    assert settings_path(CLAUDE_CODE, "user", **kw) == home / ".claude" / "settings.json"
    assert settings_path(CLAUDE_CODE, "project", **kw) == project / ".claude" / "settings.json"
    assert settings_path(CLAUDE_CODE, "local", **kw) == project / ".claude" / "settings.local.json"
    assert settings_path(CODEX, "user", **kw) == home / ".codex" / "hooks.json"
    assert settings_path(CODEX, "project", **kw) == project / ".codex" / "hooks.json"


def test_settings_paths_honour_config_dir_variables(tmp_path: Path) -> None:
    real = tmp_path / "real-codex-home"
    real.mkdir()
    link = tmp_path / "codex-link"
    link.symlink_to(real)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-work"), "CODEX_HOME": str(link)}
    kw: dict[str, Any] = {"home": tmp_path / "h", "project_dir": tmp_path / "p", "env": env}
    assert settings_path(CLAUDE_CODE, "user", **kw) == tmp_path / "claude-work" / "settings.json"
    # Codex canonicalises CODEX_HOME, and its trust keys carry that path
    assert settings_path(CODEX, "user", **kw) == real / "hooks.json"
    # an empty variable counts as unset
    env_empty = {"CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""}
    assert settings_path(
        CLAUDE_CODE, "user", home=tmp_path, project_dir=tmp_path, env=env_empty
    ) == (tmp_path / ".claude" / "settings.json")


def test_unknown_client_or_scope_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="Codex has no 'local' scope"):
        settings_path(CODEX, "local", home=tmp_path, project_dir=tmp_path)
    with pytest.raises(InstallError, match="unknown client 'cursor'"):
        plan_install("cursor", home=tmp_path, project_dir=tmp_path)


# -- Claude Code: install ---------------------------------------------------------------------


def test_install_merges_into_existing_settings_and_changes_nothing_else(
    dirs: dict[str, Any],
) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", CLAUDE_SETTINGS)
    [change] = plan_install(CLAUDE_CODE, "user", **dirs)
    assert change.changed and change.path == path
    assert change.old_text == CLAUDE_SETTINGS
    assert change.new_text is not None
    new = json.loads(change.new_text)
    old = json.loads(CLAUDE_SETTINGS)
    assert without_ours(new) == old
    assert list(new) == list(old)  # top-level key order kept; "hooks" stays where it was
    assert list(new["hooks"])[:2] == ["PreToolUse", "Notification"]
    assert new["hooks"]["PreToolUse"][0] == old["hooks"]["PreToolUse"][0]  # the user's group first
    assert set(new["hooks"]) - {"Notification"} == set(HOOK_EVENTS[CLAUDE_CODE])
    for event in HOOK_EVENTS[CLAUDE_CODE]:
        assert commands_by_event(new["hooks"])[event].count(CANONICAL_COMMAND) == 1
    # a minimal edit: every old line is still there (at most gaining a comma)
    new_lines = change.new_text.splitlines()
    for line in CLAUDE_SETTINGS.splitlines():
        assert line in new_lines or line + "," in new_lines
    assert change.diff.startswith(f"--- {path}\n+++ {path}\n")


def test_install_entries_have_matcher_and_timeouts(dirs: dict[str, Any]) -> None:
    [change] = plan_install(CLAUDE_CODE, "project", **dirs)
    assert change.old_text is None and change.new_text is not None
    hooks = json.loads(change.new_text)["hooks"]
    assert list(hooks) == list(HOOK_EVENTS[CLAUDE_CODE])
    for event, groups in hooks.items():
        [group] = groups
        [handler] = group["hooks"]
        assert handler == {
            "type": "command",
            "command": "loopguard-hook",
            "timeout": 3 if event == "SessionEnd" else 10,
        }
        if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            assert group["matcher"] == "*"
        else:
            assert "matcher" not in group


def test_second_install_is_a_no_op(dirs: dict[str, Any]) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", CLAUDE_SETTINGS)
    apply(plan_install(CLAUDE_CODE, "user", **dirs), now=NOW)
    after_first = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    backups = sorted(p.name for p in path.parent.iterdir())

    [again] = plan_install(CLAUDE_CODE, "user", **dirs)
    assert not again.changed and again.diff == ""
    assert "already registered" in again.messages[0]
    [done] = apply([again], now=datetime(2027, 1, 1))
    assert not done.written and done.backup is None
    assert path.read_bytes() == after_first and path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in path.parent.iterdir()) == backups


def test_apply_writes_a_timestamped_backup_of_the_old_file(dirs: dict[str, Any]) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", CLAUDE_SETTINGS)
    [done] = apply(plan_install(CLAUDE_CODE, "user", **dirs), now=NOW)
    assert done.written
    assert done.backup == path.with_name("settings.json.bak-loopguard-20261130123456")
    assert done.backup.read_text(encoding="utf-8") == CLAUDE_SETTINGS
    # a second write in the same second never overwrites the first backup; once it is made, the
    # older one goes: one backup per file, the newest
    [undone] = apply(plan_uninstall(CLAUDE_CODE, "user", **dirs), now=NOW)
    assert undone.backup == path.with_name("settings.json.bak-loopguard-20261130123456-1")
    assert undone.backup.read_text(encoding="utf-8") == done.new_text
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json", "settings.json.bak-loopguard-20261130123456-1"]
    assert path.read_text(encoding="utf-8") == CLAUDE_SETTINGS


def test_new_file_gets_no_backup_and_its_folder_is_created(dirs: dict[str, Any]) -> None:
    [done] = apply(plan_install(CLAUDE_CODE, "local", **dirs), now=NOW)
    path = dirs["project_dir"] / ".claude" / "settings.local.json"
    assert done.written and done.backup is None and done.path == path
    assert done.diff.startswith(f"--- /dev/null\n+++ {path}\n")
    assert (
        json.loads(path.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"] == CANONICAL_COMMAND
    )


def test_dry_run_plan_writes_nothing(dirs: dict[str, Any]) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", CLAUDE_SETTINGS)
    before = {p: p.read_bytes() for p in dirs["home"].rglob("*") if p.is_file()}
    changes = plan_install(CLAUDE_CODE, "user", **dirs) + plan_install(
        CLAUDE_CODE, "project", **dirs
    )
    changes += plan_install(CODEX, "user", trust=True, **dirs)
    assert all(c.changed and not c.written for c in changes)
    assert {p: p.read_bytes() for p in dirs["home"].rglob("*") if p.is_file()} == before
    assert not (dirs["project_dir"] / ".claude").exists()
    assert not (dirs["home"] / ".codex").exists()
    report = install.format_report(changes, dry_run=True)
    assert f"dry run: {path} not written" in report
    assert '+      "command": "loopguard-hook"' in report or '"command": "loopguard-hook"' in report


@pytest.mark.parametrize("original", [CLAUDE_SETTINGS, HAND_WRITTEN, '{"model":"opus"}', ""])
def test_uninstall_restores_the_original_file(dirs: dict[str, Any], original: str) -> None:
    path = write(dirs["project_dir"] / ".claude" / "settings.json", original)
    apply(plan_install(CLAUDE_CODE, "project", **dirs), now=NOW)
    assert CANONICAL_COMMAND in path.read_text()
    [undone] = apply(plan_uninstall(CLAUDE_CODE, "project", **dirs), now=NOW)
    assert undone.written
    restored = path.read_text(encoding="utf-8")
    if original.strip():
        assert json.loads(restored) == json.loads(original)
    else:
        assert json.loads(restored) == {}
    if original == CLAUDE_SETTINGS:
        assert restored == original  # byte for byte: untouched parts keep their exact text
    if original == HAND_WRITTEN:  # the hooks object was re-laid out; every other line is intact
        assert [line for line in original.splitlines() if '"hooks"' not in line] == [
            line
            for line in restored.splitlines()
            if line.startswith(("{", "}", '    "')) and '"hooks"' not in line
        ]


def test_hand_written_file_keeps_its_layout(dirs: dict[str, Any]) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", HAND_WRITTEN)
    [change] = plan_install(CLAUDE_CODE, "user", **dirs)
    assert change.new_text is not None
    text = change.new_text
    assert '"cleanupPeriodDays": 1e2,' in text  # number and string forms untouched
    assert '"escaped": "caf\\u00e9 \\"quoted\\""' in text
    assert '    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},' in text
    # the one-line `hooks` object stays one line: ours go on it, the rest of the file is untouched
    assert '    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}, {"hooks": [' in text
    assert len(text.splitlines()) == len(HAND_WRITTEN.splitlines())
    assert json.loads(text)["hooks"]["Stop"][0] == {
        "hooks": [{"type": "command", "command": "say done"}]
    }
    assert path.read_text() == HAND_WRITTEN


def test_crlf_and_tab_indented_file_keeps_its_style(dirs: dict[str, Any]) -> None:
    original = '{\r\n\t"model": "opus"\r\n}\r\n'
    path = settings_path(CLAUDE_CODE, "user", **dirs)
    path.parent.mkdir(parents=True)
    path.write_bytes(original.encode())
    [change] = plan_install(CLAUDE_CODE, "user", **dirs)
    assert change.new_text is not None
    assert "\n" not in change.new_text.replace("\r\n", "")
    assert '\r\n\t"hooks": {\r\n\t\t"PreToolUse": [' in change.new_text
    apply([change], now=NOW)
    apply(plan_uninstall(CLAUDE_CODE, "user", **dirs), now=NOW)
    assert path.read_bytes() == original.encode()


def test_existing_loopguard_entries_are_not_added_twice(dirs: dict[str, Any]) -> None:
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash|Read",
                    "hooks": [{"type": "command", "command": "loopguard-hook --profile breaker"}],
                }
            ],
            "PostToolUse": [
                {
                    "matcher": "*",
                    "hooks": [{"type": "command", "command": "/opt/venv/bin/loopguard-hook"}],
                }
            ],
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "python3", "args": ["-m", "loopguard_hook"]}
                    ]
                }
            ],
        }
    }
    write(dirs["home"] / ".claude" / "settings.json", json.dumps(settings, indent=2))
    [change] = plan_install(CLAUDE_CODE, "user", **dirs)
    assert change.new_text is not None
    hooks = json.loads(change.new_text)["hooks"]
    assert (
        hooks["PreToolUse"] == settings["hooks"]["PreToolUse"]
    )  # ours, with arguments: kept as is
    assert hooks["PostToolUse"] == settings["hooks"]["PostToolUse"]  # another spelling: not doubled
    assert hooks["Stop"] == settings["hooks"]["Stop"]
    assert "PostToolBatch" in hooks
    warnings = [m for m in change.messages if m.startswith("warning:")]
    # It runs on PostToolUse alone, which install leaves to it: no event runs both.
    assert any("`/opt/venv/bin/loopguard-hook` on PostToolUse" in m and "each event runs one of the two" in m for m in warnings)
    assert any("`python3 -m loopguard_hook`" in m for m in warnings)
    assert not any("--profile breaker" in m for m in warnings)


def test_claude_warnings_for_other_copies_plugins_and_disabled_hooks(dirs: dict[str, Any]) -> None:
    write(
        dirs["home"] / ".claude" / "settings.json",
        json.dumps(
            {
                "enabledPlugins": {"loopguard-hook@loopguard-hook": True, "other@x": True},
                "hooks": {
                    "PreToolUse": [
                        {"hooks": [{"type": "command", "command": "~/.local/bin/loopguard-hook"}]}
                    ]
                },
            }
        ),
    )
    write(dirs["project_dir"] / ".claude" / "settings.json", json.dumps({"disableAllHooks": True}))
    [change] = plan_install(CLAUDE_CODE, "project", **dirs)
    text = "\n".join(change.messages)
    assert "disableAllHooks" in text
    assert "loopguard-hook plugin (loopguard-hook@loopguard-hook) is enabled" in text
    assert "`~/.local/bin/loopguard-hook`" in text
    assert change.changed  # warnings do not stop the project install


@pytest.mark.parametrize("scope", ["user", "project"])
def test_claude_warnings_are_given_once_when_run_from_the_home_folder(dirs: dict[str, Any], scope: str) -> None:
    """From the home folder the project's settings are the user's: one file, so one warning each."""
    write(
        dirs["home"] / ".claude" / "settings.json",
        json.dumps(
            {
                "enabledPlugins": {"loopguard-hook@loopguard-hook": True},
                "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/opt/bin/loopguard-hook"}]}]},
            }
        ),
    )
    [change] = plan_install(CLAUDE_CODE, scope, home=dirs["home"], project_dir=dirs["home"], env={})
    warnings = [m for m in change.messages if m.startswith("warning:")]
    assert len(warnings) == 2 and len(set(warnings)) == 2, warnings
    assert any("plugin (loopguard-hook@loopguard-hook) is enabled" in m for m in warnings)
    assert any("`/opt/bin/loopguard-hook` on PreToolUse" in m for m in warnings)


def test_a_settings_symlink_loop_is_not_an_internal_error(dirs: dict[str, Any]) -> None:
    """Path.resolve() raises RuntimeError on a symlink loop (Python 3.11): install ended in an
    internal error where it used to say the file cannot be read."""
    from loopguard_hook.doctor import run_doctor

    folder = dirs["project_dir"] / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").symlink_to("loop2")
    (folder / "loop2").symlink_to("settings.json")
    try:
        plan_install(CLAUDE_CODE, "user", **dirs)
    except RuntimeError as exc:  # pragma: no cover - the failure this test pins
        pytest.fail(f"RuntimeError: {exc}")
    except (OSError, ValueError):
        pass  # said as a file that cannot be read
    run_doctor(home=str(dirs["home"]), cwd=str(dirs["project_dir"]), env={"PATH": ""}, clients=["claude-code"], run=False)


# -- Claude Code: uninstall -------------------------------------------------------------------


def test_uninstall_removes_only_our_handlers(dirs: dict[str, Any]) -> None:
    settings = {
        "model": "opus",
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "*",
                    "hooks": [
                        {"type": "command", "command": "echo before"},
                        {
                            "type": "command",
                            "command": "loopguard-hook --profile breaker",
                            "timeout": 10,
                        },
                        {"type": "command", "command": "echo after"},
                    ],
                },
                {
                    "matcher": "*",
                    "hooks": [{"type": "command", "command": "loopguard-hook", "timeout": 10}],
                },
            ],
            "PostToolUse": [
                {"matcher": "*", "hooks": [{"type": "command", "command": "loopguard-hook"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "/opt/bin/loopguard-hook"}]}],
            "Notification": [
                {"hooks": [{"type": "command", "command": "loopguard-hooks-are-great"}]}
            ],
        },
        "after": True,
    }
    path = write(dirs["home"] / ".claude" / "settings.json", json.dumps(settings, indent=2) + "\n")
    [change] = plan_uninstall(CLAUDE_CODE, "user", **dirs)
    assert change.new_text is not None
    result = json.loads(change.new_text)
    assert list(result) == ["model", "hooks", "after"]
    # only the entry exactly as install writes it goes; those written by hand stay, with a note
    expected = json.loads(json.dumps(settings["hooks"]))
    del expected["PreToolUse"][1]
    assert result["hooks"] == expected
    assert "for: PreToolUse" in change.messages[0] and "PostToolUse" not in change.messages[0]
    assert any("`/opt/bin/loopguard-hook`" in m for m in change.messages)
    assert any("`loopguard-hook --profile breaker`" in m and "uninstall leaves it" in m for m in change.messages)
    assert path.read_text() == json.dumps(settings, indent=2) + "\n"  # planning wrote nothing


def test_uninstall_drops_hooks_key_when_nothing_is_left(dirs: dict[str, Any]) -> None:
    write(
        dirs["home"] / ".claude" / "settings.json",
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "loopguard-hook", "timeout": 10}]}]},'
        ' "model": "x"}',
    )
    [change] = plan_uninstall(CLAUDE_CODE, "user", **dirs)
    assert change.new_text == '{"model": "x"}'  # one line stays one line


def test_uninstall_without_our_hooks_changes_nothing(dirs: dict[str, Any]) -> None:
    [absent] = plan_uninstall(CLAUDE_CODE, "user", **dirs)
    assert not absent.changed and absent.old_text is None and absent.new_text is None
    assert "(absent)" in absent.messages[0]
    write(dirs["home"] / ".claude" / "settings.json", CLAUDE_SETTINGS)
    [change] = plan_uninstall(CLAUDE_CODE, "user", **dirs)
    assert not change.changed and "not registered" in change.messages[0]
    [done] = apply([change], now=NOW)
    assert not done.written and done.backup is None


# -- refusing files it cannot merge safely ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{\n  "model": "opus",\n  "hooks": {\n}',
            r"not valid JSON \(Expecting .* at line 4, column 2\)",
        ),
        ('{"model": "opus",}', r"not valid JSON \(.*line 1, column 18\)"),
        ('{"n": NaN}', r"not valid JSON \(NaN is not JSON\)"),
        ("// comment\n{}", r"not valid JSON"),
        ('["not", "an", "object"]', r"the top-level value is an array, not an object"),
        ('{"hooks": []}', r'"hooks" is an array, not an object'),
        ('{"hooks": null}', r'"hooks" is null, not an object'),
        (
            '{"hooks": {"PreToolUse": {"matcher": "*"}}}',
            r"hooks.PreToolUse is an object, not an array",
        ),
    ],
)
def test_install_refuses_files_it_cannot_merge(
    dirs: dict[str, Any], text: str, expected: str
) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", text)
    with pytest.raises(InstallError, match=expected) as info:
        plan_install(CLAUDE_CODE, "user", **dirs)
    assert str(info.value).startswith(f"{path}: ")
    assert path.read_text() == text
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


def test_uninstall_refuses_invalid_json_too(dirs: dict[str, Any]) -> None:
    path = write(dirs["project_dir"] / ".codex" / "hooks.json", "{oops")
    with pytest.raises(InstallError, match=rf"^{path}: not valid JSON"):
        plan_uninstall(CODEX, "project", **dirs)


def test_non_utf8_file_is_refused(dirs: dict[str, Any]) -> None:
    path = dirs["home"] / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(b'{"model": "\xff"}')
    with pytest.raises(InstallError, match="not UTF-8"):
        plan_install(CLAUDE_CODE, "user", **dirs)


def test_apply_refuses_a_file_changed_since_the_plan(dirs: dict[str, Any]) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", CLAUDE_SETTINGS)
    changes = plan_install(CLAUDE_CODE, "user", **dirs)
    path.write_text('{"model": "sonnet"}')
    with pytest.raises(InstallError, match="changed since it was read"):
        apply(changes, now=NOW)
    assert path.read_text() == '{"model": "sonnet"}'
    assert not list(path.parent.glob("*.bak-*"))


_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
)
_JSON = st.recursive(
    _SCALARS | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(
    old=st.dictionaries(st.text(max_size=6), _JSON, max_size=5),
    extra=st.dictionaries(st.text(max_size=6), _JSON, max_size=3),
    drop=st.sets(st.integers(min_value=0, max_value=4), max_size=2),
    style=st.sampled_from([None, 2, 4, "\t"]),
    ascii_only=st.booleans(),
)
def test_minimal_json_rewrite_always_yields_the_new_value(
    old: dict[str, Any], extra: dict[str, Any], drop: set[int], style: Any, ascii_only: bool
) -> None:
    """Whatever the old layout, the rewritten text parses to exactly the new value."""
    text = json.dumps(old, indent=style, ensure_ascii=ascii_only)
    new = {k: v for i, (k, v) in enumerate(old.items()) if i not in drop}
    new.update(extra)
    rewritten = install._rewrite_json(text, new)
    assert install._same(json.loads(rewritten), new)
    if install._same(new, old):
        assert rewritten.rstrip("\r\n") == text


# -- writing ----------------------------------------------------------------------------------


def test_apply_keeps_file_mode_and_writes_through_symlinks(
    dirs: dict[str, Any], tmp_path: Path
) -> None:
    real = write(tmp_path / "dotfiles" / "claude-settings.json", CLAUDE_SETTINGS)
    real.chmod(0o600)
    link = dirs["home"] / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    [done] = apply(plan_install(CLAUDE_CODE, "user", **dirs), now=NOW)
    assert link.is_symlink() and link.resolve() == real
    assert CANONICAL_COMMAND in real.read_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert done.backup == real.with_name("claude-settings.json.bak-loopguard-20261130123456")


# -- Codex: hooks.json ------------------------------------------------------------------------


def test_codex_install_writes_only_events_codex_knows(dirs: dict[str, Any]) -> None:
    [change] = plan_install(CODEX, "user", **dirs)
    assert change.path == dirs["home"] / ".codex" / "hooks.json"
    assert change.new_text is not None
    hooks = json.loads(change.new_text)["hooks"]
    assert list(hooks) == list(HOOK_EVENTS[CODEX])
    assert "PostToolUseFailure" not in hooks and "PostToolBatch" not in hooks
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] <= 3  # Codex clamps SessionEnd to 3 s


def test_codex_install_without_trust_says_how_to_trust(dirs: dict[str, Any]) -> None:
    [change] = plan_install(CODEX, "user", **dirs)
    hint = change.messages[-1]
    assert "/hooks" in hint and "--trust" in hint and "--dangerously-bypass-hook-trust" in hint
    assert str(dirs["home"] / ".codex" / "config.toml") in hint
    assert "`loopguard-hook install --client codex --trust`" in hint
    # The hint repeats the scope: followed literally, it must not register a user-scope copy.
    [change] = plan_install(CODEX, "project", **dirs)
    assert "`loopguard-hook install --client codex --scope project --trust`" in change.messages[-1]


def test_codex_install_with_trust_records_hashes(dirs: dict[str, Any]) -> None:
    codex_home = dirs["home"] / ".codex"
    write(codex_home / "config.toml", 'model = "gpt-5.5"\n')
    hooks_change, trust_change = plan_install(CODEX, "user", trust=True, **dirs)
    assert trust_change.path == codex_home / "config.toml"
    apply([hooks_change, trust_change], now=NOW)
    config = tomllib.loads((codex_home / "config.toml").read_text())
    hooks = json.loads((codex_home / "hooks.json").read_text())["hooks"]
    expected = trust_entries(codex_home / "hooks.json", hooks)
    assert len(expected) == len(HOOK_EVENTS[CODEX])
    assert {k: v["trusted_hash"] for k, v in config["hooks"]["state"].items()} == expected
    assert f"{codex_home}/hooks.json:pre_tool_use:0:0" in expected
    assert config["model"] == "gpt-5.5"
    # and the plain install now reports the hooks as trusted
    [again] = plan_install(CODEX, "user", **dirs)
    assert not again.changed
    assert (
        again.messages[-1]
        == f"Codex trust: all 7 handlers are trusted in {codex_home / 'config.toml'}"
    )
    _, trust_again = plan_install(CODEX, "user", trust=True, **dirs)
    assert not trust_again.changed


def test_codex_trust_keys_follow_existing_groups(dirs: dict[str, Any]) -> None:
    path = write(
        dirs["home"] / ".codex" / "hooks.json",
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}
                    ],
                }
            }
        ),
    )
    hooks_change, trust_change = plan_install(CODEX, "user", trust=True, **dirs)
    assert hooks_change.new_text is not None
    assert trust_change.new_text is not None
    state = tomllib.loads(trust_change.new_text)["hooks"]["state"]
    assert f"{path}:pre_tool_use:1:0" in state  # ours is the second group
    assert f"{path}:pre_tool_use:0:0" not in state  # the user's own hook is not ours to trust


def test_codex_skips_events_registered_inline_in_the_same_folder(dirs: dict[str, Any]) -> None:
    codex_home = dirs["home"] / ".codex"
    inline = install.render_codex_toml({"PreToolUse": install.hooks_table(CODEX)["PreToolUse"]})
    write(codex_home / "config.toml", 'model = "gpt-5.5"\n\n' + inline)
    hooks_change, trust_change = plan_install(CODEX, "user", trust=True, **dirs)
    assert hooks_change.new_text is not None
    hooks = json.loads(hooks_change.new_text)["hooks"]
    assert "PreToolUse" not in hooks and "PostToolUse" in hooks
    assert any(
        m.startswith("skipped PreToolUse: already registered in") for m in hooks_change.messages
    )
    assert trust_change.new_text is not None
    state = tomllib.loads(trust_change.new_text)["hooks"]["state"]
    assert f"{codex_home}/config.toml:pre_tool_use:0:0" in state  # the inline copy gets trusted too


def test_codex_project_install_skips_what_the_user_layer_runs(dirs: dict[str, Any]) -> None:
    apply(plan_install(CODEX, "user", **dirs), now=NOW)
    [change] = plan_install(CODEX, "project", **dirs)
    assert not change.changed and change.new_text is None
    assert "nothing to add" in change.messages[0]
    assert any("does not de-duplicate" in m for m in change.messages)
    # the project's file is not written: Codex's trust of the project does not matter to it
    assert not any("trusted project" in m for m in change.messages), change.messages


def test_codex_user_install_warns_about_a_project_copy(dirs: dict[str, Any]) -> None:
    apply(plan_install(CODEX, "project", **dirs), now=NOW)
    [change] = plan_install(CODEX, "user", **dirs)
    assert change.changed
    assert any(
        "also registers loopguard-hook" in m and "--scope project" in m for m in change.messages
    )


def test_codex_project_install_mentions_project_trust(dirs: dict[str, Any]) -> None:
    [change] = plan_install(CODEX, "project", **dirs)
    assert any("trusted project" in m for m in change.messages)
    root = os.path.realpath(dirs["project_dir"])
    write(
        dirs["home"] / ".codex" / "config.toml", f'[projects."{root}"]\ntrust_level = "trusted"\n'
    )
    [change] = plan_install(CODEX, "project", **dirs)
    assert not any("trusted project" in m for m in change.messages)


def test_codex_project_trust_note_when_the_project_file_holds_the_hook(dirs: dict[str, Any]) -> None:
    """The project's file already holds the hook (an earlier project install), and install runs
    again: the project's copy still loads only in a trusted project, so the note stays."""
    apply(plan_install(CODEX, "project", **dirs), now=NOW)
    [change] = plan_install(CODEX, "project", **dirs)
    assert "already registered" in change.messages[0]
    assert any("trusted project" in m for m in change.messages)


def test_codex_hooks_disabled_by_feature_flag_is_reported(dirs: dict[str, Any]) -> None:
    write(dirs["home"] / ".codex" / "config.toml", "[features]\nhooks = false\n")
    [change] = plan_install(CODEX, "user", **dirs)
    assert any("[features] hooks = false" in m for m in change.messages)


def test_codex_uninstall_notes_trust_keys_that_move(dirs: dict[str, Any]) -> None:
    path = write(
        dirs["home"] / ".codex" / "hooks.json",
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "*",
                            "hooks": [
                                {"type": "command", "command": "loopguard-hook", "timeout": 10}
                            ],
                        },
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]},
                    ]
                }
            }
        ),
    )
    [change] = plan_uninstall(CODEX, "user", **dirs)
    assert change.new_text is not None
    assert json.loads(change.new_text) == {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}
            ]
        }
    }
    assert any("review those hooks again" in m for m in change.messages)
    assert path.exists()


def test_codex_uninstall_takes_out_the_trust_records_install_wrote(dirs: dict[str, Any]) -> None:
    """`install --trust` then `uninstall` gives config.toml back byte for byte, and no backup stays."""
    config = write(dirs["home"] / ".codex" / "config.toml", 'model = "o4"\n\n[projects."/x"]\ntrust_level = "trusted"\n')
    before = config.read_text()
    apply(plan_install(CODEX, "user", **dirs, trust=True))
    assert "trusted_hash" in config.read_text()
    changes = plan_uninstall(CODEX, "user", **dirs)
    assert [c.path.name for c in changes] == ["hooks.json", "config.toml"]
    assert any("removes the 7 Codex trust record(s)" in m for m in changes[1].messages)
    apply(changes, undo=True)
    assert config.read_text() == before
    assert sorted(p.name for p in config.parent.iterdir()) == ["config.toml"]


def test_codex_uninstall_removes_a_config_toml_install_made_for_the_records(dirs: dict[str, Any]) -> None:
    apply(plan_install(CODEX, "user", **dirs, trust=True))
    apply(plan_uninstall(CODEX, "user", **dirs), undo=True)
    assert list((dirs["home"] / ".codex").iterdir()) == []


def test_codex_uninstall_leaves_trust_records_changed_since_install(dirs: dict[str, Any]) -> None:
    config = write(dirs["home"] / ".codex" / "config.toml", 'model = "o4"\n')
    apply(plan_install(CODEX, "user", **dirs, trust=True))
    text = config.read_text()
    first = text.index("trusted_hash")
    config.write_text(text[:first] + "enabled = false\n" + text[first:])  # the user disabled one hook
    changes = plan_uninstall(CODEX, "user", **dirs)
    apply(changes, undo=True)
    left = tomllib.loads(config.read_text())
    assert len(left["hooks"]["state"]) == 1 and next(iter(left["hooks"]["state"].values()))["enabled"] is False
    assert any("1 Codex trust record(s) of the removed hooks stay" in m for m in changes[1].messages)
    assert left["model"] == "o4"


# -- Codex: trust hash and config.toml ----------------------------------------------------------


def test_trusted_hash_matches_the_recipe_computed_by_hand() -> None:
    identity = (
        '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"loopguard-hook",'
        '"timeout":10,"type":"command"}],"matcher":"*"}'
    )
    by_hand = "sha256:" + hashlib.sha256(identity.encode()).hexdigest()
    entry = install.hooks_table(CODEX)["PreToolUse"][0]["hooks"][0]
    assert trusted_hash("PreToolUse", "*", entry) == by_hand
    # the value codex-cli 0.171.0 `hooks/list` reports as currentHash for this handler
    assert by_hand == "sha256:683c21885635d20d91f7dcf0cf957e81f7e4528c354506c8f268d413496b6ec9"


def test_trusted_hash_defaults_and_optional_fields() -> None:
    # no timeout -> 600; statusMessage only when set (codex-cli 0.171.0 hooks/list value)
    entry = {"type": "command", "command": "echo other", "statusMessage": "checking"}
    identity = (
        '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"echo other",'
        '"statusMessage":"checking","timeout":600,"type":"command"}],"matcher":"Bash"}'
    )
    assert (
        trusted_hash("PreToolUse", "Bash", entry)
        == "sha256:" + hashlib.sha256(identity.encode()).hexdigest()
    )
    assert trusted_hash("PreToolUse", "Bash", entry) == (
        "sha256:fb34cac1651a8f11b80863bb46a79c86b699e6d33a8f2fad691e5cab9952023c"
    )
    # Stop takes no matcher, so a written one is not part of the identity
    stop = {"type": "command", "command": "echo stop"}
    assert (
        trusted_hash("Stop", "ignored", stop)
        == trusted_hash("Stop", None, stop)
        == ("sha256:236335e9e512004a0f5f42af65a07ea9059bd9a23dbb68286ed57fecf2b69ddf")
    )
    # non-ASCII is hashed as UTF-8, not as \u escapes (Codex serialises with serde_json)
    uni = {"type": "command", "command": "loopguard-hook --note ü", "timeout": 10}
    identity = (
        '{"event_name":"stop","hooks":[{"async":false,"command":"loopguard-hook --note ü",'
        '"timeout":10,"type":"command"}]}'
    )
    assert (
        trusted_hash("Stop", None, uni)
        == "sha256:" + hashlib.sha256(identity.encode("utf-8")).hexdigest()
    )


def test_trust_entries_cover_only_our_handlers() -> None:
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]},
            {
                "matcher": "*",
                "hooks": [
                    {"type": "command", "command": "echo first"},
                    {
                        "type": "command",
                        "command": "loopguard-hook --profile breaker",
                        "timeout": 10,
                    },
                ],
            },
        ],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "loopguard-hook", "timeout": 3}]}],
    }
    entries = trust_entries("/h/.codex/hooks.json", hooks)
    assert list(entries) == [
        "/h/.codex/hooks.json:pre_tool_use:1:1",
        "/h/.codex/hooks.json:session_end:0:0",
    ]
    assert entries["/h/.codex/hooks.json:session_end:0:0"] == trusted_hash(
        "SessionEnd", None, {"command": "loopguard-hook", "timeout": 3}
    )


CONFIG_TOML = """\
# my Codex settings
model = "gpt-5.5"
approval_policy = "on-request"   # ask first

[projects."/home/ana/work"]
trust_level = "trusted"

[hooks.state."/home/ana/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:stale"
enabled = true

[hooks.state.'/home/ana/.codex/hooks.json:pre_tool_use:0:0']
enabled = false

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]
"""


def test_plan_trust_merges_without_disturbing_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", CONFIG_TOML)
    entries = {
        "/home/ana/.codex/hooks.json:stop:0:0": "sha256:new-stop",
        "/home/ana/.codex/hooks.json:pre_tool_use:0:0": "sha256:new-pre",
        '/home/ana/odd "dir"\\x/.codex/hooks.json:session_end:0:0': "sha256:new-end",
    }
    change = plan_trust(path, entries)
    assert change.new_text is not None
    old_doc, new_doc = tomllib.loads(CONFIG_TOML), tomllib.loads(change.new_text)
    state = new_doc["hooks"]["state"]
    assert {k: v["trusted_hash"] for k, v in state.items()} == {
        "/home/ana/.codex/hooks.json:stop:0:0": "sha256:new-stop",
        "/home/ana/.codex/hooks.json:pre_tool_use:0:0": "sha256:new-pre",
        '/home/ana/odd "dir"\\x/.codex/hooks.json:session_end:0:0': "sha256:new-end",
    }
    assert state["/home/ana/.codex/hooks.json:stop:0:0"]["enabled"] is True
    assert state["/home/ana/.codex/hooks.json:pre_tool_use:0:0"]["enabled"] is False
    del new_doc["hooks"]
    del old_doc["hooks"]
    assert new_doc == old_doc
    # edits in place: the stale hash line is replaced, the missing one goes under its header
    new_lines = change.new_text.splitlines()
    assert new_lines[:9] == CONFIG_TOML.splitlines()[:8] + ['trusted_hash = "sha256:new-stop"']
    assert new_lines[11:13] == [
        "[hooks.state.'/home/ana/.codex/hooks.json:pre_tool_use:0:0']",
        'trusted_hash = "sha256:new-pre"',
    ]
    assert (
        "# my Codex settings" in new_lines
        and 'approval_policy = "on-request"   # ask first' in new_lines
    )
    assert any("disabled" in m and "pre_tool_use:0:0" in m for m in change.messages)
    assert path.read_text() == CONFIG_TOML
    # idempotent
    write(path, change.new_text)
    assert not plan_trust(path, entries).changed


def test_plan_trust_creates_a_missing_config(tmp_path: Path) -> None:
    change = plan_trust(tmp_path / "config.toml", {"/h/hooks.json:stop:0:0": "sha256:x"})
    assert change.old_text is None and change.new_text is not None
    assert change.new_text.startswith("# Codex hook trust for loopguard-hook")
    assert tomllib.loads(change.new_text) == {
        "hooks": {"state": {"/h/hooks.json:stop:0:0": {"trusted_hash": "sha256:x"}}}
    }


def test_plan_trust_appends_after_a_file_without_final_newline(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", 'model = "gpt-5.5"')
    change = plan_trust(path, {"k": "sha256:x"})
    assert change.new_text is not None
    assert change.new_text.startswith('model = "gpt-5.5"\n\n# Codex hook trust')
    assert tomllib.loads(change.new_text) == {
        "model": "gpt-5.5",
        "hooks": {"state": {"k": {"trusted_hash": "sha256:x"}}},
    }


def test_plan_trust_refuses_invalid_toml(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", 'model = "gpt-5.5\n')
    with pytest.raises(InstallError, match=rf"^{path}: not valid TOML \(.*line 1"):
        plan_trust(path, {"k": "sha256:x"})


@pytest.mark.parametrize(
    "text",
    [
        "hooks = { state = {} }\n",  # an inline table cannot be extended
        '[hooks]\nstate = { "k" = { enabled = true } }\n',  # the record itself is inline
        'hooks.state."k".enabled = true\n',  # dotted keys
    ],
)
def test_plan_trust_refuses_forms_it_cannot_edit_and_gives_the_lines(
    tmp_path: Path, text: str
) -> None:
    path = write(tmp_path / "config.toml", text)
    with pytest.raises(InstallError, match="by hand") as info:
        plan_trust(path, {"k": "sha256:x"})
    assert '[hooks.state."k"]\ntrusted_hash = "sha256:x"' in str(info.value)
    assert path.read_text() == text


def test_codex_install_with_trust_refuses_invalid_config_toml(dirs: dict[str, Any]) -> None:
    config = write(dirs["home"] / ".codex" / "config.toml", "[broken\n")
    with pytest.raises(InstallError, match=rf"^{config}: not valid TOML"):
        plan_install(CODEX, "user", trust=True, **dirs)
    [change] = plan_install(CODEX, "user", **dirs)  # without --trust the hooks still install
    assert change.changed and any("not valid TOML" in m for m in change.messages)


def test_render_codex_toml_escapes_strings() -> None:
    command = 'loopguard-hook --note "a\\b"\tc'
    table = {
        "Stop": [
            {"hooks": [{"type": "command", "command": command, "timeout": 10, "async": False}]}
        ]
    }
    assert tomllib.loads(install.render_codex_toml(table)) == {"hooks": table}


# -- reports ----------------------------------------------------------------------------------


def test_report_shows_diff_backup_and_messages(dirs: dict[str, Any]) -> None:
    path = write(dirs["home"] / ".claude" / "settings.json", CLAUDE_SETTINGS)
    report = install.format_report(apply(plan_install(CLAUDE_CODE, "user", **dirs), now=NOW))
    assert report.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert f"wrote {path} (backup: {path}.bak-loopguard-20261130123456)\n" in report
    assert f"registers `loopguard-hook` in {path} for: PreToolUse," in report
    noop = install.format_report(plan_install(CLAUDE_CODE, "user", **dirs), dry_run=True)
    assert noop == f"{path}: loopguard-hook is already registered; nothing to change\n"


# -- import weight ----------------------------------------------------------------------------


def test_the_hook_path_does_not_import_install() -> None:
    code = (
        "import sys\n"
        "from loopguard_hook.entry import main\n"
        "rc = main(['--dry-run'])\n"
        "sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n')\n"
        "raise SystemExit(rc)\n"
    )
    payload = json.dumps(
        {
            "session_id": "s",
            "transcript_path": "",
            "cwd": "/",
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], input=payload.encode(), capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    modules = proc.stderr.decode().rsplit("MODULES ", 1)[1].split()
    assert "loopguard_hook.install" not in modules
    assert "click" not in modules


def test_install_module_does_not_import_click() -> None:
    code = "import sys, loopguard_hook.install; print('click' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_install_warns_when_the_command_lives_only_in_the_active_virtualenv(tmp_path: Path) -> None:
    """A new user follows the README into a virtualenv and runs `install`: the command is found
    here only because that virtualenv is active, so a client started from another shell will not
    find it. `install` says so at once (before, only `doctor` did); outside it, no such line."""
    script = Path(sys.executable).with_name("loopguard-hook")
    if not script.exists():
        pytest.skip("no console script beside this interpreter")
    venv = script.parent.parent
    env = {"HOME": str(tmp_path), "PATH": f"{script.parent}:/usr/bin:/bin", "VIRTUAL_ENV": str(venv)}
    argv = [str(script), "install", "--client", "claude-code"]
    inside = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert inside.returncode == 0, inside.stderr
    assert "inside the virtualenv active in this shell" in inside.stderr and "pipx install" in inside.stderr, inside.stderr
    assert (tmp_path / ".claude" / "settings.json").exists()
    del env["VIRTUAL_ENV"]
    outside = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert outside.returncode == 0 and "virtualenv" not in outside.stderr, outside.stderr
    # a second copy on PATH outside the virtualenv (`~/.local/bin`): another shell finds that one
    local = tmp_path / ".local" / "bin"
    local.mkdir(parents=True)
    (local / "loopguard-hook").write_text("#!/bin/sh\nexit 0\n")
    (local / "loopguard-hook").chmod(0o755)
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{script.parent}:{local}:/usr/bin:/bin")
    both = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert both.returncode == 0 and "virtualenv" not in both.stderr, both.stderr


def test_uninstall_of_a_scope_that_holds_nothing_names_the_scope_that_does(tmp_path: Path) -> None:
    """A new user installed with `--scope local` and ran `uninstall --client claude-code`: the user
    file holds nothing of install's, so nothing changes (exit 0), and a note names the local file
    and the command that removes it; that command does."""
    script = Path(sys.executable).with_name("loopguard-hook")
    if not script.exists():
        pytest.skip("no console script beside this interpreter")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = {"HOME": str(tmp_path / "home"), "PATH": f"{script.parent}:/usr/bin:/bin"}
    local = project / ".claude" / "settings.local.json"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(script), *args], cwd=project, env=env, capture_output=True, text=True, timeout=60)

    assert run("install", "--client", "claude-code", "--scope", "local").returncode == 0 and local.exists()
    done = run("uninstall", "--client", "claude-code")
    assert done.returncode == 0 and "not registered there; nothing to change" in done.stdout, done
    assert (f"note: {local} registers it (local scope): `loopguard-hook uninstall --client claude-code --scope local` "
            "removes it") in done.stdout, done.stdout
    assert local.exists()
    assert run("uninstall", "--client", "claude-code", "--scope", "local").returncode == 0 and not local.exists()
    done = run("uninstall", "--client", "claude-code")
    assert done.returncode == 0 and "note:" not in done.stdout, done.stdout


def test_uninstall_notes_are_best_effort_a_scope_it_cannot_read_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking at the other scopes must not break an uninstall: a folder this user cannot read
    there (PermissionError from `Path.exists`) leaves the note out, exit 0, nothing written."""
    from click.testing import CliRunner

    from loopguard_hook import install as install_mod
    from loopguard_hook.cli import cli

    planned = install_mod.plan_uninstall

    def plan(client: str, scope: str, **kw: Any) -> Any:
        if scope != "user":
            raise PermissionError(13, "Permission denied", str(tmp_path / "project/.claude"))
        return planned(client, scope, **kw)

    monkeypatch.setattr(install_mod, "plan_uninstall", plan)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["uninstall", "--client", "claude-code"], env={"HOME": str(tmp_path / "home")})
    assert result.exit_code == 0, result.output
    assert "nothing to change" in result.output and "note:" not in result.output and "internal error" not in result.output
    assert not (tmp_path / "home").exists()
