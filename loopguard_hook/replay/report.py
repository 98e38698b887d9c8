"""The report model: what the guard would have done over one recorded session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..config.settings import Config
from ..core.engine import Decision
from ..core.outcome import arguments_preview
from ..core.signature import call_key
from .cost import LoopCost, Prices
from .model import Poll, Request, Usage

#: Characters of canonical arguments kept per call in a report (text output cuts further).
ARGUMENT_CHARS = 160

#: Which calls a report lists (its summary counts them all): every call, the calls the guard
#: would have acted on (`CallReport.acted`), none, or every call without its arguments (`plain`:
#: for scoring, where only ids, agents and decisions matter).
Calls = Literal["all", "acted", "none", "plain"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """One decision, reduced for a report: action on the wire, what the rules intended, rule code,
    and the count the rule saw (attempts of the signature, or the cap it counted)."""

    action: str
    intended: str
    rule: str
    count: int

    @classmethod
    def of(cls, decision: Decision) -> Verdict:
        return cls(decision.action.name.lower(), decision.intended.name.lower(), decision.rule, decision.times)

    @property
    def quiet(self) -> bool:
        return self.action == "allow" and self.intended == "allow"


@dataclass(frozen=True, slots=True)
class CallReport:
    """One tool call: when, by whom, what; what the recording says happened to it; the replayed
    decisions at PreToolUse (`pre`, None when the client fired none, as for a validation
    rejection) and at its post event (`post`: PostToolUse/Failure, or the PostToolBatch that
    counted it). `saved` is true when the recording ran it but the guard would have stopped it;
    `unmade` when it came after the guard had ended its agent's turn (the model would not have
    made it, ran or not, and its decisions are in no count of the summary). `time` is seconds
    since the epoch (or since the start, for payload logs without times)."""

    index: int
    time: float
    agent: str
    tool: str
    arguments: str
    tool_use_id: str | None
    recorded: str
    exit_code: int | None
    pre: Verdict | None
    post: Verdict | None
    saved: bool
    unmade: bool = False

    @property
    def acted(self) -> bool:
        """The guard would have acted on this call: a decision other than a plain allow at its
        PreToolUse or after it, or the call is saved (it came after the guard ended the turn)."""
        return acted(self.pre, self.post, self.saved)


@dataclass(frozen=True, slots=True)
class DecisionReport:
    """A decision other than allow, at any event; `call` is the `CallReport.index` it concerns."""

    step: int
    time: float
    event: str
    agent: str
    tool: str | None
    tool_use_id: str | None
    call: int | None
    verdict: Verdict
    message: str


@dataclass(frozen=True, slots=True)
class Marker:
    """A point where counters reset: a user prompt (`UserPromptSubmit`), a compaction
    (`SessionStart` `compact`), or the end of a session (`SessionEnd`: the ledger is forgotten)."""

    time: float
    event: str
    detail: str


@dataclass(frozen=True, slots=True)
class Summary:
    """Totals. `reminders`/`denials`/`stops` count decisions (a call can get one at Pre and one
    after), by the action on the wire, but for those the guard would have made after it ended
    their turn (Claude Code: on calls the model would not have made, or at a later Stop of that
    turn, which would not have come): a turn ended is one stop. `saved`: calls the recording
    ran that the guard would have denied, or (Claude Code) that came after it ended the turn."""

    events: int
    calls: int
    reminders: int
    denials: int
    stops: int
    saved: int
    skipped_lines: int
    bad_payloads: int


@dataclass(frozen=True, slots=True)
class Report:
    """What the guard would have done over one recorded session. `usage` is the tokens of every
    model request the recording states (None: it states none), `loops` what each loop the guard
    intervened in cost (`cost.py`), `prices` the prices it was costed at (None: not given),
    `requests` the recording's model requests (for the picture of its token use over time),
    `polls` the calls no hook saw that polled a running command (Codex `write_stdin`), `unseen`
    how many other calls no hook fires for the recording holds, by tool (`Recording.unseen`),
    `unread` how many calls in Code Mode cells' scripts replay could not read (`Recording.unread`)."""

    sources: tuple[str, ...]
    format: str
    client: str
    session_id: str
    profile: str
    mode: str
    counting: str
    remind_at: tuple[int, ...]
    deny_at: int
    stop_at: int
    started: float | None
    synthetic_times: bool
    calls: tuple[CallReport, ...]
    decisions: tuple[DecisionReport, ...]
    summary: Summary
    markers: tuple[Marker, ...] = ()
    errors: tuple[str, ...] = ()
    usage: Usage | None = None
    loops: tuple[LoopCost, ...] = ()
    prices: Prices | None = None
    requests: tuple[Request, ...] = ()
    polls: tuple[Poll, ...] = ()
    unseen: tuple[tuple[str, int], ...] = ()
    unread: int = 0


def acted(pre: Verdict | None, post: Verdict | None, saved: bool) -> bool:
    """`CallReport.acted` from the call's two verdicts and whether it is saved."""
    return saved or any(v is not None and not v.quiet for v in (pre, post))


def arguments_summary(tool: str, tool_input: Any, config: Config, limit: int = ARGUMENT_CHARS) -> str:
    """A call's canonical arguments (as its signature has them: keys sorted, decoy keys dropped),
    secrets redacted, cut to `limit` characters."""
    key = call_key(tool, tool_input, frozenset(config.ignore_args))
    return arguments_preview(key, limit)
