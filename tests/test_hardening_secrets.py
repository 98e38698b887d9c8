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
from pathlib import Path
from typing import Any

import pytest
from test_hardening_helpers import HOOK, dumps, post, pre

from loopguard_hook.core.redact import redact
from loopguard_hook.hook import HookOptions, run

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
        self.stdout: list[bytes] = []  # every answer, as the host reads it (the model's text)

    def send(self, client: str, payload: dict[str, Any]) -> None:
        self.now += 5.0  # apart: no parallel-duplicate collapsing, no slow-repeat
        result = run(dumps(payload), options=self.options[client], environ={}, clock=lambda: self.now, user_config="")
        assert result.exit_code == 0, result.stderr
        self.stdout.append(result.stdout)
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


def _drive(state: Path, vector: dict[str, str], index: int, *, stop_loop: bool = False, stdout: list[bytes] | None = None) -> int:
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
    if stdout is not None:
        stdout += driver.stdout
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
        "AccountKey=",
        "MasterKey=",
        "SigningKey=",
        "EncryptionKey=",
        "sessionKey=",
        '"accountKey"',
        "redis://:PW@",
        ".netrc",
        "password X with no =",
        "zip -P",
        "openssl … -k",
        "smbclient -U user%X",
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
    stdout: list[bytes] = []
    decisions = sum(_drive(state, vector, i, stdout=stdout) for i, vector in enumerate(VECTORS))
    log = (state / "decisions.jsonl").read_text("utf-8")
    lines = log.splitlines()
    assert decisions >= 6 * len(VECTORS), decisions
    assert len(lines) >= 6 * len(VECTORS), f"only {len(lines)} decisions were logged"
    assert {json.loads(line)["rule"] for line in lines} >= {"LOOP_GUARD_REPEAT", "LOOP_GUARD_SAME_ERROR"}
    answers = b"".join(stdout).decode("utf-8")
    assert "additionalContext" in answers and "permissionDecision" in answers  # reminders and denials were given
    places = {"decisions.jsonl": log, "stdout (the text the model reads)": answers}
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
        "password " * 8_000,
        "-Ua" * 10_000,
        "zip -P " * 8_000,
        "openssl -k " * 6_000,
        "pass:" * 10_000,
        "://:" * 10_000,
        "://" + "a1" * 20_000,
        "aKey" * 10_000,
        "ldap -w " * 8_000,
        "-storepass " * 6_000,
    ]
    for text in hostile:
        # it answers (a backtracking pattern took minutes; bench/limits.py measures the CPU), and
        # what it answers is the text with at most masks in it
        out = redact(text)
        assert len(out) <= len(text) + 10 * text.count(" ") + 4096 and out == redact(text)


def test_a_secret_cut_by_the_summary_limit_does_not_leak(tmp_path: Path) -> None:
    token = "ghp_Q7wE9rT2yU4iO6pA8sD1fG3hJ5kL7zX9cV0b"
    command = "TOKEN=" + "z" * 200 + " " + token
    driver = Driver(tmp_path / "state")
    for _ in range(5):
        driver.call("claude-code", "cut", "Bash", {"command": command}, {"stdout": "", "stderr": ""})
    log = (tmp_path / "state" / "decisions.jsonl").read_text()
    assert not _leaks(log, [{"kind": "ghp_ cut at the summary limit", "secret": token}]), log.splitlines()[-1]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["kind"] for v in VECTORS])
@pytest.mark.parametrize("before", ["\n", "\t", "\r\n", "x=1\n"])
def test_a_secret_after_an_escaped_newline_or_tab_is_hidden(vector: dict[str, str], before: str) -> None:
    """In a call's canonical JSON a newline is the two characters `\\n`: a secret right after it
    must not hide behind the letter `n` (a heredoc, a pasted .env, a tab-separated printf)."""
    for text in (json.dumps({"command": "cat <<EOF" + before + vector["command"]}),
                 json.dumps({"content": before + vector["output"]})):
        assert not _leaks(redact(text), [vector]), redact(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('curl -H "Authorization: Basic $(echo -n admin:hunter2hunter2 | base64)" https://x', "hunter2hunter2"),
        ("curl -H Authorization:\\ Bearer\\ abcdef0123456789abcdef https://x", "abcdef0123456789abcdef"),
        ('curl -H "Authorization: Bearer\tTOKENabcdef0123456789" https://x', "TOKENabcdef0123456789"),
        ("curl -H 'Authorization: Digest username=\"u\", response=\"6629fae49393a05397450978507c4ef1\"' x",
         "6629fae49393a05397450978507c4ef1"),
    ],
)
def test_authorization_header_values_are_hidden_whole(text: str, secret: str) -> None:
    for form in (text, json.dumps({"command": text})):
        assert secret not in redact(form), redact(form)


def test_a_secret_list_under_a_secret_key_is_hidden() -> None:
    assert "hunter2hunter2" not in redact(json.dumps({"password": ["hunter2hunter2"]}))


def test_a_secret_straddling_a_cut_never_leaves_a_piece(tmp_path: Path) -> None:
    """Redaction of earlier text shrinks it; a cut made before redacting would then pull half a
    secret into view. The summary (argument head cut at 1,000 characters) and the ledger's
    result preview (cut at 800) redact first and drop a partial last token."""
    from loopguard_hook.core.redact import redact_prefix

    key_id = "AKIAIOSFODNN7EXAMPLE"
    command = "export API_TOKEN=" + "x" * 915 + "; aws configure set aws_access_key_id " + key_id
    head = json.dumps({"command": command})[:1001]
    assert "AKIAIOSF" in head  # the head cuts the key in half
    assert "AKIA" not in redact_prefix(head, 120, complete=False)
    token = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    driver = Driver(tmp_path / "state")
    for _ in range(5):
        driver.call("claude-code", "cut2", "Bash", {"command": command}, {"stdout": "x" * 780 + " " + token, "stderr": ""})
    places = [(tmp_path / "state" / "decisions.jsonl").read_text()]
    places += [p.read_text() for p in (tmp_path / "state" / "sessions").glob("*.json")]
    for text in places:
        assert "AKIAIOSF" not in text and "ghp_a1B2" not in text


def test_a_block_excerpt_keeps_its_case_so_redaction_sees_the_secret() -> None:
    from loopguard_hook.rules.text_loops import feed, new_text_state

    ts = new_text_state()
    message = "Use key AKIAIOSFODNN7EXAMPLE for the upload now.\nThen run the deploy again."
    verdicts = [feed(ts, message, max_lines=0, max_blocks=5, max_block_chars=16384) for _ in range(5)]
    verdict = verdicts[-1]
    assert verdict is not None and verdict.kind == "block"
    assert "akiaiosfodnn7example" not in verdict.excerpt.lower()


def test_trigger_words_never_skip_a_rule_that_would_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule is skipped when none of its trigger substrings is in the text: that must give
    exactly what running every rule gives, on every vector in every form."""
    from loopguard_hook.core import redact as redact_mod

    texts = []
    for vector in VECTORS:
        for raw in (vector["command"], vector["output"]):
            texts += [raw, raw.upper(), raw.lower(), json.dumps({"command": raw}), json.dumps({"c": "x\n" + raw})]
    skipping = [redact_mod.redact(t) for t in texts]
    every = tuple((rule._replace(triggers=("",)), repl) for rule, repl in redact_mod._RULES)
    monkeypatch.setattr(redact_mod, "_RULES", every)
    assert [redact_mod.redact(t) for t in texts] == skipping
    monkeypatch.undo()
    for rule, _ in redact_mod._RULES:  # a case-blind rule's triggers are matched in lower case
        assert not rule.nocase or all(t == t.lower() for t in rule.triggers), rule.triggers


def test_no_secret_in_a_read_results_preview_reaches_any_place(tmp_path: Path) -> None:
    """A file holding every secret, read again and again: its content is previewed in the
    ledger and quoted in the denial; none of it may show a secret."""
    state = tmp_path / "state"
    driver = Driver(state)
    content = "\n".join(v["output"] for v in VECTORS if v["kind"] != "PEM private key")
    path = "/home/user/project/settings.env"
    for _ in range(6):
        response = {"type": "text", "file": {"filePath": path, "content": content, "numLines": 9, "startLine": 1,
                                             "totalLines": 9}}
        driver.call("claude-code", "read-secrets", "Read", {"file_path": path}, response)
    assert driver.decisions >= 2
    places = {"stdout": b"".join(driver.stdout).decode("utf-8"),
              "decisions.jsonl": (state / "decisions.jsonl").read_text("utf-8"),
              "status": _status(state), "status --json": _status(state, "--json")}
    for name in sorted(os.listdir(state / "sessions")):
        places[f"sessions/{name}"] = (state / "sessions" / name).read_text("utf-8")
    assert "REDACTED" in places["sessions/read-secrets.json"], "the result preview is kept, redacted"
    shown = [v for v in VECTORS if v["kind"] != "PEM private key"]
    problems = [f"{where}: {leak}" for where, text in places.items() for leak in _leaks(text, shown)]
    assert not problems, "\n".join(problems)
