"""Contexts for the rules' unit tests (`tests/rules/`), built as the engine builds them: a real
ledger, a real call key and the host's real capability table."""

from __future__ import annotations

from typing import Any

from loopguard_hook.config.settings import Config
from loopguard_hook.core import ledger
from loopguard_hook.core.event import Client, HookEvent
from loopguard_hook.core.host import Capabilities
from loopguard_hook.core.outcome import Outcome, outcome_of_response
from loopguard_hook.core.signature import call_key
from loopguard_hook.hosts import claude_code
from loopguard_hook.rules.base import CallContext, ResultContext, TextContext


def agent(now: float = 100.0) -> ledger.Agent:
    return ledger.new_agent(now)


def call_ctx(
    tool: str = "Read",
    tool_input: Any = None,
    *,
    attempt: int = 1,
    config: Config | None = None,
    entry: ledger.Agent | None = None,
    event: str = "PreToolUse",
    caps: Capabilities = claude_code.CAPABILITIES,
    now: float = 100.0,
    previous_time: float | None = None,
    tracked: bool = True,
    counted: bool = True,
    since: int = 1,
    bookkeeping: int = 0,
    call: ledger.Call | None = None,
    total: int | None = None,
) -> CallContext:
    """One attempt of `tool`, counted `attempt` times (its signature in the agent's ledger)."""
    tool_input = {"file_path": "/p/a.py"} if tool_input is None else tool_input
    key = call_key(tool, tool_input, frozenset(), 1000)
    entry = agent(now) if entry is None else entry
    sig = entry["sigs"].setdefault(
        key.digest, {"tool": tool, "summary": tool, "n": 0, "total": 0, "t": now, "outcomes": []}
    )
    sig["n"], sig["total"] = attempt, attempt if total is None else total
    call = {"sig": key.digest, "t": now, "seq": 1, "phase": "pre"} if call is None else call
    return CallContext(
        event=HookEvent(event, Client.CLAUDE_CODE, "s", tool_name=tool, tool_input=tool_input),
        config=Config() if config is None else config,
        caps=caps,
        agent=entry,
        call=call,
        sig=sig,
        tool=tool,
        tracked=tracked,
        counted=counted,
        attempt=attempt,
        previous_time=previous_time,
        now=now,
        key=key,
        share=ledger.limits(1),
        since=since,
        bookkeeping=bookkeeping,
        tool_input=tool_input,
    )


def result_ctx(
    tool: str,
    tool_input: Any,
    response: Any,
    *,
    config: Config | None = None,
    entry: ledger.Agent | None = None,
    caps: Capabilities = claude_code.CAPABILITIES,
    new: bool = True,
    productive: bool = True,
    outcome: Outcome | None = None,
    n: int = 1,
    total: int = 1,
    now: float = 100.0,
) -> ResultContext:
    """The result of one call of `tool` (its signature counted `n` times since the evidence)."""
    key = call_key(tool, tool_input, frozenset(), 1000)
    entry = agent(now) if entry is None else entry
    sig = entry["sigs"].setdefault(key.digest, {"tool": tool, "summary": tool, "n": n, "total": total, "t": now, "outcomes": []})
    sig["n"], sig["total"] = n, total
    call: ledger.Call = {"sig": key.digest, "t": now, "seq": 1, "phase": "done"}
    outcome = outcome_of_response(tool, response) if outcome is None else outcome
    return ResultContext(
        Config() if config is None else config, caps, entry, call, sig, tool, outcome, new, productive, tool_input, response, 1
    )


def text_ctx(
    event: str, *, state: ledger.Session | None = None, config: Config | None = None, texts: tuple[str, ...] = (), **fields: Any
) -> TextContext:
    state = ledger.new_session("s", "claude-code", 100.0) if state is None else state
    return TextContext(
        state=state,
        event=HookEvent(event, Client.CLAUDE_CODE, "s", **fields),
        config=Config() if config is None else config,
        caps=claude_code.CAPABILITIES,
        texts=texts,
    )
