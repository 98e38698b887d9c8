"""A big payload reaches the helper as the client's stdin descriptor, not through the socket.

- The same decisions and state as in-process, from a pipe and from a regular file.
- A declined event (the helper cannot enter the client's directory) leaves all of stdin to the
  client; the 128 MiB cap holds in the helper too; a stdin that never ends is bounded.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import scenario
from resident import folder_of, this_key
from test_fastpath_parity import TwinRunner, _files, _patient_client, helper_env  # noqa: F401 - fixtures
from test_hardening_helpers import HOOK

from loopguard_hook import process
from loopguard_hook.fastpath import client, helper, request
from loopguard_hook.hook import HookResult, run


class _Stdin:
    """A payload as a hook's stdin: a pipe fed by a thread, or a regular file; the first
    `FIRST_READ` bytes already read, as the console script does."""

    def __init__(self, raw: bytes, kind: str, folder: Path) -> None:
        self.thread: threading.Thread | None = None
        if kind == "file":
            path = folder / f"stdin-{time.monotonic_ns()}.json"
            path.write_bytes(raw)
            self.fd = os.open(path, os.O_RDONLY)
        else:
            self.fd, write = os.pipe()

            def feed() -> None:
                view = memoryview(raw)
                try:
                    while view:
                        view = view[os.write(write, view) :]
                except OSError:
                    pass
                finally:
                    os.close(write)

            self.thread = threading.Thread(target=feed, daemon=True)
            self.thread.start()
        self.first = b""
        while len(self.first) < process.FIRST_READ:
            chunk = os.read(self.fd, process.FIRST_READ - len(self.first))
            assert chunk
            self.first += chunk

    def rest(self) -> bytes:
        chunks = []
        while chunk := os.read(self.fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        os.close(self.fd)
        if self.thread is not None:
            self.thread.join(10)


class HandOverRunner(TwinRunner):
    """In-process, and through the helper with a big payload's stdin handed over (by turns a
    pipe and a file)."""

    turn = 0

    def send(self, step: scenario.Step, now: float) -> HookResult:
        raw = scenario.json.dumps(step.payload).encode()
        if len(raw) <= process.FIRST_READ:
            return super().send(step, now)
        result = run(raw, options=self._options(self.inproc), environ=self.env, clock=lambda: now)
        self.turn += 1
        stdin = _Stdin(raw, ("pipe", "file")[self.turn % 2], self.inproc.parent)
        try:
            reply = client.handle(self._options(self.resident)._asdict(), stdin.first, now, self.env, stdin.fd)
        finally:
            stdin.close()
        mine = (int(result.exit_code), result.stdout, result.stderr)
        if reply != mine:
            self.differences.append(f"step {step.index} {step.event}: in-process {mine!r}, resident {reply!r}")
        self.results.append((step, result))
        return result


BIG_SCENARIOS = sorted({(name, profile, name_client) for name, profile, name_client in scenario.cases()
                        if name.startswith("big_")})


@pytest.mark.parametrize(("name", "profile", "client_name"), BIG_SCENARIOS)
def test_big_scenarios_decide_the_same_with_stdin_handed_over(
    name: str, profile: str, client_name: str, tmp_path: Path, helper_env: dict[str, str]  # noqa: F811
) -> None:
    data = scenario.load(scenario.SCENARIO_DIR / name)
    runner = HandOverRunner(data, profile, client_name, tmp_path, helper_env)
    assert not runner.play()
    assert runner.turn > 0, "no payload was big"
    assert not runner.differences, "\n".join(runner.differences[:5])
    assert _files(runner.inproc) == _files(runner.resident)


def _big_write(event: str, content: str, cwd: Path, call: str) -> bytes:
    data: dict[str, Any] = {"session_id": "big-stdin", "hook_event_name": event, "cwd": str(cwd),
                            "transcript_path": str(cwd / "none.jsonl"), "tool_name": "Write",
                            "tool_input": {"file_path": str(cwd / "a.py"), "content": content},
                            "tool_use_id": call}
    if event == "PostToolUse":
        data["tool_response"] = {"type": "update", "filePath": str(cwd / "a.py"), "content": content,
                                 "originalFile": content, "structuredPatch": []}
    return scenario.json.dumps(data, ensure_ascii=False).encode()


@pytest.mark.parametrize("kind", ["pipe", "file"])
def test_the_console_script_reads_a_big_stdin_as_in_process(kind: str, tmp_path: Path,
                                                            helper_env: dict[str, str]) -> None:  # noqa: F811
    content = scenario.big_text(3 << 20, "console")
    events = [_big_write(e, content, tmp_path, f"toolu_{n}") for n in range(5) for e in ("PreToolUse", "PostToolUse")]

    def once(state: Path, resident: bool) -> list[tuple[int, bytes, bytes]]:
        env = {**helper_env, "LOOPGUARD_RESIDENT": "on" if resident else "off"}
        out = []
        for i, raw in enumerate(events):
            argv = [HOOK, "--state-dir", str(state)]
            if kind == "file":
                path = tmp_path / f"event-{i}.json"
                path.write_bytes(raw)
                with open(path, "rb") as fh:
                    proc = subprocess.run(argv, stdin=fh, env=env, capture_output=True, timeout=60, check=False)
            else:
                proc = subprocess.run(argv, input=raw, env=env, capture_output=True, timeout=60, check=False)
            out.append((proc.returncode, proc.stdout, proc.stderr))
        return out

    resident = once(tmp_path / "r", True)
    assert resident == once(tmp_path / "i", False)
    assert all(code == 0 for code, _, _ in resident)
    assert any(b"loopguard" in out for _, out, _ in resident), "the repeated no-op big write is answered"


def test_a_declined_big_event_leaves_all_of_stdin_to_the_client(tmpdir_env: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper cannot enter the client's directory: it says so before reading stdin."""
    monkeypatch.setattr(client.os, "posix_spawn", lambda *a, **k: 1)
    folder = client.runtime_dir(dict(os.environ))
    assert folder is not None and Path(folder) == folder_of(tmpdir_env)
    server = helper._listen(folder, this_key())
    real_chdir = os.chdir

    def unreachable(path: Any) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    def behave() -> None:
        conn, _ = server.accept()
        with conn:
            monkeypatch.setattr(helper.os, "chdir", unreachable)
            try:
                helper.serve_one(conn, this_key())
            finally:
                monkeypatch.setattr(helper.os, "chdir", real_chdir)
        server.close()

    thread = threading.Thread(target=behave, daemon=True)
    thread.start()
    raw = b'{"hook_event_name": "PreToolUse", "x": "' + b"y" * (3 << 20) + b'"}'
    stdin = _Stdin(raw, "pipe", tmpdir_env)
    try:
        assert client.handle({"state_dir": str(tmpdir_env / "state")}, stdin.first, 1.0, dict(os.environ), stdin.fd) is None
        assert stdin.first + stdin.rest() == raw
    finally:
        stdin.close()
    thread.join(10)


@pytest.mark.parametrize("kind", ["pipe", "file"])
def test_the_rest_is_read_from_where_the_client_stopped(kind: str, tmp_path: Path) -> None:
    raw = bytes(range(256)) * 8192
    stdin = _Stdin(raw, kind, tmp_path)
    try:
        assert request.read_rest(stdin.fd, stdin.first) == raw
    finally:
        stdin.close()


@pytest.mark.parametrize("kind", ["pipe", "file"])
def test_the_helper_reads_at_most_the_cap(kind: str, tmp_path: Path) -> None:
    raw = b"z" * (1 << 20)
    stdin = _Stdin(raw, kind, tmp_path)
    try:
        assert request.read_rest(stdin.fd, stdin.first, limit=300_000) == raw[:300_000]
    finally:
        stdin.close()


def test_an_endless_stdin_gets_the_cap_line_from_the_helper_too(tmp_path: Path, helper_env: dict[str, str]) -> None:  # noqa: F811
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([HOOK, "--state-dir", str(tmp_path)], stdin=zero, capture_output=True, timeout=60,
                              env={**helper_env, "LOOPGUARD_RESIDENT": "on"})
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr.decode().splitlines() == [process.TOO_BIG]


def test_a_stdin_that_never_ends_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request, "STDIN_SECONDS", 0.3)
    read, write = os.pipe()
    try:
        os.write(write, b"{" * 1000)
        with pytest.raises(TimeoutError):
            request.read_rest(read, os.read(read, 10))
    finally:
        os.close(read)
        os.close(write)


def test_a_pipe_longer_than_the_kept_buffer_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request, "_kept", [])
    monkeypatch.setattr(request, "KEPT_BYTES", 200_000)
    for raw in (bytes(range(256)) * 4096, b"q" * 150_000, bytes(range(256)) * 3000):  # longer, shorter, reused
        stdin = _Stdin(raw, "pipe", tmp_path)
        try:
            assert request.read_rest(stdin.fd, stdin.first) == raw
        finally:
            stdin.close()


def _reader_of(pipe: int) -> int | None:
    """The pid of another process holding the pipe `pipe` open (the worker reading it)."""
    target = f"pipe:[{os.fstat(pipe).st_ino}]"
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        if target in links:
            return int(pid)
    return None


def test_a_worker_killed_while_reading_stdin_lets_the_call_through(helper_env: dict[str, str]) -> None:  # noqa: F811
    """Past the point of no return (the request with the descriptor handed over): one line and
    exit 1, never a second run."""
    import signal

    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 1 << 20)  # room for more than the client's first read
    os.write(write, b'{"hook_event_name": "PreToolUse", "x": "' + b"y" * (process.FIRST_READ + 100))
    first = os.read(read, process.FIRST_READ)
    replies: list[object] = []
    thread = threading.Thread(target=lambda: replies.append(
        client.handle({"state_dir": "/nonexistent/state"}, first, 1.0, helper_env, read)), daemon=True)
    try:
        thread.start()
        deadline = time.monotonic() + 20
        worker = None
        while worker is None and time.monotonic() < deadline:
            worker = _reader_of(read)
            time.sleep(0.02)
        assert worker is not None, "no worker took the descriptor"
        os.kill(worker, signal.SIGKILL)
        thread.join(20)
        assert replies == [(1, b"", client.LOST)]
    finally:
        os.close(write)
        os.close(read)


def test_a_huge_regular_file_as_stdin_is_never_mapped_whole(tmp_path: Path) -> None:
    """A 6 GiB (sparse) file given as stdin: the helper maps no more than the cap past where the
    payload began, reads none of it ahead, and the answer is that it is too big."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.write(b'{"hook_event_name": "PreToolUse", "x": "')
        fh.truncate(6 << 30)
    fd = os.open(path, os.O_RDONLY)
    try:
        first = os.read(fd, process.FIRST_READ)
        view = request.read_rest(fd, first)
        assert isinstance(view, memoryview)
        assert len(view) == process.MAX_PAYLOAD_BYTES + 1  # too big, told by its length alone
        assert len(view.obj) <= process.MAX_PAYLOAD_BYTES + 1  # type: ignore[arg-type]  # the mapping itself
    finally:
        os.close(fd)


def test_the_console_script_says_a_huge_file_stdin_is_too_big_through_the_helper(
    tmp_path: Path, helper_env: dict[str, str]  # noqa: F811
) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.write(b'{"hook_event_name": "PreToolUse", "x": "')
        fh.truncate(6 << 30)
    with open(path, "rb") as stdin:
        proc = subprocess.run([HOOK, "--state-dir", str(tmp_path / "state")], stdin=stdin, capture_output=True,
                              timeout=120, env={**helper_env, "LOOPGUARD_RESIDENT": "on"})
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert proc.stderr.decode().splitlines() == [process.TOO_BIG]
