"""The fast path decides exactly as the in-process engine: every golden scenario, both ways.

Each event of a scenario goes to `hook.run` in-process (one state folder) and through the
resident helper (`fastpath.client.handle`, another folder) with the same options, environment
and clock. Stdout must be byte-identical, stderr and exit code equal, and at the end the state
files (ledgers, audit log) byte-identical. The scenario's own expectations are checked on the
in-process results, as in test_scenarios.py.

Plus the console script itself, resident and in-process, on inputs that fail: the same single
stderr line and exit code.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import scenario
from resident import short_temp_dir, stop_helpers, wait_for_socket
from test_hardening_helpers import HOOK, dumps, pre

from loopguard_hook.fastpath import client
from loopguard_hook.hook import HookOptions, HookResult, run


@pytest.fixture(scope="module")
def helper_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A running helper and the environment its clients use (an empty home: no user config)."""
    folder = short_temp_dir()
    home = tmp_path_factory.mktemp("parity-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGUARD_") and k != "CLAUDE_PROJECT_DIR"}
    env.update(TMPDIR=str(folder), HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), LOOPGUARD_RESIDENT_IDLE_SECONDS="300")
    warm = HookOptions(state_dir=str(home / "warm"))._asdict()
    client.handle(warm, dumps(pre("claude-code", "warm", "Bash", {"command": "ls"}, "t")), time.time(), env)
    wait_for_socket(folder, client.helper_key(client.process_context()[1], env))
    yield env
    stop_helpers(folder)


@pytest.fixture(autouse=True)
def _patient_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parity, not timing: on a loaded machine a spare may take longer than the greeting
    timeout to come up, and then the client would (rightly) run the event itself."""
    monkeypatch.setattr(client, "HELLO_TIMEOUT", 10.0)


class TwinRunner(scenario.Runner):
    """Sends every step in-process and through the helper; records any difference."""

    def __init__(self, data: dict[str, Any], profile: str, client_name: str, root: Path, env: dict[str, str]) -> None:
        super().__init__(data, profile, client_name, str(root / "config"))
        self.env = env
        self.inproc = root / "in-process"
        self.resident = root / "resident"
        self.differences: list[str] = []

    def _options(self, state: Path) -> HookOptions:
        return HookOptions(client=self.client, profile=self.profile, config=self.config_path, state_dir=str(state))

    def send(self, step: scenario.Step, now: float) -> HookResult:
        raw = self.raw(step)
        result = run(raw, options=self._options(self.inproc), environ=self.env, clock=lambda: now)
        reply = client.handle(self._options(self.resident)._asdict(), raw, now, self.env)
        mine = (int(result.exit_code), result.stdout, result.stderr)
        if reply is None:
            self.differences.append(f"step {step.index} {step.event}: the helper did not answer")
        elif reply != mine:
            self.differences.append(f"step {step.index} {step.event}: in-process {mine!r}, resident {reply!r}")
        self.results.append((step, result))
        return result


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _matrix() -> list[Any]:
    """Every scenario file under its first profile and client in the fast suite; the other
    combinations under `-m slow` (each costs a helper round trip per event)."""
    seen: set[str] = set()
    out = []
    for name, profile, client_name in scenario.cases():
        marks = [pytest.mark.slow] if name in seen else []
        seen.add(name)
        out.append(pytest.param(name, profile, client_name, marks=marks))
    return out


@pytest.mark.parametrize(("name", "profile", "client_name"), _matrix())
def test_scenario_decides_the_same_in_process_and_resident(
    name: str, profile: str, client_name: str, tmp_path: Path, helper_env: dict[str, str]
) -> None:
    data = scenario.load(scenario.SCENARIO_DIR / name)
    runner = TwinRunner(data, profile, client_name, tmp_path, helper_env)
    errors = runner.play()
    assert not errors, f"{name} [{profile}, {client_name}]: " + "; ".join(errors)
    assert not runner.differences, "\n".join(runner.differences[:5])
    assert _files(runner.inproc) == _files(runner.resident)
    assert _files(runner.inproc), "the scenario wrote no state"


def test_interleaved_clients_with_different_settings_decide_as_in_process(tmp_path: Path, helper_env: dict[str, str]) -> None:
    """Requests with different environments alternate on one helper; each decides as it would
    alone in-process (nothing of one request's environment is left for the next)."""
    envs = [helper_env, {**helper_env, "LOOPGUARD_PROFILE": "breaker"}, {**helper_env, "LOOPGUARD_DENY_AT": "2"}]
    for n in range(4):
        for i, env in enumerate(envs):
            raw = dumps(pre("claude-code", f"mix{i}", "Bash", {"command": "make"}, f"toolu_{i}_{n}"))
            now = 1_800_000_000.0 + n
            result = run(raw, options=HookOptions(state_dir=str(tmp_path / "a")), environ=env, clock=lambda now=now: now)
            reply = client.handle({"state_dir": str(tmp_path / "b")}, raw, now, env)
            assert reply == (int(result.exit_code), result.stdout, result.stderr), (n, i)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


@pytest.mark.parametrize(
    ("stdin", "extra_env", "args"),
    [
        (b"", {}, []),
        (b"{not json", {}, []),
        (b"[1, 2]", {}, []),
        (dumps(pre("claude-code", "p1", "Bash", {"command": "ls"}, "t1")), {"LOOPGUARD_DENY_AT": "banana"}, []),
        (dumps(pre("claude-code", "p1", "Bash", {"command": "ls"}, "t1")), {"LOOPGUARD_NO_SUCH_SETTING": "1"}, []),
        (dumps(pre("claude-code", "p1", "Bash", {"command": "ls"}, "t1")), {}, ["--config", "/nonexistent.toml"]),
        (dumps(pre("claude-code", "p1", "Bash", {"command": "ls"}, "t1")), {}, ["--profile", "breaker", "--dry-run"]),
    ],
    ids=["empty", "bad-json", "not-an-object", "bad-value", "unknown-variable", "missing-config", "dry-run"],
)
def test_the_console_script_answers_the_same_resident_and_in_process(
    stdin: bytes, extra_env: dict[str, str], args: list[str], tmp_path: Path, helper_env: dict[str, str]
) -> None:
    def once(state: Path, resident: bool) -> tuple[int, bytes, bytes]:
        env = {**helper_env, **extra_env, "LOOPGUARD_RESIDENT": "on" if resident else "off"}
        proc = subprocess.run([HOOK, "--state-dir", str(state), *args], input=stdin, env=env,
                              capture_output=True, timeout=60, check=False)
        return proc.returncode, proc.stdout, proc.stderr

    resident = once(tmp_path / "r", True)
    assert resident == once(tmp_path / "i", False)
    assert resident[0] in (0, 1) and b"Traceback" not in resident[2]
    assert _files(tmp_path / "r") == _files(tmp_path / "i") if (tmp_path / "i").exists() else True
