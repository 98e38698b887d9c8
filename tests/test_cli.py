"""The command line: hook invocation, operator commands, exit codes (never 2), help texts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loopguard_hook.entry import main

EXAMPLES = Path(__file__).parent.parent / "examples"
READ = (EXAMPLES / "payloads/claude-code-2.1.332/PreToolUse.Read.json").read_bytes()
READ_POST = (EXAMPLES / "payloads/claude-code-2.1.332/PostToolUse.Read.json").read_bytes()
EXE = Path(sys.executable).with_name("loopguard-hook")


def hook(args: list[str], stdin: bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(EXE), *args], input=stdin, capture_output=True, env=env or dict(os.environ), timeout=30)


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def loop(state: Path, times: int, args: tuple[str, ...] = (), env: dict[str, str] | None = None) -> list[bytes]:
    """The same Read `times` times (PreToolUse, then PostToolUse unless denied); Pre outputs."""
    outs = []
    for i in range(times):
        pre, post = json.loads(READ), json.loads(READ_POST)
        pre["tool_use_id"] = post["tool_use_id"] = f"t{i}"
        out = hook(["--state-dir", str(state), *args], json.dumps(pre).encode(), env).stdout
        outs.append(out)
        if b"deny" not in out:
            hook(["--state-dir", str(state), *args], json.dumps(post).encode(), env)
    return outs


def test_hook_subprocess_escalates_and_status_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outs = loop(tmp_path, 5)
    assert outs[:2] == [b"", b""]
    assert b"additionalContext" in outs[2] and b"additionalContext" in outs[3]
    assert json.loads(outs[4])["hookSpecificOutput"]["permissionDecision"] == "deny"
    code, out, _ = cli(["status", "--state-dir", str(tmp_path), "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    session = data["sessions"][0]
    assert session["attempts"] == 5 and session["agents"]["main"]["attempts"] == 5
    assert [d["action"] for d in session["recent_decisions"]] == ["remind", "remind", "deny"]
    assert data["thresholds"]["deny_at"] == 5
    code, text, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "deny (LOOP_GUARD_REPEAT)" in text and "5 attempts of this call since its result was last new" in text


def test_python_dash_m_and_hook_subcommand(tmp_path: Path) -> None:
    for argv in ([sys.executable, "-m", "loopguard_hook", "--state-dir", str(tmp_path)],
                 [str(EXE), "hook", "--state-dir", str(tmp_path), "--client", "claude-code"]):
        proc = subprocess.run(argv, input=READ, capture_output=True, timeout=30)
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_pipeline_of_a_session_file(tmp_path: Path) -> None:
    """`while read line; do printf '%s' "$line" | loopguard-hook; done < session.jsonl`."""
    session = EXAMPLES / "sessions/claude-code-identical_reads.jsonl"
    script = f'while IFS= read -r line; do printf "%s" "$line" | "{EXE}" --state-dir "{tmp_path}"; done < "{session}"'
    proc = subprocess.run(["bash", "-c", script], capture_output=True, timeout=60)
    lines = proc.stdout.decode().splitlines()
    assert proc.returncode == 0 and len(lines) == 2
    assert all(json.loads(line)["hookSpecificOutput"]["hookEventName"] == "PreToolUse" for line in lines)


@pytest.mark.parametrize(
    "args",
    [["--bogus"], ["--client", "vim"], ["--profile"], ["hook", "--nope"], ["--mode", "loud"], ["--profile", "zzz"]],
)
def test_bad_flags_on_the_hook_path_exit_1_never_2(args: list[str], tmp_path: Path) -> None:
    proc = hook([*args, "--state-dir", str(tmp_path)], READ)
    assert proc.returncode == 1, proc
    assert proc.stdout == b""
    assert b"Traceback" not in proc.stderr and len(proc.stderr.splitlines()) <= 2


@pytest.mark.parametrize("args", [["--state-dir="], ["--config="], ["--config", ""], ["status", "--state-dir", ""]])
def test_an_empty_path_option_is_one_line_and_exit_1(args: list[str], tmp_path: Path) -> None:
    """An empty --state-dir or --config would quietly mean the default (state written to the
    user's own state dir, which the caller meant to avoid): it is refused, nothing is written."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"), "LOOPGUARD_RESIDENT": "0"}
    env.pop("LOOPGUARD_STATE_DIR", None)
    proc = hook(args, READ, env)
    assert proc.returncode == 1 and proc.stdout == b"", proc
    assert proc.stderr.count(b"\n") == 1 and b"was given an empty path" in proc.stderr
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize(
    ("stdin", "code"),
    [(b"", 1), (b"  \n", 1), (b"[1,2]", 1), (b"not json", 1), (b"\xff\xfe", 1),
     (b'{"hook_event_name": "Notification", "session_id": "s"}', 0),
     (b'{"hook_event_name": "PreToolUse", "session_id": 3, "tool_name": "Read"}', 1)],
)
def test_bad_payloads(stdin: bytes, code: int, tmp_path: Path) -> None:
    proc = hook(["--state-dir", str(tmp_path / "s")], stdin)
    assert proc.returncode == code and proc.stdout == b""
    assert (len(proc.stderr.splitlines()) == 1) == (code == 1)
    assert not (tmp_path / "s").exists() or not list((tmp_path / "s").rglob("*.json"))


def test_bad_config_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "c.toml"
    bad.write_text("deny_at = -3\n")
    proc = hook(["--state-dir", str(tmp_path), "--config", str(bad)], READ)
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr.decode().startswith("loopguard-hook: bad config:") and str(bad).encode() in proc.stderr


def test_bug_is_logged_not_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from loopguard_hook.core import engine
    from loopguard_hook.hook import HookOptions, run

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(engine, "step", boom)
    result = run(READ, options=HookOptions(state_dir=str(tmp_path)), environ={}, user_config="")
    assert result.exit_code == 1 and result.stdout == b""
    assert "internal error" in result.stderr and "Traceback" not in result.stderr
    assert "simulated bug" in (tmp_path / "errors.log").read_text()


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    proc = hook(["--state-dir", str(tmp_path / "s"), "--dry-run"], READ)
    assert proc.returncode == 0 and not (tmp_path / "s").exists()


def test_modes(tmp_path: Path) -> None:
    outs = loop(tmp_path / "a", 6, env=dict(os.environ, LOOPGUARD_MODE="advise"))
    assert b"deny" not in b"".join(outs) and b"REPEAT_TOOL_BLOCKED" not in b"".join(outs)
    advice = json.loads(outs[4])["hookSpecificOutput"]["additionalContext"]
    assert "called 5 times" in advice and "not run" not in advice
    outs = loop(tmp_path / "o", 6, ("--mode", "observe"))
    assert outs == [b""] * 6
    log = (tmp_path / "o" / "decisions.jsonl").read_text().splitlines()
    assert [json.loads(x)["intended"] for x in log] == ["remind", "remind", "deny", "deny"]


def test_reset_takes_the_session_id_as_an_argument_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`reset ID`, as a user reads "forget a session", does what `reset --session ID` does; both
    at once must agree, and neither with --all is refused."""
    loop(tmp_path, 1)
    sid = json.loads(READ)["session_id"]
    code, out, _ = cli(["reset", sid, "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and out.startswith(f"reset session {sid}")
    assert not list((tmp_path / "sessions").glob("*.json"))
    loop(tmp_path, 1)
    assert cli(["reset", sid, "--session", sid, "--state-dir", str(tmp_path)], capsys)[0] == 0
    for args in (["reset", sid, "--session", "other"], ["reset", sid, "--all"], ["reset"]):
        code, out, err = cli([*args, "--state-dir", str(tmp_path)], capsys)
        assert code == 1 and out == "" and "session" in err, (args, err)


def test_session_end_deletes_state(tmp_path: Path) -> None:
    loop(tmp_path, 1)
    assert list((tmp_path / "sessions").glob("*.json"))
    end = (EXAMPLES / "payloads/claude-code-2.1.332/SessionEnd.json").read_bytes()
    assert hook(["--state-dir", str(tmp_path)], end).returncode == 0
    assert not list((tmp_path / "sessions").glob("*.json"))


def test_reset_and_gc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loop(tmp_path, 1)
    sid = json.loads(READ)["session_id"]
    assert cli(["reset", "--session", sid, "--state-dir", str(tmp_path)], capsys)[1].startswith("reset session")
    assert cli(["status", "--state-dir", str(tmp_path)], capsys)[1].splitlines()[-2] == "no sessions"
    # Reset again (or a mistyped id): said and exit 1, as `status --session` does, not a reset done.
    code, out, err = cli(["reset", "--session", sid, "--state-dir", str(tmp_path)], capsys)
    assert (code, out) == (1, "") and err == f"loopguard-hook: no state for session {sid} in {tmp_path / 'sessions'}\n"
    # A folder where the ledger belongs, beside the session's lock: the lock is cleared, the folder
    # said and left (before: "reset session", the folder not named).
    loop(tmp_path, 1)
    ledger = next((tmp_path / "sessions").glob("*.json"))
    ledger.unlink()
    ledger.mkdir()
    code, out, _ = cli(["reset", "--session", sid, "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "is not a file the guard wrote; left as it is" in out and ledger.is_dir()
    ledger.rmdir()
    loop(tmp_path, 1)
    code, out, _ = cli(["gc", "--older-than", "1h", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "deleted 0" in out
    code, out, _ = cli(["gc", "--older-than", "0s", "--state-dir", str(tmp_path)], capsys)
    assert "deleted 1" in out
    assert cli(["reset", "--state-dir", str(tmp_path)], capsys)[0] == 1  # needs --session or --all
    assert cli(["gc", "--older-than", "soon", "--state-dir", str(tmp_path)], capsys)[0] == 1


def test_a_bad_gc_age_names_the_option_as_every_command_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`gc --older-than abc` said `Invalid value: 'abc' …` without the option, where `log
    --since abc` says `Invalid value for '--since'`."""
    for age in ("abc", "7"):
        code, _, err = cli(["gc", "--older-than", age, "--state-dir", str(tmp_path)], capsys)
        assert code == 1 and err.startswith(f"loopguard-hook: Invalid value for '--older-than': '{age}' is not a span"), err
        assert len(err.splitlines()) == 1


def test_config_show_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPGUARD_DENY_AT", "6")
    code, out, _ = cli(["config", "show", "--profile", "progress"], capsys)
    assert code == 0 and "deny_at" in out and "# environment" in out and "# command line" in out
    code, out, _ = cli(["config", "show", "--json"], capsys)
    assert json.loads(out)["deny_at"] == {"value": 6, "source": "environment"}
    good = tmp_path / "good.toml"
    good.write_text('profile = "breaker"\nmaxSamePath = 4\n')
    assert cli(["config", "check", str(good)], capsys)[0] == 0
    bad = tmp_path / "bad.toml"
    bad.write_text("remind_at = [4, 3]\n")
    code, _, err = cli(["config", "check", str(bad)], capsys)
    assert code == 1 and "ascending" in err


COMMANDS = [
    [], ["hook"], ["status"], ["reset"], ["gc"], ["config"], ["config", "show"], ["config", "check"],
    ["install"], ["uninstall"], ["replay"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "main")
def test_help_of_every_command(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli([*command, "--help"], capsys)
    assert code == 0 and "Usage: loopguard-hook" in out


def test_help_and_the_package_description_name_every_host_and_the_quiet_ones(capsys: pytest.CaptureFixture[str]) -> None:
    """`--help` and pyproject's description name every host `install` takes, and `--help`'s exit
    status line names the hosts where the hook exits 0 on every path (their capabilities say
    `fails_closed` or `quiet_failures`)."""
    import tomllib

    from loopguard_hook import hosts
    from loopguard_hook.core.event import Client

    code, out, _ = cli(["--help"], capsys)
    text = " ".join(out.split())
    description = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]["description"]
    for name in ("Claude Code", "Codex", "DeepSeek Harness", "Qwen Code", "Gemini CLI", "Cursor", "Copilot CLI", "Droid"):
        assert name in text and name in description, name
    quiet = {c for c in Client if hosts.capabilities(c).fails_closed or hosts.capabilities(c).quiet_failures}
    names = {Client.COPILOT: "Copilot CLI", Client.CURSOR: "Cursor", Client.GEMINI_CLI: "Gemini CLI", Client.DROID: "Droid"}
    assert set(names) == quiet
    line = text[text.index("never 2.") :]
    assert all(names[c] in line for c in quiet) and "0 on every path" in line and "errors.log" in line


def test_replay_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    session = str(EXAMPLES / "sessions/claude-code-identical_reads.jsonl")
    code, out, _ = cli(["replay", session], capsys)
    assert code == 0 and "remind REPEAT 3" in out and "2 reminders" in out
    code, out, _ = cli(["replay", session, "--format", "json", "--profile", "breaker"], capsys)
    report = json.loads(out)["reports"][0]
    assert code == 0 and report["summary"]["denials"] >= 1
    assert cli(["replay", session, "--client", "codex"], capsys)[0] in (0, 1)
    assert cli(["replay", str(EXAMPLES / "nope.jsonl")], capsys)[0] == 1


def test_same_tool_use_id_twice_counts_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hook registered twice (plugin + settings) sees every PreToolUse twice: one attempt."""
    for _ in range(2):
        assert hook(["--state-dir", str(tmp_path)], READ).returncode == 0
    code, out, _ = cli(["--state-dir", str(tmp_path), "status", "--json"], capsys)
    assert code == 0 and json.loads(out)["sessions"][0]["agents"]["main"]["attempts"] == 1


def test_status_says_what_observe_would_have_done(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loop(tmp_path, 5, ("--mode", "observe"))
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "nothing shown (observe; would deny) (LOOP_GUARD_REPEAT)" in out
    assert "(its last event used profile balanced (observe)" in out


def test_status_says_a_sessions_thresholds_were_fitted_to_its_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Qwen Code halts a run at the 5th identical call, so balanced denies its 4th there: the
    session's line says so, not that another profile was in force."""
    payload = (EXAMPLES / "payloads/qwen-code-0.24.4/PreToolUse.read_file.json").read_bytes()
    assert hook(["--client", "qwen-code", "--state-dir", str(tmp_path)], payload).returncode == 0
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "remind at 3, 4, deny at 5, stop at 8" in out
    assert "(its last event was judged with remind at 3, deny at 4, stop at 8; qwen-code halts a run itself at the 5th" in out
    assert "used profile" not in out
    # settings given to one event alone are no host's doing (br63)
    other = tmp_path / "other"
    env = {**os.environ, "LOOPGUARD_DENY_AT": "6", "LOOPGUARD_REMIND_AT": "2"}
    assert hook(["--state-dir", str(other)], READ, env).returncode == 0
    code, out, _ = cli(["status", "--state-dir", str(other)], capsys)
    assert code == 0 and "(its last event was judged with remind at 2, deny at 6, stop at 8)" in out, out


def test_status_words_a_reminder_held_at_a_stop_as_log_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same short reply to three prompts: the third Stop holds a text reminder. `status` said
    "allow (would remind) (LOOP_GUARD_TEXT) Stop None x0" (a new user's reading)."""
    payloads = EXAMPLES / "payloads/claude-code-2.1.332"
    stop = json.loads((payloads / "Stop.json").read_text())
    prompt = json.loads((payloads / "UserPromptSubmit.json").read_text())
    signoff = {**stop, "last_assistant_message": "Next report in 10 minutes."}
    for i in range(3):
        hook(["--state-dir", str(tmp_path)], json.dumps({**prompt, "prompt": f"check the backtest ({i})"}).encode())
        hook(["--state-dir", str(tmp_path)], json.dumps(signoff).encode())
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "held (remind) (LOOP_GUARD_TEXT) Stop [main]" in out
    assert "None" not in out and " x0 " not in out


@pytest.mark.parametrize(("config", "in_a_row"), [({}, 3), ({"same_plan_deny_at": 0}, None)])
def test_status_counts_a_plan_list_sent_again_in_a_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: dict[str, int], in_a_row: int | None
) -> None:
    """The same TodoWrite list sent three times in a row (the third denied): a list tool is not
    tracked, so the chain of identical calls (`consecutive`) is of the calls before it, and
    `status` said "its last call sent 1 time in a row" (or 0 times, with no tracked call before).
    It says the sends the same-plan rule counted; with that rule off nothing counts them, and the
    agent's line says nothing of them."""
    import scenario

    data = scenario.load(EXAMPLES.parent / "tests/scenarios/same_plan_agent_with_nothing_left_resends_its_list.json")
    first = next(i for i, s in enumerate(data["steps"]) if s.get("pre", "").startswith("deny"))
    data["steps"] = data["steps"][: first + 1]
    if config:
        data["config"] = config
        data["steps"][first]["pre"] = "silent"
    assert scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state")).play() == []
    code, text, _ = cli(["status", "--state-dir", str(tmp_path / "state")], capsys)
    line = next(line for line in text.splitlines() if line.startswith("  agent main: "))
    said = f", its last call sent {in_a_row} times in a row" if in_a_row else "(and 5 planning calls)"
    assert code == 0 and line.endswith(said)
    code, out, _ = cli(["status", "--json", "--state-dir", str(tmp_path / "state")], capsys)
    agent = json.loads(out)["sessions"][0]["agents"]["main"]
    assert code == 0 and agent["last_call_in_a_row"] == in_a_row and agent["consecutive"] == 1  # the Task before


def test_found_by_adversarial_runs(tmp_path: Path) -> None:
    """Hard links and FIFOs planted in the state dir, a closed stdout, no tool_use_id."""
    victim = tmp_path / "victim.txt"
    victim.write_text("ORIGINAL")
    victim.chmod(0o644)
    state = tmp_path / "s"
    assert hook(["--state-dir", str(state)], READ).returncode == 0
    sid = json.loads(READ)["session_id"]
    os.link(victim, state / "sessions" / f"{sid}.tmp")
    os.mkfifo(state / "decisions.jsonl")
    for i in range(5):
        pre = json.loads(READ)
        pre["tool_use_id"] = f"x{i}"
        proc = hook(["--state-dir", str(state)], json.dumps(pre).encode())
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert victim.read_text() == "ORIGINAL" and (victim.stat().st_mode & 0o777) == 0o644
    # stdout closed: the decision is still made, and nothing crashes
    proc = subprocess.run(f'"{EXE}" --state-dir "{state}" >&-', shell=True, input=READ, capture_output=True, timeout=30)
    assert proc.returncode == 0 and b"internal error" not in proc.stderr
    # a client that sends no tool_use_id: each call is counted once, not at Pre and again at Post
    codex = tmp_path / "c"
    for _ in range(3):
        pre = {"hook_event_name": "PreToolUse", "session_id": "c", "turn_id": "t", "tool_name": "Bash",
               "tool_input": {"command": "cat notes.txt"}}
        hook(["--state-dir", str(codex)], json.dumps(pre).encode())
        hook(["--state-dir", str(codex)], json.dumps({**pre, "hook_event_name": "PostToolUse", "tool_response": "hi"}).encode())
    ledger = json.loads((codex / "sessions" / "c.json").read_text())
    assert ledger["agents"]["main"]["attempts"] == 3


def test_gc_needs_a_unit_and_its_dry_run_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bare number is refused (7 seconds or 7 days?); the dry run names what gc then deletes,
    a session being as old as the newest of its files."""
    loop(tmp_path, 1)
    code, _, err = cli(["gc", "--older-than", "7", "--state-dir", str(tmp_path)], capsys)
    assert code == 1 and "the unit is required" in err and "gc --help" in err
    assert list((tmp_path / "sessions").glob("*.json"))
    old = os.path.getmtime(next((tmp_path / "sessions").glob("*.json"))) - 30 * 86400
    for path in (tmp_path / "sessions").iterdir():
        if path.suffix == ".json":
            os.utime(path, (old, old))  # the ledger is old, its lock file is not
    code, out, _ = cli(["gc", "--older-than", "7d", "--dry-run", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "would delete 0 session(s)" in out
    assert "deleted 0" in cli(["gc", "--older-than", "7d", "--state-dir", str(tmp_path)], capsys)[1]


def test_config_check_uses_the_options_before_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("remind_at = [4, 3]\n")
    code, _, err = cli(["--config", str(bad), "config", "check"], capsys)
    assert code == 1 and "remind_at" in err and "bad.toml" in err
    good = tmp_path / "good.toml"
    good.write_text("deny_at = 6\n")
    code, out, _ = cli(["--config", str(good), "config", "check"], capsys)
    assert code == 0 and "good.toml" in out


def test_config_check_names_every_file_it_read_also_one_overridden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no PATH, the check reads the user file and the project file: both are named, lowest
    first, though the project file overrides every value of the user file; then the environment
    and the command line, which set values too."""
    user = tmp_path / "xdg/loopguard-hook/config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("deny_at = 6\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".loopguard.toml").write_text("deny_at = 7\n")
    for key in [k for k in os.environ if k.startswith("LOOPGUARD_") or k == "CLAUDE_PROJECT_DIR"]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(project)
    code, out, _ = cli(["config", "check"], capsys)
    assert code == 0 and out == f"config OK: user file {user}; project file {project / '.loopguard.toml'}\n", out
    monkeypatch.setenv("LOOPGUARD_MODE", "advise")
    code, out, _ = cli(["--profile", "breaker", "config", "check"], capsys)
    tail = f"project file {project / '.loopguard.toml'}; environment (LOOPGUARD_MODE); command line\n"
    assert code == 0 and out.endswith(tail), out
    odd = tmp_path / "odd\x1b[31m\nname"  # a folder name a terminal would act on
    odd.mkdir()
    (odd / ".loopguard.toml").write_text("deny_at = 7\n")
    monkeypatch.chdir(odd)
    code, out, _ = cli(["config", "check"], capsys)
    assert code == 0 and out.count("\n") == 1 and "\x1b" not in out and "odd\\x1b[31m\\nname" in out, out
    monkeypatch.chdir(project)
    user.write_text("deny_at = 1\n")  # overridden, and still checked
    code, _, err = cli(["config", "check"], capsys)
    assert code == 1 and str(user) in err


def test_observe_mode_keeps_the_ledger_after_session_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loop(tmp_path, 5, ("--mode", "observe"))
    end = (EXAMPLES / "payloads/claude-code-2.1.332/SessionEnd.json").read_bytes()
    assert hook(["--state-dir", str(tmp_path), "--mode", "observe"], end).returncode == 0
    code, out, _ = cli(["status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and "nothing shown (observe; would deny)" in out
    assert hook(["--state-dir", str(tmp_path)], end).returncode == 0  # enforce: the ledger goes
    assert cli(["status", "--state-dir", str(tmp_path)], capsys)[1].splitlines()[-2] == "no sessions"


def test_group_without_its_command_prints_plain_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(["config"], capsys)
    assert code == 1 and err.startswith("Usage: loopguard-hook config") and "(see" not in err


def test_config_check_of_a_good_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A check that finds nothing says so on stdout, naming the file (silence read as a hang)."""
    good = tmp_path / "good.toml"
    good.write_text("deny_at = 6\n")
    code, out, err = cli(["config", "check", str(good)], capsys)
    assert (code, err) == (0, "") and out == f"config OK: {good}\n"


def test_config_check_notes_a_reminder_the_denial_comes_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`deny_at = 2` under `remind_at = [3, 4]` is legal, but neither reminder can come (the
    repeat rule denies the call first): the check says so in a note, and still exits 0."""
    early = tmp_path / "early.toml"
    early.write_text("deny_at = 2\nremind_at = [3, 4]\n")
    code, out, err = cli(["config", "check", str(early)], capsys)
    assert (code, err) == (0, "") and out.startswith(f"config OK: {early}\n"), out
    assert "note:" in out and "remind_at 3, 4 at or past deny_at = 2" in out, out
    early.write_text("deny_at = 0\nstop_at = 4\nremind_at = [3, 5]\n")
    out = cli(["config", "check", str(early)], capsys)[1]
    assert "remind_at 5 at or past stop_at = 4: never reminded there (the turn ends first)" in out, out
    early.write_text("deny_at = 6\nremind_at = [3, 4]\n")
    assert cli(["config", "check", str(early)], capsys)[1] == f"config OK: {early}\n"


def test_a_missing_option_with_choices_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """click lists a missing option's choices one per line, tab-indented, the help hint glued to
    the last (a new user's `loopguard-hook install`): one line now, choices and hint on it."""
    code, out, err = cli(["install"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and "\t" not in err, err
    assert "Missing option '--client'. Choose from: claude-code, codex," in err and err.rstrip().endswith("install --help)")


def test_status_names_a_session_by_the_start_of_its_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`status` lists long ids; a new user gave the first characters and got "no state for
    session". A start that one session's id has is that session; one that several share is
    refused, saying to give more; `reset` still wants the whole id (it deletes)."""
    for session in ("5adc0f1e-aaaa", "5adc77b2-bbbb", "9e01c3d4-cccc"):
        pre = json.loads(READ)
        pre.update(session_id=session, tool_use_id=f"t-{session}")
        assert hook(["--state-dir", str(tmp_path)], json.dumps(pre).encode()).returncode == 0
    code, out, err = cli(["status", "--json", "--session", "9e01", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and [s["session_id"] for s in json.loads(out)["sessions"]] == ["9e01c3d4-cccc"], (out, err)
    code, out, err = cli(["status", "--session", "5adc", "--state-dir", str(tmp_path)], capsys)
    assert code == 1 and out == "" and "2 sessions start with 5adc: 5adc0f1e-aaaa, 5adc77b2-bbbb; give more of the id" in err, err
    code, out, err = cli(["status", "--json", "--session", "5adc7", "--state-dir", str(tmp_path)], capsys)
    assert code == 0 and [s["session_id"] for s in json.loads(out)["sessions"]] == ["5adc77b2-bbbb"]
    assert cli(["status", "--session", "zz", "--state-dir", str(tmp_path)], capsys)[0] == 1
    code, _, err = cli(["reset", "--session", "9e01", "--state-dir", str(tmp_path)], capsys)
    assert code == 1 and "no state for session 9e01" in err and "reset wants the whole id" in err, err
    code, _, err = cli(["reset", "--session", "zz", "--state-dir", str(tmp_path)], capsys)
    assert code == 1 and "whole id" not in err, err  # no id starts so: a plain "no state"
