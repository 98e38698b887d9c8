"""Polls the hook never sees (`rules/unhooked.py`): a hung command, seen only through the
`write_stdin` polls of the rollout, is denied when it is started again with nothing changed since,
and reminded once when something may have changed.

The real records are `tests/data/transcripts/codex-hung-build.jsonl`: a hung `dotnet build`
polled twice for 120 s each, trimmed from tests/corpus/codex/rollout-2026-03-06T15-07-24-…
(Codex 0.111.0; tests/corpus/SOURCES.md)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from rulekit import agent, call_ctx, result_ctx

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
    assert key("CI=1 dotnet build MicroCalc.sln --configuration Release 2>&1 | tail -40") == key(FIRST)
    assert key("dotnet build src/MicroCalc.Core/MicroCalc.Core.csproj --configuration Release") != key(FIRST)
    assert key(f"timeout 300 {FIRST}") != key(FIRST)  # the way out is another command
    assert key("cd /repo") == ""
    # run in another folder, or narrowed by a `--name=value` filter: another command
    assert key("cd frontend && npm test") != key("cd backend && npm test") != key("npm test")
    assert key("cd frontend && npm test") == key("cd frontend && CI=1 npm test -- --silent")
    assert key("dotnet test --filter=Slow") != key("dotnet test --filter=FullyQualifiedName~Fast")
    assert key("dotnet test --filter Slow") != key("dotnet test --filter Fast")


def test_a_real_hung_build_run_again_with_nothing_changed_is_denied() -> None:
    entry = agent()
    rule.take(entry, POST, _items(until="call_6rwVhzyNfR3asxzrIqVGK0uP"), {"offset": 1}, Config(), 1772810450.0)
    table = entry["rules"]["unhooked"]  # type: ignore[typeddict-item]
    assert table["tail"] == {"offset": 1} and table["polls"] == 3 and table["empty"] == 2
    denied = _call(entry, SECOND)  # only an option added, nothing done since it hung
    assert denied is not None and (denied.action, denied.rule) == (Action.DENY, Rule.HUNG)  # type: ignore[attr-defined]
    assert denied.message.startswith("REPEAT_TOOL_BLOCKED: this command was not run:")  # type: ignore[attr-defined]
    assert "2 polls over 4 minutes returned nothing" in denied.message  # type: ignore[attr-defined]
    assert "timeout 300" in denied.message and "timeout 300" in denied.advice  # type: ignore[attr-defined]
    assert _call(entry, FIRST) is not None  # and again
    assert _call(entry, FIRST, event="PostToolUse") is None  # a call that already ran cannot be denied
    assert _call(entry, f"timeout 300 {FIRST}") is None  # the way out
    assert _call(entry, "dotnet build src/MicroCalc.Core/MicroCalc.Core.csproj --configuration Release") is None


def _result(entry: dict, tool: str, tool_input: object, response: object, now: float) -> None:  # type: ignore[type-arg]
    entry["updated"] = now
    assert rule.on_result(result_ctx(tool, tool_input, response, entry=entry, caps=codex.CAPABILITIES, now=now)) is None


def test_after_a_change_since_it_hung_the_command_is_reminded_once_and_goes_ahead() -> None:
    """An edit → test cycle whose test hung: after an edit, a patch, a command that writes or a
    permission request, running it again may work (a public rollout's `npm test` passed after a
    network permission was granted), so it is reminded once, not denied."""
    for tool, tool_input, response in (
        ("apply_patch", {"command": "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch"}, "Success."),
        ("Bash", {"command": "dotnet build-server shutdown"}, "Shutting down build servers...\n"),
        ("request_permissions", {"permissions": {"network": {"enabled": True}}}, {"permissions": {}}),
    ):
        entry = agent()
        rule.take(entry, POST, _items(), {}, Config(), 1772810460.0)
        _result(entry, tool, tool_input, response, 1772810465.0)
        reminded = _call(entry, SECOND)
        assert reminded is not None and (reminded.action, reminded.rule) == (Action.REMIND, Rule.HUNG), tool  # type: ignore[attr-defined]
        assert "2 polls of it over 4 minutes returned nothing" in reminded.message  # type: ignore[attr-defined]
        assert _call(entry, FIRST) is None, tool  # reminded once; it may try


def test_reads_and_failed_calls_change_nothing_it_waits_for() -> None:
    entry = agent()
    rule.take(entry, POST, _items(), {}, Config(), 1772810460.0)
    _result(entry, "Bash", {"command": "sed -n '1,80p' src/MicroCalc.Core/MicroCalc.Core.csproj"}, "<Project>\n", 1772810461.0)
    _result(entry, "Read", {"file_path": "/w/MicroCalc.sln"}, "Microsoft Visual Studio Solution File", 1772810462.0)
    _result(entry, "Bash", {"command": "pkill -f dotnet"}, "Exit code: 1\npkill: Operation not permitted\n", 1772810463.0)
    denied = _call(entry, SECOND)
    assert denied is not None and denied.action is Action.DENY  # type: ignore[attr-defined]


def _call_in(entry: dict, command: str, cwd: str | None) -> object:  # type: ignore[type-arg]
    ctx = call_ctx("Bash", {"command": command}, entry=entry, caps=codex.CAPABILITIES)  # type: ignore[arg-type]
    return rule.on_call(ctx._replace(event=ctx.event._replace(cwd=cwd)))


def test_a_command_hung_in_one_folder_is_another_command_in_another() -> None:
    """Codex 0.171.0 drops `exec_command`'s `workdir` from `tool_input` and applies it to the
    payload's `cwd`: `npm test` that hung in packages/a, run in packages/b with only reads since,
    may not hang there, so it goes ahead; in packages/a it is denied. A folder not known (a call
    the hook read only in the rollout, a payload with no `cwd`) matches any, as before."""
    entry = agent()
    pre = HookEvent(
        "PreToolUse",
        Client.CODEX,
        "s",
        tool_name="Bash",
        tool_input={"command": "npm test"},
        tool_use_id="c5",
        cwd="/w/packages/a",
    )
    rule.take(entry, pre, [], {}, Config(), 0.0)
    rule.take(entry, POST, _hang("npm test", 5, 0.0), {}, Config(), 300.0)
    assert _call_in(entry, "npm test", "/w/packages/b") is None
    denied = _call_in(entry, "npm test", "/w/packages/a")
    assert denied is not None and (denied.action, denied.rule) == (Action.DENY, Rule.HUNG)  # type: ignore[attr-defined]
    assert _call_in(entry, "npm test", None) is not None
    for spelled in ("/w/packages/a/", "/w/packages/a/.", "/w/./packages/a"):  # Codex does not normalise
        assert _call_in(entry, "npm test", spelled) is not None, spelled
    unknown = agent()
    _session(unknown, command="npm test")  # read from the rollout alone: its folder is not known
    assert _call_in(unknown, "npm test", "/w/packages/b") is not None


def test_a_change_before_the_hung_session_started_does_not_count() -> None:
    entry = agent()
    rule.take(entry, POST, _items(until="call_6rwVhzyNfR3asxzrIqVGK0uP"), {}, Config(), 1772810450.0)
    _result(entry, "Bash", {"command": "dotnet build-server shutdown"}, "done\n", 1772810455.0)
    assert _call(entry, SECOND).action is Action.REMIND  # type: ignore[union-attr]
    more = _hang(SECOND, 60363, 1772810460.0)  # that run hangs as well, after the change
    rule.take(entry, POST, more, {}, Config(), 1772810760.0)
    denied = _call(entry, f"{SECOND} -v:q")
    assert denied is not None and denied.action is Action.DENY  # type: ignore[attr-defined]


def test_in_a_ledger_kept_before_start_was_any_change_counts() -> None:
    entry = agent()
    _session(entry)
    table = entry["rules"]["unhooked"]  # type: ignore[typeddict-item]
    for found in table["hung"].values():
        del found["start"]
    assert _call(entry, "make all").action is Action.DENY  # type: ignore[union-attr]
    _result(entry, "Edit", {"file_path": "/w/Makefile", "old_string": "a", "new_string": "b"}, {"filePath": "/w/Makefile"}, 301.0)
    assert _call(entry, "make all") is None  # reminded before: nothing more


def _hang(command: str, session: int, t0: float) -> list[Unhooked]:
    """`command` left running at `t0` as `session`, printing something, then two empty 120 s polls."""
    return [
        Unhooked("command", f"c{session}", t0, text=command),
        Unhooked("output", f"c{session}", t0 + 30, session, empty=False),
        Unhooked("poll", f"p{session}a", t0 + 31, session),
        Unhooked("output", f"p{session}a", t0 + 151, session, empty=True),
        Unhooked("poll", f"p{session}b", t0 + 152, session),
        Unhooked("output", f"p{session}b", t0 + 272, session, empty=True),
    ]


def _session(entry: dict, *later: Unhooked, command: str = "make all") -> None:  # type: ignore[type-arg]
    """A build left running at t=0 as session 5: hung at t=272."""
    rule.take(entry, POST, [*_hang(command, 5, 0.0), *later], {}, Config(), 300.0)


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


def test_a_change_made_while_it_ran_before_it_was_found_hung_counts() -> None:
    """`npm test` left running at t=1000; the model patches the test's setup while it runs
    (t=1100), then polls it twice more for nothing: it is found hung only at the event after the
    polls. The patch came after the session started, so the run after it goes ahead (reminded):
    the rule's own judge is what happened since the hung session started, not since it was found."""
    entry = agent()
    items = _hang("npm test", 7, 1000.0)
    rule.take(entry, POST, items[:2], {}, Config(), 1031.0)  # started, printed, left running
    patch = {"command": "*** Begin Patch\n*** Update File: test/smoke.test.js\n@@\n-x\n+y\n*** End Patch"}
    _result(entry, "apply_patch", patch, "Success. Updated the following files:\nM test/smoke.test.js\n", 1100.0)
    rule.take(entry, POST, items[2:], {}, Config(), 1300.0)  # the polls: hung now
    reminded = _call(entry, "npm test")
    assert reminded is not None and reminded.action is Action.REMIND  # type: ignore[attr-defined]


def test_a_line_that_answers_what_it_waited_for_is_a_change_in_itself() -> None:
    """`npm test` hung in jest's watch mode, `apt-get install` at its y/n prompt, `npm run dev` in
    the foreground: the usual way out is the same command with what answers the wait (`CI=true`,
    `--watchAll=false`, `-y`, `</dev/null`, `&`), which `command_key` leaves out (but for a
    `--name=value` option, which makes it another command). Denying it as
    "nothing changed" denies the fix the denial asks for; it goes ahead, reminded once. An option
    that answers nothing (`-clp:ErrorsOnly`) is still the same run."""
    for hung, again in (
        ("npm test", "CI=true npm test"),
        ("npm test", "npm test -- --watchAll=false"),
        ("cd web && npx create-vite app", "cd web && npx --yes create-vite app"),
        ("apt-get install libpq-dev", "apt-get install -y libpq-dev"),
        ("apt-get install libpq-dev", "DEBIAN_FRONTEND=noninteractive apt-get install libpq-dev"),
        ("npx prisma migrate dev", "npx prisma migrate dev </dev/null"),
        ("npm run dev", "npm run dev >/tmp/dev.log 2>&1 &"),
        ("./gradlew build", "./gradlew build --no-daemon"),
        ("pytest tests", "pytest --timeout=60 tests"),
    ):
        entry = agent()
        rule.take(entry, POST, _hang(hung, 5, 0.0), {}, Config(), 300.0)
        reminded = _call(entry, again)
        if rule.command_key(again) != rule.command_key(hung):  # `--watchAll=false`: another command
            assert reminded is None, again
            continue
        assert reminded is not None and reminded.action is Action.REMIND, again  # type: ignore[attr-defined]
        assert _call(entry, again) is None, again
    entry = agent()
    rule.take(entry, POST, _hang("CI=true npm test", 5, 0.0), {}, Config(), 300.0)
    assert _call(entry, "CI=true npm test").action is Action.DENY  # type: ignore[union-attr]  # it hung with it
    assert rule.answers(SECOND) == [] and rule.answers(FIRST) == []


def test_the_ways_out_the_denial_names_and_the_usual_fixes_go_ahead() -> None:
    """Found by a hostile review: each of these was denied as "nothing changed" after a hang
    and only reads. Output to a log file (the denial's own advice, spelled with or without a
    space) or through a pipe (no terminal: no pager, no watch mode), a scene set before it
    (`export CI=true &&`, `ulimit -t 300 &&`), input from a descriptor (`0</dev/null`),
    unbuffered output (`python -u`), `sudo -n`. Still the same run: `2>&1`, stderr alone to a
    file, `-clp:ErrorsOnly`."""
    for hung, again in (
        ("npm test", "npm test >/tmp/t.log 2>&1"),
        ("npm test", "npm test > /tmp/t.log 2>&1"),
        ("npm test", "npm test 2>&1 | tee t.log"),
        ("git log", "git log | cat"),
        ("git log", "git log | head -50"),
        ("cd test && npm test", "cd test && npm test | cat"),  # the pipe's program, not an earlier `test`
        ("npm test", "export CI=true && npm test"),
        ("git log", "export GIT_PAGER=cat && git log"),
        ("npm test", "ulimit -t 300 && npm test"),
        ("npm test", "npm test 0</dev/null"),
        ("python train.py", "python -u train.py"),
        ("sudo apt-get update", "sudo -n apt-get update"),
    ):
        entry = agent()
        rule.take(entry, POST, _hang(hung, 5, 0.0), {}, Config(), 300.0)
        assert rule.command_key(again) == rule.command_key(hung), again
        reminded = _call(entry, again)
        assert reminded is not None and reminded.action is Action.REMIND, again  # type: ignore[attr-defined]
    for hung, again in (
        ("npm test", "npm test 2>&1"),
        ("npm test", "npm test 2>/tmp/err.log"),
        (FIRST, SECOND),
        ("npm test 2>&1", "npm test 2>&1 | tail -50"),  # vitest's watch mode is told by stdin, not stdout
        ("git push origin main", "git push -u origin main"),  # `-u` is Python's unbuffered output only
    ):
        entry = agent()
        rule.take(entry, POST, _hang(hung, 5, 0.0), {}, Config(), 300.0)
        denied = _call(entry, again)
        assert denied is not None and denied.action is Action.DENY, again  # type: ignore[attr-defined]
    entry = agent()
    rule.take(entry, POST, _hang("npm test > /tmp/a.log", 5, 0.0), {}, Config(), 300.0)
    assert _call(entry, "npm test >/tmp/b.log").action is Action.DENY  # type: ignore[union-attr]  # it hung so
    assert rule.command_key("cd app; npm test") == "cd app npm test"  # a `;` glued to a word
    # other input is another run: as an operand of `<`, or a word of its own (`<tests/2.in`)
    for hung, again in (("./sol < tests/1.in", "./sol < tests/2.in"), ("./setup.sh <<< n", "./setup.sh <<< y")):
        entry = agent()
        rule.take(entry, POST, _hang(hung, 5, 0.0), {}, Config(), 300.0)
        assert _call(entry, again) is None and _call(entry, hung).action is Action.DENY, again  # type: ignore[union-attr]
    entry = agent()
    rule.take(entry, POST, _hang("./sol <tests/1.in", 5, 0.0), {}, Config(), 300.0)
    assert _call(entry, "./sol <tests/2.in").action is Action.REMIND  # type: ignore[union-attr]
    assert rule.answers("export CI=1; npm test") == ["export", "ci=1"]


def test_a_line_typed_to_a_prompt_that_ends_it_clears_the_command() -> None:
    """`y` and a newline to a prompt, and it ended well: the model answered what it waited for.
    A quit key (`q` to a pager or to jest's watch mode) or a Ctrl-C, Ctrl-\\, Ctrl-Z or Ctrl-D
    stops what would wait the same way again, and a failed end answered nothing: still hung."""
    for typed, code, cleared in (
        ("y\n", 0, True),
        ("init\r", 0, True),
        ("y\n", 1, False),
        ("q", 0, False),
        ("\u0003", 130, False),
        ("\u001c", 0, False),
        ("\u001a", 0, False),
        ("\u0004", 0, False),
    ):
        entry = agent()
        _session(entry, Unhooked("poll", "p3", 273.0, 5, text=typed), Unhooked("output", "p3", 274.0, None, code=code))
        assert (_call(entry, "make all") is None) is cleared, repr(typed)


def test_a_gap_in_what_was_read_forgets_what_hung() -> None:
    """Records skipped unread may have cleared a hang (the command printed again): what hung is
    forgotten and the empty polls count afresh, so nothing is denied on what was not seen."""
    entry = agent()
    _session(entry, Unhooked("gap", ""))
    assert _call(entry, "make all") is None
    assert entry["rules"]["unhooked"]["sessions"]["5"]["empty"] == 0  # type: ignore[typeddict-item]


def test_a_fix_whose_check_reads_as_a_failure_is_a_change() -> None:
    """Codex sends no exit code: `rm -f x.lock; ls x.lock` prints "No such file or directory",
    which reads as a failure, but the line removed the lock the command waited for (a hostile
    review). Only a failure the host reports (`Exit code: 1`) is no change."""
    entry = agent()
    rule.take(entry, POST, _items(), {}, Config(), 1772810460.0)
    out = "ls: cannot access '/tmp/myapp.lock': No such file or directory\n"
    _result(entry, "Bash", {"command": "rm -f /tmp/myapp.lock; ls /tmp/myapp.lock"}, out, 1772810465.0)
    reminded = _call(entry, SECOND)
    assert reminded is not None and reminded.action is Action.REMIND  # type: ignore[attr-defined]
    single = agent()  # one command whose text reads as a failure did fail: no change
    rule.take(single, POST, _items(), {}, Config(), 1772810460.0)
    refused = "pkill: killing pid 4242 failed: Operation not permitted\n"
    _result(single, "Bash", {"command": "pkill -f dotnet"}, refused, 1772810465.0)
    assert _call(single, SECOND).action is Action.DENY  # type: ignore[union-attr]


def test_output_in_one_folder_clears_the_hang_there_only() -> None:
    """`npm test` hung in packages/a and in packages/b; the one in b prints again: the command
    is no longer hung in b, and still is in a."""
    entry = agent()
    for folder, session, call in (("/w/packages/a", 5, "c5"), ("/w/packages/b", 6, "c6")):
        tool_input = {"command": "npm test"}
        pre = HookEvent("PreToolUse", Client.CODEX, "s", tool_name="Bash", tool_input=tool_input, tool_use_id=call, cwd=folder)
        rule.take(entry, pre, [], {}, Config(), 0.0)
        rule.take(entry, POST, _hang("npm test", session, 0.0), {}, Config(), 300.0)
    printed = [Unhooked("poll", "p9", 301.0, 6), Unhooked("output", "p9", 302.0, 6, empty=False)]
    rule.take(entry, POST, printed, {}, Config(), 302.0)
    assert _call_in(entry, "npm test", "/w/packages/b") is None
    assert _call_in(entry, "npm test", "/w/packages/a").action is Action.DENY  # type: ignore[union-attr]


def test_a_patch_waits_for_its_refusal_redacted_and_only_until_the_turn_ends() -> None:
    """An apply_patch is kept until its answer (Codex 0.171.0 sends no post event for one its
    read-only sandbox refuses), redacted as a command line is: a key the patch adds never reaches
    the ledger. Its refusal comes back with the tool and the kept text; a prompt forgets the
    patches still waiting."""
    secret = "sk-proj-" + "Q7x2" * 12
    patch = f"*** Begin Patch\n*** Add File: .env\n+OPENAI_API_KEY={secret}\n*** End Patch\n"
    entry = agent()
    for n in (1, 2):
        pre = HookEvent("PreToolUse", Client.CODEX, "s", tool_name="apply_patch", tool_input={"command": patch},
                        tool_use_id=f"p{n}")
        rule.take(entry, pre, [], {}, Config(), float(n))
    assert secret[8:18] not in json.dumps(entry) and "*** Add File: .env" in json.dumps(entry)
    refusal = Unhooked("refused", "p1", 3.0, text="patch rejected: writing is blocked by read-only sandbox")
    (found,) = rule.take(entry, POST, [refusal], {}, Config(), 3.0)
    assert found[0] == refusal and found[1] == "apply_patch" and "*** Add File: .env" in found[2]
    assert secret[8:18] not in found[2]
    prompt = HookEvent("UserPromptSubmit", Client.CODEX, "s", prompt="go on")
    rule.take(entry, prompt, [], {}, Config(), 4.0)
    assert "p2" not in entry["rules"]["unhooked"]["calls"]
