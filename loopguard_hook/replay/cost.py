"""What each loop the guard intervened in cost, in tokens (and money, at the user's prices), and
what the guard would have saved: from the usage the recording states (`usage.py`).

How a loop is counted (docs/commands/replay.md, "The cost of a loop"):

1. **The calls an intervention saw.** An intervention on call C with count n (the count the rule
   saw: the attempts of a repeated call, the failures of a wall, the calls of a budget) saw the
   n calls of C's agent, in C's turn, that end at C: the n - 1 calls before C with C's signature
   when there are that many, else with C's tool, else any n - 1 calls of the agent before C in
   the turn.
2. **A loop** is the calls from the first call an intervention saw to the last call the guard
   acted on, for one agent in one turn: interventions whose calls overlap are one loop, and the
   calls the guard would have kept from running after them in that turn (denied, or after it
   ended the turn: the report's `saved`; after an end of turn, also calls the recording shows
   rejected, which never ran but which the model would not have made) extend it. Interventions
   with no call (text loops at Stop) are not costed.
3. **Its tokens** are those of the agent's model requests from the request that produced the
   loop's first call to the one that produced its last (each request once; a request's tokens
   are input, cache reads, cache writes and output).
4. **Saved** are the tokens of the agent's requests in the loop that came after the request that
   produced the first call the guard would have kept from running. Where the guard ends the
   turn (Claude Code) none of them would have been made; where it only denies, the model makes
   at least one more request, so this is an upper bound. Like the calls saved, it is an
   estimate: a replay follows the recording and cannot know what the model would have done.
5. **Money**, when `price_input_per_mtok` and `price_output_per_mtok` are set: input at the
   input price, output at the output price, cache reads and writes at theirs (the input price
   when not set), per million tokens. No price is built in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..config.settings import Config
from .model import Request, Usage


@dataclass(frozen=True, slots=True)
class CallSpot:
    """What the costing needs of one replayed call: its agent and turn, its signature and tool,
    its id, and whether the guard would have kept it from running (or, after an end of turn,
    from being made)."""

    agent: str
    turn: int
    signature: str
    tool: str
    tool_use_id: str | None
    saved: bool


@dataclass(frozen=True, slots=True)
class Intervention:
    """An intervention on a call: the call's 0-based position and the count the rule saw."""

    call: int
    count: int


@dataclass(frozen=True, slots=True)
class LoopCost:
    """One loop: its agent, first and last call (1-based, as reports number calls), how many
    interventions it had, its requests and their usage, those after the guard would have
    stopped it, and both in money (None without prices). `requests` is 0 when the recording has
    no usage for its calls."""

    agent: str
    first_call: int
    last_call: int
    interventions: int
    requests: int
    usage: Usage
    saved_requests: int
    saved_usage: Usage
    money: float | None
    saved_money: float | None

    def as_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "first_call": self.first_call, "last_call": self.last_call,
            "interventions": self.interventions, "requests": self.requests, "tokens": usage_json(self.usage),
            "saved_requests": self.saved_requests, "saved_tokens": usage_json(self.saved_usage),
            "money": self.money, "saved_money": self.saved_money,
        }


def usage_json(usage: Usage) -> dict[str, int]:
    return {
        "input": usage.input, "cache_read": usage.cache_read, "cache_write": usage.cache_write,
        "output": usage.output, "total": usage.total,
    }


@dataclass(frozen=True, slots=True)
class Prices:
    """Prices per million tokens (rule 5): cache reads and writes already defaulted to input."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    def of(self, usage: Usage) -> float:
        return (
            usage.input * self.input + usage.output * self.output
            + usage.cache_read * self.cache_read + usage.cache_write * self.cache_write
        ) / 1_000_000

    def as_json(self) -> dict[str, float]:
        return {"input": self.input, "output": self.output, "cache_read": self.cache_read, "cache_write": self.cache_write}


def prices(config: Config) -> Prices | None:
    """The config's prices, or None unless both the input and the output price are given."""
    if not (config.price_input_per_mtok > 0 and config.price_output_per_mtok > 0):
        return None
    fresh = config.price_input_per_mtok
    return Prices(
        fresh, config.price_output_per_mtok, config.price_cache_read_per_mtok or fresh, config.price_cache_write_per_mtok or fresh
    )


def money(usage: Usage, config: Config) -> float | None:
    """The price of `usage` at the config's prices; None when not priced."""
    found = prices(config)
    return None if found is None else found.of(usage)


def _seen_from(calls: Sequence[CallSpot], at: int, count: int) -> int:
    """The first call (0-based) an intervention on call `at` with count `count` saw (rule 1)."""
    me = calls[at]
    before = [j for j in range(at) if calls[j].agent == me.agent and calls[j].turn == me.turn]
    need = count - 1
    if need <= 0 or not before:
        return at
    same_call = [j for j in before if calls[j].signature == me.signature]
    if len(same_call) >= need:
        return same_call[-need]
    same_tool = [j for j in before if calls[j].tool == me.tool]
    if len(same_tool) >= need:
        return same_tool[-need]
    return before[max(0, len(before) - need)]


def loops(calls: Sequence[CallSpot], interventions: Sequence[Intervention], requests: Sequence[Request],
          config: Config) -> list[LoopCost]:
    """The loops of a replayed session and their cost (rules 1 to 5 of the module docstring),
    in order of their first call."""
    spans: list[list[int]] = []  # [first, last, interventions]
    for item in sorted(interventions, key=lambda i: i.call):
        start = _seen_from(calls, item.call, item.count)
        me = calls[item.call]
        for span in spans:
            other = calls[span[0]]
            if other.agent == me.agent and other.turn == me.turn and start <= span[1]:
                span[1] = max(span[1], item.call)
                span[0] = min(span[0], start)
                span[2] += 1
                break
        else:
            spans.append([start, item.call, 1])
    spans.sort()
    for n, span in enumerate(spans):
        me = calls[span[0]]
        limit = spans[n + 1][0] if n + 1 < len(spans) else len(calls)
        for j in range(span[1] + 1, limit):
            if calls[j].agent == me.agent and calls[j].turn == me.turn and calls[j].saved:
                span[1] = j
    made_by = {c: k for k, r in enumerate(requests) for c in r.calls}
    return [_cost(calls, span, requests, made_by, config) for span in spans]


def _cost(calls: Sequence[CallSpot], span: list[int], requests: Sequence[Request], made_by: Mapping[str, int],
          config: Config) -> LoopCost:
    first, last, count = span
    agent = calls[first].agent
    mine = [j for j in range(first, last + 1) if calls[j].agent == agent]
    made = [made_by[i] for j in mine if (i := calls[j].tool_use_id) is not None and i in made_by]
    used, saved, n_used, n_saved = Usage(), Usage(), 0, 0
    if made:
        blocked = next((j for j in mine if calls[j].saved), None)
        blocked_id = calls[blocked].tool_use_id if blocked is not None else None
        cut = made_by.get(blocked_id) if blocked_id is not None else None
        for k in range(min(made), max(made) + 1):
            if requests[k].agent != agent:
                continue
            used, n_used = used + requests[k].usage, n_used + 1
            if cut is not None and k > cut:
                saved, n_saved = saved + requests[k].usage, n_saved + 1
    return LoopCost(agent, first + 1, last + 1, count, n_used, used, n_saved, saved, money(used, config), money(saved, config))


def session_usage(requests: Sequence[Request]) -> Usage | None:
    """The usage of every request of a recording; None when it states none."""
    if not requests:
        return None
    total = Usage()
    for r in requests:
        total = total + r.usage
    return total


def tokens(n: int) -> str:
    """`182,304` -> `182k`, `9,781,000` -> `9.78M`: short, for tables and lines."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.3g}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def amount(value: float | None) -> str:
    """` (4.21)`: money in the user's currency, two decimals (more below 0.01); "" when unpriced."""
    if value is None:
        return ""
    return f" ({value:.2f})" if value >= 0.01 or value == 0 else f" ({value:.4f})"


def plural(count: int, word: str) -> str:
    """`word`, or its plural (an `s` added) unless `count` is 1."""
    return word if count == 1 else word + "s"


#: What the saved tokens (rule 4) come after, as every summary words it: the first call the
#: recording ran though the guard would have denied it (or ended the turn at it), or the first it
#: made after the guard would have ended the turn. A recording made with the guard on (its denied
#: calls never ran) shows 0 even where the model went on making requests after a denial.
AFTER_SAVED = "after a call the recording ran and the guard would have denied, or past its end of turn"


def format_cost(cost: Mapping[str, Any], name: str = "loop") -> str:
    """One line for a loop's cost as `LoopCost.as_json` gives it, starting `{name}: `."""
    total = cost["tokens"]["total"]
    span = f"calls {cost['first_call']}-{cost['last_call']}"
    line = f"{name}: {span}, {cost['requests']} {plural(cost['requests'], 'request')}, {tokens(total)} tokens"
    line += amount(cost.get("money"))
    if cost["saved_requests"]:
        line += (
            f"; {AFTER_SAVED}: {cost['saved_requests']} {plural(cost['saved_requests'], 'request')}, "
            f"{tokens(cost['saved_tokens']['total'])} tokens{amount(cost.get('saved_money'))}"
        )
    elif not cost["requests"]:
        line = f"{name}: calls {cost['first_call']}-{cost['last_call']}; the recording states no token usage for them"
    return line
