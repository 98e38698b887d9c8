"""`doctor` for the DeepSeek Harness: the bridges `install` mounted in DSH's patch layers, their
hooks configs, and DSH's sandbox.

DSH facts (dsh 0.1.0-rc.8 with dsh-hooks-claude-code 0.0.1-rc.5 and dsh-hooks-codex 0.0.1-rc.1;
`shared/research/dsh-hooks.md` §2, §8 and the packages' code): a bridge runs each hook with
`bash -c` in the session workspace, with dsh's environment minus every `DSH_*` variable and every
name holding KEY, TOKEN, SECRET or PASSWORD; the Claude Code bridge adds `CLAUDE_PROJECT_DIR`.
In the default permission mode, `workspace-write` (`DSH_PERMISSION_MODE`), every hook process is
confined on its own and may write only in the workspace, `/tmp` and the temp dir; with bwrap
(Linux, tried first) `/tmp` is a fresh tmpfs for each process, so nothing written there survives
to the next event. The Codex bridge waits for a `bash` service that dsh 0.1.0-rc.8 lacks: a
plugin mounted in the bridge's layer or the home layer must provide it (`install` mounts one).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..install.dsh import BRIDGES, DSH_CLAUDE_CODE, DSH_CLIENTS
from ..install.dsh_bridge import dsh_home, missing_services
from ..install.dsh_patch import block_entry, find_block, other_mounts
from ..install.dsh_service import SERVICE, bash_provider
from ..install.files import read_text
from ..install.jsontext import read_json_quietly
from ..store import StateError, default_state_dir
from ..store.location import WORKSPACE_DIR
from .common import check_events, check_handlers, found_by, registrations
from .model import HOSTS, ClientReport, Registration

_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def _layers(root: Path) -> list[Path]:
    profiles = root / "profiles"
    return [root / "cordis.patch.yml", *(sorted(profiles.glob("*/cordis.patch.yml")) if profiles.is_dir() else [])]


def _config_path(text: str | None, client: str) -> Path | None:
    where = find_block(text, client)
    for line in (text or "").splitlines()[where[0] : where[1] + 1] if where else []:
        key, _, value = line.strip().partition(": ")
        if key == "configPath":
            try:
                return Path(json.loads(value))
            except (ValueError, TypeError):
                return None
    return None


def _mounts(root: Path, report: ClientReport) -> dict[str, list[tuple[Path, Path, Path | None]]]:
    """Client -> (layer, bridge entry, hooks config) for every block `install` wrote."""
    mounts: dict[str, list[tuple[Path, Path, Path | None]]] = {}
    for layer in _layers(root):
        text = read_text(layer) if layer.is_file() else None
        for client in DSH_CLIENTS:
            entry = block_entry(text, client)
            if entry is not None:
                mounts.setdefault(client, []).append((layer, entry, _config_path(text, client)))
            lines = other_mounts(text, client, BRIDGES[client].package)
            if lines and find_block(text, client) is None:
                report.add(
                    "warn",
                    "registered",
                    f"{layer} mounts {BRIDGES[client].package} by hand (line {', '.join(map(str, lines))}); not checked",
                )
    return mounts


def _bridge_regs(
    report: ClientReport, client: str, root: Path, layer: Path, entry: Path, config: Path | None
) -> list[Registration]:
    title = BRIDGES[client].title
    if not entry.is_file():
        report.add("fail", "bridge", f"{layer} mounts the {title} from {entry}, which is missing: DSH fails to boot",
                   f"reinstall the bridge, then loopguard-hook install --client {client}")
        return []
    for service in missing_services(entry):
        _check_service(report, service, root, layer, entry, client)
    data = read_json_quietly(config) if config is not None else None
    if config is None or data is None:
        report.add("fail", "registered", f"the {title} in {layer} has no readable hooks config ({config}): it registers nothing",
                   f"loopguard-hook install --client {client}")
        return []
    report.add("ok", "bridge", f"{layer} mounts the {title} from {entry}")
    return registrations(config, data.get("hooks", data))


def _check_service(report: ClientReport, service: str, root: Path, layer: Path, entry: Path, client: str) -> None:
    """A service the bridge waits for must come from a plugin mounted in the bridge's layer or
    in the home layer (`<root>/cordis.patch.yml`), which DSH applies under every profile."""
    title = BRIDGES[client].title
    layers = [(p, read_text(p) if p.is_file() else None) for p in dict.fromkeys((layer, _layers(root)[0]))]
    provider = bash_provider(layers) if service == SERVICE else None
    if provider is not None:
        report.add("ok", "service", f"the {title} waits for a `{service}` service: {provider} provides it")
        return
    report.add(
        "fail",
        "service",
        f"the {title} ({entry}) waits for a `{service}` service that neither DSH nor a plugin mounted in {layer} "
        f"provides: dsh 0.1.0-rc.8 then exits at boot (\"waiting for service: {service}\")",
        f"loopguard-hook install --client {client} (it writes and mounts a plugin that provides `{service}`), "
        f"or use --client {DSH_CLAUDE_CODE}",
    )


def hook_env(env: Mapping[str, str], cwd: Path, client: str) -> dict[str, str]:
    """The environment a bridge gives a hook: dsh's, scrubbed, plus the bridge's own."""
    out = {k: v for k, v in env.items() if not k.startswith("DSH_") and not any(w in k.upper() for w in _SECRET_WORDS)}
    out.update({"NO_COLOR": "1", "TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat"})
    if client == DSH_CLAUDE_CODE:
        out["CLAUDE_PROJECT_DIR"] = str(cwd)
    return out


def _check_sandbox(report: ClientReport, state_dir: str | None, env: Mapping[str, str]) -> None:
    mode = env.get("DSH_PERMISSION_MODE") or "workspace-write"
    if state_dir is None or mode == "danger-full-access":
        report.add("ok", "sandbox", f"DSH_PERMISSION_MODE={mode}: hooks may write {state_dir}")
        return
    if _is_default(state_dir, env):
        report.add(
            "ok",
            "sandbox",
            f"no state dir is set, so events from DSH keep their state in each workspace's {WORKSPACE_DIR}/, "
            f"the one folder DSH's {mode} sandbox lets a hook write and keeps",
        )
        return
    if not os.path.isabs(state_dir):
        report.add("ok", "sandbox", f"{state_dir} is relative, so it lies in each session's workspace, which hooks may write")
        return
    real = os.path.realpath(state_dir)
    temps = {os.path.realpath(p) for p in ("/tmp", tempfile.gettempdir())}
    in_temp = any(real == t or real.startswith(t + os.sep) for t in temps)
    bwrap = sys.platform.startswith("linux") and shutil.which("bwrap", path=env.get("PATH", os.defpath)) is not None
    full = "or run dsh with DSH_PERMISSION_MODE=danger-full-access"
    if bwrap:
        fix = (
            "start dsh with LOOPGUARD_STATE_DIR=.loopguard-hook (relative: hooks run in the session workspace, "
            f"which bwrap keeps), {full}"
        )
    else:
        fix = f"start dsh with LOOPGUARD_STATE_DIR=/tmp/loopguard-hook (DSH passes that variable to hooks), {full}"
    if not in_temp:
        report.add(
            "fail",
            "sandbox",
            f"in DSH's {mode} sandbox a hook may write only the workspace, /tmp and the temp dir; {state_dir} is "
            "elsewhere, so every event fails and the guard is off",
            fix,
        )
    elif bwrap:
        report.add(
            "fail",
            "sandbox",
            f"DSH confines each hook with bwrap here, which gives it a fresh, empty /tmp: what the guard writes to "
            f"{state_dir} is gone at the next event",
            fix,
        )
    else:
        report.add("ok", "sandbox", f"{state_dir} is writable from DSH's {mode} sandbox (Landlock and Seatbelt keep /tmp)")


def _is_default(state_dir: str, env: Mapping[str, str]) -> bool:
    """Whether `state_dir` is the user cache dir the hook would pick with nothing set (DSH's
    events then use the workspace instead: `location.choose`)."""
    if env.get("LOOPGUARD_STATE_DIR"):
        return False
    try:
        return state_dir == default_state_dir(env)
    except StateError:
        return False


def payload(cwd: Path, client: str) -> Any:
    """A first `read`, shaped as the bridge sends it (captured PreToolUse.read of each bridge)."""

    def build(session_id: str) -> dict[str, Any]:
        base: dict[str, Any] = {
            "session_id": f"session-{session_id}",
            "transcript_path": "",
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
        }
        if client == DSH_CLAUDE_CODE:
            return {**base, "tool_name": "read", "tool_input": {"file_path": "x"}, "tool_use_id": "call_doctor_0_0"}
        return {**base, "model": "", "permission_mode": "default", "turn_id": "1", "tool_name": "read",
                "tool_input": {"command": ""}, "tool_use_id": "call_doctor_0_0"}

    return build


def check(
    *, home: Path, cwd: Path, env: Mapping[str, str], run: bool, bridges: Sequence[str] = DSH_CLIENTS
) -> list[ClientReport]:
    """One report per bridge of `bridges` that `install` mounted; when none is mounted, one
    report for DSH (or for the one bridge asked for): not installed, or not found."""
    root = dsh_home(home=home, env=env)
    found = found_by(HOSTS["dsh"][0], env)
    one = bridges[0] if len(bridges) == 1 else None
    probe = ClientReport(one or "dsh", BRIDGES[one].title if one else "DSH", found)
    mounts = {client: places for client, places in _mounts(root, probe).items() if client in bridges}
    if not mounts:
        if found is None:
            return [ClientReport(probe.client, probe.title, None)]  # not here, nothing to say
        check_events(probe, [], (), f"loopguard-hook install --client {one or DSH_CLAUDE_CODE}")
        return [probe]
    if len(mounts) > 1:
        probe.add("warn", "registered", "both bridges run loopguard-hook: every event runs the hook twice",
                  "keep one (loopguard-hook uninstall --client dsh-codex)")
    return [_check_bridge(client, places, probe, home=home, cwd=cwd, env=env, run=run) for client, places in mounts.items()]


def _check_bridge(
    client: str,
    places: list[tuple[Path, Path, Path | None]],
    probe: ClientReport,
    *,
    home: Path,
    cwd: Path,
    env: Mapping[str, str],
    run: bool,
) -> ClientReport:
    report = ClientReport(client, BRIDGES[client].title, probe.found, list(probe.findings))
    root = dsh_home(home=home, env=env)
    regs = [r for layer, entry, config in places for r in _bridge_regs(report, client, root, layer, entry, config)]
    check_events(report, regs, BRIDGES[client].events, f"loopguard-hook install --client {client}")
    report.registered = True  # mounted, even with no readable hooks config
    if not regs:
        return report
    check_handlers(
        report,
        regs,
        payload(cwd, client),
        dialect="dsh",
        who="DSH",
        env=hook_env(env, cwd, client),
        cwd=str(cwd),
        run=run,
        trailing_newline=client == DSH_CLAUDE_CODE,
        sandbox=lambda r, state_dir: _check_sandbox(r, state_dir, env),
    )
    return report
