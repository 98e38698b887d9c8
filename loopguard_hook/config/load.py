"""Profiles and configuration: defaults per profile, TOML files, `LOOPGUARD_*` environment, flags.

Sources, later wins: profile defaults < user file (`<user config dir>/config.toml`) < project
file (`.loopguard.toml` in `$CLAUDE_PROJECT_DIR` or the payload's `cwd`, or above it up to its
repository's root: `find_project_file`) < `--config`/
`LOOPGUARD_CONFIG` file < `LOOPGUARD_<KEY>` environment < command-line flags. Every value
remembers where it came from (`loopguard-hook config show`).

Validation fails loud (`ConfigError`: one line naming the file, the key and the reason).
The option names of the plugins the reminder, breaker and progress profiles reproduce
(camelCase) are accepted as aliases so settings carry over.
"""

import os
import time
from collections.abc import Mapping
from typing import Any, BinaryIO, NamedTuple

from . import pause
from .keys import ALIASES, KEYS, USER_SCOPE_KEYS, VALIDATORS, ConfigError, convert, failed
from .settings import MODES, PROFILE_DEFAULTS, PROFILES, Config

__all__ = [
    "ALIASES",
    "KEYS",
    "MODES",
    "PROFILES",
    "VALIDATORS",
    "Config",
    "ConfigError",
    "Layer",
    "Resolved",
    "load",
    "open_regular_file",
    "read_regular_file",
    "read_toml",
    "resolve",
    "user_config_path",
]

class Layer(NamedTuple):
    """Raw settings from one source, before validation."""

    source: str
    values: Mapping[str, Any]


class Resolved(NamedTuple):
    """The effective config and, per key, the source that set it; `ignored`: one line per key a
    project file set but may not (`USER_SCOPE_KEYS` of a project the user does not trust)."""

    config: Config
    sources: dict[str, str]
    ignored: tuple[str, ...] = ()
    #: The layers it was resolved from, in order (`load`): what the config would be without one
    #: of them (`config.caveats`: without the project file).
    layers: tuple[Layer, ...] = ()


def resolve(layers: list[Layer]) -> Resolved:
    """Validate every layer and fold them over the chosen profile's defaults.

    The profile is taken from the last layer that names one (default `balanced`).

    Raises:
        ConfigError: an unknown or removed key, a value of the wrong type or range, or
            inconsistent thresholds (`stop_at` not above `deny_at`).
    """
    converted: list[tuple[str, dict[str, Any]]] = []
    profile, profile_source = "balanced", "default"
    problems: list[str] = []
    for layer in layers:
        values: dict[str, Any] = {}
        given: dict[str, str] = {}
        for key, value in layer.values.items():
            try:
                target, result = convert(layer.source, key, value)
            except ConfigError as exc:
                problems.append(str(exc))
                continue
            if target in given:
                problems.append(f"{layer.source}: {key!r} and {given[target]!r} both set {target}; keep one of them")
                continue
            given[target] = key
            values[target] = result
        if "profile" in values:
            profile, profile_source = values["profile"], layer.source
        converted.append((layer.source, values))

    sources = {key: f"profile {profile}" for key in KEYS}
    sources["profile"] = profile_source
    merged: dict[str, Any] = dict(PROFILE_DEFAULTS[profile])
    merged["profile"] = profile
    for source, values in converted:
        for key, value in values.items():
            if key == "profile":
                continue
            merged[key] = value
            sources[key] = source
    config = Config(**merged)
    pairs = (
        ("deny_at", "stop_at"), ("same_error_deny_at", "same_error_stop_at"), ("unmoved_remind_at", "unmoved_deny_at"),
        ("no_op_remind_at", "no_op_deny_at"), ("cut_input_remind_at", "cut_input_stop_at"),
    )
    for low, high in pairs:
        low_value, high_value = getattr(config, low), getattr(config, high)
        if low_value and high_value and high_value <= low_value:
            problems.append(_out_of_order(sources, low, low_value, high, high_value))
    if config.deny_at == 1:
        problems.append(f"{sources['deny_at']}: deny_at must be 0 (off) or >= 2")
    if problems:
        raise failed(problems)
    return Resolved(config=config, sources=sources)


def unreachable(resolved: Resolved) -> list[str]:
    """One line per reminder threshold that can never fire: `remind_at` values at or past
    `deny_at` or `stop_at`, whichever comes first (the repeat rule denies such a call or ends
    the turn instead, `rules/repeat.py`). Legal, but rarely what was meant; `config check` prints
    them as notes."""
    config, sources = resolved.config, resolved.sources
    limits = [(getattr(config, k), k) for k in ("deny_at", "stop_at") if getattr(config, k)]
    if not limits:
        return []
    limit, first = min(limits)
    late = [n for n in config.remind_at if n >= limit]
    if not late:
        return []
    where = sources["remind_at"] if not sources["remind_at"].startswith("profile ") else sources[first]
    shown = ", ".join(str(n) for n in late)
    what = "the call is denied" if first == "deny_at" else "the turn ends"
    return [f"{where}: remind_at {shown} at or past {first} = {limit}: never reminded there ({what} first)"]


def _out_of_order(sources: Mapping[str, str], low: str, low_value: int, high: str, high_value: int) -> str:
    """`high` (a stop, or a rule's denial) must be above `low` (a denial, or that rule's
    reminder): one line that blames the source where the user set a value (not the profile whose
    default the other one is) and says the fix."""
    low_source, high_source = sources[low], sources[high]
    never = "never end the turn" if high.endswith("stop_at") else "never deny"
    lower = f"{low} below {high_value}" if high_value > 2 else f"{low} = 0 (off)"
    fix = f"set {high} = {low_value + 1} or more ({high} = 0: {never}), or {lower}"
    if high_source.startswith("profile ") and not low_source.startswith("profile "):
        where, given, other = low_source, f"{low} = {low_value}", f"{high} is {high_value} (the default of {high_source})"
    elif low_source.startswith("profile ") and not high_source.startswith("profile "):
        where, given, other = high_source, f"{high} = {high_value}", f"{low} is {low_value} (the default of {low_source})"
    elif low_source == high_source:
        where, given, other = high_source, f"{high} = {high_value}", f"{low} = {low_value}"
    else:
        where, given, other = high_source, f"{high} = {high_value}", f"{low_source} sets {low} = {low_value}"
    return f"{where}: {given}, but {high} must be greater than {low}, and {other}; {fix}"


# -- sources ----------------------------------------------------------------------------------


MAX_CONFIG_BYTES = 1 << 20


def read_regular_file(path: str, limit: int = -1) -> bytes:
    """The bytes of a file a user named (a config file, a recording to replay), at most
    `limit + 1` of them when `limit` is set, so the caller can tell it was too big.

    Opened as `open_regular_file` opens it.

    Raises:
        OSError: it cannot be opened or read, or is not a regular file (`strerror` says which).
    """
    with open_regular_file(path) as fh:
        return fh.read(limit + 1 if limit >= 0 else -1)


def open_regular_file(path: str) -> BinaryIO:
    """A buffered binary reader of a file a user named; the caller closes it.

    Opened non-blocking and only when it is a regular file: a FIFO or `/dev/zero` given by
    mistake must not hang the hook or fill memory.

    Raises:
        OSError: it cannot be opened, or is not a regular file (`strerror` says which).
    """
    import errno
    import stat

    # Looked at before it is opened: opening a FIFO, even without blocking, releases its writer.
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    fh = os.fdopen(fd, "rb")
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
    except BaseException:
        fh.close()
        raise
    return fh


def read_toml(path: str, source: str) -> Layer:
    """Read one TOML config file.

    Raises:
        ConfigError: the file cannot be read or is not valid TOML.
    """
    import tomllib

    try:
        raw = read_regular_file(path, MAX_CONFIG_BYTES)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{source}: larger than {MAX_CONFIG_BYTES} bytes")
        data = tomllib.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text (byte {exc.start}); TOML files are UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        said = str(exc)
        if said.startswith("Cannot overwrite a value"):  # tomllib's words for a key given twice
            said = "a key is given twice" + said[len("Cannot overwrite a value"):]
        raise ConfigError(f"{source}: not valid TOML: {said}") from None
    except ValueError:  # tomllib's own: an integer of more than 4,300 digits
        raise ConfigError(f"{source}: not valid TOML: an integer too long to read") from None
    except RecursionError:
        raise ConfigError(f"{source}: nested too deeply to be a config file") from None
    section = data.get("loopguard")
    if isinstance(section, dict):
        if len(data) > 1:  # keys above the table's header are not in it
            flat = ", ".join(repr(k) for k in sorted(data) if k != "loopguard")
            raise ConfigError(f"{source}: {flat} outside the [loopguard] table: write every key flat, or every key "
                              "under [loopguard] (a key after the header is in the table)")
        data = section
    return Layer(source=source, values=data)


_ENV_PREFIX = "LOOPGUARD_"
#: Variables that are not settings: where files are, the resident helper's switch and idle
#: timeout (fastpath/client.py), and the hook's deadline (process.py).
_ENV_NOT_KEYS = frozenset(
    {"LOOPGUARD_STATE_DIR", "LOOPGUARD_CONFIG", "LOOPGUARD_RESIDENT", "LOOPGUARD_RESIDENT_IDLE_SECONDS",
     "LOOPGUARD_DEADLINE_SECONDS"}
)


def _parse_env(key: str, raw: str) -> Any:
    default = getattr(Config(), key)
    text = raw.strip()
    if isinstance(default, bool):
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        return raw
    if isinstance(default, int):
        try:
            return _number(text, int)
        except ValueError:
            return raw
    if isinstance(default, float):
        try:
            return _number(text, float)
        except ValueError:
            return raw
    if isinstance(default, tuple):
        if text.startswith("["):
            array = _toml_array(text, int if key == "remind_at" else str)
            if array is not None:
                return array
        items = [item.strip() for item in text.split(",") if item.strip()]
        if key == "remind_at":
            try:
                return [_number(item, int) for item in items]
            except ValueError:
                return raw
        return items
    return text


def _number(text: str, kind: type[int] | type[float]) -> int | float:
    """`kind(text)` of ASCII text only: Python reads the digits of other scripts too (`int("٥")`
    is 5, `float("５")` 5.0), which a TOML file does not take and a reader of the variable would
    not see as a number.

    Raises:
        ValueError: not ASCII, or not such a number.
    """
    if not text.isascii():
        raise ValueError(f"{text!r} is not ASCII")
    return kind(text)


def _toml_array(text: str, kind: type) -> list[Any] | None:
    """A list written as in the TOML file (`[3, 4]`, `["Read", "Grep"]`, `[]`: the empty list, as
    in the file), or None when the text is not one of `kind` items (`[Rr]ead,Grep`: patterns of
    their own, read as comma-separated, as before)."""
    import tomllib

    try:
        value = tomllib.loads(f"v = {text}").get("v")
    except tomllib.TOMLDecodeError:
        return None
    if not isinstance(value, list) or not all(type(item) is kind for item in value):
        return None  # `[12]` of patterns, `[true]`, `[2024-01-01]`: not such a list; read as before
    return value


def env_layer(environ: Mapping[str, str]) -> Layer:
    """`LOOPGUARD_<KEY>` variables (e.g. `LOOPGUARD_DENY_AT=4`, `LOOPGUARD_REMIND_AT=3,4`; a list
    also in TOML's form, `[3, 4]`).

    Raises:
        ConfigError: a `LOOPGUARD_*` variable names no setting.
    """
    values: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith(_ENV_PREFIX) or name in _ENV_NOT_KEYS:
            continue
        key = name[len(_ENV_PREFIX) :].lower()
        if key not in VALIDATORS:
            import difflib

            close = difflib.get_close_matches(key, list(KEYS), n=1)
            hint = f" (did you mean {_ENV_PREFIX}{close[0].upper()}?)" if close else ""
            raise ConfigError(
                f"environment: unknown variable {name}{hint}; LOOPGUARD_* variables are settings "
                "(see `loopguard-hook config show`)"
            )
        values[key] = _parse_env(key, raw)
    return Layer(source="environment", values=values)


def user_config_path() -> str:
    """`config.toml` in the platform's user config dir for `loopguard-hook`."""
    import platformdirs

    return os.path.join(platformdirs.user_config_dir("loopguard-hook", appauthor=False), "config.toml")


PROJECT_FILE = ".loopguard.toml"
#: Folders looked at above an event's folder for its repository's root.
MAX_LEVELS = 32


def find_project_file(folder: str) -> str | None:
    """The project file of an event in `folder`: `.loopguard.toml` in it or, inside a git
    repository, in the nearest folder above it up to the repository's root (the folder holding
    `.git`); None for none. Codex 0.171.0 gives the payload's `cwd` with the call's `workdir`
    applied (seen with the real client, tests/e2e/test_codex.py), so a call the model runs in
    `packages/api` reads the repository root's file, as the session's other calls do. Outside a
    repository only a file in `folder` itself counts: one in `/tmp` or `/home` is nobody's
    project. One walk up: two `stat` calls a folder, up to the repository's root or, outside
    one, the filesystem's. Never raises."""
    found: str | None = None
    current = folder
    for _ in range(MAX_LEVELS):
        try:
            if found is None and os.path.exists(os.path.join(current, PROJECT_FILE)):
                if current == folder:
                    return os.path.join(current, PROJECT_FILE)
                found = os.path.join(current, PROJECT_FILE)  # above the event: only inside a repository
            if os.path.exists(os.path.join(current, ".git")):
                return found  # the repository's root: the file nearest the event up to it, if any
        except ValueError:  # a NUL byte in the folder
            return None
        parent = os.path.dirname(current)
        if not parent or parent == current:
            return None
        current = parent
    return None


def _pause_layer(path: str, project_dir: str | None) -> list[Layer]:
    """Mode `observe`, over every other source, while `loopguard-hook pause` covers this project.

    Raises:
        ConfigError: the pause file cannot be read (`pause.read`).
    """
    found = pause.in_force(path, project_dir)
    if found is None:
        return []
    return [Layer(source=f"paused ({found.describe(time.time())}; `loopguard-hook resume` ends it)", values={"mode": "observe"})]


def load(
    *,
    environ: Mapping[str, str],
    cwd: str | None = None,
    config_path: str | None = None,
    flags: Mapping[str, Any] | None = None,
    user_path: str | None = None,
) -> Resolved:
    """Gather every source and resolve the effective config.

    `user_path` overrides the user file location (tests); `flags` are command-line values.

    Raises:
        ConfigError: any source is unreadable or invalid (its `files`: the files at fault).
    """
    files: list[tuple[str, str]] = []
    user_file = user_path if user_path is not None else user_config_path()
    # Present but not a regular file (a FIFO, a directory): said, never silently skipped.
    if user_file and os.path.exists(user_file):
        files.append((user_file, f"user file {user_file}"))
    project_dir = environ.get("CLAUDE_PROJECT_DIR") or cwd
    project_source = ""
    project_file = find_project_file(project_dir) if project_dir else None
    ignored: list[str] = []
    owner = _foreign_owner(project_file) if project_file else None
    if project_file and owner is not None:
        # Another user's file (a shared folder, /tmp): it may not change this user's guard.
        ignored.append(f"project file {project_file} ignored: it belongs to uid {owner}, in a folder other users can write")
        project_file = None
    if project_file:
        project_source = f"project file {project_file}"
        files.append((project_file, project_source))
    explicit = config_path or environ.get("LOOPGUARD_CONFIG")
    if explicit:
        files.append((explicit, f"config file {explicit}"))
    layers: list[Layer] = []
    problems: list[str] = []
    for path, source in files:
        try:
            layers.append(read_toml(path, source))
        except ConfigError as exc:
            problems.append(str(exc))
    if project_source and project_file:
        root = os.path.dirname(project_file)  # the project is the folder that holds the file
        layers = [_untrusted_keys_dropped(layer, root, layers, ignored) if layer.source == project_source
                  else layer for layer in layers]
    try:
        layers.append(env_layer(environ))
    except ConfigError as exc:
        problems.append(str(exc))
    if flags:
        layers.append(Layer(source="command line", values={k: v for k, v in flags.items() if v is not None}))
    try:
        layers += _pause_layer(pause.pause_path(user_file), project_dir)
    except ConfigError as exc:
        problems.append(str(exc))
    try:
        resolved = resolve(layers)
    except ConfigError as exc:
        problems += exc.problems
    if problems:
        error = failed(problems)
        error.files = tuple(path for path, source in files if any(source in problem for problem in problems))
        raise error
    return resolved._replace(ignored=tuple(ignored), layers=tuple(layers))


def paused_here(environ: Mapping[str, str], cwd: str | None, user_path: str | None = None) -> bool:
    """Whether `loopguard-hook pause` covers an event of `cwd` (`$CLAUDE_PROJECT_DIR` first), as
    `load` reads it (`user_path`: the user file, default its platform place); False when no
    pause file can be found or read."""
    try:
        user_file = user_path if user_path is not None else user_config_path()
        folder = environ.get("CLAUDE_PROJECT_DIR") or cwd
        return bool(user_file) and pause.in_force(pause.pause_path(user_file), folder) is not None
    except (ConfigError, KeyError, RuntimeError, OSError):  # platformdirs: no HOME and no passwd entry
        return False


def _foreign_owner(path: str) -> int | None:
    """The owner of the project file at `path` when another user may have planted it there: it
    is not this user's (the link itself, for a link) and its folder is one other users can
    write (g+w or o+w: a team folder, /tmp). Else None: a repository of another owner that this
    user works in (a container's mount, another user's checkout) is read as any."""
    try:
        uid = os.lstat(path).st_uid
        if uid == os.getuid() or not os.stat(os.path.dirname(path) or ".").st_mode & 0o022:
            return None
    except (OSError, ValueError):
        return None  # read as any file: its error is said there
    return uid


def _untrusted_keys_dropped(project: Layer, project_dir: str, layers: list[Layer], ignored: list[str]) -> Layer:
    """The project file's layer without the keys it may not set (`USER_SCOPE_KEYS`), unless the
    project is trusted: its folder is, or is inside, a folder of `trusted_projects` in the user
    file or the `--config` file. `trusted_projects` itself is never taken from a project. Each
    key dropped is one line in `ignored`."""
    names = {key for key in project.values if (ALIASES[key][0] if key in ALIASES else key) in USER_SCOPE_KEYS}
    if not names:
        return project
    trusted = _trusted(project_dir, [layer for layer in layers if layer is not project])
    dropped = sorted(key for key in names if key == "trusted_projects" or not trusted)
    for key in dropped:
        why = ("it is read from the user config only" if key == "trusted_projects" else
               f"it reaches other projects; trust this one with trusted_projects = [{project_dir!r}] in the user config")
        ignored.append(f"{project.source}: {key} ignored: {why}")
    return Layer(project.source, {k: v for k, v in project.values.items() if k not in dropped})


def _trusted(project_dir: str, layers: list[Layer]) -> bool:
    """Whether `project_dir` is (inside) a folder the user trusts (invalid lists trust nothing;
    `resolve` reports them)."""
    folder = os.path.realpath(project_dir)
    for layer in layers:
        entries = layer.values.get("trusted_projects")
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if isinstance(entry, str) and entry.strip() and os.path.isabs(os.path.expanduser(entry)):
                root = os.path.realpath(os.path.expanduser(entry))
                if folder == root or folder.startswith(root.rstrip("/") + "/"):
                    return True
    return False
