"""Fixtures: Factory Droid 0.215.0 (installed once per test session)."""

from __future__ import annotations

import pytest

from ..clients import ClientUnavailable
from ..native_hosts import DROID, NativeHost, ready, version


@pytest.fixture(scope="session")
def droid() -> NativeHost:
    """The real `droid` (installed into the e2e cache when missing; skip if npm cannot)."""
    try:
        binary = ready(DROID)
    except ClientUnavailable as exc:
        pytest.skip(f"{DROID.npm}@{DROID.version} cannot be installed: {exc}")
    if DROID.version not in version(binary):
        pytest.fail(f"{binary} is not version {DROID.version}")
    return NativeHost("droid", binary)
