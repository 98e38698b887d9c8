"""The session ledger: the shape of a state file, declared once, with each bound next to its type.

A ledger is plain JSON (what `store/` reads and writes); these TypedDicts only name its keys
and value types, so mypy catches a misspelt key or a wrong type; at run time they are `dict`.
The functions here create, find, reset and bound the shared parts; each rule keeps its own
table in its slot (`Agent.rules`), declared, bounded and reset by the rule (`rules/`).

    Session ── agents: {agent id: Agent}          at most MAX_AGENTS ("main" is never dropped)
            │            ├─ sigs:   {signature: Signature}   at most MAX_SIGNATURES
            │            ├─ calls:  {call id: Call}          at most MAX_CALLS
            │            ├─ seen:   [outcome fingerprint]    at most MAX_SEEN
            │            ├─ files:  {path digest: state}      at most MAX_FILES   (the map of edited files)
            │            ├─ states: [digest of files]         at most MAX_STATES
            │            ├─ results: [digest]                at most MAX_RESULTS
            │            └─ rules:  {rule name: its table}   (each rule keeps its bounds)
            │          each table at most its share of the session budget (`limits`)
            ├─ recent: [DecisionRecord]                     at most MAX_RECENT
            └─ text:   {agent id: TextState}                 (the text rules and the transcript
                                                              reader's cursor; `rules/text_loops.py`)

A ledger of an earlier version is brought to this one by `migrate` when it is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .signature import blake2b

STATE_VERSION = 2

V = TypeVar("V")


def issued(call: Call) -> float:
    """When the model issued `call` (seconds since the epoch): its batch's first call's
    PreToolUse when the host ran it after others of one batch, else its own."""
    return call.get("issued", call["t"])


def waited_first(agent: Agent, call: Call) -> float:
    """The seconds `agent` waited in calls that only wait (`sleep 30` on its own: the call's
    `wait`, `shellwords.only_sleeps`) right before `call`: the run of them answered just before
    it, 0.0 when the call before it did anything else. A check after such a wait is paced as
    one that sleeps first (`sleep 30 && gh pr checks`); a test run or a build is not
    (`shellwords.reruns_work`, as for `shellwords.sleeps_first`), which its callers ask. A wait
    with no result yet counts once its seconds have passed by `call`'s time: Codex 0.171.0
    leaves a `sleep 30` running past its exec_command yield and sends its PostToolUse only
    when a `write_stdin` poll sees it end, if ever (research/codex-hooks.md, long-running
    commands); one issued with `call` (a batch) has not waited."""
    waited = 0.0
    for earlier in sorted((c for c in agent["calls"].values() if c["seq"] < call["seq"]), key=lambda c: -c["seq"]):
        wait = earlier.get("wait")
        if not isinstance(wait, float | int):
            break
        if earlier["phase"] != "done" and call["t"] - earlier["t"] < wait:
            break
        waited += wait
    return waited


def new_round(issued: float, seen: float | None) -> bool:
    """Whether a call the model issued at `issued` came after it saw the result that arrived at
    `seen` (None: no result yet): strictly after, since a call issued at the very instant a
    result came back cannot answer it (one batch: a subagent's five Globs, the last PreToolUse in
    the first result's millisecond, public Claude Code transcript)."""
    return seen is None or issued > seen


def trim(table: dict[str, V], limit: int, key: Callable[[str], float | tuple[bool, float]]) -> None:
    """Drop the entries that sort first by `key` until `table` holds at most `limit`."""
    if len(table) > limit:
        for name in sorted(table, key=key)[: len(table) - limit]:
            del table[name]


MAX_AGENTS = 40
MAX_SIGNATURES = 64
MAX_OUTCOMES = 1  # the signature's last outcome fingerprint; novelty is judged on `Agent.seen`
MAX_SEEN = 64  # outcome fingerprints an agent remembers (new evidence = not among them)
MAX_STATES = 16  # digests of an agent's map of files it remembers (`note_files`)
MAX_FILES = 32  # files an agent's map holds (`note_files`)
MAX_RESULTS = 32  # (state of its files, call, outcome) an agent remembers (`note_result`)
MAX_PREVIEWS = 8  # signatures that keep a result preview
MAX_CALLS = 64
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
        remind_times: NotRequired[int]  # the count it was given for (the audit's `count`)
        retry: NotRequired[bool]  # the identical retry of a sandbox refusal or a timeout: a first run
        late: NotRequired[bool]  # counted at a PostToolBatch: no PreToolUse saw it, it never ran
        ws: NotRequired[str]  # the named files' state before it ran (`HookEvent.workspace`)
        wsf: NotRequired[list[str]]  # the same, file by file (`HookEvent.workspace_files`)
        wse: NotRequired[str]  # the state of the files its edits name (`HookEvent.workspace_edits`)
        misfit: NotRequired[bool]  # a patch counted as failed at its PreToolUse (`rules.target`)
        cwd: NotRequired[str]  # the folder a shell line with a `cd` started in, at its PreToolUse (`rules.polling`)
        poll_counted: NotRequired[bool]  # a rapid check denied at its PreToolUse and counted there (`rules.polling`)
        issued: NotRequired[float]  # when the model issued it, when earlier than `t` (`progress.issued_with`)
        wait: NotRequired[float]  # a call that only waits: its seconds (`shellwords.only_sleeps`, `waited_first`)

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
        plan: NotRequired[list[str]]  # the task calls made since then, uncounted (`progress.TASK_TOOLS`)
        sigs: dict[str, Signature]
        calls: dict[str, Call]
        followup: NotRequired[FollowUp]
        seen: NotRequired[list[str]]  # outcome fingerprints this agent has seen, at most MAX_SEEN
        files: NotRequired[dict[str, str]]  # path digest -> state digest of the files its edits named (`note_files`)
        states: NotRequired[list[str]]  # digests of that map as its edits left it since the prompt (`note_files`)
        back: NotRequired[float]  # when an edit last put that map back as it was earlier (`note_files`)
        results: NotRequired[list[str]]  # digests of (state of its files, call, outcome) (`note_result`)
        noise: NotRequired[dict[str, list[str | int]]]  # [calls, last call, text after] of lines leading outputs
        rules: NotRequired[dict[str, object]]  # each rule's table, under its name (`rules/`)


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
        said: NotRequired[str]  # a digest of the turn's assistant texts so far (`text_loops.final_message`)
        changed: NotRequired[bool]  # whether a change the turn made applied: an edit, a write (`text_loops.final_message`)
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

    class TurnMark(TypedDict):
        """The main turn, where Stop skips an interrupt (`policy.resumes`)."""

        stopped: bool  # a Stop came in this session: the host sends it
        open: bool  # a tool event since the last real prompt, and no Stop since
        blocked: bool  # the guard intervened (a reminder or more) since the last real prompt
        resumed: bool  # the latest prompt resumed the turn the user interrupted

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
        turn: NotRequired[TurnMark]  # where Stop skips an interrupt (`policy.resumes`)
        compacted_at: NotRequired[int]  # `attempts` at the latest compaction (`engine._thrashes`)
else:
    Phase = Chain = str
    Call = Signature = FollowUp = ResponseRecord = Agent = Tail = TextState = dict
    DecisionRecord = ConfigSnapshot = OpenTurn = TurnMark = Session = dict


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


#: The counters of a session, an agent and a signature: no event makes one negative (each
#: decrement is floored at 0, `progress.py`), a fraction, or one past `MAX_COUNT`, so a ledger that
#: holds one was edited by hand.
SESSION_COUNTS = ("events", "attempts")
AGENT_COUNTS = ("attempts", "seq", "batch_seq", "since", "bookkeeping")
SIGNATURE_COUNTS = ("n", "total")
#: More events than any session sends (a float's exact integers end here).
MAX_COUNT = 2**53


def bad_count(state: Session) -> str:
    """The first counter that no event writes in a ledger of this version's shape, as `name =
    value` (`since = -40`, `n = 1e+308`, `n = 2.5`), or "": below 0, not a whole number, or past
    `MAX_COUNT`. A negative count would let that many repeats go unseen, a huge one end the turn at
    the next ordinary call, so the store treats such a ledger as a damaged one. Each rule's own
    slot is the rule's to bound."""
    if found := _bad(state, SESSION_COUNTS):
        return found
    for entry in state["agents"].values():
        chain = entry.get("chain")
        run = {"chain": chain[1]} if isinstance(chain, list) and len(chain) == 2 else {}
        tables = [(entry, AGENT_COUNTS), (run, ("chain",)), *((sig, SIGNATURE_COUNTS) for sig in entry["sigs"].values())]
        for table, keys in tables:
            if found := _bad(table, keys):
                return found
    return ""


def _bad(table: object, keys: tuple[str, ...]) -> str:
    """`key = value` of the first of `keys` in `table` (a dict) that is a number but not a whole
    one from 0 to `MAX_COUNT`, or ""."""
    if isinstance(table, dict):
        for key in keys:
            value = table.get(key)
            if isinstance(value, (int, float)) and not (type(value) is int and 0 <= value <= MAX_COUNT):
                return f"{key} = {value}"
    return ""


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
        "sigs": {},
        "calls": {},
    }


class Limits:
    """The size of each table of one agent (entries; `*_chars` in characters), its share of the
    session's budget. A plain class: this module postpones annotations, which would make a
    NamedTuple compile each field's annotation at every hook start."""

    __slots__ = ("agents", "sigs", "calls", "seen", "previews", "preview_chars", "summary_chars")

    def __init__(
        self, *, agents: int, sigs: int, calls: int, seen: int, previews: int, preview_chars: int, summary_chars: int
    ) -> None:
        self.agents, self.sigs, self.calls, self.seen, self.previews = agents, sigs, calls, seen, previews
        self.preview_chars, self.summary_chars = preview_chars, summary_chars

    def table(self, cap: int) -> int:
        """The entries a rule's table of at most `cap` entries keeps at this share (at least 3)."""
        return _share(SESSION_CALLS, self.agents, 3, cap)


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
        agents=agents,
        sigs=_share(SESSION_SIGNATURES, agents, 3, MAX_SIGNATURES),
        calls=_share(SESSION_CALLS, agents, 3, MAX_CALLS),
        seen=_share(SESSION_SEEN, agents, 8, MAX_SEEN),
        previews=previews,
        preview_chars=_share(SESSION_PREVIEW_CHARS // previews, agents, 80, 4096),
        summary_chars=_share(SESSION_SUMMARY_CHARS, agents, 40, SUMMARY_CHARS),
    )


def agent(state: Session, agent_id: str, now: float, fit_rules: Callable[[Agent, Limits], None]) -> Agent:
    """The agent's counters, created on first use; past MAX_AGENTS the least recently active
    other agent is dropped (never "main"). A new agent shrinks every agent's tables to its share
    of the session's budget (`limits`): the shared ones here, each rule's by `fit_rules`."""
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
            fit_rules(other, share)
    found["updated"] = now
    return found


def note_files(entry: Agent, before: list[str], after: list[str]) -> bool:
    """Bring the agent's map of the files its edits named (`Agent.files`: path digest -> state
    digest, at most `MAX_FILES`, the least recently named dropped first) to one edit's states
    before and after it ran (`HookEvent.workspace_files` items, `"PATH:STATE"`), remembering the
    whole map's digest at both (`note_state`). Whether the map after is one remembered from
    earlier and not the map before: the edit put every file the agent edited back as it was
    then (a value toggled back), not merely the files it names (a print removed from one file
    while a fix stays in another is a new state)."""
    files = entry.setdefault("files", {})
    h_before = _map_digest(files, before)
    note_state(entry, h_before)
    h_after = _map_digest(files, after)
    return note_state(entry, h_after) and h_after != h_before


def note_result(entry: Agent, sig_id: str, fingerprint: str) -> bool:
    """Remember that the call `sig_id` gave the outcome `fingerprint` with the agent's files in
    their present state (the last digest `note_files` remembered), at most `MAX_RESULTS`, the
    most recent last; whether it had given it in that state before. False, remembering nothing,
    while the agent's calls have named no file."""
    states = entry.get("states")
    if not entry.get("files") or not isinstance(states, list) or not states:
        return False
    key = blake2b(f"{states[-1]}|{sig_id}|{fingerprint}".encode(), digest_size=8).hexdigest()
    return _remember(entry.setdefault("results", []), key, MAX_RESULTS)


def _map_digest(files: dict[str, str], states: list[str]) -> str:
    """Set `states` (`"PATH:STATE"` items) into `files`, most recent last, and the digest of the
    whole map (32 hex digits)."""
    for item in states:
        path, _, state = str(item).partition(":")
        files.pop(path, None)
        files[path] = state
    for stale in list(files)[: max(0, len(files) - MAX_FILES)]:
        del files[stale]
    return blake2b("\n".join(sorted(f"{k}:{v}" for k, v in files.items())).encode(), digest_size=16).hexdigest()


def note_state(entry: Agent, digest: str) -> bool:
    """Remember a digest of the agent's map of files (`note_files`), the most recent last, at
    most `MAX_STATES`; whether it was remembered already (the files were in that state before)."""
    return _remember(entry.setdefault("states", []), digest, MAX_STATES)


def _remember(items: list[str], item: str, limit: int) -> bool:
    """Put `item` last in `items` (at most `limit`, the oldest dropped); whether it was there."""
    known = item in items
    if known:
        items.remove(item)
    items.append(item)
    del items[:-limit]
    return known


def trim_calls(entry: Agent, limit: int) -> None:
    """Trim the agent's calls to `limit`, the least recent first; a call still waiting for its
    result goes last, and so do the calls of the batch no `PostToolBatch` has closed yet (the
    calls since the last one, or, for an agent none was seen for, those issued with the latest),
    which stay whole up to `MAX_CALLS`: a call of it whose record was dropped would be counted
    again by that `PostToolBatch` (a session of many subagents leaves each agent a share of a few
    calls, fewer than a reply of parallel reads)."""
    calls = entry["calls"]
    if len(calls) <= limit:
        return
    start = entry.get("batch_seq", 0)
    if start > 0:
        held = {k for k, c in calls.items() if c["seq"] > start}
    else:
        reply = issued(max(calls.values(), key=lambda c: c["seq"]))
        held = {k for k, c in calls.items() if issued(c) == reply}
    trim(calls, min(MAX_CALLS, max(limit, len(held))), lambda k: (k in held or calls[k]["phase"] == "pre", calls[k]["seq"]))


def fit(entry: Agent, share: Limits) -> None:
    """Trim the agent's shared tables to `share`: the least recently used entries go, and a call
    still waiting for its result goes last (`trim_calls`)."""
    sigs = entry["sigs"]
    trim(sigs, share.sigs, lambda k: sigs[k]["t"] or 0)
    trim_calls(entry, share.calls)
    seen = entry.get("seen")
    if seen is not None:
        del seen[: -share.seen]
    # The map of edited files and what it remembers, a share of the outcomes' share: states and
    # results a quarter, files a half (the least recently named go first).
    for key, limit in (("states", MAX_STATES), ("results", MAX_RESULTS)):
        kept = entry.get(key)
        if isinstance(kept, list):
            del kept[: -max(2, min(limit, share.seen // 4))]
    files = entry.get("files")
    if isinstance(files, dict):
        for stale in list(files)[: max(0, len(files) - max(4, min(MAX_FILES, share.seen // 2)))]:
            del files[stale]
    keep_recent_previews(entry, share.previews)
    for sig in sigs.values():
        sig["summary"] = sig["summary"][: share.summary_chars]
        if len(sig.get("preview", "")) > share.preview_chars:
            sig["preview"] = sig["preview"][: share.preview_chars - 1] + "…"


def reset_shared(entry: Agent, *, keep_outcomes: bool = False) -> None:
    """Forget the shared counters (a user prompt; a compaction keeps the outcomes); attempts
    totals stay for `status`. Each rule resets its own slot (`rules.reset`)."""
    entry["chain"] = None
    entry["since"] = 0
    entry["bookkeeping"] = 0
    entry.pop("plan", None)
    if keep_outcomes:
        for sig in entry["sigs"].values():
            sig["n"] = 0
    else:
        entry["sigs"] = {}
        entry["calls"] = {}
        entry.pop("seen", None)
        entry.pop("files", None)
        entry.pop("states", None)
        entry.pop("back", None)
        entry.pop("results", None)


def slots(entry: Agent) -> dict[str, object]:
    """The agent's rule slots, created on first use: each rule reads and writes its own, under
    its name, and declares its shape; the ledger never reads them."""
    found = entry.get("rules")
    if found is None:
        found = entry["rules"] = {}
    return found


def slot(entry: Agent, name: str) -> object:
    """The rule `name`'s table of the agent, or None while it has none."""
    return entry.get("rules", {}).get(name)


def drop_slot(entry: Agent, name: str) -> None:
    """Forget the rule `name`'s table of the agent (and the slots, once none is left)."""
    found = entry.get("rules")
    if found is not None:
        found.pop(name, None)
        if not found:
            del entry["rules"]


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


def migrate(state: dict[str, object]) -> None:
    """Bring a ledger written by an earlier version to `STATE_VERSION`, in place; a ledger of the
    current version is left as it is, one of an unknown version too (the store sets it aside).

    Version 1 (before the rules kept their own slots) held the rules' tables in the agent
    (`paths`, `errors`, `answers`, `answer_only`) and two rules' flags in each signature
    (`repeated`; `spelling` and `mixed`): each moves to its rule's slot, so a session's counts
    survive an upgrade."""
    if state.get("version") != 1:
        return
    agents = state.get("agents")
    if isinstance(agents, dict):
        for entry in agents.values():
            if isinstance(entry, dict):
                _migrate_agent_1(entry)
    state["version"] = 2


def _migrate_agent_1(entry: dict[str, object]) -> None:
    moved: dict[str, object] = {}
    for old, name in (("paths", "same_path"), ("errors", "same_error"), ("answers", "same_answer")):
        table = entry.pop(old, None)
        if isinstance(table, dict) and table:
            moved[name] = table
    if entry.pop("answer_only", False) is True:
        moved["answer_only"] = True
    sigs = entry.get("sigs")
    if isinstance(sigs, dict):
        repeated: dict[str, object] = {}
        spelt: dict[str, object] = {}
        for sig_id, sig in sigs.items():
            if not isinstance(sig, dict):
                continue
            if "repeated" in sig:
                repeated[sig_id] = sig.pop("repeated")
            if "spelling" in sig or "mixed" in sig:
                spelt[sig_id] = [sig.pop("spelling", ""), sig.pop("mixed", True)]
        if repeated:
            moved["same_result"] = repeated
        if spelt:
            moved["repeat"] = spelt
    if moved:
        entry["rules"] = moved
