"""Secret spellings a hostile run found in clear: spaced assignments, quoted flags, argument
lists, a password piped to `--password-stdin`. None may survive redaction."""

from __future__ import annotations

import orjson
import pytest

from loopguard_hook.core.redact import redact

SECRET, AWS = "hunter2pass", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

TEXTS = [
    f"aws_secret_access_key = {AWS}",
    f"AWS_SECRET_ACCESS_KEY = {AWS}",
    f"x '--password' '{SECRET}'",
    f'mysql "--password" {SECRET}',
    orjson.dumps({"command": f'mysql "--password" {SECRET}'}).decode(),
    orjson.dumps({"command": ["mysql", "--password", SECRET]}).decode(),
    orjson.dumps({"args": ["--password", SECRET]}).decode(),
    f"echo -n {SECRET} | docker login --password-stdin",
    f"echo {SECRET} | podman login -u me --password-stdin registry.example",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_secret_is_gone(text: str) -> None:
    out = redact(text)
    assert SECRET[:8] not in out and AWS[:10] not in out, out
    assert "[REDACTED]" in out


def test_ordinary_commands_stay_readable() -> None:
    assert redact("git log --oneline -5") == "git log --oneline -5"
    assert redact('["pytest", "-q", "tests/"]') == '["pytest", "-q", "tests/"]'
