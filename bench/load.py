"""Burst under CPU load: 64 hooks on one session at once, on a machine kept busy by busy loops.

    .venv/bin/python bench/load.py                      # 28 busy loops, 64 hooks, 5 rounds
    .venv/bin/python bench/load.py --package /tmp/old --package /tmp/new   # rounds alternate

Each round starts `--hooks` hook processes, lets them all reach `read(0)`, then feeds every one
its PreToolUse (distinct calls on one session, so every right answer is "allow" and the ledger must
count every process that exited 0, and of the rest at most those whose deadline came after their
ledger was written). Reports how many failed open (exit 1 on the lock
wait), any other failure, any wrong decision, and the slowest process. The busy loops end by
themselves (`--seconds`), so nothing is left running.

With `--reference R`, each round first runs the same burst of bare interpreters (start, reach
`read(0)`, read the payload, exit) under the same load, and that round's deadline is
`--deadline` times its median seconds from start over R (never less than `--deadline`): the
share that fails open at a fixed deadline is a figure of how starved the machine is at that
moment (a shared host's neighbours included), while the share that fails open at a deadline in
units of a bare interpreter's burst, measured beside it, is the guard's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BUSY = "import time\nend = time.time() + {seconds}\nwhile time.time() < end:\n    pass\n"


def payload(round_: int, worker: int) -> bytes:
    call = f"r{round_}-w{worker}"
    return json.dumps({
        "session_id": "load", "transcript_path": "/tmp/none.jsonl", "cwd": "/tmp", "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": f"ls -d src/{call}"},
        "tool_use_id": f"toolu_{call}",
    }).encode()


def reading_stdin(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/wchan") as fh:
            wchan = fh.read()
        with open(f"/proc/{pid}/syscall") as fh:
            syscall = fh.read().split()
    except OSError:
        return False
    return bool(syscall) and syscall[0] == "0" and syscall[1] == "0x0" and wchan != "0"


#: What the reference burst runs: an interpreter that starts, reads its payload and exits.
BARE = [sys.executable, "-c", "import sys; sys.stdin.buffer.read()"]


def hook_command(state: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from loopguard_hook.entry import main; sys.exit(main(sys.argv[1:]))",
            "--state-dir", state]


def burst(args: argparse.Namespace, cmd: list[str], round_: int, env: dict[str, str]
          ) -> list[tuple[int, bytes, bytes, float, float]]:
    # cwd: not a checkout, whose loopguard_hook/ would shadow PYTHONPATH for `python -c`
    procs, spawned = [], []
    for _ in range(args.hooks):
        spawned.append(time.monotonic())
        procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                      cwd=tempfile.gettempdir()))
    deadline = time.monotonic() + 120
    # one that exited already (its deadline came first) is not waited for
    while time.monotonic() < deadline and not all(p.poll() is not None or reading_stdin(p.pid) for p in procs):
        time.sleep(0.05)
    out: list[tuple[int, bytes, bytes, float, float]] = [(0, b"", b"", 0.0, 0.0)] * len(procs)
    started = time.monotonic()

    def feed(i: int) -> None:
        stdout, stderr = procs[i].communicate(payload(round_, i), timeout=300)
        # seconds from the payload's arrival, and from the process's start (what a host's timeout counts)
        out[i] = (procs[i].returncode, stdout, stderr, time.monotonic() - started, time.monotonic() - spawned[i])

    threads = [threading.Thread(target=feed, args=(i,)) for i in range(len(procs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--busy", type=int, default=28)
    parser.add_argument("--hooks", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=180, help="lifetime of the busy loops")
    parser.add_argument("--in-process", action="store_true", help="LOOPGUARD_RESIDENT=off: every hook decides itself")
    parser.add_argument("--deadline", default=None,
                        help="LOOPGUARD_DEADLINE_SECONDS for the hooks (default: the hook's own, 8 s from its start; "
                             "the wait for every hook to reach read(0) counts towards it)")
    parser.add_argument("--reference", type=_seconds, default=None,
                        help="median seconds from start of a burst of bare interpreters under this load on the "
                             "reference machine: each round's deadline grows by the ratio measured beside it")
    parser.add_argument("--package", action="append", default=[],
                        help="a directory holding loopguard_hook/ to test (repeat it: rounds alternate)")
    args = parser.parse_args()
    packages = args.package or [""]
    envs = {}
    for package in packages:
        env = dict(os.environ)
        env.pop("LOOPGUARD_STATE_DIR", None)
        env["LOOPGUARD_MAX_CALLS_SINCE_PROGRESS"] = "0"  # distinct calls only: every right answer is allow
        if args.in_process:
            env["LOOPGUARD_RESIDENT"] = "off"
        if args.deadline is not None:
            env["LOOPGUARD_DEADLINE_SECONDS"] = args.deadline
        if package:
            env["PYTHONPATH"] = package
        envs[package] = env
    busy = [subprocess.Popen([sys.executable, "-c", BUSY.format(seconds=args.seconds)]) for _ in range(args.busy)]
    try:
        time.sleep(3)
        stats = {p: {"hooks": 0, "failed_open": 0, "deadline": 0, "other_failures": 0, "wrong_decisions": 0, "times": [],
                     "lifetimes": [], "loads": [], "deadlines": []} for p in packages}
        states = {p: tempfile.mkdtemp(prefix="loopguard-load-") for p in packages}
        for r in range(args.rounds):
            for package in random.sample(packages, len(packages)):
                st = stats[package]
                env, note = envs[package], ""
                if args.reference is not None:
                    bare = statistics.median(b[4] for b in burst(args, BARE, r, env))
                    base = float(args.deadline) if args.deadline is not None else 8.0
                    deadline = round(base * max(1.0, bare / args.reference), 1)
                    env = dict(env, LOOPGUARD_DEADLINE_SECONDS=str(deadline))
                    st["deadlines"].append(deadline)
                    note = f", bare burst {bare:.2f} s, deadline {deadline} s"
                results = burst(args, hook_command(states[package]), r, env)
                for code, stdout, stderr, seconds, lifetime in results:
                    st["hooks"] += 1
                    st["times"].append(seconds)
                    st["lifetimes"].append(lifetime)
                    if code == 0 and not stderr:
                        st["wrong_decisions"] += stdout != b""  # distinct calls: anything but allow is wrong
                    elif code == 1 and (b"session lock busy" in stderr or b"no decision within" in stderr):
                        st["failed_open"] += 1  # both let the call through, with one line
                        st["deadline"] += b"no decision within" in stderr
                    else:
                        st["other_failures"] += 1
                        print("other failure:", code, stderr[:300], file=sys.stderr)
                st["loads"].append(os.getloadavg()[0])
                ok = sum(1 for c, _, e, *_ in results if c == 0 and not e)
                print(f"round {r} {package or 'installed'}: {ok}/{len(results)} exit 0, load {os.getloadavg()[0]:.1f}, "
                      f"slowest {max(r[3] for r in results):.2f} s from its payload, "
                      f"{max(r[4] for r in results):.2f} s from its start{note}", flush=True)
        for package in packages:
            st = stats[package]
            try:
                with open(os.path.join(states[package], "sessions", "load.json"), "rb") as fh:
                    attempts = json.loads(fh.read())["attempts"]
            except FileNotFoundError:  # not one hook got as far as the ledger
                attempts = 0
            exit_0 = st["hooks"] - st["failed_open"] - st["other_failures"]
            times = st.pop("times")
            lifetimes = st.pop("lifetimes")
            loads = st.pop("loads")
            if not st["deadlines"]:
                st.pop("deadlines")
            print(json.dumps({
                "package": package or "installed", **st, "failed_open_pct": round(100 * st["failed_open"] / st["hooks"], 2),
                # every process that exited 0 is counted (no lost update); one that failed open at
                # its deadline may have been counted too, its ledger written before the deadline came
                "ledger_attempts": attempts, "exit_0": exit_0,
                "ledger_counts_exit_0": exit_0 <= attempts <= exit_0 + st["deadline"],
                "median_s": round(statistics.median(times), 2), "max_s": round(max(times), 2),
                "max_s_from_start": round(max(lifetimes), 2),
                "busy_loops": args.busy, "mean_load1": round(statistics.mean(loads), 1),
            }))
    finally:
        for p in busy:
            p.kill()
            p.wait()

if __name__ == "__main__":
    main()
