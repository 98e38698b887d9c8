"""Fixtures: Copilot CLI 1.0.102 (installed once per test session)."""

from __future__ import annotations

import pytest

from ..clients import ClientUnavailable
from ..native_hosts import COPILOT, NativeHost, ready, version


@pytest.fixture(scope="session")
def copilot() -> NativeHost:
    """The real `copilot` (installed into the e2e cache when missing; skip if npm cannot)."""
    try:
        binary = ready(COPILOT)
    except ClientUnavailable as exc:
        pytest.skip(f"{COPILOT.npm}@{COPILOT.version} cannot be installed: {exc}")
    if COPILOT.version not in version(binary):
        pytest.fail(f"{binary} is not version {COPILOT.version}")
    return NativeHost("copilot", binary)
