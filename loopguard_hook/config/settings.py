"""Profiles as data: the effective settings (`Config`), each profile's defaults, the default
tool lists. `config/load.py` layers files, environment and flags over these.
"""

from typing import Any, NamedTuple

#: Claude Code, Codex and DSH names (DSH's are lower case: `todo_write`, `write`, `edit`, `read`;
#: captured DSH 0.1.0-rc.8 payloads); Qwen Code 0.24.4 (`todo_write`, `edit`, `write_file`,
#: `read_file`) and Gemini CLI 0.61.0 (`write_todos`, `replace`, `write_file`, `read_file`), from
#: the tools their requests declare.
TODO_TOOLS: tuple[str, ...] = ("TodoWrite", "todo_write", "update_plan", "TaskCreate", "TaskUpdate", "write_todos")
MUTATING_TOOLS: tuple[str, ...] = (
    "Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch", "write", "edit", "write_file", "replace",
)
READ_TOOLS: tuple[str, ...] = ("Read", "read", "read_file", "read-file", "file-read", "fs-read", "NotebookRead")
PATH_KEYS = ("file_path", "path", "filePath", "file", "target_file", "notebook_path")
IGNORE_ARGS: tuple[str, ...] = ("description", "timeout", "run_in_background")
#: GitHub Copilot CLI (`view`, `create`; captured 1.0.102 payloads), Factory Droid (`Create`,
#: `ApplyPatch`, Execute's `riskLevel` and `riskLevelReason`, restated on every call; 0.215.0) and
#: Cursor (`StrReplace`, `Delete`; its documented tool names).
MUTATING_TOOLS += ("create", "Create", "ApplyPatch", "StrReplace", "Delete")
READ_TOOLS += ("view",)
IGNORE_ARGS += ("riskLevel", "riskLevelReason")
#: MCP servers' tools that write a file of the project (`mcp__<server>__<tool>`, as Claude Code
#: and Codex name them): the reference filesystem server's `write_file`, `edit_file`; Serena's
#: `create_text_file`, `replace_symbol_body`, `insert_after_symbol`, `insert_before_symbol`,
#: `replace_regex`, `replace_content`; Desktop Commander's `edit_block`. Serena names its file
#: `relative_path` (`MCP_PATH_KEYS`). Balanced counts them as edits; the seed profiles keep the
#: lists their plugins had.
MCP_WRITE_TOOLS: tuple[str, ...] = tuple(
    f"mcp__*__{name}"
    for name in (
        "write_file", "edit_file", "create_text_file", "replace_symbol_body", "insert_after_symbol",
        "insert_before_symbol", "replace_regex", "replace_content", "edit_block",
    )
)
MCP_PATH_KEYS = ("relative_path",)

PROFILES = ("balanced", "reminder", "breaker", "progress")
MODES = ("enforce", "advise", "observe")
COUNTINGS = ("no_progress", "consecutive")
PHASES = ("pre", "post")
PARALLEL = ("count_once", "deny", "count")



class Config(NamedTuple):
    """The effective settings of one hook run. Times are in seconds, sizes in characters.

    One flat value, as the configuration files spell the keys; grouped here by the rule that
    reads them (`rules/`). A rule is off when its thresholds are 0 (`RULES_OFF` says which)."""

    profile: str = "balanced"
    mode: str = "enforce"
    # the shared count (core/progress.py)
    counting: str = "no_progress"
    new_failure_is_evidence: bool = True
    evidence_call_counts: bool = True
    parallel_duplicates: str = "count_once"
    parallel_window_seconds: float = 1.0
    reset_on_compaction: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = TODO_TOOLS
    mutating_tools: tuple[str, ...] = MUTATING_TOOLS
    ignore_args: tuple[str, ...] = IGNORE_ARGS
    # repeat (rules/repeat.py), and argument-blind repeats (rules/same_result.py)
    remind_at: tuple[int, ...] = (3, 4)
    deny_at: int = 5
    stop_at: int = 8
    warn_after: int = 0
    register_advisory: bool = True
    remind_phase: str = "pre"
    exact_repeat_code: bool = False
    slow_repeat_seconds: float = 60.0
    preview_chars: int = 500
    result_preview_chars: int = 800
    # no-op changes: the files a call names to change are looked at before and after it (hosts/workspace.py)
    workspace_evidence: bool = True
    # and a write tool's own result: a Claude Code Write whose `originalFile` is its content
    write_result_evidence: bool = True
    # and the states the files had before: an edit back to one (a value toggled back) is no progress
    revisit_evidence: bool = True
    # same path (rules/same_path.py)
    max_same_path: int = 0
    read_tools: tuple[str, ...] = READ_TOOLS
    match_read_by_substring: bool = False
    path_keys: tuple[str, ...] = PATH_KEYS
    # budgets (rules/budgets.py)
    max_calls_since_progress: int = 64
    max_bookkeeping_calls_since_progress: int = 16
    bookkeeping_tools: tuple[str, ...] = TODO_TOOLS
    # same error (rules/same_error.py)
    same_error_remind_at: int = 3
    same_error_deny_at: int = 4
    same_error_stop_at: int = 0
    # edits of one file that keep failing (rules/target.py)
    reread_after_failed_edits: int = 4
    # edits of a file the host refuses as unread, its Read tool not used since (rules/read_first.py)
    read_first_deny_at: int = 2
    # every call refused the same way (rules/every_call.py)
    refused_remind_at: int = 3
    # a check whose answer the changes between its runs never move (rules/unmoved.py)
    unmoved_remind_at: int = 3
    unmoved_deny_at: int = 5
    # shell calls in a row that only print words the agent wrote (rules/no_op.py)
    no_op_remind_at: int = 3
    no_op_deny_at: int = 5
    # plan calls in a row sent with the same input (rules/same_plan.py)
    same_plan_deny_at: int = 3
    # calls that reach the host without their arguments, a reply cut short (rules/cut_input.py)
    cut_input_remind_at: int = 3
    cut_input_stop_at: int = 4
    # a call the permission settings refused, sent again as it was (rules/refused_again.py)
    refused_again_deny_at: int = 2
    # same answer (rules/same_answer.py)
    same_answer_remind_at: int = 3
    same_answer_deny_empty_reads: bool = True
    # background polling (rules/polling.py)
    max_rapid_polls: int = 5
    # polls no hook sees, of a hung command (rules/unhooked.py)
    hung_command_polls: int = 2
    hung_command_seconds: float = 180.0
    # answer-only mode (rules/answer_only.py)
    answer_only_after_deny: bool = False
    # text loops (rules/text_loops.py) and idle continuations (rules/continuations.py)
    max_repeated_lines: int = 8
    prompt_resets_text: bool = False
    max_repeated_blocks: int = 5
    max_block_chars: int = 16384
    same_final_message_at: int = 3
    max_idle_continuations: int = 5
    transcript_read_bytes: int = 262144
    # the store
    keep_state: bool = False
    idle_session_seconds: float = 604800.0
    lock_timeout_seconds: float = 2.0
    audit_log_max_bytes: int = 1048576
    # What a loop cost in money (`replay`, `log`, `stats`): prices per million tokens, 0 = not
    # given. No price is built in. Cache reads and writes cost the input price unless set.
    price_input_per_mtok: float = 0.0
    price_output_per_mtok: float = 0.0
    price_cache_read_per_mtok: float = 0.0
    price_cache_write_per_mtok: float = 0.0
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


#: What turns each rule off that a profile can leave out (its thresholds at 0).
RULES_OFF: dict[str, dict[str, Any]] = {
    "budgets": {"max_calls_since_progress": 0, "max_bookkeeping_calls_since_progress": 0},
    "same_error": {"same_error_remind_at": 0, "same_error_deny_at": 0, "same_error_stop_at": 0},
    "same_answer": {"same_answer_remind_at": 0, "same_answer_deny_empty_reads": False},
    "continuations": {"max_idle_continuations": 0},
    "polling": {"max_rapid_polls": 0},
    "target": {"reread_after_failed_edits": 0},
    "read_first": {"read_first_deny_at": 0},
    "every_call": {"refused_remind_at": 0},
    "unhooked": {"hung_command_polls": 0},
    "unmoved": {"unmoved_remind_at": 0, "unmoved_deny_at": 0},
    "no_op": {"no_op_remind_at": 0, "no_op_deny_at": 0},
    "cut_input": {"cut_input_remind_at": 0, "cut_input_stop_at": 0},
    "refused_again": {"refused_again_deny_at": 0},
    "same_plan": {"same_plan_deny_at": 0},
}

#: The rules the seed plugins do not have (the progress seed has the budgets).
_OURS = (
    "budgets", "same_error", "same_answer", "continuations", "polling", "target", "every_call", "unhooked", "unmoved", "no_op",
    "cut_input", "refused_again", "same_plan", "read_first",
)

#: Each profile: the rules it leaves out (`rules_off`, from `RULES_OFF`) and the settings it
#: gives the rest. The seed profiles reproduce the three DSH plugins this product grew from.
PROFILE_SPECS: dict[str, dict[str, Any]] = {
    "balanced": {"mutating_tools": MUTATING_TOOLS + MCP_WRITE_TOOLS, "path_keys": PATH_KEYS + MCP_PATH_KEYS},
    "reminder": {
        "rules_off": _OURS,
        "write_result_evidence": False,
        "revisit_evidence": False,
        "counting": "consecutive",
        "remind_at": (3, 5, 8),
        "deny_at": 0,
        "stop_at": 0,
        "remind_phase": "post",
        "slow_repeat_seconds": 0.0,
        "parallel_duplicates": "count",
        "reset_on_compaction": False,
        "exclude": (),
    },
    "breaker": {
        "rules_off": _OURS,
        "write_result_evidence": False,
        "revisit_evidence": False,
        "counting": "consecutive",
        "remind_at": (),
        "deny_at": 2,
        "stop_at": 0,
        "warn_after": 2,
        "remind_phase": "post",
        "max_same_path": 3,
        "slow_repeat_seconds": 0.0,
        "parallel_duplicates": "count",
        "reset_on_compaction": False,
        "match_read_by_substring": True,
        "read_tools": ("read", "Read", "read_file", "read-file", "file-read", "fs-read"),
        "preview_chars": 400,
    },
    "progress": {
        "rules_off": _OURS[1:],
        "write_result_evidence": False,
        "revisit_evidence": False,
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
        "slow_repeat_seconds": 0.0,
        "parallel_duplicates": "deny",
        "reset_on_compaction": False,
    },
}


def _defaults(spec: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for rule in spec.get("rules_off", ()):
        values.update(RULES_OFF[rule])
    values.update((k, v) for k, v in spec.items() if k != "rules_off")
    return values


#: Each profile's settings over `Config`'s defaults, as the configuration is layered on them.
PROFILE_DEFAULTS: dict[str, dict[str, Any]] = {name: _defaults(spec) for name, spec in PROFILE_SPECS.items()}
