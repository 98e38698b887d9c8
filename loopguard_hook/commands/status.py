"""`status` and `stats`: what the guard has seen, per session, and the thresholds in force."""

from __future__ import annotations

import os
import time
from typing import Any

import click
import orjson

from ..config import load as config_mod
from ..core.ledger import Agent
from ..hosts import CLIENTS, capabilities
from ..rules import same_plan, unhooked
from ..store import Store, location
from . import costing
from .common import (
    PROFILE_CHOICE,
    STATE_DIR_HELP,
    _ago,
    _count,
    _cwd,
    _echo_json,
    _id_starts,
    _list,
    _load_config,
    _locations,
    _printable,
    _readable,
    _session_id_of,
    _shown_id,
    _stem,
    _store,
    config_or_warning,
    one_session,
)
from .log import what
from .pausing import pause_lines, paused_json


def quiet_note() -> str:
    """How a failing event ends, by host: exit 1 with the line on stderr, but exit 0 with the line
    in errors.log where the capability table says so (`Capabilities.failures_exit_0`)."""
    from .. import hosts
    from ..doctor.model import HOSTS

    names = sorted(HOSTS[c.value][1] for c in hosts.CLIENTS if hosts.capabilities(c).failures_exit_0)
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    return f"  a failing event exits 1, or exits 0 with the line in errors.log on {listed}"


def session_summary(stem: str, state: dict[str, Any] | None) -> dict[str, Any]:
    """The stable `status --json` shape of one session."""
    if state is None:
        return {"file": stem, "readable": False}
    agents = {}
    for agent_id, agent in state["agents"].items():
        sigs = sorted(agent["sigs"].values(), key=lambda s: (-s.get("n", 0), -(s.get("t") or 0)))
        chain = agent["chain"][1] if agent.get("chain") else 0
        agents[agent_id] = {
            "attempts": agent["attempts"],
            "calls_since_progress": agent["since"],
            "bookkeeping_calls_since_progress": agent["bookkeeping"],
            "answer_only": bool(agent.get("answer_only")),
            "consecutive": chain,
            "last_call_in_a_row": _in_a_row(agent, chain),
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
            "unhooked_polls": unhooked.summary(agent),
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


def _in_a_row(agent: Agent, chain: int) -> int | None:
    """How many times in a row the agent's latest call was sent: `chain`, the run of identical
    tracked calls (`consecutive`); for an untracked call, the same list's sends the same-plan rule
    counts, or None when nothing counts them (another untracked tool, or that rule off)."""
    latest = max(agent["calls"].values(), key=lambda c: c.get("seq", -1), default=None)
    if latest is None or not latest.get("untracked"):
        return chain
    return same_plan.sends(agent) or None


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


@click.command("stats")
@click.option("--session", "session_id", default=None, help="Only this session (its id, or the start of it).")
@click.option("--json", "as_json", is_flag=True, help="Stable JSON instead of text.")
@costing.cost_options
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
def stats_command(session_id: str | None, as_json: bool, cost: bool, config_path: str | None, state_dir: str | None) -> None:
    """What the model did after each rule's reminders and denials, per text variant.

    For each rule, text variant and mode: how often it was logged and how often shown to the
    model, whether the agent then changed course, repeated the call, needed a stronger answer or
    ended the turn, how many calls the guard kept from running, and how often the loop ended
    after the first intervention. Read from decisions.jsonl, responses.jsonl and the live
    ledgers; observe-mode rows are the control group (logged only: the model never saw the text).
    Then the tokens of the loops behind them, from each session's transcript or rollout where its
    host keeps it (as `log` shows them), and the Codex `write_stdin` polls the live sessions'
    hooks read from their rollouts (no hook fires for them). A bad config here is said in one line
    on stderr (the state dir is no config key), and the counts are shown all the same, without
    the loops' tokens, whose replay needs the config (the exit status is not changed by it).
    """
    from . import stats

    store = _store(state_dir)
    entries = store.list_sessions()
    inputs = stats.load(store, (state for _, state, _ in entries), sum(state is None for _, state, _ in entries))
    if session_id is not None:
        session_id = one_session(
            [d.get("session") for d in inputs.decisions] + [_session_id_of(state) for _, state, _ in entries], session_id)
    rows = stats.build(inputs, session=session_id)
    logged = [d for d in inputs.decisions if session_id is None or d.get("session") == session_id]
    config = config_or_warning(config_path, cost and bool(logged))
    if cost and logged and config is not None:
        costing.attach(logged, config, os.environ, os.path.expanduser("~"))
    total = costing.totals(logged)
    polls = stats.unhooked_totals(inputs.ledgers, session=session_id)
    if as_json:
        _echo_json({"state_dir": store.root, "rows": [r.as_json() for r in rows], "problems": inputs.problems,
                    "cost": total, "unhooked_polls": polls})
    else:
        click.echo(stats.format_text(rows, store.root, _shown_id(session_id) if session_id is not None else None))
        if total["loops"]:
            click.echo(costing.totals_line(total))
        if line := stats.unhooked_line(polls):
            click.echo(line)
    for problem in inputs.problems:
        click.echo(f"loopguard-hook: stats: {problem}", err=True)
    if inputs.problems:
        click.get_current_context().exit(1)


def config_warnings(resolved: config_mod.Resolved) -> list[str]:
    """What in the config in force switches the guard off (`exclude = ["*"]`) or turns it down
    (a project file's `mode = "observe"`, `profile = "reminder"`…), each with what wins over it
    (`config.caveats`, which `doctor` says too)."""
    from ..config.caveats import caveats

    return [_printable(f"{what}; {fix}") for what, fix in caveats(resolved)]


@click.command()
@click.option("--session", "session_id", default=None, help="Only this session (its id, or the start of it).")
@click.option("--json", "as_json", is_flag=True, help="Stable JSON instead of text.")
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
@click.option("--profile", type=PROFILE_CHOICE, default=None, help="Show the thresholds of this profile.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help="An extra TOML config file.")
def status(session_id: str | None, as_json: bool, state_dir: str | None, profile: str | None, config_path: str | None) -> None:
    """Show sessions, per agent the counters and the last decisions, and the thresholds in force.

    A bad config here is said (what is wrong and the command that lists every problem) in place
    of the thresholds, the sessions are shown all the same, and the exit status is 1 with the
    hook's one line on stderr."""
    found = _locations(state_dir)
    stores = _readable(found)
    try:
        resolved = _load_config(profile, config_path)
        t, bad, warnings = thresholds(resolved.config), None, config_warnings(resolved)
    except config_mod.ConfigError as exc:
        t, bad, warnings = _config_error(exc), exc, []
    entries = [(stem, st, mtime, store.root) for store in stores for stem, st, mtime in store.list_sessions()]
    if session_id is not None:
        stem = _stem(session_id)
        exact = [e for e in entries if e[0] in (stem, session_id)]
        entries = exact or [e for e in entries if _id_starts(e[1], session_id)]
        if not entries:
            where = " or ".join(s.sessions for s in stores) or found[0].root
            raise click.ClickException(f"no state for session {_shown_id(session_id)} in {where}")
        if not exact:
            one_session((_session_id_of(e[1]) for e in entries), session_id)
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
                "thresholds": t if bad is None else None,
                "config_error": t if bad is not None else None,
                "warnings": warnings,
                "paused": paused_json(os.environ.get("CLAUDE_PROJECT_DIR") or _cwd()),
                "sessions": sessions,
            }
        )
    else:
        _echo_text(found, t, warnings, sessions, time.time())
    if bad is not None:
        click.echo(f"loopguard-hook: bad config: {bad}", err=True)
        click.get_current_context().exit(1)


def _config_error(exc: config_mod.ConfigError) -> dict[str, Any]:
    """`status --json`'s `config_error`: every problem, the files at fault and the fix."""
    return {"problems": exc.problems, "files": list(exc.files), "fix": exc.fix}


def _echo_text(
    found: list[location.Location], t: dict[str, Any], warnings: list[str], sessions: list[dict[str, Any]], now: float
) -> None:
    """`status` as text: the state dirs, the config in force (or what is wrong with it: `t` is
    then `_config_error`'s), then each session."""
    click.echo(f"state dir: {Store(found[0].root).root}")
    for f in found[1:]:
        click.echo(f"{f.kind} state dir: {_printable(f.root)}" + (f" ({f.problem}; not read)" if f.problem else f" ({f.reason})"))
        if f.kind == "workspace" and not f.problem:
            click.echo(f"  {DSH_TEXT_NOTE}")
    if "problems" in t:
        quiet = config_mod.paused_here(os.environ, _cwd())
        if quiet:  # `pause`: the host sees nothing of the guard, this included
            click.echo("config here: BAD, and the guard is paused here: hook events write the problem to errors.log and "
                       f"answer nothing; after resume every event fails until it is fixed: {_printable(t['problems'][0])}")
        else:
            click.echo(f"config here: BAD, every hook event here fails and the guard is off: {_printable(t['problems'][0])}")
        for problem in t["problems"][1:]:
            click.echo(f"  also: {_printable(problem)}")
        click.echo(f"  fix: {_printable(t['fix'])}")
        if not quiet:
            click.echo(quiet_note())
    else:
        click.echo(
            f"config here: profile {t['profile']} ({t['mode']}), counting {t['counting']}: remind at {_list(t['remind_at'])}, "
            f"deny at {t['deny_at'] or '-'}, stop at {t['stop_at'] or '-'}, "
            f"max calls since progress {t['max_calls_since_progress'] or '-'}"
        )
    for warning in warnings:
        click.echo(f"warning: {warning}")
    for line in pause_lines(os.environ.get("CLAUDE_PROJECT_DIR") or _cwd()):
        click.echo(line)
    if not sessions:
        click.echo("no sessions")
        # A session's ledger goes at its SessionEnd (most hosts): the log keeps what the guard did.
        click.echo("(`loopguard-hook log` lists the interventions of every session, also of ended ones)")
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
        deny, stop = used.get("deny_at") or "-", used.get("stop_at") or "-"
        at = f"remind at {_list(used.get('remind_at'))}, deny at {deny}, stop at {stop}"
        if all(used.get(k) == t.get(k) for k in ("profile", "mode")):
            # `policy.for_host` (Qwen Code, Gemini CLI halt a run at the 5th identical call),
            # `policy.shared_by` (subagents running together), or settings given to that event alone
            halts = capabilities(s["client"]).halts_at if s.get("client") in CLIENTS else 0
            why = f"; {s['client']} halts a run itself at the {halts}th identical call in a row" if halts else ""
            out.append(f"  (its last event was judged with {at}{why})")
        else:
            out.append(f"  (its last event used profile {used.get('profile')} ({used.get('mode')}): {at})")
    for agent_id, a in s["agents"].items():
        flags = " ANSWER-ONLY" if a["answer_only"] else ""
        planning = a.get("bookkeeping_calls_since_progress")
        counted = f" (and {_count(planning, 'planning call')})" if isinstance(planning, int) and planning else ""
        # An untracked call (a plan list) is in no chain: its sends are the same-plan rule's, if any.
        in_a_row = a["last_call_in_a_row"]
        row = f", its last call sent {_count(in_a_row, 'time')} in a row" if in_a_row is not None else ""
        out.append(
            f"  agent {_printable(agent_id)}: {_count(a['attempts'], 'call')}, {a['calls_since_progress']} since a call "
            f"last made progress{counted}{row}{flags}"
        )
        # A signature's count is its attempts since the one whose result was last new (the repeat
        # rule's thresholds count them so): that attempt, and the ones after it. The agent's count
        # above is of every call since one made progress (a productive result: the
        # `max_calls_since_progress` budget's), which a new failure is not: the two differ.
        for sig in a["signatures"][:5]:
            if sig["no_progress"] >= 2:
                runs = sig["no_progress"]
                out.append(f"    {runs} attempts of this call since its result was last new  {_printable(sig['call'])}")
        out.extend(_unhooked_lines(a.get("unhooked_polls")))
    mode = used.get("mode") if isinstance(used, dict) else None
    for d in s["recent_decisions"][-5:]:
        # Worded as `log` words it (a reminder held at a Stop, what observe would have done); the
        # ledger's copy of a record keeps no mode: the session's last one is taken.
        tool = f" {_printable(str(d['tool']))}" if d.get("tool") else ""
        count = f" x{d['count']}" if d.get("count") else ""
        out.append(
            f"  {_ago(now, d['time'])}: {what({'mode': mode, **d})} ({d['rule']}) {d['event']}{tool}{count} "
            f"[{_printable(d['agent'])}] {_printable(d['arguments'])}"
        )
    return out



def _unhooked_lines(polls: dict[str, Any] | None) -> list[str]:
    """The agent's polls no hook saw (Codex `write_stdin`), and the commands they found hung."""
    if not polls:
        return []
    out = [
        f"    {_count(polls['polls'], 'write_stdin poll')} no hook saw ({polls['empty']} empty), "
        f"{polls['running']} command {'session' if polls['running'] == 1 else 'sessions'} left running"
    ]
    for hung in polls["hung"]:
        out.append(
            f"    hung: {_printable(hung['command'])} ({_count(hung['polls'], 'empty poll')} over "
            f"{hung['seconds'] / 60:.0f} min)"
        )
    return out
