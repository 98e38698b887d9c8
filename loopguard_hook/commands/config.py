"""`config show` and `config check`: the effective configuration, and a config file's problems."""

from __future__ import annotations

import os
from typing import Any

import click
import orjson

from ..config import load as config_mod
from ..store import StateError, location
from .common import (
    CONFIG_HELP,
    MODE_CHOICE,
    MODE_HELP,
    PROFILE_CHOICE,
    _cwd,
    _echo_json,
    _printable,
    _resolved,
    _root_param,
    sources_read,
)


@click.group("config")
def config_group() -> None:
    """Show the effective configuration or check a config file."""


@config_group.command("show")
@click.option("--profile", type=PROFILE_CHOICE, default=None, help="Show this profile's values (default: balanced).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help=CONFIG_HELP)
@click.option("--mode", type=MODE_CHOICE, default=None, help=MODE_HELP)
@click.option("--json", "as_json", is_flag=True, help="JSON: each key's value and source.")
def config_show(profile: str | None, config_path: str | None, mode: str | None, as_json: bool) -> None:
    """Print every setting, its value, and where the value came from."""
    resolved = _resolved(profile, config_path, mode)
    values = {key: getattr(resolved.config, key) for key in config_mod.KEYS}
    where = state_locations(os.environ, _cwd())
    if as_json:
        out: dict[str, Any] = {key: {"value": values[key], "source": resolved.sources[key]} for key in config_mod.KEYS}
        out.update({name: {"value": path, "source": why} for name, path, why in where})
        if resolved.ignored:
            out["ignored"] = list(resolved.ignored)
        _echo_json(out)
        return
    width = max(map(len, config_mod.KEYS))
    for key in config_mod.KEYS:
        value = values[key]
        shown = orjson.dumps(list(value) if isinstance(value, tuple) else value).decode()
        click.echo(f"{key:<{width}} = {shown}  # {resolved.sources[key]}")
    for name, path, why in where:
        event = "an event from a DSH hook bridge" if name == "state_dir_dsh" else "an event from Claude Code or Codex"
        click.echo(f"# {event} here would keep its state in {_printable(path)}: {why}")
    for line in resolved.ignored:
        click.echo(f"# {_printable(line)}")


def state_locations(environ: Any, cwd: str) -> list[tuple[str, str, str]]:
    """For `config show`: `(name, state directory, why)` an event from `cwd` would use,
    `state_dir` for Claude Code and Codex and `state_dir_dsh` for a DSH hook bridge."""
    given = _root_param("state_dir")
    try:
        default = location.choose(given, environ, cwd, dsh=False)
    except StateError as exc:
        default = location.Location("", "none", f"no state directory: {exc}")
    why = default.reason
    if default.kind == "default" and default.fallback:
        if _maybe_unwritable(default.root):
            why += f", which this user cannot write: {default.fallback} instead"
        else:
            why += f" ({default.fallback} if a sandbox keeps the hook from writing it)"
    dsh = location.choose(given, environ, cwd, dsh=True)
    out = [("state_dir", default.root, why), ("state_dir_dsh", dsh.root, dsh.reason)]
    problem = location.inspect_workspace(dsh.root) if dsh.kind == "workspace" and os.path.lexists(dsh.root) else ""
    if problem:
        out[1] = ("state_dir_dsh", dsh.root, f"{dsh.reason}; but it {problem}, so the hook would exit 1")
    return out


def _maybe_unwritable(root: str) -> bool:
    """A hint for display only (access(2) does not see a Landlock sandbox): the nearest existing
    folder of `root` is not writable by this user."""
    path = os.path.abspath(root)
    while not os.path.isdir(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return not os.access(path, os.W_OK | os.X_OK)


@config_group.command("check")
@click.argument("path", required=False, type=click.Path(dir_okay=False))
def config_check(path: str | None) -> None:
    """Validate a config file (or, with no PATH, every source in effect here, including the
    options given before the command)."""
    try:
        if path is None:
            flags = {"profile": _root_param("profile"), "mode": _root_param("mode")}
            resolved = config_mod.load(
                environ=os.environ, cwd=_cwd(), config_path=_root_param("config_path"), flags=flags
            )
            none = "no config file or LOOPGUARD_* variable in effect, profile defaults"
            click.echo("config OK: " + _printable(sources_read(resolved) or none))
            for line in (*resolved.ignored, *config_mod.unreachable(resolved)):
                click.echo(f"note: {_printable(line)}")
            return
        layer = config_mod.read_toml(path, path)
        resolved = config_mod.resolve([layer])
        click.echo(f"config OK: {path}")
        for line in config_mod.unreachable(resolved):
            click.echo(f"note: {_printable(line)}")
    except config_mod.ConfigError as exc:
        # every problem, one per line, not only the first
        for problem in exc.problems[:-1]:
            click.echo(f"loopguard-hook: {problem}", err=True)
        raise click.ClickException(exc.problems[-1]) from None
