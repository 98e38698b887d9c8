"""Bounded memory on DSH session logs: a zstd bomb (tiny frames that decode to megabytes each)
through the hook at Stop and through `replay`, with the peak RSS of the real process measured
(`wait4`'s `ru_maxrss`). Every frame used to be kept: an 11 KB log cost the Stop hook 427 MB and
`replay` 623 MB. The bound asserted is in megabytes, never in seconds.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from test_hardening_helpers import HOOK, dumps, run_measured

from loopguard_hook.hosts import dshlog

zstd = pytest.importorskip("compression.zstd" if sys.version_info >= (3, 14) else "backports.zstd")

#: The peak RSS the issue allows a hook or a replay over a bomb (MB).
PEAK_MB = 300
SESSION = "session-0b0b0b0b-1111-2222-3333-444444444444"


def _record(seq: int, kind: str, data: dict[str, object]) -> bytes:
    return json.dumps({"type": kind, "seq": seq, "time": "2026-12-01T10:00:00.000Z", "data": data}).encode() + b"\n"


def bomb(path: Path, frames: int = 200, text_bytes: int = (4 << 20) - 4096) -> int:
    """A DSH session log whose frames each hold one assistant message of `text_bytes` characters:
    a few hundred bytes each on disk, each just under the 4 MiB a frame of the default 256 KiB read
    may decode to. Returns the bytes it decodes to."""
    head = json.dumps({"type": "session", "id": SESSION, "cwd": str(path.parent), "createdAt": "2026-12-01T10:00:00Z",
                       "delegationDepth": 0}).encode() + b"\n"
    out = [zstd.compress(head)]
    decoded = len(head)
    raw = _record(1, "assistant/message", {"turn": 1, "step": 1, "message": {
        "id": "msg_1", "content": [{"type": "text", "text": "A" * text_bytes}]}})
    frame = zstd.compress(raw, level=19)  # the same message again and again: one compression
    out += [frame] * frames
    decoded += len(raw) * frames
    stop = _record(frames + 1, "hook/invoked", {"point": "Stop", "dialect": "claude-code"})
    out.append(zstd.compress(stop))
    path.write_bytes(b"".join(out))
    return decoded + len(stop)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    folder = tmp_path / ".dsh" / "sessions" / "--project--" / SESSION
    folder.mkdir(parents=True)
    path = folder / "session.jsonl.zstd"
    decoded = bomb(path)
    assert path.stat().st_size < 200 * 1024 and decoded > 700 << 20  # a bomb: < 200 KB, > 700 MB
    return path


def _rss_mb(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """(peak RSS in MB, stdout, stderr) of `argv` run to its end: its own peak, not the test
    process's size that a child inherits until `execve` (`run_measured`)."""
    run = run_measured(argv, stdin, env=env, timeout=600)
    return run.max_rss_kib // 1024, run.stdout, run.stderr


@pytest.mark.parametrize("read_bytes", ["262144", "16777216"])
def test_a_zstd_bomb_at_stop_costs_the_hook_a_bounded_peak(log: Path, tmp_path: Path, read_bytes: str) -> None:
    """Also with `transcript_read_bytes` at its largest (16 MiB of log per event)."""
    payload = {"session_id": SESSION, "transcript_path": str(log), "cwd": str(tmp_path), "hook_event_name": "Stop",
               "stop_hook_active": False}
    env = {**os.environ, "LOOPGUARD_RESIDENT": "off", "LOOPGUARD_TRANSCRIPT_READ_BYTES": read_bytes}
    peak, out, err = _rss_mb([HOOK, "--state-dir", str(tmp_path / "state")], dumps(payload), env)
    assert err == b"" and out == b"", err
    assert peak <= PEAK_MB, f"peak RSS {peak} MB"


def test_a_zstd_bomb_costs_replay_a_bounded_peak(log: Path) -> None:
    env = {**os.environ, "LOOPGUARD_RESIDENT": "off"}
    peak, out, err = _rss_mb([HOOK, "replay", str(log), "--format", "json"], env=env)
    assert peak <= PEAK_MB, f"peak RSS {peak} MB"
    assert b"Traceback" not in err


def test_the_decoded_bytes_of_one_event_are_capped(log: Path) -> None:
    found = dshlog.read_new_texts({}, str(log), 16 << 20)
    assert found.decoded <= dshlog.MAX_DECODED_PER_EVENT + dshlog.AFTER_CAP
    assert found.skipped > 150 and found.texts  # the frames past the cap are skipped, those before read


def test_the_decoded_bytes_of_one_replay_are_capped(log: Path) -> None:
    data = log.read_bytes()
    raw, skipped = dshlog.decode_all(data)
    assert len(raw) <= max(dshlog.MAX_RATIO * len(data), dshlog.MIN_DECODED_PER_LOG) + 4096
    assert skipped > 150
    assert b'"session"' in raw.split(b"\n", 1)[0]  # the frames before the cap are decoded
