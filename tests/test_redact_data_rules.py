"""The token shapes taken as data from gitleaks' rule set (`loopguard_hook/core/secret_rules.py`):
every rule compiles in Python's `re`, stays linear on hostile text, and hides its secret in raw
text and in a call's canonical JSON."""

from __future__ import annotations

import json
import re

import pytest

from loopguard_hook.core.redact import _data_rules, redact

SAMPLES = {
    "digitalocean": "dop_v1_" + "0a1b2c3d4e5f6a7b" * 4,
    "planetscale": "pscale_tkn_" + "Ab3Cd6Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv",
    "linear": "lin_api_" + "a1b2c3d4e5" * 4,
    "postman": "PMAK-" + "0a1b2c3d4e5f6a7b8c9d0e1f" + "-" + "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e",
    "databricks": "dapi" + "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d",
    "anthropic": "sk-ant-api03-" + "Ab3_Cd6-Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv" * 2 + "Ab3Cd6Ef9Gh2Ij5Kl8Mn1Op4Qr7St0" + "AA",
}


def test_every_data_rule_compiles_and_has_keywords() -> None:
    rules = _data_rules()
    assert len(rules) > 200
    for keywords, pattern, group in rules:
        assert keywords and all(k == k.lower() for k in keywords), pattern
        assert re.compile(pattern).groups >= group


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_data_rule_hides_its_token(name: str) -> None:
    token = SAMPLES[name]
    for text in (f"export TOKEN_X {token}\n", json.dumps({"command": f"deploy {token}"}), f"x\\n{token}\\\"y"):
        assert token[:12] not in redact(text), redact(text)


def test_the_data_rules_stay_linear_on_hostile_text() -> None:
    """Each keyword repeated (so its rule runs) next to long runs of the classes the rules use."""
    keywords = sorted({k for ks, _, _ in _data_rules() for k in ks})
    hostile = [
        " ".join(keywords) * 5,
        ("".join(keywords) + "a" * 200) * 10,
        "sk-ant-api03-" + "a" * 20_000,
        "ey" + "a" * 20_000 + ".ey" + "a" * 20_000,
        ("new-relic" + " " * 20 + "=" + "a" * 50) * 200,
    ]
    for text in hostile:  # it answers; bench/limits.py measures the CPU each takes
        out = redact(text)
        assert isinstance(out, str) and out == redact(text)
