"""Calls cut short (`rules/cut_input.py`): calls rejected for a missing required parameter, the
model's reply cut before the tool's input, counted in rounds per turn."""

from __future__ import annotations

import importlib

import pytest
from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import ledger
from loopguard_hook.core.verdict import Action, Decision, Rule

rule = importlib.import_module("loopguard_hook.rules.cut_input")

#: Claude Code 2.1's rejections, as public transcripts hold them (hunt 48 of issue 22).
WRITE_CUT = (
    "<tool_use_error>InputValidationError: Write failed due to the following issues:\n"
    "The required parameter `file_path` is missing\nThe required parameter `content` is missing</tool_use_error>"
)
BASH_CUT = (
    "<tool_use_error>InputValidationError: Bash failed due to the following issue:\n"
    "The required parameter `command` is missing</tool_use_error>"
)
WRONG_TYPE = (
    '<tool_use_error>InputValidationError: [\n  {\n    "code": "invalid_union",\n    "errors": [],\n'
    '    "path": ["status"],\n    "message": "Invalid input"\n  }\n]</tool_use_error>'
)
UNEXPECTED = (
    "<tool_use_error>InputValidationError: Bash failed due to the following issue:\n"
    "An unexpected parameter `timeout_ms` was provided</tool_use_error>"
)


def _rejected(
    entry: ledger.Agent, batch: int, text: str = WRITE_CUT, tool: str = "Write", config: Config | None = None
) -> Decision | None:
    """A call first seen by the PostToolBatch that follows `batch`, rejected with `text`."""
    return _late(entry, batch, tool, {}, text, config)


def _late(
    entry: ledger.Agent, batch: int, tool: str, tool_input: dict[str, object], text: str, config: Config | None = None
) -> Decision | None:
    entry["batch_seq"], entry["attempts"] = batch, entry["attempts"] + 1
    ctx = result_ctx(tool, tool_input, text, entry=entry, config=config)
    ctx.call["late"] = True
    return rule.on_result(ctx)  # type: ignore[no-any-return]


def _ran(entry: ledger.Agent, tool: str, tool_input: dict[str, object], response: object) -> Decision | None:
    entry["attempts"] += 1
    return rule.on_result(result_ctx(tool, tool_input, response, entry=entry))  # type: ignore[no-any-return]


def test_rejections_across_tools_and_reads_are_reminded_at_the_third_round_and_end_the_turn_at_the_fourth() -> None:
    # hunt 48 E6: empty Bash calls, with reads and small probes that succeed between them
    entry = agent()
    got = []
    for batch in range(4):
        got.append(_rejected(entry, batch * 10, BASH_CUT if batch % 2 else WRITE_CUT, "Bash" if batch % 2 else "Write"))
        assert _ran(entry, "Read", {"file_path": f"/p/part{batch}.html"}, {"type": "text", "file": {"content": "x" * 50}}) is None
        assert _ran(entry, "Bash", {"command": f"wc -l part{batch}.html"}, {"stdout": "120", "stderr": ""}) is None
    assert got[:2] == [None, None]
    assert (got[2].action, got[2].rule, got[2].times) == (Action.REMIND, Rule.CUT_INPUT, 3)  # type: ignore[union-attr]
    assert "In 3 of your replies this turn, tool calls reached the tool without their arguments" in got[2].message  # type: ignore[union-attr]
    assert "in parts" in got[2].message  # type: ignore[union-attr]
    assert (got[3].action, got[3].rule, got[3].times) == (Action.STOP, Rule.CUT_INPUT, 4)  # type: ignore[union-attr]
    assert "ended the turn" in got[3].stop_reason and "smaller parts" in got[3].stop_reason  # type: ignore[union-attr]
    assert "in parts" in got[3].advice  # type: ignore[union-attr]  # where PostToolBatch cannot end it


def test_calls_of_one_batch_are_one_round() -> None:
    entry = agent()
    assert [_rejected(entry, 5) for _ in range(6)] == [None] * 6  # six siblings of one reply
    assert _rejected(entry, 9) is None
    reminded = _rejected(entry, 12)
    assert reminded is not None and (reminded.action, reminded.times) == (Action.REMIND, 3)
    assert _rejected(entry, 12) is None  # a sibling of the reminded round: not yet an answer to it
    stopped = _rejected(entry, 15)
    assert stopped is not None and stopped.action is Action.STOP


def test_a_write_that_goes_through_starts_the_count_again() -> None:
    # hunt 48 E4: five empty Writes, the full Write succeeds, then one empty Edit is a slip
    entry = agent()
    for batch in range(3):
        _rejected(entry, batch)
    written = {"type": "create", "filePath": "/p/doc.md"}
    assert _ran(entry, "Write", {"file_path": "/p/doc.md", "content": "# Doc\n"}, written) is None
    assert _rejected(entry, 7, tool="Edit") is None
    assert _rejected(entry, 8) is None
    assert _rejected(entry, 9) is not None  # a third round since the write


def test_a_shell_command_that_writes_starts_the_count_again_and_one_that_reads_does_not() -> None:
    # the reminder's own way out: the file appended in parts through the shell, then one slip
    entry = agent()
    for batch in range(3):
        _rejected(entry, batch)
    heredoc = {"command": "cat >> /p/report.html <<'EOF'\n<p>part</p>\nEOF"}
    assert _ran(entry, "Bash", heredoc, {"stdout": "", "stderr": ""}) is None
    assert _rejected(entry, 7, BASH_CUT, "Bash") is None
    entry2 = agent()
    for batch in range(3):
        _rejected(entry2, batch)
    assert _ran(entry2, "Bash", {"command": "head -50 /p/report.html"}, {"stdout": "<html>", "stderr": ""}) is None
    stopped = _rejected(entry2, 7, BASH_CUT, "Bash")
    assert stopped is not None and stopped.action is Action.STOP


def _reads(entry: ledger.Agent, first: int, replies: int, per_reply: int = 1) -> None:
    """`replies` replies of reads (`per_reply` parallel reads each), from batch_seq `first` on."""
    for r in range(replies):
        entry["batch_seq"] = first + r
        for n in range(per_reply):
            _ran(entry, "Read", {"file_path": f"/p/f{first}_{r}_{n}.py"}, {"type": "text", "file": {"content": "x"}})


def test_slips_far_apart_in_a_long_turn_start_the_count_again() -> None:
    entry = agent()
    for k in range(4):
        assert _rejected(entry, k * 100, BASH_CUT, "Bash") is None
        _reads(entry, k * 100 + 1, rule.MAX_GAP + 1)  # one reply too many between
    entry = agent()
    got = []
    for k in range(4):
        got.append(_rejected(entry, k * 100, BASH_CUT, "Bash"))
        _reads(entry, k * 100 + 1, rule.MAX_GAP)
    assert [g.action if g else None for g in got] == [None, None, Action.REMIND, Action.STOP]


def test_the_gap_is_counted_in_replies_not_calls() -> None:
    # each round followed by two replies of parallel reads (five, then four): two replies, nine calls
    entry = agent()
    got = []
    for k in range(4):
        got.append(_rejected(entry, k * 100, WRITE_CUT))
        _reads(entry, k * 100 + 1, 1, per_reply=5)
        _reads(entry, k * 100 + 2, 1, per_reply=4)
    assert [g.action if g else None for g in got] == [None, None, Action.REMIND, Action.STOP]


@pytest.mark.parametrize(
    ("tool", "tool_input", "response"),
    [
        ("mcp__filesystem__write_file", {"path": "/p/report.html", "content": "<p>1</p>"}, "Successfully wrote /p/report.html"),
        ("Task", {"description": "write the report", "prompt": "Write /p/report.html in parts"}, "Done: report.html written."),
        ("Bash", {"command": "sed -i 's/old/new/' /p/report.html"}, {"stdout": "", "stderr": ""}),
        ("Bash", {"command": "gsed -E -i 's/old/new/' /p/report.html"}, {"stdout": "", "stderr": ""}),
        ("Bash", {"command": "cp /tmp/draft.html /p/report.html"}, {"stdout": "", "stderr": ""}),
    ],
)
def test_a_way_found_starts_the_count_again(tool: str, tool_input: dict[str, object], response: object) -> None:
    entry = agent()
    for batch in range(3):
        _rejected(entry, batch)
    assert _ran(entry, tool, tool_input, response) is None
    assert _rejected(entry, 7) is None


@pytest.mark.parametrize(
    "command",
    ["echo probe > /tmp/probe && cat /tmp/probe", "cat >> /tmp/probe.txt <<'EOF'\nx\nEOF", "mkdir -p docs/plans",
     "python3 --version", "wc -c << 'EOF'\ntest\nEOF",
     "pytest -q 2>/dev/null"],
)
def test_a_probe_that_writes_no_file_of_the_project_does_not(command: str) -> None:
    entry = agent()
    for batch in range(3):
        _rejected(entry, batch)
    assert _ran(entry, "Bash", {"command": command}, {"stdout": "ok", "stderr": ""}) is None
    stopped = _rejected(entry, 7)
    assert stopped is not None and stopped.action is Action.STOP


@pytest.mark.parametrize(
    ("tool", "tool_input", "text"),
    [
        # came with arguments: a missing or misnamed one is a slip mended at once
        ("WebFetch", {"url": "https://example.com/docs"}, "<tool_use_error>InputValidationError: WebFetch failed due to the "
         "following issue:\nThe required parameter `prompt` is missing</tool_use_error>"),
        ("Read", {"path": "/p/a.py"}, "<tool_use_error>InputValidationError: Read failed due to the following issues:\n"
         "The required parameter `file_path` is missing\nAn unexpected parameter `path` was provided</tool_use_error>"),
        # the words inside another rejection (an edit of a validator)
        ("Edit", {}, "<tool_use_error>String to replace not found in file.\nString: raise ValueError(f\"The required "
         "parameter `{n}` is missing\")</tool_use_error>"),
    ],
)
def test_calls_that_came_with_arguments_or_other_rejections_are_not_counted(
    tool: str, tool_input: dict[str, object], text: str
) -> None:
    entry = agent()
    assert [_late(entry, batch, tool, tool_input, text) for batch in range(6)] == [None] * 6


def test_input_claude_code_could_not_parse_is_cut_too() -> None:
    entry = agent()
    got = [_late(entry, batch, "Write", {"raw": '{"file_path": "/p/a.md", "content": "# A'}, WRITE_CUT) for batch in range(3)]
    assert got[2] is not None and got[2].action is Action.REMIND


def test_a_prompt_starts_the_count_again() -> None:
    entry = agent()
    for batch in range(3):
        _rejected(entry, batch)
    rule.reset(entry, "prompt")
    assert _rejected(entry, 5) is None and _rejected(entry, 6) is None


NOT_FOUND = "<tool_use_error>String to replace not found in file.</tool_use_error>"


@pytest.mark.parametrize("text", [WRONG_TYPE, UNEXPECTED, NOT_FOUND])
def test_other_rejections_are_not_counted(text: str) -> None:
    entry = agent()
    assert [_rejected(entry, batch, text) for batch in range(6)] == [None] * 6


def test_a_call_that_ran_and_printed_those_words_is_not_counted() -> None:
    entry = agent()
    for batch in range(6):
        entry["batch_seq"] = batch
        ctx = result_ctx("Bash", {"command": f"cat log{batch}.txt"}, BASH_CUT)  # ran: no `late`
        assert rule.on_result(ctx._replace(agent=entry)) is None


def test_an_odd_slot_is_read_as_no_count() -> None:
    entry = agent()
    ledger.slots(entry)[rule.NAME] = ["x", None]
    assert _rejected(entry, 1) is None
    assert ledger.slot(entry, rule.NAME) == [1, 1, 0, 0, 1, 1, 1]


def test_stop_at_zero_reminds_only() -> None:
    config = Config(cut_input_stop_at=0)
    entry = agent()
    got = [_rejected(entry, batch, config=config) for batch in range(6)]
    assert [g.action for g in got if g is not None] == [Action.REMIND]


def test_remind_at_zero_ends_the_turn_without_a_reminder() -> None:
    config = Config(cut_input_remind_at=0, cut_input_stop_at=3)
    entry = agent()
    got = [_rejected(entry, batch, config=config) for batch in range(4)]
    assert [g.action if g else None for g in got] == [None, None, Action.STOP, Action.STOP]


@pytest.mark.parametrize("profile", ["reminder", "breaker", "progress"])
def test_the_seed_profiles_leave_the_rule_off(profile: str) -> None:
    entry = agent()
    assert [_rejected(entry, batch, config=Config(**PROFILE_DEFAULTS[profile])) for batch in range(6)] == [None] * 6


def test_identical_empty_calls_are_left_to_this_rule_while_it_is_on() -> None:
    """The repeat rule would tell the model to analyse the previous result of `Write {}`: a reply
    cut short is no repeat. With this rule off, it is the repeat rule's as before."""
    repeat = importlib.import_module("loopguard_hook.rules.repeat")
    for config, expected in ((Config(), None), (Config(cut_input_remind_at=0, cut_input_stop_at=0), Action.REMIND)):
        late: ledger.Call = {"sig": "x", "t": 100.0, "seq": 1, "phase": "pre", "late": True}
        ctx = call_ctx("Write", {}, attempt=3, event="PostToolBatch", call=late, config=config)._replace(response=WRITE_CUT)
        got = repeat.on_call(ctx)
        assert (got.action if got else None) == expected
    # an empty call refused otherwise (an MCP server that is gone) stays a repeat
    gone = "<tool_use_error>Error: No such tool available: mcp__playwright__browser_snapshot</tool_use_error>"
    late = {"sig": "z", "t": 100.0, "seq": 1, "phase": "pre", "late": True}
    ctx = call_ctx("mcp__playwright__browser_snapshot", {}, attempt=3, event="PostToolBatch", call=late)._replace(response=gone)
    got = repeat.on_call(ctx)
    assert got is not None and got.action is Action.REMIND
    written = repeat.on_call(call_ctx("Write", {"file_path": "/p/a.md", "content": "x"}, attempt=3, event="PostToolBatch",
                                      call={"sig": "y", "t": 100.0, "seq": 1, "phase": "pre", "late": True}))
    assert written is not None and written.action is Action.REMIND  # a call with its input is a repeat


def test_a_project_under_tmp_writes_its_files_there() -> None:
    """A shell write under /tmp is a probe, unless the project itself lives there (a new user's
    project in /tmp/…/proj had its turn ended after writing its file in parts)."""
    for cwd, found in (("/tmp/nu/proj", True), ("/home/u/proj", False)):
        entry = agent()
        for batch in range(3):
            _rejected(entry, batch)
        entry["attempts"] += 1
        heredoc = {"command": "cat > /tmp/nu/proj/report_part0.md <<'EOF'\n# Part\nEOF"}
        ctx = result_ctx("Bash", heredoc, {"stdout": "", "stderr": ""}, entry=entry)
        assert rule.on_result(ctx._replace(cwd=cwd)) is None
        after = _rejected(entry, 7)
        assert (after is None) is found, cwd
