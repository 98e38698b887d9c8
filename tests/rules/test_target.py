"""One file, patches that keep failing (`rules/target.py`): denied until the file is read again."""

from __future__ import annotations

import importlib

from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.config.settings import Config
from loopguard_hook.core.outcome import Failure, Outcome
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.target")
FAILED = Outcome("f", Failure.HARD, "Failed to find expected lines in src/app.py:\n    return total")
EDIT = {"file_path": "/repo/src/app.py", "old_string": "return total", "new_string": "return total + 1"}


def _fail(entry: dict, n: int = 1) -> None:  # type: ignore[type-arg]
    """`n` failed edits of src/app.py, each with its old text changed a little (a hunk reworded)."""
    for _ in range(n):
        entry["_edits"] = tried = entry.get("_edits", 0) + 1
        edit = {**EDIT, "old_string": f"return total  # try {tried}"}
        rule.on_result(result_ctx("Edit", edit, "", entry=entry, outcome=FAILED))  # type: ignore[arg-type]


def _patch(entry: dict) -> object:  # type: ignore[type-arg]
    return rule.on_call(call_ctx("Edit", EDIT, entry=entry))  # type: ignore[arg-type]


def test_a_patch_after_four_failed_ones_with_no_read_is_denied_until_a_read() -> None:
    entry = agent()
    _fail(entry, 3)
    assert _patch(entry) is None  # three failures: the fourth may be the fix
    _fail(entry)
    verdict = _patch(entry)
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)  # type: ignore[attr-defined]
    # the file as the call names it: the key, `src/app.py`, is no path a model can read from anywhere
    assert "Read /repo/src/app.py first" in verdict.message and "Failed to find expected lines" in verdict.message  # type: ignore[attr-defined]
    rule.on_result(result_ctx("Bash", {"command": "sed -n '1,80p' src/app.py"}, {"stdout": "x"}, entry=entry))  # type: ignore[arg-type]
    assert _patch(entry) is None  # read since: the precondition is met


def _failed_edit_of(path: str, n: int, entry: dict, cwd: str | None = None) -> None:  # type: ignore[type-arg]
    ctx = result_ctx("Edit", {**EDIT, "file_path": path, "old_string": f"return total  # {n}"}, "", entry=entry, outcome=FAILED)
    rule.on_result(ctx._replace(cwd=cwd))  # type: ignore[arg-type]


def _edit_of(path: str, entry: dict, cwd: str | None = None) -> object:  # type: ignore[type-arg]
    ctx = call_ctx("Edit", {**EDIT, "file_path": path}, entry=entry)
    return rule.on_call(ctx._replace(event=ctx.event._replace(cwd=cwd)))  # type: ignore[arg-type]


API, WEB = "/w/packages/api/src/index.ts", "/w/packages/web/src/index.ts"


def test_a_patch_is_judged_by_the_failures_of_its_own_file_not_another_of_the_key() -> None:
    """`packages/api/src/index.ts` and `packages/web/src/index.ts` share the key `src/index.ts`:
    six failing edits alternating between them were one wall, the 5th and 6th denied. Each
    failure is counted where its file is too, and a patch is judged by its place's failures:
    none is denied until one file has failed four times itself; one failure of the other does
    not wipe its count (rv77)."""
    entry = agent()
    for n in range(6):
        path = API if n % 2 == 0 else WEB
        assert _edit_of(path, entry) is None, n
        _failed_edit_of(path, n, entry)
    assert _edit_of(API, entry) is None and _edit_of(WEB, entry) is None
    _failed_edit_of(API, 7, entry)  # api's fourth
    verdict = _edit_of(API, entry)
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)  # type: ignore[attr-defined]
    assert _edit_of(WEB, entry) is None  # web's three are its own


def test_one_file_named_relatively_and_absolutely_is_one_wall() -> None:
    """A path is resolved in the session's folder, or compared by its last parts: `packages/api/
    src/index.ts` and `/w/packages/api/src/index.ts` are one file, whose fifth patch is denied;
    one resolved in another folder is another file."""
    for cwd, other in [("/w", None), (None, None), ("/w", "/elsewhere")]:
        entry = agent()
        for n in range(4):
            _failed_edit_of(API if n % 2 == 0 else "packages/api/src/index.ts", n, entry, cwd=cwd)
        verdict = _edit_of("packages/api/src/index.ts", entry, cwd=other or cwd)
        if other:
            assert verdict is None  # /elsewhere/packages/api/…: another file of the key
        else:
            assert verdict is not None and verdict.rule == Rule.TARGET, cwd  # type: ignore[attr-defined]


def test_a_shell_command_is_judged_by_where_the_path_it_names_is() -> None:
    """After four failed edits of api's index.ts, a `sed -i` of web's is not denied (rv77); one
    that may be api's (its path's end, or several paths, one of them api's) is, as before."""
    for path, denied in [
        ("packages/web/src/index.ts", False),
        ("/w/packages/web/src/index.ts", False),
        ("packages/api/src/index.ts", True),
        ("src/index.ts", True),
        ("packages/*/src/index.ts", True),
        ("/tmp/copy/src/index.ts packages/api/src/index.ts", True),
    ]:
        entry = agent()
        for n in range(4):
            _failed_edit_of(API, n, entry)
        verdict = rule.on_call(call_ctx("Bash", {"command": f"sed -i 's/a/b/' {path}"}, entry=entry))  # type: ignore[arg-type]
        assert (verdict is not None) == denied, path


def test_an_entry_written_before_places_were_counted_is_judged_by_its_key() -> None:
    """A ledger of an earlier release: nine fields, or ten with the changed-since-read mark; its
    failures are of no known place, so they count for any file of the key."""
    for old in ([4, False, 90.0, "e", False, "4:", "", 0, 0], [4, False, 90.0, "e", False, "4:", "", 0, 0, 1]):
        entry = agent()
        entry["rules"] = {"target": {"src/app.py": list(old)}}
        verdict = _patch(entry)
        assert verdict is not None and verdict.rule == Rule.TARGET, old  # type: ignore[attr-defined]


def test_a_spelled_path_is_compared_without_its_first_part() -> None:
    """`_tail`: a tool's path keeps its last parts; a path a command spells leaves out its first
    part when it has three or more (a cut word's end, Git Bash's drive, a diff's prefix: rv80's
    misses); one that may be anything has no place."""
    assert rule._tail("/w/packages/api/src/index.ts", spelled=False) == "w/packages/api/src/index.ts"
    assert rule._tail("auth)/login/page.tsx", spelled=True) == "login/page.tsx"
    assert rule._tail("/c/proj/src/app.py", spelled=True) == "proj/src/app.py"
    assert rule._same_place(rule._tail("/c/proj/src/app.py", spelled=True), "c:/proj/src/app.py")
    assert rule._tail("packages/web/src/index.ts", spelled=True) == "web/src/index.ts"
    assert not rule._same_place("web/src/index.ts", "w/packages/api/src/index.ts")
    for anything in ("../api/src/index.ts", "~/p/a.py", "$ROOT/src/a.py", "packages/*/src/index.ts", "app/[id]/page.tsx"):
        assert rule._tail(anything, spelled=True) == "", anything
    assert rule._tail("/w/app/[id]/page.tsx", spelled=False) == "w/app/[id]/page.tsx"  # a tool names one file


def test_a_places_field_that_does_not_parse_is_no_place() -> None:
    """A hand-edited or odd ledger: a number, a list, lines whose count is no ASCII number
    (`²`, which `isdigit` takes: rv80's crash) or too long for `int` (rv81); the entry's failures
    are then of no known place."""
    for odd in (7, ["a"], "x", "\u00b2\tsrc/app.py", "3\t", "\t\t", "9" * 5000 + "\tsrc/app.py"):
        entry = [4, False, 90.0, "e", False, "4:", "", 0, 0, 0, odd]
        assert rule._places(entry) == [], odd
        assert rule._own(entry, "w/src/app.py") == 4
    path = "/w/src/a\n\u00b2\tb/app.py"  # a path holding a newline and a tab is written without them
    entry = agent()
    for n in range(2):
        _failed_edit_of(path, n, entry)
    (kept,) = entry["rules"]["target"].values()
    assert rule._own(kept, rule._tail(path, spelled=False)) == 2


def test_an_entry_keeps_the_failures_of_its_latest_places() -> None:
    entry = agent()
    for n, pkg in enumerate(["a", "b", "c", "d", "e", "a"]):
        _failed_edit_of(f"/w/{pkg}/src/index.ts", n, entry)
    places = rule._places(entry["rules"]["target"]["src/index.ts"])
    assert places == [("w/c/src/index.ts", 1), ("w/d/src/index.ts", 1), ("w/e/src/index.ts", 1), ("w/a/src/index.ts", 1)]
    # a's latest, and the two whose places were dropped (a's first, b's): of no known place
    assert rule._own(entry["rules"]["target"]["src/index.ts"], "w/a/src/index.ts") == 3
    assert rule._own(entry["rules"]["target"]["src/index.ts"], "w/c/src/index.ts") == 3


def test_a_read_during_the_wall_meets_the_precondition_for_good() -> None:
    entry = agent()
    _fail(entry)
    rule.on_result(result_ctx("Read", {"file_path": "/repo/src/app.py"}, {"file": {"content": "x"}}, entry=entry))  # type: ignore[arg-type]
    _fail(entry, 6)
    assert _patch(entry) is None


def test_a_change_that_applies_ends_the_wall_and_a_whole_write_is_never_denied() -> None:
    entry = agent()
    _fail(entry, 5)
    assert rule.on_call(call_ctx("Write", {"file_path": "/repo/src/app.py", "content": "x"}, entry=entry)) is None  # type: ignore[arg-type]
    rule.on_result(result_ctx("Bash", {"command": "sed -i 's/a/b/' src/app.py"}, {"stdout": ""}, entry=entry))  # type: ignore[arg-type]
    assert _patch(entry) is None


def test_rejections_before_the_call_ran_count_but_never_deny_the_validated_edit_and_failed_writes_do_not_count() -> None:
    entry = agent()
    for _ in range(6):
        rule.on_result(result_ctx("Write", {"file_path": "/repo/src/app.py", "content": "x"}, "", entry=entry, outcome=FAILED))  # type: ignore[arg-type]
    assert "rules" not in entry  # a whole write fails for its own reasons
    late = result_ctx("Edit", EDIT, "", entry=entry, outcome=FAILED)
    for _ in range(4):
        rule.on_result(late._replace(call={**late.call, "late": True}))
    # Claude Code checks an Edit before its PreToolUse: one that reaches it applies.
    assert _patch(entry) is None
    # A script on the file after four rejected edits, none read: the same wall (class 5).
    verdict = rule.on_call(call_ctx("Bash", {"command": "sed -i 's/return total/return total + 1/' src/app.py"}, entry=entry))  # type: ignore[arg-type]
    assert verdict is not None and verdict.rule == Rule.TARGET  # type: ignore[attr-defined]


def test_a_prompt_forgets_the_wall() -> None:
    entry = agent()
    _fail(entry, 5)
    rule.reset(entry, "prompt")
    assert _patch(entry) is None


def test_failed_scripts_on_the_file_count_and_a_change_the_workspace_shows_as_none_lifts_nothing() -> None:
    entry = agent()
    _fail(entry)
    script = {"command": "python3 - <<'PY'\nfrom pathlib import Path\np = Path('src/app.py')\n"
                         "p.write_text(p.read_text().replace('a', 'b'))\nPY"}
    broken = Outcome("s", Failure.HARD, "Traceback (most recent call last):\nAssertionError")
    rule.on_result(result_ctx("Bash", script, "", entry=entry, outcome=broken))  # type: ignore[arg-type]
    noop = result_ctx("Bash", {"command": "sed -i 's/x/y/' src/app.py"}, {"stdout": ""}, entry=entry)  # type: ignore[arg-type]
    rule.on_result(noop._replace(unchanged=True))  # the workspace shows src/app.py as it was
    _fail(entry, 2)
    verdict = _patch(entry)
    assert verdict is not None and verdict.rule == Rule.TARGET and "last 4 attempts" in verdict.message  # type: ignore[attr-defined]
    # A script that changes the file is the same wall (issue class 5); writing it whole is the way out.
    scripted = rule.on_call(call_ctx("Bash", script, entry=entry))  # type: ignore[arg-type]
    assert scripted is not None and scripted.rule == Rule.TARGET  # type: ignore[attr-defined]
    whole = {"command": "cat > src/app.py <<'EOF'\nx = 1\nEOF"}
    assert rule.on_call(call_ctx("Bash", whole, entry=entry)) is None  # type: ignore[arg-type]


SCRIPT = {
    "command": "python3 - <<'PY'\nfrom pathlib import Path\np = Path('src/app.py')\n"
    "p.write_text(p.read_text().replace('return total', 'return total + 1'))\nPY"
}
SCRIPT_FAILED = Outcome("s", Failure.HARD, "Traceback (most recent call last):\nAssertionError: pattern not found")


def test_a_wall_that_goes_on_with_scripts_denies_the_scripts_too_until_a_read() -> None:
    """Issue class 5: patches, then scripts, all failing on one file with different errors."""
    entry = agent()
    _fail(entry, 2)
    for _ in range(2):
        rule.on_result(result_ctx("Bash", SCRIPT, "", entry=entry, outcome=SCRIPT_FAILED))  # type: ignore[arg-type]
    verdict = rule.on_call(call_ctx("Bash", SCRIPT, entry=entry))  # type: ignore[arg-type]
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)  # type: ignore[attr-defined]
    assert verdict.message.startswith("REPEAT_TOOL_BLOCKED: this command was not run: it changes src/app.py")  # type: ignore[attr-defined]
    assert "AssertionError: pattern not found" in verdict.message and "write it whole" in verdict.message  # type: ignore[attr-defined]
    from loopguard_hook.core.messages import variant_of
    from loopguard_hook.rules import VARIANTS

    assert variant_of(verdict.message, VARIANTS) == "target_reread_denial"  # type: ignore[attr-defined]
    rule.on_result(result_ctx("Bash", {"command": "nl -ba src/app.py | sed -n '1,60p'"}, {"stdout": "1 x"}, entry=entry))  # type: ignore[arg-type]
    assert rule.on_call(call_ctx("Bash", SCRIPT, entry=entry)) is None  # type: ignore[arg-type]


def test_writing_the_file_whole_through_the_shell_is_never_denied() -> None:
    entry = agent()
    _fail(entry, 5)
    for command in (
        "cat > src/app.py <<'EOF'\ndef total():\n    return 1\nEOF",
        "cat <<'EOF' > /repo/src/app.py\nx = 1\nEOF",
        "printf 'x = 1\\n' | tee src/app.py",
    ):
        assert rule.on_call(call_ctx("Bash", {"command": command}, entry=entry)) is None, command  # type: ignore[arg-type]
    for command in ("printf 'x = 1\\n' >> src/app.py", "sed -i 's/total/sum/' src/app.py", "printf 'x' | tee -a src/app.py"):
        verdict = rule.on_call(call_ctx("Bash", {"command": command}, entry=entry))  # type: ignore[arg-type]
        assert verdict is not None and verdict.rule == Rule.TARGET, command  # type: ignore[attr-defined]


def test_a_shell_command_that_reads_the_file_or_writes_another_is_no_attempt_and_never_denied() -> None:
    """Breaker cases: after four failed patches, the read the denial asks for (with its stderr
    sent to /dev/null), a test of `test_app.py`, a backup copy, a grep into /tmp, an edit of
    `lib/app.py` are not changes of src/app.py; a copy onto it or a `git checkout` of it writes it
    whole."""
    entry = agent()
    _fail(entry, 4)
    for command in (
        "cat -n src/app.py 2>/dev/null | head -80",
        "python -m pytest -q tests/test_app.py 2>&1",
        "python -m py_compile src/app.py 2>&1 && echo OK",
        "cp src/app.py /tmp/app.py.bak",
        "grep -n 'def ' src/app.py > /tmp/defs.txt",
        "sed -i 's/a/b/' lib/other/app.py",
        "git checkout -- src/app.py",
        "cp /tmp/fixed_app.py src/app.py",
        "cat > src\\app.py <<'EOF'\nx = 1\nEOF",
    ):
        assert rule.on_call(call_ctx("Bash", {"command": command}, entry=entry)) is None, command  # type: ignore[arg-type]
    for command in ("sed -i 's/total/sum/' /repo/src/app.py", "cat > /tmp/x/app.py <<'EOF'\nx\nEOF\nsed -i s/a/b/ src/app.py"):
        verdict = rule.on_call(call_ctx("Bash", {"command": command}, entry=entry))  # type: ignore[arg-type]
        assert verdict is not None and verdict.rule == Rule.TARGET, command  # type: ignore[attr-defined]
    # A failing test of test_app.py is no failed attempt on src/app.py.
    other = agent()
    _fail(other, 1)
    for _ in range(4):
        test = {"command": "python -m pytest -q tests/test_app.py > /tmp/out.txt"}
        rule.on_result(result_ctx("Bash", test, "", entry=other, outcome=SCRIPT_FAILED))  # type: ignore[arg-type]
    assert int(other["rules"]["target"]["src/app.py"][0]) == 1



def _codex_patch(anchor: str, old: list[str], new: list[str]) -> dict:  # type: ignore[type-arg]
    body = "\n".join([f"-{line}" for line in old] + [f"+{line}" for line in new])
    return {"command": f"*** Begin Patch\n*** Update File: src/app.py\n@@ {anchor}\n{body}\n*** End Patch"}


def _not_found(old: list[str], listed: bool = False) -> Outcome:
    if listed:  # Codex 0.4x-0.6x
        import json

        return Outcome("l", Failure.HARD, f"error: Failed to find expected lines {json.dumps(old)} in /repo/src/app.py")
    return Outcome("t", Failure.HARD, "apply_patch verification failed: Failed to find expected lines in /repo/src/app.py:\n"
                   + "\n".join(old))


def test_the_lines_a_failed_patch_looked_for_are_read_from_both_codex_wordings() -> None:
    lines = ["    total = 0", "    for x in xs:"]
    assert rule.missing_lines(_not_found(lines).text) == lines
    assert rule.missing_lines(_not_found(lines, listed=True).text) == lines
    assert rule.missing_lines("Failed to apply patch: invalid hunk at line 3") is None
    assert rule.first_hunk(_codex_patch("def f():", lines, ["    total = 1"])["command"]) == ("def f():", lines)
    two = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Update File: b.py\n@@\n-x\n+y\n*** End Patch"
    assert rule.first_hunk(two) is None  # several files: where each hunk is looked for is not told


def test_a_patch_that_expects_the_lines_the_last_two_did_not_find_is_denied_until_a_read() -> None:
    """Issue 22 class 1: the same missing lines sent a third time, only the new side changed."""
    entry = agent()
    old = ["    total = 0", "    for x in xs:"]
    for new in (["    total = 1"], ["    total = 2"]):
        assert rule.on_call(call_ctx("apply_patch", _codex_patch("def f():", old, new), entry=entry)) is None  # type: ignore[arg-type]
        rule.on_result(result_ctx("apply_patch", _codex_patch("def f():", old, new), "", entry=entry, outcome=_not_found(old)))  # type: ignore[arg-type]
    third = _codex_patch("def f():", ["def f():", *old, "        total += x"], ["    total = 3"])
    verdict = rule.on_call(call_ctx("apply_patch", third, entry=entry))  # type: ignore[arg-type]
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)  # type: ignore[attr-defined]
    assert "expects lines that the last patch of src/app.py looked for and did not find" in verdict.message  # type: ignore[attr-defined]
    from loopguard_hook.core.messages import variant_of
    from loopguard_hook.rules import VARIANTS

    assert variant_of(verdict.message, VARIANTS) == "target_doomed_denial"  # type: ignore[attr-defined]
    # A smaller hunk, or the same lines looked for from another anchor, may apply: never denied.
    assert rule.on_call(call_ctx("apply_patch", _codex_patch("def f():", old[:1], ["    total = 3"]), entry=entry)) is None  # type: ignore[arg-type]
    assert rule.on_call(call_ctx("apply_patch", _codex_patch("def g():", old, ["    total = 3"]), entry=entry)) is None  # type: ignore[arg-type]
    rule.on_result(result_ctx("Bash", {"command": "sed -n '1,40p' src/app.py"}, {"stdout": "x"}, entry=entry))  # type: ignore[arg-type]
    assert rule.on_call(call_ctx("apply_patch", third, entry=entry)) is None  # type: ignore[arg-type]  # read since


def test_one_resend_of_a_patch_that_just_failed_is_let_through() -> None:
    entry = agent()
    old = ["    total = 0"]
    rule.on_result(result_ctx("apply_patch", _codex_patch("", old, ["x"]), "", entry=entry, outcome=_not_found(old)))  # type: ignore[arg-type]
    assert rule.on_call(call_ctx("apply_patch", _codex_patch("", old, ["y"]), entry=entry)) is None  # type: ignore[arg-type]


def _wall(entry: dict, patch: dict, old: list[str], path: str = "src/app.py") -> None:  # type: ignore[type-arg]
    """Two failed patches of `path` in a row whose error quotes `old`."""
    text = f"apply_patch verification failed: Failed to find expected lines in /repo/{path}:\n" + "\n".join(old)
    error = Outcome("t", Failure.HARD, text)
    for _ in range(2):
        rule.on_result(result_ctx("apply_patch", patch, "", entry=entry, outcome=error))  # type: ignore[arg-type]


def _body(body: str, path: str = "src/app.py") -> dict:  # type: ignore[type-arg]
    return {"command": f"*** Begin Patch\n*** Update File: {path}\n{body}\n*** End Patch"}


def _denied(entry: dict, patch: dict) -> bool:  # type: ignore[type-arg]
    return rule.on_call(call_ctx("apply_patch", patch, entry=entry)) is not None  # type: ignore[arg-type]


def test_a_patch_that_may_apply_after_all_is_never_judged_doomed() -> None:
    """Breaker 3: each patch sent third could apply, by Codex's parse and seek rules."""
    one = _body("@@ def f():\n-    x = foo()\n+    x = bar()")
    # The failing hunk was a later one whose lines are inside the first: the first one applied.
    two = _body("@@ def f():\n-    x = foo()\n+    x = bar()\n@@ def g():\n-    x = foo()\n+    x = bar()")
    _wall(entry := agent(), two, ["    x = foo()"])
    assert not _denied(entry, one)
    # `*** End of File`: looked for at the file's end only; without it, anywhere after the context.
    _wall(entry := agent(), _body("@@\n-    return total\n+    return total + 1\n*** End of File"), ["    return total"])
    assert not _denied(entry, _body("@@\n-    return total\n+    return total + 1"))
    # Two trailing blank lines: Codex retries without one only; the error text shows none.
    blanks = _body("@@ class A:\n     def f(self):\n-        return 1\n+        return 2\n\n")
    _wall(entry := agent(), blanks, ["    def f(self):", "        return 1", "", ""])
    assert not _denied(entry, _body("@@ class A:\n     def f(self):\n-        return 1\n+        return 2"))
    # Another context text (`@@ def run` and `@@     def run` may be two places; `@@ ` is not `@@`).
    _wall(entry := agent(), _body("@@ def run(self):\n-    x = 1\n+    x = 2"), ["    x = 1"])
    assert not _denied(entry, _body("@@     def run(self):\n-        x = 1\n+        x = 2"))
    assert rule.first_hunk(_body("@@ \n-x\n+y")["command"]) != rule.first_hunk(_body("@@\n-x\n+y")["command"])
    # A first chunk that only adds moves where the second is looked for.
    _wall(entry := agent(), _body("@@ class B:\n+    y = 0\n@@ def f():\n-    x = 1\n+    x = 2"), ["    x = 1"])
    assert not _denied(entry, _body("@@ def f():\n-    x = 1\n+    x = 2"))
    # A hunk longer than the lines compared: its first 48 lines may be there.
    old = [f"    v{i} = {i}" for i in range(50)]
    _wall(entry := agent(), _body("@@ def f():\n" + "\n".join("-" + line for line in old) + "\n+    pass"), old)
    fixed = old[:48] + ["    v48 = 0", "    v49 = 0"]
    assert not _denied(entry, _body("@@ def f():\n" + "\n".join("-" + line for line in fixed) + "\n+    pass"))
    # Another file with the same last two path components.
    web = _body("@@ def f():\n-    x = foo()\n+    x = bar()", "web/src/app.py")
    _wall(entry := agent(), web, ["    x = foo()"], "web/src/app.py")
    assert not _denied(entry, _body("@@ def f():\n-    x = foo()\n+    x = bar()", "api/src/app.py"))
    assert _denied(entry, _body("@@ def f():\n-    x = foo()\n+    x = bar()", "/repo/web/src/app.py"))


def test_a_change_the_rule_did_not_attribute_to_the_file_forgets_what_its_patches_looked_for() -> None:
    one = _body("@@ def f():\n-    total = 0\n+    total = 1")
    _wall(entry := agent(), one, ["    total = 0"])
    assert _denied(entry, one)
    both = (
        "*** Begin Patch\n*** Update File: src/other.py\n@@\n-a\n+b\n"
        "*** Update File: src/app.py\n@@ def f():\n-    total = None\n+    total = 0\n*** End Patch"
    )
    applied = "Success. Updated the following files:\nM x"
    rule.on_result(result_ctx("apply_patch", {"command": both}, applied, entry=entry))  # type: ignore[arg-type]
    assert not _denied(entry, one)  # the second file of a patch that applied
    _wall(entry := agent(), one, ["    total = 0"])
    rule.on_result(result_ctx("Bash", {"command": "git checkout ."}, {"stdout": ""}, entry=entry))  # type: ignore[arg-type]
    assert not _denied(entry, one)  # the tree put back


def test_an_error_nested_past_the_json_parser_depth_is_no_crash() -> None:
    assert rule.missing_lines("Failed to find expected lines " + "[" * 5000 + "]" * 5000 + " in /x") is None


def test_a_patch_that_failed_twice_as_it_is_is_denied_read_or_not() -> None:
    """apply_patch is deterministic: the file has not changed since, so the same patch fails the
    same way, a read between or not. An edit tool's identical retry is not judged so."""
    entry = agent()
    text = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    return total\n+    return total + 1\n*** End Patch"
    patch = {"command": text}
    fail = result_ctx("apply_patch", patch, "", entry=entry, outcome=FAILED)
    resend = call_ctx("apply_patch", patch, entry=entry)
    rule.on_result(fail)  # type: ignore[arg-type]
    assert rule.on_call(resend) is None  # one resend of a patch that just failed goes ahead  # type: ignore[arg-type]
    rule.on_result(result_ctx("Bash", {"command": "cat src/app.py"}, {"stdout": "x"}, entry=entry))  # type: ignore[arg-type]
    rule.on_result(fail)  # type: ignore[arg-type]
    verdict = rule.on_call(resend)  # type: ignore[arg-type]
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)
    assert "this very patch has failed 2 times" in verdict.message
    other = {"command": patch["command"].replace("+    return total + 1", "+    return total + 2")}
    assert rule.on_call(call_ctx("apply_patch", other, entry=entry)) is None  # a new hunk goes ahead  # type: ignore[arg-type]
    rule.on_result(result_ctx("Bash", {"command": "git stash"}, {"stdout": "Saved"}, entry=entry))  # type: ignore[arg-type]
    assert rule.on_call(resend) is None  # the tree was put back: the file may be another now  # type: ignore[arg-type]
    edits = agent()
    for _ in range(3):
        rule.on_result(result_ctx("Edit", EDIT, "", entry=edits, outcome=FAILED))  # type: ignore[arg-type]
    assert _patch(edits) is None  # an edit tool's retry: Claude Code's Edit has applied so after a Read


def _misfit_call(entry: dict, patch: dict, misfit: str | None) -> object:  # type: ignore[type-arg]
    """The rule's verdict on `patch` at its PreToolUse, the host layer having found (`misfit`) a
    hunk the file does not hold, or (None) every hunk."""
    ctx = call_ctx("apply_patch", patch, entry=entry)
    return rule.on_call(ctx._replace(event=ctx.event._replace(misfit=misfit)))  # type: ignore[arg-type]


def _read(entry: dict) -> None:  # type: ignore[type-arg]
    rule.on_result(result_ctx("Bash", {"command": "sed -n '1,80p' src/app.py"}, {"stdout": "x"}, entry=entry))  # type: ignore[arg-type]


def test_a_patch_the_file_cannot_take_is_counted_at_its_pre_tool_use_and_the_third_is_denied() -> None:
    """Codex 0.171.0 sends no PostToolUse for a patch apply_patch refuses for not fitting: the
    rule counts it when it lets it go, and denies the third, reads or not."""
    entry = agent()
    for old in ("total = 0", "total = sum(xs)"):
        assert _misfit_call(entry, _codex_patch("", [f"    {old}"], ["x"]), old) is None  # one or two: ordinary
        _read(entry)
    third = _codex_patch("", ["    total = sum(x for x in xs)"], ["x"])
    verdict = _misfit_call(entry, third, "total = sum(x for x in xs)")
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)  # type: ignore[attr-defined]
    assert "its hunk does not match src/app.py as it is now" in verdict.message  # type: ignore[attr-defined]
    assert "its lines from `total = sum(x for x in xs)` on are not in the file" in verdict.message  # type: ignore[attr-defined]
    assert "the last 2 patches of it did not fit" in verdict.message and "nl -ba src/app.py" in verdict.message  # type: ignore[attr-defined]
    assert "failed with" not in verdict.message  # no result came: no error of its own to quote  # type: ignore[attr-defined]
    assert "will not apply" in verdict.advice and verdict.times == 2  # the text's count  # type: ignore[attr-defined]
    assert _misfit_call(entry, third, None) is None  # a patch whose hunks the file holds goes ahead


def test_a_result_of_a_patch_counted_at_its_pre_tool_use_is_not_counted_again() -> None:
    entry = agent()
    old = ["    total = 0"]
    for _ in range(2):  # a replay, or a release that sends the PostToolUse: one failure each
        ctx = call_ctx("apply_patch", _codex_patch("", old, ["x"]), entry=entry)
        assert rule.on_call(ctx._replace(event=ctx.event._replace(misfit="total = 0"))) is None  # type: ignore[arg-type]
        assert ctx.call.get("misfit") is True
        result = result_ctx("apply_patch", _codex_patch("", old, ["x"]), "", entry=entry, outcome=_not_found(old))
        rule.on_result(result._replace(call=ctx.call))  # type: ignore[arg-type]
    (counts,) = entry["rules"]["target"].values()  # type: ignore[typeddict-item]
    assert (counts[0], counts[7], counts[6].rsplit(":", 1)[1]) == (2, 2, "2")


def test_only_patches_that_did_not_fit_count_toward_a_misfit_denial() -> None:
    entry = agent()
    gone = Outcome("g", Failure.HARD, "Failed to read file to update /w/src/app.py: No such file or directory")
    for _ in range(3):  # another path that is not there, a refused write: not the file's text
        rule.on_result(result_ctx("apply_patch", _codex_patch("", ["a"], ["b"]), "", entry=entry, outcome=gone))  # type: ignore[arg-type]
        _read(entry)
    assert _misfit_call(entry, _codex_patch("", ["c"], ["d"]), None) is None
    rule.on_result(result_ctx("apply_patch", _codex_patch("", ["e"], ["f"]), "", entry=entry, outcome=_not_found(["e"])))  # type: ignore[arg-type]
    _read(entry)
    assert _misfit_call(entry, _codex_patch("", ["c"], ["d"]), "c") is None  # one that did not fit, and this one
    _read(entry)
    assert _misfit_call(entry, _codex_patch("", ["g"], ["h"]), "g") is not None
    # A change that applies ends the wall: the count starts again.
    rule.on_result(result_ctx("apply_patch", _codex_patch("", ["c"], ["d"]), "Success.", entry=entry))  # type: ignore[arg-type]
    assert _misfit_call(entry, _codex_patch("", ["i"], ["j"]), "i") is None


def test_a_misfit_count_in_an_older_ledger_entry_is_read_as_none() -> None:
    entry = agent()
    # an entry written before the count existed
    entry.setdefault("rules", {})["target"] = {"src/app.py": [5, True, 1.0, "err", False, "2:"]}
    assert _misfit_call(entry, _codex_patch("", ["c"], ["d"]), "c") is None


def test_a_search_between_the_patches_keeps_their_count_and_a_command_that_may_change_the_file_ends_it() -> None:
    """A search whose quoted pattern holds a `|` only reads (new-user report: it used to end the
    count); a command that may change the file unseen (a formatter, a test run) ends it."""
    entry = agent()
    for old in ("total = 0", "total = sum(xs)"):
        assert _misfit_call(entry, _codex_patch("", [f"    {old}"], ["x"]), old) is None
        rule.on_result(result_ctx("Bash", {"command": 'rg -n "total|sum" src/app.py'}, {"stdout": "3: x"}, entry=entry))  # type: ignore[arg-type]
    assert _misfit_call(entry, _codex_patch("", ["    total = 1"], ["x"]), "total = 1") is not None
    rule.on_result(result_ctx("Bash", {"command": "npx prettier --write src"}, {"stdout": "ok"}, entry=entry))  # type: ignore[arg-type]
    assert _misfit_call(entry, _codex_patch("", ["    total = 2"], ["x"]), "total = 2") is None


def test_the_denial_names_the_file_as_the_patch_does() -> None:
    entry = agent()
    def patch(n: int) -> dict[str, str]:
        return {"command": f"*** Begin Patch\n*** Update File: src/pkg/core/calc.py\n@@\n-    x = {n}\n+    x = 0\n*** End Patch"}

    for n in range(2):
        assert rule.on_call(_with_misfit(call_ctx("apply_patch", patch(n), entry=entry), f"x = {n}")) is None  # type: ignore[arg-type]
    verdict = rule.on_call(_with_misfit(call_ctx("apply_patch", patch(2), entry=entry), "x = 2"))  # type: ignore[arg-type]
    assert verdict is not None and "nl -ba src/pkg/core/calc.py |" in verdict.message  # type: ignore[attr-defined]


def _with_misfit(ctx: object, misfit: str) -> object:
    return ctx._replace(event=ctx.event._replace(misfit=misfit))  # type: ignore[attr-defined]


def test_a_formatter_run_through_a_variable_or_a_quoted_path_lifts_the_resend_denial() -> None:
    """A POSIX shell runs `$HOME/.cargo/bin/cargo fmt` and `"$VENV/bin/python" -m black .`: the
    file may hold the patch's lines now, so the patch that failed twice as it is goes ahead (read
    as PowerShell expressions, they used to be taken for reads and the resend stayed denied)."""
    text = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    return total\n+    return total + 1\n*** End Patch"
    for formatter in ("$HOME/.local/bin/ruff format src", '"$VENV/bin/python" -m black .'):
        entry = agent()
        for _ in range(2):
            rule.on_result(result_ctx("apply_patch", {"command": text}, "", entry=entry, outcome=FAILED))  # type: ignore[arg-type]
        assert rule.on_call(call_ctx("apply_patch", {"command": text}, entry=entry)) is not None  # type: ignore[arg-type]
        rule.on_result(result_ctx("exec_command", {"cmd": formatter}, "1 file reformatted", entry=entry))  # type: ignore[arg-type]
        assert rule.on_call(call_ctx("apply_patch", {"command": text}, entry=entry)) is None, formatter  # type: ignore[arg-type]


def test_a_shell_sent_patch_that_did_not_fit_in_one_workdir_goes_ahead_where_it_fits() -> None:
    """Codex drops a shell call's `workdir` from the hook payload: the same `apply_patch <<'EOF'`
    of src/lib.rs sent in crates/a (whose src/lib.rs lacks its lines) and then in crates/b is one
    call to the rule. The host layer judges each in its own folder (`HookEvent.misfit`), so the
    one that fits goes ahead: only a patch that does not fit where it runs is denied."""
    line = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-    a();\n+    b();\n*** End Patch\nEOF\n"
    entry = agent()
    for _ in range(2):  # in crates/a: refused by apply_patch, no PostToolUse (Codex 0.171.0)
        assert rule.on_call(_with_misfit(call_ctx("Bash", {"command": line}, entry=entry), "a();")) is None  # type: ignore[arg-type]
    assert rule.on_call(call_ctx("Bash", {"command": line}, entry=entry)) is None  # type: ignore[arg-type]  # in crates/b: it fits
    verdict = rule.on_call(_with_misfit(call_ctx("Bash", {"command": line}, entry=entry), "a();"))  # type: ignore[arg-type]
    assert verdict is not None and "its hunk does not match src/lib.rs as it is now" in verdict.message  # type: ignore[attr-defined]
    # a patch whose folder the payload tells (apply_patch's own) is denied when resent as it is
    patch = {"command": line.split("\n", 1)[1].rsplit("EOF", 1)[0]}
    entry = agent()
    for _ in range(2):
        assert rule.on_call(_with_misfit(call_ctx("apply_patch", patch, entry=entry), "a();")) is None  # type: ignore[arg-type]
    assert rule.on_call(call_ctx("apply_patch", patch, entry=entry)) is not None  # type: ignore[arg-type]


STALE = Outcome("f", Failure.HARD, "File has been unexpectedly modified. Read it again before attempting to write it.")


def _stale_edit(entry: dict, path: str) -> None:  # type: ignore[type-arg]
    rule.on_result(result_ctx("Edit", {**EDIT, "file_path": path}, "", entry=entry, outcome=STALE))  # type: ignore[arg-type]
    rule.on_result(result_ctx("Read", {"file_path": path}, {"file": {"content": "x"}}, entry=entry))  # type: ignore[arg-type]


def test_only_edits_spelled_with_forward_slashes_count_toward_the_windows_spelling_denial() -> None:
    """Two Edits of `C:/repo/src/app.py` refused 'unexpectedly modified', a Read after each: the
    third with that spelling is denied, one spelled `C:\\repo\\src\\app.py` goes ahead. Refusals
    of the backslash spelling (another cause: a real writer, Windows access times) count for
    nothing: a forward-slash edit after them is not told the spelling is the fault."""
    slashed, back = "C:/repo/src/app.py", "C:\\repo\\src\\app.py"
    entry = agent()
    _stale_edit(entry, slashed)
    assert rule.on_call(call_ctx("Edit", {**EDIT, "file_path": slashed}, entry=entry)) is None  # type: ignore[arg-type]
    _stale_edit(entry, slashed)
    verdict = rule.on_call(call_ctx("Edit", {**EDIT, "file_path": slashed}, entry=entry))  # type: ignore[arg-type]
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)  # type: ignore[attr-defined]
    assert back in verdict.message  # type: ignore[attr-defined]
    assert rule.on_call(call_ctx("Edit", {**EDIT, "file_path": back}, entry=entry)) is None  # type: ignore[arg-type]
    other = agent()
    _stale_edit(other, back)
    _stale_edit(other, back)
    assert rule.on_call(call_ctx("Edit", {**EDIT, "file_path": slashed}, entry=other)) is None  # type: ignore[arg-type]


def test_a_parser_report_is_looked_for_in_linear_time() -> None:
    """An output of 12 KB made of Python SyntaxError headers (`File "<stdin>", line 1`) and blank
    lines, none followed by the error itself: before, the search tried a window of 8 KB at each
    header with `\\s*` at each line start of it, over a minute of CPU (the hook's deadline of 8 s
    answered, while the resident worker went on for the minute). Now each header looks at the
    next few lines only."""
    import re
    import time

    text = ('File "<stdin>", line 1\n' * 100 + "\n" * 12_288)[: rule.UNPARSED_CHARS]
    started = time.perf_counter()
    assert re.search(rule._UNPARSED, text) is None
    assert time.perf_counter() - started < 0.5
    entry = agent()
    _fail(entry, 1)
    script = {"command": "python3 - <<'PY'\nimport pathlib\np = pathlib.Path('src/app.py')\np.write_text('x')\nPY"}
    started = time.perf_counter()
    rule.on_result(result_ctx("Bash", script, "", entry=entry, outcome=Outcome("f", Failure.HARD, text)))  # type: ignore[arg-type]
    assert time.perf_counter() - started < 0.5


def test_python_reports_its_own_syntax_error_in_any_line_ending_and_a_long_line() -> None:
    """What the pattern must still find: Python's report of a script sent on stdin or with `-c`,
    with the line it stopped at quoted (a long one too) and its caret, in `\\n` or `\\r\\n` (Python
    on Windows); not a SyntaxError of a module the script imports (a traceback through it)."""
    import re

    own = '  File "<stdin>", line 5\n    new = \'' + "x" * 5000 + "\n          ^\nSyntaxError: unterminated string literal\n"
    for text in (own, own.replace("\n", "\r\n"), '  File "<string>", line 1\nIndentationError: unexpected indent\n'):
        assert re.search(rule._UNPARSED, text[: rule.UNPARSED_CHARS]) is not None, text[:60]
    imported = ('Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
                '  File "/repo/src/app.py", line 3\n    x = (\n        ^\nSyntaxError: \'(\' was never closed\n')
    assert re.search(rule._UNPARSED, imported) is None


def test_an_edit_whose_quoted_lines_hold_a_parser_message_still_counts() -> None:
    """An edit tool's or apply_patch's failure quotes the lines the file lacks; lines that hold a
    parser's words (a shell linter's test asserting bash's message) do not make it a failure of
    the attempt's own text: the wall is counted and denied as any other (before, the four failed
    edits counted none, and the fifth went ahead)."""
    entry = agent()
    for i in range(4):
        edit = {**EDIT, "old_string": f"assert 'syntax error near unexpected token' in err[{i}]"}
        failed = Outcome("f", Failure.HARD, f"Failed to find expected lines in src/app.py:\n{edit['old_string']}")
        rule.on_result(result_ctx("Edit", edit, "", entry=entry, outcome=failed))  # type: ignore[arg-type]
    verdict = _patch(entry)
    assert verdict is not None and (verdict.action, verdict.rule) == (Action.DENY, Rule.TARGET)  # type: ignore[attr-defined]
    # a script that Python's parser refused still does not count
    entry = agent()
    _fail(entry, 3)
    script = {"command": "python3 - <<'PY'\nfrom pathlib import Path\nPath('src/app.py').write_text('x'\nPY"}
    refused = Outcome("f", Failure.HARD, "  File \"<stdin>\", line 2\n    Path('src/app.py').write_text('x'\n"
                      "                                ^\nSyntaxError: '(' was never closed\n")
    rule.on_result(result_ctx("Bash", script, "", entry=entry, outcome=refused))  # type: ignore[arg-type]
    assert _patch(entry) is None


def test_a_unified_diff_of_one_file_applied_through_the_shell_is_a_patch_of_it() -> None:
    """`git apply <<'EOF'` or `patch -p1 <<'EOF'` of one file works on that file as a patch does
    (its failures counted whatever the error says); a diff of two files, or read from a file, is
    none of one file's (hostile review rv65: such a wall was taken for reads and went on)."""
    one = "git apply <<'EOF'\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x\n+y\nEOF"
    assert rule._attempt("Bash", {"command": one}, Config(), {}) == ("src/app.py", "patch")
    assert rule._attempt("Bash", {"command": one.replace("git apply", "cd repo && patch -p1")}, Config(), {}) == (
        "src/app.py", "patch")
    two = "git apply <<'EOF'\n+++ b/src/app.py\n@@\n+++ b/src/b.py\n@@\nEOF"
    assert rule._attempt("Bash", {"command": two}, Config(), {})[1] != "patch"
    assert rule._attempt("Bash", {"command": "git apply /tmp/fix.patch"}, Config(), {}) == (None, "")


def test_patches_the_sandbox_rejected_are_no_failures_to_fit_the_file() -> None:
    """Codex's "patch rejected: writing is blocked by read-only sandbox" says nothing of the
    file's text: no read mends it, so such rejections are not counted
    (the every-call rule judges the sandbox's); four patches that did not fit still are."""
    hunk = "@@\n-    return total\n+    return total + 1\n"
    patch = {"command": f"*** Begin Patch\n*** Update File: src/app.py\n{hunk}*** End Patch\n"}
    call = call_ctx("apply_patch", patch)
    for text in ("patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings",):
        entry = agent()
        for n in range(4):
            reworded = {"command": patch["command"].replace("+ 1", f"+ {n + 1}")}
            rejected = Outcome("f", Failure.SOFT, text)
            rule.on_result(result_ctx("apply_patch", reworded, text, entry=entry, outcome=rejected))  # type: ignore[arg-type]
        assert rule.on_call(call._replace(agent=entry)) is None, text  # type: ignore[arg-type]
    entry = agent()
    for n in range(4):
        reworded = {"command": patch["command"].replace("+ 1", f"+ {n + 1}")}
        misfit = Outcome("f", Failure.SOFT, "Failed to find expected lines in src/app.py:\n    return total")
        rule.on_result(result_ctx("apply_patch", reworded, misfit.text, entry=entry, outcome=misfit))  # type: ignore[arg-type]
    denied = rule.on_call(call._replace(agent=entry))  # type: ignore[arg-type]
    assert denied is not None and denied.rule is Rule.TARGET


def test_the_denial_names_the_file_as_the_call_does() -> None:
    """A new user's Gemini CLI and Qwen Code sessions, run in `/x/work` with `calc.py` at its top,
    were told to read `work/calc.py` first: the rule's key (a file's last two components), a path
    that does not exist from there. The texts name the file as the call does: a tool's path, a
    patch's `*** Update File:` path, a word of a shell command; the key only when none is it."""
    for tool, given, shown in [
        ("replace", {"file_path": "/x/work/calc.py", "old_string": "a", "new_string": "b"}, "/x/work/calc.py"),
        ("edit", {"file_path": "work/calc.py", "old_string": "a", "new_string": "b"}, "work/calc.py"),
        ("Bash", {"command": "sed -i 's/a/b/' ./calc.py"}, "./calc.py"),
    ]:
        entry = agent()
        for n in range(4):
            failed = {"file_path": "/x/work/calc.py", "old_string": f"a{n}", "new_string": "b"}
            rule.on_result(result_ctx("edit", failed, "", entry=entry, outcome=FAILED))  # type: ignore[arg-type]
        verdict = rule.on_call(call_ctx(tool, given, entry=entry))  # type: ignore[arg-type]
        assert verdict is not None and f"Read {shown} first" in verdict.message, (tool, verdict)  # type: ignore[attr-defined]


def test_the_denial_names_the_key_where_the_call_names_the_file_no_single_usable_way() -> None:
    """A shell command naming the file two ways (another tree's copy of the same name, a comment
    in a here-document), an option's `--file=` value, a trailing colon, a path too long to quote
    whole: the texts use the one spelling the call has, and the key where there is none (rv72:
    'Read --file=src/calc.py first', 'Read /tmp/other/src/calc.py first', a cut path)."""
    long_dir = "/x/" + "d" * 200
    for tool, given, shown in [
        (
            "Bash",
            {"command": "python3 tools/fix.py --file=/w/src/calc.py && sed -i 's/a/b/' /w/src/calc.py"},
            "Read /w/src/calc.py first",
        ),
        ("Bash", {"command": "sed -i 's/a/b/' /tmp/other/src/calc.py src/calc.py"}, "Read src/calc.py first"),
        ("Bash", {"command": "sed -i 's/a/b/' src/calc.py:"}, "Read src/calc.py first"),
        ("Edit", {"file_path": f"{long_dir}/src/calc.py", "old_string": "a", "new_string": "b"}, "Read src/calc.py first"),
    ]:
        entry = agent()
        for n in range(4):
            # failures of the file the call names (another file of the key is not judged by them)
            failed = {"file_path": given.get("file_path", "/w/src/calc.py"), "old_string": f"a{n}", "new_string": "b"}
            rule.on_result(result_ctx("Edit", failed, "", entry=entry, outcome=FAILED))  # type: ignore[arg-type]
        verdict = rule.on_call(call_ctx(tool, given, entry=entry))  # type: ignore[arg-type]
        assert verdict is not None and shown in verdict.message, (given, verdict)  # type: ignore[attr-defined]


def test_a_key_shown_for_a_long_path_is_redacted() -> None:
    """A path too long to quote whole gives its key, and a secret in the key's folder is masked
    as in any quote (rv73: the key once went out as it was)."""
    secret = "ghp_" + "Zq8v" * 9
    path = "/x/" + "d" * 200 + f"/{secret}/calc.py"
    entry = agent()
    for n in range(4):
        failed = {"file_path": path, "old_string": f"a{n}", "new_string": "b"}
        rule.on_result(result_ctx("Edit", failed, "", entry=entry, outcome=FAILED))  # type: ignore[arg-type]
    verdict = rule.on_call(call_ctx("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, entry=entry))  # type: ignore[arg-type]
    assert verdict is not None and secret not in verdict.message and "[REDACTED]/calc.py" in verdict.message  # type: ignore[attr-defined]


def test_a_denials_count_is_the_failures_its_text_names() -> None:
    """The count the log and replay show (`x2`) is the failures the denial's text names, as a
    wall's count is: before, the resend denial gave the file's failures of any patch (4 beside
    `this very patch has failed 2 times`), and the misfit and Windows-spelling denials one more
    than their text's (3 beside `the last 2 patches of it did not fit`)."""
    entry = agent()
    _fail(entry, 4)
    verdict = _patch(entry)
    assert verdict is not None and "the last 4 attempts" in verdict.message and verdict.times == 4  # type: ignore[attr-defined]
    entry = agent()
    other = _codex_patch("", ["    total = 0"], ["    total = 1"])
    again = _codex_patch("", ["    return total"], ["    return total + 1"])
    _wall(entry, other, ["    total = 0"])  # two failures of another patch of the file first
    _wall(entry, again, ["    return total"])
    verdict = rule.on_call(call_ctx("apply_patch", again, entry=entry))  # type: ignore[arg-type]
    assert verdict is not None and "this very patch has failed 2 times" in verdict.message  # type: ignore[attr-defined]
    assert verdict.times == 2  # type: ignore[attr-defined]
    entry = agent()
    slashed = "C:/repo/src/app.py"
    _stale_edit(entry, slashed)
    _stale_edit(entry, slashed)
    verdict = rule.on_call(call_ctx("Edit", {**EDIT, "file_path": slashed}, entry=entry))  # type: ignore[arg-type]
    assert verdict is not None and "the last 2 edits of it failed" in verdict.message and verdict.times == 2  # type: ignore[attr-defined]


def test_a_subagent_calls_result_forgets_the_failures_made_while_it_ran() -> None:
    """Where the host sends no `agent_id`, a subagent's failed edits reach the hook as the main
    agent's: once the subagent is back, the main agent's edit of the file goes ahead. Failures
    from before the subagent call are the agent's own and stay."""
    entry = agent()
    done = {"status": "completed", "content": [{"type": "text", "text": "the edits did not match"}]}
    _fail(entry, 4)  # at the default call time, 100
    assert _patch(entry) is not None
    # a subagent call issued after them: they stay
    rule.on_result(result_ctx("Task", {"description": "d", "prompt": "p"}, done, entry=entry, now=101.0))  # type: ignore[arg-type]
    assert _patch(entry) is not None
    # one issued before them (its subagent made them): they go
    rule.on_result(result_ctx("Task", {"description": "d", "prompt": "p"}, done, entry=entry, now=99.0))  # type: ignore[arg-type]
    assert _patch(entry) is None
