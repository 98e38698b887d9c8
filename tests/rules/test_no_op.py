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


def test_a_run_of_no_op_calls_is_reminded_at_the_third_then_denied_from_the_fifth() -> None:
    got = _calls(CODEX_6970)
    assert got[:2] == [None, None] and got[3] is None
    assert (got[2].action, got[2].rule) == (Action.REMIND, Rule.NO_OP)  # type: ignore[attr-defined]
    assert [(v.action, v.rule) for v in got[4:]] == [(Action.DENY, Rule.NO_OP)] * 3  # type: ignore[attr-defined]
    assert "give your final answer" in got[2].message  # type: ignore[attr-defined]
    assert "the 5th such call in a row" in got[4].message and "final answer" in got[4].message  # type: ignore[attr-defined]


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
