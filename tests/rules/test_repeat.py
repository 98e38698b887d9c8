"""The repeat rule (`rules/repeat.py`): thresholds, slow repeats, and the progress seed's
duplicate code kept in its slot."""

from __future__ import annotations

import importlib

from rulekit import agent, call_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.repeat")


def test_balanced_reminds_then_denies_then_ends_the_turn() -> None:
    got = []
    for n in range(1, 9):
        verdict = rule.on_call(call_ctx(attempt=n))
        got.append((verdict.action, verdict.rule) if verdict else None)
    assert got == [
        None, None,
        (Action.REMIND, Rule.REPEAT), (Action.REMIND, Rule.REPEAT),
        (Action.DENY, Rule.REPEAT), (Action.DENY, Rule.REPEAT), (Action.DENY, Rule.REPEAT),
        (Action.STOP, Rule.END_TURN),
    ]


def test_the_first_reminder_is_short_and_the_next_names_the_arguments() -> None:
    third, fourth = rule.on_call(call_ctx(attempt=3)), rule.on_call(call_ctx(attempt=4))
    assert third is not None and "You are repeating yourself" in third.message
    assert fourth is not None and '"file_path":"/p/a.py"' in fourth.message


def test_a_denial_with_no_result_to_quote_points_at_none() -> None:
    # Calls whose results the guard never saw (no PostToolUse registered, payloads by hand):
    # the text cannot say "that result" when it quotes none.
    ctx = call_ctx(attempt=5)
    assert ctx.sig is not None and "preview" not in ctx.sig
    verdict = rule.on_call(ctx)
    assert verdict is not None and verdict.action is Action.DENY
    assert "returned:" not in verdict.message and "use that result" not in verdict.message
    assert "use what the earlier calls returned" in verdict.message


def test_a_denial_quotes_the_previous_result_and_carries_advice_for_advise_mode() -> None:
    ctx = call_ctx(attempt=5)
    assert ctx.sig is not None
    ctx.sig["preview"] = "alpha beta"
    verdict = rule.on_call(ctx)
    assert verdict is not None and verdict.message.startswith("REPEAT_TOOL_BLOCKED") and "alpha beta" in verdict.message
    assert verdict.advice.startswith("[loopguard]")


def test_a_slow_repeat_is_only_reminded_unless_it_never_ran() -> None:
    slow = rule.on_call(call_ctx(attempt=6, now=200.0, previous_time=100.0))
    assert slow is not None and (slow.action, slow.rule) == (Action.REMIND, Rule.SLOW_REPEAT)
    rejected = rule.on_call(call_ctx(attempt=6, now=200.0, previous_time=100.0, event="PostToolBatch"))
    assert rejected is not None and rejected.action >= Action.DENY


def test_a_call_rejected_before_it_ran_ends_the_turn_where_a_denial_would_come() -> None:
    """Only PostToolBatch sees a validation rejection (Claude Code): no denial can reach it, so at
    `deny_at` the turn ends, under a profile that ends turns; the reminders stay as they were."""
    got = [rule.on_call(call_ctx(attempt=n, event="PostToolBatch")) for n in range(1, 6)]
    assert [(v.action, v.rule) if v else None for v in got] == [
        None, None, (Action.REMIND, Rule.REPEAT), (Action.REMIND, Rule.REPEAT), (Action.STOP, Rule.END_TURN),
    ]
    breaker = Config(**PROFILE_DEFAULTS["breaker"])  # ends no turn: its denial stays a denial
    verdict = rule.on_call(call_ctx(attempt=3, event="PostToolBatch", config=breaker))
    assert verdict is not None and verdict.action is Action.DENY


def test_a_call_whose_arguments_the_host_does_not_send_is_not_judged_here() -> None:
    assert rule.on_call(call_ctx(attempt=9, counted=False)) is None


def test_the_progress_seed_codes_a_repeat_spelt_alike_as_a_duplicate() -> None:
    config = Config(**PROFILE_DEFAULTS["progress"])
    entry = agent()
    alike = [rule.on_call(call_ctx("Bash", {"command": "ls  -la"}, attempt=n, config=config, entry=entry)) for n in range(1, 7)]
    assert alike[-1] is not None and alike[-1].rule == Rule.DUPLICATE
    entry = agent()
    for n, command in enumerate(["ls -la", "ls  -la", "ls -la", "ls -la", "ls -la", "ls -la"], start=1):
        last = rule.on_call(call_ctx("Bash", {"command": command}, attempt=n, config=config, entry=entry))
    assert last is not None and last.rule == Rule.REPEAT  # spelt two ways since the evidence


def test_its_slot_follows_the_signatures() -> None:
    config = Config(**PROFILE_DEFAULTS["progress"])
    entry = agent()
    rule.on_call(call_ctx("Bash", {"command": "ls"}, attempt=2, config=config, entry=entry))
    assert entry["rules"]["repeat"]
    rule.reset(entry, "compaction")
    assert entry["rules"]["repeat"]  # a compaction keeps the signatures
    rule.reset(entry, "prompt")
    assert "rules" not in entry
