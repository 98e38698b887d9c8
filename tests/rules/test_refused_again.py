"""A call the permission settings refused, sent again as it was (`rules/refused_again.py`)."""

from __future__ import annotations

import importlib
import re

from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import ledger
from loopguard_hook.core.event import Client, HookEvent
from loopguard_hook.core.tools import SETTINGS
from loopguard_hook.core.verdict import Action, Decision, Rule

rule = importlib.import_module("loopguard_hook.rules.refused_again")

RM = {"command": "rm -rf /tmp/old-plugin*"}
#: Claude Code's refusal by a deny rule (anthropics/claude-code#92398) and in dontAsk mode
#: (public 2.1.63 transcript, hunt 48), as the PostToolBatch entry holds them.
BY_RULE = "Permission to use Bash with command rm -rf /tmp/old-plugin* has been denied."
DONT_ASK = (
    "Permission to use Bash has been denied because Claude Code is running in don't ask mode. IMPORTANT: You *may* "
    "attempt to accomplish this action using other tools that might naturally be used to accomplish this goal."
)


def _refused(
    entry: ledger.Agent, text: str = BY_RULE, *, at: float = 100.0, mode: str | None = None, tool_input: object = None,
    unrun: bool = True,
) -> None:
    """The host's refusal of one call, issued at `at` and answered then (`unrun`: with no post
    event, in the PostToolBatch after its PreToolUse, as Claude Code answers it)."""
    ctx = result_ctx("Bash", RM if tool_input is None else tool_input, text, entry=entry, now=at)
    ctx = ctx._replace(permission_mode=mode, unrun=unrun)
    entry["updated"] = at
    assert rule.on_result(ctx) is None  # never a decision of its own at the result


def _again(
    entry: ledger.Agent, *, at: float, mode: str | None = None, tool_input: object = None, config: Config | None = None
) -> Decision | None:
    """The same call's PreToolUse, issued at `at`."""
    ctx = call_ctx("Bash", RM if tool_input is None else tool_input, entry=entry, now=at, config=config)
    ctx.call["t"] = at
    pre = HookEvent("PreToolUse", Client.CLAUDE_CODE, "s", tool_name="Bash", tool_input=ctx.tool_input, permission_mode=mode)
    ctx = ctx._replace(event=pre)
    return rule.on_call(ctx)  # type: ignore[no-any-return]


def test_the_same_call_sent_again_after_its_refusal_is_denied_with_the_way_out() -> None:
    entry = agent()
    _refused(entry)
    got = _again(entry, at=105.0)
    assert got is not None and got.action == Action.DENY and got.rule == Rule.REFUSED_AGAIN
    assert "refused this same call once in this turn" in got.message
    assert "tell the user what to allow" in got.message and "another way" not in got.message
    # the next one too, and its text counts the host's refusals, not the guard's denials
    again = _again(entry, at=110.0)
    assert again is not None and again.action == Action.DENY and "refused this same call once" in again.message
    _refused(entry, at=111.0)
    third = _again(entry, at=115.0)
    assert third is not None and third.times == 3 and "refused this same call 2 times" in third.message
    # in advise mode the call goes ahead, and the text the model reads says so
    assert third.advice.startswith("[loopguard] This Bash call is sent again as it was") and "not run" not in third.advice


def test_the_dont_ask_refusal_counts_as_the_deny_rule_does_but_other_failures_do_not() -> None:
    entry = agent()
    _refused(entry, DONT_ASK, mode="dontAsk")
    assert _again(entry, at=105.0, mode="dontAsk") is not None
    for text in (
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        "PreToolUse:Bash hook error: BLOCKED: rm -rf is not allowed here",
        "rm: cannot remove '/tmp/old-plugin': Permission denied",
    ):
        other = agent()
        _refused(other, text)
        assert _again(other, at=105.0) is None, text


def test_a_call_issued_before_the_refusal_came_back_is_no_retry() -> None:
    entry = agent()
    _refused(entry, at=100.0)
    assert _again(entry, at=100.0) is None  # the twin issued with it, in one batch


def test_another_mode_another_call_or_a_prompt_lets_it_go_ahead() -> None:
    entry = agent()
    _refused(entry, DONT_ASK, mode="dontAsk")
    assert _again(entry, at=105.0, mode="acceptEdits") is None  # the user left dontAsk
    assert _again(entry, at=106.0, mode="dontAsk", tool_input={"command": "rm -r /tmp/old-plugin"}) is None
    rule.reset(entry, "prompt")
    assert ledger.slot(entry, rule.NAME) is None
    assert _again(entry, at=107.0, mode="dontAsk") is None


def test_the_threshold_counts_attempts_and_the_seed_profiles_leave_it_off() -> None:
    entry = agent()
    later = Config(refused_again_deny_at=3)
    _refused(entry, at=100.0)
    assert _again(entry, at=105.0, config=later) is None  # the 2nd attempt goes ahead
    _refused(entry, at=106.0)
    assert _again(entry, at=110.0, config=later) is not None  # the 3rd is denied
    for profile in ("reminder", "breaker", "progress"):
        assert PROFILE_DEFAULTS[profile]["refused_again_deny_at"] == 0
    off = agent()
    _refused(off)
    assert _again(off, at=105.0, config=Config(refused_again_deny_at=0)) is None


def test_the_table_keeps_the_latest_refusals_and_reads_an_odd_slot_as_none() -> None:
    entry = agent()
    for n in range(rule.MAX_REFUSED + 4):
        _refused(entry, at=100.0 + n, tool_input={"command": f"rm -rf /tmp/x{n}"})
    held = ledger.slot(entry, rule.NAME)
    assert isinstance(held, list) and len(held[1]) == rule.MAX_REFUSED
    assert _again(entry, at=200.0, tool_input={"command": "rm -rf /tmp/x0"}) is None  # dropped, oldest first
    assert _again(entry, at=201.0, tool_input={"command": f"rm -rf /tmp/x{rule.MAX_REFUSED + 3}"}) is not None
    ledger.slots(entry)[rule.NAME] = ["not", "a", "table"]
    assert _again(entry, at=202.0) is None


def test_only_the_hosts_answer_to_a_call_it_did_not_run_counts() -> None:
    # a command that ran and printed a log whose first line quotes a refusal: no refusal
    entry = agent()
    _refused(entry, unrun=False)
    assert ledger.slot(entry, rule.NAME) is None
    assert _again(entry, at=105.0) is None


def test_a_write_to_a_settings_file_that_went_through_forgets_the_refusals() -> None:
    entry = agent()
    _refused(entry)
    for path in ("/home/u/app/README.md", "/home/u/app/.claude/settings.json.bak"):
        rule.on_result(result_ctx("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "ok", entry=entry))
        assert _again(entry, at=105.0) is not None, path
    edit = {"file_path": "/home/u/app/.claude/settings.local.json", "old_string": '"Bash(rm -rf:*)"', "new_string": ""}
    entry["updated"] = 106.0
    rule.on_result(result_ctx("Edit", edit, "The file has been updated.", entry=entry))
    assert _again(entry, at=107.0) is None
    # a refusal of a call issued with that write (one batch) came before the settings changed
    _refused(entry, at=106.0)
    assert _again(entry, at=108.0) is None
    _refused(entry, at=109.0)  # one issued after it: the settings refuse it still
    assert _again(entry, at=110.0) is not None


def test_the_settings_files_are_claude_codes_own() -> None:
    for path in (
        "/home/u/.claude/settings.json", "C:\\Users\\u\\.claude\\settings.local.json", "/etc/claude-code/managed-settings.json",
        "/p/.Claude/Settings.json", "/p/.claude//settings.json", "/p/.claude/./settings.json", ".claude/settings.json",
    ):
        assert re.search(SETTINGS, path), path
    for path in ("/p/.claude/settings.json.bak", "/p/my.claude/settings.json", "/p/my-managed-settings.json", "/p/settings.json"):
        assert not re.search(SETTINGS, path), path


def test_an_odd_entry_in_a_full_table_is_dropped_first_with_no_error() -> None:
    entry = agent()
    for n in range(rule.MAX_REFUSED):
        _refused(entry, at=100.0 + n, tool_input={"command": f"rm -rf /tmp/x{n}"})
    held = ledger.slot(entry, rule.NAME)
    assert isinstance(held, list)
    table = held[1]
    table["zz"] = "not an entry"
    _refused(entry, at=200.0)
    assert "zz" not in table and len(table) == rule.MAX_REFUSED
    assert _again(entry, at=205.0) is not None
