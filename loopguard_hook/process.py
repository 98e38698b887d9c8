"""The hook as a process: the payload from stdin, the decision to stdout, one line to stderr,
the exit code (0 or 1). Shared by the fast entry point (`_entry.py`) and click's `hook` command.

On a host that reads a failing hook as a denial, or shows its stderr to the model
(`hook.quiet_client`), a problem found here too (a payload too big, standard output closed)
ends with exit 0 and nothing on stderr, the line going to `errors.log`.
"""

import _signal  # type: ignore[import-not-found]  # the C module every interpreter loads; `signal` imports enum
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # `collections.abc` for the type checker only
    from collections.abc import Mapping


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
        whole = _read_stdin()
        _HEAD.append(whole[:FIRST_READ])
        return whole, None
    chunks: list[bytes] = []
    size = 0
    while size < FIRST_READ:  # unbuffered: nothing of the rest may be read ahead here
        chunk = os.read(fd, FIRST_READ - size)
        if not chunk:
            return b"".join(chunks), None
        if not chunks:  # kept before stdin ends: the deadline may come while it stays open
            _HEAD.append(chunk)
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), fd


#: The payload's first chunk (at most `FIRST_READ` bytes), read before the rest: how a failure
#: decided without the parsed payload (the deadline, a payload too big, a stdout that takes
#: nothing) is told to end on a host that takes no failure (`hook.quiet_client`'s `head`).
_HEAD: list[bytes] = []


#: Seconds after the hook's start (when the host started the process) by which it answers: a
#: hook that cannot decide by then (a starved machine, a stdin left open with no data, a helper
#: that hangs) answers nothing, with one stderr line and exit 1 (the call goes ahead), before
#: the host's own timeout kills it (the shipped configs give it 10 s, `install/tables.py`).
DEADLINE_SECONDS = 8.0
#: Another deadline in seconds (`0` or `off`: none); not a setting, as it is armed before any
#: config is read.
ENV_DEADLINE = "LOOPGUARD_DEADLINE_SECONDS"


def deadline_seconds(environ: "Mapping[str, str]") -> float:
    """The deadline in effect (`ENV_DEADLINE`, else `DEADLINE_SECONDS`); 0 for none."""
    text = environ.get(ENV_DEADLINE, "").strip().lower()
    if not text:
        return DEADLINE_SECONDS
    if text in _OFF:
        return 0.0
    try:
        seconds = float(text)
    except ValueError:
        return DEADLINE_SECONDS
    return seconds if 0 < seconds < 3600 else DEADLINE_SECONDS


#: The command line's options of this run, for the deadline's handler.
_VALUES: dict[str, object] = {}


def _late(signum: int, frame: object) -> None:
    """The deadline passed: one line, exit 1, right now (exit 0 with the line in `errors.log` on
    a host that takes no failure). Nothing was written to stdout yet (the timer is stopped
    first); a ledger being written is left whole (written aside, then renamed), as when the host
    kills a hook."""
    seconds = deadline_seconds(os.environ)
    line = f"loopguard-hook: no decision within {seconds:g} s of the hook's start; the call was let through"
    if quietly(_VALUES, line):
        os._exit(0)
    try:
        os.write(2, (line + "\n").encode())
    except OSError:
        pass
    os._exit(1)


def _arm_deadline(values: dict[str, object]) -> None:
    """Start the deadline's timer (`SIGALRM`, counted from the process's start)."""
    _VALUES.clear()
    _VALUES.update(values)
    seconds = deadline_seconds(os.environ)
    if seconds <= 0 or not hasattr(_signal, "setitimer"):
        return
    _signal.signal(_signal.SIGALRM, _late)
    _signal.setitimer(_signal.ITIMER_REAL, max(seconds - (time.time() - _STARTED), 0.001))


def _disarm_deadline() -> None:
    if hasattr(_signal, "setitimer"):
        _signal.setitimer(_signal.ITIMER_REAL, 0)


class held_interrupts:  # noqa: N801  # a context manager named for how it reads
    """Hold SIGINT while the event is decided (`with held_interrupts(): …`), modules loading as
    it goes: one that arrives meanwhile is delivered as the block ends, as the interrupt
    (`entry._interrupted`) the caller answers. A SIGINT cutting an import short crashed the
    interpreter inside orjson's (SIGSEGV, 13 of 60 runs signalled 20-100 ms after start), or was
    printed as "Exception ignored" from importlib. This process's own reads of stdin stay
    outside: a hook left waiting on it is stopped by Ctrl-C (a big payload's rest, which the
    resident helper reads, is bounded by the deadline instead). The deadline (SIGALRM) is not
    held. Not reentrant: the block's end delivers SIGINT whatever held it before. Where signals
    cannot be masked (Windows), nothing is held."""

    def __enter__(self) -> None:
        hold_interrupts(True)

    def __exit__(self, *exc: object) -> None:
        hold_interrupts(False)


def hold_interrupts(held: bool) -> None:
    """Hold SIGINT (`held`), or deliver it again, a pending one arriving now."""
    if hasattr(_signal, "pthread_sigmask"):
        _signal.pthread_sigmask(_signal.SIG_BLOCK if held else _signal.SIG_UNBLOCK, {_signal.SIGINT})


def run_hook(values: dict[str, object]) -> int:
    """Read stdin, run the hook, write stdout/stderr; return the exit code (0 or 1).

    The resident helper (`fastpath`) answers when it can; otherwise the event runs here. The
    whole of it is bounded by the deadline (`DEADLINE_SECONDS`), stdin's reading included.
    """
    _arm_deadline(values)
    try:
        code, stdout, stderr = _decide(values)
    finally:
        _disarm_deadline()
    return _deliver(values, code, stdout, stderr)


def _decide(values: dict[str, object]) -> tuple[int, bytes, str]:
    """(exit code, stdout, stderr) of the event on stdin."""
    first, rest = _read_first()
    reply = None
    if rest is not None:  # a big payload: the helper reads the rest of stdin itself
        reply = _resident(values, first, rest)
        if reply is None:
            first += _read_stdin(MAX_PAYLOAD_BYTES + 1 - len(first))
    payload = [first]
    del first
    if len(payload[0]) > MAX_PAYLOAD_BYTES:
        return (1, b"", TOO_BIG)
    if rest is None:
        reply = _resident(values, payload[0])
    if reply is None:
        # The event loads most of the package as it goes: a SIGINT inside an import crashed the
        # interpreter (orjson's) or was printed as "Exception ignored in … _get_module_lock".
        with held_interrupts():
            from .hook import HookOptions, run

            options = HookOptions(**values)  # type: ignore[arg-type]
            # `run` gets the only reference to the payload bytes and drops them once parsed (a
            # Write can be MBs).
            result = run(payload.pop(), options=options, environ=os.environ, clock=lambda: _STARTED)
        reply = (int(result.exit_code), result.stdout, result.stderr)
    return reply


def _deliver(values: dict[str, object], code: int, stdout: bytes, stderr: str) -> int:
    """Write the answer; the exit code (1 when stdout cannot take it; 0 with nothing on stderr
    for a host that takes no failure, the line then going to `errors.log`)."""
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
            sys.stderr.write(shown_on_terminal(stderr) + "\n")
        except OSError:
            pass
    return code


def shown_on_terminal(text: str) -> str:
    """`text` with every control character but the newline between lines escaped (`printable`):
    a path or id from a payload (its `cwd`) may hold escape sequences, and the host may show the
    hook's stderr on the user's terminal."""
    if text.isprintable():
        return text
    return "\n".join(map(printable, text.split("\n")))


def printable(text: str) -> str:
    """`text` as one line a terminal shows safely: every character that is not printable (a line
    break, an escape sequence, C1 and bidi controls) written as Python writes it in a string
    (`\\n`, `\\x1b`, `\\u202e`). For a path or id in an operator command's output, a
    doctor finding, an install report, the hook's stderr."""
    return text if text.isprintable() else "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


#: `LOOPGUARD_RESIDENT` values that turn the fast path off (checked here too, so that the
#: in-process path then imports nothing of it).
_OFF = ("0", "off", "no", "false")


def _resident(values: dict[str, object], raw: bytes, rest: int | None = None) -> tuple[int, bytes, str] | None:
    """The resident helper's answer, or None to handle the event in this process. `rest`: the
    descriptor the helper reads the rest of the payload from (after `raw`)."""
    if os.environ.get("LOOPGUARD_RESIDENT", "").strip().lower() in _OFF:
        return None
    try:
        with held_interrupts():  # its imports too: a SIGINT waits for the answer (`_decide`)
            from .fastpath import client

            known = client.process_context()
            if known[0]:  # a sandboxed hook (DSH's): a helper of its workspace, in the same sandbox
                from .fastpath import confined

                return confined.handle(values, raw, _STARTED, os.environ, rest, known[1])
            return client.handle(values, raw, _STARTED, os.environ, rest, known)
    except Exception:  # the fast path fails open to the in-process path
        return None


def quietly(values: dict[str, object], line: str) -> bool:
    """Whether the host of this hook run takes no failure (`hook.quiet_client`, told by `--client`,
    the environment or the payload's first bytes); if so `line` is logged to `errors.log` instead
    of stderr. When that cannot be asked (the deadline came while `hook` was still being imported,
    or the install is broken), the command line and the environment alone tell
    (`quiet_without_package`), and the line is dropped. Never raises."""
    try:
        from .hook import HookOptions, log_problem, quiet_client

        options = HookOptions(**values)  # type: ignore[arg-type]
        client = quiet_client(options.client, os.environ, head=_HEAD[0] if _HEAD else b"")
        if client is None:
            return False
        log_problem(options, os.environ, line, client)
        return True
    except Exception:
        return quiet_without_package(values)


#: When `hook` cannot be imported, the hosts whose tables say `fails_closed` or `quiet_failures`
#: (`hosts/copilot.py`, `cursor.py`, `droid.py`, `gemini_cli.py`), and the variables they give
#: hooks (tests/test_hosts_copilot_droid_cursor.py holds the two lists to them).
QUIET_WITHOUT_PACKAGE = ("copilot", "cursor", "droid", "gemini-cli")
QUIET_ENVIRONMENT = ("COPILOT_CLI", "COPILOT_HOOK_DIR", "CURSOR_VERSION", "DROID_PROJECT_DIR", "GEMINI_SESSION_ID")


def quiet_without_package(values: dict[str, object]) -> bool:
    """Whether `--client` (when given: it wins, as in `hook.quiet_client`) or else the environment
    names a host that takes a failing hook as a denial, told without importing anything."""
    try:
        client = values.get("client") or "auto"
        if client != "auto":
            return client in QUIET_WITHOUT_PACKAGE
        return any(os.environ.get(n) for n in QUIET_ENVIRONMENT)
    except Exception:
        return False


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
