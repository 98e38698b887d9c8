"""Codex 0.171.0 and what its payloads leave out: the folder a command runs in, and the commands
its execution policy refuses. Both drive what the guard counts, live and in replay."""

from __future__ import annotations

import json

import pytest

from loopguard_hook.replay.readers import load

from . import ledger
from .clients import Codex, Workspace
from .mock_model import Script, apply_patch, exec_command
from .model_view import codex_views, guard_texts, verdict
from .test_codex import assert_hooks_succeeded, sigs
from .transcripts import codex_rollouts

pytestmark = pytest.mark.e2e


def test_the_same_command_in_two_workdirs_is_two_calls(codex: Codex, ws: Workspace) -> None:
    """Codex leaves `exec_command`'s `workdir` out of `tool_input` and applies it to the
    payload's `cwd`: `cat notes.txt` in `a` and in `b` are two signatures (one counted twice
    before), and replay gives each PreToolUse the folder the live hook got."""
    ws.write("a/notes.txt", "the same words\n")
    ws.write("b/notes.txt", "the same words\n")
    turns = [[exec_command("cat notes.txt", workdir="a")], [exec_command("cat notes.txt", workdir="b")]]
    run = codex.run(ws, Script(turns, final_text="Both read."), "Read the notes in a and in b")
    assert_hooks_succeeded(run)
    assert sorted(s["n"] for s in sigs(run)) == [1, 1], sigs(run)

    (rollout,) = codex_rollouts(run)
    (recording,) = load([str(rollout)])
    folders = [e.payload["cwd"] for e in recording.events if e.payload["hook_event_name"] == "PreToolUse"]
    assert folders == [str(ws.work / "a"), str(ws.work / "b")]


def test_a_command_the_execution_policy_forbids_fires_no_post_event(codex: Codex, ws: Workspace) -> None:
    """A command a `prefix_rule(…, decision = "forbidden")` refuses never starts: Codex fires its
    PreToolUse and no post event, and the model reads `exec_command failed: CreateProcess {
    message: "Rejected(…) rejected: policy forbids commands starting with `git branch`…` (the
    "blocked by policy" of openai/codex#10827 and #46012). The guard reads each refusal from
    the rollout at the next PreToolUse and records it as the call's result (a failure); replay
    marks them refused and sends no post event."""
    rules = ws.codex_home / "rules"
    rules.mkdir(parents=True)
    (rules / "default.rules").write_text('prefix_rule(pattern = ["git", "branch"], decision = "forbidden")\n')
    turns = [
        [exec_command("git branch -D old-feature")],
        [exec_command("git branch --delete --force old-feature")],
        [exec_command("ls")],
    ]
    run = codex.run(ws, Script(turns, final_text="The branch stays."), "Delete the old branch")
    assert_hooks_succeeded(run)
    results = [s.text for view in codex_views(run.conversation())[1:] for s in view if s.is_result]
    assert [r.startswith('exec_command failed: CreateProcess { message: "Rejected(') for r in results] == [True, True, False]
    assert all("rejected: policy forbids commands starting with `git branch`" in r for r in results[:2]), results

    calls = ledger.only_session(ws)["agents"]["main"]["calls"]
    assert [c["phase"] for c in sorted(calls.values(), key=lambda c: c["seq"])] == ["done", "done", "done"]
    refusal = "exec_command failed: rejected: policy forbids commands starting with `git branch`"
    assert sorted(s["preview"] for s in sigs(run)) == ["", refusal, refusal]  # `ls` of an empty folder

    (rollout,) = codex_rollouts(run)
    (recording,) = load([str(rollout)])
    posts = [e.payload["tool_input"]["command"] for e in recording.events if e.payload["hook_event_name"] == "PostToolUse"]
    assert posts == ["ls"]
    assert [c.outcome.value for c in recording.calls.values()] == ["refused", "refused", "ran"]


def test_a_wall_of_policy_refusals_is_reminded_then_denied(codex: Codex, ws: Workspace) -> None:
    """Three programs refused by three prefix rules in three rounds: with the fourth call the
    model reads which prefixes the policy refuses (the refusals read from the rollout, as no
    post event came), and a command that starts with one of them is denied."""
    rules = ws.codex_home / "rules"
    rules.mkdir(parents=True)
    forbidden = [["git", "push"], ["gh", "pr"], ["curl"]]
    (rules / "default.rules").write_text(
        "".join(f'prefix_rule(pattern = {json.dumps(p)}, decision = "forbidden")\n' for p in forbidden)
    )
    commands = [
        "git push --force origin main",
        "gh pr merge 12 --squash",
        "curl -sS -X DELETE http://127.0.0.1:9/releases/12",
        "git push origin HEAD:main",
        "git push origin main",
    ]
    run = codex.run(ws, Script([[exec_command(c)] for c in commands], final_text="Blocked."), "Ship the release")
    assert_hooks_succeeded(run)
    seen = codex_views(run.conversation())[1:]
    assert [verdict(v) for v in seen] == ["-", "-", "-", "remind@?", "deny@?"], [verdict(v) for v in seen]
    (reminder,) = [s.text for s in guard_texts(seen[3])]
    assert "execution policy has refused 3 rounds" in reminder and "`git push`, `gh pr`, `curl`" in reminder, reminder
    (denial,) = guard_texts(seen[4])
    assert denial.text.startswith("Command blocked by PreToolUse hook: REPEAT_TOOL_BLOCKED"), denial.text
    assert "refuses commands that start with `git push`" in denial.text, denial.text


def test_a_read_only_sandbox_refusing_every_patch_is_a_wall(codex: Codex, ws: Workspace) -> None:
    """Under `-s read-only` Codex refuses each patch ("patch rejected: writing is blocked by
    read-only sandbox; rejected by user approval settings") and fires no post event for it. The
    guard reads the refusals from the rollout at the next call: three patches refused, the wall
    is reminded with the read that follows (which goes ahead), and the next patches are denied
    (the second within the parallel window of the first, as the scripted model sends it at
    once: denied with it). Replay marks the patches refused and sends no post event for them."""
    ws.write("calc.py", "def add(a, b):\n    return a - b\n")
    bodies = ["a + b", "b + a", "sum((a, b))", "int(a) + int(b)", "(a + b)"]
    hunk = "@@\n def add(a, b):\n-    return a - b\n"
    patches = [f"*** Begin Patch\n*** Update File: calc.py\n{hunk}+    return {b}\n*** End Patch\n" for b in bodies]
    turns = [[apply_patch(p)] for p in patches[:3]] + [[exec_command("cat calc.py")]] + [[apply_patch(p)] for p in patches[3:]]
    run = codex.run(ws, Script(turns, final_text="I cannot write here."), "Fix add in calc.py", sandbox="read-only")
    assert_hooks_succeeded(run)
    assert (ws.work / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    seen = codex_views(run.conversation())[1:]
    results = [s.text for view in seen for s in view if s.is_result]
    assert [r.startswith("patch rejected: writing is blocked by read-only sandbox") for r in results[:3]] == [True] * 3
    assert [verdict(v) for v in seen] == ["-", "-", "-", "remind@?", "deny@?", "deny@?"], [verdict(v) for v in seen]
    assert "def add(a, b)" in results[3]  # the read went ahead
    (reminder,) = [s.text for s in guard_texts(seen[3]) if "read-only" in s.text]
    assert "Codex's sandbox is read-only: it has refused 3 rounds of patches" in reminder, reminder
    (denial,) = guard_texts(seen[4])
    assert "REPEAT_TOOL_BLOCKED: this call was not run: Codex's read-only sandbox" in denial.text, denial.text
    (again,) = guard_texts(seen[5])
    assert "REPEAT_TOOL_BLOCKED" in again.text and "read-only sandbox" in again.text, again.text

    (rollout,) = codex_rollouts(run)
    (recording,) = load([str(rollout)])
    posts = [e.payload["tool_name"] for e in recording.events if e.payload["hook_event_name"] == "PostToolUse"]
    assert posts == ["Bash"]
