"""Many hooks of one session at once on a starved CPU: the lock is held only for the
read-modify-write (the decision is prepared before it), and a wait that sees the queue move
goes on past `lock_timeout_seconds` (a hung holder still fails open after it)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_hardening_helpers import dumps, load_state, pre, run_hook

from loopguard_hook.core import engine
from loopguard_hook.hook import HookOptions, run

T0 = 1_800_000_000.0

#: Holds the session lock for 3 s, committing a new ledger every 0.3 s, as a queue of other hooks
#: would: the lock is busy longer than lock_timeout, yet the queue is moving.
_BUSY_QUEUE = textwrap.dedent(
    """
    import fcntl, os, sys, time
    sessions = sys.argv[1]
    fd = os.open(os.path.join(sessions, "s1.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("locked", flush=True)
    data = open(os.path.join(sessions, "s1.json"), "rb").read()
    for _ in range(10):
        time.sleep(0.3)
        with open(os.path.join(sessions, "s1.tmp"), "wb") as fh:
            fh.write(data)
        os.replace(os.path.join(sessions, "s1.tmp"), os.path.join(sessions, "s1.json"))
    """
)


def test_a_moving_queue_is_waited_for_past_the_lock_timeout(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = pre("claude-code", "s1", "Bash", {"command": "ls"}, "toolu_1")
    assert run(dumps(first), options=HookOptions(state_dir=str(state)), environ={}, user_config="").exit_code == 0
    holder = subprocess.Popen([sys.executable, "-c", _BUSY_QUEUE, str(state / "sessions")], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        outcome = run_hook(dumps(pre("claude-code", "s1", "Bash", {"command": "pwd"}, "toolu_2")), "--state-dir", str(state),
                           env={**os.environ, "LOOPGUARD_LOCK_TIMEOUT_SECONDS": "1"})
    finally:
        holder.wait(30)
        if holder.stdout is not None:
            holder.stdout.close()
    assert outcome.returncode == 0 and outcome.stderr == b"", outcome.stderr
    assert outcome.seconds >= 2.5
    assert load_state(state, "s1")["attempts"] == 2


def test_the_lock_is_held_only_for_the_read_modify_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine runs before the lock; under it only when the ledger changed meanwhile."""
    from loopguard_hook import store as state_mod

    held = []
    real_apply, real_lock = engine.step, state_mod.Store._lock
    locked = [False]

    def apply(*args, **kwargs):  # type: ignore[no-untyped-def]
        held.append(locked[0])
        return real_apply(*args, **kwargs)

    def lock(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        cm = real_lock(self, *args, **kwargs)

        class Wrapped:
            def __enter__(self):  # type: ignore[no-untyped-def]
                value = cm.__enter__()
                locked[0] = True
                return value

            def __exit__(self, *exc):  # type: ignore[no-untyped-def]
                locked[0] = False
                return cm.__exit__(*exc)

        return Wrapped()

    monkeypatch.setattr(engine, "step", apply)
    monkeypatch.setattr(state_mod.Store, "_lock", lock)
    options = HookOptions(state_dir=str(tmp_path / "state"))
    for i in range(4):
        payload = dumps(pre("claude-code", "s1", "Bash", {"command": "ls"}, f"toolu_{i}"))
        assert run(payload, options=options, environ={}, user_config="", clock=lambda i=i: T0 + 5 * i).exit_code == 0
    # the first event of all makes the state directory (nothing to read before); after that, none
    assert held[1:] == [False] * 3, held
    assert load_state(tmp_path / "state", "s1")["attempts"] == 4


#: Median seconds from start of a burst of 64 bare interpreters (start, reach `read(0)`, read the
#: payload, exit) under bench/load.py's 28 busy loops, on the machine the 8 s deadline was set on
#: (2 cores, 2026-12: 2.48-2.91 s over ten rounds).
REFERENCE_BARE_BURST_SECONDS = 2.7


@pytest.mark.slow
def test_64_simultaneous_hooks_on_a_loaded_machine_rarely_fail_open(tmp_path: Path) -> None:
    """bench/load.py with 28 busy loops (a load of 30 and more on 2 cores): at most 1% fail open,
    no decision wrong, the ledger counts every process that exited 0 and no other, but for one
    that failed open at its deadline after its ledger was written (the update is kept whole: the
    call it counts went ahead).

    Each round's deadline is the hook's own 8 s in units of a burst of bare interpreters run
    just before it under the same load (`--reference`, never shorter): what fails open past a
    fixed deadline is a figure of how starved the machine is at that moment (CI's shared host
    once ran these hooks 3.4 times slower than here, with its idle speed the same, and 2 of 192
    failed open), while the share that fails open at a deadline of the same number of bare
    bursts is the guard's."""
    import json

    from loopguard_hook.process import DEADLINE_SECONDS

    bench = Path(__file__).parent.parent / "bench" / "load.py"
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(bench), "--busy", "28", "--rounds", "3", "--seconds", "240",
                           "--deadline", str(DEADLINE_SECONDS), "--reference", str(REFERENCE_BARE_BURST_SECONDS)],
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.decode().splitlines()[-1])
    print(f"\n{result} in {time.monotonic() - started:.0f} s")
    assert result["other_failures"] == 0 and result["wrong_decisions"] == 0 and result["ledger_counts_exit_0"]
    assert result["failed_open_pct"] <= 1.0
