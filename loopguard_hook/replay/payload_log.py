"""Reader of hook payload logs: one hook payload per line, bare or wrapped as `{"payload": {...}}`
(the shape of the captured `payloads/*/all.jsonl` files), with an optional wrapper time (`ts`,
`time` or `timestamp`) or the payload's own ISO 8601 `timestamp` (Gemini CLI, Qwen Code). A log
may hold several sessions: one recording each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .claude_code_tools import classify_claude_result
from .jsonl import Clock, Line, timestamp
from .model import Format, Outcome, RecordedCall, RecordedEvent, Recording, synthetic_offsets
from .reader import Reader


def recognises(data: Mapping[str, Any]) -> bool:
    """True for a hook payload (it names its `hook_event_name`), bare or under `payload`."""
    if isinstance(data.get("hook_event_name"), str):
        return True
    inner = data.get("payload")
    return isinstance(inner, dict) and isinstance(inner.get("hook_event_name"), str)


def read(path: str, lines: list[Line], skipped: int) -> list[Recording]:
    """The sessions of one payload log file."""
    return payload_recordings(path, [(ln.number, ln.data) for ln in lines], skipped)


def payload_recordings(source: str, items: Iterable[tuple[int, Any]], skipped: int = 0) -> list[Recording]:
    """Group payload-log lines (bare payloads or `{"payload": …}` wrappers) by session."""
    by_session: dict[str, list[tuple[float | None, dict[str, Any], int]]] = {}
    for number, item in items:
        if not isinstance(item, Mapping):
            skipped += 1
            continue
        inner = item.get("payload")
        payload: Mapping[str, Any] = inner if isinstance(inner, Mapping) else item
        if not isinstance(payload.get("hook_event_name"), str):
            skipped += 1
            continue
        session_id = payload.get("session_id")
        key = session_id if isinstance(session_id, str) else ""
        # A wrapper's time, else the payload's own (Gemini CLI and Qwen Code send `timestamp`).
        wrapper = ("ts", "time", "timestamp") if payload is not item else ()
        candidates = [item.get(name) for name in wrapper] + [payload.get("timestamp")]
        when = next((t for t in map(timestamp, candidates) if t is not None), None)
        by_session.setdefault(key, []).append((when, dict(payload), number))
    recordings = []
    for session_id, rows in by_session.items():
        synthetic = any(when is None for when, _, _ in rows)
        clock = Clock()
        events = []
        made_up = synthetic_offsets(payload["hook_event_name"] for _, payload, _ in rows)
        for (when, payload, number), offset in zip(rows, made_up, strict=True):
            events.append(RecordedEvent(clock.at(offset if synthetic else when), payload, source, number))
        recordings.append(
            Recording(
                sources=(source,),
                format=Format.HOOK_PAYLOADS,
                client=None,
                session_id=session_id,
                events=tuple(events),
                calls=_payload_calls(events),
                cwd=next((e.payload["cwd"] for e in events if isinstance(e.payload.get("cwd"), str)), None),
                skipped_lines=skipped,
                synthetic_times=synthetic,
            )
        )
        skipped = 0  # counted once, on the first session of the file
    return recordings


def _payload_calls(events: Iterable[RecordedEvent]) -> dict[str, RecordedCall]:
    calls: dict[str, RecordedCall] = {}
    for event in events:
        data = event.payload
        name = data.get("hook_event_name")
        tool_use_id = data.get("tool_use_id")
        if name == "PostToolUse" and isinstance(tool_use_id, str):
            calls[tool_use_id] = RecordedCall(tool_use_id, Outcome.RAN)
        elif name == "PostToolUseFailure" and isinstance(tool_use_id, str):
            interrupted = data.get("is_interrupt") is True
            calls[tool_use_id] = RecordedCall(tool_use_id, Outcome.INTERRUPTED if interrupted else Outcome.FAILED)
        elif name == "PostToolBatch" and isinstance(data.get("tool_calls"), list):
            for item in data["tool_calls"]:
                if isinstance(item, dict) and isinstance(item.get("tool_use_id"), str) and item["tool_use_id"] not in calls:
                    outcome = classify_claude_result(item.get("tool_response"), False)
                    if outcome in (Outcome.REJECTED, Outcome.DENIED, Outcome.REFUSED):
                        calls[item["tool_use_id"]] = RecordedCall(item["tool_use_id"], outcome)
    return calls


READER = Reader(Format.HOOK_PAYLOADS, "hook payload log", recognises, read, transcript=False)
