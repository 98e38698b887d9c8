"""`loopguard-hook replay` at scale: `--summary`, `--only-decisions`, the terminal width, colour
and the progress bar, through click's `CliRunner` on recorded sessions."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from loopguard_hook import cli as cli_mod
from loopguard_hook.entry import main

#: What the summaries say the saved tokens come after (`replay.cost.AFTER_SAVED`).
AFTER = "after a call the recording ran and the guard would have denied, or past its end of turn"
REPO = Path(__file__).resolve().parents[1]
READ_LOOP = str(REPO / "tests" / "data" / "transcripts" / "claude-read-loop.jsonl")
CODEX = str(REPO / "examples" / "transcripts" / "codex-repeat-commands.jsonl")
QUIET = str(REPO / "examples" / "transcripts" / "claude-code-edit-test-cycle.jsonl")
PROFILE = "profile balanced (enforce, no_progress): remind at 3, 4, deny at 5, stop at 8"
ESC = "\x1b["


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(cli_mod.cli, ["replay", *args], env={"COLUMNS": "200", "NO_COLOR": "", **(env or {})})
    assert result.exit_code == 0, result.output
    return result


def test_summary_is_one_line_per_session() -> None:
    lines = run("--summary", READ_LOOP, CODEX).stdout.splitlines()
    assert lines[0] == PROFILE and lines[1] == ""
    assert lines[2].split() == ["calls", "reminders", "denials", "stops", "saved", "client", "session", "recording"]
    # Claude Code's turn ends at the 8th call: the stops of the 9th and 10th are not counted; Codex
    # takes no end of turn at PreToolUse, so there each is a denial that counts.
    assert lines[3].split() == ["10", "2", "3", "1", "6", "claude-code", "2a8c01a4-2b37-462a-be01-c0a13699be17", READ_LOOP]
    assert lines[4].split() == ["10", "2", "3", "3", "0", "codex", "01a22b48-cf37-7b90-926e-48809644a6c8", CODEX]
    assert lines[5:] == [
        "",
        "20 calls in 2 sessions: 4 reminders, 6 denials, 4 stops; 6 calls the recordings ran would have been saved",
        # The Codex rollout was recorded with the guard on: nothing more to save in its loop.
        f"tokens: 2.4k in the 2 sessions whose recording states usage; 2.2k in loops, 550 of them {AFTER}",
    ]


def test_summary_names_the_file_a_line_was_skipped_in(tmp_path: Path) -> None:
    """Of several files replayed, one has a line cut short: the note under the table gave a count
    and no file to look in."""
    whole = Path(READ_LOOP).read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(whole[:3]).replace("2a8c01a4", "3b9d12b5") + '{"type": "user", "mess\n'
                   + "".join(whole[3:]).replace("2a8c01a4", "3b9d12b5"))
    lines = run("--summary", READ_LOOP, str(cut), CODEX).stdout.splitlines()
    assert lines[-1] == f"(1 unreadable or unknown line skipped: 1 in {cut})"


def test_a_folder_of_many_files_it_cannot_replay_names_a_few_and_counts_the_rest(tmp_path: Path) -> None:
    """A folder of files that are not recordings printed one stderr line each (thousands, beside
    `--summary`): the first few are named, then one line counts the others; the note under the
    table still names the recording a line was skipped in."""
    whole = Path(READ_LOOP).read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(whole[:3]) + '{"type": "user", "mess\n' + "".join(whole[3:]))
    others = [tmp_path / f"other{n}.jsonl" for n in range(cli_mod.SKIPPED_NAMED + 3)]
    for other in others:
        other.write_text('{"type": "user"}\n')
    result = run("--summary", str(tmp_path))
    assert result.stderr.splitlines() == [
        *(f"loopguard-hook: skipped {other}: not a Claude Code transcript, a Codex rollout, a DSH session log or a hook "
          "payload log" for other in others[: cli_mod.SKIPPED_NAMED]),
        "loopguard-hook: skipped 3 more files",
    ]
    assert result.stdout.splitlines()[-1] == f"(1 unreadable or unknown line skipped: 1 in {cut})"


def test_summary_adds_the_counts_of_sessions_of_one_recording(tmp_path: Path) -> None:
    """A payload log holding two sessions, with one and two payloads the hook would reject: the
    note names the log once, with both sessions' counts (the second replaced the first once)."""
    log = REPO / "tests" / "data" / "transcripts" / "codex-guard-cat-loop.hooks.jsonl"
    lines = log.read_text().splitlines()
    sid = json.loads(lines[0])["payload"]["session_id"]

    def bad(session: str) -> str:
        return json.dumps({"payload": {"hook_event_name": "PreToolUse", "session_id": session, "turn_id": "t"}})

    two = tmp_path / "two.hooks.jsonl"
    first = [*lines[:3], bad(sid), *lines[3:]]
    second = [line.replace(sid, f"{sid}-b") for line in lines]
    second = [*second[:3], bad(f"{sid}-b"), bad(f"{sid}-b"), *second[3:]]
    two.write_text("\n".join([*first, *second]) + "\n")
    out = run("--summary", str(two)).stdout.splitlines()
    assert out[-1] == f"(3 payloads the hook would reject: 3 in {two})"


def test_summary_json_has_the_counts_of_the_full_report() -> None:
    full = json.loads(run("--format", "json", READ_LOOP, CODEX).stdout)["reports"]
    short = json.loads(run("--format", "json", "--summary", READ_LOOP, CODEX).stdout)["reports"]
    assert [r["summary"] for r in short] == [r["summary"] for r in full]
    assert all(not {"calls", "decisions", "markers"} & set(r) for r in short)
    assert [r["session_id"] for r in short] == [r["session_id"] for r in full]


def test_only_decisions_lists_the_calls_the_guard_acted_on() -> None:
    out = run("--only-decisions", READ_LOOP).stdout.splitlines()
    rows = [line for line in out if line[:4].strip().isdigit()]
    assert [int(r.split()[0]) for r in rows] == [3, 4, 5, 6, 7, 8, 9, 10]  # numbered as in the full table
    assert "user prompt" not in "\n".join(out)
    assert out[-5] == "10 calls: 2 reminders, 3 denials, 1 stop; 6 calls the recording ran would have been saved"
    assert out[-1] == "(listed: the 8 calls the guard would have acted on)"


def test_only_decisions_of_a_quiet_session_lists_no_call() -> None:
    """No call and no decision to list: no table, not even its heading (a new user read an empty
    heading as a fault); the summary follows the header."""
    full = json.loads(run("--format", "json", QUIET).stdout)["reports"][0]
    out = run("--only-decisions", QUIET).stdout.splitlines()
    acted = [c for c in full["calls"] if c["pre"]["action"] != "allow" or c["saved"]]
    assert not acted and full["summary"]["calls"] == 13
    assert out[3] == "" and out[4] == "13 calls: 0 reminders, 0 denials, 0 stops; 0 calls the recording ran would have been saved"
    assert not any(line.split()[-1:] == ["arguments"] for line in out)
    assert out[-1] == "(listed: the 0 calls the guard would have acted on)"


def test_only_decisions_names_the_decisions_it_lists_at_no_call() -> None:
    """The guard acted on no call of this corpus session, only at its Stops: the table lists those
    six rows, and the note under it said it listed "the 0 calls" and nothing else."""
    path = str(REPO / "tests" / "corpus" / "claude" / "08e71d8b-0aea-497b-a055-c2b46fcdcdc4.jsonl")
    out = run("--only-decisions", path).stdout.splitlines()
    assert sum("Stop: stop TEXT 5" in line for line in out) == 6
    assert out[-1].endswith("; listed: the 0 calls the guard would have acted on and its 6 decisions at events of no call)")


def test_only_decisions_json_keeps_the_counts() -> None:
    full = json.loads(run("--format", "json", READ_LOOP).stdout)["reports"][0]
    short = json.loads(run("--format", "json", "--only-decisions", READ_LOOP).stdout)["reports"][0]
    assert short["summary"] == full["summary"] and short["decisions"] == full["decisions"]
    assert short["calls"] == [c for c in full["calls"] if c["index"] >= 3] and short["markers"] == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_only_decisions_beside_summary_is_refused(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--summary lists no call, so --only-decisions beside it would change nothing: one stderr
    line and exit 1, as for the other options that cannot go together, rather than ignored."""
    code = main(["replay", "--summary", "--only-decisions", "--format", fmt, READ_LOOP])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert err.startswith("loopguard-hook: --summary lists no call, so --only-decisions has nothing to leave out"), err


def test_arguments_follow_the_terminal_width() -> None:
    wide = run(READ_LOOP, env={"COLUMNS": "200"}).stdout.splitlines()
    narrow = run(READ_LOOP, env={"COLUMNS": "80"}).stdout.splitlines()
    args = '{"file_path":"/home/user/project/notes.txt"}'
    assert [line for line in wide if line.startswith("   5 ")] == [
        f"   5   +5.5s  main   Read  ran       deny REPEAT 5     -      {args}  [saved]"
    ]
    at = narrow.index("   5   +5.5s  main   Read  ran       deny REPEAT 5     -  [saved]")
    assert narrow[at + 1] == f"      {args}"  # on a line of its own, whole, rather than cut to 19 characters
    counts = next(i for i, line in enumerate(narrow) if line.startswith("10 calls: "))
    assert all(len(line) <= 80 for line in narrow[4:counts])  # the table; the header names a long path
    assert all(len(line) <= 80 for line in narrow[counts + 1 :])  # the tokens, wrapped
    assert narrow[-5:] == [
        "1 loop: 1.1k tokens; 550 of them after a call the recording ran and the guard",
        "    would have denied, or past its end of turn",
        "  loop 1: calls 1-10, 10 requests, 1.1k tokens; after a call the recording ran",
        "      and the guard would have denied, or past its end of turn: 5 requests, 550",
        "      tokens",
    ]


def test_long_arguments_are_cut_to_the_width() -> None:
    rows = [line for line in run(CODEX, env={"COLUMNS": "100"}).stdout.splitlines() if line.startswith("   1 ")]
    assert rows == ['   1  +0.0s  main   Bash  ran       -                 -      {"command":"cat notes.txt && echo ran …']
    assert len(rows[0]) == 100


def test_no_colour_off_a_terminal() -> None:
    assert ESC not in run(READ_LOOP).stdout and ESC not in run("--summary", READ_LOOP).stdout


def test_colour_when_asked() -> None:
    out = run("--color", READ_LOOP).stdout
    assert f"{ESC}31mdeny REPEAT 5{ESC}0m" in out and f"{ESC}32m[saved]{ESC}0m" in out
    assert f"{ESC}33mremind REPEAT 3{ESC}0m" in out and f"{ESC}1;31mstop END_TURN 8{ESC}0m" in out
    plain = run(READ_LOOP).stdout
    assert _strip(out) == plain  # colour changes no column
    assert ESC not in run("--color", "--format", "json", READ_LOOP).stdout


def _strip(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_colour_on_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_mod, "_is_terminal", lambda stream: True)
    assert ESC in run(READ_LOOP).stdout
    assert ESC in run("--summary", READ_LOOP).stdout
    assert ESC not in run(READ_LOOP, env={"NO_COLOR": "1"}).stdout
    assert ESC not in run("--no-color", READ_LOOP).stdout
    assert ESC in run("--color", READ_LOOP, env={"NO_COLOR": "1"}).stdout  # the flag wins


def test_no_progress_bar_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_mod, "PROGRESS_MIN_EVENTS", 1)
    assert run(READ_LOOP).stderr == ""


def test_progress_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_mod, "_is_terminal", lambda stream: stream is sys.stderr)
    monkeypatch.setattr(cli_mod, "PROGRESS_MIN_EVENTS", 1)
    result = run(READ_LOOP)
    # click draws the bar only where its file is a terminal; CliRunner's is not, so it names it once.
    assert result.stderr == "replaying hook events\n" and ESC not in result.stdout
    assert result.stdout == run(READ_LOOP).stdout


class _Bar:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs, self.pos, self.steps, self.closed = kwargs, 0, [], False

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True

    def update(self, n: int) -> None:
        self.pos += n
        self.steps.append(self.pos)


def test_progress_bar_follows_the_events(monkeypatch: pytest.MonkeyPatch) -> None:
    bars: list[_Bar] = []
    monkeypatch.setattr(cli_mod.click, "progressbar", lambda **kw: bars.append(_Bar(**kw)) or bars[-1])
    small = cli_mod._ReplayProgress()
    small(10, cli_mod.PROGRESS_MIN_EVENTS - 1)
    small.close()
    assert bars == []
    progress = cli_mod._ReplayProgress()
    for done in (500, 1000, 6000):
        progress(done, 6000)
    progress.close()
    assert bars[0].kwargs["length"] == 6000 and bars[0].steps == [500, 1000, 6000] and bars[0].closed


def test_a_progress_bar_on_the_terminal_the_reports_go_to_makes_way_for_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports are printed as each session is replayed: where they go to the terminal the bar is
    drawn on, the bar is taken off its line first and drawn anew under the report."""
    bars: list[_Bar] = []
    monkeypatch.setattr(cli_mod.click, "progressbar", lambda **kw: bars.append(_Bar(**kw)) or bars[-1])
    monkeypatch.setattr(cli_mod, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(cli_mod, "PROGRESS_MIN_EVENTS", 1)
    result = run("--no-color", READ_LOOP, CODEX)
    assert len(bars) == 2 and result.stderr == "\r\x1b[K\x1b[?25h" * 2, result.stderr
    assert bars[0].steps[-1] < bars[1].steps[-1] == bars[1].kwargs["length"] and not any(b.closed for b in bars)
    monkeypatch.setattr(cli_mod, "_is_terminal", lambda stream: False)
    assert result.stdout == run(READ_LOOP, CODEX).stdout


def test_replay_files_reports_progress_over_all_files() -> None:
    from loopguard_hook import replay
    from loopguard_hook.config import load as config

    seen: list[tuple[int, int]] = []
    reports = replay.replay_files([READ_LOOP, CODEX], config.resolve([]).config, progress=lambda d, t: seen.append((d, t)))
    total = sum(r.summary.events for r in reports)
    assert seen[-1] == (total, total) and all(t == total for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_the_scale_benchmark_builds_a_transcript_replay_reads(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import replay_scale
    finally:
        sys.path.remove(str(REPO / "bench"))
    path = tmp_path / "long.jsonl"
    replay_scale.build(120, path)
    lines = run("--summary", str(path)).stdout.splitlines()
    assert lines[3].split()[0] == "120"


# -- files that cannot be replayed ----------------------------------------------------------------

#: What Claude Code leaves beside some sessions in ~/.claude/projects/*/: a file of summary lines only.
SUMMARY_ONLY = '{"type":"summary","summary":"Fix the flaky test","leafUuid":"5f0c3a8e-0f8e-4b43-9a57-1f0c2a7d9e10"}\n'


def bad_files(tmp_path: Path) -> tuple[str, str]:
    summary, empty = tmp_path / "summary.jsonl", tmp_path / "empty.jsonl"
    summary.write_text(SUMMARY_ONLY)
    empty.write_text("")
    return str(summary), str(empty)


def test_a_folder_is_replayed_as_the_sessions_under_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`replay ~/.claude/projects/<dir>/` (what a user points it at first): the session files
    under the folder, each once, a Claude Code subagents folder read through its main transcript
    (before: "skipped …: Is a directory", exit 1). A folder with no session file is still named."""
    from loopguard_hook.entry import main

    sessions = REPO / "examples" / "sessions"
    assert main(["replay", "--summary", "--format", "json", str(sessions)]) == 0
    by_folder = json.loads(capsys.readouterr().out)
    files = sorted(str(p) for p in sessions.glob("*.jsonl"))
    assert main(["replay", "--summary", "--format", "json", *files]) == 0
    by_files = json.loads(capsys.readouterr().out)
    assert len(by_folder["reports"]) == len(by_files["reports"]) == len(files) > 1
    assert by_folder["reports"] == by_files["reports"]
    empty = tmp_path / "nothing"
    empty.mkdir()
    assert main(["replay", str(empty)]) == 1
    message = f"loopguard-hook: skipped {empty}: a folder with no session file (*.jsonl, *.jsonl.zstd) under it\n"
    assert capsys.readouterr().err == message
    subagents = tmp_path / "x" / "subagents"  # before: "no session file", though one is there
    subagents.mkdir(parents=True)
    shutil.copy(READ_LOOP, subagents / "agent-1.jsonl")
    assert main(["replay", str(tmp_path / "x")]) == 1
    assert "only subagent transcripts under it: name their main transcript" in capsys.readouterr().err
    # sweep reads FILES as replay does (before: "skipped …: Is a directory" for every folder)
    assert main(["sweep", "--format", "json", "--set", "deny_at=4,5", str(sessions)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert main(["sweep", "--format", "json", "--set", "deny_at=4,5", *files]) == 0
    assert rows == json.loads(capsys.readouterr().out)
    assert main(["sweep", "--set", "deny_at=4", str(empty)]) == 1
    assert capsys.readouterr().err == message


def test_a_session_id_with_a_nul_is_one_skipped_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A transcript whose `sessionId` holds a NUL names no subagents folder (before, `os.listdir`
    raised ValueError and the whole replay ended in an internal error, the good file unreported)."""
    from loopguard_hook.entry import main

    lines = [json.loads(line) for line in Path(READ_LOOP).read_text().splitlines() if line.strip()]
    for line in lines:
        if "sessionId" in line:
            line["sessionId"] = "x\u0000y"
    odd = tmp_path / "odd.jsonl"
    odd.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["replay", "--summary", "--format", "json", str(odd), READ_LOOP]) == 0
    out = capsys.readouterr()
    assert len(json.loads(out.out)["reports"]) >= 1 and "internal error" not in out.err, out.err


def test_a_file_of_file_history_snapshots_is_named_for_what_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Claude Code file of only `file-history-snapshot` records (a public project's copy of a
    session whose messages went elsewhere) is nothing to replay, said so (before: "not a Claude
    Code transcript, a Codex rollout, …", which reads as a format replay does not know)."""
    from loopguard_hook.entry import main

    snapshot = {"type": "file-history-snapshot", "messageId": "c83d0107", "isSnapshotUpdate": False,
                "snapshot": {"messageId": "c83d0107", "trackedFileBackups": {}, "timestamp": "2026-02-17T02:06:27.074Z"}}
    path = tmp_path / "snapshots.jsonl"
    path.write_text((json.dumps(snapshot) + "\n") * 3 + SUMMARY_ONLY)
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"loopguard-hook: skipped {path}: only Claude Code file-history snapshots (no messages, no tool calls), "
        "nothing to replay\n"
    )
    # a damaged file says so: lines it could not read may have held the messages
    path.write_text(path.read_text() + "not json\n{broken\n")
    assert main(["replay", str(path)]) == 1
    assert "(no messages, no tool calls; 2 unreadable lines), nothing to replay" in capsys.readouterr().err


def test_a_qwen_code_chat_log_is_skipped_as_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Qwen Code's chat log (0.24.4, as its e2e run wrote it) names its records as a Claude Code
    transcript does (`type`, `sessionId`); it was read as one, "0 calls", exit 0, for a session
    that had a reminder and a denial. Replay does not read such logs yet, and says so."""
    from loopguard_hook.entry import main

    common = {"sessionId": "aaa78dab-943b-4794-9b2d-8567e34485fd", "cwd": "/tmp/work", "version": "0.24.4"}
    records = [
        {"uuid": "a2e3761d", "parentUuid": None, "timestamp": "2026-12-06T04:52:24.738Z", "type": "user",
         "provenance": "real_user", "message": {"role": "user", "parts": [{"text": "Fix app.py."}]}, **common},
        {"uuid": "07e551ea", "parentUuid": "a2e3761d", "timestamp": "2026-12-06T04:52:24.743Z", "type": "system",
         "provenance": "system", "subtype": "attribution_snapshot", "systemPayload": {"snapshot": {}}, **common},
        {"uuid": "5b1c0e2f", "parentUuid": "07e551ea", "timestamp": "2026-12-06T04:52:25.100Z", "type": "assistant",
         "provenance": "model", "model": "mock", "message": {"role": "model", "parts": [{"functionCall": {
             "name": "read_file", "args": {"absolute_path": "/tmp/work/notes.txt"}}}]}, **common},
    ]
    path = tmp_path / "aaa78dab-943b-4794-9b2d-8567e34485fd.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"loopguard-hook: skipped {path}: a Qwen Code chat log, which replay does not read yet: "
        "replay its hook payloads instead\n"
    )


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_good_files_are_reported_and_bad_ones_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    from loopguard_hook.entry import main

    summary, empty = bad_files(tmp_path)
    code = main(["replay", "--summary", "--format", fmt, summary, READ_LOOP, empty, CODEX])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.err.splitlines() == [
        f"loopguard-hook: skipped {summary}: only a session summary (no messages, no tool calls), nothing to replay",
        f"loopguard-hook: skipped {empty}: empty, nothing to replay",
    ]
    if fmt == "json":
        data = json.loads(out.out)
        assert [r["sources"] for r in data["reports"]] == [[READ_LOOP], [CODEX]]
        assert data["unreadable"] == [line.removeprefix("loopguard-hook: skipped ") for line in out.err.splitlines()]
    else:
        assert "20 calls in 2 sessions" in out.out and summary not in out.out


def test_nothing_replayed_is_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from loopguard_hook.entry import main

    summary, empty = bad_files(tmp_path)
    assert main(["replay", summary, empty]) == 1
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.splitlines()) == 2 and "Traceback" not in out.err


def test_client_takes_every_host_for_a_payload_log_and_must_fit_a_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    """A payload log of any host can be read as that host's (`--client qwen-code`); a transcript
    named another host's is skipped with one line."""
    from loopguard_hook.entry import main

    qwen = REPO / "tests" / "e2e" / "qwen_code" / "payloads" / "all.jsonl"
    done = run("--client", "qwen-code", "--summary", str(qwen))
    assert "qwen-code" in done.output and "deny at 4" in done.output, done.output
    assert main(["replay", "--client", "gemini-cli", "--summary", READ_LOOP]) == 1
    assert "--client gemini-cli does not fit it" in capsys.readouterr().err


def test_a_directory_or_missing_file_among_good_ones_is_skipped_not_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shell glob over a Claude Code project folder names each session's folder beside its
    transcript; a dangling or looping link, a file gone since: each is one line, the rest replay."""
    from loopguard_hook.entry import main

    folder = tmp_path / "a-session"
    folder.mkdir()
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    missing = tmp_path / "gone.jsonl"
    bad = [str(folder), str(tmp_path / "loop1"), str(missing)]
    code = main(["replay", "--summary", READ_LOOP, *bad])
    out = capsys.readouterr()
    assert code == 0, out.err
    lines = out.err.splitlines()
    assert len(lines) == 3 and all(line.startswith(f"loopguard-hook: skipped {p}: ") for line, p in zip(lines, bad, strict=True))
    assert "10 calls in 1 session" in out.out
    assert main(["replay", *bad]) == 1
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.splitlines()) == 3 and "Traceback" not in out.err



def test_a_corrupt_zstd_log_is_not_called_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bytes that start like a zstd frame but decode to nothing are said to be that, not 'empty'."""
    from loopguard_hook.entry import main

    log = tmp_path / "session.jsonl.zstd"
    log.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 20)
    assert main(["replay", str(log)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "empty" not in err and "zstd" in err, err


def _interrupt_replays(argv: list[str], folder: Path, gaps: tuple[float | None, ...]) -> None:
    """Fill `folder` with 12 long sessions (copies of a 3.6 MB corpus transcript, each its own
    session id: copies of one session would be replayed as one), then for each gap run
    `loopguard-hook *argv folder`, send SIGINT well into the replay (and again `gap` s later),
    and assert exit 130 with the one line."""
    import os
    import signal
    import subprocess
    import time

    name = "4530697c-5596-4c05-851f-01d49eb6fd68"  # 3.6 MB, about a second to replay
    recording = (REPO / "tests" / "corpus" / "claude" / f"{name}.jsonl").read_bytes()
    folder.mkdir(exist_ok=True)
    for i in range(12):
        copy = f"{name[:-12]}{i:012}"
        (folder / f"{copy}.jsonl").write_bytes(recording.replace(name.encode(), copy.encode()))
    exe = Path(sys.executable).with_name("loopguard-hook")
    for gap in gaps:
        proc = subprocess.Popen([str(exe), *argv, str(folder)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
        time.sleep(1.5)  # well into the replay
        assert proc.poll() is None, "the replay ended before it was interrupted"
        proc.send_signal(signal.SIGINT)
        if gap is not None:
            time.sleep(gap)
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert (proc.returncode, err) == (130, b"loopguard-hook: interrupted\n"), (argv, gap, proc.returncode, err)


def test_ctrl_c_during_a_replay_exits_130_with_one_line(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT, once or twice 0-5 ms apart) while a folder of long sessions is replayed: exit
    130, as a shell reports an interrupted command, and one line on stderr. Before: exit 1 after a
    blank line and "aborted", and a second SIGINT gave a traceback (exit -2)."""
    _interrupt_replays(["replay"], tmp_path, (None, 0.0, 0.001, 0.005))


def _unprivileged() -> Any:
    """What lets a subprocess meet a folder's permissions: nothing for a user; for root (who reads
    a `chmod 000` folder), a `preexec_fn` that drops the capabilities that let it read any folder
    (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) from what the command it runs will have."""
    import ctypes
    import os
    import subprocess

    if os.geteuid() != 0:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        pytest.skip("root, and no libc to drop the capabilities with")

    def drop() -> None:
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl")

    try:
        subprocess.run(["true"], preexec_fn=drop, check=True)
    except (subprocess.SubprocessError, OSError):
        pytest.skip("root, and its capabilities cannot be dropped here")
    return drop


def test_a_folder_it_cannot_read_under_a_folder_given_is_named(tmp_path: Path) -> None:
    """`replay DIR` and `sweep DIR` walk DIR; a folder under it that cannot be listed (`chmod 000`)
    is named on stderr, one line, as a file it cannot read is, and the rest replay. Before, the
    walk passed over it without a word: its sessions were left out unseen."""
    import os
    import subprocess

    drop = _unprivileged()
    for folder, recording in (("top/readable", READ_LOOP), ("top/locked", CODEX), ("alone/locked", CODEX)):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copy(recording, tmp_path / folder)
    exe = Path(sys.executable).with_name("loopguard-hook")
    env = {**os.environ, "NO_COLOR": "1", "LOOPGUARD_STATE_DIR": str(tmp_path / "state")}
    for top in ("top", "alone"):
        (tmp_path / top / "locked").chmod(0)
    try:
        for command, top, code in (
            (["replay", "--summary"], "top", 0),
            (["sweep", "--set", "deny_at=4,5"], "top", 0),
            (["replay"], "alone", 1),  # nothing else under it: said once, not also "no session file"
        ):
            proc = subprocess.run([str(exe), *command, str(tmp_path / top)], preexec_fn=drop, capture_output=True,
                                  text=True, env=env, timeout=120)
            said = f"loopguard-hook: skipped {tmp_path / top / 'locked'}: Permission denied\n"
            assert (proc.returncode, proc.stderr) == (code, said), proc
            assert ("claude-read-loop.jsonl" in proc.stdout) == (command[0] == "replay" and code == 0), proc.stdout
            assert ("codex-repeat-commands.jsonl" not in proc.stdout), proc.stdout
    finally:
        for top in ("top", "alone"):
            (tmp_path / top / "locked").chmod(0o755)


def test_text_is_printed_a_session_at_a_time_as_replayed(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    """`replay FILES | head`: each session's report is written as soon as that session is
    replayed, not once all are (before, a large folder printed nothing until its last session was
    done), and the whole is what `render` gives, to the byte. `--summary` and JSON still wait."""
    from loopguard_hook import replay
    from loopguard_hook.config import load as config
    from loopguard_hook.entry import main
    from loopguard_hook.replay import run as run_mod

    files = [READ_LOOP, CODEX, QUIET]
    written: list[str] = []  # what was on stdout as each session's replay began
    real = run_mod.replay

    def replay_watched(recording: Any, *args: Any, **kwargs: Any) -> Any:
        written.append(capsys.readouterr().out)
        return real(recording, *args, **kwargs)

    monkeypatch.setattr(run_mod, "replay", replay_watched)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["replay", "--no-color", *files]) == 0
    written.append(capsys.readouterr().out)
    monkeypatch.undo()
    reports = replay.replay_files(files, config.resolve([]).config)
    texts = [replay.format_text(r, width=200) for r in reports]
    assert written == ["", texts[0] + "\n", "\n" + texts[1] + "\n", "\n" + texts[2] + "\n"]
    assert "".join(written) == replay.render(reports, "text", width=200) + "\n"


@pytest.mark.parametrize("before", [["--profile", "balanced"], ["--state-dir=STATE"], ["--dry-run", "--state-dir", "STATE"]])
def test_ctrl_c_during_a_replay_after_the_shared_options_exits_130_with_one_line(before: list[str], tmp_path: Path) -> None:
    """`loopguard-hook --state-dir D replay …` (the options the hook shares, given before the
    command, docs/commands/hook.md) is an operator command too: Ctrl-C, once or twice, exits 130
    with one line. Before: "aborted" and exit 1, and a second SIGINT a traceback (exit -2)."""
    options = [arg.replace("STATE", str(tmp_path / "state")) for arg in before]
    _interrupt_replays([*options, "replay"], tmp_path / "sessions", (None, 0.001))


@pytest.mark.parametrize(
    "args, named",
    [([], False), (["hook"], False), (["--client", "codex"], False), (["--state-dir", "status"], False),
     (["--dry-run", "--client=codex", "hook"], False), (["status"], True), (["--state-dir", "D", "status"], True),
     (["--profile=breaker", "replay", "x"], True), (["-h"], False),
     (["hook", "--client", "cursor", "--no-such-flag", "x"], False), (["--client", "cursor", "--no-such-flag", "x"], False)],
)
def test_the_command_after_the_shared_options_is_found(args: list[str], named: bool) -> None:
    """An operator command after the shared options is found, and only one of `cli`'s own: a bad
    hook line with a stray word keeps the hook's answer to SIGINT (exit 0 on Cursor)."""
    from loopguard_hook.entry import OPERATOR_COMMANDS, _names_a_command

    assert _names_a_command(args) is named
    assert OPERATOR_COMMANDS == set(cli_mod.cli.commands) - {"hook"}


@pytest.mark.parametrize("host", ["COPILOT_CLI", "CURSOR_VERSION", "GEMINI_SESSION_ID"])
def test_an_operator_command_after_the_shared_options_runs_under_a_hosts_variables(host: str, tmp_path: Path) -> None:
    """`loopguard-hook --state-dir D status` run by an agent (a host's variables in its
    environment, stdin not a terminal) is the operator command, not a bad hook line: before, it
    read stdin, logged 'bad command line' in D/errors.log and exited 0 with no output, as a hook
    line of a host that takes a failure as a denial."""
    import os
    import subprocess

    exe = Path(sys.executable).with_name("loopguard-hook")
    state = tmp_path / "state"
    env = {**os.environ, host: "1", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run([str(exe), "--state-dir", str(state), "status"], stdin=subprocess.DEVNULL, capture_output=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and f"state dir: {state}" in done.stdout.decode(), (done.returncode, done.stdout, done.stderr)
    assert not (state / "errors.log").exists()


def test_replay_says_where_its_settings_came_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Replay reads the config of the folder it runs in and the user's, not the recording's: a
    settings file in effect is named once on stderr, and the report shows its thresholds. With
    only the profile's defaults (or a --profile given), nothing is said."""
    project = tmp_path / "project"
    project.mkdir()
    (project / ".loopguard.toml").write_text("deny_at = 7\n")
    monkeypatch.chdir(project)
    env = {"XDG_CONFIG_HOME": str(tmp_path / "none"), "HOME": str(tmp_path), "CLAUDE_PROJECT_DIR": ""}
    result = run("--summary", READ_LOOP, env=env)
    assert result.stderr == f"replay: settings from project file {project / '.loopguard.toml'} (`config show` lists them)\n"
    assert result.stdout.startswith("profile balanced (enforce, no_progress): remind at 3, 4, deny at 7, stop at 8\n")
    monkeypatch.chdir(tmp_path)
    result = run("--summary", "--profile", "breaker", READ_LOOP, env=env)
    assert result.stderr == "" and result.stdout.startswith("profile breaker ")
