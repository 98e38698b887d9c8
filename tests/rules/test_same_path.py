"""Same path (`rules/same_path.py`): reads of one path since it last changed, in its slot."""

from __future__ import annotations

import importlib

from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import ledger
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.same_path")
BREAKER = Config(**PROFILE_DEFAULTS["breaker"])


def test_the_fourth_read_of_one_path_is_denied_whatever_the_offsets() -> None:
    entry = agent()
    got = [
        rule.on_call(call_ctx("Read", {"file_path": "/p/a.py", "offset": n}, config=BREAKER, entry=entry)) for n in range(4)
    ]
    assert got[:3] == [None, None, None]
    assert got[3] is not None and (got[3].action, got[3].rule) == (Action.DENY, Rule.SAME_PATH)
    assert "/p/a.py has been read 4 times" in got[3].message
    assert got[3].times == 4  # the reads the text names: status, log and replay show this count (a new user saw 1)


def test_a_successful_edit_of_the_path_lets_it_be_read_again() -> None:
    entry = agent()
    for _ in range(3):
        rule.on_call(call_ctx("Read", {"file_path": "/p/a.py"}, config=BREAKER, entry=entry))
    edit = {"file_path": "/p/a.py", "old_string": "a", "new_string": "b"}
    rule.on_result(result_ctx("Edit", edit, {"filePath": "/p/a.py"}, config=BREAKER, entry=entry))
    assert rule.on_call(call_ctx("Read", {"file_path": "/p/a.py"}, config=BREAKER, entry=entry)) is None


def test_other_tools_and_the_rule_off_count_nothing() -> None:
    entry = agent()
    for _ in range(5):
        assert rule.on_call(call_ctx("Bash", {"command": "cat /p/a.py"}, config=BREAKER, entry=entry)) is None
        assert rule.on_call(call_ctx("Read", {"file_path": "/p/a.py"}, entry=entry)) is None  # balanced: off
    assert "rules" not in entry


def test_its_table_shrinks_with_the_agents_share_and_resets() -> None:
    entry = agent()
    for n in range(40):
        rule.on_call(call_ctx("Read", {"file_path": f"/p/{n}.py"}, config=BREAKER, entry=entry))
    rule.fit(entry, ledger.limits(40))
    assert len(entry["rules"]["same_path"]) == ledger.limits(40).table(rule.MAX_PATHS)
    rule.reset(entry, "prompt")
    assert "rules" not in entry


def test_the_cap_says_only_what_is_sure_of_pages_read() -> None:
    """Pages of a file read at different offsets are not the whole file: the texts say what those
    reads returned is in the context, and that a search finds the rest (a new user's finding: "Its
    content is already in your context" of a page never read)."""
    for text in (rule.same_path_denial("Read", "big.py", 4, 3), rule.same_path_reminder("Read", "big.py", 4, 3)):
        assert "What those reads returned is already in your context" in text and "a search finds" in text
