"""`replay`: real Claude Code transcripts and Codex rollouts rebuilt as hook payloads, replayed
through the engine, and checked against what the live hook decided.

Fixtures (`tests/data/transcripts/`, see its README) were written by the real clients against
the scripted mock model; `*.hooks.jsonl` hold what the live `loopguard-hook` saw and printed.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from loopguard_hook import replay
from loopguard_hook.config import load as config_mod
from loopguard_hook.core.event import Client
from loopguard_hook.hook import HookOptions, run
from loopguard_hook.hosts.render import render
from loopguard_hook.hosts.rollout import exec_failure, refusal
from loopguard_hook.replay import codex_tools, jsonl

#: What the summaries say the saved tokens come after (`replay.cost.AFTER_SAVED`).
AFTER = "after a call the recording ran and the guard would have denied, or past its end of turn"
DATA = Path(__file__).parent / "data" / "transcripts"
SESSIONS = Path(__file__).resolve().parents[1] / "examples" / "sessions"
QWEN_LOG = Path(__file__).parent / "e2e" / "qwen_code" / "payloads" / "all.jsonl"
MIXED = DATA / "claude-guard-mixed" / "ee89b18a-ecbc-44eb-8d85-fa4b3bc970e3.jsonl"
SUBAGENT = MIXED.with_suffix("") / "subagents" / "agent-ad8c325e97ab37910.jsonl"
SESSION_CAT_LOOP = "01a22b3f-0fb0-73e2-9a96-17dc6fb68029"

CLAUDE_FIXTURES = [
    DATA / "claude-read-loop.jsonl",
    DATA / "claude-guard-read-loop.jsonl",
    MIXED,
    DATA / "claude-compact.jsonl",
]
CODEX_FIXTURES = [
    DATA / "codex-cat-loop.jsonl",
    DATA / "codex-guard-cat-loop.jsonl",
    DATA / "codex-apply-patch-parallel.jsonl",
    DATA / "codex-background.jsonl",
]
#: Transcript -> what the live guard saw and printed during that very run.
LIVE_RUNS = {
    DATA / "claude-guard-read-loop.jsonl": DATA / "claude-guard-read-loop.hooks.jsonl",
    MIXED: DATA / "claude-guard-mixed.hooks.jsonl",
    DATA / "codex-guard-cat-loop.jsonl": DATA / "codex-guard-cat-loop.hooks.jsonl",
}


def balanced(**flags: Any) -> config_mod.Config:
    return config_mod.load(environ={}, cwd=None, user_path="", flags=flags).config


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def event_key(payload: dict[str, Any]) -> tuple[str, str, str | None]:
    name = payload["hook_event_name"]
    ident = payload.get("tool_use_id")
    if name == "PostToolBatch":
        ident = ",".join(sorted(c["tool_use_id"] for c in payload["tool_calls"]))
    return name, payload.get("agent_id", "main"), ident


def in_batches(keys: Sequence[tuple[str, str, str | None]]) -> list[Any]:
    """Keys with each run of consecutive PreToolUse events as a set: the client starts the
    PreToolUse hooks of a parallel batch together, in no fixed order."""
    out: list[Any] = []
    for key in keys:
        if key[0] == "PreToolUse" and out and isinstance(out[-1], set):
            out[-1].add(key)
        else:
            out.append({key} if key[0] == "PreToolUse" else key)
    return out


# -- reading real files -----------------------------------------------------------------------

GUARD_EVENTS = {
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Stop",
    "SubagentStop",
}
PAYLOAD_FIELDS = (
    "tool_name",
    "tool_input",
    "tool_response",
    "error",
    "is_interrupt",
    "prompt",
    "last_assistant_message",
    "turn_id",
)


@pytest.mark.parametrize("transcript", list(LIVE_RUNS), ids=lambda p: p.stem)
def test_rebuilt_payloads_equal_what_the_live_client_sent(transcript: Path) -> None:
    """Same events, same order (a parallel batch's PreToolUse in any order), same payload fields."""
    live = [row["payload"] for row in read_jsonl(LIVE_RUNS[transcript]) if row["payload"]["hook_event_name"] in GUARD_EVENTS]
    rebuilt = [dict(e.payload) for e in replay.read_transcript(str(transcript)).events]
    assert in_batches([event_key(p) for p in rebuilt]) == in_batches([event_key(p) for p in live])
    mine = {event_key(p): p for p in rebuilt}
    for payload in live:
        ours = mine[event_key(payload)]
        for name in PAYLOAD_FIELDS:
            if name in payload:
                assert ours.get(name) == payload[name], (event_key(payload), name)
        if payload["hook_event_name"] == "PostToolBatch":
            assert {c["tool_use_id"]: c["tool_response"] for c in ours["tool_calls"]} == {
                c["tool_use_id"]: c["tool_response"] for c in payload["tool_calls"]
            }
        assert ours["session_id"] == payload["session_id"]


def test_claude_code_transcript_facts() -> None:
    recording = replay.read_transcript(str(MIXED))
    assert recording.format is replay.Format.CLAUDE_TRANSCRIPT and recording.client is Client.CLAUDE_CODE
    assert recording.session_id == "ee89b18a-ecbc-44eb-8d85-fa4b3bc970e3"
    assert recording.sources == (str(MIXED), str(SUBAGENT))  # the subagent file is read along
    assert recording.cwd == "/home/user/project"
    events = [e.payload for e in recording.events]
    names = [(p["hook_event_name"], p.get("tool_use_id")) for p in events]
    # A validation rejection (Edit whose old_string is gone) fires only PostToolBatch.
    assert ("PreToolUse", "toolu_mock_09_0") not in names
    assert recording.calls["toolu_mock_09_0"].outcome is replay.Outcome.REJECTED
    # A call the recorded guard denied: PreToolUse, no post event, the denial in the batch.
    assert ("PreToolUse", "toolu_mock_05_0") in names and (
        "PostToolUse",
        "toolu_mock_05_0",
    ) not in names
    assert ("PostToolUseFailure", "toolu_mock_05_0") not in names
    assert recording.calls["toolu_mock_05_0"].outcome is replay.Outcome.DENIED
    # A failing Bash: PostToolUseFailure with the text the model saw.
    failure = next(p for p in events if p["hook_event_name"] == "PostToolUseFailure")
    assert failure["error"] == "Exit code 1\ncat: missing.txt: No such file or directory"
    assert recording.calls[failure["tool_use_id"]].outcome is replay.Outcome.FAILED
    # Writing Bash calls of one message run one at a time: Pre, Post, Pre, Post.
    serial = [n for n in names if n[1] in ("toolu_mock_12_0", "toolu_mock_12_1") and n[0] != "PostToolBatch"]
    assert [n[0] for n in serial] == ["PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse"]
    # Subagent events: the parent's session id and transcript path, their own agent id and type.
    sub = [p for p in events if p.get("agent_id") == "ad8c325e97ab37910"]
    assert sub and all(p["session_id"] == recording.session_id for p in sub)
    assert all(p["transcript_path"] == os.path.abspath(MIXED) for p in sub)
    assert {p.get("agent_type") for p in sub} == {"general-purpose"}
    assert sub[-1]["hook_event_name"] == "SubagentStop" and sub[-1]["agent_transcript_path"] == os.path.abspath(SUBAGENT)
    # The subagent's task prompt is no UserPromptSubmit; the user's prompt is.
    prompts = [p["prompt"] for p in events if p["hook_event_name"] == "UserPromptSubmit"]
    assert prompts == ["Make the tests pass"]
    times = [e.time for e in recording.events]
    assert times == sorted(times) and times[0] > 1.7e9


def test_claude_code_compaction_is_session_start_compact() -> None:
    recording = replay.read_transcript(str(DATA / "claude-compact.jsonl"))
    names = [(e.payload["hook_event_name"], e.payload.get("source") or e.payload.get("prompt")) for e in recording.events]
    assert [n for n in names if n[0] in ("UserPromptSubmit", "SessionStart")] == [
        ("UserPromptSubmit", "Read notes.txt twice"),
        ("SessionStart", "compact"),  # `/compact` itself fires no UserPromptSubmit
        ("UserPromptSubmit", "Read it once more"),
    ]
    report = replay.replay(recording, balanced())
    assert [m.detail for m in report.markers] == ["user prompt", "compaction", "user prompt"]


def test_claude_code_turn_ended_by_the_guard_has_no_batch() -> None:
    # The recorded guard ended the turn at the 8th Read (`continue: false`): no PostToolBatch.
    recording = replay.read_transcript(str(DATA / "claude-guard-read-loop.jsonl"))
    last = [e.payload["hook_event_name"] for e in recording.events][-2:]
    assert last == ["PostToolBatch", "PreToolUse"]


def test_codex_rollout_facts() -> None:
    recording = replay.read_transcript(str(DATA / "codex-cat-loop.jsonl"))
    assert recording.format is replay.Format.CODEX_ROLLOUT and recording.client is Client.CODEX
    assert recording.session_id == SESSION_CAT_LOOP
    pre = [e.payload for e in recording.events if e.payload["hook_event_name"] == "PreToolUse"]
    assert pre[0]["tool_name"] == "Bash" and pre[0]["tool_input"] == {"command": "cat notes.txt"}
    assert all("turn_id" in p and p["model"] == "gpt-5.5" for p in pre)
    posts = {e.payload["tool_use_id"]: e.payload for e in recording.events if e.payload["hook_event_name"] == "PostToolUse"}
    assert posts["call_0_0"]["tool_response"] == "hello from notes.txt\n"  # no exec header
    assert posts["call_10_0"]["tool_response"] == "ls: cannot access '/nonexistent': No such file or directory\n"
    assert recording.calls["call_10_0"] == replay.RecordedCall("call_10_0", replay.Outcome.FAILED, 2)
    assert recording.calls["call_0_0"] == replay.RecordedCall("call_0_0", replay.Outcome.RAN, 0)
    stop = recording.events[-1].payload
    assert stop["hook_event_name"] == "Stop" and stop["last_assistant_message"] == "Stopped looping."


def test_codex_guard_denials_and_parallel_posts() -> None:
    recording = replay.read_transcript(str(DATA / "codex-guard-cat-loop.jsonl"))
    names = [(e.payload["hook_event_name"], e.payload.get("tool_use_id")) for e in recording.events]
    assert ("PreToolUse", "call_4_0") in names and ("PostToolUse", "call_4_0") not in names
    assert recording.calls["call_4_0"].outcome is replay.Outcome.DENIED
    # Parallel calls: both PreToolUse first; posts in completion (item_completed) order.
    parallel = [n for n in names if n[1] in ("call_9_0", "call_9_1")]
    assert [n[0] for n in parallel] == ["PreToolUse", "PreToolUse", "PostToolUse", "PostToolUse"]


def test_codex_apply_patch_and_background_command() -> None:
    patch = replay.read_transcript(str(DATA / "codex-apply-patch-parallel.jsonl"))
    first = next(e.payload for e in patch.events if e.payload["hook_event_name"] == "PostToolUse")
    assert first["tool_name"] == "apply_patch"
    assert first["tool_input"] == {"command": "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"}
    assert first["tool_response"].startswith("Exit code: 0\nWall time:")  # as is, header and all
    background = replay.read_transcript(str(DATA / "codex-background.jsonl"))
    names = [(e.payload["hook_event_name"], e.payload.get("tool_use_id")) for e in background.events]
    # `sleep 3` outlived its yield time and was killed at exit: PreToolUse only (probe P10).
    assert ("PreToolUse", "call_1_0") in names and ("PostToolUse", "call_1_0") not in names
    assert background.calls["call_1_0"].outcome is replay.Outcome.RUNNING
    pwd = next(e.payload for e in background.events if e.payload.get("tool_use_id") == "call_0_0")
    assert pwd["tool_input"] == {"command": "pwd"}  # workdir and the other arguments dropped


# -- loops at the balanced thresholds ---------------------------------------------------------


#: PreToolUse decisions for attempts 1-8 of one signature under the balanced profile.
BALANCED_LADDER = [("allow", 0), ("allow", 0), ("remind", 3), ("remind", 4), ("deny", 5), ("deny", 6), ("deny", 7), ("stop", 8)]


def pre_actions(report: replay.Report) -> list[tuple[str, int]]:
    """(action, count) at PreToolUse per call; the engine gives no count with a plain allow."""
    return [(c.pre.action, c.pre.count if c.pre.action != "allow" else 0) if c.pre else ("-", 0) for c in report.calls]


def test_claude_read_loop_reminds_then_denies_then_stops() -> None:
    report = replay.replay(replay.read_transcript(str(DATA / "claude-read-loop.jsonl")), balanced())
    assert pre_actions(report) == BALANCED_LADDER + [("stop", 9), ("stop", 10)]
    assert {c.recorded for c in report.calls} == {"ran"}
    # Every call the guard would have denied ran in the recording: all saved.
    assert [c.index for c in report.calls if c.saved] == [5, 6, 7, 8, 9, 10]
    s = report.summary
    # The 9th and 10th calls come after the turn was ended: their stops are not counted.
    assert (s.calls, s.reminders, s.denials, s.stops, s.saved) == (10, 2, 3, 1, 6)
    assert {d.verdict.rule for d in report.decisions} == {
        "LOOP_GUARD_REPEAT",
        "LOOP_GUARD_END_TURN",
    }


def test_codex_cat_loop_reminds_then_denies_and_stop_does_not_end_the_turn() -> None:
    report = replay.replay(replay.read_transcript(str(DATA / "codex-cat-loop.jsonl")), balanced())
    cat = [i for i, c in enumerate(report.calls) if c.arguments == '{"command":"cat notes.txt"}']
    assert cat == list(range(9))
    assert pre_actions(report)[:9] == BALANCED_LADDER + [("stop", 9)]
    # Codex takes no `continue: false`: the later, different calls would still have run.
    assert [c.index for c in report.calls if c.saved] == [5, 6, 7, 8, 9]
    duplicate = report.calls[10]
    assert duplicate.pre is not None and duplicate.pre.rule == "LOOP_GUARD_DUPLICATE"  # parallel `ls` counted once


def test_recorded_denials_are_replayed_as_attempts() -> None:
    recording = replay.read_transcript(str(DATA / "claude-guard-read-loop.jsonl"))
    report = replay.replay(recording, balanced(profile="reminder"))  # never denies
    assert [c.recorded for c in report.calls] == ["ran"] * 4 + ["denied"] * 4
    assert [c.pre.action if c.pre else None for c in report.calls][4:] == ["allow"] * 4
    assert report.summary.denials == 0 and report.summary.saved == 0


def test_advise_mode_shows_what_it_would_have_done() -> None:
    report = replay.replay(replay.read_transcript(str(DATA / "claude-read-loop.jsonl")), balanced(mode="advise"))
    fifth = report.calls[4].pre
    assert fifth is not None and (fifth.action, fifth.intended) == ("remind", "deny")
    assert report.summary.denials == 0 and report.summary.saved == 0
    assert "remind REPEAT 5 (would deny)" in replay.format_text(report)


# -- live/replay parity -----------------------------------------------------------------------


@pytest.mark.parametrize("transcript", list(LIVE_RUNS), ids=lambda p: p.stem)
def test_replay_prints_what_the_live_guard_printed(transcript: Path) -> None:
    """The decisions the real guard made during the recorded run, event by event, on the wire."""
    live: dict[tuple[str, str, str | None], list[str]] = {}
    for row in read_jsonl(LIVE_RUNS[transcript]):
        live.setdefault(event_key(row["payload"]), []).append(row["stdout"])
    checked = 0
    # Recorded before a failure with a new text restarted its own count: replay with that off.
    for step in replay.decide(replay.read_transcript(str(transcript)), balanced(new_failure_is_evidence=False)):
        if step.event is None or step.decision is None:
            continue
        expected = live[event_key(dict(step.recorded.payload))].pop(0)
        assert render(step.decision, step.event.event, step.event.client).decode() == expected, event_key(
            dict(step.recorded.payload)
        )
        checked += 1
    assert checked > 10


class TranscriptWriter:
    """Copies of recorded files that grow line by line, as the client writes them, so the live
    hook's transcript reader sees at each event what was on disk then."""

    def __init__(self, root: Path, sources: Sequence[str]) -> None:
        self.lines = {s: Path(s).read_text(encoding="utf-8").splitlines(keepends=True) for s in sources}
        self.copies = {s: root / f"{i}-{Path(s).name}" for i, s in enumerate(sources)}
        self.written = dict.fromkeys(sources, 0)
        for copy in self.copies.values():
            copy.write_text("")
        self.paths = {os.path.abspath(s): str(c) for s, c in self.copies.items()}

    def advance(self, source: str, line: int) -> None:
        if source in self.written and line > self.written[source]:
            with open(self.copies[source], "a", encoding="utf-8") as fh:
                fh.writelines(self.lines[source][self.written[source] : line])
            self.written[source] = line

    def payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        out = dict(payload)
        for key in ("transcript_path", "agent_transcript_path"):
            if isinstance(out.get(key), str) and out[key] in self.paths:
                out[key] = self.paths[out[key]]
        return out


def live_decisions(recording: replay.Recording, tmp_path: Path, options: HookOptions) -> Iterator[Any]:
    """Each recorded payload through `hook.run` with a scratch state dir and a clock at its time."""
    writer = TranscriptWriter(tmp_path, [s for s in recording.sources if os.path.exists(s)])
    for recorded in recording.events:
        writer.advance(recorded.source, recorded.line)
        raw = orjson.dumps(writer.payload(dict(recorded.payload)))
        result = run(raw, options=options, environ={}, clock=functools.partial(float, recorded.time), user_config="")
        assert result.exit_code == 0, result.stderr
        yield result.decision


PARITY_CONFIGS = [
    pytest.param({}, id="balanced"),
    pytest.param({"profile": "breaker"}, id="breaker"),
    pytest.param({"profile": "progress"}, id="progress"),
    pytest.param({"profile": "reminder"}, id="reminder"),
]


@pytest.mark.parametrize("flags", PARITY_CONFIGS)
@pytest.mark.parametrize("transcript", CLAUDE_FIXTURES + CODEX_FIXTURES, ids=lambda p: p.stem)
def test_live_and_replay_give_identical_decisions(transcript: Path, flags: dict[str, Any], tmp_path: Path) -> None:
    recording = replay.read_transcript(str(transcript))
    options = HookOptions(state_dir=str(tmp_path / "state"), **flags)
    live = list(live_decisions(recording, tmp_path, options))
    replayed = [step.decision for step in replay.decide(recording, balanced(**flags))]
    assert len(live) == len(replayed) == len(recording.events)
    for recorded, want, got in zip(recording.events, live, replayed, strict=True):
        assert got == want, (recorded.source, recorded.line, recorded.payload["hook_event_name"])


def derived(tmp_path: Path, source: Path, edit: Any) -> Path:
    """A copy of a real file with `edit(record) -> [records]` applied to every line."""
    out: list[str] = []
    for line in source.read_text(encoding="utf-8").splitlines():
        out.extend(json.dumps(r) for r in edit(json.loads(line)))
    copy = tmp_path / source.name
    copy.write_text("\n".join(out) + "\n", encoding="utf-8")
    return copy


def test_text_loops_replay_as_live(tmp_path: Path) -> None:
    """Assistant text is read from the transcript as it grows: the same text-loop decisions."""

    def chatty(record: dict[str, Any]) -> list[dict[str, Any]]:
        if record.get("type") == "assistant" and any(b.get("type") == "tool_use" for b in record["message"]["content"]):
            said: dict[str, Any] = json.loads(json.dumps(record))
            said["uuid"] = "text-" + record["uuid"]
            said["message"]["content"] = [{"type": "text", "text": "I will read notes.txt once more to be completely sure."}]
            return [said, record]
        return [record]

    transcript = derived(tmp_path, DATA / "claude-read-loop.jsonl", chatty)
    recording = replay.read_transcript(str(transcript))
    # The ten sentences, and the final reply read at Stop.
    assert sum(len(e.texts) for e in recording.events) == 11
    # The reminder profile never denies, so the text rule is the one that answers.
    live = list(live_decisions(recording, tmp_path, HookOptions(state_dir=str(tmp_path / "state"), profile="reminder")))
    replayed = [step.decision for step in replay.decide(recording, balanced(profile="reminder"))]
    assert replayed == live
    assert [d.times for d in replayed if d is not None and d.rule == "LOOP_GUARD_TEXT"][:2] == [8, 9]


def test_codex_compaction_resets_counters(tmp_path: Path) -> None:
    """A `compacted` record (not produced by the probes; its shape per codex-hooks.md §8.2) after
    the fourth `cat` is SessionStart `compact`; balanced resets no-progress counts there."""

    def compact(record: dict[str, Any]) -> list[dict[str, Any]]:
        payload = record.get("payload", {})
        if payload.get("type") == "function_call_output" and payload.get("call_id") == "call_3_0":
            return [record, {"timestamp": record["timestamp"], "type": "compacted", "payload": {"message": "summary"}}]
        return [record]

    recording = replay.read_transcript(str(derived(tmp_path, DATA / "codex-cat-loop.jsonl", compact)))
    starts = [e.payload for e in recording.events if e.payload["hook_event_name"] == "SessionStart"]
    assert starts == [{**starts[0], "source": "compact"}] and "turn_id" not in starts[0]
    report = replay.replay(recording, balanced())
    # Reminders at 3 and 4, then the compaction; counting starts again: 1, 2, remind 3, 4, deny 5.
    before, after = [("allow", 0), ("allow", 0), ("remind", 3), ("remind", 4)], [("remind", 3), ("remind", 4), ("deny", 5)]
    assert pre_actions(report)[:9] == before + [("allow", 0), ("allow", 0)] + after
    assert [m.detail for m in report.markers] == ["user prompt", "compaction"]


@pytest.mark.parametrize(
    ("content", "is_error", "outcome"),
    [
        ("1\talpha", False, replay.Outcome.RAN),
        ("Exit code 1\ncat: missing.txt: No such file or directory", True, replay.Outcome.FAILED),
        ("<tool_use_error>String to replace not found in file.\nString: two</tool_use_error>", True, replay.Outcome.REJECTED),
        ("PreToolUse:Read hook error: REPEAT_TOOL_BLOCKED: ...", True, replay.Outcome.DENIED),
        ("The user doesn't want to proceed with this tool use. The tool use was rejected.", True, replay.Outcome.REFUSED),
        ("[Request interrupted by user for tool use]", True, replay.Outcome.INTERRUPTED),
        (
            [{"type": "text", "text": "<tool_use_error>Error: No such tool available: Foo</tool_use_error>"}],
            True,
            replay.Outcome.REJECTED,
        ),
    ],
)
def test_claude_tool_result_outcomes(content: Any, is_error: bool, outcome: replay.Outcome) -> None:
    assert replay.classify_claude_result(content, is_error) is outcome


@pytest.mark.parametrize("log", sorted(p.name for p in SESSIONS.glob("*.jsonl")))
def test_live_and_replay_agree_on_captured_payload_logs(log: str, tmp_path: Path) -> None:
    """The real captured sessions of both clients, event by event."""
    recordings = replay.load([str(SESSIONS / log)])
    assert recordings and all(r.format is replay.Format.HOOK_PAYLOADS for r in recordings)
    options = HookOptions(state_dir=str(tmp_path / "state"))
    for recording in recordings:
        live = list(live_decisions(recording, tmp_path, options))
        assert [s.decision for s in replay.decide(recording, balanced())] == live


# -- robustness -------------------------------------------------------------------------------


def test_malformed_lines_are_skipped(tmp_path: Path) -> None:
    for source in (DATA / "claude-read-loop.jsonl", DATA / "codex-cat-loop.jsonl"):
        lines = source.read_text(encoding="utf-8").splitlines()
        damaged = [
            "not json at all",
            *lines[:5],
            "[1, 2, 3]",
            '{"type": "future_record", "payload": {"x": 1}, "sessionId": "x"}',
            "",
            "{broken",
            *lines[5:],
            lines[-1][: len(lines[-1]) // 2],  # a last line cut mid-write
        ]
        copy = tmp_path / source.name
        copy.write_text("\n".join(damaged), encoding="utf-8")
        clean = replay.replay(replay.read_transcript(str(source)), balanced())
        dirty = replay.replay(replay.read_transcript(str(copy)), balanced())
        assert [(c.tool, c.pre, c.post, c.recorded) for c in dirty.calls] == [
            (c.tool, c.pre, c.post, c.recorded) for c in clean.calls
        ]
        assert dirty.summary.skipped_lines == clean.summary.skipped_lines + 4


def test_a_line_longer_than_the_cap_is_skipped_and_never_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One huge line (a damaged file, a sparse file of no newline) counts as one unreadable line,
    read in pieces of at most the cap: it is never held whole, nor is the file."""
    cap = 64
    record = b'{"type":"x","n":%d}'
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + record % 1 + b"\n" + b"x" * (50 * cap) + b"\n" + record % 3 + b"\n"
                     + b"\n" + b"[" * (cap + 1) + b"\n" + (record % 6).ljust(cap) + b"\n" + b"\0" * (20 * cap))
    asked: list[int] = []
    given: list[int] = []

    class Spy:
        """The file as `read_lines` opens it, keeping the size of each read asked and given."""

        def __init__(self, fh: Any) -> None:
            self.fh = fh

        def __enter__(self) -> Spy:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def seek(self, pos: int) -> int:
            return int(self.fh.seek(pos))

        def read(self, size: int = -1) -> bytes:
            asked.append(size)
            out: bytes = self.fh.read(size)
            given.append(len(out))
            return out

        def readline(self, size: int = -1) -> bytes:
            asked.append(size)
            out: bytes = self.fh.readline(size)
            given.append(len(out))
            return out

    opener = jsonl.open_regular_file
    monkeypatch.setattr(jsonl, "open_regular_file", lambda p: Spy(opener(p)))
    lines, skipped = jsonl.read_lines(str(path), cap=cap)
    assert [(line.number, line.data) for line in lines] == [(1, {"type": "x", "n": 1}), (3, {"type": "x", "n": 3}),
                                                             (6, {"type": "x", "n": 6})]
    assert skipped == 3  # the lines of 50 and 20 times the cap, and the one a byte over it
    assert asked and all(0 <= size <= cap + 1 for size in asked)
    assert max(given) <= cap + 1


def test_unknown_and_unreadable_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": "world"}\n')
    for path, message in (
        (empty, "empty, nothing to replay"),
        (other, "not a Claude Code transcript"),
        (tmp_path / "missing.jsonl", "No such file"),
    ):
        with pytest.raises(replay.ReplayError, match=message):
            replay.load([str(path)])
    with pytest.raises(replay.ReplayError, match="hook payload log"):
        replay.read_transcript(str(DATA / "codex-guard-cat-loop.hooks.jsonl"))


def test_client_must_fit_a_transcript() -> None:
    recording = replay.read_transcript(str(DATA / "claude-read-loop.jsonl"))
    with pytest.raises(replay.ReplayError, match="--client codex"):
        replay.replay(recording, balanced(), client="codex")
    assert replay.replay(recording, balanced(), client="claude-code").summary.calls == 10


def test_load_reads_each_file_once_and_merges_a_session(tmp_path: Path) -> None:
    # The subagent file named before its main transcript, and the main one twice.
    recordings = replay.load([str(SUBAGENT), str(MIXED), str(MIXED)])
    assert len(recordings) == 1
    merged = recordings[0]
    alone = replay.read_transcript(str(MIXED))
    assert sorted(map(os.path.realpath, merged.sources)) == sorted(map(os.path.realpath, alone.sources))
    assert len(merged.events) == len(alone.events)


def test_payload_logs_bare_and_wrapped() -> None:
    rows = read_jsonl(DATA / "codex-guard-cat-loop.hooks.jsonl")
    wrapped = replay.replay_payloads(rows, balanced())
    bare = replay.replay_payloads([r["payload"] for r in rows], balanced())
    assert len(wrapped) == len(bare) == 1
    assert not wrapped[0].synthetic_times and bare[0].synthetic_times
    assert pre_actions(wrapped[0]) == pre_actions(bare[0])
    assert (
        pre_actions(wrapped[0])[:9]
        == pre_actions(replay.replay(replay.read_transcript(str(DATA / "codex-guard-cat-loop.jsonl")), balanced()))[:9]
    )
    assert wrapped[0].calls[0].recorded == "ran" and wrapped[0].calls[4].recorded == "no result"


def _gemini_reads(after: Sequence[int]) -> list[dict[str, Any]]:
    """A Gemini CLI payload log (captured shape: `tests/e2e/gemini_cli/payloads`, no
    `tool_use_id`, an ISO `timestamp` each) of six identical read_file calls; an AfterTool for
    the calls numbered in `after`."""
    session = {
        "session_id": "g1",
        "transcript_path": "/home/user/.gemini/tmp/project/chats/session-2026-12-02T05-55-g1.jsonl",
        "cwd": "/home/user/project",
    }
    rows = [{**session, "hook_event_name": "BeforeAgent", "timestamp": "2026-12-02T05:55:10.000Z", "prompt": "read"}]
    for n in range(1, 7):
        call = {**session, "tool_name": "read_file", "tool_input": {"file_path": "notes.txt"}}
        rows.append({**call, "hook_event_name": "BeforeTool", "timestamp": f"2026-12-02T05:55:{10 + 2 * n}.000Z"})
        if n in after:
            response = {"llmContent": "alpha\nbeta\n", "returnDisplay": ""}
            when = f"2026-12-02T05:55:{10 + 2 * n}.500Z"
            rows.append({**call, "hook_event_name": "AfterTool", "timestamp": when, "tool_response": response})
    return rows


@pytest.mark.parametrize("after", [(1, 2, 3), (1, 2, 3, 4, 5, 6)], ids=["as-gemini-sends", "a-result-after-each"])
def test_gemini_payload_log_pairs_each_after_tool_with_its_before_tool(after: tuple[int, ...]) -> None:
    """A post event without `tool_use_id` is the same call as the latest Pre of its signature
    (the live hook's pairing): one row per call, with its result, numbered as the calls came;
    the payloads' own times are the events' times."""
    report = replay.replay_payloads(_gemini_reads(after), balanced())[0]
    assert report.summary.calls == 6 and not report.synthetic_times
    assert [c.recorded for c in report.calls] == ["ran" if n in after else "no result" for n in range(1, 7)]
    assert pre_actions(report) == [("allow", 0)] * 3 + [("deny", 4), ("deny", 5), ("deny", 6)]
    assert [(d.call, d.event, d.verdict.action) for d in report.decisions] == [
        (3, "PostToolUse", "remind"), (4, "PreToolUse", "deny"), (5, "PreToolUse", "deny"), (6, "PreToolUse", "deny")
    ]
    assert report.calls[0].time == report.started + 2.0
    # The report states the thresholds the engine used there (one lower before Gemini's own halt).
    assert (report.remind_at, report.deny_at) == ((3,), 4)
    assert replay.replay_files([str(QWEN_LOG)], balanced())[0].deny_at == 4
    assert replay.replay(replay.read_transcript(str(DATA / "claude-read-loop.jsonl")), balanced()).deny_at == 5


def test_qwen_payload_log_calls_have_their_results() -> None:
    """Qwen Code keys a call by the model's `tool_call_id`, not the `tool_use_id` it also sends."""
    report = replay.replay_files([str(QWEN_LOG)], balanced())[0]
    assert report.calls[0].recorded == "ran" and "failed" in {c.recorded for c in report.calls}


def test_qwen_tool_continuations_are_no_prompts_in_a_replay() -> None:
    """Qwen Code fires UserPromptSubmit before each tool continuation (no `submitted_prompt`):
    a replay marks only the real prompts, and a loop across continuations is one loop, not one
    per call (a new user's replay showed a prompt after every call and fifteen loops of one)."""
    reports = replay.replay_files([str(QWEN_LOG)], balanced())
    rows = [json.loads(line) for line in QWEN_LOG.read_text().splitlines() if line.strip()]
    payloads = [r.get("payload", r) for r in rows]
    real = [p for p in payloads if p.get("hook_event_name") == "UserPromptSubmit" and "submitted_prompt" in p]
    prompts = [m for report in reports for m in report.markers if m.event == "UserPromptSubmit"]
    assert len(prompts) == len(real) < sum(p.get("hook_event_name") == "UserPromptSubmit" for p in payloads)


def test_bad_payload_in_a_log_is_reported_not_fatal() -> None:
    rows = read_jsonl(DATA / "codex-guard-cat-loop.hooks.jsonl")
    rows.insert(
        3,
        {
            "payload": {
                "hook_event_name": "PreToolUse",
                "session_id": rows[0]["payload"]["session_id"],
                "turn_id": "t",
            }
        },
    )
    report = replay.replay_payloads(rows, balanced())[0]
    assert report.summary.bad_payloads == 1 and "tool_name" in report.errors[0]


# -- helpers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "read_only"),
    [
        ("cat notes.txt", True),
        ("ls -la && git status", True),
        ("grep -rn foo . | head -5", True),
        ("sed -n 1,20p a.py", True),
        ("cat a 2>/dev/null", True),
        ("echo x >> out.txt", False),
        ("sed -i s/a/b/ f", False),
        ("find . -delete", False),
        ("git commit -m x", False),
        ("rm -rf build", False),
        ("cat $(ls)", False),
        ("FOO=1 pytest", False),
        # `env` alone lists the environment; with a program it runs that program
        ("env", True),
        ("env -i", True),
        ("env LANG=C cat notes.txt", True),
        ("env -u HOME ls", True),
        ("env PYTHONPATH=. python gen.py", False),
        ("env -u HOME rm -rf build", False),
    ],
)
def test_bash_read_only_approximation(command: str, read_only: bool) -> None:
    assert replay.bash_is_read_only(command) is read_only


def test_split_exec_output() -> None:
    text = "Chunk ID: 81c5ae\nWall time: 0.0000 seconds\nProcess exited with code 2\nOriginal token count: 15\nOutput:\nls: x\n"
    assert replay.split_exec_output(text) == ("ls: x\n", 2)
    assert replay.split_exec_output("plain text") == ("plain text", None)
    assert replay.split_exec_output('{"output": "hi\\n", "metadata": {"exit_code": 1}}') == (
        "hi\n",
        1,
    )
    # the sandbox's refusal in rollouts of 0.2x-0.3x (corpus rollout 2025-09-07): plain text with its code
    refused = (
        "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 128, stdout: , "
        "stderr: fatal: Unable to create '/w/.git/index.lock': Permission denied\n"
    )
    assert replay.split_exec_output(refused) == (refused, 128)


def test_split_exec_output_of_a_command_codex_failed_to_run() -> None:
    """Codex 0.115-0.119 name the command in the answer (`exec_command failed for `CMD`: …`;
    trimmed from public rollouts of 0.118.0-alpha.2 and 0.115.0-alpha.27): read as the other
    releases write it, a failure with the sandbox's exit code, or -1 where no process ran; a
    policy refusal is told apart (`blocked`), in either form."""
    denied = (
        "exec_command failed for `/bin/zsh -lc 'docker build -f react-remote/Dockerfile .'`: SandboxDenied { message: "
        '"ERROR: permission denied while trying to connect to the Docker daemon socket\n", output: ExecToolCallOutput '
        '{ exit_code: 1, stdout: StreamOutput { text: "", truncated_after_lines: None } } }'
    )
    text, code = replay.split_exec_output(denied)
    assert code == 1 and text.startswith("exec_command failed: SandboxDenied { message: \"ERROR: permission denied")
    assert "docker build" not in text  # the command is not part of the error: two commands, one wall
    bwrap = (
        "exec_command failed for `/bin/zsh -lc 'ls -la'`: CreateProcess { message: \"Codex(Sandbox(Denied { output: "
        "ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: \\\"\\\", truncated_after_lines: None } } }))\" }"
    )
    assert replay.split_exec_output(bwrap)[1] == 1
    assert replay.split_exec_output("exec_command failed: CreateProcess { message: \"No such file or directory\" }")[1] == -1
    # an `exit_code: 0` the command printed, in the message before the sandbox's record
    printed = denied.replace("ERROR: permission denied", "exit_code: 0\\nERROR: permission denied")
    assert replay.split_exec_output(printed)[1] == 1
    policy = (
        "exec_command failed for `/bin/bash -lc 'rm -rf /w/__pycache__'`: CreateProcess { message: "
        '"Rejected(\\"`/bin/bash -lc \'rm -rf /w/__pycache__\'` rejected: blocked by policy\\")" }'
    )
    assert codex_tools.blocked(policy) == replay.Outcome.REFUSED
    as_0171 = policy.replace("failed for `/bin/bash -lc 'rm -rf /w/__pycache__'`:", "failed:")
    assert codex_tools.blocked(as_0171) == replay.Outcome.REFUSED
    assert codex_tools.blocked(bwrap) is None  # a sandbox's failure ran into the sandbox: no refusal
    assert refusal(exec_failure(policy)) == "exec_command failed: rejected: blocked by policy"


def test_a_side_questions_copy_of_the_main_threads_calls_is_replayed_once(tmp_path: Path) -> None:
    """Claude Code's side question transcript (`agent-aside_question-<id>.jsonl`) carries the main
    thread's calls under the same ids: the hooks saw them once, so replay judges them once."""
    main = tmp_path / MIXED.name
    shutil.copy(MIXED, main)
    shutil.copytree(MIXED.with_suffix(""), tmp_path / MIXED.stem)
    alone = replay.replay(replay.read_transcript(str(main)), balanced())
    aside = tmp_path / MIXED.stem / "subagents" / "agent-aside_question-fcbf929fc3d4fdc0.jsonl"
    shutil.copy(MIXED, aside)
    recording = replay.read_transcript(str(main))
    assert str(aside) in recording.sources
    report = replay.replay(recording, balanced())
    assert len(report.calls) == len(alone.calls) > 0
    assert [(d.call, d.verdict) for d in report.decisions] == [(d.call, d.verdict) for d in alone.decisions]
    # The same copy given as a file of its own, before the main transcript, is merged once too.
    loose = tmp_path / "loose.jsonl"
    shutil.copy(MIXED, loose)
    merged = replay.load([str(loose), str(main)])
    assert len(merged) == 1 and len(replay.replay(merged[0], balanced()).calls) == len(alone.calls)


def test_a_transcript_saved_under_another_name_keeps_its_subagents(tmp_path: Path) -> None:
    """A transcript copied as `project__<id>.jsonl`, its subagents beside it in
    `project__<id>/subagents/`: they are read as when the folder has the session's id (before,
    only the main thread was replayed, with nothing said)."""
    as_recorded = replay.read_transcript(str(MIXED))
    assert str(SUBAGENT) in as_recorded.sources
    main = tmp_path / f"proj__{MIXED.name}"
    shutil.copy(MIXED, main)
    shutil.copytree(MIXED.with_suffix(""), tmp_path / main.stem)
    renamed = replay.read_transcript(str(main))
    assert str(tmp_path / main.stem / "subagents" / SUBAGENT.name) in renamed.sources
    assert len(replay.replay(renamed, balanced()).calls) == len(replay.replay(as_recorded, balanced()).calls)


def _plan_session(
    folder: Path, session: str, lines: list[dict[str, Any]], subagent: list[dict[str, Any]]
) -> Path:
    """A Claude Code 2.1 transcript saved as `proj__<session>.jsonl`, with one subagent in
    `<session>/subagents/agent-a<n>.jsonl`; every message record carries `session` unless it says
    (a file-history snapshot carries no session id)."""
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/u/app", "version": "2.1.63", "gitBranch": "HEAD"}
    path = folder / f"proj__{session}.jsonl"
    path.write_text(
        "".join(
            json.dumps(line if line["type"] == "file-history-snapshot" else {**base, "sessionId": session, **line}) + "\n"
            for line in lines
        )
    )
    agent = subagent[0]["agentId"]
    (folder / session / "subagents").mkdir(parents=True)
    (folder / session / "subagents" / f"agent-{agent}.jsonl").write_text(
        "".join(json.dumps({**base, "sessionId": session, **line, "isSidechain": True}) + "\n" for line in subagent)
    )
    return path


def _bash_turn(n: int, parent: str, agent: dict[str, str], minute: int) -> list[dict[str, Any]]:
    """A `Bash` call and its result: two records, the first chained to `parent`."""
    call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": f"make test{n}"}}
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "ok", "is_error": False}
    at = f"2026-03-06T17:{minute:02d}:"
    message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-opus-4-6", "content": [call]}
    return [
        {**agent, "parentUuid": parent, "type": "assistant", "message": message, "uuid": f"a{n}", "timestamp": at + "01.000Z"},
        {
            **agent, "parentUuid": f"a{n}", "type": "user", "uuid": f"r{n}", "timestamp": at + "02.000Z",
            "message": {"role": "user", "content": [result]}, "sourceToolAssistantUUID": f"a{n}",
            "toolUseResult": {"stdout": "ok", "stderr": "", "interrupted": False, "isImage": False},
        },
    ]


def test_a_session_started_from_a_plan_with_a_cleared_context_is_its_own(tmp_path: Path) -> None:
    """Claude Code's plan hand-off ('clear context and start') writes the previous session's last
    record (the interruption of its plan call) as the new transcript's second line, ahead of the
    new session's first prompt (`parentUuid: null`). The transcript is the new session's, with
    its own subagents (before, it took the previous session's id: it was folded into that
    session, and read with that session's subagents instead of its own)."""
    older, newer = "302863af-0000-4000-8000-000000000001", "c001e9a4-0000-4000-8000-000000000002"
    prompt = {"type": "user", "parentUuid": None, "uuid": "p0", "timestamp": "2026-03-06T16:50:00.000Z"}
    first = _plan_session(
        tmp_path, older,
        [{**prompt, "message": {"role": "user", "content": "plan the cache"}}, *_bash_turn(1, "p0", {}, 51)],
        [{"agentId": "a0", "parentUuid": None, "type": "user", "uuid": "s0", "timestamp": "2026-03-06T16:52:00.000Z",
          "message": {"role": "user", "content": "look around"}}, *_bash_turn(2, "s0", {"agentId": "a0"}, 52)],
    )
    interrupted = {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}
    snapshot = {"type": "file-history-snapshot", "messageId": "m1", "isSnapshotUpdate": False,
                "snapshot": {"messageId": "m1", "trackedFileBackups": {}, "timestamp": "2026-03-06T17:00:01.917Z"}}
    plan = "Implement the following plan:\n\n# Cache\n\n1. add it"
    second = _plan_session(
        tmp_path, newer,
        [
            snapshot,
            {"sessionId": older, "parentUuid": "a1", "type": "user", "message": interrupted, "uuid": "x0",
             "timestamp": "2026-03-06T17:00:01.767Z"},
            {**prompt, "uuid": "q0", "timestamp": "2026-03-06T17:00:02.000Z", "planContent": "# Cache\n\n1. add it",
             "message": {"role": "user", "content": plan}},
            *_bash_turn(3, "q0", {}, 1),
        ],
        [{"agentId": "a9", "parentUuid": None, "type": "user", "uuid": "s9", "timestamp": "2026-03-06T17:02:00.000Z",
          "message": {"role": "user", "content": "check the tests"}}, *_bash_turn(4, "s9", {"agentId": "a9"}, 2)],
    )
    alone = replay.read_transcript(str(second))
    assert alone.session_id == newer
    assert alone.sources == (str(second), str(tmp_path / newer / "subagents" / "agent-a9.jsonl"))
    assert sorted(alone.calls) == ["toolu_3", "toolu_4"]
    both = {rec.session_id: rec for rec in replay.load([str(first), str(second)])}
    assert sorted(both) == sorted([older, newer])
    assert sorted(both[older].calls) == ["toolu_1", "toolu_2"]
    assert sorted(both[newer].calls) == ["toolu_3", "toolu_4"]
    assert [len(replay.replay(both[s], balanced()).calls) for s in (older, newer)] == [2, 2]


def test_subagents_are_read_from_the_files_own_folder_and_never_from_a_fifo(tmp_path: Path) -> None:
    """The subagent folder named by the file (a resumed session's lines keep the older session's
    id, and that session's folder is beside it) comes first; a session id that is a path names no
    folder; a FIFO named `agent-*.meta.json` is not opened (before, replay hung on it)."""
    import threading

    sid = json.loads(MIXED.read_text().splitlines()[0]).get("sessionId") or "ee89b18a-ecbc-44eb-8d85-fa4b3bc970e3"
    newer = tmp_path / "11111111-2222-4333-8444-555555555555.jsonl"
    shutil.copy(MIXED, newer)
    shutil.copytree(MIXED.with_suffix(""), tmp_path / newer.stem)  # the newer session's own subagents
    (tmp_path / sid / "subagents").mkdir(parents=True)
    (tmp_path / sid / "subagents" / "agent-older.jsonl").write_text(SUBAGENT.read_text())
    os.mkfifo(tmp_path / newer.stem / "subagents" / "agent-x.meta.json")
    done: list[replay.Recording] = []
    worker = threading.Thread(target=lambda: done.append(replay.read_transcript(str(newer))), daemon=True)
    worker.start()
    worker.join(60)
    assert done, "replay hung on a FIFO"
    assert str(tmp_path / newer.stem / "subagents" / SUBAGENT.name) in done[0].sources
    assert not any("agent-older" in source for source in done[0].sources)
    # a session id that is a path: no folder outside the transcript's is listed
    aside = tmp_path / "aside"
    aside.mkdir()
    lines = [json.loads(line) for line in MIXED.read_text().splitlines() if line.strip()]
    for line in lines:
        if "sessionId" in line:
            line["sessionId"] = str(tmp_path / newer.stem)
    (aside / "x.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert list(replay.read_transcript(str(aside / "x.jsonl")).sources) == [str(aside / "x.jsonl")]


def test_a_payload_log_split_in_two_files_keeps_its_batch_events(tmp_path: Path) -> None:
    """A session's payload log in two files (rotated between a call's post event and its
    PostToolBatch): every line is an event the hooks saw once, so the batch event at the head
    of the second file is replayed, not taken for a copy of the first file's calls (which made
    the next retry a parallel twin of the last: `DUPLICATE` instead of a repeat)."""
    base = {"session_id": "s-split", "transcript_path": "/tmp/t.jsonl", "cwd": "/w"}
    call = {"tool_name": "Bash", "tool_input": {"command": "npm test -- --grep login"}}
    error = "Exit code 1\nFAIL login.test.js\n  expected 200, got 500"
    lines, t = [], 1_760_000_000.0
    for n in range(6):
        ids = {**call, "tool_use_id": f"toolu_{n}"}
        t += 1.5
        lines.append({"ts": t, "payload": {**base, "hook_event_name": "PreToolUse", **ids}})
        t += 1.0
        lines.append({"ts": t, "payload": {**base, "hook_event_name": "PostToolUseFailure", **ids, "error": error}})
        t += 0.05
        batch = [{**ids, "tool_response": error}]
        lines.append({"ts": t, "payload": {**base, "hook_event_name": "PostToolBatch", "tool_calls": batch}})
    whole, first, second = tmp_path / "whole.jsonl", tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    whole.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first.write_text("".join(json.dumps(line) + "\n" for line in lines[:5]))
    second.write_text("".join(json.dumps(line) + "\n" for line in lines[5:]))
    alone = replay.replay(replay.load([str(whole)])[0], balanced())
    split = replay.load([str(first), str(second)])
    assert len(split) == 1 and len(split[0].events) == len(lines)
    report = replay.replay(split[0], balanced())
    assert [(d.call, d.verdict) for d in report.decisions] == [(d.call, d.verdict) for d in alone.decisions]


def test_a_batch_claude_code_runs_call_by_call_is_one_round() -> None:
    """A subagent sends ten `gemini "…"` calls in one message (public transcript, Claude Code
    2.0.57, in the corpus); the host runs them one by one and all fail 'command not found'. The
    PostToolBatch after the tenth says they were one batch: one round, no same-error wall."""
    path = Path(__file__).parent / "corpus" / "claude" / "agent-95500236.jsonl"
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    gemini = [c.index for c in report.calls if c.tool == "Bash" and "gemini" in c.arguments]
    assert len(gemini) == 10
    assert not [d for d in report.decisions if d.call in gemini]


def test_a_payload_log_without_times_keeps_the_models_turns(tmp_path: Path) -> None:
    """Bare hook payloads carry no time: made-up times put a model's turn before a call made
    after a result, so calls run one after another are rounds (not one batch, as calls that
    start right after a result would be: `progress.issued_with`)."""
    base = {"session_id": "s-no-times", "transcript_path": "/tmp/t.jsonl", "cwd": "/w"}
    lines = []
    for n, pattern in enumerate(["foo", "bar", "baz"]):
        call = {"tool_name": "Bash", "tool_input": {"command": f"rg {pattern} -t tsx src/"}, "tool_use_id": f"toolu_{n}"}
        lines.append({**base, "hook_event_name": "PreToolUse", **call})
        error = "Exit code 2\nrg: unrecognized file type: tsx"
        lines.append({**base, "hook_event_name": "PostToolUseFailure", **call, "error": error})
    log = tmp_path / "payloads.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    recording = replay.load([str(log)])[0]
    assert recording.synthetic_times
    report = replay.replay(recording, balanced())
    assert [(d.call, d.verdict.rule) for d in report.decisions] == [(3, "LOOP_GUARD_SAME_ERROR")]


def test_a_rollout_that_times_its_first_line_only_keeps_the_models_turns(tmp_path: Path) -> None:
    """The oldest Codex rollouts (0.2x-0.3x, 2025-09: bare response items after one timed
    session line) put every event at the session's start; made-up times keep each call made
    after a result its own round, so a wall of three is judged as it is on a timed rollout."""
    lines = [{"id": "0c0ffee0-0000-4000-8000-000000000001", "timestamp": "2025-09-07T06:02:51.440Z",
              "instructions": None}, {"record_type": "state"}]
    refused = ("failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 128, "
               "stdout: , stderr: fatal: Unable to create '/w/.git/index.lock': Permission denied\n")
    for n, message in enumerate(["fix paths", "fix: paths", "use relative paths"]):
        command = ["bash", "-lc", f"git add -A && git commit -m '{message}'"]
        lines.append({"type": "function_call", "id": None, "name": "shell", "call_id": f"call_{n}",
                      "arguments": json.dumps({"command": command})})
        lines.append({"type": "function_call_output", "call_id": f"call_{n}", "output": refused})
    rollout = tmp_path / "rollout-2025-09-07T06-02-51-0c0ffee0-0000-4000-8000-000000000001.jsonl"
    rollout.write_text("".join(json.dumps(line) + "\n" for line in lines))
    recording = replay.load([str(rollout)])[0]
    assert recording.synthetic_times
    times = [e.time for e in recording.events]
    assert times == sorted(times) and len(set(times[1:])) == len(times) - 1
    report = replay.replay(recording, balanced())
    assert [(d.call, d.verdict.rule) for d in report.decisions] == [(3, "LOOP_GUARD_SAME_ERROR")]


def test_structured_result_of_a_subagent_read() -> None:
    got = replay.structured_result("Read", {"file_path": "/p/n.txt"}, "1\talpha\n2\tbeta\n3\t")
    assert got == {
        "type": "text",
        "file": {
            "filePath": "/p/n.txt",
            "content": "alpha\nbeta\n",
            "numLines": 3,
            "startLine": 1,
            "totalLines": 3,
        },
    }
    assert replay.structured_result("Glob", {}, "a\nb") == "a\nb"


# -- output -----------------------------------------------------------------------------------


def test_json_output_has_stable_keys() -> None:
    report = replay.replay(replay.read_transcript(str(DATA / "claude-read-loop.jsonl")), balanced())
    data = replay.to_json(report)
    assert list(data) == [
        "sources",
        "format",
        "client",
        "session_id",
        "config",
        "started",
        "synthetic_times",
        "summary",
        "calls",
        "decisions",
        "markers",
        "unhooked_polls",
        "unhooked_calls",
        "unread_cell_calls",
        "errors",
        "cost",
    ]
    assert list(data["calls"][0]) == [
        "index",
        "time",
        "agent",
        "tool",
        "arguments",
        "tool_use_id",
        "recorded",
        "exit_code",
        "pre",
        "post",
        "saved",
        "unmade",
    ]
    assert data["calls"][4]["pre"] == {
        "action": "deny",
        "intended": "deny",
        "rule": "LOOP_GUARD_REPEAT",
        "count": 5,
    }
    # 32 events: the prompt, 10 × (Pre, Post, Batch), and the Stop of the final reply.
    assert data["summary"] == {
        "events": 32,
        "calls": 10,
        "reminders": 2,
        "denials": 3,
        "stops": 1,
        "saved": 6,
        "skipped_lines": 0,
        "bad_payloads": 0,
    }
    assert [m["detail"] for m in data["markers"]] == ["user prompt"]
    assert data["decisions"][0]["message"].startswith("[loopguard]")
    rendered = json.loads(replay.render([report], "json"))
    assert rendered["reports"][0]["summary"] == data["summary"]


def test_text_output() -> None:
    report = replay.replay(replay.read_transcript(str(DATA / "claude-read-loop.jsonl")), balanced())
    text = replay.format_text(report)
    lines = text.splitlines()
    assert lines[0] == f"Claude Code transcript {DATA / 'claude-read-loop.jsonl'}"
    assert lines[1].startswith("session ") and "[claude-code], started 2026-11-30" in lines[1]
    assert lines[2] == "profile balanced (enforce, no_progress): remind at 3, 4, deny at 5, stop at 8"
    assert any("deny REPEAT 5" in line and "[saved]" in line for line in lines)
    # The mock model's usage: 100 tokens in and 10 out a request, 11 requests; the loop is calls
    # 1-10 (the reminder at call 3 saw calls 1-3), and the requests after the one that made the
    # first denied call (call 5) are the 5 the guard would have saved.
    assert lines[-5:] == [
        "10 calls: 2 reminders, 3 denials, 1 stop; 6 calls the recording ran would have been saved",
        "tokens: 1.2k in the session (input 1.1k, cache read 0, cache write 0, output 110)",
        f"1 loop: 1.1k tokens; 550 of them {AFTER}",
        "  loop 1: calls 1-10, 10 requests, 1.1k tokens; after a call the recording ran and the guard would have denied, or past",
        "      its end of turn: 5 requests, 550 tokens",
    ]
    assert replay.render([], "text") == "no sessions to replay"
    with pytest.raises(ValueError, match="unknown format"):
        replay.render([report], "yaml")


def test_replay_files_is_the_command_entry(tmp_path: Path) -> None:
    copy = tmp_path / "mixed"
    shutil.copytree(MIXED.parent, copy)
    reports = replay.replay_files([str(copy / MIXED.name), str(DATA / "codex-cat-loop.jsonl")], balanced())
    assert [r.client for r in reports] == ["claude-code", "codex"]
    assert reports[0].summary.calls == 33 and len(reports[0].sources) == 2


def test_replay_does_not_import_click() -> None:
    """Only cli.py imports click; the replay core stays usable without it."""
    import subprocess
    import sys

    code = "import sys, loopguard_hook.replay; print('click' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_check_no_op_fix_check_in_a_codex_rollout_is_denied_with_no_disk_to_look_at(tmp_path: Path) -> None:
    """Issue 22 class 2 replayed: a rollout has no workspace, and each fix prints something new,
    so only the check's own unchanged answer says the fixes changed nothing (rules/unmoved.py)."""

    def record(t: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": f"2026-03-01T10:{t // 60:02d}:{t % 60:02d}.000Z", "type": kind, "payload": payload}

    def call(t: int, cid: str, command: str, output: str) -> list[dict[str, Any]]:
        args = json.dumps({"command": ["bash", "-lc", command], "workdir": "/w"})
        return [
            record(t, "response_item", {"type": "function_call", "name": "shell", "arguments": args, "call_id": cid}),
            record(t + 1, "response_item", {"type": "function_call_output", "call_id": cid,
                                            "output": json.dumps({"output": output, "metadata": {"exit_code": 0}})}),
        ]

    check = "python3 -c 'import config; print(config.RETRIES == 5)'"
    fixes = [("sed -i 's/retries = 3/retries = 5/' config.py && echo patched", "patched\n"),
             ("perl -pi -e 's/RETRIES=3/RETRIES=5/' config.py && grep -c RETRIES config.py", "1\n"),
             ("python3 -c \"import pathlib; p = pathlib.Path('config.py'); p.write_text(p.read_text()); print(1)\"", "1 saved\n"),
             ("sed -i 's/RETRIES = 3 /RETRIES = 5/' config.py; echo done", "done\n")]
    meta = {"id": "019c0000-0000-7000-8000-000000000002", "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w",
            "originator": "codex_cli_rs", "cli_version": "0.111.0"}
    records = [record(0, "session_meta", meta),
               record(1, "response_item", {"type": "message", "role": "user",
                                           "content": [{"type": "input_text", "text": "make it retry five times"}]})]
    t = 2
    for i, (fix, printed) in enumerate(fixes):
        records += call(t, f"check{i}", check, "False\n") + call(t + 3, f"fix{i}", fix, printed)
        t += 6
    records += call(t, "check4", check, "False\n")
    path = tmp_path / "rollout-2026-03-01T10-00-00-019c0000-0000-7000-8000-000000000002.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    checks = [c for c in report.calls if "RETRIES == 5" in c.arguments]
    assert [c.post.rule if c.post and c.post.action == "remind" else "" for c in checks][:3] == ["", "", "LOOP_GUARD_UNMOVED"]
    assert checks[4].pre is not None and (checks[4].pre.action, checks[4].pre.rule) == ("deny", "LOOP_GUARD_UNMOVED")
    assert not any(c.pre and c.pre.action != "allow" for c in report.calls if "RETRIES == 5" not in c.arguments)


def test_a_codex_patch_wall_with_changing_hunks_and_no_read_is_denied_in_replay(tmp_path: Path) -> None:
    """Issue 22 class 1 replayed from a rollout: `apply_patch` (a custom tool call) fails on one
    file five times, each hunk a little different, and the file is never read between. With no
    workspace to look at, the 5th try is denied until the file is read (LOOP_GUARD_TARGET); with
    it (the default), the replay reads from each recorded failure what the live hook would have
    found in the file, a hunk it does not hold, and denies from the 3rd on; no other call is
    acted on."""

    def record(t: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": f"2026-03-02T09:{t // 60:02d}:{t % 60:02d}.000Z", "type": kind, "payload": payload}

    def patch(t: int, cid: str, line: str) -> list[dict[str, Any]]:
        text = f"*** Begin Patch\n*** Update File: src/parser.py\n@@\n-    {line}\n+    {line}.strip()\n*** End Patch"
        failed = f"apply_patch verification failed: Failed to find expected lines in /w/src/parser.py:\n    {line}"
        return [
            record(t, "response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": text, "call_id": cid,
                                        "status": "completed"}),
            record(t + 1, "response_item", {"type": "custom_tool_call_output", "call_id": cid, "output": failed}),
        ]

    meta = {"id": "019c0000-0000-7000-8000-000000000003", "timestamp": "2026-03-02T09:00:00.000Z", "cwd": "/w",
            "originator": "codex_cli_rs", "cli_version": "0.111.0"}
    records = [record(0, "session_meta", meta),
               record(1, "response_item", {"type": "message", "role": "user",
                                           "content": [{"type": "input_text", "text": "strip the token"}]})]
    lines = ["return tokens[1]", "return tokens[1] ", "return tokens[ 1 ]", "return (tokens[1])", "return tokens[1]  # first"]
    for i, line in enumerate(lines):
        records += patch(4 + 5 * i, f"p{i}", line)
    path = tmp_path / "rollout-2026-03-02T09-00-00-019c0000-0000-7000-8000-000000000003.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    for evidence, denied in ((False, [5]), (True, [3, 4, 5])):
        report = replay.replay(replay.read_transcript(str(path)), balanced(workspace_evidence=evidence))
        assert [c.tool for c in report.calls] == ["apply_patch"] * 5
        acted = [(c.index, c.pre.action, c.pre.rule) for c in report.calls if c.pre is not None and c.pre.action != "allow"]
        assert acted == [(n, "deny", "LOOP_GUARD_TARGET") for n in denied]


def test_a_block_of_events_at_one_instant_gets_the_models_turns() -> None:
    """A Claude Code 1.0.56 transcript of a resumed session gives the history it copies one time
    (public transcript of 2025-07: 137 of 185 events at one millisecond): a run of
    `UNTIMED_RUN` events or more at one instant is spaced out before the next event; a short
    run (one batch's results coming back together) keeps its times."""
    from loopguard_hook.replay.model import UNTIMED_RUN, RecordedEvent, respaced

    def ev(t: float, name: str) -> RecordedEvent:
        return RecordedEvent(t, {"hook_event_name": name})

    block = [ev(50.0, name) for _ in range(UNTIMED_RUN // 2) for name in ("PreToolUse", "PostToolUse")]
    events = [ev(1.0, "SessionStart"), *block, ev(60.0, "PreToolUse")]
    out, made_up = respaced(events)
    times = [e.time for e in out]
    assert made_up and times[0] == 1.0 and times[-1] == 60.0
    assert times == sorted(times) and len(set(times)) == len(times)
    assert times[3] - times[2] == pytest.approx(replay.model.SYNTHETIC_TURN)  # a call made after a result
    batch = [ev(1.0, "SessionStart"), ev(5.0, "PreToolUse"), ev(5.0, "PreToolUse"), ev(9.0, "PostToolUse"),
             ev(9.0, "PostToolUse"), ev(9.0, "PostToolBatch"), ev(12.0, "PreToolUse")]
    assert respaced(batch) == (batch, False)


def test_a_patch_wall_sent_through_codexs_shell_is_judged_from_the_calls_record(tmp_path: Path) -> None:
    """Corpus rollouts of 2025 (Codex 0.4x-0.6x) send patches as `shell` argv, `["apply_patch",
    PATCH]`, with a relative path: the hook payload alone cannot tell the folder, but the call's
    record in the rollout can, and the live hook reads it (`hosts.rollout.call_record`). A wall
    of three patches of one file that did not fit, with a read between each, is denied at the
    third, with the record's `workdir` or without; a record whose line the shell rewrites (`bash
    -lc "apply_patch …"`) is not judged."""

    def record(t: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": f"2025-11-06T09:{t // 60:02d}:{t % 60:02d}.000Z", "type": kind, "payload": payload}

    def calls(argv: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for i, line in enumerate(["return tokens[1]", "return tokens[ 1 ]", "return (tokens[1])"]):
            text = f"*** Begin Patch\n*** Update File: src/parser.py\n@@\n-    {line}\n+    {line}.strip()\n*** End Patch"
            failed = f"apply_patch verification failed: Failed to find expected lines in /w/src/parser.py:\n    {line}"
            t = 4 + 10 * i
            out += [
                record(t, "response_item", {"type": "function_call", "name": "shell", "call_id": f"p{i}",
                                            "arguments": json.dumps(argv(text))}),
                record(t + 1, "response_item", {"type": "function_call_output", "call_id": f"p{i}",
                                                "output": json.dumps({"output": failed, "metadata": {"exit_code": 1}})}),
                record(t + 2, "response_item", {"type": "function_call", "name": "shell", "call_id": f"r{i}",
                                                "arguments": json.dumps({"command": ["sed", "-n", "1,40p", "src/parser.py"]})}),
                record(t + 3, "response_item", {"type": "function_call_output", "call_id": f"r{i}",
                                                "output": json.dumps({"output": "def first(tokens):\n    return tokens[0]\n",
                                                                      "metadata": {"exit_code": 0}})}),
            ]
        return out

    meta = {"id": "019a0000-0000-7000-8000-000000000004", "timestamp": "2025-11-06T09:00:00.000Z", "cwd": "/w",
            "originator": "codex_cli_rs", "cli_version": "0.53.0"}
    shapes = [
        (lambda text: {"command": ["apply_patch", text]}, [5]),
        (lambda text: {"command": ["apply_patch", text], "workdir": "/w/pkg"}, [5]),
        (lambda text: {"command": ["bash", "-lc", f'apply_patch "{text}"']}, []),
    ]
    for argv, denied in shapes:
        records = [record(0, "session_meta", meta),
                   record(1, "response_item", {"type": "message", "role": "user",
                                               "content": [{"type": "input_text", "text": "strip the token"}]})]
        records += calls(argv)
        path = tmp_path / "rollout-2025-11-06T09-00-00-019a0000-0000-7000-8000-000000000004.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        report = replay.replay(replay.read_transcript(str(path)), balanced())
        acted = [(c.index, c.pre.action, c.pre.rule) for c in report.calls if c.pre is not None and c.pre.action != "allow"]
        assert acted == [(n, "deny", "LOOP_GUARD_TARGET") for n in denied], (argv("x"), acted)


def test_the_state_markers_of_a_2025_08_rollout_are_not_skipped_lines() -> None:
    """A Codex rollout of 2025-08 (bare items after an `{id, instructions}` header) writes
    `{"record_type": "state"}` after each turn: nothing to replay, and not "unreadable or
    unknown" either (the replay said 167 lines skipped for one such corpus rollout)."""
    path = Path(__file__).parent / "corpus" / "codex" / "rollout-2025-08-20T01-42-25-fa24fee9-636c-405a-b4bd-5c35ae3bde6d.jsonl"
    markers = sum('"record_type":"state"' in line for line in path.read_text(encoding="utf-8").splitlines())
    assert markers > 100
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    assert report.calls and report.summary.skipped_lines == 0


def test_a_rollouts_calls_that_fire_no_hook_are_counted_and_said_not_judged(tmp_path: Path) -> None:
    """Codex 0.171.0 runs no hook for code mode's `exec` and `wait` (`CODEX_UNHOOKED_TOOLS`): a
    rollout of them replays as no call, and the report says how many there were, by tool, so
    that '0 calls' is not read as a session the guard judged (a blind hunt's finding)."""

    def record(t: int, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": f"2026-08-01T07:00:{t:02d}.000Z", "type": "response_item", "payload": payload}

    meta = {"id": "019c0000-0000-7000-8000-000000000009", "timestamp": "2026-08-01T07:00:00.000Z", "cwd": "/w",
            "originator": "codex_cli_rs", "cli_version": "0.171.0"}
    records = [{"timestamp": "2026-08-01T07:00:00.000Z", "type": "session_meta", "payload": meta},
               record(1, {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]})]
    for i, name in enumerate(["exec", "exec", "wait", "exec"]):
        records += [record(2 + 2 * i, {"type": "function_call", "name": name, "arguments": "{}", "call_id": f"c{i}"}),
                    record(3 + 2 * i, {"type": "function_call_output", "call_id": f"c{i}", "output": "ok"})]
    path = tmp_path / "rollout-2026-08-01T07-00-00-019c0000-0000-7000-8000-000000000009.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    assert report.calls == () and report.unseen == (("exec", 3), ("wait", 1))
    assert "(4 more calls no hook fires for (exec 3, wait 1): not judged" in replay.format_text(report)
    assert json.loads(replay.render([report], "json"))["reports"][0]["unhooked_calls"] == {"exec": 3, "wait": 1}


def test_a_batchs_answer_names_its_last_call_when_every_call_had_its_own_events() -> None:
    """A wall reminded at PostToolBatch after a parallel batch whose calls each had their own
    events (public transcript 9a6e9f2f in the corpus, two reminders): the report named no call
    and no `tool_use_id` for it (a new hunt's replay, three such reminders of one subagent). It
    names the batch's last call of the reminded tool."""
    path = Path(__file__).parent / "corpus" / "claude" / "9a6e9f2f-17d2-46d1-b68a-cea0a7a21158.jsonl"
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    batch = [d for d in report.decisions if d.event == "PostToolBatch"]
    assert len(batch) == 2
    for decided in batch:
        assert decided.call is not None and decided.tool_use_id is not None
        row = report.calls[decided.call - 1]
        assert (row.index, row.tool_use_id, row.tool) == (decided.call, decided.tool_use_id, decided.tool)


def test_a_batch_answer_for_calls_another_hook_blocked_is_shown_on_their_row() -> None:
    # The calls had a PreToolUse and no post event (another hook blocked them): the PostToolBatch
    # that ends the turn at a broken hook's wall was counted but shown on no row (a new user's run).
    path = Path(__file__).parent / "corpus" / "claude" / "5aab28de-84f9-4096-9c8b-6f9bc4360a2c.jsonl"
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    (stop,) = [d for d in report.decisions if d.verdict.action == "stop"]
    row = report.calls[stop.call - 1]  # type: ignore[operator]
    assert (row.recorded, row.post) == ("denied", stop.verdict) and stop.verdict.rule == "LOOP_GUARD_WALL"
    assert row.acted and report.summary.stops == 1


def test_a_turn_ended_at_a_stop_counts_once_whatever_stops_follow_it() -> None:
    # A Stop hook sent the agent on again and again: the guard ends the turn at the first Stop
    # with a text loop; the Stops after it in that turn would not have come. The summary counted
    # each of the six (three in each of two turns) as a stop of its own.
    path = Path(__file__).parent / "corpus" / "claude" / "08e71d8b-0aea-497b-a055-c2b46fcdcdc4.jsonl"
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    at_stop = [d for d in report.decisions if d.event == "Stop" and d.verdict.action == "stop"]
    assert len(at_stop) == 6  # all still listed
    assert report.summary.stops == 2


def test_a_call_after_a_turn_ended_at_a_stop_is_one_the_model_would_not_have_made() -> None:
    # The same session cut at the first Stop the guard ends the turn at, and a call of that turn
    # after it (a Stop hook sent the agent on): it was counted as made, its decisions as well.
    from dataclasses import replace as replaced

    path = Path(__file__).parent / "corpus" / "claude" / "08e71d8b-0aea-497b-a055-c2b46fcdcdc4.jsonl"
    recording = replay.read_transcript(str(path))
    first = next(d for d in replay.replay(recording, balanced()).decisions if d.event == "Stop")
    end = recording.events[first.step - 1]
    assert end.payload["hook_event_name"] == "Stop"
    base = {k: end.payload[k] for k in ("session_id", "transcript_path", "cwd")}
    tool = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_after_the_end"}
    after = [
        replay.RecordedEvent(end.time + 1, {**base, "hook_event_name": "PreToolUse", **tool}),
        replay.RecordedEvent(end.time + 2, {**base, "hook_event_name": "PostToolUse", **tool,
                                            "tool_response": {"stdout": "a", "stderr": "", "interrupted": False}}),
    ]
    report = replay.replay(replaced(recording, events=(*recording.events[: first.step], *after)), balanced())
    assert (report.summary.stops, report.summary.saved) == (1, 1)
    last = report.calls[-1]
    assert (last.tool_use_id, last.recorded, last.saved, last.unmade) == ("toolu_after_the_end", "ran", True, True)


def test_the_interventions_of_a_loop_are_those_the_summary_counts() -> None:
    # The loop's interventions counted the stops on calls made after the turn had ended (11), the
    # summary did not (2 reminders, 3 denials, 1 stop).
    path = Path(__file__).parent / "corpus" / "claude" / "c98c48ce-b4da-46d1-8f72-965d60d6e589.jsonl"
    report = replay.replay(replay.read_transcript(str(path)), balanced())
    s = report.summary
    assert (s.reminders, s.denials, s.stops) == (2, 3, 1)
    assert [loop.interventions for loop in report.loops] == [s.reminders + s.denials + s.stops]
    assert [c.index for c in report.calls if c.unmade] == list(range(16, 22))
