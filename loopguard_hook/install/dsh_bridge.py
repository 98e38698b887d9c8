"""Finding a DSH hook bridge's entry file (`lib/index.js`) on this machine.

DSH facts (dsh 0.1.0-rc.8, read in `@deepseek-ai/dsh`, `dsh-app-boot` and `dsh-home-paths`):
the harness home is `$DSH_HOME` (a blank value counts as unset; `~` is expanded) or `~/.dsh`;
profiles live in `$DSH_HOME/profiles/<name>/`, and `dsh plugin --profile <name> add <package>`
installs a plugin with pnpm (`nodeLinker: hoisted`) into that profile's `node_modules`;
`$DSH_HOME/profiles/node_modules` links the packages of dsh's own dependency closure. Neither
bridge (`@deepseek-ai/dsh-hooks-claude-code` 0.0.1-rc.5, `@deepseek-ai/dsh-hooks-codex`
0.0.1-rc.1) ships with dsh 0.1.0-rc.8, so they are installed beside it (`npm install -g` next
to a global dsh, or into the same prefix) or into a profile. A patch row mounts one by the
absolute path of its `lib/index.js` (`shared/e2e/dsh/README.md`, verified by run).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from .change import InstallError


def dsh_home(*, home: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Path:
    """`$DSH_HOME` (blank counts as unset, `~` expanded, made absolute) or `<home>/.dsh`."""
    value = (env or {}).get("DSH_HOME", "")
    if value.strip():
        return Path(os.path.abspath(os.path.expanduser(value)))
    return Path(os.path.abspath(home)) / ".dsh"


def _entry(package_dir: Path) -> Path:
    return package_dir / "lib" / "index.js"


def bridge_candidates(
    package: str, *, dsh_home_dir: Path, env: Mapping[str, str] | None = None
) -> list[Path]:
    """Where `package`'s `lib/index.js` may be, most specific first: each profile's own
    `node_modules`, the profiles' shared fallback, then every `node_modules` folder above the
    `dsh` found on `env`'s PATH (a global or prefix install puts the bridge beside dsh)."""
    found: list[Path] = []
    profiles = dsh_home_dir / "profiles"
    if profiles.is_dir():
        found += sorted(_entry(p / "node_modules" / package) for p in profiles.iterdir() if p.is_dir())
        found.append(_entry(profiles / "node_modules" / package))
    launcher = shutil.which("dsh", path=(env or {}).get("PATH", os.defpath))
    if launcher is not None:
        for parent in Path(os.path.realpath(launcher)).parents:
            if parent.name == "node_modules":
                found.append(_entry(parent / package))
    return list(dict.fromkeys(found))  # first place wins, each once


def find_bridge(
    package: str,
    *,
    dsh_home_dir: Path,
    env: Mapping[str, str] | None = None,
    explicit: str | os.PathLike[str] | None = None,
) -> Path:
    """The absolute path of `package`'s `lib/index.js`: `explicit` (the file, or the package
    folder) when given, else the first of `bridge_candidates` that exists.

    Raises:
        InstallError: `explicit` is not there, or no candidate exists (the message says how to
            install the bridge, or to pass `--bridge-path`).
    """
    if explicit is not None:
        path = Path(os.path.abspath(os.path.expanduser(explicit)))
        if path.is_dir():
            path = _entry(path)
        if not path.is_file():
            raise InstallError(f"{path}: no such file (--bridge-path names the bridge's lib/index.js or its folder)")
        named = bridge_name(path)
        if named is not None and named != package:
            raise InstallError(f"{path}: that is {named}, not {package} (the bridge this --client mounts)")
        return path
    candidates = bridge_candidates(package, dsh_home_dir=dsh_home_dir, env=env)
    for path in candidates:
        if path.is_file():
            return path
    looked = "".join(f"\n  {p}" for p in candidates) or " (no dsh on PATH, no DSH profiles)"
    raise InstallError(
        f"cannot find the DSH hook bridge {package}; looked in:{looked}\n"
        f"Install it beside dsh (`npm install -g {package} --legacy-peer-deps` for a global dsh) "
        f"or into a profile (`dsh plugin --profile headless add {package}`), or give its "
        "lib/index.js with --bridge-path"
    )


def bridge_name(entry: Path) -> str | None:
    """The `name` in the bridge's package.json (beside `lib/`), None when unreadable."""
    return _manifest_text(entry, "name")


def bridge_version(entry: Path) -> str | None:
    """The `version` in the bridge's package.json (beside `lib/`), None when unreadable."""
    return _manifest_text(entry, "version")


def _manifest_text(entry: Path, key: str) -> str | None:
    try:
        manifest = json.loads((entry.parent.parent / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = manifest.get(key) if isinstance(manifest, dict) else None
    return value if isinstance(value, str) else None


def missing_services(entry: Path) -> list[str]:
    """Services the bridge injects that no package beside it provides: the Codex bridge
    0.0.1-rc.1 injects `bash`, which dsh 0.1.0-rc.8 does not have (its executor is `shell`),
    and then boot fails with "waiting for service: bash" (`shared/research/dsh-hooks.md` §1)."""
    try:
        source = entry.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if 'inject = ["bash"]' not in source:
        return []
    scope = entry.parent.parent.parent  # node_modules/@deepseek-ai
    return [] if (scope / "dsh-bash").is_dir() else ["bash"]
