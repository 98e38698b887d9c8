"""Fixtures: DSH with both bridges (installed once per test session) and each scenario's run,
made once per (bridge, scenario, profile) and shared by the tests that read it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from ..clients import HOOK_BIN, Workspace
from .driver import Dsh, DshRun, hook_command
from .install import DSH_VERSION, DshUnavailable, Install, install
from .scenarios import Scenario


@pytest.fixture(scope="session")
def dsh_install() -> Install:
    """DSH 0.1.0-rc.8 with both bridges (installed into the e2e cache when missing; skip if npm cannot)."""
    if not HOOK_BIN.exists():
        pytest.fail(f"{HOOK_BIN} is missing: install the package into the virtualenv running pytest")
    try:
        found = install()
    except DshUnavailable as exc:
        pytest.skip(f"@deepseek-ai/dsh@{DSH_VERSION} cannot be installed: {exc}")
    if found.version("@deepseek-ai/dsh") != DSH_VERSION:
        pytest.fail(f"{found.prefix} holds dsh {found.version('@deepseek-ai/dsh')}, expected {DSH_VERSION}")
    return found


RunScenario = Callable[..., DshRun]


@pytest.fixture(scope="session")
def scenario_run(dsh_install: Install, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunScenario]:
    """`scenario_run(bridge, scenario, profile=None)`: the run of `scenario` through `bridge`
    with `loopguard-hook --state-dir <run>/state [--profile P]` on every mapped event, under
    `danger-full-access`; made on first use, then reused (the tests only read it)."""
    done: dict[tuple[str, str, str | None], DshRun] = {}

    def get(bridge: str, scenario: Scenario, profile: str | None = None) -> DshRun:
        key = (bridge, scenario.name, profile)
        if key not in done:
            ws = Workspace.create(tmp_path_factory.mktemp(f"{bridge}-{scenario.name}-{profile or 'balanced'}"))
            for path, content in scenario.files.items():
                ws.write(path, content)
            extra = ("--profile", profile) if profile else ()
            done[key] = Dsh(dsh_install, bridge).run(ws, scenario.script, scenario.task, command=hook_command(ws.state, extra))
        return done[key]

    yield get
