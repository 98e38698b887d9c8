"""Configuration: profile defaults, layering, seed aliases, and loud validation of every key."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from loopguard_hook.config import load as cfg
from loopguard_hook.config.keys import ConfigError
from loopguard_hook.config.load import Layer, load, resolve


def test_balanced_is_the_default_and_matches_the_contract() -> None:
    c = resolve([]).config
    assert (c.profile, c.counting, c.remind_at, c.deny_at, c.stop_at) == (
        "balanced",
        "no_progress",
        (3, 4),
        5,
        8,
    )
    assert (
        c.max_calls_since_progress,
        c.max_bookkeeping_calls_since_progress,
        c.slow_repeat_seconds,
    ) == (64, 16, 60.0)
    assert c.reset_on_compaction and not c.answer_only_after_deny and "TodoWrite" in c.exclude


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (
            "reminder",
            {
                "counting": "consecutive",
                "remind_at": (3, 5, 8),
                "deny_at": 0,
                "stop_at": 0,
                "exclude": (),
                "reset_on_compaction": False,
                "answer_only_after_deny": False,
            },
        ),
        (
            "breaker",
            {
                "counting": "consecutive",
                "deny_at": 2,
                "max_same_path": 3,
                "reset_on_compaction": False,
            },
        ),
        (
            "progress",
            {
                "counting": "no_progress",
                "deny_at": 6,
                "max_calls_since_progress": 64,
                "max_bookkeeping_calls_since_progress": 16,
                "answer_only_after_deny": True,
                "reset_on_compaction": False,
            },
        ),
    ],
)
def test_profile_defaults(profile: str, expected: dict[str, Any]) -> None:
    c = resolve([Layer("test", {"profile": profile})]).config
    for key, value in expected.items():
        assert getattr(c, key) == value, key


def test_breaker_advisory_is_inert_unless_below_deny() -> None:
    default = resolve([Layer("t", {"profile": "breaker"})]).config
    assert default.effective_remind_at() == ()
    tiered = resolve([Layer("t", {"profile": "breaker", "denyAfter": 3, "warnAfter": 2})]).config
    assert tiered.effective_remind_at() == (2,)


def test_layers_later_wins_and_sources_are_named(tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    user.write_text('profile = "progress"\ndeny_at = 7\n')
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".loopguard.toml").write_text("deny_at = 9\nstop_at = 12\n")
    resolved = load(
        environ={"LOOPGUARD_STOP_AT": "15"},
        cwd=str(project),
        user_path=str(user),
        flags={"mode": "advise"},
    )
    c = resolved.config
    assert (c.profile, c.deny_at, c.stop_at, c.mode) == ("progress", 9, 15, "advise")
    assert resolved.sources["profile"].startswith("user file")
    assert resolved.sources["deny_at"].startswith("project file")
    assert resolved.sources["stop_at"] == "environment"
    assert resolved.sources["mode"] == "command line"
    assert resolved.sources["answer_only_after_deny"] == "profile progress"


def test_claude_project_dir_wins_over_cwd(tmp_path: Path) -> None:
    (tmp_path / ".loopguard.toml").write_text("deny_at = 11\nstop_at = 20\n")
    c = load(environ={"CLAUDE_PROJECT_DIR": str(tmp_path)}, cwd="/nonexistent", user_path="").config
    assert c.deny_at == 11


def test_a_call_in_a_subfolder_reads_its_repositorys_project_file(tmp_path: Path) -> None:
    """Codex 0.171.0 gives the payload's `cwd` with the call's `workdir` applied, so a call run in
    packages/api must read the repository root's file as the session's other calls do; a file
    nearer the call wins; outside a repository only the folder itself counts."""
    repo = tmp_path / "repo"
    deep = repo / "packages" / "api" / "src"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".loopguard.toml").write_text("deny_at = 7\n")
    assert load(environ={}, cwd=str(deep), user_path="").config.deny_at == 7
    assert cfg.find_project_file(str(deep)) == str(repo / ".loopguard.toml")
    (repo / "packages" / ".loopguard.toml").write_text("deny_at = 6\n")
    assert load(environ={}, cwd=str(deep), user_path="").config.deny_at == 6
    loose = tmp_path / "loose" / "sub"
    loose.mkdir(parents=True)
    (tmp_path / "loose" / ".loopguard.toml").write_text("deny_at = 7\n")  # no repository around it
    assert cfg.find_project_file(str(loose)) is None
    assert cfg.find_project_file(str(tmp_path / "loose")) == str(tmp_path / "loose" / ".loopguard.toml")
    nested = repo / "vendor" / "lib"  # a repository of its own inside: the root stops the search
    nested.mkdir(parents=True)
    (repo / "vendor" / ".git").mkdir()
    assert cfg.find_project_file(str(nested)) is None
    assert cfg.find_project_file("/nonexistent/a/b") is None and cfg.find_project_file("bad\0path") is None


def test_seed_aliases_carry_over() -> None:
    c = resolve(
        [
            Layer(
                "t",
                {
                    "profile": "progress",
                    "maxCallsPerRepeatGroup": 3,
                    "maxToolAttemptsPerTurn": 0,
                    "maxProgressToolCallsPerTurn": 4,
                },
            )
        ]
    ).config
    assert (c.deny_at, c.max_calls_since_progress, c.max_bookkeeping_calls_since_progress) == (
        4,
        0,
        4,
    )
    legacy = resolve([Layer("t", {"maxCallsPerToolPerTurn": 2})]).config
    assert legacy.deny_at == 3
    seed0 = resolve([Layer("t", {"thresholds": [3, 5], "argumentsPreviewChars": 100})]).config
    assert seed0.remind_at == (3, 5) and seed0.preview_chars == 100


BAD: list[tuple[str, Any, str]] = [
    ("remind_at", [4, 3], "ascending"),
    ("remind_at", [3, 3], "duplicate"),
    ("remind_at", [1, 3], ">= 2"),
    ("remind_at", ["3"], "integers"),
    ("remind_at", 3, "list"),
    ("thresholds", [], "empty"),
    ("thresholds", [3, 3], "duplicate"),
    ("thresholds", [3.5], "integers"),
    ("deny_at", -1, ">= 0"),
    ("deny_at", "5", "integer"),
    ("deny_at", True, "integer"),
    ("stop_at", -2, ">= 0"),
    ("denyAfter", 1, ">= 2"),
    ("max_same_path", -1, ">= 0"),
    ("max_calls_since_progress", 1.5, "integer"),
    ("max_bookkeeping_calls_since_progress", -3, ">= 0"),
    ("same_error_remind_at", -1, ">= 0"),
    ("same_answer_remind_at", -1, ">= 0"),
    ("max_idle_continuations", -1, ">= 0"),
    ("max_rapid_polls", -1, ">= 0"),
    ("reread_after_failed_edits", 1, "0 (off) or >= 2"),
    ("read_first_deny_at", 1, "0 (off) or >= 2"),
    ("refused_remind_at", 1, "0 (off) or >= 2"),
    ("unmoved_remind_at", 1, "0 (off) or >= 2"),
    ("unmoved_deny_at", "five", "integer"),
    ("no_op_remind_at", 1, "0 (off) or >= 2"),
    ("no_op_deny_at", -1, ">= 0"),
    ("cut_input_remind_at", 1, "0 (off) or >= 2"),
    ("cut_input_stop_at", "four", "integer"),
    ("refused_again_deny_at", 1, "0 (off) or >= 2"),
    ("same_plan_deny_at", 1, "0 (off) or >= 2"),
    ("hung_command_polls", 2.5, "integer"),
    ("hung_command_seconds", -60, "negative"),
    ("workspace_evidence", "yes", "true or false"),
    ("write_result_evidence", 1, "true or false"),
    ("revisit_evidence", "no", "true or false"),
    ("same_answer_deny_empty_reads", 1, "true or false"),
    ("slow_repeat_seconds", -1, "negative"),
    ("slow_repeat_seconds", "60s", "seconds"),
    ("parallel_window_seconds", -0.5, "negative"),
    ("lock_timeout_seconds", 0, "greater than 0"),
    ("lock_timeout_seconds", float("nan"), "finite"),
    ("lock_timeout_seconds", 1e308, "at most 60"),
    ("lock_timeout_seconds", 120, "at most 60"),
    ("slow_repeat_seconds", float("inf"), "finite"),
    ("mode", "strict", "one of"),
    ("profile", "paranoid", "one of"),
    ("counting", "total", "one of"),
    ("remind_phase", "later", "one of"),
    ("parallel_duplicates", "ignore", "one of"),
    ("include", "Bash", "list"),
    ("exclude", [1], "strings"),
    ("exclude", [""], "empty pattern"),
    ("read_tools", [], "must not be empty"),
    ("path_keys", [], "must not be empty"),
    ("mutating_tools", [], "must not be empty"),
    ("bookkeeping_tools", [3], "strings"),
    ("ignore_args", "description", "list"),
    ("answer_only_after_deny", "yes", "true or false"),
    ("reset_on_compaction", 1, "true or false"),
    ("match_read_by_substring", "no", "true or false"),
    ("keep_state", 0, "true or false"),
    ("idle_session_seconds", -1, "negative"),
    ("idle_session_seconds", "7d", "seconds"),
    ("new_failure_is_evidence", "no", "true or false"),
    ("evidence_call_counts", 0, "true or false"),
    ("exact_repeat_code", "yes", "true or false"),
    ("prompt_resets_text", 1, "true or false"),
    ("register_advisory", "on", "true or false"),
    ("preview_chars", 5, ">= 20"),
    ("result_preview_chars", -1, ">= 20"),
    ("resultPreviewChars", 0, ">= 20"),
    ("maxSamePath", 0, ">= 1"),
    ("max_repeated_lines", -1, ">= 0"),
    ("max_repeated_blocks", "5", "integer"),
    ("max_block_chars", 10, ">= 64"),
    ("same_final_message_at", -1, ">= 0"),
    ("transcript_read_bytes", 100, ">= 4096"),
    ("audit_log_max_bytes", 10, ">= 4096"),
    ("trusted_projects", ["relative/dir"], "absolute"),
    ("warn_after", -1, ">= 0"),
    ("same_error_deny_at", 1, ">= 2"),
    ("same_error_stop_at", -1, ">= 0"),
    ("price_input_per_mtok", -3, "0 (not given) or more"),
    ("price_output_per_mtok", "15$", "a price per million tokens"),
    ("price_cache_read_per_mtok", float("nan"), "finite"),
    ("price_cache_write_per_mtok", 1e9, "at most 1000000"),
    ("price_input_per_mtok", True, "a price per million tokens"),
]


def test_every_key_has_a_bad_value_case() -> None:
    covered = {key for key, _, _ in BAD} | {
        cfg.ALIASES[k][0] for k, _, _ in BAD if k in cfg.ALIASES
    }
    assert set(cfg.KEYS) - covered == set()


@pytest.mark.parametrize(("key", "value", "reason"), BAD)
def test_bad_values_fail_loud(tmp_path: Path, key: str, value: Any, reason: str) -> None:
    path = tmp_path / "c.toml"
    with pytest.raises(ConfigError) as err:
        resolve([Layer(f"file {path}", {key: value})])
    message = str(err.value)
    assert str(path) in message and key in message and reason in message


def test_unknown_key_suggests() -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'deny_after'.*did you mean 'denyAfter'"):
        resolve([Layer("f", {"deny_after": 3})])


def test_stop_must_be_above_deny() -> None:
    with pytest.raises(ConfigError, match="stop_at"):
        resolve([Layer("f", {"deny_at": 5, "stop_at": 5})])


def test_stop_below_deny_blames_the_file_that_set_one_and_says_the_fix(tmp_path: Path) -> None:
    """`deny_at = 10` alone in a project file: the file is at fault, not the profile whose
    default stop_at (8) it now passes; the message suggests a stop_at, and names the file."""
    (tmp_path / ".loopguard.toml").write_text("deny_at = 10\n")
    source = f"project file {tmp_path / '.loopguard.toml'}"
    with pytest.raises(ConfigError) as caught:
        load(environ={}, cwd=str(tmp_path), user_path="")
    assert str(caught.value) == (
        f"{source}: deny_at = 10, but stop_at must be greater than deny_at, and stop_at is 8 (the default of "
        "profile balanced); set stop_at = 11 or more (stop_at = 0: never end the turn), or deny_at below 8"
    )
    assert caught.value.files == (str(tmp_path / ".loopguard.toml"),)
    assert caught.value.fix == f"loopguard-hook config check {tmp_path / '.loopguard.toml'} (it lists every problem)"
    (tmp_path / ".loopguard.toml").write_text("stop_at = 3\n")
    with pytest.raises(ConfigError, match=f"^{source}: stop_at = 3, but .* deny_at is 5 .the default of profile balanced."):
        load(environ={}, cwd=str(tmp_path), user_path="")
    (tmp_path / ".loopguard.toml").write_text("deny_at = 6\n")
    with pytest.raises(ConfigError, match=f"^environment: stop_at = 5, but .*, and {source} sets deny_at = 6;") as caught:
        load(environ={"LOOPGUARD_STOP_AT": "5"}, cwd=str(tmp_path), user_path="")
    assert caught.value.files == (str(tmp_path / ".loopguard.toml"),)
    with pytest.raises(ConfigError) as caught:
        load(environ={"LOOPGUARD_DENY_AT": "1"}, cwd="/nonexistent", user_path="")
    assert caught.value.files == () and caught.value.fix.startswith("loopguard-hook config check (it lists")


def test_bad_toml_and_bad_env(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("deny_at = = 3")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load(environ={}, config_path=str(bad), user_path="")
    bad.write_text("deny_at = 5\ndeny_at = 6\n")
    with pytest.raises(ConfigError, match=r"not valid TOML: a key is given twice \(at line 2"):
        load(environ={}, config_path=str(bad), user_path="")
    with pytest.raises(ConfigError, match="LOOPGUARD_DENY_AFTER"):
        load(environ={"LOOPGUARD_DENY_AFTER": "3"}, user_path="")
    with pytest.raises(ConfigError, match="deny_at"):
        load(environ={"LOOPGUARD_DENY_AT": "many"}, user_path="")
    with pytest.raises(ConfigError, match="cannot read"):
        load(environ={}, config_path=str(tmp_path / "missing.toml"), user_path="")


def test_env_lists_and_bools() -> None:
    c = load(
        environ={
            "LOOPGUARD_REMIND_AT": "2, 3",
            "LOOPGUARD_EXCLUDE": "Read,mcp__*",
            "LOOPGUARD_KEEP_STATE": "yes",
        },
        user_path="",
    ).config
    assert c.remind_at == (2, 3) and c.exclude == ("Read", "mcp__*") and c.keep_state


def test_env_lists_in_the_toml_form() -> None:
    """`LOOPGUARD_REMIND_AT=[2,3]` is what a user who knows the TOML file writes: it reads as `2,3`."""
    c = load(environ={"LOOPGUARD_REMIND_AT": "[2, 3]", "LOOPGUARD_EXCLUDE": '["Read", \'mcp__*\']'}, user_path="").config
    assert c.remind_at == (2, 3) and c.exclude == ("Read", "mcp__*")
    with pytest.raises(ConfigError, match="remind_at"):
        load(environ={"LOOPGUARD_REMIND_AT": "[2, x]"}, user_path="")
    # A pattern with a character class is not a TOML list: it stays as written.
    c = load(environ={"LOOPGUARD_EXCLUDE": "[Rr]ead,Grep[s]"}, user_path="").config
    assert c.exclude == ("[Rr]ead", "Grep[s]")
    for literal in ("[12]", "[true]", "[2024-01-01]"):  # TOML, but no list of patterns: as before
        assert load(environ={"LOOPGUARD_EXCLUDE": literal}, user_path="").config.exclude == (literal,)


@pytest.mark.parametrize("key", ["remind_at", "include", "exclude", "bookkeeping_tools", "mutating_tools",
                                 "read_tools", "path_keys", "ignore_args", "trusted_projects"])
@pytest.mark.parametrize("value", ["[]", "[ ]", " [] ", "[\n]"])
def test_an_empty_toml_list_in_a_variable_is_the_empty_list(key: str, value: str, tmp_path: Path) -> None:
    """`LOOPGUARD_REMIND_AT='[]'` was refused ("must be a list of integers") and
    `LOOPGUARD_EXCLUDE='[]'` became `exclude = ["[]"]`, while `remind_at = []` in a file is the
    empty list: the TOML form means what it means in the file, for every list key (the keys
    that may not be empty refuse it as the file does)."""
    path = tmp_path / "c.toml"
    path.write_text(f"{key} = []\n")
    try:
        from_file: object = getattr(load(environ={}, config_path=str(path), user_path="").config, key)
    except ConfigError as exc:
        from_file = str(exc).split(": ", 1)[1]
    try:
        resolved = load(environ={f"LOOPGUARD_{key.upper()}": value}, user_path="")
        from_env: object = getattr(resolved.config, key)
        assert resolved.sources[key] == "environment"
    except ConfigError as exc:
        from_env = str(exc).split(": ", 1)[1]
    assert from_env == from_file
    if key not in ("mutating_tools", "read_tools", "path_keys"):
        assert from_env == ()


def test_an_empty_variable_is_still_the_empty_list() -> None:
    """An empty value is the empty list, as before (a comma-separated list of nothing)."""
    c = load(environ={"LOOPGUARD_REMIND_AT": "", "LOOPGUARD_EXCLUDE": " "}, user_path="").config
    assert c.remind_at == () and c.exclude == ()


@pytest.mark.parametrize(
    "name, value",
    [
        ("LOOPGUARD_DENY_AT", "\u0665"),  # ARABIC-INDIC DIGIT FIVE: int() reads it as 5
        ("LOOPGUARD_DENY_AT", "\uff15"),  # FULLWIDTH DIGIT FIVE
        ("LOOPGUARD_STOP_AT", "1\u0660"),  # 1 and ARABIC-INDIC DIGIT ZERO: 10
        ("LOOPGUARD_REMIND_AT", "3,\u0664"),
        ("LOOPGUARD_REMIND_AT", "[3, \u0664]"),
        ("LOOPGUARD_LOCK_TIMEOUT_SECONDS", "\uff15.\uff15"),  # float() reads 5.5
    ],
)
def test_a_number_in_a_variable_is_ascii_digits(name: str, value: str, tmp_path: Path) -> None:
    """Python's int() and float() read the digits of every script, so `LOOPGUARD_DENY_AT=٥` set
    deny_at to 5; a TOML file takes ASCII digits only, and so do the variables now: anything else
    is the usual bad-config line naming the setting, through the hook as in `config check`."""
    import json

    from loopguard_hook.hook import HookOptions, run

    key = name.removeprefix("LOOPGUARD_").lower()
    with pytest.raises(ConfigError, match=f"^environment: {key}: must be "):
        load(environ={name: value}, user_path="")
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(tmp_path), "hook_event_name": "PreToolUse",
               "tool_name": "Read", "tool_input": {"file_path": "a"}, "tool_use_id": "t1"}
    result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(tmp_path / "state"), client="claude-code"),
                 environ={name: value}, user_config="")
    assert result.exit_code == 1 and result.stderr.startswith(f"loopguard-hook: bad config: environment: {key}: ")
    assert len(result.stderr.splitlines()) == 1
    ascii_value = value.translate({0x665: "5", 0xFF15: "5", 0x660: "0", 0x664: "4"})
    assert load(environ={name: ascii_value}, user_path="").sources[key] == "environment"


def test_a_number_given_as_text_in_a_config_file_is_refused(tmp_path: Path) -> None:
    """TOML reads ASCII digits only; a number written as a string is text, not read as a number."""
    path = tmp_path / "config.toml"
    for text, said in (('deny_at = "5"', 'deny_at: must be an integer, got "5"'),
                       ('remind_at = ["3"]', 'remind_at: must contain only integers, got "3"'),
                       ("deny_at = \u0665", "not valid TOML"),
                       ('lock_timeout_seconds = "5"', 'lock_timeout_seconds: must be a number of seconds, got "5"')):
        path.write_text(text + "\n")
        with pytest.raises(ConfigError, match=re.escape(said)):
            load(environ={}, config_path=str(path), user_path="")


def test_a_pattern_matching_no_tool_is_legal() -> None:
    assert resolve([Layer("f", {"exclude": ["mcp__nowhere__*"]})]).config.exclude == (
        "mcp__nowhere__*",
    )


def test_loopguard_table_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[loopguard]\ndeny_at = 6\nstop_at = 9\n")
    assert load(environ={}, config_path=str(path), user_path="").config.deny_at == 6


def test_keys_above_the_loopguard_table_are_named_with_the_fix(tmp_path: Path) -> None:
    """`mode = "advise"` then `[loopguard]`: before, "unknown key 'loopguard'", which hid that the
    docs allow the table and that the flat key sat outside it."""
    path = tmp_path / "c.toml"
    path.write_text('mode = "advise"\n[loopguard]\ndeny_at = 6\n')
    with pytest.raises(ConfigError, match=r"'mode' outside the \[loopguard\] table: write every key flat, or every key") as exc:
        load(environ={}, config_path=str(path), user_path="")
    assert "unknown key" not in str(exc.value)


@pytest.mark.parametrize(
    "key", ["deny_at", "stop_at", "same_error_remind_at", "max_repeated_lines", "max_repeated_blocks", "same_final_message_at"]
)
def test_a_repeat_threshold_of_one_is_refused(key: str) -> None:
    """0 turns the rule off; 1 would fire on the first occurrence, which is no repeat."""
    with pytest.raises(ConfigError, match=f"{key}.*0 \\(off\\) or >= 2"):
        resolve([Layer("test.toml", {key: 1})])
    assert getattr(resolve([Layer("test.toml", {key: 0})]).config, key) == 0


def test_transcript_read_bytes_has_an_upper_bound() -> None:
    with pytest.raises(ConfigError, match="transcript_read_bytes"):
        resolve([Layer("test.toml", {"transcript_read_bytes": 1 << 30})])


def test_seed_thresholds_alias_is_sorted_like_the_seed() -> None:
    """The reminder plugin's `thresholds` normalises an unordered list ascending (its spec:
    'unsorted on purpose: normalized ascending'); our own `remind_at` still fails loud."""
    assert resolve([Layer("t", {"thresholds": [5, 3]})]).config.remind_at == (3, 5)
    with pytest.raises(ConfigError, match="ascending"):
        resolve([Layer("t", {"remind_at": [5, 3]})])


@pytest.mark.parametrize(
    "text, environ",
    [
        ('mode = "a\\nb\\nc"\n', {}),
        ('"k\\ne\\ny" = 1\n', {}),
        ("remind_at = [3, \"x\\ny\"]\n", {}),
        ("", {"LOOPGUARD_PROFILE": "bal\nanced"}),
        ('mode = "x\\u2028y\\r\\u001b[2J"\n', {}),
        ('mode = "a\\u009b2J\\u202eb"\n', {}),  # C1 and bidi controls
        ('mode = "' + "A" * 100_000 + '"\n', {}),  # before: a 100,138-character line
        ('"' + "k" * 10_000 + '" = 1\n', {}),
        ("deny_at = " + "9" * 5000 + "\n", {}),  # before: tomllib's ValueError, an internal error
        ("", {"LOOPGUARD_MODE": "M" * 100_000}),
    ],
)
def test_a_bad_config_is_one_stderr_line_whatever_its_values_hold(text: str, environ: dict[str, str], tmp_path: Path) -> None:
    """A newline (or another control character) in a value, a key or a variable: before, the
    bad-config line was cut into several, and a hostile file could write lines of its own."""
    import json

    from loopguard_hook.hook import HookOptions, run

    user = tmp_path / "config.toml"
    user.write_text(text)
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(tmp_path), "hook_event_name": "PreToolUse",
               "tool_name": "Read", "tool_input": {"file_path": "a"}, "tool_use_id": "t1"}
    result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(tmp_path / "state"), client="claude-code"),
                 environ=environ, user_config=str(user))
    assert result.exit_code == 1 and result.stderr.startswith("loopguard-hook: bad config: ")
    assert result.stderr.isprintable() and len(result.stderr.splitlines()) == 1 and len(result.stderr) < 2500
    assert "sys.set_int_max_str_digits" not in result.stderr  # Python's advice is not the user's


def test_a_cut_quote_never_ends_inside_an_escape() -> None:
    from loopguard_hook.hook import MAX_QUOTE_CHARS, flat

    cut = flat("x" * (MAX_QUOTE_CHARS - 5) + "\u202e" * 3)
    assert cut == "x" * (MAX_QUOTE_CHARS - 5) + "…"


@pytest.mark.skipif(os.getuid() != 0, reason="making a file of another user takes root")
def test_a_project_file_another_user_planted_in_a_shared_folder_is_ignored(tmp_path: Path) -> None:
    """A shared folder (mode 1777, as /tmp): another user plants `.git` and `.loopguard.toml`
    above the folder this user works in. Before, its `mode = "observe"` turned the guard off. A
    repository of another owner in a folder others cannot write (a container's mount, run as
    root) is read as before."""
    shared = tmp_path / "shared"
    (shared / "myproj").mkdir(parents=True)
    shared.chmod(0o1777)
    (shared / ".git").mkdir()
    planted = shared / ".loopguard.toml"
    planted.write_text('mode = "observe"\n')
    os.chown(planted, 65534, 65534)
    resolved = load(environ={}, cwd=str(shared / "myproj"), user_path="")
    assert resolved.config.mode == "enforce"
    assert resolved.ignored == (f"project file {planted} ignored: it belongs to uid 65534, in a folder other users can write",)
    link = shared / "link.toml"  # a link the other user owns, to a file of root's: the link counts
    planted.unlink()
    link.write_text('mode = "observe"\n')
    planted.symlink_to(link)
    os.chown(planted, 65534, 65534, follow_symlinks=False)
    assert load(environ={}, cwd=str(shared / "myproj"), user_path="").config.mode == "enforce"
    shared.chmod(0o2775)  # a team folder: another member could plant it too
    assert load(environ={}, cwd=str(shared / "myproj"), user_path="").config.mode == "enforce"
    shared.chmod(0o755)  # nobody else can write there: another owner's repository, read as any
    assert load(environ={}, cwd=str(shared / "myproj"), user_path="").config.mode == "observe"


def test_a_denial_threshold_below_its_reminder_says_that_zero_never_denies(tmp_path: Path) -> None:
    """The no-op and unmoved rules never end a turn: 0 for their `*_deny_at` turns the denial off,
    and a reminder threshold below 2 can only be 0."""
    (tmp_path / ".loopguard.toml").write_text("no_op_deny_at = 2\n")
    with pytest.raises(ConfigError) as caught:
        load(environ={}, cwd=str(tmp_path), user_path="")
    assert str(caught.value).endswith(
        "set no_op_deny_at = 4 or more (no_op_deny_at = 0: never deny), or no_op_remind_at = 0 (off)"
    )
    (tmp_path / ".loopguard.toml").write_text("unmoved_deny_at = 3\n")
    with pytest.raises(ConfigError, match=r"unmoved_deny_at = 0: never deny\), or unmoved_remind_at below 3$"):
        load(environ={}, cwd=str(tmp_path), user_path="")
