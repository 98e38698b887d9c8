"""Profiles as data: the effective settings (`Config`), each profile's defaults, the default
tool lists. `config.py` layers files, environment and flags over these.
"""

from typing import Any, NamedTuple

#: Claude Code, Codex and DSH names (DSH's are lower case: `todo_write`, `write`, `edit`, `read`;
#: captured DSH 0.1.0-rc.8 payloads).
TODO_TOOLS = ("TodoWrite", "todo_write", "update_plan", "TaskCreate", "TaskUpdate")
MUTATING_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch", "write", "edit")
READ_TOOLS = ("Read", "read", "read_file", "read-file", "file-read", "fs-read", "NotebookRead")
PATH_KEYS = ("file_path", "path", "filePath", "file", "target_file", "notebook_path")
IGNORE_ARGS = ("description", "timeout", "run_in_background")

PROFILES = ("balanced", "reminder", "breaker", "progress")
MODES = ("enforce", "advise", "observe")
COUNTINGS = ("no_progress", "consecutive")
PHASES = ("pre", "post")
PARALLEL = ("count_once", "deny", "count")



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
    same_error_deny_at: int = 4
    same_error_stop_at: int = 0
    same_answer_remind_at: int = 3
    new_failure_is_evidence: bool = True
    evidence_call_counts: bool = True
    exact_repeat_code: bool = False
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
    prompt_resets_text: bool = False
    max_repeated_blocks: int = 5
    max_block_chars: int = 16384
    same_final_message_at: int = 3
    max_idle_continuations: int = 5
    transcript_read_bytes: int = 262144
    keep_state: bool = False
    idle_session_seconds: float = 604800.0
    lock_timeout_seconds: float = 2.0
    audit_log_max_bytes: int = 1048576
    trusted_projects: tuple[str, ...] = ()

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
        "same_error_deny_at": 0,
        "same_error_stop_at": 0,
        "same_answer_remind_at": 0,
        "max_idle_continuations": 0,
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
        "same_error_deny_at": 0,
        "same_error_stop_at": 0,
        "same_answer_remind_at": 0,
        "max_idle_continuations": 0,
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
        "evidence_call_counts": False,
        "exact_repeat_code": True,
        "prompt_resets_text": True,
        "max_repeated_lines": 5,
        "same_error_remind_at": 0,
        "same_error_deny_at": 0,
        "same_error_stop_at": 0,
        "same_answer_remind_at": 0,
        "max_idle_continuations": 0,
        "slow_repeat_seconds": 0.0,
        "parallel_duplicates": "deny",
        "reset_on_compaction": False,
    },
}
