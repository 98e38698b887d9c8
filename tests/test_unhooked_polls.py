"""The polls no hook sees (Codex `write_stdin`) in `replay` (text and JSON), `status` and `stats`:
real records of a hung build (tests/data/transcripts/codex-hung-build.jsonl, trimmed from a
corpus rollout of Codex 0.111.0), and the golden scenario of one played through the real hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import scenario

from loopguard_hook import replay
from loopguard_hook.config.load import load as load_config
from loopguard_hook.entry import main

DATA = Path(__file__).parent / "data" / "transcripts" / "codex-hung-build.jsonl"


def _report(profile: str = "balanced") -> replay.Report:
    config = load_config(environ={}, cwd=None, flags={"profile": profile}, user_path="").config
    return replay.replay(replay.read_transcript(str(DATA)), config)


def test_replay_lists_the_polls_and_denies_the_hung_build_started_again() -> None:
    report = _report()
    assert [(p.session, p.empty, bool(p.typed)) for p in report.polls] == [
        (21283, True, False), (21283, True, False), (21283, False, True), (60363, True, False)
    ]
    assert report.polls[0].command == "dotnet build MicroCalc.sln --configuration Release --no-restore"
    assert report.polls[2].done is None  # the Ctrl-C's answer has no command header
    [decision] = report.decisions
    assert (decision.tool_use_id, decision.verdict.action, decision.verdict.rule) == (
        "call_6rwVhzyNfR3asxzrIqVGK0uP", "deny", "LOOP_GUARD_HUNG"
    )  # nothing was done between the polls and the build started again
    assert "2 polls over 4 minutes returned nothing" in decision.message
    text = replay.format_text(report)
    assert "-- 2 write_stdin polls of session 21283 `dotnet build MicroCalc.sln" in text
    assert "(no hook sees them): nothing new for 4m03s" in text
    assert "4 write_stdin polls no hook sees (3 empty), read from the rollout" in text
    data = json.loads(replay.render([report], "json"))["reports"][0]
    assert len(data["unhooked_polls"]) == 4 and data["unhooked_polls"][0]["session"] == 21283
    assert data["unhooked_polls"][0]["done"] - data["unhooked_polls"][0]["time"] == pytest.approx(120.0, abs=0.01)


def test_replay_shows_the_polls_under_a_profile_that_does_not_judge_them() -> None:
    report = _report("reminder")
    assert report.decisions == () and len(report.polls) == 4


def test_status_and_stats_show_the_polls_the_hook_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = scenario.load(scenario.SCENARIO_DIR / "unhooked_hung_build_run_again_codex.json")
    state = tmp_path / "state"
    assert scenario.Runner(data, "balanced", "codex", str(state)).play() == []
    assert main(["status", "--json", "--state-dir", str(state)]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    polls = session["agents"]["main"]["unhooked_polls"]
    assert (polls["polls"], polls["empty"]) == (4, 4)
    [hung] = polls["hung"]
    assert hung["command"] == "dotnet build MicroCalc.sln --configuration Release --no-restore -clp:ErrorsOnly"
    assert main(["status", "--state-dir", str(state)]) == 0
    text = capsys.readouterr().out
    assert "4 write_stdin polls no hook saw (4 empty)" in text and "hung: dotnet build MicroCalc.sln" in text
    assert main(["stats", "--json", "--state-dir", str(state)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["unhooked_polls"] == {"polls": 4, "empty": 4, "hung": 1, "sessions": 1}
    assert [(r["rule"], r["variant"], r["shown"]) for r in stats["rows"]] == [("LOOP_GUARD_HUNG", "hung_denial", 2)]
    assert main(["stats", "--state-dir", str(state)]) == 0
    assert "write_stdin polls no hook saw: 4 (4 empty) in 1 live session(s); 1 command(s) found hung" in capsys.readouterr().out
