"""Replay fidelity: a blocking Stop hook's feedback is a continuation, not a user prompt; a Codex
command starts its wall time before its output."""

from __future__ import annotations

import json
from pathlib import Path

from loopguard_hook.replay.readers import load


def test_stop_hook_feedback_replays_as_a_continuation(tmp_path: Path) -> None:
    """Claude Code feeds a blocking Stop hook's reason back as a user message and fires no
    UserPromptSubmit; the next Stop has `stop_hook_active` (research/claude-code-e2e.md)."""
    base = {"sessionId": "s1", "cwd": "/p", "timestamp": "2025-07-09T16:11:39.000Z"}
    wrapped = (
        "<system-reminder>\nThe text below is the output of a hook that the user set up.\nStop hook feedback:\n"
        "[uv run stop.py]: error\n</system-reminder>"
    )
    records = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "why does it fail?"}},
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Because of X."}],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u2",
            "message": {"role": "user", "content": "Stop hook feedback:\n- [uv run stop.py]: error"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a2",
            "message": {
                "id": "m2",
                "role": "assistant",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "X, again."}],
            },
        },
        {**base, "type": "user", "uuid": "u3", "message": {"role": "user", "content": [{"type": "text", "text": wrapped}]}},
        {
            **base,
            "type": "assistant",
            "uuid": "a3",
            "message": {"id": "m3", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "X."}]},
        },
        {**base, "type": "user", "uuid": "u4", "message": {"role": "user", "content": "thanks, next"}},
        {
            **base,
            "type": "assistant",
            "uuid": "a4",
            "message": {
                "id": "m4",
                "role": "assistant",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Sure."}],
            },
        },
    ]
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    events = [(e.payload["hook_event_name"], e.payload.get("stop_hook_active")) for e in load([str(path)])[0].events]
    assert [e for e in events if e[0] in ("UserPromptSubmit", "Stop")] == [
        ("UserPromptSubmit", None),
        ("Stop", False),
        ("Stop", True),
        ("Stop", True),
        ("UserPromptSubmit", None),
        ("Stop", False),
    ]


def test_a_turn_left_without_stop_reason_ends_at_the_feedback(tmp_path: Path) -> None:
    """Transcripts of 2025-07 leave `stop_reason` null on a turn's last message: the Stop hook's
    feedback right after it shows that the turn ended there, so the Stop is replayed."""
    base = {"sessionId": "s2", "cwd": "/p", "timestamp": "2025-07-09T16:11:39.000Z"}

    def said(uuid: str, text: str) -> dict[str, object]:
        content = [{"type": "text", "text": text}]
        return {
            **base,
            "type": "assistant",
            "uuid": uuid,
            "message": {"id": uuid, "role": "assistant", "stop_reason": None, "content": content},
        }

    feedback = {**base, "type": "user", "message": {"role": "user", "content": "Stop hook feedback:\n- [stop.py]: error"}}
    records = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "fix it"}},
        said("a1", "Change line 37."),
        {**feedback, "uuid": "u2"},
        said("a2", "Edit line 37."),
        {**feedback, "uuid": "u3"},
    ]
    path = tmp_path / "s2.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    stops = [
        (e.payload.get("stop_hook_active"), e.payload.get("last_assistant_message"))
        for e in load([str(path)])[0].events
        if e.payload["hook_event_name"] == "Stop"
    ]
    assert stops == [(False, "Change line 37."), (True, "Edit line 37.")]


def test_a_codex_command_starts_its_wall_time_before_its_output(tmp_path: Path) -> None:
    """Codex 0.6x rollouts write a command's call and output at one time, the output stating
    how long it ran: the PreToolUse is replayed that long before (as the live hook sees it), and
    never before the events already replayed."""
    from loopguard_hook.replay.codex_tools import wall_seconds

    assert wall_seconds("Exit code: 124\nWall time: 120 seconds\nOutput:\n") == 120.0
    assert wall_seconds("Exit code: 0\nOutput:\nok\n") is None
    assert wall_seconds("Wall time: 5 seconds, said the log") is None

    def record(t: str, kind: str, payload: dict[str, object]) -> dict[str, object]:
        return {"timestamp": f"2025-11-28T21:{t}Z", "type": kind, "payload": payload}

    def call(t: str, cid: str, command: str, output: str) -> list[dict[str, object]]:
        args = json.dumps({"command": command, "workdir": "/w"})
        return [
            record(t, "response_item", {"type": "function_call", "name": "shell_command", "arguments": args, "call_id": cid}),
            record(t, "response_item", {"type": "function_call_output", "call_id": cid, "output": output}),
        ]

    meta = {"id": "019a0000-0000-7000-8000-000000000001", "timestamp": "2025-11-28T21:00:00.000Z", "cwd": "/w"}
    records = [
        record("00:00.000", "session_meta", {**meta, "originator": "codex_cli_rs", "cli_version": "0.63.0"}),
        record("00:01.000", "turn_context", {"cwd": "/w", "approval_policy": "never", "model": "gpt-5.1-codex-max"}),
        record(
            "00:02.000", "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "push"}]}
        ),
        *call("00:10.000", "c1", "git status", "Exit code: 0\nWall time: 0 seconds\nOutput:\nclean\n"),
        *call("02:15.000", "c2", "git push", "Exit code: 124\nWall time: 120 seconds\nOutput:\n"),
        *call("02:20.000", "c3", "git push origin main", "Exit code: 124\nWall time: 300 seconds\nOutput:\n"),
    ]
    path = tmp_path / "rollout-2025-11-28T21-00-00-019a0000-0000-7000-8000-000000000001.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    events = load([str(path)])[0].events
    times = {(e.payload["hook_event_name"], e.payload.get("tool_use_id")): e.time for e in events}
    assert times[("PostToolUse", "c2")] - times[("PreToolUse", "c2")] == 120.0
    assert times[("PreToolUse", "c3")] == times[("PostToolUse", "c2")]  # not before the push before it
    assert times[("PreToolUse", "c1")] == times[("PostToolUse", "c1")]
