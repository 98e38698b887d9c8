"""The checks every client gets, over the handlers found for it: events, PATH, matchers, the
state dir and one synthetic event."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config.keys import check_commands
from ..install.handlers import command_line, handlers, runs_loopguard
from ..install.tables import CANONICAL_COMMAND
from ..store import StateError
from .clients import check_client
from .matchers import TOOL_EVENTS, TOOL_NAMES, missed
from .model import ClientReport, Registration
from .probe import forget_session, hook_argv, program, run_event, state_dir_of, writable

#: Without these two the guard sees no tool call at all.
ESSENTIAL_EVENTS = ("PreToolUse", "PostToolUse")


def found_by(binary: str, env: Mapping[str, str]) -> str | None:
    """How the client was found: its program on `env`'s PATH; None when it is not there (its
    settings folder does not count: `install` creates it on a machine without the client)."""
    where = shutil.which(binary, path=env.get("PATH", os.defpath))
    return f"{binary} on PATH: {where}" if where is not None else None


def registrations(source: Path, hooks: object) -> list[Registration]:
    """Every handler in one `hooks` object that runs loopguard (any spelling)."""
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, gi, hi, entry in handlers(hooks):
        if runs_loopguard(entry):
            matcher = hooks[event][gi].get("matcher")
            timeout = entry.get("timeout")
            found.append(
                Registration(
                    source,
                    event,
                    gi,
                    hi,
                    matcher if isinstance(matcher, str) else None,
                    command_line(entry),
                    float(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) else None,
                    entry,
                )
            )
    return found


def check_events(
    report: ClientReport, regs: Sequence[Registration], expected: Sequence[str], fix: str,
    essential_events: Sequence[str] = ESSENTIAL_EVENTS,
) -> None:
    """Registered at all, for the essential events (a host's own names for PreToolUse and
    PostToolUse), and for every event the installer writes (and `report.registered` set
    accordingly)."""
    report.registered = bool(regs)
    if not regs:
        report.add("fail", "registered", "loopguard-hook is not registered", fix)
        return
    events = sorted({r.event for r in regs}, key=lambda e: expected.index(e) if e in expected else len(expected))
    where = ", ".join(sorted({str(r.source) for r in regs}))
    missing = [e for e in expected if e not in events]
    essential = [e for e in essential_events if e in missing]
    if essential:
        report.add("fail", "registered", f"{where} registers {', '.join(events)} but not {', '.join(essential)}", fix)
    elif missing:
        report.add("warn", "registered", f"{where} registers {', '.join(events)}; missing {', '.join(missing)}", fix)
    else:
        report.add("ok", "registered", f"{where}: {len(events)} events ({', '.join(events)})")
    spellings = sorted({r.command for r in regs})
    if len(spellings) > 1:
        by_event: dict[str, set[str]] = {}
        for r in regs:
            by_event.setdefault(r.event, set()).add(r.command)
        twice = sorted(e for e, commands in by_event.items() if len(commands) > 1)
        how = (
            f"each on {', '.join(twice)} (twice the processes there, and the first to run decides)" if twice
            else "on different events: each event runs one, so the guard works, but a change to one is easily "
            "missed on the others"
        )
        report.add(
            "warn",
            "registered",
            "loopguard runs under several command strings (" + ", ".join(f"`{c}`" for c in spellings) + f"), {how}",
            "keep one command string: remove the hand-written entries, then `uninstall` and `install` once",
        )


def check_path(
    report: ClientReport, regs: Sequence[Registration], env: Mapping[str, str], who: str, *, fails_closed: bool = False
) -> bool:
    """Each command's program is found on the PATH the client passes on. False if one is not.
    `fails_closed`: the client denies a call whose hook fails (Copilot CLI), unless its command
    ends `|| true`."""
    good = True
    for command in sorted({r.command for r in regs}):
        name, found = program(command, env)
        if found is None and "$" in name:  # "$CLAUDE_PROJECT_DIR"/.venv/bin/…: the host's shell expands it
            good = False
            report.add(
                "warn",
                "on PATH",
                f"`{name}` holds a shell variable, expanded only when {who} runs the hook: not checked here",
                "nothing to do if that path holds the loopguard-hook program; run it by hand with the variable set to see",
            )
        elif found is None and os.sep in name:  # a path: run as it is, not looked up on PATH
            good = False
            what = "is not executable" if os.path.isfile(name) else "is not a file" if os.path.exists(name) else "does not exist"
            report.add(
                "fail",
                "on PATH",
                f"`{name}` {what}, so {who} cannot run it",
                f"write the path of the loopguard-hook program there (`command -v {CANONICAL_COMMAND}` shows it), "
                f"or `{CANONICAL_COMMAND}` with it on PATH",
            )
        elif found is None:
            good = False
            closed = fails_closed and not command.rstrip().endswith("|| true")
            effect = f"{who} denies every tool call" if closed else "every event fails and the guard is off"
            report.add(
                "fail",
                "on PATH",
                f"`{name}` is not on the PATH {who} runs hooks with, so {effect}",
                "install loopguard-hook where every shell finds it (`pipx install PATH-TO-CHECKOUT`, or "
                "`uv tool install PATH-TO-CHECKOUT`, with `~/.local/bin` on PATH)" + _running_from(who, name),
            )
        elif in_active_virtualenv(found, env):
            report.add(
                "warn",
                "on PATH",
                f"`{name}` is {found}, inside the virtualenv active in this shell: {who} started from another "
                "shell will not find it",
                "install it where every shell finds it (`pipx install PATH-TO-CHECKOUT` or `uv tool install "
                "PATH-TO-CHECKOUT`, with `~/.local/bin` on PATH), then run `install` from that shell",
            )
        else:
            report.add("ok", "on PATH", f"`{name}` is {found}")
    return good


def _running_from(who: str, name: str) -> str:
    """`, or put <folder> on PATH for <who>` when the registered command `name` is `loopguard-hook`
    and this program runs as a `loopguard-hook` script (a virtualenv's `bin/`, which a new user's
    install from the README is), else "" (a command of another name is not in that folder)."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if name != CANONICAL_COMMAND or os.path.basename(script) != CANONICAL_COMMAND or not os.path.isfile(script):
        return ""
    return f", or put {os.path.dirname(script)} (where this loopguard-hook runs from) on the PATH {who} runs hooks with"


def in_active_virtualenv(found: str, env: Mapping[str, str]) -> bool:
    """Whether `found` lies in the virtualenv activated in this shell (`VIRTUAL_ENV`) and no other
    copy of it is on `PATH` outside that virtualenv (what a shell without it finds)."""
    venv = env.get("VIRTUAL_ENV")
    if not venv:
        return False
    root = os.path.realpath(venv).rstrip(os.sep) + os.sep
    if not os.path.realpath(found).startswith(root):
        return False
    elsewhere = [d for d in env.get("PATH", "").split(os.pathsep) if d and not os.path.realpath(d).startswith(root)]
    return shutil.which(os.path.basename(found), path=os.pathsep.join(elsewhere)) is None


def check_matchers(
    report: ClientReport, regs: Sequence[Registration], dialect: str, names: Sequence[str],
    tool_events: frozenset[str] = TOOL_EVENTS,
) -> None:
    """Each tool event's matchers, together, fire on the client's main tool names."""
    flagged = False
    for event in sorted({r.event for r in regs if r.event in tool_events}):
        groups = [r for r in regs if r.event == event]
        unseen = [n for n in names if all(n in missed(dialect, r.matcher, [n]) for r in groups)]
        matchers = ", ".join(sorted({repr(r.matcher) if r.matcher is not None else "(none)" for r in groups}))
        flagged = flagged or bool(unseen)
        if unseen == list(names):
            report.add(
                "fail",
                "matchers",
                f"{event} matcher {matchers} fires on none of {', '.join(names)}: the guard sees no tool call",
                'use the matcher "*" (reinstall: uninstall, then install)',
            )
        elif unseen:
            report.add(
                "warn",
                "matchers",
                f"{event} matcher {matchers} misses {', '.join(unseen)}: those calls are not counted",
                'use the matcher "*"',
            )
    if any(r.event in tool_events for r in regs) and not flagged:
        report.add("ok", "matchers", f"tool events fire on {', '.join(names)}")


def check_state_dir(report: ClientReport, command: str, env: Mapping[str, str]) -> str | None:
    """The state dir the command writes exists and is writable, or can be created."""
    try:
        state_dir = state_dir_of(command, env)
    except StateError as exc:
        report.add("fail", "state dir", str(exc), "set LOOPGUARD_STATE_DIR for the client")
        return None
    problem = writable(state_dir)
    if problem is None:
        report.add("ok", "state dir", f"{state_dir} is writable")
    else:
        report.add("fail", "state dir", f"{state_dir}: {problem}", "set LOOPGUARD_STATE_DIR to a directory this user can write")
    return state_dir


def latest_error(state_dir: str, client: str) -> str | None:
    """The first line of the last entry of `<state_dir>/errors.log` that `client` wrote (or that
    names no host: a guard before hosts were named there), with its time and age, or None when
    there is none. An entry's heading is `--- <time> pid <pid>[ host <client>]` (`hook.log_problem`)."""
    path = Path(state_dir) / "errors.log"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[-65536:]
    except OSError:
        return None
    for entry in reversed([e for e in text.split("--- ") if e.strip()]):
        head, _, body = entry.partition("\n")
        stamp, _, host = head.strip().partition(" host ")
        if host and host.strip() != client:
            continue
        lines = [line for line in body.splitlines() if line.strip()]
        when = stamp.split(" pid ", 1)[0]
        return f"{when}{_age(when)}: {lines[-1].strip() if lines else ''}"
    return None


def _age(stamp: str) -> str:
    """` (N minutes ago)` for an entry's local time stamp, or "" when it cannot be read."""
    import time

    try:
        seconds = time.time() - time.mktime(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
    except (ValueError, OverflowError):
        return ""
    if seconds < 0:
        return ""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f" ({n} {unit}{'s' if n > 1 else ''} ago)"
    return " (just now)"


def check_log(report: ClientReport, command: str, env: Mapping[str, str]) -> None:
    """The latest entry of `errors.log` this host wrote: on a host where a failing event exits 0
    (`failures_exit_0`) it says why only there."""
    try:
        where = state_dir_of(command, env)
        latest = latest_error(where, report.client)
    except Exception:  # no state dir to look in: check_state_dir reported it
        return
    if latest is not None:
        report.add("warn", "errors.log", f"latest: {latest}",
                   f"fix what it says (a failed event lets the call run); {Path(where) / 'errors.log'} keeps every entry"
                   " and may be deleted once read")


def failures_exit_0(client: str) -> bool:
    """Whether a failing event of `client` ends with exit 0 and its line in `errors.log`
    (`Capabilities.failures_exit_0`); False for a name that is no one host (`dsh`, both bridges)."""
    from .. import hosts
    from ..core.event import Client

    try:
        return hosts.capabilities(Client(client)).failures_exit_0
    except ValueError:
        return False


def check_config(report: ClientReport, env: Mapping[str, str], cwd: str) -> str | None:
    """The config an event from `cwd` would load (user file, project file, `LOOPGUARD_*`
    variables) is valid; when it is not, the fix (also for a synthetic event it makes fail). What
    `status` warns of too is a warning: a project file that turns enforcement down, patterns that
    leave no tool tracked (`config.caveats`)."""
    from ..config import load as config_mod
    from ..config.caveats import caveats

    try:
        for what, fix in caveats(config_mod.load(environ=env, cwd=cwd)):
            report.add("warn", "config", what, fix)
    except config_mod.ConfigError as exc:
        if config_mod.paused_here(env, cwd):  # `loopguard-hook pause`: the host sees nothing of the guard, this included
            report.add("fail", "config", f"{exc}: while the guard is paused here every event writes that message to "
                       "errors.log and answers nothing; after resume the guard is off until it is fixed", exc.fix)
            return exc.fix
        how = "exits 0 and writes that message to errors.log" if failures_exit_0(report.client) else "exits 1 with that message"
        report.add("fail", "config", f"{exc}: every event {how}, and the guard is off", exc.fix)
        return exc.fix
    return None


def check_run(
    report: ClientReport,
    reg: Registration,
    payload: Callable[[str], dict[str, Any]],
    *,
    env: Mapping[str, str],
    cwd: str,
    state_dir: str | None,
    trailing_newline: bool = True,
    bad_config_fix: str | None = None,
) -> None:
    """One synthetic `reg.event` through the registered command string, run without a shell (then
    its session is forgotten again), when that string is a command line `install` writes
    (`probe.hook_argv`); any other is not run, and said. A failure the hook blames on the config
    gets `bad_config_fix` (or `config check`) as its fix."""
    argv, why = hook_argv(reg.command, env)
    if argv is None:
        report.add(
            "warn",
            "runs",
            f"registered command `{reg.command}` not run: it is not the form `install` writes ({why}), so "
            "no synthetic event tells whether it works",
            f"check {reg.source}: {report.host} runs that command as it is written; "
            f"`loopguard-hook install --client {report.client}` writes the plain one",
        )
        return
    event = payload(f"loopguard-doctor-{uuid.uuid4().hex[:12]}")
    try:
        problem, done = run_event(argv, event, env=env, cwd=cwd, timeout=reg.timeout, trailing_newline=trailing_newline)
    finally:  # also when doctor is interrupted (Ctrl-C): `status` would list the probe as a session
        if state_dir is not None:
            forget_session(state_dir, str(event["session_id"]))
    what = f"a synthetic {reg.event} through `{reg.command}` (run without a shell)"
    if problem is None:
        report.add("ok", "runs", f"{what}: {done}")
    elif "bad config:" in problem:
        report.add("fail", "runs", f"{what}: {problem}", bad_config_fix or check_commands(()))
    else:
        report.add("fail", "runs", f"{what}: {problem}", "run that command by hand with a payload on stdin to see why")


def check_handlers(
    report: ClientReport,
    regs: Sequence[Registration],
    payload: Callable[[str], dict[str, Any]],
    *,
    dialect: str,
    who: str,
    env: Mapping[str, str],
    cwd: str,
    run: bool,
    trailing_newline: bool = True,
    sandbox: Callable[[ClientReport, str | None], None] | None = None,
    pre_event: str = "PreToolUse",
    tool_events: frozenset[str] = TOOL_EVENTS,
    fails_closed: bool = False,
) -> None:
    """PATH, matchers, state dir (and `sandbox` on it), then the synthetic PreToolUse (the
    host's `pre_event`) when `run` and the program was found. `env` is the environment the
    client gives its hooks."""
    check_client(report, regs)
    on_path = check_path(report, regs, env, who, fails_closed=fails_closed)
    check_matchers(report, regs, dialect, TOOL_NAMES[dialect], tool_events)
    fix = check_config(report, env, cwd)
    pre = next((r for r in regs if r.event == pre_event), None)
    state_dir = check_state_dir(report, (pre or regs[0]).command, env)
    if sandbox is not None:
        sandbox(report, state_dir)
    if run and on_path and pre is not None:
        check_run(
            report, pre, payload, env=env, cwd=cwd, state_dir=state_dir,
            trailing_newline=trailing_newline, bad_config_fix=fix,
        )
