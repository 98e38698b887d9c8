"""Replay recordings: run each through the driver and collect its report."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..config.settings import Config
from ..core import policy, progress
from ..core.engine import Decision
from ..core.event import Client, HookEvent
from ..core.outcome import Failure
from ..core.signature import call_signature
from ..core.tools import matches
from ..hosts import capabilities, dialect
from . import cost
from .driver import Step, decide
from .model import RAN_OUTCOMES, Outcome, Recording, ReplayError, odd_shapes_refused
from .payload_log import payload_recordings
from .readers import load
from .report import CallReport, Calls, DecisionReport, Marker, Report, Summary, Verdict, acted, arguments_summary

#: `progress(done, total)` is told every this many events (and at the end of each recording).
PROGRESS_EVENTS = 500
Progress = Callable[[int, int], None]
_RAN = frozenset(o.value for o in RAN_OUTCOMES)
_QUIET = Verdict("allow", "allow", "", 0)
_STRENGTH = ("allow", "remind", "deny", "stop")


def _weaker(shown: Verdict | None, verdict: Verdict) -> bool:
    """Whether a row's post verdict (`shown`) is none, or weaker than `verdict` by its action."""
    return shown is None or _STRENGTH.index(shown.action) < _STRENGTH.index(verdict.action)


@dataclass(slots=True)
class _Row:
    """A call while it is being replayed; `CallReport` once the session is done."""

    time: float
    agent: str
    tool: str
    tool_input: Any
    tool_use_id: str | None
    client: Client
    turn: int
    arguments: str | None  # worked out as the call comes when every call is listed, else at the end
    pre: Verdict | None = None
    post: Verdict | None = None
    result: Outcome | None = None  # read from its post event, for a call the recording has no result for


def _result(event: HookEvent, config: Config) -> Outcome:
    """What a post event says happened to its call, read as the live hook reads it (the host's
    `outcome`): the result of a call the recording has no record of (a payload log's call without
    `tool_use_id`, Gemini CLI; a call keyed by another id than the payload log's, Qwen Code)."""
    if event.event == "PostToolUseFailure":
        return Outcome.INTERRUPTED if event.is_interrupt else Outcome.FAILED
    assert event.tool_name is not None
    mutation = matches(event.tool_name, config.mutating_tools)
    found = dialect(event.client).outcome(event.tool_name, event.tool_response, mutation=mutation)
    return Outcome.FAILED if found.failure > Failure.NONE else Outcome.RAN


class _Collector:
    """Builds the per-call reports and the decision list of a report from replayed steps."""

    def __init__(self, recording: Recording, config: Config, keep: Calls) -> None:
        self.recording = recording
        self.config = config
        self.keep = keep
        self.rows: list[_Row] = []
        self.by_id: dict[tuple[str, str], int] = {}
        # Calls without `tool_use_id` still waiting for their post event, by agent and the ledger
        # key the live hook files them under (their signature: `progress.post_call_id`).
        self.open: dict[tuple[str, str], list[int]] = {}
        self.decisions: list[DecisionReport] = []
        self.markers: list[Marker] = []
        self.turn = 0
        self.saved: list[bool] = []  # per row, once `calls` has run
        self.unmade: list[bool] = []  # per row, once `calls` has run: after the guard ended its turn
        # Per decision: the rows made before it, its turn, and whether it ends that turn (a stop
        # at an event where the host takes one); `counted`, once `calls` has run: not a decision
        # made after the guard ended its agent's turn.
        self.places: list[tuple[int, int, bool]] = []
        self.counted: list[bool] = []

    def _row(self, event: HookEvent, time: float, tool: str, tool_input: Any, tool_use_id: str | None) -> int:
        arguments = arguments_summary(tool, tool_input, self.config) if self.keep == "all" else None
        self.rows.append(_Row(time, event.agent_id, tool, tool_input, tool_use_id, event.client, self.turn, arguments))
        if tool_use_id is not None:
            self.by_id[(event.agent_id, tool_use_id)] = len(self.rows) - 1
        return len(self.rows) - 1

    def _signature(self, event: HookEvent) -> tuple[str, str]:
        assert event.tool_name is not None
        return event.agent_id, progress.post_call_id(None, event.tool_name, event.tool_input, self.config)

    def _owner(self, event: HookEvent) -> int | None:
        """The row a tool event belongs to: by `tool_use_id`, or, for a post event without one,
        the latest call of the same agent and signature with no post event yet, denied or not.
        The live hook files such a call under its signature (`progress.post_call_id`), so a post
        meets the latest Pre of its signature; parallel identical calls take the earlier ones."""
        if event.tool_use_id is not None:
            return self.by_id.get((event.agent_id, event.tool_use_id))
        if event.event == "PreToolUse":
            return None
        waiting = self.open.get(self._signature(event))
        return waiting.pop() if waiting else None

    def add(self, step_number: int, time: float, event: HookEvent, decision: Decision | None, *, resumed: bool = False) -> None:
        if decision is None:
            if event.event == "SessionEnd":
                self.markers.append(Marker(time, event.event, "session ended"))
            return
        verdict = Verdict.of(decision)
        owner: int | None = None
        if event.event == "UserPromptSubmit" and event.continuation:
            pass  # a host's tool continuation (Qwen Code): no prompt, no new turn, no reset
        elif event.event == "UserPromptSubmit" and resumed:
            # "continue" after an interrupt: the turn, and its counts, go on (`policy.resumes`)
            self.markers.append(Marker(time, event.event, "user prompt, resuming the interrupted turn"))
        elif event.event == "UserPromptSubmit":
            self.turn += 1
            self.markers.append(Marker(time, event.event, "user prompt"))
        elif event.event == "SessionStart" and event.source == "compact":
            self.markers.append(Marker(time, event.event, "compaction"))
        elif event.event in ("PreToolUse", "PostToolUse", "PostToolUseFailure") and event.tool_name is not None:
            owner = self._owner(event)
            if owner is None or (event.event == "PreToolUse" and self.rows[owner].pre is not None):
                owner = self._row(event, time, event.tool_name, event.tool_input, event.tool_use_id)
            row = self.rows[owner]
            if event.event == "PreToolUse":
                row.pre = verdict
                if event.tool_use_id is None:
                    self.open.setdefault(self._signature(event), []).append(owner)
            else:
                row.post = verdict
                row.result = _result(event, self.config)
        elif event.event == "PostToolBatch":
            owner = self._batch_owner(event, time, decision, verdict)
            batch_id = self.rows[owner].tool_use_id if owner is not None else None
        if not verdict.quiet:
            ends = verdict.action == "stop" and event.event in capabilities(event.client).end_turn
            self.places.append((len(self.rows), self.rows[owner].turn if owner is not None else self.turn, ends))
            self.decisions.append(
                DecisionReport(
                    step=step_number,
                    time=time,
                    event=event.event,
                    agent=event.agent_id,
                    tool=decision.tool or event.tool_name,
                    tool_use_id=event.tool_use_id if event.event != "PostToolBatch" else batch_id,
                    call=owner + 1 if owner is not None else None,
                    verdict=verdict,
                    message=decision.message,
                )
            )

    def _batch_owner(self, event: HookEvent, time: float, decision: Decision, verdict: Verdict) -> int | None:
        """The row a PostToolBatch's answer goes to. Calls only the batch saw (validation
        rejections) are counted there; the answer goes to the call it names, the others get a
        quiet verdict. When every call had its own events, the answer is the last one's, and a
        call the host answered without running it (another hook's block: no post event) shows it
        on its row, as a post event's would be."""
        fresh = [
            self._row(event, time, item.tool_name, item.tool_input, item.tool_use_id)
            for item in event.tool_calls
            if item.tool_use_id is None or (event.agent_id, item.tool_use_id) not in self.by_id
        ]
        owner = next((i for i in fresh if self.rows[i].tool == decision.tool), fresh[0] if fresh else None)
        for i in fresh:
            self.rows[i].post = verdict if i == owner else _QUIET
        if owner is None:
            seen = [self.by_id[(event.agent_id, item.tool_use_id)] for item in event.tool_calls
                    if item.tool_use_id is not None and (event.agent_id, item.tool_use_id) in self.by_id]
            owner = next((i for i in reversed(seen) if self.rows[i].tool == decision.tool), seen[-1] if seen else None)
            if owner is not None and not verdict.quiet and _weaker(self.rows[owner].post, verdict):
                self.rows[owner].post = verdict
        return owner

    def loops(self) -> list[cost.LoopCost]:
        """The cost of each loop the guard intervened in (`cost.loops`); after `calls`."""
        acted = [d for d, counted in zip(self.decisions, self.counted, strict=True) if d.call is not None and counted]
        if not acted:
            return []
        looping = {self.rows[d.call - 1].agent for d in acted if d.call is not None}
        ignore = frozenset(self.config.ignore_args)
        spots = [
            cost.CallSpot(
                row.agent, row.turn, call_signature(row.tool, row.tool_input, ignore) if row.agent in looping else "",
                row.tool, row.tool_use_id, saved or unmade,
            )
            for row, saved, unmade in zip(self.rows, self.saved, self.unmade, strict=True)
        ]
        interventions = [cost.Intervention(d.call - 1, d.verdict.count) for d in acted if d.call is not None]
        return cost.loops(spots, interventions, self.recording.requests, self.config)

    def calls(self) -> tuple[int, int, tuple[CallReport, ...]]:
        """How many calls there were, how many are saved, and the reports of the calls `keep` names.

        A call the recording ran is saved when the replay denies it at PreToolUse, or when it
        comes after a stop in the same turn of the same agent, where the client can end a turn
        from PreToolUse (its capability table: Claude Code takes `continue: false`; Codex takes
        no such field, so there a stop is a denial only), or after a stop at an event of no call
        (a Stop) where the client ends the turn from that event. Sets `counted` as well."""
        stops = {d.call for d in self.decisions if d.verdict.action == "stop"}
        # The turns ended at an event of no call, in order: (rows made before it, agent, turn).
        ends = [(rows, d.agent, turn) for d, (rows, turn, end) in zip(self.decisions, self.places, strict=True)
                if end and d.call is None]
        stopped_turn: dict[str, int] = {}
        saved = 0
        out = []
        self.saved, self.unmade = [], []
        for index, row in enumerate(self.rows, start=1):
            while ends and ends[0][0] < index:
                _, agent, turn = ends.pop(0)
                stopped_turn[agent] = turn
            record = self.recording.calls.get(row.tool_use_id) if row.tool_use_id is not None else None
            recorded = (record.outcome if record is not None else row.result or Outcome.UNKNOWN).value
            denied = row.pre is not None and row.pre.action in ("deny", "stop")
            # After an end of turn the model would not have made the call at all, whatever the
            # recording says became of it (a call Claude Code rejected, which never ran, too):
            # its request's tokens count as saved (`cost.loops`), though it is no call that ran.
            unmade = stopped_turn.get(row.agent) == row.turn
            is_saved = recorded in _RAN and (denied or unmade)
            saved += is_saved
            self.saved.append(is_saved)
            self.unmade.append(unmade)
            if index in stops and "PreToolUse" in capabilities(row.client).end_turn:
                stopped_turn[row.agent] = row.turn
            if self.keep in ("all", "plain") or (self.keep == "acted" and acted(row.pre, row.post, is_saved)):
                arguments = row.arguments
                if arguments is None:
                    arguments = "" if self.keep == "plain" else arguments_summary(row.tool, row.tool_input, self.config)
                out.append(
                    CallReport(
                        index=index,
                        time=row.time,
                        agent=row.agent,
                        tool=row.tool,
                        arguments=arguments,
                        tool_use_id=row.tool_use_id,
                        recorded=recorded,
                        exit_code=record.exit_code if record is not None else None,
                        pre=row.pre,
                        post=row.post,
                        saved=is_saved,
                        unmade=unmade,
                    )
                )
        self.counted = self._counted()
        return len(self.rows), saved, tuple(out)

    def _counted(self) -> list[bool]:
        """Per decision, whether the summary counts it: not when it came after the guard had
        ended its agent's turn (on a call made after the end, or at a later event of no call in
        that turn, such as the next Stop): the model would not have been there to get it."""
        ended: dict[str, int] = {}
        out = []
        for d, (_, turn, ends) in zip(self.decisions, self.places, strict=True):
            if d.call is not None:
                row = self.rows[d.call - 1]
                after = self.unmade[d.call - 1]
                ends = d.verdict.action == "stop" and "PreToolUse" in capabilities(row.client).end_turn
            else:
                after = ended.get(d.agent) == turn
            out.append(not after)
            if ends:
                ended[d.agent] = turn
        return out


def replay(
    recording: Recording, config: Config, *, client: str = "auto", calls: Calls = "all", progress: Progress | None = None
) -> Report:
    """Replay `recording` with `config` and report its calls and every non-allow decision.

    `client`: `auto` (per payload, as the hook decides it), or `claude-code`/`codex` (must fit a
    transcript or rollout; for a payload log it is used for every payload, as `--client` is).
    `calls`: which calls the report lists (`Calls`); its summary counts them all. `progress`, if
    given, is called as `progress(events done, events in the recording)` every
    `PROGRESS_EVENTS` events and once at the end.

    Raises:
        ReplayError: `client` does not fit the recording.
        ValueError: `client` is not a known client name.
    """
    collector = _Collector(recording, config, calls)
    steps, errors, clients = _feed(collector, decide(recording, config, client=client), progress)
    count, saved, reports = collector.calls()
    loops = tuple(collector.loops())
    decisions = tuple(collector.decisions)
    # A decision made after the guard ended its turn is one the guard would not have had to make
    # (the model would not have made the call, nor come to that Stop): the counts leave it out.
    made = [d for d, counted in zip(decisions, collector.counted, strict=True) if counted]
    counts = {action: sum(1 for d in made if d.verdict.action == action) for action in ("remind", "deny", "stop")}
    shown = _as_decided(config, recording.client, clients)
    return Report(
        sources=recording.sources,
        format=str(recording.format),
        client=recording.client.value if recording.client else "+".join(sorted(clients)) or client,
        session_id=recording.session_id,
        profile=config.profile,
        mode=config.mode,
        counting=config.counting,
        remind_at=shown.effective_remind_at(),
        deny_at=shown.deny_at,
        stop_at=shown.stop_at,
        started=recording.events[0].time if recording.events else None,
        synthetic_times=recording.synthetic_times,
        calls=reports,
        decisions=decisions,
        markers=tuple(collector.markers) if calls == "all" else (),
        summary=Summary(
            events=steps,
            calls=count,
            reminders=counts["remind"],
            denials=counts["deny"],
            stops=counts["stop"],
            saved=saved,
            skipped_lines=recording.skipped_lines,
            bad_payloads=len(errors),
        ),
        errors=tuple(errors),
        usage=cost.session_usage(recording.requests),
        loops=loops,
        prices=cost.prices(config),
        requests=recording.requests,
        polls=recording.polls,
        unseen=recording.unseen,
        unread=sum(recording.unread.values()),
    )


def _feed(collector: _Collector, steps: Iterator[Step], progress: Progress | None) -> tuple[int, list[str], set[str]]:
    """Collect every replayed step; the number of steps, the payloads refused, the clients seen."""
    errors: list[str] = []
    clients: set[str] = set()
    total = len(collector.recording.events)
    number = 0
    for number, step in enumerate(steps, start=1):
        if step.error:
            errors.append(f"{step.recorded.source}:{step.recorded.line}: {step.error}")
        if step.event is not None:
            clients.add(step.event.client.value)
            collector.add(number, step.recorded.time, step.event, step.decision, resumed=step.resumed)
        if progress is not None and number % PROGRESS_EVENTS == 0:
            progress(number, total)
    if progress is not None:
        progress(total, total)
    return number, errors, clients


def replay_payloads(
    payloads: Iterable[Mapping[str, Any]], config: Config, *, client: str = "auto", source: str = "<payloads>"
) -> list[Report]:
    """Replay captured hook payloads (bare, or `{"payload": …}` wrappers with an optional `ts`,
    `time` or `timestamp`), one report per session, sessions in order of first appearance.

    Raises:
        ValueError: `client` is not a known client name.
    """
    recordings = payload_recordings(source, enumerate(payloads, start=1))
    return [replay(r, config, client=client) for r in recordings]


def _as_decided(config: Config, recorded: Client | None, clients: Iterable[str]) -> Config:
    """The settings the engine used for the recording's one host (`policy.for_host`, as
    `engine.step` applies it: thresholds one lower on a host that halts the run itself, Qwen Code
    and Gemini CLI); `config` for a recording of several hosts' payloads. `clients`: the hosts
    its events were parsed as (`Client` values)."""
    found = {recorded} if recorded is not None else {Client(c) for c in clients}
    return policy.for_host(config, capabilities(found.pop())) if len(found) == 1 else config


def replay_files(
    paths: Iterable[str],
    config: Config,
    *,
    client: str = "auto",
    calls: Calls = "all",
    progress: Progress | None = None,
    unreadable: list[str] | None = None,
) -> list[Report]:
    """`load` the files and `replay` each session (`replay_each`).

    `calls` as for `replay`; `progress(events done, events in all the files)` is called as the
    replay goes (not while the files are read). `unreadable`, when given, collects one message
    per file that cannot be read and per session that cannot be replayed (each naming its
    files), and the others are still replayed; without it the first such file raises.

    Raises:
        ReplayError: a file cannot be read, is not a known format, or does not fit `client`
            (without `unreadable`).
    """
    recordings = load(paths, unreadable=unreadable)
    return list(replay_each(recordings, config, client=client, calls=calls, progress=progress, unreadable=unreadable))


def replay_each(
    recordings: Sequence[Recording],
    config: Config,
    *,
    client: str = "auto",
    calls: Calls = "all",
    progress: Progress | None = None,
    unreadable: list[str] | None = None,
) -> Iterator[Report]:
    """`replay` each of the `load`ed recordings, its report given as soon as it is done: what
    `loopguard-hook replay FILE...` runs. `calls`, `progress` (over all the recordings' events) and
    `unreadable` (here: the sessions that cannot be replayed) as for `replay_files`.

    Raises:
        ReplayError: a recording does not fit `client` (without `unreadable`).
    """
    total = sum(len(r.events) for r in recordings)
    done = 0
    for recording in recordings:
        tell = None if progress is None else _offset(progress, done, total)
        try:
            with odd_shapes_refused():
                report = replay(recording, config, client=client, calls=calls, progress=tell)
        except ReplayError as exc:
            if unreadable is None:
                raise
            unreadable.append(f"{', '.join(recording.sources)}: {exc}")
        else:
            yield report
        done += len(recording.events)


def _offset(progress: Progress, base: int, total: int) -> Progress:
    return lambda done, _: progress(base + done, total)
