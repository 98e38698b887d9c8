"""Profiles and configuration: defaults per profile, TOML files, `LOOPGUARD_*` environment, flags.

Sources, later wins: profile defaults < user file (`<user config dir>/config.toml`) < project
file (`.loopguard.toml` in `$CLAUDE_PROJECT_DIR` or the payload's `cwd`) < `--config`/
`LOOPGUARD_CONFIG` file < `LOOPGUARD_<KEY>` environment < command-line flags. Every value
remembers where it came from (`loopguard-hook config show`).

Validation fails loud (`ConfigError`: one line naming the file, the key and the reason).
The option names of the plugins the reminder, breaker and progress profiles reproduce
(camelCase) are accepted as aliases so settings carry over.
"""

import os
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

TODO_TOOLS = ("TodoWrite", "todo_write", "update_plan", "TaskCreate", "TaskUpdate")
MUTATING_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch")
READ_TOOLS = ("Read", "read", "read_file", "read-file", "file-read", "fs-read", "NotebookRead")
PATH_KEYS = ("file_path", "path", "filePath", "file", "target_file", "notebook_path")
IGNORE_ARGS = ("description", "timeout", "run_in_background")

PROFILES = ("balanced", "reminder", "breaker", "progress")
MODES = ("enforce", "advise", "observe")
COUNTINGS = ("no_progress", "consecutive")
PHASES = ("pre", "post")
PARALLEL = ("count_once", "deny", "count")


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the source, key and reason."""


class Config(NamedTuple):
    """The effective settings of one hook run. Times are in seconds, sizes in characters."""

    profile: str = "balanced"
    mode: str = "enforce"
    counting: str = "no_progress"
    remind_at: tuple[int, ...] = (3, 4)
    deny_at: int = 5
    stop_at: int = 8
    warn_after: int = 0
    register_advisory: bool = True
    remind_phase: str = "pre"
    max_same_path: int = 0
    max_calls_since_progress: int = 64
    max_bookkeeping_calls_since_progress: int = 16
    same_error_remind_at: int = 3
    new_failure_is_evidence: bool = True
    answer_only_after_deny: bool = False
    slow_repeat_seconds: float = 60.0
    parallel_duplicates: str = "count_once"
    parallel_window_seconds: float = 1.0
    reset_on_compaction: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = TODO_TOOLS
    bookkeeping_tools: tuple[str, ...] = TODO_TOOLS
    mutating_tools: tuple[str, ...] = MUTATING_TOOLS
    read_tools: tuple[str, ...] = READ_TOOLS
    match_read_by_substring: bool = False
    path_keys: tuple[str, ...] = PATH_KEYS
    ignore_args: tuple[str, ...] = IGNORE_ARGS
    preview_chars: int = 500
    result_preview_chars: int = 800
    max_repeated_lines: int = 8
    max_repeated_blocks: int = 5
    max_block_chars: int = 16384
    same_final_message_at: int = 3
    transcript_read_bytes: int = 262144
    keep_state: bool = False
    lock_timeout_seconds: float = 2.0
    audit_log_max_bytes: int = 1048576

    def effective_remind_at(self) -> tuple[int, ...]:
        """`remind_at`, plus the breaker's `warn_after` tier when it can fire.

        The advisory is inert unless `2 <= warn_after < deny_at` (breaker profile: a notice keyed to a
        count that every fresh call reaches would fire on ordinary calls).
        """
        warn = self.warn_after
        if self.register_advisory and warn >= 2 and (self.deny_at == 0 or warn < self.deny_at):
            return tuple(sorted(set(self.remind_at) | {warn}))
        return self.remind_at


PROFILE_DEFAULTS: dict[str, dict[str, Any]] = {
    "balanced": {},
    "reminder": {
        "counting": "consecutive",
        "remind_at": (3, 5, 8),
        "deny_at": 0,
        "stop_at": 0,
        "remind_phase": "post",
        "max_calls_since_progress": 0,
        "max_bookkeeping_calls_since_progress": 0,
        "same_error_remind_at": 0,
        "slow_repeat_seconds": 0.0,
        "parallel_duplicates": "count",
        "reset_on_compaction": False,
        "exclude": (),
    },
    "breaker": {
        "counting": "consecutive",
        "remind_at": (),
        "deny_at": 2,
        "stop_at": 0,
        "warn_after": 2,
        "remind_phase": "post",
        "max_same_path": 3,
        "max_calls_since_progress": 0,
        "max_bookkeeping_calls_since_progress": 0,
        "same_error_remind_at": 0,
        "slow_repeat_seconds": 0.0,
        "parallel_duplicates": "count",
        "reset_on_compaction": False,
        "match_read_by_substring": True,
        "read_tools": ("read", "Read", "read_file", "read-file", "file-read", "fs-read"),
        "preview_chars": 400,
    },
    "progress": {
        "counting": "no_progress",
        "remind_at": (),
        "deny_at": 6,
        "stop_at": 0,
        "answer_only_after_deny": True,
        "new_failure_is_evidence": False,
        "same_error_remind_at": 0,
        "slow_repeat_seconds": 0.0,
        "parallel_duplicates": "deny",
        "reset_on_compaction": False,
    },
}

# -- validation -------------------------------------------------------------------------------


#: The largest integer any setting takes: a count, a size in bytes or characters. Beyond it a
#: value is a typo, and one past 64 bits could not even be written to the ledger.
MAX_INT = 2**31 - 1


def _int(minimum: int, maximum: int = MAX_INT) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be an integer, got {value!r}")
        if value < minimum:
            raise ValueError(f"must be >= {minimum}, got {value}")
        if value > maximum:
            raise ValueError(f"must be <= {maximum}, got {value}")
        return value

    return check


def _off_or_threshold(value: Any) -> int:
    """0 turns a repeat rule off; otherwise a repeat needs at least two occurrences."""
    result = _int(0)(value)
    if result == 1:
        raise ValueError("must be 0 (off) or >= 2 (a repeat needs two occurrences), got 1")
    return result


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a number of seconds, got {value!r}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"must be a finite number of seconds, got {value!r}")
    if value < 0:
        raise ValueError(f"must not be negative, got {value}")
    if value > MAX_INT:
        raise ValueError(f"must be <= {MAX_INT} seconds, got {value}")
    return float(value)


def _positive_float(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 60:
        raise ValueError(f"must be at most 60 seconds (both clients wait for the hook), got {value}")
    result = _float(value)
    if result <= 0:
        raise ValueError(f"must be greater than 0, got {value}")
    return result


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {value!r}")
    return value


def _choice(options: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in options:
            raise ValueError(f"must be one of {', '.join(options)}; got {value!r}")
        return str(value)

    return check


def _patterns(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"must be a list of strings, got {value!r}")
    for item in value:
        if not isinstance(item, str):
            raise ValueError(f"must contain only strings, got {item!r}")
        if not item.strip():
            raise ValueError("must not contain an empty pattern")
    return tuple(value)


def _thresholds(value: Any, *, allow_empty: bool = True) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"must be a list of integers, got {value!r}")
    if not value and not allow_empty:
        raise ValueError("must not be empty")
    out: list[int] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int):
            raise ValueError(f"must contain only integers, got {item!r}")
        if item < 2:
            raise ValueError(f"thresholds must be >= 2 (a repeat needs two calls), got {item}")
        if item > MAX_INT:
            raise ValueError(f"thresholds must be <= {MAX_INT}, got {item}")
        if item in out:
            raise ValueError(f"duplicate threshold {item}")
        out.append(item)
    if out != sorted(out):
        raise ValueError(f"must be in ascending order, got {out}")
    return tuple(sorted(out))


VALIDATORS: dict[str, Callable[[Any], Any]] = {
    "profile": _choice(PROFILES),
    "mode": _choice(MODES),
    "counting": _choice(COUNTINGS),
    "remind_at": _thresholds,
    "deny_at": _off_or_threshold,
    "stop_at": _off_or_threshold,
    "warn_after": _int(0),
    "register_advisory": _bool,
    "remind_phase": _choice(PHASES),
    "max_same_path": _int(0),
    "max_calls_since_progress": _int(0),
    "max_bookkeeping_calls_since_progress": _int(0),
    "same_error_remind_at": _off_or_threshold,
    "new_failure_is_evidence": _bool,
    "answer_only_after_deny": _bool,
    "slow_repeat_seconds": _float,
    "parallel_duplicates": _choice(PARALLEL),
    "parallel_window_seconds": _float,
    "reset_on_compaction": _bool,
    "include": _patterns,
    "exclude": _patterns,
    "bookkeeping_tools": _patterns,
    "mutating_tools": _patterns,
    "read_tools": _patterns,
    "match_read_by_substring": _bool,
    "path_keys": _patterns,
    "ignore_args": _patterns,
    "preview_chars": _int(20),
    "result_preview_chars": _int(20),
    "max_repeated_lines": _off_or_threshold,
    "max_repeated_blocks": _off_or_threshold,
    "max_block_chars": _int(64),
    "same_final_message_at": _off_or_threshold,
    "transcript_read_bytes": _int(4096, 16 * 1024 * 1024),
    "keep_state": _bool,
    "lock_timeout_seconds": _positive_float,
    "audit_log_max_bytes": _int(4096),
}

KEYS: tuple[str, ...] = Config._fields
assert set(KEYS) == set(VALIDATORS)


def _plugin_thresholds(value: Any) -> tuple[int, ...]:
    # The reminder plugin rejects empty lists, non-integers, values < 2 and duplicates; unsorted lists are
    # rejected too, as for `remind_at`.
    return _thresholds(value, allow_empty=False)


def _repeat_group(value: Any) -> int:
    # Progress plugin: maxCallsPerRepeatGroup calls are allowed, the next one is denied.
    return _int(1)(value) + 1


def _deny_after(value: Any) -> int:
    return _int(2)(value)


#: Plugin option names (camelCase) -> (our key, converter): the repeat-tool reminder,
#: the repeat-tool breaker and the agent loop guard.
ALIASES: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "thresholds": ("remind_at", _plugin_thresholds),
    "argumentsPreviewChars": ("preview_chars", _int(20)),
    "denyAfter": ("deny_at", _deny_after),
    "warnAfter": ("warn_after", _int(0)),
    "registerAdvisory": ("register_advisory", _bool),
    "readTools": ("read_tools", _patterns),
    "matchReadBySubstring": ("match_read_by_substring", _bool),
    "pathAliases": ("path_keys", _patterns),
    "maxSamePath": ("max_same_path", _int(1)),
    "previewChars": ("preview_chars", _int(20)),
    "resultPreviewChars": ("result_preview_chars", _int(20)),
    "maxCallsPerRepeatGroup": ("deny_at", _repeat_group),
    "maxCallsPerToolPerTurn": ("deny_at", _repeat_group),
    "maxToolAttemptsPerTurn": ("max_calls_since_progress", _int(0)),
    "maxProgressToolCallsPerTurn": ("max_bookkeeping_calls_since_progress", _int(0)),
    "maxRepeatedAssistantLines": ("max_repeated_lines", _off_or_threshold),
    "maxRepeatedAssistantBlocks": ("max_repeated_blocks", _off_or_threshold),
    "maxAssistantBlockChars": ("max_block_chars", _int(64)),
}

#: Keys that existed once and now mean nothing, with what to use instead.
REMOVED: dict[str, str] = {}

#: The pattern lists that must not be empty strings; an empty `include` list means "all tools".
NON_EMPTY_LISTS = frozenset({"read_tools", "path_keys", "mutating_tools"})


class Layer(NamedTuple):
    """Raw settings from one source, before validation."""

    source: str
    values: Mapping[str, Any]


class Resolved(NamedTuple):
    """The effective config and, per key, the source that set it."""

    config: Config
    sources: dict[str, str]


def _suggest(key: str) -> str:
    import difflib

    candidates = list(KEYS) + list(ALIASES)
    close = difflib.get_close_matches(key, candidates, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _convert(source: str, key: str, value: Any) -> tuple[str, Any]:
    if key in REMOVED:
        raise ConfigError(f"{source}: key {key!r} was removed; {REMOVED[key]}")
    if key in ALIASES:
        target, check = ALIASES[key]
    elif key in VALIDATORS:
        target, check = key, VALIDATORS[key]
    else:
        raise ConfigError(f"{source}: unknown key {key!r}{_suggest(key)}")
    try:
        converted = check(value)
    except ValueError as exc:
        raise ConfigError(f"{source}: {key}: {exc}") from None
    if target in NON_EMPTY_LISTS and not converted:
        raise ConfigError(f"{source}: {key}: must not be empty")
    return target, converted


def resolve(layers: list[Layer]) -> Resolved:
    """Validate every layer and fold them over the chosen profile's defaults.

    The profile is taken from the last layer that names one (default `balanced`).

    Raises:
        ConfigError: an unknown or removed key, a value of the wrong type or range, or
            inconsistent thresholds (`stop_at` not above `deny_at`).
    """
    converted: list[tuple[str, dict[str, Any]]] = []
    profile, profile_source = "balanced", "default"
    for layer in layers:
        values: dict[str, Any] = {}
        given: dict[str, str] = {}
        for key, value in layer.values.items():
            target, result = _convert(layer.source, key, value)
            if target in given:
                raise ConfigError(
                    f"{layer.source}: {key!r} and {given[target]!r} both set {target}; keep one of them"
                )
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
    if config.stop_at and config.deny_at and config.stop_at <= config.deny_at:
        raise ConfigError(f"{sources['stop_at']}: stop_at ({config.stop_at}) must be greater than deny_at ({config.deny_at})")
    if config.deny_at == 1:
        raise ConfigError(f"{sources['deny_at']}: deny_at must be 0 (off) or >= 2")
    return Resolved(config=config, sources=sources)


# -- sources ----------------------------------------------------------------------------------


MAX_CONFIG_BYTES = 1 << 20


def read_regular_file(path: str, limit: int = -1) -> bytes:
    """The bytes of a file a user named (a config file, a recording to replay), at most
    `limit + 1` of them when `limit` is set, so the caller can tell it was too big.

    Opened non-blocking and read only when it is a regular file: a FIFO or `/dev/zero` given
    by mistake must not hang the hook or fill memory.

    Raises:
        OSError: it cannot be opened or read, or is not a regular file (`strerror` says which).
    """
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return fh.read(limit + 1 if limit >= 0 else -1)


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
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{source}: nested too deeply to be a config file") from None
    section = data.get("loopguard")
    if isinstance(section, dict) and len(data) == 1:
        data = section
    return Layer(source=source, values=data)


_ENV_PREFIX = "LOOPGUARD_"
#: Variables that are not settings: where files are, and the resident helper's switch and idle
#: timeout (fastpath/client.py).
_ENV_NOT_KEYS = frozenset(
    {"LOOPGUARD_STATE_DIR", "LOOPGUARD_CONFIG", "LOOPGUARD_RESIDENT", "LOOPGUARD_RESIDENT_IDLE_SECONDS"}
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
            return int(text)
        except ValueError:
            return raw
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            return raw
    if isinstance(default, tuple):
        items = [item.strip() for item in text.split(",") if item.strip()]
        if key == "remind_at":
            try:
                return [int(item) for item in items]
            except ValueError:
                return raw
        return items
    return text


def env_layer(environ: Mapping[str, str]) -> Layer:
    """`LOOPGUARD_<KEY>` variables (e.g. `LOOPGUARD_DENY_AT=4`, `LOOPGUARD_REMIND_AT=3,4`).

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
        ConfigError: any source is unreadable or invalid.
    """
    layers: list[Layer] = []
    user_file = user_path if user_path is not None else user_config_path()
    if user_file and os.path.isfile(user_file):
        layers.append(read_toml(user_file, f"user file {user_file}"))
    project_dir = environ.get("CLAUDE_PROJECT_DIR") or cwd
    if project_dir:
        project_file = os.path.join(project_dir, PROJECT_FILE)
        if os.path.isfile(project_file):
            layers.append(read_toml(project_file, f"project file {project_file}"))
    explicit = config_path or environ.get("LOOPGUARD_CONFIG")
    if explicit:
        layers.append(read_toml(explicit, f"config file {explicit}"))
    layers.append(env_layer(environ))
    if flags:
        layers.append(Layer(source="command line", values={k: v for k, v in flags.items() if v is not None}))
    return resolve(layers)
