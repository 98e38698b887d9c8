"""What the fast path adds to the imports of the hook process, and where it stays out.

- Served by the helper, the hook process imports only the client (`os`, `sys`, `marshal` are
  already loaded; `_socket` and `_blake2` are one shared library each): no orjson, no hook
  modules, no `socket`, `json`, `re` or `typing`.
- With `LOOPGUARD_RESIDENT=off` the in-process path imports nothing of the fast path.
- The operator commands and the hook modules never import the helper.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from resident import short_temp_dir, stop_helpers, wait_for_socket
from test_imports import _env, _hook_imports, _imported, _payload, _startup_modules

#: Everything the hook process may import beyond start-up when the helper answers.
CLIENT_MODULES = {
    "loopguard_hook", "loopguard_hook.entry", "loopguard_hook.process", "loopguard_hook.fastpath",
    "loopguard_hook.fastpath.client", "_socket", "_blake2", "__future__",
}


def test_a_hook_served_by_the_helper_imports_only_the_client(tmp_path: Path) -> None:
    folder = short_temp_dir()
    try:
        env = dict(_env(TMPDIR=str(folder)), PYTHONPROFILEIMPORTTIME="1")
        env.pop("LOOPGUARD_RESIDENT", None)
        script = Path(sys.executable).with_name("loopguard-hook")
        command = [str(script), "--state-dir", str(tmp_path / "state")]
        project = tmp_path / "project"
        project.mkdir()
        subprocess.run(command, input=_payload(project), env=env, capture_output=True, timeout=60, check=True)
        wait_for_socket(folder, "*")
        deadline = time.monotonic() + 30
        while True:
            result = subprocess.run(command, input=_payload(project), env=env, capture_output=True, timeout=60, check=True)
            modules = _imported(result.stderr.decode()) - _startup_modules({k: v for k, v in env.items()
                                                                             if k != "PYTHONPROFILEIMPORTTIME"})
            if "loopguard_hook.hook" not in modules or time.monotonic() > deadline:
                break  # a spare may still be warming up: then the event ran in-process
        extra = modules - CLIENT_MODULES - {"re", "enum", "functools"}  # pip's wrapper imports `re`
        assert "loopguard_hook.hook" not in modules and "orjson" not in modules, sorted(modules)
        assert not extra, sorted(extra)
    finally:
        stop_helpers(folder)


def test_in_process_with_the_switch_off_imports_nothing_of_the_fast_path(tmp_path: Path) -> None:
    modules = _hook_imports(tmp_path, "--state-dir", str(tmp_path / "state"), env=_env(LOOPGUARD_RESIDENT="off"))
    assert not [m for m in modules if m.startswith("loopguard_hook.fastpath") or m in ("_socket", "socket")]


@pytest.mark.parametrize("module", ["loopguard_hook.cli", "loopguard_hook.hook", "loopguard_hook.install",
                                    "loopguard_hook.replay"])
def test_the_helper_is_off_the_import_path_of_the_operator_commands(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if 'fastpath' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPROFILEIMPORTTIME"})
    assert out.stdout.strip() == "[]"
