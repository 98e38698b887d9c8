"""What in a valid config in force leaves the guard off or turns it down, which `status` and
`doctor` both say (the hook does as the config says): no tool tracked (`exclude = ["*"]`), and
a project file that turns enforcement down. A cloned repository's `.loopguard.toml` may do that
(`mode` and the thresholds are the project's to set), so the warning names the file, the keys
and what wins over it; a user who set the same in their own file or environment chose it and is
told nothing."""

from .load import ConfigError, Resolved, resolve
from .settings import Config

__all__ = ["caveats", "turned_down", "untracked"]

PROJECT = "project file "

#: What a mode below `enforce` leaves of the guard.
_MODE_EFFECT = {
    "observe": "only logs what it decides, and no reminder, denial or end of turn reaches the model",
    "advise": "never denies a call or ends a turn (it reminds instead)",
}

#: The thresholds whose 0 together leave the repeat rule never denying a call or ending the turn
#: (`rules/repeat.py`, `rules/same_result.py`).
_REPEAT_LIMITS = ("deny_at", "stop_at")

#: Tool names no real configuration would leave all untracked (the clients' built-ins, an MCP tool).
_PROBE_TOOLS = ("Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch", "apply_patch", "shell", "mcp__server__tool")


def caveats(resolved: Resolved) -> list[tuple[str, str]]:
    """`(what, fix)` for each thing to warn about in the config in force."""
    return [found for found in (turned_down(resolved), untracked(resolved)) if found is not None]


def turned_down(resolved: Resolved) -> tuple[str, str] | None:
    """`(what, fix)` when the config in force never denies a call and never ends a turn over a
    loop of calls, or only logs, because of keys a project file set: `mode = "observe"` or
    `"advise"`, or `deny_at` and `stop_at` both 0 (set there, or the defaults of a `profile` set
    there: `reminder`). None when enforcement is on, or when what turned it down is not the
    project's (a mode or thresholds from the user file or the environment are the user's choice).
    A project that only tunes thresholds (`deny_at = 8`) is not turned down. The fix names what
    wins over a project file (`load`'s order): `LOOPGUARD_*` variables in the host's environment;
    the user file cannot, it is read before the project file. Not `--mode` on the registered
    command, though it wins too: doctor loads the config without the command's flags and does not
    run a command `install` does not write, so it would go on warning."""
    config, sources = resolved.config, resolved.sources
    fix = "if that is not your choice, set {} in the environment the agent starts with (then restart it): it wins over " \
          "a project file, your user config file does not"
    # What the user's own sources make of it, without the project file (None when not known)
    base = _without_project(resolved)
    if config.mode in _MODE_EFFECT:
        source = sources.get("mode", "")
        if not source.startswith(PROJECT):
            return None
        if base is not None and _MODE_RANK[base.mode] <= _MODE_RANK[config.mode]:
            return None  # the user's own file or environment turns it down as far: their choice
        what = f'mode = "{config.mode}", so in this project the guard {_MODE_EFFECT[config.mode]}'
        return _down(source, what), fix.format(f"LOOPGUARD_MODE={base.mode if base is not None else 'enforce'}")
    if any(getattr(config, key) for key in _REPEAT_LIMITS):
        return None
    if base is not None and not any(getattr(base, key) for key in _REPEAT_LIMITS):
        return None  # the user's own profile or thresholds never deny or end a turn either: their choice
    balanced = Config()  # the balanced profile's values, when the user's own are not known
    mine = base if base is not None else balanced
    restore = {"profile": mine.profile, **{key: getattr(mine, key) for key in _REPEAT_LIMITS}}
    current = {"profile": config.profile, **{key: getattr(config, key) for key in _REPEAT_LIMITS}}
    # the project's keys that change what the user's own sources give
    named = {key: value for key, value in _project_keys(resolved, _REPEAT_LIMITS).items() if restore[key] != current[key]}
    if not named:
        return None
    shown = " and ".join(f'{key} = "{value}"' if key == "profile" else f"{key} = {value}" for key, value in named.items())
    what = f"{shown}, so in this project the repeat rule (a call repeated with no progress) never denies it or ends the turn"
    variables = " and ".join(f"LOOPGUARD_{key.upper()}={restore[key]}" for key in named)
    source = next(sources[key] for key in ("profile", *_REPEAT_LIMITS) if sources[key].startswith(PROJECT))
    return _down(source, what), fix.format(variables)


#: The modes from the one that does the least (`_without_project`'s mode at or below the one in
#: force: the user chose as much).
_MODE_RANK = {"observe": 0, "advise": 1, "enforce": 2}


def _without_project(resolved: Resolved) -> Config | None:
    """The config the user's own sources give (every layer but the project file's), or None when
    it is not known (no layers: not from `load`) or not valid without the project's keys."""
    if not resolved.layers:
        return None
    try:
        return resolve([layer for layer in resolved.layers if not layer.source.startswith(PROJECT)]).config
    except ConfigError:
        return None


def _project_keys(resolved: Resolved, keys: tuple[str, ...]) -> dict[str, object]:
    """Which of `keys` have their value from a project file, each as the key that gave it there:
    the key itself, or `profile` for a profile default when the project chose the profile."""
    config, sources = resolved.config, resolved.sources
    named: dict[str, object] = {}
    for key in keys:
        if sources[key].startswith(PROJECT):
            named[key] = getattr(config, key)
        elif sources[key] == f"profile {config.profile}" and sources["profile"].startswith(PROJECT):
            named = {"profile": config.profile, **named}
    return named


def _down(source: str, what: str) -> str:
    return f"the project's file {source.removeprefix(PROJECT)} turns enforcement down: {what}"


def untracked(resolved: Resolved) -> tuple[str, str] | None:
    """`(what, fix)` when the `include`/`exclude` patterns in force, from whichever source, leave
    none of the common tools tracked: the guard is as good as off. Patterns match as the hook
    matches them (`core.tools.matches`: `*` is the only wildcard, so `[A-Za-z]*` is a name that
    starts with `[A-Za-z]`, which leaves `Bash` tracked)."""
    import orjson

    from ..core.tools import is_tracked

    config = resolved.config
    if any(is_tracked(tool, config) for tool in _PROBE_TOOLS):
        return None
    key = "exclude" if config.exclude and not config.include else "include"
    shown = orjson.dumps(list(getattr(config, key))).decode()
    what = f"{key} = {shown} ({resolved.sources[key]}) leaves no tool tracked: the guard is effectively off here"
    fix = (f"if that is not your choice, change {key} where it is set, or set LOOPGUARD_{key.upper()} in the environment "
           "the agent starts with (it wins over every config file)")
    return what, fix
