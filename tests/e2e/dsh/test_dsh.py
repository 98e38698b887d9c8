"""The real DeepSeek Harness (dsh 0.1.0-rc.8 headless) through both hook bridges, with
loopguard-hook on every event the bridge maps (balanced profile unless a test names another).

What counts is what the model received (the mock's request log): a denial is the call's `tool`
message `Error: REPEAT_TOOL_BLOCKED…` (the tool did not run); a reminder is a `user` message after
the call's result. The behaviour these tests pin, per DSH's capabilities:

- a reminder decided at PreToolUse goes out with that call's PostToolUse (DSH drops PreToolUse
  `additionalContext`), so it follows that call's result;
- DSH cannot end a turn (`continue: false` is ignored), so the end of a turn becomes answer-only
  denials for the rest of the turn, and no text claims an end that does not happen;
- the guard's own reminder, which the bridges replay as a UserPromptSubmit, resets nothing;
- the Codex bridge sends no arguments for non-shell tools (`{"command": ""}`), so it never
  denies a call for arguments it cannot see;
- in DSH's default permission mode (`workspace-write`, hooks sandboxed) the guard stays on.

"""

from __future__ import annotations

import re
import shutil

import pytest

from loopguard_hook.core.standin import TOKEN
from loopguard_hook.hosts import bigtext
from loopguard_hook.store.location import WORKSPACE_DIR

from ..clients import HOOK_BIN, Workspace
from ..model_view import guard_texts
from . import scenarios
from .conftest import RunScenario
from .driver import BRIDGES, Dsh, DshRun, outside_tmp_home
from .install import Install
from .model_view import Call, calls, new_messages
from .scenarios import SUBTASK
from .session_log import hook_results

pytestmark = pytest.mark.e2e

#: Words a guard text must not use on DSH, where nothing ends the turn.
CLAIMS_AN_END = re.compile(
    r"\b(is|are) ending\b|\bending (this|the) turn\b|\bends? (this|the) turn\b|\bturn (is|has) (over|ended)\b", re.I
)


def main_calls(run: DshRun) -> list[Call]:
    return calls(run.conversation("main"))


def labels(run: DshRun, script: str = "main") -> list[str]:
    return [c.label for c in calls(run.conversation(script))]


def assert_ran(run: DshRun) -> None:
    """dsh finished on its own, and every hook call exited 0 (the guard never failed open)."""
    assert not run.timed_out and run.exit_code == 0, f"dsh exited {run.exit_code}; stderr: {run.stderr[-1500:]}; {run.describe()}"
    results = hook_results(run.node, run.root / "dsh_home")
    assert results, f"no hook ran; {run.describe()}"
    failed = [r for r in results if r.get("exitCode") != 0]
    assert failed == [], f"{failed[:3]}; {run.describe()}"
    if run.state_dir is not None:
        errors = run.state_dir / "errors.log"
        assert not errors.exists() or errors.read_text() == "", errors.read_text()


def everything_seen(run: DshRun) -> list[str]:
    """Every message DSH added for the model after one of its turns, in every conversation."""
    return [s.text for r in run.requests if isinstance(r.body, dict) for s in new_messages(r.body)]


def assert_silent(run: DshRun) -> None:
    for r in run.requests:
        if isinstance(r.body, dict):
            hits = guard_texts(new_messages(r.body))
            assert hits == [], f"request {r.seq} ({r.script}) carried guard text {hits[0].text[:300]!r}; {run.describe()}"


LOOPS = {
    "read": (scenarios.read_loop_past_the_end, 8),
    "failing_bash": (lambda: scenarios.failing_bash(6), 6),
}


# -- loops: the denials arrive ------------------------------------------------------------------------


@pytest.mark.parametrize("loop", sorted(LOOPS))
@pytest.mark.parametrize("bridge", BRIDGES)
def test_identical_calls_are_denied_from_the_fifth(scenario_run: RunScenario, bridge: str, loop: str) -> None:
    make, repeats = LOOPS[loop]
    run = scenario_run(bridge, make())
    assert_ran(run)
    loop_calls = main_calls(run)[:repeats]
    assert [c.label for c in loop_calls[:2]] == ["-", "-"], run.describe()
    assert [c.label for c in loop_calls[4:7]] == [f"deny@{n}" for n in range(5, min(repeats, 7) + 1)], run.describe()
    for c in loop_calls[4:7]:
        assert c.result.startswith("Error: REPEAT_TOOL_BLOCKED: "), c.result
        assert "alpha" in c.result or "missing.txt" in c.result  # the previous result is quoted


@pytest.mark.parametrize("loop", sorted(LOOPS))
@pytest.mark.parametrize("bridge", BRIDGES)
def test_identical_calls_are_reminded_after_the_third_and_fourth(scenario_run: RunScenario, bridge: str, loop: str) -> None:
    make, _ = LOOPS[loop]
    run = scenario_run(bridge, make())
    assert_ran(run)
    loop_calls = main_calls(run)
    assert [c.label for c in loop_calls[:4]] == ["-", "-", "remind@3", "remind@4"], run.describe()
    for c in loop_calls[2:4]:
        assert not c.denied and len(c.reminders) == 1 and c.reminders[0].startswith("[loopguard]"), c


@pytest.mark.parametrize("bridge", BRIDGES)
def test_a_shell_command_over_a_mebibyte_is_denied_from_the_fifth(scenario_run: RunScenario, bridge: str) -> None:
    """The same 1.3 MB `bash` command six times: its payloads are over `bigtext.THRESHOLD`, so
    the guard reads the command as a stand-in (`loopguard_hook/hosts/bigtext.py`: head, tail and
    a length + CRC token), equal for every call and for each call's Pre and Post.

    What the model receives, pinned: DSH cannot run a command that long (one `bash -c` argument
    over Linux's 128 KiB limit): calls 1-4 read `Error: spawn E2BIG`; the reminders follow
    calls 3 and 4, and calls 5 and 6 are the guard's denial, never the tool's result.

    Such a history is past DSH's compaction threshold, so DSH sends compaction requests between
    the calls; they offer the tools like a turn. The mock once served them script turns, which
    DSH drops unrun (only a checkpoint's text is kept): two of six calls never happened, and a
    run looked like "reminded twice, never denied". The mock now answers them with a checkpoint
    (`mock_deepseek.COMPACTION_PROMPT`); this test checks it did.
    """
    scenario = scenarios.big_bash(6)
    assert len(scenarios.BIG_COMMAND.encode()) > bigtext.THRESHOLD
    run = scenario_run(bridge, scenario)
    assert_ran(run)
    assert [r.script for r in run.requests].count("compaction") >= 1, run.describe()
    steps = main_calls(run)
    assert [c.label for c in steps] == ["-", "-", "remind@3", "remind@4", "deny@5", "deny@6"], run.describe()
    assert [c.result for c in steps[:4]] == ["Error: spawn E2BIG"] * 4, run.describe()
    for c in steps[4:]:
        assert c.result.startswith("Error: REPEAT_TOOL_BLOCKED: this bash call is identical"), c.result[:300]
        assert '"""Error: spawn E2BIG"""' in c.result, c.result[:600]  # the previous result is quoted
    assert not (run.root / "work" / "big.log").exists()  # never ran, neither before nor after the denials
    assert not any(TOKEN.strip("\x00") in text for text in everything_seen(run))  # no stand-in reaches the model


# -- loops: the end of the turn ------------------------------------------------------------------------


@pytest.mark.parametrize("bridge", BRIDGES)
def test_end_of_turn_denies_every_later_call_of_the_turn(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.read_loop_past_the_end())
    assert_ran(run)
    eighth, other, again = main_calls(run)[7:10]
    assert eighth.denied, eighth
    assert other.name == "bash" and other.denied, other  # a different call: answer only
    assert again.denied, again
    assert not (run.root / "work" / "after.log").exists()  # the denied command never ran


@pytest.mark.parametrize("bridge", BRIDGES)
def test_no_guard_text_claims_an_end_of_turn(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.read_loop_past_the_end())
    assert_ran(run)
    claims = [t for t in everything_seen(run) if CLAIMS_AN_END.search(t)]
    assert claims == [], claims[0][:400]


# -- other loops ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("bridge", BRIDGES)
def test_alternating_calls_are_reminded(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.alternate())
    assert_ran(run)
    steps = main_calls(run)
    assert [c.label for c in steps[:4]] == ["-"] * 4, run.describe()
    assert any(c.reminders for c in steps[4:]), [c.label for c in steps]


@pytest.mark.parametrize("bridge", BRIDGES)
def test_parallel_identical_reads_end_in_denials(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.parallel_identical())
    assert_ran(run)
    steps = main_calls(run)
    assert len(steps) == 9
    assert [c.label for c in steps[:2]] == ["-", "-"]  # the first pair is no loop yet
    assert steps[-1].denied, [c.label for c in steps]


@pytest.mark.parametrize("bridge", BRIDGES)
def test_parallel_identical_reads_are_reminded_before_the_denial(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.parallel_identical())
    assert_ran(run)
    steps = main_calls(run)
    first_denial = next(i for i, c in enumerate(steps) if c.denied)
    assert any(c.reminders for c in steps[:first_denial]), [c.label for c in steps]


@pytest.mark.parametrize("bridge", BRIDGES)
def test_a_looping_subagent_is_denied_in_its_own_conversation(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.subagent_loop(6))
    assert_ran(run)
    assert labels(run, SUBTASK)[4:] == ["deny@5", "deny@6"], run.describe()
    assert labels(run) == ["-"]  # the main agent made one subagent call and heard nothing
    assert guard_texts([s for body in run.conversation() for s in new_messages(body)]) == []


@pytest.mark.parametrize("bridge", BRIDGES)
def test_a_looping_subagent_is_reminded(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.subagent_loop(6))
    assert_ran(run)
    assert labels(run, SUBTASK)[:4] == ["-", "-", "remind@3", "remind@4"], run.describe()


# -- look-alikes: silence ------------------------------------------------------------------------------

SILENT = {
    "distinct_calls": scenarios.distinct,
    "parallel_distinct": scenarios.parallel_distinct,
}


@pytest.mark.parametrize("name", sorted(SILENT))
@pytest.mark.parametrize("bridge", BRIDGES)
def test_distinct_calls_hear_nothing(scenario_run: RunScenario, bridge: str, name: str) -> None:
    run = scenario_run(bridge, SILENT[name]())
    assert_ran(run)
    assert len(main_calls(run)) in (6, 8)
    assert_silent(run)


@pytest.mark.parametrize("bridge", BRIDGES)
def test_edit_test_cycle_hears_nothing(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.edit_test_cycle())
    assert_ran(run)
    steps = main_calls(run)
    assert len(steps) == 13
    assert all("updated successfully" in c.result for c in steps[1::2]), [c.result[:80] for c in steps]
    assert [c.result for c in steps[2::2]] == ["x = 2\n", "x = 1\n"] * 3
    assert_silent(run)


# -- profiles ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bridge", BRIDGES)
def test_reminder_profile_reminds_at_three_five_and_eight(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.read_loop_past_the_end(), "reminder")
    assert_ran(run)
    steps = main_calls(run)[:8]
    assert [c.label for c in steps] == ["-", "-", "remind@3", "-", "remind@5", "-", "-", "remind@8"], run.describe()


@pytest.mark.parametrize("bridge", BRIDGES)
def test_breaker_never_denies_a_different_file(scenario_run: RunScenario, bridge: str) -> None:
    run = scenario_run(bridge, scenarios.distinct(), "breaker")
    assert_ran(run)
    assert [c.denied for c in main_calls(run)] == [False] * 6, [c.label for c in main_calls(run)]
    assert_silent(run)


# -- DSH's default permission mode ---------------------------------------------------------------------


@pytest.mark.parametrize("bridge", BRIDGES)
def test_guard_is_on_in_the_default_permission_mode(dsh_install: Install, ws: Workspace, bridge: str) -> None:
    """No --state-dir, DSH_PERMISSION_MODE and TMPDIR unset, HOME outside /tmp and the workspace
    (DSH's sandbox grants /tmp and the workspace, so a HOME there would be writable where a
    real one is not)."""
    scenario = scenarios.same_read(5)
    for path, content in scenario.files.items():
        ws.write(path, content)
    if shutil.which("bwrap") and HOOK_BIN.resolve().is_relative_to("/tmp"):
        # DSH then confines hooks with bubblewrap and a private /tmp: a console script under
        # /tmp is not there to run (it is under Landlock, which DSH uses without bwrap).
        pytest.skip(f"bwrap is on PATH and the console script {HOOK_BIN} is under /tmp, which its sandbox hides")
    with outside_tmp_home() as home:
        if home.resolve().is_relative_to("/tmp"):
            pytest.skip(f"the e2e cache {home.parent} is under /tmp, where DSH's sandbox lets hooks write")
        run = Dsh(dsh_install, bridge).run(
            ws, scenario.script, scenario.task, state=False, permission_mode=None, home=home, unset=("TMPDIR",)
        )
    assert_ran(run)
    assert labels(run)[4] == "deny@5", run.describe()


# -- what install writes -------------------------------------------------------------------------


@pytest.mark.parametrize("bridge", BRIDGES)
def test_dsh_boots_with_exactly_what_install_writes(dsh_install: Install, ws: Workspace, bridge: str) -> None:
    """`loopguard-hook install --client dsh-<bridge>` and its files as they are (the Codex bridge's
    `bash` service included; without it dsh 0.1.0-rc.8 exits 1 at boot, "waiting for service:
    bash"): DSH boots, every hook runs `loopguard-hook` from PATH, with its state in the
    workspace, and the fifth identical read is denied."""
    scenario = scenarios.same_read(5)
    for path, content in scenario.files.items():
        ws.write(path, content)
    run = Dsh(dsh_install, bridge).run(ws, scenario.script, scenario.task, as_installed=True)
    assert "waiting for service" not in run.stderr, run.stderr[-1500:]
    assert_ran(run)
    assert labels(run)[4] == "deny@5", run.describe()
    layer = (run.root / "dsh_home" / "cordis.patch.yml").read_text()
    assert ("dsh-bash-service.mjs" in layer) == (bridge == "codex"), layer
    state = ws.work / WORKSPACE_DIR
    assert state.is_dir() and not (state / "errors.log").exists(), run.describe()
