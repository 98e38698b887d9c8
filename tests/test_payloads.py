"""Every real captured payload, and every real captured session, through the hook for its client."""

from __future__ import annotations

from pathlib import Path

import pytest
from wire import validate

from loopguard_hook.hook import HookOptions, run

EXAMPLES = Path(__file__).parent.parent / "examples"
PAYLOADS = sorted((EXAMPLES / "payloads").glob("*/*.json"))
SESSIONS = sorted((EXAMPLES / "sessions").glob("*.jsonl"))


#: The folders of `examples/payloads/` named for a host other than Claude Code and Codex.
HOST_FOLDERS = ("copilot", "droid", "qwen-code", "gemini-cli")


def _client(path: Path) -> str:
    host = next((h for h in HOST_FOLDERS if path.parent.name.startswith(h + "-")), None)
    if host is not None:
        return host
    return "codex" if "codex" in path.name or "codex" in path.parent.name else "claude-code"


def _event(path: Path) -> str | None:
    """A camelCase Copilot file's event, which install's command passes as `--event` (the
    payloads of Copilot's own hook files do not name it)."""
    name = path.name.split(".")[0]
    return name if _client(path) == "copilot" and name[0].islower() else None


def test_examples_exist() -> None:
    assert len(PAYLOADS) >= 45 and len(SESSIONS) >= 8
    for host in HOST_FOLDERS:  # every host with captured payloads has them here
        assert any(_client(p) == host for p in PAYLOADS), host


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_captured_payload(path: Path, tmp_path: Path) -> None:
    options = HookOptions(state_dir=str(tmp_path), event=_event(path))
    result = run(path.read_bytes(), options=options, environ={}, user_config="")
    assert result.exit_code == 0, result.stderr
    assert validate(result, _client(path)) == []
    # auto-detection agrees with where the payload was captured
    if result.event is not None:
        assert result.event.client.value == _client(path)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_captured_session(path: Path, tmp_path: Path) -> None:
    """Real sessions of both clients: valid answers throughout, and the loops in them are seen."""
    actions = []
    for i, line in enumerate(path.read_text().splitlines()):
        result = run(line.encode(), options=HookOptions(state_dir=str(tmp_path)), environ={}, clock=lambda i=i: 1e9 + i,
                     user_config="")
        assert result.exit_code == 0, result.stderr
        assert validate(result, _client(path)) == [], line[:200]
        if result.decision is not None:
            actions.append(result.decision.action.name)
    looping = ("identical_reads", "failing_bash_repeated", "ab_alternation", "payload_repeat")
    if any(name in path.name for name in looping):
        assert "REMIND" in actions
    if any(name in path.name for name in ("edit_write", "parallel_reads", "subagent", "payload_patch")):
        assert set(actions) <= {"ALLOW"}


def test_the_permission_mode_is_read_and_any_other_type_is_as_good_as_none() -> None:
    """`permission_mode` (Claude Code: most events) is only compared (the permission wall ends
    when it changes): a value of another type is no reason to refuse the payload."""
    import json

    from loopguard_hook.hosts.payload import MAX_MODE_CHARS, parse

    data = json.loads((EXAMPLES / "payloads" / "claude-code-2.1.332" / "PreToolUse.Bash.json").read_text())
    assert parse({**data, "permission_mode": "dontAsk"}, "claude-code").permission_mode == "dontAsk"
    assert parse({k: v for k, v in data.items() if k != "permission_mode"}, "claude-code").permission_mode is None
    for odd in (7, None, ["plan"], {"mode": "plan"}):
        assert parse({**data, "permission_mode": odd}, "claude-code").permission_mode is None
    assert parse({**data, "permission_mode": "x" * 1000}, "claude-code").permission_mode == "x" * MAX_MODE_CHARS
