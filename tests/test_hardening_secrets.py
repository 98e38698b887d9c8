"""Secrets never reach the audit log, the ledger or `status`.

Contract (behavior.md section 8): every non-allow decision is appended to a redacted audit log
with "secrets (tokens, keys, passwords, `Authorization` values) replaced". The vectors are in
`tests/secrets.json`, one per kind. Each is driven through the hook (in the command, in the
result, in a failure's error, in a Write's content, in Codex's string output) until decisions
are logged; then the audit log, the ledgers and `status` / `status --json` (the real console
script) are searched for the secret and for any 10-character piece of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from test_hardening_helpers import HOOK, dumps, post, pre

from loopguard_hook.hook import HookOptions, run
from loopguard_hook.redact import redact

VECTORS: list[dict[str, str]] = json.loads((Path(__file__).parent / "secrets.json").read_text())["vectors"]
T0 = 1_800_000_000.0
WINDOW = 10


def _pieces(secret: str) -> set[str]:
    return {secret[i : i + WINDOW] for i in range(max(1, len(secret) - WINDOW + 1))}


def _leaks(text: str, vectors: list[dict[str, str]]) -> list[str]:
    found = []
    for vector in vectors:
        secret = vector["secret"]
        if secret in text:
            found.append(f"{vector['kind']}: the whole secret")
        elif any(piece in text for piece in _pieces(secret)):
            found.append(f"{vector['kind']}: a piece of it")
    return found


class Driver:
    def __init__(self, state: Path) -> None:
        self.options = {c: HookOptions(client=c, state_dir=str(state)) for c in ("claude-code", "codex")}
        self.now = T0
        self.decisions = 0
        self.counter = 0

    def send(self, client: str, payload: dict[str, Any]) -> None:
        self.now += 5.0  # apart: no parallel-duplicate collapsing, no slow-repeat
        result = run(dumps(payload), options=self.options[client], environ={}, clock=lambda: self.now, user_config="")
        assert result.exit_code == 0, result.stderr
        if result.decision is not None and result.decision.intended:
            self.decisions += 1

    def call(self, client: str, session: str, tool: str, tool_input: Any, response: Any) -> None:
        self.counter += 1
        tid = f"toolu_{self.counter}"
        self.send(client, pre(client, session, tool, tool_input, tid))
        self.send(client, post(client, session, tool, tool_input, tid, response))

    def fail(self, session: str, tool_input: Any, error: str) -> None:
        self.counter += 1
        tid = f"toolu_{self.counter}"
        self.send("claude-code", pre("claude-code", session, "Bash", tool_input, tid))
        payload = pre("claude-code", session, "Bash", tool_input, tid)
        payload.update(hook_event_name="PostToolUseFailure", error=error, is_interrupt=False)
        self.send("claude-code", payload)


def _drive(state: Path, vector: dict[str, str], index: int, *, stop_loop: bool = False) -> int:
    driver = Driver(state)
    command, output = vector["command"], vector["output"]
    session = f"secrets-{index}"
    # The same call five times (balanced: remind at 3 and 4, deny at 5), secret in call and result.
    for _ in range(5):
        driver.call(
            "claude-code",
            session,
            "Bash",
            {"command": command, "description": "run it"},
            {"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
        )
    # Three different calls failing with the same error that holds the secret: same-error reminder.
    for i in range(3):
        driver.fail(session, {"command": f"{command} # try {i}"}, f"Exit code 1\n{output}")
    # The secret in a Write's content, repeated until denied.
    for _ in range(5):
        driver.call(
            "claude-code",
            session,
            "Write",
            {"file_path": "/home/user/project/.env", "content": output},
            {"type": "create", "filePath": "/home/user/project/.env", "content": output},
        )
    # Codex: string output, the same command repeated.
    for _ in range(5):
        driver.call("codex", f"codex-{session}", "Bash", {"command": command}, output)
    if stop_loop:
        # A Stop whose final message repeats a line holding the secret in its context.
        line = next(ln for ln in (output + "\n" + command).splitlines() if vector["secret"] in ln)
        stop = {
            **pre("claude-code", session, "Bash", {}, None),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": f"Trying again with {line}\n" * 10,
        }
        for key in ("tool_name", "tool_input"):
            stop.pop(key)
        driver.send("claude-code", stop)
    return driver.decisions


def _status(state: Path, *extra: str) -> str:
    proc = subprocess.run([HOOK, "status", "--state-dir", str(state), *extra], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode("utf-8")


def test_the_vectors_cover_every_kind_the_contract_names() -> None:
    kinds = " ".join(v["kind"] for v in VECTORS)
    for needle in (
        "sk-",
        "sk-proj-",
        "ghp_",
        "github_pat_",
        "AKIA",
        "xoxb-",
        "bearer",
        "password=",
        "Authorization: Bearer",
        "Authorization: token",
        "DATABASE_PASSWORD=",
        "API_KEY=",
        "URL credentials",
        "PEM private key",
    ):
        assert needle in kinds, needle
    for vector in VECTORS:
        assert vector["secret"] in vector["output"] or vector["kind"] in ("curl -u user:password",)
        assert vector["secret"] in vector["command"] or vector["kind"] == "PEM private key"


@pytest.mark.parametrize("vector", VECTORS, ids=[v["kind"] for v in VECTORS])
def test_redact_hides_each_vector_in_raw_and_json_escaped_text(vector: dict[str, str]) -> None:
    """Both forms reach `redact`: result text as is, call arguments as canonical JSON."""
    for text in (
        vector["command"],
        vector["output"],
        json.dumps({"command": vector["command"]}),
        json.dumps({"content": vector["output"]}),
    ):
        assert not _leaks(redact(text), [vector]), redact(text)


def test_no_secret_reaches_the_audit_log_the_ledger_or_status(tmp_path: Path) -> None:
    state = tmp_path / "state"
    decisions = sum(_drive(state, vector, i) for i, vector in enumerate(VECTORS))
    log = (state / "decisions.jsonl").read_text("utf-8")
    lines = log.splitlines()
    assert decisions >= 6 * len(VECTORS), decisions
    assert len(lines) >= 6 * len(VECTORS), f"only {len(lines)} decisions were logged"
    assert {json.loads(line)["rule"] for line in lines} >= {"LOOP_GUARD_REPEAT", "LOOP_GUARD_SAME_ERROR"}
    places = {"decisions.jsonl": log}
    for name in sorted(os.listdir(state / "sessions")):
        places[f"sessions/{name}"] = (state / "sessions" / name).read_text("utf-8")
    places["status"] = _status(state)
    places["status --json"] = _status(state, "--json")
    assert "REDACTED" in places["status --json"], "status shows the (redacted) calls"
    problems = [f"{where}: {leak}" for where, text in places.items() for leak in _leaks(text, VECTORS)]
    assert not problems, "\n".join(problems)


#: A PEM body line carries no marker on its own: a line-repeat excerpt of it cannot be recognised.
LINE_RECOGNISABLE = [v for v in VECTORS if v["kind"] != "PEM private key"]


def test_no_secret_from_a_looping_final_message_reaches_the_ledger(tmp_path: Path) -> None:
    state = tmp_path / "state"
    for i, vector in enumerate(LINE_RECOGNISABLE):
        _drive(state, vector, i, stop_loop=True)
    places = {"decisions.jsonl": (state / "decisions.jsonl").read_text("utf-8")}
    for name in sorted(os.listdir(state / "sessions")):
        places[f"sessions/{name}"] = (state / "sessions" / name).read_text("utf-8")
    problems = [f"{where}: {leak}" for where, text in places.items() for leak in _leaks(text, LINE_RECOGNISABLE)]
    assert not problems, "\n".join(problems)


def test_redaction_stays_linear_on_hostile_text() -> None:
    """`redact` runs on every logged call and on whole error texts: no catastrophic backtracking."""
    hostile = [
        "a." * 20_000,
        "a-" * 20_000,
        "password" * 5_000,
        "sk-" * 13_000,
        "://a:" * 8_000,
        '\\"' * 20_000,
        'token=\\"' * 5_000,
        "-u a" * 10_000,
        "'" * 40_000,
        'API_KEY="' * 4_000,
    ]
    for text in hostile:
        started = time.process_time()  # CPU time: a loaded machine does not make it flaky
        redact(text)
        elapsed = time.process_time() - started
        # linear patterns take ~0.05 s here; the backtracking ones took minutes
        assert elapsed < 1.0, f"{elapsed:.2f} s of CPU on {text[:12]!r}... ({len(text)} chars)"


def test_a_secret_cut_by_the_summary_limit_does_not_leak(tmp_path: Path) -> None:
    token = "ghp_Q7wE9rT2yU4iO6pA8sD1fG3hJ5kL7zX9cV0b"
    command = "TOKEN=" + "z" * 200 + " " + token
    driver = Driver(tmp_path / "state")
    for _ in range(5):
        driver.call("claude-code", "cut", "Bash", {"command": command}, {"stdout": "", "stderr": ""})
    log = (tmp_path / "state" / "decisions.jsonl").read_text()
    assert not _leaks(log, [{"kind": "ghp_ cut at the summary limit", "secret": token}]), log.splitlines()[-1]
