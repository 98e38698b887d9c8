"""Fixtures: Gemini CLI 0.61.0 (installed once per test session) and the probe runs, each made
once and shared by the tests that read it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ..clients import ClientUnavailable, Workspace
from ..node_clis import HostRun, Scenario, install, probe_command
from .host import GEMINI_CLI, GeminiCli

ProbeRun = Callable[[Scenario, list[dict[str, Any]]], HostRun]


@pytest.fixture(scope="session")
def gemini_cli() -> GeminiCli:
    """Gemini CLI 0.61.0 (installed into the e2e cache when missing; skip if npm cannot)."""
    try:
        installed = install(GEMINI_CLI)
    except ClientUnavailable as exc:
        pytest.skip(f"{GEMINI_CLI.npm}@{GEMINI_CLI.version} cannot be installed: {exc}")
    if installed.version() != GEMINI_CLI.version:
        pytest.fail(f"{installed.entry} is version {installed.version()}, expected {GEMINI_CLI.version}")
    return GeminiCli(installed)


@pytest.fixture(scope="session")
def probe_run(gemini_cli: GeminiCli, tmp_path_factory: pytest.TempPathFactory) -> ProbeRun:
    """`probe_run(scenario, table)`: the run of `scenario` with the probe hook answering from
    `table` on every event; made on first use, then reused (the tests only read it)."""
    done: dict[str, HostRun] = {}

    def get(scenario: Scenario, table: list[dict[str, Any]]) -> HostRun:
        key = json.dumps([scenario.name, table], sort_keys=True)
        if key not in done:
            ws = Workspace.create(tmp_path_factory.mktemp(f"gemini-{scenario.name}"))
            scenario.prepare(ws)
            done[key] = gemini_cli.run(ws, scenario.script, scenario.prompt, command=probe_command(ws, table))
        return done[key]

    return get
