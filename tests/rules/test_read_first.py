"""Read first (`rules/read_first.py`): edits of a file the host refuses as unread, its Read tool
not used since."""

from __future__ import annotations

import importlib
from typing import Any

from rulekit import agent, call_ctx, result_ctx

from loopguard_hook import rules
from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import ledger, messages
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.read_first")
PATH = "/home/dev/site/src/components/BenefitsSection.vue"
MODIFIED = "<tool_use_error>File has been unexpectedly modified. Read it again before attempting to write it.</tool_use_error>"
UNREAD = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
EDIT = {"file_path": PATH, "old_string": "a", "new_string": "b"}
WRITE = {"file_path": PATH, "content": "<script setup lang=\"ts\">\n"}


def _result(
    entry: ledger.Agent, tool: str, tool_input: Any, response: Any, *, at: float, came: float, late: bool = False
) -> None:
    """The result of a call issued `at`, arriving `came` (the agent's `updated`)."""
    ctx = result_ctx(tool, tool_input, response, entry=entry, now=at)
    if late:
        ctx.call["late"] = True
    entry["updated"] = came
    rule.on_result(ctx)


def _pre(entry: ledger.Agent, tool: str, tool_input: Any, at: float, config: Config | None = None) -> Any:
    return rule.on_call(call_ctx(tool, tool_input, entry=entry, now=at, config=config))


def test_two_refusals_as_unread_deny_the_next_edit_or_write_until_a_read() -> None:
    entry = agent()
    _result(entry, "Edit", EDIT, MODIFIED, at=100.0, came=101.0)
    assert _pre(entry, "Edit", EDIT, 102.0) is None  # one refusal: the host's own advice may be followed
    _result(entry, "Write", WRITE, UNREAD, at=102.0, came=103.0)
    for tool, tool_input in (("Edit", EDIT), ("Write", WRITE), ("MultiEdit", {"file_path": PATH, "edits": []})):
        denied = _pre(entry, tool, tool_input, 104.0)
        assert denied is not None and (denied.action, denied.rule, denied.times) == (Action.DENY, Rule.TARGET, 2)
        assert f"this {tool} of {PATH} was not run" in denied.message and "Read tool" in denied.message
        assert "File has not been read yet" in denied.message
        assert messages.variant_of(denied.message, rules.VARIANTS) == "read_first_denial"
    assert _pre(entry, "Edit", {"file_path": "/home/dev/site/src/App.vue", "old_string": "a", "new_string": "b"}, 104.0) is None
    # a Grep of the file is no read to the host: the wall stands
    grep = {"mode": "content", "content": "1:x", "numLines": 1}
    _result(entry, "Grep", {"pattern": ".", "path": PATH}, grep, at=104.0, came=105.0)
    assert _pre(entry, "Edit", EDIT, 106.0) is not None
    # a Read lifts it
    read = {"type": "text", "file": {"filePath": PATH, "content": "x", "numLines": 1, "startLine": 1, "totalLines": 1}}
    _result(entry, "Read", {"file_path": PATH}, read, at=106.0, came=107.0)
    assert _pre(entry, "Edit", EDIT, 108.0) is None
    assert ledger.slot(entry, rule.NAME) is None


def test_an_edit_that_applies_lifts_it_and_a_prompt_forgets_it() -> None:
    entry = agent()
    _result(entry, "Edit", EDIT, MODIFIED, at=100.0, came=101.0)
    _result(entry, "Edit", EDIT, MODIFIED, at=102.0, came=103.0)
    applied = {"filePath": PATH, "oldString": "a", "newString": "b", "structuredPatch": []}
    _result(entry, "Edit", {**EDIT, "old_string": "c"}, applied, at=104.0, came=105.0)
    assert _pre(entry, "Edit", EDIT, 106.0) is None
    _result(entry, "Edit", EDIT, MODIFIED, at=106.0, came=107.0)
    _result(entry, "Edit", EDIT, MODIFIED, at=108.0, came=109.0)
    rule.reset(entry, "prompt")
    assert _pre(entry, "Edit", EDIT, 110.0) is None


def test_a_batch_refused_together_is_one_refusal() -> None:
    """Edits of one reply (issued before the first result came) refused together: one round."""
    entry = agent()
    for at in (100.0, 100.1, 100.2):
        _result(entry, "Edit", {**EDIT, "old_string": f"x{at}"}, MODIFIED, at=at, came=101.0)
    assert _pre(entry, "Edit", EDIT, 102.0) is None


def test_refusals_before_the_pre_tool_use_are_not_counted() -> None:
    """Claude Code 2.1 answers an unread write as an input validation, before the PreToolUse:
    an edit that reaches its PreToolUse passed that check, so it is never denied for them."""
    entry = agent()
    _result(entry, "Write", WRITE, UNREAD, at=100.0, came=101.0, late=True)
    _result(entry, "Write", WRITE, UNREAD, at=102.0, came=103.0, late=True)
    assert _pre(entry, "Edit", EDIT, 104.0) is None


def test_other_failures_and_the_seed_profiles_leave_it_off() -> None:
    entry = agent()
    for at in (100.0, 102.0, 104.0):
        _result(entry, "Edit", EDIT, "<tool_use_error>String to replace not found in file.</tool_use_error>", at=at, came=at + 1)
    assert _pre(entry, "Edit", EDIT, 106.0) is None  # the one-file rule's (`target.py`), not this one's
    for name in ("reminder", "breaker", "progress"):
        seed = Config(**PROFILE_DEFAULTS[name])
        assert seed.read_first_deny_at == 0
        entry = agent()
        for at in (100.0, 102.0):
            ctx = result_ctx("Edit", EDIT, MODIFIED, entry=entry, now=at, config=seed)
            entry["updated"] = at + 1
            rule.on_result(ctx)
        assert _pre(entry, "Edit", EDIT, 104.0, config=seed) is None


def test_a_subagent_calls_result_lifts_the_refusals_counted_while_it_ran() -> None:
    """Claude Code before `agent_id` sends a subagent's calls as the main agent's: the refusals
    counted while a subagent ran may be its own, and the main agent's reads are not its reads.
    Refusals from before the subagent call are the agent's own and stay."""
    task = {"description": "d", "prompt": "p", "subagent_type": "general-purpose"}
    done = {"status": "completed", "content": [{"type": "text", "text": "could not write it"}]}
    for tool in ("Task", "Agent"):
        entry = agent()
        # the subagent call is issued at 99; its subagent's edits are refused while it runs
        _result(entry, "Edit", EDIT, MODIFIED, at=100.0, came=101.0)
        _result(entry, "Write", WRITE, MODIFIED, at=102.0, came=103.0)
        assert _pre(entry, "Edit", EDIT, 104.0) is not None
        _result(entry, tool, task, done, at=99.0, came=140.0)
        assert _pre(entry, "Edit", EDIT, 141.0) is None and ledger.slot(entry, rule.NAME) is None
        # refused twice again, then another subagent call: these were counted before it ran
        _result(entry, "Edit", EDIT, MODIFIED, at=142.0, came=143.0)
        _result(entry, "Write", WRITE, MODIFIED, at=144.0, came=145.0)
        _result(entry, tool, task, done, at=146.0, came=150.0)
        assert _pre(entry, "Edit", EDIT, 151.0) is not None
