"""The hook as a process: the payload from stdin, the decision to stdout, one line to stderr,
the exit code (0 or 1). Shared by the fast entry point (`_entry.py`) and click's `hook` command.
"""

from __future__ import annotations

import os
import sys
import time

#: When this process started, as near as Python can tell: the clock of the event. The hooks of
#: parallel calls start together but reach the ledger in any order; the time they were started
#: is what tells a parallel twin from a later repeat.
_STARTED = time.time()


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
