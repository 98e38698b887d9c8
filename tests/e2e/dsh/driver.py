"""Run the real DSH headless (`dsh --profile headless TASK`) with one hook bridge mounted and
`loopguard-hook` registered on every event that bridge maps, against `ChatCompletionsMock`.

DSH facts used here (dsh 0.1.0-rc.8, dsh-hooks-claude-code 0.0.1-rc.5, dsh-hooks-codex
0.0.1-rc.1; shared/research/dsh-hooks.md):

- The bridge is mounted by what `loopguard-hook install --client dsh-<bridge>` writes, as a user
  gets it: the patch-layer block in `$DSH_HOME/cordis.patch.yml` (DSH applies that layer under
  every profile, together with a `--patch` overlay), the hooks config it names and, for the
  Codex bridge, the plugin providing the `bash` service that bridge waits for (dsh 0.1.0-rc.8
  has only `shell`). Only the hooks config's command is the suite's (`--state-dir`, `--profile`)
  unless a run asks for the file exactly as installed.
- The headless profile disables the `hmr` row, and the launcher then exits ("user patch-layer
  watching requires the Cordis HMR service"): the `--patch` overlay enables it with no watched
  roots. It also turns off the session-title request and DSH's own repeat-tool-reminder
  (3/5/8), so that only the guard talks to the model about repeats.
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
import subprocess
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
#: The suite's hook timeout, in place of install's 10 s: this 2-core machine is shared and loaded.
HOOK_TIMEOUT_SECONDS = 30
RUN_TIMEOUT_SECONDS = 120


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


def install_guard(install: Install, bridge: str, *, home: Path, dsh_home: Path, command: str | None, out: Path) -> Path:
    """Run `loopguard-hook install --client dsh-<bridge>` as a user would (the bridge named by
    `--bridge-path`: the e2e prefix is not on any PATH), its report saved to `out`; then, unless
    `command` is None, put `command` and the suite's timeout in every handler of the hooks config
    it wrote. Returns that config's path.

    Raises:
        AssertionError: install failed.
    """
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "DSH_HOME": str(dsh_home), "LANG": "C.UTF-8"}
    args = [str(HOOK_BIN), "install", "--client", f"dsh-{bridge}", "--bridge-path", str(install.bridge(bridge))]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    out.write_text(f"$ {shlex.join(args)}\n{done.stdout}{done.stderr}exit {done.returncode}\n")
    assert done.returncode == 0, out.read_text()
    hooks_path = dsh_home / "loopguard-hook" / f"hooks-{bridge}.json"
    if command is not None:
        data = json.loads(hooks_path.read_text())
        for groups in data["hooks"].values():
            for group in groups:
                for handler in group["hooks"]:
                    handler.update(command=command, timeout=HOOK_TIMEOUT_SECONDS)
        hooks_path.write_text(json.dumps(data, indent=2) + "\n")
    return hooks_path


#: The `--patch` overlay (YAML): enable hmr, drop the title request and DSH's own repeat reminder.
OVERLAY = """\
- id: hmr
  disabled: false
  config:
    root: []
- id: session-title-llm
  disabled: true
- id: repeat-tool-reminder
  disabled: true
"""


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
        as_installed: bool = False,
        permission_mode: str | None = "danger-full-access",
        home: Path | None = None,
        env: dict[str, str] | None = None,
        unset: tuple[str, ...] = (),
        timeout: float = RUN_TIMEOUT_SECONDS,
    ) -> DshRun:
        """Run `dsh --profile headless TASK` in `ws.work` against a mock serving `script`.

        The guard is set up by `loopguard-hook install` (`install_guard`). `command` is the hook
        command (default: `loopguard-hook --state-dir <ws.state>`, or no `--state-dir` when
        `state` is False); `as_installed` keeps install's hooks config as it is (the command
        `loopguard-hook`, found on PATH, where the venv's bin folder comes first, the state in
        DSH's workspace) and ignores `command` and `state`. `permission_mode` None leaves `DSH_PERMISSION_MODE`
        unset (DSH's default, `workspace-write`). `home` overrides HOME (default `ws.home`); `env`
        adds variables and `unset` drops some of the defaults (e.g. TMPDIR, `ws.tmp` by default).
        On a timeout dsh's whole process tree is killed and `timed_out` is set; the caller
        asserts on the exit code.
        """
        if as_installed:
            command, state = None, False
        elif command is None:
            command = hook_command(ws.state if state else None)
        dsh_home = ws.root / "dsh_home"
        dsh_home.mkdir(exist_ok=True)
        install_guard(
            self.install, self.bridge, home=home or ws.home, dsh_home=dsh_home, command=command, out=ws.root / "install.out"
        )
        overlay_path = ws.root / "overlay.yml"
        overlay_path.write_text(OVERLAY)
        run = DshRun(self.bridge, ws.root, [], state_dir=ws.state if state else None, node=self.install.node)
        bin_dirs = [str(self.install.node.parent)] + ([str(HOOK_BIN.parent)] if as_installed else [])
        with ChatCompletionsMock(script, ws.root / "requests.jsonl") as mock:
            run.requests = mock.requests
            full_env = {
                "PATH": os.pathsep.join([*bin_dirs, os.environ.get("PATH", "/usr/bin:/bin")]),
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
