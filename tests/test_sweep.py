"""`loopguard-hook sweep`: recorded sessions replayed under a grid of settings, scored against a
labels file in the corpus format (`tests/corpus/README.md`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from loopguard_hook import cli as cli_mod
from loopguard_hook import replay
from loopguard_hook.config import load as config_mod
from loopguard_hook.entry import main
from loopguard_hook.replay import labels as labels_mod
from loopguard_hook.replay import sweep as sweep_mod

REPO = Path(__file__).resolve().parents[1]
READ_LOOP = REPO / "tests" / "data" / "transcripts" / "claude-read-loop.jsonl"
CODEX = REPO / "examples" / "transcripts" / "codex-repeat-commands.jsonl"
QUIET = REPO / "examples" / "transcripts" / "claude-code-edit-test-cycle.jsonl"


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli_mod.cli, ["sweep", *args], env={"NO_COLOR": ""})
    assert result.exit_code == 0, result.output
    return result


def test_a_setting_is_a_key_and_json_or_text_values() -> None:
    assert sweep_mod.parse_set("deny_at=4,5, 6") == ("deny_at", [4, 5, 6])
    assert sweep_mod.parse_set("remind_at=[3],[3, 4]") == ("remind_at", [[3], [3, 4]])
    assert sweep_mod.parse_set("counting=no_progress,any") == ("counting", ["no_progress", "any"])
    assert sweep_mod.parse_set("reset_on_compaction=true,false") == ("reset_on_compaction", [True, False])
    for bad in ("deny_at", "=4", "deny_at=", "deny_at= , "):
        with pytest.raises(ValueError):
            sweep_mod.parse_set(bad)


def test_the_grid_is_every_combination_first_key_slowest() -> None:
    points = sweep_mod.grid([("deny_at", [4, 5]), ("remind_at", [[3], [3, 4]])])
    assert points == [
        {"deny_at": 4, "remind_at": [3]},
        {"deny_at": 4, "remind_at": [3, 4]},
        {"deny_at": 5, "remind_at": [3]},
        {"deny_at": 5, "remind_at": [3, 4]},
    ]
    with pytest.raises(ValueError, match="swept twice"):
        sweep_mod.grid([("deny_at", [4]), ("deny_at", [5])])
    with pytest.raises(ValueError, match="at most 256"):
        sweep_mod.grid([("deny_at", list(range(2, 20))), ("stop_at", list(range(20, 40)))])


def test_one_row_per_setting_with_the_totals_of_every_session() -> None:
    lines = run(str(READ_LOOP), str(CODEX), "--set", "deny_at=0,5").stdout.splitlines()
    assert lines[0] == "2 sessions, 20 calls in the recordings; 2 settings"
    assert lines[2].split() == ["deny_at", "interventions", "reminders", "denials", "stops", "saved"]
    # stop_at 8 still ends the loops (Claude Code's turn once: the calls after it are not counted)
    assert lines[3].split() == ["0", "5", "4", "0", "1", "3"]
    assert lines[4].split() == ["5", "14", "4", "6", "4", "6"]
    assert len(lines) == 5


def test_a_row_is_what_replay_counts_under_that_setting() -> None:
    data = json.loads(run(str(READ_LOOP), str(CODEX), "--set", "deny_at=4", "--format", "json").stdout)
    cfg = config_mod.load(environ={}, cwd=None, user_path="", flags={"deny_at": 4}).config
    reports = replay.replay_files([str(READ_LOOP), str(CODEX)], cfg)
    row = data["settings"][0]
    assert row["setting"] == {"deny_at": 4} and data["labels"] is None
    for key in ("calls", "reminders", "denials", "stops", "saved"):
        assert row[key] == sum(getattr(r.summary, key) for r in reports), key
    assert row["interventions"] == row["reminders"] + row["denials"] + row["stops"]


def _labelled(tmp_path: Path, episodes: list[dict[str, object]]) -> Path:
    shutil.copy(READ_LOOP, tmp_path / "loop.jsonl")
    shutil.copy(QUIET, tmp_path / "quiet.jsonl")
    labels = {"sessions": {"loop.jsonl": {"episodes": episodes}, "quiet.jsonl": {"episodes": []}}}
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    return path


def test_labels_count_loops_caught_and_false_alarms(tmp_path: Path) -> None:
    labels = _labelled(tmp_path, [{"class": "repeat", "calls": [3, 10], "note": "the same Read"}])
    data = json.loads(run("--labels", str(labels), "--set", "deny_at=0,5", "--format", "json").stdout)
    off, on = (row["labels"] for row in data["settings"])
    assert off == {"sessions": 2, "loops": 1, "caught": 1, "stopped": 1, "false_alarms": 0, "false_denials": 0}
    assert on == {"sessions": 2, "loops": 1, "caught": 1, "stopped": 1, "false_alarms": 0, "false_denials": 0}
    text = run("--labels", str(labels), "--set", "deny_at=5").stdout.splitlines()
    assert text[2].split()[-7:] == ["saved", "caught", "stopped", "false", "alarms", "false", "denials"]
    assert text[3].split() == ["5", "6", "2", "3", "1", "6", "1", "1", "0", "0"]
    assert text[-1] == f"labels {labels}: 2 of the sessions labelled, 1 loop in them"


def test_interventions_outside_every_loop_are_false_alarms(tmp_path: Path) -> None:
    labels = _labelled(tmp_path, [])
    row = json.loads(run("--labels", str(labels), "--set", "deny_at=5", "--format", "json").stdout)["settings"][0]
    assert row["labels"] == {"sessions": 2, "loops": 0, "caught": 0, "stopped": 0, "false_alarms": 8, "false_denials": 6}


def test_an_ambiguous_stretch_is_not_scored(tmp_path: Path) -> None:
    labels = _labelled(tmp_path, [{"class": "ambiguous", "calls": [1, 10]}])
    row = json.loads(run("--labels", str(labels), "--set", "deny_at=5", "--format", "json").stdout)["settings"][0]
    assert row["labels"]["loops"] == 0 and row["labels"]["false_alarms"] == 0


def test_labels_name_calls_by_id(tmp_path: Path) -> None:
    report = replay.replay_files([str(READ_LOOP)], config_mod.resolve([]).config)[0]
    ids = [c.tool_use_id for c in report.calls]
    labels = _labelled(tmp_path, [{"class": "repeat", "calls": [ids[2], ids[9]]}])
    row = json.loads(run("--labels", str(labels), "--set", "deny_at=5", "--format", "json").stdout)["settings"][0]
    assert row["labels"]["caught"] == 1 and row["labels"]["false_alarms"] == 0


def test_files_not_labelled_are_counted_but_not_scored(tmp_path: Path) -> None:
    labels = _labelled(tmp_path, [{"class": "repeat", "calls": [3, 10]}])
    row = json.loads(
        run(str(tmp_path / "loop.jsonl"), str(CODEX), "--labels", str(labels), "--set", "deny_at=5", "--format", "json").stdout
    )["settings"][0]
    assert row["sessions"] == 2 and row["labels"]["sessions"] == 1 and row["labels"]["false_alarms"] == 0


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"sessions": {"loop.jsonl": {"episodes": [{"class": "loopish", "calls": [1]}]}}}, "class 'loopish' is not one of"),
        ({"sessions": {"loop.jsonl": {"episodes": [{"class": "repeat", "calls": []}]}}}, "non-empty list"),
        ({"sessions": {"gone.jsonl": {"episodes": []}}}, "gone.jsonl: no such file"),
        ({"sessions": {"loop.jsonl": {"episodes": [{"class": "repeat", "calls": ["nope"]}]}}}, "'nope' is not in the replay"),
        ([1, 2], "not a labels file"),
    ],
)
def test_bad_labels_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], labels: object, message: str) -> None:
    shutil.copy(READ_LOOP, tmp_path / "loop.jsonl")
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    code = main(["sweep", "--labels", str(path), str(tmp_path / "loop.jsonl"), "--set", "deny_at=5"])
    out = capsys.readouterr()
    assert code == 1 and out.out == "" and message in out.err and len(out.err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "deny_at=1"], "bad setting: command line: deny_at: must be 0 (off) or >= 2"),
        (["--set", "deny_att=4"], "deny_att"),
        (["--set", "deny_at"], "expected KEY=V1,V2"),
    ],
)
def test_bad_settings_are_one_line(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code = main(["sweep", str(READ_LOOP), *args])
    err = capsys.readouterr().err
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_files_or_labels_are_needed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--set", "deny_at=4"]) == 1
    assert "give FILES" in capsys.readouterr().err


def test_score_of_a_report_against_labels() -> None:
    report = replay.replay_files([str(READ_LOOP)], config_mod.resolve([]).config, calls="plain")[0]
    assert all(c.arguments == "" for c in report.calls) and len(report.calls) == 10
    loop = labels_mod.Episode("repeat", (5, 10))
    assert labels_mod.score(report, [loop]) == labels_mod.Score(
        episodes=1, caught=1, stopped=1, inside=6, false_alarms=2, false_denials=0
    )


CORPUS_LABELS = REPO / "tests" / "corpus" / "labels.json"


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS_LABELS.exists(), reason="no corpus of real sessions in this checkout")
def test_the_corpus_labels_are_read_and_every_labelled_call_is_found() -> None:
    labels = labels_mod.read_labels(str(CORPUS_LABELS))
    settings = [({"profile": "balanced"}, config_mod.resolve([]).config)]
    rows = sweep_mod.sweep(replay.load(labels.files()), settings, labels=labels)
    assert rows[0].labelled == rows[0].sessions == len(labels.files()) and rows[0].episodes > 0


def test_the_example_in_the_docs_is_real(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (REPO / "docs" / "commands" / "sweep.md").read_text()
    block = text.split("```\n$ ", 1)[1].split("```", 1)[0]
    command, expected = block.split("\n", 1)
    args = command.split()
    assert args[:2] == ["loopguard-hook", "sweep"]
    monkeypatch.chdir(REPO)
    files = sorted(str(p.relative_to(REPO)) for p in REPO.glob(args[2]))
    assert run(*files, *args[3:]).stdout == expected


def test_files_it_cannot_read_are_named_and_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary, empty = tmp_path / "summary.jsonl", tmp_path / "empty.jsonl"
    summary.write_text('{"type":"summary","summary":"Fix the flaky test","leafUuid":"5f0c3a8e-0f8e"}\n')
    empty.write_text("")
    code = main(["sweep", str(summary), str(READ_LOOP), str(empty), "--set", "deny_at=4,5", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0 and [json.loads(out.out)["settings"][i]["sessions"] for i in (0, 1)] == [1, 1]
    assert out.err.splitlines() == [
        f"loopguard-hook: skipped {summary}: only a session summary (no messages, no tool calls), nothing to replay",
        f"loopguard-hook: skipped {empty}: empty, nothing to replay",
    ]
    assert main(["sweep", str(summary), str(empty), "--set", "deny_at=4"]) == 1
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.splitlines()) == 2


def test_a_directory_or_missing_file_among_good_ones_is_skipped_not_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As in replay: a folder a glob matched that holds no session file, a file gone since, is one
    line; the rest are swept."""
    folder, missing = tmp_path / "a-session", tmp_path / "gone.jsonl"
    folder.mkdir()
    code = main(["sweep", "--set", "deny_at=4,5", str(READ_LOOP), str(folder), str(missing)])
    out = capsys.readouterr()
    assert code == 0 and "1 session, 10 calls" in out.out, out.err
    assert out.err.splitlines() == [
        f"loopguard-hook: skipped {folder}: a folder with no session file (*.jsonl, *.jsonl.zstd) under it",
        f"loopguard-hook: skipped {missing}: No such file or directory",
    ]
