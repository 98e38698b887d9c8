"""Run the real GitHub Copilot CLI 1.0.102 (`copilot -p`) or Factory Droid 0.215.0 (`droid exec`)
offline against the suite's chat-completions mock (`dsh/mock_deepseek.py`, which speaks the
OpenAI wire both CLIs use for a custom endpoint), with the guard registered by `loopguard-hook install --client NAME`
into the run's HOME, as a user would.

Host facts used here (verified offline, notes/copilot-droid-hooks.md §1):

- both are native binaries inside registry packages (`@github/copilot` ships
  `@github/copilot-linux-<arch>/copilot`, `droid` ships `@factory/cli-linux-<arch>/bin/droid`);
- Copilot unpacks its 235 MB JS bundle into `$COPILOT_PKG_CACHE_HOME/pkg` on first run: done once
  into the cache, so a run with a scratch HOME starts in about 2 s. Offline mode:
  `COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_API_KEY`,
  `COPILOT_MODEL`; `-p PROMPT --allow-all-tools --no-auto-update`. A repository's hooks and
  `.claude/settings*.json` load in `-p` only when the folder is trusted
  (`GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true`);
- Droid takes a model from `~/.factory/settings.json` `customModels` (`provider:
  generic-chat-completion-api`); `droid exec --auto high -m custom:NAME PROMPT`, no login. Every
  `Execute` call needs `riskLevel` and `riskLevelReason` or Droid rejects it before any hook.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from loopguard_hook.install import apply, plan_host_install

from .clients import CACHE_DIR, HOOK_BIN, ClientUnavailable, Package, Prompt, Workspace, _run_process, base_env, install
from .dsh.mock_deepseek import ChatCompletionsMock
from .dsh.model_view import Call, calls
from .mock_model import Logged, Script

ARCH = "arm64" if platform.machine() in ("aarch64", "arm64") else "x64"
COPILOT = Package("copilot", "@github/copilot", "1.0.102", (f"@github/copilot-linux-{ARCH}/copilot",))
DROID = Package("droid", "droid", "0.215.0", (f"@factory/cli-linux-{ARCH}/bin/droid",))
RUN_TIMEOUT_SECONDS = 50
DROID_MODEL = "mock-coder"


def pkg_cache() -> Path:
    """Where Copilot's bundle is unpacked once for every run."""
    return COPILOT.prefix / "pkg-cache"


def ready(package: Package) -> Path:
    """The binary (installed when missing), with Copilot's bundle unpacked.

    Raises:
        ClientUnavailable: npm could not install it.
    """
    binary = install(package)
    if package is COPILOT and not (pkg_cache() / "pkg" / f"linux-{ARCH}" / package.version / ".extraction-complete").exists():
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(CACHE_DIR / "homes"),
               "COPILOT_PKG_CACHE_HOME": str(pkg_cache()), "COPILOT_AUTO_UPDATE": "false"}
        subprocess.run([str(binary), "--version"], env=env, capture_output=True, timeout=600, check=False)
    return binary


def version(binary: Path) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(CACHE_DIR / "homes"),
           "COPILOT_PKG_CACHE_HOME": str(pkg_cache()), "COPILOT_AUTO_UPDATE": "false"}
    proc = subprocess.run([str(binary), "--version"], env=env, capture_output=True, text=True, timeout=120, check=False)
    return (proc.stdout or proc.stderr).strip()


def host_or_skip(package: Package) -> NativeHost:
    """The CLI of `package`, ready (installed into the e2e cache when missing; the test skips if
    npm cannot, and fails on another version)."""
    try:
        binary = ready(package)
    except ClientUnavailable as exc:
        pytest.skip(f"{package.npm}@{package.version} cannot be installed: {exc}")
    if package.version not in version(binary):
        pytest.fail(f"{binary} is not version {package.version}")
    return NativeHost(package.name, binary)


def run_once(host: NativeHost, root: Path, turns: list[list[dict[str, Any]]], **kwargs: Any) -> HostRun:
    """One run of `turns` in a fresh workspace holding `notes.txt`, asserted to have finished."""
    ws = Workspace.create(root)
    ws.write("notes.txt", "alpha\nbeta\ngamma\n")
    run = host.run(ws, Script(turns, final_text="Done."), "Look at notes.txt.", **kwargs)
    assert run.prompt is not None and not run.prompt.timed_out, run.describe()
    return run


@dataclass
class HostRun:
    """A finished run: what the model received (`requests`) and the process."""

    host: str
    ws: Workspace
    requests: list[Logged]
    prompt: Prompt | None = None
    files: dict[str, Any] = field(default_factory=dict)

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.script == "main"]

    def by_turn(self) -> list[Call]:
        """Each call of the model's k-th turn as it came back: its result, the user messages after it."""
        return calls(self.bodies())

    def guard_texts(self) -> list[str]:
        return [t for c in self.by_turn() for t in (c.result, *c.after) if "[loopguard]" in t or "REPEAT_TOOL" in t]

    def ran(self) -> int:
        """Lines in the workspace's `ran.log` (the calls whose command really ran)."""
        path = self.ws.work / "ran.log"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def errors_log(self) -> str:
        path = self.ws.state / "errors.log"
        return path.read_text() if path.exists() else ""

    def describe(self) -> str:
        return f"run dir {self.ws.root} (requests.jsonl, {self.host}.stdout/.stderr, state/)"


class NativeHost:
    """One of the two CLIs, ready to run."""

    def __init__(self, name: str, binary: Path) -> None:
        self.name = name
        self.binary = binary

    def register(self, ws: Workspace) -> None:
        """`loopguard-hook install --client NAME` into the run's HOME (its own file and format)."""
        apply(plan_host_install(self.name, "user", home=ws.home, project_dir=ws.work))

    def run(self, ws: Workspace, script: Script, prompt: str, *, register: bool = True,
            env: dict[str, str] | None = None, timeout: float = RUN_TIMEOUT_SECONDS) -> HostRun:
        """Run the CLI once in `ws.work` (a git repository) with the guard registered as install
        writes it, `loopguard-hook` first on PATH and its state in `ws.state`."""
        if register:
            self.register(ws)
        if not (ws.work / ".git").exists():
            subprocess.run(["git", "init", "-q", str(ws.work)], check=True, capture_output=True)
        run = HostRun(self.name, ws, [])
        with ChatCompletionsMock(script, ws.root / "requests.jsonl") as mock:
            run.requests = mock.requests
            full = base_env(ws, keep_state=True) | {
                "PATH": f"{HOOK_BIN.parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
                "LOOPGUARD_STATE_DIR": str(ws.state),
                "NO_COLOR": "1",
                "TERM": "dumb",
            }
            if self.name == "copilot":
                full |= {
                    "COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": f"{mock.url}/v1",
                    "COPILOT_PROVIDER_API_KEY": "mock", "COPILOT_MODEL": "gpt-4.1", "COPILOT_AUTO_UPDATE": "false",
                    "COPILOT_PKG_CACHE_HOME": str(pkg_cache()),
                }
                cmd = [str(self.binary), "-p", prompt, "--allow-all-tools", "--no-auto-update"]
            else:
                self._droid_model(ws, mock.url)
                cmd = [str(self.binary), "exec", "--auto", "high", "-m", f"custom:{DROID_MODEL}", prompt]
            full |= env or {}
            (ws.root / f"{self.name}.cmd.json").write_text(json.dumps({"cmd": cmd, "env": full}, indent=2))
            run.prompt = _run_process(prompt, cmd, cwd=ws.work, env=full, out=ws.root / self.name, timeout=timeout)
        return run

    @staticmethod
    def _droid_model(ws: Workspace, url: str) -> None:
        """The mock as Droid's custom model, merged into `~/.factory/settings.json`."""
        path = ws.home / ".factory" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.loads(path.read_text()) if path.exists() else {}
        data["customModels"] = [{"model": DROID_MODEL, "displayName": "Mock", "baseUrl": f"{url}/v1", "apiKey": "mock",
                                 "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}]
        path.write_text(json.dumps(data, indent=2))
