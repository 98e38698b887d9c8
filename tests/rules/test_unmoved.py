"""A check whose answer the changes between its runs never move (`rules/unmoved.py`)."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.config.load import ConfigError, Layer, resolve
from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import ledger
from loopguard_hook.core.messages import variant_of
from loopguard_hook.core.verdict import Action, Rule
from loopguard_hook.rules import VARIANTS

rule = importlib.import_module("loopguard_hook.rules.unmoved")
CHECK = {"command": "python3 -c 'import config; print(config.RETRIES == 5)'"}
FIX = {"command": "sed -i 's/RETRIES=3/RETRIES=5/' config.py && echo patched"}


class Clock:
    """One agent's calls, each 2 s after the last, its answer back 1 s later."""

    def __init__(self) -> None:
        self.entry = agent(0.0)
        self.now = 0.0

    def result(self, tool: str, tool_input: Any, response: Any, *, gap: float = 2.0, **kw: Any) -> Any:
        self.now += gap
        ctx = result_ctx(tool, tool_input, response, entry=self.entry, now=self.now, **kw)
        self.entry["updated"] = self.now + 1.0
        return rule.on_result(ctx)

    def check(self, answer: str = "False", **kw: Any) -> Any:
        return self.result("Bash", CHECK, {"stdout": answer, "stderr": ""}, **kw)

    def fix(self, printed: str = "patched") -> Any:
        return self.result("Bash", FIX, {"stdout": printed, "stderr": ""})

    def call(self, tool_input: Any = CHECK, tool: str = "Bash", *, gap: float = 2.0, attempt: int = 1) -> Any:
        return rule.on_call(call_ctx(tool, tool_input, entry=self.entry, now=self.now + gap, attempt=attempt))


def test_the_third_identical_answer_across_unconfirmed_fixes_is_reminded_and_the_fifth_denied() -> None:
    c = Clock()
    verdicts = []
    for i in range(4):
        verdicts.append(c.check())
        c.fix(f"patched {i}")
    assert [v is not None for v in verdicts] == [False, False, True, False]
    reminder = verdicts[2]
    assert (reminder.action, reminder.rule) == (Action.REMIND, Rule.UNMOVED)
    assert variant_of(reminder.message, VARIANTS) == "unmoved_reminder"
    denial = c.call()
    assert denial is not None and (denial.action, denial.rule) == (Action.DENY, Rule.UNMOVED)
    assert "identical answer 4 times in a row" in denial.message and variant_of(denial.message, VARIANTS) == "unmoved_denial"
    assert c.call(FIX) is None  # the fix itself is never denied: only the check


@pytest.mark.parametrize(
    "between",
    [
        ("Read", {"file_path": "/p/config.py"}, {"type": "text", "file": {"filePath": "/p/config.py", "content": "RETRIES = 3"}}),
        ("Bash", {"command": "git diff config.py"}, {"stdout": "", "stderr": ""}),
        ("Grep", {"pattern": "RETRIES", "path": "/p"}, {"mode": "content", "content": "config.py:1:RETRIES = 3"}),
    ],
)
def test_a_look_between_two_runs_ends_the_run(between: tuple[str, Any, Any]) -> None:
    c = Clock()
    for _ in range(3):
        c.check()
        c.fix()
    c.result(*between)
    assert c.check() is None and c.call() is None


def test_a_change_the_host_confirms_ends_the_run_of_a_check_and_of_a_re_read() -> None:
    c = Clock()
    edit = {"file_path": "/p/config.py", "old_string": "RETRIES = 3", "new_string": "RETRIES = 5"}
    for _ in range(4):
        c.check()
        c.result("Edit", edit, {"filePath": "/p/config.py"})
    assert c.call() is None  # edit → test cycles are ordinary work
    r = Clock()
    read = {"file_path": "/p/NOTES.md"}
    text = {"type": "text", "file": {"filePath": "/p/NOTES.md", "content": "Status: draft"}}
    found = [r.result("Read", read, text)]
    for _ in range(3):
        r.result("Edit", {"file_path": "/p/NOTES.md", "old_string": "a", "new_string": "b"}, {"filePath": "/p/NOTES.md"})
        found.append(r.result("Read", read, text))
    # The edit took effect: the next read reads another text (a patch that applied, then the
    # read: corpus case P14), so the run ends and nothing is reminded or denied.
    assert found == [None] * 4 and r.call(read, "Read") is None
    s = Clock()
    for _ in range(3):
        found.append(s.result("Read", read, text))
        s.result("Bash", {"command": "sed -i 's/status: draft/Status: final/' NOTES.md"}, {"stdout": "", "stderr": ""})
    assert found[-1] is not None and found[-1].rule == Rule.UNMOVED  # unconfirmed writes of the file


def test_a_workspace_that_shows_the_fix_changed_a_file_ends_the_run() -> None:
    c = Clock()
    for _ in range(4):
        c.check()
        c.now += 2.0
        ctx = result_ctx("Bash", FIX, {"stdout": "patched", "stderr": ""}, entry=c.entry, now=c.now)
        rule.on_result(ctx._replace(call={**ctx.call, "ws": "before"}, unchanged=False))
    assert c.call() is None


def test_a_different_answer_a_slow_run_a_twin_and_a_prompt_each_end_or_skip_it() -> None:
    c = Clock()
    for _ in range(4):
        c.check()
        c.fix()
    assert c.call() is not None
    assert c.call(gap=Config().slow_repeat_seconds + 1) is None  # a poll
    assert c.call(attempt=5) is None  # the repeat rule counts it as far: one voice
    rule.reset(c.entry, "prompt")
    assert c.call() is None and ledger.slot(c.entry, "unmoved") is None
    d = Clock()
    for answer in ("False", "False", "True", "False"):
        d.check(answer)
        d.fix()
    assert d.call() is None
    t = Clock()
    t.check()
    t.fix()
    t.check()
    twin = result_ctx("Bash", CHECK, {"stdout": "False", "stderr": ""}, entry=t.entry, now=t.now)
    assert rule.on_result(twin._replace(call={**twin.call, "duplicate": True})) is None


def test_polls_and_empty_answers_are_not_runs() -> None:
    c = Clock()
    for _ in range(5):
        c.result("BashOutput", {"bash_id": "b1"}, {"stdout": "building", "status": "running"})
        c.result("Bash", {"command": "sleep 5 && tail -1 build.log"}, {"stdout": "building", "stderr": ""})
        c.result("Bash", {"command": "touch ready"}, {"stdout": "", "stderr": ""})
    assert "run" not in ledger.slot(c.entry, "unmoved")  # type: ignore[operator]


def test_settings_are_checked_and_the_seed_profiles_leave_the_rule_out() -> None:
    assert (Config().unmoved_remind_at, Config().unmoved_deny_at) == (3, 5)
    for profile in ("reminder", "breaker", "progress"):
        assert PROFILE_DEFAULTS[profile]["unmoved_remind_at"] == PROFILE_DEFAULTS[profile]["unmoved_deny_at"] == 0
    with pytest.raises(ConfigError, match="unmoved_deny_at"):
        resolve([Layer("test.toml", {"unmoved_remind_at": 4, "unmoved_deny_at": 3})])
    with pytest.raises(ConfigError, match="unmoved_remind_at"):
        resolve([Layer("test.toml", {"unmoved_remind_at": 1})])
    off = Config(unmoved_remind_at=0, unmoved_deny_at=0)
    c = Clock()
    for _ in range(5):
        assert rule.on_result(result_ctx("Bash", CHECK, {"stdout": "False"}, entry=c.entry, config=off)) is None


def test_a_call_the_host_sends_without_arguments_is_not_a_run_and_ends_one() -> None:
    from loopguard_hook.hosts import dsh_codex

    caps = dsh_codex.CAPABILITIES
    blind = next(t for t in ("read_file", "grep", "list_dir") if not caps.has_arguments(t))
    c = Clock()
    for _ in range(3):
        assert c.result(blind, {"command": ""}, "same text every time", caps=caps) is None
    assert "run" not in ledger.slot(c.entry, "unmoved")  # type: ignore[operator]
    for _ in range(4):
        c.check()
        c.fix()
    c.result(blind, {"command": ""}, "a look the host sent no arguments for", caps=caps)
    assert c.call() is None


def test_a_check_that_keeps_passing_across_unconfirmed_changes_is_no_run() -> None:
    """Breaker cases: green tests between sed renames, a health check that stays ok between
    deploys: an identical answer that says nothing is wrong is no fix failing to take effect."""
    for answer in ("42 passed", '{"status": "ok"}', "5 passed, 0 failed"):
        c = Clock()
        found = []
        for i in range(6):
            found.append(c.check(answer))
            c.fix(f"renamed {i}")
        assert found == [None] * 6 and c.call() is None, answer
    c = Clock()
    for i in range(4):
        c.check("1 failed, 41 passed")
        c.fix(f"renamed {i}")
    assert c.call() is not None  # a failing answer still counts


def test_a_re_read_across_changes_of_other_files_is_no_run() -> None:
    """Re-reading a reference file while editing others (each edit applies) is ordinary work."""
    c = Clock()
    read = {"file_path": "/p/src/types.ts"}
    text = {"type": "text", "file": {"filePath": "/p/src/types.ts", "content": "export interface User {}"}}
    found = []
    for i in range(6):
        found.append(c.result("Read", read, text))
        view = f"/p/src/views/v{i}.tsx"
        c.result("Edit", {"file_path": view, "old_string": "a", "new_string": "b"}, {"filePath": view})
        c.result("Bash", {"command": f"sed -i 's/a/b/' src/views/w{i}.tsx && echo {i}"}, {"stdout": f"{i}", "stderr": ""})
    assert found == [None] * 6 and c.call(read, "Read") is None


def test_a_shell_read_of_one_file_is_a_re_read_as_a_read_tool_is() -> None:
    """Codex reads files through the shell: `cat f`, `sed -n '1,80p' f` are re-reads (their
    answer needs no wrong word); a pipeline or a redirect is not a plain read."""
    config = Config()
    assert rule._read_of("Bash", {"command": "sed -n '1,200p' src/app.py"}, config) == "src/app.py"
    assert rule._read_of("Bash", {"command": "cd src && cat -n app.py"}, config) == "app.py"
    assert rule._read_of("Read", {"file_path": "/p/src/app.py"}, config)
    for command in ("nl -ba src/a.py | sed -n '1,80p'", "cat a.py > b.py", "cat $(ls)", "grep -n x a.py", "sed -i 's/a/b/' a.py"):
        assert rule._read_of("Bash", {"command": command}, config) is None, command
    c = Clock()
    cat = {"command": "cat NOTES.md"}
    found = []
    for _ in range(3):
        found.append(c.result("Bash", cat, {"stdout": "Status: draft", "stderr": ""}))
        c.result("Bash", {"command": "sed -i 's/status: draft/Status: final/' NOTES.md"}, {"stdout": "", "stderr": ""})
    assert found[2] is not None and found[2].rule == Rule.UNMOVED
    c.result("Bash", {"command": "sed -i 's/a/b/' other.md"}, {"stdout": "", "stderr": ""})
    assert c.call(cat) is None  # a change of another file ends a re-read's run
