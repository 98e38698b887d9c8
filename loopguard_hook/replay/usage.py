"""The model requests of a recording and the tokens each used, as the client wrote them.

Claude Code writes each content block of an assistant message as its own line, every line with
the message's `message.id`, its `requestId` and the request's `message.usage` (`input_tokens`,
`cache_creation_input_tokens`, `cache_read_input_tokens`, `output_tokens`; seen on the corpus
transcripts of 2025-2026). One request is one `message.id` (else `requestId`); when its lines
disagree (output counted while streaming), the largest value of each field is kept. A request
whose usage is all zeros (transcripts rebuilt from other logs write `{"input_tokens": 0,
"output_tokens": 0}`) states none.

Codex writes `event_msg` `token_count` records whose `info.total_token_usage` is the session's
running total (`input_tokens`, of which `cached_input_tokens`, and `output_tokens`, of which
`reasoning_output_tokens`) and `info.last_token_usage` the last request's; a record is often
written twice. The usage of one request is the growth of the running total (a record that does
not grow it is a repeat; a total smaller than the one before started again from zero, as five
times in one corpus rollout), and the calls it produced are the function calls written since the
previous `token_count` (the record follows the request's output in the rollout; corpus rollouts
of 2025-10 to 2025-12). Rollouts without `total_token_usage` use `last_token_usage`, skipping a
record equal to the one before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import Request, Usage

_CLAUDE_FIELDS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class ClaudeRequests:
    """Collects the requests of one Claude Code transcript file as its assistant lines come."""

    def __init__(self) -> None:
        self._order: list[str] = []
        self._seen: dict[str, tuple[float, str, list[int], list[str]]] = {}

    def note(self, message: Mapping[str, Any], request_id: object, agent: str, time: float | None,
             calls: list[str]) -> None:
        """One assistant line: its `message`, the line's `requestId`, agent, time and tool_use ids."""
        usage = message.get("usage")
        key = message.get("id") if isinstance(message.get("id"), str) else request_id
        if not isinstance(usage, dict) or not isinstance(key, str):
            return
        counts = [_count(usage.get(name)) for name in _CLAUDE_FIELDS]
        found = self._seen.get(key)
        if found is None:
            self._order.append(key)
            self._seen[key] = (time or 0.0, agent, counts, list(calls))
            return
        kept = found[2]
        for i, value in enumerate(counts):
            kept[i] = max(kept[i], value)
        found[3].extend(c for c in calls if c not in found[3])

    def requests(self) -> list[Request]:
        out = []
        for key in self._order:
            time, agent, (fresh, read, written, output), calls = self._seen[key]
            if not (fresh or read or written or output):
                continue  # zeros stand for "not recorded" (transcripts rebuilt from other logs)
            out.append(Request(time, agent, Usage(fresh, read, written, output), tuple(calls)))
        return out


class CodexRequests:
    """Collects the requests of one Codex rollout: calls as they come, usage at `token_count`."""

    def __init__(self) -> None:
        self._calls: list[str] = []
        self._total: tuple[int, int, int] | None = None
        self._last: tuple[int, int, int] | None = None
        self.out: list[Request] = []

    def call(self, call_id: str) -> None:
        self._calls.append(call_id)

    def baseline(self, payload: Mapping[str, Any]) -> None:
        """Take a `token_count` as what was spent before this rollout's own requests: a forked
        thread's rollout copies its parent's records, and its running totals go on from the
        parent's (0.118.0, public rollouts)."""
        info = payload.get("info")
        if isinstance(info, dict):
            self._total = _triple(info.get("total_token_usage")) or self._total
            self._last = _triple(info.get("last_token_usage")) or self._last

    def token_count(self, payload: Mapping[str, Any], agent: str, time: float | None) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        total, last = _triple(info.get("total_token_usage")), _triple(info.get("last_token_usage"))
        if total is not None:
            before = self._total or (0, 0, 0)
            self._total = total
            if any(now < then for now, then in zip(total, before, strict=True)):
                before = (0, 0, 0)  # the running total started again (a new thread's, after a compaction)
            used = tuple(now - then for now, then in zip(total, before, strict=True))
        elif last is not None and last != self._last:
            self._last = used = last
        else:
            return
        fresh, cached, output = used
        if not fresh and not cached and not output:
            return  # a repeat of the record before
        self.out.append(Request(time or 0.0, agent, Usage(max(0, fresh - cached), cached, 0, output), tuple(self._calls)))
        self._calls = []


def _triple(usage: object) -> tuple[int, int, int] | None:
    if not isinstance(usage, dict):
        return None
    return _count(usage.get("input_tokens")), _count(usage.get("cached_input_tokens")), _count(usage.get("output_tokens"))
