"""Fixtures: the pinned clients (installed once per test session) and a scratch workspace per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from .clients import (
    CLAUDE_CODE,
    CODEX,
    HOOK_BIN,
    ClaudeCode,
    ClientUnavailable,
    Codex,
    Package,
    Workspace,
    install,
    version_of,
)


def _installed(package: Package) -> Path:
    if not HOOK_BIN.exists():
        pytest.fail(f"{HOOK_BIN} is missing: install the package into the virtualenv running pytest")
    try:
        binary = install(package)
    except ClientUnavailable as exc:
        pytest.skip(f"{package.npm}@{package.version} cannot be installed: {exc}")
    version = version_of(binary)
    if package.version not in version:
        pytest.fail(f"{binary} reports {version!r}, expected {package.version}")
    return binary


@pytest.fixture(scope="session")
def claude_code() -> ClaudeCode:
    """Claude Code 2.1.332 (installed into the e2e cache when missing; skip if npm cannot)."""
    return ClaudeCode(_installed(CLAUDE_CODE))


@pytest.fixture(scope="session")
def codex() -> Codex:
    """Codex 0.171.0 (installed into the e2e cache when missing; skip if npm cannot)."""
    return Codex(_installed(CODEX))


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    """Scratch cwd, HOME, TMPDIR and state dir for one run."""
    return Workspace.create(tmp_path)
