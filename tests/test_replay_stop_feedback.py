"""Replay: a blocking Stop hook's feedback is a continuation, not a user prompt."""

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
