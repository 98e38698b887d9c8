#!/usr/bin/env python3
"""What a hook event costs inside the DeepSeek Harness's (DSH's) sandbox, per bridge.

    python bench/dsh.py [--python PATH] [--rounds N] [--calls N] [--json OUT] [--quick]

DSH 0.1.0-rc.8 starts each hook in the session workspace, confined: its Landlock launcher
(`landlock-run --ro / --rw /dev/null --rw /tmp --rw <workspace> -- bash -c <hook>`, with
no_new_privs) or bubblewrap. For each bridge's dialect (`dsh-claude-code`, `dsh-codex`: the
payloads captured from the real harness, shared/payloads/dsh/0.1.0-rc.8) a workspace gets a DSH
session of `--calls` prior tool calls (Pre and Post each, built in one process through
`hook.run`), and then a fresh `loopguard-hook` process is run per event, started in the
workspace, next to `python -c pass`, one of each case per round in a shuffled order:

- `setpriv --no-new-privs loopguard-hook` (what the speed target is set on), with the resident
  path on (the default) and off (`LOOPGUARD_RESIDENT=off`: every event in-process, as before);
- the same under DSH's own Landlock launcher, when the e2e cache has it
  (`python tests/e2e/dsh/install.py`), with `--rw /tmp` as DSH grants it;
- unconfined, for reference (the user-wide helper).

The events: a small PreToolUse of a new `bash` call (allowed) and its PostToolUse, the
PostToolUse of a `write` of a 5 MiB file (full run), and, unconfined in Claude Code's own shape,
the PostToolUse of a small and of a 5 MiB `Write` (17 MB of JSON); stdin is a pipe, as a host
gives it. The session ledger is restored before every run, so each run does the same work. Reported: medians of wall
time and the paired ratio (median over rounds of run / that round's `python -c pass`), the
figure the target (2.0x) is set on. Results also go to `bench/results/dsh-<time>.json`.
Standard library only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pwd
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from run import _big_text  # noqa: E402  (the text of bench/run.py's 5 MiB Write)

CAPTURED = Path("/work/shared/payloads/dsh/0.1.0-rc.8")
SESSION = {"claude-code": "session-b50b3b41-09fd-4bf7-a09d-d5ed9d1c2073",
           "codex": "session-0d1f710e-572e-46e4-ac61-7ec94fc99d74"}
TOOLS = ("bash", "read", "edit", "grep", "glob", "write")


def _landlock() -> str | None:
    cache = (os.environ.get("DSH_E2E_CACHE") or os.environ.get("E2E_CLIENT_CACHE")
             or os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".cache", "loopguard-hook-e2e"))
    found = sorted(glob.glob(os.path.join(cache, "dsh-*", "node_modules", "@deepseek-ai",
                                          "node-addon-landlock-run-linux-x64", "bin", "landlock-run")))
    return found[-1] if found else None


def _base(bridge: str, workspace: Path, home: Path) -> dict[str, object]:
    """The fields every event of `bridge` carries (as captured from the real harness)."""
    session = SESSION[bridge]
    encoded = "-" + str(workspace).replace("/", "-") + "--"
    base: dict[str, object] = {
        "session_id": session,
        "transcript_path": f"{home}/.dsh/sessions/{encoded}/{session}/session.jsonl.zstd",
        "cwd": str(workspace),
    }
    if bridge == "codex":
        base.update(model="deepseek-v4-flash", permission_mode="default", turn_id="1")
    return base


def _call(bridge: str, tool: str, i: int) -> dict[str, object]:
    n = i % 37  # repeats come back, as in a real session
    if tool == "bash":
        args: dict[str, object] = {"command": f"pytest -q tests/test_{n}.py"}
    elif tool in ("read", "write", "edit"):
        args = {"file_path": f"src/module_{n}.py"}
        if tool == "write":
            args["content"] = f"VALUE = {i}\n"
        if tool == "edit":
            args.update(old_string=f"VALUE = {i - 1}", new_string=f"VALUE = {i}")
    else:
        args = {"pattern": f"name_{n}"}
    return {"tool_name": tool, "tool_input": args}


def _response(tool: str, i: int) -> str:
    if tool == "bash":
        return f"{i % 5} passed in 0.{i % 90:02d}s\n" if i % 7 else "1 failed\n[exit code: 1]"
    return f"<path>src/module_{i % 37}.py</path>\n<content>\n1: VALUE = {i}\n</content>"


def history(bridge: str, workspace: Path, home: Path, calls: int) -> list[bytes]:
    """`calls` tool calls of a DSH session (Pre and Post each, a prompt every 40 calls)."""
    base = _base(bridge, workspace, home)
    events = []
    for i in range(calls):
        if i % 40 == 0:
            events.append(dict(base, hook_event_name="UserPromptSubmit", prompt=f"step {i // 40}"))
        tool = TOOLS[i % len(TOOLS)]
        call = dict(base, **_call(bridge, tool, i), tool_use_id=f"call_main_{i}_0")
        events.append(dict(call, hook_event_name="PreToolUse"))
        events.append(dict(call, hook_event_name="PostToolUse", tool_response=_response(tool, i)))
    return [json.dumps(e).encode() for e in events]


#: Builds the history in one process: each event through `hook.run`, with a clock 2 s a call.
BUILD = r"""
import os, sys, marshal
from loopguard_hook import hook
events = marshal.loads(sys.stdin.buffer.read())
for i, raw in enumerate(events):
    hook.run(raw, options=hook.HookOptions(), environ=os.environ, clock=lambda: 1.8e9 + 2.0 * i)
"""


#: Characters of the big file written (as bench/run.py's 5 MiB Write).
BIG_FILE_CHARS = 5 << 20


def measured_events(bridge: str, workspace: Path, home: Path, big: str) -> dict[str, bytes]:
    """The measured events: a small PreToolUse and PostToolUse of a new `bash` call; the
    PostToolUse of a `write` of `big` (DSH's result of a write is a short text); and, in Claude
    Code's own shape, the PostToolUse of a small and of a 5 MiB `Write` (whose payload holds the
    file three times: about 17 MB)."""
    base = _base(bridge, workspace, home)
    call = dict(base, tool_name="bash", tool_input={"command": "ls src"}, tool_use_id="call_main_999_0")
    write = dict(base, tool_name="write", tool_input={"file_path": "src/big.py", "content": big},
                 tool_use_id="call_main_998_0")
    native = {"session_id": "claude-code-native", "transcript_path": str(home / "t.jsonl"), "cwd": str(workspace),
              "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Write",
              "tool_use_id": "toolu_bench_write"}
    return {
        "pre": json.dumps(dict(call, hook_event_name="PreToolUse")).encode(),
        "post": json.dumps(dict(call, hook_event_name="PostToolUse", tool_response="a.py\nb.py\n")).encode(),
        "post-5MiB": json.dumps(dict(write, hook_event_name="PostToolUse",
                                     tool_response=f"Wrote {len(big)} characters to src/big.py"),
                                ensure_ascii=False).encode(),
        "native-post-small": json.dumps(dict(native, tool_input={"file_path": "a.txt", "content": "one\n"},
                                             tool_response={"type": "create", "filePath": "a.txt", "content": "one\n",
                                                            "originalFile": None}), ensure_ascii=False).encode(),
        "native-post-5MiB": json.dumps(dict(native, tool_input={"file_path": "big.py", "content": big},
                                            tool_response={"type": "update", "filePath": "big.py", "content": big,
                                                           "originalFile": big[:-1] + "x"}),
                                       ensure_ascii=False).encode(),
    }


class Workspace:
    """A DSH workspace with a pre-filled session, its ledger restored before each run."""

    def __init__(self, root: Path, bridge: str, python: Path, env: dict[str, str], calls: int, big: str) -> None:
        self.bridge = bridge
        self.path = root / f"ws-{bridge}"
        self.path.mkdir()
        self.home = root / "home"
        self.home.mkdir(exist_ok=True)
        build = dict(env, LOOPGUARD_RESIDENT="off")
        subprocess.run([str(python), "-c", BUILD], input=_marshal(history(bridge, self.path, self.home, calls)),
                       cwd=self.path, env=build, check=True)
        self.state = self.path / ".loopguard-hook"
        self.ledger = self.state / "sessions" / f"{SESSION[bridge]}.json"
        self.saved = self.ledger.read_bytes()
        self.events = measured_events(bridge, self.path, self.home, big)

    def restore(self) -> None:
        self.ledger.write_bytes(self.saved)
        for leftover in ("decisions.jsonl", "decisions.jsonl.1", "errors.log"):
            try:
                (self.state / leftover).unlink()
            except FileNotFoundError:
                pass


def _marshal(events: list[bytes]) -> bytes:
    import marshal

    return marshal.dumps(events)


def _run(argv: list[str], env: dict[str, str], stdin: bytes, cwd: Path) -> tuple[float, int, bytes]:
    """Wall time, exit code and stderr of one run, its stdin a pipe this process fills from a
    thread in large writes, as a host does (`subprocess.run(input=…)` writes 4 KiB at a time
    between polls, which made a 17 MB payload cost the writer more than the hook)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=cwd)
        feeder = threading.Thread(target=_feed, args=(proc.stdin, stdin))
        feeder.start()
        code = proc.wait()
        seconds = time.perf_counter() - start
        feeder.join()
        err.seek(0)
        return seconds, code, err.read()


def _feed(pipe: IO[bytes] | None, data: bytes) -> None:
    assert pipe is not None
    try:
        pipe.write(data)
        pipe.close()
    except BrokenPipeError:  # a hook that exits without reading all (never, when it works)
        pass


def stop_workspace_helpers(root: Path) -> None:
    """Kill the helpers this run started in its workspaces and its temp folder (process groups)."""
    for lock in [*root.glob("ws-*/.loopguard-hook/resident/*.lock"), *root.glob("tmp/loopguard-hook-*/*.lock")]:
        text = lock.read_text().split("\n")[0].strip()
        if text.isdigit():
            try:
                os.killpg(int(text), 9)
            except (ProcessLookupError, PermissionError):
                pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="7 rounds, PreToolUse only, no unconfined rows")
    parser.add_argument("--json", default=None)
    parser.add_argument("--only", default="", help="only the cases whose name holds this text (and python -c pass)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = min(args.rounds, 7)
    python = Path(os.path.abspath(args.python))  # not resolved: a virtualenv's python is a link
    hook = str(python.with_name("loopguard-hook"))
    setpriv = shutil.which("setpriv")
    landlock = _landlock()
    root = Path(tempfile.mkdtemp(prefix="lg-dsh-bench-"))
    try:
        (root / "tmp").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOPGUARD_", "XDG_"))}
        env.update(HOME=str(root / "home"), TMPDIR=str(root / "tmp"), PYTHONDONTWRITEBYTECODE="1")
        (root / "home").mkdir()
        big = "" if args.quick else _big_text(BIG_FILE_CHARS, 1)
        workspaces = {b: Workspace(root, b, python, env, args.calls, big) for b in ("claude-code", "codex")}
        cases: dict[str, tuple[list[str], dict[str, str], Workspace | None, str]] = {
            "pass": ([str(python), "-c", "pass"], env, None, "")}
        events = ("pre",) if args.quick else ("pre", "post")
        for bridge, ws in workspaces.items():
            for event in events:
                if setpriv:
                    cases[f"{bridge} {event} setpriv resident"] = ([setpriv, "--no-new-privs", hook], env, ws, event)
                    cases[f"{bridge} {event} setpriv in-process"] = (
                        [setpriv, "--no-new-privs", hook], dict(env, LOOPGUARD_RESIDENT="off"), ws, event)
                if landlock:
                    grants = [landlock, "--ro", "/", "--rw", "/dev/null", "--rw", "/tmp", "--rw", str(ws.path), "--"]
                    cases[f"{bridge} {event} landlock resident"] = ([*grants, hook], env, ws, event)
                if not args.quick and bridge == "claude-code":
                    cases[f"{bridge} {event} unconfined resident"] = ([hook], env, ws, event)
            if not args.quick and setpriv:
                cases[f"{bridge} post-5MiB setpriv resident"] = ([setpriv, "--no-new-privs", hook], env, ws, "post-5MiB")
        if not args.quick:  # Claude Code itself (unconfined, the user-wide helper), stdin a pipe
            ws = workspaces["claude-code"]
            for event in ("native-post-small", "native-post-5MiB"):
                cases[f"claude-code {event} resident"] = ([hook], env, ws, event)
        cases = {name: case for name, case in cases.items() if name == "pass" or args.only in name}
        failures: dict[str, str] = {}

        def once(name: str) -> float:
            argv_, env_, ws_, event_ = cases[name]
            if ws_ is None:
                return _run(argv_, env_, b"", root)[0]
            ws_.restore()
            seconds, code, err = _run(argv_, env_, ws_.events[event_], ws_.path)
            if code != 0 or err:
                failures[name] = f"exit {code}: {err.decode(errors='replace')[:200]}"
            return seconds

        for _ in range(3):  # warm: bytecode, the helpers (the first events start them)
            for name in cases:
                once(name)
            time.sleep(1.0)
        times: dict[str, list[float]] = {name: [] for name in cases}
        load = [os.getloadavg()[0]]
        for _ in range(args.rounds):
            order = list(cases)
            random.shuffle(order)
            for name in order:
                times[name].append(once(name))
        load.append(os.getloadavg()[0])
        median = {name: statistics.median(t) for name, t in times.items()}
        paired = {name: statistics.median(a / b for a, b in zip(times[name], times["pass"], strict=True))
                  for name in cases}
        pairs = {f"{b} post-5MiB / post, setpriv resident": (f"{b} post-5MiB setpriv resident", f"{b} post setpriv resident")
                 for b in workspaces}
        pairs["claude-code native Write 5 MiB / small, resident"] = ("claude-code native-post-5MiB resident",
                                                                     "claude-code native-post-small resident")
        big_vs_small = {label: round(statistics.median(a / b for a, b in zip(times[x], times[y], strict=True)), 3)
                        for label, (x, y) in pairs.items() if x in times and y in times}
        result = {
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "python": sys.version.split()[0],
            "commit": subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                     text=True, check=False).stdout.strip(),
            "load_average": load, "rounds": args.rounds, "prior_calls": args.calls, "landlock": landlock,
            "median_ms": {k: round(v * 1000, 2) for k, v in median.items()},
            "paired_vs_pass": {k: round(v, 3) for k, v in paired.items()}, "big_vs_small_paired": big_vs_small,
            "failures": failures,
        }
        print(f"load {load[0]:.1f} -> {load[1]:.1f}, {args.rounds} rounds, {args.calls} prior calls")
        for name in cases:
            print(f"  {name:40} {median[name] * 1000:7.1f} ms  {paired[name]:.2f}x pass")
        for label, value in big_vs_small.items():
            print(f"  {label:58} {value:.2f}x (paired, wall)")
        for name, why in failures.items():
            print(f"  FAILED {name}: {why}")
        out = Path(args.json) if args.json else BENCH / "results" / f"dsh-{time.strftime('%Y%m%d-%H%M%S')}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"results: {out}")
        return 1 if failures else 0
    finally:
        stop_workspace_helpers(root)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
