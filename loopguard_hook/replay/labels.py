"""Labelled loops of recorded sessions, and how a replay's interventions score against them.

A labels file is one JSON object (the corpus format, `tests/corpus/README.md`):

    {"sessions": {"<file, relative to the labels file>": {"episodes": [
        {"class": "repeat", "calls": ["toolu_…", "call_…", 12], "note": "…"}]}}}

An episode is one loop of one agent: the calls that form it, by `tool_use_id` (Claude Code),
`call_id` (Codex) or the 1-based call index a replay gives them, and its class. It spans that
agent's calls from its first labelled call to its last. Everything outside every episode is
ordinary work. An episode of class `ambiguous` is neither: interventions inside it are not
counted, and it is no loop to catch.

Scoring a replay (`score`), as the corpus scorer does: an intervention (a decision whose wire
action is remind, deny or stop) falls on the call it concerns, or, when it concerns none (a text
loop), on that agent's last call replayed before it. It is inside an episode when that call is
in the episode's span. An episode is caught when an intervention falls inside it, stopped when a
deny or stop does. A false alarm is an intervention inside no episode; a false denial, one that
denies or stops. The answer-only denials that follow a loop denial (`LOOP_GUARD_STOP`) are judged
with the denial that switched the mode on: after a catch they are not counted at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import orjson

from ..config.load import read_regular_file
from .model import ReplayError
from .report import Report

#: Loop classes a label may name; `ambiguous` marks a stretch left out of the scoring.
CLASSES = frozenset(
    {"repeat", "same-error retry", "same-output variants", "alternation", "no-change poll", "text loop", "ambiguous"}
)
AMBIGUOUS = "ambiguous"
INTERVENTIONS = frozenset({"remind", "deny", "stop"})
HARD = frozenset({"deny", "stop"})
#: The rule code of answer-only denials (after a loop denial, every call until the turn ends).
ANSWER_ONLY = "LOOP_GUARD_STOP"
#: Largest labels file read (bytes).
MAX_LABELS_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class Episode:
    """One labelled loop: its class, its calls (ids or 1-based indices) and the reader's note."""

    klass: str
    calls: tuple[str | int, ...]
    note: str = ""


@dataclass(frozen=True, slots=True)
class Labels:
    """A labels file: the episodes of each labelled file, by the file's real path."""

    path: str
    sessions: Mapping[str, tuple[Episode, ...]]

    def files(self) -> list[str]:
        """The labelled files, as paths a command can open, in the file's order."""
        return list(self.sessions)

    def of(self, report: Report) -> tuple[Episode, ...] | None:
        """The episodes of the file `report` was read from, or None when it is not labelled."""
        for source in report.sources:
            found = self.sessions.get(os.path.realpath(source))
            if found is not None:
                return found
        return None


@dataclass(frozen=True, slots=True)
class Score:
    """How one replayed session's interventions fall against its labels."""

    episodes: int = 0
    caught: int = 0
    stopped: int = 0
    inside: int = 0
    false_alarms: int = 0
    false_denials: int = 0


def read_labels(path: str) -> Labels:
    """Read a labels file (module docstring).

    Raises:
        ReplayError: the file cannot be read, is not that shape, or names a file that is not there.
    """
    try:
        raw = read_regular_file(path, MAX_LABELS_BYTES)
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_LABELS_BYTES:
        raise ReplayError(f"{path}: larger than {MAX_LABELS_BYTES >> 20} MiB; not a labels file")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ReplayError(f"{path}: not JSON ({exc})") from None
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, dict):
        raise ReplayError(f'{path}: not a labels file (one object with "sessions": {{file: {{"episodes": [...]}}}})')
    base = os.path.dirname(os.path.abspath(path))
    out: dict[str, tuple[Episode, ...]] = {}
    for name, entry in sessions.items():
        episodes = entry.get("episodes", []) if isinstance(entry, dict) else None
        if not isinstance(episodes, list):
            raise ReplayError(f'{path}: {name}: an entry is an object with an "episodes" list')
        file = os.path.join(base, name)
        if not os.path.isfile(file):
            raise ReplayError(f"{path}: {name}: no such file next to the labels")
        out[os.path.realpath(file)] = tuple(_episode(path, name, i, ep) for i, ep in enumerate(episodes, start=1))
    return Labels(path, out)


def _episode(path: str, name: str, number: int, data: object) -> Episode:
    klass = data.get("class") if isinstance(data, dict) else None
    calls = data.get("calls") if isinstance(data, dict) else None
    if klass not in CLASSES:
        raise ReplayError(f"{path}: {name} episode {number}: class {klass!r} is not one of {', '.join(sorted(CLASSES))}")
    if not isinstance(calls, list) or not calls or not all(isinstance(c, str | int) and not isinstance(c, bool) for c in calls):
        raise ReplayError(f'{path}: {name} episode {number}: "calls" is a non-empty list of call ids or indices')
    note = data.get("note", "") if isinstance(data, dict) else ""
    return Episode(str(klass), tuple(calls), str(note))


def spans(report: Report, episodes: Sequence[Episode]) -> list[tuple[str, int, int]]:
    """Each episode's agent and its first and last call index in `report` (which must list
    every call).

    Raises:
        ReplayError: a labelled call is not in the replay, or an episode's calls are not one agent's.
    """
    by_id = {c.tool_use_id: c for c in report.calls if c.tool_use_id}
    by_index = {c.index: c for c in report.calls}
    out = []
    for episode in episodes:
        found = [by_index.get(c) if isinstance(c, int) else by_id.get(c) for c in episode.calls]
        missing = [c for c, f in zip(episode.calls, found, strict=True) if f is None]
        if missing:
            raise ReplayError(f"{report.sources[0]}: labelled call {missing[0]!r} is not in the replay")
        agents = {f.agent for f in found if f is not None}
        if len(agents) != 1:
            raise ReplayError(f"{report.sources[0]}: the calls of one episode belong to {len(agents)} agents")
        indices = [f.index for f in found if f is not None]
        out.append((agents.pop(), min(indices), max(indices)))
    return out


def score(report: Report, episodes: Sequence[Episode]) -> Score:
    """The session's score against its labels (module docstring).

    Raises:
        ReplayError: as `spans`.
    """
    found = spans(report, episodes)
    loops = [(span, ep) for span, ep in zip(found, episodes, strict=True) if ep.klass != AMBIGUOUS]
    vague = [span for span, ep in zip(found, episodes, strict=True) if ep.klass == AMBIGUOUS]
    hits = [0] * len(loops)
    hard = [0] * len(loops)
    trigger: dict[str, str] = {}  # per agent: where its last deny or stop fell
    inside = false_alarms = false_denials = 0
    for agent, call, action, rule in _interventions(report):
        within = [i for i, ((who, lo, hi), _) in enumerate(loops) if who == agent and lo <= call <= hi]
        where = "inside" if within else "ambiguous" if any(w == agent and lo <= call <= hi for w, lo, hi in vague) else "false"
        if rule == ANSWER_ONLY and agent in trigger:
            where = trigger[agent]
            if where == "inside":
                continue
        elif action in HARD:
            trigger[agent] = where
        if where == "inside":
            inside += 1
            for i in within:
                hits[i] += 1
                hard[i] += action in HARD
        elif where == "false":
            false_alarms += 1
            false_denials += action in HARD
    return Score(len(loops), sum(h > 0 for h in hits), sum(h > 0 for h in hard), inside, false_alarms, false_denials)


def _interventions(report: Report) -> list[tuple[str, int, str, str]]:
    """Every intervention as (agent, call index it falls on, action, rule)."""
    out = []
    for d in report.decisions:
        if d.verdict.action not in INTERVENTIONS:
            continue
        call = d.call
        if call is None:
            earlier = (c.index for c in report.calls if c.agent == d.agent and c.time <= d.time)
            call = max(earlier, default=0)
        out.append((d.agent, call, d.verdict.action, d.verdict.rule))
    return out
