"""Seed rules a golden scenario cannot express: which text a reminder or denial carries, which rule
code fired, and that no scenario passes only because the hook failed.

The scenario runner compares actions only (silent/remind/deny/stop), so these tests replay
scenario files (or small inline scenarios) through the same runner and read the answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import scenario

from loopguard_hook.core.engine import Action
from loopguard_hook.hook import HookResult

Answer = tuple[scenario.Step, HookResult]


def play(data: dict[str, Any], profile: str, client: str, tmp_path: Path) -> list[Answer]:
    runner = scenario.Runner(data, profile, client, str(tmp_path / f"state-{profile}-{client}"))
    errors = runner.play()
    assert not errors, "; ".join(errors)
    return runner.results


def play_file(name: str, profile: str, client: str, tmp_path: Path) -> list[Answer]:
    return play(scenario.load(scenario.SCENARIO_DIR / name), profile, client, tmp_path)


def text_of(result: HookResult) -> str:
    """What the model reads: the reminder or the denial reason."""
    specific = json.loads(result.stdout)["hookSpecificOutput"]
    return str(specific.get("additionalContext") or specific.get("permissionDecisionReason"))


def answers(results: list[Answer], action: Action) -> list[Answer]:
    return [(s, r) for s, r in results if r.decision is not None and r.decision.action is action]


# -- seed 000: reminder -----------------------------------------------------------------------

GENTLE = "You are repeating yourself"
DETAILED = "has now been called"


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_reminder_first_threshold_is_the_short_nudge_later_ones_detailed(
    client: str, tmp_path: Path
) -> None:
    """Seed 000: the first threshold gets a short nudge; later ones the detailed form naming the
    tool, the count and the canonical arguments (deep key sort, compact), stating that the calls
    made no progress; what it says came between them is only what is sure of calls counted in a
    row whatever they returned: no other call (a new user found "nothing changed" told of a poll
    whose output changed)."""
    results = play_file("seed_reminder_consecutive_identical.json", "reminder", client, tmp_path)
    reminders = answers(results, Action.REMIND)
    assert [s.event for s, _ in reminders] == ["PostToolUse"] * 3
    texts = [text_of(r) for _, r in reminders]
    assert GENTLE in texts[0] and DETAILED not in texts[0]
    assert "call 3 " in texts[0]
    for text, count in zip(texts[1:], (5, 8), strict=True):
        assert DETAILED in text and GENTLE not in text
        assert f"mcp__search__query has now been called {count} times in a row" in text
        assert (
            '{"limit":20,"query":{"filters":{"lang":"ts","path":"src"},"text":"cliAdapter"}}'
            in text
        )
        assert "These calls made no progress: no other call came between them." in text


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_reminder_nudge_is_keyed_to_the_first_configured_threshold(
    client: str, tmp_path: Path
) -> None:
    """Seed 000 fixed its origin's bug of tying the gentle text to the literal count 3."""
    results = play_file("seed_reminder_thresholds_2_4.json", "reminder", client, tmp_path)
    texts = [text_of(r) for _, r in answers(results, Action.REMIND)]
    assert len(texts) == 2
    assert GENTLE in texts[0] and "call 2 " in texts[0]
    assert DETAILED in texts[1] and "called 4 times" in texts[1]


def test_reminder_detailed_arguments_are_cut_at_preview_chars(tmp_path: Path) -> None:
    """argumentsPreviewChars caps the quoted arguments; the chain still compares the full text."""
    body = "x" * 300
    call = {
        "call": "Write",
        "input": {"file_path": "/p/big.txt", "content": body},
        "response": {"type": "update"},
    }
    data = {
        "profiles": ["reminder"],
        "config": {"thresholds": [2, 3], "argumentsPreviewChars": 40},
        "steps": [
            dict(call, id="w"),
            {"same": "w", "post": "remind"},
            {"same": "w", "post": "remind"},
        ],
    }
    results = play(data, "reminder", "claude-code", tmp_path)
    detailed = text_of(answers(results, Action.REMIND)[1][1])
    quoted = detailed.split("identical arguments: ", 1)[1].split(". These calls", 1)[0]
    assert len(quoted) <= 40
    assert quoted.startswith('{"content":"xxx')


# -- seed 001: breaker ------------------------------------------------------------------------


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_breaker_denial_names_the_tool_and_quotes_the_previous_result(
    client: str, tmp_path: Path
) -> None:
    """Seed 001: the denial starts with REPEAT_TOOL_BLOCKED, names the tool, says "in a row",
    quotes the previous result and tells the model to advance or conclude."""
    results = play_file("seed_breaker_second_identical_denied.json", "breaker", client, tmp_path)
    step, result = answers(results, Action.DENY)[0]
    assert step.event == "PreToolUse"
    text = text_of(result)
    assert text.startswith("REPEAT_TOOL_BLOCKED")
    assert "Bash" in text and "in a row" in text
    assert "a1b2c3d fix" in text
    assert result.decision is not None and result.decision.rule == "LOOP_GUARD_REPEAT"


def test_breaker_same_path_denial_names_the_path(tmp_path: Path) -> None:
    results = play_file("seed_breaker_same_path_cap.json", "breaker", "claude-code", tmp_path)
    step, result = answers(results, Action.DENY)[0]
    assert result.decision is not None and result.decision.rule == "LOOP_GUARD_SAME_PATH"
    assert "/p/src/big.py" in text_of(result)


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_breaker_warn_after_notice_rides_the_post_event(client: str, tmp_path: Path) -> None:
    results = play_file("seed_breaker_warn_after.json", "breaker", client, tmp_path)
    step, result = answers(results, Action.REMIND)[0]
    assert step.event == "PostToolUse"
    assert json.loads(result.stdout)["hookSpecificOutput"]["hookEventName"] == "PostToolUse"


# -- seed 003: progress -----------------------------------------------------------------------


def rules_of(results: list[Answer], action: Action) -> list[str]:
    return [r.decision.rule for _, r in answers(results, action) if r.decision is not None]


@pytest.mark.parametrize("client", scenario.CLIENTS)
@pytest.mark.parametrize(
    ("name", "codes"),
    [
        ("seed_progress_attempt_budget.json", ["LOOP_GUARD_LIMIT", "LOOP_GUARD_STOP"]),
        ("seed_progress_bookkeeping_budget_seedcount.json", ["LOOP_GUARD_PROGRESS_LIMIT", "LOOP_GUARD_STOP"]),
        ("case_L22_parallel_identical_shell.json", ["LOOP_GUARD_DUPLICATE"] * 4),
    ],
)
def test_progress_denials_carry_the_seed_codes(
    name: str, codes: list[str], client: str, tmp_path: Path
) -> None:
    """Seed 003 logs LOOP_GUARD_REPEAT/LIMIT/PROGRESS_LIMIT/STOP/DUPLICATE; budget and
    answer-only denials start with their code (contract section 5)."""
    results = play_file(name, "progress", client, tmp_path)
    assert rules_of(results, Action.DENY) == codes
    for _, result in answers(results, Action.DENY):
        assert result.decision is not None
        if result.decision.rule in (
            "LOOP_GUARD_LIMIT",
            "LOOP_GUARD_PROGRESS_LIMIT",
            "LOOP_GUARD_STOP",
        ):
            assert text_of(result).startswith(result.decision.rule)


@pytest.mark.parametrize("client", scenario.CLIENTS)
@pytest.mark.parametrize(
    ("name", "codes"),
    [
        ("seed_progress_repeat_group_seedcount.json", ["LOOP_GUARD_DUPLICATE"]),
        ("seed_progress_answer_only_seedcount.json", ["LOOP_GUARD_DUPLICATE"] + ["LOOP_GUARD_STOP"] * 4),
    ],
)
def test_progress_identical_repeats_carry_the_seed_duplicate_code(
    name: str, codes: list[str], client: str, tmp_path: Path
) -> None:
    """An identical call repeated without progress is denied LOOP_GUARD_DUPLICATE, as
    dsh-agent-loop-guard's own guard-state.test.js asserts (a spacing variant stays
    LOOP_GUARD_REPEAT: tests/test_seedsuite_codes.py); the answer-only denials follow it."""
    results = play_file(name, "progress", client, tmp_path)
    assert rules_of(results, Action.DENY) == codes
