"""Fixtures: Qwen Code 0.24.4 (installed once per test session) and the probe runs, each made
once and shared by the tests that read it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ..clients import ClientUnavailable, Workspace
from ..node_clis import HostRun, Scenario, install, probe_command
from .host import QWEN_CODE, QwenCode

ProbeRun = Callable[[Scenario, list[dict[str, Any]]], HostRun]


@pytest.fixture(scope="session")
def qwen_code() -> QwenCode:
    """Qwen Code 0.24.4 (installed into the e2e cache when missing; skip if npm cannot)."""
    try:
        installed = install(QWEN_CODE)
    except ClientUnavailable as exc:
        pytest.skip(f"{QWEN_CODE.npm}@{QWEN_CODE.version} cannot be installed: {exc}")
    if installed.version() != QWEN_CODE.version:
        pytest.fail(f"{installed.entry} is version {installed.version()}, expected {QWEN_CODE.version}")
    return QwenCode(installed)


@pytest.fixture(scope="session")
def probe_run(qwen_code: QwenCode, tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    """`probe_run(scenario, table)`: the run of `scenario` with the probe hook answering from
    `table` on every event; made on first use, then reused (the tests only read it)."""
    done: dict[str, HostRun] = {}

    def get(scenario: Scenario, table: list[dict[str, Any]]) -> HostRun:
        key = json.dumps([scenario.name, table], sort_keys=True)
        if key not in done:
            ws = Workspace.create(tmp_path_factory.mktemp(f"qwen-{scenario.name}"))
            scenario.prepare(ws)
            done[key] = qwen_code.run(ws, scenario.script, scenario.prompt, command=probe_command(ws, table))
        return done[key]

    return get
