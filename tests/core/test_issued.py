"""When the model issued a call (`progress.issued_with`): a batch the host runs call by call is
one model turn, told by its reported batches or by how soon each call follows the last result."""

from __future__ import annotations

from loopguard_hook.core import ledger, progress


def _call(agent: ledger.Agent, seq: int, t: float, done: float | None = None) -> None:
    call: ledger.Call = {"sig": f"s{seq}", "t": t, "seq": seq, "phase": "done" if done else "pre"}
    if done is not None:
        call["done"] = done
    agent["calls"][f"c{seq}"] = call


def test_a_call_right_after_the_last_result_was_issued_with_it() -> None:
    agent = ledger.new_agent(1.0)
    _call(agent, 1, 10.0, done=10.5)
    assert progress.issued_with(agent, 10.6) == 10.0  # 0.1 s after the result: run from one batch
    assert progress.issued_with(agent, 10.5 + progress.CHAINED_SECONDS + 0.01) is None  # a model's answer
    agent["calls"]["c1"]["issued"] = 8.0
    assert progress.issued_with(agent, 10.6) == 8.0  # the batch's first call's time carries on


def test_a_reported_batch_is_one_turn_whatever_the_timing() -> None:
    agent = ledger.new_agent(1.0)
    _call(agent, 1, 10.0, done=11.0)
    agent["batch_seq"] = 1  # a PostToolBatch after call 1: the next call starts a batch
    assert progress.issued_with(agent, 11.05) is None
    _call(agent, 2, 20.0, done=25.0)
    assert progress.issued_with(agent, 40.0) == 20.0  # no PostToolBatch since call 2: its batch


def test_a_call_issued_at_the_instant_of_a_result_is_no_answer_to_it(tmp_path: object) -> None:
    """A subagent's five Globs of one message (public Claude Code transcript, 2.1.x): the last
    PreToolUse carries the same millisecond as the first result, all five refused alike
    (`spawn …/rg EACCES`). A call issued at the instant a result came back cannot answer it: the
    five are one round, no wall (they were reminded as two rounds)."""
    import json
    from pathlib import Path

    from loopguard_hook.hook import HookOptions, run

    state = Path(str(tmp_path)) / "state"
    base = {"session_id": "s-tie", "transcript_path": "/nonexistent/t.jsonl", "cwd": "/w", "agent_id": "ab51",
            "agent_type": "Explore"}
    error = "spawn /opt/homebrew/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/arm64-darwin/rg EACCES"
    t0 = 1_774_942_063.359
    events = [dict(base, hook_event_name="PreToolUse", tool_name="Glob", tool_input={"pattern": f"**/pkg/{d}/**"},
                   tool_use_id=f"toolu_{d}", t=t0 + 0.1 * i) for i, d in enumerate(["a", "b", "c", "d", "e"])]
    last = events[-1]["t"]
    events += [dict(base, hook_event_name="PostToolUseFailure", tool_name="Glob", tool_input=e["tool_input"],
                    tool_use_id=e["tool_use_id"], error=error, t=last) for e in events[:5]]
    calls = [{"tool_name": "Glob", "tool_input": e["tool_input"], "tool_use_id": e["tool_use_id"], "tool_response": error}
             for e in events[:5]]
    events.append(dict(base, hook_event_name="PostToolBatch", tool_calls=calls, t=last + 0.004))
    outputs = []
    for event in events:
        when = float(event.pop("t"))
        result = run(json.dumps(event).encode(), options=HookOptions(state_dir=str(state)), environ={}, user_config="",
                     clock=lambda when=when: when)
        assert result.exit_code == 0
        outputs.append(result.stdout)
    assert outputs == [b""] * len(events)
