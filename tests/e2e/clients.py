"""Install the pinned real clients and run them offline against a mock model, with
`loopguard-hook` registered for every hook event the product handles.

Clients are installed once into `E2E_CLIENT_CACHE` (default `~/.cache/loopguard-hook-e2e`) as
`<cache>/<client>-<version>` with `npm install --prefix`. Each run gets a scratch workspace (cwd,
HOME, state dir, TMPDIR), a clean environment, a wall-clock limit, and on the way out the client's
whole process tree is killed (hooks and tool processes included).

Client facts used here (Claude Code 2.1.332, Codex 0.171.0, verified against the real clients):

- Claude Code refuses `--dangerously-skip-permissions` as root; `--allowedTools` plus
  `permissions.allow` in the `--settings` file let the scripted tools run. A follow-up prompt in
  the same conversation is `claude -p PROMPT --continue` (same session_id). The npm package's
  native binary is in the per-platform package `@anthropic-ai/claude-code-<platform>`.
- Codex reads `config.toml` and `hooks.json` from `CODEX_HOME`; a custom provider with
  `wire_api = "responses"` sends only `POST /v1/responses`; untrusted hooks are skipped silently
  unless `--dangerously-bypass-hook-trust`; hook commands run via `$SHELL -lc`; tool and hook
  processes get their own process groups, so killing the group is not enough.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopguard_hook.core.event import HANDLED_EVENTS, TOOL_EVENTS

from .mock_model import AnthropicMock, Logged, ResponsesMock, Script

# Read at import: the test suite's autouse fixture points HOME at a temp dir and drops every
# LOOPGUARD_* variable before each test.
CACHE_DIR = Path(os.environ.get("E2E_CLIENT_CACHE") or Path.home() / ".cache" / "loopguard-hook-e2e")
#: The console script of the virtualenv running the tests.
HOOK_BIN = Path(sys.executable).parent / "loopguard-hook"

#: Every event the product handles, registered in both clients. Codex 0.171.0 ignores the names
#: it does not know (PostToolUseFailure, PostToolBatch) without a warning.
HOOK_EVENTS = tuple(sorted(HANDLED_EVENTS))
HOOK_TIMEOUT_SECONDS = 30
RUN_TIMEOUT_SECONDS = 150
INSTALL_TIMEOUT_SECONDS = 900


class ClientUnavailable(Exception):
    """The client is not installed and npm could not install it (the e2e tests skip)."""


@dataclass(frozen=True)
class Package:
    """A pinned npm package and where its runnable binary lands under `node_modules`."""

    name: str
    npm: str
    version: str
    binaries: tuple[str, ...]

    @property
    def prefix(self) -> Path:
        return CACHE_DIR / f"{self.name}-{self.version}"

    def find(self) -> Path | None:
        """The first runnable binary under the prefix, or None."""
        modules = self.prefix / "node_modules"
        for pattern in self.binaries:
            for path in sorted(modules.glob(pattern)):
                if path.is_file() and os.access(path, os.X_OK) and _runnable(path):
                    return path
        return None


def _runnable(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(4)
    return head == b"\x7fELF" or head[:2] == b"#!" or head in (b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")


CLAUDE_CODE = Package(
    "claude-code",
    "@anthropic-ai/claude-code",
    "2.1.332",
    # The wrapper's postinstall links the native binary over bin/claude.exe; npm may skip install
    # scripts, so the per-platform package's binary comes first.
    ("@anthropic-ai/claude-code-*/claude", ".bin/claude"),
)
CODEX = Package("codex", "@openai/codex", "0.171.0", (".bin/codex",))


def install(package: Package) -> Path:
    """Return the package's binary, installing it into the cache first when it is missing.

    Raises:
        ClientUnavailable: npm is missing, failed, or installed no runnable binary.
    """
    found = package.find()
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None:
        raise ClientUnavailable(f"{package.npm}@{package.version} is not in {package.prefix} and npm is not on PATH")
    package.prefix.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / f".{package.name}.install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install per package at a time, across processes
        found = package.find()
        if found is not None:
            return found
        npm_install(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(package.prefix), f"{package.npm}@{package.version}"],
            cwd=package.prefix,
        )
    found = package.find()
    if found is None:
        raise ClientUnavailable(f"npm installed {package.npm}@{package.version} but no runnable binary is in {package.prefix}")
    return found


def npm_install(
    cmd: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = INSTALL_TIMEOUT_SECONDS
) -> None:
    """Run one `npm install` command line.

    Raises:
        ClientUnavailable: npm could not start, timed out or exited non-zero (with its output's tail).
    """
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClientUnavailable(f"`{shlex.join(cmd)}` failed: {exc}") from None
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip()[-1500:]
        raise ClientUnavailable(f"`{shlex.join(cmd)}` exited {proc.returncode}:\n{tail}")


def version_of(binary: Path) -> str:
    """`<binary> --version` output, stripped (e.g. "2.1.332 (Claude Code)", "codex-cli 0.171.0")."""
    with tempfile.TemporaryDirectory(prefix="loopguard-e2e-") as home:  # the clients write to HOME
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "DISABLE_AUTOUPDATER": "1"}
        proc = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    return (proc.stdout or proc.stderr).strip()


# -- process trees ----------------------------------------------------------------------------------


def descendants(pid: int) -> list[int]:
    """Live descendants of `pid` (Linux /proc), parents before children."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """Kill `proc` (started with `start_new_session=True`), its process group, and every
    descendant that moved to a group of its own. Safe to call on a finished process."""
    victims = descendants(proc.pid) if proc.poll() is None else []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in victims:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            proc.wait(timeout=3)
            if sig == signal.SIGTERM and not any(_alive(p) for p in victims):
                return
        except subprocess.TimeoutExpired:
            continue


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# -- runs -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workspace:
    """A run's scratch directories: `work` (the client's cwd), `home` (HOME), `state`
    (`loopguard-hook --state-dir`), `tmp` (TMPDIR), all under `root`."""

    root: Path

    @classmethod
    def create(cls, root: Path) -> Workspace:
        ws = cls(root)
        for d in (ws.work, ws.home, ws.tmp):
            d.mkdir(parents=True, exist_ok=True)
        return ws

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    def write(self, relative: str, content: str) -> Path:
        """Create a file in the working directory; returns its absolute path."""
        path = self.work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return path


def hook_command(ws: Workspace) -> str:
    """The hook command line registered in the client: the venv's console script, own state dir."""
    return f"{shlex.quote(str(HOOK_BIN))} --state-dir {shlex.quote(str(ws.state))}"


def base_env(ws: Workspace, *, keep_state: bool) -> dict[str, str]:
    """A clean environment: nothing from the caller's leaks into the client or the hooks."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(ws.home),
        "LANG": "C.UTF-8",
        "TMPDIR": str(ws.tmp),
        "SHELL": "/bin/bash",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    if keep_state:
        # SessionEnd would delete the session's ledger; the tests read it after the run.
        env["LOOPGUARD_KEEP_STATE"] = "true"
    return env


@dataclass
class Prompt:
    """One client process: the prompt it ran, exit code, output, wall time (s)."""

    prompt: str
    exit_code: int
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str


@dataclass
class Run:
    """A finished run: what the model received (`requests`), what each client process printed."""

    client: str
    ws: Workspace
    requests: list[Logged]
    prompts: list[Prompt] = field(default_factory=list)

    def conversation(self, script: str = "main") -> list[dict[str, Any]]:
        """Request bodies of one script ("main" or a subagent's match text), retries left out."""
        return [r.body for r in self.requests if r.script == script and not r.retry]

    def describe(self) -> str:
        """Where to look when an assertion fails."""
        return f"run dir {self.ws.root} (requests.jsonl, *.stdout, *.stderr, state/)"


def _run_process(prompt: str, cmd: list[str], *, cwd: Path, env: dict[str, str], out: Path, timeout: float) -> Prompt:
    started = time.monotonic()
    with open(out.with_suffix(".stdout"), "wb") as so, open(out.with_suffix(".stderr"), "wb") as se:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=so,
            stderr=se,
            start_new_session=True,
        )
        try:
            code, timed_out = proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            code, timed_out = 124, True
        finally:
            kill_tree(proc)  # also ends leftovers: a hung hook, a background shell
    return Prompt(
        prompt,
        code,
        timed_out,
        round(time.monotonic() - started, 2),
        out.with_suffix(".stdout").read_text(errors="replace"),
        out.with_suffix(".stderr").read_text(errors="replace"),
    )


def _check(run: Run) -> Run:
    for p in run.prompts:
        if p.timed_out or p.exit_code != 0:
            how = "timed out" if p.timed_out else f"exited {p.exit_code}"
            raise AssertionError(f"{run.client} {how} on prompt {p.prompt!r}; stderr tail:\n{p.stderr[-2000:]}\n{run.describe()}")
    return run


class ClaudeCode:
    """The real Claude Code CLI, run as `claude -p` against `AnthropicMock`."""

    ALLOWED_TOOLS = ("Bash", "Read", "Edit", "Write", "Glob", "Grep", "Agent")

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def settings(self, ws: Workspace, deny: tuple[str, ...] = ()) -> dict[str, Any]:
        """The `--settings` file: permissions for the scripted tools (and the `deny` rules given,
        `Bash(rm -rf:*)`), and the hook on every event."""
        hooks: dict[str, Any] = {}
        for event in HOOK_EVENTS:
            group: dict[str, Any] = {
                "hooks": [
                    {
                        "type": "command",
                        "command": hook_command(ws),
                        "timeout": HOOK_TIMEOUT_SECONDS,
                    }
                ]
            }
            if event in TOOL_EVENTS:
                group["matcher"] = "*"
            hooks[event] = [group]
        return {"permissions": {"allow": list(self.ALLOWED_TOOLS), "deny": list(deny)}, "hooks": hooks}

    def run(
        self,
        ws: Workspace,
        script: Script,
        prompts: list[str],
        *,
        keep_state: bool = True,
        timeout: float = RUN_TIMEOUT_SECONDS,
        deny: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> Run:
        """Run `claude -p` once per prompt (the later ones with `--continue`) against one mock,
        with the permission `deny` rules given and `env` added to the client's environment.

        Raises:
            AssertionError: a client process timed out or exited non-zero.
        """
        settings = ws.root / "settings.json"
        settings.write_text(json.dumps(self.settings(ws, deny), indent=2))
        run = Run("claude-code", ws, [])
        deadline = time.monotonic() + timeout
        with AnthropicMock(script, ws.root / "requests.jsonl") as mock:
            run.requests = mock.requests
            env = (env or {}) | base_env(ws, keep_state=keep_state) | {
                "ANTHROPIC_BASE_URL": mock.url,
                "ANTHROPIC_API_KEY": "mock-key",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
            }
            for i, prompt in enumerate(prompts):
                cmd = [
                    str(self.binary),
                    "-p",
                    prompt,
                    "--settings",
                    str(settings),
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--include-hook-events",
                    "--allowedTools",
                    " ".join(self.ALLOWED_TOOLS),
                ]
                if i:
                    cmd.append("--continue")  # the same conversation and session_id
                run.prompts.append(
                    _run_process(
                        prompt,
                        cmd,
                        cwd=ws.work,
                        env=env,
                        out=ws.root / f"claude{i}",
                        timeout=max(1.0, deadline - time.monotonic()),
                    )
                )
                if run.prompts[-1].exit_code != 0:
                    break
        return _check(run)


class Codex:
    """The real Codex CLI, run as `codex exec` against `ResponsesMock`."""

    MODEL = "gpt-5.5"  # a slug from the bundled catalog: Codex offers exec_command and apply_patch

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def config(self, url: str) -> str:
        """`config.toml`: the mock provider, no retries, no approvals, no update check."""
        return "\n".join(
            [
                f'model = "{self.MODEL}"',
                'model_provider = "mock"',
                'approval_policy = "never"',
                'sandbox_mode = "danger-full-access"',
                "check_for_update_on_startup = false",
                "",
                "[model_providers.mock]",
                'name = "Mock Responses"',
                f'base_url = "{url}/v1"',
                'wire_api = "responses"',
                'env_key = "MOCK_MODEL_API_KEY"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
                "stream_idle_timeout_ms = 60000",
                "",
                "[analytics]",
                "enabled = false",
                "",
            ]
        )

    def hooks(self, ws: Workspace) -> dict[str, Any]:
        """`hooks.json`: the hook on every event, no matcher (every tool)."""
        entry = {"type": "command", "command": hook_command(ws), "timeout": HOOK_TIMEOUT_SECONDS}
        return {"hooks": {event: [{"hooks": [entry]}] for event in HOOK_EVENTS}}

    def run(
        self,
        ws: Workspace,
        script: Script,
        prompt: str,
        *,
        keep_state: bool = True,
        timeout: float = RUN_TIMEOUT_SECONDS,
        sandbox: str | None = None,
        config: str = "",
    ) -> Run:
        """Run `codex exec PROMPT` once against the mock; `sandbox`: a sandbox mode (`-s
        read-only`) instead of none at all; `config`: more `config.toml` (tables after the
        harness's own).

        Raises:
            AssertionError: Codex timed out or exited non-zero.
        """
        ws.codex_home.mkdir(parents=True, exist_ok=True)
        (ws.codex_home / "hooks.json").write_text(json.dumps(self.hooks(ws), indent=2))
        run = Run("codex", ws, [])
        with ResponsesMock(script, ws.root / "requests.jsonl") as mock:
            run.requests = mock.requests
            (ws.codex_home / "config.toml").write_text(self.config(mock.url) + config)
            env = base_env(ws, keep_state=keep_state) | {
                "CODEX_HOME": str(ws.codex_home),
                "MOCK_MODEL_API_KEY": "mock-key",
                "NO_COLOR": "1",
            }
            cmd = [
                str(self.binary),
                "exec",
                "--skip-git-repo-check",
                *(["-s", sandbox] if sandbox else ["--dangerously-bypass-approvals-and-sandbox"]),
                "--dangerously-bypass-hook-trust",
                "-C",
                str(ws.work),
                "-o",
                str(ws.root / "last_message.txt"),
                "--",
                prompt,
            ]
            run.prompts.append(_run_process(prompt, cmd, cwd=ws.work, env=env, out=ws.root / "codex", timeout=timeout))
        return _check(run)
