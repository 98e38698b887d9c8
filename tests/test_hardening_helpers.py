"""Shared pieces of the hardening tests: run the real console script, snapshot a directory tree,
build payloads in the shapes the two clients really send.

This module holds no tests; the `test_hardening_*.py` modules import it.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from loopguard_hook.store import _valid, session_file_name

#: The console script installed next to the interpreter running the tests (the venv's bin/).
HOOK = str(Path(sys.executable).with_name("loopguard-hook"))
if not os.path.exists(HOOK):  # pragma: no cover - a venv without the script on this path
    HOOK = shutil.which("loopguard-hook") or HOOK


@dataclass(frozen=True)
class Run:
    """One finished process: exit code, output, peak RSS (KiB) and wall time (seconds)."""

    returncode: int
    stdout: bytes
    stderr: bytes
    max_rss_kib: int
    seconds: float

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.decode("utf-8", "replace").splitlines()


def spawn(
    args: list[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ if env is None else env),
        cwd=cwd,
        preexec_fn=preexec_fn,
    )


def finish(proc: subprocess.Popen[bytes], stdin: bytes, *, timeout: float = 60.0, started: float | None = None) -> Run:
    """Feed `stdin`, collect the output, and reap the process with `wait4` to get its own peak RSS."""
    t0 = time.monotonic() if started is None else started
    out: list[bytes] = []
    err: list[bytes] = []
    assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
    readers = [
        threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True),  # type: ignore[union-attr]
        threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True),  # type: ignore[union-attr]
    ]
    for reader in readers:
        reader.start()
    try:
        proc.stdin.write(stdin)
    except BrokenPipeError:
        pass
    finally:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            raise AssertionError(f"{proc.args!r} did not finish within {timeout} s")
        time.sleep(0.002)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - t0
    for reader in readers:
        reader.join(10)
    proc.stdout.close()
    proc.stderr.close()
    return Run(proc.returncode, b"".join(out), b"".join(err), usage.ru_maxrss, elapsed)


def run_hook(
    stdin: bytes,
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
    timeout: float = 60.0,
) -> Run:
    """Run the real `loopguard-hook` console script once; `max_rss_kib` is the hook's own peak
    (see `run_measured`)."""
    return run_measured([HOOK, *args], stdin, env=env, cwd=cwd, preexec_fn=preexec_fn, timeout=timeout)


def run_measured(
    argv: list[str],
    stdin: bytes = b"",
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
    timeout: float = 60.0,
) -> Run:
    """Run `argv` once to its end; `max_rss_kib` is its own peak RSS (KiB).

    Linux keeps a process's peak RSS across `execve`, and a child started from the test process
    starts from the test process's size (over 300 MB late in a full run). So the command is started
    by a small trampoline that forks it and reports its peak from `wait4`.
    """
    started = time.monotonic()
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="rss-", delete=False) as report:
        report_path = report.name
    try:
        base = dict(os.environ if env is None else env)
        proc = spawn(
            [sys.executable, "-S", "-c", _TRAMPOLINE, report_path, *argv],
            env=base,
            cwd=cwd,
            preexec_fn=preexec_fn,
        )
        run = finish(proc, stdin, timeout=timeout, started=started)
        with open(report_path) as fh:
            text = fh.read().strip()
        return replace(run, max_rss_kib=int(text)) if text else run
    finally:
        os.unlink(report_path)


#: Fork the command given after the report path, wait for it, write its peak RSS (KiB) to the
#: report file, and exit as it did (a signal is passed on as the same signal).
_TRAMPOLINE = """
import os, signal, sys
report, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as fh:
    fh.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
os._exit(code)
"""


def wait_until_reading_stdin(procs: list[subprocess.Popen[bytes]], timeout: float = 30.0) -> bool:
    """Wait until every process sleeps in a read of fd 0 (imports done, ready to go at once).

    Uses /proc/<pid>/syscall (x86-64 `read` is 0, arm64 63); returns False if that cannot be told.
    """
    read_numbers = {"0", "63"}
    deadline = time.monotonic() + timeout
    pending = {p.pid for p in procs}
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                with open(f"/proc/{pid}/syscall") as fh:
                    fields = fh.read().split()
            except OSError:
                return False
            if len(fields) > 1 and fields[0] in read_numbers and fields[1] == "0x0":
                pending.discard(pid)
        if pending:
            time.sleep(0.01)
    return not pending


# -- file trees -------------------------------------------------------------------------------


def snapshot(root: str | os.PathLike[str]) -> dict[str, tuple[Any, ...]]:
    """Every entry below `root` (not following symlinks): kind, mode, size, mtime, content digest."""
    out: dict[str, tuple[Any, ...]] = {}
    root = os.fspath(root)
    if not os.path.lexists(root):
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            rel = os.path.relpath(path, root)
            if stat.S_ISREG(info.st_mode):
                with open(path, "rb") as fh:
                    content = hashlib.sha256(fh.read()).hexdigest()
                out[rel] = ("file", stat.S_IMODE(info.st_mode), info.st_size, info.st_mtime_ns, content)
            elif stat.S_ISLNK(info.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                out[rel] = ("dir", stat.S_IMODE(info.st_mode))
            else:
                out[rel] = ("other", stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode))
    return out


def load_state(state_dir: str | os.PathLike[str], session_id: str) -> dict[str, Any]:
    """The ledger of a session as the hook left it; fails the test if it is not a valid ledger."""
    path = Path(state_dir, "sessions", session_file_name(session_id) + ".json")
    state = orjson.loads(path.read_bytes())
    assert _valid(state), f"{path} is not a valid ledger"
    return state  # type: ignore[no-any-return]


# -- privileges ---------------------------------------------------------------------------------

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3


def drop_file_capabilities() -> None:
    """In a child (preexec_fn): as root, lose the capabilities that ignore file permissions.

    Dropped from the bounding set before exec, so the hook runs as a root that a 0500 directory
    stops, like any user.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def permissions_bind_root() -> bool:
    """True when file permissions stop this process (not root, or root without DAC override)."""
    return os.geteuid() != 0


def can_drop_capabilities() -> bool:
    try:
        result = subprocess.run(
            [sys.executable, "-c", "pass"], preexec_fn=drop_file_capabilities, capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def can_unshare_mount() -> bool:
    """True when `unshare -m` can give a child a private mount namespace (root, no seccomp ban)."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return False
    try:
        result = subprocess.run([unshare, "-m", "--propagation", "private", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def in_private_mount_namespace(driver: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """Run the Python `driver` source with `args` under `unshare -m`: its mounts stay its own."""
    command = ["unshare", "-m", "--propagation", "private", sys.executable, "-c", driver, *args]
    return subprocess.run(command, capture_output=True, timeout=timeout)


# -- payloads in the captured shapes ----------------------------------------------------------

CLAUDE_BASE: dict[str, Any] = {
    "transcript_path": "/home/user/.claude/projects/-home-user-project/{sid}.jsonl",
    "cwd": "/home/user/project",
    "prompt_id": "6f112c9e-cfc0-4043-802d-f77cafaed5ea",
    "permission_mode": "default",
    "effort": {"level": "medium"},
}
CODEX_BASE: dict[str, Any] = {
    "turn_id": "01a22ad7-5e9c-70e0-92ad-1e198439a017",
    "transcript_path": "/home/user/.codex/sessions/2026/11/30/rollout-2026-11-30T05-04-47-{sid}.jsonl",
    "cwd": "/home/user/project",
    "model": "gpt-5.5",
    "permission_mode": "bypassPermissions",
}


def base(client: str, session_id: str, cwd: str | None = None) -> dict[str, Any]:
    """The fields every payload of `client` carries (Claude Code 2.1.332, Codex 0.171.0 captures)."""
    out = dict(CODEX_BASE if client == "codex" else CLAUDE_BASE)
    out["transcript_path"] = out["transcript_path"].format(sid="x")
    out["session_id"] = session_id
    if cwd is not None:
        out["cwd"] = cwd
    return out


def pre(client: str, session_id: str, tool: str, tool_input: Any, tool_use_id: str | None, **extra: Any) -> dict[str, Any]:
    payload = base(client, session_id, extra.pop("cwd", None))
    payload.update(hook_event_name="PreToolUse", tool_name=tool, tool_input=tool_input)
    if tool_use_id is not None:
        payload["tool_use_id"] = tool_use_id
    payload.update(extra)
    return payload


def post(
    client: str, session_id: str, tool: str, tool_input: Any, tool_use_id: str | None, response: Any, **extra: Any
) -> dict[str, Any]:
    payload = pre(client, session_id, tool, tool_input, tool_use_id, **extra)
    payload["hook_event_name"] = "PostToolUse"
    payload["tool_response"] = response
    if client == "claude-code":
        payload["duration_ms"] = 12
    return payload


def at(seconds: float) -> Callable[[], float]:
    """A clock stopped at `seconds` (for `hook.run`)."""
    return lambda: seconds


def dumps(payload: Any) -> bytes:
    return orjson.dumps(payload) + b"\n"


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)
