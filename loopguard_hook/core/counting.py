"""Counting: what one attempt and one result do to the ledger's counters, and the call and
result rules run on them. Pure: no I/O.

An attempt (`count_attempt`) opens a call entry, moves the signature, chain, budget and path
counters (`_tally`), runs `rules.ON_CALL` and records what the verdict does to the call. A result
(`record_outcome`) stores the outcome, decides whether it is new evidence, and runs `rules.ON_RESULT`.
"""

import re
from typing import Any

from .. import rules
from ..config.settings import Config
from ..rules.duplicates import is_twin
from . import delivery, followup, ledger
from .event import HookEvent
from .host import Capabilities
from .ledger import (
    MAX_CALLS,
    MAX_ID_CHARS,
    MAX_OUTCOMES,
    MAX_PATHS,
    MAX_SIGNATURES,
    SUMMARY_CHARS,
    Agent,
    Call,
    Session,
    Signature,
)
from .outcome import Failure, Outcome, preview
from .redact import redact_prefix
from .signature import HEAD_CHARS, CallKey, call_key
from .tools import is_noop_mutation, is_read_tool, is_tracked, matches, mutated_paths, path_of
from .verdict import ALLOW, LOOP_RULES, Action, Decision, Rule, merge, strongest, with_mode


def summary(tool: str, key: CallKey) -> str:
    # A head longer than HEAD_CHARS is itself a cut: its last token may be half a secret.
    args = redact_prefix(key.head, SUMMARY_CHARS, complete=len(key.head) <= HEAD_CHARS)
    return f"{tool[:MAX_ID_CHARS]} {args}"[:SUMMARY_CHARS]


class Attempt:
    """The call being counted (a PreToolUse, or a post event or batch entry of an unseen call)."""

    __slots__ = ("tool", "tool_input", "tool_use_id")

    def __init__(self, tool: str, tool_input: Any, tool_use_id: str | None) -> None:
        self.tool, self.tool_input, self.tool_use_id = tool, tool_input, tool_use_id


def count_attempt(
    state: Session,
    agent: Agent,
    event: HookEvent,
    attempt: Attempt,
    config: Config,
    caps: Capabilities,
    now: float,
    *,
    can_deny: bool,
) -> Decision:
    """Count one attempt and run the call rules. Shared by PreToolUse and post events of unseen calls."""
    key = call_key(attempt.tool, attempt.tool_input, frozenset(config.ignore_args), max(HEAD_CHARS, config.preview_chars))
    share = ledger.limits(len(state["agents"]))
    call = _open_call(state, agent, key.digest, attempt.tool_use_id, now, share.calls)
    if config.bookkeeping_tools and matches(attempt.tool, config.bookkeeping_tools):
        agent["bookkeeping"] += 1
    ctx = _tally(event, agent, call, attempt, key, config, caps, now, share, can_deny=can_deny)
    verdicts = [verdict for rule in rules.ON_CALL if (verdict := rule(ctx)) is not None]
    return _finish_pre(state, agent, call, strongest(verdicts), config, ctx, can_deny=can_deny)


def _open_call(state: Session, agent: Agent, sig_id: str, tool_use_id: str | None, now: float, limit: int) -> Call:
    """A new ledger entry for the call, and the attempt totals."""
    agent["attempts"] += 1
    state["attempts"] = state.get("attempts", 0) + 1
    agent["seq"] += 1
    calls = agent["calls"]
    call: Call = {"sig": sig_id, "t": now, "seq": agent["seq"], "phase": "pre"}
    calls[call_id(tool_use_id, sig_id)] = call
    # A call still waiting for its result goes last: its result must meet its count.
    ledger.trim(calls, min(limit, MAX_CALLS), lambda k: (calls[k]["phase"] == "pre", calls[k]["seq"]))
    return call


def _tally(
    event: HookEvent,
    agent: Agent,
    call: Call,
    attempt: Attempt,
    key: CallKey,
    config: Config,
    caps: Capabilities,
    now: float,
    share: ledger.Limits,
    *,
    can_deny: bool,
) -> rules.CallContext:
    """Move the counters this attempt moves and describe it for the rules. An untracked tool
    and a parallel twin move none; any other call moves its signature, the chain, the budget and
    the read count of its path."""
    tool = attempt.tool
    blind = not caps.has_arguments(tool)  # the client sends no arguments for this tool
    tracked = counted = False
    sig: Signature | None = None
    previous_time: float | None = None
    count, path, path_count = 0, None, 0
    if not is_tracked(tool, config):
        call["untracked"] = True
    elif not blind and is_twin(agent, call, config, can_deny=can_deny, lost_posts="PostToolBatch" not in caps.sends):
        call["duplicate"] = True
        sig = agent["sigs"].get(key.digest)
        count = sig["n"] if sig else 1
    else:
        # An argument-blind call moves its tool's counters, which only its result can judge.
        tracked, counted = True, not blind
        sig = _signature(agent, tool, key, now, share.sigs, share.summary_chars)
        if sig.get("refused"):
            call["retry"] = True  # the retry of a refusal or a timeout (`_escalated_retry`)
        previous_time, count = _move(agent, sig, key.digest, config, now, counted=counted)
        if counted:
            path, path_count = _count_path(agent, tool, attempt.tool_input, config, share.paths)
    return rules.CallContext(
        event=event,
        config=config,
        caps=caps,
        agent=agent,
        call=call,
        sig=sig,
        tool=tool,
        tracked=tracked,
        counted=counted,
        attempt=count,
        previous_time=previous_time,
        now=now,
        key=key,
        path=path,
        path_count=path_count,
        tool_input=attempt.tool_input,
    )


def _bookkeeping_evidence(agent: Agent, outcome: Outcome, limit: int) -> None:
    """An untracked bookkeeping call's result judged like any other (the progress profile, as
    its seed): a result new to the agent sets the bookkeeping budget back."""
    seen = agent.setdefault("seen", [])
    if outcome.failure == Failure.HARD or outcome.fingerprint in seen:
        return
    seen.append(outcome.fingerprint)
    del seen[:-limit]
    agent["bookkeeping"] = 0


def _escalated_retry(agent: Agent, sig: Signature) -> None:
    """The retry of a sandbox-refused call with escalation asked for (Codex keeps the same input:
    its hooks do not see `sandbox_permissions`, openai/codex#40996), or of a timed-out call: a
    first run, not a repeat. Once per signature, so a loop of refusals still counts."""
    sig["escalated"] = True
    sig["n"] = 0
    agent["chain"] = None


def _move(agent: Agent, sig: Signature, sig_id: str, config: Config, now: float, *, counted: bool) -> tuple[float | None, int]:
    """One more attempt of `sig`: its counters, the chain and the budget. Returns when the
    previous attempt finished (or began) and the count the thresholds are judged on."""
    # The gap to a slow repeat runs from when the previous attempt finished: a build that takes
    # 80 s and is re-run at once is a quick repeat.
    previous_time = sig.get("done") or sig["t"]
    if sig.pop("refused", False):
        _escalated_retry(agent, sig)
    sig["n"] += 1
    sig["total"] += 1
    sig["t"] = now
    run = ledger.extend_chain(agent, sig_id)
    agent["since"] += 1
    return previous_time, sig["n"] if config.counting == "no_progress" or not counted else run


def _signature(agent: Agent, tool: str, key: CallKey, now: float, limit: int, limit_chars: int) -> Signature:
    """The signature of `key`, created on first use (at most `limit`, the oldest go)."""
    sigs = agent["sigs"]
    sig = sigs.get(key.digest)
    if sig is None:
        sig = sigs[key.digest] = {
            "tool": tool[:MAX_ID_CHARS],
            "summary": summary(tool, key)[:limit_chars],
            "n": 0,
            "total": 0,
            "t": None,
            "outcomes": [],
        }
        ledger.trim(sigs, min(limit, MAX_SIGNATURES), lambda k: sigs[k]["t"] or now)
    return sig


def _count_path(agent: Agent, tool: str, tool_input: Any, config: Config, limit: int) -> tuple[str | None, int]:
    """One more read of the path a read-like call targets (only when the same-path cap is on)."""
    if not (config.max_same_path and is_read_tool(tool, config)):
        return None, 0
    path = path_of(tool_input, config)
    if path is None:
        return None, 0
    if len(path) > 4 * MAX_ID_CHARS:
        path = "#" + call_key("", path, frozenset(), 0).digest
    paths = agent["paths"]
    paths[path] = count = paths.get(path, 0) + 1
    ledger.trim(paths, min(limit, MAX_PATHS), lambda k: 0)
    return path, count


def _finish_pre(
    state: Session, agent: Agent, call: Call, decision: Decision, config: Config, ctx: rules.CallContext, *, can_deny: bool
) -> Decision:
    """Name the call in the verdict, apply the mode, and record what the verdict does to the call
    (and what this call says about the model's answer to the previous intervention)."""
    if decision is ALLOW:
        if ctx.counted and "followup" in agent:
            followup.after_attempt(state, ctx.event.agent_id, agent, ctx.key.digest, decision, ctx.now)
        return decision  # the common case: nothing to record or render
    tool = ctx.tool
    decision = decision._replace(times=ctx.attempt, tool=tool, summary=summary(tool, ctx.key))
    decision = with_mode(decision, config, can_deny=can_deny)
    decision = delivery.end_of_turn(agent, decision, ctx.event.event, ctx.caps)
    if ctx.counted:
        followup.after_attempt(state, ctx.event.agent_id, agent, ctx.key.digest, decision, ctx.now)
    if decision.action >= Action.DENY:
        call["phase"] = "denied"
        if config.answer_only_after_deny and (
            decision.rule in LOOP_RULES or (decision.rule == Rule.DUPLICATE and not call.get("duplicate"))
        ):
            agent["answer_only"] = True
    if decision.action is Action.REMIND and decision.rule == Rule.REPEAT and config.remind_phase == "post" and can_deny:
        # The reminder and breaker profiles deliver reminders after the call, attached to its result.
        call["remind"] = decision.message
        return ALLOW
    return decision


def call_id(tool_use_id: str | None, sig_id: str) -> str:
    """The ledger key of a call: its `tool_use_id` (hashed when absurdly long), or, for a client
    that sends none, its signature, so a Pre and its Post still meet."""
    if tool_use_id is None:
        return "~" + sig_id
    if len(tool_use_id) > MAX_ID_CHARS:
        return "#" + call_key("", tool_use_id, frozenset(), 0).digest
    return tool_use_id


def post_call_id(tool_use_id: str | None, tool: str, tool_input: Any, config: Config) -> str:
    if tool_use_id is not None:
        return call_id(tool_use_id, "")
    return call_id(None, call_key(tool, tool_input, frozenset(config.ignore_args), 0).digest)


# -- results ----------------------------------------------------------------------------------


def record_outcome(
    agent: Agent,
    call: Call,
    tool: str,
    tool_input: Any,
    response: Any,
    outcome: Outcome,
    config: Config,
    caps: Capabilities,
    *,
    agents: int = 1,
) -> Decision | None:
    """Store a call's outcome; decide whether it is new evidence; run the result rules.

    New evidence is an outcome new to the agent (`Agent.seen`), not only to this signature:
    different commands with the same output, or errors cycling through a few texts, bring
    nothing new. An output that only repeats the call's own arguments (an `echo`) is no evidence.
    `agents` is how many agents the session holds (their tables share one budget)."""
    call["phase"] = "done"
    call["done"] = agent["updated"]
    if call.get("untracked"):
        if not config.evidence_call_counts and matches(tool, config.bookkeeping_tools):
            _bookkeeping_evidence(agent, outcome, ledger.limits(agents).seen)
        return None
    sig = agent["sigs"].get(call["sig"])
    if sig is None:
        return None
    share = ledger.limits(agents)
    seen = agent.setdefault("seen", [])
    mutation = matches(tool, config.mutating_tools)
    new = outcome.fingerprint not in seen and not (not mutation and echoes_arguments(outcome.text, tool_input))
    productive = outcome.failure != Failure.HARD and (
        new or (mutation and outcome.failure == Failure.NONE and not is_noop_mutation(tool, tool_input, response))
    )
    if outcome.fingerprint in seen:
        seen.remove(outcome.fingerprint)  # most recently seen last: the oldest is forgotten first
    seen.append(outcome.fingerprint)
    del seen[: -share.seen]
    sig["outcomes"] = [outcome.fingerprint][-MAX_OUTCOMES:]
    limit = min(config.result_preview_chars, share.preview_chars)
    sig["preview"] = preview(redact_prefix(outcome.text, limit + 1), limit)
    failed_before = sig.get("failed")
    sig["failed"] = outcome.failure
    if outcome.failure and not sig.get("escalated") and is_sandbox_refusal(outcome.text):
        sig["refused"] = True
    ledger.keep_recent_previews(agent, share.previews)
    sig["done"] = agent["updated"]  # when this call last finished: the gap to a slow repeat
    # A new failure text restarts the count only after failures: after a success of the same
    # call ("File unchanged since last read") it says nothing new about the task.
    changing_failure = new and failed_before != Failure.NONE
    _count_evidence(agent, call, sig, new=new, changing_failure=changing_failure, productive=productive, config=config)
    if not caps.has_arguments(tool):
        sig["repeated"] = not (new or productive)
    if mutation and outcome.failure == Failure.NONE:
        _forget_reads(agent, mutated_paths(tool, tool_input, config))
    ctx = rules.ResultContext(config, caps, agent, call, sig, tool, outcome, new, tool_input, response, agents)
    verdicts = [verdict for rule in rules.ON_RESULT if (verdict := rule(ctx)) is not None]
    return merge(verdicts) if verdicts else None


def _count_evidence(
    agent: Agent, call: Call, sig: Signature, *, new: bool, changing_failure: bool, productive: bool, config: Config
) -> None:
    """A productive result sets every other signature and the budgets back; a new failure text
    after failures restarts only its own count (with `new_failure_is_evidence`)."""
    if productive and not call.get("duplicate"):
        for other_id, other in agent["sigs"].items():
            if other_id != call["sig"]:
                other["n"] = 0
        # The call that brought the evidence counts 1 (balanced), or not at all (the progress
        # profile, as dsh-agent-loop-guard: read-0 new, read-1..5 run, read-6 denied).
        sig["n"] = 1 if config.evidence_call_counts else 0
        agent["since"] = 0
        agent["bookkeeping"] = 0
    elif changing_failure and not call.get("duplicate") and config.new_failure_is_evidence:
        # A failure that says something new (a poll that exits non-zero while its progress
        # changes) is new evidence for its own signature, though not progress for the others.
        sig["n"] = 1
    if new:
        call["new"] = True


#: Claude Code's text for a call it never ran because a parallel sibling failed (PostToolBatch
#: only; anthropics/claude-code#64346, #64247).
CANCELLED = "<tool_use_error>Cancelled: parallel tool call"


def is_cancelled(text: str) -> bool:
    """Whether a batch result says the call never ran (cancelled with a failing sibling)."""
    return text.startswith(CANCELLED)


def uncount(agent: Agent, call: Call) -> None:
    """Take back the attempt of a call that never ran: it is no attempt with a result."""
    call["phase"] = "denied"
    call.pop("remind", None)
    if call.get("untracked") or call.get("duplicate"):
        return
    sig = agent["sigs"].get(call["sig"])
    if sig is not None:
        sig["n"] = max(0, sig["n"] - 1)
        sig["total"] = max(0, sig["total"] - 1)
    agent["since"] = max(0, agent["since"] - 1)
    chain = agent["chain"]
    if chain and chain[0] == call["sig"]:
        chain[1] = max(0, int(chain[1]) - 1)


# What a sandbox prints when it refuses a call (no network, a read-only or unwritable path), or a
# timeout: the next identical call is likely its retry with escalation or a longer timeout, which
# no signature sees (Claude Code's `timeout` is ignored; Codex sends no `timeout_ms` to hooks).
_SANDBOX_REFUSAL = (
    r"Could not resolve host|Temporary failure in name resolution|Network is unreachable"
    r"|Operation not permitted|Read-only file system|sandbox|timed out after"
)
#: What bash prints for a script it cannot parse: no refusal, though Codex words it "failed in sandbox".
_SYNTAX_ERROR = r"unexpected EOF while looking for matching|syntax error near unexpected token|syntax error: unexpected end"


def is_sandbox_refusal(text: str) -> bool:
    return re.search(_SANDBOX_REFUSAL, text[:4096]) is not None and re.search(_SYNTAX_ERROR, text[:4096]) is None


#: An output shorter than this is not judged an echo: a short word may be in the arguments by chance ("ok", a count).
MIN_ECHO_CHARS = 8


def echoes_arguments(text: str, tool_input: Any) -> bool:
    """Whether an output only repeats text of the call's own arguments (`echo "checking (3)"`):
    the agent wrote it, so it tells the agent nothing."""
    body = text.strip()
    if len(body) < MIN_ECHO_CHARS or not isinstance(tool_input, dict):
        return False
    return any(isinstance(value, str) and body in value for value in tool_input.values())


def _forget_reads(agent: Agent, touched: list[str] | None) -> None:
    """A successful mutation: the paths it touched (all of them when unknown) may be read again."""
    if touched is None:
        agent["paths"] = {}
    else:
        for path in touched:
            agent["paths"].pop(path, None)
