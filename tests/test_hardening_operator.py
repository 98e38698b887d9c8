"""Operator commands say what they could not read or write, in one line, and exit non-zero; what
they show is what happens (`gc --dry-run` lists what `gc` deletes, `status` says when the config
switches the guard off)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path

import pytest
from test_hardening_helpers import HOOK, can_drop_capabilities, drop_file_capabilities, dumps, post, pre

AS_USER = drop_file_capabilities if os.geteuid() == 0 else None


def _run(args: list[str], *, stdin: bytes = b"", cwd: Path | None = None, stdout: int | None = None,
         preexec: bool = False) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([HOOK, *args], input=stdin, cwd=cwd, timeout=60, stderr=subprocess.PIPE,
                          stdout=subprocess.PIPE if stdout is None else stdout, preexec_fn=AS_USER if preexec else None)


def _one_line(proc: subprocess.CompletedProcess[bytes], *needles: str) -> str:
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "internal error" not in err and "Exception ignored" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def _seed(state: Path, session: str = "s1", calls: int = 1) -> None:
    for i in range(calls):
        for payload in (pre("claude-code", session, "Bash", {"command": "ls"}, f"t{i}"),
                        post("claude-code", session, "Bash", {"command": "ls"}, f"t{i}", {"stdout": "", "stderr": ""})):
            assert _run(["--state-dir", str(state)], stdin=dumps(payload)).returncode == 0


@pytest.mark.skipif(os.geteuid() == 0 and not can_drop_capabilities(), reason="root here cannot drop CAP_DAC_OVERRIDE")
def test_an_unreadable_sessions_folder_is_said_not_shown_empty(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    _seed(state)
    os.chmod(state / "sessions", 0)
    try:
        for args in (["status"], ["status", "--json"], ["gc", "--older-than", "0s"], ["gc", "--dry-run"], ["reset", "--all"]):
            _one_line(_run([*args, "--state-dir", str(state)], preexec=True), "sessions")
    finally:
        os.chmod(state / "sessions", 0o700)
    assert (state / "sessions" / "s1.json").exists()


def test_gc_dry_run_lists_exactly_what_gc_deletes(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    _seed(state, "old")
    _seed(state, "busy")
    sessions = state / "sessions"
    (sessions / "notes.txt").write_text("not a session\n")
    (sessions / "folder.json").mkdir()
    (sessions / "notes.json").write_text('{"todo": ["not a ledger"]}\n')  # stray files the guard never wrote
    (sessions / "list.json").write_text("[1, 2]\n")
    (sessions / "draft.tmp").write_text("mine\n")
    (sessions / "plan.corrupt").write_text("mine too\n")
    (sessions / "other.lock").write_text("a lock of some other program: 4242\n")
    for entry in sessions.iterdir():
        os.utime(entry, (1_000_000_000, 1_000_000_000), follow_symlinks=False)
    held = os.open(sessions / "busy.lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # a hook in the middle of an update
    try:
        dry = _run(["gc", "--older-than", "1d", "--dry-run", "--state-dir", str(state)])
        real = _run(["gc", "--older-than", "1d", "--state-dir", str(state)])
    finally:
        os.close(held)
    assert dry.returncode == 0 and real.returncode == 0, (dry.stderr, real.stderr)
    assert dry.stdout.decode().splitlines() == ["would delete 1 session(s)", "  old"]
    assert real.stdout.decode().startswith("deleted 1 idle session(s)")
    strays = ["draft.tmp", "folder.json", "list.json", "notes.json", "notes.txt", "other.lock", "plan.corrupt"]
    assert sorted(p.name for p in sessions.iterdir()) == sorted(["busy.json", "busy.lock", *strays])
    # reset --all: every session the guard wrote goes, and nothing else
    reset = _run(["reset", "--all", "--state-dir", str(state)])
    assert reset.returncode == 0 and reset.stdout.decode().startswith("reset 1 session(s)"), reset
    assert sorted(p.name for p in sessions.iterdir()) == strays


def test_a_decision_written_to_a_full_stdout_is_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    _seed(state, calls=2)
    with open("/dev/full", "wb") as full:
        third = _run(["--state-dir", str(state)], stdin=dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "t9")),
                     stdout=full.fileno())
        _one_line(third, "cannot write to standard output", "No space left on device")
        for args in (["status"], ["config", "show"], ["--help"]):
            _one_line(_run([*args, "--state-dir", str(state)] if args[0] == "status" else args, stdout=full.fileno()),
                      "cannot write to standard output")


def test_commands_in_a_deleted_directory_say_so(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    _seed(state)
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.Popen(["sh", "-c", f'cd "{gone}" && rmdir "{gone}" && "$0" status --state-dir "$1"; echo "rc=$?" >&2;'
                             f' "$0" config check; echo "rc=$?" >&2; "$0" config show; echo "rc=$?" >&2;'
                             f' "$0" install --client codex --scope project --dry-run; echo "rc=$?" >&2;'
                             f' "$0" gc --state-dir "$1" >/dev/null; echo "rc=$?" >&2', HOOK, str(state)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    _, err = proc.communicate(timeout=120)
    lines = err.decode().splitlines()
    assert "internal error" not in err.decode(), lines
    assert [ln for ln in lines if ln.startswith("rc=")] == ["rc=1", "rc=1", "rc=1", "rc=1", "rc=0"], lines
    assert sum("current directory" in ln for ln in lines) == 4, lines


def test_config_check_reports_every_problem_in_toml_terms(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('deny_at = true\nmode = "loud"\nunknown_thing = 1\nexclude = [false]\nstop_at = 2\n')
    proc = _run(["config", "check", str(bad)])
    err = proc.stderr.decode()
    assert proc.returncode == 1
    assert len(err.splitlines()) == 5, err
    for needle in ("deny_at", "mode", "unknown_thing", "exclude", "stop_at = 2"):
        assert needle in err, err
    assert "True" not in err and "False" not in err and "got true" in err and "got false" in err, err
    # the hook still prints one line, and says there is more
    hook = _run(["--config", str(bad), "--state-dir", str(tmp_path / "state")],
                stdin=dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, "t1")))
    _one_line(hook, "bad config", "4 more")


def test_status_says_when_a_project_config_switches_the_guard_off(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".loopguard.toml").write_text('exclude = ["*"]\n')
    state = tmp_path / "state"
    text = _run(["status", "--state-dir", str(state)], cwd=project)
    assert text.returncode == 0 and b"effectively off" in text.stdout and b".loopguard.toml" in text.stdout, text
    shown = json.loads(_run(["status", "--json", "--state-dir", str(state)], cwd=project).stdout)
    assert len(shown["warnings"]) == 1 and "effectively off" in shown["warnings"][0]
    (project / ".loopguard.toml").write_text('exclude = ["Bash"]\n')
    assert b"effectively off" not in _run(["status", "--state-dir", str(state)], cwd=project).stdout


def test_a_project_config_that_is_a_fifo_is_one_clear_line(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.mkfifo(project / ".loopguard.toml")
    state = tmp_path / "state"
    payload = pre("claude-code", "s1", "Bash", {"command": "ls"}, "t1", cwd=str(project))
    hook = _run(["--state-dir", str(state)], stdin=dumps(payload), cwd=project)
    _one_line(hook, "bad config", ".loopguard.toml", "not a regular file")
    assert hook.stdout == b""
    status = _run(["status", "--state-dir", str(state)], cwd=project)
    _one_line(status, ".loopguard.toml", "not a regular file")
    assert b"config here: BAD" in status.stdout and b"not a regular file" in status.stdout
    # how a failing event ends, from the capability tables
    assert b"exits 0 with the line in errors.log on Cursor, Factory Droid, Gemini CLI and GitHub Copilot CLI" in status.stdout


def test_status_runs_while_the_config_is_bad(tmp_path: Path) -> None:
    """The sessions and what is wrong with the config, its fix, and exit 1 with the hook's line."""
    project = tmp_path / "project"
    project.mkdir()
    state = tmp_path / "state"
    _seed(state)
    config = project / ".loopguard.toml"
    config.write_text("deny_at = 10\n")
    text = _run(["status", "--state-dir", str(state)], cwd=project)
    _one_line(text, "bad config: project file", "deny_at = 10")
    out = text.stdout.decode()
    assert "session s1 [claude-code]: 1 tool call" in out, out
    assert f"fix: loopguard-hook config check {config}" in out and "suggest" not in out
    data = json.loads(_run(["status", "--json", "--state-dir", str(state)], cwd=project).stdout)
    assert data["thresholds"] is None and [s["session_id"] for s in data["sessions"]] == ["s1"]
    assert data["config_error"]["files"] == [str(config)] and "stop_at = 11 or more" in data["config_error"]["problems"][0]


def test_status_says_when_a_project_profile_never_denies(tmp_path: Path) -> None:
    """`profile = "reminder"` in a project file never denies a call or ends a turn over a loop of
    calls, as `mode = "advise"` would: `status` names the file and the key; a project that only
    tunes the thresholds is not warned."""
    project = tmp_path / "project"
    project.mkdir()
    config = project / ".loopguard.toml"
    config.write_text('profile = "reminder"\n')
    state = tmp_path / "state"
    out = _run(["status", "--state-dir", str(state)], cwd=project).stdout.decode()
    warning = next(line for line in out.splitlines() if line.startswith("warning: "))
    assert f'the project\'s file {config} turns enforcement down: profile = "reminder"' in warning, warning
    assert "LOOPGUARD_PROFILE=balanced" in warning, warning
    config.write_text("deny_at = 8\nstop_at = 12\n")
    assert "warning" not in _run(["status", "--state-dir", str(state)], cwd=project).stdout.decode()


@pytest.mark.parametrize("mode", ["observe", "advise"])
def test_status_says_when_a_project_file_turns_enforcement_down(mode: str, tmp_path: Path) -> None:
    """A cloned repository's `.loopguard.toml` may set the mode below enforce: `status` names the
    file and what overrides it (the environment does; the user file, read before it, does not)."""
    project = tmp_path / "project"
    project.mkdir()
    config = project / ".loopguard.toml"
    config.write_text(f'mode = "{mode}"\n')
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "loopguard-hook" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('mode = "enforce"\n')  # read first: the project file still wins over it
    state = tmp_path / "state"
    text = _run(["status", "--state-dir", str(state)], cwd=project)
    assert text.returncode == 0 and f"({mode})".encode() in text.stdout, text
    warning = next(line for line in text.stdout.decode().splitlines() if line.startswith("warning: "))
    assert f"the project's file {config} turns enforcement down" in warning, warning
    assert "LOOPGUARD_MODE=enforce" in warning and "--mode" not in warning, warning
    shown = json.loads(_run(["status", "--json", "--state-dir", str(state)], cwd=project).stdout)
    assert len(shown["warnings"]) == 1 and str(config) in shown["warnings"][0], shown["warnings"]
    # the override it names works, and then there is nothing to say
    env = {**os.environ, "LOOPGUARD_MODE": "enforce"}
    over = subprocess.run([HOOK, "status", "--state-dir", str(state)], cwd=project, env=env, capture_output=True, timeout=60)
    assert b"(enforce)" in over.stdout and b"warning" not in over.stdout, over
    config.write_text('mode = "enforce"\n')
    assert b"warning" not in _run(["status", "--state-dir", str(state)], cwd=project).stdout
