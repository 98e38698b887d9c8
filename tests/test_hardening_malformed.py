"""Malformed input through the real console script: every file in `tests/malformed/`, plus
50 MB payloads generated here.

Contract (behavior.md section 4): never exit 2; a bad payload is exit 1, one stderr line, no stdout
(the client lets the call run); an event the guard does not handle is exit 0 with no output. On
top: no traceback anywhere the user sees it, bounded memory, and an error leaves the state
directory exactly as it was.
"""

from __future__ import annotations

import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_hardening_helpers import Run, at, dumps, load_state, pre, run_hook, snapshot
from wire import validate_output

from loopguard_hook.hook import HookOptions, run

CORPUS = Path(__file__).parent / "malformed"
MANIFEST: dict[str, dict[str, object]] = json.loads((CORPUS / "MANIFEST.json").read_text())["files"]

#: Peak RSS allowed for one hook process on a small payload (the interpreter alone is ~20 MB).
SMALL_RSS_KIB = 100 * 1024


def _template(root: Path) -> Path:
    """A state directory holding session s1 with a ledger, a lock file and an audit log."""
    state = root / "template"
    opts = HookOptions(state_dir=str(state))
    for i in range(3):  # the third identical call is reminded: decisions.jsonl gets a line
        payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, f"toolu_t{i}")
        result = run(dumps(payload), options=opts, environ={}, user_config="", clock=at(1_800_000_000.0 + 5 * i))
        assert result.exit_code == 0, result.stderr
    assert (state / "decisions.jsonl").exists()
    return state


def _event_of(name: str) -> str:
    data = json.loads((CORPUS / name).read_bytes().removeprefix(b"\xef\xbb\xbf"))
    return str(data["hook_event_name"])


def _check(
    name: str,
    spec: dict[str, object],
    outcome: Run,
    before: dict[str, tuple[Any, ...]],
    after: dict[str, tuple[Any, ...]],
    state: Path,
) -> list[str]:
    problems: list[str] = []
    want = spec["exit"]
    if outcome.returncode != want:
        problems.append(f"exit {outcome.returncode}, expected {want}; stderr={outcome.stderr[:300]!r}")
    if len(outcome.stderr_lines) > 1:
        problems.append(f"{len(outcome.stderr_lines)} stderr lines: {outcome.stderr[:500]!r}")
    if b"Traceback" in outcome.stderr:
        problems.append("traceback on stderr")
    if outcome.returncode != 0 and outcome.stdout:
        problems.append(f"stdout on exit {outcome.returncode}: {outcome.stdout[:200]!r}")
    if outcome.returncode == 0 and outcome.stdout:
        problems.extend(validate_output(outcome.stdout, _event_of(name), "claude-code"))
    if outcome.returncode == 1 and outcome.stderr_lines and not outcome.stderr_lines[0].startswith("loopguard-hook: "):
        problems.append(f"stderr line does not name the hook: {outcome.stderr_lines[0]!r}")
    if outcome.max_rss_kib > SMALL_RSS_KIB:
        problems.append(f"peak RSS {outcome.max_rss_kib // 1024} MB")
    if spec["state"] == "untouched" and before != after:
        changed = sorted(set(before) ^ set(after) | {k for k in before if k in after and before[k] != after[k]})
        problems.append(f"state directory changed: {changed}")
    if spec["state"] == "written":
        try:
            load_state(state, "s1")
        except (OSError, AssertionError, orjson.JSONDecodeError) as exc:
            problems.append(f"ledger of s1 not valid afterwards: {exc}")
    if "errors.log" in after and "errors.log" not in before:
        problems.append("an internal error was logged: " + (state / "errors.log").read_text()[-800:])
    return [f"{name} ({spec['why']}): {p}" for p in problems]


def test_the_corpus_and_its_manifest_agree() -> None:
    on_disk = {p.name for p in CORPUS.iterdir() if p.name != "MANIFEST.json"}
    assert on_disk == set(MANIFEST)
    assert len(on_disk) >= 40
    assert {spec["exit"] for spec in MANIFEST.values()} == {0, 1}


def _run_corpus(tmp_path: Path, names: list[str]) -> None:
    template = _template(tmp_path)

    def one(name: str) -> list[str]:
        spec = MANIFEST[name]
        state = tmp_path / "cases" / name
        shutil.copytree(template, state)  # copy2: contents, modes and times kept
        before = snapshot(state)
        outcome = run_hook((CORPUS / name).read_bytes(), "--state-dir", str(state), timeout=30)
        return _check(name, spec, outcome, before, snapshot(state), state)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        problems = [p for found in pool.map(one, names) for p in found]
    assert not problems, "\n".join(problems)


def test_the_core_malformed_payloads_fail_as_the_contract_says(tmp_path: Path) -> None:
    """One file of each kind the contract names; the rest of the corpus runs under -m slow."""
    _run_corpus(tmp_path, sorted(name for name, spec in MANIFEST.items() if spec["run"] == "default"))


@pytest.mark.slow
def test_every_malformed_payload_fails_as_the_contract_says(tmp_path: Path) -> None:
    _run_corpus(tmp_path, sorted(MANIFEST))


def _big_write(session: str, size: int) -> bytes:
    content = ("0123456789abcdef" * (size // 16 + 1))[:size]
    return dumps(
        pre("claude-code", session, "Write", {"file_path": "/home/user/project/big.txt", "content": content}, "toolu_big")
    )


FIFTY_MB = 50 * 1024 * 1024


def test_a_50_mb_payload_is_handled_in_bounded_memory(tmp_path: Path) -> None:
    """A 50 MB Write payload (generated, not committed) is accepted; peak RSS stays bounded."""
    state = tmp_path / "state"
    raw = _big_write("big", FIFTY_MB)
    outcome = run_hook(raw, "--state-dir", str(state), timeout=60)
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stderr == b"" and outcome.stdout == b""
    ledger = load_state(state, "big")
    assert ledger["attempts"] == 1
    assert (state / "sessions" / "big.json").stat().st_size < 64 * 1024, "the ledger keeps digests, not content"
    # Measured on the reference machine: about 6x the payload (the payload bytes, the parsed
    # string, its canonical form for the call signature). The bound leaves room, but a copy
    # more than that, or a quadratic buffer, fails.
    assert outcome.max_rss_kib < 8 * FIFTY_MB // 1024 + 64 * 1024, f"peak RSS {outcome.max_rss_kib // 1024} MB"
    print(f"\n50 MB PreToolUse Write: exit 0 in {outcome.seconds:.2f} s, peak RSS {outcome.max_rss_kib // 1024} MB")


def test_a_50_mb_payload_that_is_not_json_fails_fast(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    before = snapshot(state)
    raw = _big_write("big", FIFTY_MB)[:-200]  # cut inside the content string: invalid JSON
    outcome = run_hook(raw, "--state-dir", str(state), timeout=60)
    assert outcome.returncode == 1
    assert len(outcome.stderr_lines) == 1 and outcome.stdout == b""
    assert b"Traceback" not in outcome.stderr
    assert len(outcome.stderr) < 1000, "the error line must not quote the payload"
    assert snapshot(state) == before
    # The payload, the parser's working copy and the string it was building when the data ended.
    assert outcome.max_rss_kib < 4 * FIFTY_MB // 1024 + 64 * 1024, f"peak RSS {outcome.max_rss_kib // 1024} MB"
    print(f"\n50 MB invalid payload: exit 1 in {outcome.seconds:.2f} s, peak RSS {outcome.max_rss_kib // 1024} MB")


@pytest.mark.slow
def test_a_50_mb_tool_response_is_handled_within_the_client_timeout(tmp_path: Path) -> None:
    """The heaviest path: PostToolUse normalises and fingerprints the whole response."""
    state = tmp_path / "state"
    body = ("line of output 0123456789\n" * (FIFTY_MB // 26 + 1))[:FIFTY_MB]
    payload = {
        **pre("claude-code", "bigpost", "Read", {"file_path": "/home/user/project/big.txt"}, "toolu_r"),
        "hook_event_name": "PostToolUse",
        "tool_response": {"type": "text", "file": {"filePath": "/home/user/project/big.txt", "content": body}},
    }
    outcome = run_hook(dumps(payload), "--state-dir", str(state), timeout=120)
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stderr == b""
    assert load_state(state, "bigpost")["attempts"] == 1
    assert outcome.max_rss_kib < 8 * FIFTY_MB // 1024 + 64 * 1024, f"peak RSS {outcome.max_rss_kib // 1024} MB"
    print(f"\n50 MB PostToolUse Read: exit 0 in {outcome.seconds:.2f} s, peak RSS {outcome.max_rss_kib // 1024} MB")


#: Captured PostToolUse payloads of the hosts that define no PostToolBatch (Codex 0.171.0, DSH's
#: Codex bridge), the base of the events they never send.
NO_BATCH_HOSTS = {
    "codex": Path(__file__).parent.parent / "examples/payloads/codex-0.171.0/PostToolUse__Bash__ok.json",
    "dsh-codex": Path(__file__).parent.parent / "examples/payloads/dsh-0.1.0-rc.8/codex-bridge/PostToolUse.bash.json",
}


def _undefined_event(client: str, event: str, i: int) -> dict[str, Any]:
    """The host's captured PostToolUse made into `event` (which it never sends, but a user could
    register the hook for): the same shell call, failed, each time."""
    payload = json.loads(NO_BATCH_HOSTS[client].read_text())
    call = {key: payload.pop(key) for key in ("tool_name", "tool_input", "tool_use_id", "tool_response")}
    call["tool_use_id"] = f"call_{i}"
    if event == "PostToolBatch":
        payload["tool_calls"] = [{**call, "tool_response": "<tool_use_error>InputValidationError: bad</tool_use_error>"}]
    else:
        payload.update(call, error="Exit code: 1\ncat: notes.txt: No such file or directory")
        del payload["tool_response"]
    return {**payload, "hook_event_name": event}


@pytest.mark.parametrize(
    ("client", "event"), [("codex", "PostToolBatch"), ("codex", "PostToolUseFailure"), ("dsh-codex", "PostToolBatch")]
)
def test_an_event_the_host_does_not_define_is_answered_with_nothing(client: str, event: str, tmp_path: Path) -> None:
    """Codex checks an answer against the event's output schema and fails all of it over one
    unknown value: on an event it does not define (PostToolBatch, PostToolUseFailure), a hook
    registered for it by hand answers nothing, exit 0, however often the call repeats (before,
    the third repeat got `hookEventName: "PostToolBatch"` context). Through the real command."""
    state = str(tmp_path / "state")
    for i in range(6):
        result = run_hook(dumps(_undefined_event(client, event, i)), "--state-dir", state)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), (i, result)
        assert validate_output(result.stdout, event, client) == []
    # the guard still counted the repeats and logged what it would have said: only the answer is empty
    logged = [json.loads(line) for line in (Path(state) / "decisions.jsonl").read_text().splitlines()]
    assert [r["action"] for r in logged if r["event"] == event][:2] == ["remind", "remind"], logged
    assert load_state(Path(state), str(_undefined_event(client, event, 0)["session_id"]))["attempts"] == 6


def test_a_capture_that_wraps_the_payload_says_to_send_the_payload(tmp_path: Path) -> None:
    """A capture of a hook run holds what the host sent under `payload`, next to how it ran
    (`{"run": …, "payload": …, "env": …}`): piped whole to the hook by hand, it was refused as
    "field 'hook_event_name' must be a string (missing)". Still refused (exit 1, one line, the
    state untouched), now saying which object to send."""
    payload = pre("gemini-cli", "s1", "read_file", {"absolute_path": "/w/app.py"}, None)
    capture = dumps({"run": {"argv": ["gemini", "-p", "read app.py"]}, "payload": payload, "env": {"GEMINI_CLI": "1"}})
    state = tmp_path / "state"
    done = run_hook(capture, "--state-dir", str(state))
    err = done.stderr.decode()
    assert done.returncode == 1 and done.stdout == b"" and err.count("\n") == 1, err
    assert "under 'payload'" in err and "jq -c .payload FILE" in err, err
    assert not state.exists() or not list(state.rglob("*.json")), sorted(state.rglob("*"))
    assert run_hook(dumps(payload), "--state-dir", str(state)).returncode == 0  # the object it names works
    # A host that takes a failing hook as a denial: exit 0, and the same line in errors.log (its
    # own payload shape was read first, and said only that the field was missing).
    for client in ("cursor", "copilot"):
        quiet = tmp_path / client
        done = run_hook(capture, "--state-dir", str(quiet), "--client", client)
        assert done.returncode == 0 and done.stdout == b"" and done.stderr == b"", done
        assert "jq -c .payload FILE" in (quiet / "errors.log").read_text(), client
