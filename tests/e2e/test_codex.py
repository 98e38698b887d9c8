"""Codex 0.171.0, driven by a scripted model, with loopguard-hook on every hook event it knows
(balanced profile, default thresholds: reminders at attempts 3 and 4, denials from 5; from 8 the
denial is worded as final, since Codex accepts no `continue: false` on PreToolUse)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from loopguard_hook.core.progress import CHAINED_SECONDS

from . import ledger
from .clients import Codex, Run, Workspace
from .mock_model import Script, apply_patch, exec_command, update_plan, write_stdin
from .model_view import Seen, codex_calls, codex_views, guard_texts, verdict
from .transcripts import codex_rollouts, codex_session_id, export

pytestmark = pytest.mark.e2e

REPEATS_SEEN = [
    "-",
    "-",
    "remind@3",
    "remind@4",
    "deny@5",
    "deny@6",
    "deny@7",
    "deny@8",
    "deny@9",
    "deny@10",
]
REPEATS_LOGGED = [
    "remind@3",
    "remind@4",
    "deny@5",
    "deny@6",
    "deny@7",
    "stop@8",
    "stop@9",
    "stop@10",
]


def session_id(run: Run) -> str:
    (rollout,) = codex_rollouts(run)
    return codex_session_id(rollout)


def assert_hooks_succeeded(run: Run) -> None:
    """Codex logs `hook: <Event> <Status>` per hook run; Failed means it rejected the answer."""
    log = run.prompts[0].stderr
    statuses = re.findall(r"^hook: (\w+) (Completed|Blocked|Failed|Stopped)$", log, re.M)
    assert statuses, f"no hook ran; {run.describe()}"
    assert [s for s in statuses if s[1] == "Failed"] == [], f"{statuses}; {run.describe()}"
    assert ledger.errors(run.ws) == ""


def most_concurrent_pre_hooks(run: Run) -> int:
    """The most PreToolUse hook runs in flight at once (`hook: PreToolUse` starts one,
    `hook: PreToolUse <Status>` ends one, in Codex's log)."""
    running = most = 0
    for line in run.prompts[0].stderr.splitlines():
        if line == "hook: PreToolUse":
            running += 1
            most = max(most, running)
        elif line.startswith("hook: PreToolUse "):
            running -= 1
    return most


def views(run: Run) -> list[list[Seen]]:
    """What each request added, from the second on (request k carries call k's result)."""
    return codex_views(run.conversation())[1:]


def outputs(run: Run) -> list[str]:
    """The command output part of every tool result, in order (Chunk ID and Wall time left out)."""
    return [s.text.split("Output:\n", 1)[-1] for view in views(run) for s in view if s.is_result]


def assert_silent(run: Run) -> None:
    for i, view in enumerate(views(run), 1):
        assert guard_texts(view) == [], f"request {i + 1} carried guard text; {run.describe()}"
    assert ledger.audit(run.ws) == []


def sigs(run: Run) -> list[dict[str, Any]]:
    return list(ledger.only_session(run.ws)["agents"]["main"]["sigs"].values())


def test_identical_commands_are_reminded_then_denied(codex: Codex, ws: Workspace) -> None:
    ws.write("notes.txt", "hello from notes\n")
    cmd = exec_command("cat notes.txt && echo ran >> ran.log")
    run = codex.run(ws, Script([[cmd]] * 10, final_text="Notes read."), "Show notes.txt")
    assert_hooks_succeeded(run)
    conv = run.conversation()
    assert len(conv) == 11  # Codex goes on after a denial; the model answers at the end

    assert [verdict(v) for v in views(run)] == REPEATS_SEEN, run.describe()
    for attempt in (3, 4):  # additionalContext: a developer message next to the call's output
        assert [s.where for s in guard_texts(views(run)[attempt - 1])] == ["developer"]
    for attempt in range(5, 11):
        (call,) = codex_calls(conv[attempt], conv[attempt - 1])
        (hit,) = guard_texts(views(run)[attempt - 1])
        assert hit.call_id == call, hit
        assert hit.text.startswith("Command blocked by PreToolUse hook: REPEAT_TOOL_BLOCKED"), hit.text
        assert "hello from notes" in hit.text  # the previous result is quoted
        assert ("final" in hit.text) == (attempt >= 8), hit.text
    assert (ws.work / "ran.log").read_text().splitlines() == ["ran"] * 4  # denied calls never ran

    sid = session_id(run)
    state = ledger.only_session(ws)
    assert state["session_id"] == sid
    assert state["attempts"] == state["agents"]["main"]["attempts"] == 10
    assert [s["n"] for s in sigs(run)] == [10]

    (summary,) = ledger.status(ws)["sessions"]
    assert summary["agents"]["main"]["signatures"][0]["no_progress"] == 10
    assert ledger.decisions(summary["recent_decisions"]) == REPEATS_LOGGED

    records = ledger.checked_audit(ws, REPEATS_LOGGED, session=sid, agent="main", event="PreToolUse", tool="Bash")
    # What the model saw is what the guard logged (on Codex a stop is a denial worded as final).
    observed = [verdict(v) for v in views(run) if verdict(v) != "-"]
    assert observed == [d.replace("stop", "deny") for d in ledger.decisions(records)]

    export(run, codex_rollouts(run)[0], "codex-repeat-commands.jsonl")


def test_polling_whose_output_changes_is_never_flagged(codex: Codex, ws: Workspace) -> None:
    poll = exec_command("echo tick >> polls.log && wc -l < polls.log")
    run = codex.run(ws, Script([[poll]] * 10, final_text="Counted."), "Count the polls")
    assert_hooks_succeeded(run)
    assert [o.strip() for o in outputs(run)] == [str(i) for i in range(1, 11)]
    assert_silent(run)
    assert [(s["n"], s["total"]) for s in sigs(run)] == [(1, 10)]

    export(run, codex_rollouts(run)[0], "codex-polling.jsonl")


def test_a_background_job_watched_back_to_back_is_reminded_then_denied(codex: Codex, ws: Workspace) -> None:
    """A job started with `&`, then its log asked the same two things in turn, a second apart:
    each answer moves, so only the polling rule counts them (rules/shell_jobs.py). The 6th
    repeated probe (the 8th in all) is reminded, the later ones are denied and never run.
    Codex 0.171.0 ends a command's process group with the command: a job started with a bare
    `nohup … &` stops there (its log stays at `step 1`, and the repeat rule catches the probes);
    `setsid` keeps it running, as a job the agent means to watch."""
    job = "i=0; while [ $i -lt 90 ]; do i=$((i+1)); echo step $i; sleep 1; done"
    launch = exec_command(f"setsid nohup sh -c '{job}' lg-e2e-job > job.log 2>&1 &")
    probes = [exec_command("sleep 1 && tail -1 job.log"), exec_command("sleep 1 && grep -c step job.log")]
    try:
        run = codex.run(ws, Script([[launch]] + [[probes[i % 2]] for i in range(11)], final_text="Waiting."), "Watch the job")
    finally:
        subprocess.run(["pkill", "-f", "lg-e2e-job"], check=False)
    assert_hooks_succeeded(run)
    seen = [guard_texts(view) for view in views(run)]
    assert [len(texts) for texts in seen[:8]] == [0] * 8, run.describe()
    (reminder,) = seen[8]
    assert reminder.where == "developer" and "asking the same things again" in reminder.text, reminder
    for texts in seen[9:]:
        (denial,) = texts
        assert denial.is_result and "REPEAT_TOOL_BLOCKED: this check of the background job" in denial.text, denial
        # the log read against the session's folder (the payload's `cwd`): named by its full path
        assert "(its output in /" in denial.text and "/job.log)" in denial.text, denial
    assert ledger.decisions(ledger.audit(ws))[:2] == ["remind@6", "deny@7"]


def test_patch_then_failing_test_cycle_is_never_flagged(codex: Codex, ws: Workspace) -> None:
    app = ws.write("app.py", "a = 1\n")
    ws.write("check.py", "import sys\nsys.exit('FAILED: a should be 99')\n")
    turns = []
    for i in range(1, 7):
        turns.append([apply_patch(f"*** Begin Patch\n*** Update File: app.py\n@@\n-a = {i}\n+a = {i + 1}\n*** End Patch\n")])
        turns.append([exec_command("python3 check.py")])
    run = codex.run(ws, Script(turns, final_text="Still failing."), "Make check.py pass")
    assert_hooks_succeeded(run)
    results = outputs(run)
    assert len(results) == 12 and len(set(results[1::2])) == 1 and "FAILED" in results[1], results
    assert app.read_text() == "a = 7\n"  # every patch applied
    assert_silent(run)
    check = [s for s in sigs(run) if "check.py" in s["summary"]]
    assert [(s["n"], s["total"]) for s in check] == [(1, 6)]


def test_parallel_calls_lose_no_update_and_are_no_repeat(codex: Codex, ws: Workspace) -> None:
    for i in range(6):
        ws.write(f"part{i}.txt", f"part {i}\n")
    ws.write("notes.txt", "alpha\n")
    batch = [exec_command(f"cat part{i}.txt") for i in range(6)]
    same = [exec_command("cat notes.txt")] * 3
    run = codex.run(ws, Script([batch, batch, same], final_text="Read all."), "Read every part")
    assert_hooks_succeeded(run)
    assert len(outputs(run)) == 15
    assert most_concurrent_pre_hooks(run) >= 2  # the hooks really raced for the ledger
    assert_silent(run)

    state = ledger.only_session(ws)
    assert state["attempts"] == state["agents"]["main"]["attempts"] == 15  # no lost update
    assert sorted(s["total"] for s in sigs(run) if "part" in s["summary"]) == [2] * 6
    (same_sig,) = [s for s in sigs(run) if "notes.txt" in s["summary"]]
    assert same_sig["n"] == 1  # three identical calls in one batch count once


def test_session_end_forgets_the_session(codex: Codex, ws: Workspace) -> None:
    ws.write("notes.txt", "alpha\n")
    run = codex.run(ws, Script([[exec_command("cat notes.txt")]] * 3), "Show notes.txt", keep_state=False)
    assert_hooks_succeeded(run)
    assert [verdict(v) for v in views(run)] == ["-", "-", "remind@3"]
    assert list((ws.state / "sessions").glob("*.json")) == []  # SessionEnd deleted the ledger
    (record,) = ledger.audit(ws)  # the audit log outlives it
    assert (record["session"], record["action"], record["count"]) == (session_id(run), "remind", 3)


#: The report.py of the patch walls below, and the line their patches mean to write.
REPORT = "def build(path, *, limit=None):\n    rows = load(path)[:limit]\n    return render(rows)\n"
NEW = "    rows = load(path)[:limit] if limit else load(path)"


def patch_wall(send: Callable[[str], dict[str, Any]], read: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """A wall of patches of report.py (`send` makes the call from the patch text): two whose hunks
    the file does not hold, a read after each; a third that does not fit either; then one that
    fits."""

    def patch(old: list[str]) -> dict[str, Any]:
        body = "".join(f"-{line}\n" for line in old) + f"+{NEW}\n"
        return send(f"*** Begin Patch\n*** Update File: report.py\n@@\n{body}*** End Patch\n")

    return [
        [patch(["    rows = load(path)", "    return render(rows)"])], [read],
        [patch(["    rows = load(path, limit)", "    return render(rows)"])], [read],
        [patch(["    rows = load(path)[:limit]", "    return render(rows, limit)"])],
        [patch(["    rows = load(path)[:limit]"])],
    ]


def assert_wall_denied_at_the_third(run: Run, ws: Workspace, tool: str) -> tuple[str, list[str]]:
    """The run of a `patch_wall`: apply_patch refused the first two patches, the model saw
    nothing of the guard until the third, which the guard denied (LOOP_GUARD_TARGET, as `tool`,
    its one denial), and nothing of it at the fourth. Returns the denial's text and the results."""
    assert_hooks_succeeded(run)
    results = outputs(run)
    assert len(results) == 6, run.describe()
    assert "Failed to find expected lines" in results[0] and "Failed to find expected lines" in results[2], results
    assert [verdict(v) for v in views(run)][:4] == ["-"] * 4, run.describe()
    (hit,) = guard_texts(views(run)[4])
    assert guard_texts(views(run)[5]) == [], run.describe()
    (record,) = [r for r in ledger.audit(ws) if r.get("action") == "deny"]
    assert (record["rule"], record["tool"]) == ("LOOP_GUARD_TARGET", tool)
    return hit.text, results


def test_a_patch_the_file_cannot_take_is_denied_after_two_that_did_not_fit(codex: Codex, ws: Workspace) -> None:
    """Issue 22 class 1 with the reread precondition met: the model reads report.py before every
    retry, yet its hunks are not in the file. Codex's apply_patch refuses the first two; the guard
    looks at the file before the third, finds its hunk nowhere, and denies it with the hunk's first
    line (LOOP_GUARD_TARGET); a patch built from the file's real lines then applies."""
    report = ws.write("report.py", REPORT)
    turns = patch_wall(apply_patch, exec_command("sed -n '1,40p' report.py"))
    run = codex.run(ws, Script(turns, final_text="Done."), "Let build take a row limit")
    hit, results = assert_wall_denied_at_the_third(run, ws, "apply_patch")
    assert "REPEAT_TOOL_BLOCKED: this patch of report.py was not run: its hunk does not match report.py" in hit, hit
    assert "its lines from `return render(rows, limit)` on are not in the file" in hit, hit  # the line the file does not hold
    assert "apply_patch verification failed" not in results[4]  # apply_patch did not run: the guard answered
    assert "Success" in results[5], results[5]
    assert report.read_text().splitlines()[1] == NEW
    # Its replay decides as the live hook did: the two refusals failed, the third patch denied.
    # Recorded under the guard, that patch has no verdict of apply_patch's; the guard's own denial
    # says which line the file lacked (a new user's replay of such a session once saw nothing).
    (rollout,) = codex_rollouts(run)
    shown = subprocess.run(
        [sys.executable, "-m", "loopguard_hook", "replay", str(rollout), "--format", "json"],
        capture_output=True, text=True, check=True, env={**os.environ, "LOOPGUARD_RESIDENT": "off"},
    )
    (report_,) = json.loads(shown.stdout)["reports"]
    patches = [c for c in report_["calls"] if c["tool"] == "apply_patch"]
    assert [c["recorded"] for c in patches] == ["failed", "failed", "denied", "ran"], patches
    assert [(c["pre"]["action"], c["pre"]["rule"]) for c in patches][2] == ("deny", "LOOP_GUARD_TARGET"), patches
    assert all(c["pre"]["action"] == "allow" for i, c in enumerate(patches) if i != 2), patches


def test_a_patch_sent_through_the_shell_is_judged_in_its_workdir(codex: Codex, ws: Workspace) -> None:
    """Codex 0.171.0 drops `workdir` from the hook payload (research/codex-hooks.md row 11) but
    writes the call's record, `workdir` included, to the rollout before its PreToolUse. Patches of
    report.py sent as `apply_patch <<'EOF'` through exec_command in crates/a are judged against
    crates/a/report.py, not the cwd's report.py (which holds their hunks): the first two are
    refused by apply_patch, the third is denied (LOOP_GUARD_TARGET), and one that fits
    crates/a/report.py, though not the cwd's, applies there."""
    inner = ws.write("crates/a/report.py", REPORT)
    # the cwd's report.py holds every hunk of the wall
    outer = ws.write("report.py", "    rows = load(path)\n    return render(rows)\n    rows = load(path, limit)\n"
                                  "    return render(rows)\n    rows = load(path)[:limit]\n    return render(rows, limit)\n")
    before = outer.read_text()

    def through_the_shell(text: str) -> dict[str, Any]:
        return exec_command(f"apply_patch <<'EOF'\n{text}EOF\n", workdir="crates/a")

    turns = patch_wall(through_the_shell, exec_command("sed -n '1,40p' report.py", workdir="crates/a"))
    run = codex.run(ws, Script(turns, final_text="Done."), "Let build take a row limit")
    hit, _ = assert_wall_denied_at_the_third(run, ws, "Bash")
    assert "REPEAT_TOOL_BLOCKED: this patch of report.py was not run" in hit, hit
    assert inner.read_text().splitlines()[1] == NEW  # applied in the workdir
    assert outer.read_text() == before  # and nothing else


def test_a_shell_sent_patch_refused_in_one_workdir_applies_in_another(codex: Codex, ws: Workspace) -> None:
    """The same `apply_patch <<'EOF'` of src/lib.py, refused twice in crates/a (whose src/lib.py
    lacks its lines), then sent as it is in crates/b, where it fits: the hook payload is the same
    command each time (Codex drops `workdir`), but the patch is no resend on the same file, and
    it applies."""
    a = ws.write("crates/a/src/lib.py", "def f():\n    return 1\n")
    b = ws.write("crates/b/src/lib.py", "def f():\n    return 2\n")
    line = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/lib.py\n@@\n-    return 2\n+    return 3\n"
            "*** End Patch\nEOF\n")
    # a read that takes a while: the resend is a retry, not a parallel twin (`NO_RESULT_WINDOW_SECONDS`)
    look = exec_command("head -c 500000000 /dev/zero | wc -c; sed -n '1,5p' src/lib.py", workdir="crates/a")
    turns = [[exec_command(line, workdir="crates/a")], [look], [exec_command(line, workdir="crates/a")], [look],
             [exec_command(line, workdir="crates/b")]]
    run = codex.run(ws, Script(turns, final_text="Done."), "Make f return 3")
    assert_hooks_succeeded(run)
    assert "Failed to find expected lines" in outputs(run)[0], outputs(run)
    assert "Failed to find expected lines" in outputs(run)[2], outputs(run)
    assert [guard_texts(v) for v in views(run)] == [[]] * 5, run.describe()
    assert b.read_text() == "def f():\n    return 3\n" and a.read_text() == "def f():\n    return 1\n"
    assert [r for r in ledger.audit(ws) if r.get("action") == "deny"] == []


def test_a_hung_command_started_again_with_nothing_changed_is_denied(codex: Codex, ws: Workspace) -> None:
    """Issue 22 class 6 with the real client. Codex fires no hook for `write_stdin`: `sleep 30`
    is left running (its call returns after 500 ms) and polled twice with nothing printed, and the
    hook reads those polls from the rollout at the next event (`hung_command_seconds = 1` in the
    project file, for a test that does not wait minutes). After only a read, the same command
    started again would hang the same way: denied (LOOP_GUARD_HUNG) with the polls' count and
    the way out; under a time limit it is another command, and runs."""
    ws.write(".loopguard.toml", "hung_command_seconds = 1\n")
    ws.write("notes.txt", "the job waits for a lock\n")
    turns = [
        [exec_command("sleep 30", yield_time_ms=500)],
        [write_stdin(yield_time_ms=1000)],
        [write_stdin(yield_time_ms=1000)],
        [exec_command("cat notes.txt")],
        [exec_command("sleep 30 && echo again >> ran.log", yield_time_ms=500)],
        [exec_command("timeout 1 sleep 30; echo limited >> ran.log")],
    ]
    run = codex.run(ws, Script(turns, final_text="It hangs."), "Run the job")
    text = assert_only_hung_denial(run, ws, at=4, calls=6)
    assert text.startswith(f"{HUNG_DENIAL}`"), text
    assert "2 polls over 0 minutes returned nothing" in text and "timeout 300" in text, text
    assert (ws.work / "ran.log").read_text().splitlines() == ["limited"]  # the denied one never ran


HUNG_DENIAL = "Command blocked by PreToolUse hook: REPEAT_TOOL_BLOCKED: this command was not run: `sleep 30"


def assert_only_hung_denial(run: Run, ws: Workspace, at: int, calls: int) -> str:
    """The run's hooks all succeeded, and the guard's only text, at call `at` of `calls`, is the
    denial of `sleep 30` run again (LOOP_GUARD_HUNG, the audit's one record): its text."""
    assert_hooks_succeeded(run)
    texts = [guard_texts(view) for view in views(run)]
    assert [len(t) for t in texts] == [int(i == at) for i in range(calls)], run.describe()
    (hit,) = texts[at]
    assert hit.text.startswith(HUNG_DENIAL), hit.text
    records = ledger.audit(ws)
    assert [(r["action"], r["rule"]) for r in records] == [("deny", "LOOP_GUARD_HUNG")], records
    return hit.text


def test_a_command_hung_in_one_workdir_is_another_command_in_another(codex: Codex, ws: Workspace) -> None:
    """Codex drops `exec_command`'s `workdir` from the hook's `tool_input` and applies it to the
    payload's `cwd`. `sleep 30` hung in `a` (two empty polls); after a read, the same command
    with `workdir: "b"` is another command and runs (no guard text, no audit record), while in
    `a` it is denied (LOOP_GUARD_HUNG) as in the test above. The workspace is a git repository:
    the calls in `a` and `b` read its root's project file (`config.load.find_project_file`)."""
    subprocess.run(["git", "init", "-q", str(ws.work)], check=True)
    ws.write(".loopguard.toml", "hung_command_seconds = 1\n")
    ws.write("a/notes.txt", "the job waits for a lock\n")
    ws.write("b/notes.txt", "nothing waits here\n")
    turns = [
        [exec_command("sleep 30", workdir="a", yield_time_ms=500)],
        [write_stdin(yield_time_ms=1000)],
        [write_stdin(yield_time_ms=1000)],
        [exec_command("cat notes.txt", workdir="a")],
        [exec_command("sleep 30 && echo b >> ../ran.log", workdir="b", yield_time_ms=500)],
        [exec_command("sleep 30 && echo a >> ../ran.log", workdir="a", yield_time_ms=500)],
    ]
    run = codex.run(ws, Script(turns, final_text="It hangs in a."), "Run the job in a and in b")
    assert_only_hung_denial(run, ws, at=5, calls=6)


#: `config.toml` that makes Codex 0.171.0 offer `update_plan` to the mock's model: `codex exec`
#: does not by default, and answers the call "unsupported call: update_plan" with no hook fired.
UPDATE_PLAN_ON = "\n[tools.update_plan]\nenabled = true\n"
PLAN = [("Find the failing test", "in_progress"), ("Fix it", "pending"), ("Run the suite", "pending")]


def plan_script(turns: list[list[dict[str, Any]]], final_text: str) -> Script:
    """A script of plan calls, each answer sent well after the previous result: a mock that
    answers at once would look like one reply run call after call (`CHAINED_SECONDS`)."""
    return Script(turns, final_text=final_text, think_seconds=2 * CHAINED_SECONDS)


def test_the_same_plan_sent_again_and_again_is_denied_then_denied_as_final(codex: Codex, ws: Workspace) -> None:
    """update_plan sent with the same plan in six replies, no other call between: Codex fires
    PreToolUse and PostToolUse for it under its own name; the 1st and 2nd go through, the 3rd and
    4th are denied in place of the result (LOOP_GUARD_SAME_PLAN), and from the 5th, where Claude
    Code ends the turn, the denial is worded as final (Codex takes no end of turn at PreToolUse)."""
    plan = update_plan(PLAN)
    run = codex.run(ws, plan_script([[plan]] * 6, "Stuck."), "Fix the failing test", config=UPDATE_PLAN_ON)
    assert_hooks_succeeded(run)
    stderr = run.prompts[0].stderr
    # a PreToolUse for every send, a PostToolUse for the two that ran
    assert (stderr.count("hook: PreToolUse\n"), stderr.count("hook: PostToolUse\n")) == (6, 2), stderr
    conv = run.conversation()
    assert len(conv) == 7, run.describe()  # Codex goes on after a denial; the model answers at the end
    for sent in (1, 2):
        (call,) = codex_calls(conv[sent], conv[sent - 1])
        (result,) = views(run)[sent - 1]
        assert (result.call_id, result.text) == (call, "Plan updated"), result
    for sent in range(3, 7):
        (call,) = codex_calls(conv[sent], conv[sent - 1])
        (hit,) = guard_texts(views(run)[sent - 1])
        assert hit.call_id == call and hit.is_result, hit
        assert "blocked by PreToolUse hook: REPEAT_TOOL_BLOCKED: " in hit.text, hit.text
        if sent < 5:
            assert "this plan update was not made: it is the same list you sent in the calls just before it" in hit.text
            assert f"({sent} in a row)" in hit.text, hit.text
        else:
            assert f"the same plan was sent {sent} times in a row, also after denials" in hit.text, hit.text
            assert "This is final: stop calling tools and tell the user what is left and why" in hit.text, hit.text
    logged = ["deny@3", "deny@4", "stop@5", "stop@6"]
    records = ledger.checked_audit(ws, logged, session=session_id(run), agent="main", event="PreToolUse", tool="update_plan")
    assert {r["rule"] for r in records} == {"LOOP_GUARD_SAME_PLAN"}


def test_a_plan_sent_again_after_another_plan_is_never_denied(codex: Codex, ws: Workspace) -> None:
    """The look-alike: the same plan twice, another plan, then the first twice again: no run of
    one plan is three long, so nothing reaches the model."""
    first, other = update_plan(PLAN), update_plan(PLAN[:2] + [("Run the suite", "in_progress")])
    script = plan_script([[first], [first], [other], [first], [first]], "Planned.")
    run = codex.run(ws, script, "Plan the fix", config=UPDATE_PLAN_ON)
    assert_hooks_succeeded(run)
    assert [s.text for view in views(run) for s in view if s.is_result] == ["Plan updated"] * 5, run.describe()
    assert_silent(run)


def test_an_update_plan_codex_does_not_offer_fires_no_hook(codex: Codex, ws: Workspace) -> None:
    """Without `UPDATE_PLAN_ON`, `codex exec` offers the mock's model no update_plan: Codex answers
    the call "unsupported call: update_plan" and fires no hook for it (the same-plan rule cannot
    see it), while the shell call of the same run fires both."""
    run = codex.run(ws, Script([[update_plan(PLAN)], [exec_command("echo ran >> ran.log")]], final_text="Done."), "Plan it")
    assert_hooks_succeeded(run)
    assert "update_plan" not in [t.get("name") for t in run.conversation()[0].get("tools") or []]
    assert [s.text for view in views(run) for s in view if s.is_result][0] == "unsupported call: update_plan"
    stderr = run.prompts[0].stderr
    assert (stderr.count("hook: PreToolUse\n"), stderr.count("hook: PostToolUse\n")) == (1, 1), stderr
    assert list(ledger.only_session(ws)["agents"]["main"]["calls"]) == ["call_1_0"]  # the shell call alone
    assert (ws.work / "ran.log").read_text() == "ran\n"
