#!/usr/bin/env python3
"""Score the guard on the corpus of real sessions: recall on labelled loops, precision overall.

    python bench/corpus.py [--json] [--profile P ...] [--only holdout] [--corpus DIR] [--hook PATH] [--jobs N]

The corpus (`tests/corpus/`, see its README) is a set of recorded sessions in their native format
(Claude Code transcripts, Codex rollouts) and `labels.json`, which names, per session, the loop
episodes a careful reader finds in it: the calls that form each loop and its class. Everything
outside an episode is ordinary work.

For every profile the sessions are replayed through the installed console script,
`loopguard-hook replay --format json --profile P FILE...` (one process per profile, all files at
once), so the scorer depends on the replay's JSON report only, not on the package's internals.
An intervention is a decision whose wire action is `remind`, `deny` or `stop`. It falls inside an
episode when the call it concerns (or, for a decision tied to no call, such as a text-loop stop,
the last call replayed before it) lies between the episode's first and last call. Then:

- an episode is **caught** when any intervention falls inside it, and **stopped** when a `deny`
  or `stop` does; recall = caught / episodes (and stopped / episodes);
- a **false alarm** is an intervention inside no episode; a **false denial** is a false alarm
  that denies or stops; precision = interventions inside episodes / all interventions;
- a denial of answer-only mode (`LOOP_GUARD_STOP`: after a loop denial the progress profile denies
  every call until the turn ends) is judged with the denial that switched the mode on: after a
  catch inside an episode it is counted apart (`answer-only after catch`), not as a false alarm;
- an episode labelled `ambiguous` is neither a loop nor ordinary work: interventions inside it
  are not counted at all, and it is not an episode for recall.

The held-out sessions (`holdout.json`: `{"sessions": [<corpus-relative paths>], "note": ...}`)
were collected and labelled apart from the rest, after the detection was tuned on the rest: the table
gives their score on its own as well (one line per profile), and `--only holdout` scores nothing
else.

Output: a table per profile (and the held-out sessions' own lines), the missed episodes by class,
and every false denial (stdout), or one JSON document (`--json`, with a `holdout` list beside
`profiles`). Exit 0 whatever the scores; 2 when the corpus or its labels are
malformed or a replay fails. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

PROFILES = ("balanced", "reminder", "breaker", "progress")
INTERVENTIONS = frozenset({"remind", "deny", "stop"})
HARD = frozenset({"deny", "stop"})
#: The rule of the denials that follow a loop denial under answer-only mode (progress profile).
ANSWER_ONLY = "LOOP_GUARD_STOP"
AMBIGUOUS = "ambiguous"
#: Loop classes a label may name (README); `ambiguous` marks a stretch excluded from scoring.
CLASSES = frozenset(
    {
        "repeat",
        "same-error retry",
        "alternation",
        "no-change poll",
        "text loop",
        "same-output variants",
        AMBIGUOUS,
    }
)
#: The subsets `--only` can name: the held-out sessions listed in the corpus's holdout.json.
SUBSETS = ("holdout",)
DEFAULT_CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "corpus")


class CorpusError(ValueError):
    """The corpus or its labels are malformed (one line for stderr)."""


@dataclass(frozen=True)
class Episode:
    """One labelled loop: its class and the calls that form it (tool_use_id / call_id strings, or
    1-based call indices as the replay numbers them)."""

    session: str
    klass: str
    calls: tuple[str | int, ...]
    note: str = ""


@dataclass
class Score:
    """Totals of one profile over the corpus."""

    profile: str
    sessions: int = 0
    calls: int = 0
    episodes: int = 0
    caught: int = 0
    stopped: int = 0
    interventions: int = 0
    inside: int = 0
    false_alarms: int = 0
    false_denials: int = 0
    after_catch: int = 0
    missed: list[dict[str, Any]] = field(default_factory=list)
    false: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "sessions": self.sessions,
            "calls": self.calls,
            "episodes": self.episodes,
            "caught": self.caught,
            "stopped": self.stopped,
            "recall": ratio(self.caught, self.episodes),
            "recall_stopped": ratio(self.stopped, self.episodes),
            "interventions": self.interventions,
            "inside_episodes": self.inside,
            "false_alarms": self.false_alarms,
            "false_denials": self.false_denials,
            "answer_only_after_catch": self.after_catch,
            "precision": ratio(self.inside, self.inside + self.false_alarms),
            "missed": self.missed,
            "false": self.false,
        }


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def load_labels(corpus: str) -> dict[str, list[Episode]]:
    """The labelled sessions of `corpus`: file name (relative to the corpus) to its episodes.

    Raises:
        CorpusError: labels.json is missing or malformed, or names a file that does not exist.
    """
    path = os.path.join(corpus, "labels.json")
    sessions = _sessions_of(path)
    if not isinstance(sessions, dict) or not sessions:
        raise CorpusError(f"{path}: no 'sessions' object")
    out: dict[str, list[Episode]] = {}
    for name, entry in sessions.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("episodes", []), list):
            raise CorpusError(f"{path}: {name}: an entry is an object with an 'episodes' list")
        if not os.path.isfile(os.path.join(corpus, name)):
            raise CorpusError(f"{path}: {name}: no such file in the corpus")
        episodes = []
        for i, ep in enumerate(entry.get("episodes", []), start=1):
            klass = ep.get("class") if isinstance(ep, dict) else None
            calls = ep.get("calls") if isinstance(ep, dict) else None
            if klass not in CLASSES:
                raise CorpusError(f"{path}: {name} episode {i}: class {klass!r} is not one of {sorted(CLASSES)}")
            if not isinstance(calls, list) or not calls or not all(isinstance(c, str | int) for c in calls):
                raise CorpusError(f"{path}: {name} episode {i}: 'calls' is a non-empty list of ids or indices")
            episodes.append(Episode(name, klass, tuple(calls), str(ep.get("note", ""))))
        out[name] = episodes
    return out


def _sessions_of(path: str) -> Any:
    """The `sessions` member of the JSON object in `path` (None when the document is no object).

    Raises:
        CorpusError: the file cannot be read or is not JSON.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise CorpusError(f"{path}: {exc}") from None
    return data.get("sessions") if isinstance(data, dict) else None


def load_holdout(corpus: str, labels: Mapping[str, list[Episode]]) -> list[str]:
    """The held-out sessions of `corpus` (holdout.json), sorted; none when the file is absent.

    Raises:
        CorpusError: holdout.json is malformed, or names a session that has no labels.
    """
    path = os.path.join(corpus, "holdout.json")
    if not os.path.exists(path):
        return []
    names = _sessions_of(path)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise CorpusError(f"{path}: 'sessions' is a list of corpus-relative paths")
    unknown = sorted(set(names) - set(labels))
    if unknown:
        raise CorpusError(f"{path}: {unknown[0]}: not a labelled session of the corpus")
    return sorted(set(names))


def replay(hook: str, profile: str, corpus: str, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The replay report of each file, by corpus-relative name, under `profile`.

    Raises:
        CorpusError: the replay failed, or a file has no report of its own.
    """
    paths = [os.path.join(corpus, n) for n in names]
    proc = subprocess.run(
        [hook, "replay", "--format", "json", "--profile", profile, *paths],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise CorpusError(f"replay --profile {profile} failed ({proc.returncode}): {proc.stderr.strip()[:300]}")
    reports = json.loads(proc.stdout)["reports"]
    by_path = {os.path.realpath(p): n for p, n in zip(paths, names, strict=True)}
    out: dict[str, dict[str, Any]] = {}
    for report in reports:
        mains = [by_path[s] for s in map(os.path.realpath, report["sources"]) if s in by_path]
        if len(mains) != 1:
            raise CorpusError(f"a report covers {len(mains)} corpus files ({report['sources']}); keep one session per file")
        out[mains[0]] = report
    missing = set(names) - set(out)
    if missing:
        raise CorpusError(f"no replay report for {sorted(missing)}")
    return out


def resolve(report: Mapping[str, Any], episode: Episode) -> tuple[str, int, int]:
    """The agent of `episode` and its first and last call index in `report`.

    An episode belongs to one agent: subagents run side by side, so the calls between its first
    and last one are that agent's calls in that stretch, not the other agents'.

    Raises:
        CorpusError: a labelled call is not in the report, or the calls are not one agent's.
    """
    calls = report["calls"]
    index = {c["tool_use_id"]: c["index"] for c in calls if c.get("tool_use_id")}
    found = []
    for call in episode.calls:
        if isinstance(call, int) and not isinstance(call, bool):
            if not 1 <= call <= len(calls):
                raise CorpusError(f"{episode.session}: call index {call} is outside 1..{len(calls)}")
            found.append(call)
        elif call in index:
            found.append(index[call])
        else:
            raise CorpusError(f"{episode.session}: labelled call {call!r} is not in the replay")
    agents = {calls[i - 1]["agent"] for i in found}
    if len(agents) != 1:
        raise CorpusError(f"{episode.session}: an episode's calls belong to one agent, not {sorted(agents)}")
    return agents.pop(), min(found), max(found)


def interventions(report: Mapping[str, Any]) -> list[tuple[str, int, str, dict[str, Any]]]:
    """Every intervention of `report` as (agent, call index it falls on, action, decision)."""
    calls = report["calls"]
    out = []
    for d in report["decisions"]:
        action = d.get("action")
        if action not in INTERVENTIONS:
            continue
        call = d.get("call")
        if call is None:  # a decision tied to no call: that agent's last call replayed before it
            call = max((c["index"] for c in calls if c["agent"] == d["agent"] and c["time"] <= d["time"]), default=0)
        out.append((d["agent"], call, action, d))
    return out


def score_profile(profile: str, labels: Mapping[str, list[Episode]], reports: Mapping[str, Mapping[str, Any]]) -> Score:
    score = Score(profile)
    for name, episodes in labels.items():
        report = reports[name]
        score.sessions += 1
        score.calls += len(report["calls"])
        spans = [(resolve(report, ep), ep) for ep in episodes]
        real = [(span, ep) for span, ep in spans if ep.klass != AMBIGUOUS]
        hits: Counter[int] = Counter()
        hard: Counter[int] = Counter()
        trigger: dict[str, str] = {}  # per agent: where its last hard decision fell (inside/ambiguous/false)
        for agent, call, action, decision in interventions(report):
            inside = [i for i, ((who, lo, hi), _) in enumerate(real) if who == agent and lo <= call <= hi]
            vague = any(who == agent and lo <= call <= hi for (who, lo, hi), ep in spans if ep.klass == AMBIGUOUS)
            where = "inside" if inside else "ambiguous" if vague else "false"
            if decision.get("rule") == ANSWER_ONLY and agent in trigger:
                where = trigger[agent]  # answer-only mode inherits the judgement of the denial that set it
                if where == "inside":
                    score.after_catch += 1
                    continue
            elif action in HARD:
                trigger[agent] = where
            if where == "ambiguous":
                continue
            score.interventions += 1
            if where == "inside":
                score.inside += 1
                for i in inside:
                    hits[i] += 1
                    hard[i] += action in HARD
            else:
                score.false_alarms += 1
                score.false_denials += action in HARD
                score.false.append(
                    {
                        "session": name,
                        "agent": agent,
                        "call": call,
                        "action": action,
                        "rule": decision.get("rule"),
                        "tool": decision.get("tool"),
                        "event": decision.get("event"),
                    }
                )
        for i, ((who, lo, hi), ep) in enumerate(real):
            score.episodes += 1
            score.caught += hits[i] > 0
            score.stopped += hard[i] > 0
            if not hits[i] or not hard[i]:
                score.missed.append(
                    {"session": name, "agent": who, "class": ep.klass, "calls": [lo, hi], "caught": hits[i] > 0, "note": ep.note}
                )
    return score


def run(corpus: str, hook: str, profiles: Iterable[str], jobs: int, only: str | None = None) -> list[Score]:
    """The score of every profile over the corpus (or, with `only="holdout"`, over the held-out
    sessions alone)."""
    return run_split(corpus, hook, profiles, jobs, only)[0]


def run_split(
    corpus: str, hook: str, profiles: Iterable[str], jobs: int, only: str | None = None
) -> tuple[list[Score], list[Score]]:
    """The scores over the sessions replayed and, from the same replays, over the held-out ones
    among them (empty when the corpus lists none)."""
    labels = load_labels(corpus)
    held = load_holdout(corpus, labels)
    if only == "holdout":
        if not held:
            raise CorpusError(f"{os.path.join(corpus, 'holdout.json')}: no held-out sessions listed")
        labels = {n: labels[n] for n in held}
    names = sorted(labels)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {p: pool.submit(replay, hook, p, corpus, names) for p in profiles}
        reports = {p: f.result() for p, f in futures.items()}
    scores = [score_profile(p, labels, reports[p]) for p in reports]
    subset = {n: labels[n] for n in held}
    holdout = [score_profile(p, subset, reports[p]) for p in reports] if subset and only != "holdout" else []
    return scores, holdout


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def table(scores: Sequence[Score], holdout: Sequence[Score] = ()) -> str:
    columns = [
        ("profile", "profile"),
        ("sessions", "sessions"),
        ("calls", "calls"),
        ("episodes", "episodes"),
        ("caught", "caught"),
        ("stopped", "stopped"),
        ("recall", "recall"),
        ("recall(stop)", "recall_stopped"),
        ("interventions", "interventions"),
        ("false alarms", "false_alarms"),
        ("false deny/stop", "false_denials"),
        ("precision", "precision"),
        ("answer-only after catch", "answer_only_after_catch"),
    ]
    head = tuple(title for title, _ in columns)
    rows = [head]
    for label, group in (("", scores), ("held-out ", holdout)):
        for s in group:
            d = s.as_dict()
            d["profile"] = label + s.profile
            rows.append(tuple(_pct(d[k]) if k.startswith(("recall", "precision")) else str(d[k]) for _, k in columns))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))) for r in rows]
    out = ["\n".join(lines)]
    for s in scores:
        missed = Counter(m["class"] for m in s.missed if not m["caught"])
        soft = Counter(m["class"] for m in s.missed if m["caught"])
        if missed or soft:
            parts = [f"{k}: {n}" for k, n in sorted(missed.items())]
            reminded = ", ".join(f"{k}: {n}" for k, n in sorted(soft.items()))
            out.append(f"{s.profile}: missed {', '.join(parts) or 'none'}; reminded only: {reminded or 'none'}")
        for f in s.false:
            if f["action"] in HARD:
                out.append(f"{s.profile}: false {f['action']} at {f['session']} call {f['call']} ({f['rule']}, {f['tool']})")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help="corpus directory (default: tests/corpus)")
    parser.add_argument("--hook", default=None, help="the loopguard-hook console script (default: next to python, or PATH)")
    parser.add_argument("--profile", action="append", choices=PROFILES, help="profile to score (repeatable; default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="replays run at once (default: 2)")
    parser.add_argument("--only", choices=SUBSETS, help="score only these sessions (holdout: those listed in holdout.json)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args(argv)
    hook = args.hook or _find_hook()
    if hook is None:
        print("corpus: no loopguard-hook console script found (install the package or pass --hook)", file=sys.stderr)
        return 2
    try:
        scores, holdout = run_split(args.corpus, hook, args.profile or PROFILES, args.jobs, args.only)
    except CorpusError as exc:
        print(f"corpus: {exc}", file=sys.stderr)
        return 2
    if args.json:
        doc = {"profiles": [s.as_dict() for s in scores], "holdout": [s.as_dict() for s in holdout]}
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        print(table(scores, holdout))
    return 0


def _find_hook() -> str | None:
    beside = os.path.join(os.path.dirname(sys.executable), "loopguard-hook")
    return beside if os.access(beside, os.X_OK) else shutil.which("loopguard-hook")


if __name__ == "__main__":
    sys.exit(main())
