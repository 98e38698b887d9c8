"""A ledger written by the previous version (version 1, before the rules kept their own slots) is
migrated when the next event reads it: the session keeps its counts, whatever rule held them.

The three ledgers in `tests/data/ledgers/` were written by the previous release's hook
(`05de18b`) on real payloads: four identical Reads (balanced), three Reads of one path at other
offsets (breaker), and three commands refused the same way, reminded at the third (balanced)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from loopguard_hook.core import ledger
from loopguard_hook.core.engine import Action
from loopguard_hook.hook import HookOptions, run

DATA = Path(__file__).resolve().parent.parent / "data" / "ledgers"
BASE = {"session_id": "s1", "transcript_path": "/home/user/.claude/projects/p/s1.jsonl", "cwd": "/home/user/project"}
READ = {"type": "text", "file": {"filePath": "/home/user/project/notes.txt", "content": "alpha\n", "numLines": 1}}


def _state(tmp_path: Path, name: str) -> Path:
    state = tmp_path / "state"
    (state / "sessions").mkdir(parents=True, mode=0o700)
    state.chmod(0o700)
    shutil.copy(DATA / f"ledger-v1-{name}.json", state / "sessions" / "s1.json")
    (state / "sessions" / "s1.json").chmod(0o600)
    return state


def _pre(state: Path, tool: str, tool_input: dict[str, object], profile: str = "balanced") -> tuple[Action, str]:
    payload = {**BASE, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_9"}
    result = run(
        json.dumps(payload).encode(),
        options=HookOptions(profile=profile, state_dir=str(state)),
        environ={},
        clock=lambda: float(_ledger(state)["updated"]) + 2.0,  # type: ignore[arg-type]
        user_config="",
    )
    assert result.exit_code == 0 and not result.stderr, result.stderr
    assert result.decision is not None
    return result.decision.action, result.decision.rule


def _ledger(state: Path) -> dict[str, object]:
    return json.loads((state / "sessions" / "s1.json").read_text())


def test_the_fixtures_are_version_one() -> None:
    for name in "abc":
        found = json.loads((DATA / f"ledger-v1-{name}.json").read_text())
        assert found["version"] == 1 and ledger.STATE_VERSION == 2


def test_a_repeat_count_survives_the_upgrade(tmp_path: Path) -> None:
    state = _state(tmp_path, "a")
    assert _pre(state, "Read", {"file_path": "/home/user/project/notes.txt"}) == (Action.DENY, "LOOP_GUARD_REPEAT")
    migrated = _ledger(state)
    assert migrated["version"] == 2
    assert not {"paths", "errors", "answers", "answer_only"} & set(migrated["agents"]["main"])  # type: ignore[index]


def test_the_read_count_of_a_path_moves_to_its_rule(tmp_path: Path) -> None:
    state = _state(tmp_path, "b")
    read = {"file_path": "/home/user/project/notes.txt", "offset": 9}
    assert _pre(state, "Read", read, profile="breaker") == (Action.DENY, "LOOP_GUARD_SAME_PATH")
    assert _ledger(state)["agents"]["main"]["rules"]["same_path"] == {"/home/user/project/notes.txt": 4}  # type: ignore[index]


def test_a_reminded_wall_moves_to_its_rule_and_escalates(tmp_path: Path) -> None:
    state = _state(tmp_path, "c")
    assert _pre(state, "Bash", {"command": "touch /etc/a"}) == (Action.DENY, "LOOP_GUARD_SAME_ERROR")
    walls = _ledger(state)["agents"]["main"]["rules"]["same_error"]  # type: ignore[index]
    assert [entry["level"] for entry in walls.values()] == [1]


@pytest.mark.parametrize("name", ["a", "b", "c"])
def test_migrate_leaves_no_key_of_the_old_shape(name: str) -> None:
    state = json.loads((DATA / f"ledger-v1-{name}.json").read_text())
    ledger.migrate(state)
    assert state["version"] == 2
    for entry in state["agents"].values():
        assert not {"paths", "errors", "answers", "answer_only"} & set(entry)
        assert all(not {"repeated", "spelling", "mixed"} & set(sig) for sig in entry["sigs"].values())
    ledger.migrate(state)  # a current ledger is left as it is
    assert state["version"] == 2
