"""Checks shared by every client: the command on PATH, the state dir it writes, and one
synthetic event run through the exact registered command string."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..store import StateError, Store, default_state_dir, session_file_name

#: Seconds a synthetic event may take when the handler sets no timeout (the hook answers in
#: tens of milliseconds; a client would wait 600 s).
DEFAULT_RUN_TIMEOUT = 10.0


def words(command: str) -> list[str]:
    """The command string split as a POSIX shell would (naively: no expansions)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def program(command: str, env: Mapping[str, str]) -> tuple[str, str | None]:
    """(first word of `command`, where `env`'s PATH finds it or None). An environment
    assignment prefix (`LOOPGUARD_STATE_DIR=… loopguard-hook`) is skipped."""
    parts = [w for w in words(command) if not ("=" in w and w.split("=", 1)[0].isidentifier())]
    if not parts:
        return "", None
    name = os.path.expanduser(parts[0])
    if os.sep in name:
        return name, name if os.access(name, os.X_OK) and os.path.isfile(name) else None
    return name, shutil.which(name, path=env.get("PATH", os.defpath))


def state_dir_of(command: str, env: Mapping[str, str]) -> str:
    """The state dir the command writes: its `--state-dir`, else an inline or inherited
    `LOOPGUARD_STATE_DIR`, else the default (`state.default_state_dir`).

    Raises:
        StateError: no default can be found (no home directory).
    """
    parts = words(command)
    for i, word in enumerate(parts):
        if word == "--state-dir" and i + 1 < len(parts):
            return parts[i + 1]
        if word.startswith("--state-dir="):
            return word.split("=", 1)[1]
    inline = {w.split("=", 1)[0]: w.split("=", 1)[1] for w in parts if w.startswith("LOOPGUARD_STATE_DIR=")}
    return default_state_dir({**env, **inline})


def writable(path: str) -> str | None:
    """None when the guard can create or write `path` (a directory), else why not."""
    current = Path(os.path.abspath(path))
    while not current.exists():
        if current.parent == current:
            return f"no part of {path} exists"
        current = current.parent
    if not current.is_dir():
        return f"{current} is not a directory"
    if not os.access(current, os.W_OK | os.X_OK):
        return f"{current} is not writable by this user"
    return None


def run_event(
    command: str,
    payload: Mapping[str, Any],
    *,
    shell: list[str],
    env: Mapping[str, str],
    cwd: str,
    timeout: float | None,
    trailing_newline: bool = True,
) -> tuple[str | None, str]:
    """Run `command` the way the client does (`shell + [command]`, the payload on stdin).

    Returns:
        (problem or None, what happened: exit code, output, milliseconds).
    """
    data = json.dumps(payload).encode() + (b"\n" if trailing_newline else b"")
    limit = min(timeout or DEFAULT_RUN_TIMEOUT, 60.0)
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [*shell, command], input=data, capture_output=True, env=dict(env), cwd=cwd, timeout=limit, check=False
        )
    except subprocess.TimeoutExpired:
        return f"no answer in {limit:g} s (the client would give up and go on without the guard)", "timed out"
    except OSError as exc:
        return f"cannot start {shell[0]} ({exc.strerror or exc})", "not run"
    ms = round((time.monotonic() - started) * 1000)
    stderr = proc.stderr.decode("utf-8", "replace").strip()
    stdout = proc.stdout.decode("utf-8", "replace").strip()
    done = f"exit {proc.returncode}, {'no output' if not stdout else f'{len(stdout)} bytes on stdout'}, {ms} ms"
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {stderr.splitlines()[0] if stderr else 'no message'}", done
    if stdout and not stdout.startswith("{"):
        return f"unexpected output on stdout: {stdout.splitlines()[0][:120]}", done
    if stderr:
        return f"exit 0 but a message on stderr: {stderr.splitlines()[0]}", done
    return None, done


def forget_session(state_dir: str, session_id: str) -> None:
    """Remove the synthetic session's ledger again (quietly: it is only housekeeping)."""
    try:
        Store(state_dir).remove(session_file_name(session_id))
    except (StateError, OSError):
        pass
