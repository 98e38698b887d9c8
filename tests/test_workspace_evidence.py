"""What the workspace shows of the files a call names to change (`hosts/workspace.py`), on real
files: the digest stays when a call changed nothing (whatever it printed, also when it wrote
the same bytes back) and moves when it changed a file; nothing is created, and a FIFO, a big
file or a folder the command moves to cannot make the hook hang or judge wrongly."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from loopguard_hook.config.settings import Config
from loopguard_hook.core.event import Client, HookEvent
from loopguard_hook.core.tools import change_paths
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


def test_names_that_are_no_files_here_and_commands_run_elsewhere_say_nothing(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("a = 1\n")
    assert _sed(tmp_path, "echo hi > new.txt") is None  # created by the call: nothing to compare
    assert _sed(tmp_path, "cd sub && sed -i 's/a/b/' app.py") is None  # app.py of another folder
    assert _sed(tmp_path, "git -C other checkout -- app.py") is None
    assert _sed(None, "sed -i 's/a/b/' app.py") is None  # a relative path and no cwd
    assert _sed(tmp_path, "ls -la app.py") is None  # a command that writes nothing
    assert workspace.snapshot(_event("Read", {"file_path": str(tmp_path / "app.py")}, tmp_path), CONFIG) is None
    assert workspace.snapshot(_event("Bash", {"command": "sed -i 's/a/b/' app.py"}, tmp_path, "Stop"), CONFIG) is None


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
    assert change_paths("Bash", {"command": "sed -i 's/a/b/' src/app.py"}, CONFIG) == ("s/a/b/", "src/app.py")
    assert change_paths("Bash", {"command": "curl -s https://example.com/x > page.html"}, CONFIG) == ("page.html",)
    assert change_paths("Bash", {"command": "pytest -q tests/test_app.py"}, CONFIG) == ()
    patch = {"command": "*** Begin Patch\n*** Update File: a/b.py\n@@\n-x\n+y\n"}
    assert change_paths("apply_patch", patch, CONFIG) == ("a/b.py",)
    assert change_paths("Edit", {"file_path": "/p/app.py", "old_string": "a", "new_string": "b"}, CONFIG) == ("/p/app.py",)
    words = " ".join(f"f{i}.txt" for i in range(20))
    assert len(change_paths("Bash", {"command": f"touch {words}"}, CONFIG)) == 8


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
