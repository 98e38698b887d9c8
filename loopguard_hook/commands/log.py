"""`loopguard-hook log`: every intervention, of live and ended sessions alike, from `decisions.jsonl`.

The hook appends one redacted record to `decisions.jsonl` in the state directory for every
decision other than allow (`hook._decide`), and SessionEnd never removes it (it deletes only the
session's ledger). A record holds `time` (seconds since the epoch), `session`, `client` (the
host), `agent`, `event`, `tool`, `rule`, `action` (on the wire), `intended` (what the rules
decided; they differ under `advise` and `observe`), `count`, `arguments` (the call, redacted and
cut), `variant` (the text's template), `profile` and `mode`; records written since the text was
kept also hold `text`, the text the model was given, redacted ("" when the mode kept it from the
model), and such a record also holds `would_text`, the text the rules wrote, redacted, which the
log shows as what the guard would have said. A record of an end of turn whose answer carried a
message the host shows the user (the top-level `stopReason` of Claude Code's and Gemini CLI's
answers: `Capabilities.shows_stop_reason`) holds it, redacted, as `stop_reason`, which the log
shows as what the user was shown; a notice the host shows the user (`systemMessage`, on an
event in `Capabilities.system_message`) is kept as `system_message` the same way. A reminder
decided at a Stop (no host passes the model a text there) is held for the model's next prompt
or call, which logs its own record when it goes out (`stats.delivers_held`): the log says so.
A decision the host takes no answer for where it was made holds `sent: false`, an empty `text`
and its `would_text`. Older records have no `text`: the log says which template it was
(`variant`). Off the hook path; pure apart from `load`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import click

from ..core.event import STOP_EVENTS
from ..hosts import host_event
from ..process import printable, shown_on_terminal
from ..store import Store
from . import costing
from .common import STATE_DIR_HELP, _echo_json, _echo_problems, _locations, _readable, config_or_warning, one_session
from .stats import delivers_held, held_at_stop, records
from .times import When, clock

LOG = "decisions.jsonl"


class Filters(NamedTuple):
    """Which records to keep: a session id, rule codes (`LOOP_GUARD_REPEAT`; a short name such
    as `repeat` or `same-error` is completed), a time window in seconds since the epoch."""

    session: str | None = None
    rules: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None

    def keeps(self, record: Mapping[str, Any]) -> bool:
        if self.session is not None and record.get("session") != self.session:
            return False
        if self.rules and str(record.get("rule") or "") not in self.rules:
            return False
        at = record.get("time")
        if not isinstance(at, (int, float)) or isinstance(at, bool):
            return self.since is None and self.until is None
        return (self.since is None or at >= self.since) and (self.until is None or at <= self.until)


#: The README's rule names (`rules/` modules) whose codes are named otherwise.
RULE_NAMES = {
    "budgets": ("LIMIT", "PROGRESS_LIMIT"),
    "polling": ("POLL",),
    "every_call": ("WALL",),
    "hung_commands": ("HUNG",),
    "duplicates": ("DUPLICATE",),
    "answer_only": ("STOP",),
    "text_loops": ("TEXT",),
    "continuations": ("TEXT",),
}


def rule_codes(name: str) -> tuple[str, ...]:
    """`repeat`, `same-error`, `LOOP_GUARD_REPEAT`, or a rule's name in the README (`polling`,
    `budgets`, `every call`) -> the rule codes as logged.

    Raises:
        click.BadParameter: no rule has that code (the message lists the codes there are).
    """
    from ..core.verdict import Rule

    key = "_".join(name.strip().upper().replace("-", "_").split())
    named = RULE_NAMES.get(key.lower())
    codes = named or (key.removeprefix("LOOP_GUARD_"),)
    if any("LOOP_GUARD_" + code not in {r.value for r in Rule} for code in codes):
        valid = ", ".join(r.value.removeprefix("LOOP_GUARD_").lower().replace("_", "-") for r in Rule)
        raise click.BadParameter(f"no rule {name!r}; the rules are: {valid} (or their LOOP_GUARD_ codes)")
    return tuple("LOOP_GUARD_" + code for code in codes)


def load(stores: Sequence[Store], filters: Filters) -> tuple[list[dict[str, Any]], list[str]]:
    """The records of every store's `decisions.jsonl` (and its rotated `.1`) that `filters`
    keep, oldest first, each with `state_dir`; and the problems met (one line each)."""
    problems: list[str] = []
    found: list[dict[str, Any]] = []
    for store in stores:
        lines = store.read_log(LOG, problems)
        for record in records(lines, f"{store.root}/{LOG}", problems):
            if filters.keeps(record):
                found.append({**record, "state_dir": store.root})
    found.sort(key=lambda r: r["time"] if isinstance(r.get("time"), (int, float)) else 0.0)
    return found, problems


def _event(record: Mapping[str, Any]) -> str:
    """The record's hook event as its host names it (Gemini CLI's `BeforeTool`, `hosts.host_event`)."""
    return host_event(str(record.get("client")), str(record.get("event")))


def _text(value: object) -> str:
    """A logged value as the terminal shows it safely, its line breaks kept (`process.shown_on_terminal`)."""
    return shown_on_terminal(str(value))


def what(record: Mapping[str, Any]) -> str:
    """`deny`, `remind (would deny)`, `nothing shown (observe; would stop)`, `held (remind)`,
    `stop (nothing sent)`."""
    action, intended, mode = record.get("action"), record.get("intended") or record.get("action"), record.get("mode")
    if held_at_stop(record):
        return "held (remind)"
    if record.get("sent") is False:
        return f"{action} (nothing sent)"
    if action == "allow":
        return f"nothing shown ({mode}; would {intended})"
    if intended != action:
        return f"{action} (would {intended})"
    return str(action)


def told(record: Mapping[str, Any]) -> list[str]:
    """The lines saying what the model was given: the text itself where the record has it; then
    what the user was shown, where the record keeps it (`stop_reason`, `system_message`)."""
    text = record.get("text")
    variant = record.get("variant") or "unknown"
    said = [user for key in ("system_message", "stop_reason") if isinstance(user := record.get(key), str) and user]
    shown = [line for user in dict.fromkeys(said) for line in ("the user was shown:", *_indented(user))]
    would = record.get("would_text") or text  # `text` of an allow: records of the first such form
    if record.get("sent") is False:
        # The host takes no such answer there (a Stop's end of turn on Qwen Code, Copilot CLI…).
        head = f"nothing was sent: {_text(record.get('client'))} takes no such answer at {_text(_event(record))}"
        return _would_have_said(head, would, variant)
    if held_at_stop(record):
        return ["held for the model's next prompt or call (a Stop passes the model no text):", *_indented(would), *shown]
    if record.get("action") == "allow":
        return [*_would_have_said(f"the model was told nothing (mode {record.get('mode')})", would, variant), *shown]
    if record.get("event") in STOP_EVENTS and record.get("action") == "stop":
        return ["the model was told nothing (the turn ended at Stop)", *shown]
    if isinstance(text, str):
        head = "the model was told (a reminder held at a Stop, sent now):" if delivers_held(record) else "the model was told:"
        return [head, *_indented(text), *shown]
    return [f"the model was given a {variant} text (this record is older than the texts the log keeps)", *shown]


def _would_have_said(head: str, would: object, variant: object) -> list[str]:
    """`head`, then the text the guard would have said, or, where the record keeps none, its
    template."""
    if isinstance(would, str) and would:
        return [head + "; the guard would have said:", *_indented(would)]
    return [head + f"; the text would have been a {variant}"]


def _indented(text: object) -> list[str]:
    if not isinstance(text, str):
        return []
    return ["  " + line for line in _text(text).splitlines() or [""]]


def _times(count: object) -> str:
    """` x5`; nothing for a record with no count (a text reminder held at a Stop, sent later)."""
    return "" if count in (0, None) else f" x{_text(count)}"


def format_text(found: Sequence[Mapping[str, Any]], state_dirs: Sequence[str], *, filtered: Sequence[str] = ()) -> str:
    """One block per intervention, oldest first, then where to go next. `filtered`: the options
    of the filters given (`--rule`…), named when none matched (not that none was logged)."""
    out: list[str] = []
    count = 0
    for r in found:
        count += 1
        at = r.get("time")
        when = clock(at) if isinstance(at, (int, float)) else "?"
        out.append(
            f"{when}  {what(r)}  {_text(r.get('rule') or '-')}{_times(r.get('count'))}  "
            f"session {_text(r.get('session'))} [{_text(r.get('client'))}]"
        )
        # One line: a Stop's excerpt of the text may hold line breaks (`printable` writes them `\n`).
        call = printable(str(r.get("arguments") or r.get("tool") or ""))
        out.append(f"  {_text(_event(r))} [{_text(r.get('agent'))}]: {call}")
        cost = r.get("cost")
        if isinstance(cost, Mapping):
            out.append("  " + cost_line(cost))
        out.extend("  " + line for line in told(r))
        out.append("")
    if not count:
        if filtered:
            return f"no logged intervention matches {', '.join(filtered)} in {', '.join(state_dirs)}"
        return f"no interventions logged in {', '.join(state_dirs)}"
    total = costing.totals(found)
    if total["loops"]:
        out.append(costing.totals_line(total))
    out.append(
        f"{count} intervention{'s' if count != 1 else ''} from {', '.join(state_dirs)}. "
        "`loopguard-hook stats` counts what the model did next; `loopguard-hook pause` turns the guard off."
    )
    return "\n".join(out)


def cost_line(cost: Mapping[str, Any]) -> str:
    """`loop: calls 3-9, 6 requests, 182k tokens; after a call the recording ran and the guard would
    have denied, or past its end of turn: 4 requests, 121k tokens`."""
    from ..replay.cost import format_cost

    return str(format_cost(cost))


@click.command("log")
@click.option("--session", "session_id", default=None, help="Only this session (its id, or the start of it).")
@click.option(
    "--rule", "rules", multiple=True, metavar="RULE",
    help="Only this rule (LOOP_GUARD_REPEAT, or repeat, same-error, polling, budgets…); repeatable.",
)
@click.option("--since", type=When(), default=None, help="From this time: a span ago (2h, 30m, 1d) or a date (2026-12-01).")
@click.option("--until", type=When(), default=None, help="Up to this time (as --since).")
@click.option("--json", "as_json", is_flag=True, help="Stable JSON: every record as logged.")
@costing.cost_options
@click.option("--state-dir", type=click.Path(file_okay=False), default=None, help=STATE_DIR_HELP)
def log_command(
    session_id: str | None, rules: tuple[str, ...], since: float | None, until: float | None, as_json: bool,
    cost: bool, config_path: str | None, state_dir: str | None,
) -> None:
    """Every intervention, of live and ended sessions alike: when, which session and host, the
    rule and its count, the call it saw (redacted) and the text the model was given.

    Read from decisions.jsonl in the state dirs (kept after a session ends; rotated to
    decisions.jsonl.1 past audit_log_max_bytes). Oldest first. With the session's transcript or
    rollout where its host keeps it, each loop's tokens (and money at the price_*_per_mtok of
    the config), as `replay` counts them.

    A bad config here is said in one line on stderr (the state dir is no config key), and the log
    is shown all the same, without the loops' tokens, whose replay needs the config.

    Exit status: 0 (also when nothing matches, or the config is bad); 1, with what is wrong on
    stderr, for an unknown --rule, --since later than --until, or a log holding a line it cannot read.
    """
    found_dirs = _locations(state_dir)
    _echo_problems(found_dirs)
    stores = _readable(found_dirs)
    try:
        codes = tuple(code for r in rules for code in rule_codes(r))
    except click.BadParameter as exc:
        click.echo(f"loopguard-hook: log: --rule: {exc.message}", err=True)
        click.get_current_context().exit(1)
    if since is not None and until is not None and since > until:
        click.echo("loopguard-hook: log: --since is later than --until (a span is counted back from now: "
                   "--since 2h --until 1h)", err=True)
        click.get_current_context().exit(1)
    found, problems = load(stores, Filters(None, codes, since, until))
    if session_id is not None:
        session_id = one_session((r.get("session") for r in found), session_id)
    filters = Filters(session_id, codes, since, until)
    found = [r for r in found if filters.keeps(r)]
    roots = [s.root for s in stores]
    sessions: dict[str, object] = {}
    config = config_or_warning(config_path, cost and bool(found))
    if cost and found and config is not None:
        sessions = costing.attach(found, config, os.environ, os.path.expanduser("~"))
    if as_json:
        _echo_json({"state_dirs": roots, "interventions": found, "sessions": sessions, "problems": problems,
                    "cost": costing.totals(found)})
    else:
        given = ("--session", session_id), ("--rule", codes), ("--since", since), ("--until", until)
        click.echo(format_text(found, roots, filtered=[name for name, value in given if value not in (None, ())]))
    for problem in problems:
        click.echo(f"loopguard-hook: log: {problem}", err=True)
    if problems:
        click.get_current_context().exit(1)
