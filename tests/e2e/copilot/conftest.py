"""Fixtures: Copilot CLI 1.0.102 (installed once per test session)."""

from __future__ import annotations

import pytest

from ..native_hosts import COPILOT, NativeHost, host_or_skip


@pytest.fixture(scope="session")
def copilot() -> NativeHost:
    """The real `copilot` (installed into the e2e cache when missing; skip if npm cannot)."""
    return host_or_skip(COPILOT)
