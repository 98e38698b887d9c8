"""The command line (click). The only module that imports click.

`loopguard-hook` with no command runs the hook (see `hook.py`); the operator commands are
`status`, `stats`, `reset`, `gc`, `replay`, `sweep`, `install`, `uninstall`, `doctor` and
`config show|check`.

Usage errors exit 1, not click's usual 2: the same executable is registered as a hook, and both
clients read exit 2 as "block the call".
"""

from __future__ import annotations

import errno
import os
import sys
import time
from typing import Any

import click
import orjson

from . import __version__, location
from . import config as config_mod
from .payload import MAX_SESSION_ID_CHARS, bounded_id
from .state import StateError, Store, default_state_dir

CLIENT_CHOICE = click.Choice(["auto", "claude-code", "codex"])
HOOK_CLIENT_CHOICE = click.Choice(["auto", "claude-code", "codex", "dsh-claude-code", "dsh-codex"])
PROFILE_CHOICE = click.Choice(list(config_mod.PROFILES))
MODE_CHOICE = click.Choice(list(config_mod.MODES))
STATE_DIR_HELP = "Where session state lives (default: the user cache dir)."
CONFIG_HELP = "An extra TOML config file, layered over the user and project files."
MODE_HELP = "enforce (default), advise (denials become reminders) or observe (log only)."


def _hook_options(func: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--client",
                type=HOOK_CLIENT_CHOICE,
                default="auto",
                show_default=True,
                help="Which client's protocol to speak; auto: recognised from the payload.",
            ),
            click.option("--profile", type=PROFILE_CHOICE, default=None, help="Detection profile (default: balanced)."),
            click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help=CONFIG_HELP),
            click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP),
            click.option("--mode", type=MODE_CHOICE, default=None, help=MODE_HELP),
            click.option("--dry-run", is_flag=True, help="Decide but write no state."),
        ]
    ):
        func = option(func)
    return func


def _run_hook_command(
    client: str, profile: str | None, config_path: str | None, state_dir: str | None, mode: str | None, dry_run: bool
) -> int:
    from .process import run_hook

    values: dict[str, object] = {"client": client, "dry_run": dry_run}
    for key, value in (("profile", profile), ("config", config_path), ("state_dir", state_dir), ("mode", mode)):
        if value is not None:
            values[key] = value
    return run_hook(values)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@_hook_options
@click.version_option(__version__, prog_name="loopguard-hook")
@click.pass_context
def cli(ctx: click.Context, /, **options: Any) -> None:
    """Guard Claude Code and Codex against repeat-call loops.

    With no command, run the hook: read one hook payload (JSON) on stdin and print the decision
    on stdout (nothing, a reminder, a denial, or an order to end the turn). Exit status is 0, or
    1 with one line on stderr; never 2.
    """
    if ctx.invoked_subcommand is None:
        ctx.exit(_run_hook_command(**options))


@cli.command("hook")
@_hook_options
@click.pass_context
def hook_command(ctx: click.Context, /, **options: Any) -> None:
    """Run the hook on the payload read from stdin (the same as no command)."""
    ctx.exit(_run_hook_command(**options))


# -- shared helpers ---------------------------------------------------------------------------


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
    profile = profile or _root_param("profile")
    config_path = config_path or _root_param("config_path")
    mode = mode or _root_param("mode")
    try:
        return config_mod.load(
            environ=os.environ, cwd=_cwd(), config_path=config_path, flags={"profile": profile, "mode": mode}
        )
    except config_mod.ConfigError as exc:
        raise click.ClickException(f"bad config: {exc}") from None


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
    from .state import session_file_name

    return session_file_name(bounded_id(session_id, MAX_SESSION_ID_CHARS))


def _shown_id(session_id: str) -> str:
    return _printable(bounded_id(session_id, MAX_SESSION_ID_CHARS))


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)


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


# -- status -----------------------------------------------------------------------------------


def session_summary(stem: str, state: dict[str, Any] | None) -> dict[str, Any]:
    """The stable `status --json` shape of one session."""
    if state is None:
        return {"file": stem, "readable": False}
    agents = {}
    for agent_id, agent in state["agents"].items():
        sigs = sorted(agent["sigs"].values(), key=lambda s: (-s.get("n", 0), -(s.get("t") or 0)))
        agents[agent_id] = {
            "attempts": agent["attempts"],
            "calls_since_progress": agent["since"],
            "bookkeeping_calls_since_progress": agent["bookkeeping"],
            "answer_only": bool(agent.get("answer_only")),
            "consecutive": agent["chain"][1] if agent.get("chain") else 0,
            "last_activity": agent.get("updated"),
            "signatures": [
                {
                    "call": s.get("summary", s.get("tool")),
                    "no_progress": s.get("n", 0),
                    "attempts": s.get("total", 0),
                    "last_attempt": s.get("t"),
                }
                for s in sigs[:10]
            ],
        }
    return {
        "file": stem,
        "readable": True,
        "config": state.get("config"),
        "session_id": state.get("session_id"),
        "client": state.get("client"),
        "created": state.get("created"),
        "updated": state.get("updated"),
        "events": state.get("events", 0),
        "attempts": state.get("attempts", 0),
        "agents": agents,
        "recent_decisions": state.get("recent", []),
    }


def _safe_summary(stem: str, state: dict[str, Any] | None) -> dict[str, Any]:
    try:
        summary = session_summary(stem, state)
        orjson.dumps(summary)
        return summary
    except (TypeError, KeyError, AttributeError, ValueError, IndexError, orjson.JSONEncodeError):
        return {"file": stem, "readable": False}


def thresholds(cfg: config_mod.Config) -> dict[str, Any]:
    """The thresholds in force, for `status`."""
    return {
        "profile": cfg.profile,
        "mode": cfg.mode,
        "counting": cfg.counting,
        "remind_at": list(cfg.effective_remind_at()),
        "deny_at": cfg.deny_at,
        "stop_at": cfg.stop_at,
        "max_same_path": cfg.max_same_path,
        "max_calls_since_progress": cfg.max_calls_since_progress,
        "max_bookkeeping_calls_since_progress": cfg.max_bookkeeping_calls_since_progress,
        "same_error_remind_at": cfg.same_error_remind_at,
        "slow_repeat_seconds": cfg.slow_repeat_seconds,
        "answer_only_after_deny": cfg.answer_only_after_deny,
    }


@cli.command("stats")
@click.option("--session", "session_id", default=None, help="Only this session id.")
@click.option("--json", "as_json", is_flag=True, help="Stable JSON instead of text.")
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
def stats_command(session_id: str | None, as_json: bool, state_dir: str | None) -> None:
    """What the model did after each rule's reminders and denials, per text variant.

    For each rule, text variant and mode: how often it was shown, whether the agent then changed
    course, repeated the call, needed a stronger answer or ended the turn, how many calls the
    guard kept from running, and how often the loop ended after the first intervention. Read
    from decisions.jsonl, responses.jsonl and the live ledgers; observe-mode rows are the control
    group (the model never saw the text).
    """
    from . import stats

    store = _store(state_dir)
    entries = store.list_sessions()
    inputs = stats.load(store.root, (state for _, state, _ in entries), sum(state is None for _, state, _ in entries))
    rows = stats.build(inputs, session=session_id)
    if as_json:
        _echo_json({"state_dir": store.root, "rows": [r.as_json() for r in rows], "problems": inputs.problems})
    else:
        click.echo(stats.format_text(rows, store.root))
    for problem in inputs.problems:
        click.echo(f"loopguard-hook: stats: {problem}", err=True)
    if inputs.problems:
        click.get_current_context().exit(1)


#: Tool names no real configuration would leave all untracked (both clients' built-ins, an MCP tool).
_PROBE_TOOLS = ("Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch", "apply_patch", "shell", "mcp__server__tool")


def config_warnings(resolved: config_mod.Resolved) -> list[str]:
    """What in the config in force switches the guard off (`exclude = ["*"]` in a project file)."""
    from .tools import is_tracked

    cfg = resolved.config
    if any(is_tracked(tool, cfg) for tool in _PROBE_TOOLS):
        return []
    key = "exclude" if cfg.exclude and not cfg.include else "include"
    shown = orjson.dumps(list(getattr(cfg, key))).decode()
    return [f"{key} = {_printable(shown)} ({resolved.sources[key]}) leaves no tool tracked: the guard is effectively off here"]


@cli.command()
@click.option("--session", "session_id", default=None, help="Only this session id.")
@click.option("--json", "as_json", is_flag=True, help="Stable JSON instead of text.")
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
@click.option("--profile", type=PROFILE_CHOICE, default=None, help="Show the thresholds of this profile.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help="An extra TOML config file.")
def status(session_id: str | None, as_json: bool, state_dir: str | None, profile: str | None, config_path: str | None) -> None:
    """Show sessions, per agent the counters and the last decisions, and the thresholds in force."""
    found = _locations(state_dir)
    stores = _readable(found)
    resolved = _resolved(profile, config_path)
    cfg = resolved.config
    warnings = config_warnings(resolved)
    entries = [(stem, st, mtime, store.root) for store in stores for stem, st, mtime in store.list_sessions()]
    if session_id is not None:
        stem = _stem(session_id)
        entries = [e for e in entries if e[0] in (stem, session_id)]
        if not entries:
            where = " or ".join(s.sessions for s in stores) or found[0].root
            raise click.ClickException(f"no state for session {_shown_id(session_id)} in {where}")
    sessions = []
    for stem, state, _, root in sorted(entries, key=lambda e: -e[2]):
        summary = _safe_summary(stem, state)
        if len(found) > 1:
            summary["state_dir"] = root
        sessions.append(summary)
    if as_json:
        # A directory given that is not private holds the state in a folder of its own (Store.root).
        dirs = [{"path": Store(f.root).root, "kind": f.kind, "reason": f.reason, "problem": f.problem or None} for f in found]
        _echo_json(
            {
                "state_dir": dirs[0]["path"],
                "state_dirs": dirs,
                "thresholds": thresholds(cfg),
                "warnings": warnings,
                "sessions": sessions,
            }
        )
        return
    now = time.time()
    t = thresholds(cfg)
    click.echo(f"state dir: {Store(found[0].root).root}")
    for f in found[1:]:
        click.echo(f"{f.kind} state dir: {_printable(f.root)}" + (f" ({f.problem}; not read)" if f.problem else f" ({f.reason})"))
        if f.kind == "workspace" and not f.problem:
            click.echo(f"  {DSH_TEXT_NOTE}")
    click.echo(
        f"config here: profile {t['profile']} ({t['mode']}), counting {t['counting']}: remind at {_list(t['remind_at'])}, "
        f"deny at {t['deny_at'] or '-'}, stop at {t['stop_at'] or '-'}, "
        f"max calls since progress {t['max_calls_since_progress'] or '-'}"
    )
    for warning in warnings:
        click.echo(f"warning: {warning}")
    if not sessions:
        click.echo("no sessions")
        return
    for s in sessions:
        click.echo("")
        try:
            lines = _session_lines(s, t, now) if s["readable"] else None
        except (TypeError, KeyError, AttributeError, ValueError, IndexError):
            lines = None  # a ledger that parses but holds values of the wrong shape
        if lines is None:
            click.echo(f"session file {s['file']}: unreadable (it will be moved aside on next use)")
            continue
        if len(found) > 1:
            lines[0] += f"  [{_printable(s['state_dir'])}]"
        click.echo("\n".join(lines))


#: What `status` says is not covered on DSH (README, "Text loops on DSH").
DSH_TEXT_NOTE = (
    "note for DSH sessions: text loops are read from DSH's session log at Stop only, and what a Stop finds "
    "waits for the session's next prompt (DSH shows systemMessage to nobody)"
)


def _session_lines(s: dict[str, Any], t: dict[str, Any], now: float) -> list[str]:
    """The text `status` prints for one session.

    Raises:
        TypeError, KeyError, AttributeError, ValueError, IndexError: the ledger holds values of
            the wrong shape (the caller reports the session as unreadable).
    """
    out = [
        f"session {_printable(str(s['session_id']))} [{s['client']}]: {_count(s['attempts'], 'tool call')}, "
        f"{_count(s['events'], 'event')}, last {_ago(now, s['updated'])}"
    ]
    used = s.get("config")
    if isinstance(used, dict) and any(used.get(k) != t.get(k) for k in ("profile", "mode", "remind_at", "deny_at", "stop_at")):
        out.append(
            f"  (its last event used profile {used.get('profile')} ({used.get('mode')}): remind at "
            f"{_list(used.get('remind_at'))}, deny at {used.get('deny_at') or '-'}, stop at {used.get('stop_at') or '-'})"
        )
    for agent_id, a in s["agents"].items():
        flags = " ANSWER-ONLY" if a["answer_only"] else ""
        out.append(
            f"  agent {_printable(agent_id)}: {_count(a['attempts'], 'call')}, {a['calls_since_progress']} since last "
            f"progress, {a['consecutive']} in a row{flags}"
        )
        for sig in a["signatures"][:5]:
            if sig["no_progress"] >= 2:
                out.append(f"    {sig['no_progress']}x no progress  {_printable(sig['call'])}")
    for d in s["recent_decisions"][-5:]:
        action = d["action"] if d.get("intended", d["action"]) == d["action"] else f"{d['action']} (would {d['intended']})"
        out.append(
            f"  {_ago(now, d['time'])}: {action} ({d['rule']}) {d['event']} {_printable(str(d['tool']))} "
            f"x{d['count']} [{_printable(d['agent'])}] {_printable(d['arguments'])}"
        )
    return out


# -- reset / gc -------------------------------------------------------------------------------


@cli.command()
@click.option("--session", "session_id", default=None, help="Forget this session.")
@click.option("--all", "all_sessions", is_flag=True, help="Forget every session.")
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
def reset(session_id: str | None, all_sessions: bool, state_dir: str | None) -> None:
    """Forget state: the escape hatch when the guard is wrong about a session."""
    if (session_id is None) == (not all_sessions):
        raise click.UsageError("give exactly one of --session ID or --all")
    found = _locations(state_dir)
    _echo_problems(found)
    stores = _readable(found)
    if all_sessions:
        for store in stores:
            stems = [stem for stem, _, _ in store.list_sessions()]
            for stem in stems:
                store.remove(stem)
            click.echo(f"reset {len(stems)} session(s) in {store.sessions}")
        return
    assert session_id is not None
    stem = _stem(session_id)
    removed = [store for store in stores if store.remove(stem, recover=True)]
    if removed:
        click.echo(f"reset session {_shown_id(session_id)}" + (f" in {removed[0].sessions}" if len(stores) > 1 else ""))
    else:
        click.echo(f"no state for session {_shown_id(session_id)}")


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """`90s`, `30m`, `12h`, `7d`, `2w` in seconds. The unit is required: `gc --older-than 7`
    could mean seven days as easily as seven seconds, and it deletes state.

    Raises:
        click.BadParameter: not a number followed by one of s, m, h, d, w.
    """
    text = text.strip().lower()
    try:
        if not text or text[-1] not in _UNITS:
            raise ValueError(text)
        value = float(text[:-1]) * _UNITS[text[-1]]
        if value != value or value == float("inf"):  # nan or inf: no age compares as expected
            raise ValueError(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a duration such as 90s, 30m, 12h or 7d (the unit is required)") from None
    if value < 0:
        raise click.BadParameter("a duration cannot be negative")
    return value


@cli.command()
@click.option(
    "--older-than", default="7d", show_default=True, help="Idle time with its unit (s, m, h, d, w), e.g. 12h, 7d."
)
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
@click.option("--dry-run", is_flag=True, help="List what would be deleted.")
def gc(older_than: str, state_dir: str | None, dry_run: bool) -> None:
    """Delete the state of sessions idle longer than --older-than."""
    seconds = parse_duration(older_than)
    found = _locations(state_dir)
    _echo_problems(found)
    for store in _readable(found):
        if dry_run:
            old = store.gc(seconds, time.time(), dry_run=True)
            click.echo(f"would delete {len(old)} session(s)" + (f" from {store.sessions}" if len(found) > 1 else ""))
            for stem in old:
                click.echo(f"  {stem}")
            continue
        removed = store.gc(seconds, time.time())
        click.echo(f"deleted {len(removed)} idle session(s) from {store.sessions}")


# -- replay -----------------------------------------------------------------------------------


def _recording_options(func: Any) -> Any:
    """The options `replay` and `sweep` share: a config file, the mode, the recording's client."""
    func = click.option(
        "--client", type=CLIENT_CHOICE, default="auto", show_default=True,
        help="Which client recorded FILES; auto: told by the file's format.",
    )(func)
    func = click.option("--mode", type=MODE_CHOICE, default=None, help=MODE_HELP)(func)
    return click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help=CONFIG_HELP)(func)


@cli.command("replay")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="text: a row per call and a summary; json: the same for pipelines.",
)
@click.option("--profile", type=PROFILE_CHOICE, default=None, help="Profile to replay with (default: balanced).")
@_recording_options
@click.option("--summary", is_flag=True, help="One line per session (its counts), no row per call.")
@click.option(
    "--only-decisions", is_flag=True,
    help="List only the calls the guard would have acted on (remind, deny, stop, or saved); "
    "the counts still cover every call.",
)
@click.option(
    "--color/--no-color", default=None,
    help="Colour the text output (default: when stdout is a terminal and NO_COLOR is not set).",
)
def replay_command(
    files: tuple[str, ...], fmt: str, profile: str | None, config_path: str | None, mode: str | None, client: str,
    summary: bool, only_decisions: bool, color: bool | None,
) -> None:
    """Run the guard over recorded sessions and show what it would have done at each call.

    FILES are Claude Code transcripts (~/.claude/projects/**/*.jsonl), Codex rollouts
    (~/.codex/sessions/**/rollout-*.jsonl) or logs of hook payloads (one JSON per line). The
    same engine runs in a scratch state: nothing is written. A long replay shows its progress
    on stderr when that is a terminal.
    """
    import shutil

    from . import replay as replay_mod

    cfg = _resolved(profile, config_path, mode).config
    progress = _ReplayProgress() if _is_terminal(sys.stderr) else None
    calls: replay_mod.Calls = "none" if summary else "acted" if only_decisions else "all"
    try:
        reports = replay_mod.replay_files(files, cfg, client=client, calls=calls, progress=progress)
    except replay_mod.ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if progress is not None:
            progress.close()
    if color is None:
        color = fmt == "text" and _is_terminal(sys.stdout) and not os.environ.get("NO_COLOR")
    # Not a terminal (a pipe, a file): wide rows, so arguments are not cut at 80 columns.
    width = shutil.get_terminal_size(fallback=(160, 24)).columns
    click.echo(replay_mod.render(reports, fmt, width=width, summary=summary, color=color), color=color)


@cli.command("sweep")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--set", "sets", multiple=True, required=True, metavar="KEY=V1,V2,...",
    help="A setting to sweep and its values (keys as `config show` names them; values as JSON where "
    "they are, e.g. 4, true, [3,4], else text). Repeat for more keys: every combination is replayed.",
)
@click.option(
    "--labels", "labels_path", type=click.Path(exists=True, dir_okay=False), default=None,
    help="A labels file naming the loops in the recordings (tests/corpus/README.md); adds loops "
    "caught and false alarms. Without FILES: every file it labels.",
)
@click.option("--profile", type=PROFILE_CHOICE, default=None, help="Profile under the swept settings (default: balanced).")
@_recording_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--color/--no-color", default=None, help="Colour the table (default: on a terminal, unless NO_COLOR).")
def sweep_command(
    files: tuple[str, ...], sets: tuple[str, ...], labels_path: str | None, profile: str | None,
    config_path: str | None, mode: str | None, client: str, fmt: str, color: bool | None,
) -> None:
    """Replay recorded sessions under a grid of settings: one row per setting.

    Each row totals, over all sessions: interventions (reminders, denials and stops: decisions
    whose wire action is remind, deny or stop) and calls saved. A call is saved when the
    recording ran it but the guard would not have let it run: it would have denied it at
    PreToolUse, or (Claude Code) the call came later in a turn the guard had ended with a stop.
    Those are the calls after the first intervention of a loop that the guard would have
    prevented; an estimate, since a replay follows the recording and cannot know what the model
    would have done instead. With --labels: loops caught (an intervention inside the loop) and
    stopped (a denial or stop inside it), and false alarms and false denials (interventions outside
    every labelled loop), over the labelled sessions.

    \b
    Example:
      loopguard-hook sweep ~/.claude/projects/*/*.jsonl --set deny_at=4,5,6 --set 'remind_at=[3],[3,4]'
    """
    from . import replay as replay_mod
    from .replay import labels as labels_mod
    from .replay import sweep as sweep_mod

    try:
        labels = labels_mod.read_labels(labels_path) if labels_path is not None else None
        points = sweep_mod.grid([sweep_mod.parse_set(text) for text in sets])
    except (ValueError, replay_mod.ReplayError) as exc:
        raise click.ClickException(str(exc)) from None
    paths = list(files) or (labels.files() if labels is not None else [])
    if not paths:
        raise click.UsageError("give FILES to replay, or --labels to replay every file it labels")
    settings = [(point, _resolved_with(point, profile, config_path, mode)) for point in points]
    progress = _ReplayProgress() if _is_terminal(sys.stderr) else None
    try:
        rows = sweep_mod.sweep(replay_mod.load(paths), settings, client=client, labels=labels, progress=progress)
    except replay_mod.ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if progress is not None:
            progress.close()
    if fmt == "json":
        _echo_json(sweep_mod.sweep_json(rows, labels=labels))
        return
    if color is None:
        color = _is_terminal(sys.stdout) and not os.environ.get("NO_COLOR")
    click.echo(sweep_mod.format_sweep(rows, labels=labels, color=color), color=color)


def _resolved_with(point: dict[str, Any], profile: str | None, config_path: str | None, mode: str | None) -> Any:
    """The config of one setting of a sweep: the usual sources, then the swept values."""
    flags = {"profile": profile or _root_param("profile"), "mode": mode or _root_param("mode"), **point}
    try:
        return config_mod.load(
            environ=os.environ, cwd=_cwd(), config_path=config_path or _root_param("config_path"), flags=flags
        ).config
    except config_mod.ConfigError as exc:
        raise click.ClickException(f"bad setting: {exc}") from None


#: Replays of fewer events than this finish too soon for a progress bar to help.
PROGRESS_MIN_EVENTS = 5000


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty()) and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # a stream without isatty, or closed
        return False


class _ReplayProgress:
    """A progress bar on stderr, drawn once a replay is known to have `PROGRESS_MIN_EVENTS` events
    or more; called as `progress(done, total)` by `replay.replay_files`."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < PROGRESS_MIN_EVENTS:
                return
            self.bar = click.progressbar(length=total, label="replaying", file=sys.stderr, show_pos=True)
            self.bar.__enter__()
        self.bar.update(done - self.bar.pos)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


# -- install / uninstall ----------------------------------------------------------------------


INSTALL_CLIENTS = click.Choice(["claude-code", "codex", "dsh-claude-code", "dsh-codex"])


@cli.command()
@click.option("--client", type=INSTALL_CLIENTS, required=True)
@click.option(
    "--scope",
    type=click.Choice(["user", "project", "local"]),
    default="user",
    show_default=True,
    help="user: ~/.claude or ~/.codex; project: ./.claude or ./.codex; local: .claude/settings.local.json.",
)
@click.option("--dry-run", is_flag=True, help="Show the diff, write nothing.")
@click.option("--diff", "full_diff", is_flag=True, help="Show the whole text of a file that is created, too.")
@click.option("--trust", is_flag=True, help="Codex: record the hooks' trusted_hash in config.toml (skips Codex's review).")
@click.option(
    "--bridge-path", default=None, help="DSH: the hook bridge's lib/index.js (default: found beside dsh or in a profile)."
)
@click.option("--dsh-profile", default=None, help="DSH: patch this profile's layer instead of $DSH_HOME/cordis.patch.yml.")
def install(
    client: str, scope: str, dry_run: bool, full_diff: bool, trust: bool, bridge_path: str | None, dsh_profile: str | None
) -> None:
    """Register loopguard-hook in the client's settings (merged, idempotent, with a backup)."""
    from . import install as install_mod

    home = os.path.expanduser("~")
    try:
        if client.startswith("dsh-"):
            _dsh_only_user_scope(scope)
            changes = install_mod.plan_dsh_install(
                client, home=home, env=os.environ, bridge_path=bridge_path, profile=dsh_profile
            )
            if trust:
                changes[0].messages.append("note: --trust is for Codex only; DSH has no per-hook trust record")
        else:
            changes = install_mod.plan_install(client, scope, home=home, project_dir=_cwd(), env=os.environ, trust=trust)
        if not dry_run:
            changes = install_mod.apply(changes)
    except install_mod.InstallError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(install_mod.format_report(changes, dry_run=dry_run, full_diff=full_diff), nl=False)
    _warn_if_not_on_path()


def _dsh_only_user_scope(scope: str) -> None:
    if scope != "user":
        raise click.UsageError("DSH has no --scope project/local: its layers are per user (--dsh-profile names one profile)")


def _warn_if_not_on_path() -> None:
    """The clients run the command by name: it must be found on their PATH."""
    import shutil

    found = shutil.which(install_command())
    if found is None:
        click.echo(
            "warning: `loopguard-hook` is not on PATH, so the client cannot run the hook. Install it where "
            "every shell finds it (`pipx install PATH-TO-CHECKOUT`, or `uv tool install PATH-TO-CHECKOUT`), or put "
            f"{os.path.dirname(sys.argv[0]) or 'the virtualenv bin directory'} on PATH for the client.",
            err=True,
        )


def install_command() -> str:
    from .install import CANONICAL_COMMAND

    return CANONICAL_COMMAND


@cli.command()
@click.option("--client", type=INSTALL_CLIENTS, required=True)
@click.option("--scope", type=click.Choice(["user", "project", "local"]), default="user", show_default=True)
@click.option("--dry-run", is_flag=True, help="Show the diff, write nothing.")
@click.option("--dsh-profile", default=None, help="DSH: the profile layer install patched (default: $DSH_HOME/cordis.patch.yml).")
def uninstall(client: str, scope: str, dry_run: bool, dsh_profile: str | None) -> None:
    """Remove loopguard-hook's entries from the client's settings, and nothing else."""
    from . import install as install_mod

    home = os.path.expanduser("~")
    try:
        if client.startswith("dsh-"):
            _dsh_only_user_scope(scope)
            changes = install_mod.plan_dsh_uninstall(client, home=home, env=os.environ, profile=dsh_profile)
        else:
            changes = install_mod.plan_uninstall(client, scope, home=home, project_dir=_cwd(), env=os.environ)
        if not dry_run:
            changes = install_mod.apply(changes)
    except install_mod.InstallError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(install_mod.format_report(changes, dry_run=dry_run), nl=False)


# -- doctor -----------------------------------------------------------------------------------


@cli.command()
@click.option(
    "--client", "clients", multiple=True, type=click.Choice(["claude-code", "codex", "dsh"]),
    help="Check only this client (repeatable; default: every client found).",
)
@click.option("--json", "as_json", is_flag=True, help="JSON: each client's findings.")
@click.option("--no-run", is_flag=True, help="Do not send the synthetic event through the registered command.")
@click.pass_context
def doctor(ctx: click.Context, clients: tuple[str, ...], as_json: bool, no_run: bool) -> None:
    """Is the guard live? For each client here: registered, on PATH, trusted, matchers, state dir, one test event.

    Exits 1 when the guard is not live for a client that is installed."""
    from . import doctor as doctor_mod

    reports = doctor_mod.run_doctor(
        home=os.path.expanduser("~"), cwd=_cwd(), env=os.environ, clients=clients or doctor_mod.CLIENTS, run=not no_run
    )
    click.echo((doctor_mod.render_json if as_json else doctor_mod.render_text)(reports), nl=False)
    ctx.exit(0 if doctor_mod.all_live(reports) else 1)


# -- config -----------------------------------------------------------------------------------


@cli.group("config")
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
        out = {key: {"value": values[key], "source": resolved.sources[key]} for key in config_mod.KEYS}
        out.update({name: {"value": path, "source": why} for name, path, why in where})
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
            used = sorted({src for src in resolved.sources.values() if not src.startswith(("profile ", "default"))})
            click.echo(
                "config OK: "
                + ("; ".join(used) if used else "no config file or LOOPGUARD_* variable in effect, profile defaults")
            )
            return
        layer = config_mod.read_toml(path, path)
        config_mod.resolve([layer])
    except config_mod.ConfigError as exc:
        # every problem, one per line, not only the first
        for problem in exc.problems[:-1]:
            click.echo(f"loopguard-hook: {problem}", err=True)
        raise click.ClickException(exc.problems[-1]) from None
    click.echo(f"{path}: OK")


# -- entry ------------------------------------------------------------------------------------


#: Why writing the output failed (`>/dev/full`, a closed pipe, a broken terminal).
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG})


def run_cli(args: list[str]) -> int:
    """Run click without letting it exit 2 (usage errors exit 1)."""
    try:
        result = cli.main(args=args, prog_name="loopguard-hook", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return 1 if exc.exit_code == 2 else exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:  # a group named without its command
        click.echo(exc.format_message(), err=True)
        return 1
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "loopguard-hook"
        click.echo(f"loopguard-hook: {exc.format_message()} (see {where} --help)", err=True)
        return 1
    except click.ClickException as exc:
        click.echo(f"loopguard-hook: {exc.format_message()}", err=True)
        return 1
    except click.exceptions.Abort:
        click.echo("loopguard-hook: aborted", err=True)
        return 1
    except StateError as exc:
        click.echo(f"loopguard-hook: state: {exc}", err=True)
        return 1
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            raise
        from .process import unwritable_stdout

        click.echo(unwritable_stdout(exc), err=True)
        return 1
    if isinstance(result, int) and result != 2:
        return result
    return 0 if result is None else 1
