"""The detection engine: one hook event + the session ledger -> a decision. Pure: no I/O.

The ledger is a plain JSON-ready dict (the state file's content), changed in place. The clock is
passed in as `now` (seconds since the epoch), so live hooks and `replay` run the same code.

Counting (both counters count the attempt at `PreToolUse`; denied attempts count too):

- `consecutive`: identical tracked calls in a row (the reminder and breaker profiles); excluded
  tools are transparent; a different tracked call restarts the chain at 1.
- `no_progress`: attempts of a signature since the last new evidence. A productive call (not a
  failure, and either a mutation or an outcome this signature has not produced before) sets every
  other signature back to 0 and restarts its own count at 1. A failure with a new text restarts
  only its own count, and only with `new_failure_is_evidence`.

Rules are small functions over a `CallContext`, listed by hand in `PRE_RULES`; the most severe
verdict wins, the first listed on a tie.
"""

import enum
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from . import messages as msg
from . import textloop
from .config import Config
from .payload import MAIN_AGENT, BatchCall, Client, HookEvent
from .redact import redact, redact_prefix
from .signature import (
    HEAD_CHARS,
    CallKey,
    Failure,
    Outcome,
    call_key,
    digest,
    error_signature,
    outcome_of_error,
    outcome_of_response,
    preview,
)

STATE_VERSION = 1

MAX_AGENTS = 8
MAX_SIGNATURES = 64
MAX_OUTCOMES = 8
MAX_PREVIEWS = 8
MAX_CALLS = 64
MAX_PATHS = 64
MAX_ERRORS = 32
MAX_RECENT = 20
SUMMARY_CHARS = 120
MAX_ID_CHARS = 128


class Action(enum.IntEnum):
    """What the hook answers, in rising severity."""

    ALLOW = 0
    REMIND = 1
    DENY = 2
    STOP = 3


class Rule(enum.StrEnum):
    """Rule codes, written to the audit log and quoted in `status`."""

    REPEAT = "LOOP_GUARD_REPEAT"
    END_TURN = "LOOP_GUARD_END_TURN"
    SLOW_REPEAT = "LOOP_GUARD_SLOW_REPEAT"
    SAME_PATH = "LOOP_GUARD_SAME_PATH"
    LIMIT = "LOOP_GUARD_LIMIT"
    PROGRESS_LIMIT = "LOOP_GUARD_PROGRESS_LIMIT"
    STOP = "LOOP_GUARD_STOP"
    DUPLICATE = "LOOP_GUARD_DUPLICATE"
    SAME_ERROR = "LOOP_GUARD_SAME_ERROR"
    TEXT = "LOOP_GUARD_TEXT"


#: Denials after which the progress profile switches the turn to answer-only mode.
LOOP_RULES = frozenset({Rule.REPEAT, Rule.END_TURN, Rule.SAME_PATH, Rule.LIMIT, Rule.PROGRESS_LIMIT})


class Decision(NamedTuple):
    """The guard's answer to one event.

    `action` is what goes on the wire after the mode is applied; `intended` is what the rules
    decided (they differ under `advise` and `observe`). `message` is the model-facing text,
    `stop_reason` the Claude Code `stopReason`, `system_message` a user-only notice. `advice` is
    the text used instead of `message` when a denial is turned into a reminder (`advise` mode, or
    a call that already ran): a denial's text would tell the model the call was not run.
    """

    action: Action = Action.ALLOW
    rule: str = ""
    message: str = ""
    times: int = 0
    tool: str | None = None
    summary: str = ""
    intended: Action = Action.ALLOW
    stop_reason: str = ""
    system_message: str = ""
    advice: str = ""


ALLOW = Decision()


# -- ledger -----------------------------------------------------------------------------------


def new_session(session_id: str, client: Client, now: float) -> dict[str, Any]:
    """An empty session ledger."""
    return {
        "version": STATE_VERSION,
        "session_id": session_id,
        "client": client.value,
        "created": now,
        "updated": now,
        "events": 0,
        "attempts": 0,
        "agents": {},
        "recent": [],
        "text": {},
    }


def _new_agent(now: float) -> dict[str, Any]:
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


def _agent(state: dict[str, Any], agent_id: str, now: float) -> dict[str, Any]:
    agents: dict[str, Any] = state["agents"]
    agent = agents.get(agent_id)
    if agent is None:
        agent = agents[agent_id] = _new_agent(now)
        if len(agents) > MAX_AGENTS:
            idle = min((a for a in agents if a not in ("main", agent_id)), key=lambda a: agents[a]["updated"])
            del agents[idle]
    agent["updated"] = now
    return agent


def _reset_agent(agent: dict[str, Any], *, keep_outcomes: bool = False) -> None:
    """Forget counters (user prompt, compaction); attempts totals stay for `status`."""
    agent["chain"] = None
    agent["since"] = 0
    agent["bookkeeping"] = 0
    agent["answer_only"] = False
    agent["paths"] = {}
    agent["errors"] = {}
    if keep_outcomes:
        for sig in agent["sigs"].values():
            sig["n"] = 0
    else:
        agent["sigs"] = {}
        agent["calls"] = {}


def _trim(table: dict[str, Any], limit: int, key: Callable[[str], Any]) -> None:
    if len(table) > limit:
        for name in sorted(table, key=key)[: len(table) - limit]:
            del table[name]


# -- tool classification ----------------------------------------------------------------------

def matches(name: str, patterns: tuple[str, ...]) -> bool:
    """True when `name` matches one pattern; `*` is the only wildcard (any run of characters).

    Patterns come from config files, a project's too: matching takes time linear in the name
    for each literal piece, never the exponential backtracking of `*a*a*a…` as a regex.
    """
    for pattern in patterns:
        if "*" not in pattern:
            if name == pattern:
                return True
        elif _wildcard(name, pattern.split("*")):
            return True
    return False


def _wildcard(name: str, pieces: list[str]) -> bool:
    """`pieces` of a pattern split at `*` (at least two): the first must start `name`, the last
    end it, the middle ones appear in order between, each as early as possible."""
    first, last = pieces[0], pieces[-1]
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    at, end = len(first), len(name) - len(last)
    for piece in pieces[1:-1]:
        found = name.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def is_tracked(tool: str, config: Config) -> bool:
    """Tracked by the repeat counters: in `include` (empty = all) and not in `exclude`."""
    if config.include and not matches(tool, config.include):
        return False
    return not matches(tool, config.exclude)


def is_read_tool(tool: str, config: Config) -> bool:
    """A read-like tool for the same-path cap (breaker profile: names, or any name containing "read")."""
    return matches(tool, config.read_tools) or (config.match_read_by_substring and "read" in tool.lower())


def path_of(tool_input: Any, config: Config) -> str | None:
    """The path a read-like call targets, found through `path_keys`."""
    if isinstance(tool_input, dict):
        for key in config.path_keys:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value
    return None


_PATCH_PATH = r"^\*\*\* (?:Add|Update|Delete) File: (.+)$"


def mutated_paths(tool: str, tool_input: Any, config: Config) -> list[str] | None:
    """Paths a mutation touched; None when unknown (then every read cap is reset)."""
    if isinstance(tool_input, dict):
        command = tool_input.get("command")
        if tool == "apply_patch" and isinstance(command, str):
            return [p.strip() for p in re.findall(_PATCH_PATH, command, re.M)]
        path = path_of(tool_input, config)
        if path:
            return [path]
    return None


def is_noop_mutation(tool: str, tool_input: Any, response: Any) -> bool:
    """A Claude Code Write whose `originalFile` already equals the new content changed nothing."""
    if tool == "Write" and isinstance(tool_input, dict) and isinstance(response, dict):
        return response.get("originalFile") == tool_input.get("content") is not None
    return False


def arguments_text(key: CallKey, limit: int) -> str:
    """The canonical arguments of a call, cut to `limit` characters."""
    return preview(key.head, limit)


def _summary(tool: str, key: CallKey) -> str:
    # A head longer than HEAD_CHARS is itself a cut: its last token may be half a secret.
    args = redact_prefix(key.head, SUMMARY_CHARS, complete=len(key.head) <= HEAD_CHARS)
    return f"{tool[:MAX_ID_CHARS]} {args}"[:SUMMARY_CHARS]


def _hook_denial(text: str) -> bool:
    # Claude Code 2.1.332 renders a PreToolUse denial as "PreToolUse:<Tool> hook error: <reason>".
    return text.startswith("PreToolUse:") and " hook " in text[:200]


# -- pre-call rules ---------------------------------------------------------------------------


class CallContext(NamedTuple):
    """Everything a rule may read about one counted attempt."""

    event: HookEvent
    config: Config
    agent: dict[str, Any]
    sig: dict[str, Any]
    tool: str
    attempt: int
    previous_time: float | None
    now: float
    key: CallKey
    path: str | None
    path_count: int


PreRule = Callable[[CallContext], Decision | None]


def _previous_result(ctx: CallContext) -> str | None:
    text = ctx.sig.get("preview")
    return text if isinstance(text, str) else None


def repeat_rule(ctx: CallContext) -> Decision | None:
    """Thresholds `remind_at`, `deny_at`, `stop_at` on the profile's counter."""
    cfg, n, tool = ctx.config, ctx.attempt, ctx.tool
    in_a_row = cfg.counting == "consecutive"
    limit = cfg.result_preview_chars
    if cfg.stop_at and n >= cfg.stop_at or cfg.deny_at and n >= cfg.deny_at:
        advice = msg.detailed_reminder(tool, n, arguments_text(ctx.key, cfg.preview_chars), in_a_row=in_a_row)
    if cfg.stop_at and n >= cfg.stop_at:
        decision = Decision(
            Action.STOP,
            Rule.END_TURN,
            msg.stop_text(tool, n, _previous_result(ctx), limit, ends_turn=ctx.event.client is Client.CLAUDE_CODE),
            stop_reason=msg.stop_reason(tool, n),
            advice=advice,
        )
    elif cfg.deny_at and n >= cfg.deny_at:
        denial = msg.repeat_denial(tool, n, _previous_result(ctx), limit, in_a_row=in_a_row)
        decision = Decision(Action.DENY, Rule.REPEAT, denial, advice=advice)
    else:
        thresholds = cfg.effective_remind_at()
        if n not in thresholds:
            return None
        if n == thresholds[0]:
            text = msg.gentle_reminder(tool, n)
        else:
            text = msg.detailed_reminder(tool, n, arguments_text(ctx.key, cfg.preview_chars), in_a_row=in_a_row)
        return Decision(Action.REMIND, Rule.REPEAT, text)
    slow = cfg.slow_repeat_seconds
    if slow and ctx.previous_time is not None and ctx.now - ctx.previous_time >= slow:
        return Decision(Action.REMIND, Rule.SLOW_REPEAT, msg.slow_repeat_reminder(tool, n, ctx.now - ctx.previous_time))
    return decision


def same_path_rule(ctx: CallContext) -> Decision | None:
    """`max_same_path`: reads of one path since its last mutation, whatever the other arguments."""
    cap = ctx.config.max_same_path
    if cap and ctx.path is not None and ctx.path_count > cap:
        return Decision(
            Action.DENY,
            Rule.SAME_PATH,
            msg.same_path_denial(ctx.tool, ctx.path, ctx.path_count, cap),
            advice=msg.same_path_reminder(ctx.tool, ctx.path, ctx.path_count, cap),
        )
    return None


def call_budget_rule(ctx: CallContext) -> Decision | None:
    """`max_calls_since_progress`: tracked attempts with no new evidence at all."""
    cap = ctx.config.max_calls_since_progress
    since = ctx.agent["since"]
    if cap and since > cap:
        return Decision(Action.DENY, Rule.LIMIT, msg.limit_denial(Rule.LIMIT, since, cap, False))
    return None


PRE_RULES: tuple[PreRule, ...] = (repeat_rule, same_path_rule, call_budget_rule)


def _strongest(decisions: list[Decision]) -> Decision:
    best = ALLOW
    for decision in decisions:
        if decision.action > best.action:
            best = decision
    return best


# -- events -----------------------------------------------------------------------------------


def apply(
    state: dict[str, Any], event: HookEvent, config: Config, now: float, texts: tuple[str, ...] | list[str] = ()
) -> Decision:
    """Update `state` with `event` and decide. The returned decision already has the mode applied.

    `texts` are assistant texts written since the previous event (read from the transcript by
    the caller); they feed the text-loop detectors.
    """
    state["events"] = state.get("events", 0) + 1
    state["updated"] = now
    state["config"] = {
        "profile": config.profile,
        "mode": config.mode,
        "counting": config.counting,
        "remind_at": list(config.effective_remind_at()),
        "deny_at": config.deny_at,
        "stop_at": config.stop_at,
    }
    name = event.event
    if name == "PreToolUse":
        decision = _merge([_pre_tool_use(state, event, config, now), _text_rules(state, event, config, texts)])
    elif name in ("PostToolUse", "PostToolUseFailure"):
        decision = _post_tool_use(state, event, config, now)
    elif name == "PostToolBatch":
        decision = _post_tool_batch(state, event, config, now)
    elif name == "UserPromptSubmit":
        for agent in state["agents"].values():
            _reset_agent(agent)
        decision = _text_rules(state, event, config, texts)
    elif name == "SessionStart":
        if event.source == "compact" and config.reset_on_compaction:
            for agent in state["agents"].values():
                _reset_agent(agent, keep_outcomes=True)
        decision = ALLOW
    elif name in ("Stop", "SubagentStop"):
        decision = _text_rules(state, event, config, texts)
    else:
        decision = ALLOW
    if decision.intended is not Action.ALLOW:
        _remember(state, event, decision, now)
    return decision


def _with_mode(decision: Decision, config: Config, *, can_deny: bool = True) -> Decision:
    """Apply `mode` (and what the event can carry) to what the rules decided."""
    intended = decision.action
    action = intended
    if config.mode == "observe":
        action = Action.ALLOW
    elif config.mode == "advise" or not can_deny:
        action = min(action, Action.REMIND)
    if action == intended and decision.intended == intended:
        return decision
    message = decision.message
    if action is Action.REMIND and intended >= Action.DENY and decision.advice:
        message = decision.advice
    return decision._replace(action=action, intended=intended, message=message)


def _count_attempt(
    state: dict[str, Any],
    agent: dict[str, Any],
    event: HookEvent,
    tool: str,
    tool_input: Any,
    tool_use_id: str | None,
    config: Config,
    now: float,
    *,
    can_deny: bool,
) -> Decision:
    """Count one attempt and run the rules. Shared by PreToolUse and post events of unseen calls."""
    agent["attempts"] += 1
    state["attempts"] = state.get("attempts", 0) + 1
    agent["seq"] += 1
    key = call_key(tool, tool_input, frozenset(config.ignore_args), max(HEAD_CHARS, config.preview_chars))
    sig_id = key.digest
    calls: dict[str, Any] = agent["calls"]
    call: dict[str, Any] = {"sig": sig_id, "t": now, "seq": agent["seq"], "phase": "pre"}
    calls[call_id(tool_use_id, sig_id)] = call
    _trim(calls, MAX_CALLS, lambda k: calls[k]["seq"])

    if config.bookkeeping_tools and matches(tool, config.bookkeeping_tools):
        agent["bookkeeping"] += 1
    decisions: list[Decision] = []
    if agent["answer_only"]:
        decisions.append(Decision(Action.DENY, Rule.STOP, msg.answer_only_denial(Rule.STOP)))
    cap = config.max_bookkeeping_calls_since_progress
    if cap and agent["bookkeeping"] > cap and matches(tool, config.bookkeeping_tools):
        decisions.append(
            Decision(Action.DENY, Rule.PROGRESS_LIMIT, msg.limit_denial(Rule.PROGRESS_LIMIT, agent["bookkeeping"], cap, True))
        )

    if not is_tracked(tool, config):
        call["untracked"] = True
        return _finish_pre(agent, call, _strongest(decisions), config, tool, 0, key, can_deny=can_deny)

    sigs: dict[str, Any] = agent["sigs"]
    if config.parallel_duplicates != "count" and can_deny:
        if _parallel_twin(agent, call, config.parallel_window_seconds, lost_posts=event.client is Client.CODEX):
            call["duplicate"] = True
            sig = sigs.get(sig_id)
            count = sig["n"] if sig else 1
            if config.parallel_duplicates == "deny":
                decisions.append(Decision(Action.DENY, Rule.DUPLICATE, msg.duplicate_denial(Rule.DUPLICATE, tool)))
            else:
                decisions.append(Decision(Action.ALLOW, Rule.DUPLICATE))
            best = _strongest(decisions)
            if best.action is Action.ALLOW:
                best = Decision(Action.ALLOW, Rule.DUPLICATE)
            return _finish_pre(agent, call, best, config, tool, count, key, can_deny=can_deny)

    sig = sigs.get(sig_id)
    if sig is None:
        sig = sigs[sig_id] = {
            "tool": tool[:MAX_ID_CHARS],
            "summary": _summary(tool, key),
            "n": 0,
            "total": 0,
            "t": None,
            "outcomes": [],
        }
        _trim(sigs, MAX_SIGNATURES, lambda k: sigs[k]["t"] or now)
    # The gap to a slow repeat runs from when the previous attempt finished: a build that takes
    # 80 s and is re-run at once is a quick repeat.
    previous_time = sig.get("done") or sig["t"]
    sig["n"] += 1
    sig["total"] += 1
    sig["t"] = now
    chain = agent["chain"]
    if chain and chain[0] == sig_id:
        chain[1] += 1
    else:
        chain = agent["chain"] = [sig_id, 1]
    agent["since"] += 1
    count = sig["n"] if config.counting == "no_progress" else chain[1]

    path = path_count = None
    if config.max_same_path and is_read_tool(tool, config):
        path = path_of(tool_input, config)
        if path is not None:
            if len(path) > 4 * MAX_ID_CHARS:
                path = "#" + call_key("", path, frozenset(), 0).digest
            paths: dict[str, int] = agent["paths"]
            paths[path] = path_count = paths.get(path, 0) + 1
            _trim(paths, MAX_PATHS, lambda k: 0)

    ctx = CallContext(
        event=event,
        config=config,
        agent=agent,
        sig=sig,
        tool=tool,
        attempt=count,
        previous_time=previous_time,
        now=now,
        key=key,
        path=path,
        path_count=path_count or 0,
    )
    for rule in PRE_RULES:
        verdict = rule(ctx)
        if verdict is not None:
            decisions.append(verdict)
    return _finish_pre(agent, call, _strongest(decisions), config, tool, count, key, can_deny=can_deny)


def _finish_pre(
    agent: dict[str, Any],
    call: dict[str, Any],
    decision: Decision,
    config: Config,
    tool: str,
    count: int,
    key: CallKey,
    *,
    can_deny: bool,
) -> Decision:
    if decision is ALLOW:
        return decision  # the common case: nothing to record or render
    decision = decision._replace(times=count, tool=tool, summary=_summary(tool, key))
    decision = _with_mode(decision, config, can_deny=can_deny)
    if decision.action >= Action.DENY:
        call["phase"] = "denied"
        if config.answer_only_after_deny and decision.rule in LOOP_RULES:
            agent["answer_only"] = True
    if decision.action is Action.REMIND and decision.rule == Rule.REPEAT and config.remind_phase == "post" and can_deny:
        # The reminder and breaker profiles deliver reminders after the call, attached to its result.
        call["remind"] = decision.message
        return ALLOW
    return decision


def _parallel_twin(agent: dict[str, Any], call: dict[str, Any], window: float, *, lost_posts: bool = False) -> bool:
    """True when an identical call of this agent was issued together with `call`, so the model
    could not have seen its result first: it belongs to the same batch (no `PostToolBatch` since,
    for an agent whose batches Claude Code reports) or, for one whose batches no event reports
    (Codex; a Claude Code agent before its first batch ends), its result had not arrived when
    `call` was issued. Either way within `window` seconds.

    The hook processes of parallel calls start together but take the lock in any order, so a
    twin's post event may already be in the ledger (Claude Code 2.1.332 and Codex 0.171.0 LAB:
    the PreToolUse hooks of parallel calls start within 20 ms and overlap). A twin denied by a
    rule does not count: the new call is judged on its own.

    `lost_posts` (Codex, whose batches no event ever reports): an identical call whose result
    never came is a twin only within `NO_RESULT_WINDOW_SECONDS`, so that a lost PostToolUse does
    not merge a retry into its batch.
    """
    now = call["t"]
    batch_start = agent.get("batch_seq", 0)
    batched = batch_start > 0
    for other in agent["calls"].values():
        if (
            other is not call
            and other["sig"] == call["sig"]
            and other["phase"] != "denied"
            and not other.get("untracked")
            and other["seq"] > batch_start
            and abs(now - other["t"]) <= _twin_window(window, batched, other, lost_posts)
            and (batched or other.get("done", now + 1) > now)
        ):
            return True
    return False


#: Seconds within which an identical call whose result never came (its PostToolUse lost, or not
#: yet run) is taken for its parallel twin: the hooks of one batch are started within ~20 ms
#: (LAB notes above; the clock is the kernel's record of the process start), while a retry
#: waits for the tool to run and the model to answer.
NO_RESULT_WINDOW_SECONDS = 0.3
#: Seconds within which a call of the same reported batch (no `PostToolBatch` since) is a twin:
#: the batch boundary is known, so a loaded machine that starts a batch's hooks seconds apart
#: does not split it.
BATCH_WINDOW_SECONDS = 5.0


def _twin_window(window: float, batched: bool, other: dict[str, Any], lost_posts: bool) -> float:
    if batched:
        return max(window, BATCH_WINDOW_SECONDS)
    return window if "done" in other or not lost_posts else min(window, NO_RESULT_WINDOW_SECONDS)


def call_id(tool_use_id: str | None, sig_id: str) -> str:
    """The ledger key of a call: its `tool_use_id` (hashed when absurdly long), or, for a client
    that sends none, its signature, so a Pre and its Post still meet."""
    if tool_use_id is None:
        return "~" + sig_id
    if len(tool_use_id) > MAX_ID_CHARS:
        return "#" + call_key("", tool_use_id, frozenset(), 0).digest
    return tool_use_id


def _post_call_id(tool_use_id: str | None, tool: str, tool_input: Any, config: Config) -> str:
    if tool_use_id is not None:
        return call_id(tool_use_id, "")
    return call_id(None, call_key(tool, tool_input, frozenset(config.ignore_args), 0).digest)


def _pre_tool_use(state: dict[str, Any], event: HookEvent, config: Config, now: float) -> Decision:
    agent = _agent(state, event.agent_id, now)
    assert event.tool_name is not None
    if event.tool_use_id is not None and call_id(event.tool_use_id, "") in agent["calls"]:
        # The same call delivered again: the hook is registered twice (a plugin copy and a
        # settings copy run in parallel), or a payload was re-sent. Count each call once; the
        # client merges both answers, and a denial from the first one wins.
        return ALLOW
    return _count_attempt(state, agent, event, event.tool_name, event.tool_input, event.tool_use_id, config, now, can_deny=True)


def _record_outcome(
    agent: dict[str, Any],
    call: dict[str, Any],
    tool: str,
    tool_input: Any,
    response: Any,
    outcome: Outcome,
    config: Config,
) -> Decision | None:
    """Store a call's outcome; decide whether it is new evidence. May return a same-error reminder."""
    call["phase"] = "done"
    call["done"] = agent["updated"]
    if call.get("untracked"):
        return None
    sig = agent["sigs"].get(call["sig"])
    if sig is None:
        return None
    outcomes: list[str] = sig["outcomes"]
    new = outcome.fingerprint not in outcomes
    mutation = matches(tool, config.mutating_tools)
    productive = outcome.failure != Failure.HARD and (
        new or (mutation and outcome.failure == Failure.NONE and not is_noop_mutation(tool, tool_input, response))
    )
    if new:
        outcomes.append(outcome.fingerprint)
        del outcomes[:-MAX_OUTCOMES]
    limit = config.result_preview_chars
    sig["preview"] = preview(redact_prefix(outcome.text, limit + 1), limit)
    sig["failed"] = outcome.failure
    _keep_recent_previews(agent)
    sig["done"] = agent["updated"]  # when this call last finished: the gap to a slow repeat
    if productive and not call.get("duplicate"):
        for other_id, other in agent["sigs"].items():
            if other_id != call["sig"]:
                other["n"] = 0
        sig["n"] = 1
        agent["since"] = 0
        agent["bookkeeping"] = 0
    elif new and not call.get("duplicate") and config.new_failure_is_evidence:
        # A failure that says something new (a poll that exits non-zero while its progress
        # changes) is new evidence for its own signature, though not progress for the others.
        sig["n"] = 1
    if new:
        call["new"] = True
    if mutation and outcome.failure == Failure.NONE:
        touched = mutated_paths(tool, tool_input, config)
        if touched is None:
            agent["paths"] = {}
        else:
            for path in touched:
                agent["paths"].pop(path, None)
    threshold = config.same_error_remind_at
    if outcome.failure and threshold:
        errors: dict[str, Any] = agent["errors"]
        key = tool[:MAX_ID_CHARS] + ":" + error_signature(outcome.text)
        entry = errors.setdefault(key, {"sigs": [], "t": call["t"]})
        entry["t"] = call["t"]
        if call["sig"] not in entry["sigs"]:
            entry["sigs"].append(call["sig"])
            del entry["sigs"][:-16]
            count = len(entry["sigs"])
            if count == threshold or count == 2 * threshold:
                _trim(errors, MAX_ERRORS, lambda k: errors[k]["t"])
                return Decision(
                    Action.REMIND,
                    Rule.SAME_ERROR,
                    msg.same_error_reminder(
                        tool, count, preview(redact_prefix(outcome.text, 2 * limit + 1), 2 * limit), limit
                    ),
                    times=count,
                    tool=tool,
                )
        _trim(errors, MAX_ERRORS, lambda k: errors[k]["t"])
    return None


def _keep_recent_previews(agent: dict[str, Any]) -> None:
    sigs = agent["sigs"]
    with_preview = [k for k in sigs if "preview" in sigs[k]]
    if len(with_preview) > MAX_PREVIEWS:
        with_preview.sort(key=lambda k: sigs[k]["t"] or 0)
        for k in with_preview[: len(with_preview) - MAX_PREVIEWS]:
            del sigs[k]["preview"]


def _post_tool_use(state: dict[str, Any], event: HookEvent, config: Config, now: float) -> Decision:
    agent = _agent(state, event.agent_id, now)
    assert event.tool_name is not None
    tool = event.tool_name
    agent["seq"] += 1
    call = agent["calls"].get(_post_call_id(event.tool_use_id, tool, event.tool_input, config))
    if call is not None and call["phase"] != "pre":
        return ALLOW  # already recorded: a second registration of the hook, or a replayed event
    decisions: list[Decision] = []
    if call is None:
        # Only a post hook is registered (or the Pre fell out of the ledger): count here.
        decisions.append(
            _count_attempt(state, agent, event, tool, event.tool_input, event.tool_use_id, config, now, can_deny=False)
        )
        call = agent["calls"].get(_post_call_id(event.tool_use_id, tool, event.tool_input, config))
        if call is None:
            call = {
                "sig": call_key(tool, event.tool_input, frozenset(config.ignore_args)).digest,
                "t": now,
                "seq": agent["seq"],
                "phase": "pre",
            }
    pending = call.pop("remind", None)
    if event.event == "PostToolUseFailure":
        if event.is_interrupt:
            call["phase"] = "done"
            call["done"] = now
            outcome = None
        else:
            outcome = outcome_of_error(event.error or "")
    else:
        outcome = outcome_of_response(tool, event.tool_response, mutation=matches(tool, config.mutating_tools))
    if outcome is not None:
        verdict = _record_outcome(agent, call, tool, event.tool_input, event.tool_response, outcome, config)
        if verdict is not None:
            decisions.append(_with_mode(verdict, config, can_deny=False))
        if call.get("new"):
            textloop.new_evidence(state, event.agent_id)
    if pending:
        decisions.append(
            _with_mode(
                Decision(
                    Action.REMIND,
                    Rule.REPEAT,
                    pending,
                    tool=tool,
                    summary=_summary(tool, call_key(tool, event.tool_input, frozenset(config.ignore_args))),
                ),
                config,
                can_deny=False,
            )
        )
    return _merge(decisions)


def _merge(decisions: list[Decision]) -> Decision:
    """Several verdicts for one answer: the strongest, carrying every reminder text."""
    decisions = [d for d in decisions if d.intended is not Action.ALLOW or d.rule]
    if not decisions:
        return ALLOW
    best = max(decisions, key=lambda d: (d.action, d.intended))
    texts = [d.message for d in decisions if d.action is Action.REMIND and d.message and d is not best]
    if texts and best.message:
        best = best._replace(message="\n\n".join([best.message, *texts]))
    elif texts:
        best = best._replace(message="\n\n".join(texts))
    return best


def _post_tool_batch(state: dict[str, Any], event: HookEvent, config: Config, now: float) -> Decision:
    """Claude Code `PostToolBatch`: the only event that sees validation rejections.

    A call with no PreToolUse and no post event is a `<tool_use_error>` validation rejection
    (Claude Code 2.1.332 LAB; anthropics/claude-code#72996) and counts as a failed attempt. A
    call whose Pre was seen but not its post was denied by a hook (ours or another's): not a
    failure.
    """
    agent = _agent(state, event.agent_id, now)
    agent["seq"] += 1
    decisions: list[Decision] = []
    for item in event.tool_calls:
        decisions.extend(_batch_call(state, agent, event, item, config, now))
    agent["batch_seq"] = agent["seq"]  # the model sees these results next: later calls are a new batch
    merged = _merge(decisions)
    if merged.intended is Action.STOP and config.mode == "enforce" and event.client is Client.CLAUDE_CODE:
        # PostToolBatch `continue: false` ends the loop before the next model call (2.1.332 LAB).
        return merged._replace(action=Action.STOP)
    return merged


def _batch_call(
    state: dict[str, Any], agent: dict[str, Any], event: HookEvent, item: BatchCall, config: Config, now: float
) -> list[Decision]:
    calls = agent["calls"]
    call = calls.get(_post_call_id(item.tool_use_id, item.tool_name, item.tool_input, config))
    text = item.tool_response if isinstance(item.tool_response, str) else None
    decisions: list[Decision] = []
    if call is not None:
        if call["phase"] != "pre":
            return decisions
        if text is not None and _hook_denial(text):
            call["phase"] = "denied"
            call.pop("remind", None)
            return decisions
    else:
        decisions.append(
            _count_attempt(state, agent, event, item.tool_name, item.tool_input, item.tool_use_id, config, now, can_deny=False)
        )
        call = calls.get(_post_call_id(item.tool_use_id, item.tool_name, item.tool_input, config))
        if call is None:
            return decisions
    pending = call.pop("remind", None)
    outcome = outcome_of_response(item.tool_name, item.tool_response, mutation=matches(item.tool_name, config.mutating_tools))
    verdict = _record_outcome(agent, call, item.tool_name, item.tool_input, item.tool_response, outcome, config)
    if verdict is not None:
        decisions.append(_with_mode(verdict, config, can_deny=False))
    if call.get("new"):
        textloop.new_evidence(state, event.agent_id)
    if pending:
        decisions.append(_with_mode(Decision(Action.REMIND, Rule.REPEAT, pending, tool=item.tool_name), config, can_deny=False))
    return decisions


def _text_rules(state: dict[str, Any], event: HookEvent, config: Config, texts: tuple[str, ...] | list[str]) -> Decision:
    """Text loops (contract section 9). Never blocks a Stop; ends a turn that keeps looping."""
    ts = textloop.text_state(state, event.agent_id)
    name = event.event
    limits = {
        "max_lines": config.max_repeated_lines,
        "max_blocks": config.max_repeated_blocks,
        "max_block_chars": config.max_block_chars,
    }
    stopping = name in ("Stop", "SubagentStop")
    final = _bounded(event.last_assistant_message, config.transcript_read_bytes)
    if stopping and not texts and final:
        # No transcript text yet (none, or it lags behind the Stop): judge the final message,
        # and remember it so that reading it from the transcript later does not count it twice.
        texts = [final]
        textloop.seen_before(ts, textloop.judged_key(digest(final.encode("utf-8", "surrogatepass"))))
    verdict = None
    for text in texts:
        found = textloop.feed(ts, text, **limits)
        verdict = verdict or found
    decisions: list[Decision] = []
    if name == "UserPromptSubmit":
        pending = ts["pending"]
        textloop.remember_prompt(ts, event.prompt)
        ts["pending"] = None
        if verdict is not None:
            pending = textloop.reminder(verdict)
        if pending:
            decisions.append(Decision(Action.REMIND, Rule.TEXT, pending, summary="assistant text"))
    elif name == "PreToolUse":
        if ts["pending"]:
            decisions.append(Decision(Action.REMIND, Rule.TEXT, ts["pending"], summary="assistant text"))
            ts["pending"] = None
        if verdict is not None:
            if ts["reminded"]:
                # Still looping after a reminder in this turn: end it (Codex: deny the call).
                action = Action.STOP if event.client is Client.CLAUDE_CODE else Action.DENY
                decisions.append(
                    Decision(
                        action,
                        Rule.TEXT,
                        textloop.reminder(verdict),
                        stop_reason=textloop.text_loop_stop(verdict),
                        times=verdict.repeats,
                        summary=verdict.excerpt,
                    )
                )
            else:
                ts["reminded"] = True
                decisions.append(
                    Decision(Action.REMIND, Rule.TEXT, textloop.reminder(verdict), times=verdict.repeats, summary=verdict.excerpt)
                )
    elif stopping:
        count, same_reply = textloop.final_message(ts, final, stop_hook_active=event.stop_hook_active)
        threshold = config.same_final_message_at
        if threshold and count >= threshold:
            summary = redact_prefix(event.last_assistant_message or "", 120)
            decisions.append(_text_stop(textloop.final_message_stop(count), count, summary))
        elif verdict is not None and event.stop_hook_active and ts["pending"]:
            # A Stop hook forced the turn on, the previous Stop already found a text loop, and no
            # tool call or prompt has delivered that reminder since: nothing else will reach the
            # model, so end the turn (Codex caps no Stop-hook chain: openai/codex#37937).
            ts["pending"] = None  # the turn ends; the next prompt starts afresh
            decisions.append(_text_stop(textloop.text_loop_stop(verdict), verdict.repeats, verdict.excerpt))
        elif verdict is not None:
            ts["pending"] = textloop.reminder(verdict)
            if name == "SubagentStop" and event.agent_id != MAIN_AGENT:
                # The subagent is done and will read no reminder; the main thread reads its
                # result next, so that is who is told.
                textloop.text_state(state, MAIN_AGENT)["pending"] = textloop.subagent_reminder(verdict)
            decisions.append(
                Decision(
                    Action.REMIND,
                    Rule.TEXT,
                    ts["pending"],
                    system_message=textloop.user_notice(verdict),
                    times=verdict.repeats,
                    summary=verdict.excerpt,
                )
            )
        elif same_reply:
            ts["pending"] = textloop.same_reply_reminder()
            decisions.append(
                Decision(
                    Action.REMIND,
                    Rule.TEXT,
                    ts["pending"],
                    system_message=textloop.user_notice(None, same_reply=True),
                    summary=redact_prefix(event.last_assistant_message or "", 120),
                )
            )
    if not decisions:
        return ALLOW
    best = _merge(decisions)
    if stopping and best.action is Action.REMIND:
        # Never a reminder on Stop: the user is told (systemMessage), the model at the next prompt.
        best = best._replace(action=Action.ALLOW, intended=Action.REMIND)
        return _stop_mode(best, config)
    if stopping:
        return _stop_mode(best, config)
    return _with_mode(best._replace(summary=redact(best.summary)), config)


def _text_stop(text: str, count: int, summary: str) -> Decision:
    """End the turn on Stop: the same words for the user (`systemMessage`) and the client."""
    return Decision(Action.STOP, Rule.TEXT, text, stop_reason=text, system_message=text, times=count, summary=summary)


def _bounded(text: str | None, limit: int) -> str | None:
    """A final message cut to its first and last `limit` characters: the text rules cost the
    same for a 20 MB message as for one of 512 KiB, and a loop shows at either end."""
    if text is None or len(text) <= 2 * limit:
        return text
    return text[:limit] + "\n" + text[-limit:]


def _stop_mode(decision: Decision, config: Config) -> Decision:
    intended = max(decision.action, decision.intended)
    if config.mode == "observe":
        return decision._replace(action=Action.ALLOW, intended=intended, system_message="")
    if config.mode == "advise" and decision.action is Action.STOP:
        return decision._replace(action=Action.ALLOW, intended=intended)
    return decision._replace(intended=intended, summary=redact(decision.summary))


def _remember(state: dict[str, Any], event: HookEvent, decision: Decision, now: float) -> None:
    recent: list[dict[str, Any]] = state.setdefault("recent", [])
    recent.append(decision_record(event, decision, now))
    del recent[:-MAX_RECENT]


def decision_record(event: HookEvent, decision: Decision, now: float) -> dict[str, Any]:
    """The redacted record of one decision (state `recent` list and `decisions.jsonl`)."""
    return {
        "time": round(now, 3),
        "agent": event.agent_id,
        "event": event.event,
        "tool": decision.tool[:MAX_ID_CHARS] if decision.tool else decision.tool,
        "rule": decision.rule,
        "action": decision.action.name.lower(),
        "intended": decision.intended.name.lower() if decision.intended else decision.action.name.lower(),
        "count": decision.times,
        "arguments": decision.summary,
    }
