"""The state location in DeepSeek Harness's default sandbox, through the real console script.

DSH (0.1.0-rc.8) confines every hook: only the session workspace (dsh's cwd) is writable and
persistent under both its Landlock and its bubblewrap backend, and `~/.cache` fails with EACCES
or EROFS (research/dsh-hooks.md §8; tests/test_dsh_sandbox.py runs the real launchers). So an event a DSH bridge sent keeps
its state in `<cwd>/.loopguard-hook/`, and any event whose user cache dir cannot be written
falls back to it. The folder is the guard's own: 0700, a `.gitignore` of `*`, never followed
through a symlink, never another user's, its mode never changed.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from test_hardening_helpers import dumps, pre, run_hook, snapshot

from loopguard_hook.cli import run_cli
from loopguard_hook.store import location

SESSION = "session-b50b3b41-09fd-4bf7-a09d-d5ed9d1c2073"


def dsh_pre(workspace: Path, home: Path, tool: str = "read", tool_input: Any = None, call: str = "call_main_0_0") -> bytes:
    """A PreToolUse in the Claude Code bridge's captured shape (PreToolUse.read.json)."""
    return dumps(
        {
            "session_id": SESSION,
            "transcript_path": f"{home}/.dsh/sessions/--project--/{SESSION}/session.jsonl.zstd",
            "cwd": str(workspace),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input if tool_input is not None else {"file_path": "notes.txt"},
            "tool_use_id": call,
        }
    )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    out = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGUARD_")}
    out.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"))
    return out


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def test_a_dsh_event_keeps_its_state_in_the_workspace(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    outcome = run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace)
    assert outcome.returncode == 0 and outcome.stderr == b"", outcome.stderr
    folder = workspace / ".loopguard-hook"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert (folder / ".gitignore").read_bytes().splitlines()[-1] == b"*"
    assert stat.S_IMODE((folder / ".gitignore").stat().st_mode) == 0o600
    assert (folder / "sessions" / f"{SESSION}.json").is_file()
    assert not (tmp_path / "home" / ".cache").exists(), "nothing in the user cache dir"


def test_the_folder_is_private_whatever_the_umask_and_setgid_parent(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    workspace.chmod(0o2777)
    old = os.umask(0)
    try:
        outcome = run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace)
    finally:
        os.umask(old)
    assert outcome.returncode == 0, outcome.stderr
    assert stat.S_IMODE((workspace / ".loopguard-hook").stat().st_mode) == 0o700
    assert stat.S_IMODE(workspace.stat().st_mode) == 0o2777, "the workspace's own mode is left alone"


def test_a_second_event_reuses_the_folder_and_counts_on(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    for i in range(3):
        outcome = run_hook(dsh_pre(workspace, tmp_path / "home", call=f"call_{i}"), env=env, cwd=workspace)
        assert outcome.returncode == 0, outcome.stderr
    ledger = json.loads((workspace / ".loopguard-hook" / "sessions" / f"{SESSION}.json").read_bytes())
    assert ledger["attempts"] == 3
    assert (workspace / ".loopguard-hook" / ".gitignore").read_bytes() == location.GITIGNORE


def test_an_explicit_state_dir_wins_over_the_workspace(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    state = tmp_path / "state"
    outcome = run_hook(dsh_pre(workspace, tmp_path / "home"), "--state-dir", str(state), env=env, cwd=workspace)
    assert outcome.returncode == 0, outcome.stderr
    assert (state / "sessions" / f"{SESSION}.json").is_file()
    assert not (workspace / ".loopguard-hook").exists()
    outcome = run_hook(dsh_pre(workspace, tmp_path / "home"), env=dict(env, LOOPGUARD_STATE_DIR=str(state)), cwd=workspace)
    assert outcome.returncode == 0 and not (workspace / ".loopguard-hook").exists()


def test_claude_code_events_still_use_the_user_cache_dir(workspace: Path, env: dict[str, str]) -> None:
    payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(workspace))
    outcome = run_hook(dumps(payload), env=env, cwd=workspace)
    assert outcome.returncode == 0, outcome.stderr
    assert (Path(env["XDG_CACHE_HOME"]) / "loopguard-hook" / "sessions" / "s1.json").is_file()
    assert not (workspace / ".loopguard-hook").exists()


def test_an_unwritable_cache_dir_falls_back_to_the_workspace(workspace: Path, env: dict[str, str]) -> None:
    """A cache dir the hook may not create (here under /sys, EPERM/EACCES, as `~/.cache` is
    EACCES under Landlock and EROFS under bubblewrap)."""
    if os.access("/sys/fs", os.W_OK) and os.path.exists("/sys/fs/loopguard-probe"):
        pytest.skip("/sys/fs is writable here")
    payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(workspace))
    outcome = run_hook(dumps(payload), env=dict(env, XDG_CACHE_HOME="/sys/fs/loopguard-cache"), cwd=workspace)
    assert outcome.returncode == 0 and outcome.stderr == b"", outcome.stderr
    assert (workspace / ".loopguard-hook" / "sessions" / "s1.json").is_file()
    assert not os.path.exists("/sys/fs/loopguard-cache")


def test_a_cache_dir_that_is_a_file_is_not_a_reason_to_fall_back(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    """Only EACCES/EROFS/EPERM mean a sandbox: another fault is reported as before."""
    cache = tmp_path / "cachefile"
    cache.write_text("not a folder")
    payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1", cwd=str(workspace))
    outcome = run_hook(dumps(payload), env=dict(env, XDG_CACHE_HOME=str(cache)), cwd=workspace)
    assert outcome.returncode == 1 and len(outcome.stderr_lines) == 1
    assert outcome.stderr_lines[0].startswith("loopguard-hook: state: ")
    assert not (workspace / ".loopguard-hook").exists()


# -- a hostile workspace ------------------------------------------------------------------------


def _refused(outcome: Any) -> str:
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.stdout == b"" and len(outcome.stderr_lines) == 1, outcome.stderr
    assert b"Traceback" not in outcome.stderr
    line: str = outcome.stderr_lines[0]
    assert line.startswith("loopguard-hook: state: ")
    return line


def test_a_symlink_planted_at_the_folder_is_not_followed(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (workspace / ".loopguard-hook").symlink_to(target)
    outcome = run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace)
    assert "symlink" in _refused(outcome)
    assert list(target.iterdir()) == [], "nothing written through the link"


def test_a_dangling_symlink_is_not_followed_either(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "would-be-created"
    (workspace / ".loopguard-hook").symlink_to(target)
    _refused(run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace))
    assert not target.exists()


def test_a_file_at_the_folder_name_is_refused(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    (workspace / ".loopguard-hook").write_text("a file of the project")
    before = snapshot(workspace)
    _refused(run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace))
    assert snapshot(workspace) == before


def test_a_folder_readable_by_others_is_refused_and_its_mode_kept(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    folder = workspace / ".loopguard-hook"
    folder.mkdir()
    folder.chmod(0o755)
    line = _refused(run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace))
    assert "0755" in line
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755 and list(folder.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the folder to another user")
def test_another_users_folder_is_refused(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    folder = workspace / ".loopguard-hook"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    line = _refused(run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace))
    assert "uid 65534" in line
    assert list(folder.iterdir()) == []
    assert folder.stat().st_uid == 65534 and stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_symlinked_sessions_folder_inside_is_not_followed(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    folder = workspace / ".loopguard-hook"
    folder.mkdir(mode=0o700)
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (folder / "sessions").symlink_to(target)
    _refused(run_hook(dsh_pre(workspace, tmp_path / "home"), env=env, cwd=workspace))
    assert list(target.iterdir()) == []


def test_a_relative_or_missing_cwd_never_writes_relative_to_the_process(env: dict[str, str], tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    payload = json.loads(dsh_pre(Path("relative/project"), tmp_path / "home"))
    outcome = run_hook(dumps(payload), env=env, cwd=here)
    assert outcome.returncode == 0, outcome.stderr  # the user cache dir, as for any client
    assert list(here.iterdir()) == []
    assert (Path(env["XDG_CACHE_HOME"]) / "loopguard-hook" / "sessions" / f"{SESSION}.json").is_file()


def test_dry_run_creates_no_folder(workspace: Path, env: dict[str, str], tmp_path: Path) -> None:
    outcome = run_hook(dsh_pre(workspace, tmp_path / "home"), "--dry-run", env=env, cwd=workspace)
    assert outcome.returncode == 0, outcome.stderr
    assert list(workspace.iterdir()) == []


def test_the_dsh_test_reads_only_the_session_log_shape() -> None:
    from loopguard_hook.hosts.dsh import sent_by_dsh

    def sent(path: str | None) -> bool:
        return sent_by_dsh({"transcript_path": path})

    assert sent("/h/.dsh/sessions/--p--/session-1/session.jsonl.zstd")
    assert sent("C:\\u\\.dsh\\sessions\\p\\1\\session.jsonl.zstd")
    assert not sent("/h/.claude/projects/p/1.jsonl")
    assert not sent("/h/elsewhere/session.jsonl.zstd")
    assert not sent(None)


# -- status, gc, reset and config show find it --------------------------------------------------


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def in_project(workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A project with one DSH session's state in its `.loopguard-hook/`, as the cwd."""
    home = Path(os.environ["HOME"])
    env = dict(os.environ)
    outcome = run_hook(dsh_pre(workspace, home), env=env, cwd=workspace)
    assert outcome.returncode == 0, outcome.stderr
    outcome = run_hook(dumps(pre("claude-code", "cc1", "Bash", {"command": "ls"}, "toolu_1")), env=env, cwd=workspace)
    assert outcome.returncode == 0, outcome.stderr
    sub = workspace / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)  # found from a subdirectory too
    return workspace


def test_status_lists_both_locations_and_their_sessions(in_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(["status"], capsys)
    assert code == 0
    assert f"workspace state dir: {in_project / '.loopguard-hook'}" in out
    assert SESSION in out and "cc1" in out
    assert "text loops are read from DSH's session log at Stop only" in out, "what is not covered, said plainly"
    code, out, _ = _cli(["status", "--json"], capsys)
    report = json.loads(out)
    kinds = {d["kind"]: d["path"] for d in report["state_dirs"]}
    assert kinds["workspace"] == str(in_project / ".loopguard-hook")
    where = {s["session_id"]: s["state_dir"] for s in report["sessions"]}
    assert where[SESSION] == str(in_project / ".loopguard-hook") and where["cc1"] == report["state_dir"]


def test_status_names_a_hostile_folder_and_does_not_read_it(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere"
    (target / "sessions").mkdir(parents=True)
    (target / "sessions" / "planted.json").write_text("{}")
    (workspace / ".loopguard-hook").symlink_to(target)
    monkeypatch.chdir(workspace)
    code, out, _ = _cli(["status"], capsys)
    assert code == 0 and "is a symlink; not followed" in out and "planted" not in out
    code, _, err = _cli(["gc", "--older-than", "0s"], capsys)
    assert code == 0 and "symlink" in err
    assert (target / "sessions" / "planted.json").exists()


def test_gc_and_reset_reach_the_workspace_sessions(in_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(["gc", "--older-than", "0s", "--dry-run"], capsys)
    assert code == 0 and SESSION in out and "cc1" in out
    code, out, _ = _cli(["reset", "--session", SESSION], capsys)
    assert code == 0 and "reset session" in out and ".loopguard-hook" in out
    assert not (in_project / ".loopguard-hook" / "sessions" / f"{SESSION}.json").exists()
    code, out, _ = _cli(["gc", "--older-than", "0s"], capsys)
    assert code == 0 and out.count("deleted") == 2
    code, out, _ = _cli(["status"], capsys)
    assert out.splitlines()[-2] == "no sessions" and "`loopguard-hook log`" in out.splitlines()[-1]


def test_config_show_says_where_an_event_from_here_would_keep_its_state(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(workspace)
    code, out, _ = _cli(["config", "show"], capsys)
    assert code == 0
    assert f"an event from a DSH hook bridge here would keep its state in {workspace / '.loopguard-hook'}" in out
    assert "user cache dir" in out
    code, out, _ = _cli(["config", "show", "--json"], capsys)
    report = json.loads(out)
    assert report["state_dir_dsh"]["value"] == str(workspace / ".loopguard-hook")
    assert report["state_dir"]["value"].endswith("loopguard-hook")
    monkeypatch.setenv("LOOPGUARD_STATE_DIR", "/somewhere")
    code, out, _ = _cli(["config", "show", "--json"], capsys)
    assert json.loads(out)["state_dir_dsh"] == {"value": "/somewhere", "source": "LOOPGUARD_STATE_DIR"}


def test_doctor_says_a_dsh_event_keeps_its_state_in_the_workspace(tmp_path: Path) -> None:
    """With no state dir set, `doctor` no longer reports the user cache dir as unwritable in
    DSH's sandbox: the hook itself picks the workspace there."""
    from loopguard_hook.doctor.dsh import _check_sandbox
    from loopguard_hook.doctor.model import ClientReport
    from loopguard_hook.store import default_state_dir

    report = ClientReport("dsh-claude-code", "DSH", None)
    env = {k: v for k, v in os.environ.items() if k != "LOOPGUARD_STATE_DIR"}
    _check_sandbox(report, default_state_dir(env), env)
    [finding] = report.findings
    assert finding.status == "ok" and ".loopguard-hook/" in finding.message
