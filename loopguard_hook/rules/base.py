"""The one protocol every detection rule follows, and what a rule may read.

A rule is a function from one context to a verdict (`Decision`) or None. The engine builds the
context after it has moved the ledger's counters, runs the rules listed in `rules/__init__.py`
in order, and keeps the most severe verdict (the first listed on a tie). Rules read the ledger;
only the same-error and text rules keep ledger entries of their own (and the repeat rule, under
`exact_repeat_code`, how a signature's attempts were spelt).
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from ..config.settings import Config
from ..core.event import HookEvent
from ..core.host import Capabilities
from ..core.ledger import Agent, Call, Session, Signature
from ..core.outcome import Outcome
from ..core.signature import CallKey
from ..core.verdict import Decision

if TYPE_CHECKING:  # a protocol for the type checker; defining it would cost every hook start
    C = TypeVar("C", contravariant=True)

    class Rule(Protocol[C]):
        """A detection rule over a context of type `C`."""

        def __call__(self, ctx: C, /) -> Decision | None: ...


class CallContext(NamedTuple):
    """One counted attempt, after the counters moved (PreToolUse, or the post event of a call
    whose Pre was not seen). `tracked` is False for an untracked tool and a parallel twin: their
    attempts move no counter, and `sig` may be None. `counted` is `tracked` for a call whose
    arguments the client sends: only then do identical signatures mean identical calls.
    `tool_input` is the call's input as the client sent it."""

    event: HookEvent
    config: Config
    caps: Capabilities
    agent: Agent
    call: Call
    sig: Signature | None
    tool: str
    tracked: bool
    counted: bool
    attempt: int
    previous_time: float | None
    now: float
    key: CallKey
    path: str | None
    path_count: int
    tool_input: Any = None

    @property
    def ends_turn(self) -> bool:
        """Whether this client can end the turn from this event (`continue: false`)."""
        return self.event.event in self.caps.end_turn

    @property
    def blind(self) -> bool:
        """A tracked call whose arguments the client does not send (`same_result.py`)."""
        return self.tracked and not self.counted

    @property
    def pauses_tools(self) -> bool:
        """Whether an end of turn becomes answer-only mode here (`delivery.end_of_turn`)."""
        return not self.ends_turn and self.caps.turn_end_fallback == "answer_only"


class ResultContext(NamedTuple):
    """One tracked call's result, after it was recorded in its signature; `new` when this
    signature had not produced the outcome since the last reset. `tool_input` is the call's
    input and `response` its `tool_response` (or error text) as the client sent them; `agents`
    how many agents the session holds (their tables share one budget: `ledger.limits`)."""

    config: Config
    caps: Capabilities
    agent: Agent
    call: Call
    sig: Signature
    tool: str
    outcome: Outcome
    new: bool
    tool_input: Any = None
    response: Any = None
    agents: int = 1


class TextContext(NamedTuple):
    """An event the text rules look at, with the assistant texts written since the last one."""

    state: Session
    event: HookEvent
    config: Config
    caps: Capabilities
    texts: Sequence[str]

    @property
    def ends_turn(self) -> bool:
        """Whether this client can end the turn from this event (`continue: false`)."""
        return self.event.event in self.caps.end_turn
