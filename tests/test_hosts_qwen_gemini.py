"""Qwen Code and Gemini CLI as hosts: their payloads are recognised as theirs and no other host's
as theirs (every captured payload of every host), `normalise`, results, capabilities and the
wire forms that reach their models (research qwen-code-hooks.md, gemini-cli-hooks.md §5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loopguard_hook.config.settings import Config
from loopguard_hook.core import policy
from loopguard_hook.core.event import Client
from loopguard_hook.core.outcome import Failure
from loopguard_hook.core.verdict import Action, Decision, Rule
from loopguard_hook.hook import HookOptions, run
from loopguard_hook.hosts import capabilities, detect_client, gemini_cli, qwen_code
from loopguard_hook.hosts.payload import CONTINUATION, parse

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/payloads")  # the research captures, where this checkout has them
QWEN = ROOT / "tests/e2e/qwen_code/payloads"
GEMINI = ROOT / "tests/e2e/gemini_cli/payloads"


def _payloads(folder: Path) -> list[dict[str, Any]]:
    """Every payload in `folder` (recursively): `*.json` files and `all.jsonl` lines, a capture
    record's `payload` unwrapped."""
    found: list[dict[str, Any]] = []
    for path in sorted(folder.rglob("*.json*")):
        if path.name in ("capture.json", "hook-effects.json") or path.suffix not in (".json", ".jsonl"):
            continue
        lines = path.read_text(encoding="utf-8").splitlines() if path.suffix == ".jsonl" else [path.read_text(encoding="utf-8")]
        for line in lines:
            if not line.strip():
                continue
            data = json.loads(line)
            if isinstance(data, dict) and "hook_event_name" not in data and isinstance(data.get("payload"), dict):
                data = data["payload"]
            if isinstance(data, dict) and "hook_event_name" in data:
                found.append(data)
    return found


def _sources() -> list[tuple[Path, Client]]:
    sources = [
        (QWEN, Client.QWEN_CODE),
        (GEMINI, Client.GEMINI_CLI),
        (ROOT / "examples/payloads/claude-code-2.1.332", Client.CLAUDE_CODE),
        (ROOT / "examples/payloads/codex-0.171.0", Client.CODEX),
        (ROOT / "examples/payloads/dsh-0.1.0-rc.8/claude-code-bridge", Client.DSH_CLAUDE_CODE),
        (ROOT / "examples/payloads/dsh-0.1.0-rc.8/codex-bridge", Client.DSH_CODEX),
    ]
    for folder, client in (
        ("qwen-code", Client.QWEN_CODE), ("gemini-cli", Client.GEMINI_CLI), ("claude-code", Client.CLAUDE_CODE),
        ("codex", Client.CODEX),
    ):
        if (SHARED / folder).is_dir():
            sources.append((SHARED / folder, client))
    return sources


@pytest.mark.parametrize(("folder", "client"), _sources(), ids=lambda v: str(v).rsplit("/", 1)[-1])
def test_every_captured_payload_is_recognised_as_its_hosts(folder: Path, client: Client) -> None:
    payloads = _payloads(folder)
    assert len(payloads) >= 9, folder
    wrong = [(p["hook_event_name"], detect_client(p).value) for p in payloads if detect_client(p) is not client]
    assert not wrong, f"{folder}: {wrong[:5]}"


def test_the_e2e_captures_cover_every_event_that_fired() -> None:
    assert {p["hook_event_name"] for p in _payloads(QWEN)} >= {
        "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart", "Stop",
        "SubagentStop",
    }
    assert {p["hook_event_name"] for p in _payloads(GEMINI)} >= {
        "BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd",
    }


def _load(folder: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return data


# -- Qwen Code -------------------------------------------------------------------------------


def test_qwen_keys_every_event_of_a_call_by_the_models_call_id() -> None:
    pre = qwen_code.normalise(_load(QWEN, "PreToolUse.run_shell_command.json"), None)
    post = qwen_code.normalise(_load(QWEN, "PostToolUse.run_shell_command.json"), None)
    assert pre["tool_use_id"] == pre["tool_call_id"] and pre["tool_use_id"].startswith("call_")
    assert post["tool_use_id"] == post["tool_call_id"]
    batch = parse(qwen_code.normalise(_load(QWEN, "PostToolBatch.run_shell_command.json"), None), Client.QWEN_CODE)
    assert batch.tool_calls[0].tool_use_id.startswith("call_")


@pytest.mark.parametrize("tool_name", [["run_shell_command"], {"name": "run_shell_command"}, 7, None])
def test_a_qwen_failure_whose_tool_name_is_no_string_is_a_bad_payload(tool_name: object, tmp_path: Path) -> None:
    """A failed call's `tool_name` of another type is refused by the field checks, one line and
    exit 1, as on every host: Qwen's own step before them raised TypeError (a list is unhashable),
    an internal error (a hostile test's mutated capture)."""
    payload = _load(ROOT / "examples/payloads/qwen-code-0.24.4", "PostToolUseFailure.run_shell_command.json")
    assert qwen_code.normalise({**payload, "tool_name": tool_name}, None)["tool_name"] == tool_name
    raw = json.dumps({**payload, "tool_name": tool_name}).encode()
    result = run(raw, options=HookOptions(client="qwen-code", state_dir=str(tmp_path)), environ={}, user_config="")
    assert result.exit_code == 1 and "bad payload" in result.stderr and "internal error" not in result.stderr


def test_qwen_marks_only_a_prompt_without_submitted_prompt_as_a_continuation() -> None:
    first = parse(qwen_code.normalise(_load(QWEN, "UserPromptSubmit.json"), None), Client.QWEN_CODE)
    later = parse(qwen_code.normalise(_load(QWEN, "UserPromptSubmit.continuation.json"), None), Client.QWEN_CODE)
    assert (first.continuation, later.continuation) == (False, True)
    assert first.prompt and later.prompt == ""
    claude = _load(ROOT / "examples/payloads/claude-code-2.1.332", "UserPromptSubmit.json")
    assert not parse(claude, Client.CLAUDE_CODE).continuation and CONTINUATION not in claude


def test_qwen_reads_a_batch_entry_a_hook_denied_as_denied() -> None:
    raw = json.loads((SHARED / "qwen-code/0.24.4/PostToolBatch.run_shell_command.execution_denied.json").read_text()) if (
        SHARED / "qwen-code"
    ).is_dir() else None
    payloads = [p for p in _payloads(QWEN) if p["hook_event_name"] == "PostToolBatch"]
    denied = [p for p in payloads if p["tool_calls"][0]["tool_response"].get("error_type") == "execution_denied"]
    for payload in denied + ([raw["payload"]] if raw else []):
        entry = parse(qwen_code.normalise(payload, None), Client.QWEN_CODE).tool_calls[0]
        assert isinstance(entry.tool_response, str) and qwen_code.denied_in_batch(entry.tool_response)
    assert denied or raw
    ok = next(p for p in payloads if p["tool_calls"][0]["status"] == "success")
    entry = parse(qwen_code.normalise(ok, None), Client.QWEN_CODE).tool_calls[0]
    assert not isinstance(entry.tool_response, str)
    assert qwen_code.outcome(entry.tool_name, entry.tool_response, mutation=False).failure == Failure.NONE


def test_qwen_results() -> None:
    read = _load(QWEN, "PostToolUse.read_file.json")["tool_response"]
    stub = _load(QWEN, "PostToolUse.read_file.unchanged.json")["tool_response"]
    first, again = (qwen_code.outcome("read_file", r, mutation=False) for r in (read, stub))
    assert first.text == read["llmContent"] and not first.unchanged and first.failure == Failure.NONE
    assert again.unchanged and again.failure == Failure.NONE  # no new evidence, no failure
    shell = _load(QWEN, "PostToolUse.run_shell_command.json")["tool_response"]
    assert qwen_code.outcome("run_shell_command", shell, mutation=False).failure == Failure.NONE
    failed = {**shell, "llmContent": shell["llmContent"].replace("Exit Code: 0", "Exit Code: 2")}
    assert qwen_code.outcome("run_shell_command", failed, mutation=False).failure == Failure.HARD
    agent = _load(QWEN, "PostToolUse.agent.json")["tool_response"]
    assert qwen_code.outcome("agent", agent, mutation=False).text == agent["llmContent"][0]["text"]


def test_a_shell_result_is_read_as_claude_code_words_it() -> None:
    """Qwen's shell result names its command and folder above the output, Gemini's wraps it in
    `<untrusted_context>`: read as `Exit code N` and the output (captured payloads), so refusals
    of different commands are one error (a new user's sandbox wall, never seen on Qwen) and a
    quote holds no open host tag. A read's text is left as it is."""
    from loopguard_hook.hosts.llmcontent import shell_text

    failure = _load(QWEN, "PostToolUseFailure.run_shell_command.json")
    parsed = parse(qwen_code.normalise(failure, None), Client.QWEN_CODE)
    assert parsed.error == "Exit code 1\ncat: missing.txt: No such file or directory"
    shell = _load(QWEN, "PostToolUse.run_shell_command.json")["tool_response"]
    assert qwen_code.outcome("run_shell_command", shell, mutation=False).text == "alpha\nbeta\ngamma"
    gemini = _load(GEMINI, "AfterTool.run_shell_command.nonzero-exit.json")["tool_response"]
    read = gemini_cli.outcome("run_shell_command", gemini, mutation=False)
    assert read.text == "Exit code 1\ncat: missing.txt: No such file or directory" and read.failure == Failure.HARD
    assert "untrusted_context" not in read.text
    tail = "\nSignal: (none)\nProcess Group PGID: (none)"
    empty = "Command: grep -q x a.py\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1" + tail
    assert shell_text(empty) == "Exit code 1"  # says nothing but its exit: no error of its own
    printed = "Command: x\nDirectory: (root)\nOutput: ok\nError: something\nError: (none)\nExit Code: 0" + tail
    assert shell_text(printed) == "ok\nError: something"  # a line the program printed stays its output
    assert shell_text("Command: ls\nhello") == "Command: ls\nhello"  # no Output: line: not a shell result
    text = _load(QWEN, "PostToolUse.read_file.json")["tool_response"]["llmContent"]
    assert qwen_code.outcome("read_file", {"llmContent": text, "returnDisplay": ""}, mutation=False).text == text


@pytest.mark.parametrize("call", [None, "x", 3, True, [], ["response"]])
def test_a_qwen_function_response_of_another_shape_is_read_as_any_result(call: object, tmp_path: Path) -> None:
    """`functionResponse` that is not an object (a fuzzed payload): before, an AttributeError, the
    hook's internal error, and the call's result never counted; now an ordinary result."""
    response = {"response_parts": [{"functionResponse": call}]}
    assert qwen_code.outcome("agent", response, mutation=False).failure == Failure.NONE
    payload = {"session_id": "s", "prompt_id": "s########0", "hook_event_name": "PostToolUse", "tool_name": "agent",
               "tool_input": {}, "tool_use_id": "c1", "tool_response": response}
    result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(tmp_path), client="qwen-code"),
                 environ={}, user_config="")
    assert (result.exit_code, result.stderr) == (0, "") and list((tmp_path / "sessions").glob("*.json"))


def test_qwen_answers() -> None:
    deny = qwen_code.wire(Decision(Action.DENY, Rule.REPEAT, "STOP IT"), "PreToolUse")
    assert deny == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                           "permissionDecisionReason": "STOP IT"}}
    assert qwen_code.wire(Decision(Action.REMIND, Rule.REPEAT, "hm"), "PreToolUse") is None  # Qwen ignores it
    assert qwen_code.wire(Decision(Action.REMIND, Rule.REPEAT, "hm"), "PostToolUseFailure") == {
        "hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "hm"}}
    end = Decision(Action.STOP, Rule.STOP, "model text", stop_reason="why")
    assert qwen_code.wire(end, "UserPromptSubmit") == {"decision": "block", "reason": "why"}
    # no tool event ends a turn: an end there is a denial with no `continue`
    assert "continue" not in json.dumps(qwen_code.wire(end, "PreToolUse"))
    assert qwen_code.wire(Decision(Action.ALLOW, system_message="for the user"), "Stop") is None


# -- Gemini CLI ------------------------------------------------------------------------------


def test_gemini_events_are_read_under_the_guards_names() -> None:
    names = {
        f: gemini_cli.normalise(_load(GEMINI, f), None)["hook_event_name"]
        for f in ("BeforeTool.read_file.json", "AfterTool.read_file.json", "BeforeAgent.json", "AfterAgent.json",
                  "SessionStart.startup.json", "SessionEnd.exit.json", "BeforeModel.json", "PreCompress.auto.json")
    }
    assert list(names.values()) == [
        "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "BeforeModel", "PreCompress"
    ]
    stop = parse(gemini_cli.normalise(_load(GEMINI, "AfterAgent.json"), None), Client.GEMINI_CLI)
    assert stop.last_assistant_message == "All done."


def test_gemini_results() -> None:
    ok = _load(GEMINI, "AfterTool.run_shell_command.json")["tool_response"]
    again = {**ok, "llmContent": ok["llmContent"].replace("PGID: ", "PGID: 9")}
    one, two = (gemini_cli.outcome("run_shell_command", r, mutation=False) for r in (ok, again))
    assert one.fingerprint == two.fingerprint and one.failure == Failure.NONE  # the process group id is no result
    nonzero = _load(GEMINI, "AfterTool.run_shell_command.nonzero-exit.json")["tool_response"]
    assert gemini_cli.outcome("run_shell_command", nonzero, mutation=False).failure == Failure.HARD
    missing = _load(GEMINI, "AfterTool.read_file.failed.json")["tool_response"]
    failed = gemini_cli.outcome("read_file", missing, mutation=False)
    assert failed.failure == Failure.HARD and failed.text.startswith("File not found: ")


def test_gemini_answers_in_its_own_form() -> None:
    deny = gemini_cli.wire(Decision(Action.DENY, Rule.REPEAT, "STOP IT"), "PreToolUse")
    assert deny == {"decision": "deny", "reason": "STOP IT"}
    assert gemini_cli.wire(Decision(Action.REMIND, Rule.REPEAT, "hm"), "PostToolUse") == {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "hm"}}
    assert gemini_cli.wire(Decision(Action.REMIND, Rule.TEXT, "hm"), "UserPromptSubmit") == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "hm"}}
    assert gemini_cli.wire(Decision(Action.REMIND, Rule.REPEAT, "hm"), "PreToolUse") is None  # ignored by Gemini
    end = gemini_cli.wire(Decision(Action.STOP, Rule.END_TURN, "model text", stop_reason="why"), "PreToolUse")
    assert end == {"decision": "deny", "reason": "model text", "continue": False, "stopReason": "why"}
    assert gemini_cli.wire(Decision(Action.ALLOW, Rule.TEXT, "x"), "Stop") is None
    for decision in (Decision(Action.DENY, Rule.REPEAT, "x"), Decision(Action.REMIND, Rule.REPEAT, "x")):
        for event in ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"):
            out = gemini_cli.wire(decision, event) or {}
            assert "permissionDecision" not in json.dumps(out) and out.get("decision") in (None, "deny")


def test_a_gemini_loop_through_the_hook_is_denied_by_the_fourth_call(tmp_path: Path) -> None:
    before, after = _load(GEMINI, "BeforeTool.run_shell_command.json"), _load(GEMINI, "AfterTool.run_shell_command.json")
    answers = []
    for n in range(1, 5):
        for payload in (before, after):
            result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(tmp_path)), environ={},
                         clock=lambda n=n: 1_800_000_000.0 + 10 * n, user_config="")
            assert result.exit_code == 0 and result.event is not None and result.event.client is Client.GEMINI_CLI
            answers.append(json.loads(result.stdout) if result.stdout else None)
            if result.stdout and json.loads(result.stdout).get("decision") == "deny":
                break
    assert answers[:4] == [None] * 4
    assert "additionalContext" in answers[5]["hookSpecificOutput"]  # after the 3rd call's result
    assert answers[6]["decision"] == "deny" and answers[6]["reason"].startswith("REPEAT_TOOL_BLOCKED")


def test_three_identical_gemini_calls_of_one_reply_are_one_attempt(tmp_path: Path) -> None:
    """Gemini CLI 0.61.0 runs three identical `read_file` calls of one reply in parallel: their
    BeforeTool hooks come within 14 ms, then their AfterTool hooks (captured 2026-12-02), and no
    payload carries a call id, so each call took the others' entry and the third was reminded
    "call 3" inside its result. They are parallel twins: nothing is said."""
    before, after = _load(GEMINI, "BeforeTool.read_file.json"), _load(GEMINI, "AfterTool.read_file.json")
    times = [0.0, 0.007, 0.014, 1.25, 1.251, 1.254]
    answers = []
    for payload, at in zip([before] * 3 + [after] * 3, times, strict=True):
        result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(tmp_path)), environ={},
                     clock=lambda at=at: 1_800_000_000.0 + at, user_config="")
        assert result.exit_code == 0
        answers.append(result.stdout)
    assert answers == [answers[0][:0]] * 6


def test_a_gemini_test_rerun_after_each_silent_sed_edit_is_not_a_repeat(tmp_path: Path) -> None:
    """An edit→test cycle whose edits are `sed -i` (printing nothing) on five modules of a real
    folder, the test failing the same way until the last is in: the workspace shows each edit
    change its file, which is progress as an edit tool's is. Before, the 4th test run was
    reminded and the 5th and 6th denied ("identical to the previous ones")."""
    work = tmp_path / "project"
    (work / "src").mkdir(parents=True)
    before, after = _load(GEMINI, "BeforeTool.run_shell_command.json"), _load(GEMINI, "AfterTool.run_shell_command.json")
    clock = iter(range(1, 100))
    failed = {"llmContent": "Output: FAILED tests/test_settings.py::test_all\nExit Code: 1", "returnDisplay": "FAILED"}

    def send(payload: dict[str, Any], command: str, response: dict[str, str] | None = None) -> str:
        payload = dict(payload, cwd=str(work), tool_input={"command": command, "description": "run"})
        if response is not None:
            payload["tool_response"] = response
        result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(tmp_path / "state")), environ={},
                     clock=lambda: 1_800_000_000.0 + 10 * next(clock), user_config="")
        assert result.exit_code == 0
        return result.stdout.decode() if isinstance(result.stdout, bytes) else result.stdout

    answers = []
    for name in "abcde":
        (work / "src" / f"{name}.py").write_text(f"{name} = 1\n")
    for name in "abcde":
        answers += [send(before, "pytest -q tests"), send(after, "pytest -q tests", failed)]
        edit = f"sed -i 's/= 1/= 2/' src/{name}.py"
        answers.append(send(before, edit))
        (work / "src" / f"{name}.py").write_text(f"{name} = 2\n")  # what the command did
        answers.append(send(after, edit, {"llmContent": "Output: (empty)", "returnDisplay": ""}))
    answers.append(send(before, "pytest -q tests"))
    assert answers == [""] * len(answers)


# -- both ------------------------------------------------------------------------------------


@pytest.mark.parametrize("client", [Client.QWEN_CODE, Client.GEMINI_CLI])
@pytest.mark.parametrize("profile", ["balanced", "progress", "breaker", "reminder"])
def test_the_thresholds_come_before_the_hosts_own_halt(client: Client, profile: str) -> None:
    from loopguard_hook.config.settings import PROFILE_SPECS

    base = Config(profile=profile)._replace(**{k: v for k, v in PROFILE_SPECS[profile].items() if k != "rules_off"})
    caps = capabilities(client)
    assert caps.halts_at == 5
    fitted = policy.for_host(base, caps)
    first = 0 if fitted.counting == "no_progress" and not fitted.evidence_call_counts else 1
    nth = lambda count: count + 1 - first  # noqa: E731 (the identical call a count is reached at)
    if fitted.deny_at:
        assert nth(fitted.deny_at) <= 4 and all(nth(n) < nth(fitted.deny_at) for n in fitted.effective_remind_at())
        assert fitted.effective_remind_at() or nth(fitted.deny_at) <= 2
    else:
        assert nth(min(fitted.remind_at)) <= 4


def test_tool_names_of_both_hosts_are_in_the_default_lists() -> None:
    cfg = Config()
    assert {"write_file", "replace", "edit"} <= set(cfg.mutating_tools)
    assert "read_file" in cfg.read_tools and {"todo_write", "write_todos"} <= set(cfg.bookkeeping_tools)
    from loopguard_hook.core.shellwords import SHELL_TOOLS

    assert "run_shell_command" in SHELL_TOOLS


@pytest.mark.parametrize(("folder", "client"), [(QWEN, "qwen-code"), (GEMINI, "gemini-cli")])
def test_replay_reads_a_log_of_the_hosts_payloads_as_the_hook_does(folder: Path, client: str) -> None:
    """The captures hold a loop of the same shell command (Qwen: its 3rd call denied by the
    capture's probe; both: the host's own halt after the 4th): replay, which normalises each
    payload as the hook does, reminds and denies it before the host's own halt."""
    from click.testing import CliRunner

    from loopguard_hook.cli import cli

    result = CliRunner().invoke(cli, ["replay", str(folder / "all.jsonl"), "--summary"])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines() if client in line.split()]
    assert len(rows) == 2 and all(int(row[0]) >= 4 for row in rows), result.output
    assert sum(int(row[2]) for row in rows) >= 1, result.output  # a denial, from the 4th identical call


def _gemini_run(payloads: list[tuple[dict[str, Any], float]], state: Path) -> list[dict[str, Any] | None]:
    """Each payload through the hook at its time (seconds after a start), the answers decoded."""
    answers = []
    for payload, at in payloads:
        result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(state)), environ={},
                     clock=lambda at=at: 1_800_000_000.0 + at, user_config="")
        assert result.exit_code == 0 and result.stderr == ""
        answers.append(json.loads(result.stdout) if result.stdout else None)
    return answers


def test_gemini_subagents_started_together_may_each_read_what_the_others_read(tmp_path: Path) -> None:
    """Gemini CLI marks no subagent's calls (research §7: they come between the parent's
    BeforeTool and AfterTool of `invoke_agent`, with its `session_id`). Six subagents started in
    one reply each read notes.txt first, after the main agent read it: all seven were one
    agent's, and from the fourth read on they were denied (a hostile review). While the main
    agent waits on subagents their calls count apart from its own, and each subagent running at
    once may make a call once that another made; a read repeated past that is still judged."""
    invoke, invoked = _load(GEMINI, "BeforeTool.invoke_agent.json"), _load(GEMINI, "AfterTool.invoke_agent.json")
    read, answer = _load(GEMINI, "BeforeTool.read_file.subagent.json"), _load(GEMINI, "AfterTool.read_file.subagent.json")
    agents = [{**invoke, "tool_input": {**invoke["tool_input"], "prompt": f"review module {m}"}} for m in "abcdef"]
    dones = [{**invoked, "tool_input": agent["tool_input"]} for agent in agents]
    events = [(read, 1.0), (answer, 1.1)] + [(agent, 2.0 + i / 100) for i, agent in enumerate(agents)]
    events += [(payload, 4.0 + 1.5 * i) for i in range(6) for payload in (read,)]
    events += [(answer, 14.0 + i / 10) for i in range(6)]
    answers = _gemini_run(events, tmp_path / "s")
    assert answers == [None] * len(answers)
    # Past the subagents' share (the thresholds 5 higher with six of them running), the same read
    # again is a repeat: reminded, then denied.
    more = _gemini_run([(payload, 20.0 + i) for i in range(8) for payload in (read, answer)], tmp_path / "s")
    said = [None if a is None else a.get("decision", "remind") for a in more]
    assert "remind" in said and said.index("remind") < said.index("deny"), said
    # Their calls were theirs: the main agent's own read of notes.txt, after the subagents ended,
    # is its second.
    _gemini_run([(done, 40.0 + i / 10) for i, done in enumerate(dones)], tmp_path / "s")
    assert _gemini_run([(read, 50.0), (answer, 50.1)], tmp_path / "s") == [None, None]


def test_without_subagents_waited_on_gemini_calls_stay_the_main_agents(tmp_path: Path) -> None:
    """With no `invoke_agent` waiting for its result, every call is the main agent's, and a read
    repeated four times is denied at the fourth (before Gemini's own halt at the fifth)."""
    read, answer = _load(GEMINI, "BeforeTool.read_file.subagent.json"), _load(GEMINI, "AfterTool.read_file.subagent.json")
    answers = _gemini_run([(payload, 1.0 + i) for i in range(4) for payload in (read, answer)], tmp_path / "s")
    assert answers[-2] is not None and answers[-2]["decision"] == "deny", answers


def test_gemini_subagents_run_one_after_another_each_count_afresh(tmp_path: Path) -> None:
    """Five subagents run one after another (each `invoke_agent` ends before the next starts),
    each reading notes.txt once among its own work: each counts afresh, as Claude Code's
    subagents (marked by `agent_id`) do, and the main agent's own read of it is its first."""
    invoke, invoked = _load(GEMINI, "BeforeTool.invoke_agent.json"), _load(GEMINI, "AfterTool.invoke_agent.json")
    read, answer = _load(GEMINI, "BeforeTool.read_file.subagent.json"), _load(GEMINI, "AfterTool.read_file.subagent.json")
    events: list[tuple[dict[str, Any], float]] = []
    for n in range(5):
        agent = {**invoke, "tool_input": {**invoke["tool_input"], "prompt": f"review module {n}"}}
        said = [{"text": f"Subagent 'generalist' finished.\nTermination Reason: GOAL\nResult:\nmodule {n} is fine"}]
        done = {**invoked, "tool_input": agent["tool_input"], "tool_response": {"llmContent": said, "returnDisplay": ""}}
        events += [(agent, 10.0 * n), (read, 10.0 * n + 2), (answer, 10.0 * n + 2.1), (done, 10.0 * n + 5)]
    events += [(read, 60.0), (answer, 60.1)]
    assert _gemini_run(events, tmp_path / "s") == [None] * len(events)
    (ledger,) = (tmp_path / "s").glob("**/sessions/*.json")
    agents = json.loads(ledger.read_text())["agents"]
    assert "subagents" not in agents  # the count of the subagents' calls ended with the last one
    (read_sig,) = [sig for sig in agents["main"]["sigs"].values() if sig["tool"] == "read_file"]
    assert agents["main"]["attempts"] == 6 and read_sig["total"] == 1  # five invoke_agent calls and its own read


def _gemini(name: str, tool: str, tool_input: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """A captured Gemini CLI payload (`name`) for another call: `tool_input`, and as a result
    `text` (AfterTool)."""
    payload = {**_load(GEMINI, name), "tool_name": tool, "tool_input": tool_input}
    if text is not None:
        payload["tool_response"] = {"llmContent": text, "returnDisplay": ""}
    return payload


def test_gemini_subagents_started_together_that_run_in_turn_each_count_afresh(tmp_path: Path) -> None:
    """Six subagents started in one reply that Gemini runs one after another, each listing the
    folder, reading README.md and completing: the subagents' count kept what the finished ones
    did while its allowance shrank with them, and the fifth was reminded, the sixth denied (a
    hostile review of the first version). A subagent's end starts the count afresh."""
    invs = [{"agent_name": "generalist", "prompt": f"review module {m}"} for m in "abcdef"]
    events = [(_gemini("BeforeTool.invoke_agent.json", "invoke_agent", inv), 1 + i / 100) for i, inv in enumerate(invs)]
    at = 3.0
    for i, inv in enumerate(invs):
        for tool, arguments, text in (
            ("list_directory", {"dir_path": "."}, "Directory listing for /home/user/project:\n[DIR] src\nREADME.md"),
            ("read_file", {"file_path": "README.md"}, "# Project\nhello\n"),
            ("complete_task", {"result": {"response": f"module {i} ok"}}, "Output submitted and task completed."),
        ):
            events.append((_gemini("BeforeTool.read_file.json", tool, arguments), at))
            events.append((_gemini("AfterTool.read_file.json", tool, arguments, text), at + 0.1))
            at += 1
        ended = f"Subagent finished.\nResult: module {i} ok"
        events.append((_gemini("AfterTool.invoke_agent.json", "invoke_agent", inv, ended), at))
        at += 1
    assert _gemini_run(events, tmp_path / "s") == [None] * len(events)


def test_a_gemini_subagent_call_that_never_ran_does_not_hide_the_main_agents_loop(tmp_path: Path) -> None:
    """Another hook blocks every `invoke_agent` (Gemini then sends no AfterTool) and the model
    alternates a reworded one with the same failing command: each blocked call stayed waited on,
    each raised the thresholds, and the loop was never caught (a hostile review). Only the calls
    of the latest reply are waited on: the main agent sends no more while it waits."""
    cmd = {"command": "cat missing.txt", "description": "Show"}
    failed = "Output: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: 1"
    events = []
    for i in range(10):
        inv = {"agent_name": "generalist", "prompt": f"investigate the failure, try {i}"}
        events += [
            (_gemini("BeforeTool.invoke_agent.json", "invoke_agent", inv), 5.0 * i),
            (_gemini("BeforeTool.read_file.json", "run_shell_command", cmd), 5.0 * i + 2),
            (_gemini("AfterTool.read_file.json", "run_shell_command", cmd, failed), 5.0 * i + 2.2),
        ]
    said = [None if a is None else a.get("decision", "remind") for a in _gemini_run(events, tmp_path / "s")]
    assert "remind" in said and "deny" in said and said.index("remind") < said.index("deny") < 20, said


def test_gemini_subagents_of_one_reply_whose_hooks_ran_slowly_are_all_waited_on(tmp_path: Path) -> None:
    """Eight subagents started in one reply, their BeforeTool hooks 1.3 s apart (a loaded machine
    runs each hook's process slowly, one after another): only those within a second of the latest
    were waited on, so the others' first calls counted as the main agent's repeats, reminded
    and then denied (a hostile review of 9dd8eab). The calls of one reply chain up, each within
    `engine.REPLY_GAP_SECONDS` of the next."""
    invs = [{"agent_name": "generalist", "prompt": f"review module {m}"} for m in "abcdefgh"]
    events = [(_gemini("BeforeTool.invoke_agent.json", "invoke_agent", inv), 1 + 1.3 * i) for i, inv in enumerate(invs)]
    at = 12.0
    for tool, arguments, text in (
        ("list_directory", {"dir_path": "."}, "Directory listing for /home/user/project:\n[DIR] src\nREADME.md"),
        ("read_file", {"file_path": "README.md"}, "# Project\nhello\n"),
    ):
        for _ in invs:
            events.append((_gemini("BeforeTool.read_file.json", tool, arguments), at))
            events.append((_gemini("AfterTool.read_file.json", tool, arguments, text), at + 0.1))
            at += 0.3
    assert _gemini_run(events, tmp_path / "s") == [None] * len(events)
