"""The shared progress (`core/progress.py`): what an attempt and a result move."""

from __future__ import annotations

from loopguard_hook.config.settings import Config
from loopguard_hook.core import ledger, progress
from loopguard_hook.core.outcome import outcome_of_response
from loopguard_hook.hosts import claude_code

CAPS = claude_code.CAPABILITIES


def _attempt(state: ledger.Session, agent: ledger.Agent, command: str, now: float) -> progress.Attempt:
    return progress.open_attempt(state, agent, "Bash", {"command": command}, f"t{now}", Config(), CAPS, now, can_deny=True)


def _result(agent: ledger.Agent, attempt: progress.Attempt, output: str) -> progress.Evidence | None:
    response = {"stdout": output, "stderr": "", "interrupted": False}
    outcome = outcome_of_response("Bash", response)
    return progress.record_result(agent, attempt.call, "Bash", {"command": "x"}, response, outcome, Config(), agents=1)


def test_identical_calls_count_up_until_something_new_comes_back() -> None:
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = ledger.new_agent(0.0)
    state["agents"]["main"] = agent
    counts = []
    for n in range(3):
        attempt = _attempt(state, agent, "git status", 10.0 * n)
        counts.append(attempt.times)
        _result(agent, attempt, "nothing to commit")
    assert counts == [1, 2, 3] and agent["since"] == 2  # two calls since the first result, the last new evidence
    other = _attempt(state, agent, "git log -1", 40.0)
    evidence = _result(agent, other, "commit abc123: fix the parser")
    assert evidence == progress.Evidence(new=True, productive=True)
    assert _attempt(state, agent, "git status", 50.0).times == 1  # another call's new result set it back


def test_an_echo_of_the_call_itself_is_no_evidence() -> None:
    assert progress.echoes_arguments("checking (3)", {"command": 'echo "checking (3)"'})
    assert not progress.echoes_arguments("ok", {"command": "echo ok"})  # too short to tell


def test_a_twin_of_the_same_batch_moves_no_counter() -> None:
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = ledger.new_agent(0.0)
    state["agents"]["main"] = agent
    first = _attempt(state, agent, "ls", 1.0)
    twin = _attempt(state, agent, "ls", 1.01)
    assert first.tracked and not twin.tracked and twin.call.get("duplicate")
    assert agent["since"] == 1


def test_a_cancelled_call_is_taken_back() -> None:
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = ledger.new_agent(0.0)
    state["agents"]["main"] = agent
    attempt = _attempt(state, agent, "make test", 1.0)
    progress.uncount(agent, attempt.call)
    assert attempt.sig is not None and (attempt.sig["n"], agent["since"], attempt.call["phase"]) == (0, 0, "denied")


def test_a_plan_update_echoing_its_plan_is_no_evidence_but_a_new_result_text_is() -> None:
    """The progress profile judges a bookkeeping call's result (as its seed does), but not the
    plan the result echoes: Claude Code's TodoWrite answers with the old and the new list."""
    config = Config(evidence_call_counts=False)
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = ledger.new_agent(0.0)
    state["agents"]["main"] = agent
    before: list[dict[str, str]] = []
    for n in range(4):
        todos = [{"content": f"step {n}", "status": "in_progress"}]
        attempt = progress.open_attempt(state, agent, "TodoWrite", {"todos": todos}, f"t{n}", config, CAPS, float(n),
                                        can_deny=True)
        response = {"oldTodos": before, "newTodos": todos}
        progress.record_result(agent, attempt.call, "TodoWrite", {"todos": todos}, response,
                               outcome_of_response("TodoWrite", response), config, agents=1)
        before = todos
    assert agent["bookkeeping"] == 3  # the first result was new; the three after it echoed plans only
    for n, text in enumerate(["Updated todo list: 1 pending, 0 in progress", "Updated todo list: 0 pending, 1 in progress"]):
        attempt = progress.open_attempt(state, agent, "todo_write", {"todos": []}, f"d{n}", config, CAPS, 10.0 + n,
                                        can_deny=True)
        progress.record_result(agent, attempt.call, "todo_write", {"todos": []}, text, outcome_of_response("todo_write", text),
                               config, agents=1)
        assert agent["bookkeeping"] == 0  # DSH's own summary text changed: new evidence, as in the seed
