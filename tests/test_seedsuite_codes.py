"""The rule codes of the progress seed's repeat denials (`exact_repeat_code`).

dsh-agent-loop-guard's guard-state.test.js asserts `LOOP_GUARD_DUPLICATE` for an identical call
repeated without progress ('unchanged result after repeated identical calls is blocked as
no-progress', 'loop denial logs ...', 'result errors do not count ...') and the engine uses
`LOOP_GUARD_REPEAT` for a near-identical one (same repeat group, arguments differing in
whitespace). The progress profile does the same; the other profiles use `LOOP_GUARD_REPEAT` for
both, and `LOOP_GUARD_DUPLICATE` is also the code of a denied parallel twin.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import scenario

from loopguard_hook.core.engine import Action

SCENARIOS = Path(__file__).parent / "scenarios"


def denial_codes(name: str, client: str, tmp_path: Path) -> list[str]:
    data = scenario.load(SCENARIOS / name)
    runner = scenario.Runner(data, "progress", client, str(tmp_path / "state"))
    errors = runner.play()
    assert not errors, "; ".join(errors)
    return [r.decision.rule for _, r in runner.results if r.decision is not None and r.decision.action is Action.DENY]


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_identical_repeat_is_duplicate(client: str, tmp_path: Path) -> None:
    assert denial_codes("seedsuite_progress_unchanged_result.json", client, tmp_path) == ["LOOP_GUARD_DUPLICATE"]


@pytest.mark.parametrize("client", scenario.CLIENTS)
def test_whitespace_variant_is_repeat(client: str, tmp_path: Path) -> None:
    codes = denial_codes("seedsuite_progress_whitespace_repeat_group.json", client, tmp_path)
    assert codes[0] == "LOOP_GUARD_REPEAT"


def test_duplicate_then_answer_only(tmp_path: Path) -> None:
    codes = denial_codes("seedsuite_progress_answer_only_after_duplicate.json", "claude-code", tmp_path)
    assert codes == ["LOOP_GUARD_DUPLICATE", "LOOP_GUARD_STOP"]
