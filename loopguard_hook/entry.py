"""Console-script entry point. Runs the hook without importing click when the command line is a
plain hook invocation (every tool call pays for start-up); anything else goes to `cli.py`.

Never exits 2 on the hook path, whatever happens (both clients read exit 2 as "block").
"""

import _signal  # type: ignore[import-not-found]  # the C module `process` loads too; `signal` imports enum
import os
import sys

from .process import held_interrupts, hold_interrupts, quiet_without_package, quietly, run_hook

_VALUE_OPTIONS = {
    "--client": "client",
    "--profile": "profile",
    "--config": "config",
    "--state-dir": "state_dir",
    "--mode": "mode",
    "--event": "event",
}
_CLIENTS = (
    "auto", "claude-code", "codex", "dsh-claude-code", "dsh-codex", "copilot", "cursor", "qwen-code", "droid", "gemini-cli"
)


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
        if not value and key in ("state_dir", "config"):
            return None  # an empty path would quietly mean the default: click says what is wrong
        values[key] = value
    if values.get("client", "auto") not in _CLIENTS:
        return None
    return values


def main(argv: list[str] | None = None) -> int:
    """`loopguard-hook [hook] [OPTIONS]` runs the hook; other commands are handled by click."""
    args = sys.argv[1:] if argv is None else argv
    values: dict[str, object] | None = None
    hook_line = not args or args[0] == "hook" or args[0].startswith("--")
    # An operator command, also after the options the hook shares (`--state-dir D status`).
    operator = not hook_line or _names_a_command(args)
    hook_args = args[1:] if args and args[0] == "hook" else args
    previous = _handle_interrupts()
    try:
        hold_interrupts(False)  # the launcher held SIGINT while it imported this module
        if hook_line:
            values = _parse_hook_args(hook_args)
            if values is not None:
                return run_hook(values)
            if not operator:
                _held_import("hook")  # `_quiet_bad_line` asks it which host this is
                if _quiet_bad_line(hook_args):
                    return 0  # (an operator command after the shared options is click's to run)
        _held_import("cli")
        from .cli import run_cli

        return run_cli(args)
    except (KeyboardInterrupt, _Interrupted):
        # Ctrl-C, or SIGINT from the host: as any failure, exit 0 and logged where the host takes a
        # failure as a denial, else one line and exit 1. A second Ctrl-C while this is said is
        # ignored: it would escape `main` with a traceback.
        _ignore_interrupts()
        line = "loopguard-hook: interrupted; the call was let through"
        if values is None:
            if operator:  # an operator command (a long replay): the shell's code for Ctrl-C
                _say("loopguard-hook: interrupted")
                return INTERRUPTED_EXIT
            # Before the hook read its options (SIGINT as `main` began): read them now, so the
            # line goes to the errors.log of the state dir the command line names.
            values = _parse_hook_args(hook_args)
            if values is None:  # a hook command line this program cannot read
                given = _state_dir_in(args)
                values = {"client": _client_in(args), **({"state_dir": given} if given else {})}
        if quietly(values, line):
            return 0
        _say(line)
        return 1
    except Exception as exc:  # never a traceback on the user's terminal, never exit 2
        _ignore_interrupts()  # a Ctrl-C now would escape `main` with one
        hook_path = values is not None
        if not hook_path:  # an operator command: log where its --state-dir says
            given = _state_dir_in(args)
            values = {"state_dir": given} if given else None
        try:
            line = _report_bug(exc, values)
            if not hook_path:
                line = line.replace("; the call was let through", "")
            elif _quiet_host(values or {}):
                return 0  # a host that takes a failure as a denial: the traceback is in errors.log
            sys.stderr.write(line + "\n")
        except Exception:
            pass
        return 1
    finally:
        # Answered: a SIGINT from here on is ignored, not raised in this block (the first call
        # below would run the handler: a traceback and exit 1 after the answer, 1 run in 60 of
        # a slow test signalling `status` 25-100 ms after its start). No call comes before it.
        _STRUCK[0] = True
        if previous is not None and _signal.getsignal(_signal.SIGINT) is _interrupted:
            if argv is None:
                # The process's own run (the launcher), answered: a SIGINT from here to its exit
                # is ignored. Python's own handler, given back, raised it in the launcher after
                # the answer was written: a traceback and exit 130 (a denial on Copilot).
                _ignore_interrupts()
            else:
                _signal.signal(_signal.SIGINT, previous)  # not interrupted: the caller's own handler again


#: The commands of `cli.cli` but `hook` (`tests/test_replay_cli.py` checks the list).
OPERATOR_COMMANDS = frozenset(
    {"config", "doctor", "gc", "helper", "install", "log", "pause", "replay", "reset", "resume", "stats", "status",
     "sweep", "uninstall"}
)


def _names_a_command(args: list[str]) -> bool:
    """Whether `args` name an operator command after the options the hook shares (`--state-dir D
    status`, `--profile P replay FILE`: click runs the command with them). A hook line, `hook …`
    or one with a word no command has (`--client cursor --no-such-flag x`), is not one: it keeps
    the hook's own answer to SIGINT (exit 0 on a host that takes a failure as a denial)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _VALUE_OPTIONS:  # `--state-dir D`: D is the option's, not a command
            i += 2
        elif arg.startswith("-"):  # `--dry-run`, `--state-dir=D`
            i += 1
        else:
            return arg in OPERATOR_COMMANDS
    return False


#: The exit code of an operator command ended by Ctrl-C: 128 + SIGINT, as a shell reports it.
INTERRUPTED_EXIT = 130


class _Interrupted(BaseException):
    """SIGINT (`_interrupted`), answered by `main`: exit 130 for an operator command, as any
    failure for the hook. Not a KeyboardInterrupt: click turns that into a blank line and
    `Abort` ("aborted", exit 1)."""


#: Whether this `main` has met its SIGINT: a second one the C handler caught before the first's
#: Python handler ignored SIGINT runs the handler again, and must not raise again.
_STRUCK = [False]


def _interrupted(signum: int, frame: object) -> None:
    """The SIGINT handler of `main`, the hook's and an operator command's: the first SIGINT ends
    the run (`_Interrupted`: exit 130 for a command; for the hook as any failure, exit 0 on a host
    that takes a failure as a denial), and every later one is ignored. Python's own handler
    raised again for a second SIGINT while the first was being answered: a traceback and a death
    by SIGINT (a double Ctrl-C on a replay; under a spray of SIGINTs about 1 hook run in 40, which
    Copilot reads as a denial)."""
    if not _STRUCK[0]:
        _STRUCK[0] = True
        _ignore_interrupts()
        raise _Interrupted


def _held_import(name: str) -> None:
    """Import this package's module `name` with SIGINT held (`process.held_interrupts`), as the
    hook's own imports are: a SIGINT cutting orjson's import short crashed the interpreter
    (SIGSEGV, exit -11: 14 of 120 runs of a bad Copilot hook line, and doctor, signalled 30-60 ms
    after start). One that arrives meanwhile is answered as the hold ends. An import that fails
    is left to the caller's own, which says why."""
    with held_interrupts():
        try:
            __import__(f"{__package__}.{name}")
        except Exception:
            pass


def _say(line: str) -> None:
    """`line` on stderr, if it can be written."""
    try:
        sys.stderr.write(line + "\n")
    except Exception:
        pass


def _handle_interrupts() -> object:
    """`_interrupted` answers SIGINT; the handler it replaces (None where it cannot: not the main
    thread of an embedding program, whose own handler stands)."""
    _STRUCK[0] = False
    try:
        previous = _signal.signal(_signal.SIGINT, _interrupted)
    except Exception:
        return None
    return _signal.SIG_DFL if previous is None else previous


def _ignore_interrupts() -> None:
    """SIGINT is ignored from here on: the command ends after its answer (a caller of `main` in
    the same process, a test, restores its own handler). Through the C module, already loaded:
    `import signal` loads enum, 1.5 ms in which a second SIGINT still escaped. A handler that does
    nothing, not `SIG_IGN`: a SIGINT that arrived just before, still pending for the Python
    handler it met, would find `SIG_IGN` in its place and CPython would print "Signal 2 ignored
    due to race condition" with a traceback (seen with two Ctrl-C back to back)."""
    try:
        _signal.signal(_signal.SIGINT, _ignored)
    except Exception:  # not the main thread (an embedding program): its own handler stands
        pass


def _ignored(signum: int, frame: object) -> None:
    """A SIGINT after the answer: nothing to do (`_ignore_interrupts`)."""


def _quiet_host(values: dict[str, object]) -> bool:
    """Whether the host running this hook takes a failing hook as a denial (`hook.quiet_client`)."""
    try:
        from .hook import quiet_client

        return quiet_client(str(values.get("client", "auto")), os.environ) is not None
    except Exception:  # a broken install: told from the command line and the environment alone
        return quiet_without_package(values)


def _quiet_bad_line(args: list[str]) -> bool:
    """A hook command line this program cannot read (a flag it does not know, `--client` with a
    name it does not know), run by a host that takes a failing hook as a denial (named by
    `--client` when that is readable, else by the environment): the payload is read and dropped,
    the problem logged to `errors.log`, and the hook ends with exit 0 and no output. False when the
    host is not such a host, or stdin is a terminal (a person typing; click explains)."""
    if sys.stdin is None or sys.stdin.isatty():
        return False
    values: dict[str, object] = {"client": _client_in(args)}
    given = _state_dir_in(args)
    if given:
        values["state_dir"] = given
    try:
        if not _quiet_host(values):
            return False
        from .hook import HookOptions, log_problem, quiet_client
        from .process import MAX_PAYLOAD_BYTES

        sys.stdin.buffer.read(MAX_PAYLOAD_BYTES)  # the host writes the payload; read it all
        line = f"loopguard-hook: bad command line: {' '.join(args)}"
        log_problem(HookOptions(**values), os.environ, line, quiet_client(str(values["client"]), os.environ))  # type: ignore[arg-type]
        return True
    except Exception:
        return False


def _client_in(args: list[str]) -> str:
    """The `--client` of a hook command line, read word by word ("auto" when none is readable)."""
    client = "auto"
    for i, arg in enumerate(args):
        if arg == "--client" and i + 1 < len(args):
            client = args[i + 1]
        elif arg.startswith("--client="):
            client = arg.split("=", 1)[1]
    return client if client in _CLIENTS else "auto"


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
