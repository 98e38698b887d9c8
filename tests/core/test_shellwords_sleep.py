"""`shellwords.sleeps_first`: how long a shell call waits before it checks (a paced poll)."""

from __future__ import annotations

import pytest

from loopguard_hook.core.shellwords import sleeps_first


@pytest.mark.parametrize(
    ("command", "seconds"),
    [
        ("sleep 45 && gh pr checks 412", 45.0),
        ("  sleep 30; tail -n 20 build.log", 30.0),
        ("sleep 2m && gh run view 99", 120.0),
        ("sleep 1.5 && curl -s localhost:3000/health", 1.5),
        ("cd /w/api && sleep 45 && gh pr checks 412", 45.0),  # a `cd` into the project first
        ("sleep ４５; gh pr checks 412", 0.0),  # `sleep` refuses such digits: the check runs at once
        ("sleep 30 && npm test", 0.0),  # a test run repeats its work whatever it waited for
        ("sleep 30 && python -m pytest -x", 0.0),
        ("sleep 60; cargo build", 0.0),
        ("sleep 40 && make rollout-status", 40.0),  # a status target: one test of a rerun for both forms
        ("sleep 40 && make -C svc unit-test", 0.0),
        ("gh pr checks 412 && sleep 45", 0.0),  # it checks first: no wait before the check
        ("sleep 45", 0.0),  # a bare wait checks nothing
        ("echo sleep 45 && ls", 0.0),
    ],
)
def test_a_shell_call_that_sleeps_before_it_checks(command: str, seconds: float) -> None:
    assert sleeps_first("Bash", {"command": command}) == seconds
    assert sleeps_first("exec_command", {"cmd": command}) == seconds


def test_other_tools_and_shapes_wait_for_nothing() -> None:
    assert sleeps_first("Read", {"command": "sleep 45 && ls"}) == 0.0
    assert sleeps_first("Bash", {"command": None}) == 0.0
    assert sleeps_first("Bash", "sleep 45 && ls") == 0.0


def test_the_slow_repeat_reminder_counts_the_wait_of_a_call_that_sleeps_first() -> None:
    """A check that sleeps 45 s first came 2 s after the previous one finished: the reminder
    says when it checks, not "0 s after the previous one" (a new user's report)."""
    from loopguard_hook.rules.repeat import slow_repeat_reminder

    text = slow_repeat_reminder("Bash", 5, 2.0, waits=45.0)
    assert "waits 45 s before it checks, 47 s after the previous check" in text
    assert "came 75 s after the previous one" in slow_repeat_reminder("Bash", 5, 75.0)


def test_one_reading_of_a_sleep_then_a_command() -> None:
    """`sleep_then` is how both the paced-poll rule and the polling rule read a command that
    sleeps first (seconds, and what runs after)."""
    from loopguard_hook.core.shellwords import sleep_then
    from loopguard_hook.rules.polling import task_of

    assert sleep_then("sleep 5 && tail -n 20 build.log") == (5.0, "tail -n 20 build.log")
    assert sleep_then("cd /w/api && sleep 0.5m; gh run view 9") == (30.0, "gh run view 9")
    assert sleep_then("sleep 5 &&   ") is None and sleep_then("tail log") is None
    assert task_of("Bash", {"command": "cd /w/api && sleep 5 && tail build.log"}) == "sh:tail build.log"


@pytest.mark.parametrize(
    ("command", "seconds"),
    [("sleep 30", 30.0), ("  sleep 2m;", 120.0), ("sleep 1.5\n", 1.5), ("sleep 30 && gh pr checks 1", 0.0),
     ("gh pr checks 1; sleep 30", 0.0), ("sleep $N", 0.0), ("sleep infinity", 0.0), ("echo sleep 30", 0.0)],
)
def test_a_shell_call_that_only_waits(command: str, seconds: float) -> None:
    """`shellwords.only_sleeps`: a `sleep N` call of its own, which paces the check after it."""
    from loopguard_hook.core.shellwords import only_sleeps

    assert only_sleeps("Bash", {"command": command}) == seconds
    assert only_sleeps("exec_command", {"cmd": command}) == seconds
    assert only_sleeps("Read", {"command": command}) == 0.0


def test_the_waits_right_before_a_call_are_summed_and_anything_else_breaks_them() -> None:
    """`ledger.waited_first`: the run of answered waits just before a call (`sleep 20`, `sleep
    20`, then the check: 40 s); a wait before another call, or one not answered yet, is not
    this call's, unless its seconds have passed by the call's time (Codex leaves a long sleep
    running past its yield, with no PostToolUse)."""
    from loopguard_hook.core.ledger import waited_first

    def calls(*entries: tuple[int, str, float | None]) -> dict[str, object]:
        return {"calls": {f"c{seq}": {"sig": "s", "t": 0.0, "seq": seq, "phase": phase, **({"wait": w} if w else {})}
                          for seq, phase, w in entries}}

    check = {"sig": "s", "t": 0.0, "seq": 9, "phase": "pre"}
    assert waited_first(calls((6, "done", None), (7, "done", 20.0), (8, "done", 20.0)), check) == 40.0  # type: ignore[arg-type]
    assert waited_first(calls((7, "done", 20.0), (8, "done", None)), check) == 0.0  # type: ignore[arg-type]
    assert waited_first(calls((8, "pre", 20.0)), check) == 0.0  # type: ignore[arg-type]
    assert waited_first(calls(), check) == 0.0  # type: ignore[arg-type]
    assert waited_first(calls((8, "pre", 20.0)), {**check, "t": 19.0}) == 0.0  # type: ignore[arg-type]
    assert waited_first(calls((7, "done", 20.0), (8, "pre", 20.0)), {**check, "t": 21.0}) == 40.0  # type: ignore[arg-type]


def test_the_slow_repeat_reminder_says_how_long_the_calls_before_it_waited() -> None:
    from loopguard_hook.rules.repeat import slow_repeat_reminder

    text = slow_repeat_reminder("Bash", 5, 37.0, waited=30.0)
    assert "came 37 s after the previous one, 30 s of it spent waiting" in text


@pytest.mark.parametrize(
    ("command", "rerun"),
    [("pytest -q", True), ("npm run test:e2e", True), ("./gradlew test", True), ("mvn -q test", True),
     ("bazel test //...", True), ("make -C svc unit-test", True), ("just test", True),
     ("./gradlew :app:test", True), ("./gradlew testDebugUnitTest", True), ("./gradlew :app:assembleRelease", True),
     ("make check", True), ("npm run build", True),
     ("make rollout-status", False), ("make build-status", False), ("go run ./cmd/status", False),
     ("npm run build:status", False), ("npm run check:rollout", False), ("make checkout", False),
     ("make check-health", False), ("just health-check", False), ("./gradlew checkDeployStatus", False),
     ("make testStatus", False), ("./gradlew :app:check", True), ("make check-types", True), ("make check-ready", False),
     ("gh pr checks 42", False)],
)
def test_which_calls_repeat_their_work_whatever_they_waited_for(command: str, rerun: bool) -> None:
    """`shellwords.reruns_work`: a test run or a build is paced by no wait of its own before it
    (a review: a failing `./gradlew test` padded with sleeps was reminded for ever), a status
    check is (another: `make rollout-status` after a sleep was denied)."""
    from loopguard_hook.core.shellwords import reruns_work

    assert reruns_work("Bash", {"command": command}) is rerun
