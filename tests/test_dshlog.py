"""Text loops on DSH: the assistant's text read from DSH's zstd session log at Stop.

The logs in tests/data/dsh/ were written by the real DSH 0.1.0-rc.8 (both hook bridges, in its
default `workspace-write` sandbox, `loopguard-hook` registered on every event) running
`repeat_final.json`: one `read`, then a final answer whose line repeats ten times. See
tests/data/dsh/README.md. Torn, partial and corrupt files are made from those real bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from loopguard_hook.hook import HookOptions, run
from loopguard_hook.hosts import dshlog

# The package's own dependency (Python < 3.14; `compression.zstd` after): these tests write real
# zstd frames with it. Where the package was not installed with its dependencies, they skip.
zstd = pytest.importorskip("compression.zstd" if sys.version_info >= (3, 14) else "backports.zstd")

DATA = Path(__file__).parent / "data" / "dsh"
LOGS = sorted(DATA.glob("*.session.jsonl.zstd"))
BUDGET = 262144
LINE = "I am checking the notes file again to be sure it says alpha."


def frames(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        size = zstd.get_frame_size(data[pos:])
        out.append(data[pos : pos + size])
        pos += size
    return out


def records(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in zstd.decompress(data).splitlines() if line.strip()]


@pytest.fixture(params=LOGS, ids=[p.name.split(".")[0] for p in LOGS])
def real_log(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    home = tmp_path / "dsh" / "sessions" / "--project--" / "session-1"
    home.mkdir(parents=True)
    path = home / "session.jsonl.zstd"
    shutil.copyfile(request.param, path)
    return path


def test_the_real_logs_are_what_the_tests_say() -> None:
    assert len(LOGS) == 2
    for log in LOGS:
        data = log.read_bytes()
        assert len(frames(data)) >= 8, "several independent frames"
        kinds = [r["type"] for r in records(data)]
        assert "assistant/chunk" in kinds and kinds.count("assistant/message") == 2
        assert {"point": "Stop"}.items() <= next(r["data"] for r in records(data) if r["type"] == "hook/invoked"
                                                  and r["data"]["point"] == "Stop").items()


def test_the_final_message_and_the_texts_of_a_real_log(real_log: Path) -> None:
    found = dshlog.read_new_texts({}, str(real_log), BUDGET)
    assert found.stop_seen
    assert [text.count(LINE) for _, text in found.texts] == [10], "the tool-call step has no text; chunks skipped"
    assert found.final is not None and found.final[1].startswith("FINAL: the notes say alpha.")
    assert found.final == found.texts[-1]


def test_nothing_new_is_nothing_read_again(real_log: Path) -> None:
    tail: dict[str, Any] = {}
    dshlog.read_new_texts(tail, str(real_log), BUDGET)
    assert tail["offset"] == real_log.stat().st_size
    again = dshlog.read_new_texts(tail, str(real_log), BUDGET)
    assert again.texts == [] and again.final is None and not again.stop_seen


def test_incremental_reads_at_frame_boundaries(real_log: Path) -> None:
    data = real_log.read_bytes()
    parts = frames(data)
    # the last assistant/message is in one of the last frames: cut before it
    cut = next(i for i in range(len(parts) - 1, -1, -1) if any(r["type"] == "assistant/message" for r in records(parts[i])))
    real_log.write_bytes(b"".join(parts[:cut]))
    tail: dict[str, Any] = {}
    first = dshlog.read_new_texts(tail, str(real_log), BUDGET)
    assert first.texts == [] and not first.stop_seen
    assert tail["offset"] == len(b"".join(parts[:cut]))
    with open(real_log, "ab") as fh:
        fh.write(b"".join(parts[cut:]))
    second = dshlog.read_new_texts(tail, str(real_log), BUDGET)
    assert len(second.texts) == 1 and second.stop_seen and second.final == second.texts[0]


@pytest.mark.parametrize("cut", [1, 7, 40])
def test_a_torn_last_frame_is_left_for_the_next_read(real_log: Path, cut: int) -> None:
    data = real_log.read_bytes()
    real_log.write_bytes(data[:-cut])
    tail: dict[str, Any] = {}
    torn = dshlog.read_new_texts(tail, str(real_log), BUDGET)
    last = frames(data)[-1]
    assert tail["offset"] == len(data) - len(last), "the offset stays at the torn frame's start"
    with open(real_log, "ab") as fh:
        fh.write(data[-cut:])
    rest = dshlog.read_new_texts(tail, str(real_log), BUDGET)
    assert tail["offset"] == len(data)
    assert len(torn.texts) + len(rest.texts) == 1
    assert torn.stop_seen or rest.stop_seen


def test_a_corrupt_frame_in_the_middle_is_skipped(real_log: Path) -> None:
    parts = frames(real_log.read_bytes())
    bad = bytearray(parts[3])
    bad[len(bad) // 2] ^= 0xFF  # a checksummed frame: decoding fails
    real_log.write_bytes(b"".join(parts[:3]) + bytes(bad) + b"".join(parts[4:]))
    found = dshlog.read_new_texts({}, str(real_log), BUDGET)
    assert found.stop_seen and found.final is not None


def test_garbage_between_frames_is_stepped_over(real_log: Path) -> None:
    parts = frames(real_log.read_bytes())
    real_log.write_bytes(b"".join(parts[:2]) + b"\x00garbage\x28\xb5" + b"".join(parts[2:]))
    found = dshlog.read_new_texts({}, str(real_log), BUDGET)
    assert found.stop_seen and len(found.texts) == 1


def test_a_long_log_is_read_from_a_frame_in_its_last_budget_bytes(real_log: Path) -> None:
    data = real_log.read_bytes()
    parts = frames(data)
    budget = len(parts[-1]) + len(parts[-2]) + 10  # lands inside an earlier frame
    found = dshlog.read_new_texts({}, str(real_log), max(budget, 64))
    assert found.stop_seen
    assert dshlog.read_new_texts({"offset": 5}, str(real_log), len(data)).stop_seen, "a bad offset starts over"


def test_a_frame_that_decodes_to_far_more_than_the_budget_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl.zstd"
    text = "x" * 2_000_000
    big = json.dumps({"type": "assistant/message", "data": {"message": {"id": "m", "content": [{"type": "text", "text": text}]}}})
    big_line = big.encode() + b"\n"
    good = b'{"type": "hook/invoked", "data": {"point": "Stop"}}\n'
    path.write_bytes(zstd.compress(big_line) + zstd.compress(good))
    found = dshlog.read_new_texts({}, str(path), 4096)
    assert found.texts == [] and found.stop_seen


class Counting:
    """The decompressor, counting the calls to `get_frame_size` and the most bytes they can
    have walked: the frame found, or all the bytes a call that failed was given."""

    ZstdError = zstd.ZstdError
    ZstdDecompressor = zstd.ZstdDecompressor

    def __init__(self) -> None:
        self.calls = 0
        self.walked = 0

    def get_frame_size(self, buffer: memoryview) -> int:
        self.calls += 1
        try:
            size: int = zstd.get_frame_size(buffer)
        except zstd.ZstdError:
            self.walked += len(buffer)
            raise
        self.walked += size
        return size


def nested_frames(count: int, empty_blocks: int) -> bytes:
    """`count` frame headers, each frame's first raw block holding the frames after it, then
    `empty_blocks` empty raw blocks, none of them the last: every frame's chain of blocks runs to
    the end of the file, so each magic number costs a walk of all those blocks and fails."""
    def raw_block(size: int) -> bytes:
        return (size << 3).to_bytes(3, "little")

    head = b"".join(dshlog.MAGIC + b"\x00\x38" + raw_block(9 * (count - 1 - k)) for k in range(count))
    return head + raw_block(0) * empty_blocks


# 261 KB: the search tried each of the 14000 magic numbers, 2 s a read (a core's worth per event)
NESTED = nested_frames(14000, 45000)


def test_nested_frames_cost_a_bounded_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Crafted frames whose chains all run to the end made the search for a whole frame walk
    the rest of the file at every magic number: quadratic. The walk is now bounded by the bytes
    read, the unreadable bytes are passed over, and the next read does not search them again."""
    counting = Counting()
    monkeypatch.setattr(dshlog, "_zstd", lambda: counting)
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(NESTED)
    tail: dict[str, Any] = {}
    found = dshlog.read_new_texts(tail, str(path), len(NESTED))
    assert counting.walked <= (dshlog.SCAN_RATIO + 1) * len(NESTED), counting.calls
    assert found.texts == [] and found.skipped == 1
    assert tail["offset"] == len(NESTED), "past the bytes it gave up on"
    calls = counting.calls
    good = b'{"type": "hook/invoked", "data": {"point": "Stop"}}\n'
    with open(path, "ab") as fh:
        fh.write(zstd.compress(good))
    assert dshlog.read_new_texts(tail, str(path), len(NESTED)).stop_seen, "what comes after is read"
    assert counting.calls == calls + 1 and tail["offset"] == path.stat().st_size
    counting.walked = 0
    assert dshlog.read_new_texts({}, str(path), 4096).stop_seen, "the last frame found by a resync"
    assert counting.walked <= (dshlog.SCAN_RATIO + 1) * 4096


def test_a_replay_of_nested_frames_costs_a_bounded_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting()
    monkeypatch.setattr(dshlog, "_zstd", lambda: counting)
    good = zstd.compress(b'{"type": "hook/invoked", "data": {"point": "Stop"}}\n')
    records, skipped = dshlog.decode_all(good + NESTED)
    assert counting.walked <= (dshlog.SCAN_RATIO + 1) * len(good + NESTED), counting.calls
    assert records.startswith(b'{"type": "hook/invoked"') and skipped == 1


def test_many_tiny_frames_cost_a_bounded_number_of_decoders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crafted log of 9-byte empty frames: each costs a decompressor whatever its size, so the
    frames one read decodes are bounded (`MIN_FRAMES`, one per `FRAME_BYTES` read), the rest is
    skipped and consumed, and a frame written after it is read (before: one decoder per frame,
    past the deadline for 16 MiB)."""
    counting = Counting()
    monkeypatch.setattr(dshlog, "_zstd", lambda: counting)
    tiny = bytes.fromhex("28b52ffd2000010000") * 30000
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(tiny)
    tail: dict[str, Any] = {}
    found = dshlog.read_new_texts(tail, str(path), len(tiny))
    assert counting.calls <= dshlog.MIN_FRAMES + 1 < 30000 and found.skipped == 1
    assert tail["offset"] == len(tiny)
    with open(path, "ab") as fh:
        fh.write(zstd.compress(b'{"type": "hook/invoked", "data": {"point": "Stop"}}\n'))
    assert dshlog.read_new_texts(tail, str(path), len(tiny)).stop_seen
    counting.calls = 0
    assert dshlog.decode_all(tiny)[1] == 1 and counting.calls <= dshlog.MIN_FRAMES + 1


def test_stop_polls_until_the_final_message_lands(real_log: Path) -> None:
    """The measured race: at Stop the log ends before the final message for about 0.1 s."""
    data = real_log.read_bytes()
    parts = frames(data)
    cut = next(i for i in range(len(parts) - 1, -1, -1) if any(r["type"] == "assistant/message" for r in records(parts[i])))
    real_log.write_bytes(b"".join(parts[:cut]))

    def late() -> None:
        time.sleep(0.1)
        with open(real_log, "ab") as fh:
            fh.write(b"".join(parts[cut:]))

    writer = threading.Thread(target=late)
    writer.start()
    # a generous wait: how long the real one lasts is measured by bench/, not asserted here
    polls: list[float] = []
    found = dshlog.read_new_texts({}, str(real_log), BUDGET, wait=60.0, sleep=lambda s: (polls.append(s), time.sleep(s)))
    writer.join()
    assert found.stop_seen and found.final is not None and LINE in found.final[1]
    assert polls and set(polls) == {dshlog.POLL_SECONDS}  # it polled, and stopped once the Stop record was there


def test_the_wait_is_bounded(real_log: Path) -> None:
    parts = frames(real_log.read_bytes())
    real_log.write_bytes(b"".join(parts[:3]))
    now = [0.0]
    polls: list[float] = []

    def sleep(seconds: float) -> None:
        polls.append(seconds)
        now[0] += seconds

    found = dshlog.read_new_texts({}, str(real_log), BUDGET, wait=0.3, clock=lambda: now[0], sleep=sleep)
    assert not found.stop_seen and 0.3 <= now[0] < 0.3 + dshlog.POLL_SECONDS + 1e-9  # on its own clock
    assert len(polls) == round(0.3 / dshlog.POLL_SECONDS)


@pytest.mark.parametrize("log", ["torn", "nested"])
def test_a_poll_reads_only_a_log_that_changed(real_log: Path, monkeypatch: pytest.MonkeyPatch, log: str) -> None:
    """Stop's polls read the log again every 20 ms for 0.5 s: a torn last frame that does not
    grow, or bytes scanned in vain, were searched 25 times over."""
    parts = frames(real_log.read_bytes())
    stop = next(i for i, part in enumerate(parts) if any(r["type"] == "hook/invoked" and r["data"]["point"] == "Stop"
                                                         for r in records(part)))
    data = b"".join(parts[: stop + 1])
    # nested: too few for the search to give up on them, so the offset stays at the first
    real_log.write_bytes(data[:-7] if log == "torn" else nested_frames(dshlog.SCAN_RATIO // 2, 3000))
    counting = Counting()
    monkeypatch.setattr(dshlog, "_zstd", lambda: counting)
    dshlog.read_new_texts({}, str(real_log), BUDGET)
    once = counting.calls
    counting.calls = 0
    now = [0.0]
    polls: list[float] = []

    def sleep(seconds: float) -> None:
        polls.append(seconds)
        now[0] += seconds
        if len(polls) == 10 and log == "torn":
            with open(real_log, "ab") as fh:
                fh.write(data[-7:])

    found = dshlog.read_new_texts({}, str(real_log), BUDGET, wait=0.3, clock=lambda: now[0], sleep=sleep)
    assert len(polls) == (10 if log == "torn" else 15)
    assert counting.calls == (once + 1 if log == "torn" else once), "read again once it grew, and only then"
    assert found.stop_seen == (log == "torn")


def test_missing_fifo_and_nul_paths_read_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl.zstd"
    os.mkfifo(fifo)
    assert dshlog.read_new_texts({}, str(fifo), BUDGET, wait=0.1).texts == []  # answers: a FIFO is not waited on
    assert dshlog.read_new_texts({}, str(tmp_path / "nope"), BUDGET).texts == []
    assert dshlog.read_new_texts({}, "a\0b", BUDGET).texts == []
    assert dshlog.read_new_texts({}, None, BUDGET).texts == []
    (tmp_path / "plain").write_bytes(b"not zstd at all\n" * 100)
    assert dshlog.read_new_texts({}, str(tmp_path / "plain"), BUDGET).texts == []


# -- through the hook ---------------------------------------------------------------------------


def _stop(log: Path, cwd: Path, session: str = "session-1", event: str = "Stop") -> bytes:
    """The Claude Code bridge's Stop (captured Stop.json): no last_assistant_message."""
    return json.dumps({"session_id": session, "transcript_path": str(log), "cwd": str(cwd),
                       "hook_event_name": event, "stop_hook_active": False}).encode()


def test_a_dsh_stop_judges_the_final_message_from_the_log(real_log: Path, tmp_path: Path) -> None:
    result = run(_stop(real_log, tmp_path), options=HookOptions(state_dir=str(tmp_path / "state")), environ={}, user_config="")
    assert result.exit_code == 0, result.stderr
    assert result.decision is not None and result.decision.rule.value == "LOOP_GUARD_TEXT"
    assert result.decision.times == 10 and LINE in result.decision.summary  # the run, not the threshold (8)
    ledger = json.loads((tmp_path / "state" / "sessions" / "session-1.json").read_bytes())
    assert ledger["text"]["main"]["tail"]["offset"] == real_log.stat().st_size
    again = run(_stop(real_log, tmp_path), options=HookOptions(state_dir=str(tmp_path / "state")), environ={}, user_config="")
    assert again.exit_code == 0, again.stderr
    assert again.decision is None or again.decision.intended.name == "ALLOW", "the same message is never judged twice"


def test_the_same_final_reply_to_two_prompts_is_seen_on_dsh(tmp_path: Path) -> None:
    """The same-reply rule needs the final message, which DSH's Stop does not carry."""
    log = tmp_path / "dsh" / "sessions" / "--p--" / "session-2" / "session.jsonl.zstd"
    log.parent.mkdir(parents=True)
    reply = "I could not find anything relevant in the repository; please tell me which file you mean exactly."
    state = HookOptions(state_dir=str(tmp_path / "state"))
    decisions = []
    for turn, prompt in enumerate(["where is the config?", "what does main.py do?"], start=1):
        prompt_payload = {"session_id": "session-2", "transcript_path": str(log), "cwd": str(tmp_path),
                          "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        assert run(json.dumps(prompt_payload).encode(), options=state, environ={}, user_config="").exit_code == 0
        message = {"type": "assistant/message", "seq": turn, "data": {"turn": turn, "step": 1, "message": {
            "role": "assistant", "id": f"m{turn}", "content": [{"type": "text", "text": reply}]}}}
        invoked = {"type": "hook/invoked", "seq": turn + 100, "data": {"turn": turn, "point": "Stop"}}
        with open(log, "ab") as fh:
            fh.write(zstd.compress((json.dumps(message) + "\n").encode()))
            fh.write(zstd.compress((json.dumps(invoked) + "\n").encode()))
        result = run(_stop(log, tmp_path, "session-2"), options=state, environ={}, user_config="")
        assert result.exit_code == 0, result.stderr
        decisions.append(result.decision.intended.name if result.decision else None)
    assert decisions[0] in (None, "ALLOW") and decisions[1] == "REMIND"


# -- imports ----------------------------------------------------------------------------------


def _imported(payload: bytes, tmp_path: Path) -> set[str]:
    hook = Path(sys.executable).with_name("loopguard-hook")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOPGUARD_", "PYTHONPROFILE"))}
    result = subprocess.run([str(hook), "--state-dir", str(tmp_path / "state")], input=payload,
                            env=dict(env, PYTHONPROFILEIMPORTTIME="1", LOOPGUARD_RESIDENT="off"),  # in-process
                            capture_output=True, timeout=60)
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_pretooluse_never_imports_the_decompressor(real_log: Path, tmp_path: Path) -> None:
    payload = json.dumps({"session_id": "session-1", "transcript_path": str(real_log), "cwd": str(tmp_path),
                          "hook_event_name": "PreToolUse", "tool_name": "read",
                          "tool_input": {"file_path": "notes.txt"}, "tool_use_id": "call_main_0_0"}).encode()
    modules = _imported(payload, tmp_path)
    assert "loopguard_hook.core.engine" in modules, "importtime output not understood"
    assert not {m for m in modules if "zstd" in m or m == "loopguard_hook.hosts.dshlog" or m.startswith("compression")}
    prompt = json.dumps({"session_id": "session-1", "transcript_path": str(real_log), "cwd": str(tmp_path),
                         "hook_event_name": "UserPromptSubmit", "prompt": "hi"}).encode()
    assert not {m for m in _imported(prompt, tmp_path) if "zstd" in m}


def test_a_dsh_stop_imports_it(real_log: Path, tmp_path: Path) -> None:
    """The control for the test above: the check does see the lazy import."""
    modules = _imported(_stop(real_log, tmp_path), tmp_path)
    assert "backports.zstd" in modules or "compression.zstd" in modules
    assert "loopguard_hook.hosts.dshlog" in modules


def test_a_claude_code_stop_does_not(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    payload = json.dumps({"session_id": "s1", "transcript_path": str(transcript), "cwd": str(tmp_path),
                          "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done",
                          "permission_mode": "default"}).encode()
    assert not {m for m in _imported(payload, tmp_path) if "zstd" in m}


def test_without_the_decompressor_nothing_is_read_and_nothing_breaks(real_log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Any:
        raise ImportError("no zstd decompressor")

    monkeypatch.setattr(dshlog, "_zstd", missing)
    found = dshlog.read_new_texts({}, str(real_log), BUDGET)
    assert found.texts == [] and found.final is None


@pytest.mark.parametrize("point", [["Stop"], {"Stop": 1}, 5, None])
def test_a_hook_record_whose_point_is_not_a_name_is_passed_over(real_log: Path, point: object) -> None:
    """`point` was looked up in a set: a list or object there raised TypeError, which the hook
    takes for a ledger of the wrong shape (the session's counts wiped, a traceback logged)."""
    odd = json.dumps({"type": "hook/invoked", "seq": 10**6, "data": {"point": point}}).encode() + b"\n"
    real_log.write_bytes(real_log.read_bytes() + zstd.compress(odd))
    found = dshlog.read_new_texts({}, str(real_log), BUDGET)
    assert found.stop_seen and found.final is not None
