"""Every payload is answered, whatever its shape: a PostToolBatch of 100,000 calls, a
`tool_input` or `tool_response` of 2 million keys. The work is bounded early (the first
`MAX_BATCH_CALLS` batch entries; inputs past `MAX_FED_NODES` nodes hashed in one serialisation),
the ledger stays small, and a repeated huge call is still recognised as a repeat. How much CPU
each shape takes is measured by `bench/limits.py`, not asserted here (a loaded machine)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_hardening_helpers import HOOK, at, dumps, post, pre

from loopguard_hook.core.signature import MAX_FED_NODES, call_key
from loopguard_hook.hook import HookOptions, run

BASE = {"session_id": "big", "cwd": "/tmp", "transcript_path": "/tmp/none.jsonl", "tool_name": "Bash", "tool_use_id": "t1"}


def answer(state: Path, payload: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    """The real console script's answer to `payload` (also used by bench/limits.py). The 8 s
    deadline is off: on a loaded machine a 2-million-key payload can take longer to parse, and
    then the hook lets the call through with one line, which is the deadline's own test
    (tests/test_process_io.py); here the work itself must end, and end in an answer."""
    env = {**os.environ, "LOOPGUARD_DEADLINE_SECONDS": "off"}
    return subprocess.run([HOOK, "--state-dir", str(state)], input=orjson.dumps(payload), capture_output=True,
                          timeout=600, env=env)


def _keys(n: int) -> dict[str, int]:
    return {f"k{i}": i for i in range(n)}


#: Built when a test runs, not at collection (each is tens of MB).
CASES: dict[str, Any] = {
    "batch of 100,000 calls": lambda: {**BASE, "hook_event_name": "PostToolBatch", "tool_calls": [
        {"tool_name": "Bash", "tool_input": {"command": f"ls -d src/part{i}"}, "tool_use_id": f"toolu_{i}", "tool_response": "ok"}
        for i in range(100_000)]},
    "tool_input of 2 million keys": lambda: {**BASE, "hook_event_name": "PreToolUse", "tool_input": _keys(2_000_000)},
    "tool_input list of 2 million items": lambda: {**BASE, "hook_event_name": "PreToolUse",
                                                   "tool_input": {"a": list(range(2_000_000))}},
    "tool_response of 2 million keys": lambda: {**BASE, "hook_event_name": "PostToolUse", "tool_input": {"command": "ls"},
                                                "tool_response": _keys(2_000_000)},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_payload_shape_is_answered(name: str, tmp_path: Path) -> None:
    proc = answer(tmp_path, CASES[name]())
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert proc.stdout == b"" or isinstance(orjson.loads(proc.stdout), dict)  # nothing, or one answer
    ledger = tmp_path / "sessions" / "big.json"
    assert ledger.is_file() and ledger.stat().st_size < 256 * 1024, "the ledger keeps digests, not the payload"


def test_a_repeated_huge_input_is_still_a_repeat(tmp_path: Path) -> None:
    tool_input = {f"k{i}": i for i in range(MAX_FED_NODES * 2)}
    options = HookOptions(state_dir=str(tmp_path))
    outs = []
    for i in range(3):
        outs.append(run(dumps(pre("claude-code", "s", "Bash", tool_input, f"t{i}")), options=options, environ={},
                        user_config="", clock=at(1_800_000_000 + 10 * i)))
        done = post("claude-code", "s", "Bash", tool_input, f"t{i}", {"stdout": "", "stderr": ""})
        run(dumps(done), options=options, environ={}, user_config="", clock=at(1_800_000_001 + 10 * i))
    assert [bool(o.stdout) for o in outs] == [False, False, True]
    other = dict(tool_input, k0=-1)
    assert call_key("Bash", other, frozenset()).digest != call_key("Bash", tool_input, frozenset()).digest


def test_normal_inputs_keep_their_signature() -> None:
    """Below the bound the node-by-node hash is unchanged (keys in any order give one digest)."""
    small = {f"k{i}": [i, {"x": str(i)}] for i in range(1000)}
    reordered = dict(reversed(list(small.items())))
    assert call_key("Bash", small, frozenset()).digest == call_key("Bash", reordered, frozenset()).digest
