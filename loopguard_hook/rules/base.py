"""The protocol every detection rule follows, and what a rule may read.

A rule is a module. Its judges are functions from one context to a verdict (`Decision`) or
None: on each counted attempt (`CallContext`), on each tracked call's result (`ResultContext`),
or on the events that carry assistant text (`TextContext`). The engine builds the context after
the shared counters moved (`core/progress.py`), runs the judges listed in `rules/__init__.py`
in order, and keeps the most severe verdict (the first listed on a tie); the mode and the host's
capabilities are applied after, in one place (`core/policy.py`).

What a rule reads of the shared progress comes as values of its context. What it keeps of its
own lives in its slot of the ledger (`Agent.rules[NAME]`, `ledger.slots`), declared by the rule
(`SlotRule`): its table's shape, its bound (`fit`, when a new agent shrinks every agent's share)
and its reset (`reset`: `"prompt"` for a new user prompt, `"compaction"` for a compaction where
the profile resets counts). The text rules keep theirs per agent in `Session.text`.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from ..config.settings import Config
from ..core.event import HookEvent
from ..core.host import Capabilities
from ..core.ledger import Agent, Call, Limits, Session, Signature
from ..core.outcome import Outcome
from ..core.signature import CallKey
from ..core.verdict import Decision

if TYPE_CHECKING:  # a protocol for the type checker; defining it would cost every hook start
    C = TypeVar("C", contravariant=True)

    class Rule(Protocol[C]):
        """A detection rule over a context of type `C`."""

        def __call__(self, ctx: C, /) -> Decision | None: ...

    class SlotRule(Protocol):
        """A rule module that keeps a table of its own in the agent's ledger."""

        @property
        def NAME(self) -> str: ...  # noqa: N802 (a module constant: the slot's key)

        def fit(self, agent: Agent, share: Limits) -> None:
            """Trim the rule's table to the agent's share of the session's budget."""
            ...

        def reset(self, agent: Agent, why: str) -> None:
            """Forget what a new prompt (`why == "prompt"`) or a compaction (`"compaction"`) ends."""
            ...


class CallContext(NamedTuple):
    """One counted attempt, after the counters moved (PreToolUse, or the post event of a call
    whose Pre was not seen). `tracked` is False for an untracked tool and a parallel twin: their
    attempts move no counter, and `sig` may be None. `counted` is `tracked` for a call whose
    arguments the client sends: only then do identical signatures mean identical calls.
    `since` and `bookkeeping` are the agent's tracked and bookkeeping calls since the last new
    evidence, this one included; `share` the agent's share of the session's budget.
    `tool_input` is the call's input as the host sent it; `response`, for a call first seen by
    PostToolBatch, its answer there (a validation rejection's `<tool_use_error>` text)."""

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
    share: Limits
    since: int
    bookkeeping: int
    tool_input: Any = None
    response: Any = None

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
        """Whether an end of turn becomes answer-only mode here (`policy.fit_call`)."""
        return not self.ends_turn and self.caps.turn_end_fallback == "answer_only"


class ResultContext(NamedTuple):
    """One tracked call's result, after it was recorded in its signature; `new` when the agent
    had not seen the outcome since the last reset, `productive` when it is new evidence or a
    successful mutation (`progress.Evidence`). `tool_input` is the call's
    input and `response` its `tool_response` (or error text) as the client sent them; `agents`
    how many agents the session holds (their tables share one budget: `ledger.limits`); `clean`
    the text without the lines that lead many calls' outputs (`error_text`); `unchanged` when the
    workspace shows the call changed none of the files it named to change."""

    config: Config
    caps: Capabilities
    agent: Agent
    call: Call
    sig: Signature
    tool: str
    outcome: Outcome
    new: bool
    productive: bool
    tool_input: Any = None
    response: Any = None
    agents: int = 1
    clean: str | None = None
    #: The files the call named to change were the same after it as before (`HookEvent.workspace`).
    unchanged: bool = False
    #: The session's folder as the result's event gives it (`HookEvent.cwd`).
    cwd: str | None = None
    #: The host's permission mode at the result (`HookEvent.permission_mode`).
    permission_mode: str | None = None
    #: The host answered the call without running it: a PostToolBatch entry for a call whose
    #: PreToolUse was seen and no post event came (Claude Code's permission refusals, 2.1.332 LAB).
    unrun: bool = False
    #: The call changed files: a mutation tool's success that the workspace (or its result) does
    #: not show unchanged, or a shell edit (`tools.edits_only`: a line of edits and reads) whose
    #: named files the workspace saw change, at its line's first attempt since the last progress
    #: (`HookEvent.workspace`; in a replay, which has no workspace, only a diff applied:
    #: `tools.applies_diff`, which git and patch refuse when it changes nothing).
    edits: bool = False
    #: The call, an edit, put every file the agent's edits named back as it was at an earlier
    #: edit since the prompt (a value toggled back, a fix undone; `ledger.note_files`): no
    #: progress. Only under `revisit_evidence`.
    revisited: bool = False
    #: The call is a shell line of edits and reads (`tools.edits_only`) whose named files the
    #: workspace looked at before and after it ran, changed or not.
    edit_line: bool = False
    #: The workspace looked at the files the call's edits name, before and after it ran, and they
    #: changed by their content (`HookEvent.workspace_edits`: not a file the line sends a
    #: program's output into, `pytest | tee test.log`, nor a report only its test run names,
    #: which change whatever the edits did): its
    #: edits applied, whatever else the line ran and however that ended (`sed -i … a.py && pytest`
    #: that fails).
    changed: bool = False
    #: The workspace looked at the files the call's edits name, before and after it ran, all by
    #: their content (`HookEvent.workspace_edits`): `changed` says whether its edits applied.
    edits_looked: bool = False

    @property
    def error_text(self) -> str:
        """The result's text without the lines that lead every call's output (a shell profile's
        warning): what errors are compared by (`progress.without_noise`)."""
        return self.outcome.text if self.clean is None else self.clean


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
