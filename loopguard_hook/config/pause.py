"""The off switch: `loopguard-hook pause` and `resume`, read on every hook event.

A pause is kept in `pause.json` beside the user config file (`<user config dir>/pause.json`), a
file only these commands write (atomically: a temporary file renamed over it). `load` puts the
guard in mode `observe` for every event that a pause in force covers: the rules still decide and
`decisions.jsonl` still logs, but nothing reaches the host. The cost on the hook path is one
`open` of a file that usually does not exist; when it does, a read and parse of a few hundred bytes.

The file:

    {"pauses": [{"project": null, "paths": [], "since": 1767000000.0, "until": 1767001800.0}]}

`project` null pauses every project; else `paths` are the project folder as given and as
resolved (`os.path.realpath`), and an event is covered when its project folder
(`$CLAUDE_PROJECT_DIR`, else the payload's `cwd`, as for `.loopguard.toml`) is one of them or
inside one. `until` is seconds since the epoch, or null for "until resumed"; a pause whose time
has passed is ignored (and dropped at the next `pause` or `resume`).
"""

import os
import stat
import time
from typing import Any, NamedTuple

import orjson

from .keys import ConfigError

FILE = "pause.json"
#: A pause file is a few entries; anything bigger was not written by `pause`.
MAX_BYTES = 64 * 1024


class Pause(NamedTuple):
    """One pause: `project` None for all projects, else the folder as given; `paths` the folders
    it covers (given and resolved); `since` and `until` in seconds since the epoch (`until`
    None: until resumed)."""

    project: str | None
    paths: tuple[str, ...]
    since: float
    until: float | None

    def active(self, now: float) -> bool:
        return self.until is None or self.until > now

    def covers(self, folder: str | None) -> bool:
        """The pause covers an event whose project folder is `folder` (None: no folder known,
        which only a pause of every project covers)."""
        if self.project is None:
            return True
        if not folder:
            return False
        if self._holds(os.path.normpath(folder)):
            return True
        try:  # an event in a link to the paused folder (macOS /tmp is /private/tmp)
            return self._holds(os.path.realpath(folder))
        except (OSError, ValueError):
            return False

    def _holds(self, folder: str) -> bool:
        return any(folder == p or folder.startswith(p.rstrip("/") + "/") for p in self.paths)

    def as_json(self) -> dict[str, Any]:
        return {"project": self.project, "paths": list(self.paths), "since": self.since, "until": self.until}

    def describe(self, now: float) -> str:
        """`all projects until 14:30 (in 25m)`, `/home/u/p until resumed`."""
        where = "all projects" if self.project is None else self.project
        if self.until is None:
            return f"{where} until resumed"
        return f"{where} until {time.strftime('%Y-%m-%d %H:%M', time.localtime(self.until))} (in {_left(self.until - now)})"


def _left(seconds: float) -> str:
    """`25m`, `1m30s`, `2h00m`, `1d0h`, `1h30m15s`: to the second, as `pause --for` takes a span
    (the minutes and seconds after the first two units only when there are any)."""
    seconds = max(0, int(seconds + 0.5))
    days, hours, minutes, rest = seconds // 86400, seconds % 86400 // 3600, seconds % 3600 // 60, seconds % 60
    if days:
        text = f"{days}d{hours}h" + (f"{minutes:02d}m" if minutes or rest else "")
    elif hours:
        text = f"{hours}h{minutes:02d}m"
    elif minutes:
        text = f"{minutes}m"
    else:
        return f"{rest}s"
    return text + (f"{rest:02d}s" if rest else "")


def pause_path(user_config: str) -> str:
    """The pause file beside the user config file `user_config` ("" when there is none)."""
    return os.path.join(os.path.dirname(user_config), FILE) if user_config else ""


def read(path: str) -> list[Pause]:
    """Every pause in the file at `path`, in force or not; [] when there is no file.

    Raises:
        ConfigError: the file exists but cannot be read or is not a pause file (the message
            names it and says `loopguard-hook resume` removes it).
    """
    if not path:
        return []
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):  # ENOTDIR: a home of `/dev/null`, as CI and
        return []  # service accounts have, holds no pause file either
    except OSError as exc:
        if os.path.islink(path):  # the guard writes only files there
            raise ConfigError(f"pause file {path}: a link, not a regular file; remove it yourself") from None
        raise ConfigError(f"pause file {path}: cannot read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder, a FIFO: not the guard's to remove
            raise ConfigError(f"pause file {path}: not a regular file; remove it yourself (the guard writes only files there)")
        raw = os.read(fd, MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"pause file {path}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        return _parse(raw)
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigError(
            f"pause file {path}: not a pause file ({exc}); `loopguard-hook resume` removes it"
        ) from None


def _parse(raw: bytes) -> list[Pause]:
    if len(raw) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES} bytes")
    data = orjson.loads(raw)
    entries = data["pauses"] if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ValueError('no "pauses" list')
    out = []
    for entry in entries:
        project, paths, since, until = entry["project"], entry["paths"], entry["since"], entry["until"]
        if project is not None and not isinstance(project, str):
            raise TypeError("a project that is not text")
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise TypeError("paths that are not a list of text")
        if not _number(since) or (until is not None and not _number(until)):
            raise TypeError("a time that is not a number")
        if not all(_on_the_clock(t) for t in (since, until) if t is not None):
            raise ValueError("a time out of the clock's range")
        out.append(Pause(project, tuple(paths), float(since), None if until is None else float(until)))
    return out


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _on_the_clock(seconds: float) -> bool:
    """`describe` can show it: a hand-edited 1e308 made every hook event an internal error."""
    try:
        time.localtime(seconds)
    except (OverflowError, OSError, ValueError):
        return False
    return True


def in_force(path: str, folder: str | None, now: float | None = None) -> Pause | None:
    """The pause that covers an event of project folder `folder` (`$CLAUDE_PROJECT_DIR`, else the
    payload's `cwd`) now (the one lasting longest when several do), or None.

    Raises:
        ConfigError: as `read`.
    """
    pauses = read(path)
    if not pauses:
        return None
    now = time.time() if now is None else now
    covering = [p for p in pauses if p.active(now) and p.covers(folder)]
    if not covering:
        return None
    return max(covering, key=lambda p: float("inf") if p.until is None else p.until)


def write(path: str, pauses: list[Pause]) -> None:
    """Replace the pause file with `pauses` (removed when there are none). The folder is made
    (0700) when missing; the file is 0600, written under a temporary name and renamed.

    Raises:
        OSError: the folder or file cannot be written.
    """
    if not pauses:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    body = orjson.dumps({"pauses": [p.as_json() for p in pauses]}, option=orjson.OPT_INDENT_2) + b"\n"
    temporary = os.path.join(folder, f".{FILE}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def project_paths(folder: str) -> tuple[str, ...]:
    """The folder as given (absolute, normalised) and as resolved, without repeats."""
    given = os.path.normpath(os.path.abspath(folder))
    real = os.path.realpath(given)
    return (given,) if real == given else (given, real)
