"""The hook as a process: the payload from stdin, the decision to stdout, one line to stderr,
the exit code (0 or 1). Shared by the fast entry point (`_entry.py`) and click's `hook` command.

On a host that reads a failing hook as a denial, or shows its stderr to the model
(`hook.quiet_client`), a problem found here too (a payload too big, standard output closed)
ends with exit 0 and nothing on stderr, the line going to `errors.log`.
"""

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


#: The most payload bytes read: the hosts' largest real payloads (a Write of a big file) are tens
#: of MB; an endless stdin (`< /dev/zero`) must not fill memory or outlast the host's timeout.
MAX_PAYLOAD_BYTES = 128 << 20
TOO_BIG = f"loopguard-hook: bad payload: larger than {MAX_PAYLOAD_BYTES} bytes; the call was let through"
#: Bytes of stdin read first: a payload that does not end there is big (a Write of a large file),
#: and the resident helper reads the rest from the stdin descriptor itself (fastpath/client.py).
FIRST_READ = 1 << 16


def _read_stdin(limit: int = MAX_PAYLOAD_BYTES + 1) -> bytes:
    """The payload, at most `MAX_PAYLOAD_BYTES + 1` bytes of it (one more tells it was too big)."""
    if sys.stdin is None:
        return b""
    if sys.stdin.isatty():
        sys.stderr.write("loopguard-hook: reading a hook payload from stdin (Ctrl-D to end)\n")
    return sys.stdin.buffer.read(limit)


def _read_first() -> tuple[bytes, int | None]:
    """Stdin's first `FIRST_READ` bytes, and its descriptor when it may hold more (None when the
    payload is whole: it ended before, or stdin is a terminal or not a descriptor)."""
    try:
        fd = sys.stdin.fileno() if sys.stdin is not None and not sys.stdin.isatty() else None
    except (OSError, ValueError):  # a replaced stdin (io.UnsupportedOperation is both)
        fd = None
    if fd is None:
        return _read_stdin(), None
    chunks: list[bytes] = []
    size = 0
    while size < FIRST_READ:  # unbuffered: nothing of the rest may be read ahead here
        chunk = os.read(fd, FIRST_READ - size)
        if not chunk:
            return b"".join(chunks), None
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), fd


def run_hook(values: dict[str, object]) -> int:
    """Read stdin, run the hook, write stdout/stderr; return the exit code (0 or 1).

    The resident helper (`fastpath`) answers when it can; otherwise the event runs here.
    """
    first, rest = _read_first()
    reply = None
    if rest is not None:  # a big payload: the helper reads the rest of stdin itself
        reply = _resident(values, first, rest)
        if reply is None:
            first += _read_stdin(MAX_PAYLOAD_BYTES + 1 - len(first))
    payload = [first]
    del first
    if len(payload[0]) > MAX_PAYLOAD_BYTES:
        return 0 if quietly(values, TOO_BIG) else _say(TOO_BIG)
    if rest is None:
        reply = _resident(values, payload[0])
    if reply is None:
        from .hook import HookOptions, run

        options = HookOptions(**values)  # type: ignore[arg-type]
        # `run` gets the only reference to the payload bytes and drops them once parsed (a
        # Write can be MBs).
        result = run(payload.pop(), options=options, environ=os.environ, clock=lambda: _STARTED)
        reply = (int(result.exit_code), result.stdout, result.stderr)
    code, stdout, stderr = reply
    if stdout and sys.stdout is None:  # closed (`>&-`): the host never sees this decision
        stderr, code = "loopguard-hook: standard output is closed; the decision was not delivered; the call was let through", 1
    elif stdout:
        try:
            sys.stdout.buffer.write(stdout)
            sys.stdout.flush()
        except OSError as exc:  # a full disk, a closed pipe: the client sees no decision
            stderr = unwritable_stdout(exc) + "; the call was let through"
            code = 1
    if stderr and quietly(values, stderr):
        return 0
    if stderr and sys.stderr is not None:
        try:
            sys.stderr.write(stderr + "\n")
        except OSError:
            pass
    return code


#: `LOOPGUARD_RESIDENT` values that turn the fast path off (checked here too, so that the
#: in-process path then imports nothing of it).
_OFF = ("0", "off", "no", "false")


def _resident(values: dict[str, object], raw: bytes, rest: int | None = None) -> tuple[int, bytes, str] | None:
    """The resident helper's answer, or None to handle the event in this process. `rest`: the
    descriptor the helper reads the rest of the payload from (after `raw`)."""
    if os.environ.get("LOOPGUARD_RESIDENT", "").strip().lower() in _OFF:
        return None
    try:
        from .fastpath.client import handle

        return handle(values, raw, _STARTED, os.environ, rest)
    except Exception:  # the fast path fails open to the in-process path
        return None


def quietly(values: dict[str, object], line: str) -> bool:
    """Whether the host of this hook run takes no failure (`hook.quiet_client`, told by `--client`
    or the environment); if so `line` is logged to `errors.log` instead of stderr. Never raises."""
    try:
        from .hook import HookOptions, log_problem, quiet_client

        options = HookOptions(**values)  # type: ignore[arg-type]
        if quiet_client(options.client, os.environ) is None:
            return False
        log_problem(options, os.environ, line)
        return True
    except Exception:
        return False


def _say(line: str) -> int:
    """One line on stderr and exit 1 (nothing on stdout)."""
    if sys.stderr is not None:
        try:
            sys.stderr.write(line + "\n")
        except OSError:
            pass
    return 1


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
