"""Text loops: the incremental transcript reader and the detectors behind it."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from loopguard_hook.hook import HookOptions, run
from loopguard_hook.hosts import transcript
from loopguard_hook.rules.text_loops import _repeated_run, feed, new_text_state

BUDGET = 262144


def claude_line(text: str, msg_id: str) -> str:
    """One assistant line of a Claude Code 2.1.332 transcript (one content block per line)."""
    return json.dumps(
        {
            "parentUuid": "p",
            "isSidechain": False,
            "type": "assistant",
            "message": {"id": msg_id, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                        "content": [{"type": "text", "text": text}]},
            "uuid": msg_id + "-u",
            "timestamp": "2026-11-30T05:00:00.000Z",
            "sessionId": "s1",
        }
    )


def codex_line(text: str) -> str:
    """One assistant message of a Codex 0.171.0 rollout."""
    return json.dumps(
        {"timestamp": "2026-11-30T05:00:00.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}}
    )


def tool_line() -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "x" * 200}]}})


def test_reads_only_new_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(claude_line("history", "m0") + "\n")
    tail: dict[str, Any] = {}
    # The first look only notes where the file ends: earlier history is not this run's.
    assert transcript.read_new_texts(tail, str(path), BUDGET) == []
    with open(path, "a") as fh:
        fh.write(claude_line("first", "m1") + "\n")
    assert [t for _, t in transcript.read_new_texts(tail, str(path), BUDGET)] == ["first"]
    assert transcript.read_new_texts(tail, str(path), BUDGET) == []
    with open(path, "a") as fh:
        fh.write(tool_line() + "\n" + claude_line("second", "m2") + "\n" + claude_line("partial", "m3")[:40])
    assert [t for _, t in transcript.read_new_texts(tail, str(path), BUDGET)] == ["second"]
    with open(path, "a") as fh:
        fh.write(claude_line("partial", "m3")[40:] + "\n")
    assert [t for _, t in transcript.read_new_texts(tail, str(path), BUDGET)] == ["partial"]


def test_codex_rollout_assistant_messages(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    tail: dict[str, Any] = {}
    path.write_text("")
    transcript.read_new_texts(tail, str(path), BUDGET)
    path.write_text(
        json.dumps({"type": "session_meta", "payload": {"id": "x"}}) + "\n"
        + json.dumps({"type": "response_item", "payload": {"type": "message", "role": "user",
                                                             "content": [{"type": "input_text", "text": "hi"}]}}) + "\n"
        + codex_line("hello from codex") + "\nnot json at all\n"
    )
    assert [t for _, t in transcript.read_new_texts(tail, str(path), BUDGET)] == ["hello from codex"]


def test_truncated_or_rotated_file_starts_again(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("")
    tail: dict[str, Any] = {}
    transcript.read_new_texts(tail, str(path), BUDGET)
    path.write_text(claude_line("a" * 50, "m1") + "\n" + claude_line("b" * 50, "m2") + "\n")
    assert len(transcript.read_new_texts(tail, str(path), BUDGET)) == 2
    path.write_text(claude_line("after truncation", "m9") + "\n")  # shorter than the offset
    assert [t for _, t in transcript.read_new_texts(tail, str(path), BUDGET)] == ["after truncation"]
    rotated = tmp_path / "new.jsonl"
    rotated.write_text(claude_line("rotated", "m10") + "\n" + claude_line("x" * 500, "m11") + "\n")
    os.replace(rotated, path)  # same name, new inode: a new file, read from now on
    assert transcript.read_new_texts(tail, str(path), BUDGET) == []
    with open(path, "a") as fh:
        fh.write(claude_line("after rotation", "m12") + "\n")
    assert [t for _, t in transcript.read_new_texts(tail, str(path), BUDGET)] == ["after rotation"]


def test_missing_file_is_nothing(tmp_path: Path) -> None:
    assert transcript.read_new_texts({}, str(tmp_path / "nope.jsonl"), BUDGET) == []
    assert transcript.read_new_texts({}, None, BUDGET) == []


def test_bytes_read_per_event_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.jsonl"
    line = (tool_line() + "\n").encode()
    with open(path, "wb") as fh:
        fh.write(line * (4 * BUDGET // len(line)))
        fh.write((claude_line("the end", "m1") + "\n").encode())
    reads: list[int] = []
    real_pread = os.pread

    def counting_pread(fd: int, n: int, offset: int) -> bytes:
        reads.append(n)
        return real_pread(fd, n, offset)

    monkeypatch.setattr(transcript.os, "pread", counting_pread)
    tail: dict[str, Any] = {}
    transcript.read_new_texts(tail, str(path), BUDGET)
    tail["offset"] = 0  # as if the whole file were new: the read is still bounded
    assert [t for _, t in transcript.read_new_texts(tail, str(path), BUDGET)] == ["the end"]
    with open(path, "ab") as fh:
        fh.write(line * (8 * BUDGET // len(line)))
    transcript.read_new_texts(tail, str(path), BUDGET)
    assert max(reads) <= BUDGET


@pytest.mark.slow
def test_cost_per_event_is_flat_on_a_100_mb_transcript(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    line = (tool_line() + "\n").encode()
    block = line * (1024 * 1024 // len(line))
    with open(path, "wb") as fh:
        for _ in range(100):
            fh.write(block)
    assert path.stat().st_size >= 100 * 1000 * 1000
    tail: dict[str, Any] = {}
    for i in range(20):
        with open(path, "ab") as fh:
            fh.write((claude_line(f"step {i}", f"m{i}") + "\n").encode() + line * 50)
        before = tail.get("offset")
        texts = transcript.read_new_texts(tail, str(path), BUDGET)
        assert [t for _, t in texts] == [f"step {i}"] or i == 0
        # every event reads only what was appended (at most the budget), never the 100 MB again
        assert tail["offset"] == path.stat().st_size
        assert i == 0 or tail["offset"] - before <= BUDGET


def test_detector_ignores_tables_lists_and_code() -> None:
    ts = new_text_state()
    text = "\n".join(
        ["| a | b |"] * 20 + ["- item with a long shared prefix"] * 20 + ["```"] + ["same code line here"] * 20 + ["```"]
    )
    assert feed(ts, text, max_lines=8, max_blocks=0, max_block_chars=16384) is None


def test_detector_catches_a_line_loop_across_messages() -> None:
    ts = new_text_state()
    verdict = None
    for _ in range(8):
        verdict = verdict or feed(ts, "Let me check the configuration again.", max_lines=8, max_blocks=0, max_block_chars=16384)
    assert verdict is not None and verdict.kind == "line" and verdict.repeats == 8


def test_detector_catches_repeated_blocks() -> None:
    ts = new_text_state()
    block = "I tried the build.\nIt failed with the same linker error.\nI will retry."
    results = [feed(ts, block, max_lines=0, max_blocks=5, max_block_chars=16384) for _ in range(5)]
    assert results[:4] == [None] * 4 and results[4] is not None and results[4].kind == "block"


def _hook(payload: dict[str, Any], state_dir: Path) -> bytes:
    result = run(json.dumps(payload).encode(), options=HookOptions(state_dir=str(state_dir)), environ={}, user_config="")
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _session(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """A Claude Code session with an empty transcript: the transcript's path, the payloads'
    common fields, and the state folder."""
    path = tmp_path / "s1.jsonl"
    path.write_text("")
    return path, {"session_id": "s1", "transcript_path": str(path), "cwd": str(tmp_path)}, tmp_path / "st"


def test_transcript_text_loop_reminds_then_ends_the_turn(tmp_path: Path) -> None:
    """Claude Code: a loop in the transcript is reminded at the next tool call, then the turn ends."""
    path, base, state = _session(tmp_path)
    _hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": "fix it"}, state)
    with open(path, "a") as fh:
        for i in range(8):
            fh.write(claude_line("Let me look at the failing test once more.", f"m{i}") + "\n")
    pre = {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t1",
           "tool_input": {"command": "ls"}}
    out = json.loads(_hook(pre, state))
    assert "text loop" in out["hookSpecificOutput"]["additionalContext"]
    with open(path, "a") as fh:
        for i in range(8):
            fh.write(claude_line("Let me look at the failing test once more.", f"n{i}") + "\n")
    out = json.loads(_hook({**pre, "tool_use_id": "t2", "tool_input": {"command": "pwd"}}, state))
    assert out["continue"] is False
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    log = (state / "decisions.jsonl").read_text().splitlines()
    assert [json.loads(r)["rule"] for r in log] == ["LOOP_GUARD_TEXT", "LOOP_GUARD_TEXT"]


def test_code_in_nested_fences_and_indented_blocks_never_counts() -> None:
    """A ```` fence holding a ``` block stays one fence until its own closer; an indented code
    block quoting a log warning is code, not prose."""
    warning = "WARNING: connection pool exhausted, retrying in 5 seconds"
    nested = "\n".join(["Here is the doc:", "````markdown", "```", *[warning] * 12, "```", *[warning] * 12, "````", "Done."])
    indented = "\n".join(["The log shows:", "", *["    " + warning] * 12, "", "That is the pool limit."])
    for text in (nested, indented):
        ts = new_text_state()
        assert feed(ts, text, max_lines=8, max_blocks=0, max_block_chars=16384) is None, text[:40]
    ts = new_text_state()
    looping = "\n".join(["```", "code", "```", *[warning] * 8])  # prose after a closed fence still counts
    assert feed(ts, looping, max_lines=8, max_blocks=0, max_block_chars=16384) is not None


def test_a_fence_with_an_info_string_inside_a_fence_closes_nothing() -> None:
    """A spec drafted in a ```markdown block holding five ```mermaid diagrams (public Claude Code
    2.1.x transcript): `mermaid` after the marker is an info string, so that line opens no prose
    (CommonMark: a closing fence has nothing after it); read as prose, "mermaid flowchart td"
    repeated five times was a text loop."""
    journeys = []
    for n, (name, step) in enumerate([("Setup", "Enter DB credentials"), ("Assign", "Pick an assignee"),
                                      ("Review", "Open the task"), ("Close", "Mark it done"), ("Report", "Export CSV")]):
        journeys += [f"### Journey {n + 1}: {name}", f"**Entry:** the lead starts the {name.lower()} flow.",
                     "```mermaid", "flowchart TD", f"    A[Start] --> B[{step}]", "```"]
    text = "\n".join(["Here is what I'll add to the document:", "```markdown", "## User Journey Flows", *journeys, "```"])
    assert _repeated_run(text, max_lines=5, max_blocks=3) is None
    prose_after = "\n".join(["```", "x = 1", "```Let me look at the failing test once more."] * 7)
    assert _repeated_run(prose_after, max_lines=5, max_blocks=3) is not None  # prose after a closing fence counts


def test_text_ledgers_stay_bounded_over_many_subagents() -> None:
    from loopguard_hook.rules.text_loops import MAX_TEXT_AGENTS, text_state

    state: dict[str, Any] = {}
    text_state(state, "main")["line_count"] = 3
    for i in range(500):
        text_state(state, f"agent-{i}")
    assert len(state["text"]) == MAX_TEXT_AGENTS
    assert state["text"]["main"]["line_count"] == 3  # main is never dropped
    assert "agent-499" in state["text"] and "agent-0" not in state["text"]


def test_a_huge_final_message_is_judged_by_its_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop's `last_assistant_message` has no size bound in either client: the detectors see its
    first and last `transcript_read_bytes` characters, never 20 MB (about 0.3 s per MB)."""
    textloop = importlib.import_module("loopguard_hook.rules.text_loops")

    seen: list[int] = []
    real_feed, real_final = textloop.feed, textloop.final_message

    def feed_spy(ts: dict[str, Any], text: str, **kw: Any) -> Any:
        seen.append(len(text))
        return real_feed(ts, text, **kw)

    def final_spy(ts: dict[str, Any], message: str | None, **kw: Any) -> Any:
        seen.append(len(message or ""))
        return real_final(ts, message, **kw)

    monkeypatch.setattr(textloop, "feed", feed_spy)
    monkeypatch.setattr(textloop, "final_message", final_spy)
    line = "Retrying the upload of build artifacts to the release bucket."
    payload = {"hook_event_name": "Stop", "session_id": "big", "stop_hook_active": False,
               "last_assistant_message": "\n".join([line] * 330_000), "cwd": str(tmp_path)}
    raw = json.dumps(payload).encode()
    assert len(raw) > 20_000_000
    result = run(raw, options=HookOptions(state_dir=str(tmp_path)), environ={}, user_config="")
    assert result.exit_code == 0 and result.decision is not None
    assert result.decision.intended.name == "REMIND"  # the loop is still seen
    assert seen and max(seen) <= 2 * BUDGET + 1


def test_a_final_message_the_transcript_shows_late_counts_once(tmp_path: Path) -> None:
    """Claude Code's transcript can lag behind Stop: the guard judges `last_assistant_message`,
    and the same message read from the transcript at the next prompt is not counted again
    (five pasted log lines stay five, below the line-repeat threshold of 8)."""
    path, base, state = _session(tmp_path)
    _hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": "show me the log"}, state)
    message = "\n".join(["WARN retrying the upload to the bucket"] * 5)  # a pasted log, all alike
    out = _hook({**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": message}, state)
    assert out == b""
    with open(path, "a") as fh:  # the transcript catches up
        fh.write(claude_line(message, "m1") + "\n")
    out = _hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": "and now?"}, state)
    assert out == b"", out


def test_a_prompt_the_host_takes_no_context_at_keeps_the_reminder_for_the_next_call() -> None:
    """Droid (and Cursor) take no context at UserPromptSubmit: a reminder held at a Stop, or one
    for a loop found at the prompt, is not used up there, and goes with the next call; Claude
    Code's prompt carries it (a held one as `DELIVERY`, a fresh one with its count)."""
    from rulekit import text_ctx

    from loopguard_hook.core import ledger
    from loopguard_hook.hosts import droid
    from loopguard_hook.rules import text_loops

    line = "I will now run the tests again to verify the fix works."
    for caps, carried in ((droid.CAPABILITIES, False), (None, True)):
        state = ledger.new_session("s", "claude-code", 100.0)
        ts = text_loops.text_state(state, text_loops.MAIN_AGENT)
        ts["pending"] = "[loopguard] held at the Stop"
        ctx = text_ctx("UserPromptSubmit", state=state, prompt="continue")
        ctx = ctx._replace(caps=caps) if caps is not None else ctx
        decided = text_loops.on_text(ctx)
        if carried:
            assert decided is not None and decided.summary == text_loops.DELIVERY and ts["pending"] is None
        else:
            assert decided is None and ts["pending"] == "[loopguard] held at the Stop"
            call = text_ctx("PreToolUse", state=state, tool_name="Execute", tool_input={"command": "ls"})._replace(caps=caps)
            sent = text_loops.on_text(call)
            assert sent is not None and "held at the Stop" in sent.message and ts["pending"] is None
        fresh = text_ctx("UserPromptSubmit", state=ledger.new_session("s", "claude-code", 100.0), prompt="go",
                         texts=("\n".join([line] * 10),))
        fresh = fresh._replace(caps=caps) if caps is not None else fresh
        found = text_loops.on_text(fresh)
        if carried:
            assert found is not None and found.times >= 3 and found.summary != text_loops.DELIVERY
        else:
            assert found is None
            assert text_loops.text_state(fresh.state, text_loops.MAIN_AGENT)["pending"]


@pytest.mark.parametrize("reported", [True, False])
def test_a_short_sign_off_after_a_report_that_changed_is_no_same_reply(tmp_path: Path, reported: bool) -> None:
    """A short final message is judged with the turn's whole text: "Next report in 10 minutes."
    closing each turn after a progress report that changed is a sign-off (a public Claude Code
    2.1 session monitoring a backtest, one turn per task notification: eight reminders before),
    while the same sign-off alone, turn after turn, to three prompts is the short reply loop."""
    path, base, state = _session(tmp_path)
    sign_off = "Next report in 10 minutes."
    outs = []
    for turn in range(5):
        prompt = f"<task-notification><task-id>b{turn}</task-id><status>completed</status></task-notification>"
        outs.append(_hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt}, state))
        with open(path, "a") as fh:
            if reported:
                report = f"Report {turn}: {4667 + 803 * turn} of 12,220 runs done, {38 + 6 * turn}%."
                fh.write(claude_line(report, f"r{turn}") + "\n")
            fh.write(claude_line(sign_off, f"m{turn}") + "\n")
        _hook({**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": sign_off}, state)
    outs.append(_hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": "how is it going?"}, state))
    if reported:
        assert outs == [b""] * 6
    else:  # the same sign-off alone to a third prompt, and on
        assert outs[:3] == [b""] * 3
        assert all(b"Your last replies were identical" in out for out in outs[3:]), outs


def test_a_short_reply_loop_is_caught_whether_or_not_the_transcript_shows_the_final_message_at_stop(tmp_path: Path) -> None:
    """The turn's text is compared without its final message, which is compared apart: a turn
    whose final block reaches the transcript only after its Stop reads like one whose Stop came
    after it (a second review of the sign-off change: turns 1 and 3 lagging hid the loop)."""
    path, base, state = _session(tmp_path)
    final = "I can't help with that request."
    outs = []
    for turn in range(4):
        outs.append(_hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": f"please try way {turn}"}, state))
        with open(path, "a") as fh:
            fh.write(claude_line("I looked at it.", f"p{turn}") + "\n")
            if turn % 2:  # turns 1 and 3 in sync; 0 and 2 lag behind their Stop
                fh.write(claude_line(final, f"f{turn}") + "\n")
        _hook({**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": final}, state)
        if not turn % 2:
            with open(path, "a") as fh:
                fh.write(claude_line(final, f"f{turn}") + "\n")
    outs.append(_hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": "and now?"}, state))
    assert outs[:3] == [b""] * 3
    assert all(b"Your last replies were identical" in out for out in outs[3:]), outs


def _signed_off_turns(tmp_path: Path, final: str, turns: int, *, found_new: bool, edit: bool = False) -> list[bytes]:
    """`turns` turns, each asked for another change, running one check (with a new answer each
    turn, or the same one), or with `edit` an Edit of a real file (that applies, or that leaves
    the file as it was), and closing with `final`; then one more prompt. The hook's answers to
    the prompts."""
    path, base, state = _session(tmp_path)
    target = tmp_path / "app.py"
    target.write_text("value = -1\n")
    outs = []
    for turn in range(turns):
        outs.append(_hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": f"now change value {turn}"}, state))
        if edit:
            change = {"file_path": str(target), "old_string": f"value = {turn - 1}", "new_string": f"value = {turn}"}
            call = {**base, "tool_name": "Edit", "tool_input": change, "tool_use_id": f"t{turn}"}
            _hook({**call, "hook_event_name": "PreToolUse"}, state)
            if found_new:
                target.write_text(f"value = {turn}\n")  # the edit applies between its two hook events
            _hook({**call, "hook_event_name": "PostToolUse", "tool_response": {"filePath": str(target)}}, state)
        else:
            call = {**base, "tool_name": "Bash", "tool_input": {"command": "python check.py"}, "tool_use_id": f"t{turn}"}
            _hook({**call, "hook_event_name": "PreToolUse"}, state)
            answer = f"value {turn} set, {40 + turn} passed\n" if found_new else "nothing to do\n"
            _hook({**call, "hook_event_name": "PostToolUse", "tool_response": {"stdout": answer, "stderr": ""}}, state)
        _hook({**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": final}, state)
    outs.append(_hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": "thanks"}, state))
    return outs


@pytest.mark.parametrize("found_new", [True, False])
def test_a_short_sign_off_after_a_call_that_found_something_new_is_no_same_reply(tmp_path: Path, found_new: bool) -> None:
    """"Done." closing each of four turns, each asked for another change: a turn whose call
    found a new result (an edit that applied, a check with a new answer) is work signed off
    (a new user's four edits: reminded from the third turn before); turns whose calls found
    what the turn before found (the same answer again) are the short reply loop, reminded
    after the third, as with no call at all."""
    outs = _signed_off_turns(tmp_path, "Done.", 5, found_new=found_new)
    if found_new:
        assert outs == [b""] * 6
    else:  # the same answer and the same "Done." to three prompts
        assert outs[:3] == [b""] * 3
        assert all(b"Your last replies were identical" in out for out in outs[3:]), outs


@pytest.mark.parametrize(("edit", "found_new"), [(True, True), (True, False), (False, True)])
def test_a_long_sign_off_after_a_change_is_no_same_reply(tmp_path: Path, edit: bool, found_new: bool) -> None:
    """The same long sentence closing each turn: after turns whose edit applied it is a templated
    sign-off (a hostile review's five edits, each with a new test count); after turns whose
    edit changed nothing, or whose only call was a check with a new answer (a health check's
    uptime, a random seed: no answer to the prompt), it is the claimed fix given again, reminded
    from the second prompt, as with no call at all."""
    final = "I made the change and ran the test suite; every test passes now. Let me know if you want anything else."
    outs = _signed_off_turns(tmp_path, final, 4, found_new=found_new, edit=edit)
    if edit and found_new:
        assert outs == [b""] * 5
    else:
        assert outs[:2] == [b""] * 2
        assert all(b"Your last replies were identical" in out for out in outs[2:]), outs
