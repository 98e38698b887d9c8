"""Every config key's validator, and the plugin option names accepted as aliases.

Validation fails loud (`ConfigError`: one line naming the file, the key and the reason).
"""

import os
from collections.abc import Callable
from typing import Any

from .settings import COUNTINGS, MODES, PARALLEL, PHASES, PROFILES, Config


class ConfigError(ValueError):
    """A configuration value is invalid; the message names the source, key and reason.

    `problems` lists every problem found (one line each, the first is the message itself): the
    hook prints one line, `config check` prints them all. `files`: the config files the problems
    name (filled in by `load.load`; empty when only the environment or a flag is at fault).
    """

    def __init__(self, message: str, problems: list[str] | None = None, files: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems or [message]
        self.files = files

    @property
    def fix(self) -> str:
        """What to run: `loopguard-hook config check FILE` for each file at fault (it lists every
        problem), or `config check` alone when no file is (a `LOOPGUARD_*` variable, a flag)."""
        return check_commands(self.files)


def check_commands(files: tuple[str, ...] | list[str]) -> str:
    """`loopguard-hook config check FILE` for each of `files` (shell-quoted), or the bare command."""
    import shlex

    if not files:
        return "loopguard-hook config check (it lists every problem; fix the LOOPGUARD_* variable or option it names)"
    return "; ".join(f"loopguard-hook config check {shlex.quote(f)}" for f in files) + " (it lists every problem)"


def failed(problems: list[str]) -> ConfigError:
    """One error for several problems: the first, with a count of the others."""
    more = f" (and {len(problems) - 1} more; see `loopguard-hook config check`)" if len(problems) > 1 else ""
    return ConfigError(problems[0] + more, problems)


def toml_text(value: Any) -> str:
    """A value as TOML writes it (`true`, `"x"`, `[1, 2]`), for messages about a config file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_text(v)}" for k, v in value.items()) + "}"
    return str(value)


#: The largest integer any setting takes: a count, a size in bytes or characters. Beyond it a
#: value is a typo, and one past 64 bits could not even be written to the ledger.
MAX_INT = 2**31 - 1


def _int(minimum: int, maximum: int = MAX_INT) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be an integer, got {toml_text(value)}")
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
        raise ValueError(f"must be a number of seconds, got {toml_text(value)}")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"must be a finite number of seconds, got {toml_text(value)}")
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


def _price(value: Any) -> float:
    """A price per million tokens, in the user's currency; 0 means "not given"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a price per million tokens (a number, e.g. 3 or 0.3), got {toml_text(value)}")
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        raise ValueError(f"must be a finite price of 0 (not given) or more, got {value}")
    if value > 1_000_000:
        raise ValueError(f"must be at most 1000000 per million tokens, got {value}")
    return float(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {toml_text(value)}")
    return value


def _choice(options: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in options:
            raise ValueError(f"must be one of {', '.join(options)}; got {toml_text(value)}")
        return str(value)

    return check


def _patterns(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"must be a list of strings, got {toml_text(value)}")
    for item in value:
        if not isinstance(item, str):
            raise ValueError(f"must contain only strings, got {toml_text(item)}")
        if not item.strip():
            raise ValueError("must not contain an empty pattern")
    return tuple(value)


def _folders(value: Any) -> tuple[str, ...]:
    """Absolute folder paths (`~` is the user's home), as given."""
    out = _patterns(value)
    for item in out:
        if not os.path.isabs(os.path.expanduser(item)):
            raise ValueError(f"must hold absolute folder paths, got {toml_text(item)}")
    return out


def _thresholds(value: Any, *, allow_empty: bool = True, sort: bool = False) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"must be a list of integers, got {toml_text(value)}")
    if not value and not allow_empty:
        raise ValueError("must not be empty")
    out: list[int] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int):
            raise ValueError(f"must contain only integers, got {toml_text(item)}")
        if item < 2:
            raise ValueError(f"thresholds must be >= 2 (a repeat needs two calls), got {item}")
        if item > MAX_INT:
            raise ValueError(f"thresholds must be <= {MAX_INT}, got {item}")
        if item in out:
            raise ValueError(f"duplicate threshold {item}")
        out.append(item)
    if not sort and out != sorted(out):
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
    "same_error_deny_at": _off_or_threshold,
    "same_error_stop_at": _off_or_threshold,
    "same_answer_remind_at": _off_or_threshold,
    "same_answer_deny_empty_reads": _bool,
    "unmoved_remind_at": _off_or_threshold,
    "unmoved_deny_at": _off_or_threshold,
    "no_op_remind_at": _off_or_threshold,
    "no_op_deny_at": _off_or_threshold,
    "cut_input_remind_at": _off_or_threshold,
    "cut_input_stop_at": _off_or_threshold,
    "refused_again_deny_at": _off_or_threshold,
    "same_plan_deny_at": _off_or_threshold,
    "max_rapid_polls": _int(0),
    "reread_after_failed_edits": _off_or_threshold,
    "read_first_deny_at": _off_or_threshold,
    "refused_remind_at": _off_or_threshold,
    "hung_command_polls": _int(0),
    "hung_command_seconds": _float,
    "max_idle_continuations": _off_or_threshold,
    "new_failure_is_evidence": _bool,
    "workspace_evidence": _bool,
    "write_result_evidence": _bool,
    "revisit_evidence": _bool,
    "evidence_call_counts": _bool,
    "exact_repeat_code": _bool,
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
    "prompt_resets_text": _bool,
    "max_repeated_blocks": _off_or_threshold,
    "max_block_chars": _int(64),
    "same_final_message_at": _off_or_threshold,
    "transcript_read_bytes": _int(4096, 16 * 1024 * 1024),
    "keep_state": _bool,
    "idle_session_seconds": _float,
    "lock_timeout_seconds": _positive_float,
    "audit_log_max_bytes": _int(4096),
    "price_input_per_mtok": _price,
    "price_output_per_mtok": _price,
    "price_cache_read_per_mtok": _price,
    "price_cache_write_per_mtok": _price,
    "trusted_projects": _folders,
}

#: Keys that reach beyond one project: what gc deletes at each SessionStart (every session
#: idle that long, of every project), when the shared audit log rotates, and which projects may
#: set these. A project's `.loopguard.toml` sets them only when the user trusts that project
#: (`trusted_projects` in the user config); `trusted_projects` itself never comes from a project.
USER_SCOPE_KEYS = frozenset({"idle_session_seconds", "audit_log_max_bytes", "trusted_projects"})

KEYS: tuple[str, ...] = Config._fields
assert set(KEYS) == set(VALIDATORS)


def _plugin_thresholds(value: Any) -> tuple[int, ...]:
    # The reminder plugin rejects empty lists, non-integers, values < 2 and duplicates, and sorts
    # an unordered list ascending (its spec: "unsorted on purpose: normalized ascending"), so its
    # option name does the same; our own `remind_at` stays strict (contract section 7).
    return _thresholds(value, allow_empty=False, sort=True)


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


def suggest(key: str) -> str:
    """` (did you mean 'x'?)` for the known key or alias closest to a misspelt one, or ""."""
    import difflib

    candidates = list(KEYS) + list(ALIASES)
    close = difflib.get_close_matches(key, candidates, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def convert(source: str, key: str, value: Any) -> tuple[str, Any]:
    """Validate one raw setting: `(our key, value)`; an alias is translated to our key.

    Raises:
        ConfigError: the key is unknown or removed, or the value is invalid.
    """
    if key in REMOVED:
        raise ConfigError(f"{source}: key {key!r} was removed; {REMOVED[key]}")
    if key in ALIASES:
        target, check = ALIASES[key]
    elif key in VALIDATORS:
        target, check = key, VALIDATORS[key]
    else:
        raise ConfigError(f"{source}: unknown key {key!r}{suggest(key)}")
    try:
        converted = check(value)
    except ValueError as exc:
        raise ConfigError(f"{source}: {key}: {exc}") from None
    if target in NON_EMPTY_LISTS and not converted:
        raise ConfigError(f"{source}: {key}: must not be empty")
    return target, converted
