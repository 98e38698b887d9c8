"""Claude Code 2.1.332, driven by a scripted model, with loopguard-hook on every hook event
(balanced profile, default thresholds: reminders at attempts 3 and 4, denials at 5-7, the turn
ends at 8)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from . import ledger
from .clients import ClaudeCode, Run, Workspace
from .mock_model import Script, Subscript, text, tool_use
from .model_view import claude_calls, claude_new, guard_texts, verdict
from .transcripts import claude_transcript, export

pytestmark = pytest.mark.e2e

#: What the model sees after attempts 1..7 of one unchanged call (the 8th ends the turn).
REPEATS_SEEN = ["-", "-", "remind@3", "remind@4", "deny@5", "deny@6", "deny@7"]
REPEATS_LOGGED = ["remind@3", "remind@4", "deny@5", "deny@6", "deny@7", "stop@8"]


def events(run: Run) -> list[dict[str, Any]]:
    """Every stream-json record the client printed, all prompts in order."""
    return [json.loads(line) for p in run.prompts for line in p.stdout.splitlines() if line.startswith("{")]


def session_id(run: Run) -> str:
    """The session of every prompt's `init` record (with --continue a SessionStart hook record
    may carry a provisional id; the init record has the resumed one)."""
    ids = {str(e["session_id"]) for e in events(run) if e.get("subtype") == "init"}
    assert len(ids) == 1, f"expected one session, got {ids}"
    return ids.pop()


def assert_hooks_succeeded(run: Run) -> None:
    """Every hook run exited 0 (`--include-hook-events` reports each with its exit code)."""
    responses = [e for e in events(run) if e.get("subtype") == "hook_response"]
    assert responses, "no hook ran"
    failed = [(e.get("hook_event"), e.get("exit_code"), e.get("stderr")) for e in responses if e.get("exit_code") != 0]
    assert failed == [], f"hooks failed: {failed}; {run.describe()}"
    assert ledger.errors(run.ws) == ""


def seen(bodies: list[dict[str, Any]]) -> list[str]:
    """The guard verdict visible in each request after the first (request k carries call k's result)."""
    return [verdict(claude_new(body)) for body in bodies[1:]]


def assert_silent(run: Run) -> None:
    """No guard text reached the model in any request, main or subagent, and none was logged."""
    for r in run.requests:
        hits = guard_texts(claude_new(r.body)) if isinstance(r.body, dict) else []
        assert hits == [], f"request {r.seq} ({r.script}) carried guard text: {hits}; {run.describe()}"
    assert ledger.audit(run.ws) == []


def most_concurrent_pre_hooks(run: Run) -> int:
    """The most PreToolUse hook runs in flight at once (from hook_started/hook_response records)."""
    running = most = 0
    for e in events(run):
        if e.get("hook_event") == "PreToolUse":
            running += {"hook_started": 1, "hook_response": -1}.get(str(e.get("subtype")), 0)
            most = max(most, running)
    return most


def test_identical_reads_are_reminded_then_denied_then_the_turn_ends(claude_code: ClaudeCode, ws: Workspace) -> None:
    notes = ws.write("notes.txt", "alpha\nbeta\n")
    read = tool_use("Read", {"file_path": str(notes)})
    run = claude_code.run(ws, Script([[read]] * 12, final_text="Notes read."), ["Summarise notes.txt"])
    assert_hooks_succeeded(run)
    conv = run.conversation()

    assert seen(conv) == REPEATS_SEEN, run.describe()
    for attempt in (3, 4):  # additionalContext: a system message after the tool result
        assert [s.where for s in guard_texts(claude_new(conv[attempt]))] == ["system"]
    for attempt in (5, 6, 7):
        (call,) = claude_calls(conv[attempt])
        (hit,) = guard_texts(claude_new(conv[attempt]))
        assert hit.call_id == call and hit.is_error, hit
        assert hit.text.startswith("PreToolUse:Read hook error: REPEAT_TOOL_BLOCKED"), hit.text
        assert "alpha" in hit.text  # the previous result is quoted
    # The 8th attempt ends the turn: no request after it, and the client says a hook stopped it.
    assert len(conv) == 8, f"{len(conv)} model requests; {run.describe()}"
    assert events(run)[-1].get("terminal_reason") == "hook_stopped"

    sid = session_id(run)
    state = ledger.only_session(ws)
    assert state["session_id"] == sid
    assert state["attempts"] == state["agents"]["main"]["attempts"] == 8
    assert [s["n"] for s in state["agents"]["main"]["sigs"].values()] == [8]

    (summary,) = ledger.status(ws)["sessions"]
    main = summary["agents"]["main"]
    assert main["signatures"][0]["no_progress"] == main["signatures"][0]["attempts"] == 8
    assert ledger.decisions(summary["recent_decisions"]) == REPEATS_LOGGED

    records = ledger.checked_audit(ws, REPEATS_LOGGED, session=sid, agent="main", event="PreToolUse", tool="Read")
    assert [r["rule"] for r in records[:5]] == ["LOOP_GUARD_REPEAT"] * 5
    # What the model saw is what the guard logged (the stop never reached a model request).
    assert [v for v in seen(conv) if v != "-"] == ledger.decisions(records)[:-1]
    # The stop was a denial too: the client recorded the 8th call as blocked, not run.
    (last,) = [e for e in events(run) if e.get("type") == "user"][-1]["message"]["content"]
    assert last["is_error"] and "REPEAT_TOOL_BLOCKED" in last["content"] and "attempt 8" in last["content"]

    export(run, claude_transcript(run, sid), "claude-code-identical-reads.jsonl")


def test_rejected_edits_are_reminded_after_the_batch_and_end_the_turn(claude_code: ClaudeCode, ws: Workspace) -> None:
    # An Edit whose old_string is not in the file fails Claude Code's input validation: no
    # PreToolUse, no post event, only PostToolBatch sees it, so the guard can remind but not deny:
    # where a denial would come (the 5th), it ends the turn.
    app = ws.write("app.py", "a = 1\n")
    edit = tool_use("Edit", {"file_path": str(app), "old_string": "NOT_THERE", "new_string": "a = 2"})
    turns = [[tool_use("Read", {"file_path": str(app)})]] + [[edit]] * 10
    run = claude_code.run(ws, Script(turns, final_text="Gave up."), ["Fix app.py"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert seen(conv) == ["-", "-", "-", "remind@3", "remind@4"], run.describe()
    # The reminders say the host rejected the Edit and quote its answer (not "identical arguments").
    for body in conv[4:6]:
        (text,) = [s.text for s in guard_texts(claude_new(body))]
        assert "The host rejected this Edit call before it ran" in text and "String to replace not found" in text, text
    assert len(conv) == 6  # the 5th rejection ended the turn from PostToolBatch
    assert events(run)[-1].get("terminal_reason") == "hook_stopped"
    assert app.read_text() == "a = 1\n"

    records = ledger.audit(ws)
    assert ledger.decisions(records) == ["remind@3", "remind@4", "stop@5"]
    assert {(r["event"], r["tool"]) for r in records} == {("PostToolBatch", "Edit")}
    assert ledger.only_session(ws)["agents"]["main"]["attempts"] == 6  # the Read and 5 Edits


def test_the_read_first_rule_stays_silent_where_the_host_no_longer_refuses(claude_code: ClaudeCode, ws: Workspace) -> None:
    # Claude Code 2.0 refused an edit or a write of a file its Read tool had not read since the
    # file changed (the read-first rule's case). 2.1.332 refuses neither here: a Write of a file
    # never read applies, and so does an Edit of a file changed on disk since its Read (with a
    # note). The rule counts nothing and denies nothing; Greps between are ordinary calls.
    app = ws.write("app.py", "a = 1\n")
    turns = [
        [tool_use("Write", {"file_path": str(app), "content": "a = 2\n"})],
        [tool_use("Grep", {"pattern": "a =", "path": str(app), "output_mode": "content"})],
        [tool_use("Read", {"file_path": str(app)})],
        [tool_use("Bash", {"command": f"echo 'b = 2' >> {app}"})],
        [tool_use("Grep", {"pattern": "b =", "path": str(app), "output_mode": "content"})],
        [tool_use("Edit", {"file_path": str(app), "old_string": "a = 2", "new_string": "a = 6"})],
    ]
    run = claude_code.run(ws, Script(turns, final_text="Done."), ["Set a to 6 in app.py"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert len(conv) == 7, run.describe()
    for i in (1, 6):
        (result,) = [s for s in claude_new(conv[i]) if s.where == "tool_result"]
        assert not result.is_error and "updated successfully" in result.text, result
    assert app.read_text() == "a = 6\nb = 2\n"
    assert_silent(run)
    assert "read_first" not in ledger.only_session(ws)["agents"]["main"].get("rules", {})


def test_calls_cut_short_between_reads_are_reminded_then_end_the_turn(claude_code: ClaudeCode, ws: Workspace) -> None:
    # A reply cut before its tool input reaches Claude Code as `{}`: input validation rejects it
    # ("The required parameter `command` is missing") before PreToolUse, so only PostToolBatch
    # sees it, and the reads between succeed (new evidence each). The cut-input rule counts the
    # rejections whatever the tool: a reminder with the 3rd, the turn ended at the 4th.
    parts = [ws.write(f"part{i}.html", f"<p>part {i}</p>\n") for i in range(4)]
    turns = []
    for i, part in enumerate(parts):
        turns += [[tool_use("Bash" if i % 2 == 0 else "Write", {})], [tool_use("Read", {"file_path": str(part)})]]
    run = claude_code.run(ws, Script(turns, final_text="Stopped."), ["Update the report"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert "The required parameter `command` is missing" in json.dumps(conv[1])  # the host's own words
    assert len(conv) == 7, run.describe()  # the 4th rejection (the 7th call) ended the turn
    assert events(run)[-1].get("terminal_reason") == "hook_stopped"
    reminded = [[s.text for s in guard_texts(claude_new(body))] for body in conv[1:]]
    assert [bool(texts) for texts in reminded] == [False, False, False, False, True, False], run.describe()
    assert "reached the tool without their arguments" in reminded[4][0] and "in parts" in reminded[4][0]
    records = ledger.audit(ws)
    assert [(r["event"], r["rule"], r["action"], r["count"]) for r in records] == [
        ("PostToolBatch", "LOOP_GUARD_CUT_INPUT", "remind", 3), ("PostToolBatch", "LOOP_GUARD_CUT_INPUT", "stop", 4)
    ]


def test_a_call_a_deny_rule_refused_sent_again_is_denied_by_the_guard(claude_code: ClaudeCode, ws: Workspace) -> None:
    # A `permissions.deny` rule refuses `rm -rf` before the command runs: PreToolUse fires, no
    # post event, and PostToolBatch holds Claude Code's own refusal. The model lists the folder,
    # then sends the same removal again: the guard denies it at PreToolUse (the rule would refuse
    # it again) and says to tell the user what to allow; a removal of another folder goes ahead.
    doomed = ws.work / "cache"
    doomed.mkdir()
    rm = tool_use("Bash", {"command": f"rm -rf {doomed}", "description": "Remove the cache"})
    other = tool_use("Bash", {"command": f"rm -rf {doomed}/old", "description": "Remove the old part"})
    ls = tool_use("Bash", {"command": f"ls -la {doomed}", "description": "List the cache"})
    script = Script([[rm], [ls], [rm], [other]], final_text="Asked the user.")
    run = claude_code.run(ws, script, ["Clean the cache"], deny=("Bash(rm -rf:*)",))
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert len(conv) == 5, run.describe()
    first, again, third = (" ".join(s.text for s in claude_new(body)) for body in (conv[1], conv[3], conv[4]))
    assert "Permission to use Bash with command rm -rf" in first and "has been denied" in first  # the host's own words
    assert "REPEAT_TOOL_BLOCKED" in again and "the permission settings refused this same call once" in again
    assert "tell the user what to allow" in again
    assert "REPEAT_TOOL_BLOCKED" not in third and "has been denied" in third  # another command: the host's refusal
    assert doomed.is_dir()
    records = ledger.audit(ws)
    assert [(r["event"], r["rule"], r["action"], r["count"]) for r in records] == [
        ("PreToolUse", "LOOP_GUARD_REFUSED_AGAIN", "deny", 2)
    ]


def test_polling_whose_output_changes_is_never_flagged(claude_code: ClaudeCode, ws: Workspace) -> None:
    poll = tool_use("Bash", {"command": "date +%s%N", "description": "Check the clock"})
    run = claude_code.run(ws, Script([[poll]] * 10, final_text="Clock checked."), ["Watch the clock"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    outputs = [s.text for body in conv[1:] for s in claude_new(body) if s.where == "tool_result"]
    assert len(outputs) == 10 and len(set(outputs)) == 10, outputs  # the output really changed
    assert_silent(run)

    state = ledger.only_session(ws)
    assert state["agents"]["main"]["attempts"] == 10
    (sig,) = state["agents"]["main"]["sigs"].values()
    assert (sig["n"], sig["total"]) == (1, 10)  # each new output restarts the count


def test_edit_then_failing_test_cycle_is_never_flagged(claude_code: ClaudeCode, ws: Workspace) -> None:
    app = ws.write("app.py", "a = 1\n")
    ws.write("check.py", "import sys\nsys.exit('FAILED: a should be 99')\n")
    turns = [[tool_use("Read", {"file_path": str(app)})]]  # Edit refuses a file not read first
    for i in range(1, 7):
        turns.append(
            [
                tool_use(
                    "Edit",
                    {"file_path": str(app), "old_string": f"a = {i}", "new_string": f"a = {i + 1}"},
                )
            ]
        )
        turns.append([tool_use("Bash", {"command": "python3 check.py", "description": "Run the check"})])
    run = claude_code.run(ws, Script(turns, final_text="Still failing."), ["Make check.py pass"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    results = [s for body in conv[1:] for s in claude_new(body) if s.where == "tool_result"]
    failures = [s.text for s in results if s.is_error]
    assert len(results) == 13 and len(failures) == 6 and len(set(failures)) == 1, results  # same failure each time
    assert app.read_text() == "a = 7\n"  # every Edit ran
    assert_silent(run)

    state = ledger.only_session(ws)
    assert state["agents"]["main"]["attempts"] == 13
    check = [s for s in state["agents"]["main"]["sigs"].values() if "check.py" in s["summary"]]
    assert [(s["n"], s["total"]) for s in check] == [(1, 6)]  # each edit was new evidence

    export(run, claude_transcript(run, session_id(run)), "claude-code-edit-test-cycle.jsonl")


def test_a_check_between_writes_that_change_nothing_is_denied(claude_code: ClaudeCode, ws: Workspace) -> None:
    # Check, no-op fix, check: the Write sends app.py the text it already holds. With the
    # workspace not looked at (`workspace_evidence = false`), only the host's own Write result
    # (`originalFile` equal to the content) says the write changed nothing: the check counts on.
    app = ws.write("app.py", "a = 1\n")
    ws.write("check.py", "import sys\nsys.exit('FAILED: a should be 99')\n")
    ws.write(".loopguard.toml", "workspace_evidence = false\n")
    check = tool_use("Bash", {"command": "python3 check.py", "description": "Run the check"})
    write = tool_use("Write", {"file_path": str(app), "content": "a = 1\n"})
    turns = [[tool_use("Read", {"file_path": str(app)})], [check]] + [[write], [check]] * 4
    run = claude_code.run(ws, Script(turns, final_text="Still failing."), ["Make check.py pass"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    # calls: Read, check 1, write 1, check 2, ... check 5; request k carries call k's result
    assert seen(conv) == ["-", "-", "-", "-", "-", "remind@3", "remind@3", "remind@4", "remind@4", "deny@5"], run.describe()
    (call,) = claude_calls(conv[10])
    (hit,) = guard_texts(claude_new(conv[10]))
    assert hit.call_id == call and hit.is_error and hit.text.startswith("PreToolUse:Bash hook error: REPEAT_TOOL_BLOCKED"), hit
    # The model thinks its write was the fix: the denial tells it the write changed nothing.
    note = "Your Write call made since this call's previous run left the files it names exactly as they were."
    assert note in hit.text, hit
    assert app.read_text() == "a = 1\n"
    records = ledger.audit(ws)
    assert [(r["tool"], r["rule"]) for r in records][-1] == ("Bash", "LOOP_GUARD_REPEAT")


def test_parallel_calls_lose_no_update_and_are_no_repeat(claude_code: ClaudeCode, ws: Workspace) -> None:
    files = [ws.write(f"part{i}.txt", f"part {i}\n") for i in range(6)]
    notes = ws.write("notes.txt", "alpha\n")
    batch = [tool_use("Read", {"file_path": str(f)}) for f in files]
    same = [tool_use("Read", {"file_path": str(notes)})] * 3
    run = claude_code.run(ws, Script([batch, batch, same], final_text="Read all."), ["Read every part"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    results = [s for body in conv[1:] for s in claude_new(body) if s.where == "tool_result"]
    assert len(results) == 15 and not any(s.is_error for s in results), results
    assert most_concurrent_pre_hooks(run) >= 2  # the hooks really raced for the ledger
    assert_silent(run)

    state = ledger.only_session(ws)
    assert state["attempts"] == state["agents"]["main"]["attempts"] == 15  # no lost update
    sigs = state["agents"]["main"]["sigs"].values()
    assert sorted(s["total"] for s in sigs if "part" in s["summary"]) == [2] * 6
    (same_sig,) = [s for s in sigs if "notes.txt" in s["summary"]]
    assert same_sig["n"] == 1  # three identical calls in one batch count once


def test_subagent_doing_the_main_threads_call_has_its_own_count(claude_code: ClaudeCode, ws: Workspace) -> None:
    notes = ws.write("notes.txt", "alpha\nbeta\n")
    read = [tool_use("Read", {"file_path": str(notes)})]
    task = "SUBAGENT-TASK: read notes.txt and report"
    # In the background: the subagent's reads interleave with the main thread's in one ledger.
    agent = [
        tool_use(
            "Agent",
            {
                "description": "Read notes",
                "prompt": task,
                "subagent_type": "general-purpose",
                "run_in_background": True,
            },
        )
    ]
    script = Script(
        [read, read, agent, read, read],
        final_text="Main done.",
        subagents=(Subscript(task, [read, read, read], final_text="Notes: alpha, beta."),),
    )
    run = claude_code.run(ws, script, ["Delegate reading notes.txt"])
    assert_hooks_succeeded(run)

    # The subagent's third read is its own third: reminded there, and only there.
    assert seen(run.conversation(task)) == ["-", "-", "remind@3"], run.describe()
    assert set(seen(run.conversation())) == {"-"}, run.describe()

    state = ledger.only_session(ws)
    sub_ids = [a for a in state["agents"] if a != "main"]
    assert len(sub_ids) == 1, state["agents"].keys()
    assert state["agents"]["main"]["attempts"] == 5  # 4 reads and the Agent call
    assert state["agents"][sub_ids[0]]["attempts"] == 3
    (record,) = ledger.audit(ws)
    assert (record["agent"], record["action"], record["count"]) == (sub_ids[0], "remind", 3)


def test_a_subagent_watching_a_background_job_back_to_back_is_reminded_then_denied(
    claude_code: ClaudeCode, ws: Workspace
) -> None:
    """The shape of anthropics/claude-code#95202: a subagent starts a job with `&` and asks its
    log the same two things in turn, a second apart; each answer moves, so only the polling
    rule counts them. The 6th repeated probe (the 8th in all) is reminded in the subagent's
    own conversation, the later ones are denied; the main thread hears nothing."""
    job = "i=0; while [ $i -lt 90 ]; do i=$((i+1)); echo step $i; sleep 1; done"
    launch = tool_use("Bash", {"command": f"setsid nohup sh -c '{job}' lg-e2e-job > job.log 2>&1 &"})
    probes = [tool_use("Bash", {"command": c}) for c in ("sleep 1 && tail -1 job.log", "sleep 1 && grep -c step job.log")]
    task = "SUBAGENT-TASK: start the job and watch it"
    agent = tool_use("Agent", {"description": "Watch the job", "prompt": task, "subagent_type": "general-purpose"})
    script = Script(
        [[agent]],
        final_text="Main done.",
        subagents=(Subscript(task, [[launch]] + [[probes[i % 2]] for i in range(11)], final_text="Still running."),),
    )
    try:
        run = claude_code.run(ws, script, ["Run the job and watch it"])
    finally:
        subprocess.run(["pkill", "-f", "lg-e2e-job"], check=False)
    assert_hooks_succeeded(run)
    labels = seen(run.conversation(task))
    assert labels[:8] == ["-"] * 8 and labels[8].startswith("remind"), (labels, run.describe())
    assert labels[9:] == ["deny@?"] * 3, (labels, run.describe())
    texts = [guard_texts(claude_new(body)) for body in run.conversation(task)[1:]]
    assert "asking the same things again" in texts[8][0].text
    assert all("REPEAT_TOOL_BLOCKED: this check of the background job" in t[0].text for t in texts[9:])
    assert set(seen(run.conversation())) == {"-"}, run.describe()
    logged = [(r["rule"], r["action"]) for r in ledger.audit(ws)]
    assert logged == [("LOOP_GUARD_POLL", "remind")] + [("LOOP_GUARD_POLL", "deny")] * 3


def test_a_new_user_prompt_resets_the_counts(claude_code: ClaudeCode, ws: Workspace) -> None:
    notes = ws.write("notes.txt", "alpha\nbeta\n")
    read = [tool_use("Read", {"file_path": str(notes)})]
    script = Script([read] * 4 + [[text("Read it four times.")]] + [read] * 3 + [[text("Read it again.")]])
    run = claude_code.run(ws, script, ["Read notes.txt", "Read notes.txt once more"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert len(conv) == 9, run.describe()
    assert seen(conv[:5]) == ["-", "-", "remind@3", "remind@4"]
    assert seen(conv[5:]) == ["-", "-", "remind@3"]  # counting restarted at the new prompt

    state = ledger.only_session(ws)
    assert state["session_id"] == session_id(run)  # --continue kept the session
    assert state["attempts"] == state["agents"]["main"]["attempts"] == 7
    assert [s["n"] for s in state["agents"]["main"]["sigs"].values()] == [3]
    assert ledger.decisions(ledger.audit(ws)) == ["remind@3", "remind@4", "remind@3"]


def test_session_end_forgets_the_session(claude_code: ClaudeCode, ws: Workspace) -> None:
    notes = ws.write("notes.txt", "alpha\n")
    read = [tool_use("Read", {"file_path": str(notes)})]
    run = claude_code.run(ws, Script([read] * 3), ["Read notes.txt"], keep_state=False)
    assert_hooks_succeeded(run)
    assert seen(run.conversation()) == ["-", "-", "remind@3"]
    assert list((ws.state / "sessions").glob("*.json")) == []  # SessionEnd deleted the ledger
    (record,) = ledger.audit(ws)  # the audit log outlives it
    assert (record["session"], record["action"], record["count"]) == (session_id(run), "remind", 3)


def test_an_empty_file_read_many_ways_is_reminded_then_denied_until_looked_at(claude_code: ClaudeCode, ws: Workspace) -> None:
    # Issue 22: a file emptied on disk, read one way after another, each printing nothing. The
    # same-answer rule reminds at the 4th empty read; the 5th read is denied (it would print
    # nothing too) with how to look at the file instead; a size check lifts the denial.
    ws.write("data.json", "")
    reads = ["cat data.json", "head -20 data.json", "tail -20 data.json", "nl data.json", "head -5 data.json"]
    turns = [[tool_use("Bash", {"command": c, "description": "Read the data"})] for c in reads]
    turns += [[tool_use("Bash", {"command": "ls -l data.json", "description": "Size"})]]
    turns += [[tool_use("Bash", {"command": "cat data.json", "description": "Read it again"})]]
    run = claude_code.run(ws, Script(turns, final_text="data.json is empty."), ["What is in data.json?"])
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert len(conv) == 8, run.describe()
    assert [bool(guard_texts(claude_new(body))) for body in conv[1:]] == [False, False, False, True, True, False, False]
    (reminder,) = guard_texts(claude_new(conv[4]))
    assert reminder.where == "system" and "has given the same answer to 4 different calls" in reminder.text
    (call,) = claude_calls(conv[5])
    (denial,) = guard_texts(claude_new(conv[5]))
    assert denial.call_id == call and denial.is_error, denial
    assert denial.text.startswith("PreToolUse:Bash hook error: REPEAT_TOOL_BLOCKED: this read of data.json was not run")
    assert "ls -l data.json" in denial.text
    records = ledger.audit(ws)
    assert [(r["event"], r["action"], r["rule"]) for r in records] == [
        ("PostToolUse", "remind", "LOOP_GUARD_SAME_ANSWER"), ("PreToolUse", "deny", "LOOP_GUARD_SAME_ANSWER"),
    ]
    # Logged with the reads the rule counts, not the denied call's own attempts (its first).
    assert ledger.decisions(records) == ["remind@4", "deny@4"]


#: Claude Code 2.1.332 answers a TodoWrite call with "No such tool available: TodoWrite. TodoWrite
#: is disabled for this session" unless its task tools are off and its todo tools on (the mock's
#: model gets neither by default); with these it runs the call (a deferred tool, not listed).
TODO_WRITE_ON = {"CLAUDE_CODE_ENABLE_TASKS": "false", "CLAUDE_CODE_ENABLE_TODO_TOOLS": "true"}


def todo_write(*steps: str) -> dict[str, Any]:
    """A TodoWrite call setting the whole list: the first step in progress, the rest pending."""
    todos = [
        {"content": step, "status": "in_progress" if i == 0 else "pending", "activeForm": f"Doing: {step}"}
        for i, step in enumerate(steps)
    ]
    return tool_use("TodoWrite", {"todos": todos})


def test_the_same_plan_sent_again_and_again_is_denied_then_the_turn_ends(claude_code: ClaudeCode, ws: Workspace) -> None:
    # An agent with nothing left it can do sends its todo list again, reply after reply, no other
    # call between: the 1st and 2nd go through, the 3rd and 4th are denied in place of the tool
    # result (the list is not set again), and the 5th ends the turn (LOOP_GUARD_SAME_PLAN).
    plan = todo_write("Find the failing test", "Fix it", "Run the suite")
    run = claude_code.run(ws, Script([[plan]] * 8, final_text="Stuck."), ["Fix the failing test"], env=TODO_WRITE_ON)
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert len(conv) == 5, f"{len(conv)} model requests; {run.describe()}"  # no request after the 5th send
    assert events(run)[-1].get("terminal_reason") == "hook_stopped"
    for sent in (1, 2):  # ran: the host's own result, no guard text
        (call,) = claude_calls(conv[sent])
        (result,) = [s for s in claude_new(conv[sent]) if s.where == "tool_result"]
        assert result.call_id == call and not result.is_error and "Todos have been modified" in result.text, result
        assert guard_texts(claude_new(conv[sent])) == [], run.describe()
    for sent in (3, 4):
        (call,) = claude_calls(conv[sent])
        (hit,) = guard_texts(claude_new(conv[sent]))
        assert hit.call_id == call and hit.is_error, hit
        assert hit.text.startswith("PreToolUse:TodoWrite hook error: REPEAT_TOOL_BLOCKED: this plan update was not made"), hit
        assert f"({sent} in a row)" in hit.text and "tell the user what is left" in hit.text, hit.text
    # The 5th send ended the turn: the client recorded it as blocked, with the stop's words.
    (last,) = [e for e in events(run) if e.get("type") == "user"][-1]["message"]["content"]
    assert last["is_error"] and "REPEAT_TOOL_BLOCKED: the same plan was sent 5 times in a row" in last["content"], last

    records = ledger.checked_audit(
        ws, ["deny@3", "deny@4", "stop@5"], session=session_id(run), agent="main", event="PreToolUse", tool="TodoWrite"
    )
    assert {r["rule"] for r in records} == {"LOOP_GUARD_SAME_PLAN"}


def test_a_plan_sent_again_after_another_plan_is_never_denied(claude_code: ClaudeCode, ws: Workspace) -> None:
    # The look-alike: the same list twice, then another list, then the first again (twice): each
    # run of the same list is at most two long, so nothing reaches the model.
    first = todo_write("Find the failing test", "Fix it", "Run the suite")
    other = todo_write("Find the failing test", "Fix it", "Run the suite", "Write the changelog")
    script = Script([[first], [first], [other], [first], [first]], final_text="Planned.")
    run = claude_code.run(ws, script, ["Plan the fix"], env=TODO_WRITE_ON)
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert len(conv) == 6, run.describe()
    results = [s for body in conv[1:] for s in claude_new(body) if s.where == "tool_result"]
    assert len(results) == 5 and not any(s.is_error for s in results), results
    assert_silent(run)
