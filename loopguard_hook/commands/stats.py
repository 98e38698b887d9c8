"""`loopguard-hook stats`: what the model did after each kind of intervention, from the logs.

Inputs, all in the state directory: `decisions.jsonl` (every intervention: rule, the text's
variant, what went on the wire), `responses.jsonl` (what the model did next: `followup.py`),
and the session ledgers (interventions still waiting for the agent's next call). Off the hook
path; pure apart from `load`.

One row per rule, text variant and mode (`observe` rows are the control group: the model never
saw the text). For each row:

- `logged`: interventions logged;
- `shown`: those that reached the model (a reminder, denial or stop on the wire): none in mode
  `observe`, nor a stop in mode `advise`, nor a reminder held at a Stop (it is logged again
  when it goes out);
- `changed`, `repeated`, `escalated`, `ended`: what the agent did next (`followup.py`);
- `open`: interventions still waiting for the agent's next call;
- `saved`: calls the guard kept from running (denials and stops that reached the wire);
- `first` / `ended_after_first`: first interventions on a call, and how many of them were
  followed by a change of course or the end of the turn: the loop ended after one text.
"""

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import orjson

from ..core.event import STOP_EVENTS
from ..rules.text_loops import DELIVERY
from ..store import Store
from .common import _count

RESPONSES = ("changed", "repeated", "escalated", "ended")
_FIELDS = ("logged", "shown", *RESPONSES, "open", "saved", "first", "ended_after_first")


class Row(NamedTuple):
    """The figures of one rule, text variant and mode (counts of interventions or calls)."""

    rule: str
    variant: str
    mode: str
    counts: dict[str, int]

    def as_json(self) -> dict[str, Any]:
        """Stable JSON keys: `rule`, `variant`, `mode` and every count."""
        return {"rule": self.rule, "variant": self.variant, "mode": self.mode, **self.counts}


class Inputs(NamedTuple):
    """What `load` read: records as dicts, and the one-line problems met on the way."""

    decisions: list[dict[str, Any]]
    responses: list[dict[str, Any]]
    ledgers: list[Mapping[str, Any]]
    problems: list[str]


def records(lines: Iterable[bytes], source: str, problems: list[str]) -> list[dict[str, Any]]:
    """The guard's records among `lines` (JSON objects with a string `rule` and `action`, as
    both logs write them); each other line is counted in `problems`."""
    out, bad = [], 0
    for line in lines:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            bad += 1
            continue
        if isinstance(value, dict) and isinstance(value.get("rule"), str) and isinstance(value.get("action"), str):
            out.append(value)
        else:
            bad += 1
    if bad:
        problems.append(f"{source}: skipped {bad} line(s) that are not the guard's records")
    return out


def load(store: Store, ledgers: Iterable[Mapping[str, Any] | None], unreadable: int = 0) -> Inputs:
    """Read both logs of the state directory `store`; `ledgers` are the live session ledgers
    (None for one that could not be read, counted in `problems`)."""
    problems: list[str] = []
    decisions = records(store.read_log("decisions.jsonl", problems), "decisions.jsonl", problems)
    responses = records(store.read_log("responses.jsonl", problems), "responses.jsonl", problems)
    live = [state for state in ledgers if state is not None]
    if unreadable:
        problems.append(f"{unreadable} session ledger(s) could not be read; their open interventions are not counted")
    kept = [state for state in live if _counted(state)]
    if len(kept) < len(live):  # edited by hand, or written by another version
        problems.append(f"{len(live) - len(kept)} session ledger(s) hold values of the wrong shape; left out of the counts")
    return Inputs(decisions, responses, kept, problems)


def _counted(state: Mapping[str, Any]) -> bool:
    """Whether the figures `build` and `unhooked_totals` read of one ledger can be read."""
    try:
        build(Inputs([], [], [state], []))
        unhooked_totals([state])
    except (TypeError, KeyError, AttributeError, ValueError):
        return False
    return True


def held_at_stop(record: Mapping[str, Any]) -> bool:
    """A reminder decided at a Stop, held for the next prompt or call (not under observe)."""
    return (
        record.get("event") in STOP_EVENTS and record.get("action") == "allow"
        and record.get("intended") == "remind" and record.get("mode") != "observe"
    )


def delivers_held(record: Mapping[str, Any]) -> bool:
    """The record of a text reminder held at a Stop going out at the next prompt or call, the
    same intervention as the Stop's record: the text rule's delivery, which carries no count
    and the summary `text_loops.DELIVERY` (a loop found at a prompt or call has its own)."""
    return (
        record.get("rule") == "LOOP_GUARD_TEXT" and record.get("event") not in STOP_EVENTS
        and not record.get("count") and record.get("arguments") == DELIVERY
    )


def sent(record: Mapping[str, Any]) -> bool:
    """Whether the intervention went to the host: not an `allow`, and not a decision the host
    takes no answer for there (`sent: false`, a Stop's end of turn on Qwen Code)."""
    return record.get("action") != "allow" and record.get("sent") is not False


def build(inputs: Inputs, *, session: str | None = None) -> list[Row]:
    """The rows, most logged first. `session` keeps one session id's records only."""
    rows: dict[tuple[str, str, str], dict[str, int]] = {}

    def row(record: Mapping[str, Any]) -> dict[str, int]:
        key = (str(record.get("rule") or "-"), str(record.get("variant") or "unknown"), str(record.get("mode") or "enforce"))
        return rows.setdefault(key, dict.fromkeys(_FIELDS, 0))

    def wanted(record: Mapping[str, Any]) -> bool:
        return session is None or record.get("session") == session

    for d in filter(wanted, inputs.decisions):
        counts = row(d)
        if delivers_held(d):
            counts["shown"] += sent(d)  # logged at its Stop; shown now, if the host takes it
            continue
        counts["logged"] += 1
        counts["shown"] += sent(d)  # `allow`: nothing went out (log.what)
        if d.get("event") == "PreToolUse" and d.get("action") in ("deny", "stop"):
            counts["saved"] += 1
    for r in filter(wanted, inputs.responses):
        counts = row(r)
        answer = r.get("response")
        if answer in RESPONSES:
            counts[str(answer)] += 1
        if r.get("step") == 1:
            counts["first"] += 1
            counts["ended_after_first"] += answer in ("changed", "ended")
    for state in inputs.ledgers:
        if session is not None and state.get("session_id") != session:
            continue
        mode = str((state.get("config") or {}).get("mode") or "enforce")
        for agent in (state.get("agents") or {}).values():
            pending = agent.get("followup") if isinstance(agent, dict) else None
            if isinstance(pending, dict):
                row({**pending, "mode": mode})["open"] += 1
    return [Row(*key, counts) for key, counts in sorted(rows.items(), key=lambda kv: (-kv[1]["logged"], kv[0]))]


def unhooked_totals(ledgers: Iterable[Mapping[str, Any]], *, session: str | None = None) -> dict[str, int]:
    """The polls no hook saw (Codex `write_stdin`, `rules/unhooked.py`) in the live ledgers:
    `{"polls", "empty", "hung", "sessions"}` (`hung`: commands found hung and not yet forgotten;
    `sessions`: sessions with any poll). A ledger forgotten at its SessionEnd is not counted."""
    from ..rules.unhooked import NAME

    total = {"polls": 0, "empty": 0, "hung": 0, "sessions": 0}
    for state in ledgers:
        if session is not None and state.get("session_id") != session:
            continue
        seen = 0
        for agent in (state.get("agents") or {}).values():
            table = (agent.get("rules") or {}).get(NAME) if isinstance(agent, dict) else None
            if isinstance(table, dict):
                seen += int(table.get("polls", 0))
                total["empty"] += int(table.get("empty", 0))
                total["hung"] += len(table.get("hung") or {})
        total["polls"] += seen
        total["sessions"] += seen > 0
    return total


def unhooked_line(total: Mapping[str, int]) -> str:
    """`unhooked_totals` for people; "" when no poll was seen."""
    if not total["polls"]:
        return ""
    return (
        f"write_stdin polls no hook saw: {total['polls']} ({total['empty']} empty) in {total['sessions']} live "
        f"session(s); {total['hung']} command(s) found hung"
    )


def format_text(rows: list[Row], state_dir: str, session: str | None = None) -> str:
    """The table for people: one line per row, then a totals line (problems go to stderr);
    `session`: the one session the rows were counted for (as shown to the user)."""
    lines = [f"state dir: {state_dir}"]
    if not rows:
        lines.append(f"no interventions logged for session {session}" if session else "no interventions logged yet")
        return "\n".join(lines)
    counted = ("logged", "shown", *RESPONSES, "open", "saved")
    head = ("rule", "variant", "mode", *counted, "ended after 1st")
    table: list[tuple[str, ...]] = [head]
    for r in rows:
        c = r.counts
        first = f"{c['ended_after_first']}/{c['first']}" if c["first"] else "-"
        table.append((r.rule, r.variant, r.mode, *(str(c[k]) for k in counted), first))
    widths = [max(len(line[i]) for line in table) for i in range(len(head))]
    for line in table:
        cells = [cell.ljust(w) if i < 3 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    total = {k: sum(r.counts[k] for r in rows) for k in _FIELDS}
    answered = sum(total[k] for k in RESPONSES)
    lines.append("")
    quiet = total["logged"] - total["shown"]
    unseen = f" ({total['shown']} shown to the model, {quiet} logged only)" if quiet else ""
    lines.append(
        f"{_count(total['logged'], 'intervention')}{unseen}, {answered} answered: {total['changed']} changed course, "
        f"{total['repeated']} repeated the call, {total['escalated']} needed a stronger answer, "
        f"{total['ended']} ended the turn; {_count(total['saved'], 'call')} not run"
    )
    if total["first"]:
        share = 100 * total["ended_after_first"] / total["first"]
        ended = total["ended_after_first"]
        lines.append(f"the loop ended after the first intervention {ended} of {total['first']} times ({share:.0f} %)")
    return "\n".join(lines)
