"""The real console script inside DSH's own sandboxes: its Landlock launcher and bubblewrap.

DSH 0.1.0-rc.8 runs each hook as `landlock-run --ro / --rw /dev/null --rw /tmp --rw <workspace>
-- bash -c <hook>` (`dsh-sandbox-local` `landlockProfileArgs`), or, when `bwrap` is on PATH,
`bwrap --ro-bind / / --dev /dev --proc /proc --die-with-parent --tmpfs /tmp --bind <workspace>
<workspace>` (`bwrapProfileArgs` in dsh 0.1.0-rc.8's sandbox package). Here the same launchers confine the hook,
each event a separate confined process as in DSH. The Landlock grants leave /tmp out: pytest's
own scratch folders are under /tmp, and the point is a home directory the hook cannot write.

Skipped unless the launchers are found: the Landlock launcher in the DSH install of the e2e
cache (`DSH_E2E_CACHE`, else `E2E_CLIENT_CACHE`, default `~/.cache/loopguard-hook-e2e`, where
`tests/e2e/dsh/install.py` puts it), bubblewrap on PATH or at `DSH_TEST_BWRAP`.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest
from test_hardening_helpers import HOOK, dumps, pre

# Where the e2e suite installs DSH (tests/e2e/dsh/install.py: E2E_CLIENT_CACHE).
_CACHE = (os.environ.get("DSH_E2E_CACHE") or os.environ.get("E2E_CLIENT_CACHE")
          or os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".cache", "loopguard-hook-e2e"))
_LAUNCHERS = sorted(glob.glob(os.path.join(
    _CACHE, "dsh-*", "node_modules", "@deepseek-ai", "node-addon-landlock-run-linux-x64", "bin", "landlock-run")))
LANDLOCK = _LAUNCHERS[-1] if _LAUNCHERS else None
BWRAP = os.environ.get("DSH_TEST_BWRAP") or shutil.which("bwrap")


def _works(argv: list[str]) -> bool:
    try:
        return subprocess.run([*argv, "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _landlock(workspace: Path) -> list[str]:
    assert LANDLOCK is not None
    return [LANDLOCK, "--ro", "/", "--rw", "/dev/null", "--rw", str(workspace), "--"]


def _bwrap(workspace: Path) -> list[str]:
    assert BWRAP is not None
    return [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--die-with-parent",
            "--tmpfs", "/tmp", "--bind", str(workspace), str(workspace), "--"]


needs_landlock = pytest.mark.skipif(LANDLOCK is None or not _works(_landlock(Path("/tmp"))),
                                    reason="DSH's Landlock launcher is not installed (run the e2e suite, or set DSH_E2E_CACHE)")
needs_bwrap = pytest.mark.skipif(BWRAP is None or not _works(_bwrap(Path("/tmp"))),
                                 reason="no working bubblewrap (PATH or DSH_TEST_BWRAP)")
# DSH's bubblewrap profile gives each hook a private /tmp: a hook installed under /tmp (a scratch
# virtualenv) cannot run there at all, in DSH or here.
needs_hook_outside_tmp = pytest.mark.skipif(os.path.realpath(HOOK).startswith("/tmp/"),
                                            reason="the console script is under /tmp, which bubblewrap hides")

SESSION = "session-b50b3b41-09fd-4bf7-a09d-d5ed9d1c2073"


def _dsh_pre(workspace: Path, home: str, call: str) -> bytes:
    """The Claude Code bridge's PreToolUse (captured PreToolUse.read.json)."""
    return dumps({"session_id": SESSION, "transcript_path": f"{home}/.dsh/sessions/--p--/{SESSION}/session.jsonl.zstd",
                  "cwd": str(workspace), "hook_event_name": "PreToolUse", "tool_name": "read",
                  "tool_input": {"file_path": "notes.txt"}, "tool_use_id": call})


def _confined(launcher: list[str], payload: bytes, workspace: Path, home: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOPGUARD_", "XDG_"))}
    env["HOME"] = home
    return subprocess.run([*launcher, HOOK], input=payload, env=env, cwd=workspace, capture_output=True, timeout=60)


def _check_dsh_events_persist(launcher: list[str], workspace: Path, home: str) -> None:
    for i in range(3):
        done = _confined(launcher, _dsh_pre(workspace, home, f"call_{i}"), workspace, home)
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    ledger = json.loads((workspace / ".loopguard-hook" / "sessions" / f"{SESSION}.json").read_bytes())
    assert ledger["attempts"] == 3, "every confined hook process saw the previous one's state"


@needs_landlock
def test_landlock_dsh_events_keep_their_state_in_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    home = tmp_path / "home"  # readable, not writable under these grants
    home.mkdir()
    _check_dsh_events_persist(_landlock(workspace), workspace, str(home))
    assert not (home / ".cache").exists()


@needs_landlock
def test_landlock_a_claude_code_event_falls_back_to_the_workspace(tmp_path: Path) -> None:
    """EACCES on `~/.cache` (as for DSH's hooks): the hook does not fail, it uses the workspace."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    payload = dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(workspace)))
    done = _confined(_landlock(workspace), payload, workspace, str(home))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert (workspace / ".loopguard-hook" / "sessions" / "s1.json").is_file()
    assert list((home / ".cache").iterdir()) == [], "no probe left behind"


@needs_bwrap
@needs_hook_outside_tmp
def test_bwrap_dsh_events_keep_their_state_in_the_workspace(tmp_path: Path) -> None:
    """A fresh /tmp for every hook process: only the workspace persists."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    _check_dsh_events_persist(_bwrap(workspace), workspace, "/nonexistent-home-of-the-test")


@needs_bwrap
@needs_hook_outside_tmp
def test_bwrap_a_claude_code_event_falls_back_to_the_workspace(tmp_path: Path) -> None:
    """EROFS on a home outside the workspace (bwrap's read-only bind of /)."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    payload = dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(workspace)))
    done = _confined(_bwrap(workspace), payload, workspace, "/nonexistent-home-of-the-test")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert (workspace / ".loopguard-hook" / "sessions" / "s1.json").is_file()
