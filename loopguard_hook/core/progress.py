"""Progress: the counters every rule shares, moved by each attempt and each result. Pure: no I/O.

An attempt (`open_attempt`) opens a call entry in the agent's ledger and, unless the call is
untracked or a parallel twin, moves its signature's count, the chain of identical calls and the
budget of calls since the last new evidence. A result (`record_result`) stores the outcome and
judges it: new evidence (an outcome new to the agent) or a productive call (new evidence, or a
successful mutation) sets the other counts back.

The two counters the thresholds are judged on (contract section 5):

- `consecutive`: identical tracked calls in a row (`Agent.chain`); excluded tools are
  transparent; a different tracked call restarts the chain at 1;
- `no_progress`: attempts of a signature since the last new evidence (`Signature.n`). A
  productive call sets every other signature back to 0 and restarts its own count at 1 (0 under
  the progress profile); a failure with a new text restarts only its own count, and only with
  `new_failure_is_evidence`.

The rules read what this module moved as values of their context (`rules/base.py`); they keep
their own tables in their slot of the ledger (`ledger.slot`).
"""

import re
from typing import Any, NamedTuple

from ..config.settings import Config
from . import ledger
from .host import Capabilities
from .ledger import MAX_CALLS, MAX_ID_CHARS, MAX_OUTCOMES, MAX_SIGNATURES, SUMMARY_CHARS, Agent, Call, Session, Signature
from .outcome import Failure, Outcome, outcome_fingerprint, preview, says_not_right, text_failure
from .redact import redact_prefix
from .shellwords import SHELL_TOOLS, normal_folder, only_reads, only_sleeps, shell_command, sleeps_first
from .signature import HEAD_CHARS, CallKey, call_key, digest
from .tools import is_noop_mutation, is_read_tool, is_tracked, matches


def summary(tool: str, key: CallKey, *, sent: bool = True) -> str:
    """The redacted one-line summary of a call: its tool and the head of its arguments; `sent`
    False where the host sends none for the tool (`Capabilities.has_arguments`: the DSH Codex
    bridge's `{"command": ""}` for every tool but `bash`), which the summary says."""
    if not sent:
        return f"{tool[:MAX_ID_CHARS]} (no arguments sent)"
    # A head longer than HEAD_CHARS is itself a cut: its last token may be half a secret.
    args = redact_prefix(key.head, SUMMARY_CHARS, complete=len(key.head) <= HEAD_CHARS)
    return f"{tool[:MAX_ID_CHARS]} {args}"[:SUMMARY_CHARS]


def call_id(tool_use_id: str | None, sig_id: str) -> str:
    """The ledger key of a call: its `tool_use_id` (hashed when absurdly long), or, for a host
    that sends none, its signature, so a Pre and its Post still meet."""
    if tool_use_id is None:
        return "~" + sig_id
    if len(tool_use_id) > MAX_ID_CHARS:
        return "#" + call_key("", tool_use_id, frozenset(), 0).digest
    return tool_use_id


def post_call_id(tool_use_id: str | None, tool: str, tool_input: Any, config: Config) -> str:
    """The ledger key a post event's call was filed under at its PreToolUse."""
    if tool_use_id is not None:
        return call_id(tool_use_id, "")
    return call_id(None, call_key(tool, tool_input, frozenset(config.ignore_args), 0).digest)


class Attempt(NamedTuple):
    """What one attempt moved: the call entry, its signature (None for an untracked call and
    for a twin never counted before), and the values the call rules judge.

    `tracked` is False for an untracked tool and a parallel twin: their attempts move no
    counter. `counted` is `tracked` for a call whose arguments the host sends: only then do
    identical signatures mean identical calls. `times` is the attempt's number on the
    profile's counter; `previous_time` when the signature's previous attempt finished (or
    began), in seconds since the epoch; `share` the agent's share of the session's budget."""

    call: Call
    sig: Signature | None
    key: CallKey
    tracked: bool
    counted: bool
    times: int
    previous_time: float | None
    share: ledger.Limits


def open_attempt(
    state: Session, agent: Agent, tool: str, tool_input: Any, tool_use_id: str | None, config: Config, caps: Capabilities,
    now: float, *, can_deny: bool, late: bool = False, cwd: str | None = None,
) -> Attempt:
    """Count one attempt (a PreToolUse, or the post event or batch entry of a call whose Pre was
    not seen: `late` when that is a `PostToolBatch`, which only a call that never ran reaches).
    `cwd`: the event's folder, part of a shell call's signature where it is the call's own
    (`Capabilities.cwd_is_workdir`), as `shellwords.normal_folder` spells it, and only for a call
    with a `tool_use_id`: a call without one is joined to its post event by its signature, which
    the post event, given no folder, computes without it."""
    key = call_key(tool, tool_input, frozenset(config.ignore_args), max(HEAD_CHARS, config.preview_chars))
    if cwd and tool_use_id is not None and caps.cwd_is_workdir and tool in SHELL_TOOLS:
        folder = normal_folder(cwd[:4096])
        key = CallKey(digest(f"{key.digest}\0{folder}".encode("utf-8", "surrogatepass")), key.head)
    share = ledger.limits(len(state["agents"]))
    agent["attempts"] += 1
    state["attempts"] = state.get("attempts", 0) + 1
    agent["seq"] += 1
    calls = agent["calls"]
    call: Call = {"sig": key.digest, "t": now, "seq": agent["seq"], "phase": "pre"}
    # A call first seen by PostToolBatch was issued with the batch that event closes.
    first = batch_issued(agent) if late else issued_with(agent, now)
    if first is not None:
        call["issued"] = first
    cid = call_id(tool_use_id, key.digest)
    # A host that sends no call id (Gemini CLI 0.61.0) keys a call by its signature: an identical
    # call issued with this one holds that key, and this entry takes its place.
    earlier = calls.get(cid) if tool_use_id is None else None
    calls[cid] = call
    # A call still waiting for its result goes last: its result must meet its count.
    ledger.trim_calls(agent, min(share.calls, MAX_CALLS))
    if config.bookkeeping_tools and matches(tool, config.bookkeeping_tools):
        # The progress seed counts every bookkeeping call (`evidence_call_counts = false`).
        if not (config.evidence_call_counts and _new_task_call(agent, tool, key.digest)):
            agent["bookkeeping"] += 1
    blind = not caps.has_arguments(tool)  # the host sends no arguments for this tool
    if not is_tracked(tool, config):
        call["untracked"] = True
        return Attempt(call, None, key, False, False, 0, None, share)
    if config.slow_repeat_seconds and tool in SHELL_TOOLS and (wait := only_sleeps(tool, tool_input)) > 0:
        # A call that only waits (`sleep 30`) paces the check after it (`ledger.waited_first`);
        # right after a check made before (`gh pr checks`, `sleep 30`, `gh pr checks`…) it is
        # the pacing the texts ask for, not a repeat: untracked. After anything else (an `echo`
        # of changing text) it counts as any call.
        call["wait"] = wait
        if _paces_a_check(agent, call):
            call["untracked"] = True
            return Attempt(call, None, key, False, False, 0, None, share)
    if late and not blind:
        call["late"] = True  # no PreToolUse saw it: a call rejected before it ran, a twin of one too
    if not blind and (
        _same_key_twin(earlier, call, config, can_deny)
        or is_twin(agent, call, config, can_deny=can_deny, lost_posts="PostToolBatch" not in caps.sends)
        or late and _rejected_twin(agent, call, config)
    ):
        call["duplicate"] = True
        sig = agent["sigs"].get(key.digest)
        return Attempt(call, sig, key, False, False, sig["n"] if sig else 1, None, share)
    # An argument-blind call moves its tool's counters, which only its result can judge.
    sig = _signature(agent, tool, key, now, share.sigs, share.summary_chars, sent=not blind)
    if sig.get("refused"):
        call["retry"] = True  # the retry of a refusal or a timeout (`_escalated_retry`)
    previous_time, count = _move(agent, sig, key.digest, config, now, counted=not blind)
    return Attempt(call, sig, key, True, not blind, count, previous_time, share)


def _paces_a_check(agent: Agent, call: Call) -> bool:
    """Whether the agent's latest call before `call` is a tracked call it had made before (a
    check run again), not a wait itself."""
    latest = max((c for c in agent["calls"].values() if c["seq"] < call["seq"]), key=lambda c: c["seq"], default=None)
    if latest is None or latest.get("untracked") or "wait" in latest:
        return False
    sig = agent["sigs"].get(latest["sig"])
    return sig is not None and sig.get("total", 0) >= 2


def batch_issued(agent: Agent) -> float | None:
    """When the batch a `PostToolBatch` closes was issued: its first call's issue time (the
    calls since the previous one), None when none of them is known."""
    start = agent.get("batch_seq", 0)
    return min((ledger.issued(c) for c in agent["calls"].values() if c["seq"] > start and c["phase"] != "denied"),
               default=None)


#: A call whose PreToolUse comes this soon after the agent's latest result was not chosen by a
#: model that had read that result (a model's next answer takes longer): the host ran it next
#: from the batch the model sent (Claude Code runs a batch's shell calls one by one, each
#: PreToolUse right after the last PostToolUse; public 2.0.57 and 2.1.x transcripts: ten
#: `gemini "…"` calls of one message, five `rg` of another).
CHAINED_SECONDS = 0.3


def issued_with(agent: Agent, now: float) -> float | None:
    """When the model issued a call whose PreToolUse comes `now`, when that was earlier: the
    first call's issue time of the batch it belongs to. For an agent whose batches the host
    reports (a `PostToolBatch` seen), the calls since the last one are one batch; else a call
    that starts within `CHAINED_SECONDS` of the latest call's result was run after it from one
    batch. None for a call the model issued now (seconds since the epoch throughout)."""
    if agent.get("batch_seq", 0) > 0:
        return batch_issued(agent)
    latest = max((c for c in agent["calls"].values() if c["phase"] != "denied"), key=lambda c: c["seq"], default=None)
    if latest is None or "done" not in latest or not 0.0 <= now - latest["done"] <= CHAINED_SECONDS:
        return None
    return ledger.issued(latest)


def _signature(
    agent: Agent, tool: str, key: CallKey, now: float, limit: int, limit_chars: int, *, sent: bool = True
) -> Signature:
    """The signature of `key`, created on first use (at most `limit`, the oldest go); `sent`:
    whether the host sends the tool's arguments (`summary`)."""
    sigs = agent["sigs"]
    sig = sigs.get(key.digest)
    if sig is None:
        sig = sigs[key.digest] = {
            "tool": tool[:MAX_ID_CHARS],
            "summary": summary(tool, key, sent=sent)[:limit_chars],
            "n": 0,
            "total": 0,
            "t": None,
            "outcomes": [],
        }
        ledger.trim(sigs, min(limit, MAX_SIGNATURES), lambda k: sigs[k]["t"] or now)
    return sig


def _move(agent: Agent, sig: Signature, sig_id: str, config: Config, now: float, *, counted: bool) -> tuple[float | None, int]:
    """One more attempt of `sig`: its counters, the chain and the budget. Returns when the
    previous attempt finished (or began) and the count the thresholds are judged on."""
    # The gap to a slow repeat runs from when the previous attempt finished: a build that takes
    # 80 s and is re-run at once is a quick repeat. An attempt that never ran (denied) or has no
    # result yet is the previous one from when it was made: a model retrying a denied call every
    # few seconds is never spaced a minute from the last run that got through (rebuilt loops of
    # public threads: after a minute of denials a retry went through as a poll).
    done, began = sig.get("done"), sig["t"]
    previous_time = max(done, began) if done is not None and began is not None else done or began
    if sig.pop("refused", False):
        _escalated_retry(agent, sig)
    sig["n"] += 1
    sig["total"] += 1
    sig["t"] = now
    run = ledger.extend_chain(agent, sig_id)
    agent["since"] += 1
    return previous_time, sig["n"] if config.counting == "no_progress" or not counted else run


def _escalated_retry(agent: Agent, sig: Signature) -> None:
    """The retry of a sandbox-refused call with escalation asked for (Codex keeps the same input:
    its hooks do not see `sandbox_permissions`, openai/codex#40996), or of a timed-out call: a
    first run, not a repeat. Once per signature, so a loop of refusals still counts."""
    sig["escalated"] = True
    sig["n"] = 0
    agent["chain"] = None


# -- parallel twins ---------------------------------------------------------------------------


def is_twin(agent: Agent, call: Call, config: Config, *, can_deny: bool, lost_posts: bool = False) -> bool:
    """Whether `call` is to be judged as a parallel twin (only where it can still be denied).
    `lost_posts`: the host reports no batches (its capability table sends no PostToolBatch)."""
    return (
        config.parallel_duplicates != "count"
        and can_deny
        and _parallel_twin(agent, call, config.parallel_window_seconds, lost_posts=lost_posts)
    )


def _parallel_twin(agent: Agent, call: Call, window: float, *, lost_posts: bool = False) -> bool:
    """True when an identical call of this agent was issued together with `call`, so the model
    could not have seen its result first: it belongs to the same batch (no `PostToolBatch` since,
    for an agent whose batches Claude Code reports) or, for one whose batches no event reports
    (Codex; a Claude Code agent before its first batch ends), its result had not arrived when
    `call` was issued. Either way within `window` seconds.

    The hook processes of parallel calls start together but take the lock in any order, so a
    twin's post event may already be in the ledger (Claude Code 2.1.332 and Codex 0.171.0 LAB:
    the PreToolUse hooks of parallel calls start within 20 ms and overlap). A twin denied by a
    rule does not count: the new call is judged on its own.

    `lost_posts` (a host whose batches no event ever reports: Codex): an identical call whose
    result never came is a twin only within `NO_RESULT_WINDOW_SECONDS`, so that a lost
    PostToolUse does not merge a retry into its batch.
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


def _rejected_twin(agent: Agent, call: Call, config: Config) -> bool:
    """Whether `call`, first seen by the `PostToolBatch` that closes its batch (the host rejected
    it before it ran), has an identical call rejected so in that batch before it: one reply, one
    round, counted once under `parallel_duplicates = "count_once"`. None could be denied, so
    `is_twin` never looks at them; eight Task calls sent in one reply without their `prompt`
    (their descriptions, which the signature leaves out, all differ) counted eight attempts and
    ended the turn at the batch (Claude Code transcript, a public repository's, 2026-02)."""
    if config.parallel_duplicates != "count_once":
        return False
    start = agent.get("batch_seq", 0)
    return any(
        other is not call and other.get("late") and other["sig"] == call["sig"] and other["seq"] > start
        for other in agent["calls"].values()
    )


def _same_key_twin(earlier: Call | None, call: Call, config: Config, can_deny: bool) -> bool:
    """Whether `earlier`, the entry an identical call without a call id held under this call's
    key, was issued with it: still waiting for its result, within `NO_RESULT_WINDOW_SECONDS`
    (Gemini CLI 0.61.0 starts the BeforeTool hooks of three identical parallel `read_file` calls
    within 14 ms, and sends no id: captured payloads of 2026-12-02)."""
    if earlier is None or config.parallel_duplicates == "count" or not can_deny:
        return False
    when = earlier.get("t")
    if not isinstance(when, (int, float)) or isinstance(when, bool):
        return False  # a state file edited by hand: no twin, the call counts
    return (
        earlier.get("phase") == "pre"
        and not earlier.get("untracked")
        and abs(call["t"] - when) <= min(config.parallel_window_seconds, NO_RESULT_WINDOW_SECONDS)
    )


#: Seconds within which an identical call whose result never came (its PostToolUse lost, or not
#: yet run) is taken for its parallel twin: the hooks of one batch are started within ~20 ms
#: (LAB notes above; the clock is the kernel's record of the process start), while a retry
#: waits for the tool to run and the model to answer.
NO_RESULT_WINDOW_SECONDS = 0.3
#: Seconds within which a call of the same reported batch (no `PostToolBatch` since) is a twin:
#: the batch boundary is known, so a loaded machine that starts a batch's hooks seconds apart
#: does not split it.
BATCH_WINDOW_SECONDS = 5.0


def _twin_window(window: float, batched: bool, other: Call, lost_posts: bool) -> float:
    if batched:
        return max(window, BATCH_WINDOW_SECONDS)
    return window if "done" in other or not lost_posts else min(window, NO_RESULT_WINDOW_SECONDS)


# -- results ----------------------------------------------------------------------------------

#: A line leading or ending the outputs of this many different calls is the shell's, not the command's (a
#: profile's warning printed on stderr before every command: corpus rollout of 2025-10-24).
NOISE_CALLS = 3
#: Lines of an output's head (and of its tail) looked at, their least length, and lines followed at most.
NOISE_LINES = 3
NOISE_MIN_CHARS = 12
#: A longer line is the command's own (a shell's line is short): not looked at, as matching the
#: startup-file pattern against a long line without spaces (a minified bundle full of
#: `.profile`) took seconds, quadratic in its length (432 KB: past the hook's 8 s deadline).
NOISE_MAX_CHARS = 2048
MAX_NOISE = 8
#: Lines a host writes around every output: never noise (they are how a result reads).
_FRAME = r"(?:Exit code|Wall time|Output:|Process exited|Chunk ID|Original token count|Total output lines|<status>)"
#: Codex's sandbox wrapper, on the same line as the first thing the command printed
#: (`failed in sandbox: <stderr>`, rollouts of cli 0.4x): a profile's line after it is the same noise.
_WRAPPER = r"failed in sandbox: "
#: What the shell itself may print before a command runs: a warning (a line of the command's own,
#: an error a patch or a compiler repeats, never is noise).
_SHELL_NOISE = r"\A(?:(?:-?bash|zsh|sh): |[Ww]arning: |WARNING: )"
#: What only a startup file prints, never the command: its own complaint, or ssh-add
#: and an agent it starts (public Codex rollout of 2026-02-11: every escalated command's output
#: ended `Identity added: ~/.ssh/id_…`, every sandboxed one began `Error connecting to agent:
#: Operation not permitted`). Such a line is the shell's even when nothing else was printed.
_STARTUP_NOISE = (
    r"\A(?:\S*(?:\.(?:bash|zsh)rc|\.(?:bash_)?profile|\.zshenv|\.zprofile|shellenv\.sh|/etc/profile)\S*: "
    r"|Identity added: |Agent pid \d|Error connecting to agent: |Could not open a connection to your authentication agent)"
)


def without_noise(agent: Agent, call: Call, outcome: Outcome) -> tuple[Outcome, str]:
    """The outcome, and its text without the shell's own lines that lead or end the outputs of
    many different calls (`NOISE_CALLS`): a warning (`_SHELL_NOISE`) with different text after it
    each time, a startup file's complaint or ssh-add's note (`_STARTUP_NOISE`) whatever follows.
    A shell profile's warning printed on stderr before every command
    (`.../shellenv.sh: line 18: /bin/ps: Operation not permitted`) made every success a failure
    and unrelated failures the same error. On the first line such a line may follow Codex's
    sandbox wrapper (`failed in sandbox: <the line>`): the wrapper stays, the line goes. A
    failure read only from such a line is taken back;
    the text without them is what errors are compared by (`ResultContext.clean`). The outcome's
    text and fingerprint stay: an answer is compared whole."""
    lines = outcome.text.split("\n", NOISE_LINES)
    if len(lines) > NOISE_LINES:  # and the last lines: Codex writes stderr after stdout
        lines[NOISE_LINES:] = lines[NOISE_LINES].rsplit("\n", NOISE_LINES)
    looked = [*range(min(NOISE_LINES, len(lines))), *range(max(NOISE_LINES, len(lines) - NOISE_LINES), len(lines))]
    noise = agent.setdefault("noise", {})
    sig = call["sig"][:8]
    dropped = False
    for i in looked:
        line = lines[i]
        wrapper = re.match(_WRAPPER, line) if i == 0 else None
        lead = wrapper.group(0) if wrapper else ""
        body = line[len(lead):].strip()
        if not NOISE_MIN_CHARS <= len(body) <= NOISE_MAX_CHARS or re.match(_FRAME, body):
            continue
        startup = re.search(_STARTUP_NOISE, body) is not None
        if not (startup or re.search(_SHELL_NOISE, body)):
            continue
        key = digest(body.encode("utf-8", "surrogatepass"))[:8]
        entry = noise.get(key)
        if entry is None:
            noise[key] = entry = [0, "", ""]
            for old in list(noise)[:-MAX_NOISE]:
                del noise[old]
        rest = digest("\n".join(lines[:i] + lines[i + 1 :]).encode("utf-8", "surrogatepass"))[:6]
        if entry[1] != sig:
            entry[0], entry[1] = int(entry[0]) + 1, sig
            if str(entry[2]) not in ("", "*", rest):
                entry[2] = "*"  # different text after it: the line is no part of one answer
            elif entry[2] == "":
                entry[2] = rest
        if int(entry[0]) >= NOISE_CALLS and (entry[2] == "*" or startup):
            lines[i], dropped = lead.rstrip() or "\0", True
    if not noise:
        del agent["noise"]
    if not dropped:
        return outcome, outcome.text
    text = "\n".join(line for line in lines if line != "\0")
    if outcome.failure == Failure.SOFT and not text_failure(text):
        outcome = outcome._replace(failure=Failure.NONE)
    return outcome, text


class Evidence(NamedTuple):
    """What a tracked call's result says: `new` when the agent has not seen this outcome since
    its last reset (and the output is not an echo of the call's own arguments), `productive`
    when it is new evidence or a successful mutation that changed something."""

    new: bool
    productive: bool


def record_result(
    agent: Agent, call: Call, tool: str, tool_input: Any, response: Any, outcome: Outcome, config: Config, *, agents: int,
    unchanged: bool = False, shell_edit: bool = False,
) -> Evidence | None:
    """Store a call's outcome and judge it as evidence; None for an untracked call or one whose
    signature the ledger no longer holds (nothing for the result rules to judge).

    New evidence is an outcome new to the agent (`Agent.seen`), not only to this signature:
    different commands with the same output, or errors cycling through a few texts, bring
    nothing new. An output that only repeats the call's own arguments (an `echo`), or that the host
    marks as a repeat of an earlier result (`Outcome.unchanged`), is no evidence.
    `agents` is how many agents the session holds (their tables share one budget). A call that
    meant to change files and left every one of them as it was (`unchanged`: a fix that fixed
    nothing, an edit script whose pattern matched nothing) is no progress, whatever it printed;
    a shell edit the engine saw change the files it named (`shell_edit`: a line of edits and
    reads, `tools.edits_only`, at its first attempt since the last progress) is progress, as a
    mutation tool's is, though it printed nothing."""
    call["phase"] = "done"
    call["done"] = agent["updated"]
    share = ledger.limits(agents)
    if call.get("untracked"):
        if not config.evidence_call_counts and matches(tool, config.bookkeeping_tools):
            _bookkeeping_evidence(agent, outcome, response, share.seen)
        return None
    sig = agent["sigs"].get(call["sig"])
    if sig is None:
        return None
    seen = agent.setdefault("seen", [])
    mutation = matches(tool, config.mutating_tools)
    new = (
        outcome.fingerprint not in seen
        and not outcome.unchanged
        and not (not mutation and echoes_arguments(outcome.text, tool_input))
    )
    # After files were put back as they were (`Agent.back`), a call whose result differs from its
    # own previous one saw the change (a test that fails without the fix and passes with it), unless
    # it gave that result before with the files as they are now (`ledger.note_result`: two wrong
    # fixes swapped, each failing its own way, are a loop). A read shows each flip and is always
    # such a call (`cat app.txt` after each flip of x). The same result in both states is a loop.
    back, done, previous = agent.get("back"), sig.get("done"), sig.get("outcomes")
    again = (
        config.revisit_evidence and bool(agent.get("files"))  # no map of edited files: nothing to judge
        and not _reads(tool, tool_input, config) and ledger.note_result(agent, call["sig"], outcome.fingerprint)
    )
    alternated = (
        isinstance(back, float | int) and isinstance(done, float | int) and done < back and not again
        and isinstance(previous, list) and bool(previous) and previous[-1] != outcome.fingerprint
    )
    productive = not unchanged and outcome.failure != Failure.HARD and (
        new
        or (mutation and outcome.failure == Failure.NONE and not is_noop_mutation(tool, tool_input, response))
        or (shell_edit and outcome.failure == Failure.NONE)
        or alternated
    )
    # The same call made again right after itself, `FLAP_SECONDS` or more after it (`_spaced`),
    # succeeding as before with another result than its own previous one and no word of
    # failure in it: what it looks at moved by itself (a pod flapping between Pending and
    # ContainerCreating), though neither result is new to the agent. A poll whose output changes
    # is no loop: its own count starts again, as after a new failure text; no progress for the
    # other calls. A fix between two runs breaks the run of identical calls; failures cycling
    # through a few texts, also through `| tail` (exit 0: `outcome.text_failure`,
    # `outcome.says_not_right`), and a toggle run again at once are a loop still.
    flapped = (
        config.revisit_evidence and not productive and not outcome.unchanged
        and outcome.failure == Failure.NONE and sig.get("failed") == Failure.NONE
        and _run_of(agent, call["sig"]) >= 2 and isinstance(previous, list) and bool(previous)
        and previous[-1] != outcome.fingerprint and _spaced(sig, call, tool, tool_input)
        and not text_failure(outcome.text) and not says_not_right(outcome.text)
    )
    if outcome.fingerprint in seen:
        seen.remove(outcome.fingerprint)  # most recently seen last: the oldest is forgotten first
    seen.append(outcome.fingerprint)
    del seen[: -share.seen]
    sig["outcomes"] = [outcome.fingerprint][-MAX_OUTCOMES:]
    limit = min(config.result_preview_chars, share.preview_chars)
    if not (outcome.unchanged and sig.get("preview")):
        # A host's stub for a result it gave before (Qwen Code's "unchanged since last read …
        # re-read with explicit offset/limit") is not quoted as the result: a denial quoting it
        # would invite the re-read it denies. The result it stands for stays the preview.
        sig["preview"] = preview(redact_prefix(outcome.text, limit + 1), limit)
    failed_before = sig.get("failed")
    sig["failed"] = outcome.failure
    if outcome.failure and not sig.get("escalated") and is_sandbox_refusal(outcome.text):
        sig["refused"] = True
    ledger.keep_recent_previews(agent, share.previews)
    sig["done"] = agent["updated"]  # when this call last finished: the gap to a slow repeat
    # A new failure text restarts the count only after failures: after a success of the same
    # call ("File unchanged since last read") it says nothing new about the task.
    restarts_own = (new and failed_before != Failure.NONE) or flapped
    _count_evidence(agent, call, sig, new=new, restarts_own=restarts_own, productive=productive, config=config)
    return Evidence(new, productive)


#: Seconds a poll waits between its checks, at least, for a change between them to be the world's
#: (`record_result`): a flaky test run again at once, a branch toggled back and forth, are loops.
FLAP_SECONDS = 5.0


def _spaced(sig: Signature, call: Call, tool: str, tool_input: Any) -> bool:
    """Whether a call came `FLAP_SECONDS` or more after its previous attempt finished, or waits
    that long itself before it checks (`sleep 10 && kubectl get pods`)."""
    done = sig.get("done")
    gap = call["t"] - done if isinstance(done, int | float) else 0.0
    return gap >= FLAP_SECONDS or sleeps_first(tool, tool_input) >= FLAP_SECONDS


def _run_of(agent: Agent, sig_id: str) -> int:
    """How many calls of `sig_id` the agent made in a row up to its latest (`Agent.chain`), 0 when
    its latest was another."""
    chain = agent["chain"]
    return int(chain[1]) if chain and chain[0] == sig_id else 0


def _reads(tool: str, tool_input: Any, config: Config) -> bool:
    """Whether a call only reads: a read tool (`tools.is_read_tool`), or a shell command that only
    reads (`shellwords.only_reads`: `cat app.txt`, PowerShell's `Get-Content app.txt`)."""
    if is_read_tool(tool, config):
        return True
    command = shell_command(tool, tool_input)
    return command is not None and only_reads(command)


def _count_evidence(
    agent: Agent, call: Call, sig: Signature, *, new: bool, restarts_own: bool, productive: bool, config: Config
) -> None:
    """A productive result sets every other signature and the budgets back; a new failure text
    after failures, or a spaced poll's output flipping (`record_result`: `flapped`), restarts only
    its own count (`restarts_own`, with `new_failure_is_evidence`)."""
    if productive and not call.get("duplicate"):
        for other_id, other in agent["sigs"].items():
            if other_id != call["sig"]:
                other["n"] = 0
        # The call that brought the evidence counts 1 (balanced), or not at all (the progress
        # profile, as dsh-agent-loop-guard: read-0 new, read-1..5 run, read-6 denied).
        sig["n"] = 1 if config.evidence_call_counts else 0
        agent["since"] = 0
        agent["bookkeeping"] = 0
        agent.pop("plan", None)
    elif restarts_own and not call.get("duplicate") and config.new_failure_is_evidence:
        # A failure that says something new (a poll that exits non-zero while its progress
        # changes) is new evidence for its own signature, though not progress for the others.
        sig["n"] = 1
    if new:
        call["new"] = True


def _bookkeeping_evidence(agent: Agent, outcome: Outcome, response: Any, limit: int) -> None:
    """An untracked bookkeeping call's result judged like any other (the progress profile, as
    its seed): a result new to the agent sets the bookkeeping budget back. Not the plan itself:
    a result's lists and objects echo the plan the call sent (Claude Code's TodoWrite answers
    `{"oldTodos": [...], "newTodos": [...]}`, captured 2.1.x transcripts), and a plan update is
    no productive action, so only a result's own text is judged (DSH's `Updated todo list: 1
    pending, …`, captured 0.1.0-rc.8; Codex's `Plan updated`)."""
    seen = agent.setdefault("seen", [])
    if outcome.failure == Failure.HARD:
        return
    key = outcome.fingerprint
    if isinstance(response, dict):
        key = "plan:" + outcome_fingerprint({k: v for k, v in response.items() if not isinstance(v, (list, dict))})
    if key in seen:
        return
    seen.append(key)
    del seen[:-limit]
    agent["bookkeeping"] = 0
    agent.pop("plan", None)


#: Claude Code's task tools change one task a call (2.1.x: TaskCreate `{"subject", "description",
#: "activeForm"}`, TaskUpdate `{"taskId", "status", "addBlockedBy", "owner", …}`; held-out
#: transcripts of agent teams, 2.1.39-2.1.42). A lead setting up a team's plan makes one call per
#: task, per dependency and per owner: 29 TaskCreate and 30 TaskUpdate calls in a row, each of
#: its own. What a whole-plan tool (TodoWrite, update_plan) does in one call is no loop here.
TASK_TOOLS = frozenset({"TaskCreate", "TaskUpdate"})
#: How many distinct task calls since an agent's last new evidence go uncounted (`Agent.plan`):
#: a plan of 20 tasks with a dependency and an owner each is 59; past this many every task call
#: counts, so reworded calls cannot go on for ever.
MAX_PLAN_CALLS = 64


def _new_task_call(agent: Agent, tool: str, sig: str) -> bool:
    """Whether a bookkeeping call is a task tool's call (`TASK_TOOLS`) not made with these
    arguments (`sig`, its signature) since the last new evidence, while fewer than
    `MAX_PLAN_CALLS` were: a step in building the plan, not plan churn. The same call again
    (a status flipped back and forth) counts, as every call of a whole-plan tool does."""
    if tool not in TASK_TOOLS:
        return False
    plan = agent.get("plan")
    if not isinstance(plan, list):
        plan = agent["plan"] = []
    if sig in plan or len(plan) >= MAX_PLAN_CALLS:
        return False
    plan.append(sig)
    return True


def uncount(agent: Agent, call: Call) -> None:
    """Take back the attempt of a call that never ran (a host cancelled it with a failing
    sibling): it is no attempt with a result."""
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
    """Whether a failure reads as a sandbox refusal or a timeout (its identical retry may be the
    escalated one)."""
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
