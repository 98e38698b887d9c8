"""Helpers for tests of the resident fast path: a private helper folder, and stopping helpers.

A helper is a session leader (`setsid`) whose spares share its process group, so killing the
group stops exactly the processes a test started, nothing else.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

from loopguard_hook.fastpath import client


def short_temp_dir() -> Path:
    """A fresh directory under /tmp with a short path (Unix socket paths are limited to 107 bytes)."""
    return Path(tempfile.mkdtemp(prefix="lgr", dir="/tmp"))


def this_key() -> str:
    """The helper key of a hook started by this test process (same rights, same build)."""
    return client.helper_key(client.process_context()[1], os.environ)


def folder_of(tmpdir: Path) -> Path:
    return tmpdir / f"loopguard-hook-{os.getuid()}"


def helper_pids(tmpdir: Path) -> list[int]:
    """Pids written in the lock files of helpers under `tmpdir`."""
    pids = []
    folder = folder_of(tmpdir)
    for lock in folder.glob("*.lock") if folder.is_dir() else []:
        text = lock.read_text().strip()
        if text.isdigit():
            pids.append(int(text))
    return pids


def wait_for_socket(tmpdir: Path, key: str | None = None, timeout: float = 30.0) -> Path:
    """Wait until the helper of `key` (default: of this test process; "*": any) listens; its
    socket path. A console script has its own key: its `sys.executable` is the script's
    interpreter, maybe another name for the same binary than this process's."""
    key = key or this_key()
    folder = folder_of(tmpdir)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in folder.glob(f"{key}.sock") if folder.is_dir() else []:
            if path.is_socket() and not (folder / f"{path.name[:-5]}.starting").exists():
                return path
        time.sleep(0.02)
    raise AssertionError(f"no helper listening in {folder} (key {key}) after {timeout} s")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours is dead too
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def stop_helpers(tmpdir: Path) -> None:
    """Kill every helper under `tmpdir` with its spares and children, then remove the folder."""
    for pid in helper_pids(tmpdir):
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    shutil.rmtree(tmpdir, ignore_errors=True)
