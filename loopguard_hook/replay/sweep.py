"""Sweep: replay recorded sessions under a grid of settings, one row of totals per setting.

A setting is one value for each swept key (`--set KEY=V1,V2,...`, keys as `config show` names
them); the grid is every combination, in the order the keys and values were given. Each row
counts, over all the sessions:

- interventions: decisions whose wire action is remind, deny or stop (reminders, denials and
  stops, also counted apart);
- calls saved: calls the recording ran that the guard would not have let run, because it
  denied them at PreToolUse or (Claude Code) they came later in a turn it had ended with a stop.
  These are calls after the first intervention of a loop: the guard would have prevented them.
  It is an estimate: the replay follows the recording, and cannot know what the model would have
  done instead of a denied call;
- with labels (`labels`): loops caught and stopped, and false alarms and false denials
  (interventions outside every labelled loop), over the labelled sessions only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..config.settings import Config
from .cost import plural
from .labels import Labels, Score, score
from .model import Recording, odd_shapes_refused
from .render_summary import table
from .report import Summary
from .run import Progress, replay
from .style import painter

#: Most settings one sweep may replay (the grid's size: the product of the value counts).
MAX_SETTINGS = 256


@dataclass(slots=True)
class Row:
    """The totals of one setting over every session."""

    setting: dict[str, Any]
    sessions: int = 0
    calls: int = 0
    reminders: int = 0
    denials: int = 0
    stops: int = 0
    saved: int = 0
    labelled: int = 0
    episodes: int = 0
    caught: int = 0
    stopped: int = 0
    false_alarms: int = 0
    false_denials: int = 0

    @property
    def interventions(self) -> int:
        """Reminders, denials and stops."""
        return self.reminders + self.denials + self.stops


def parse_set(text: str) -> tuple[str, list[Any]]:
    """`KEY=V1,V2,...` as the key and its values. A value is read as JSON where it is JSON
    (`4`, `true`, `[3, 4]`: commas inside brackets do not split) and as a string otherwise
    (`no_progress`).

    Raises:
        ValueError: no `=`, no key, or no value.
    """
    key, sep, rest = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ValueError(f"{text!r}: expected KEY=V1,V2,... (a key as `config show` names it)")
    values = [_value(part) for part in _split(rest)]
    if not values:
        raise ValueError(f"{text!r}: no value for {key}")
    return key, values


def _split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth <= 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _value(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def grid(sets: Sequence[tuple[str, Sequence[Any]]]) -> list[dict[str, Any]]:
    """Every combination of the swept values, the first key varying slowest.

    Raises:
        ValueError: a key is swept twice, or the grid has more than `MAX_SETTINGS` settings.
    """
    keys = [key for key, _ in sets]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"{twice[0]} is swept twice; give all its values in one --set")
    size = 1
    for _, values in sets:
        size *= len(values)
    if size > MAX_SETTINGS:
        raise ValueError(f"{size} settings to replay; at most {MAX_SETTINGS}")
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(v for _, v in sets))]


def sweep(
    recordings: Sequence[Recording],
    settings: Sequence[tuple[dict[str, Any], Config]],
    *,
    client: str = "auto",
    labels: Labels | None = None,
    progress: Progress | None = None,
) -> list[Row]:
    """Replay every recording under each setting's config and total each setting's row.

    Raises:
        ReplayError: a recording does not fit `client`, a labelled call is not in its replay,
            or a record has a value of a shape no client writes.
    """
    total = len(settings) * sum(len(r.events) for r in recordings)
    done = 0
    rows = []
    with odd_shapes_refused():
        for setting, config in settings:
            row = Row(setting)
            for recording in recordings:
                tell = None if progress is None else _offset(progress, done, total)
                report = replay(recording, config, client=client, calls="plain", progress=tell)
                done += len(recording.events)
                row.sessions += 1
                _add(row, report.summary, SUMMED)
                episodes = labels.of(report) if labels is not None else None
                if episodes is not None:
                    row.labelled += 1
                    _add(row, score(report, episodes), SCORED)
            rows.append(row)
    return rows


def _offset(progress: Progress, base: int, total: int) -> Progress:
    return lambda done, _: progress(base + done, total)


#: What a row adds up from each report's summary, and from each labelled session's score.
SUMMED = ("calls", "reminders", "denials", "stops", "saved")
SCORED = ("episodes", "caught", "stopped", "false_alarms", "false_denials")


def _add(row: Row, part: Summary | Score, names: tuple[str, ...]) -> None:
    for name in names:
        setattr(row, name, getattr(row, name) + getattr(part, name))


def shown(value: Any) -> str:
    """A setting's value as it is typed (`4`, `no_progress`, `[3,4]`)."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def format_sweep(rows: Sequence[Row], *, labels: Labels | None = None, color: bool = False) -> str:
    """One line per setting under a heading: the swept values, then the totals (module docstring)."""
    keys = list(rows[0].setting) if rows else []
    counts = [("interventions", ""), ("reminders", "remind"), ("denials", "deny"), ("stops", "stop"), ("saved", "saved")]
    if labels is not None:
        counts += [("caught", ""), ("stopped", ""), ("false alarms", "deny"), ("false denials", "deny")]
    body = [[*(shown(r.setting[k]) for k in keys), *(str(v) for v in _counts(r, labels is not None))] for r in rows]
    head = [*keys, *(title for title, _ in counts)]
    roles = [""] * len(keys) + [role for _, role in counts]
    right = [False] * len(keys) + [True] * len(counts)
    first = rows[0] if rows else Row({})
    out = [
        f"{first.sessions} {plural(first.sessions, 'session')}, {first.calls} {plural(first.calls, 'call')} "
        f"in the recordings; {len(rows)} {plural(len(rows), 'setting')}",
        "",
        *table(head, body, roles, right, painter(color)),
    ]
    if labels is not None:
        out += [
            "",
            f"labels {labels.path}: {first.labelled} of the sessions labelled, "
            f"{first.episodes} {plural(first.episodes, 'loop')} in them",
        ]
    return "\n".join(out)


def _counts(row: Row, labelled: bool) -> list[int]:
    out = [row.interventions, row.reminders, row.denials, row.stops, row.saved]
    if labelled:
        out += [row.caught, row.stopped, row.false_alarms, row.false_denials]
    return out


def sweep_json(rows: Sequence[Row], *, labels: Labels | None = None) -> dict[str, Any]:
    """The rows as JSON-ready data (`sweep --format json`)."""
    out = []
    for row in rows:
        data: dict[str, Any] = {
            "setting": row.setting,
            "sessions": row.sessions,
            "calls": row.calls,
            "interventions": row.interventions,
            "reminders": row.reminders,
            "denials": row.denials,
            "stops": row.stops,
            "saved": row.saved,
        }
        if labels is not None:
            data["labels"] = {
                "sessions": row.labelled,
                "loops": row.episodes,
                "caught": row.caught,
                "stopped": row.stopped,
                "false_alarms": row.false_alarms,
                "false_denials": row.false_denials,
            }
        out.append(data)
    return {"labels": labels.path if labels is not None else None, "settings": out}
