"""Every golden scenario in `tests/scenarios/`, under each profile and client it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import scenario


@pytest.mark.parametrize(("name", "profile", "client"), scenario.cases())
def test_scenario(name: str, profile: str, client: str, tmp_path: Path) -> None:
    data = scenario.load(scenario.SCENARIO_DIR / name)
    runner = scenario.Runner(data, profile, client, str(tmp_path / "state"))
    errors = runner.play()
    assert not errors, f"{name} [{profile}, {client}]: " + "; ".join(errors)


def test_the_folder_is_not_empty() -> None:
    assert len(scenario.cases()) >= 10


def _intervening_expectations() -> list[str]:
    """Every expectation of an intervention written in the scenario files (a value under `pre`,
    `post` or `expect`, or one of its per-profile values)."""
    found = []
    for path in sorted(scenario.SCENARIO_DIR.glob("*.json")):
        for step in json.loads(path.read_text(encoding="utf-8"))["steps"]:
            for key in ("pre", "post", "expect"):
                spec = step.get(key)
                values = list(spec.values()) if isinstance(spec, dict) else [spec]
                found += [v for v in values if isinstance(v, str) and v.partition(":")[0] in ("remind", "deny", "stop")]
    return found


def test_most_interventions_name_the_rule_that_decides_them() -> None:
    """A right answer for the wrong reason must not pass: an expected reminder, denial or end of
    turn names its rule code (`deny:LOOP_GUARD_SAME_ERROR`), which the runner checks."""
    found = _intervening_expectations()
    named = [v for v in found if ":" in v]
    assert len(found) > 500 and len(named) >= 0.9 * len(found), f"{len(named)} of {len(found)} name their rule"
