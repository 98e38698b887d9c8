"""The seed plugins' own test suites, where a golden scenario cannot say it: the text of a
reminder or denial, the audit log, and configuration the seed refuses at load.

Scenario files `tests/scenarios/seedsuite_*.json` translate the decision sequences; their
`source` names the seed's repository, file and test. Cases that do not hold yet are in
`tests/scenarios-pending/` and `tests/pending/`, each with the difference explained.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import scenario

from loopguard_hook.core.engine import Action
from loopguard_hook.hook import HookOptions, HookResult, run

Answer = tuple[scenario.Step, HookResult]


def play(data: dict[str, Any], profile: str, client: str, state_dir: Path) -> list[Answer]:
    runner = scenario.Runner(data, profile, client, str(state_dir))
    errors = runner.play()
    assert not errors, "; ".join(errors)
    return runner.results


def play_file(name: str, profile: str, client: str, tmp_path: Path) -> list[Answer]:
    return play(scenario.load(scenario.SCENARIO_DIR / name), profile, client, tmp_path / "state")


def text_of(result: HookResult) -> str:
    specific = json.loads(result.stdout)["hookSpecificOutput"]
    return str(specific.get("additionalContext") or specific.get("permissionDecisionReason"))


def answers(results: list[Answer], action: Action) -> list[Answer]:
    return [(s, r) for s, r in results if r.decision is not None and r.decision.action is action]


# -- snailium/dsh-repeat-tool-breaker test/logic.test.mjs -------------------------------------


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_breaker_denial_is_repeat_tool_blocked_quoting_the_previous_result(client: str, tmp_path: Path) -> None:
    """Scenario 1: 'deny mentions REPEAT_TOOL_BLOCKED', 'deny references prior result summary',
    'deny names tool read'."""
    results = play_file("seedsuite_breaker_identical_read.json", "breaker", client, tmp_path)
    denials = answers(results, Action.DENY)
    assert len(denials) == 2
    text = text_of(denials[0][1])
    assert text.startswith("REPEAT_TOOL_BLOCKED")
    assert "const x = 1" in text
    assert ("Read" if client == "claude-code" else "Bash") in text


def test_breaker_same_path_denial_names_the_file(tmp_path: Path) -> None:
    """Scenario 8: 'path deny mentions name same.ts'."""
    results = play_file("seedsuite_breaker_same_path_cap.json", "breaker", "claude-code", tmp_path)
    ((_, result),) = answers(results, Action.DENY)
    assert "same.ts" in text_of(result)


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_breaker_advisory_is_one_notice_after_the_first_repeat(client: str, tmp_path: Path) -> None:
    """Scenario 10: 'read#2 (first repeat) allowed AND advised' (one additional context)."""
    results = play_file("seedsuite_breaker_advisory_tier.json", "breaker", client, tmp_path)
    reminders = answers(results, Action.REMIND)
    assert [s.event for s, _ in reminders] == ["PostToolUse"]


# -- DSH repeat-tool-reminder tests/repeat-tool-reminder.spec.ts -------------------------------


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_reminder_gentle_then_detailed(client: str, tmp_path: Path) -> None:
    """'reminds gently at the first default threshold (3) and in detail at the second (5)': the
    detailed one names the tool, the count 5 and the canonical arguments {"q":"same"}. (The
    wording is the contract's own, section 5; the seed's strings are not asserted.)"""
    results = play_file("seedsuite_reminder_default_thresholds.json", "reminder", client, tmp_path)
    texts = [text_of(r) for _, r in answers(results, Action.REMIND)]
    assert len(texts) == 2
    assert "You are repeating yourself" in texts[0] and "call 3 " in texts[0]
    assert "mcp__search__query has now been called 5 times in a row" in texts[1]
    assert '{"q":"same"}' in texts[1]


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_reminder_detailed_arguments_cut_at_arguments_preview_chars(client: str, tmp_path: Path) -> None:
    """'caps the detailed reminder arguments at argumentsPreviewChars': a 24-character head of
    the canonical arguments, never the whole 400-character body."""
    results = play_file("seedsuite_reminder_arguments_preview.json", "reminder", client, tmp_path)
    texts = [text_of(r) for _, r in answers(results, Action.REMIND)]
    assert len(texts) == 2
    detailed = texts[1]
    quoted = detailed.split("identical arguments: ", 1)[1].split(". These calls", 1)[0]
    assert len(quoted) <= 24
    assert quoted.startswith('{"body":"xxx')
    assert "x" * 400 not in detailed


# -- GooDAnDReaDY/dsh-agent-loop-guard test/guard-state.test.js ---------------------------------


def test_progress_audit_log_redacts_the_token_argument(tmp_path: Path) -> None:
    """'loop denial logs structured progress context ...': events[0].arguments.token is
    '[redacted]'. Here: no decision record in decisions.jsonl carries the token's value."""
    read = {
        "call": "Read",
        "input": {"file_path": "/home/user/project/x.txt", "token": "secret-value-4f9a1c"},
        "response": {"type": "text", "file": {"filePath": "/home/user/project/x.txt", "content": "same\n"}},
    }
    data = {
        "profiles": ["progress"],
        "config": {"maxCallsPerRepeatGroup": 1},
        "steps": [
            dict(read, id="x", pre="any"),
            {"same": "x", "pre": "any"},
            {"same": "x", "pre": "any"},
            {"same": "x", "pre": "any"},
        ],
    }
    state = tmp_path / "state"
    results = play(data, "progress", "claude-code", state)
    assert answers(results, Action.DENY), "the repeats must be denied"
    from loopguard_hook.store import Store

    log = (Path(Store(str(state)).root) / "decisions.jsonl").read_text(encoding="utf-8")
    assert log.strip()
    assert "secret-value-4f9a1c" not in log


# -- configuration the seeds refuse at load -------------------------------------------------------


def hook_with(config: dict[str, Any], profile: str, tmp_path: Path) -> HookResult:
    path = tmp_path / "seed.toml"
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in config.items()), encoding="utf-8")
    payload = {
        "session_id": "s1",
        "transcript_path": "/home/user/.claude/projects/-home-user-project/s1.jsonl",
        "cwd": "/home/user/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_01",
    }
    return run(
        json.dumps(payload).encode(),
        options=HookOptions(client="claude-code", profile=profile, config=str(path), state_dir=str(tmp_path / "state")),
        environ={},
        clock=lambda: 1_800_000_000.0,
        user_config="",
    )


@pytest.mark.parametrize(
    ("profile", "config", "source"),
    [
        ("reminder", {"thresholds": []}, "repeat-tool-reminder.spec.ts 'rejects an empty thresholds list'"),
        ("reminder", {"thresholds": [1, 3]}, "repeat-tool-reminder.spec.ts 'rejects a threshold below 2'"),
        ("reminder", {"thresholds": [2.5]}, "repeat-tool-reminder.spec.ts 'rejects a non-integer threshold'"),
        ("reminder", {"thresholds": [3, 3]}, "repeat-tool-reminder.spec.ts 'rejects duplicate thresholds'"),
        (
            "reminder",
            {"argumentsPreviewChars": 0},
            "repeat-tool-reminder.spec.ts 'rejects a non-positive or fractional argumentsPreviewChars'",
        ),
        (
            "reminder",
            {"argumentsPreviewChars": 12.5},
            "repeat-tool-reminder.spec.ts 'rejects a non-positive or fractional argumentsPreviewChars'",
        ),
        ("breaker", {"denyAfter": 1}, "dsh-repeat-tool-breaker logic.test.mjs Scenario 11 'denyAfter < 2 throws at load'"),
    ],
)
def test_config_the_seed_refuses_fails_loud(profile: str, config: dict[str, Any], source: str, tmp_path: Path) -> None:
    """What the seed throws on at load, the hook refuses: one stderr line, exit 1, no stdout."""
    result = hook_with(config, profile, tmp_path)
    assert int(result.exit_code) == 1, source
    assert result.stdout in ("", b"")
    assert result.stderr.count("\n") <= 1 and result.stderr.strip()


@pytest.mark.parametrize(
    ("profile", "config", "source"),
    [
        # The seed's positiveInteger/nonNegativeInteger fall back to the default silently; the
        # contract (section 7) validates loud. A documented choice, not a difference to fix.
        (
            "progress",
            {"maxCallsPerRepeatGroup": 0},
            "guard-state.test.js 'safe integer limits accept zero only for the aggregate cap' (positiveInteger(0, 8) === 8)",
        ),
        (
            "progress",
            {"maxToolAttemptsPerTurn": 1.5},
            "guard-state.test.js 'safe integer limits ...' (nonNegativeInteger(1.5, 64) === 64)",
        ),
        # The seed accepts maxRepeatedAssistantLines 1 (a single line is a loop); the contract
        # refuses a repeat threshold below 2 (section 7).
        (
            "progress",
            {"maxRepeatedAssistantLines": 1},
            "assistant-output-state.test.js 'output guard threshold is configurable' (maxRepeatedAssistantLines 1)",
        ),
    ],
)
def test_config_the_seed_silently_defaults_fails_loud_here(
    profile: str, config: dict[str, Any], source: str, tmp_path: Path
) -> None:
    """Where the seed falls back to a default (or accepts 1), the contract fails loud."""
    result = hook_with(config, profile, tmp_path)
    assert int(result.exit_code) == 1, source


def test_zero_attempt_budget_disables_it_as_in_the_seed(tmp_path: Path) -> None:
    """guard-state.test.js 'safe integer limits ...': nonNegativeInteger(0, 64) === 0, the aggregate
    budget is off at 0."""
    result = hook_with({"maxToolAttemptsPerTurn": 0}, "progress", tmp_path)
    assert int(result.exit_code) == 0
