"""Polls the hook never sees (`rules/unhooked.py`): a hung command, seen only through the
`write_stdin` polls of the rollout, is reminded when it is started again, then denied.

The real records are `tests/data/transcripts/codex-hung-build.jsonl`: a hung `dotnet build`
polled twice for 120 s each, trimmed from tests/corpus/codex/rollout-2026-03-06T15-07-24-…
(Codex 0.111.0; tests/corpus/SOURCES.md)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from rulekit import agent, call_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core.event import Client, HookEvent, Unhooked
from loopguard_hook.core.verdict import Action, Rule
from loopguard_hook.hosts import codex
from loopguard_hook.hosts.rollout import unhooked_items

rule = importlib.import_module("loopguard_hook.rules.unhooked")
DATA = Path(__file__).parent.parent / "data" / "transcripts" / "codex-hung-build.jsonl"
FIRST = "dotnet build MicroCalc.sln --configuration Release --no-restore"
SECOND = "dotnet build MicroCalc.sln --configuration Release --no-restore -clp:ErrorsOnly"
POST = HookEvent("PostToolUse", Client.CODEX, "s", tool_name="Bash", tool_input={"command": "ls"})


def _items(until: str | None = None) -> list[Unhooked]:
    """The real records' unhooked items, up to the call `until` (excluded)."""
    out: list[Unhooked] = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if until is not None and record.get("payload", {}).get("call_id") == until:
            break
        out.extend(unhooked_items(record))
    return out


def _call(entry: dict, command: str, event: str = "PreToolUse") -> object:  # type: ignore[type-arg]
    return rule.on_call(call_ctx("Bash", {"command": command}, entry=entry, event=event, caps=codex.CAPABILITIES))  # type: ignore[arg-type]


def test_the_same_command_whatever_its_options() -> None:
    key = rule.command_key
    assert key(FIRST) == key(SECOND) == "dotnet build MicroCalc.sln Release"
    assert key("cd /repo && CI=1 dotnet build MicroCalc.sln --configuration Release 2>&1 | tail -40") == key(FIRST)
    assert key("dotnet build src/MicroCalc.Core/MicroCalc.Core.csproj --configuration Release") != key(FIRST)
    assert key(f"timeout 300 {FIRST}") != key(FIRST)  # the way out is another command
    assert key("cd /repo") == ""


def test_a_real_hung_build_run_again_is_reminded_then_denied() -> None:
    entry = agent()
    rule.take(entry, POST, _items(until="call_6rwVhzyNfR3asxzrIqVGK0uP"), {"offset": 1}, Config(), 1772810450.0)
    table = entry["rules"]["unhooked"]  # type: ignore[typeddict-item]
    assert table["tail"] == {"offset": 1} and table["polls"] == 3 and table["empty"] == 2
    reminded = _call(entry, SECOND)
    assert reminded is not None and (reminded.action, reminded.rule) == (Action.REMIND, Rule.HUNG)  # type: ignore[attr-defined]
    assert "2 polls of it over 4 minutes returned nothing" in reminded.message  # type: ignore[attr-defined]
    assert "timeout 300" in reminded.message  # type: ignore[attr-defined]
    assert _call(entry, SECOND) is None  # a variant, one hang so far: it may try
    denied = _call(entry, FIRST)
    assert denied is not None and (denied.action, denied.rule) == (Action.DENY, Rule.HUNG)  # type: ignore[attr-defined]
    assert denied.message.startswith("REPEAT_TOOL_BLOCKED: this command was not run:")  # type: ignore[attr-defined]
    assert _call(entry, FIRST, event="PostToolUse") is None  # a call that already ran cannot be denied
    assert _call(entry, f"timeout 300 {FIRST}") is None
    assert _call(entry, "dotnet build src/MicroCalc.Core/MicroCalc.Core.csproj --configuration Release") is None


def test_a_second_hung_session_of_the_command_denies_its_variants() -> None:
    entry = agent()
    rule.take(entry, POST, _items(), {}, Config(), 1772810700.0)
    assert _call(entry, SECOND) is not None  # the reminder
    more = [
        Unhooked("poll", "p9", 1772810750.0, 60363),
        Unhooked("output", "p9", 1772810870.0, 60363, empty=True),
    ]
    rule.take(entry, POST, more, {}, Config(), 1772810870.0)
    denied = _call(entry, f"{SECOND} -v:q")
    assert denied is not None and denied.action is Action.DENY  # type: ignore[attr-defined]


def _session(entry: dict, *later: Unhooked, command: str = "make all") -> None:  # type: ignore[type-arg]
    """A build left running at t=0 that printed something, then two empty 120 s polls: hung."""
    items = [
        Unhooked("command", "c1", 0.0, text=command),
        Unhooked("output", "c1", 30.0, 5, empty=False),
        Unhooked("poll", "p1", 31.0, 5),
        Unhooked("output", "p1", 151.0, 5, empty=True),
        Unhooked("poll", "p2", 152.0, 5),
        Unhooked("output", "p2", 272.0, 5, empty=True),
        *later,
    ]
    rule.take(entry, POST, items, {}, Config(), 300.0)


def test_output_again_or_an_end_by_itself_clears_the_command() -> None:
    hung = agent()
    _session(hung)
    assert _call(hung, "make all") is not None
    printed = agent()
    _session(printed, Unhooked("poll", "p3", 273.0, 5), Unhooked("output", "p3", 280.0, 5, empty=False))
    assert _call(printed, "make all") is None
    ended = agent()
    _session(ended, Unhooked("poll", "p3", 273.0, 5), Unhooked("output", "p3", 280.0, None, code=0, empty=False))
    assert _call(ended, "make all") is None


def test_a_ctrl_c_that_ends_it_does_not_clear_the_command() -> None:
    entry = agent()
    _session(entry, Unhooked("poll", "p3", 273.0, 5, text="\u0003"), Unhooked("output", "p3", 274.0, None, code=130))
    assert _call(entry, "make all") is not None


def test_polls_that_are_too_few_or_too_short_are_no_hang() -> None:
    quick = agent()
    items = [Unhooked("command", "c1", 0.0, text="npm install"), Unhooked("output", "c1", 1.0, 7, empty=True)]
    for n in range(6):  # six empty polls, 10 s each: a minute, not minutes
        items += [Unhooked("poll", f"p{n}", 2.0 + 11 * n, 7), Unhooked("output", f"p{n}", 12.0 + 11 * n, 7, empty=True)]
    rule.take(quick, POST, items, {}, Config(), 80.0)
    assert _call(quick, "npm install") is None
    one = agent()
    long_poll = [Unhooked("poll", "q", 2.0, 7), Unhooked("output", "q", 600.0, 7, empty=True)]
    rule.take(one, POST, [*items[:2], *long_poll], {}, Config(), 600.0)
    assert _call(one, "npm install") is None  # one poll, however long


def test_a_prompt_forgets_what_hung_and_keeps_the_cursor_and_totals() -> None:
    entry = agent()
    _session(entry)
    rule.reset(entry, "prompt")
    assert _call(entry, "make all") is None
    table = entry["rules"]["unhooked"]  # type: ignore[typeddict-item]
    assert table["polls"] == 2 and "tail" in table and table["sessions"]["5"]["empty"] == 0
    assert rule.cursor(entry) == {} and rule.cursor(None) == {}


def test_what_status_shows() -> None:
    entry = agent()
    assert rule.summary(entry) is None
    _session(entry)
    shown = rule.summary(entry)
    assert shown == {"polls": 2, "empty": 2, "running": 1, "hung": [{"command": "make all", "polls": 2, "seconds": 242.0}]}


def test_off_in_the_seed_profiles_and_at_zero() -> None:
    off = Config(hung_command_polls=0)
    entry = agent()
    _session(entry)
    assert rule.on_call(call_ctx("Bash", {"command": "make all"}, entry=entry, config=off)) is None
    for profile in ("reminder", "breaker", "progress"):
        assert PROFILE_DEFAULTS[profile]["hung_command_polls"] == 0
    assert "hung_command_polls" not in PROFILE_DEFAULTS["balanced"]


def test_the_ledger_keeps_no_command_line_as_written() -> None:
    """A command line may hold a secret: the slot keeps it redacted, and digests to compare."""
    secret = "sk-proj-4fJ9qLr2Vx8TzWm1Kb7YhN3cPe6sAd0GuQiRoEl5"
    command = f"OPENAI_API_KEY={secret} python eval.py --suite all"
    entry = agent()
    _session(entry, command=command)
    assert secret not in json.dumps(entry) and "python eval.py" in json.dumps(entry)
    reminded = _call(entry, command)
    assert reminded is not None and secret not in reminded.message  # type: ignore[attr-defined]
