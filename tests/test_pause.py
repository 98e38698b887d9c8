"""`pause` and `resume`: the README's read loop goes quiet from the next event and comes back;
`--project` pauses one project only; `--for` ends by itself; status and doctor say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loopguard_hook.commands.times import parse_pause_span
from loopguard_hook.config import load as config_mod
from loopguard_hook.config import pause as pause_mod
from loopguard_hook.entry import main

SESSION = Path(__file__).parent.parent / "examples/sessions/claude-code-read-loop.jsonl"
EXE = Path(sys.executable).with_name("loopguard-hook")


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def feed(state: Path, *, cwd: str | None = None) -> list[dict[str, object]]:
    """Every event of the README's read loop through the installed hook, as the README does; the
    answers that are not empty."""
    answers = []
    for line in SESSION.read_bytes().splitlines():
        payload = json.loads(line)
        if cwd is not None:
            payload["cwd"] = cwd
        done = subprocess.run(
            [str(EXE), "--state-dir", str(state)], input=json.dumps(payload).encode(), capture_output=True,
            env=dict(os.environ), timeout=60,
        )
        assert done.returncode == 0, done.stderr
        if done.stdout.strip():
            answers.append(json.loads(done.stdout))
    return answers


def denials(answers: list[dict[str, object]]) -> int:
    return sum(b'"deny"' in json.dumps(a).encode() for a in answers)


def test_pause_silences_the_read_loop_and_resume_brings_the_denials_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loud = feed(tmp_path / "a")
    assert denials(loud) == 4 and any("continue" in a for a in loud)

    code, out, _ = cli(["pause"], capsys)
    assert code == 0 and "paused: all projects until resumed" in out
    assert feed(tmp_path / "b") == []
    # The rules still decided and logged, in mode observe.
    logged = [json.loads(x) for x in (tmp_path / "b/decisions.jsonl").read_bytes().splitlines()]
    assert logged and {r["mode"] for r in logged} == {"observe"}
    assert {r["intended"] for r in logged} >= {"remind", "deny", "stop"}

    code, out, _ = cli(["resume"], capsys)
    assert code == 0 and "resumed" in out
    assert feed(tmp_path / "c") == loud
    assert not Path(pause_mod.pause_path(config_mod.user_config_path())).exists()


def test_a_pause_of_one_project_leaves_the_others_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert cli(["pause", "--project", str(project)], capsys)[0] == 0
    assert feed(tmp_path / "a", cwd=str(project / "src")) == []  # a folder inside it
    assert denials(feed(tmp_path / "b", cwd=str(tmp_path / "other"))) == 4
    code, out, _ = cli(["resume", "--project", str(project)], capsys)
    assert code == 0 and f"resumed for {project}" in out
    assert denials(feed(tmp_path / "c", cwd=str(project))) == 4


def test_a_project_is_matched_by_its_resolved_path_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert cli(["pause", "--project", str(tmp_path / "link")], capsys)[0] == 0
    found = pause_mod.in_force(pause_mod.pause_path(config_mod.user_config_path()), str(real))
    assert found is not None and found.project == str(tmp_path / "link")
    # and the other way: the real folder paused, an event arriving through the link (before: not covered)
    assert cli(["resume"], capsys)[0] == 0
    assert cli(["pause", "--project", str(real)], capsys)[0] == 0
    found = pause_mod.in_force(pause_mod.pause_path(config_mod.user_config_path()), str(tmp_path / "link" / "src"))
    assert found is not None and found.project == str(real)
    # resume through the link ends it (before: "was not paused", then "still paused")
    code, out, _ = cli(["resume", "--project", str(tmp_path / "link")], capsys)
    assert code == 0 and out.startswith("loopguard resumed") and "still paused" not in out
    assert pause_mod.in_force(pause_mod.pause_path(config_mod.user_config_path()), str(real)) is None


def test_a_pause_for_a_while_ends_by_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["pause", "--for", "30m"], capsys)[0] == 0
    path = pause_mod.pause_path(config_mod.user_config_path())
    (entry,) = pause_mod.read(path)
    assert entry.until is not None and entry.until - entry.since == 1800
    assert pause_mod.in_force(path, "/any", now=entry.since + 1799) == entry
    assert pause_mod.in_force(path, "/any", now=entry.since + 1800) is None
    # Through the hook: a pause whose time has passed silences nothing.
    pause_mod.write(path, [entry._replace(since=time.time() - 120, until=time.time() - 60)])
    assert denials(feed(tmp_path / "a")) == 4


def test_a_pause_for_a_while_says_the_span_it_was_given(capsys: pytest.CaptureFixture[str]) -> None:
    """`pause --for 1m30s` said "(in 1m)": the time left was cut to whole minutes (and, past an
    hour, a day, to the next unit down). It is said to the second, as a span is given."""
    code, out, _ = cli(["pause", "--for", "1m30s"], capsys)
    assert code == 0 and out.startswith("loopguard paused: all projects until ") and "(in 1m30s)\n" in out, out
    spans = {"45s": "45s", "30m": "30m", "2h": "2h00m", "1h30m15s": "1h30m15s", "1d": "1d0h", "1d12h30m": "1d12h30m"}
    for given, said in spans.items():
        pause = pause_mod.Pause(None, (), 1000.0, 1000.0 + parse_pause_span(given))
        assert pause.describe(1000.0).endswith(f" (in {said})"), (given, pause.describe(1000.0))


def test_status_and_doctor_say_the_guard_is_paused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["pause", "--for", "2h"], capsys)[0] == 0
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "PAUSED here: all projects until " in out and "(in 2h00m)" in out
    assert "profile balanced (observe)" in out
    code, out, _ = cli(["status", "--state-dir", str(tmp_path), "--json"], capsys)
    (paused,) = json.loads(out)["paused"]
    assert paused["project"] is None and paused["here"] is True and paused["until"] > time.time()
    code, out, _ = cli(["config", "show"], capsys)
    assert "paused (all projects until" in out
    code, out, _ = cli(["doctor", "--no-run"], capsys)
    assert "PAUSED here: all projects until " in out
    cli(["resume"], capsys)
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert "PAUSED" not in out and "(enforce)" in out


def test_a_damaged_pause_file_is_named_and_fails_open(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(pause_mod.pause_path(config_mod.user_config_path()))
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    line = SESSION.read_bytes().splitlines()[2]
    done = subprocess.run(
        [str(EXE), "--state-dir", str(tmp_path)], input=line, capture_output=True, env=dict(os.environ), timeout=60
    )
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.decode().strip().endswith("`loopguard-hook resume` removes it") and str(path) in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()
    code, out, _ = cli(["resume"], capsys)
    assert code == 0 and "removed the damaged pause file" in out and not path.exists()



@pytest.mark.parametrize("until", [1e308, -1e308])
def test_a_pause_time_out_of_the_clocks_range_is_a_damaged_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], until: float
) -> None:
    """A hand-edited `until` no clock can show was an internal error (OverflowError) in the hook
    and in `status`; it is a damaged pause file like any other: named, and `resume` removes it."""
    path = Path(pause_mod.pause_path(config_mod.user_config_path()))
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"pauses": [{"project": None, "paths": [], "since": 0, "until": until}]}))
    line = SESSION.read_bytes().splitlines()[2]
    done = subprocess.run(
        [str(EXE), "--state-dir", str(tmp_path)], input=line, capture_output=True, env=dict(os.environ), timeout=60
    )
    err = done.stderr.decode()
    assert done.returncode == 1 and str(path) in err and "internal error" not in err and err.count("\n") == 1, err
    code, out, err = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert "internal error" not in err and str(path) in out + err, (out, err)
    code, out, _ = cli(["resume"], capsys)
    assert code == 0 and "removed the damaged pause file" in out and not path.exists()

def test_spans_and_times_are_read_as_operators_type_them() -> None:
    from loopguard_hook.commands.times import parse_pause_span, parse_span, parse_when

    assert [parse_span(t) for t in ("30m", "2h", "1h30m", "90s", "2d", "45", "1w")] == [
        1800, 7200, 5400, 90, 172800, 45, 604800
    ]
    # Only ASCII digits (`٥` was 5 seconds), lower-case units (`1M` was a minute, or a month?).
    for bad in ("", "0m", "m", "30 minutes", "-5m", "1.5h", "\u0665", "\u0665m", "\uff15", "1M", "2H"):
        with pytest.raises(ValueError):
            parse_span(bad)
    with pytest.raises(ValueError, match="units are lower case"):
        parse_span("1M")
    assert parse_pause_span("36500d") == 36500 * 86400  # 100 years: the longest pause
    for too_long in ("36501d", "999999999999d"):  # before: a pause file every hook read as damaged
        with pytest.raises(ValueError, match="longer than 100 years"):
            parse_pause_span(too_long)
    assert parse_when("40000d", now=4e9) == 4e9 - 40000 * 86400  # `log --since 40000d`: everything
    assert parse_when("2h", now=10_000.0) == 10_000.0 - 7200
    assert parse_when("2026-12-01T00:00:00+00:00") == 1796083200.0
    with pytest.raises(ValueError):
        parse_when("yesterday")


def test_gc_reads_spans_as_pause_does_with_a_unit_required() -> None:
    """`gc --older-than` took `1.5d` but not `1d12h`, `pause --for` the other way round, and
    only `gc` took weeks: one grammar now (`times.parse_span`), a unit required by gc."""
    from loopguard_hook.commands.times import parse_age

    assert [parse_age(t) for t in ("0s", "90s", "1d12h", "2w", "7d")] == [0, 90, 129600, 1209600, 604800]
    with pytest.raises(ValueError, match="the unit is required"):
        parse_age("7")
    for bad in ("1.5d", "nan", "infd", "-1h", "\u0667d", "7D", ""):
        with pytest.raises(ValueError):
            parse_age(bad)


def test_a_pause_of_a_folder_that_does_not_exist_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in --project would pause nothing while the real project stays guarded."""
    code, out, err = cli(["pause", "--project", str(tmp_path / "no-such-project")], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "no such folder; nothing was paused" in err
    assert not Path(pause_mod.pause_path(config_mod.user_config_path())).exists()


def test_a_pause_also_quiets_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A user who pauses because every call shows the hook's bad-config line gets silence: the
    line goes to errors.log while paused, and comes back on resume."""
    config = Path(config_mod.user_config_path())
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("deny_att = 3\n")
    line = SESSION.read_bytes().splitlines()[2]

    def one() -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(EXE), "--state-dir", str(tmp_path)], input=line, capture_output=True, env=dict(os.environ), timeout=60
        )

    loud = one()
    assert loud.returncode == 1 and b"bad config" in loud.stderr and b"deny_att" in loud.stderr
    code, out, _ = cli(["pause"], capsys)
    assert code == 0 and "the config has problems" in out and "config check" in out
    quiet = one()
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
    assert "deny_att" in (tmp_path / "errors.log").read_text()
    # status and doctor say the same (before: "every hook event here fails", "every event exits 1")
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert code == 1 and "config here: BAD, and the guard is paused here: hook events write the problem to errors.log" in out
    assert "every hook event here fails" not in out
    from loopguard_hook.doctor.common import check_config
    from loopguard_hook.doctor.model import ClientReport

    report = ClientReport("claude-code", "Claude Code", None)
    check_config(report, dict(os.environ), os.getcwd())
    said = [f.message for f in report.findings if f.check == "config"]
    assert said and "while the guard is paused here every event writes that message to errors.log" in said[0], said
    code, out, _ = cli(["resume"], capsys)
    again = one()
    assert again.returncode == 1 and b"deny_att" in again.stderr


@pytest.mark.parametrize("kind", ["folder", "fifo", "link", "dangling-link"])
def test_a_pause_file_that_is_not_a_file_is_left_to_the_user(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder (or a FIFO) where pause.json belongs: before, every event said "`loopguard-hook
    resume` removes it", and resume then failed ("Is a directory") or deleted a FIFO the guard
    never made."""
    path = Path(pause_mod.pause_path(config_mod.user_config_path()))
    path.parent.mkdir(parents=True)
    if kind == "folder":
        path.mkdir()
        (path / "x").write_text("keep")
    elif kind == "fifo":
        os.mkfifo(path)
    else:  # before: a dangling link was no pause at all, and resume removed a working one
        target = tmp_path / "mine.json"
        if kind == "link":
            target.write_text("KEEP")
        path.symlink_to(target)
    line = SESSION.read_bytes().splitlines()[2]
    done = subprocess.run(
        [str(EXE), "--state-dir", str(tmp_path)], input=line, capture_output=True, env=dict(os.environ), timeout=60
    )
    err = done.stderr.decode()
    assert done.returncode == 1 and len(err.splitlines()) == 1
    assert "not a regular file; remove it yourself" in err and "resume" not in err, err
    code, out, err = cli(["resume"], capsys)
    assert code == 1 and "is not a file the guard wrote; remove it yourself: nothing was changed" in err
    if kind == "folder":
        assert (path / "x").read_text() == "keep"
    elif kind == "fifo":
        assert path.is_fifo()
    else:
        assert path.is_symlink() and (kind == "dangling-link" or (tmp_path / "mine.json").read_text() == "KEEP")
        code, _, err = cli(["pause"], capsys)  # nor is it replaced by a pause
        assert code == 1 and "remove it yourself" in err and path.is_symlink()


def test_an_empty_project_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`pause --project ""` (a variable that was not set) paused the folder it was run in, and
    `resume --project ""` ended that folder's pause: an empty folder name is refused, as a bad
    `--for` is (one line naming the option, exit 1), and nothing is paused or resumed."""
    path = Path(pause_mod.pause_path(config_mod.user_config_path()))
    for args in (["pause", "--project", ""], ["pause", "--project="], ["pause", "--for", "1h", "--project", ""]):
        code, out, err = cli(args, capsys)
        assert (code, out) == (1, "") and err.count("\n") == 1 and "'--project': empty" in err, (args, err)
        assert not path.exists()
    assert cli(["pause", "--for", "bad"], capsys)[0] == 1  # the way `pause` refuses a bad option
    assert cli(["pause", "--project", str(tmp_path)], capsys)[0] == 0
    code, out, err = cli(["resume", "--project", ""], capsys)
    assert (code, out) == (1, "") and "'--project': empty" in err and "(see loopguard-hook resume --help)" in err
    assert [p.project for p in pause_mod.read(str(path))] == [str(tmp_path)]


def test_a_span_too_long_for_a_float_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`gc --older-than` of 400 digits was `inf` to float() and refused before `times.parse_span`;
    since, the whole number overflowed float(): an OverflowError, `internal error` and a
    traceback in errors.log, for gc, `pause --for` and `log --since` alike. A usage error now."""
    from loopguard_hook.commands.times import parse_pause_span, parse_span, parse_when

    huge = "9" * 400
    for text, unit in ((huge, False), (huge + "s", True), (huge + "w", True)):
        with pytest.raises(ValueError, match="longer than any clock"):
            parse_span(text, unit=unit)
    with pytest.raises(ValueError):
        parse_pause_span(huge)
    with pytest.raises(ValueError):
        parse_when(huge + "s")
    state = tmp_path / "state"
    for args in (["gc", "--older-than", huge + "w", "--dry-run", "--state-dir", str(state)], ["pause", "--for", huge]):
        code, out, err = cli(args, capsys)
        assert code == 1 and "internal error" not in err and "longer than any clock" in err, (args, err)
