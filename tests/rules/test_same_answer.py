"""The same-answer rule: its setting, where it is on, and what counts as an answer."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from loopguard_hook.config.keys import ConfigError
from loopguard_hook.config.load import Layer, resolve
from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core.ledger import new_agent
from loopguard_hook.core.outcome import outcome_of_response
from loopguard_hook.rules.base import ResultContext
from loopguard_hook.rules.same_answer import MAX_ANSWER_SIGS

rule = importlib.import_module("loopguard_hook.rules.same_answer")


def test_a_threshold_of_one_is_refused() -> None:
    with pytest.raises(ConfigError, match="same_answer_remind_at.*0 \\(off\\) or >= 2"):
        resolve([Layer("test.toml", {"same_answer_remind_at": 1})])
    assert resolve([Layer("test.toml", {"same_answer_remind_at": 0})]).config.same_answer_remind_at == 0


@pytest.mark.parametrize("profile", ["reminder", "breaker", "progress"])
def test_the_seed_profiles_keep_it_off(profile: str) -> None:
    assert PROFILE_DEFAULTS[profile]["same_answer_remind_at"] == 0


def test_balanced_has_it_on() -> None:
    assert Config().same_answer_remind_at == 3 and Config().same_answer_deny_empty_reads is True


@pytest.mark.parametrize("profile", ["reminder", "breaker", "progress"])
def test_the_seed_profiles_never_deny_an_empty_read(profile: str) -> None:
    assert PROFILE_DEFAULTS[profile]["same_answer_deny_empty_reads"] is False


@pytest.mark.parametrize(
    ("tool", "tool_input", "changes"),
    [
        ("Bash", {"command": "git checkout HEAD -- docs/a.json"}, True),
        ("Bash", {"command": "python3 gen.py"}, True),
        ("Bash", {"command": "cat docs/a.json | jq ."}, False),
        ("Bash", {"command": "ls -l docs/a.json"}, False),
        ("Task", {"prompt": "fix it"}, True),
        ("mcp__fs__write", {"path": "docs/a.json"}, True),
        ("Grep", {"pattern": "x"}, False),
    ],
)
def test_what_may_change_a_file_that_read_empty(tool: str, tool_input: Any, changes: bool) -> None:
    assert rule._may_change(tool, tool_input) is changes


def _ctx(tool: str, tool_input: Any, response: Any, *, took: float = 0.5) -> ResultContext:
    agent = new_agent(100.0 + took)
    call = {"sig": "s", "t": 100.0, "seq": 1, "phase": "done"}
    outcome = outcome_of_response(tool, response)
    return ResultContext(Config(), None, agent, call, {}, tool, outcome, True, True, tool_input, response)  # type: ignore[arg-type]


def _bash(command: str, stdout: str, *, took: float = 0.5) -> ResultContext:
    return _ctx("Bash", {"command": command}, {"stdout": stdout, "stderr": ""}, took=took)


@pytest.mark.parametrize(
    ("command", "stdout"),
    [
        ("mkdir -p out", ""),
        ("git add a.txt", ""),
        ("python tests/test_a.py", "OK\n"),
        ('grep -rn "parseConfig" src/', ""),
        ("sleep 70", ""),
    ],
)
def test_what_says_nothing(command: str, stdout: str) -> None:
    took = 70.0 if command.startswith("sleep") else 0.5
    assert rule.answer_key(_bash(command, stdout, took=took)) is None


def test_an_empty_file_search_is_an_answer() -> None:
    keys = rule.answer_key(_bash("find src -name config.yaml", ""))
    assert keys is not None and ":empty:" in keys[-1]


def test_a_long_silence_is_an_answer() -> None:
    keys = rule.answer_key(_bash("git push origin main", "", took=125.0))
    assert keys is not None and keys[-1].endswith(":silent")


def test_a_check_that_waited_is_no_answer() -> None:
    out = "completed\tfailure\tFix deployment\tCI/CD Pipeline\tmain\tpush\t17456183654\t3m59s\n"
    assert rule.answer_key(_bash("sleep 60 && gh run list --limit 1", out, took=61.0)) is None
    assert rule.answer_key(_bash("gh run list --limit 1", out)) is not None


def test_the_words_the_call_sent_are_masked() -> None:
    def refusal(endpoint: str) -> ResultContext:
        out = f'{{"error":"api/v1/{endpoint} is not accessible with this api_key on a free plan."}}\n403'
        return _bash(f'curl -s -X POST "https://api.example.io/v1/{endpoint}"', out)

    first, second = rule.answer_key(refusal("people/search")), rule.answer_key(refusal("mixed_people/api_search"))
    assert first is not None and second is not None
    assert first[-1] == second[-1]  # the masked answer is one
    assert first[0] != second[0]  # as printed, the two differ


def test_two_files_of_one_template_are_two_answers() -> None:
    a = _ctx("Read", {"file_path": "/r/a.md"}, "# Candidate queue\n\nGenerated: 2026-05-19 09:54\n" + "x" * 40)
    b = _ctx("Read", {"file_path": "/r/b.md"}, "# Candidate queue\n\nGenerated: 2026-05-19 10:10\n" + "x" * 40)
    assert set(rule.answer_key(a) or ()).isdisjoint(rule.answer_key(b) or ())


def test_an_answer_keeps_a_bounded_list_of_calls() -> None:
    ctx = _bash("curl -s https://api.example.io/v1/a", '{"error":"not accessible with this api_key on a free plan"}')
    for i in range(3 * MAX_ANSWER_SIGS):
        call = {"sig": f"s{i}", "t": 100.0 + 2 * i, "seq": i, "phase": "done"}
        ctx.agent["attempts"] = i
        ctx.agent["updated"] = 101.0 + 2 * i
        rule.on_result(ctx._replace(call=call))
    entries = [e for e in ctx.agent.get("rules", {}).get("same_answer", {}).values() if e["sigs"]]
    assert entries and all(len(e["sigs"]) <= MAX_ANSWER_SIGS for e in entries)
    assert max(e.get("level", 0) for e in entries) == 2  # reminded twice, then never again


def test_idle_continuations_setting() -> None:
    with pytest.raises(ConfigError, match="max_idle_continuations.*0 \\(off\\) or >= 2"):
        resolve([Layer("test.toml", {"max_idle_continuations": 1})])
    assert Config().max_idle_continuations == 5
    assert all(PROFILE_DEFAULTS[p]["max_idle_continuations"] == 0 for p in ("reminder", "breaker", "progress"))


def test_a_tool_whose_name_says_it_changes_something_only_acknowledges() -> None:
    from loopguard_hook.rules.same_answer import acknowledges

    changes = ["mcp__omx_state__state_write", "mcp__omx_memory__notepad_write_working", "TodoWrite", "mcp__github__create_issue"]
    changes += ["mcp__desktop-commander__start_search", "mcp__x__launchBuild"]  # a job's handle
    asks = ["Bash", "shell", "Read", "Grep", "WebFetch", "mcp__github__get_issue", "mcp__playwright__browser_click", "setup_env"]
    assert [acknowledges(t) for t in changes] == [True] * len(changes)
    assert [acknowledges(t) for t in asks] == [False] * len(asks)


def test_a_read_tool_whose_name_holds_an_action_word_still_answers() -> None:
    """`get_post` reads a post, `get_commit_status` a commit's status: the first word says so."""
    from loopguard_hook.rules.same_answer import acknowledges

    reads = ["mcp__wordpress__get_post", "mcp__github__get_commit", "mcp__github__get_commit_status", "read_record"]
    reads += ["mcp__x__getPostById", "mcp__x__check_for_update", "mcp__s3__list_upload_parts"]
    assert [acknowledges(t) for t in reads] == [False] * len(reads)
    assert acknowledges("mcp__wordpress__update_post") and acknowledges("mcp__github__push_files")


@pytest.mark.parametrize(
    ("command", "file"),
    [
        ("cat docs/prd.json | jq '.userStories[8]'", "docs/prd.json"),
        # a jq filter's `|` and `>` are the filter's, not the shell's
        ("jq -r '.userStories[] | select(.id == \"US-009\") | .passes' docs/prd.json", "docs/prd.json"),
        ("jq '.items | map(select(.n > 3))' data/items.json", "data/items.json"),
        ("head -20 ./notes.txt", "notes.txt"),
        ("cat a.json | jq . > b.json", None),  # written to a file
        ("jq '.a' a.json > out.json", None),
    ],
)
def test_which_file_a_command_only_reads(command: str, file: str | None) -> None:
    assert rule._file_read(command) == file


@pytest.mark.parametrize(
    ("answer", "not_right"),
    [
        ('{"success": true, "data": {"active": false, "nodeCount": 10}, "message": "updated"}', False),
        ('{"success": true, "parentId": null, "archived": false}', False),
        ("{'success': True, 'active': False}", False),
        ('{"success": false, "error": "no such node"}', True),  # a verdict field
        ('{"ok": false}', True),
        ('{"success": true, "valid": false}', True),
        ('{"success": true, "found": false}', True),
        ('{"success": true, "message": "node not found, nothing applied"}', True),  # said in words
        # a verdict in any case and form: the change did not happen, or was not allowed
        ('{"Success": false}', True),
        ('{"SUCCESS": false}', True),
        ('{"isSuccess": false}', True),
        ('{"is_valid": false}', True),
        ('{"wasApplied": false}', True),
        ('{"success": true, "updated": false, "operationsApplied": 0}', True),
        ('{"changed": false}', True),
        ('{"written": false}', True),
        ('{"ok": true, "allowed": false}', True),
        ('{"success": true, "draft": false, "locked": null}', False),
    ],
)
def test_an_acknowledgement_may_report_the_state_of_what_it_changed(answer: str, not_right: bool) -> None:
    """A field of an acknowledgement that is false or null and names no verdict is the changed
    thing's state (`says_not_right(states=True)`); without `states` any `false` still counts (the
    unmoved rule's reading of a check)."""
    from loopguard_hook.core.outcome import says_not_right

    assert says_not_right(answer, states=True) is not_right
    assert says_not_right('{"active": false}') is True


def test_a_command_started_in_the_background_another_hosts_way_is_one() -> None:
    """Gemini CLI's and Qwen Code's `is_background`, Copilot CLI's bash `mode: "async"` and its
    Windows powershell `detach` start a command that goes on writing, as `&` or Claude Code's
    `run_in_background` do: no empty read is denied after one (before, only the latter two)."""
    from loopguard_hook.rules.same_answer import _in_background

    log = "python train.py > logs/train.log 2>&1"
    assert _in_background("run_shell_command", {"command": log, "is_background": True})
    assert _in_background("bash", {"command": log, "mode": "async"})
    assert _in_background("powershell", {"command": log, "detach": True})
    assert not _in_background("run_shell_command", {"command": log, "is_background": False})
    assert not _in_background("bash", {"command": log, "mode": "sync"})


def test_a_subagents_finding_on_its_own_task_is_no_answer() -> None:
    """Gemini CLI's `invoke_agent` answers with the finding alone ("No bugs found." for each module
    reviewed in turn, a hostile review of 9dd8eab): no answer compared across calls, as Claude
    Code's Agent result, which carries its prompt and ids, never matches another's. A shell
    command printing the same words still is one."""
    found = "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n{\"response\": \"No bugs found.\"}"
    review = {"agent_name": "codebase_investigator", "prompt": "Review src/auth.py for bugs and report any you find."}
    assert rule.answer_key(_ctx("invoke_agent", review, found)) is None
    assert rule.answer_key(_bash("cat review.txt", found)) is not None
