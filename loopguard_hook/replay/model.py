"""The recording model every reader produces and the driver consumes: hook payloads in order."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.event import Client, Unhooked

#: Spacing of made-up times when a payload log has none (seconds): well inside the parallel
#: window for neighbours, far from the slow-repeat threshold for a few hundred events.
SYNTHETIC_STEP = 0.1
#: The made-up gap before a PreToolUse that follows a result (seconds): the model's turn. Longer
#: than `core.progress.CHAINED_SECONDS`, so that a call made after a result is not taken for one
#: the host ran from the same batch; inside the parallel window.
SYNTHETIC_TURN = 0.5

#: Hook event names (lower case, by prefix) of a call's PreToolUse and of its result, across hosts.
_PRE = ("pretooluse", "beforetool", "beforeshell", "beforemcp")
_RESULTS = ("posttool", "aftertool", "aftershell", "aftermcp")


def synthetic_offsets(names: Iterable[str]) -> list[float]:
    """Made-up times (seconds from the start) for events with hook event names `names`, in order:
    `SYNTHETIC_STEP` apart, `SYNTHETIC_TURN` before a PreToolUse that follows a result."""
    offsets, made_up, after_result = [], 0.0, False
    for name in names:
        lower = name.lower()
        pre = lower.startswith(_PRE)
        made_up += SYNTHETIC_TURN if after_result and pre else SYNTHETIC_STEP
        after_result = False if pre else after_result or lower.startswith(_RESULTS)
        offsets.append(made_up)
    return offsets


#: Events at one instant, in a row, that are a block with no times rather than one batch's
#: results (a batch of ten and more finishing within a millisecond is not what transcripts show).
UNTIMED_RUN = 10


def respaced(events: list[RecordedEvent]) -> tuple[list[RecordedEvent], bool]:
    """`events` with made-up times (`synthetic_offsets`) for the events of a recording that has
    none: after the first event, every event at one time (the oldest Codex rollouts, 0.2x-0.3x of
    2025-09, time their session line only), or a run of `UNTIMED_RUN` or more at one instant (a
    Claude Code 1.0.56 transcript of a resumed session gives the history it copies one time),
    fitted before the next event's time. True when any time was made up. Without them every call
    of such a block comes at one instant: inside one batch's window (`progress.issued_with`), a
    wall's retries never rounds, or all of them rounds by a tie."""
    if len(events) < 3:
        return events, False
    out, made_up, i = list(events), False, 1
    while i < len(out):
        j = i
        while j + 1 < len(out) and out[j + 1].time == out[i].time:
            j += 1
        if j - i + 1 >= UNTIMED_RUN or (i == 1 and j == len(out) - 1):
            run = out[i : j + 1]
            offsets = synthetic_offsets(str(e.payload.get("hook_event_name", "")) for e in run)
            span = offsets[-1] - offsets[0]
            room = out[j + 1].time - run[0].time if j + 1 < len(out) else span
            scale = min(1.0, 0.9 * room / span) if span > 0 else 1.0
            out[i : j + 1] = [replace(e, time=run[0].time + (o - offsets[0]) * scale) for e, o in zip(run, offsets, strict=True)]
            made_up = True
        i = j + 1
    return out, made_up


class ReplayError(ValueError):
    """A file cannot be replayed (unreadable, empty, or not a known format); one line for stderr."""


class Format(enum.StrEnum):
    """The kinds of recording `load` reads."""

    CLAUDE_TRANSCRIPT = "claude-code-transcript"
    CODEX_ROLLOUT = "codex-rollout"
    HOOK_PAYLOADS = "hook-payloads"


class Outcome(enum.StrEnum):
    """What the recording says happened to a tool call."""

    RAN = "ran"  # the tool ran and succeeded
    FAILED = "failed"  # the tool ran and failed (error result, non-zero exit code)
    DENIED = "denied"  # a PreToolUse hook (this guard or another) denied it; it did not run
    REJECTED = "rejected"  # Claude Code input validation refused it; no hook but PostToolBatch
    REFUSED = "refused"  # the user or a permission rule refused it
    INTERRUPTED = "interrupted"  # the user interrupted it
    RUNNING = "running"  # Codex: still running when its call returned, no normal exit recorded
    UNKNOWN = "no result"  # the recording has no result for it (cut short, or a payload log)


#: Outcomes of calls that really ran in the recording: a denial there would have saved them.
RAN_OUTCOMES = frozenset({Outcome.RAN, Outcome.FAILED})


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One tool call as recorded. `exit_code` only where the recording has one (Codex)."""

    tool_use_id: str
    outcome: Outcome
    exit_code: int | None = None


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """One hook payload the live client would have sent, at `time` (seconds since the epoch).

    `line` is the 1-based line of `source` it was made from (0 when it has none). `texts` are the
    assistant texts, as `(dedup key, text)`, that the live hook would find newly written to the
    transcript when it reads it at this event (text-loop detection; see `hook._new_texts`).
    `unhooked` are the calls that fire no hook (Codex `write_stdin`) and their outputs, that the
    live hook would find newly written to the rollout at this event (`hook._unhooked`). `misfit`
    stands in for the live hook's look at a patch's file (`HookEvent.misfit`).
    """

    time: float
    payload: Mapping[str, Any]
    source: str = ""
    line: int = 0
    texts: tuple[tuple[str, str], ...] = ()
    unhooked: tuple[Unhooked, ...] = ()
    #: A patch's PreToolUse: what the live hook would have found looking at the file it updates
    #: (`HookEvent.misfit`), as read from the call's recorded failure (`core.patch.recorded_misfit`).
    misfit: str | None = None
    #: A Stop's reply, by its message id (Claude Code): a resumed session's copy of it in another
    #: file of the session ended no turn (`jsonl.without_copies`).
    reply: str | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens of one model request, as the recording states them: `input` not read from or
    written to a prompt cache, `cache_read` and `cache_write` (prompt cache), and `output`
    (reasoning included). Claude Code: `message.usage` `input_tokens`,
    `cache_read_input_tokens`, `cache_creation_input_tokens`, `output_tokens`; Codex
    `token_count`: `input_tokens` less `cached_input_tokens`, `cached_input_tokens`, 0,
    `output_tokens`."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0

    @property
    def total(self) -> int:
        return self.input + self.cache_read + self.cache_write + self.output

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input, self.cache_read + other.cache_read,
            self.cache_write + other.cache_write, self.output + other.output,
        )


@dataclass(frozen=True, slots=True)
class Request:
    """One model request of the recorded session: when (seconds since the epoch), which agent
    made it, its usage, and the ids of the tool calls it produced (none for a text answer)."""

    time: float
    agent: str
    usage: Usage
    calls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Recording:
    """A session rebuilt as hook payloads, ready for `replay`.

    `format` is the reader's format name (a `Format` for the built-in readers).
    `client` is None for payload logs (each payload's client is detected as the live hook does).
    `skipped_lines` counts malformed lines and unknown records that were passed over.
    `synthetic_times` is true when the file had no times and `SYNTHETIC_STEP` spacing was used.
    `requests` are the model requests with the usage the recording states, in order (none for a
    payload log, a DSH log, or a file with no usage). `polls` are the calls no hook saw that poll
    a running command (Codex `write_stdin`), in order (`unhooked.polls`). `unhooked` names the
    other calls no hook fires for (call id: tool; Codex's code-mode `exec` and `wait`), each
    once however many files of the session hold it, and `unseen` counts them by tool: they are
    not judged. `unread` gives each Code Mode cell (its `exec` call id) whose
    script holds calls replay could not read (`codex_cells.read_script`) how many.
    """

    sources: tuple[str, ...]
    format: str
    client: Client | None
    session_id: str
    events: tuple[RecordedEvent, ...]
    calls: Mapping[str, RecordedCall] = field(default_factory=dict)
    cwd: str | None = None
    skipped_lines: int = 0
    synthetic_times: bool = False
    requests: tuple[Request, ...] = ()
    polls: tuple[Poll, ...] = ()
    unhooked: Mapping[str, str] = field(default_factory=dict)
    unread: Mapping[str, int] = field(default_factory=dict)

    @property
    def unseen(self) -> tuple[tuple[str, int], ...]:
        """How many of the `unhooked` calls each tool made, most first."""
        counts: dict[str, int] = {}
        for name in self.unhooked.values():
            counts[name] = counts.get(name, 0) + 1
        return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass(frozen=True, slots=True)
class Poll:
    """One `write_stdin` call of a Codex rollout, which fires no hook: when it was made (`time`)
    and answered (`done`, None when the rollout has no answer), the command `session` it polled
    and that session's `command` ("" when the rollout does not show its start), what it typed
    (`typed`, "" for a bare poll), whether its answer was empty, and the command's exit code once
    it ended (`code`; None while it still ran)."""

    time: float
    call_id: str
    session: int
    command: str
    typed: str
    done: float | None
    empty: bool
    code: int | None


@contextmanager
def odd_shapes_refused() -> Iterator[None]:
    """Turn the errors a recording with values of shapes no client writes (edited by hand, or
    hostile) can raise deep in the engine into one `ReplayError`."""
    try:
        yield
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError, UnicodeError) as exc:
        raise ReplayError(f"a record has a value of an unexpected shape ({type(exc).__name__}: {exc})") from None
