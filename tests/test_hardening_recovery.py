"""A directory, a FIFO or a file its owner cannot read, planted where a session's ledger, temp
file or lock belongs: the next event moves it aside (one stderr line) and the session goes on
counting; `reset --session` clears it; `status` says only what really happens."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import orjson
import pytest
from test_hardening_helpers import HOOK, can_drop_capabilities, drop_file_capabilities, dumps, post, pre

from loopguard_hook.hook import HookOptions, run
from loopguard_hook.store import session_file_name

AS_USER = drop_file_capabilities if os.geteuid() == 0 else None
#: A time for the in-process events.
T0 = 1_800_000_000.0
KINDS = ["directory", "full-directory", "fifo", "unreadable"]


def _plant(path: Path, kind: str) -> None:
    if path.exists():
        path.unlink()
    if kind == "directory":
        path.mkdir()
    elif kind == "full-directory":
        path.mkdir()
        (path / "inside").write_text("x")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_text("{}")
        os.chmod(path, 0)


def _event(state: Path, payload: dict[str, object]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [HOOK, "--state-dir", str(state)], input=dumps(payload), capture_output=True, timeout=60, preexec_fn=AS_USER
    )


def _call(state: Path, i: int) -> subprocess.CompletedProcess[bytes]:
    first = _event(state, pre("claude-code", "s1", "Bash", {"command": "ls"}, f"t{i}"))
    second = _event(state, post("claude-code", "s1", "Bash", {"command": "ls"}, f"t{i}", {"stdout": "", "stderr": ""}))
    assert second.returncode == 0, second.stderr
    return first


needs_caps = pytest.mark.skipif(
    os.geteuid() == 0 and not can_drop_capabilities(), reason="root here cannot drop CAP_DAC_OVERRIDE"
)


@needs_caps
@pytest.mark.parametrize("suffix", [".json", ".tmp", ".lock"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_state_file_recovers_at_the_next_event(kind: str, suffix: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    assert _call(state, 0).returncode == 0
    _plant(state / "sessions" / f"s1{suffix}", kind)
    first = _call(state, 1)
    assert first.returncode == 0 and first.stdout == b"", first.stderr
    assert len(first.stderr.splitlines()) <= 1 and b"Traceback" not in first.stderr
    # counting goes on: two more identical calls, the last reminded
    assert _call(state, 2).returncode == 0
    third = _call(state, 3)
    assert third.returncode == 0 and third.stderr == b"" and third.stdout, third


@needs_caps
@pytest.mark.parametrize("suffix", [".json", ".tmp", ".lock"])
@pytest.mark.parametrize("kind", KINDS)
def test_reset_clears_a_bad_state_file(kind: str, suffix: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "sessions").mkdir(parents=True, mode=0o700)
    os.chmod(state, 0o700)
    _plant(state / "sessions" / f"s1{suffix}", kind)
    status = subprocess.run([HOOK, "status", "--state-dir", str(state)], capture_output=True, timeout=60, preexec_fn=AS_USER)
    assert status.returncode == 0, status.stderr
    if suffix == ".json":  # the promise status makes is kept by the next event
        assert b"moved aside" in status.stdout
    reset = subprocess.run(
        [HOOK, "reset", "--session", "s1", "--state-dir", str(state)], capture_output=True, timeout=60, preexec_fn=AS_USER
    )
    if kind.endswith("directory"):
        # a directory is not the guard's to delete: reset leaves it, the next event moves it aside
        # (a lock planted as a folder is replaced by taking the lock, and so is cleared)
        said = b"reset session s1" if suffix == ".lock" else b"is not a file the guard wrote; left as it is"
        assert reset.returncode == 0 and said in reset.stdout, reset
        assert _call(state, 0).returncode == 0
        assert not (state / "sessions" / f"s1{suffix}").is_dir()
        return
    assert reset.returncode == 0 and b"reset session s1" in reset.stdout, reset
    assert not (state / "sessions" / f"s1{suffix}").exists()
    assert _call(state, 0).returncode == 0


PAYLOADS = Path(__file__).resolve().parents[1] / "examples" / "payloads"


@pytest.mark.parametrize(("client", "event", "payload"), [
    ("claude-code", None, PAYLOADS / "claude-code-2.1.332" / "PreToolUse.Read.json"),
    ("copilot", "preToolUse", PAYLOADS / "copilot-1.0.102" / "preToolUse.bash.json"),
])
def test_a_directory_planted_as_the_lock_is_moved_aside_with_one_line(
    client: str, event: str | None, payload: Path, tmp_path: Path
) -> None:
    """A directory at a session's lock name is moved to `<id>.corrupt` with one line, as a damaged
    ledger is (it was moved silently): on stderr, or, on a host that takes a hook's stderr or
    failure badly, in `errors.log` with nothing on stderr and exit 0. The ledger is kept."""
    state = tmp_path / "state"
    raw = payload.read_bytes()
    sid = session_file_name(orjson.loads(raw).get("session_id") or orjson.loads(raw)["sessionId"])
    options = HookOptions(client=client, event=event, state_dir=str(state))
    assert run(raw, options=options, environ={}, user_config="", clock=lambda: T0).exit_code == 0
    lock = state / "sessions" / f"{sid}.lock"
    lock.unlink()
    lock.mkdir()
    result = run(raw, options=options, environ={}, user_config="", clock=lambda: T0 + 1)
    line = f"loopguard-hook: lock file {sid}.lock could not be opened (Is a directory); moved it to {sid}.corrupt"
    assert result.exit_code == 0
    if client == "copilot":
        assert result.stderr == ""
        assert (state / "errors.log").read_text().splitlines()[-1] == line
    else:
        assert result.stderr == line
    assert (state / "sessions" / f"{sid}.corrupt").is_dir() and lock.is_file()
    assert orjson.loads((state / "sessions" / f"{sid}.json").read_bytes())["attempts"] >= 1  # not started afresh


@needs_caps
@pytest.mark.parametrize("kind", ["garbage", "fifo", "unreadable"])
def test_a_bad_ledger_recovers_when_the_aside_name_holds_a_full_directory(kind: str, tmp_path: Path) -> None:
    """A directory planted as the ledger is moved to `s1.corrupt`, files and all. A later bad
    ledger cannot be moved there (a directory with files in it is not the guard's to delete): it
    is deleted instead, one line, where it used to fail every event of the session."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    assert _call(state, 0).returncode == 0
    _plant(state / "sessions" / "s1.json", "full-directory")
    assert _call(state, 1).returncode == 0
    assert (state / "sessions" / "s1.corrupt" / "inside").exists()
    if kind == "garbage":
        (state / "sessions" / "s1.json").write_text('{"version": ')
    else:
        _plant(state / "sessions" / "s1.json", kind)
    first = _call(state, 2)
    assert first.returncode == 0 and first.stdout == b"", first.stderr
    assert len(first.stderr.splitlines()) == 1 and b"deleted it" in first.stderr, first.stderr
    assert _call(state, 3).returncode == 0
    third = _call(state, 4)
    assert third.returncode == 0 and third.stderr == b"" and third.stdout, third
    assert (state / "sessions" / "s1.corrupt" / "inside").exists()  # left alone


def _fail(state: Path, i: int) -> tuple[subprocess.CompletedProcess[bytes], subprocess.CompletedProcess[bytes]]:
    edit = {"file_path": "/home/user/project/a.py", "old_string": f"x = {i}", "new_string": "x = 0"}
    failed = post("claude-code", "s1", "Edit", edit, f"t{i}", None)
    del failed["tool_response"]
    failed.update(hook_event_name="PostToolUseFailure", error=f"String to replace not found in file.\nString: x = {i}")
    return _event(state, pre("claude-code", "s1", "Edit", edit, f"t{i}")), _event(state, failed)


def test_a_ledger_number_too_large_to_save_is_set_aside_once(tmp_path: Path) -> None:
    """A damaged ledger that reads as valid but grows a number JSON cannot hold (the target
    rule's failures on a file of 1e308, turned into an integer past 64 bits by the rule's
    arithmetic) fails one write: one stderr line, the ledger moved aside, and the next events
    count afresh (before, every later post event failed the same way and the guard was off for
    the session)."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    for i in range(3):
        assert all(run.returncode == 0 for run in _fail(state, i))
    ledger = state / "sessions" / "s1.json"
    data = orjson.loads(ledger.read_bytes())
    entry = data["agents"]["main"]["rules"]["target"]["project/a.py"]  # [failures, read since, ...]
    assert isinstance(entry, list) and entry[0] >= 1, data
    entry[0] = 1e308  # the next failure counts: failures + 1

    ledger.write_bytes(orjson.dumps(data))
    runs = [run for i in range(3, 6) for run in _fail(state, i)]
    failed = [run for run in runs if run.returncode != 0]
    assert len(failed) == 1 and failed[0].returncode == 1, [(r.returncode, r.stderr) for r in runs]
    line = failed[0].stderr.decode()
    assert line.count("\n") == 1 and "too large to save" in line and "s1.corrupt" in line, line
    assert (state / "sessions" / "s1.corrupt").exists()
    assert all(b"Traceback" not in run.stderr for run in runs)
    assert orjson.loads(ledger.read_bytes())["attempts"] >= 1


def test_a_value_of_ours_that_cannot_be_saved_is_a_bug_and_keeps_the_ledger(tmp_path: Path) -> None:
    """Only a number too large to save is the ledger's damage. Any other value JSON cannot hold (a
    set, an integer key) is a bug of ours: it is raised as it is (the hook logs it and lets the
    call through) and the ledger on disk stays; a first write of such a number claims no move."""
    from loopguard_hook.store import StateError, Store

    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    assert all(run.returncode == 0 for run in _fail(state, 0))  # a real ledger
    store = Store(str(state), lock_timeout=10)
    ledger = state / "sessions" / "s1.json"
    kept = ledger.read_bytes()
    with pytest.raises(TypeError) as raised:
        with store.session("s1") as handle:
            assert handle.state is not None
            handle.state["oops"] = {1, 2}  # type: ignore[typeddict-unknown-key]
            handle.dirty = True
    assert not isinstance(raised.value, StateError) and ledger.read_bytes() == kept
    assert not (state / "sessions" / "s1.corrupt").exists()
    with pytest.raises(StateError, match="too large to save; started afresh$"):
        with store.session("s2") as handle:
            handle.state, handle.dirty = {"version": 2, "n": 2**70}, True
    assert not (state / "sessions" / "s2.corrupt").exists()


#: Claude Code 2.1.332's own payloads of one Read (captured: examples/payloads/).
CAPTURED = Path(__file__).resolve().parent.parent / "examples" / "payloads" / "claude-code-2.1.332"


def _read(state: Path, session: str, i: int) -> subprocess.CompletedProcess[bytes]:
    """One Read of `notes.txt` in `session`, its PreToolUse and PostToolUse as Claude Code sent
    them; the PreToolUse's run."""
    runs = []
    for name in ("PreToolUse.Read.json", "PostToolUse.Read.json"):
        payload = orjson.loads((CAPTURED / name).read_bytes())
        payload["transcript_path"] = payload["transcript_path"].replace(payload["session_id"], session)
        payload.update(session_id=session, tool_use_id=f"toolu_{session[:2]}_{i}")
        runs.append(_event(state, payload))
    assert runs[1].returncode == 0 and runs[1].stdout == b"", runs[1]
    assert runs[0].returncode == 0, runs[0]
    return runs[0]


def test_a_ledger_copied_over_another_sessions_is_set_aside(tmp_path: Path) -> None:
    """One session's ledger copied over another's (its `session_id` names the first) is not the
    second session's counts: the next event moves it aside, as a damaged ledger, and the session
    counts afresh (before, the copy's four Reads made the fifth session's first Read a denial)."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    a, b = "0a1c5b2e-aaaa-4e77-84b5-4f0269348799", "0b2d6c3f-bbbb-4e77-84b5-4f0269348799"
    for i in range(4):
        _read(state, a, i)
    assert _read(state, b, 0).stdout == b""
    sessions = state / "sessions"
    (sessions / f"{b}.json").write_bytes((sessions / f"{a}.json").read_bytes())
    first = _read(state, b, 1)
    assert first.stdout == b"", first.stdout  # its first Read again, not the copy's fifth
    line = first.stderr.decode()
    assert line.count("\n") == 1 and "belongs to another session" in line and f"{b}.corrupt" in line, line
    assert orjson.loads((sessions / f"{b}.corrupt").read_bytes())["session_id"] == a
    ledger = orjson.loads((sessions / f"{b}.json").read_bytes())
    assert ledger["session_id"] == b and ledger["attempts"] == 1, ledger
    assert _read(state, b, 2).stderr == b""
    third = _read(state, b, 3)
    assert third.stderr == b"" and _answer(third) == "remind", third  # counting goes on: reminded at 3
    assert orjson.loads((sessions / f"{a}.json").read_bytes())["attempts"] == 4  # the original is left alone


def _negate(ledger: dict[str, object], where: str) -> None:
    main = ledger["agents"]["main"]  # type: ignore[index]
    if where == "session attempts":
        ledger["attempts"] = -1
    elif where == "since":
        main["since"] = -40
    elif where == "chain":
        main["chain"][1] = -40
    else:  # a signature's counts: below 0, huge, a fraction
        count = {"signature": -100, "signature huge": 1e308, "signature past 64 bits": 10**30, "signature fraction": 2.5}
        for sig in main["sigs"].values():
            sig["n"] = sig["total"] = count[where]


@pytest.mark.parametrize(
    "where", ["signature", "signature huge", "signature past 64 bits", "signature fraction", "since", "chain", "session attempts"]
)
def test_a_ledger_with_a_count_no_event_writes_is_set_aside(where: str, tmp_path: Path) -> None:
    """A hand-edited ledger with a count no event writes (below 0, a fraction, past 2^53) is a
    damaged ledger: the next event moves it aside with one stderr line and the session counts
    afresh. Before, a signature's count of -100 let a hundred more identical Reads through
    without a word, and one of 1e308 ended the turn at the next Read (a hostile review)."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    session = "0c3e7d40-cccc-4e77-84b5-4f0269348799"
    for i in range(2):
        _read(state, session, i)
    path = state / "sessions" / f"{session}.json"
    ledger = orjson.loads(path.read_bytes())
    _negate(ledger, where)
    path.write_text(json.dumps(ledger))  # orjson writes no integer past 64 bits
    runs = [_read(state, session, i) for i in range(2, 7 if where.startswith("signature") else 3)]
    line = runs[0].stderr.decode()
    assert line.count("\n") == 1 and "count no event writes" in line and f"{session}.corrupt" in line, line
    assert (state / "sessions" / f"{session}.corrupt").exists()
    assert all(run.stderr == b"" for run in runs[1:]), [run.stderr for run in runs]
    if where.startswith("signature"):  # counted afresh: reminded at the 3rd and 4th, denied at the 5th
        assert [_answer(run) for run in runs] == ["", "", "remind", "remind", "deny"], [run.stdout for run in runs]


def _answer(run: subprocess.CompletedProcess[bytes]) -> str:
    """What a PreToolUse run answered: "" (nothing), "remind" or "deny"."""
    if not run.stdout:
        return ""
    said = orjson.loads(run.stdout)["hookSpecificOutput"]
    return "deny" if said.get("permissionDecision") == "deny" else "remind"
