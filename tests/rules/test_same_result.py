"""Same result (`rules/same_result.py`): calls whose arguments the host does not send, judged by
their results (DSH's Codex bridge)."""

from __future__ import annotations

import importlib
import re

import pytest
from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.core.verdict import Action, Rule
from loopguard_hook.hosts import dsh_codex

rule = importlib.import_module("loopguard_hook.rules.same_result")
CAPS = dsh_codex.CAPABILITIES


def test_a_repeated_result_is_reminded_at_the_thresholds() -> None:
    entry = agent()
    assert rule.on_result(result_ctx("read", {"command": ""}, "x", caps=CAPS, entry=entry, new=True)) is None
    repeated = result_ctx("read", {"command": ""}, "x", caps=CAPS, entry=entry, new=False, productive=False, n=3, total=3)
    third = rule.on_result(repeated)
    assert third is not None and (third.action, third.rule) == (Action.REMIND, Rule.SAME_RESULT)
    assert "its results repeat what it already returned" in third.message


def test_the_next_call_after_a_repeated_result_is_denied_at_deny_at() -> None:
    entry = agent()
    rule.on_result(result_ctx("read", {"command": ""}, "x", caps=CAPS, entry=entry, new=False, productive=False, n=4, total=4))
    ctx = call_ctx("read", {"command": ""}, attempt=5, caps=CAPS, entry=entry, counted=False)
    verdict = rule.on_call(ctx)
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.SAME_RESULT)
    assert "identical" not in verdict.message  # the arguments are not known: never called identical


def test_a_signature_made_again_has_no_last_result_of_its_own() -> None:
    entry = agent()
    rule.on_result(result_ctx("read", {"command": ""}, "x", caps=CAPS, entry=entry, new=False, productive=False, n=4, total=4))
    assert rule.on_call(call_ctx("read", {"command": ""}, attempt=5, caps=CAPS, entry=entry, counted=False, total=1)) is None


def test_a_host_that_sends_the_arguments_is_the_repeat_rules() -> None:
    assert rule.on_result(result_ctx("Read", {"file_path": "/p"}, "x", new=False, productive=False, n=3, total=3)) is None
    assert rule.on_call(call_ctx(attempt=5)) is None


@pytest.mark.parametrize(
    ("result", "nothing"),
    [
        ("No files found", True),
        ("No matches found.", True),
        ("(no output)", True),
        ("", True),
        ("No files found in src; 3 matches in lib/a.py", False),
        ("1: def fmt_date(d): ...", False),
    ],
)
def test_which_results_say_only_that_nothing_was_found(result: str, nothing: bool) -> None:
    assert (re.match(rule._NOTHING, result) is not None) is nothing


@pytest.mark.parametrize(
    ("last", "denied"),
    [
        ("Query OK, 1 row affected", False),  # five different inserts answer so (a hostile test, br62)
        ("Clicked", False),
        ("pending", True),  # a state still waited for: a status polled forever (rv74)
        ("Build running: step 3 done", True),
        ("0", True),  # a bare value
        ("<path>/p/notes.txt</path>\n<type>file</type>\n<content>\n1: alpha\n</content>", True),  # content
        ("x" * 81, True),
    ],
)
def test_a_short_acknowledgement_repeated_is_reminded_never_denied(last: str, denied: bool) -> None:
    entry = agent()
    rule.on_result(result_ctx("mcp__db__execute", {"command": ""}, last, caps=CAPS, entry=entry, new=False, productive=False,
                              n=4, total=4))
    ctx = call_ctx("mcp__db__execute", {"command": ""}, attempt=5, caps=CAPS, entry=entry, counted=False)
    assert ctx.sig is not None
    ctx.sig["preview"] = last
    verdict = rule.on_call(ctx)
    assert (verdict is not None and verdict.action is Action.DENY) is denied, verdict
    ctx.sig["failed"] = 2  # a failure repeated is no acknowledgement
    assert rule.on_call(ctx) is not None


def test_the_seed_profiles_deny_an_acknowledgement_as_their_seeds_do() -> None:
    """The acknowledgement rule is balanced's (`slow_repeat_seconds`, off in the seed profiles):
    under breaker, a repeated `Query OK` on DSH's Codex bridge is denied as before (rv74)."""
    from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config

    breaker = Config(**PROFILE_DEFAULTS["breaker"])
    entry = agent()
    rule.on_result(result_ctx("mcp__db__execute", {"command": ""}, "Query OK, 1 row affected", caps=CAPS, entry=entry,
                              new=False, productive=False, n=2, total=2, config=breaker))
    ctx = call_ctx("mcp__db__execute", {"command": ""}, attempt=3, caps=CAPS, entry=entry, counted=False, config=breaker)
    assert ctx.sig is not None
    ctx.sig["preview"] = "Query OK, 1 row affected"
    verdict = rule.on_call(ctx)
    assert verdict is not None and verdict.action is Action.DENY, verdict
