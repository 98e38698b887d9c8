"""What the hook path imports, and that importing the package does nothing by itself.

Every tool call starts `loopguard-hook` afresh (usually twice), so every module it imports is
paid for on every call. These tests run the real console script with `-X importtime`
(`PYTHONPROFILEIMPORTTIME=1`) on a small PreToolUse payload and pin what the hook path may not
import. Modules the bare interpreter imports as well (`python -c pass` in the same environment:
`site`, `.pth` hooks) are not the hook's doing and are left out. `bench/run.py` measures what the
imports cost; these tests only look at names, never at times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Never on the hook path: each costs milliseconds and none is needed to decide one call.
FORBIDDEN = ("importlib.metadata", "subprocess", "logging", "asyncio", "email", "http", "click")

SESSION = "5adc0d65-0c7b-4e77-84b5-4f0269348799"


def _payload(cwd: Path) -> bytes:
    """A Claude Code 2.1.332 PreToolUse payload (shape of the captured `PreToolUse.Bash.json`)."""
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": f"{cwd}/{SESSION}.jsonl",
            "cwd": str(cwd),
            "prompt_id": "6f112c9e-cfc0-4043-802d-f77cafaed5ea",
            "permission_mode": "default",
            "effort": {"level": "medium"},
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls", "description": "List files"},
            "tool_use_id": "toolu_mock_03_0",
        }
    ).encode()


def _hook_command(*args: str) -> list[str]:
    script = Path(sys.executable).parent / "loopguard-hook"
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-m", "loopguard_hook", *args]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPROFILEIMPORTTIME", "PYTHONSTARTUP")}
    env.update(extra)
    return env


def _imported(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "imported package" not in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def _startup_modules(env: dict[str, str]) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", "pass"], env=dict(env, PYTHONPROFILEIMPORTTIME="1"),
        capture_output=True, text=True, check=True, timeout=60,
    )
    return _imported(result.stderr)


def _hook_imports(tmp_path: Path, *args: str, env: dict[str, str] | None = None,
                  project_config: str | None = None) -> set[str]:
    """Run the console script once; the modules its hook path imported (beyond start-up)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    if project_config is not None:
        (project / ".loopguard.toml").write_text(project_config)
    env = env or _env()
    result = subprocess.run(
        _hook_command(*args), input=_payload(project), env=dict(env, PYTHONPROFILEIMPORTTIME="1"),
        capture_output=True, timeout=60,
    )
    stderr = result.stderr.decode("utf-8", "replace")
    other = [line for line in stderr.splitlines() if not line.startswith("import time:")]
    assert result.returncode == 0, other
    assert not other, other
    modules = _imported(stderr)
    assert "loopguard_hook.core.engine" in modules and "orjson" in modules, "importtime output not understood"
    return modules - _startup_modules(env)


def _matching(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_hook_path_imports_none_of_the_heavy_modules(tmp_path: Path) -> None:
    modules = _hook_imports(tmp_path, "--state-dir", str(tmp_path / "state"))
    assert _matching(modules, FORBIDDEN) == []


def test_no_tomllib_without_a_config_file(tmp_path: Path) -> None:
    modules = _hook_imports(tmp_path, "--state-dir", str(tmp_path / "state"))
    assert "tomllib" not in modules


def test_a_project_config_file_is_read_with_tomllib(tmp_path: Path) -> None:
    """The control for the test above: the import check does see a lazy import."""
    modules = _hook_imports(tmp_path, "--state-dir", str(tmp_path / "state"), project_config="deny_at = 6\n")
    assert "tomllib" in modules


def test_state_dir_from_the_environment_imports_nothing_heavy(tmp_path: Path) -> None:
    env = _env(LOOPGUARD_STATE_DIR=str(tmp_path / "state"))
    modules = _hook_imports(tmp_path, env=env)
    assert _matching(modules, FORBIDDEN) == []
    assert (tmp_path / "state" / "sessions" / f"{SESSION}.json").is_file()


_IN_PROCESS = """
import json, os, sys
from loopguard_hook.hook import HookOptions, run
state_dir = sys.argv[1] if len(sys.argv) > 1 else None
result = run(sys.stdin.buffer.read(), options=HookOptions(state_dir=state_dir), environ=os.environ, user_config="")
print(json.dumps({"exit": int(result.exit_code), "stderr": result.stderr,
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("platformdirs", "tomllib", "click"))}))
"""


@pytest.mark.parametrize("where", ["option", "environment"])
def test_a_given_state_dir_needs_no_platformdirs(tmp_path: Path, where: str) -> None:
    """With `--state-dir` or `LOOPGUARD_STATE_DIR` (and the user config path settled), the state
    store never asks platformdirs for the cache dir."""
    project = tmp_path / "project"
    project.mkdir()
    state = str(tmp_path / "state")
    args = [state] if where == "option" else []
    env = _env(LOOPGUARD_STATE_DIR=state) if where == "environment" else _env()
    result = subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, *args], input=_payload(project), env=env,
        capture_output=True, timeout=60, check=True,
    )
    report = json.loads(result.stdout)
    assert report["exit"] == 0, report["stderr"]
    assert report["loaded"] == []


_IMPORT_ALL = """
import importlib, pkgutil, sys, threading
import loopguard_hook
names = sorted(m.name for m in pkgutil.iter_modules(loopguard_hook.__path__) if m.name != "__main__")
for name in names:
    importlib.import_module("loopguard_hook." + name)
left = len(sys.stdin.buffer.read())
sys.stderr.write(f"{threading.active_count()} {len(names)} {left}\\n")
"""


def test_importing_the_package_does_no_work(tmp_path: Path) -> None:
    """Importing any module of the package creates no file or folder (state dir, cache, config,
    logs), starts no thread, reads no stdin and prints nothing."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    env = _env(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        LOOPGUARD_STATE_DIR=str(tmp_path / "state"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL], input=b"not for the import", cwd=cwd, env=env,
        capture_output=True, timeout=60, check=True,
    )
    assert result.stdout == b""
    threads, count, unread = result.stderr.decode().split()
    assert threads == "1"
    assert int(count) >= 10
    assert int(unread) == len(b"not for the import")
    created = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert created == ["cwd", "home"]


HOOK_PATH_MODULES = (
    "hook", "hosts.payload", "config.load", "core.engine", "core.signature", "store", "rules.text_loops", "core.progress",
    "core.policy", "core.redact",
    "hosts.render", "core.messages",
)


def test_hook_path_defines_no_dataclasses() -> None:
    """Defining a frozen dataclass costs about 0.6 ms (a 40-field one 2.5 ms) of generated code
    on every hook start; a NamedTuple costs a tenth of that. The hook path's value types are
    NamedTuples, and nothing there compiles a regular expression at import. A module that
    defines one keeps its annotations as objects: with `from __future__ import annotations`
    typing.NamedTuple compiles every field's annotation string (about 1 ms per hook start)."""
    import dataclasses
    import importlib
    import re

    for name in HOOK_PATH_MODULES:
        module = importlib.import_module(f"loopguard_hook.{name}")
        own = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
        assert not [c.__name__ for c in own if dataclasses.is_dataclass(c)], name
        assert not [k for k, v in vars(module).items() if isinstance(v, re.Pattern)], name
        if any(isinstance(c, type) and issubclass(c, tuple) and hasattr(c, "_fields") for c in own):
            assert "annotations" not in vars(module), f"{name} uses postponed annotations"


def test_a_dsh_pretooluse_never_imports_the_zstd_decompressor(tmp_path: Path) -> None:
    """DSH's session log is zstd; its decompressor is imported on a DSH Stop alone (dshlog.py)."""
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "dsh" / "sessions" / "--project--" / "session-1" / "session.jsonl.zstd"
    log.parent.mkdir(parents=True)
    log.write_bytes(b"")
    payload = json.dumps({  # the Claude Code bridge's captured PreToolUse.read.json shape
        "session_id": "session-1", "transcript_path": str(log), "cwd": str(project), "hook_event_name": "PreToolUse",
        "tool_name": "read", "tool_input": {"file_path": "notes.txt"}, "tool_use_id": "call_main_0_0",
    }).encode()
    env = _env()
    result = subprocess.run(
        _hook_command("--state-dir", str(tmp_path / "state")), input=payload,
        env=dict(env, PYTHONPROFILEIMPORTTIME="1"), capture_output=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules = _imported(result.stderr.decode("utf-8", "replace")) - _startup_modules(env)
    assert "loopguard_hook.core.engine" in modules, "importtime output not understood"
    assert _matching(modules, ("backports.zstd", "compression", "zstandard", "pyzstd", "loopguard_hook.hosts.dshlog")) == []
