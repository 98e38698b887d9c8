"""The DSH session-log reader of the replay package, on the real logs of tests/data/dsh/.

The reader rebuilds the payloads DSH's bridges send from the log's records and gives the same
verdict the live hook gave during the recorded run (the Stop found the repeated line, 8 in a
row, on both bridges; tests/data/dsh/README.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from loopguard_hook.config.settings import Config
from loopguard_hook.replay import dsh
from loopguard_hook.replay.driver import decide
from loopguard_hook.replay.jsonl import Line, read_lines
from loopguard_hook.replay.model import Recording

DATA = Path(__file__).parent / "data" / "dsh"
LOGS = {p.name.split("-repeat")[0]: p for p in sorted(DATA.glob("*.session.jsonl.zstd"))}


def recording(path: Path) -> Recording:
    lines, skipped = read_lines(str(path))
    assert lines and all(dsh.recognises(line.data) for line in lines)
    [rec] = dsh.read(str(path), lines, skipped)
    return rec


@pytest.mark.parametrize("bridge", sorted(LOGS))
def test_the_payloads_of_a_real_log(bridge: str) -> None:
    rec = recording(LOGS[bridge])
    names = [e.payload["hook_event_name"] for e in rec.events]
    assert names == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]
    pre, post, stop = rec.events[2].payload, rec.events[3].payload, rec.events[4].payload
    assert pre["tool_name"] == "read" and pre["tool_use_id"] == "call_main_0_0"
    assert pre["tool_input"] == ({"command": ""} if bridge == "codex" else {"file_path": "notes.txt"})
    assert ("turn_id" in pre) == (bridge == "codex")
    assert isinstance(post["tool_response"], str) and "1: alpha" in post["tool_response"]
    assert stop["last_assistant_message"].startswith("FINAL: the notes say alpha.")
    assert len(rec.events[4].texts) == 1
    assert rec.events[1].payload["prompt"] == "What do the notes say? Answer in one line."
    assert all(e.payload["transcript_path"].endswith("session.jsonl.zstd") for e in rec.events)
    assert rec.session_id.startswith("session-") and rec.format == "dsh-session-log"


@pytest.mark.parametrize("bridge", sorted(LOGS))
def test_replay_gives_the_live_verdict(bridge: str) -> None:
    steps = list(decide(recording(LOGS[bridge]), Config()))
    text = [s.decision for s in steps if s.decision is not None and s.decision.rule == "LOOP_GUARD_TEXT"]
    assert len(text) == 1 and text[0].times == 10 and text[0].intended.name == "REMIND"
    assert steps[-1].event is not None and steps[-1].event.event == "Stop"


def test_a_torn_log_replays_its_whole_frames(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl.zstd"
    data = LOGS["claude-code"].read_bytes()
    path.write_bytes(data[:-5])
    rec = recording(path)
    assert [e.payload["hook_event_name"] for e in rec.events][:4] == ["SessionStart", "UserPromptSubmit", "PreToolUse",
                                                                     "PostToolUse"]


def test_a_log_past_the_read_cap_replays_its_first_frames_and_counts_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most `MAX_ZSTD_BYTES` of a zstd log are read (a 1 GB file was read whole, twice): the
    whole frames in them are replayed, and what lies past the cap is one unreadable line."""
    from loopguard_hook.replay import jsonl

    data = LOGS["claude-code"].read_bytes()
    whole, skipped = read_lines(str(LOGS["claude-code"]))
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(data + data)  # two logs' frames, one after the other
    monkeypatch.setattr(jsonl, "MAX_ZSTD_BYTES", len(data) + 3)
    lines, unread = read_lines(str(path))
    assert skipped == 0 and [line.data for line in lines] == [line.data for line in whole]
    assert unread == 1


def test_other_formats_are_not_taken_for_a_dsh_log() -> None:
    assert not dsh.recognises({"type": "assistant", "message": {}})
    assert not dsh.recognises({"type": "response_item", "payload": {}})
    assert not dsh.recognises({"hook_event_name": "Stop", "session_id": "s"})
    assert not dsh.recognises({"type": "session", "id": "x"})
    assert dsh.recognises({"type": "session", "id": "x", "delegationDepth": 0})


def test_a_log_without_a_session_record_is_refused(tmp_path: Path) -> None:
    from loopguard_hook.replay.model import ReplayError

    with pytest.raises(ReplayError, match="no session record"):
        dsh.read("x", [Line(1, {"type": "turn/start", "seq": 1, "time": 1, "data": {"turn": 1}})], 0)


def test_the_example_is_the_test_data() -> None:
    example = DATA.parent.parent.parent / "examples" / "transcripts" / "dsh-claude-code-repeat-final.session.jsonl.zstd"
    assert example.read_bytes() == LOGS["claude-code"].read_bytes()


@pytest.mark.parametrize("bridge", sorted(LOGS))
def test_a_copy_of_a_log_under_another_name_replays_as_dsh(bridge: str, tmp_path: Path) -> None:
    """The live hook knows DSH by the log's path; a replayed copy (renamed, or decompressed into
    a corpus) is still DSH's, with DSH's delivery."""
    copy = tmp_path / "renamed.jsonl.zstd"
    copy.write_bytes(LOGS[bridge].read_bytes())
    rec = recording(copy)
    assert rec.client == ("dsh-codex" if bridge == "codex" else "dsh-claude-code")
    steps = list(decide(rec, Config()))
    assert {s.event.client for s in steps if s.event is not None} == {rec.client}


def test_the_docs_show_what_replay_prints_for_the_example(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table and the summary agree: the text-loop reminder found at the Stop is held for a
    next prompt that never comes, so it is no reminder sent, and both say so (the table once said
    "would remind" over a summary of 0 reminders)."""
    from loopguard_hook.entry import main

    root = DATA.parent.parent.parent
    docs = (root / "docs" / "commands" / "replay.md").read_text()
    command = "loopguard-hook replay examples/transcripts/dsh-claude-code-repeat-final.session.jsonl.zstd"
    shown = docs.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(root)
    assert main(command.split()[1:]) == 0
    out = capsys.readouterr().out
    assert out == shown
    assert "would remind" not in out and "(reminder held for the next prompt or call)" in out
    assert "0 reminders" in out and "1 reminder held at a Stop for the next prompt or call, counted above only once sent" in out
