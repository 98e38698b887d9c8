"""Fixtures: Factory Droid 0.215.0 (installed once per test session)."""

from __future__ import annotations

import pytest

from ..native_hosts import DROID, NativeHost, host_or_skip


@pytest.fixture(scope="session")
def droid() -> NativeHost:
    """The real `droid` (installed into the e2e cache when missing; skip if npm cannot)."""
    return host_or_skip(DROID)
