"""Test isolation: no test may write to the real user cache or config directories."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

#: Tests of behaviour still being built: run them by naming the folder (see its README).
collect_ignore = ["pending"]


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in list(os.environ):
        if name.startswith("LOOPGUARD_") or name == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(name)
    yield
