"""The cost of the loops behind logged interventions, for `log` and `stats`: each session's
recording found where its host keeps it, replayed (`replay.cost`), and the logged interventions
matched to the replay's decisions.

Where recordings are looked for (the session id is in the file name):

- Claude Code: `$CLAUDE_CONFIG_DIR/projects/*/<session>.jsonl`, else `~/.claude/projects/…`;
- Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<session>.jsonl`, else `~/.codex/sessions/…`.

DSH sessions and hook payload logs state no usage. A logged intervention is matched to the
replay's next decision of the same event, agent, tool, rule and count, in order: the live hook
and the replay run the same engine over the same events (`tests/test_replay.py`), so they agree
unless the config changed since. An intervention with no match gets no cost.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click

from ..config.settings import Config
from .common import CONFIG_HELP

if TYPE_CHECKING:  # the replay package loads only when a recording is replayed
    from ..replay.cost import LoopCost


def cost_options(func: Any) -> Any:
    """`--cost/--no-cost` and `--config`, as `log` and `stats` take them."""
    func = click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, help=CONFIG_HELP)(func)
    return click.option(
        "--cost/--no-cost", default=True, show_default=True,
        help="Replay each session's recording, where it is found on this machine, for the tokens of its loops.",
    )(func)


def recording_of(session: str, client: str, environ: Mapping[str, str], home: str) -> str | None:
    """The recording of `session` on this machine, or None."""
    if not session or any(ch in session for ch in "/\\*?[]") or session.startswith("."):
        return None
    if client == "claude-code":
        base = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
        found = glob.glob(os.path.join(glob.escape(base), "projects", "*", session + ".jsonl"))
    elif client == "codex":
        base = environ.get("CODEX_HOME") or os.path.join(home, ".codex")
        found = glob.glob(os.path.join(glob.escape(base), "sessions", "*", "*", "*", f"rollout-*-{session}.jsonl"))
    else:
        return None
    return max(found, key=os.path.getmtime) if found else None


def _key(event: Any, agent: Any, tool: Any, rule: Any, count: Any) -> tuple[str, str, str, str, str]:
    return (str(event), str(agent), str(tool), str(rule), str(count))


def attach(records: Sequence[dict[str, Any]], config: Config, environ: Mapping[str, str], home: str) -> dict[str, Any]:
    """Give each record (of `log.load`) whose loop the replay of its session's recording finds a
    `cost` (`LoopCost.as_json`); the sessions looked at, `{session: {"recording": path | None,
    "tokens": usage | None, "error": text}}`. Replays with `config` (the config in force here)."""
    from .. import replay
    from ..replay.cost import usage_json

    sessions: dict[str, Any] = {}
    by_session: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_session.setdefault(str(record.get("session")), []).append(record)
    for session, mine in by_session.items():
        path = recording_of(session, str(mine[0].get("client")), environ, home)
        info: dict[str, Any] = {"recording": path, "tokens": None}
        sessions[session] = info
        if path is None:
            continue
        try:
            reports = replay.replay_files([path], config, calls="none")
        except (replay.ReplayError, OSError) as exc:
            info["error"] = str(exc)
            continue
        report = next((r for r in reports if r.session_id == session), None)
        if report is None:
            continue
        info["tokens"] = usage_json(report.usage) if report.usage is not None else None
        _match(mine, report.decisions, report.loops)
    return sessions


def _match(records: Sequence[dict[str, Any]], decisions: Sequence[Any], loops: Sequence[LoopCost]) -> None:
    queues: dict[tuple[str, str, str, str, str], list[Any]] = {}
    for d in decisions:
        key = _key(d.event, d.agent, d.tool, d.verdict.rule, d.verdict.count)
        queues.setdefault(key, []).append(d)
    for record in records:
        queue = queues.get(_key(record.get("event"), record.get("agent"), record.get("tool"), record.get("rule"),
                                record.get("count")))
        if not queue:
            continue
        decision = queue.pop(0)
        loop = next(
            (x for x in loops if decision.call is not None and x.agent == decision.agent
             and x.first_call <= decision.call <= x.last_call),
            None,
        )
        if loop is not None:
            record["cost"] = loop.as_json()


def totals(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The loops behind `records` (each loop once): how many, their tokens, those after a call the
    recording ran and the guard would have denied, or past its end of turn (`replay.cost`, rule
    4), and in money (None when unpriced)."""
    seen: dict[tuple[str, int, int, str], Mapping[str, Any]] = {}
    for r in records:
        cost = r.get("cost")
        if isinstance(cost, Mapping):
            seen[(str(r.get("session")), cost["first_call"], cost["last_call"], str(cost["agent"]))] = cost
    costs = list(seen.values())
    priced = any(c.get("money") is not None for c in costs)
    return {
        "loops": len(costs),
        "tokens": sum(c["tokens"]["total"] for c in costs),
        "saved_tokens": sum(c["saved_tokens"]["total"] for c in costs),
        "money": sum(c["money"] or 0.0 for c in costs) if priced else None,
        "saved_money": sum(c["saved_money"] or 0.0 for c in costs) if priced else None,
    }


def totals_line(total: Mapping[str, Any]) -> str:
    """`3 loops found in their recordings: 1.2M tokens (3.60), 400k (1.20) of them after a call the
    recording ran and the guard would have denied, or past its end of turn`."""
    from ..replay.cost import AFTER_SAVED, amount, tokens

    return (
        f"{total['loops']} loop{'s' if total['loops'] != 1 else ''} found in their recordings: "
        f"{tokens(total['tokens'])} tokens{amount(total['money'])}, {tokens(total['saved_tokens'])}"
        f"{amount(total['saved_money'])} of them {AFTER_SAVED}"
    )
