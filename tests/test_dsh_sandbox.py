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
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
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


@pytest.fixture(autouse=True)
def _stop_workspace_helpers(tmp_path: Path) -> Iterator[None]:
    """Confined hooks start a helper in their workspace (fastpath/confined.py): stop those of
    this test (each a process group), whatever happened."""
    yield
    for lock in tmp_path.glob("**/.loopguard-hook/resident/helper.lock"):
        text = lock.read_text().split("\n")[0]
        if text.isdigit():
            try:
                os.killpg(int(text), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


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


def _served(workspace: Path, at_least: int, timeout: float = 30.0) -> int:
    """Events the workspace helper served (its status file), once it shows `at_least`."""
    deadline = time.monotonic() + timeout
    served = 0
    while time.monotonic() < deadline:
        for status in (workspace / ".loopguard-hook" / "resident").glob("*.status"):
            try:
                served = int(json.loads(status.read_bytes())["events"])
            except (OSError, ValueError):
                continue
        if served >= at_least:
            break
        time.sleep(0.05)
    return served


def _listening(workspace: Path, timeout: float = 30.0) -> int:
    """The pid of the workspace helper once it listens."""
    folder = workspace / ".loopguard-hook" / "resident"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(folder.glob("*.sock")) and not any(folder.glob("*.starting")):
            return int((folder / "helper.lock").read_text().split("\n")[0])
        time.sleep(0.05)
    raise AssertionError(f"no workspace helper in {folder}")


@needs_landlock
def test_landlock_events_are_served_by_a_helper_of_the_workspace_confined_like_them(tmp_path: Path) -> None:
    """From the third event on, a helper started by a confined hook serves them, inside the
    same Landlock sandbox: a Claude Code event still cannot write `~/.cache` (EACCES) and falls
    back to the workspace, whoever runs it."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    for i in range(3):
        payload = dumps(pre("claude-code", "s1", "Bash", {"command": f"ls {i}"}, f"toolu_{i}", cwd=str(workspace)))
        done = _confined(_landlock(workspace), payload, workspace, str(home))
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    pid = _listening(workspace)
    assert b"NoNewPrivs:\t1" in Path(f"/proc/{pid}/status").read_bytes()
    for i in range(3, 9):
        payload = dumps(pre("claude-code", "s1", "Bash", {"command": f"ls {i}"}, f"toolu_{i}", cwd=str(workspace)))
        done = _confined(_landlock(workspace), payload, workspace, str(home))
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert _served(workspace, 4) >= 4
    ledger = json.loads((workspace / ".loopguard-hook" / "sessions" / "s1.json").read_bytes())
    assert ledger["attempts"] == 9
    assert list((home / ".cache").iterdir()) == [], "the helper is as confined as the hooks"


@needs_landlock
def test_landlock_dsh_events_of_a_session_are_served_and_recorded_once(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    for i in range(8):
        done = _confined(_landlock(workspace), _dsh_pre(workspace, str(home), f"call_{i}"), workspace, str(home))
        assert done.returncode == 0 and done.stderr == b"", done.stderr
        if i == 2:
            _listening(workspace)
    assert _served(workspace, 4) >= 4
    ledger = json.loads((workspace / ".loopguard-hook" / "sessions" / f"{SESSION}.json").read_bytes())
    assert ledger["attempts"] == 8


@needs_landlock
def test_landlock_a_process_confined_to_another_workspace_cannot_use_this_ones_helper(tmp_path: Path) -> None:
    """Its sandbox lets it read this workspace (and reach the socket), not write it: it cannot
    open the helper's lock for writing, which every request must carry."""
    from test_resident_confined import FORGE

    one, two, home = tmp_path / "one", tmp_path / "two", tmp_path / "home"
    for path in (one, two, home):
        path.mkdir()
    for i in range(3):
        _confined(_landlock(one), _dsh_pre(one, str(home), f"call_{i}"), one, str(home))
    _listening(one)
    folder = one / ".loopguard-hook" / "resident"
    sock = next(folder.glob("*.sock"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOPGUARD_", "XDG_"))}
    forged = subprocess.run([*_landlock(two), sys.executable, "-c", FORGE, str(sock), str(one), str(folder / "helper.lock"),
                             "w", _dsh_pre(one, str(home), "call_9").decode()],
                            env=dict(env, HOME=str(home)), capture_output=True, timeout=60, check=False)
    assert forged.returncode != 0 and b"PermissionError" in forged.stderr, forged
    ledger = json.loads((one / ".loopguard-hook" / "sessions" / f"{SESSION}.json").read_bytes())
    assert ledger["attempts"] == 3
    for i in range(3):  # the other workspace's hooks: their own state, their own helper
        done = _confined(_landlock(two), _dsh_pre(two, str(home), f"call_{i}"), two, str(home))
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert _listening(two) != _listening(one)


@needs_bwrap
@needs_hook_outside_tmp
def test_bwrap_calls_with_namespaces_of_their_own_leave_no_lasting_helper(tmp_path: Path) -> None:
    """Each bubblewrap call has its own mount namespace (and a private /tmp): a helper started
    there is never reached by the next call. If one is started (the kernel reuses a freed
    namespace's number), it serves nobody, exits a few seconds after its call's bubblewrap, and
    no other is started for a while; every event is answered in-process meanwhile."""
    from loopguard_hook.fastpath import confined

    workspace = tmp_path / "project"
    workspace.mkdir()
    home = "/nonexistent-home-of-the-test"
    folder = workspace / ".loopguard-hook" / "resident"
    for i in range(6):
        done = _confined(_bwrap(workspace), _dsh_pre(workspace, home, f"call_{i}"), workspace, home)
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    deadline = time.monotonic() + 30
    while confined.helper_alive(str(folder)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not confined.helper_alive(str(folder))
    for i in range(6, 12):
        done = _confined(_bwrap(workspace), _dsh_pre(workspace, home, f"call_{i}"), workspace, home)
        assert done.returncode == 0 and done.stderr == b"", done.stderr
        assert not confined.helper_alive(str(folder)) and not list(folder.glob("*.starting"))
    ledger = json.loads((workspace / ".loopguard-hook" / "sessions" / f"{SESSION}.json").read_bytes())
    assert ledger["attempts"] == 12
