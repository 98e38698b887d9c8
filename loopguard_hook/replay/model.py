"""The recording model every reader produces and the driver consumes: hook payloads in order."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..core.event import Client

#: Spacing of made-up times when a payload log has none (seconds): well inside the parallel
#: window for neighbours, far from the slow-repeat threshold for a few hundred events.
SYNTHETIC_STEP = 0.1


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
    """

    time: float
    payload: Mapping[str, Any]
    source: str = ""
    line: int = 0
    texts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Recording:
    """A session rebuilt as hook payloads, ready for `replay`.

    `format` is the reader's format name (a `Format` for the built-in readers).
    `client` is None for payload logs (each payload's client is detected as the live hook does).
    `skipped_lines` counts malformed lines and unknown records that were passed over.
    `synthetic_times` is true when the file had no times and `SYNTHETIC_STEP` spacing was used.
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


@contextmanager
def odd_shapes_refused() -> Iterator[None]:
    """Turn the errors a recording with values of shapes no client writes (edited by hand, or
    hostile) can raise deep in the engine into one `ReplayError`."""
    try:
        yield
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError, UnicodeError) as exc:
        raise ReplayError(f"a record has a value of an unexpected shape ({type(exc).__name__}: {exc})") from None
