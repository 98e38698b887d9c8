"""No-op calls (`rules/no_op.py`): shell calls in a row that only print words the agent wrote."""

from __future__ import annotations

import importlib

import pytest
from rulekit import agent, call_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core.shellwords import prints_only
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.no_op")
#: The finished agent of openai/codex#6970, turn after turn.
CODEX_6970 = ["echo 'All set.'", "true", "echo 'Done again.'", "true", "echo 'Final done'", "true", "echo 'Finished.'"]


def _calls(commands: list[str], config: Config | None = None) -> list[object]:
    entry = agent()
    return [
        rule.on_call(call_ctx("Bash", {"command": c}, entry=entry, now=100.0 + i, config=config)) for i, c in enumerate(commands)
    ]


def test_a_run_of_no_op_calls_is_reminded_once_one_repeats_then_denied_from_the_fifth() -> None:
    got = _calls(CODEX_6970)
    assert got[:3] == [None, None, None]  # three different lines: no repeat yet
    assert (got[3].action, got[3].rule) == (Action.REMIND, Rule.NO_OP)  # type: ignore[attr-defined]
    assert [(v.action, v.rule) for v in got[4:]] == [(Action.DENY, Rule.NO_OP)] * 3  # type: ignore[attr-defined]
    assert "These 4 shell calls in a row" in got[3].message and "give your final answer" in got[3].message  # type: ignore[attr-defined]
    assert "(5 such calls in a row)" in got[4].message and "final answer" in got[4].message  # type: ignore[attr-defined]


def test_different_lines_printed_one_by_one_are_no_loop() -> None:
    assert _calls([f"echo step-{n}" for n in range(1, 9)]) == [None] * 8
    got = _calls([f"echo step-{n}" for n in range(1, 5)] + ["echo step-2", "echo step-5"])
    assert got[:4] == [None] * 4 and [(v.action, v.rule) for v in got[4:]] == [
        (Action.REMIND, Rule.NO_OP),
        (Action.DENY, Rule.NO_OP),
    ]  # type: ignore[attr-defined]


def test_any_other_call_ends_the_run() -> None:
    commands = ["echo 'step 1 done'", "true", "git status -sb", "echo 'step 2 done'", "true", "npm test", "echo ok", "true"]
    assert _calls(commands) == [None] * len(commands)


def test_a_prompt_ends_the_run() -> None:
    entry = agent()
    for i, command in enumerate(["true", "echo done", "true", "echo done"]):
        rule.on_call(call_ctx("Bash", {"command": command}, entry=entry, now=100.0 + i))
    rule.reset(entry, "prompt")
    assert rule.on_call(call_ctx("Bash", {"command": "true"}, entry=entry, now=110.0)) is None


@pytest.mark.parametrize("profile", ["reminder", "breaker", "progress"])
def test_the_seed_profiles_leave_the_rule_off(profile: str) -> None:
    assert _calls(CODEX_6970, Config(**PROFILE_DEFAULTS[profile])) == [None] * len(CODEX_6970)


@pytest.mark.parametrize(
    "command",
    [
        "true",
        ":",
        "echo",
        'echo "All set."',
        "printf 'done\\n'; true",
        "true && echo 'Finished.'",
        "# all good\necho ok",
        "echo done  # nothing left",
        "echo '$HOME is fine'",
        'echo "a*b; c|d"',
        "echo a\\;b",
    ],
)
def test_lines_that_only_print_their_own_words(command: str) -> None:
    assert prints_only(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo x;npm test",  # a `;` glued to a word runs the next command
        "echo hi && npm test",
        'echo "$HOME"',  # expansion inside double quotes
        "echo $(date)",
        "echo `date`",
        "echo *",
        "echo a > notes.txt",
        "echo a>notes.txt",
        "echo a | tee notes.txt",
        "echo y | apt-get install x",
        "echo a &",
        'echo "=== status ==="\ngit status',
        "echoes x",
        "echo 'unclosed",
        "cat <<EOF\nx\nEOF",
        "echo " + "x" * 5000,  # longer than the shell reader reads
        "printf '%x\\n' 48879",  # a conversion computes
        "printf '%(%s)T\\n' -1",  # or reads the clock
        "echo a\x01; touch X",  # the reader's own marks in the line: it cannot be trusted
        "echo data \x04> file",
    ],
)
def test_lines_that_do_more_than_print(command: str) -> None:
    assert not prints_only(command)


def test_other_tools_and_blind_calls_end_the_run() -> None:
    entry = agent()
    for i in range(2):
        rule.on_call(call_ctx("Bash", {"command": "true"}, entry=entry, now=100.0 + i))
    rule.on_call(call_ctx("Read", {"file_path": "/p/a.py"}, entry=entry, now=103.0))
    assert [rule.on_call(call_ctx("Bash", {"command": "true"}, entry=entry, now=104.0 + i)) for i in range(2)] == [None, None]


def test_each_call_from_the_reminder_to_the_denial_is_answered() -> None:
    """No silent call between: the next no-op after a reminder is reminded again (the follow-up
    in `stats` reads it as the loop going on, not as a change of course)."""
    got = _calls(["true", "echo 'a'", "true", "echo 'b'", "echo 'c'", "true"])
    assert got[:2] == [None, None]
    actions = [(v.action, v.rule) for v in got[2:]]  # type: ignore[attr-defined]
    assert actions == [(Action.REMIND, Rule.NO_OP)] * 2 + [(Action.DENY, Rule.NO_OP)] * 2


def test_with_reminders_off_the_run_is_still_denied_from_no_op_deny_at() -> None:
    got = _calls(CODEX_6970, Config(no_op_remind_at=0, no_op_deny_at=5))
    assert got[:4] == [None] * 4 and [(v.action, v.rule) for v in got[4:]] == [(Action.DENY, Rule.NO_OP)] * 3  # type: ignore[attr-defined]
