"""What the workspace shows of the files a call names to change (`hosts/workspace.py`), on real
files: the digest stays when a call changed nothing (whatever it printed, also when it wrote
the same bytes back) and moves when it changed a file; nothing is created, and a FIFO, a big
file or a folder the command moves to cannot make the hook hang or judge wrongly."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from loopguard_hook.config.settings import Config
from loopguard_hook.core.event import Client, HookEvent
from loopguard_hook.core.tools import WORKSPACE_BY_TIME, change_paths, edits_only
from loopguard_hook.hosts import rollout as rollout_mod
from loopguard_hook.hosts import workspace

CONFIG = Config()


def _event(tool: str, tool_input: dict[str, object], cwd: Path | str | None, name: str = "PreToolUse") -> HookEvent:
    return HookEvent(name, Client.CLAUDE_CODE, "s1", cwd=None if cwd is None else str(cwd), tool_name=tool,
                     tool_input=tool_input)


def _sed(tmp_path: Path, command: str) -> str | None:
    return workspace.snapshot(_event("Bash", {"command": command}, tmp_path), CONFIG)


def test_the_digest_stays_when_nothing_changed_and_moves_when_a_file_did(tmp_path: Path) -> None:
    (tmp_path / "config.py").write_text("RETRIES = 3\n")
    command = "sed -i 's/RETRIES = 3/RETRIES = 5/' config.py"
    before = _sed(tmp_path, command)
    assert before is not None and len(before) == 32
    assert _sed(tmp_path, command) == before
    (tmp_path / "config.py").write_text("RETRIES = 3\n")  # the same bytes written again: a new mtime
    assert _sed(tmp_path, command) == before
    (tmp_path / "config.py").write_text("RETRIES = 5\n")
    assert _sed(tmp_path, command) != before


def test_a_file_past_the_content_limit_is_judged_by_size_and_mtime(tmp_path: Path) -> None:
    big = tmp_path / "data.json"
    big.write_bytes(b"x" * (workspace.CONTENT_BYTES + 1))
    os.utime(big, ns=(1_000_000_000, 1_000_000_000))
    edit = {"file_path": str(big), "old_string": "x", "new_string": "y"}
    before = workspace.snapshot(_event("Edit", edit, tmp_path), CONFIG)
    os.utime(big, ns=(2_000_000_000, 2_000_000_000))
    assert workspace.snapshot(_event("Edit", edit, tmp_path, "PostToolUse"), CONFIG) != before
    # Such a state is marked: a rewrite of the same bytes moves it, so it is no evidence of an edit.
    assert before is not None and before.startswith(WORKSPACE_BY_TIME) and len(before) == 33
    small = _sed(tmp_path, "sed -i 's/a/b/' config.py") if (tmp_path / "config.py").write_text("a\n") else None
    assert small is not None and not small.startswith(WORKSPACE_BY_TIME)


@pytest.mark.parametrize(
    ("command", "only"),
    [
        ("sed -i 's/A=1/A=2/' src/a.py", True),
        ("sed -i 's/a/b/' a.py && perl -pi -e 's/c/d/' b.py", True),
        ("sed -i 's/a/b/' a.py && pytest -q > test.log", False),
        ("sed -i 's/RATE = 1/RATE = 2/' app/rate.py && git diff --stat", True),
        ("cd app && sed -i 's/a/b/' a.py && grep -n b a.py", True),
        ("sed -i 's/a/b/' a.py; echo done > status.txt", True),
        ("echo 'LIMIT = 8' > config.py", True),
        ("cat > app.py <<'EOF'\nimport os\nprint(os.sep)\nEOF", True),
        ("pytest -q > test.log", False),
        ("echo start > marker && make test", False),
        ("python3 -c \"open('c.py','w').write('x')\"", True),
        ("grep -n x a.py", False),
        ("(Get-Content app.py) -replace 'a','b' | Set-Content app.py", True),
        ("'LIMIT = 3' | Out-File config.py", True),
        ("python -m pytest -q | Out-File test.log", False),
        # What a hostile review of 2b946e3 found: operators inside a sed script are its text, a
        # redirect into a descriptor writes no file, and a program may hide behind a writer.
        ("sed -i 's/if n > LIMIT/if n >= LIMIT/' app.py", True),
        ("sed -i '/^#/d;/^$/d' app.conf", True),
        ("sed -i 's/x && y/x and y/' app.py 2>&1", True),
        ("echo 'LIMIT = 3' | tee config.py", True),
        ("cat > notes.md <<'EOF'\nretrying\nEOF\npytest -q > test.log 2>&1; tail -2 test.log", False),
        ("echo \"$(pytest -q | tail -2)\" > test.log; tail -2 test.log", False),
        ("printf 'y\\n' | ./run_tests.sh > test.log", False),
        ("$(python -m pytest -q) | Out-File test.log", False),
        ("python3 fix.py", False),
        ("sed 's/a/b/' a.py > b.py", False),
        # Edits a hunt for false denials found made otherwise: an inline script that writes files
        # and runs nothing, a filter's output moved onto its input, a backup removed, a formatter.
        ("python - <<'PY'\nfrom pathlib import Path\np = Path('a.py')\np.write_text(p.read_text().replace('a', 'b'))\nPY", True),
        ("node -e \"const fs = require('fs'); fs.writeFileSync('a.js', 'x')\"", True),
        ("cat > notes.md <<'EOF'\nx\nEOF\npython3 - <<'PY'\nopen('a.py', 'w').write('x')\nPY", True),
        ("jq '.limit = 3' app.json > tmp.json && mv tmp.json app.json", True),
        ("awk '{print $2}' a.csv > /tmp/x && mv /tmp/x a.csv", True),
        ("sed -i.bak 's/a/b/' a.py && rm a.py.bak", True),
        ("sed -i 's/a/b/' a.go && gofmt -w a.go", True),
        ("sed -i 's/a/b/' a.py && ruff format a.py", True),
        ("python3 - <<'PY' 2>&1 | tail -5\nopen('a.py', 'w').write('x')\nprint('ok')\nPY", True),
        ("cat <<'EOF' | python3\nopen('a.py', 'w').write('x')\nEOF", True),
        (".venv/bin/python - a.py <<'PY'\nimport sys\nopen(sys.argv[1], 'w').write('x')\nPY", True),
        ("python3 -c \"open('a.json', 'w').write('{}')\" && grep -c 'limit' a.json", True),
        ("python3 - <<'PY'\nfrom pathlib import Path\nPath('t.py').write_text('@pytest.mark.slow\\nmodel.eval()\\n')\nPY", True),
        # A script's text is no program: backticks and addresses in what it writes (a README).
        ("python3 - <<'PY'\nfrom pathlib import Path\nPath('README.md').write_text('Run `make` at http://localhost')\nPY", True),
        # ... and what stays more than an edit: a script that runs a program, a test or the
        # project's code, or writes nothing; a program's output moved elsewhere.
        ("python3 -c \"import subprocess; open('c.py','w').write(subprocess.check_output(['pytest']))\"", False),
        ("python3 - <<'PY'\nimport app\nopen('a.py', 'w').write(app.render())\nPY", False),
        ("python3 - <<'PY'\nimport pytest\nopen('r.txt', 'w').write(str(pytest.main(['-q'])))\nPY", False),
        ("node -e \"require('child_process').execSync('npm test > out.txt')\"", False),
        ("python3 - <<'PY'\nprint(open('a.py').read())\nPY", False),
        ("python3 - <<'PY'\nimport re, app as a  # noqa\nopen('a.py', 'w').write(a.x)\nPY", False),
        ("python3 -c \"from pathlib import Path; import app; Path('a.py').write_text(app.x)\"", False),
        ("python3 - <<'PY'\nfrom . import app\nopen('a.py', 'w').write(app.x)\nPY", False),
        ("python3 - <<'PY'\nprint(open('a.py').read().replace('a', 'b'))\nPY", False),
        ("python3 - <<'PY'\nimport urllib.request\nopen('a.json', 'w').write(urllib.request.urlopen('http://x').read())\nPY",
         False),
        ("node -e \"fetch('http://x').then(r => r.text()).then(t => require('fs').writeFileSync('a.json', t))\"", False),
        ("python3 -m pytest -q > out.txt && mv out.txt last.txt", False),
        ("rm -rf build && make", False),
        # A background job is a command of its own (what a hostile review of dc8618a found).
        ("python -m pytest -q & cp a.py.bak a.py", False),
        ("python3 -c \"open('a.py', 'w').write('x')\" & python -m pytest -q", False),
        ("node -e \"const {execSync} = require('child_process'); require('fs').writeFileSync('a.js', execSync('x'))\"", False),
        ("node -e \"import('./build.js').then(m => require('fs').writeFileSync('a.js', m.x))\"", False),
        ("python3 - <<'PY'\nimport re\nimport app\nopen('a.py', 'w').write(app.x)\nPY", False),
        # Git putting named files back is an edit of them; a switch of branch, or a test after the
        # undo, is more than one.
        ("git checkout -- src/m1.py", True),
        ("git checkout HEAD~1 -- a.py b.py && git diff --stat", True),
        ("git restore --source=HEAD a.py", True),
        ("git checkout main", False),
        ("git checkout -b fix", False),
        ("git checkout -- a.py && pytest -q", False),
        ("git restore a.py > restore.log", False),
        ("git stash", False),
        # An in-place edit run by another program on the files it finds or is given, or by a
        # loop (what a hostile review of 9dd8eab found denied in edit→test cycles).
        ("for f in calc.py; do sed -i 's/V = 1/V = 2/' \"$f\"; done", True),
        ("for f in src/*.py; do\n  perl -pi -e 's/a/b/' \"$f\"\ndone", True),
        ("find . -name calc.py -exec sed -i 's/a/b/' {} +", True),
        ("find src -name '*.py' -exec sed -i 's/a/b/' {} \\;", True),
        ("ls calc.py | xargs sed -i 's/a/b/'", True),
        ("grep -rl foo src | xargs -r perl -pi -e 's/foo/bar/'", True),
        ("perl -I lib -pi -e 's/a/b/' lib/App/A.pm", True),  # -I's folder as the next word
        ("git apply <<'EOF'\ndiff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a\n+b\nEOF", True),
        ("git checkout -- src/a.py && patch -p1 < /tmp/fix.diff", True),
        ("git apply /tmp/fix.patch && npm test", False),
        ("git apply --check /tmp/fix.patch && pytest -q", False),
        ("perl -I lib t/config.t", False),
        ("perl -Ilib -MTest::More t/config.t", False),
        ("find . -name '*.py' -exec sed -i 's/a/b/' {} + && pytest -q", False),
        ("find . -name x.py -exec sed -i 's/a/b/' {} + > out.txt", False),
        ("curl -s http://x/list | xargs sed -i 's/a/b/'", False),
        ("ls | xargs rm", False),
        ("for f in a.py; do python $f; done", False),
        ("for f in $PWD/src/a.py; do sed -i 's/a/b/' \"$f\"; done", True),
        ("sed -i 's/a/b/' \"$(pwd)\"/src/a.py", True),  # pwd only names the cwd
        ("sed -i 's/a/b/' \"$(git rev-parse --show-toplevel)\"/src/a.py", False),
    ],
)
def test_which_lines_only_edit_and_read(command: str, only: bool) -> None:
    """A line of nothing but edits (in place, or text written into a file) and reads names only
    the files it edits; one that also runs a test names its log, which changes whatever the edit
    did; one that only reads edits nothing."""
    assert edits_only("Bash", {"command": command}) is only


def test_names_that_are_no_files_here_and_commands_run_elsewhere_say_nothing(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("a = 1\n")
    assert _sed(tmp_path, "echo hi > new.txt") is None  # created by the call: nothing to compare
    assert _sed(tmp_path, "cd sub && sed -i 's/a/b/' app.py") is None  # app.py of another folder
    assert _sed(tmp_path, "git -C other checkout -- app.py") is None
    assert _sed(None, "sed -i 's/a/b/' app.py") is None  # a relative path and no cwd
    assert _sed(tmp_path, "ls -la app.py") is None  # a command that writes nothing
    assert workspace.snapshot(_event("Read", {"file_path": str(tmp_path / "app.py")}, tmp_path), CONFIG) is None
    assert workspace.snapshot(_event("Bash", {"command": "sed -i 's/a/b/' app.py"}, tmp_path, "Stop"), CONFIG) is None


@pytest.mark.parametrize("folder", ["project", "My Project"])
def test_a_path_through_pwd_is_the_cwds(tmp_path: Path, folder: str) -> None:
    """`sed -i … "$PWD/calc.py"` (or `${PWD}`) names calc.py of the payload's `cwd`: its change
    moves the digest and a no-op leaves it (a hostile review found an edit→test cycle so spelt
    denied, and a first mend that credited every such edit let no-op fixes loop), also in a
    folder whose name holds a space. After a `cd` `$PWD` is another folder: nothing is said."""
    tmp_path = tmp_path / folder
    tmp_path.mkdir()
    (tmp_path / "calc.py").write_text("V = 1\n")
    for command in (
        "sed -i 's/V = 1/V = 2/' $PWD/calc.py", "sed -i 's/V = 1/V = 2/' \"${PWD}/calc.py\"",
        "sed -i 's/V = 1/V = 2/' \"$PWD\"/calc.py", "sed -i 's/V = 1/V = 2/' \"${PWD}\"/calc.py",
        "sed -i 's/V = 1/V = 2/' $(pwd)/calc.py", "sed -i 's/V = 1/V = 2/' \"$(pwd)\"/calc.py",
    ):
        before = _sed(tmp_path, command)
        assert before is not None and _sed(tmp_path, command) == before, command
        (tmp_path / "calc.py").write_text("V = 2\n")
        assert _sed(tmp_path, command) != before, command
        (tmp_path / "calc.py").write_text("V = 1\n")
    assert _sed(tmp_path, "cd sub && sed -i 's/V = 1/V = 2/' $PWD/calc.py") is None
    assert _sed(tmp_path, "sed -i 's/V = 1/V = 2/' $PWDX/calc.py") is None


def test_a_line_that_first_moves_to_a_folder_given_whole_is_read_from_there(tmp_path: Path) -> None:
    """`cd /abs/dir && sed -i … a.py` names `a.py` of that folder, at the call and at its result
    alike (Claude Code's result carries the folder the `cd` led to as its `cwd`, which a whole
    folder does not depend on); a `cd` up out of the `cwd`, a second move, `pushd` or `git -C`
    after it, or a folder spelt with a variable or quoted, say nothing."""
    sub = tmp_path / "internal" / "api"
    sub.mkdir(parents=True)
    (sub / "handler.go").write_text("const Limit = 10\n")
    command = f"cd {sub} && sed -i 's/Limit = 10/Limit = 11/' handler.go"
    before = _sed(tmp_path, command)
    assert before is not None
    assert workspace.snapshot(_event("Bash", {"command": command}, sub, "PostToolUse"), CONFIG) == before
    (sub / "handler.go").write_text("const Limit = 11\n")
    assert _sed(tmp_path, command) != before
    assert _sed(tmp_path, f"cd {sub}; sed -i 's/Limit = 11/Limit = 12/' handler.go") is not None
    for elsewhere in (
        "cd ../api && sed -i 's/a/b/' handler.go",
        "cd - && sed -i 's/a/b/' handler.go",
        f"cd {sub} && cd .. && sed -i 's/a/b/' api/handler.go",
        f"cd {sub} && git -C {tmp_path} checkout -- handler.go",
        f"cd {sub} && pushd /tmp && sed -i 's/a/b/' handler.go",
        "cd $APP && sed -i 's/a/b/' handler.go",
        f"cd '{sub}' && sed -i 's/a/b/' handler.go",
    ):
        assert _sed(tmp_path, elsewhere) is None, elsewhere


def test_a_line_that_first_moves_below_the_cwd_is_read_from_there_at_the_call_and_at_its_result(tmp_path: Path) -> None:
    """`cd internal/api && sed -i … handler.go` (and `cd tests && sed -i … ../src/x.py`) names the
    files of the folder the `cd` leads to: at the call from the payload's `cwd`; at the result
    from a `cwd` that is already there (Claude Code's `cwd` follows `cd`) or still the one it
    started in (Codex). A hostile review found edit→test cycles so spelt denied: the edits were
    never seen to change anything."""
    sub = tmp_path / "internal" / "api"
    sub.mkdir(parents=True)
    (sub / "handler.go").write_text("const Limit = 10\n")
    (tmp_path / "tests").mkdir()
    command = "cd internal/api && sed -i 's/Limit = 10/Limit = 11/' handler.go"
    before = _sed(tmp_path, command)
    assert before is not None
    for cwd in (sub, tmp_path):  # the result's cwd: where the cd led (Claude Code), or where it started (Codex)
        assert workspace.snapshot(_event("Bash", {"command": command}, cwd, "PostToolUse"), CONFIG) == before, cwd
    up = "cd tests && sed -i 's/Limit = 10/Limit = 11/' ../internal/api/handler.go"
    above = _sed(tmp_path, up)
    assert above is not None
    assert workspace.snapshot(_event("Bash", {"command": up}, tmp_path / "tests", "PostToolUse"), CONFIG) == above
    (sub / "handler.go").write_text("const Limit = 11\n")
    assert _sed(tmp_path, command) != before
    assert _sed(tmp_path, up) != above
    assert _sed(None, command) is None  # no cwd: the folder is not known


def test_a_pattern_the_shell_expands_names_the_files_it_matches(tmp_path: Path) -> None:
    """`sed -i … calc*.py` edits the files the pattern matches in the call's folder (a folder
    whose name holds a `[` is taken as it is): their change moves the digest; a quoted pattern
    (a sed script's `a*`), one inside a here-document, or one matching nothing names none."""
    folder = tmp_path / "we[ird]"
    folder.mkdir()
    for name in ("calc.py", "calc_util.py", "other.py"):
        (folder / name).write_text("a\n")
    command = "sed -i 's/a*/b/' calc*.py"
    assert change_paths("Bash", {"command": command}, CONFIG) == ("calc*.py",)
    assert change_paths("Bash", {"command": "python - <<'PY'\nx = a*b.py\nopen('c.py', 'w')\nPY"}, CONFIG) == ("c.py",)
    before = _sed(folder, command)
    assert before is not None and len(workspace.snapshot_files(_event("Bash", {"command": command}, folder), CONFIG)[1]) == 1
    (folder / "other.py").write_text("b\n")
    assert _sed(folder, command) == before  # not matched
    (folder / "calc_util.py").write_text("b\n")
    assert _sed(folder, command) != before
    assert _sed(folder, "sed -i 's/a/b/' nothing*.py") is None
    # Every match counts, the 20th as the first; past GLOB_MATCHES, or a pattern in a folder's
    # name (a walk), or under /proc, a pattern says nothing.
    many = tmp_path / "many"
    many.mkdir()
    for n in range(20):
        (many / f"m{n:02}.py").write_text("a\n")
    before = _sed(many, "sed -i 's/a/b/' m*.py")
    (many / "m19.py").write_text("b\n")
    assert before is not None and _sed(many, "sed -i 's/a/b/' m*.py") != before
    for n in range(workspace.GLOB_MATCHES):
        (many / f"n{n:03}.py").write_text("a\n")
    assert _sed(many, "sed -i 's/a/b/' *.py") is None
    assert _sed(tmp_path, "sed -i 's/a/b/' */calc.py") is None
    assert _sed(tmp_path, "cat /proc/*/status > /dev/null; sed -i 's/a/b/' /proc/self/*.py") is None
    assert ".*/config" not in change_paths("Bash", {"command": "sed -i 's/^v = .*/config = 1/' app.ini"}, CONFIG)


def test_a_fifo_named_by_a_command_does_not_hang_the_hook(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("x\n")
    os.mkfifo(tmp_path / "pipe")
    found: list[str | None] = []
    worker = threading.Thread(target=lambda: found.append(_sed(tmp_path, "cat log.txt > pipe; tee log.txt < pipe")))
    worker.start()
    worker.join(30)
    assert not worker.is_alive() and found and found[0] is not None


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_stated_not_raised(tmp_path: Path) -> None:
    secret = tmp_path / "secret.env"
    secret.write_text("TOKEN=1\n")
    secret.chmod(0)
    try:
        first = _sed(tmp_path, "sed -i 's/1/2/' secret.env")
        assert first is not None and _sed(tmp_path, "sed -i 's/1/2/' secret.env") == first
    finally:
        secret.chmod(0o600)


def test_looking_creates_and_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("1\n")
    os.utime(tmp_path / "a.txt", ns=(5, 5))
    listing = sorted((p.name, p.stat().st_mtime_ns, p.stat().st_atime_ns) for p in tmp_path.iterdir())
    _sed(tmp_path, "echo 2 > a.txt; touch b.txt; mkdir -p c/d && cp a.txt c/d/e.txt")
    assert sorted((p.name, p.stat().st_mtime_ns, p.stat().st_atime_ns) for p in tmp_path.iterdir()) == listing


def test_the_paths_a_call_means_to_change() -> None:
    assert change_paths("Bash", {"command": "sed -i 's/a/b/' src/app.py"}, CONFIG) == ("src/app.py", "s/a/b/")
    assert change_paths("Bash", {"command": "curl -s https://example.com/x > page.html"}, CONFIG) == ("page.html",)
    assert change_paths("Bash", {"command": "pytest -q tests/test_app.py"}, CONFIG) == ()
    patch = {"command": "*** Begin Patch\n*** Update File: a/b.py\n@@\n-x\n+y\n"}
    assert change_paths("apply_patch", patch, CONFIG) == ("a/b.py",)
    assert change_paths("Edit", {"file_path": "/p/app.py", "old_string": "a", "new_string": "b"}, CONFIG) == ("/p/app.py",)
    words = " ".join(f"f{i}.txt" for i in range(20))
    assert len(change_paths("Bash", {"command": f"touch {words}"}, CONFIG)) == 8


def test_the_files_a_line_sends_a_programs_output_into() -> None:
    """`tools.output_paths`: `| tee test.log`, `&> test.log`, `1> out.txt 2> err.txt`, a quoted
    plain name too: their change is not the line's edits' (`ResultContext.changed`). Text a
    writer alone puts into a file is an edit, and a word `tee` that no program is, no output."""
    from loopguard_hook.core.tools import output_paths

    assert output_paths("Bash", {"command": "sed -i 's/a/b/' a.py && pytest -q | tee test.log"}) == ("test.log",)
    assert output_paths("Bash", {"command": "pytest -q &> test.log"}) == ("test.log",)
    assert output_paths("Bash", {"command": "npm test 1> out.txt 2> err.txt"}) == ("out.txt", "err.txt")
    assert output_paths("Bash", {"command": "pytest -q | tee \"test.log\""}) == ("test.log",)
    assert output_paths("Bash", {"command": "grep -n tee tests/test_tee.py"}) == ()
    assert output_paths("Bash", {"command": "echo 'A = 2' > a.py"}) == ()
    assert output_paths("Bash", {"command": "pytest 2>&1 | tail -5"}) == ()


def test_a_diff_the_line_applies_names_the_files_of_its_plus_lines() -> None:
    """`git apply <<'EOF'` or `patch -p1 <<'EOF'` changes the files its diff's `+++` lines name
    (git's `b/` left off); one read from a file changes files the line does not name: none are
    judged. Only applying counts as an edit, not `--check` (`tools.applies_diff`)."""
    from loopguard_hook.core.tools import applies_diff

    diff = "--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/src/new.py\n"
    for command in (f"git apply <<'EOF'\n{diff}EOF", f"cd . && patch -p1 <<'EOF'\n{diff}EOF"):
        assert change_paths("Bash", {"command": command}, CONFIG) == ("src/a.py", "src/new.py"), command
        assert applies_diff("Bash", {"command": command})
    assert change_paths("Bash", {"command": "git apply /tmp/fix.patch"}, CONFIG) == ()
    assert applies_diff("Bash", {"command": "git checkout -- a.py && git apply /tmp/fix.patch"})
    assert not applies_diff("Bash", {"command": "git apply --check /tmp/fix.patch"})
    for unseen in ("git apply -R /tmp/fix.patch", "patch -p1 -R < /tmp/fix.diff", "git apply --cached x.patch",
                   "git apply --allow-empty x.patch", "git apply x.patch; git diff --stat", "patch -fp1 < f.diff"):
        assert not applies_diff("Bash", {"command": unseen}), unseen  # may change nothing, undo, or hide a failure
    for applied in ("git apply /tmp/fix.patch && git diff --stat", "patch -Np1 < f.diff", "git apply /tmp/fix.patch\n"):
        assert applies_diff("Bash", {"command": applied}), applied  # -N refuses a patch applied already
    assert not applies_diff("Bash", {"command": "echo patch > notes.txt"})
    assert change_paths("Bash", {"command": "echo patch > notes.txt"}, CONFIG) == ("notes.txt",)


def test_a_script_names_the_files_it_writes_and_a_sed_script_does_not_crowd_them_out() -> None:
    """A script's string literals name files, its calls (`text.replace(`) do not, and a value
    given to a name (`f='src/a.js'`) is one; names with an extension come first, so the pieces of
    a long sed script do not push the edited file out of the eight judged."""
    script = (
        "python - <<'PY'\nfrom pathlib import Path\np = Path(\"src/config.py\")\n"
        "p.write_text(p.read_text().replace(\"a\", \"b\"))\nPY"
    )
    assert change_paths("Bash", {"command": script}, CONFIG) == ("src/config.py",)
    node = "node -e \"const fs=require('fs'); const f='src/a.js'; fs.writeFileSync(f, fs.readFileSync('src/b.js','utf8'))\""
    assert change_paths("Bash", {"command": node}, CONFIG) == ("src/a.js", "src/b.js")
    sed = "sed -i 's/a/b/; s/c/d/; s/e/f/; s/g/h/; s/i/j/; s/k/l/; s/m/n/; s/o/p/; s/q/r/' src/app.py"
    assert change_paths("Bash", {"command": sed}, CONFIG)[0] == "src/app.py"


def _patch_event(patch: str, cwd: Path | None, client: Client = Client.CODEX, tool: str = "apply_patch") -> HookEvent:
    tool_input: dict[str, object] = {"command": patch if tool == "apply_patch" else f"apply_patch <<'EOF'\n{patch}\nEOF"}
    return HookEvent("PreToolUse", client, "s1", cwd=None if cwd is None else str(cwd), tool_name=tool, tool_input=tool_input)


PATCH = "*** Begin Patch\n*** Update File: src/report.py\n@@\n-    return render(rows, limit)\n+    return rows\n*** End Patch"


def test_a_codex_patch_is_judged_against_the_file_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    report = tmp_path / "src" / "report.py"
    report.write_text("def build(path):\n    return render(rows)\n")
    assert workspace.misfit(_patch_event(PATCH, tmp_path), CONFIG) == "return render(rows, limit)"
    absolute = PATCH.replace("src/report.py", str(report))
    assert workspace.misfit(_patch_event(absolute, tmp_path, tool="Bash"), CONFIG) == "return render(rows, limit)"
    report.write_text("def build(path):\n    return render(rows, limit)\n")
    assert workspace.misfit(_patch_event(PATCH, tmp_path), CONFIG) is None
    assert workspace.misfit(_patch_event(PATCH.replace("src/report.py", str(report)), None), CONFIG) is None


def test_a_patch_is_not_judged_where_the_file_cannot_be_read_as_apply_patch_reads_it(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    report = tmp_path / "src" / "report.py"
    assert workspace.misfit(_patch_event(PATCH, tmp_path), CONFIG) is None  # not there
    report.write_bytes(b"def build(path):\n    return render(\xff)\n")
    assert workspace.misfit(_patch_event(PATCH, tmp_path), CONFIG) is None  # not UTF-8
    report.write_text("x = 1\n" * (workspace.CONTENT_BYTES // 6 + 1))
    assert workspace.misfit(_patch_event(PATCH, tmp_path), CONFIG) is None  # too long to read
    report.write_text("def build(path):\n    return render(rows)\n")
    assert workspace.misfit(_patch_event(PATCH, None), CONFIG) is None  # a relative path with no cwd
    other_host = _patch_event(PATCH, tmp_path, Client.CLAUDE_CODE, "Bash")
    assert workspace.misfit(other_host, CONFIG) is None  # another host's apply_patch may read patches otherwise
    moved = f"cd src && apply_patch <<'EOF'\n{PATCH}\nEOF"
    event = HookEvent("PreToolUse", Client.CODEX, "s1", cwd=str(tmp_path), tool_name="Bash", tool_input={"command": moved})
    assert workspace.misfit(event, CONFIG) is None  # run in another folder


def test_a_patch_of_a_fifo_does_not_hang_the_hook(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    os.mkfifo(tmp_path / "src" / "report.py")
    done: list[str | None] = []
    thread = threading.Thread(target=lambda: done.append(workspace.misfit(_patch_event(PATCH, tmp_path), CONFIG)), daemon=True)
    thread.start()
    thread.join(10)
    assert done == [None]


def test_a_relative_path_of_a_patch_sent_through_the_shell_is_not_judged(tmp_path: Path) -> None:
    """Codex's exec_command runs `apply_patch <<'EOF'` in its `workdir`, which the payload drops
    (research/codex-hooks.md, row 11): src/report.py may be another folder's. Judged against the
    turn's cwd, three patches that all applied in crates/a made the third one denied."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "report.py").write_text("def build(path):\n    return render(rows)\n")
    assert workspace.misfit(_patch_event(PATCH, tmp_path, tool="Bash"), CONFIG) is None
    # the same heredoc, however the hook names the tool
    heredoc = HookEvent("PreToolUse", Client.CODEX, "s1", cwd=str(tmp_path), tool_name="apply_patch",
                        tool_input={"command": f"apply_patch <<'EOF'\n{PATCH}\nEOF"})
    assert workspace.misfit(heredoc, CONFIG) is None


def test_a_patch_of_something_that_is_no_regular_file_never_opens_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening is not harmless: a FIFO's writer waiting in open() is let go (then gets EPIPE), a
    watchdog device is armed, a tape rewinds on close. The hook looks (stat) before it opens."""
    (tmp_path / "src").mkdir()
    os.mkfifo(tmp_path / "src" / "report.py")
    (tmp_path / "dir.py").mkdir()
    opened: list[str] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    assert workspace.misfit(_patch_event(PATCH, tmp_path), CONFIG) is None
    for target in ("/dev/zero", "/dev/null", str(tmp_path / "dir.py")):
        assert workspace.misfit(_patch_event(PATCH.replace("src/report.py", target), tmp_path), CONFIG) is None
    assert opened == []


def test_a_patch_path_with_a_tilde_is_the_cwds_as_apply_patch_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """apply_patch does not expand `~` (Codex 0.171.0 updated ./~/f, not $HOME/f): the hook read
    $HOME's file and predicted a misfit for a patch that applied."""
    home = tmp_path / "home"
    (home / "src").mkdir(parents=True)
    (home / "src" / "report.py").write_text("def build(path):\n    return render(rows)\n")  # does not fit
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    (work / "~" / "src").mkdir(parents=True)
    (work / "~" / "src" / "report.py").write_text("def build(path):\n    return render(rows, limit)\n")  # fits
    assert workspace.misfit(_patch_event(PATCH.replace("src/report.py", "~/src/report.py"), work), CONFIG) is None
    (work / "~" / "src" / "report.py").write_text("def build(path):\n    return render(rows)\n")
    assert workspace.misfit(_patch_event(PATCH.replace("src/report.py", "~/src/report.py"), work), CONFIG) is not None


def test_a_patch_whose_lines_read_like_a_cd_is_still_looked_at(tmp_path: Path) -> None:
    """A patch's own lines are the file's text, not a command: a Makefile hunk with `cd src` does
    not make the patch run elsewhere. A `cd` before the patch, through the shell, still does."""
    (tmp_path / "Makefile").write_text("build:\n\tcd src && make\n")
    patch = "*** Begin Patch\n*** Update File: Makefile\n@@\n build:\n-\tcd lib && make\n+\tcd src && make all\n*** End Patch\n"
    event = _patch_event(patch, tmp_path)
    assert workspace.misfit(event, CONFIG) == "cd lib && make"
    assert workspace.snapshot(event, CONFIG) is not None
    moved = HookEvent("PreToolUse", Client.CODEX, "s1", cwd=str(tmp_path), tool_name="Bash",
                      tool_input={"command": f"cd sub && apply_patch <<'EOF'\n{patch}EOF\n"})
    assert workspace.misfit(moved, CONFIG) is None and workspace.snapshot(moved, CONFIG) is None


def _rollout(path: Path, *records: dict[str, object], turn: Path | None = None) -> str:
    """A Codex rollout holding `records` as `response_item` lines (0.171.0's shape), after a
    `turn_context` whose cwd is `turn` (the rollout's folder by default)."""
    lines = [json.dumps({"timestamp": "2026-12-03T10:00:00.000Z", "type": "session_meta", "payload": {"id": "s1"}})]
    lines += [json.dumps({"timestamp": "2026-12-03T10:00:00.500Z", "type": "turn_context",
                          "payload": {"turn_id": "t1", "cwd": str(turn or path.parent)}})]
    lines += [json.dumps({"timestamp": "2026-12-03T10:00:01.000Z", "type": "response_item", "payload": r}) for r in records]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _shell_call(call_id: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"type": "function_call", "name": "exec_command", "call_id": call_id, "arguments": json.dumps(arguments)}


def _recorded_event(patch: str, cwd: Path, rollout: str, call_id: str = "call_9") -> HookEvent:
    return HookEvent(
        "PreToolUse", Client.CODEX, "s1", cwd=str(cwd), tool_name="Bash", tool_use_id=call_id,
        transcript_path=rollout, tool_input={"command": f"apply_patch <<'EOF'\n{patch}\nEOF"},
    )


def test_a_patch_sent_through_the_shell_is_judged_in_the_workdir_its_record_gives(tmp_path: Path) -> None:
    """Codex 0.171.0 writes a call's record to the rollout before its PreToolUse
    (tests/e2e/test_codex.py), `workdir` included: the file is looked at there, not in the
    turn's cwd, which holds another src/report.py."""
    texts = {"crates/a/src": "def build(path):\n    return render(rows)\n", "src": "    return render(rows, limit)\n"}
    for folder, text in texts.items():
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "report.py").write_text(text)
    line = f"apply_patch <<'EOF'\n{PATCH}\nEOF"
    rollout = _rollout(tmp_path / "rollout.jsonl", _shell_call("call_9", {"cmd": line, "workdir": "crates/a"}))
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, rollout), CONFIG) == "return render(rows, limit)"
    absolute = _rollout(tmp_path / "r2.jsonl", _shell_call("call_9", {"cmd": line, "workdir": str(tmp_path / "crates" / "a")}))
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, absolute), CONFIG) == "return render(rows, limit)"
    # no workdir: the turn's cwd, whose src/report.py holds the hunk
    here = _rollout(tmp_path / "r3.jsonl", _shell_call("call_9", {"cmd": line}))
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, here), CONFIG) is None
    # a workdir whose file holds the hunk: it goes ahead, whatever the cwd's file holds
    (tmp_path / "crates" / "a" / "src" / "report.py").write_text("    return render(rows, limit)\n")
    (tmp_path / "src" / "report.py").write_text("other\n")
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, rollout), CONFIG) is None


def test_a_relative_workdir_is_taken_from_the_turns_cwd_not_the_payloads(tmp_path: Path) -> None:
    """Codex 0.171.0 sends as the payload's `cwd` the call's folder, `workdir` applied
    (tests/e2e/test_codex.py); research/codex-hooks.md row 11 reports the turn's. The folder is
    the rollout's `turn_context` cwd joined with the `workdir`, whichever the payload holds, and
    a relative `workdir` with no `turn_context` in the window is not judged."""
    (tmp_path / "crates" / "a" / "src").mkdir(parents=True)
    (tmp_path / "crates" / "a" / "src" / "report.py").write_text("def build(path):\n    return render(rows)\n")
    line = f"apply_patch <<'EOF'\n{PATCH}\nEOF"
    rollout = _rollout(tmp_path / "rollout.jsonl", _shell_call("call_9", {"cmd": line, "workdir": "crates/a"}))
    for cwd in (tmp_path, tmp_path / "crates" / "a"):
        assert workspace.misfit(_recorded_event(PATCH, cwd, rollout), CONFIG) == "return render(rows, limit)"
    bare = tmp_path / "bare.jsonl"
    call = _shell_call("call_9", {"cmd": line, "workdir": "crates/a"})
    bare.write_text(json.dumps({"type": "response_item", "payload": call}) + "\n")
    assert workspace.misfit(_recorded_event(PATCH, tmp_path / "crates" / "a", str(bare)), CONFIG) is None


def test_an_argv_patch_is_judged_as_its_record_has_it(tmp_path: Path) -> None:
    """Older Codex shells sent `["apply_patch", PATCH]` (corpus rollouts of 2025): apply_patch gets
    PATCH as it is, in the turn's cwd when the record gives no workdir."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "report.py").write_text("def build(path):\n    return render(rows)\n")
    rollout = _rollout(tmp_path / "rollout.jsonl", {"type": "function_call", "name": "shell", "call_id": "call_9",
                                                    "arguments": json.dumps({"command": ["apply_patch", PATCH]})})
    event = HookEvent("PreToolUse", Client.CODEX, "s1", cwd=str(tmp_path), tool_name="Bash", tool_use_id="call_9",
                      transcript_path=rollout, tool_input={"command": "apply_patch " + PATCH})
    assert workspace.misfit(event, CONFIG) == "return render(rows, limit)"


@pytest.mark.parametrize(
    "arguments",
    [
        {"cmd": "apply_patch <<EOF\n{patch}\nEOF"},  # unquoted: the shell expands the body
        {"cmd": "cd sub && apply_patch <<'EOF'\n{patch}\nEOF"},
        {"cmd": "apply_patch <<'EOF'\n{patch}\nEOF", "workdir": 3},
        {"cmd": "apply_patch <<'EOF'\n{patch}\nEOF", "workdir": "~/w"},
        {"command": ["bash", "-lc", "apply_patch \"{patch}\""]},
    ],
)
def test_a_record_that_does_not_tell_is_not_judged(tmp_path: Path, arguments: dict[str, object]) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "report.py").write_text("def build(path):\n    return render(rows)\n")
    def fill(value: object) -> object:
        if isinstance(value, list):
            return [fill(w) for w in value]
        return value.replace("{patch}", PATCH) if isinstance(value, str) else value

    filled = {k: fill(v) for k, v in arguments.items()}
    rollout = _rollout(tmp_path / "rollout.jsonl", _shell_call("call_9", filled))
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, rollout), CONFIG) is None


def test_a_patch_whose_record_is_not_found_is_not_judged(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "report.py").write_text("def build(path):\n    return render(rows)\n")
    line = f"apply_patch <<'EOF'\n{PATCH}\nEOF"
    other = _rollout(tmp_path / "rollout.jsonl", _shell_call("call_8", {"cmd": line}))
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, other), CONFIG) is None  # another call's
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, str(tmp_path / "missing.jsonl")), CONFIG) is None
    os.mkfifo(tmp_path / "fifo")
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, str(tmp_path / "fifo")), CONFIG) is None
    # further back than the look-back window: the record's line is cut, so not read
    far = tmp_path / "far.jsonl"
    _rollout(far, _shell_call("call_9", {"cmd": line}))
    with far.open("a") as f:
        filler = {"type": "message", "content": "x" * rollout_mod.CALL_LOOKBACK_BYTES}
        f.write(json.dumps({"type": "response_item", "payload": filler}) + "\n")
    assert workspace.misfit(_recorded_event(PATCH, tmp_path, str(far)), CONFIG) is None


@pytest.mark.parametrize(
    "command",
    [
        "sed -i 's/x = 1/x = 2/' src/a.py && pytest 2>&1 | tee test.log; exit ${PIPESTATUS[0]}",
        "sed -i 's/x = 1/x = 2/' src/a.py && pytest > ./test.log 2>&1",
        "sed -i 's/x = 1/x = 2/' src/a.py && pytest &>> \"test.log\"",
        "sed -i 's/x = 1/x = 2/' $PWD/src/a.py && pytest 2>&1 | tee -a $PWD/test.log",
        "cd src && sed -i 's/x = 1/x = 2/' a.py && pytest 2>&1 | tee ../test.log",
        "sed -i 's/x = 1/x = 2/' src/a.py && python -m pytest -q --junit-xml test.log",
        "sed -i 's/x = 1/x = 2/' src/a.py && go test -coverprofile test.log ./...",
    ],
)
def test_the_files_a_line_edits_are_judged_apart_from_its_output_files(tmp_path: Path, command: str) -> None:
    """`Snapshot.edits` leaves out the files a line sends a program's output into, however they
    are spelt, and those only its test run names (a report, `tools.run_paths`): a log that
    changes every run says nothing of the edit, which the edits' digest tells alone; the whole
    digest still moves with the log."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "test.log").write_text("1 failed\n")
    call = _event("Bash", {"command": command}, tmp_path)
    before = workspace.snapshot_files(call, CONFIG)
    assert before.edits is not None and len(before.edits) == 32
    (tmp_path / "test.log").write_text("1 failed in 0.02s\n")
    logged = workspace.snapshot_files(call, CONFIG)
    assert logged.edits == before.edits and logged.digest != before.digest
    (tmp_path / "src" / "a.py").write_text("x = 2\n")
    assert workspace.snapshot_files(call, CONFIG).edits != before.edits


def test_the_edits_digest_says_nothing_of_a_big_file_or_of_output_alone(tmp_path: Path) -> None:
    """A file the edits name judged by size and mtime leaves `Snapshot.edits` None (a rewrite of
    the same bytes moves it), as does a line whose only file is its output; without output files
    it covers what the whole digest covers."""
    big = tmp_path / "big.py"
    big.write_bytes(b"x = 1\n" * (workspace.CONTENT_BYTES // 6 + 1))
    (tmp_path / "test.log").write_text("ok\n")
    for command in ("sed -i 's/x/y/' big.py | tee test.log", "pytest > test.log"):
        assert workspace.snapshot_files(_event("Bash", {"command": command}, tmp_path), CONFIG).edits is None
    (tmp_path / "a.py").write_text("x = 1\n")
    plain = workspace.snapshot_files(_event("Bash", {"command": "sed -i 's/x/y/' a.py"}, tmp_path), CONFIG)
    assert plain.edits is not None and plain.digest is not None
    (tmp_path / "a.py").write_text("y = 1\n")
    after = workspace.snapshot_files(_event("Bash", {"command": "sed -i 's/x/y/' a.py"}, tmp_path), CONFIG)
    assert after.edits != plain.edits and after.digest != plain.digest


@pytest.mark.parametrize(
    ("command", "moves"),
    [
        ("sed -i 's/a/b/' app/rate.py && grep -n -C 3 RATE app/rate.py", False),
        ("sed -i 's|cd build \\&\\& cmake ..|cd out|' scripts/build.sh && ./scripts/build.sh", False),
        ("cat > s.sh <<'EOF'\ncd build\nEOF\nsed -i s/a/b/ a.py", False),
        ("echo 'cd x' >> notes.md", False),
        ("grep -C3 x a.py", False),
        ("git -C sub status", True),
        ("git -c core.pager=cat -C sub log", True),
        ("git --no-pager -C sub diff", True),
        ("sed -i s/a/b/ src/retry.c && git grep -n -C 1 MAX src/", False),
        ("make -C src test", True),
        ("tar -xzf a.tgz -C out", True),
        ("cd src && sed -i x a.py", True),
        ("(cd sub && make)", True),
        ("npm --prefix web test", True),
        ("bash -c 'cd sub && sed -i s/x/y/ a.py'", True),
        ('sh -c "cd sub; ls"', True),
    ],
)
def test_a_line_moves_by_the_words_it_runs_not_the_text_it_gives(command: str, moves: bool) -> None:
    """`_elsewhere`: a `cd` in a sed script or a here-document is text, grep's `-C` is context;
    a script handed to a shell runs its `cd`."""
    assert workspace._elsewhere(command) is moves


def test_a_scripts_patch_variable_is_no_diff_applied() -> None:
    """`change_paths` reads a diff's `+++` files only for the line's own `git apply` or `patch`,
    not for a here-document script's `patch = …` line, whose files it names as any script's."""
    script = "python3 - <<'EOF'\nfrom pathlib import Path\np = Path('app/rate.py')\npatch = p.read_text()\np.write_text(patch)\n"
    script += "EOF"
    assert change_paths("Bash", {"command": script}, CONFIG) == ("app/rate.py",)
    applied = "git apply <<'EOF'\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\nEOF"
    assert change_paths("Bash", {"command": applied}, CONFIG) == ("src/a.py",)
