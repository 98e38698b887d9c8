"""GitHub Copilot CLI, Factory Droid and Cursor: their payloads recognised in every casing, their
answers in their own wire form, no failure on a host that reads one as a denial, and the copy of
the guard a host runs from Claude Code's settings.

Payloads: captured from Copilot CLI 1.0.102 and Droid 0.215.0 (`e2e/copilot/payloads/`,
`e2e/droid/payloads/`), and written from Cursor's documented protocol (`data/cursor/`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_hardening_helpers import run_hook
from wire import validate, validate_output

from loopguard_hook import hosts
from loopguard_hook.core.event import Client
from loopguard_hook.core.verdict import Action
from loopguard_hook.hook import HookOptions, HookResult, run
from loopguard_hook.hosts import copilot, cursor, droid
from loopguard_hook.hosts.transcript import assistant_texts

TESTS = Path(__file__).parent
COPILOT = TESTS / "e2e" / "copilot" / "payloads"
DROID = TESTS / "e2e" / "droid" / "payloads"
CURSOR = TESTS / "data" / "cursor"
NEW = {"copilot", "droid", "cursor"}


def _payloads(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if p.name not in ("capture.json", "hook-effects.json"))


def _event_option(path: Path) -> str | None:
    """A camelCase Copilot file's event, as install names it on the command line."""
    name = path.name.split(".")[0]
    return name if name[0].islower() else None


def _send(payload: Any, state: Path, *, client: str = "auto", event: str | None = None, t: float = 0.0,
          environ: dict[str, str] | None = None) -> HookResult:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return run(
        raw, options=HookOptions(client=client, state_dir=str(state), event=event), environ=environ or {},
        user_config="", clock=lambda: 1_800_000_000.0 + t,
    )


def test_the_payload_folders_hold_every_shape() -> None:
    names = {p.name for p in _payloads(COPILOT)}
    assert {"preToolUse.bash.json", "PreToolUse.Bash.json", "postToolUseFailure.view.path-does-not-exist.json"} <= names
    assert len(_payloads(DROID)) >= 17 and len(_payloads(CURSOR)) >= 12


@pytest.mark.parametrize(
    "path", _payloads(COPILOT) + _payloads(DROID) + _payloads(CURSOR), ids=lambda p: f"{p.parent.parent.name}/{p.name}"
)
def test_each_payload_is_its_hosts_and_answered_cleanly(path: Path, tmp_path: Path) -> None:
    host = "cursor" if path.parent == CURSOR else path.parent.parent.name
    data = json.loads(path.read_text())
    assert hosts.detect_client(data).value == host
    for client in ("auto", host):
        result = _send(data, tmp_path / client, client=client, event=_event_option(path))
        assert result.exit_code == 0 and result.stderr == "", result.stderr
        assert result.stdout == b""  # a first call of a session is never an intervention
        if result.event is not None:
            assert result.event.client.value == host


def _other_hosts_payloads() -> list[Path]:
    roots = [TESTS.parent / "examples" / "payloads", TESTS / "e2e"]
    found = [p for root in roots for p in root.rglob("*.json") if p.parent.name == "payloads" or root.name == "payloads"]
    skip = ("capture.json", "hook-effects.json")
    theirs = {"copilot", "droid", "copilot-1.0.102", "droid-0.215.0"}  # e2e folders, and their copies in examples/
    return sorted(p for p in found if not (set(p.parts) & theirs) and p.name not in skip)


def test_no_other_hosts_payload_is_taken_for_copilot_droid_or_cursor() -> None:
    """Every captured payload of the other hosts (Claude Code, Codex, DSH, and whichever hosts'
    e2e folders hold payloads) keeps its own dialect."""
    checked = 0
    for path in _other_hosts_payloads():
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "hook_event_name" not in data:
            continue
        checked += 1
        assert hosts.detect_client(data).value not in NEW, path
    assert checked >= 40


def test_copilot_reads_both_casings_alike() -> None:
    camel = json.loads((COPILOT / "postToolUse.bash.exit1.json").read_text())
    pascal = json.loads((COPILOT / "PostToolUse.Bash.exit1.json").read_text())
    a, b = copilot.normalise(camel, "postToolUse"), copilot.normalise(pascal, None)
    assert a["hook_event_name"] == b["hook_event_name"] == "PostToolUse"
    assert a["tool_input"] == b["tool_input"] and a["tool_response"] == b["tool_response"]
    assert copilot.outcome("bash", a["tool_response"], mutation=False).failure == 2  # exit code 1 in the text
    # the shell id counts up with every call: one output is one result, and its text is the output
    first, second = (copilot.outcome("bash", f"ok\n<shellId: {n} completed with exit code 0>", mutation=False) for n in (1, 2))
    assert first.fingerprint == second.fingerprint and first.text == "ok" and first.failure == 0
    # the public docs show toolArgs as a JSON string, and no --event: the shape tells the event
    text = dict(camel, toolArgs=json.dumps(camel["toolArgs"]))
    assert copilot.normalise(text, None)["tool_input"] == a["tool_input"]
    failed = json.loads((COPILOT / "postToolUseFailure.view.path-does-not-exist.json").read_text())
    assert copilot.normalise(failed, None)["hook_event_name"] == "PostToolUseFailure"
    rejected = dict(camel, toolResult={"resultType": "rejected", "textResultForLlm": "no"})
    assert copilot.normalise(rejected, "postToolUse")["hook_event_name"] == "PostToolUseFailure"


def test_cursor_fields_are_read() -> None:
    post = cursor.normalise(json.loads((CURSOR / "postToolUse.Shell.json").read_text()), None)
    assert post["hook_event_name"] == "PostToolUse"
    assert post["tool_response"] == {"output": "alpha\nbeta\ngamma\n", "exitCode": 0}
    assert "\n" in post["tool_use_id"] and post["cwd"] == "/home/user/project"
    assert cursor.outcome("Shell", post["tool_response"], mutation=False).text == "alpha\nbeta\ngamma\n"
    assert cursor.outcome("Shell", {"output": "boom", "exitCode": 2}, mutation=False).failure == 2
    failed = cursor.normalise(json.loads((CURSOR / "postToolUseFailure.Shell.json").read_text()), None)
    assert failed["error"] == "Command failed with exit code 1"
    prompt = json.loads((CURSOR / "beforeSubmitPrompt.json").read_text())
    assert cursor.normalise(prompt, None)["hook_event_name"] == "UserPromptSubmit"


def test_droid_results_read_their_failure_signs() -> None:
    assert droid.outcome("Execute", "x\n\n\n[Process exited with code 1]", mutation=False).failure == 2
    assert droid.outcome("Execute", "x\n\n\n[Process exited with code 0]", mutation=False).failure == 0
    assert droid.outcome("Execute", "x\n\n\n[Process exited with code 0]", mutation=False).text == "x"
    assert droid.outcome("Create", '{"success":false,"error":"exists"}', mutation=True).failure == 2
    assert droid.outcome("Read", "Error: File not found", mutation=False).failure == 2


# -- a loop in each host's own shape ------------------------------------------------------------


def _copilot_loop(state: Path, n: int, *, client: str = "copilot") -> list[HookResult]:
    pre = json.loads((COPILOT / "preToolUse.bash.json").read_text())
    post = json.loads((COPILOT / "postToolUse.bash.json").read_text())
    out = []
    for i in range(n):
        out.append(_send(pre, state, client=client, event="preToolUse", t=4 * i))
        if out[-1].decision is None or out[-1].decision.action < Action.DENY:
            _send(post, state, client=client, event="postToolUse", t=4 * i + 1)
    return out


def test_a_copilot_loop_is_reminded_then_denied_in_copilots_form(tmp_path: Path) -> None:
    results = _copilot_loop(tmp_path, 8)
    actions = [r.decision.action if r.decision else Action.ALLOW for r in results]
    assert actions[:2] == [Action.ALLOW, Action.ALLOW]
    assert actions[2:4] == [Action.REMIND, Action.REMIND] and all(a >= Action.DENY for a in actions[4:])
    reminder, denial = json.loads(results[2].stdout), json.loads(results[4].stdout)
    assert set(reminder) == {"additionalContext"}  # the form every Copilot file form reads
    assert denial["permissionDecision"] == "deny" and denial["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert denial["permissionDecisionReason"].startswith("REPEAT_TOOL_BLOCKED")
    assert [r.decision.rule for r in results[2:]] == ["LOOP_GUARD_REPEAT"] * 5 + ["LOOP_GUARD_END_TURN"]
    for r in results:
        assert validate(r, "copilot") == [], r.stdout


def test_a_droid_loop_is_denied_before_droid_halts_it(tmp_path: Path) -> None:
    pre = json.loads((DROID / "PreToolUse.Execute.json").read_text())
    post = json.loads((DROID / "PostToolUse.Execute.json").read_text())
    actions = []
    for i in range(6):
        r = _send(pre, tmp_path, t=4 * i)
        assert validate(r, "droid") == [], r.stdout
        actions.append(r.decision.action if r.decision else Action.ALLOW)
        if actions[-1] < Action.DENY:
            held = _send(post, tmp_path, t=4 * i + 1)
            assert validate(held, "droid") == [], held.stdout
            if i in (2, 3):  # Droid drops PreToolUse context: the reminder goes out with the result
                assert "additionalContext" in json.loads(held.stdout)["hookSpecificOutput"]
    assert actions[4] >= Action.DENY  # the 5th, before Droid's own halt at the 6th
    assert json.loads(_send(pre, tmp_path, t=40).stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_distinct_calls_stay_silent_on_every_new_host(tmp_path: Path) -> None:
    pre = json.loads((COPILOT / "preToolUse.bash.json").read_text())
    dpre = json.loads((DROID / "PreToolUse.Execute.json").read_text())
    cpre = json.loads((CURSOR / "preToolUse.Shell.json").read_text())
    for i in range(10):
        for payload, key, client in ((pre, "toolArgs", "copilot"), (dpre, "tool_input", "droid"), (cpre, "tool_input", "cursor")):
            call = dict(payload, **{key: dict(payload[key], command=f"cat notes-{i}.txt")})
            if client == "cursor":
                call["tool_use_id"] = f"call_{i}\nctc_{i}"
            r = _send(call, tmp_path / client, client=client, event="preToolUse" if client == "copilot" else None, t=3 * i)
            assert r.exit_code == 0 and r.stdout == b"", (client, i, r.stdout)


# -- never fail closed ----------------------------------------------------------------------------

BAD_INPUTS = [b"", b"{", b"[]", b"null", b'{"sessionId": 5, "toolName": "bash"}', b'{"conversation_id": "c"}',
              b'{"hook_event_name": "preToolUse", "conversation_id": "c", "tool_name": 7}', b"\xff\xfe", b"{}" * 3]


@pytest.mark.parametrize("client", ["copilot", "cursor", "droid"])
def test_bad_input_gives_exit_0_and_no_output_on_hosts_that_take_a_failure_badly(client: str, tmp_path: Path) -> None:
    for raw in BAD_INPUTS:
        result = _send(raw, tmp_path, client=client, event="preToolUse")
        assert (result.exit_code, result.stdout, result.stderr) == (0, b"", ""), (raw, result)
    log = (tmp_path / "errors.log").read_text()
    assert log.count("loopguard-hook: bad payload") >= len(BAD_INPUTS) - 1


def test_a_bad_config_or_flag_never_fails_a_copilot_or_cursor_process(tmp_path: Path) -> None:
    """Through the real console script: a broken config file, an unknown flag, an unknown
    `--client`, and a Claude Code install (`--client auto`) run by Copilot or Cursor on garbage."""
    pre = (COPILOT / "preToolUse.bash.json").read_bytes()
    state = str(tmp_path / "state")
    bad_config = tmp_path / "bad.toml"
    bad_config.write_text("deny_at = [")
    env = {"LOOPGUARD_RESIDENT": "0"}
    cases = [
        (pre, ["--client", "copilot", "--event", "preToolUse", "--config", str(bad_config)], env),
        (pre, ["--client", "copilot", "--event", "preToolUse", "--no-such-flag"], env),
        (pre, ["--client", "copilot-x", "--event", "preToolUse"], {**env, "COPILOT_CLI": "1"}),
        (b"not json", [], {**env, "COPILOT_CLI": "1"}),
        (b"not json", [], {**env, "CURSOR_VERSION": "2026.09.18-9a7762b"}),
        (b"not json", ["--no-such-flag"], {**env, "GEMINI_SESSION_ID": "s", "GEMINI_CWD": "/p"}),
        (b"x" * 100, ["--client", "cursor", "--mode", "sideways"], env),
    ]
    for stdin, args, environ in cases:
        outcome = run_hook(stdin, *args, "--state-dir", state, env=environ)
        assert (outcome.returncode, outcome.stdout, outcome.stderr) == (0, b"", b""), (args, outcome)
    log = (tmp_path / "state" / "errors.log").read_text()
    assert "bad config" in log and "bad command line" in log and "bad payload" in log
    # the same garbage from Claude Code itself still says so and exits 1 (it fails open)
    assert run_hook(b"not json", "--state-dir", state, env=env).returncode == 1


def test_droid_failures_print_nothing_the_model_would_read(tmp_path: Path) -> None:
    outcome = run_hook(b"{", "--client", "droid", "--state-dir", str(tmp_path), env={"LOOPGUARD_RESIDENT": "0"})
    assert (outcome.returncode, outcome.stderr) == (0, b"")


# -- Claude Code's settings run by another host ---------------------------------------------------


def _home(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home)}


def _cursor_shell_loop(times: int, state: Path, env: dict[str, str], **post_fields: Any) -> list[HookResult]:
    """The same Cursor Shell call `times` times (its preToolUse, then its postToolUse with
    `post_fields`), each with its own `tool_use_id`, 4 s apart; every answer in order."""
    pre = json.loads((CURSOR / "preToolUse.Shell.json").read_text())
    post = json.loads((CURSOR / "postToolUse.Shell.json").read_text()) | post_fields
    answers = []
    for i in range(times):
        ident = f"call_{i}\nctc_{i}"
        answers.append(_send(dict(pre, tool_use_id=ident), state, environ=env, t=4 * i))
        answers.append(_send(dict(post, tool_use_id=ident), state, environ=env, t=4 * i + 1))
    return answers


def test_a_cursor_payload_through_the_claude_code_install_never_reads_as_a_failure(tmp_path: Path) -> None:
    """A loop of Shell calls and every documented payload, sent as Cursor sends them to a
    `loopguard-hook` in `~/.claude/settings.json` (no `--client`): every answer is exit 0 with
    nothing, or one object valid for Cursor's schema, and the denial carries `agent_message`."""
    env = _home(tmp_path)
    answers = _cursor_shell_loop(9, tmp_path / "s", env)
    for r in answers:
        assert r.exit_code == 0 and r.stderr == "" and validate(r, "cursor") == [], r.stdout
    denials = [json.loads(r.stdout) for r in answers if r.stdout and b"permission" in r.stdout]
    assert denials and all(d["permission"] == "deny" and d["agent_message"] for d in denials)
    assert any(b"additional_context" in r.stdout for r in answers)  # the reminders, with a result
    for path in _payloads(CURSOR):
        r = _send(path.read_bytes(), tmp_path / "each", environ=env)
        assert r.exit_code == 0 and validate(r, "cursor") == [], path.name
        if r.stdout:
            assert validate_output(r.stdout, r.event.event if r.event else "", "cursor") == []


def test_the_claude_code_copy_stays_silent_where_the_host_runs_its_own(tmp_path: Path) -> None:
    env = _home(tmp_path)
    home = Path(env["HOME"])
    cpre = json.loads((CURSOR / "preToolUse.Shell.json").read_text())
    ppre = json.loads((COPILOT / "PreToolUse.Bash.json").read_text())

    def denied_at_fifth(payload: dict[str, Any], state: Path) -> bool:
        results = [_send(dict(payload, tool_use_id=f"c{i}") if "conversation_id" in payload else payload, state,
                         environ=env, t=4 * i) for i in range(5)]
        return bool(results[-1].stdout)

    assert denied_at_fifth(cpre, tmp_path / "a") and denied_at_fifth(ppre, tmp_path / "b")
    (home / ".cursor").mkdir()
    (home / ".cursor" / "hooks.json").write_text(json.dumps(
        {"version": 1, "hooks": {"preToolUse": [{"command": "loopguard-hook --client cursor"}]}}))
    (home / ".copilot" / "hooks").mkdir(parents=True)
    (home / ".copilot" / "hooks" / copilot.INSTALL_FILE).write_text("{}")
    assert not denied_at_fifth(cpre, tmp_path / "c") and not denied_at_fifth(ppre, tmp_path / "d")
    assert not (tmp_path / "c").exists() or not list((tmp_path / "c").glob("*.json"))  # nothing counted
    # the host's own copy (`--client`) still counts and denies
    own = [_send(dict(cpre, tool_use_id=f"c{i}"), tmp_path / "e", client="cursor", environ=env, t=4 * i) for i in range(5)]
    assert json.loads(own[-1].stdout)["permission"] == "deny"


def test_hosts_are_told_by_the_environment_they_give_hooks() -> None:
    assert hosts.client_from_environment({"COPILOT_CLI": "1", "CLAUDE_PROJECT_DIR": "/p"}) is Client.COPILOT
    assert hosts.client_from_environment({"CURSOR_VERSION": "2026.09.18"}) is Client.CURSOR
    assert hosts.client_from_environment({"DROID_PROJECT_DIR": "/p"}) is Client.DROID
    assert hosts.client_from_environment({"GEMINI_SESSION_ID": "s", "GEMINI_PROJECT_DIR": "/p"}) is Client.GEMINI_CLI
    assert hosts.client_from_environment({"GEMINI_PROJECT_DIR": "/p", "QWEN_CODE_SESSION_ID": "s"}) is None  # Qwen Code
    assert hosts.client_from_environment({"CLAUDE_PROJECT_DIR": "/p"}) is None


def test_the_fallback_for_a_package_that_does_not_import_names_every_quiet_host() -> None:
    """`process.py` tells the hosts that take a failing hook as a denial without the package; its
    lists must be the capability tables' and the hosts' own variables."""
    from loopguard_hook import process

    quiet = {c.value for c in hosts.CLIENTS if hosts.capabilities(c).fails_closed or hosts.capabilities(c).quiet_failures}
    assert set(process.QUIET_WITHOUT_PACKAGE) == quiet
    for module in hosts.DIALECTS:
        if module.CLIENT.value in quiet:
            assert set(getattr(module, "ENVIRONMENT", ())) & set(process.QUIET_ENVIRONMENT), module.CLIENT


# -- transcripts -------------------------------------------------------------------------------------


def test_assistant_text_is_read_from_each_hosts_transcript() -> None:
    copilot_event = {"type": "assistant.message", "data": {"messageId": "m1", "content": "Done.", "toolRequests": []}}
    text = [{"type": "text", "text": "Done."}]
    droid_message = {"type": "message", "id": "d1", "message": {"role": "assistant", "content": text}}
    cursor_line = {"role": "assistant", "message": {"content": [{"type": "text", "text": "Done."}]}}
    user_line = {"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>hi</user_query>"}]}}
    for record in (copilot_event, droid_message, cursor_line):
        assert [text for _, text in assistant_texts(record)] == ["Done."]
    assert assistant_texts(user_line) == []
    assert assistant_texts({"type": "assistant.message", "data": {"content": ""}}) == []


def test_a_package_that_does_not_import_still_never_fails_copilot(tmp_path: Path) -> None:
    """A half-installed dependency: the hook cannot even import its host table, and on Copilot
    still exits 0 with nothing printed (it would deny every call otherwise)."""
    import os

    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "orjson.py").write_text("raise ImportError('orjson is half-installed')\n")
    pre = (COPILOT / "preToolUse.bash.json").read_bytes()
    env = {**os.environ, "PYTHONPATH": str(shadow), "LOOPGUARD_RESIDENT": "0"}
    outcome = run_hook(pre, "--client", "copilot", "--event", "preToolUse", "--state-dir", str(tmp_path / "s"), env=env)
    assert (outcome.returncode, outcome.stdout, outcome.stderr) == (0, b"", b"")
    assert run_hook(pre, "--state-dir", str(tmp_path / "s"), env=env).returncode == 1  # Claude Code: fails open


def test_a_json_text_nested_past_the_payload_limit_is_kept_as_text(tmp_path: Path) -> None:
    """Cursor's `tool_output` and Copilot's `toolArgs` are JSON texts read after the payload's own
    nesting check: one nested 1,000 deep stays a text (hashed as such), not a value whose hashing
    would recurse past the interpreter's limit (a bug's traceback in errors.log, the call unjudged)."""
    from loopguard_hook.hosts.payload import MAX_DEPTH, json_text

    deep = "[" * 1000 + "]" * 1000
    assert json_text(deep) == deep and json_text('{"a": [1]}') == {"a": [1]}
    assert json_text("[" * (MAX_DEPTH - 8) + "]" * (MAX_DEPTH - 8)) != "[" * (MAX_DEPTH - 8) + "]" * (MAX_DEPTH - 8)
    answers = _cursor_shell_loop(5, tmp_path / "s", _home(tmp_path), tool_output=deep)
    assert all(r.exit_code == 0 and r.stderr == "" for r in answers)
    assert not (tmp_path / "s" / "errors.log").exists()
    assert b"permission" in answers[-2].stdout  # the 5th identical call, denied: the loop was judged


def test_the_first_bytes_of_a_payload_name_its_host() -> None:
    """`hosts.client_from_head`, how a failure decided before the parse ends: Cursor's payloads and
    Copilot's camelCase ones by a key only they send (the keys their `recognises` reads too);
    first bytes that hold the whole payload by the host that recognises it: Copilot's snake_case
    payload (no key of its own: a deadline before the parse exited 1 there, which Copilot reads as
    a denial), Droid's, Claude Code's; a cut payload by nothing."""
    assert {hosts.client_from_head(p.read_bytes()) for p in _payloads(CURSOR) if "claude-settings" not in p.name} == {
        Client.CURSOR
    }
    camel = [p for p in _payloads(COPILOT) if p.name[0].islower()]
    assert camel and {hosts.client_from_head(p.read_bytes()) for p in camel} == {Client.COPILOT}
    snake = TESTS.parent / "examples" / "payloads" / "copilot-1.0.102" / "PreToolUse.Bash.json"
    assert hosts.client_from_head(snake.read_bytes()) == Client.COPILOT
    assert hosts.client_from_head(snake.read_bytes()[:60]) is None
    assert {hosts.client_from_head(p.read_bytes()) for p in _payloads(DROID)} == {Client.DROID}
    claude = TESTS.parent / "examples" / "payloads" / "claude-code-2.1.332" / "PreToolUse.Read.json"
    assert hosts.client_from_head(claude.read_bytes()) == Client.CLAUDE_CODE
    assert hooks_quiet(claude.read_bytes()) is None and hooks_quiet(snake.read_bytes()) == Client.COPILOT


def hooks_quiet(head: bytes) -> Client | None:
    """`hook.quiet_client` of a payload run with `--client auto` and no host's variables."""
    from loopguard_hook.hook import quiet_client

    return quiet_client("auto", {}, head=head)
