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
