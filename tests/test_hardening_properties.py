"""Failure behaviour as properties: random event sequences for both clients, in the shapes the
real clients send (Claude Code 2.1.332 and Codex 0.171.0 captures), through `hook.run`.

For every event: the exit code is 0 (these payloads are all well-formed; never 2 in any case),
stdout is empty or exactly one JSON object the client accepts, the ledger loads afterwards, no
counter is negative, and after a UserPromptSubmit every agent's counters are back to zero.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hardening_helpers import at, base, load_state
from wire import validate

from loopguard_hook.hook import HookOptions, run

T0 = 1_800_000_000.0
SESSION = "0f6c2d8e-prop-4e77-84b5-4f0269348799"

CLAUDE_TOOLS = ["Bash", "Read", "Edit", "Write", "Grep", "Glob", "Agent", "TodoWrite", "mcp__db__query", "WebFetch"]
CODEX_TOOLS = ["Bash", "apply_patch", "update_plan", "mcp__db__query"]

INPUTS: dict[str, list[Any]] = {
    "Bash": [
        {"command": "ls"},
        {"command": "ls", "description": "List files"},
        {"command": "pytest -q", "timeout": 60000},
        {"command": "cat notes.txt"},
        {"command": "false"},
        {"command": "git status", "run_in_background": False},
    ],
    "Read": [
        {"file_path": "/home/user/project/notes.txt"},
        {"file_path": "/home/user/project/notes.txt", "offset": 10, "limit": 5},
        {"file_path": "/home/user/project/main.py"},
    ],
    "Edit": [
        {"file_path": "/home/user/project/main.py", "old_string": "a", "new_string": "b"},
        {"file_path": "/home/user/project/main.py", "old_string": "b", "new_string": "a", "replace_all": False},
    ],
    "Write": [
        {"file_path": "/home/user/project/out.txt", "content": "hello\n"},
        {"file_path": "/home/user/project/out.txt", "content": ""},
    ],
    "Grep": [{"pattern": "TODO", "path": "/home/user/project"}, {"pattern": "def ", "output_mode": "content", "-n": True}],
    "Glob": [{"pattern": "**/*.py"}],
    "Agent": [{"description": "Look around", "prompt": "List the files", "subagent_type": "general-purpose"}],
    "TodoWrite": [{"todos": [{"content": "x", "status": "pending", "activeForm": "x"}]}],
    "mcp__db__query": [{"sql": "select 1"}, {"sql": "select * from t"}],
    "WebFetch": [{"url": "https://example.com", "prompt": "summary"}],
    "apply_patch": [
        {"command": "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"},
        {"command": "*** Begin Patch\n*** Update File: main.py\n@@\n-a\n+b\n*** End Patch\n"},
    ],
    "update_plan": [{"plan": [{"step": "x", "status": "in_progress"}]}],
}

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)

TEXTS = [
    "ok",
    "alpha\nbeta\ngamma\n",
    "error: boom",
    "ls: cannot access '/x': No such file or directory\n",
    "Wall time: 0.3 seconds\nok",
    "took 12ms",
    "Exit code 1",
    "Traceback (most recent call last):\n  x\n",
    "<tool_use_error>InputValidationError: missing file_path</tool_use_error>",
    "PreToolUse:Bash hook error: [loopguard] REPEAT_TOOL_BLOCKED",
    "",
]
text = st.one_of(st.sampled_from(TEXTS), st.text(max_size=40))
delta = st.sampled_from([0.0, 0.0, 0.2, 0.9, 2.0, 5.0, 61.0, 3600.0])
tool_use_id = st.one_of(st.sampled_from([f"toolu_{i}" for i in range(6)]), st.none(), st.uuids().map(str))
agent_id = st.one_of(st.none(), st.none(), st.sampled_from([f"a{i:016x}" for i in range(11)]))


def tool_input_for(tool: str) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(INPUTS[tool]), st.sampled_from(INPUTS[tool]), json_value, st.text(max_size=30))


def claude_response(tool: str) -> st.SearchStrategy[Any]:
    shaped = {
        "Bash": st.builds(
            lambda out, err: {"stdout": out, "stderr": err, "interrupted": False, "isImage": False, "noOutputExpected": False},
            text,
            text,
        ),
        "Read": st.builds(
            lambda c: {
                "type": "text",
                "file": {
                    "filePath": "/home/user/project/notes.txt",
                    "content": c,
                    "numLines": 4,
                    "startLine": 1,
                    "totalLines": 4,
                },
            },
            text,
        ),
        "mcp__db__query": st.builds(lambda t, e: {"content": [{"type": "text", "text": t}], "isError": e}, text, st.booleans()),
    }.get(tool, st.builds(lambda t: {"type": "update", "filePath": "/home/user/project/out.txt", "content": t}, text))
    return st.one_of(shaped, text, json_value)


def codex_response(tool: str) -> st.SearchStrategy[Any]:
    if tool == "apply_patch":
        return st.builds(
            lambda code, out: f"Exit code: {code}\nWall time: 0 seconds\nOutput:\n{out}\n", st.sampled_from([0, 0, 1]), text
        )
    return st.one_of(text, st.builds(lambda t: t + "\n", text))


@st.composite
def tool_call(draw: st.DrawFn, client: str) -> dict[str, Any]:
    tool = draw(st.sampled_from(CODEX_TOOLS if client == "codex" else CLAUDE_TOOLS))
    call = {"tool_name": tool, "tool_input": draw(tool_input_for(tool)), "tool_use_id": draw(tool_use_id)}
    call["tool_response"] = draw(codex_response(tool) if client == "codex" else claude_response(tool))
    return call


@st.composite
def step(draw: st.DrawFn, client: str) -> tuple[float, dict[str, Any]]:
    """One hook event (without the common fields) and the seconds since the previous one."""
    events = ["PreToolUse"] * 5 + ["PostToolUse"] * 4 + ["UserPromptSubmit", "SessionStart", "Stop", "SubagentStop"]
    if client == "claude-code":
        events += ["PostToolUseFailure"] * 2 + ["PostToolBatch"] * 2
    name = draw(st.sampled_from(events))
    event: dict[str, Any] = {"hook_event_name": name}
    aid = draw(agent_id)
    if aid is not None:
        event.update(agent_id=aid, agent_type="general-purpose" if client == "claude-code" else "default")
    if name in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        call = draw(tool_call(client))
        event.update(tool_name=call["tool_name"], tool_input=call["tool_input"])
        if call["tool_use_id"] is not None:
            event["tool_use_id"] = call["tool_use_id"]
        if name == "PostToolUse":
            event["tool_response"] = call["tool_response"]
        elif name == "PostToolUseFailure":
            event.update(error=draw(text), is_interrupt=draw(st.sampled_from([False, False, True])))
        if client == "claude-code" and name != "PreToolUse":
            event["duration_ms"] = draw(st.integers(0, 5000))
    elif name == "PostToolBatch":
        event["tool_calls"] = [
            {**call, "tool_response": draw(st.one_of(text, st.just(call["tool_response"])))}
            for call in draw(st.lists(tool_call(client), min_size=1, max_size=4))
        ]
    elif name == "UserPromptSubmit":
        event["prompt"] = draw(text)
    elif name == "SessionStart":
        event["source"] = draw(st.sampled_from(["startup", "resume", "clear", "compact"]))
        event.pop("agent_id", None)
        event.pop("agent_type", None)
    else:  # Stop, SubagentStop
        line = draw(st.sampled_from(["I will check the file again.", "Done.", "Let me look at that once more."]))
        event.update(
            stop_hook_active=draw(st.booleans()),
            last_assistant_message=draw(st.one_of(text, st.just((line + "\n") * draw(st.integers(1, 12))))),
        )
    return draw(delta), event


@st.composite
def scenario(draw: st.DrawFn) -> tuple[str, str, str, list[tuple[float, dict[str, Any]]]]:
    client = draw(st.sampled_from(["claude-code", "codex"]))
    profile = draw(st.sampled_from(["balanced", "balanced", "reminder", "breaker", "progress"]))
    mode = draw(st.sampled_from(["enforce", "enforce", "advise", "observe"]))
    # Repeats matter: re-draw some steps from earlier ones.
    steps = draw(st.lists(step(client), min_size=1, max_size=30))
    repeats = draw(st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), max_size=10))
    for src, dst in repeats:
        if src < len(steps) and dst <= len(steps):
            steps.insert(dst, steps[src])
    return client, profile, mode, steps


def check_ledger(state: dict[str, Any]) -> list[str]:
    problems = []
    for key in ("events", "attempts"):
        if not isinstance(state.get(key), int) or state[key] < 0:
            problems.append(f"state {key} = {state.get(key)!r}")
    for agent_id, agent in state["agents"].items():
        for key in ("attempts", "seq", "batch_seq", "since", "bookkeeping"):
            if agent[key] < 0:
                problems.append(f"agent {agent_id} {key} = {agent[key]}")
        chain = agent.get("chain")
        if chain is not None and (not isinstance(chain, list) or chain[1] < 1):
            problems.append(f"agent {agent_id} chain = {chain!r}")
        for sig_id, sig in agent["sigs"].items():
            if sig["n"] < 0 or sig["total"] < 0:
                problems.append(f"agent {agent_id} sig {sig_id} n={sig['n']} total={sig['total']}")
        for path, count in agent.get("rules", {}).get("same_path", {}).items():
            if count < 0:
                problems.append(f"agent {agent_id} path {path!r} = {count}")
    return problems


def play(client: str, profile: str, mode: str, steps: list[tuple[float, dict[str, Any]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        options = HookOptions(client=client, profile=profile, mode=mode, state_dir=os.path.join(tmp, "state"))
        now = T0
        for index, (gap, fields) in enumerate(steps):
            now += gap
            payload = {**base(client, SESSION), **fields}
            if client == "codex" and fields["hook_event_name"] == "SessionStart":
                payload.pop("turn_id")  # Codex sends no turn_id on thread-scoped events
            raw = orjson.dumps(payload)
            result = run(raw, options=options, environ={}, clock=at(now), user_config="")
            where = f"step {index} {fields['hook_event_name']}"
            assert result.exit_code == 0, f"{where}: exit {int(result.exit_code)}: {result.stderr}"
            assert result.stderr == "", f"{where}: {result.stderr}"
            problems = validate(result, client)
            assert not problems, f"{where}: {problems}: {result.stdout!r}"
            state = load_state(Path(tmp, "state"), SESSION)
            problems = check_ledger(state)
            assert not problems, f"{where}: {problems}"
            if fields["hook_event_name"] == "UserPromptSubmit":
                for agent_id, agent in state["agents"].items():
                    assert agent["since"] == 0, f"{where}: agent {agent_id} since={agent['since']}"
                    assert agent["bookkeeping"] == 0 and not agent.get("rules", {}).get("answer_only"), where
                    assert not [s for s in agent["sigs"].values() if s["n"] > 0], f"{where}: agent {agent_id} keeps counts"
        assert not Path(tmp, "state", "errors.log").exists(), Path(tmp, "state", "errors.log").read_text()


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenario())
def test_random_event_sequences_keep_every_promise(case: tuple[str, str, str, list[tuple[float, dict[str, Any]]]]) -> None:
    play(*case)


@pytest.mark.slow
@settings(
    max_examples=1500, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(scenario())
def test_random_event_sequences_keep_every_promise_long_run(
    case: tuple[str, str, str, list[tuple[float, dict[str, Any]]]],
) -> None:
    play(*case)
