"""What the operator commands share: option choices and help texts, the state stores they read,
the resolved config, and small text formatters."""

from __future__ import annotations

import os
from typing import Any

import click
import orjson

from ..config import load as config_mod
from ..core.event import Client
from ..hosts.payload import MAX_SESSION_ID_CHARS, bounded_id
from ..process import printable
from ..store import Store, default_state_dir, location

#: The hosts a recording can be read as (`replay`, `sweep`): a transcript or rollout must be that
#: host's; a payload log is read as that host's payloads.
CLIENT_CHOICE = click.Choice(["auto", *(c.value for c in Client)])
#: The hook's `--client`: every dialect of `payload.Client` (`_entry._CLIENTS` spells them out
#: for the fast path, which must not import the payload module; a test keeps the two equal).
HOOK_CLIENT_CHOICE = click.Choice(["auto", *(c.value for c in Client)])
PROFILE_CHOICE = click.Choice(list(config_mod.PROFILES))
MODE_CHOICE = click.Choice(list(config_mod.MODES))
STATE_DIR_HELP = (
    "Where session state lives (default: the user cache dir). In a folder that is not yours alone"
    " (others may read it, or another user owns it) the state goes to a private loopguard-hook-UID/ inside it."
)
CONFIG_HELP = "An extra TOML config file, layered over the user and project files."
MODE_HELP = "enforce (default), advise (denials become reminders) or observe (log only)."


def _root_param(name: str) -> Any:
    """An option given before the command (`loopguard-hook --state-dir D status`)."""
    ctx = click.get_current_context(silent=True)
    return ctx.find_root().params.get(name) if ctx is not None else None


def _store(state_dir: str | None) -> Store:
    return Store(state_dir or _root_param("state_dir") or default_state_dir(os.environ))


def _locations(state_dir: str | None) -> list[location.Location]:
    """The state directories an operator command works on: the given one, else the user cache
    dir and this project's `.loopguard-hook` (`location.operator_locations`).

    Raises:
        StateError: none at all (no home directory and no workspace folder).
    """
    given = state_dir or _root_param("state_dir")
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""  # deleted under this shell: no project folder to look in
    found = location.operator_locations(given, os.environ, cwd)
    if not found:
        default_state_dir(os.environ)  # raises: no home directory
    return found


def _readable(found: list[location.Location]) -> list[Store]:
    return [Store(f.root) for f in found if not f.problem]


def _echo_problems(found: list[location.Location]) -> None:
    for f in found:
        if f.problem:
            click.echo(f"loopguard-hook: {f.kind} state dir {_printable(f.root)} {f.problem}; not read", err=True)


def _resolved(profile: str | None, config_path: str | None, mode: str | None = None) -> config_mod.Resolved:
    try:
        return _load_config(profile, config_path, mode)
    except config_mod.ConfigError as exc:
        raise click.ClickException(f"bad config: {exc}") from None


def config_or_warning(config_path: str | None, costs: bool) -> config_mod.Config | None:
    """The config in force here, for `log` and `stats`: they read the state dir, which no config
    key names, and need the config only to replay recordings for the loops' tokens (`costs`: they
    would). A bad config is said in one line on stderr, as `status` says it, and is None: the
    command carries on, without the tokens.

    Raises:
        click.ClickException: the current directory was deleted and `costs` needs the config.
    """
    try:
        return _load_config(None, config_path).config
    except config_mod.ConfigError as exc:
        left = "; the log is read all the same, the loops' tokens left out until it is fixed" if costs else ""
        click.echo(f"loopguard-hook: bad config: {_printable(str(exc))}{left}", err=True)
    except click.ClickException:
        if costs:
            raise
    return None


def _load_config(profile: str | None, config_path: str | None, mode: str | None = None) -> config_mod.Resolved:
    """The config here, with the options given to the command or before it.

    Raises:
        config_mod.ConfigError: a source is invalid.
    """
    profile = profile or _root_param("profile")
    config_path = config_path or _root_param("config_path")
    mode = mode or _root_param("mode")
    return config_mod.load(environ=os.environ, cwd=_cwd(), config_path=config_path, flags={"profile": profile, "mode": mode})


def sources_read(resolved: config_mod.Resolved) -> str:
    """The sources a command's config was read from, lowest first, joined by "; " ("" when only
    the profile's defaults are in effect): every config file, also one whose every value a later
    source overrides (it was read and checked all the same), then the other sources that set a
    value in effect (the environment, the command line, a pause). `config check` and `replay`
    name them."""
    files = [layer.source for layer in resolved.layers if layer.source.startswith(_FILES)]
    setting = {src for src in resolved.sources.values() if not src.startswith(("profile ", "default", *_FILES))}
    others = [_named(layer) for layer in resolved.layers if layer.source in setting]
    return "; ".join(dict.fromkeys([*files, *others]))


def _named(layer: config_mod.Layer) -> str:
    """A layer's source, the environment's with the variables it read (`environment
    (LOOPGUARD_DENY_AT)`)."""
    if layer.source != "environment" or not layer.values:
        return layer.source
    return f"environment ({', '.join(sorted('LOOPGUARD_' + key.upper() for key in layer.values))})"


#: How `config.load` names a layer read from a file.
_FILES = ("user file ", "project file ", "config file ")


def _cwd() -> str:
    """The working directory (for the project config and install scope).

    Raises:
        click.ClickException: it was deleted under this shell.
    """
    try:
        return os.getcwd()
    except OSError as exc:
        raise click.ClickException(
            f"cannot read the current directory ({exc.strerror or exc}; deleted?): cd to a directory and run again"
        ) from None


def _echo_json(value: Any) -> None:
    click.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())


def _stem(session_id: str) -> str:
    """The file stem of a session id as the hook stores it (a long id is bounded first)."""
    from ..store import session_file_name

    return session_file_name(bounded_id(session_id, MAX_SESSION_ID_CHARS))


def _shown_id(session_id: str) -> str:
    return _printable(bounded_id(session_id, MAX_SESSION_ID_CHARS))


_printable = printable


def _session_id_of(state: Any) -> str | None:
    """The `session_id` a ledger records, None when it holds none (a damaged one)."""
    session = state.get("session_id") if isinstance(state, dict) else None
    return session if isinstance(session, str) else None


def _id_starts(state: Any, prefix: str) -> bool:
    """Whether the session a ledger records has an id that starts with `prefix` (`status
    --session` takes a start of an id; `reset` wants the whole id, and says so)."""
    return bool(prefix) and (_session_id_of(state) or "").startswith(prefix)


def one_session(ids: Any, given: str) -> str:
    """The session id that `given` names among `ids` (an iterable of str): `given` itself when it
    is one of them or none starts with it (the caller then finds nothing), else the only id that
    starts with it (`log`, `stats` and `status` take the start of an id).

    Raises:
        click.ClickException: several ids start with `given` (up to five of them are named).
    """
    known = {i for i in ids if isinstance(i, str)}
    if given in known or not given:
        return given
    starting = sorted(i for i in known if i.startswith(given))
    if len(starting) > 1:
        named = ", ".join(_shown_id(i) for i in starting[:5]) + (", …" if len(starting) > 5 else "")
        raise click.ClickException(f"{len(starting)} sessions start with {_shown_id(given)}: {named}; give more of the id")
    return starting[0] if starting else given


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _list(values: Any) -> str:
    return ", ".join(map(str, values)) if isinstance(values, list) and values else "-"


def _ago(now: float, then: float | None) -> str:
    if not then:
        return "-"
    seconds = max(0, int(now - then))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"
