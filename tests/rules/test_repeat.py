"""The repeat rule (`rules/repeat.py`): thresholds, slow repeats, and the progress seed's
duplicate code kept in its slot."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
import scenario
from rulekit import agent, call_ctx

from loopguard_hook import rules
from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import messages
from loopguard_hook.core.tools import edits_only
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.repeat")


def test_balanced_reminds_then_denies_then_ends_the_turn() -> None:
    got = []
    for n in range(1, 9):
        verdict = rule.on_call(call_ctx(attempt=n))
        got.append((verdict.action, verdict.rule) if verdict else None)
    assert got == [
        None, None,
        (Action.REMIND, Rule.REPEAT), (Action.REMIND, Rule.REPEAT),
        (Action.DENY, Rule.REPEAT), (Action.DENY, Rule.REPEAT), (Action.DENY, Rule.REPEAT),
        (Action.STOP, Rule.END_TURN),
    ]


def test_the_first_reminder_is_short_and_the_next_names_the_arguments() -> None:
    third, fourth = rule.on_call(call_ctx(attempt=3)), rule.on_call(call_ctx(attempt=4))
    assert third is not None and "You are repeating yourself" in third.message
    assert fourth is not None and '"file_path":"/p/a.py"' in fourth.message


def test_a_denial_with_no_result_to_quote_points_at_none() -> None:
    # Calls whose results the guard never saw (no PostToolUse registered, payloads by hand):
    # the text cannot say "that result" when it quotes none.
    ctx = call_ctx(attempt=5)
    assert ctx.sig is not None and "preview" not in ctx.sig
    verdict = rule.on_call(ctx)
    assert verdict is not None and verdict.action is Action.DENY
    assert "returned:" not in verdict.message and "use that result" not in verdict.message
    assert "use what the earlier calls returned" in verdict.message


def test_a_denial_quotes_the_previous_result_and_carries_advice_for_advise_mode() -> None:
    ctx = call_ctx(attempt=5)
    assert ctx.sig is not None
    ctx.sig["preview"] = "alpha beta"
    verdict = rule.on_call(ctx)
    assert verdict is not None and verdict.message.startswith("REPEAT_TOOL_BLOCKED") and "alpha beta" in verdict.message
    assert verdict.advice.startswith("[loopguard]")


def test_a_slow_repeat_is_only_reminded_unless_it_never_ran() -> None:
    slow = rule.on_call(call_ctx(attempt=6, now=200.0, previous_time=100.0))
    assert slow is not None and (slow.action, slow.rule) == (Action.REMIND, Rule.SLOW_REPEAT)
    rejected = rule.on_call(call_ctx(attempt=6, now=200.0, previous_time=100.0, event="PostToolBatch"))
    assert rejected is not None and rejected.action >= Action.DENY


def test_a_call_rejected_before_it_ran_ends_the_turn_where_a_denial_would_come() -> None:
    """Only PostToolBatch sees a validation rejection (Claude Code): no denial can reach it, so at
    `deny_at` the turn ends, under a profile that ends turns; the reminders stay as they were. A
    call there that ran (its PreToolUse record dropped by the state budget) is no rejection: its
    answer has no `<tool_use_error>`, and it is not ended early."""
    answer = "<tool_use_error>InputValidationError: Read failed: The required parameter `file_path` is missing</tool_use_error>"
    entry = agent()
    got = [
        rule.on_call(call_ctx(attempt=n, event="PostToolBatch", entry=entry)._replace(response=answer)) for n in range(1, 6)
    ]
    assert [(v.action, v.rule) if v else None for v in got] == [
        None, None, (Action.REMIND, Rule.REPEAT), (Action.REMIND, Rule.REPEAT), (Action.STOP, Rule.END_TURN),
    ]
    ran = rule.on_call(call_ctx(attempt=5, event="PostToolBatch")._replace(response="x = 1\n"))
    assert ran is not None and (ran.action, ran.rule) == (Action.DENY, Rule.REPEAT)
    breaker = Config(**PROFILE_DEFAULTS["breaker"])  # ends no turn: its denial stays a denial
    verdict = rule.on_call(call_ctx(attempt=3, event="PostToolBatch", config=breaker))
    assert verdict is not None and verdict.action is Action.DENY


def test_a_call_whose_arguments_the_host_does_not_send_is_not_judged_here() -> None:
    assert rule.on_call(call_ctx(attempt=9, counted=False)) is None


def test_the_progress_seed_codes_a_repeat_spelt_alike_as_a_duplicate() -> None:
    config = Config(**PROFILE_DEFAULTS["progress"])
    entry = agent()
    alike = [rule.on_call(call_ctx("Bash", {"command": "ls  -la"}, attempt=n, config=config, entry=entry)) for n in range(1, 7)]
    assert alike[-1] is not None and alike[-1].rule == Rule.DUPLICATE
    entry = agent()
    for n, command in enumerate(["ls -la", "ls  -la", "ls -la", "ls -la", "ls -la", "ls -la"], start=1):
        last = rule.on_call(call_ctx("Bash", {"command": command}, attempt=n, config=config, entry=entry))
    assert last is not None and last.rule == Rule.REPEAT  # spelt two ways since the evidence


def test_its_slot_follows_the_signatures() -> None:
    config = Config(**PROFILE_DEFAULTS["progress"])
    entry = agent()
    rule.on_call(call_ctx("Bash", {"command": "ls"}, attempt=2, config=config, entry=entry))
    assert entry["rules"]["repeat"]
    rule.reset(entry, "compaction")
    assert entry["rules"]["repeat"]  # a compaction keeps the signatures
    rule.reset(entry, "prompt")
    assert "rules" not in entry


NOTE = "Your Write call made since this call's previous run left the files it names exactly as they were."
WRITE = {"file_path": "/p/a.py", "content": "a = 1\n"}
WROTE = {"type": "update", "filePath": "/p/a.py", "content": "a = 1\n", "structuredPatch": [], "originalFile": "a = 1\n"}


def _noop_write(entry: object, *, config: Config, now: float, failed: bool = False) -> None:
    from rulekit import result_ctx

    from loopguard_hook.core.outcome import Failure, Outcome

    ctx = result_ctx("Write", WRITE, WROTE, config=config, entry=entry, now=now)  # type: ignore[arg-type]
    if failed:
        ctx = ctx._replace(outcome=Outcome("f", Failure.HARD, "Error writing file"))
    assert rule.on_result(ctx._replace(unchanged=True)) is None


def test_a_text_after_a_write_that_changed_nothing_says_so_under_balanced() -> None:
    """Check, no-op write, check (issue class 2): the check's reminder, denial and end of turn
    tell the model its write changed nothing, once such a write came after the check's previous
    run; a write before that run, or none, adds nothing."""
    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    check = {"command": "python3 check.py"}
    entry = agent()
    _noop_write(entry, config=balanced, now=150.0)
    for n in (3, 4, 5, 8):
        verdict = rule.on_call(call_ctx("Bash", check, attempt=n, config=balanced, entry=entry, now=160.0, previous_time=140.0))
        assert verdict is not None and NOTE in verdict.message, (n, verdict)
    deny = rule.on_call(call_ctx("Bash", check, attempt=5, config=balanced, entry=entry, now=160.0, previous_time=140.0))
    assert deny is not None and deny.message.startswith("REPEAT_TOOL_BLOCKED") and NOTE in deny.advice
    before = rule.on_call(call_ctx("Bash", check, attempt=5, config=balanced, entry=entry, now=160.0, previous_time=155.0))
    assert before is not None and before.action is Action.DENY and NOTE not in before.message
    rule.reset(entry, "prompt")
    again = rule.on_call(call_ctx("Bash", check, attempt=5, config=balanced, entry=entry, now=160.0, previous_time=140.0))
    assert again is not None and NOTE not in again.message


def test_a_failed_write_or_a_seed_profile_adds_nothing_to_the_text() -> None:
    """A write that failed is no "changed nothing"; the seed profiles (write_result_evidence off)
    keep their texts as the seeds word them."""
    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    entry = agent()
    _noop_write(entry, config=balanced, now=150.0, failed=True)
    verdict = rule.on_call(call_ctx("Bash", {"command": "make"}, attempt=5, config=balanced, entry=entry, now=160.0,
                                    previous_time=140.0))
    assert verdict is not None and "changed nothing" not in verdict.message
    for profile in ("reminder", "breaker", "progress"):
        seed = Config(**PROFILE_DEFAULTS[profile])
        entry = agent()
        _noop_write(entry, config=seed, now=150.0)
        for n in range(1, 9):
            verdict = rule.on_call(call_ctx("Bash", {"command": "make"}, attempt=n, config=seed, entry=entry, now=160.0,
                                            previous_time=140.0))
            assert verdict is None or "changed nothing" not in verdict.message, (profile, n)


BACK = "Your Bash call made since this call's previous run put the files it names back as they were earlier in this turn"


def test_a_text_after_a_call_that_put_its_files_back_says_so_under_balanced() -> None:
    """A value toggled back and forth (`ResultContext.revisited`): the check's reminder and
    denial say the call made since its previous run put the files back as they were earlier,
    a shell line's too; a call before that run, a failed one, or a seed profile adds nothing."""
    from rulekit import result_ctx

    from loopguard_hook.core.outcome import Failure, Outcome

    flip = {"command": "sed -i 's/from .client/from .http_client/' src/app/service.py"}
    done = {"stdout": "", "stderr": "", "interrupted": False}
    check = {"command": "python -m pytest -q"}
    for profile in ("balanced", "reminder", "breaker", "progress"):
        config = Config(**PROFILE_DEFAULTS[profile])
        entry = agent()
        ctx = result_ctx("Bash", flip, done, config=config, entry=entry, now=150.0)
        assert rule.on_result(ctx._replace(revisited=True)) is None
        for n in range(1, 9):
            verdict = rule.on_call(call_ctx("Bash", check, attempt=n, config=config, entry=entry, now=160.0, previous_time=140.0))
            said = verdict is not None and BACK in verdict.message + (verdict.advice or "")
            assert said is (profile == "balanced" and n >= 3), (profile, n)
            # A text that says a call between them put the files back does not also say nothing changed.
            assert not said or "none of them brought a result not seen before" not in verdict.message + (verdict.advice or ""), n
        before = rule.on_call(call_ctx("Bash", check, attempt=5, config=config, entry=entry, now=160.0, previous_time=155.0))
        assert before is None or BACK not in before.message
    entry = agent()
    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    failed = result_ctx("Bash", flip, done, config=balanced, entry=entry, now=150.0)
    rule.on_result(failed._replace(revisited=True, outcome=Outcome("f", Failure.HARD, "sed: can't read")))
    verdict = rule.on_call(call_ctx("Bash", check, attempt=5, config=balanced, entry=entry, now=160.0, previous_time=140.0))
    assert verdict is not None and BACK not in verdict.message
    rule.on_result(result_ctx("Bash", flip, done, config=balanced, entry=entry, now=150.0)._replace(revisited=True))
    rule.reset(entry, "prompt")
    verdict = rule.on_call(call_ctx("Bash", check, attempt=5, config=balanced, entry=entry, now=160.0, previous_time=140.0))
    assert verdict is not None and BACK not in verdict.message


def test_a_slot_not_of_this_rules_shape_adds_nothing() -> None:
    """A state file edited by hand (or by another version) may hold anything in the slot: no
    sentence, no error."""
    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    for junk in ("Write", {"tool": "Write"}, [], ["Write"], ["Write", 150.0, 1], [1, 150.0], ["Write", "150"],
                 ["Write", float("nan")], ["Write", True], ["Write", 1e308], [{"x": 1}, 150.0]):
        entry = agent()
        entry["rules"] = {rule.NOOP: junk}
        verdict = rule.on_call(call_ctx("Bash", {"command": "make"}, attempt=5, config=balanced, entry=entry, now=160.0,
                                        previous_time=140.0))
        assert verdict is not None and verdict.action is Action.DENY and "changed nothing" not in verdict.message, junk


def test_a_shell_call_that_changed_no_file_it_names_adds_nothing() -> None:
    """What a shell command changed is judged by the files it names as words: `git apply`,
    `cp a dir/`, `chmod` or a script's computed path change files or modes the workspace does
    not see, so the sentence is kept for write tools, patches and a line of in-place edits
    (`sed -i`, which changes only the files it names: a new user's `sed` that matched nothing,
    run between the same test runs, was told only that nothing changed between them)."""
    from rulekit import result_ctx

    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    entry = agent()
    for command in ("git apply fix.patch", "cp config.py backup/", "python3 - <<'PY'\nopen('config.py', 'a')\nPY"):
        ctx = result_ctx("Bash", {"command": command}, {"stdout": "", "stderr": "", "interrupted": False},
                         config=balanced, entry=entry, now=150.0)
        line = edits_only("Bash", {"command": command})  # as the engine judges it
        assert rule.on_result(ctx._replace(unchanged=True, edit_line=line)) is None
    verdict = rule.on_call(call_ctx("Bash", {"command": "python3 check.py"}, attempt=5, config=balanced, entry=entry,
                                    now=160.0, previous_time=140.0))
    assert verdict is not None and verdict.action is Action.DENY and "exactly as they were" not in verdict.message
    sed = {"command": "sed -i 's/^retries = 3/retries = 5/' config.py && grep -n retries config.py"}
    ctx = result_ctx("Bash", sed, {"stdout": "", "stderr": "", "interrupted": False}, config=balanced, entry=entry, now=152.0)
    assert rule.on_result(ctx._replace(unchanged=True, edit_line=edits_only("Bash", sed))) is None
    verdict = rule.on_call(call_ctx("Bash", {"command": "python3 check.py"}, attempt=5, config=balanced, entry=entry,
                                    now=160.0, previous_time=140.0))
    assert verdict is not None and "Your Bash call made since this call's previous run left the files it names exactly" in (
        verdict.message
    )
    patch = {"command": "*** Begin Patch\n*** Update File: a.py\n@@\n-a = 1\n+a = 1\n*** End Patch"}
    ctx = result_ctx("apply_patch", patch, "Success. Updated the following files:\nM a.py", config=balanced, entry=entry,
                     now=155.0)
    assert rule.on_result(ctx._replace(unchanged=True)) is None
    verdict = rule.on_call(call_ctx("Bash", {"command": "python3 check.py"}, attempt=5, config=balanced, entry=entry,
                                    now=160.0, previous_time=140.0))
    assert verdict is not None
    assert "Your apply_patch call made since this call's previous run left the files it names exactly" in verdict.message


def test_a_denial_on_qwen_quotes_the_read_not_qwens_unchanged_stub(tmp_path: Path) -> None:
    """The golden `qwen_code_identical_reads.json`: from the 2nd read Qwen Code 0.24.4 answers a
    stub that says to re-read the file "with explicit offset/limit". The denial quoted that stub
    as the previous result, inviting the paging re-read it denies, and never the content: it
    quotes the content the stub stands for."""
    data = scenario.load(scenario.SCENARIO_DIR / "qwen_code_identical_reads.json")
    runner = scenario.Runner(data, "balanced", "qwen-code", str(tmp_path / "state"))
    assert runner.play() == []
    denial = next(result.stdout.decode() for step, result in runner.results if b'"deny"' in result.stdout)
    assert "REPEAT_TOOL_BLOCKED" in denial and "alpha\\nbeta\\ngamma" in denial, denial
    assert "offset/limit" not in denial


def test_a_repeated_read_of_a_running_task_says_checking_again_will_not_end_it(tmp_path: Path) -> None:
    """The golden `case_L19_background_output_polling.json` (BashOutput of a build still running):
    the repeat rule's reminder and denial say that checking again will not make the task finish
    sooner, and what to do meanwhile; not only that the model repeats itself (a blind hunt: a
    14-minute install read 13 times, a sleep between each, told 'use it and move on'). The
    seed profiles' texts are theirs."""
    data = scenario.load(scenario.SCENARIO_DIR / "case_L19_background_output_polling.json")
    for profile, told in (("balanced", True), ("reminder", False)):
        runner = scenario.Runner(data, profile, "claude-code", str(tmp_path / profile))
        assert runner.play() == []
        texts = [r.stdout.decode() for _, r in runner.results if b"loopguard" in r.stdout or b"BLOCKED" in r.stdout]
        assert texts and all(("background task bg_4, which was still running" in t) is told for t in texts), texts
    # reads that only failed (an ended or mistyped id) say nothing of a task running (rv73)
    failing = {
        "clients": ["claude-code"],
        "steps": [
            {"event": "UserPromptSubmit", "prompt": "check the build"},
            {"id": "r", "call": "BashOutput", "input": {"bash_id": "bash_7"}, "t": 0,
             "error": "<tool_use_error>No shell found with ID: bash_7</tool_use_error>"},
            {"same": "r", "t": 40},
            {"same": "r", "t": 80, "pre": "any", "post": "any"},
            {"same": "r", "t": 120, "pre": "any", "post": "any"},
        ],
    }
    runner = scenario.Runner(failing, "balanced", "claude-code", str(tmp_path / "failing"))
    assert runner.play() == []
    texts = [r.stdout.decode() for _, r in runner.results if b"loopguard" in r.stdout or b"BLOCKED" in r.stdout]
    assert texts and not any("still running" in t for t in texts), texts


REFUSED_CURL = "Exit code 7\ncurl: (7) Failed to connect to localhost port 3000 after 0 ms: Connection refused"


def test_a_repeat_of_a_check_nothing_answered_says_how_to_wait() -> None:
    """A shell check repeated against an address where nothing listens (a dev server not up yet)
    is reminded and denied with the way out that goes ahead: one check that sleeps first (half of
    `slow_repeat_seconds`, a poll to `_slow`), or its log. Not after another failure, not for
    another tool, and not under the seed profiles (no slow polls there; their texts are theirs)."""
    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    curl = {"command": "curl -s localhost:3000/health"}
    for n in (3, 4, 5, 8):
        ctx = call_ctx("Bash", curl, attempt=n, config=balanced, now=160.0, previous_time=156.0)
        assert ctx.sig is not None
        ctx.sig["preview"] = REFUSED_CURL
        verdict = rule.on_call(ctx)
        assert verdict is not None and "Nothing answered at that address" in verdict.message, n
        assert "`sleep 30 && ...`" in verdict.message, n
    waits = rule.on_call(call_ctx("Bash", {"command": "sleep 30 && curl -s localhost:3000/health"}, attempt=5, config=balanced,
                                  now=160.0, previous_time=156.0))
    assert waits is not None and waits.rule == Rule.SLOW_REPEAT  # the check the text offers is a poll
    for tool, tool_input, preview in (
        ("Bash", curl, "Exit code 22\ncurl: (22) The requested URL returned error: 500"),
        ("WebFetch", {"url": "http://localhost:3000/health"}, "fetch failed: connect ECONNREFUSED 127.0.0.1:3000"),
    ):
        ctx = call_ctx(tool, tool_input, attempt=5, config=balanced, now=160.0, previous_time=156.0)
        assert ctx.sig is not None
        ctx.sig["preview"] = preview
        verdict = rule.on_call(ctx)
        assert verdict is not None and "Nothing answered" not in verdict.message, tool
    for profile in ("reminder", "breaker", "progress"):
        seed = Config(**PROFILE_DEFAULTS[profile])
        for n in range(1, 9):
            ctx = call_ctx("Bash", curl, attempt=n, config=seed, now=160.0, previous_time=156.0)
            assert ctx.sig is not None
            ctx.sig["preview"] = REFUSED_CURL
            verdict = rule.on_call(ctx)
            assert verdict is None or "Nothing answered" not in verdict.message, (profile, n)


def test_a_repeat_of_a_check_that_sleeps_too_briefly_says_how_long_a_poll_waits() -> None:
    """`sleep 20 && gh pr checks 412` sent again and again while CI runs (pending each time) is
    counted, and its texts say that a check waiting half of `slow_repeat_seconds` first is a poll,
    which goes ahead; a check that sleeps that long is one (`SLOW_REPEAT`), and the seed profiles
    keep their texts."""
    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    brief = {"command": "sleep 20 && gh pr checks 412"}
    for n in (3, 5, 8):
        verdict = rule.on_call(call_ctx("Bash", brief, attempt=n, config=balanced, now=160.0, previous_time=156.0))
        assert verdict is not None and "This check waits 20 s before it looks" in verdict.message, n
        assert "30 s or more first" in verdict.message, n
    paced = rule.on_call(call_ctx("Bash", {"command": "sleep 30 && gh pr checks 412"}, attempt=5, config=balanced, now=160.0,
                                  previous_time=156.0))
    assert paced is not None and paced.rule == Rule.SLOW_REPEAT
    plain = rule.on_call(call_ctx("Bash", {"command": "gh pr checks 412"}, attempt=5, config=balanced, now=160.0,
                                  previous_time=156.0))
    assert plain is not None and "before it looks" not in plain.message
    for profile in ("reminder", "breaker", "progress"):
        seed = Config(**PROFILE_DEFAULTS[profile])
        for n in range(1, 9):
            verdict = rule.on_call(call_ctx("Bash", brief, attempt=n, config=seed, now=160.0, previous_time=156.0))
            assert verdict is None or "before it looks" not in verdict.message, (profile, n)


def test_a_check_repeated_a_while_apart_is_told_how_a_poll_goes_ahead() -> None:
    """`gh pr checks 42` 45 s apart, the same answer each time: counted (not a poll at 60 s), and
    its texts, the denial too, say how a poll goes ahead (a hostile review: the denial's only way
    out was to conclude, while the user had asked to wait for CI); a rapid repeat and a test
    run say nothing of it."""
    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    checks = {"command": "gh pr checks 42"}
    for n in (3, 5):
        verdict = rule.on_call(call_ctx("Bash", checks, attempt=n, config=balanced, now=200.0, previous_time=155.0))
        assert verdict is not None and "came 45 s after the previous one" in verdict.message, n
        assert "waits 30 s first (`sleep 30 && ...`)" in verdict.message, n
    rapid = rule.on_call(call_ctx("Bash", checks, attempt=5, config=balanced, now=160.0, previous_time=156.0))
    assert rapid is not None and "after the previous one;" not in rapid.message
    test = rule.on_call(call_ctx("Bash", {"command": "pytest -q"}, attempt=5, config=balanced, now=200.0, previous_time=155.0))
    assert test is not None and "after the previous one;" not in test.message


def test_on_a_client_that_halts_identical_calls_itself_the_poll_texts_say_so() -> None:
    """Gemini CLI and Qwen Code end the run themselves at the 5th identical call in a row,
    however far apart (`Capabilities.halts_at`): the advice to wait longer between identical
    checks, which goes ahead here, says it goes only so far there (a new user followed it on
    Qwen Code into the host's own halt); Claude Code's texts do not."""
    from loopguard_hook.hosts import claude_code, gemini_cli, qwen_code

    balanced = Config(**PROFILE_DEFAULTS["balanced"])
    brief = {"command": "sleep 20; gh run view 123 --json status"}
    paced = {"command": "sleep 30; gh run view 123 --json status"}
    # The brief check reminded at its 3rd run, the paced one (a poll) at its 5th, its denial's count.
    for caps in (gemini_cli.CAPABILITIES, qwen_code.CAPABILITIES, claude_code.CAPABILITIES):
        for command, n in ((brief, 3), (paced, 5)):
            verdict = rule.on_call(call_ctx("Bash", command, attempt=n, config=balanced, caps=caps, now=160.0,
                                            previous_time=156.0))
            assert verdict is not None and verdict.action is Action.REMIND, (caps, command)
            said = "stops the run at the 5th identical call in a row" in verdict.message
            assert said is (caps is not claude_code.CAPABILITIES), (caps, command)


@pytest.mark.parametrize("client", ["claude-code", "codex"])
def test_a_test_run_after_sed_lines_that_matched_nothing_is_told_so_through_the_hook(client: str, tmp_path: Path) -> None:
    """The golden `repeat_noop_sed_after_cd_between_green_tests`, played through the hook on a real
    workspace: the engine judges each `cd /abs && sed -i …` line of edits once
    (`ResultContext.edit_line`), and the reminder and denial of the identical test run after it
    say the sed left its files as they were."""
    data = scenario.load(scenario.SCENARIO_DIR / "repeat_noop_sed_after_cd_between_green_tests.json")
    runner = scenario.Runner(data, "balanced", client, str(tmp_path / "state"))
    assert runner.play() == []
    said = [result.stdout.decode() for _, result in runner.results if b"go test" not in result.stdout and result.stdout]
    told = [text for text in said if "left the files it names exactly as they were" in text]
    assert told and any("REPEAT_TOOL_BLOCKED" in text or '"deny"' in text for text in told), said


def test_the_first_reminder_says_what_its_count_counts() -> None:
    """Counted since the last new result (balanced), the 5th run of a test may be the 3rd since
    its output last changed: the nudge says "no new result in between" (a new user read "call 3"
    on the 5th identical call). The reminder seed counts in a row and keeps its words."""
    since = rule.gentle_reminder("Bash", 3, in_a_row=False)
    assert "this is call 3 of Bash with the same arguments and no new result in between." in since
    assert "with the same arguments. Analyse" in rule.gentle_reminder("Bash", 3, in_a_row=True)
    row = rule.detailed_reminder("Bash", 5, "{}", in_a_row=True)
    assert "no other call came between them" in row and "nothing changed" not in row
    assert "none of them brought a result not seen before" in rule.detailed_reminder("Bash", 5, "{}", in_a_row=False)


def test_texts_counted_since_the_last_new_result_do_not_say_nothing_changed() -> None:
    """A flaky test run again and again fails and passes in turn: its results change, each one
    seen before. The texts say no new result came, not that nothing changed (a new user's
    finding); counted in a row (the seeds), they say only that no other call came between."""
    since = rule.detailed_reminder("Bash", 5, '{"command":"pytest"}', in_a_row=False)
    assert "nothing changed" not in since and "none of them brought a result not seen before" in since
    assert "no other call came between them" in rule.detailed_reminder("Bash", 5, "{}", in_a_row=True)
    stop = messages.stop_reason("Bash", 8)
    assert "nothing changed" not in stop and "8 times with identical arguments and no new result." in stop
    assert "8 times in a row with identical arguments." in messages.stop_reason("Bash", 8, in_a_row=True)


def test_the_detailed_reminder_says_each_condition_once() -> None:
    """It read "5 times with no new result in between with identical arguments", two "with"s in a
    row; each count now names the arguments once, then what it counts since."""
    since = rule.detailed_reminder("Bash", 5, '{"command":"ls"}', in_a_row=False)
    assert 'called 5 times with identical arguments and no new result in between: {"command":"ls"}.' in since
    row = rule.detailed_reminder("Bash", 5, '{"command":"ls"}', in_a_row=True)
    assert 'called 5 times in a row with identical arguments: {"command":"ls"}.' in row
    assert "between with" not in since + row
    # a log an earlier release wrote is still counted under the variant it was
    old = row.replace("in a row with identical arguments", "with no new result in between with identical arguments")
    found = {messages.variant_of(text, rules.VARIANTS) for text in (since, row, old)}
    assert found == {"detailed_reminder"}


def test_an_end_for_calls_the_host_rejected_says_the_host_rejected_them(tmp_path: Path) -> None:
    """The golden `escalate_rejected_twins_reply_after_reply.json`: Task calls without their
    `prompt`, rejected by Claude Code before they ran, reply after reply. The end of the turn says
    the host rejected them and quotes its answer; it does not say the guard did not run them, nor
    that the arguments were identical (the signature leaves a Task's description out). A variant
    of its own, `stop_rejected` (`stats` compares how models answer each text)."""
    data = scenario.load(scenario.SCENARIO_DIR / "escalate_rejected_twins_reply_after_reply.json")
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    end = answers[-1]
    text = end["hookSpecificOutput"]["additionalContext"]
    assert end["continue"] is False
    assert "Task was sent in 5 replies with the same input, and the host rejected it" in end["stopReason"]
    assert text.startswith("REPEAT_TOOL_BLOCKED: this Task call was rejected by the host before it ran")
    assert "The required parameter `prompt` is missing" in text
    assert "was not run" not in text and "identical arguments" not in end["stopReason"]
    assert messages.variant_of(text, rules.VARIANTS) == "stop_rejected"


def test_reminders_for_calls_the_host_rejected_quote_its_answer(tmp_path: Path) -> None:
    """The same golden: the reminders at the 3rd and 4th reply, before the end, say that the host
    rejected the call, quote its answer and ask for the input it names; not "identical arguments"
    (the model changed what the signature leaves out) nor "repeating yourself"."""
    data = scenario.load(scenario.SCENARIO_DIR / "escalate_rejected_twins_reply_after_reply.json")
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    reminders = [a["hookSpecificOutput"]["additionalContext"] for a in answers if a.get("continue") is not False]
    assert len(reminders) == 2
    for count, text in zip((3, 4), reminders, strict=True):
        assert text.startswith(f"[{messages.PREFIX}] The host rejected this Task call before it ran (attempt {count} ")
        assert "The required parameter `prompt` is missing" in text and "change the input it points at" in text
        assert "identical arguments" not in text and "repeating yourself" not in text
        assert messages.variant_of(text, rules.VARIANTS) == "rejected_reminder"




def test_a_rejection_keeps_the_seed_reminder_where_the_profile_ends_no_turn() -> None:
    """The reminder seed's profile ends no turn (`stop_at = 0`): its texts stay its own for a
    rejected call too; balanced's reminder at the same count quotes the host."""
    answer = "<tool_use_error>InputValidationError: Read failed: The required parameter `file_path` is missing</tool_use_error>"
    seed = Config(**PROFILE_DEFAULTS["reminder"])
    kept = rule.on_call(call_ctx(attempt=3, event="PostToolBatch", config=seed)._replace(response=answer))
    assert kept is not None and kept.message == rule.gentle_reminder("Read", 3)
    entry = agent()
    ours = [rule.on_call(call_ctx(attempt=n, event="PostToolBatch", entry=entry)._replace(response=answer)) for n in (1, 2, 3)]
    limit = Config().result_preview_chars
    assert ours[-1] is not None and ours[-1].message == rule.rejected_reminder("Read", 3, answer, limit, rejections=3)
    ran = rule.on_call(call_ctx(attempt=3, event="PostToolBatch")._replace(response="x = 1\n"))
    assert ran is not None and ran.message == rule.gentle_reminder("Read", 3, in_a_row=False)


def test_one_rejection_after_attempts_that_ran_is_reminded_not_ended() -> None:
    """Attempts that ran (slow polls, or a fast run reminded and denied as it came), then the
    same call rejected once by the host (a `timeout` over its limit, which the signature leaves
    out): no loop of rejections, so no early end of the turn; a reminder quotes the host and
    says the earlier attempts ran. Rejections in a row from then on end it at `deny_at`."""
    answer = "<tool_use_error>InputValidationError: Bash failed: The parameter `timeout` exceeds the maximum</tool_use_error>"
    entry = agent()
    bash = {"command": "gh run view 123 --json status"}
    for n in range(1, 7):
        rule.on_call(call_ctx("Bash", bash, attempt=n, entry=entry, now=100.0 * n, previous_time=100.0 * n - 90))
    got = [
        rule.on_call(call_ctx("Bash", bash, attempt=n, event="PostToolBatch", entry=entry)._replace(response=answer))
        for n in range(7, 12)
    ]
    assert [(v.action, v.rule) if v else None for v in got] == [(Action.REMIND, Rule.REPEAT)] * 4 + [
        (Action.STOP, Rule.END_TURN)
    ]
    assert got[0] is not None and "(attempt 7 with no new result in between; this one was rejected, the 6 before it not: " in (
        got[0].message
    )
    assert "same input" not in got[0].message
    assert got[1] is not None
    assert "; the last 2 were rejected, the 6 before them not: the host's answer says why)" in got[1].message
    assert "timeout` exceeds the maximum" in got[0].message
    assert got[-1] is not None and got[-1].stop_reason is not None and "sent in 5 replies" in got[-1].stop_reason


def test_an_end_for_calls_the_host_rejected_is_followed_up_as_the_end_it_was(tmp_path: Path) -> None:
    """The same golden, then the Stop: the end of turn is answered as an end (`stats`' `ended`
    of `stop_rejected`), not filed as the reminder the late call was fitted to before the
    PostToolBatch carried out its end (a `detailed_reminder` row of END_TURN, open for ever)."""
    data = scenario.load(scenario.SCENARIO_DIR / "escalate_rejected_twins_reply_after_reply.json")
    data["steps"].append({"event": "Stop"})
    assert scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state")).play() == []
    (log,) = (tmp_path / "state").rglob("responses.jsonl")
    answered = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["variant"], r["action"], r["response"]) for r in answered] == [
        ("rejected_reminder", "remind", "repeated"),
        ("rejected_reminder", "remind", "escalated"),
        ("stop_rejected", "stop", "ended"),
    ]
