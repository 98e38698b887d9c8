"""The DeepSeek Harness bridges: every captured payload through the hook, and the delivery
rules that make each decision reach the model there (research/dsh-hooks.md, dsh-e2e.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from wire import validate

from loopguard_hook.core.event import Client
from loopguard_hook.entry import _parse_hook_args
from loopguard_hook.hook import HookOptions, HookResult, run
from loopguard_hook.hosts import capabilities, detect_client

EXAMPLES = Path(__file__).parent.parent / "examples" / "payloads" / "dsh-0.1.0-rc.8"
PAYLOADS = sorted(EXAMPLES.glob("*/*.json"))
BRIDGES = {"claude-code-bridge": "dsh-claude-code", "codex-bridge": "dsh-codex"}


def _client(path: Path) -> str:
    return BRIDGES[path.parent.name]


def test_both_bridges_have_their_examples() -> None:
    assert {p.parent.name for p in PAYLOADS} == set(BRIDGES) and len(PAYLOADS) >= 50


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_captured_payload(path: Path, tmp_path: Path) -> None:
    result = run(path.read_bytes(), options=HookOptions(state_dir=str(tmp_path)), environ={}, user_config="")
    assert result.exit_code == 0, result.stderr
    assert validate(result, _client(path)) == []
    if result.event is not None:  # recognised as the bridge it was captured from
        assert result.event.client.value == _client(path)


@pytest.mark.parametrize("path", PAYLOADS[:3] + PAYLOADS[-3:], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_bridge_can_be_forced(path: Path, tmp_path: Path) -> None:
    options = HookOptions(client=_client(path), state_dir=str(tmp_path))
    result = run(path.read_bytes(), options=options, environ={}, user_config="")
    assert result.exit_code == 0 and (result.event is None or result.event.client.value == _client(path))


def test_the_fast_entry_accepts_the_bridges() -> None:
    for name in BRIDGES.values():
        assert _parse_hook_args(["--client", name]) == {"client": name}


def test_recognition_does_not_claim_the_other_clients() -> None:
    assert detect_client({"turn_id": "t", "transcript_path": "/x/rollout-1.jsonl"}) is Client.CODEX
    assert detect_client({"transcript_path": "/x/s.jsonl", "permission_mode": "default"}) is Client.CLAUDE_CODE
    dsh = "/h/.dsh/sessions/--w--/session-1/session.jsonl.zstd"
    assert detect_client({"transcript_path": dsh, "turn_id": "1"}) is Client.DSH_CODEX
    assert detect_client({"transcript_path": dsh, "permission_mode": "default"}) is Client.DSH_CODEX
    assert detect_client({"transcript_path": dsh}) is Client.DSH_CLAUDE_CODE


def test_the_capability_tables_say_what_dsh_lacks() -> None:
    for client in (Client.DSH_CLAUDE_CODE, Client.DSH_CODEX):
        caps = capabilities(client)
        assert "PreToolUse" not in caps.context and "PostToolUse" in caps.context
        assert caps.end_turn == frozenset() and caps.system_message == frozenset()
        assert caps.context_returns_as_prompt and not caps.sends & {"PostToolUseFailure", "PostToolBatch", "SessionEnd"}
    assert capabilities(Client.DSH_CODEX).has_arguments("bash")
    assert not capabilities(Client.DSH_CODEX).has_arguments("read")
    assert capabilities(Client.DSH_CLAUDE_CODE).has_arguments("read")


# -- a session driven from the captured payloads ----------------------------------------------


class Session:
    """Feeds payloads shaped like the captured ones of one bridge, with DSH's own follow-ups."""

    def __init__(self, bridge: str, tmp_path: Path, profile: str = "balanced") -> None:
        self.bridge = bridge
        self.state = str(tmp_path / "state")
        self.profile = profile
        self.t = 1_800_000_000.0
        self.n = 0
        self.outputs: list[tuple[str, dict[str, Any] | None]] = []

    def payload(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((EXAMPLES / self.bridge / name).read_text())
        return data

    def send(self, payload: dict[str, Any]) -> HookResult:
        self.t += 1.0
        options = HookOptions(state_dir=self.state, profile=self.profile)
        result = run(json.dumps(payload).encode(), options=options, environ={}, clock=lambda: self.t, user_config="")
        assert result.exit_code == 0, result.stderr
        assert validate(result, BRIDGES[self.bridge]) == [], result.stdout
        out = json.loads(result.stdout) if result.stdout else None
        self.outputs.append((payload["hook_event_name"], out))
        return result

    def call(self, tool: str, response: str | None = None, tool_input: Any = None) -> tuple[Any, Any]:
        """One call as DSH runs it: Pre, then Post (with the denial as its result when denied),
        then the UserPromptSubmit that an injected context triggers."""
        self.n += 1
        pre = self.payload(f"PreToolUse.{tool}.json")
        pre["tool_use_id"] = f"call_{self.n}"
        if tool_input is not None and (self.bridge == "claude-code-bridge" or tool == "bash"):
            pre["tool_input"] = tool_input
        pre_out = self.send(pre)
        post = self.payload(f"PostToolUse.{tool}.json")
        post.update(tool_use_id=pre["tool_use_id"], tool_input=pre["tool_input"])
        if pre_out.stdout:
            post["tool_response"] = "Error: " + json.loads(pre_out.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
        elif response is not None:
            post["tool_response"] = response
        post_out = self.send(post)
        pre_answer = json.loads(pre_out.stdout) if pre_out.stdout else None
        post_answer = json.loads(post_out.stdout) if post_out.stdout else None
        if post_answer is not None:
            self.prompt(post_answer["hookSpecificOutput"]["additionalContext"])
        return pre_answer, post_answer

    def prompt(self, text: str) -> HookResult:
        payload = self.payload("UserPromptSubmit.json")
        payload["prompt"] = text
        return self.send(payload)

    def stop(self) -> HookResult:
        return self.send(self.payload("Stop.json"))


def _kind(answer: dict[str, Any] | None) -> str:
    if answer is None:
        return "-"
    specific = answer["hookSpecificOutput"]
    return "deny" if "permissionDecision" in specific else "context"


@pytest.mark.parametrize("bridge", sorted(BRIDGES))
def test_a_read_loop_reaches_the_model_on_both_bridges(bridge: str, tmp_path: Path) -> None:
    """read ×10 under balanced: the reminders go out with the call's result, where DSH carries
    them; both bridges deny from the 5th and pause tools after the 8th. The Codex bridge sends
    no arguments for `read`: there the guard judges by results, and its texts say so."""
    s = Session(bridge, tmp_path)
    s.prompt("Read notes.txt and summarise it.")
    answers = [s.call("read") for _ in range(10)]
    pre = [_kind(a) for a, _ in answers]
    post = [_kind(b) for _, b in answers]
    assert pre == ["-", "-", "-", "-", "deny", "deny", "deny", "deny", "deny", "deny"]
    assert post == ["-", "-", "context", "context", "-", "-", "-", "-", "-", "-"]
    third = answers[2][1]["hookSpecificOutput"]["additionalContext"]
    fourth = answers[3][1]["hookSpecificOutput"]["additionalContext"]
    fifth = answers[4][0]["hookSpecificOutput"]["permissionDecisionReason"]
    final = answers[7][0]["hookSpecificOutput"]["permissionDecisionReason"]
    assert "4 times" in fourth  # not reset by the re-fired prompt
    assert "paused for the rest of this turn" in final and "ending this turn" not in final
    assert "alpha" in fifth  # the last result is quoted
    if bridge == "claude-code-bridge":
        assert "call 3 of read" in third and "identical" in fifth
    else:
        assert "identical" not in third + fourth + fifth + final and "3 times" in third
        assert "nothing new for 4 calls" in fifth and "attempt 5" in fifth
    grep = s.call("grep")[0]
    assert "LOOP_GUARD_STOP" in grep["hookSpecificOutput"]["permissionDecisionReason"]
    s.stop()
    s.prompt("Now something else.")  # a real prompt after the turn's Stop resets
    assert s.call("read") == (None, None)


@pytest.mark.parametrize("bridge", sorted(BRIDGES))
def test_nothing_lands_where_dsh_drops_it(bridge: str, tmp_path: Path) -> None:
    s = Session(bridge, tmp_path)
    s.prompt("task")
    for _ in range(9):
        s.call("bash", "[stderr]\nls: cannot access 'x': No such file or directory\n[exit code: 2]")
    s.stop()
    for event, out in s.outputs:
        if out is None:
            continue
        assert "continue" not in out and "systemMessage" not in out
        if event == "PreToolUse":
            assert "additionalContext" not in out["hookSpecificOutput"]


@pytest.mark.parametrize("bridge", sorted(BRIDGES))
def test_distinct_reads_and_writes_pass_under_the_breaker(bridge: str, tmp_path: Path) -> None:
    """The Codex bridge's reads of different files look alike; they are judged by their results."""
    s = Session(bridge, tmp_path, profile="breaker")
    s.prompt("task")
    for name in ("a", "b", "c", "d"):
        body = f"<path>/home/user/project/{name}.txt</path>\n<type>file</type>\n<content>\n1: {name}\n</content>"
        assert s.call("read", body, {"file_path": f"{name}.txt"}) == (None, None)
    for name in ("out1", "out2"):
        created = f"<path>/home/user/project/{name}.txt</path>\n<type>file</type>\n<content>\nCreated file\n</content>"
        assert s.call("write", created, {"file_path": f"{name}.txt", "content": "x\n"}) == (None, None)


@pytest.mark.parametrize("bridge", sorted(BRIDGES))
def test_an_edit_test_cycle_never_escalates(bridge: str, tmp_path: Path) -> None:
    s = Session(bridge, tmp_path)
    s.prompt("task")
    s.call("read")
    for i in range(4):
        edit = {"file_path": "app.txt", "old_string": f"x={i % 2 + 1}", "new_string": f"x={(i + 1) % 2 + 1}"}
        assert s.call("edit", "The file /home/user/project/app.txt has been updated successfully.", edit) == (None, None)
        assert s.call("bash", f"x={(i + 1) % 2 + 1}\n", {"command": "cat app.txt"}) == (None, None)


@pytest.mark.parametrize("bridge", sorted(BRIDGES))
def test_the_guards_own_text_coming_back_after_stop_resets_nothing(bridge: str, tmp_path: Path) -> None:
    s = Session(bridge, tmp_path)
    s.prompt("task")
    answers = [s.call("read") for _ in range(3)]
    reminder = answers[2][1]["hookSpecificOutput"]["additionalContext"]
    s.stop()
    s.prompt(reminder)  # e.g. a Stop block of another hook quoting it: not the user
    assert _kind(s.call("read")[1]) == "context"


def test_another_hooks_context_within_a_turn_resets_nothing(tmp_path: Path) -> None:
    s = Session("claude-code-bridge", tmp_path)
    s.prompt("task")
    s.call("read")
    s.call("read")
    s.prompt("[other-hook] remember to run the linter")
    assert _kind(s.call("read")[1]) == "context"  # call 3, not call 1 again


def test_a_prompt_long_after_a_turn_that_never_stopped_is_the_users(tmp_path: Path) -> None:
    """A run killed before its Stop leaves the turn open; the user's next prompt, minutes later,
    still resets (injected context comes back at once, before the next model request)."""
    s = Session("claude-code-bridge", tmp_path)
    s.prompt("task")
    for _ in range(3):
        s.call("read")
    s.t += 600
    s.prompt("A new request, after the run was killed.")
    assert s.call("read") == (None, None)


def test_a_prompt_of_a_new_codex_bridge_turn_is_the_users(tmp_path: Path) -> None:
    s = Session("codex-bridge", tmp_path)
    s.prompt("task")
    for _ in range(3):
        s.call("read")
    payload = s.payload("UserPromptSubmit.json")
    payload.update(prompt="Next request", turn_id="2")
    s.send(payload)
    assert s.call("read") == (None, None)  # the new turn's first read (its turn_id is "1" in the sample)


def test_a_call_the_codex_bridge_sends_no_arguments_for_is_logged_as_such(tmp_path: Path) -> None:
    """The Codex bridge sends `{"command": ""}` for every tool but `bash`: the log and the
    ledger name such a call as sent with no arguments, not as an empty shell command."""
    s = Session("codex-bridge", tmp_path)
    s.prompt("Read notes.txt and summarise it.")
    for _ in range(5):
        s.call("read")
    records = [json.loads(line) for line in (Path(s.state) / "decisions.jsonl").read_text().splitlines()]
    assert records and {r["arguments"] for r in records} == {"read (no arguments sent)"}
    (ledger,) = Path(s.state, "sessions").glob("*.json")
    sigs = [sig for agent in json.loads(ledger.read_text())["agents"].values() for sig in agent["sigs"].values()]
    assert [sig["summary"] for sig in sigs if sig["tool"] == "read"] == ["read (no arguments sent)"]
