"""Run the real DSH headless (`dsh --profile headless TASK`) with one hook bridge mounted and
`loopguard-hook` registered on every event that bridge maps, against `ChatCompletionsMock`.

DSH facts used here (dsh 0.1.0-rc.8, dsh-hooks-claude-code 0.0.1-rc.5, dsh-hooks-codex
0.0.1-rc.1; shared/research/dsh-hooks.md):

- The bridges are mounted by an `insert` row of a `--patch` overlay whose `name` is the absolute
  path of the bridge's `lib/index.js`; `config.configPath` names the hooks file (a Claude Code
  settings-style `{"hooks": ...}` map, or Codex's `hooks.json`).
- The headless profile disables the `hmr` row, and the launcher then exits ("user patch-layer
  watching requires the Cordis HMR service"): the overlay enables it with no watched roots.
  It also turns off the session-title request and DSH's own repeat-tool-reminder (3/5/8), so
  that only the guard talks to the model about repeats.
- The Codex bridge injects a `bash` service that dsh 0.1.0-rc.8 lacks; `plugins/bash_service.mjs`
  provides it from `shell`.
- Matchers: absent, empty and `*` match every tool; anything else is a case-sensitive regex
  tested against DSH's lower-case tool names (`read`, `bash`, ...), so `"Read"` never fires.
- `DSH_PERMISSION_MODE` unset means `workspace-write`: hooks then run under DSH's sandbox
  (bubblewrap, else Landlock) with the launch directory and /tmp writable.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..clients import HOOK_BIN, Workspace, _run_process
from ..mock_model import Logged, Script
from .install import CACHE_DIR, Install
from .mock_deepseek import ChatCompletionsMock

BRIDGES = ("claude-code", "codex")
#: The Claude Code / Codex events each bridge maps onto DSH's interception points.
BRIDGE_EVENTS = {
    "claude-code": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop"),
    "codex": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"),
}
#: Events whose groups carry a matcher (the bridges drop it on UserPromptSubmit and Stop).
MATCHER_EVENTS = frozenset({"PreToolUse", "PostToolUse", "SessionStart", "SubagentStart", "SubagentStop"})
#: Fires on every DSH tool: `*` is the bridges' match-all sentinel.
MATCHER = "*"
BASH_SERVICE = Path(__file__).with_name("plugins") / "bash_service.mjs"
HOOK_TIMEOUT_SECONDS = 30
RUN_TIMEOUT_SECONDS = 120
MODEL = "deepseek-v4-flash"


@dataclass
class DshRun:
    """A finished dsh run: every request the model received, dsh's exit code and output, the
    guard's state dir (None: the guard's default) and the Node binary (to read the session log)."""

    bridge: str
    root: Path
    requests: list[Logged]
    exit_code: int = 0
    timed_out: bool = False
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    state_dir: Path | None = None
    node: Path = Path("node")

    def conversation(self, script: str = "main") -> list[dict[str, Any]]:
        """Request bodies of one script ("main" or a subagent's match text), in order."""
        return [r.body for r in self.requests if r.script == script]

    def describe(self) -> str:
        """Where to look when an assertion fails."""
        return f"{self.bridge} bridge, run dir {self.root} (requests.jsonl, dsh.stdout, dsh.stderr, dsh_home/, state/)"


def hook_command(state_dir: Path | None, extra: tuple[str, ...] = ()) -> str:
    """The registered command line: the venv's console script, with `--state-dir` unless None."""
    args = [str(HOOK_BIN)]
    if state_dir is not None:
        args += ["--state-dir", str(state_dir)]
    return shlex.join([*args, *extra])


def hooks_config(bridge: str, command: str) -> dict[str, Any]:
    """The bridge's hooks file: `command` on every event the bridge maps, matcher `*` where one applies."""
    hooks: dict[str, Any] = {}
    for event in BRIDGE_EVENTS[bridge]:
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}]}
        if event in MATCHER_EVENTS:
            group["matcher"] = MATCHER
        hooks[event] = [group]
    return {"hooks": hooks}


def overlay(install: Install, bridge: str, hooks_path: Path) -> str:
    """The `--patch` overlay (YAML): enable hmr, drop the title request and DSH's own repeat
    reminder, mount the bridge (and, for Codex, the `bash` service it needs)."""
    q = json.dumps  # a JSON string is a YAML double-quoted scalar
    rows = [
        "- id: hmr",
        "  disabled: false",
        "  config:",
        "    root: []",
        "- id: session-title-llm",
        "  disabled: true",
        "- id: repeat-tool-reminder",
        "  disabled: true",
        "- insert:",
    ]
    if bridge == "codex":
        rows += ["    - id: loopguard-e2e-bash-service", f"      name: {q(str(BASH_SERVICE))}"]
    rows += [
        f"    - id: loopguard-e2e-hooks-{bridge}",
        f"      name: {q(str(install.bridge(bridge)))}",
        "      config:",
        f"        configPath: {q(str(hooks_path))}",
    ]
    if bridge == "codex":
        rows.append(f"        model: {q(MODEL)}")
    return "\n".join(rows) + "\n"


@contextmanager
def outside_tmp_home() -> Iterator[Path]:
    """A scratch HOME outside /tmp and outside the workspace, as a real user's HOME is: DSH's
    sandbox grants /tmp, so a HOME under pytest's tmp dir would be writable where a real one is not."""
    parent = CACHE_DIR / "homes"
    parent.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="home-", dir=parent))
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


class Dsh:
    """The real DSH with one bridge (`claude-code` or `codex`)."""

    def __init__(self, install: Install, bridge: str) -> None:
        if bridge not in BRIDGES:
            raise ValueError(f"unknown bridge {bridge!r}")
        self.install = install
        self.bridge = bridge

    def run(
        self,
        ws: Workspace,
        script: Script,
        task: str,
        *,
        command: str | None = None,
        state: bool = True,
        permission_mode: str | None = "danger-full-access",
        home: Path | None = None,
        env: dict[str, str] | None = None,
        unset: tuple[str, ...] = (),
        timeout: float = RUN_TIMEOUT_SECONDS,
    ) -> DshRun:
        """Run `dsh --profile headless TASK` in `ws.work` against a mock serving `script`.

        `command` is the hook command (default: `loopguard-hook --state-dir <ws.state>`, or no
        `--state-dir` when `state` is False). `permission_mode` None leaves `DSH_PERMISSION_MODE`
        unset (DSH's default, `workspace-write`). `home` overrides HOME (default `ws.home`); `env`
        adds variables and `unset` drops some of the defaults (e.g. TMPDIR, `ws.tmp` by default).
        On a timeout dsh's whole process tree is killed and `timed_out` is set; the caller
        asserts on the exit code.
        """
        if command is None:
            command = hook_command(ws.state if state else None)
        hooks_path = ws.root / "hooks.json"
        hooks_path.write_text(json.dumps(hooks_config(self.bridge, command), indent=2))
        overlay_path = ws.root / "overlay.yml"
        overlay_path.write_text(overlay(self.install, self.bridge, hooks_path))
        dsh_home = ws.root / "dsh_home"
        dsh_home.mkdir(exist_ok=True)
        run = DshRun(self.bridge, ws.root, [], state_dir=ws.state if state else None, node=self.install.node)
        with ChatCompletionsMock(script, ws.root / "requests.jsonl") as mock:
            run.requests = mock.requests
            full_env = {
                "PATH": f"{self.install.node.parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
                "HOME": str(home or ws.home),
                "LANG": "C.UTF-8",
                "TMPDIR": str(ws.tmp),
                "SHELL": "/bin/bash",
                "NO_PROXY": "127.0.0.1,localhost",
                "DSH_HOME": str(dsh_home),
                "DSH_TELEMETRY_MODE": "DISABLED",
                "DEEPSEEK_BASE_URL": mock.url,
                "DEEPSEEK_API_KEY": "sk-mock",
            }
            if permission_mode is not None:
                full_env["DSH_PERMISSION_MODE"] = permission_mode
            full_env.update(env or {})
            for name in unset:
                full_env.pop(name, None)
            cmd = [
                str(self.install.node),
                str(self.install.launcher),
                "--profile",
                "headless",
                "--patch",
                str(overlay_path),
                task,
            ]
            (ws.root / "dsh.cmd.json").write_text(json.dumps({"cmd": cmd, "env": full_env}, indent=2))
            done = _run_process(task, cmd, cwd=ws.work, env=full_env, out=ws.root / "dsh", timeout=timeout)
        run.exit_code, run.timed_out, run.seconds = done.exit_code, done.timed_out, done.seconds
        run.stdout, run.stderr = done.stdout, done.stderr
        return run
