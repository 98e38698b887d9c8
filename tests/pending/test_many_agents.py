"""Pending (issue class 1): every agent of a session is counted, however many run at once.

Claude Code runs about 10 subagents in parallel (and more when asked); they share the session's
`session_id` and each has its own `agent_id`. Main keeps 8 agents and evicts the least recently
active one, so from the 9th concurrent subagent on no agent reaches its thresholds, and a Post
whose Pre was evicted counts the attempt a second time (`status` showed 309 calls for 160).

Run: .venv/bin/python -m pytest -q tests/pending/test_many_agents.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

import scenario  # noqa: E402

from loopguard_hook._entry import main  # noqa: E402
from loopguard_hook.engine import Action  # noqa: E402

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
