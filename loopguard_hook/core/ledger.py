"""The session ledger: the shape of a state file, declared once, with each bound next to its type.

A ledger is plain JSON (what `state.py` reads and writes); these TypedDicts only name its keys
and value types, so mypy catches a misspelt key or a wrong type; at run time they are `dict`.
The functions here create, find, reset and bound its parts.

    Session ── agents: {agent id: Agent}          at most MAX_AGENTS ("main" is never dropped)
            │            ├─ sigs:   {signature: Signature}   at most MAX_SIGNATURES
            │            ├─ calls:  {call id: Call}          at most MAX_CALLS
            │            ├─ paths:  {path: reads}            at most MAX_PATHS
            │            ├─ errors: {tool:target:error: ErrorEntry} at most MAX_ERRORS
            │            ├─ answers: {tool:answer: AnswerEntry}     at most MAX_ANSWERS
            │            └─ seen:   [outcome fingerprint]    at most MAX_SEEN
            │          each table at most its share of the session budget (`limits`)
            ├─ recent: [DecisionRecord]                     at most MAX_RECENT
            └─ text:   {agent id: TextState}                 (textloop.py keeps its bounds)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bounds import trim as trim

STATE_VERSION = 1

MAX_AGENTS = 40
MAX_SIGNATURES = 64
MAX_OUTCOMES = 1  # the signature's last outcome fingerprint; novelty is judged on `Agent.seen`
MAX_SEEN = 64  # outcome fingerprints an agent remembers (new evidence = not among them)
MAX_PREVIEWS = 8  # signatures that keep a result preview
MAX_CALLS = 64
MAX_PATHS = 64
MAX_ERRORS = 32
MAX_ERROR_SIGS = 16  # signatures kept per same-error entry
MAX_ANSWERS = 4  # answers the same-answer rule follows per agent
MAX_ANSWER_SIGS = 6  # signatures kept per answer: enough for its second reminder
MAX_RECENT = 20
MAX_EMITTED = 8  # digests of context texts kept where they come back as prompts
SUMMARY_CHARS = 120
MAX_ID_CHARS = 128

if TYPE_CHECKING:
    # The shapes are declared for the type checker only: at run time each is a plain `dict`
    # (as a TypedDict is anyway), so declaring a dozen of them costs no hook start anything.
    from typing import Literal, NotRequired, TypedDict

    #: Where a call stands: counted at its Pre ("pre"), its result recorded ("done"), or not run
    #: because a hook denied it ("denied").
    Phase = Literal["pre", "done", "denied"]

    #: The current run of identical tracked calls: `[signature, length]` (a JSON array).
    Chain = list[str | int]

    class Call(TypedDict):
        """One tool call, from its Pre to its result (`Agent.calls`)."""

        sig: str
        t: float
        seq: int
        phase: Phase
        done: NotRequired[float]
        untracked: NotRequired[bool]
        duplicate: NotRequired[bool]
        new: NotRequired[bool]
        remind: NotRequired[str]  # a reminder held back to go out with this call's result
        remind_rule: NotRequired[str]  # its rule code, when not LOOP_GUARD_REPEAT
        retry: NotRequired[bool]  # the identical retry of a sandbox refusal or a timeout: a first run
        late: NotRequired[bool]  # counted at its post event: no PreToolUse saw it (`rules.walls`)

    class Signature(TypedDict):
        """One distinct call (tool + canonical arguments), across the calls that share it."""

        tool: str  # at most MAX_ID_CHARS
        summary: str  # at most SUMMARY_CHARS, redacted
        n: int  # the no-progress counter
        total: int
        t: float | None  # last attempt
        outcomes: list[str]  # at most MAX_OUTCOMES fingerprints
        preview: NotRequired[str]
        failed: NotRequired[int]  # outcome.Failure of the last result
        done: NotRequired[float]  # when the last attempt finished
        refused: NotRequired[bool]  # the last result looked like a sandbox refusal: the next attempt may be its escalated retry
        escalated: NotRequired[bool]  # an attempt already counted as such a retry
        repeated: NotRequired[bool]  # argument-blind calls only: the last result was no new evidence
        spelling: NotRequired[str]  # `exact_repeat_code` only: a digest of the last attempt's arguments as given
        mixed: NotRequired[bool]  # `exact_repeat_code` only: the attempts since the evidence were not all spelt alike

    class ErrorEntry(TypedDict):
        """One tool:target:error signature of the same-error rule."""

        sigs: list[str]  # the call signatures that failed this way, at most MAX_ERROR_SIGS
        t: float
        n: NotRequired[int]  # failing calls
        seen: NotRequired[float]  # when the first result of the latest round came back
        rounds: NotRequired[int]  # rounds of calls that failed this way: each made after the model saw the last
        level: NotRequired[int]  # reminders given for this error (1 at the threshold, 2 at twice it)
        target: NotRequired[str]  # a digest of the name of the file the calls worked on (`tools.target_of`)
        shapes: NotRequired[list[str]]  # digests of how the failing calls ran (`rules.walls.shape_of`)
        quote: NotRequired[str]  # the error as the reminder quoted it, cut to `rules.walls.QUOTE_CHARS`
        denied_t: NotRequired[float]  # when a call of this wall was denied after the reminder (`rules.walls`)
        denied_r: NotRequired[int]  # the wall's rounds then
        late: NotRequired[bool]  # its last failure was seen only by a post event (`rules.walls`)
        idle: NotRequired[int]  # its rounds when a call last succeeded: not armed until two more (`rules.walls`)

    class AnswerEntry(TypedDict):
        """One tool:answer of the same-answer rule (`rules/same_answer.py`)."""
        sigs: list[str]  # the call signatures that got this answer, at most MAX_ANSWER_SIGS
        seq: int  # the agent's attempts when it last came back
        t: float
        seen: NotRequired[float]  # when the first result of the latest round came back
        rounds: NotRequired[int]  # rounds of calls that got it: each made after the model saw the last
        reads: NotRequired[int]  # a finished poll's reads of one unchanged output
        level: NotRequired[int]  # reminders given for this answer (1 at the threshold, 2 at twice it)

    class FollowUp(TypedDict):
        """The agent's last intervention, waiting for its next call to say what the model did
        (`followup.py`)."""

        sig: str
        tool: str  # at most MAX_ID_CHARS
        rule: str
        variant: str  # `messages.variant_of` the text the model got
        action: str  # what went on the wire
        level: int  # `decision.Action` the rules decided
        count: int
        step: int  # 1 for the first intervention on this call, 2 for the next…
        t: float

    class ResponseRecord(TypedDict):
        """What the model did after one intervention (`Session.responses`, `responses.jsonl`)."""

        time: float
        agent: str
        tool: str
        rule: str
        variant: str
        action: str
        intended: str
        count: int
        step: int
        response: str  # repeated | escalated | changed | ended
        after: float  # seconds from the intervention to the answer

    class Agent(TypedDict):
        """The counters of one agent (the main thread or a subagent)."""

        attempts: int
        updated: float
        seq: int  # events of this agent: orders calls
        batch_seq: int  # `seq` at the last PostToolBatch
        chain: Chain | None
        since: int  # tracked attempts since the last new evidence
        bookkeeping: int  # bookkeeping calls since the last new evidence
        answer_only: bool
        sigs: dict[str, Signature]
        calls: dict[str, Call]
        paths: dict[str, int]
        errors: dict[str, ErrorEntry]
        followup: NotRequired[FollowUp]
        seen: NotRequired[list[str]]  # outcome fingerprints this agent has seen, at most MAX_SEEN
        answers: NotRequired[dict[str, AnswerEntry]]  # at most MAX_ANSWERS


    class Tail(TypedDict, total=False):
        """Where `transcript.read_new_texts` stopped reading a transcript."""

        path: str  # digest of the transcript's path
        ino: int
        offset: int  # bytes


    class TextState(TypedDict):
        """The text-loop ledger of one agent (textloop.py)."""

        line: str | None
        line_count: int
        fence: str | bool
        blocks: list[str]
        stop_hash: str | None
        stop_count: int
        reply_hash: str | None
        reply_prompt: str | None
        prompt: str | None
        pending: str | None
        reminded: bool
        seen: list[str]
        reply_count: NotRequired[int]
        tail: NotRequired[Tail]
        idle: NotRequired[list[int | str]]  # [restating Stop-hook continuations in a row, their words] (`rules/continuations.py`)

    class DecisionRecord(TypedDict):
        """The redacted record of one decision (`Session.recent` and `decisions.jsonl`)."""

        time: float
        agent: str
        event: str
        tool: str | None
        rule: str
        action: str
        intended: str
        count: int
        arguments: str
        variant: NotRequired[str]  # `messages.variant_of` the text (absent in older ledgers)


    class ConfigSnapshot(TypedDict):
        """The thresholds in force at the last event, for `status`."""

        profile: str
        mode: str
        counting: str
        remind_at: list[int]
        deny_at: int
        stop_at: int


    class OpenTurn(TypedDict):
        """The last tool event of a turn that has not stopped (`delivery.injected_prompt`)."""

        t: float
        turn: str | None  # its `turn_id`, where the client sends one

    class Session(TypedDict):
        """One state file."""

        version: int
        session_id: str
        client: str
        created: float
        updated: float
        events: int
        attempts: int
        agents: dict[str, Agent]
        recent: list[DecisionRecord]
        text: dict[str, TextState]
        config: NotRequired[ConfigSnapshot]
        responses: NotRequired[list[ResponseRecord]]  # at most followup.MAX_RESPONSES, until logged
        turn_open: NotRequired[OpenTurn]  # a tool event since the last real prompt, no Stop since
        emitted: NotRequired[list[str]]  # digests of context texts, at most MAX_EMITTED
else:
    Phase = Chain = str
    Call = Signature = ErrorEntry = AnswerEntry = FollowUp = ResponseRecord = Agent = Tail = TextState = dict
    DecisionRecord = ConfigSnapshot = OpenTurn = Session = dict


def new_session(session_id: str, client: str, now: float) -> Session:
    """An empty session ledger."""
    return {
        "version": STATE_VERSION,
        "session_id": session_id,
        "client": client,
        "created": now,
        "updated": now,
        "events": 0,
        "attempts": 0,
        "agents": {},
        "recent": [],
        "text": {},
    }


def new_agent(now: float) -> Agent:
    """An agent seen for the first time."""
    return {
        "attempts": 0,
        "updated": now,
        "seq": 0,
        "batch_seq": 0,
        "chain": None,
        "since": 0,
        "bookkeeping": 0,
        "answer_only": False,
        "sigs": {},
        "calls": {},
        "paths": {},
        "errors": {},
    }


class Limits:
    """The size of each table of one agent (entries; `*_chars` in characters), its share of the
    session's budget. A plain class: this module postpones annotations, which would make a
    NamedTuple compile each field's annotation at every hook start."""

    __slots__ = ("sigs", "calls", "seen", "previews", "preview_chars", "summary_chars", "paths", "errors")

    def __init__(
        self, *, sigs: int, calls: int, seen: int, previews: int, preview_chars: int, summary_chars: int, paths: int, errors: int
    ) -> None:
        self.sigs, self.calls, self.seen, self.previews = sigs, calls, seen, previews
        self.preview_chars, self.summary_chars, self.paths, self.errors = preview_chars, summary_chars, paths, errors


#: The session's budget, shared equally by its agents: one agent gets the per-agent maxima, and
#: at MAX_AGENTS each still keeps a few signatures and calls, enough to count its repeats (a
#: 32-subagent session is counted whole in a state file of about 64 KiB).
SESSION_SIGNATURES = 112
SESSION_CALLS = 96
SESSION_SEEN = 320
SESSION_PREVIEWS = 16
SESSION_PREVIEW_CHARS = 6400
SESSION_SUMMARY_CHARS = 1920


def _share(total: int, agents: int, floor: int, cap: int) -> int:
    return max(floor, min(cap, total // max(1, agents)))


def limits(agents: int) -> Limits:
    """Each agent's table sizes when the session holds `agents` agents."""
    previews = _share(SESSION_PREVIEWS, agents, 1, MAX_PREVIEWS)
    return Limits(
        sigs=_share(SESSION_SIGNATURES, agents, 3, MAX_SIGNATURES),
        calls=_share(SESSION_CALLS, agents, 3, MAX_CALLS),
        seen=_share(SESSION_SEEN, agents, 8, MAX_SEEN),
        previews=previews,
        preview_chars=_share(SESSION_PREVIEW_CHARS // previews, agents, 80, 4096),
        summary_chars=_share(SESSION_SUMMARY_CHARS, agents, 40, SUMMARY_CHARS),
        paths=_share(SESSION_CALLS, agents, 3, MAX_PATHS),
        errors=_share(SESSION_CALLS, agents, 3, MAX_ERRORS),
    )


def agent(state: Session, agent_id: str, now: float) -> Agent:
    """The agent's counters, created on first use; past MAX_AGENTS the least recently active
    other agent is dropped (never "main"). A new agent shrinks every agent's tables to its share
    of the session's budget (`limits`)."""
    agents = state["agents"]
    found = agents.get(agent_id)
    if found is None:
        found = agents[agent_id] = new_agent(now)
        if len(agents) > MAX_AGENTS:
            idle = min((a for a in agents if a not in ("main", agent_id)), key=lambda a: agents[a]["updated"])
            del agents[idle]
        share = limits(len(agents))
        for other in agents.values():
            fit(other, share)
    found["updated"] = now
    return found

def fit(entry: Agent, share: Limits) -> None:
    """Trim the agent's tables to `share`: the least recently used entries go, and a call still
    waiting for its result goes last."""
    sigs, calls = entry["sigs"], entry["calls"]
    trim(sigs, share.sigs, lambda k: sigs[k]["t"] or 0)
    trim(calls, share.calls, lambda k: (calls[k]["phase"] == "pre", calls[k]["seq"]))
    trim(entry["paths"], share.paths, lambda k: 0)
    errors = entry["errors"]
    trim(errors, share.errors, lambda k: errors[k]["t"])
    answers = entry.get("answers", {})
    trim(answers, min(share.errors, MAX_ANSWERS), lambda k: answers[k]["t"])
    seen = entry.get("seen")
    if seen is not None:
        del seen[: -share.seen]
    keep_recent_previews(entry, share.previews)
    for sig in sigs.values():
        sig["summary"] = sig["summary"][: share.summary_chars]
        if len(sig.get("preview", "")) > share.preview_chars:
            sig["preview"] = sig["preview"][: share.preview_chars - 1] + "…"


def reset_agent(entry: Agent, *, keep_outcomes: bool = False) -> None:
    """Forget counters (user prompt, compaction); attempts totals stay for `status`."""
    entry["chain"] = None
    entry["since"] = 0
    entry["bookkeeping"] = 0
    entry["answer_only"] = False
    entry["paths"] = {}
    entry["errors"] = {}
    entry.pop("answers", None)
    if keep_outcomes:
        for sig in entry["sigs"].values():
            sig["n"] = 0
    else:
        entry["sigs"] = {}
        entry["calls"] = {}
        entry.pop("seen", None)


def extend_chain(entry: Agent, sig_id: str) -> int:
    """Add a call of `sig_id` to the agent's run of identical calls; return the run's length."""
    chain = entry["chain"]
    if chain and chain[0] == sig_id:
        chain[1] = length = int(chain[1]) + 1
        return length
    entry["chain"] = [sig_id, 1]
    return 1


def keep_recent_previews(entry: Agent, limit: int = MAX_PREVIEWS) -> None:
    """At most `limit` signatures keep a result preview: the most recently attempted."""
    sigs = entry["sigs"]
    with_preview = [k for k in sigs if "preview" in sigs[k]]
    if len(with_preview) > limit:
        with_preview.sort(key=lambda k: sigs[k]["t"] or 0)
        for k in with_preview[: len(with_preview) - limit]:
            del sigs[k]["preview"]
