"""Every golden scenario in `tests/scenarios/`, under each profile and client it names."""

from __future__ import annotations

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
