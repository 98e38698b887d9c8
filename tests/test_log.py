"""`loopguard-hook log`: every intervention of live and ended sessions, the text the model was
given (or, for records older than the texts, its template), filters, JSON, and each loop's cost
from the session's recording."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loopguard_hook.entry import main

#: What the summaries say the saved tokens come after (`replay.cost.AFTER_SAVED`).
AFTER = "after a call the recording ran and the guard would have denied, or past its end of turn"
REPO = Path(__file__).parent.parent
SESSION = REPO / "examples/sessions/claude-code-read-loop.jsonl"
#: The Claude Code transcript the README's read loop was captured from (same session id).
TRANSCRIPT = REPO / "tests/data/transcripts/claude-guard-read-loop.jsonl"
SESSION_ID = "a2ca33ab-c6cd-4fd4-80f7-506cad2a95fc"
EXE = Path(sys.executable).with_name("loopguard-hook")


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def feed(state: Path, *options: str) -> None:
    """The README's read loop through the installed hook, SessionEnd included."""
    for line in SESSION.read_bytes().splitlines():
        done = subprocess.run([str(EXE), "--state-dir", str(state), *options], input=line, capture_output=True,
                              env=dict(os.environ), timeout=60)
        assert done.returncode == 0, done.stderr


def record(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "time": 1796021300.0, "agent": "main", "event": "PreToolUse", "tool": "Read", "rule": "LOOP_GUARD_REPEAT",
        "action": "deny", "intended": "deny", "count": 5, "arguments": '{"file_path":"/p/notes.txt"}',
        "variant": "repeat_denial", "session": "s1", "client": "claude-code", "profile": "balanced", "mode": "enforce",
    }
    return {**base, **fields}


def write_log(state: Path, records: list[dict[str, object]]) -> None:
    state.mkdir(mode=0o700, parents=True, exist_ok=True)
    (state / "decisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_log_after_session_end_shows_what_the_read_loop_was_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed(tmp_path)
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert "no sessions" in out  # SessionEnd deleted the ledger
    code, out, err = cli(["log", "--state-dir", str(tmp_path), "--json", "--no-cost"], capsys)
    assert code == 0 and err == ""
    found = json.loads(out)["interventions"]
    assert [(r["action"], r["count"]) for r in found] == [
        ("remind", 3), ("remind", 4), ("deny", 5), ("deny", 6), ("deny", 7), ("stop", 8),
    ]
    assert {r["session"] for r in found} == {SESSION_ID} and {r["client"] for r in found} == {"claude-code"}
    # The hook keeps the exact text it sent: the reminders' and denials' words, the stop's.
    assert [r["text"][:26] for r in found] == ["[loopguard] You are repeat", "[loopguard] Read has now b"] + [
        "REPEAT_TOOL_BLOCKED: this "
    ] * 4
    code, text, _ = cli(["log", "--state-dir", str(tmp_path), "--no-cost"], capsys)
    blocks = text.split("\n\n")
    assert len(blocks) == 7 and blocks[-1].startswith("6 interventions from ")
    for r, block in zip(found, blocks, strict=False):
        assert f"session {SESSION_ID} [claude-code]" in block and "Read" in block
        assert '{"file_path":"/home/user/project/notes.txt"}' in block
        if "text" in r:  # the records keep the exact text
            assert "the model was told:\n    " + r["text"].replace("\n", "\n    ") in block
        else:
            assert f"the model was given a {r['variant']} text" in block
    assert "`loopguard-hook pause` turns the guard off" in blocks[-1]


def test_log_shows_the_message_the_user_saw_when_the_turn_ended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An end of turn's answer carries a message to the user (Claude Code's `stopReason`): the
    record keeps it as the host was sent it, and `log` shows it after what the model was told.
    The reminders and denials before it carry none."""
    answers = []
    for line in SESSION.read_bytes().splitlines():
        done = subprocess.run([str(EXE), "--state-dir", str(tmp_path)], input=line, capture_output=True,
                              env=dict(os.environ), timeout=60)
        assert done.returncode == 0, done.stderr
        answers += [json.loads(done.stdout)] if done.stdout.strip() else []
    sent = [a["stopReason"] for a in answers if "stopReason" in a]
    assert len(sent) == 1 and sent[0].startswith("loopguard ended the turn: Read was called 8 times")
    records = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert [r.get("stop_reason") for r in records] == [None] * 5 + sent
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--no-cost"], capsys)
    assert code == 0
    blocks = out.split("\n\n")
    assert blocks[5].endswith("the user was shown:\n    " + sent[0])
    assert not any("the user was shown" in block for block in blocks[:5])


def test_a_codex_end_of_turn_at_pretooluse_shows_the_user_nothing_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex takes no end of turn at PreToolUse: the guard's stop goes as a denial with a final
    text, no `stopReason` reaches the host, and the record claims none."""
    for line in (REPO / "examples/sessions/codex-cat-loop.jsonl").read_bytes().splitlines():
        done = subprocess.run([str(EXE), "--state-dir", str(tmp_path)], input=line, capture_output=True,
                              env=dict(os.environ), timeout=60)
        assert done.returncode == 0, done.stderr
        assert b"stopReason" not in done.stdout
    records = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert any(r["action"] == "stop" for r in records)
    assert not any("stop_reason" in r for r in records)
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--no-cost"], capsys)
    assert code == 0 and "the user was shown" not in out


def test_a_droid_end_of_turn_is_silent_so_the_log_claims_nothing_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Droid ends a turn on `continue: false` silently (hosts/droid.py): the answer carries a
    `stopReason`, but no user reads it, so the record keeps none and `log` does not say the
    user was shown one (`Capabilities.shows_stop_reason`)."""
    payloads = REPO / "tests/e2e/droid/payloads"
    pre, post = (payloads / "PreToolUse.Execute.json").read_bytes(), (payloads / "PostToolUse.Execute.json").read_bytes()
    sent = []
    for _ in range(9):
        for payload in (pre, post):
            done = subprocess.run([str(EXE), "--state-dir", str(tmp_path), "--client", "droid"], input=payload,
                                  capture_output=True, env=dict(os.environ), timeout=60)
            assert done.returncode == 0, done.stderr
            sent += [json.loads(done.stdout)] if done.stdout.strip() else []
    assert any("stopReason" in answer for answer in sent)  # on the wire, for a host that shows it
    records = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert any(r["action"] == "stop" for r in records) and not any("stop_reason" in r for r in records)
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--no-cost"], capsys)
    assert code == 0 and "LOOP_GUARD_END_TURN" in out and "the user was shown" not in out


def test_a_text_reminder_held_at_stop_is_logged_as_held_with_the_users_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Stop passes the model no text: the text loop's reminder is held for the next prompt
    (one record, `held`), the user reads a notice (`systemMessage`), and the prompt that carries
    the reminder logs it as sent, with no count of its own."""
    line = "I will now run the tests again to verify the fix works."
    base = {"session_id": "s-held", "transcript_path": str(tmp_path / "none.jsonl"), "cwd": str(tmp_path)}
    events = [
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "fix the tests"},
        {**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "\n".join([line] * 10)},
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "continue"},
    ]
    answers = []
    for payload in events:
        done = subprocess.run([str(EXE), "--state-dir", str(tmp_path / "state")], input=json.dumps(payload).encode(),
                              capture_output=True, env=dict(os.environ), timeout=60)
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(done.stdout) if done.stdout.strip() else {})
    notice = answers[1]["systemMessage"]
    assert notice.startswith("loopguard: the agent is repeating lines of text")
    records = [json.loads(x) for x in (tmp_path / "state/decisions.jsonl").read_text().splitlines()]
    assert [(r["event"], r["action"], r["intended"]) for r in records] == [
        ("Stop", "allow", "remind"), ("UserPromptSubmit", "remind", "remind"),
    ]
    assert records[0]["system_message"] == notice and "system_message" not in records[1]
    code, out, _ = cli(["log", "--state-dir", str(tmp_path / "state"), "--no-cost"], capsys)
    held, sent = out.split("\n\n")[:2]
    assert "held (remind)  LOOP_GUARD_TEXT x10" in held and "nothing shown" not in held  # the run's length
    assert "held for the model's next prompt or call" in held and f"the user was shown:\n    {notice}" in held
    assert "remind  LOOP_GUARD_TEXT  session s-held" in sent and " x0" not in sent
    assert "the model was told (a reminder held at a Stop, sent now):" in sent
    code, out, _ = cli(["stats", "--state-dir", str(tmp_path / "state")], capsys)
    assert code == 0 and "1 intervention" in out and "logged only" not in out, out


def test_the_call_line_of_a_record_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Stop's excerpt of the agent's text may hold line breaks: the block's second line stays
    one line, its breaks written `\\n`, so the indentation of the block holds."""
    write_log(tmp_path, [record(event="Stop", tool=None, rule="LOOP_GUARD_TEXT", action="remind", intended="remind",
                                arguments="Running the tests.\nRunning the tests.", text="[loopguard] text")])
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--no-cost"], capsys)
    assert code == 0 and out.splitlines()[1] == "  Stop [main]: Running the tests.\\nRunning the tests.", out


def _events(client: str, state: Path, events: list[dict[str, object]], *options: str) -> None:
    for payload in events:
        done = subprocess.run([str(EXE), "--state-dir", str(state), "--client", client, *options],
                              input=json.dumps(payload).encode(), capture_output=True, env=dict(os.environ), timeout=60)
        assert done.returncode == 0, done.stderr


def test_an_answer_the_host_takes_nowhere_is_logged_as_not_sent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Qwen Code takes no end of turn at a Stop: the guard's stop there sends nothing, so the
    record says so (`sent: false`), `log` says nothing was sent, and `stats` shows it to no one."""
    base = {"session_id": "s-qwen", "transcript_path": str(tmp_path / "none.jsonl"), "cwd": str(tmp_path)}
    same = {**base, "hook_event_name": "Stop", "stop_hook_active": True, "last_assistant_message": "All done here."}
    _events("qwen-code", tmp_path / "state", [{**base, "hook_event_name": "UserPromptSubmit", "prompt": "go"}, *[same] * 4])
    records = [json.loads(x) for x in (tmp_path / "state/decisions.jsonl").read_text().splitlines()]
    stops = [r for r in records if r["action"] == "stop"]
    assert stops and all(r["sent"] is False and r["text"] == "" and r["would_text"] for r in stops)
    code, out, _ = cli(["log", "--state-dir", str(tmp_path / "state"), "--no-cost"], capsys)
    assert code == 0 and "stop (nothing sent)" in out
    assert "nothing was sent: qwen-code takes no such answer at Stop; the guard would have said:" in out
    assert "the turn ended" not in out
    code, out, _ = cli(["stats", "--state-dir", str(tmp_path / "state"), "--json"], capsys)
    rows = json.loads(out)["rows"]
    assert sum(r["shown"] for r in rows) == 0 and sum(r["logged"] for r in rows) == len(records), rows


def test_a_gemini_event_is_logged_under_gemini_clis_own_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Gemini CLI names its events BeforeTool, AfterTool…: `log` says which one the guard answered
    as its user knows it, not as Claude Code names it."""
    payloads = Path(__file__).parent.parent / "examples" / "payloads" / "gemini-cli-0.61.0"
    before, after = (json.loads((payloads / f"{e}.read_file.json").read_text()) for e in ("BeforeTool", "AfterTool"))
    where = {"transcript_path": str(tmp_path / "none.jsonl"), "cwd": str(tmp_path)}
    _events("gemini-cli", tmp_path / "state", [{**p, **where} for _ in range(4) for p in (before, after)])
    code, out, _ = cli(["log", "--state-dir", str(tmp_path / "state"), "--no-cost"], capsys)
    assert code == 0 and "  BeforeTool [main]: " in out and "PreToolUse" not in out, out


def test_a_held_reminder_counts_once_in_every_mode_and_stays_counted_if_never_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Stop's record of a held text reminder is the intervention; its delivery at the next
    prompt marks it shown (enforce) or not (observe: nothing goes out); a session that ends
    before any prompt keeps it, logged and not shown."""
    line = "I will now run the tests again to verify the fix works."
    for mode, then, shown in (("enforce", "prompt", 1), ("observe", "prompt", 0), ("enforce", "end", 0)):
        state = tmp_path / f"{mode}-{then}"
        base = {"session_id": f"s-{mode}-{then}", "transcript_path": str(tmp_path / "none.jsonl"), "cwd": str(tmp_path)}
        after = ({**base, "hook_event_name": "UserPromptSubmit", "prompt": "continue"} if then == "prompt"
                 else {**base, "hook_event_name": "SessionEnd", "reason": "exit"})
        _events("claude-code", state, [
            {**base, "hook_event_name": "UserPromptSubmit", "prompt": "fix the tests"},
            {**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "\n".join([line] * 10)},
            after,
        ], "--mode", mode)
        code, out, _ = cli(["stats", "--state-dir", str(state), "--json"], capsys)
        rows = json.loads(out)["rows"]
        assert (sum(r["logged"] for r in rows), sum(r["shown"] for r in rows)) == (1, shown), (mode, then, rows)


def test_a_text_loop_found_at_a_prompt_is_an_intervention_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user interrupts a turn whose text loops (Claude Code sends no Stop then); the next
    prompt finds the loop in the transcript and reminds: a new intervention, with its count and
    excerpt, not the delivery of one held at a Stop (stats: logged 1, shown 1; under observe,
    logged 1, shown 0)."""
    line = "I will now run the tests again to verify the fix works."
    for mode, shown in (("enforce", 1), ("observe", 0)):
        transcript = tmp_path / f"{mode}.jsonl"
        transcript.write_text("")
        base = {"session_id": f"s-{mode}", "transcript_path": str(transcript), "cwd": str(tmp_path)}
        state = tmp_path / f"state-{mode}"
        _events("claude-code", state, [{**base, "hook_event_name": "UserPromptSubmit", "prompt": "fix the tests"}],
                "--mode", mode)
        message = {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "\n".join([line] * 10)}]}
        transcript.write_text(json.dumps({"type": "assistant", "uuid": "u1", "message": message}) + "\n")
        _events("claude-code", state, [{**base, "hook_event_name": "UserPromptSubmit", "prompt": "what now?"}],
                "--mode", mode)
        (found,) = [json.loads(x) for x in (state / "decisions.jsonl").read_text().splitlines()]
        assert found["rule"] == "LOOP_GUARD_TEXT" and found["count"] >= 3 and found["arguments"] != "assistant text", found
        code, out, _ = cli(["stats", "--state-dir", str(state), "--json"], capsys)
        rows = json.loads(out)["rows"]
        assert (sum(r["logged"] for r in rows), sum(r["shown"] for r in rows)) == (1, shown), (mode, rows)
        code, out, _ = cli(["log", "--state-dir", str(state), "--no-cost"], capsys)
        assert "held at a Stop" not in out


def test_an_end_of_turn_at_stop_told_the_model_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At a Stop the end of turn is `continue: false` alone: the model reads nothing, the user the
    stopReason."""
    reason = "loopguard ended the turn: the same final message was produced 3 times in a row."
    write_log(tmp_path, [record(event="Stop", tool=None, rule="LOOP_GUARD_TEXT", action="stop", intended="stop",
                                text="[loopguard] the same reply again", stop_reason=reason)])
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--no-cost"], capsys)
    assert code == 0 and "the model was told nothing (the turn ended at Stop)" in out
    assert "the model was told:" not in out and f"the user was shown:\n    {reason}" in out


def test_log_shows_the_kept_text_and_falls_back_for_older_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = 'REPEAT_TOOL_BLOCKED: this Read call is identical\nto the previous ones and was not run'
    write_log(tmp_path, [
        record(time=1796021300.0),
        record(time=1796021301.0, text=text),
        record(time=1796021302.0, action="allow", intended="stop", mode="observe", text="the end"),
        record(time=1796021303.0, action="allow", intended="deny", mode="observe", variant="repeat_denial"),
    ])
    code, out, _ = cli(["log", "--state-dir", str(tmp_path)], capsys)
    assert code == 0
    blocks = out.split("\n\n")
    assert "the model was given a repeat_denial text (this record is older than the texts the log keeps)" in blocks[0]
    assert "the model was told:\n    REPEAT_TOOL_BLOCKED: this Read call is identical\n    to the previous ones" in blocks[1]
    assert "nothing shown (observe; would stop)" in blocks[2]
    assert "the model was told nothing (mode observe); the guard would have said:\n    the end" in blocks[2]
    assert "the model was told nothing (mode observe); the text would have been a repeat_denial" in blocks[3]


def test_log_under_observe_shows_what_the_guard_would_have_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under observe the model is told nothing, and the record keeps the rules' text apart
    (`would_text`): `log` shows it, labelled as what the guard would have said."""
    feed(tmp_path, "--mode", "observe")
    lines = (tmp_path / "decisions.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert records and all(r["mode"] == "observe" and r["action"] == "allow" and r["text"] == "" for r in records)
    assert all(r["would_text"] for r in records)
    code, out, _ = cli(["log", "--state-dir", str(tmp_path)], capsys)
    assert code == 0
    block = out.split("\n\n")[0]
    assert "the model was told nothing (mode observe); the guard would have said:\n    " in block
    assert records[0]["would_text"].splitlines()[0] in block


def test_an_unknown_rule_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_log(tmp_path, [record()])
    code, out, err = cli(["log", "--state-dir", str(tmp_path), "--rule", "NOPE"], capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "'NOPE'" in err and "same-error" in err and "repeat" in err


def test_log_filters_by_session_rule_and_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    now = time.time()
    write_log(tmp_path, [
        record(time=now - 3 * 86400, session="old"),
        record(time=now - 3600, session="s1", rule="LOOP_GUARD_SAME_ERROR"),
        record(time=now - 60, session="s2"),
    ])

    def sessions(*args: str) -> list[str]:
        code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--json", *args], capsys)
        assert code == 0
        return [r["session"] for r in json.loads(out)["interventions"]]

    assert sessions() == ["old", "s1", "s2"]
    assert sessions("--session", "s2") == ["s2"]
    assert sessions("--rule", "same-error") == ["s1"]
    assert sessions("--rule", "LOOP_GUARD_REPEAT") == ["old", "s2"]
    assert sessions("--since", "2h") == ["s1", "s2"]
    assert sessions("--until", "30m") == ["old", "s1"]
    day = time.strftime("%Y-%m-%d", time.localtime(now - 3 * 86400))
    assert sessions("--since", day, "--until", "2d") == ["old"]
    code, _, err = cli(["log", "--state-dir", str(tmp_path), "--since", "last week"], capsys)
    assert code == 1 and "--since" in err and "2026-12-01" in err


def test_log_and_stats_name_a_session_by_the_start_of_its_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`status --session` took the start of an id; `log` and `stats` said "no logged intervention
    matches" to the same start (a new user's copy of the first characters). A start one session
    has is that session; one several share is refused (exit 1, one line naming them); a whole id
    that is also the start of another is that id."""
    write_log(tmp_path, [
        record(session="5adc0f1e-aaaa"), record(session="5adc77b2-bbbb"), record(session="9e01c3d4-cccc"),
        record(session="9e01c3d4-cccc-2"),
    ])
    for command in (["log", "--json"], ["stats", "--json"]):
        code, out, err = cli([*command, "--state-dir", str(tmp_path), "--session", "5adc7"], capsys)
        assert code == 0, err
        if command[0] == "log":
            assert [r["session"] for r in json.loads(out)["interventions"]] == ["5adc77b2-bbbb"]
        else:
            assert sum(row["logged"] for row in json.loads(out)["rows"]) == 1, out
        code, out, err = cli([*command, "--state-dir", str(tmp_path), "--session", "5adc"], capsys)
        assert code == 1 and out == "" and err.count("\n") == 1, (out, err)
        assert "2 sessions start with 5adc: 5adc0f1e-aaaa, 5adc77b2-bbbb; give more of the id" in err, err
    code, out, _ = cli(["log", "--json", "--state-dir", str(tmp_path), "--session", "9e01c3d4-cccc"], capsys)
    assert code == 0 and [r["session"] for r in json.loads(out)["interventions"]] == ["9e01c3d4-cccc"]
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--session", "zz"], capsys)
    assert code == 0 and "no logged intervention matches --session in" in out


def test_a_damaged_line_is_named_and_the_rest_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_log(tmp_path, [record()])
    with open(tmp_path / "decisions.jsonl", "a") as fh:
        fh.write("{torn\n")
    code, out, err = cli(["log", "--state-dir", str(tmp_path)], capsys)
    assert code == 1 and "1 intervention from" in out and "skipped 1 line(s)" in err


def test_an_empty_log_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["log", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and out.startswith("no interventions logged in ")


def test_log_shows_the_tokens_of_each_loop_from_the_sessions_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed(tmp_path / "state")
    # Where Claude Code keeps the session's transcript (HOME is the test's own).
    projects = Path(os.environ["HOME"]) / ".claude/projects/-home-user-project"
    projects.mkdir(parents=True)
    shutil.copy(TRANSCRIPT, projects / f"{SESSION_ID}.jsonl")
    (tmp_path / "prices.toml").write_text("price_input_per_mtok = 3\nprice_output_per_mtok = 15\n")
    code, out, _ = cli(["log", "--state-dir", str(tmp_path / "state"), "--json", "--config", str(tmp_path / "prices.toml")],
                       capsys)
    assert code == 0
    data = json.loads(out)
    assert data["sessions"][SESSION_ID]["recording"] == str(projects / f"{SESSION_ID}.jsonl")
    costs = [r.get("cost") for r in data["interventions"]]
    assert all(c is not None for c in costs) and len({json.dumps(c) for c in costs}) == 1  # one loop
    loop = costs[0]
    assert (loop["first_call"], loop["last_call"], loop["interventions"]) == (1, 8, 6)
    assert loop["requests"] == 8 and loop["tokens"]["total"] > 0 and loop["money"] > 0
    # The transcript was recorded with the guard on: its denied calls never ran, so the replay
    # finds nothing more the guard would have saved.
    assert data["cost"]["loops"] == 1 and data["cost"]["saved_tokens"] == loop["saved_tokens"]["total"] == 0
    code, text, _ = cli(["log", "--state-dir", str(tmp_path / "state")], capsys)
    assert text.count("  loop: calls 1-8, 8 requests, ") == 6
    # Its denied calls never ran: 0, worded so that it does not read as "nothing spent after the stop".
    assert f"1 loop found in their recordings: 880 tokens, 0 of them {AFTER}\n" in text
    code, out, _ = cli(["stats", "--state-dir", str(tmp_path / "state"), "--json"], capsys)
    assert code == 0 and json.loads(out)["cost"] == {**data["cost"], "money": None, "saved_money": None}
    code, out, _ = cli(["stats", "--state-dir", str(tmp_path / "state"), "--no-cost", "--json"], capsys)
    assert json.loads(out)["cost"]["loops"] == 0


def test_a_filter_that_matches_nothing_says_so_and_a_reversed_window_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_log(tmp_path, [record(time=time.time() - 60)])
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--rule", "same-path"], capsys)
    assert code == 0 and out.startswith("no logged intervention matches --rule in "), out
    code, out, _ = cli(["log", "--state-dir", str(tmp_path), "--rule", "same-path", "--since", "2h"], capsys)
    assert code == 0 and out.startswith("no logged intervention matches --rule, --since in "), out
    code, out, err = cli(["log", "--state-dir", str(tmp_path), "--since", "1m", "--until", "2h"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "--since is later than --until" in err


def test_a_time_out_of_the_clocks_range_is_shown_as_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record whose time no clock can show (a damaged or hand-edited log) is '?', not an
    internal error that hides every other record."""
    write_log(tmp_path, [record(time=1e308), record(time=-1e300, session="s2"), record(session="s3")])
    code, out, err = cli(["log", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and err == "", err
    assert out.count("?  deny") == 2 and "session s3" in out, out


def test_a_state_dir_that_is_a_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """LOOPGUARD_STATE_DIR naming a file (click checks --state-dir, not the variable): one line
    that says so, not one per log file under it."""
    state = tmp_path / "state"
    state.write_text("not a folder")
    monkeypatch.setenv("LOOPGUARD_STATE_DIR", str(state))
    code, _, err = cli(["log"], capsys)
    assert code == 1 and err == f"loopguard-hook: log: cannot read state directory {state}: Not a directory\n", err


def test_a_reminder_on_a_result_names_the_call_it_was_given_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same-answer reminder comes with a call's result (PostToolUse): its record names that
    call, as a denial's names the call denied (a new user's run found it logged with no
    arguments, so `log` showed a reminder about nothing in particular)."""
    import scenario

    data = scenario.load(REPO / "tests/scenarios/same_answer_empty_file_read_many_ways.json")
    assert scenario.Runner(data, "balanced", "claude-code", str(tmp_path)).play() == []
    logged = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    reminder = next(r for r in logged if r["event"] == "PostToolUse")
    assert reminder["rule"] == "LOOP_GUARD_SAME_ANSWER" and reminder["action"] == "remind"
    assert reminder["arguments"] == 'Bash {"command":"head -20 docs/prd-audit.json"}'
    code, out, _ = cli(["log", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "head -20 docs/prd-audit.json" in out


def test_a_logged_call_is_shown_with_its_controls_escaped_as_everywhere_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`log` escaped with its own copy of the escaping, which wrote a bidi control U+202E as
    `\\x202e` (as if `\\x20` then `2e`): the one escaping of `process` writes it `\\u202e`, an
    escape sequence `\\x1b`, and keeps a line break between lines."""
    write_log(tmp_path, [record(arguments='{"command":"echo \x1b[2J\u202eevil"}')])
    code, out, _ = cli(["log", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "echo \\x1b[2J\\u202eevil" in out and "\x1b" not in out and "\u202e" not in out, out


def test_a_rule_is_named_as_the_readme_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--rule polling` (the README's name for LOOP_GUARD_POLL), `--rule budgets` (both its
    codes), `--rule "every call"`: a new user tried the README's names and was refused."""
    write_log(tmp_path, [record(rule=f"LOOP_GUARD_{code}") for code in ("POLL", "PROGRESS_LIMIT", "WALL")])
    for name, rules in (("polling", ["LOOP_GUARD_POLL"]), ("budgets", ["LOOP_GUARD_PROGRESS_LIMIT"]),
                        ("every call", ["LOOP_GUARD_WALL"]), ("every-call", ["LOOP_GUARD_WALL"])):
        code, out, err = cli(["log", "--json", "--state-dir", str(tmp_path), "--rule", name], capsys)
        assert code == 0 and [r["rule"] for r in json.loads(out)["interventions"]] == rules, (name, out, err)
    code, out, err = cli(["log", "--state-dir", str(tmp_path), "--rule", "pollng"], capsys)
    assert code == 1 and "no rule 'pollng'; the rules are: " in err



@pytest.mark.parametrize("where", ["user", "project"])
def test_log_and_stats_read_the_state_dir_under_a_bad_config_and_say_it_in_one_line(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stop text says "`loopguard-hook log` shows why": a user whose config has a typo still
    gets the log and the stats (the state dir is no config key), with the config's problem on
    stderr in one line, as `status` says it; only the loops' tokens, replayed with the config,
    are left out. `replay` and `config show` need the config and still refuse."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    if where == "user":
        user = Path(os.environ["XDG_CONFIG_HOME"]) / "loopguard-hook"
        user.mkdir(parents=True)
        (user / "config.toml").write_text("deny_att = 4\n")
    else:
        (project / ".loopguard.toml").write_text("stop_att = 9\n")
    state = tmp_path / "state"
    write_log(state, [record(), record(count=6, time=1796021310.0)])
    for command in ("log", "stats"):
        code, out, err = cli([command, "--state-dir", str(state)], capsys)
        assert code == 0, err
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("loopguard-hook: bad config: "), err
        assert ("deny_att" if where == "user" else "stop_att") in lines[0] and "tokens left out" in lines[0]
        assert ("2 interventions from " if command == "log" else "LOOP_GUARD_REPEAT") in out
    code, out, err = cli(["log", "--state-dir", str(state), "--no-cost", "--json"], capsys)
    assert code == 0 and len(json.loads(out)["interventions"]) == 2
    assert err.startswith("loopguard-hook: bad config: ") and "tokens" not in err
    code, _, err = cli(["config", "show"], capsys)
    assert code == 1 and err.startswith("loopguard-hook: bad config: ")
