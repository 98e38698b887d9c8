"""State only where it belongs: a payload's `cwd` never chooses where a folder is made.

A workspace state folder (`<dir>/.loopguard-hook/`) is made only in the directory the hook was
started in, only when the payload's `cwd` is that directory, the directory is this user's, and it
is neither `/`, nor right under it, nor a system folder. Anything else: the user cache dir, and
when that cannot be written either, one stderr line and nothing made anywhere.

Other users are simulated as root with `chown` in the test's own temp folder; those tests are
skipped when not run as root.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_dsh_state import SESSION, dsh_pre, env, workspace  # noqa: F401 - fixtures
from test_hardening_helpers import dumps, pre, run_hook

from loopguard_hook.store import location

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a folder to another user")
#: A cache dir that cannot be created: EACCES/EPERM, as `~/.cache` is in a DSH sandbox.
UNWRITABLE_CACHE = "/sys/fs/loopguard-cache"


def _cache(env: dict[str, str]) -> Path:  # noqa: F811
    return Path(env["XDG_CACHE_HOME"]) / "loopguard-hook" / "sessions" / f"{SESSION}.json"


def _others_home(tmp_path: Path) -> Path:
    """A 0700 folder of another user, as `/home/<someone>` is."""
    home = tmp_path / "someone"
    home.mkdir()
    (home / "project").mkdir()
    for path in (home / "project", home):
        os.chown(path, NOBODY, NOBODY)
    home.chmod(0o700)
    return home / "project"


@as_root
@pytest.mark.parametrize("cwd_is_there", [True, False])
def test_a_dsh_payload_pointing_at_another_users_folder_makes_nothing_there(
    tmp_path: Path, env: dict[str, str], cwd_is_there: bool  # noqa: F811
) -> None:
    """Whether the hook runs in that folder (as root can) or elsewhere: the state goes to the
    cache dir, and the other user's folder gets no root-owned folder they cannot remove."""
    theirs = _others_home(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    outcome = run_hook(dsh_pre(theirs, tmp_path / "home"), env=env, cwd=theirs if cwd_is_there else mine)
    assert outcome.returncode == 0, outcome.stderr
    assert list(theirs.iterdir()) == [] and list(mine.iterdir()) == []
    assert _cache(env).is_file()


@as_root
def test_with_no_writable_cache_dir_another_users_folder_still_gets_nothing(tmp_path: Path, env: dict[str, str]) -> None:  # noqa: F811
    theirs = _others_home(tmp_path)
    for payload in (dsh_pre(theirs, tmp_path / "home"),
                    dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(theirs)))):
        outcome = run_hook(payload, env=dict(env, XDG_CACHE_HOME=UNWRITABLE_CACHE), cwd=theirs)
        assert outcome.returncode == 1 and outcome.stdout == b""
        assert len(outcome.stderr_lines) == 1, outcome.stderr_lines
        assert "belongs to uid 65534" in outcome.stderr_lines[0] or "no workspace" in outcome.stderr_lines[0]
        assert list(theirs.iterdir()) == []


def test_a_payload_cwd_other_than_the_hooks_own_directory_makes_nothing_there(
    tmp_path: Path, env: dict[str, str]  # noqa: F811
) -> None:
    """The payload says one project, the host started the hook in another: neither gets a folder."""
    named, started = tmp_path / "named", tmp_path / "started"
    named.mkdir()
    started.mkdir()
    outcome = run_hook(dsh_pre(named, tmp_path / "home"), env=env, cwd=started)
    assert outcome.returncode == 0, outcome.stderr
    assert list(named.iterdir()) == [] and list(started.iterdir()) == []
    assert _cache(env).is_file()
    # With the cache dir unwritable too (a sandboxed Claude Code hook): one line, nothing made.
    payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(named))
    outcome = run_hook(dumps(payload), env=dict(env, XDG_CACHE_HOME=UNWRITABLE_CACHE), cwd=started)
    assert outcome.returncode == 1 and len(outcome.stderr_lines) == 1, outcome.stderr_lines
    assert list(named.iterdir()) == [] and list(started.iterdir()) == []


@pytest.mark.parametrize("folder", ["/", "/tmp", "/usr/share", "/etc", "/proc/self"])
def test_never_at_the_root_right_under_it_or_in_a_system_folder(
    folder: str, tmp_path: Path, env: dict[str, str]  # noqa: F811
) -> None:
    before = os.path.lexists(os.path.join(folder, ".loopguard-hook"))
    try:
        outcome = run_hook(dsh_pre(Path(folder), tmp_path / "home"), env=env, cwd=folder)
        assert outcome.returncode == 0, outcome.stderr
        assert os.path.lexists(os.path.join(folder, ".loopguard-hook")) == before
        assert _cache(env).is_file()
    finally:
        if not before and os.path.isdir(os.path.join(folder, ".loopguard-hook")):
            shutil.rmtree(os.path.join(folder, ".loopguard-hook"))  # a failing run must not leave it


def test_a_relative_or_dotted_cwd_is_not_the_hooks_directory(tmp_path: Path, env: dict[str, str]) -> None:  # noqa: F811
    here = tmp_path / "p"
    here.mkdir()
    for cwd in (".", "p", str(here / ".." / "p" / "..")):
        payload = json.loads(dsh_pre(here, tmp_path / "home"))
        payload["cwd"] = cwd
        outcome = run_hook(dumps(payload), env=env, cwd=here)
        assert outcome.returncode == 0, outcome.stderr
        assert list(here.iterdir()) == [], cwd


def test_the_workspace_is_used_when_everything_agrees(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    outcome = run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace)
    assert outcome.returncode == 0, outcome.stderr
    assert (workspace / ".loopguard-hook" / "sessions" / f"{SESSION}.json").is_file()


def test_workspace_home_says_why_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert location.workspace_home(str(tmp_path)) == (str(tmp_path / ".loopguard-hook"), "")
    assert location.workspace_home(None)[1] == "the payload names no absolute cwd"
    assert "not the directory" in location.workspace_home("/")[1]
    monkeypatch.chdir("/")
    assert "is / or a folder right under it" in location.workspace_home("/")[1]
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.chdir(shared)
    assert "shared temp folder" in location.workspace_home(str(shared))[1]
