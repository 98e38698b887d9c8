"""The detection engine: one hook event + the session ledger -> a decision. Pure: no I/O.

`step` is the one way in, for the live hook and for `replay` alike. It reads in one direction:

1. the event moves the shared counters (`progress.py`) of the ledger (`ledger.Session`, the
   state file's content, changed in place);
2. the rules (`rules/`, one module each, listed by hand) judge it, each from its context and its
   own slot of the ledger;
3. the policy step (`policy.py`) fits each verdict to the mode and to what the host delivers
   (`host.Capabilities`, the table of the host module passed in); the engine never tests a
   host's name;
4. the decision comes back with what the model did after earlier interventions
   (`followup.py`) and the record of this one, for the caller to log.

The clock is passed in as `now` (seconds since the epoch). On a tie the first listed rule wins.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from .. import rules
from ..config.settings import Config
from ..rules import VARIANTS
from ..rules.text_loops import new_evidence, take
from . import followup, ledger, policy, progress
from .event import MAIN_AGENT, TOOL_EVENTS, BatchCall, Client, HookEvent, Unhooked
from .host import Capabilities
from .ledger import MAX_ID_CHARS, STATE_VERSION, Agent, Call, DecisionRecord, ResponseRecord, Session, Tail
from .messages import is_guard_denial, variant_of
from .outcome import Failure, Outcome, outcome_of_error
from .signature import call_key
from .tools import (
    AGENT_TOOLS,
    WORKSPACE_BY_TIME,
    applies_diff,
    edits_only,
    is_noop_mutation,
    matches,
    user_answered,
)
from .verdict import ALLOW, Action, Decision, Rule, merge, strongest

if TYPE_CHECKING:
    from .host import Dialect

__all__ = ["STATE_VERSION", "Action", "Decision", "Rule", "Step", "decision_record", "new_session", "step"]


class Step(NamedTuple):
    """What one event decided: the `decision` to render (mode applied), what the model did after
    earlier interventions (`responses`, for `responses.jsonl`), and the audit `record` of this
    decision (None when it did not intervene)."""

    decision: Decision
    responses: list[ResponseRecord]
    record: DecisionRecord | None


def new_session(session_id: str, client: Client, now: float) -> Session:
    """An empty session ledger."""
    return ledger.new_session(session_id, client.value, now)


class _Event(NamedTuple):
    """What every handler needs: the ledger, the event, the settings, the host, the clock, and
    where the answers to earlier interventions are collected."""

    state: Session
    event: HookEvent
    config: Config
    host: "Dialect"
    caps: Capabilities
    now: float
    responses: list[ResponseRecord]


def step(
    state: Session | None,
    event: HookEvent,
    config: Config,
    host: "Dialect",
    now: float,
    texts: Sequence[tuple[str, str]] = (),
    final: tuple[str, str] | None = None,
    tail: Tail | None = None,
    unhooked: tuple[Sequence[Unhooked], Tail] | None = None,
) -> tuple[Session, Step]:
    """Update the ledger with `event` and decide; the ledger (a new one for `state` None) and
    the step.

    `texts` are `(key, text)` pairs of assistant text written since the previous event, as the
    caller read them from the transcript (`text_loops.reads_transcript` says when); streamed
    copies of one message share a key and count once. `final` is the turn's final message read
    from a host's session log, for a host whose Stop carries no `last_assistant_message` (DSH);
    `tail` where the reader stopped (kept in the ledger for the next read). `unhooked` are the
    calls the host ran without a hook and their outputs, read from the transcript since the
    previous event, with the reader's cursor after them (`rules/unhooked.py`). `host` is the
    module of the host that sent the event (`hosts/`).
    """
    if state is None:
        state = new_session(event.session_id, event.client, now)
    config = policy.for_host(config, host.CAPABILITIES)
    waited_on = _subagents_waited_on(state, event, host.CAPABILITIES, config.parallel_window_seconds)
    if waited_on is not None and event.tool_name in AGENT_TOOLS:
        if event.event != "PreToolUse" or not waited_on:
            # A subagent ended (its siblings may each do what it did), or subagents start when
            # none runs: the subagents' count starts afresh.
            state["agents"].pop(SUBAGENTS, None)
    elif waited_on:
        event = event._replace(agent_id=SUBAGENTS)
        config = policy.shared_by(config, waited_on)
    ev = _Event(state, event, config, host, host.CAPABILITIES, now, [])
    if event.event == "SessionEnd":
        # Every pending intervention was answered by the end (the turn ended first).
        ev.responses.extend(followup.turn_ended(state, list(state["agents"]), now))
        return state, Step(ALLOW, ev.responses[-followup.MAX_RESPONSES :], None)
    fresh, message = take(state, event, config, ev.caps, texts, final, tail)
    refused: list[tuple[Unhooked, str, str]] = []
    if unhooked is not None and (event.agent_id in state["agents"] or event.event in TOOL_EVENTS):
        refused = rules.unhooked.take(_agent(ev), event, *unhooked, config, now)
        unseen = sum(1 for item in unhooked[0] if item.kind in _UNSEEN_CALLS)
        if unseen:
            event = event._replace(unseen_calls=unseen)
            ev = ev._replace(event=event)
    if message is not None:
        event = event._replace(last_assistant_message=message)
        ev = ev._replace(event=event)
    decision = _decide(ev, fresh)
    if refused and event.event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        decision = merge([decision, *_refused_results(ev, refused)])
    record = None
    if decision.intended is not Action.ALLOW:
        record = decision_record(event, decision, now)
        recent = state.setdefault("recent", [])
        recent.append(record)
        del recent[: -ledger.MAX_RECENT]
        policy.note_emitted(state, decision, event.event, ev.caps)
        policy.note_blocked(state, ev.caps)
    return state, Step(decision, ev.responses[-followup.MAX_RESPONSES :], record)


#: The agent whose calls a host that marks no subagent's (`Capabilities.unmarked_subagents`:
#: Gemini CLI) makes while the main agent waits on subagents: they are theirs, not the main
#: agent's, which is waiting.
SUBAGENTS = "subagents"
#: The most seconds between the hooks of two agent calls of one reply (`_subagents_waited_on`):
#: the client runs them one after another, each a process start, slow on a loaded machine (1.3 s
#: apart in a hostile review); a model's next reply after a call another hook refused takes
#: longer (the calls of such replies 5 s apart must not all be waited on).
REPLY_GAP_SECONDS = 2.0


def _subagents_waited_on(state: Session, event: HookEvent, caps: Capabilities, window: float) -> int | None:
    """How many subagents the main agent waits on at a tool event on a host whose subagents'
    events are unmarked (`unmarked_subagents`): its calls of an agent tool (`tools.AGENT_TOOLS`)
    since the prompt (a prompt forgets them) with no result yet, issued with its latest one: each
    within `window` seconds, or `REPLY_GAP_SECONDS` if longer, of the next (one reply's, however
    long the hooks of a loaded machine take one after another: eight of them 1.3 s apart made
    the later subagents' first calls the main agent's repeats, denied). An earlier one with no
    result got none because it never ran (another hook blocked it: Gemini sends no AfterTool
    then, research §3): the main agent waits on its calls before it sends more. None for any
    other event or host. The agent tool's own events are the main agent's; any other tool event
    while it waits is a subagent's (`SUBAGENTS`)."""
    if not caps.unmarked_subagents or event.agent_id != MAIN_AGENT or event.event not in TOOL_EVENTS:
        return None
    main = state["agents"].get(MAIN_AGENT)
    if main is None:
        return 0
    sigs = main["sigs"]
    runs = [call for call in main["calls"].values() if (sig := sigs.get(call["sig"])) is not None and sig["tool"] in AGENT_TOOLS]
    times = sorted((ledger.issued(call) for call in runs), reverse=True)
    start = times[0] if times else 0.0
    for later, earlier in zip(times, times[1:], strict=False):
        if later - earlier > max(window, REPLY_GAP_SECONDS):
            break
        start = earlier
    return sum(1 for call in runs if call["phase"] == "pre" and ledger.issued(call) >= start)


def _refused_results(ev: _Event, refused: Sequence[tuple[Unhooked, str, str]]) -> list[Decision]:
    """The reminders the result rules give on calls the host refused to run and sent no post
    event for (Codex 0.171.0's execution policy, and its read-only sandbox refusing a patch:
    `Unhooked` `refused`, each with the tool its hooks name, read from the rollout at
    the agent's next tool event: a PreToolUse, or a parallel call's post event), each judged as
    its post event would have been, at the time the rollout gives its answer. Judged after the
    event's own call: a wall they complete is reminded now, and denied from the next call, as
    when the post events come. One read at a prompt or a Stop is dropped: the turn is over."""
    event, now = ev.event, ev.now
    found: list[Decision] = []
    for item, tool, command in refused:
        call = _agent(ev)["calls"].get(item.call_id)
        if call is None or call["phase"] != "pre":
            continue
        post = event._replace(
            event="PostToolUse", tool_name=tool, tool_input={"command": command}, tool_use_id=item.call_id,
            tool_response=item.text, misfit=None, workspace=None,
        )
        at = min(item.time, now) if item.time is not None else now
        decision = _post_tool_use(ev._replace(event=post, now=max(at, call["t"])))
        if decision.action is Action.REMIND:
            found.append(decision)
    _agent(ev)  # the agent's clock back at this event's time
    return found


def _decide(ev: _Event, texts: Sequence[str]) -> Decision:
    state, event, config, now = ev.state, ev.event, ev.config, ev.now
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
    policy.note_event(state, event, ev.caps, now)
    if name == "PreToolUse":
        verdict, call = _pre_tool_use(ev)
        decision = merge([verdict, _text_rules(ev, texts)])
        return policy.hold_for_result(call if call is not None and call["phase"] == "pre" else None, decision, ev.caps)
    if name in ("PostToolUse", "PostToolUseFailure"):
        return _post_tool_use(ev)
    if name == "PostToolBatch":
        return _post_tool_batch(ev)
    if name == "UserPromptSubmit":
        return _user_prompt(ev, texts)
    if name == "SessionStart":
        if event.source == "compact":
            thrash = _thrashes(state)  # notes this compaction, whatever the profile
            if config.reset_on_compaction and not thrash:
                for agent in state["agents"].values():
                    _reset(agent, "compaction")
        return ALLOW
    if name in ("Stop", "SubagentStop"):
        ev.responses.extend(followup.turn_ended(state, [event.agent_id], now))
        return _text_rules(ev, texts)
    return ALLOW


#: A compaction this few calls after the previous one resets nothing (`_thrashes`).
THRASH_CALLS = 1


def _thrashes(state: Session) -> bool:
    """Whether a compaction comes at most `THRASH_CALLS` calls (of any agent) after the previous
    one: a compaction loop, where the context fills again at once and the host compacts after
    nearly every call, and the model, told only the summary, sends the call it just sent
    (anthropics/claude-code#13379, #45170, #6004: accounts drained overnight; a public
    transcript: 39 identical Greps finding nothing, a compaction before each). A compaction
    resets the counts because the model lost its context and may redo work once; across such a
    loop the redo is the loop, so the counts go on and the rules judge it as any other repeat.
    Notes the session's calls at this compaction (`compacted_at`)."""
    attempts, last = state.get("attempts", 0), state.get("compacted_at")
    state["compacted_at"] = attempts
    return type(last) is int and 0 <= attempts - last <= THRASH_CALLS


def _reset(agent: Agent, why: str) -> None:
    """Forget what a new prompt (`"prompt"`) or a compaction (`"compaction"`, outcomes kept)
    ends: the shared counters and every rule's slot."""
    ledger.reset_shared(agent, keep_outcomes=why == "compaction")
    rules.reset(agent, why)


def _agent(ev: _Event) -> Agent:
    return ledger.agent(ev.state, ev.event.agent_id, ev.now, rules.fit)


def _user_prompt(ev: _Event, texts: Sequence[str]) -> Decision:
    """A new user prompt ends the turn and resets every agent's counters and answer-only mode;
    context injected by a hook that comes back as a prompt (`policy.injected_prompt`), and a
    host's tool continuation (`HookEvent.continuation`), do neither; a bare "continue" after
    the user interrupted a turn the guard said nothing in (`policy.resumes`) resumes that turn
    and resets nothing; a continuation may end a turn whose answer-only mode was ignored
    (`policy.continuation`)."""
    state = ev.state
    if ev.event.continuation:
        return policy.continuation(state, ev.event, ev.caps, ev.config)
    if policy.injected_prompt(state, ev.event, ev.caps, ev.now):
        return ALLOW
    resumed = policy.resumes(state, ev.event, ev.caps)
    policy.start_turn(state, ev.caps, resuming=resumed)
    if not resumed:  # a resumed turn goes on: what the model does next answers its interventions
        ev.responses.extend(followup.turn_ended(state, list(state["agents"]), ev.now))
        for agent in state["agents"].values():
            _reset(agent, "prompt")
    else:  # what the user may have changed before saying to go on (`rules.RESUMES`)
        for agent in state["agents"].values():
            rules.resume(agent)
    return _text_rules(ev, texts)


# -- attempts ---------------------------------------------------------------------------------


def _pre_tool_use(ev: _Event) -> tuple[Decision, Call | None]:
    """The verdict on a PreToolUse, and the call's ledger entry (a reminder may wait on it)."""
    event = ev.event
    agent = _agent(ev)
    assert event.tool_name is not None
    if event.tool_use_id is not None and (again := agent["calls"].get(progress.call_id(event.tool_use_id, ""))):
        # The same call delivered again: the hook is registered twice (a plugin copy and a
        # settings copy run in parallel), or a payload was re-sent. Count each call once; the
        # host merges both answers, and a denial from the first one wins.
        return ALLOW, again
    decision, call = _attempt(ev, agent, event.tool_name, event.tool_input, event.tool_use_id, can_deny=True)
    return decision, call


def _attempt(
    ev: _Event, agent: Agent, tool: str, tool_input: object, tool_use_id: str | None, *, can_deny: bool,
    response: object = None, answers: list[tuple[str, Decision]] | None = None,
) -> tuple[Decision, Call]:
    """Count one attempt, run the call rules, and fit their verdict; the verdict and the call's
    ledger entry. Shared by PreToolUse and the post events of calls whose Pre was not seen.

    `answers`: a post event counting the attempt with its result passes a list, and a counted
    attempt's (signature, fitted verdict) goes there instead of answering the waiting
    intervention now (`_answer_with_result`): the result may show the loop going on."""
    state, config, caps, now = ev.state, ev.config, ev.caps, ev.now
    late = ev.event.event == "PostToolBatch"
    attempt = progress.open_attempt(
        state, agent, tool, tool_input, tool_use_id, config, caps, now, can_deny=can_deny, late=late, cwd=ev.event.cwd
    )
    if ev.event.workspace is not None and ev.event.event == "PreToolUse":
        attempt.call["ws"] = ev.event.workspace
        attempt.call["wsf"] = list(ev.event.workspace_files)
        if ev.event.workspace_edits is not None:
            attempt.call["wse"] = ev.event.workspace_edits
    ctx = rules.CallContext(
        event=ev.event,
        config=config,
        caps=caps,
        agent=agent,
        call=attempt.call,
        sig=attempt.sig,
        tool=tool,
        tracked=attempt.tracked,
        counted=attempt.counted,
        attempt=attempt.times,
        previous_time=attempt.previous_time,
        now=now,
        key=attempt.key,
        share=attempt.share,
        since=agent["since"],
        bookkeeping=agent["bookkeeping"],
        tool_input=tool_input,
        response=response,
    )
    verdict = strongest([found for rule in rules.ON_CALL if (found := rule(ctx)) is not None])
    if verdict is ALLOW:
        if attempt.counted and (answers is not None or "followup" in agent):
            _answer(ev, agent, attempt.key.digest, verdict, answers)
        return verdict, attempt.call  # the common case: nothing to record or render
    # A rule that counts something else than attempts of this call (rounds of a wall, reads of
    # a file, failures on a target) says how many; the others are counted by attempts.
    said = progress.summary(tool, attempt.key, sent=caps.has_arguments(tool))
    verdict = verdict._replace(times=verdict.times or attempt.times, tool=tool, summary=said)
    fitted, wire = policy.fit_call(agent, attempt.call, verdict, config, caps, ev.event.event, can_deny=can_deny)
    if attempt.counted:
        _answer(ev, agent, attempt.key.digest, fitted, answers)
    return wire, attempt.call


def _answer(ev: _Event, agent: Agent, sig_id: str, fitted: Decision, answers: list[tuple[str, Decision]] | None) -> None:
    """A counted attempt answers the waiting intervention now, or, counted with its result
    (`answers` given), once that result is judged (`_answer_with_result`)."""
    if answers is not None:
        answers.append((sig_id, fitted))
    else:
        ev.responses.extend(followup.after_attempt(ev.event.agent_id, agent, sig_id, fitted, ev.now))


def _answer_with_result(ev: _Event, agent: Agent, answers: list[tuple[str, Decision]], verdict: Decision | None) -> None:
    """An attempt counted at its result's own event (a validation rejection in a PostToolBatch,
    a hook registered for post events only) answers the waiting intervention with what its call
    and its result decided together: a reworded Edit refused with the same error again is the
    wall going on, not a change of course; the stronger of the two becomes the waiting one."""
    for sig_id, fitted in answers:
        both = fitted if verdict is None or fitted.intended >= verdict.intended else verdict
        ev.responses.extend(followup.after_attempt(ev.event.agent_id, agent, sig_id, both, ev.now))


# -- results ----------------------------------------------------------------------------------


def _result(
    ev: _Event, agent: Agent, call: Call, tool: str, tool_input: object, response: object, outcome: Outcome,
    *, unrun: bool = False,
) -> Decision | None:
    """Record a call's result and run the result rules; their verdict, fitted (None for none);
    `unrun`: the host answered the call without running it (`ResultContext.unrun`)."""
    outcome, clean = progress.without_noise(agent, call, outcome)
    # The files the call named to change are as they were before it ran: it changed nothing.
    # Where the workspace was not looked at before and after (a replay, a path relative to no
    # `cwd`, `workspace_evidence` off), the host's own result may say so (a Write whose `originalFile` is what it wrote:
    # `write_result_evidence`; the seeds judge the result alone, its first one new evidence).
    before, after = call.get("ws"), ev.event.workspace
    looked = before is not None and after is not None
    held = agent["sigs"].get(call["sig"])
    first = held is None or not isinstance(held.get("n"), int) or held["n"] <= 1
    if looked:
        unchanged = before == after
    else:
        unchanged = ev.config.write_result_evidence and is_noop_mutation(tool, tool_input, response)
        # An MCP server's write whose file the hook cannot look at (a server in a container, a
        # root above the cwd) says nothing of what it changed: only its first attempt since the
        # last progress counts as a change, as for a shell edit; the same write again is none.
        unchanged = unchanged or (
            ev.config.write_result_evidence and tool.startswith("mcp__") and not first and matches(tool, ev.config.mutating_tools)
        )
    # Every file the agent's edits named went back to a state they had at an earlier edit since
    # the prompt (a value toggled back and forth, a fix undone): a change, but no progress
    # (`revisit_evidence`). Only an edit's files join the map: a log a test run writes (`pytest |
    # tee out.txt`) is new every run and would hide every return.
    revisited = False
    mutation = matches(tool, ev.config.mutating_tools)
    edit_line = looked and edits_only(tool, tool_input)  # judged once, used here and by the rules
    if (looked and mutation or edit_line) and isinstance(call.get("wsf"), list) and ev.event.workspace_files:
        back = ledger.note_files(agent, call["wsf"], list(ev.event.workspace_files))
        revisited = back and not unchanged and ev.config.revisit_evidence
        if revisited:
            agent["back"] = ev.now
    # A shell edit (`sed -i`, `echo … > f`, a patch) prints nothing: only the workspace, seen to
    # change the files it named, says it did something (a rename across modules, one `sed -i` a
    # file): a line of edits and reads (`tools.edits_only`), whose files were judged by content.
    # The same line again with nothing new between (`echo ran >> ran.log; cat notes.txt`, a note
    # appended each round) changes its file each time and is still a repeat: only its first
    # attempt since the last progress is one.
    succeeded = outcome.failure == Failure.NONE
    shell_edit = (
        edit_line and not unchanged and succeeded and first
        and not str(before).startswith(WORKSPACE_BY_TIME)  # a same-bytes rewrite moves a big file's mtime
    ) or (
        # A diff applied from a file (`git apply /tmp/fix.patch`) changed files the line does not
        # name, which the workspace cannot look at: git and patch refuse one that changes nothing.
        # The result says it, as a Write's may (`write_result_evidence`; off in the seeds).
        not looked and succeeded and first and ev.config.write_result_evidence and applies_diff(tool, tool_input)
    )
    edits = shell_edit or (succeeded and not unchanged and mutation)
    # The files the line's edits name changed, by their content (`HookEvent.workspace_edits`: not
    # a file the line sends a program's output into, `sed -i … a.py && pytest | tee test.log`,
    # which changes whatever the edit did): its edits applied.
    edits_before, edits_after = call.get("wse"), ev.event.workspace_edits
    edits_looked = looked and edits_before is not None and edits_after is not None
    changed = edits_looked and edits_before != edits_after
    evidence = progress.record_result(
        agent, call, tool, tool_input, response, outcome, ev.config, agents=len(ev.state["agents"]),
        unchanged=unchanged or revisited, shell_edit=shell_edit and not revisited,
    )
    sig = agent["sigs"].get(call["sig"])
    if evidence is None or sig is None:
        return None
    ctx = rules.ResultContext(
        ev.config, ev.caps, agent, call, sig, tool, outcome, evidence.new, evidence.productive, tool_input, response,
        len(ev.state["agents"]), clean, unchanged, ev.event.cwd, ev.event.permission_mode, unrun, edits, revisited,
        edit_line, changed, edits_looked,
    )
    verdicts = [found for rule in rules.ON_RESULT if (found := rule(ctx)) is not None]
    if call.get("new") or (edits and evidence.productive):
        # A change made is something new the turn did, though its result is the same words each
        # time (Codex's "Success. Updated the following files: M config.py", a silent `sed -i`):
        # the call itself, which differs with each change, joins the turn's digest, and the turn
        # changed something (`changed`: the same long sign-off after it is no repeated reply).
        new_evidence(
            ev.state, ev.event.agent_id, f"{outcome.fingerprint} {call['sig']}" if edits else outcome.fingerprint,
            changed=edits and evidence.productive,
        )
    if not verdicts:
        return None
    verdict = merge(verdicts)
    if not verdict.summary:  # the call whose result it was, as status and the log show a call's decision
        verdict = verdict._replace(summary=_summary(tool, tool_input, ev.config, ev.caps))
    return policy.fit_result(verdict, ev.config)


def _summary(tool: str, tool_input: object, config: Config, caps: Capabilities) -> str:
    """The redacted one-line summary of a call (`progress.summary`)."""
    key = call_key(tool, tool_input, frozenset(config.ignore_args))
    return progress.summary(tool, key, sent=caps.has_arguments(tool))


def _post_tool_use(ev: _Event) -> Decision:
    event, config = ev.event, ev.config
    agent = _agent(ev)
    assert event.tool_name is not None
    tool = event.tool_name
    agent["seq"] += 1
    call = agent["calls"].get(progress.post_call_id(event.tool_use_id, tool, event.tool_input, config))
    if call is not None and call["phase"] != "pre":
        return ALLOW  # already recorded: a second registration of the hook, or a replayed event
    decisions: list[Decision] = []
    # The attempt was judged at its PreToolUse: the next call answers a reminder on its result.
    # Counted here instead, the attempt answered the waiting one before its result was known.
    judged_before = call is not None
    answers: list[tuple[str, Decision]] = []
    if call is None:
        # Only a post hook is registered (or the Pre fell out of the ledger): count here.
        decisions.append(_attempt(ev, agent, tool, event.tool_input, event.tool_use_id, can_deny=False, answers=answers)[0])
        call = agent["calls"].get(progress.post_call_id(event.tool_use_id, tool, event.tool_input, config))
        if call is None:
            call = {
                "sig": call_key(tool, event.tool_input, frozenset(config.ignore_args)).digest,
                "t": ev.now,
                "seq": agent["seq"],
                "phase": "pre",
            }
    # the summary only for a reminder held for this result (most results have none)
    summary = _summary(tool, event.tool_input, config, ev.caps) if "remind" in call else ""
    held = policy.held_reminder(call, tool, config, summary=summary)
    outcome: Outcome | None
    if event.event == "PostToolUseFailure":
        if event.is_interrupt:
            call["phase"] = "done"
            call["done"] = ev.now
            outcome = None
        else:
            outcome = outcome_of_error(event.error or "", ev.now)
    else:
        mutation = matches(tool, config.mutating_tools)
        outcome = ev.host.outcome(tool, event.tool_response, mutation=mutation, now=ev.now)
    verdict = None
    if outcome is not None:
        verdict = _result(ev, agent, call, tool, event.tool_input, event.tool_response, outcome)
        if verdict is not None:
            decisions.append(verdict)
            if judged_before:
                followup.after_result(agent, call["sig"], verdict, ev.now)
        if outcome.failure == Failure.NONE and user_answered(tool, event.tool_response):
            # The user's answer, as a prompt would: what failed before may work now ("I upgraded
            # my plan"), so the agent's counts start again (the turn goes on).
            _reset(agent, "prompt")
    _answer_with_result(ev, agent, answers, verdict)
    if held is not None:
        decisions.append(held)
    return merge(decisions)


def _post_tool_batch(ev: _Event) -> Decision:
    """Claude Code `PostToolBatch`: the only event that sees validation rejections.

    A call with no PreToolUse and no post event is a `<tool_use_error>` validation rejection
    (Claude Code 2.1.332 LAB; anthropics/claude-code#72996) and counts as a failed attempt. A
    call whose Pre was seen but not its post was denied by a hook. The guard's own denial is no
    failure; another hook's is, as the environment refusing the call (a policy hook's
    `BLOCKED: …`, or a hook that is broken: `python3: can't open file …`, which Python exits 2
    for, so every call is refused; issue 22 class 4), and the result rules judge it.
    """
    agent = _agent(ev)
    agent["seq"] += 1
    decisions: list[Decision] = []
    for item in ev.event.tool_calls:
        decisions.extend(_batch_call(ev, agent, item))
    agent["batch_seq"] = agent["seq"]  # the model sees these results next: later calls are a new batch
    return policy.fit_batch(merge(decisions), ev.event.event, ev.config, ev.caps)


def _batch_call(ev: _Event, agent: Agent, item: BatchCall) -> list[Decision]:
    config, host = ev.config, ev.host
    calls = agent["calls"]
    call = calls.get(progress.post_call_id(item.tool_use_id, item.tool_name, item.tool_input, config))
    text = item.tool_response if isinstance(item.tool_response, str) else None
    decisions: list[Decision] = []
    unrun = call is not None  # its PreToolUse was seen: with no post event, the host did not run it
    if text is not None and host.cancelled_in_batch(text):
        # Never run (cancelled with a failing sibling): no attempt, no failure; one whose
        # PreToolUse counted it is taken back.
        if call is not None and call["phase"] == "pre":
            progress.uncount(agent, call)
        return decisions
    if call is not None:
        if call["phase"] != "pre":
            return decisions
        if text is not None and host.denied_in_batch(text):
            # A hook denied it: still an attempt (the reminder seed counts denied calls), so a
            # reminder held for its result goes out with the batch.
            call["phase"] = "denied"
            held = policy.held_reminder(call, item.tool_name, config, rule=Rule.REPEAT)
            if not is_guard_denial(text):  # another hook's: the environment refused the call
                verdict = _result(ev, agent, call, item.tool_name, item.tool_input, text, outcome_of_error(text, ev.now))
                if verdict is not None:
                    decisions.append(verdict)
                    followup.after_result(agent, call["sig"], _as_sent(ev, verdict), ev.now)
            return [*decisions, held] if held is not None else decisions
    answers: list[tuple[str, Decision]] = []
    if call is None:
        decisions.append(
            _attempt(
                ev, agent, item.tool_name, item.tool_input, item.tool_use_id, can_deny=False,
                response=item.tool_response, answers=answers,
            )[0]
        )
        # The attempt's verdict as the batch carries it out: an end of turn the host makes from
        # this PostToolBatch is the intervention the model met, not the reminder it was fitted to.
        answers = [(sig, _as_sent(ev, fitted)) for sig, fitted in answers]
        call = calls.get(progress.post_call_id(item.tool_use_id, item.tool_name, item.tool_input, config))
        if call is None:
            _answer_with_result(ev, agent, answers, None)
            return decisions
    held = policy.held_reminder(call, item.tool_name, config)
    mutation = matches(item.tool_name, config.mutating_tools)
    outcome = host.outcome(item.tool_name, item.tool_response, mutation=mutation, now=ev.now)
    verdict = _result(ev, agent, call, item.tool_name, item.tool_input, item.tool_response, outcome, unrun=unrun)
    if verdict is not None:
        decisions.append(verdict)
        if unrun:  # counted at its PreToolUse, which the waiting intervention was answered by
            followup.after_result(agent, call["sig"], _as_sent(ev, verdict), ev.now)
    _answer_with_result(ev, agent, answers, _as_sent(ev, verdict) if verdict is not None else None)
    if held is not None:
        decisions.append(held)
    return decisions


#: The `Unhooked` records of calls that fired no hook at all: polls (`command` and `refused`
#: records are shell calls whose PreToolUse the guard saw; outputs and gaps are no calls).
_UNSEEN_CALLS = frozenset({"poll"})


def _as_sent(ev: _Event, verdict: Decision) -> Decision:
    """A batch entry's verdict as the batch's answer carries it out (`policy.fit_batch`: an end
    of turn made a reminder on the result is restored where the host ends the turn there), so the
    intervention the next call answers is the one the model met (`stats`)."""
    return policy.fit_batch(verdict, ev.event.event, ev.config, ev.caps)


# -- text -------------------------------------------------------------------------------------


def _text_rules(ev: _Event, texts: Sequence[str]) -> Decision:
    """Text loops (contract section 9). Never blocks a Stop; ends a turn that keeps looping."""
    ctx = rules.TextContext(state=ev.state, event=ev.event, config=ev.config, caps=ev.caps, texts=texts)
    verdicts = [verdict for rule in rules.ON_TEXT if (verdict := rule(ctx)) is not None]
    if not verdicts:
        return ALLOW
    return policy.fit_text(merge(verdicts), ev.event, ev.config)


# -- the record -------------------------------------------------------------------------------


def decision_record(event: HookEvent, decision: Decision, now: float) -> DecisionRecord:
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
        "variant": variant_of(decision.message, VARIANTS),
    }
