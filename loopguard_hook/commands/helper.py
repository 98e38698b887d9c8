"""`loopguard-hook helper status|stop`: the resident helpers of this user (`fastpath/helper.py`).

A helper is found by its files in `<TMPDIR or /tmp>/loopguard-hook-<uid>/`: `KEY.lock` is held
(flock) for the helper's life and holds its pid; `KEY.status` is what it last wrote about itself;
`KEY.sock` is its socket. One helper a build (KEY). Stopping sends SIGTERM to a pid that holds its
lock and runs the helper's code as this user: it stops listening, removes its socket, and its
workers finish the event they serve; the next hook event runs in-process and starts a new one.
"""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import time
from typing import Any

import click
import orjson

from .common import _echo_json, _printable
from .times import clock

#: How long `stop` waits for a helper to let go of its lock (seconds).
STOP_WAIT_SECONDS = 5.0


def _held(path: str) -> bool:
    """Some process holds the flock of the lock file at `path` (a helper is running)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO must not hang
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _read(path: str, limit: int = 65536) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        return os.read(fd, limit)
    except OSError:
        return b""
    finally:
        os.close(fd)


def helpers(environ: Any) -> tuple[str, list[dict[str, Any]]]:
    """The helper folder, and every helper running there: `key`, `pid`, `socket`, `current`
    (the build this command would use), and what its status file says (`status_fields`)."""
    from ..fastpath import client  # only here: the other commands never load the fast path

    folder = client.runtime_path(environ)
    mine = client.helper_key(client.process_context()[1], environ)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return folder, []
    found = []
    for name in names:
        if not name.endswith(".lock"):
            continue
        key = name[: -len(".lock")]
        lock = os.path.join(folder, name)
        if not _held(lock):
            continue
        text = _read(lock).strip()
        entry: dict[str, Any] = {
            "key": key, "pid": int(text) if text.isdigit() else None, "current": key == mine,
            "socket": os.path.join(folder, key + ".sock") if os.path.exists(os.path.join(folder, key + ".sock")) else None,
        }
        try:
            status = orjson.loads(_read(os.path.join(folder, key + ".status")) or b"{}")
        except orjson.JSONDecodeError:
            status = {}
        if isinstance(status, dict):
            entry.update({k: v for k, v in status.items() if k not in entry})
        found.append(entry)
    return folder, found


def _problem(folder: str, environ: Any) -> str | None:
    """What keeps the hook of this build from using or starting a helper in `folder`, as the
    client and the helper judge it (`client.runtime_dir`, `client._connect`, `start.own_file`), or
    None. Nothing is created."""
    from ..fastpath import client

    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return None  # the next event makes it
    except OSError as exc:
        return f"{folder}: {exc.strerror or exc}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{folder} is not a folder ({'a symlink' if stat.S_ISLNK(st.st_mode) else 'a file'})"
    if st.st_uid != os.getuid():
        return f"{folder} belongs to uid {st.st_uid}"
    if st.st_mode & 0o077:
        return f"{folder} is open to other users (mode {stat.S_IMODE(st.st_mode):o})"
    key = client.helper_key(client.process_context()[1], environ)
    for suffix, fits, what in ((".sock", stat.S_ISSOCK, "a socket"), (".lock", stat.S_ISREG, "a lock file")):
        path = os.path.join(folder, key + suffix)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not fits(st.st_mode) or st.st_uid != os.getuid() or (suffix == ".lock" and st.st_nlink != 1):
            return f"{path} is not {what} of the helper's"
    return None


def _is_helper(pid: int) -> bool:
    """`pid` is this user's process running the helper's code (not a pid reused since)."""
    try:
        if os.stat(f"/proc/{pid}").st_uid != os.getuid():
            return False
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"loopguard_hook.fastpath.helper" in fh.read()
    except OSError:
        return False


#: What may differ in another helper's key (`client.helper_key`), by the part its status names.
_KEY_PARTS = {
    "build": "an older or another install, or another interpreter",
    "environment": "other PYTHON* environment variables",
    "rights": "other rights (user, capabilities, limits or namespaces)",
}


def _why_another(h: dict[str, Any], mine: dict[str, str] | None, environ: Any) -> str:
    """How the key of helper `h` differs from this shell's (`mine`, `client.key_parts`): the
    parts its status file names, or every part it may be (a helper of an older version)."""
    theirs = h.get("key_parts")
    if not isinstance(theirs, dict) or mine is None:
        return "another build: " + ", ".join(_KEY_PARTS.values())
    differ = [name for name in _KEY_PARTS if theirs.get(name) != mine.get(name)] or list(_KEY_PARTS)
    out = "another build: " + ", ".join(_KEY_PARTS[name] for name in differ)
    if "environment" in differ:
        names = h.get("python_variables")
        here = ", ".join(sorted(k for k in environ if k.startswith("PYTHON"))) or "none"
        there = (", ".join(str(n) for n in names) or "none") if isinstance(names, list) else "not said"
        if here == there:
            out += f" (the same names, {_printable(here)}: a value differs)"
        else:
            out += f" (this shell: {_printable(here)}; the helper: {_printable(there)})"
    return out


def _describe(h: dict[str, Any], now: float, mine: dict[str, str] | None, environ: Any) -> list[str]:
    build = "this build" if h["current"] else _why_another(h, mine, environ)
    lines = [f"helper pid {h['pid']}  key {h['key']}  ({build})"]
    lines.append(f"  socket: {h['socket'] or '(none: not listening)'}")
    if "started" in h:
        last = h.get("last_event")
        idle = now - last if isinstance(last, (int, float)) else now - float(h["started"])
        lines.append(
            f"  version {h.get('version')}, python {h.get('python')}; started {clock(float(h['started']))}"
        )
        lines.append(
            f"  workers: {h.get('workers', 0)} kept + {h.get('extra_workers', 0)} one-event, {h.get('busy', 0)} busy; "
            f"{h.get('events', 0)} events served; idle {int(idle)} s (exits after {int(h.get('idle_exit_seconds', 0))} s idle)"
        )
    else:
        lines.append("  (no status file yet: it is starting, or of an older version)")
    return lines


@click.group("helper")
def helper_group() -> None:
    """The resident helper that answers hook events (docs/speed.md): show it, or stop it."""


@helper_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="JSON: the folder and every helper found.")
def helper_status(as_json: bool) -> None:
    """Every resident helper of this user: pid, build key, socket, workers, events served, idle time.

    The key is of the install, the interpreter, the rights and every PYTHON* environment variable
    (PYTHONPATH, PYTHONUNBUFFERED…): a helper of another key is said to be of another build, with
    the parts that differ."""
    folder, found = helpers(os.environ)
    problem = _problem(folder, os.environ)
    if as_json:
        _echo_json({"folder": folder, "helpers": found, "enabled": _enabled(), "problem": problem})
        return
    if not _enabled():
        click.echo(f"the resident helper is off here ({SWITCH}={os.environ.get(SWITCH)})")
    if problem is not None:
        click.echo(f"the resident helper cannot run here: {_printable(problem)}; every hook event runs in-process "
                   "(the guard did not make it: remove it, and the next event starts a helper)")
    if not found:
        if problem is None:
            click.echo(f"no resident helper running (folder {_printable(folder)}); the next hook event starts one")
        return
    now = time.time()
    from ..fastpath import client

    mine = client.key_parts(client.process_context()[1], os.environ)
    for h in found:
        click.echo("\n".join(_describe(h, now, mine, os.environ)))


@helper_group.command("stop")
@click.option("--current", is_flag=True, help="Only the helper of this build (the one a hook run from this shell uses).")
@click.option(
    "--key", "keys", multiple=True, metavar="KEY",
    help="Only the helper whose build key starts so (`helper status` shows keys); repeatable.",
)
def helper_stop(current: bool, keys: tuple[str, ...]) -> None:
    """Stop the resident helpers of this user: every one of them (a helper serves every state
    dir and project of its build), or only this build's (`--current`) or the named ones
    (`--key`). Hook events run in-process meanwhile; the next one starts a helper again (set
    LOOPGUARD_RESIDENT=off to keep it from starting)."""
    folder, found = helpers(os.environ)
    unknown = [k for k in keys if not any(h["key"].startswith(k) for h in found)]
    if unknown:
        click.echo(f"loopguard-hook: helper stop: no resident helper with key {', '.join(unknown)} running "
                   f"(folder {folder}; `helper status` lists them)", err=True)
        click.get_current_context().exit(1)
    if keys:
        found = [h for h in found if any(h["key"].startswith(k) for k in keys)]
    if current:
        found = [h for h in found if h["current"]]
    if not found:
        click.echo(f"no resident helper{' of this build' if current else ''} running (folder {folder})")
        return
    stopped, refused = [], 0
    for h in found:
        pid = h["pid"]
        if pid is None or not _is_helper(pid):
            click.echo(f"helper {h['key']}: pid {pid} is not a helper of this user; left alone", err=True)
            refused += 1
            continue
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        stopped.append(h)
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    for h in stopped:
        lock = os.path.join(folder, h["key"] + ".lock")
        while _held(lock) and time.monotonic() < deadline:
            time.sleep(0.02)
        gone = not _held(lock)
        click.echo(f"helper pid {h['pid']} ({h['key']}): {'stopped' if gone else 'asked to stop; still finishing'}")
    if refused:
        click.get_current_context().exit(1)


#: `fastpath.client.ENV_SWITCH` (a test keeps them equal).
SWITCH = "LOOPGUARD_RESIDENT"


def _enabled() -> bool:
    return os.environ.get(SWITCH, "").strip().lower() not in ("0", "off", "no", "false")
