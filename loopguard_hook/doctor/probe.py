"""Checks shared by every client: the command on PATH, the state dir it writes, and one
synthetic event run through the registered command string, when that is a command line `install`
writes (a project's settings are the project's to write: doctor runs nothing else from them)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..install.handlers import HOST_COMMAND
from ..install.tables import CANONICAL_COMMAND
from ..store import StateError, Store, default_state_dir, session_file_name

#: Seconds a synthetic event may take when the handler sets no timeout (the hook answers in
#: tens of milliseconds; a client would wait 600 s).
DEFAULT_RUN_TIMEOUT = 10.0
#: Seconds an interrupted doctor waits for its synthetic event to end before killing it.
INTERRUPT_GRACE = 2.0
#: Gemini CLI's command ends with this (a missing or failing hook must not block every call); it
#: only turns a failure into exit 0, and the synthetic event is run without it.
OR_TRUE = " || true"
#: What a shell reads as more than plain words; no command line `install` writes holds any of it
#: (but for `OR_TRUE`).
SHELL_SYNTAX = frozenset(";&|$`<>()\\*?[]{}~#!\t\r\n\v\f")


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


def hook_argv(command: str, env: Mapping[str, str]) -> tuple[list[str] | None, str]:
    """The argument list that runs `command` without a shell, when it is a command line `install`
    writes (`install.handlers.HOST_COMMAND`: `loopguard-hook`, then `--client NAME` and Copilot's
    `--event NAME`; Gemini CLI's `OR_TRUE` left off): (argv, ""), its program the `loopguard-hook`
    found in the absolute folders of `env`'s PATH (written as that file's absolute path, quoted or
    not, it is accepted too). Anything else: (None, why it is not run). No `--state-dir` or
    `--config` passes: `install` writes neither, and a project's file could point them anywhere."""
    text = command.strip(" \t").removesuffix(OR_TRUE)  # as the shell splits: never a Unicode space
    syntax = sorted({c for c in text if c in SHELL_SYNTAX})
    if syntax:
        return None, f"it holds shell syntax ({' '.join(repr(c) for c in syntax)})"
    try:
        parts = shlex.split(text)
    except ValueError:
        return None, "its quotes are not closed"
    if not parts:
        return None, "it is empty"
    folders = [d for d in env.get("PATH", os.defpath).split(os.pathsep) if os.path.isabs(d)]
    found = shutil.which(CANONICAL_COMMAND, path=os.pathsep.join(folders))
    if parts[0] != CANONICAL_COMMAND and not (os.path.isabs(parts[0]) and found and _same_file(parts[0], found)):
        return None, f"it runs `{parts[0]}`, not the `{CANONICAL_COMMAND}` found on PATH"
    options = parts[1:]
    if " ".join(options).split() != options or HOST_COMMAND.fullmatch(" ".join([CANONICAL_COMMAND, *options])) is None:
        return None, "the options after the program are not `--client NAME` and `--event NAME`"
    if found is None:
        return None, f"`{CANONICAL_COMMAND}` is not in an absolute folder of PATH"
    return [found, *options], ""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


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
    argv: list[str],
    payload: Mapping[str, Any],
    *,
    env: Mapping[str, str],
    cwd: str,
    timeout: float | None,
    trailing_newline: bool = True,
) -> tuple[str | None, str]:
    """Run `argv` (from `hook_argv`: no shell) with the payload on stdin, in a session of its own:
    when it does not answer in time its whole process group is killed, nothing left running.

    Returns:
        (problem or None, what happened: exit code, output, milliseconds).
    """
    data = json.dumps(payload).encode() + (b"\n" if trailing_newline else b"")
    limit = min(timeout or DEFAULT_RUN_TIMEOUT, 60.0)
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(env), cwd=cwd,
            start_new_session=True,
        )
    except OSError as exc:
        return f"cannot start {argv[0]} ({exc.strerror or exc})", "not run"
    try:
        out, err = proc.communicate(data, timeout=limit)
    except subprocess.TimeoutExpired:
        return f"no answer in {limit:g} s (the client would give up and go on without the guard)", "timed out"
    except BaseException:  # interrupted: Ctrl-C (`entry._Interrupted`, or a KeyboardInterrupt)
        _let_finish(proc)
        raise
    finally:
        if proc.returncode is None:  # timed out, or doctor itself interrupted
            _kill_group(proc)
    ms = round((time.monotonic() - started) * 1000)
    stderr = err.decode("utf-8", "replace").strip()
    stdout = out.decode("utf-8", "replace").strip()
    done = f"exit {proc.returncode}, {'no output' if not stdout else f'{len(stdout)} bytes on stdout'}, {ms} ms"
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {stderr.splitlines()[0] if stderr else 'no message'}", done
    if stdout and not stdout.startswith("{"):
        return f"unexpected output on stdout: {stdout.splitlines()[0][:120]}", done
    if stderr:
        return f"exit 0 but a message on stderr: {stderr.splitlines()[0]}", done
    return None, done


def _let_finish(proc: subprocess.Popen[bytes]) -> None:
    """Doctor is interrupted (Ctrl-C: the event runs in a session of its own and gets no
    SIGINT; `entry` ignores a second one): give the event `INTERRUPT_GRACE` seconds to end by
    itself, so that what it writes (a resident helper's worker goes on after its client is
    killed) is written before the caller removes the probe's session (`forget_session`), not
    after."""
    try:
        proc.wait(timeout=INTERRUPT_GRACE)
    except subprocess.TimeoutExpired:
        pass


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill `proc`'s process group (it leads one: `start_new_session`) and reap it. Its pipes are
    closed unread: a process that left the group could hold them open for ever."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def forget_session(state_dir: str, session_id: str) -> None:
    """Remove the synthetic session's ledger again (quietly: it is only housekeeping)."""
    try:
        Store(state_dir).remove(session_file_name(session_id))
    except (StateError, OSError):
        pass
