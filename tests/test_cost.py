"""The cost of a loop: the usage recordings state (Claude Code `message.usage`, Codex
`token_count`), how a loop's tokens and the tokens saved are counted, money at the user's prices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopguard_hook import replay
from loopguard_hook.config.settings import Config
from loopguard_hook.entry import main
from loopguard_hook.replay.cost import CallSpot, Intervention, loops, money, prices
from loopguard_hook.replay.model import Request, Usage

#: What the summaries say the saved tokens come after (`replay.cost.AFTER_SAVED`).
AFTER = "after a call the recording ran and the guard would have denied, or past its end of turn"
REPO = Path(__file__).parent.parent
READ_LOOP = REPO / "tests/data/transcripts/claude-read-loop.jsonl"
CORPUS = REPO / "tests/corpus"
#: A Codex rollout whose `token_count` records are each written twice.
ROLLOUT = CORPUS / "codex/rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl"
#: A Claude Code transcript of a real session (every content block its own line, usage repeated).
TRANSCRIPT = CORPUS / "claude/8a255861-ec7d-4f20-a613-33391ec2fc2a.jsonl"


def test_claude_code_usage_is_counted_once_a_request() -> None:
    (recording,) = replay.load([str(TRANSCRIPT)])
    ids: dict[str, dict[str, int]] = {}
    for line in TRANSCRIPT.read_text().splitlines():
        data = json.loads(line)
        if data.get("type") == "assistant" and isinstance(data["message"].get("usage"), dict):
            ids[data["message"]["id"]] = data["message"]["usage"]
    assert len(recording.requests) == len(ids) == 157
    expected = sum(
        u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] + u["output_tokens"]
        for u in ids.values()
    )
    assert sum(r.usage.total for r in recording.requests) == expected
    # Every tool call is tied to the request that produced it.
    assert sorted(c for r in recording.requests for c in r.calls) == sorted(recording.calls)


def test_codex_usage_is_the_growth_of_the_running_total() -> None:
    (recording,) = replay.load([str(ROLLOUT)])
    totals = [
        json.loads(line)["payload"]["info"]["total_token_usage"]
        for line in ROLLOUT.read_text().splitlines()
        if '"token_count"' in line and json.loads(line)["payload"].get("info")
    ]
    # The running total starts again now and then: the session's usage is the sum of the last
    # total before each restart and of the last one.
    ends = [a for a, b in zip(totals, totals[1:], strict=False) if b["total_tokens"] < a["total_tokens"]] + [totals[-1]]
    assert len(ends) == 6
    assert len(totals) > 2 * len(recording.requests) - 10  # written about twice each
    got = sum((r.usage for r in recording.requests), Usage())
    assert (got.input + got.cache_read, got.cache_read, got.output) == tuple(
        sum(e[key] for e in ends) for key in ("input_tokens", "cached_input_tokens", "output_tokens")
    )
    assert got.cache_write == 0
    assert sum(len(r.calls) for r in recording.requests) >= len(recording.calls) - 1


def test_a_recording_with_zeros_for_usage_states_none(tmp_path: Path) -> None:
    lines = READ_LOOP.read_text().splitlines()
    zeroed = []
    for line in lines:
        data = json.loads(line)
        if isinstance(data.get("message"), dict) and "usage" in data["message"]:
            data["message"]["usage"] = {"input_tokens": 0, "output_tokens": 0}
        zeroed.append(json.dumps(data))
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(zeroed) + "\n")
    (report,) = replay.replay_files([str(path)], Config())
    assert report.usage is None and report.loops and report.loops[0].requests == 0
    text = replay.format_text(report)
    assert "the recording states no token usage for them" in text and "tokens: " not in text


def spot(agent: str, turn: int, sig: str, saved: bool = False, tool: str = "Read", call: str | None = None) -> CallSpot:
    return CallSpot(agent, turn, sig, tool, call, saved)


def test_a_loop_runs_from_the_first_call_counted_to_the_last_acted_on() -> None:
    calls = [
        spot("main", 1, "a", call="c0"),
        spot("main", 1, "x", call="c1", tool="Bash"),  # not the looping call, inside the loop
        spot("main", 1, "x", call="c2", tool="Bash"),
        spot("main", 1, "a", call="c3"),
        spot("main", 1, "a", call="c4"),  # reminded at 3 (saw c0, c3, c4)
        spot("main", 1, "a", saved=True, call="c5"),  # denied at 4
        spot("main", 1, "b", saved=True, call="c6"),  # after a stop: saved, in the loop
        spot("main", 2, "a", call="c7"),  # the next turn: apart
    ]
    requests = [Request(float(i), "main", Usage(100, 1000, 0, 10), (f"c{i}",)) for i in range(8)]
    requests.insert(6, Request(5.5, "main", Usage(50, 0, 0, 5)))  # a text-only request in the loop
    requests.insert(0, Request(-1.0, "other", Usage(7, 0, 0, 7), ("z",)))  # another agent's
    (loop,) = loops(calls, [Intervention(4, 3), Intervention(5, 4)], requests, Config())
    assert (loop.first_call, loop.last_call, loop.interventions) == (1, 7, 2)
    assert loop.requests == 8 and loop.usage == Usage(6 * 100 + 50 + 100, 7000, 0, 6 * 10 + 5 + 10)
    # After the request that made c5, the first call kept from running: the text-only one and c6's.
    assert (loop.saved_requests, loop.saved_usage) == (2, Usage(150, 1000, 0, 15))
    assert loop.money is None and loop.saved_money is None


def test_overlapping_interventions_are_one_loop_and_other_agents_stay_apart() -> None:
    calls = [spot("main", 1, "a", call=f"m{i}") for i in range(5)] + [spot("sub", 1, "a", call=f"s{i}") for i in range(3)]
    found = loops(calls, [Intervention(2, 3), Intervention(3, 4), Intervention(4, 5), Intervention(7, 3)], [], Config())
    assert [(x.agent, x.first_call, x.last_call, x.interventions, x.requests) for x in found] == [
        ("main", 1, 5, 3, 0),
        ("sub", 6, 8, 1, 0),
    ]


def test_money_at_the_users_prices_only() -> None:
    usage = Usage(input=1_000_000, cache_read=2_000_000, cache_write=1_000_000, output=100_000)
    assert prices(Config()) is None and money(usage, Config()) is None
    assert prices(Config(price_input_per_mtok=3.0)) is None  # both input and output are needed
    both = Config(price_input_per_mtok=3.0, price_output_per_mtok=15.0)
    assert money(usage, both) == pytest.approx(3 + 6 + 3 + 1.5)  # cache at the input price
    full = both._replace(price_cache_read_per_mtok=0.3, price_cache_write_per_mtok=3.75)
    assert money(usage, full) == pytest.approx(3 + 0.6 + 3.75 + 1.5)


def test_replay_reports_the_tokens_of_a_recorded_loop_in_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "prices.toml"
    config.write_text("price_input_per_mtok = 3\nprice_output_per_mtok = 15\n")
    assert main(["replay", "--format", "json", "--config", str(config), str(READ_LOOP)]) == 0
    cost = json.loads(capsys.readouterr().out)["reports"][0]["cost"]
    assert cost["tokens"] == {"input": 1100, "cache_read": 0, "cache_write": 0, "output": 110, "total": 1210}
    (loop,) = cost["loops"]
    assert (loop["first_call"], loop["last_call"], loop["requests"], loop["saved_requests"]) == (1, 10, 10, 5)
    assert loop["tokens"]["total"] == 1100 and loop["saved_tokens"]["total"] == 550
    assert loop["saved_money"] == pytest.approx((500 * 3 + 50 * 15) / 1e6)
    assert cost["prices"] == {"input": 3.0, "output": 15.0, "cache_read": 3.0, "cache_write": 3.0}
    assert main(["replay", "--config", str(config), str(READ_LOOP)]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the line is wrapped to the width
    assert f"loop 1: calls 1-10, 10 requests, 1.1k tokens (0.0045); {AFTER}: " \
        "5 requests, 550 tokens (0.0022)" in text


def test_one_request_is_one_request() -> None:
    from loopguard_hook.replay.cost import format_cost

    one = {"first_call": 72, "last_call": 72, "requests": 1, "tokens": {"total": 57_000}, "saved_requests": 1,
           "saved_tokens": {"total": 57_000}}
    text = format_cost(one)
    assert text == (f"loop: calls 72-72, 1 request, 57k tokens; {AFTER}: "
                    "1 request, 57k tokens")


def test_after_an_end_of_turn_the_requests_of_calls_that_never_ran_are_saved_too(capsys: pytest.CaptureFixture[str]) -> None:
    """A corpus session's empty Writes (its reply cut before the input, each rejected before it
    ran): the turn ends at the 4th, and the model would not have made the requests after it,
    though most of their calls never ran (a new user read "0 tokens saved" for such a loop)."""
    cut = CORPUS / "claude/25acb1f7-7584-4781-9d7d-f01504b29831.jsonl"
    assert main(["replay", "--format", "json", "--profile", "balanced", str(cut)]) == 0
    report = json.loads(capsys.readouterr().out)["reports"][0]
    (loop,) = report["cost"]["loops"]
    assert report["summary"]["saved"] == 7  # the calls that ran after it: the count stays theirs
    # 6 requests (448k tokens) counted only those that ran; the turn's rejected Writes add 11
    assert loop["saved_requests"] == 17 and loop["saved_tokens"]["total"] > 1_000_000
