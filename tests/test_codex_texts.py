"""What Codex shows of the guard's texts: a denial's reason gets `. Command: <cmd>` appended by
Codex 0.171.0 (research/codex-hooks.md §7), so it goes without its final period; a reminder is
a developer message of its own and keeps its sentence whole."""

from __future__ import annotations

from loopguard_hook.core.verdict import Action, Decision, Rule
from loopguard_hook.hosts import codex, dsh_codex

TEXT = "[loopguard] Read has now been called 4 times with no new result. Use what it returned."


def test_a_codex_denial_drops_its_final_period_and_a_reminder_keeps_it() -> None:
    deny = codex.wire(Decision(Action.DENY, Rule.REPEAT, TEXT, intended=Action.DENY), "PreToolUse")
    assert deny is not None and deny["hookSpecificOutput"]["permissionDecisionReason"] == TEXT[:-1]
    for event in ("PreToolUse", "PostToolUse"):
        remind = codex.wire(Decision(Action.REMIND, Rule.REPEAT, TEXT, intended=Action.REMIND), event)
        assert remind is not None and remind["hookSpecificOutput"]["additionalContext"] == TEXT


def test_a_denial_on_an_event_codex_cannot_deny_goes_out_as_context_with_its_period() -> None:
    # PostToolUse defines no permissionDecision: the denial reaches the model as context
    late = codex.wire(Decision(Action.DENY, Rule.REPEAT, TEXT, intended=Action.DENY), "PostToolUse")
    assert late is not None and late["hookSpecificOutput"] == {"hookEventName": "PostToolUse", "additionalContext": TEXT}


def test_the_dsh_codex_bridge_keeps_every_period() -> None:
    deny = dsh_codex.wire(Decision(Action.DENY, Rule.REPEAT, TEXT, intended=Action.DENY), "PreToolUse")
    assert deny is not None and deny["hookSpecificOutput"]["permissionDecisionReason"] == TEXT
