"""The shared progress (`core/progress.py`): what an attempt and a result move."""

from __future__ import annotations

import pytest

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


def test_a_codex_shell_calls_folder_is_part_of_its_signature_as_normalised_and_only_with_an_id() -> None:
    """Codex applies `workdir` to the payload's `cwd` (`Capabilities.cwd_is_workdir`): one command
    in two folders is two signatures; one folder spelled `/w/app`, `/w/app/` or `/w/./app` is one;
    and a call without a `tool_use_id`, which its post event finds by its signature alone (given
    no folder), keeps the signature of its arguments."""
    from loopguard_hook.hosts import codex

    def sig(cwd: str, tool_use_id: str | None = "c1") -> str:
        state = ledger.new_session("s", "codex", 0.0)
        agent = state["agents"]["main"] = ledger.new_agent(0.0)
        attempt = progress.open_attempt(
            state, agent, "Bash", {"command": "cat notes.txt"}, tool_use_id, Config(), codex.CAPABILITIES, 1.0,
            can_deny=True, cwd=cwd,
        )
        return attempt.call["sig"]

    assert sig("/w/a") != sig("/w/b")
    assert sig("/w/app") == sig("/w/app/") == sig("/w/./app") == sig("/w/lib/../app")
    assert sig("C:\\w\\app") == sig("c:/w/app/")
    joined = progress.post_call_id(None, "Bash", {"command": "cat notes.txt"}, Config())
    assert sig("/w/a", None) == sig("/w/b", None) == joined.removeprefix("~")


def test_task_calls_count_once_repeated_or_past_the_uncounted_ones() -> None:
    """Claude Code's task tools change one task a call: a call not made with these arguments
    since the last new evidence goes uncounted by the bookkeeping budget, up to
    `MAX_PLAN_CALLS`; the same call again counts, and every call past those does."""
    state = ledger.new_session("s", "claude-code", 0.0)
    agent = state["agents"]["main"] = ledger.new_agent(0.0)

    def task(n: int, status: str) -> None:
        progress.open_attempt(
            state, agent, "TaskUpdate", {"taskId": str(n), "status": status}, f"t{n}{status}", Config(), CAPS, 1.0,
            can_deny=True,
        )

    task(1, "in_progress")
    task(1, "pending")
    assert agent["bookkeeping"] == 0
    task(1, "in_progress")
    assert agent["bookkeeping"] == 1
    for n in range(2, progress.MAX_PLAN_CALLS + 2):
        task(n, "completed")
    assert agent["bookkeeping"] == 1 + 2  # 62 more uncounted, then the list is full: 2 counted
    agent["plan"] = "junk"  # a damaged ledger: started afresh
    task(99, "completed")
    assert agent["bookkeeping"] == 3 and agent["plan"] == [agent["calls"]["t99completed"]["sig"]]


@pytest.mark.parametrize("when", ["1800000000.0", None, True, [1]])
def test_a_hand_edited_entry_of_a_call_without_an_id_is_no_twin(when: object) -> None:
    """A call entry of a state file edited by hand (its time no number) under the key a call
    without an id takes: no twin, the call counts, and nothing raises (which would cost the
    session its ledger)."""
    earlier = {"sig": "s", "t": when, "seq": 1, "phase": "pre"}
    call = {"sig": "s", "t": 1_800_000_000.0, "seq": 2, "phase": "pre"}
    assert progress._same_key_twin(earlier, call, Config(), True) is False  # type: ignore[arg-type]
    assert progress._same_key_twin({**earlier, "t": 1_800_000_000.0}, call, Config(), True) is True  # type: ignore[arg-type]



def test_an_agent_remembers_the_states_of_every_file_its_calls_named() -> None:
    """`ledger.note_files`: a call is back where the agent's files were earlier only when every
    file its calls named is (a value toggled back), not when the one file it names is while a
    fix stays in another (a debug print removed); a prompt forgets the map, a compaction keeps it."""
    state = ledger.new_session("s1", "claude-code", 100.0)
    agent = ledger.agent(state, "main", 100.0, lambda entry, share: None)
    assert ledger.note_files(agent, ["f:0"], ["f:1"]) is False  # f changed
    assert ledger.note_files(agent, ["f:1"], ["f:0"]) is True  # and back
    assert ledger.note_files(agent, ["f:0"], ["f:1"]) is True  # and again
    assert ledger.note_files(agent, ["f:1"], ["f:1"]) is False  # unchanged is no return
    assert ledger.note_files(agent, ["g:0"], ["g:1"]) is False  # a print added to g
    assert ledger.note_files(agent, ["h:0"], ["h:1"]) is False  # the fix, in h
    assert ledger.note_files(agent, ["g:1"], ["g:0"]) is False  # the print removed: h is new
    assert agent["files"] == {"f": "1", "h": "1", "g": "0"}
    for n in range(ledger.MAX_FILES + 5):
        ledger.note_files(agent, [f"x{n}:0"], [f"x{n}:1"])
    assert len(agent["files"]) == ledger.MAX_FILES and len(agent["states"]) == ledger.MAX_STATES
    ledger.reset_shared(agent, keep_outcomes=True)
    assert agent["files"]
    agent["back"] = 120.0
    ledger.reset_shared(agent)
    assert not {"files", "states", "back"} & set(agent)


def test_an_agent_remembers_which_result_a_call_gave_with_its_files_as_they_are() -> None:
    """`ledger.note_result`: the same call's same outcome with the agent's files in one state is
    known the second time, not in another state nor for another outcome; nothing is kept while
    no file was named, and a prompt forgets it."""
    state = ledger.new_session("s1", "claude-code", 100.0)
    agent = ledger.agent(state, "main", 100.0, lambda entry, share: None)
    assert ledger.note_result(agent, "test", "F1") is False and "results" not in agent
    ledger.note_files(agent, ["x:1"], ["x:2"])
    assert ledger.note_result(agent, "test", "F2") is False
    assert ledger.note_result(agent, "test", "F2") is True
    assert ledger.note_result(agent, "test", "F3") is False
    ledger.note_files(agent, ["x:2"], ["x:1"])  # back
    assert ledger.note_result(agent, "test", "F2") is False  # another state
    for n in range(ledger.MAX_RESULTS + 3):
        ledger.note_result(agent, f"c{n}", "o")
    assert len(agent["results"]) == ledger.MAX_RESULTS
    ledger.reset_shared(agent)
    assert "results" not in agent


def test_a_read_that_shows_each_flip_is_a_read_in_either_shell() -> None:
    """After files were put back, a read shows each flip and is no check whose repeated result
    marks a loop (`progress._reads`): a read tool, a POSIX shell's `cat`, and the PowerShell
    read Codex on Windows runs (`shellwords.only_reads`); a test run is no read."""
    from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
    from loopguard_hook.core.progress import _reads

    config = Config(**PROFILE_DEFAULTS["balanced"])
    assert _reads("Read", {"file_path": "/p/app.txt"}, config)
    assert _reads("Bash", {"command": "cat app.txt"}, config)
    assert _reads("Bash", {"command": "Get-Content app.txt"}, config)
    assert not _reads("Bash", {"command": "python -m pytest -q"}, config)
