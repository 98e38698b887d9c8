"""Console-script entry point. Runs the hook without importing click when the command line is a
plain hook invocation (every tool call pays for start-up); anything else goes to `cli.py`.

Never exits 2 on the hook path, whatever happens (both clients read exit 2 as "block").
"""

from __future__ import annotations

import os
import sys
import time


def _process_start() -> float:
    """When the client started this process (wall clock, 10 ms resolution), from the kernel's
    record of it (`/proc/self/stat` field 22, clock ticks since boot): on a starved CPU the
    interpreter may take seconds to get here, and the hooks of one batch would seem to start
    seconds apart. Where there is no such record: now."""
    now = time.time()
    try:
        with open("/proc/self/stat", "rb") as fh:
            ticks = int(fh.read().rpartition(b")")[2].split()[19])
        since = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - since if 0 <= since < 60 else now


#: When this process started: the clock of the event. The hooks of parallel calls start
#: together but reach the ledger in any order; the time they were started is what tells a
#: parallel twin from a later repeat.
_STARTED = _process_start()

_VALUE_OPTIONS = {
    "--client": "client",
    "--profile": "profile",
    "--config": "config",
    "--state-dir": "state_dir",
    "--mode": "mode",
}
_CLIENTS = ("auto", "claude-code", "codex")


def _parse_hook_args(args: list[str]) -> dict[str, object] | None:
    """Parse the hook's own options; None when the command line needs click (help, errors)."""
    values: dict[str, object] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--dry-run":
            values["dry_run"] = True
            i += 1
            continue
        name, eq, inline = arg.partition("=")
        key = _VALUE_OPTIONS.get(name)
        if key is None:
            return None
        if eq:
            value = inline
            i += 1
        elif i + 1 < len(args):
            value = args[i + 1]
            i += 2
        else:
            return None
        values[key] = value
    if values.get("client", "auto") not in _CLIENTS:
        return None
    return values


def _read_stdin() -> bytes:
    if sys.stdin is None:
        return b""
    if sys.stdin.isatty():
        sys.stderr.write("loopguard-hook: reading a hook payload from stdin (Ctrl-D to end)\n")
    return sys.stdin.buffer.read()


def run_hook(values: dict[str, object]) -> int:
    """Read stdin, run the hook, write stdout/stderr; return the exit code (0 or 1)."""
    from .hook import HookOptions, run

    options = HookOptions(**values)  # type: ignore[arg-type]
    # No local name keeps the payload bytes: `run` drops them once parsed (a Write can be MBs).
    result = run(_read_stdin(), options=options, environ=os.environ, clock=lambda: _STARTED)
    stderr, code = result.stderr, int(result.exit_code)
    if result.stdout and sys.stdout is not None:  # stdout may be closed (`>&-`)
        try:
            sys.stdout.buffer.write(result.stdout)
            sys.stdout.flush()
        except OSError as exc:  # a full disk, a closed pipe: the client sees no decision
            stderr = unwritable_stdout(exc) + "; the call was let through"
            code = 1
    if stderr and sys.stderr is not None:
        try:
            sys.stderr.write(stderr + "\n")
        except OSError:
            pass
    return code


def unwritable_stdout(exc: OSError) -> str:
    """The line for output that could not be written. Standard output is pointed at /dev/null,
    so that Python's flush at exit does not fail again (exit 120 and a message of its own)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
    return f"loopguard-hook: cannot write to standard output ({exc.strerror or exc})"


def main(argv: list[str] | None = None) -> int:
    """`loopguard-hook [hook] [OPTIONS]` runs the hook; other commands are handled by click."""
    args = sys.argv[1:] if argv is None else argv
    values: dict[str, object] | None = None
    try:
        hook_args = args[1:] if args and args[0] == "hook" else args
        if not args or args[0] == "hook" or args[0].startswith("--"):
            values = _parse_hook_args(hook_args)
            if values is not None:
                return run_hook(values)
        from .cli import run_cli

        return run_cli(args)
    except KeyboardInterrupt:
        return 1
    except Exception as exc:  # never a traceback on the user's terminal, never exit 2
        hook_path = values is not None
        if not hook_path:  # an operator command: log where its --state-dir says
            given = _state_dir_in(args)
            values = {"state_dir": given} if given else None
        try:
            line = _report_bug(exc, values)
            if not hook_path:
                line = line.replace("; the call was let through", "")
            sys.stderr.write(line + "\n")
        except Exception:
            pass
        return 1


def _state_dir_in(args: list[str]) -> str | None:
    for i, arg in enumerate(args):
        if arg == "--state-dir" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--state-dir="):
            return arg.split("=", 1)[1]
    return None


def _report_bug(exc: Exception, values: dict[str, object] | None) -> str:
    """The one stderr line for an unexpected error, its traceback logged to `errors.log` if possible."""
    try:
        from .hook import HookOptions, log_bug

        return log_bug(None, os.environ, HookOptions(**values) if values else HookOptions(), exc)  # type: ignore[arg-type]
    except Exception:  # the package itself does not import (a broken install, an upgrade under way)
        detail = (str(exc).splitlines() or [""])[0][:200]
        return f"loopguard-hook: internal error ({type(exc).__name__}: {detail}); the call was let through"
