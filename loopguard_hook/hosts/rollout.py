"""Read what a Codex rollout shows of the tools that fire no hook, incrementally.

Codex 0.171.0 runs `write_stdin` (the tool that polls a command `exec_command` left running, or
types into it) without any hook (research/codex-hooks.md §6, probe P10), so a run of empty polls
of a hung command is seen only in the rollout, the JSONL file `transcript_path` names (§8):

- `response_item` `function_call` `exec_command`, `arguments` a JSON string with `cmd`;
- `response_item` `function_call` `write_stdin`, `arguments` `{"session_id": 21283, "chars": "",
  "yield_time_ms": 120000, ...}` (`chars` "" is a bare poll, `"\\u0003"` a Ctrl-C);
- `response_item` `function_call_output` with the same `call_id`, `output` a text whose header
  says whether the command still runs: `Chunk ID: 1cf850\\nWall time: 120.0018 seconds\\nProcess
  running with session ID 21283\\nOriginal token count: 0\\nOutput:\\n` (nothing printed), or
  `Process exited with code 0`.

A command the execution policy refused (`REFUSED`) fires no post event either: its answer is
read from the rollout too, and judged as the post event would have been (`core/engine.py`).

Record shapes from real rollouts of Codex 0.105-0.111 (tests/corpus) and 0.171.0 probes. Read as
the assistant text is (`transcript.read_new_lines`): from a cursor kept in the ledger, at most a
budget of bytes per event, whole lines only.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.event import Unhooked
from ..core.ledger import Tail
from ..core.outcome import PATCH_REJECTED
from .payload import json_text
from .transcript import json_objects, read_last, read_new_lines

#: A command line or typed text kept per record; longer ones are cut (the signature reads the start).
MAX_TEXT = 1024
#: The header of a Codex command output (Codex 0.1xx), before the command's own output.
_HEADER = (
    r"\A(?:(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count"
    r"|Exit code|Total output lines)\b[^\n]*\n)+Output:\n?"
)
#: How Codex answers a command its execution policy refused before it started (`prefix_rule(…,
#: decision = "forbidden")`, "blocked by policy"): 0.171.0 fires its PreToolUse and no post event,
#: and the model reads `exec_command failed: CreateProcess { message: "Rejected(\"`/bin/bash -lc
#: '…'` rejected: policy forbids commands starting with `git branch`\")" }` (tests/e2e/
#: test_codex_policy.py; the same form in openai/codex#10827, 0.98, and #46012, 0.154).
REFUSED = 'exec_command failed: CreateProcess { message: "Rejected('
#: Codex 0.115 to 0.119 name the command in such an answer, `exec_command failed for `CMD`:
#: CreateProcess { … }` (also `SandboxDenied { … }`: public rollouts of 0.115.0-alpha.27,
#: 0.118.0-alpha.2 and 0.119.0-alpha.11); `exec_failure` reads it as the other releases write it.
_FAILED_FOR = r"\Aexec_command failed for `.*?`: (?=[A-Z][A-Za-z]* \{)"
_REFUSAL_END = r'\\?"\)"\s*\}\s*\Z'
_RUNNING = r"^Process running with session ID (\d+)"
_EXITED = r"^(?:Process exited with code|Exit code:) ?(-?\d+)"


def read_unhooked(tail: Tail, path: str | None, budget: int) -> list[Unhooked]:
    """The unhooked calls and outputs written to the rollout at `path` since `tail` (updated).
    When more than `budget` bytes were written since, the reader skips to the last `budget`
    bytes, and a file cut short in place is read again near its end: a `gap` item comes first
    then, since what was skipped may have cleared a hang."""
    known = (tail.get("path"), tail.get("ino"))
    before = tail.get("offset")
    lines = read_new_lines(tail, path, budget)
    after = tail.get("offset")
    gap: list[Unhooked] = []
    if known == (tail.get("path"), tail.get("ino")) and type(before) is int and before >= 0 and type(after) is int:
        if after < before or after - before > sum(len(line) + 1 for line in lines):
            gap = [Unhooked("gap", "")]
    wanted = [line for line in lines if b"function_call" in line or b"custom_tool_call_output" in line]
    return gap + [item for record in json_objects(wanted) for item in unhooked_items(record)]


def unhooked_items(record: dict[str, Any]) -> list[Unhooked]:
    """What one rollout record says of a command session: a `command` (an `exec_command` call),
    a `poll` (a `write_stdin` call) or an `output` (a command's or a poll's output, with the state
    its header gives); or a `refused` call: a command the execution policy refused (`REFUSED`),
    or an apply_patch its sandbox rejected ("patch rejected: writing is blocked by read-only
    sandbox…", `outcome.PATCH_REJECTED`, in a `custom_tool_call_output`), for neither of which
    0.171.0 fires a post event (under `-s read-only`: a new user's run, whose ledger kept both
    rejected patches at their PreToolUse). Other records, and records of unexpected shapes, give
    none."""
    kind = record.get("type")
    # Rollouts of before mid-2025 write response items bare, without the `payload` wrapper.
    bare = kind in ("function_call", "function_call_output")
    payload = record.get("payload") if kind == "response_item" else record if bare else None
    if not isinstance(payload, dict) or not isinstance(payload.get("call_id"), str):
        return []
    call_id = payload["call_id"]
    time = seconds(record.get("timestamp"))
    if payload.get("type") == "function_call":
        name = payload.get("name")
        if name not in ("exec_command", "write_stdin"):
            return []
        args = call_arguments(payload.get("arguments"))
        if name == "exec_command":
            command = args.get("cmd")
            return [Unhooked("command", call_id, time, text=command[:MAX_TEXT])] if isinstance(command, str) else []
        session = args.get("session_id")
        chars = args.get("chars")
        if isinstance(session, bool) or not isinstance(session, int):
            return []
        return [Unhooked("poll", call_id, time, session, chars[:MAX_TEXT] if isinstance(chars, str) else "")]
    if payload.get("type") == "custom_tool_call_output" and isinstance(payload.get("output"), str):
        # apply_patch refused by the sandbox, which fires no post event (`PATCH_REJECTED`)
        rejected = payload["output"].startswith(PATCH_REJECTED)
        return [Unhooked("refused", call_id, time, text=payload["output"][:MAX_TEXT])] if rejected else []
    if payload.get("type") == "function_call_output" and isinstance(payload.get("output"), str):
        output = exec_failure(payload["output"])
        if output.startswith(REFUSED) and "` rejected: " in output:
            return [Unhooked("refused", call_id, time, text=refusal(output))]
        state = command_state(payload["output"])
        if state is not None:
            return [Unhooked("output", call_id, time, state[0], code=state[1], empty=state[2])]
    return []


def exec_failure(output: str) -> str:
    """A command's answer with the name of the command that failed to run taken out, as Codex
    0.171.0 and 0.104-0.106 write it: `exec_command failed for `ls`: CreateProcess { … }` gives
    `exec_command failed: CreateProcess { … }` (`_FAILED_FOR`); any other answer as it is."""
    if not output.startswith("exec_command failed for `"):
        return output
    return re.sub(_FAILED_FOR, "exec_command failed: ", output, count=1, flags=re.DOTALL)


def refusal(output: str) -> str:
    """What a refused command's answer (`REFUSED`, naming the command in backquotes: the user's
    own "rejected by user" does not) says, without the command line it repeats: `exec_command
    failed: rejected: policy forbids commands starting with `git branch``."""
    at = output.rfind("` rejected: ")
    reason = re.sub(_REFUSAL_END, "", output[at + len("` rejected: ") :])
    return f"exec_command failed: rejected: {reason}"[:MAX_TEXT]


def command_state(output: str) -> tuple[int | None, int | None, bool] | None:
    """`(session, exit code, printed nothing)` from a Codex command output's header: the session
    while the command still runs, the exit code once it ended; None when `output` has no header."""
    header = re.match(_HEADER, output[:1024])
    if header is None:
        return None
    head = header.group(0)
    running = re.search(_RUNNING, head, re.M)
    exited = re.search(_EXITED, head, re.M)
    body = output[header.end() :]
    return (
        int(running.group(1)) if running else None,
        int(exited.group(1)) if exited else None,
        not body or body.isspace(),
    )


def call_arguments(raw: Any) -> dict[str, Any]:
    """A `function_call` record's `arguments` (a JSON text, or an object in older rollouts) as an
    object; {} for any other shape."""
    args = json_text(raw) if isinstance(raw, str) else raw
    return args if isinstance(args, dict) else {}


#: How far from a rollout's end the record of the call being judged is looked for (bytes): Codex
#: 0.171.0 writes a call's record before its PreToolUse (`tests/e2e/test_codex.py`), so it is
#: the newest record but for its parallel calls'.
CALL_LOOKBACK_BYTES = 256 * 1024


def call_record(
    path: str | None, call_id: str | None, budget: int = CALL_LOOKBACK_BYTES
) -> tuple[dict[str, Any], str | None] | None:
    """`(arguments, turn cwd)` of the `function_call` record of `call_id` in the rollout at
    `path`: its arguments (a JSON object), and the `cwd` of the newest `turn_context` record
    before it (None when the window holds none), both looked for in the rollout's last `budget`
    bytes. None when the call's record is not there: not written, further back, cut at the
    window's start, no rollout, no regular file. Never raises. Read only for a patch the hook
    payload alone cannot judge (`hosts/workspace.misfit`)."""
    data = read_last(path, budget) if call_id else None
    if data is None or call_id is None:
        return None
    needle = b'"' + call_id.encode("utf-8", "surrogatepass") + b'"'
    lines = data.split(b"\n")
    for i in range(len(lines) - 1, -1, -1):
        if needle not in lines[i] or b"function_call" not in lines[i]:
            continue
        for record in json_objects([lines[i]]):
            payload = record.get("payload") if record.get("type") == "response_item" else record
            if isinstance(payload, dict) and payload.get("type") == "function_call" and payload.get("call_id") == call_id:
                return call_arguments(payload.get("arguments")), _turn_cwd(lines[:i])
    return None


def _turn_cwd(lines: list[bytes]) -> str | None:
    """The `cwd` of the newest `turn_context` record among `lines` (None for none)."""
    for line in reversed(lines):
        if b'"turn_context"' not in line:
            continue
        for record in json_objects([line]):
            payload = record.get("payload")
            if record.get("type") == "turn_context" and isinstance(payload, dict):
                cwd = payload.get("cwd")
                return cwd if isinstance(cwd, str) and cwd else None
    return None


def seconds(stamp: Any) -> float | None:
    """Seconds since the epoch of a rollout `timestamp` (`2026-03-06T15:16:31.062Z`, UTC), or
    None for any other shape or a field out of range (`…T15:16:infZ`). Worked out here:
    `datetime` would cost the hook path its import."""
    if not isinstance(stamp, str) or len(stamp) < 20 or stamp[-1] != "Z" or stamp[4] != "-" or stamp[10] != "T":
        return None
    try:
        year, month, day = int(stamp[0:4]), int(stamp[5:7]), int(stamp[8:10])
        hour, minute, second = int(stamp[11:13]), int(stamp[14:16]), float(stamp[17:-1])
    except ValueError:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31 and 0 <= hour < 24 and 0 <= minute < 60 and 0 <= second < 61):
        return None  # `float` takes `inf` and `nan` too: a ledger holds no such time
    # Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400.0 + hour * 3600 + minute * 60 + second
