"""The driver: recorded payloads fed to the engine on scratch in-memory ledgers, as the hook would."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import orjson

from ..config.settings import Config
from ..core import engine, policy
from ..core.engine import Decision
from ..core.event import HANDLED_EVENTS, Client, HookEvent, Unhooked
from ..core.ledger import Session, Tail
from ..hosts import capabilities, detect_client, dialect
from ..hosts.payload import PayloadError, decode, parse
from .model import RecordedEvent, Recording, ReplayError


@dataclass(frozen=True, slots=True)
class Step:
    """One replayed event: what was fed in and what the engine answered.

    `event` is None and `decision` None for events the hook ignores (unhandled names) or cannot
    parse (`error` says why); `decision` is None for `SessionEnd` (the hook forgets the session).
    """

    recorded: RecordedEvent
    event: HookEvent | None
    decision: Decision | None
    error: str = ""
    resumed: bool = False  # a prompt that resumed the turn the user interrupted (`policy.resumes`)


def _client_for(recording: Recording, option: str) -> Client | None:
    """The client to parse with, or None to detect it per payload exactly as `--client auto` does
    (`payload.detect_client`), so that thread-scoped Codex events are read as the hook reads them."""
    if option == "auto":
        # A DSH session log is DSH's under any file name (the live hook tells DSH by the log's
        # path, and a copy of a log is rarely still called `session.jsonl.zstd`).
        known = recording.client
        return known if known is not None and capabilities(known).session_log else None
    chosen = Client(option)
    if recording.client is not None and recording.client is not chosen:
        raise ReplayError(f"{recording.sources[0]} is a {recording.client.value} recording; --client {option} does not fit it")
    return chosen


def decide(recording: Recording, config: Config, *, client: str = "auto") -> Iterator[Step]:
    """Feed every recorded payload to the engine, in order, on scratch in-memory ledgers.

    Each payload goes the way the hook sends it: decoded from its JSON bytes, events it ignores
    passed over, `payload.parse` with the host (`auto`: `hosts.detect_client`, as the hook
    decides), then the same `engine.step` the hook runs, at the recorded time, with the assistant
    texts recorded for the event in place of a read of the transcript; `SessionEnd` deletes the
    session unless `keep_state`. `config` is used for every event (the live hook resolves it per payload,
    which differs only when project files differ between events).

    The ledger stays in memory between events. The hook writes it to its state file as JSON and
    reads it back; the engine keeps it plain JSON data (objects with string keys, lists, strings,
    finite numbers, no value shared between two places: `tests/test_replay_speed.py`), so that
    round trip would give back an equal ledger and is skipped (it was most of a long replay).

    Raises:
        ReplayError: `client` names a client that does not fit the recording.
        ValueError: `client` is not `auto` or a host's name (`core.event.Client`).
    """
    fixed = _client_for(recording, client)
    ledgers: dict[str, Session] = {}
    for recorded in recording.events:
        try:
            # The hook reads bytes: the same decoding (and its limits) applies here.
            data = decode(orjson.dumps(recorded.payload))
            sender = fixed if fixed is not None else detect_client(data)
            data = dialect(sender).normalise(data, None)  # a host's own shape, as the hook reads it
            name = data.get("hook_event_name")
            if name not in HANDLED_EVENTS:
                yield Step(recorded, None, None)
                continue
            event = parse(data, sender)
            if recorded.misfit is not None and config.workspace_evidence:
                event = event._replace(misfit=recorded.misfit)  # the live hook's look at the file
        except (PayloadError, TypeError) as exc:
            yield Step(recorded, None, None, f"bad payload: {exc}")
            continue
        state = ledgers.get(event.session_id)
        host = dialect(event.client)
        if event.event == "SessionEnd":
            if state is not None:
                engine.step(state, event, config, host, recorded.time)  # the end answers pending interventions
            if not config.keep_state:
                ledgers.pop(event.session_id, None)
            yield Step(recorded, event, None)
            continue
        # The live hook logs the step's follow-up records; a replay has its own report.
        # The unhooked calls the live hook would read from the rollout here (`hook._unhooked`).
        unhooked: tuple[Sequence[Unhooked], Tail] | None = None
        if host.CAPABILITIES.unhooked_polls and config.hung_command_polls:
            unhooked = (recorded.unhooked, {})
        state, result = engine.step(state, event, config, host, recorded.time, recorded.texts, unhooked=unhooked)
        ledgers[event.session_id] = state
        resumed = event.event == "UserPromptSubmit" and policy.resumed(state)
        yield Step(recorded, event, result.decision, resumed=resumed)
