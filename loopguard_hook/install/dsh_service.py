"""The `bash` service the DSH Codex bridge waits for: a small DSH plugin that `install --client
dsh-codex` writes beside the bridge's hooks config and mounts in the same patch-layer block.

DSH facts (dsh 0.1.0-rc.8 with dsh-hooks-codex 0.0.1-rc.1; `shared/research/dsh-hooks.md` §1 and
the bridge's `lib/index.js`, verified by run in `tests/e2e/dsh`): the Codex bridge declares
`inject = ["bash"]` and runs every hook through `ctx.bash.resolve()` and `ctx.bash.run()`; dsh
0.1.0-rc.8 has no `bash` service (its executor is the `shell` service, with the same two
methods), so without one the bridge never activates and dsh exits 1 at boot with "1 entry did not
activate … pending (waiting for service: bash)", before any model request. A DSH plugin is an ES
module exporting `name`, `inject` and `apply(ctx)`; `ctx.provide(name, value)` makes a service.
The plugin below provides `bash` as a pass-through to `shell`, so hooks run exactly as DSH's
own executor runs commands (same sandbox, same timeouts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

#: The service the Codex bridge injects and dsh 0.1.0-rc.8 lacks.
SERVICE: Final = "bash"
#: The plugin's file name, in `$DSH_HOME/loopguard-hook/` beside the hooks configs.
SERVICE_FILE: Final = "dsh-bash-service.mjs"
#: The patch row's id; the bridge's own row comes first in the block.
SERVICE_ROW_ID: Final = "loopguard-hook-dsh-codex-bash-service"

SERVICE_SOURCE: Final = """\
// Written by `loopguard-hook install --client dsh-codex`; `loopguard-hook uninstall --client
// dsh-codex` removes it. The DSH Codex hook bridge (@deepseek-ai/dsh-hooks-codex 0.0.1-rc.1)
// waits for a service named `bash`, which dsh 0.1.0-rc.8 does not have (its executor is the
// `shell` service): without this plugin DSH stops at boot ("waiting for service: bash").
// It provides `bash` as a pass-through to `shell`; the bridge calls only resolve() and run().
export const name = 'loopguard-hook-bash-service'
export const inject = ['shell']

export function apply(ctx) {
  const forward = (method) => (...args) => ctx.shell[method](...args)
  ctx.provide('bash', { resolve: forward('resolve'), run: forward('run') })
}
"""

#: `ctx.provide('bash', …)` in any quoting: how a plugin that provides the service is recognised.
_PROVIDES = re.compile(r"""\.provide\(\s*['"`]""" + SERVICE + r"""['"`]""")


def service_path(root: Path) -> Path:
    """Where `install` writes the plugin: `<DSH home>/loopguard-hook/dsh-bash-service.mjs`."""
    return root / "loopguard-hook" / SERVICE_FILE


def provides_bash(path: Path) -> bool:
    """Whether the plugin file at `path` provides a `bash` service (False when unreadable)."""
    try:
        return _PROVIDES.search(path.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return False


def mounted_names(text: str | None) -> list[Path]:
    """Every plugin a patch layer loads by absolute file path (its rows' `name:` values)."""
    found = []
    for line in (text or "").splitlines():
        key, _, value = line.strip().removeprefix("- ").partition(":")
        if key.strip() != "name":
            continue
        value = value.strip()
        try:
            name = json.loads(value) if value.startswith('"') else value.strip("'")
        except ValueError:
            continue
        if isinstance(name, str) and name.startswith("/"):
            found.append(Path(name))
    return found


def bash_provider(layers: Iterable[tuple[Path, str | None]], *, but: Path | None = None) -> Path | None:
    """The first plugin file mounted in any of `layers` ((path, text) pairs) that exists and
    provides `bash`, `but` excepted; None when there is none."""
    for _, text in layers:
        for name in mounted_names(text):
            if name != but and name.is_file() and provides_bash(name):
                return name
    return None
