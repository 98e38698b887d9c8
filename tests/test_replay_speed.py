"""Replay keeps each session's ledger in memory instead of writing it out as JSON and reading it
back after every event, as the hook's state file would. That is only faithful while the engine's
ledger is plain JSON data, so the round trip gives back an equal ledger: this pins it, after every
event of every recording at hand, under every profile."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from scenario import SCENARIO_DIR, Runner, load

from loopguard_hook import replay
from loopguard_hook.config import load as config_mod
from loopguard_hook.core import engine

REPO = Path(__file__).resolve().parents[1]
RECORDINGS = sorted(
    [*(REPO / "tests" / "data" / "transcripts").glob("*.jsonl"), *(REPO / "examples").glob("**/*.jsonl")],
    key=str,
)
RECORDINGS = [p for p in RECORDINGS if not p.name.endswith(".hooks.jsonl")]
INT64 = 1 << 63


def plain_json_problem(value: Any, seen: set[int], where: str = "$") -> str | None:
    """Where `value` is not plain JSON data (what a JSON round trip would change), or None."""
    kind = type(value)
    if value is None or kind is bool or isinstance(value, str):
        return None  # a str enum member (a rule code) reads back as its string, equal to it
    if kind is int:
        return None if -INT64 <= value < 2 * INT64 else f"{where}: integer out of range"
    if kind is float:
        return None if math.isfinite(value) else f"{where}: {value}"
    if kind not in (dict, list):
        return f"{where}: a {kind.__name__}"
    if id(value) in seen:
        return f"{where}: shared with another place"
    seen.add(id(value))
    items = value.items() if kind is dict else enumerate(value)
    for key, item in items:
        if kind is dict and type(key) is not str:
            return f"{where}: key {key!r}"
        problem = plain_json_problem(item, seen, f"{where}[{key!r}]")
        if problem is not None:
            return problem
    return None


def test_the_check_catches_what_a_round_trip_would_change() -> None:
    shared: list[int] = []
    assert plain_json_problem({"a": [1, 2.5, "x", None, True]}, set()) is None
    assert plain_json_problem({"a": (1, 2)}, set()) == "$['a']: a tuple"
    assert plain_json_problem({1: 2}, set()) == "$: key 1"
    assert plain_json_problem({"a": shared, "b": shared}, set()) == "$['b']: shared with another place"
    assert plain_json_problem([float("nan")], set()) == "$[0]: nan"
    assert plain_json_problem([replay.Outcome.RAN], set()) is None
    assert plain_json_problem([replay.RecordedCall("x", replay.Outcome.RAN)], set()) == "$[0]: a RecordedCall"


def check_every_ledger(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make `engine.step` check the ledger after every event; the list counts the checks."""
    step = engine.step
    checked = [0]

    def checked_step(state: dict[str, Any], *args: Any, **kwargs: Any) -> tuple[Any, engine.Step]:
        state, result = step(state, *args, **kwargs)
        problem = plain_json_problem(state, set())
        assert problem is None, problem
        assert orjson.loads(orjson.dumps(state)) == state
        checked[0] += 1
        return state, result

    monkeypatch.setattr(engine, "step", checked_step)
    return checked


def config_of(profile: str) -> config_mod.Config:
    return config_mod.load(environ={}, cwd=None, user_path="", flags={"profile": profile}).config


@pytest.mark.parametrize("profile", config_mod.PROFILES)
def test_the_ledger_stays_plain_json_after_every_event(profile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = check_every_ledger(monkeypatch)
    reports = replay.replay_files([str(p) for p in RECORDINGS], config_of(profile))
    assert len(reports) >= len(RECORDINGS) - 2 and checked[0] > 400


class _TimedRunner(Runner):
    """A scenario runner that keeps the time it gave the hook for each payload."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.log: list[dict[str, Any]] = []

    def send(self, step: Any, now: float) -> Any:
        self.log.append({"payload": step.payload, "ts": now})
        return super().send(step, now)


@pytest.fixture(scope="module")
def scenario_logs(tmp_path_factory: pytest.TempPathFactory) -> list[list[dict[str, Any]]]:
    """The payloads of every golden scenario as the hook got them, with the times it was given."""
    logs = []
    for path in sorted(SCENARIO_DIR.glob("*.json")):
        data = load(path)
        for client in data.get("clients", ["claude-code", "codex"]):
            state_dir = str(tmp_path_factory.mktemp(path.stem))
            runner = _TimedRunner(data, data.get("profiles", ["balanced"])[0], client, state_dir)
            runner.play()
            logs.append(runner.log)
    return logs


@pytest.mark.parametrize("profile", config_mod.PROFILES)
def test_the_ledger_stays_plain_json_in_every_scenario(
    profile: str, scenario_logs: list[list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = check_every_ledger(monkeypatch)
    for log in scenario_logs:
        replay.replay_payloads(log, config_of(profile))
    assert checked[0] > 1000
