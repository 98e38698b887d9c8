"""Every agent of a session is counted, however many run at once.

Claude Code runs about 10 subagents in parallel (and more when asked); they share the session's
`session_id` and each has its own `agent_id`. The ledger keeps up to `ledger.MAX_AGENTS` agents,
their tables sharing one budget (`ledger.limits`), so 9, 12 and 32 looping agents are each
denied at their 5th identical call, `status --json` counts each call once, and the state file
stays small.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import scenario  # noqa: E402

from loopguard_hook.core import ledger
from loopguard_hook.core.engine import Action
from loopguard_hook.entry import main

ROUNDS = 5  # balanced: remind at 3 and 4, deny at 5


def agent_id(i: int) -> str:
    return f"a{i:02x}{'5f3c9e0b7d1a2468'[:15]}"


def looping_agents(count: int, *, overlap: bool = False) -> dict[str, Any]:
    """`count` subagents, interleaved round by round, each repeating its own identical grep.
    With `overlap`, every agent's PreToolUse of a round comes before any PostToolUse of it (the
    agents really run at the same time)."""
    steps = []
    for r in range(1, ROUNDS + 1):
        for i in range(count):
            steps.append(
                {
                    "call": "Bash",
                    "input": {"command": f"grep -rn 'TODO(owner)' src/pkg{i:02d}/"},
                    "response": {"stdout": "", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False},
                    "agent_id": agent_id(i),
                    "pre": {3: "remind", 4: "remind", 5: "deny"}.get(r, "silent"),
                    "note": f"agent {i}, attempt {r}",
                    # Half a second per call: agents that run at once repeat within seconds (at
                    # the runner's default 2 s a step, 32 agents would space each agent's repeats
                    # 64 s apart, which the slow-repeat rule takes for a poll).
                    "t": 0.5 * (len(steps) + 1),
                    **({"batch": f"round-{r}"} if overlap else {}),
                }
            )
    return {"profiles": ["balanced"], "steps": steps}


def status(state_dir: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["status", "--state-dir", str(state_dir), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.mark.parametrize("overlap", [False, True], ids=["interleaved", "overlapping"])
@pytest.mark.parametrize("client", scenario.CLIENTS)
@pytest.mark.parametrize("count", [8, 9, 12, 32])
def test_every_concurrent_subagent_is_stopped_and_counted_once(
    count: int, client: str, overlap: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8 agents hold on main (the control); 9, 12 and 32 must hold too."""
    state_dir = tmp_path / "state"
    runner = scenario.Runner(looping_agents(count, overlap=overlap), "balanced", client, str(state_dir))
    errors = runner.play()
    denied = {s.payload.get("agent_id") for s, r in runner.results if r.decision is not None and r.decision.action is Action.DENY}
    assert len(denied) == count, f"{count - len(denied)} of {count} looping agents were never denied"
    assert not errors, "; ".join(errors[:5])

    (session,) = status(state_dir, capsys)["sessions"]
    assert session["attempts"] == count * ROUNDS, "each call is counted once"
    agents = session["agents"]
    for i in range(count):
        assert agents[agent_id(i)]["attempts"] == ROUNDS


def _ten_thousand_calls(count: int, calls: int) -> int:
    """The size in bytes of a ledger after `calls` distinct calls spread over `count` agents,
    each with a 1.4 KB output (the engine alone: no file I/O)."""
    import orjson

    from loopguard_hook.config.settings import Config
    from loopguard_hook.core import engine
    from loopguard_hook.core.event import Client
    from loopguard_hook.hosts import claude_code
    from loopguard_hook.hosts.payload import parse

    state = engine.new_session("s", Client.CLAUDE_CODE, 0.0)
    now = 1_800_000_000.0
    for i in range(calls):
        base: dict[str, Any] = {
            "session_id": "s",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/tmp",
            "tool_name": "Bash",
            "tool_input": {"command": f"grep -rn 'pattern {i}' src/pkg{i % count}/ " + "x" * 40},
            "tool_use_id": f"toolu_{i:020d}",
        }
        if i % count:
            base["agent_id"] = agent_id(i % count)
        now += 0.5
        pre = parse({**base, "hook_event_name": "PreToolUse"}, Client.CLAUDE_CODE)
        state, _ = engine.step(state, pre, Config(), claude_code, now)
        response = {"stdout": f"result {i}\n" + "line of output\n" * 100, "stderr": ""}
        post = {**base, "hook_event_name": "PostToolUse", "tool_response": response}
        state, _ = engine.step(state, parse(post, Client.CLAUDE_CODE), Config(), claude_code, now + 0.2)
    assert len(state["agents"]) == min(count, ledger.MAX_AGENTS)
    return len(orjson.dumps(state))


@pytest.mark.parametrize("count", [8, 32])
def test_many_agents_share_one_state_budget(count: int) -> None:
    assert _ten_thousand_calls(count, 2_000) <= 64 * 1024


@pytest.mark.slow
@pytest.mark.parametrize("count", [1, 8, 16, 32, ledger.MAX_AGENTS])
def test_the_state_stays_within_64_kib_after_10000_calls_whatever_the_agent_count(count: int) -> None:
    assert _ten_thousand_calls(count, 10_000) <= 64 * 1024


def test_a_reply_larger_than_an_agents_share_of_records_is_counted_once(tmp_path: Path) -> None:
    """Nine subagents leave each agent of the session nine call records (`ledger.limits`); the
    main agent then sends, four times, one reply of a failing pytest and nine Greps, all of which
    run. A reply's records stay until the PostToolBatch that closes it (`ledger.trim_calls`), so
    each call counts once a reply: four replies are reminded at most, never denied, and the turn
    goes on. Once, the first calls of each reply lost their records before that PostToolBatch,
    which counted them a second time, and the third reply ended the turn."""
    steps: list[dict[str, Any]] = [{"event": "UserPromptSubmit", "prompt": "fix the failing test"}]
    for i in range(9):
        steps.append({
            "call": "Task", "agent_id": f"sub{i}", "t": 5.0 + i, "post": "any",
            "input": {"description": f"look {i}", "prompt": f"look at part {i}", "subagent_type": "general-purpose"},
            "response": {"content": [{"type": "text", "text": f"part {i} ok"}]},
        })
    failure = "Exit code 1\nFAILED tests/test_app.py::test_total - AssertionError: assert 9 == 10\n1 failed in 0.12s"
    for reply in range(4):
        t = 54.0 + 40 * reply
        steps.append({
            "call": "Bash", "input": {"command": "pytest tests/test_app.py -x -q"}, "error": failure,
            "batch": f"r{reply}", "t": t, "pre": "any", "post": "any",
        })
        steps.extend(
            {
                "call": "Grep", "input": {"pattern": f"total{j}", "path": "/home/user/project"},
                "response": {"mode": "files_with_matches", "filenames": [f"app{j}.py"], "numFiles": 1},
                "batch": f"r{reply}", "t": t + 0.05 * (j + 1), "pre": "any", "post": "any",
            }
            for j in range(9)
        )
    data = {"description": "many subagents, then replies larger than a share", "clients": ["claude-code"],
            "batch_events": True, "steps": steps}
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    assert any("[loopguard]" in json.dumps(answer) for answer in answers)  # the loop is reminded
    assert not [a for a in answers if a.get("continue") is False]
    assert not [a for a in answers if a.get("hookSpecificOutput", {}).get("permissionDecision") == "deny"]
