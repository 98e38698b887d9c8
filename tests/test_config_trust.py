"""Trust for project files: a project's `.loopguard.toml` tunes detection for that project, but
the keys that reach other projects or the user's own data (`USER_SCOPE_KEYS`: what gc deletes at
each SessionStart, when the shared audit log rotates, the trust list itself) count only when
the user trusts that project (`trusted_projects` in the user config).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from test_hardening_helpers import HOOK, dumps, post, pre

from loopguard_hook.config import load as config_mod
from loopguard_hook.config.keys import USER_SCOPE_KEYS
from loopguard_hook.hook import HookOptions, run

HOSTILE = "idle_session_seconds = 0.001\naudit_log_max_bytes = 4096\ntrusted_projects = ['/']\ndeny_at = 6\n"


def _project(tmp_path: Path, text: str = HOSTILE) -> Path:
    project = tmp_path / "untrusted"
    project.mkdir(exist_ok=True)
    (project / ".loopguard.toml").write_text(text)
    return project


def test_an_untrusted_project_tunes_detection_but_not_what_reaches_other_projects(tmp_path: Path) -> None:
    project = _project(tmp_path)
    resolved = config_mod.load(environ={}, cwd=str(project), user_path="")
    assert resolved.config.deny_at == 6  # detection: the project's own business
    assert resolved.config.idle_session_seconds == 604800.0
    assert resolved.config.audit_log_max_bytes == 1048576
    assert resolved.config.trusted_projects == ()
    assert {line.split(": ")[1].split()[0] for line in resolved.ignored} == set(USER_SCOPE_KEYS)


@pytest.mark.parametrize("entry", ["{project}", "{parent}", "{project}/"])
def test_a_trusted_project_sets_them(tmp_path: Path, entry: str) -> None:
    project = _project(tmp_path)
    user = tmp_path / "user.toml"
    user.write_text(f"trusted_projects = [{entry.format(project=project, parent=tmp_path)!r}]\n")
    resolved = config_mod.load(environ={}, cwd=str(project), user_path=str(user))
    assert resolved.config.idle_session_seconds == 0.001 and resolved.config.audit_log_max_bytes == 4096
    assert [line for line in resolved.ignored if "trusted_projects ignored" not in line] == []


def test_trust_is_the_folder_that_holds_the_file_not_the_calls(tmp_path: Path) -> None:
    """A call in a subfolder reads the repository root's file: trusting the subfolder does not
    trust the root's file (a project file found above the call is the root project's)."""
    project = _project(tmp_path)
    (project / ".git").mkdir()
    sub = project / "packages" / "api"
    sub.mkdir(parents=True)
    user = tmp_path / "user.toml"
    user.write_text(f"trusted_projects = [{str(sub)!r}]\n")
    resolved = config_mod.load(environ={}, cwd=str(sub), user_path=str(user))
    assert resolved.config.deny_at == 6 and resolved.config.idle_session_seconds == 604800.0
    user.write_text(f"trusted_projects = [{str(project)!r}]\n")
    assert config_mod.load(environ={}, cwd=str(sub), user_path=str(user)).config.idle_session_seconds == 0.001


def test_a_trust_entry_is_no_prefix_of_a_sibling(tmp_path: Path) -> None:
    project = _project(tmp_path)
    user = tmp_path / "user.toml"
    user.write_text(f"trusted_projects = [{str(project)[:-2]!r}]\n")  # /…/untrust, not /…/untrusted
    resolved = config_mod.load(environ={}, cwd=str(project), user_path=str(user))
    assert resolved.config.idle_session_seconds == 604800.0


def _call(state: Path, session: str, cwd: Path, n: int, clock: float) -> None:
    options = HookOptions(client="claude-code", state_dir=str(state))
    call = {"command": f"ls -d src/part{n}"}
    for payload in (pre("claude-code", session, "Bash", call, f"t{n}", cwd=str(cwd)),
                    post("claude-code", session, "Bash", call, f"t{n}", {"stdout": "", "stderr": ""}, cwd=str(cwd))):
        result = run(dumps(payload), options=options, environ={}, clock=lambda: clock, user_config="")
        assert result.exit_code == 0, result.stderr


def test_an_untrusted_projects_session_start_deletes_no_other_session(tmp_path: Path) -> None:
    """`idle_session_seconds = 0.001` in an untrusted project: its SessionStart used to delete
    every other project's ledger."""
    state = tmp_path / "state"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _call(state, "other-project", elsewhere, 1, 1_800_000_000.0)
    project = _project(tmp_path)
    start = {**pre("claude-code", "hostile", "Bash", {}, "x", cwd=str(project)), "hook_event_name": "SessionStart",
             "source": "startup"}
    old = time.time() - 3600  # gc compares file times with the wall clock
    os.utime(state / "sessions" / "other-project.json", (old, old))
    result = run(dumps(start), options=HookOptions(client="claude-code", state_dir=str(state)), environ={},
                 clock=lambda: 1_800_000_000.0, user_config="")
    assert result.exit_code == 0, result.stderr
    assert (state / "sessions" / "other-project.json").is_file()


def test_an_untrusted_project_does_not_rotate_the_shared_audit_log(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    history = b'{"rule": "LOOP_GUARD_REPEAT", "note": "another project\'s history"}\n' * 200  # about 14 KB
    (state / "decisions.jsonl").write_bytes(history)
    project = _project(tmp_path)
    for n in range(6):  # the same call: reminders and a denial, each appended to the audit log
        options = HookOptions(client="claude-code", state_dir=str(state))
        call = {"command": "make"}
        for payload in (pre("claude-code", "s", "Bash", call, f"t{n}", cwd=str(project)),
                        post("claude-code", "s", "Bash", call, f"t{n}", {"stdout": "", "stderr": ""}, cwd=str(project))):
            assert run(dumps(payload), options=options, environ={}, clock=lambda n=n: 1.8e9 + 5 * n,
                       user_config="").exit_code == 0
    assert not (state / "decisions.jsonl.1").exists()
    assert (state / "decisions.jsonl").read_bytes().startswith(history)


def test_config_show_and_check_say_what_was_ignored(tmp_path: Path) -> None:
    project = _project(tmp_path)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("LOOPGUARD_")},
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}
    env.pop("CLAUDE_PROJECT_DIR", None)
    for args in (["config", "show"], ["config", "check"]):
        proc = subprocess.run([HOOK, *args], cwd=project, env=env, capture_output=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout.decode()
        assert "idle_session_seconds ignored" in out and "trusted_projects = [" in out, out
