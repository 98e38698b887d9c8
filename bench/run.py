#!/usr/bin/env python3
"""Start-up and scaling benchmark of the hook path, as ratios to the bare interpreter.

    python bench/run.py [--quick] [--python PATH] [--json OUT] [--rounds N]

Every tool call runs `loopguard-hook` as a fresh process (usually twice), so what matters is
start-up: interpreter + imports + one lock/load/decide/save of the session ledger. Absolute times
on a shared machine are noise; every case is therefore run interleaved (one of each per round, in
a shuffled order) with `python -c pass` and `python -c "import click, orjson, platformdirs"` on
the same interpreter, and reported as ratios of medians.

Cases (the hook is the console script next to PATH, stdin from a file, `--state-dir` a scratch
directory whose ledger is restored from a snapshot before every run, so each run does the same
work):

- PreToolUse (small Bash payload) on a session holding 10, 1,000 and 10,000 prior calls;
- PostToolUse of a Claude Code `Write` of a 5 MiB file (`tool_input.content`,
  `tool_response.content` and `.originalFile`) and the same with a small file;
- peak memory (max RSS of each child, from `os.wait4`);
- the ledger's size after 10,000 calls;
- 32 hook processes on one session started together: wall time and lost updates.

The session history is built in-process (one helper process running `loopguard_hook.hook.run`
with a fake clock), not by spawning 10,000 hooks. Children get a private bytecode cache
(`PYTHONPYCACHEPREFIX`) warmed before measuring, as an installed package has; with
`PYTHONDONTWRITEBYTECODE` set and no `__pycache__` next to the sources, every run would compile
the package again (measured separately in the full run).

Results: a table on stdout, JSON in `bench/results/` (and `--json OUT`). Standard library only;
the helper modes (`--worker ...`) run under the benchmarked interpreter.
"""

from __future__ import annotations

import argparse
import datetime
import json
import marshal
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
DEFAULT_PYTHON = REPO / ".venv" / "bin" / "python"
PAYLOAD_DIRS = (REPO.parent / "shared" / "payloads" / "claude-code" / "2.1.332",)

#: The payloads' `cwd` (no `.loopguard.toml` there: the project file lookup misses, as usual).
PROJECT_CWD = "/home/user/project"
SESSION = "5adc0d65-0c7b-4e77-84b5-4f0269348799"
HISTORY_SIZES = (10, 1000, 10000)
BIG_FILE_BYTES = 5 * 1024 * 1024
CONCURRENT = 32
MiB = 1024 * 1024

TARGETS = {
    "hook_vs_deps": 1.0,
    "hook_vs_pass_stretch": 3.5,
    "long_vs_short": 1.05,
    "big_vs_small": 2.0,
    "resident_vs_pass": 1.5,
    "rss_payload_factor": 3.0,
    "state_bytes": 64 * 1024,
}


# -- payloads ---------------------------------------------------------------------------------


def _template() -> dict[str, Any]:
    """A real Claude Code 2.1.332 PreToolUse payload when the captures are at hand, else its shape."""
    for folder in PAYLOAD_DIRS:
        path = folder / "PreToolUse.Bash.json"
        if path.is_file():
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            data["session_id"] = SESSION
            return data
    return {
        "session_id": SESSION,
        "transcript_path": f"/home/user/.claude/projects/-home-user-project/{SESSION}.jsonl",
        "cwd": "/home/user/project",
        "prompt_id": "6f112c9e-cfc0-4043-802d-f77cafaed5ea",
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls", "description": "List files"},
        "tool_use_id": "toolu_mock_03_0",
    }


def _event(base: dict[str, Any], cwd: str, **fields: Any) -> dict[str, Any]:
    out = {k: v for k, v in base.items() if k not in ("tool_name", "tool_input", "tool_use_id", "tool_response")}
    out["cwd"] = cwd
    out.update(fields)
    return out


def _big_text(size: int, variant: int) -> str:
    """Source-like text of about `size` characters (quotes, backslashes, some non-ASCII)."""
    lines = []
    total = 0
    i = 0
    while total < size:
        if i % 50 == 0:
            line = f'    """Section {i}: caf\u00e9 na\u00efve \u2014 r\u00e9sum\u00e9 {variant if i == 25000 else 0}."""\n'
        else:
            line = f'    value_{i} = compute("item {i}", {i % 97}, path="C:\\\\data\\\\{i}")  # step {i}\n'
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines)


def write_payloads(work: Path) -> dict[str, Any]:
    """The measured payloads, as files under `work/payloads`. Returns their paths and sizes."""
    base = _template()
    cwd = PROJECT_CWD
    folder = work / "payloads"
    folder.mkdir()
    payloads: dict[str, dict[str, Any]] = {}
    payloads["pre_small"] = _event(
        base, cwd, hook_event_name="PreToolUse", tool_name="Bash",
        tool_input={"command": "ls -la src/bench_probe", "description": "List the probe folder"},
        tool_use_id="toolu_bench_pre_small",
    )
    small = "one\ntwo\n"
    payloads["pre_write_small"] = _event(
        base, cwd, hook_event_name="PreToolUse", tool_name="Write",
        tool_input={"file_path": f"{cwd}/notes/todo.txt", "content": small}, tool_use_id="toolu_bench_write_small",
    )
    payloads["post_write_small"] = dict(
        payloads["pre_write_small"], hook_event_name="PostToolUse",
        tool_response={"type": "update", "filePath": f"{cwd}/notes/todo.txt", "content": small,
                       "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1,
                                            "lines": ["-too", "+two"]}],
                       "originalFile": "one\ntoo\n", "userModified": False},
        duration_ms=9,
    )
    content = _big_text(BIG_FILE_BYTES, 1)
    original = _big_text(BIG_FILE_BYTES, 2)
    big_path = f"{cwd}/src/generated/big_module.py"
    payloads["pre_write_big"] = _event(
        base, cwd, hook_event_name="PreToolUse", tool_name="Write",
        tool_input={"file_path": big_path, "content": content}, tool_use_id="toolu_bench_write_big",
    )
    payloads["post_write_big"] = dict(
        payloads["pre_write_big"], hook_event_name="PostToolUse",
        tool_response={"type": "update", "filePath": big_path, "content": content,
                       "structuredPatch": [{"oldStart": 25001, "oldLines": 1, "newStart": 25001, "newLines": 1,
                                            "lines": ["-    r\u00e9sum\u00e9 2", "+    r\u00e9sum\u00e9 1"]}],
                       "originalFile": original, "userModified": False},
        duration_ms=41,
    )
    for i in range(CONCURRENT):
        payloads[f"par_{i:02d}"] = _event(
            base, cwd, hook_event_name="PreToolUse", tool_name="Read",
            tool_input={"file_path": f"{cwd}/src/module_{i:02d}.py"}, tool_use_id=f"toolu_bench_par_{i:02d}",
        )
    out: dict[str, Any] = {}
    for name, data in payloads.items():
        raw = json.dumps(data, ensure_ascii=False).encode("utf-8")
        path = folder / f"{name}.json"
        path.write_bytes(raw)
        out[name] = {"path": str(path), "bytes": len(raw)}
    out["big_file_chars"] = len(content)
    out["big_tool_response_bytes"] = len(json.dumps(payloads["post_write_big"]["tool_response"], ensure_ascii=False).encode())
    return out


# -- worker: runs under the benchmarked interpreter ------------------------------------------


class _History:
    """Realistic prior calls: repeats and distinct calls, parallel batches, failures, user turns."""

    REPEATED_BASH = ("git status", "git diff", "pytest -q", "ls", "npm test", "make lint", "cargo check")
    FILES = tuple(f"src/pkg/module_{i:02d}.py" for i in range(40))
    PATTERNS = ("TODO", "def run", "import orjson", "class Store", "raise StateError")

    def __init__(self, base: dict[str, Any], cwd: str, seed: int) -> None:
        self.base = base
        self.cwd = cwd
        self.rng = random.Random(seed)
        self.n = 0

    def call(self) -> tuple[str, Any, str, Any]:
        """(tool, tool_input, post event name, tool_response or error)."""
        rng, i, cwd = self.rng, self.n, self.cwd
        self.n += 1
        r = rng.random()
        if r < 0.35:
            command = rng.choice(self.REPEATED_BASH) if rng.random() < 0.5 else f"grep -rn 'sym_{i}' src/ | head -20"
            if rng.random() < 0.06:
                error = f"Exit code 1\nerror: test_{i % 7} failed"
                return "Bash", {"command": command, "description": "Run"}, "PostToolUseFailure", error
            out = "\n".join(f"src/pkg/module_{(i + k) % 40:02d}.py:{k + 1}: sym_{i}" for k in range(rng.randint(0, 12)))
            if command == "pytest -q":
                out = f"{rng.randint(80, 90)} passed in {rng.random():.2f}s"
            return "Bash", {"command": command, "description": "Run"}, "PostToolUse", {
                "stdout": out, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
        if r < 0.60:
            path = f"{cwd}/{rng.choice(self.FILES)}"
            body = "".join(f"line {k} of {path} v{i // 25}\n" for k in range(rng.randint(20, 120)))
            return "Read", {"file_path": path}, "PostToolUse", {"type": "text", "file": {
                "filePath": path, "content": body, "numLines": body.count("\n"), "startLine": 1, "totalLines": body.count("\n")}}
        if r < 0.75:
            path = f"{cwd}/{rng.choice(self.FILES)}"
            old, new = f"value = {i}", f"value = {i + 1}"
            original = "".join(f"line {k}\n" for k in range(80)) + old + "\n"
            return "Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False}, "PostToolUse", {
                "filePath": path, "oldString": old, "newString": new, "originalFile": original,
                "structuredPatch": [
                    {"oldStart": 81, "oldLines": 1, "newStart": 81, "newLines": 1, "lines": [f"-{old}", f"+{new}"]},
                ],
                "userModified": False, "replaceAll": False}
        if r < 0.80:
            path = f"{cwd}/notes/note_{i}.md"
            body = f"# Note {i}\n" + "text\n" * rng.randint(5, 60)
            return "Write", {"file_path": path, "content": body}, "PostToolUse", {
                "type": "create", "filePath": path, "content": body, "structuredPatch": [], "originalFile": None,
                "userModified": False}
        if r < 0.92:
            pattern = rng.choice(self.PATTERNS) if rng.random() < 0.6 else f"sym_{i}"
            names = [f"{cwd}/{rng.choice(self.FILES)}" for _ in range(rng.randint(0, 8))]
            return "Grep", {"pattern": pattern, "path": cwd, "output_mode": "files_with_matches"}, "PostToolUse", {
                "mode": "files_with_matches", "filenames": names, "numFiles": len(names)}
        pattern = rng.choice(("**/*.py", "src/**/*.toml", f"**/*{i}*"))
        names = [f"{cwd}/{rng.choice(self.FILES)}" for _ in range(rng.randint(0, 20))]
        return "Glob", {"pattern": pattern}, "PostToolUse", {
            "filenames": names, "durationMs": rng.randint(1, 40), "numFiles": len(names), "truncated": False}


def _package_sha() -> str:
    """A digest of the benchmarked package's sources (the code measured, commit or not)."""
    import hashlib

    import loopguard_hook

    h = hashlib.sha256()
    for path in sorted(Path(loopguard_hook.__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def _history_key(args: argparse.Namespace) -> str:
    """Cache key of a built history: the package's sources, the history generator, seed, sizes."""
    import hashlib

    import loopguard_hook

    h = hashlib.sha256()
    for path in sorted(Path(loopguard_hook.__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    import inspect

    for part in (_template, _event, _History, _build_history):
        h.update(inspect.getsource(part).encode())
    h.update(f"{args.seed}|{args.sizes}|{sys.version}".encode())
    return h.hexdigest()[:20]


def worker_build(args: argparse.Namespace) -> None:
    """Build (or reuse) the session snapshots in-process; print a JSON summary on stdout."""
    import orjson

    from loopguard_hook.hook import HookOptions, run

    work = Path(args.work)
    payloads = json.loads((work / "payloads.json").read_text())
    environ = json.loads((work / "environ.json").read_text())
    sizes = sorted(int(s) for s in args.sizes.split(","))
    cache = RESULTS / "cache" / _history_key(args)
    manifest = cache / "manifest.json"
    if manifest.is_file() and not args.rebuild:
        summary = json.loads(manifest.read_text())
        for size in sizes:
            shutil.copytree(cache / f"s{size}", work / f"s{size}")
        summary["reused"] = True
    else:
        summary = _build_history(work, sizes, environ, args.seed)
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        for size in sizes:
            shutil.copytree(work / f"s{size}", cache / f"s{size}")
        manifest.write_text(json.dumps(summary))
        summary["reused"] = False
    snapshots = {str(size): str(work / f"s{size}" / "sessions" / f"{SESSION}.json") for size in sizes}
    # Mid-call snapshot: the 1,000-call session plus the PreToolUse of both Writes (their posts are measured).
    mid = work / "s1000-pending-writes"
    shutil.copytree(work / "s1000", mid)
    mid_options = HookOptions(state_dir=str(mid))
    errors = list(summary["errors"])
    for name in ("pre_write_small", "pre_write_big"):
        raw = Path(payloads[name]["path"]).read_bytes()
        result = run(raw, options=mid_options, environ=environ, user_config="")
        if result.exit_code != 0:
            errors.append(result.stderr)
    snapshots["1000-pending-writes"] = str(mid / "sessions" / f"{SESSION}.json")
    state = orjson.loads(Path(snapshots[str(sizes[-1])]).read_bytes())
    import loopguard_hook

    summary.update(package_sha=_package_sha(), package_dir=str(Path(loopguard_hook.__file__).parent),
                   snapshots=snapshots, errors=errors[:5],
                   attempts=state["agents"]["main"]["attempts"],
                   python=sys.version, versions=_versions(), cache=str(cache))
    print(json.dumps(summary))


def _build_history(work: Path, sizes: list[int], environ: dict[str, str], seed: int) -> dict[str, Any]:
    """Feed `sizes[-1]` realistic tool calls (Pre + Post each) through `hook.run` with a fake
    clock, copying the state directory to `work/s<size>` at each size. The live state directory
    is on tmpfs when there is one (only the build's speed changes, not the ledger)."""
    import orjson

    from loopguard_hook.hook import HookOptions, run

    base = _template()
    cwd = PROJECT_CWD
    shm = Path("/dev/shm")
    live_root = Path(tempfile.mkdtemp(prefix="loopguard-bench-", dir=shm if shm.is_dir() and os.access(shm, os.W_OK) else work))
    live = live_root / "state"
    options = HookOptions(state_dir=str(live))
    history = _History(base, cwd, seed=seed)
    spacing = 1.6  # seconds per event on average; the history ends about a minute before now
    now = [time.time() - 60.0 - spacing * 2 * sizes[-1]]
    errors: list[str] = []
    counts = {"events": 0, "remind": 0, "deny": 0, "stop": 0}

    def send(event: dict[str, Any]) -> None:
        now[0] += history.rng.uniform(0.1, 2 * spacing - 0.1)
        result = run(orjson.dumps(event), options=options, environ=environ, clock=lambda: now[0], user_config="")
        counts["events"] += 1
        if result.exit_code != 0:
            errors.append(result.stderr)
        if result.decision is not None and result.decision.action:
            counts[result.decision.action.name.lower()] += 1

    t0 = time.perf_counter()
    done = 0
    try:
        for size in sizes:
            while done < size:
                if done and done % 40 == 0:
                    send(_event(base, cwd, hook_event_name="UserPromptSubmit", prompt=f"next step {done}"))
                batch = 1 if history.rng.random() < 0.85 else history.rng.randint(2, 4)
                batch = min(batch, size - done)
                calls = []
                for _ in range(batch):
                    tool, tool_input, post, response = history.call()
                    use_id = f"toolu_hist_{done:05d}"
                    done += 1
                    calls.append((tool, tool_input, post, response, use_id))
                    send(_event(base, cwd, hook_event_name="PreToolUse", tool_name=tool, tool_input=tool_input,
                                tool_use_id=use_id))
                for tool, tool_input, post, response, use_id in calls:
                    fields: dict[str, Any] = {"hook_event_name": post, "tool_name": tool, "tool_input": tool_input,
                                              "tool_use_id": use_id}
                    if post == "PostToolUseFailure":
                        fields["error"] = response
                        fields["is_interrupt"] = False
                    else:
                        fields["tool_response"] = response
                        fields["duration_ms"] = history.rng.randint(3, 900)
                    send(_event(base, cwd, **fields))
            shutil.copytree(live, work / f"s{size}", ignore=shutil.ignore_patterns("*.lock", "*.tmp"))
    finally:
        shutil.rmtree(live_root, ignore_errors=True)
    return {"build_seconds": time.perf_counter() - t0, "events": counts, "errors": errors[:5]}


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {}
    for name in ("loopguard-hook", "orjson", "click", "platformdirs"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "?"
    return out


def worker_profile(args: argparse.Namespace) -> None:
    """In-process cost of one `run()` (imports already done), and cProfile's top functions."""
    import cProfile
    import pstats

    from loopguard_hook.hook import HookOptions, run

    work = Path(args.work)
    payloads = json.loads((work / "payloads.json").read_text())
    snapshots = json.loads((work / "snapshots.json").read_text())
    environ = json.loads((work / "environ.json").read_text())
    cases = [
        ("PreToolUse small, 10 calls", "pre_small", "10"),
        ("PreToolUse small, 1,000 calls", "pre_small", "1000"),
        ("PreToolUse small, 10,000 calls", "pre_small", "10000"),
        ("PostToolUse Write 5 MiB, 1,000 calls", "post_write_big", "1000-pending-writes"),
        ("PreToolUse Write 5 MiB, 1,000 calls", "pre_write_big", "1000"),
    ]
    out = []
    for label, payload, snap in cases:
        raw = Path(payloads[payload]["path"]).read_bytes()
        snapshot = Path(snapshots[snap])
        saved = snapshot.read_bytes()
        state_dir = snapshot.parent.parent
        options = HookOptions(state_dir=str(state_dir))

        snapshot.write_bytes(saved)
        run(raw, options=options, environ=environ)  # the first call pays lazy imports (platformdirs)
        times = []
        for _ in range(args.repeat):
            snapshot.write_bytes(saved)
            t0 = time.perf_counter()
            run(raw, options=options, environ=environ)
            times.append(time.perf_counter() - t0)
        profiler = cProfile.Profile()
        for _ in range(max(3, args.repeat // 3)):
            snapshot.write_bytes(saved)
            profiler.enable()
            run(raw, options=options, environ=environ)
            profiler.disable()
        stats = pstats.Stats(profiler)
        total = stats.total_tt  # type: ignore[attr-defined]
        rows = []
        for (filename, line, func), (_cc, nc, tt, ct, _) in stats.stats.items():  # type: ignore[attr-defined]
            rows.append({"function": f"{_short(filename)}:{line}({func})", "calls": nc, "tottime": tt, "cumtime": ct})
        rows.sort(key=lambda r: -r["tottime"])
        runs = max(3, args.repeat // 3)
        phases = {}
        for (filename, _line, func), (_cc, _nc, _tt, ct, _) in stats.stats.items():  # type: ignore[attr-defined]
            builtin = func.startswith("<built-in method ")
            key = func[len("<built-in method "):-1] if builtin else f"{Path(filename).stem}.{func}"
            if key in PHASES:
                phases[key] = phases.get(key, 0.0) + ct / runs * 1000
        snapshot.write_bytes(saved)
        out.append({
            "case": label,
            "in_process_ms_median": statistics.median(times) * 1000,
            "profiled_runs": max(3, args.repeat // 3),
            "profiled_total_s": total,
            "top_tottime": rows[:12],
            "phases_ms": {k: round(phases.get(k, 0.0), 3) for k in PHASES},
        })
    print(json.dumps(out))


#: Steps of `hook.run`, reported with their cumulative time per call.
PHASES = ("payload.decode", "payload.parse", "config.load", "state._lock", "state._read", "engine.apply",
          "state._write", "posix.replace", "render.render", "state.append_log")


def _short(filename: str) -> str:
    for marker in ("loopguard_hook/", "site-packages/", "lib/python3"):
        at = filename.find(marker)
        if at >= 0:
            return filename[at:]
    return filename


# -- measuring --------------------------------------------------------------------------------


# The children are spawned by a small helper process, not by this one: Linux carries the RSS
# high-water mark of the spawning process's memory over `exec` into the child's `ru_maxrss`, and
# this process holds the 5 MiB payloads. The helper is `python -I -S` with only built-in modules
# (about 8 MiB, less than any Python child measured).
SPAWNER = r"""
import marshal, os, sys, time
inp, out = sys.stdin.buffer, sys.stdout.buffer
FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC

def start(argv, env, stdin, stdout, stderr):
    actions = [(os.POSIX_SPAWN_OPEN, 0, stdin, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, stdout, FLAGS, 0o600),
               (os.POSIX_SPAWN_OPEN, 2, stderr, FLAGS, 0o600)]
    return os.posix_spawn(argv[0], argv, env, file_actions=actions)

def reap(pid):
    _, status, ru = os.wait4(pid, 0)
    return (os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, ru.ru_maxrss)

while True:
    head = inp.read(4)
    if len(head) < 4:
        break
    jobs = marshal.loads(inp.read(int.from_bytes(head, "little")))
    t0 = time.perf_counter()
    pids = [start(*job) for job in jobs]
    results = [reap(pid) for pid in pids]
    wall = time.perf_counter() - t0
    data = marshal.dumps((wall, results))
    out.write(len(data).to_bytes(4, "little") + data)
    out.flush()
"""


# One hook run cut into stages, each timed with perf_counter inside the child: the marginal cost
# of every import in this order (a module shared with an earlier stage is charged to the earlier
# one: orjson also imports dataclasses, enum and json). Uses only built-in modules before the
# stages so that nothing is imported ahead of time.
STAGES = r"""
import sys, time
marks = [time.perf_counter()]
names = []
def mark(name):
    marks.append(time.perf_counter())
    names.append(name)
import re; mark("re (the console script imports it)")
import enum; mark("enum")
import dataclasses; mark("dataclasses (+ inspect, ast, dis, tokenize)")
import orjson; mark("orjson (+ json, uuid, platform, datetime)")
import typing; mark("typing")
import hashlib; mark("hashlib (+ _hashlib, OpenSSL)")
import loopguard_hook.entry, loopguard_hook.hook as hook; mark("loopguard_hook modules (classes, regexes)")
import platformdirs; mark("platformdirs (+ pathlib, tempfile, shutil, bz2, lzma, random)")
import os
with open(sys.argv[2], "rb") as fh:
    raw = fh.read()
result = hook.run(raw, options=hook.HookOptions(state_dir=sys.argv[1]), environ=os.environ)
mark("hook.run: config, lock, read, decide, write")
print(repr((int(result.exit_code), [(n, b - a) for n, a, b in zip(names, marks, marks[1:])])))
"""


class Runner:
    """Runs children through the spawner: `posix_spawn`, then `wait4` (wall, CPU, max RSS)."""

    def __init__(self, work: Path, env: dict[str, str]) -> None:
        self.work = work
        self.env = env
        self.out = str(work / "child.out")
        self.err = str(work / "child.err")
        self.helper = subprocess.Popen([sys.executable, "-I", "-S", "-c", SPAWNER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, env={})

    def close(self) -> None:
        assert self.helper.stdin is not None
        self.helper.stdin.close()
        self.helper.wait()

    def batch(self, jobs: list[tuple[list[str], dict[str, str], str, str, str]]) -> tuple[float, list[tuple[int, float, int]]]:
        """Start every job, then reap them all: (wall from first start to last exit, per child
        (exit code, CPU seconds, max RSS KiB))."""
        assert self.helper.stdin is not None and self.helper.stdout is not None
        data = marshal.dumps(jobs)
        self.helper.stdin.write(len(data).to_bytes(4, "little") + data)
        self.helper.stdin.flush()
        head = self.helper.stdout.read(4)
        if len(head) < 4:
            raise RuntimeError("the spawner died")
        wall, results = marshal.loads(self.helper.stdout.read(int.from_bytes(head, "little")))
        return wall, results

    def once(self, argv: list[str], stdin: str = os.devnull, env: dict[str, str] | None = None) -> dict[str, Any]:
        wall, [(rc, cpu, rss)] = self.batch([(argv, env or self.env, stdin, self.out, self.err)])
        return {"wall": wall, "cpu": cpu, "maxrss_kib": rss, "rc": rc}


class Case:
    def __init__(self, key: str, label: str, argv: list[str], stdin: str = os.devnull,
                 snapshot: str | None = None, env: dict[str, str] | None = None, payload_bytes: int = 0) -> None:
        self.key, self.label, self.argv, self.stdin = key, label, argv, stdin
        self.snapshot = Path(snapshot) if snapshot else None
        self.saved = self.snapshot.read_bytes() if self.snapshot else b""
        self.env = env
        self.payload_bytes = payload_bytes
        self.runs: list[dict[str, Any]] = []
        self.stdout = b""
        self.stderr = b""
        self.failures = 0
        self.max_runs = 1 << 30

    def restore(self) -> None:
        if self.snapshot is None:
            return
        self.snapshot.write_bytes(self.saved)
        root = self.snapshot.parent.parent
        for leftover in (root / "decisions.jsonl", root / "decisions.jsonl.1", root / "errors.log"):
            if leftover.exists():
                leftover.unlink()

    def run(self, runner: Runner, keep: bool) -> None:
        self.restore()
        result = runner.once(self.argv, self.stdin, env=self.env)
        self.last_wall = result["wall"]
        out = Path(runner.out).read_bytes()
        err = Path(runner.err).read_bytes()
        if result["rc"] != 0 or (err and self.snapshot is not None):
            self.failures += 1
            self.stderr = err
        if keep:
            self.runs.append(result)
            if len(self.runs) == 1:
                self.stdout = out

    def stat(self, field: str) -> dict[str, float]:
        values = sorted(r[field] for r in self.runs)
        if not values:
            return {"median": float("nan"), "p25": float("nan"), "p75": float("nan"), "n": 0}
        q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        return {"median": statistics.median(values), "p25": q[0], "p75": q[2], "min": values[0], "n": len(values)}

    def decision(self) -> str:
        if self.snapshot is None:
            return ""
        if not self.stdout.strip():
            return "allow"
        try:
            data = json.loads(self.stdout)
        except ValueError:
            return "?"
        specific = data.get("hookSpecificOutput", {})
        if data.get("continue") is False:
            return "stop"
        if specific.get("permissionDecision") == "deny":
            return "deny"
        return "remind" if specific.get("additionalContext") else "?"


def by_key_of(cases: list[Case]) -> dict[str, Case]:
    return {c.key: c for c in cases}


def _hook_argv(python: Path, state_dir: Path) -> list[str]:
    script = python.parent / "loopguard-hook"
    if script.exists():
        return [str(script), "--state-dir", str(state_dir)]
    return [str(python), "-m", "loopguard_hook", "--state-dir", str(state_dir)]


def child_env(work: Path) -> dict[str, str]:
    """The caller's environment minus the guard's own settings, with a private bytecode cache and
    empty XDG config/cache folders (no user config file, nothing written to the real cache)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LOOPGUARD_", "PYTHONPROFILEIMPORTTIME", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"))
           and k not in ("CLAUDE_PROJECT_DIR", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONHOME", "PYTHONPATH")}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    env["XDG_CONFIG_HOME"] = str(work / "xdg-config")
    env["XDG_CACHE_HOME"] = str(work / "xdg-cache")
    env["TMPDIR"] = str(work)  # the resident helper's folder: this run's own helper
    env["LOOPGUARD_RESIDENT"] = "off"  # the in-process rows; the resident rows drop it
    return env


def resident_env(env: dict[str, str]) -> dict[str, str]:
    """The environment of the resident rows: the fast path on (its default)."""
    return {k: v for k, v in env.items() if k != "LOOPGUARD_RESIDENT"}


#: What the console script does, without the `import re` of pip's wrapper (uv's wrapper has none).
#: Run with `-P`, as a script is: the current directory (this checkout) stays off `sys.path`.
LEAN_LAUNCHER = "import sys; from loopguard_hook.entry import main; sys.exit(main())"


def start_helper(runner: Runner, case: Case, work: Path, timeout: float = 30.0) -> bool:
    """Run `case` once (it starts the helper) and wait until the helper listens."""
    case.run(runner, keep=False)
    folder = work / f"loopguard-hook-{os.getuid()}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if folder.is_dir() and any(folder.glob("*.sock")) and not any(folder.glob("*.starting")):
            return True
        time.sleep(0.05)
    return False


def stop_helpers(work: Path) -> None:
    """Kill the helpers this run started (each a process group: the helper and its children)."""
    for lock in (work / f"loopguard-hook-{os.getuid()}").glob("*.lock"):
        text = lock.read_text().strip()
        if text.isdigit():
            try:
                os.killpg(int(text), 9)
            except (ProcessLookupError, PermissionError):
                pass


def _attempts(path: Path) -> int:
    return int(json.loads(path.read_bytes())["agents"]["main"]["attempts"])


def run_concurrency(runner: Runner, python: Path, snapshot: Path, saved: bytes, payloads: dict[str, Any],
                    work: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    snapshot.write_bytes(saved)
    before = _attempts(snapshot)
    argv = _hook_argv(python, snapshot.parent.parent)
    outs = work / "concurrent"
    outs.mkdir(exist_ok=True)
    jobs = [(argv, env or runner.env, payloads[f"par_{i:02d}"]["path"], str(outs / f"{i}.out"), str(outs / f"{i}.err"))
            for i in range(CONCURRENT)]
    wall, results = runner.batch(jobs)
    codes = [rc for rc, _, _ in results]
    cpu = sum(c for _, c, _ in results)
    after = _attempts(snapshot)
    stderr = [(outs / f"{i}.err").read_text(errors="replace").strip() for i in range(CONCURRENT)]
    return {
        "wall": wall,
        "cpu_total": cpu,
        "attempts_before": before,
        "attempts_after": after,
        "recorded": after - before,
        "exit_codes_nonzero": sum(1 for c in codes if c != 0),
        "lock_timeouts": sum(1 for s in stderr if "lock busy" in s),
        "stderr": [s for s in stderr if s][:3],
    }


def run_stages(runner: Runner, python: Path, hook_case: Case, repeat: int) -> dict[str, Any]:
    """Median and fastest time of each stage of STAGES over `repeat` children."""
    import ast

    assert hook_case.snapshot is not None
    state_dir = str(hook_case.snapshot.parent.parent)
    per_stage: dict[str, list[float]] = {}
    totals = []
    for _ in range(repeat):
        hook_case.restore()
        result = runner.once([str(python), "-c", STAGES, state_dir, hook_case.stdin])
        if result["rc"] != 0:
            continue
        code, stages = ast.literal_eval(Path(runner.out).read_text())
        if code != 0:
            continue
        totals.append(result["wall"])
        for name, seconds in stages:
            per_stage.setdefault(name, []).append(seconds)
    hook_case.restore()
    return {
        "runs": len(totals),
        "stages": [{"stage": name, "median_ms": statistics.median(v) * 1000, "min_ms": min(v) * 1000}
                   for name, v in per_stage.items()],
        "process_wall_ms_median": statistics.median(totals) * 1000 if totals else float("nan"),
    }


# -- import-time breakdown --------------------------------------------------------------------


def parse_importtime(text: str) -> list[dict[str, Any]]:
    """`-X importtime` lines -> a forest of {name, self, cum, children} (children precede parents)."""
    roots: list[tuple[int, dict[str, Any]]] = []
    for line in text.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        parts = line[len("import time:"):].split("|")
        if len(parts) != 3:
            continue
        raw_name = parts[2].rstrip("\n")
        depth = (len(raw_name) - len(raw_name.lstrip(" ")) - 1) // 2
        node = {"name": raw_name.strip(), "self": int(parts[0]), "cum": int(parts[1]), "children": []}
        while roots and roots[-1][0] > depth:
            node["children"].insert(0, roots.pop()[1])
        roots.append((depth, node))
    return [node for _, node in roots]


def _walk(node: dict[str, Any], group: str | None, out: dict[str, int], modules: dict[str, int]) -> None:
    name = node["name"]
    if name.startswith("loopguard_hook") or name.startswith("__editable__"):
        mine = name
        child_group = None
    else:
        mine = group or name
        child_group = mine
    out[mine] = out.get(mine, 0) + node["self"]
    modules[name] = node["self"]
    for child in node["children"]:
        _walk(child, child_group, out, modules)


def importtime_groups(text: str, baseline_modules: set[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Self time per responsible import (a loopguard_hook module's own code, or the top-level
    module it imported, with everything that module pulled in), leaving out the interpreter's
    start-up (what `python -c pass` imports too)."""
    groups: dict[str, int] = {}
    modules: dict[str, int] = {}
    for root in parse_importtime(text):
        if root["name"] in baseline_modules:
            continue
        _walk(root, None, groups, modules)
    return groups, {m: v for m, v in modules.items() if m not in baseline_modules}


def run_importtime(runner: Runner, python: Path, hook_case: Case, repeat: int) -> dict[str, Any]:
    env = dict(runner.env, PYTHONPROFILEIMPORTTIME="1")
    group_runs: list[dict[str, int]] = []
    module_runs: list[dict[str, int]] = []
    pass_totals: list[int] = []
    hook_totals: list[int] = []
    for _ in range(repeat):
        runner.once([str(python), "-c", "pass"], env=env)
        base_text = Path(runner.err).read_text()
        base_forest = parse_importtime(base_text)
        baseline = {n["name"] for n in base_forest}
        pass_totals.append(sum(n["cum"] for n in base_forest))
        hook_case.restore()
        runner.once(hook_case.argv, hook_case.stdin, env=env)
        text = Path(runner.err).read_text()
        forest = parse_importtime(text)
        hook_totals.append(sum(n["cum"] for n in forest))
        groups, modules = importtime_groups(text, baseline)
        group_runs.append(groups)
        module_runs.append(modules)

    def medians(runs: list[dict[str, int]]) -> list[tuple[str, float]]:
        names = {k for r in runs for k in r}
        return sorted(((k, statistics.median(r.get(k, 0) for r in runs)) for k in names), key=lambda kv: -kv[1])

    groups = medians(group_runs)
    return {
        "runs": repeat,
        "startup_import_us_median": statistics.median(pass_totals),
        "hook_total_import_us_median": statistics.median(hook_totals),
        "hook_path_import_us_median": sum(v for _, v in groups),
        "groups_us": groups,
        "modules_self_us": medians(module_runs)[:30],
        "modules_imported": sorted({m for r in module_runs for m in r}),
    }


# -- report -----------------------------------------------------------------------------------


def machine_info(worker: dict[str, Any], python: Path) -> dict[str, Any]:
    cpu = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    commit = "?"
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip() or "?"
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "loopguard_hook"],
                               capture_output=True, text=True, check=False).stdout.strip()
        if dirty:
            commit += " (loopguard_hook/ modified)"
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu_model": cpu,
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "platform": platform.platform(),
        "python": worker["python"],
        "python_path": str(python),
        "versions": worker["versions"],
        "commit": commit,
        "package_sha": worker["package_sha"],
        "package_dir": worker["package_dir"],
    }


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f}"


def report(results: dict[str, Any]) -> str:
    lines = []
    m = results["machine"]
    lines.append(f"loopguard-hook start-up benchmark, {m['date']}")
    lines.append(f"{m['cpu_model']}, {m['cpus_usable']}/{m['cpus']} CPUs, Python {m['python'].split()[0]}, "
                 f"{m['platform']}, commit {m['commit']}")
    lines.append(f"package measured: {m['package_dir']} (sources sha256 {m['package_sha']})")
    lines.append(f"versions: {', '.join(f'{k} {v}' for k, v in m['versions'].items())}")
    lines.append(f"rounds: {results['rounds']} measured (+{results['warmup']} warm-up), interleaved, shuffled; "
                 f"load average before/after: {results['load_before']} / {results['load_after']}")
    lines.append("")
    header = (f"{'case':<48} {'wall ms':>7} {'p25-p75':>15} {'+ms':>6} {'x pass':>7} {'x deps':>7} {'cpu ms':>7} "
              f"{'x pass':>7} {'best ms':>7} {'x pass':>7} {'paired':>7} {'RSS MiB':>8} {'answer':>7}")
    lines.append(header)
    lines.append("-" * len(header))
    base = results["cases"][0]["wall_s"]["median"]
    best = results["cases"][0]["wall_s"]["min"]
    for row in results["cases"]:
        w, c = row["wall_s"], row["cpu_s"]
        lines.append(
            f"{row['label']:<48} {_ms(w['median'])} {_ms(w['p25']).strip():>7}-{_ms(w['p75']).strip():<7} "
            f"{(w['median'] - base) * 1000:6.1f} {row['wall_x_pass']:7.2f} {row['wall_x_deps']:7.2f} "
            f"{_ms(c['median'])} {row['cpu_x_pass']:7.2f} "
            f"{_ms(w['min'])} {w['min'] / best:7.2f} {row['paired_wall_x_pass']:7.2f} "
            f"{row['maxrss_kib_median'] / 1024:8.1f} {row['answer']:>7}"
            + (f"  FAILED x{row['failures']}" if row["failures"] else "")
        )
    lines.append("")
    conc = results["concurrency"]
    lines.append(f"{CONCURRENT} concurrent hooks on one 1,000-call session ({len(conc['trials'])} trials): "
                 f"wall median {conc['wall_s_median'] * 1000:.0f} ms, CPU {conc['cpu_s_median'] * 1000:.0f} ms "
                 f"= {conc['wall_x_one_hook']:.1f}x one hook's median; recorded "
                 f"{[t['recorded'] for t in conc['trials']]} of {CONCURRENT}; exit 1: "
                 f"{sum(t['exit_codes_nonzero'] for t in conc['trials'])} (lock timeouts: "
                 f"{sum(t['lock_timeouts'] for t in conc['trials'])})")
    rc = conc["resident"]
    lines.append(f"resident: {CONCURRENT} concurrent hooks ({len(rc['trials'])} trials): wall median "
                 f"{rc['wall_s_median'] * 1000:.0f} ms, CPU {rc['cpu_s_median'] * 1000:.0f} ms (clients only); recorded "
                 f"{[t['recorded'] for t in rc['trials']]} of {CONCURRENT}; exit 1: "
                 f"{sum(t['exit_codes_nonzero'] for t in rc['trials'])}")
    sizes = results["state_file_bytes"]
    lines.append("state file: " + ", ".join(f"{int(k):,} calls {v / 1024:.1f} KiB" for k, v in sizes.items()))
    b = results["build"]
    lines.append(f"history (in-process hook.run, {b['events']['events']:,} events, {b['attempts']:,} attempts): "
                 f"{'reused, built' if b['reused'] else 'built'} in {b['build_seconds']:.1f} s; decisions in history: "
                 f"{ {k: v for k, v in results['build']['events'].items() if k != 'events'} }")
    lines.append("")
    lines.append(f"{'target (on medians of wall time)':<62} {'measured':>12} {'limit':>12}  result"
                 f"  {'CPU time':>15}  {'fastest runs':>15}")
    for t in results["targets"]:
        extra = ""
        for key in ("cpu", "best"):
            if t[key]:
                extra += f"  {t[key]:>10} {'PASS' if t[key + '_ok'] else 'FAIL'}"
        lines.append(f"{t['name']:<62} {t['measured']:>12} {t['limit']:>12}  {'PASS' if t['ok'] else 'FAIL'}  {extra}")
    imp = results.get("importtime")
    if imp:
        lines.append("")
        lines.append(f"-X importtime, median of {imp['runs']} runs (inflated by the profiler itself): interpreter start-up "
                     f"{imp['startup_import_us_median'] / 1000:.1f} ms, "
                     f"hook path {imp['hook_path_import_us_median'] / 1000:.1f} ms")
        lines.append("(each module is charged to the first importer: orjson would also import dataclasses, json, uuid,")
        lines.append(" datetime and enum; an editable install's finder imports re, enum, pathlib, ... before the hook)")
        lines.append(f"{'imported by the hook path (with what it pulls in)':<58} {'self ms':>8} {'share':>6}")
        total = imp["hook_path_import_us_median"] or 1
        for name, us in imp["groups_us"][:16]:
            lines.append(f"  {name:<56} {us / 1000:8.2f} {us / total:6.1%}")
    stages = results.get("stages")
    if stages:
        lines.append("")
        lines.append(f"The hook (1,000 calls) in stages, timed inside the child, {stages['runs']} runs "
                     f"(interpreter start-up not included; whole process {stages['process_wall_ms_median']:.0f} ms):")
        lines.append(f"  {'stage':<66} {'median ms':>9} {'best ms':>8}")
        for st in sorted(stages["stages"], key=lambda x: -x["median_ms"]):
            lines.append(f"  {st['stage']:<66} {st['median_ms']:9.2f} {st['min_ms']:8.2f}")
        lines.append(f"  {'total':<66} {sum(x['median_ms'] for x in stages['stages']):9.2f} "
                     f"{sum(x['min_ms'] for x in stages['stages']):8.2f}")
    prof = results.get("profile")
    if prof:
        lines.append("")
        lines.append("In-process run() after imports (median; cProfile top functions by own time):")
        for case in prof:
            lines.append(f"  {case['case']}: {case['in_process_ms_median']:.2f} ms; steps (ms, cProfile): "
                         + ", ".join(f"{k} {v:.2f}" for k, v in case["phases_ms"].items() if v >= 0.005))
            total = case["profiled_total_s"] or 1
            for row in case["top_tottime"][:6]:
                lines.append(f"      {row['tottime'] / case['profiled_runs'] * 1000:7.2f} ms {row['tottime'] / total:6.1%}  "
                             f"{row['calls'] // case['profiled_runs']:>5}x  {row['function']}")
    return "\n".join(lines)


def _target(name: str, measured: float, limit: float, fmt: str, cpu: float | None = None,
            best: float | None = None) -> dict[str, Any]:
    """One pass/fail line on medians of wall time. `cpu` is the same ratio on CPU time (user + sys)
    and `best` on the fastest run of each case: both vary less on a busy machine."""
    return {"name": name, "measured": fmt.format(measured), "limit": fmt.format(limit), "ok": measured <= limit,
            "value": measured, "bound": limit, "cpu_value": cpu,
            "cpu": "" if cpu is None else fmt.format(cpu), "cpu_ok": None if cpu is None else cpu <= limit,
            "best_value": best, "best": "" if best is None else fmt.format(best),
            "best_ok": None if best is None else best <= limit}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and no extra cases (well under a minute)")
    parser.add_argument("--python", type=Path, default=DEFAULT_PYTHON, help="interpreter with loopguard-hook installed")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--rounds", type=int, help="measured rounds (default 31, quick 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the history and of the case order")
    parser.add_argument("--rebuild", action="store_true", help="build the session history even if cached")
    parser.add_argument("--worker", choices=("build", "profile"), help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default=",".join(map(str, HISTORY_SIZES)), help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=15, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker == "build":
        worker_build(args)
        return 0
    if args.worker == "profile":
        worker_profile(args)
        return 0

    python = args.python if args.python.is_absolute() else Path.cwd() / args.python
    if not python.exists():
        parser.error(f"no interpreter at {python}")
    rounds = args.rounds or (5 if args.quick else 31)
    warmup = 1 if args.quick else 3
    started = time.perf_counter()
    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="loopguard-bench-"))
    runner: Runner | None = None
    try:
        for sub in ("xdg-config", "xdg-cache", "pycache"):
            (work / sub).mkdir()
        env = child_env(work)
        payloads = write_payloads(work)
        (work / "payloads.json").write_text(json.dumps(payloads))
        (work / "environ.json").write_text(json.dumps(env))
        print(f"building session history in-process ({max(HISTORY_SIZES):,} calls)...", file=sys.stderr)
        build = subprocess.run([str(python), str(Path(__file__).resolve()), "--worker", "build", "--work", str(work),
                                "--seed", str(args.seed)] + (["--rebuild"] if args.rebuild else []),
                               env=env, capture_output=True, text=True, check=False)
        if build.returncode != 0:
            print(build.stderr, file=sys.stderr)
            return 1
        worker = json.loads(build.stdout)
        if worker["errors"]:
            print(f"history build reported errors: {worker['errors']}", file=sys.stderr)
        snapshots = worker["snapshots"]
        (work / "snapshots.json").write_text(json.dumps(snapshots))
        runner = Runner(work, env)
        py = str(python)

        def hook(key: str, label: str, payload: str, snap: str, case_env: dict[str, str] | None = None,
                 argv: list[str] | None = None) -> Case:
            snapshot = Path(snapshots[snap])
            state = snapshot.parent.parent
            return Case(key, label, (argv + ["--state-dir", str(state)]) if argv else _hook_argv(python, state),
                        payloads[payload]["path"], snapshot=str(snapshot), env=case_env,
                        payload_bytes=payloads[payload]["bytes"])

        res = resident_env(env)

        cases = [
            Case("pass", "python -c pass", [py, "-c", "pass"]),
            Case("deps", "python -c 'import click, orjson, platformdirs'", [py, "-c", "import click, orjson, platformdirs"]),
            hook("hook_10", "hook PreToolUse small, 10 prior calls", "pre_small", "10"),
            hook("hook_1000", "hook PreToolUse small, 1,000 prior calls", "pre_small", "1000"),
            hook("hook_10000", "hook PreToolUse small, 10,000 prior calls", "pre_small", "10000"),
            hook("post_small", "hook PostToolUse Write small, 1,000 calls", "post_write_small", "1000-pending-writes"),
            hook("post_big", "hook PostToolUse Write 5 MiB file, 1,000 calls", "post_write_big", "1000-pending-writes"),
            hook("res_10", "resident: PreToolUse small, 10 prior calls", "pre_small", "10", res),
            hook("res_1000", "resident: PreToolUse small, 1,000 prior calls", "pre_small", "1000", res),
            hook("res_10000", "resident: PreToolUse small, 10,000 prior calls", "pre_small", "10000", res),
            hook("res_post_small", "resident: PostToolUse Write small, 1,000", "post_write_small", "1000-pending-writes", res),
            hook("res_post_big", "resident: PostToolUse Write 5 MiB, 1,000", "post_write_big", "1000-pending-writes", res),
            hook("res_lean_1000", "resident, lean launcher: PreToolUse, 1,000", "pre_small", "1000", res,
                 [py, "-P", "-c", LEAN_LAUNCHER]),
            hook("res_lean_post_big", "resident, lean launcher: Post 5 MiB, 1,000", "post_write_big",
                 "1000-pending-writes", res, [py, "-P", "-c", LEAN_LAUNCHER]),
        ]
        if not args.quick:
            no_pyc = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"}
            no_pyc["PYTHONDONTWRITEBYTECODE"] = "1"
            cases += [
                hook("pre_big", "hook PreToolUse Write 5 MiB file, 1,000 calls", "pre_write_big", "1000"),
                hook("hook_1000_nopyc", "hook 1,000 calls, PYTHONDONTWRITEBYTECODE=1", "pre_small", "1000", no_pyc),
                Case("imp_json", "python -c 'import json'", [py, "-c", "import json"]),
                Case("imp_orjson", "python -c 'import orjson'", [py, "-c", "import orjson"]),
                Case("imp_platformdirs", "python -c 'import platformdirs'", [py, "-c", "import platformdirs"]),
                Case("imp_hashlib", "python -c 'import hashlib'", [py, "-c", "import hashlib"]),
                Case("imp_blake2", "python -c 'import _blake2'", [py, "-c", "import _blake2"]),
                Case("imp_dataclasses", "python -c 'import dataclasses'", [py, "-c", "import dataclasses"]),
                Case("imp_typing", "python -c 'import typing'", [py, "-c", "import typing"]),
                Case("imp_hook", "python -c 'import loopguard_hook.hook'", [py, "-c", "import loopguard_hook.hook"]),
                Case("imp_re", "python -c 'import re' (pip's wrapper does)", [py, "-c", "import re"]),
                Case("imp_socket", "python -c 'import socket'", [py, "-c", "import socket"]),
                Case("imp__socket", "python -c 'import _socket'", [py, "-c", "import _socket"]),
                Case("imp_client", "python -c 'import <the resident client>'",
                     [py, "-c", "import loopguard_hook.entry, loopguard_hook.fastpath.client"]),
                hook("res_pre_big", "resident: PreToolUse Write 5 MiB, 1,000", "pre_write_big", "1000", res),
            ]
        for key in ("res_1000", "res_lean_1000"):  # the console script and `python -c` each have their own
            if not start_helper(runner, by_key_of(cases)[key], work):
                print(f"no resident helper came up for {key}: its rows measure the in-process path", file=sys.stderr)
        order = random.Random(args.seed)
        print(f"measuring {len(cases)} cases x {rounds} rounds...", file=sys.stderr)
        for i in range(warmup + rounds):
            batch = list(cases)
            order.shuffle(batch)
            for case in batch:
                if len(case.runs) < case.max_runs:
                    case.run(runner, keep=i >= warmup)
            if i == warmup - 1:
                for case in cases:  # a case slower than a second gets fewer measured runs
                    if case.last_wall > 1.0:
                        case.max_runs = 3 if args.quick else 11

        for case in cases:  # leave every ledger as it was built, for the steps below
            case.restore()
        by_key = {c.key: c for c in cases}
        base_wall = by_key["pass"].stat("wall")["median"]
        deps_wall = by_key["deps"].stat("wall")["median"]
        base_cpu = by_key["pass"].stat("cpu")["median"]
        rows = []
        for case in cases:
            w, c = case.stat("wall"), case.stat("cpu")
            rows.append({
                "key": case.key, "label": case.label, "wall_s": w, "cpu_s": c,
                "wall_x_pass": w["median"] / base_wall, "wall_x_deps": w["median"] / deps_wall,
                "cpu_x_pass": c["median"] / base_cpu,
                "paired_wall_x_pass": statistics.median(
                    r["wall"] / b["wall"] for r, b in zip(case.runs, by_key["pass"].runs, strict=False)
                )
                if case.runs else float("nan"),
                "maxrss_kib_median": statistics.median(r["maxrss_kib"] for r in case.runs),
                "payload_bytes": case.payload_bytes,
                "answer": case.decision(), "failures": case.failures,
                "stderr": case.stderr.decode(errors="replace")[:500],
            })
        row = {r["key"]: r for r in rows}

        print("32 concurrent hooks...", file=sys.stderr)
        conc_snapshot = Path(snapshots["1000"])
        saved = conc_snapshot.read_bytes()
        trials = [run_concurrency(runner, python, conc_snapshot, saved, payloads, work) for _ in range(1 if args.quick else 7)]
        res_trials = [run_concurrency(runner, python, conc_snapshot, saved, payloads, work, res)
                      for _ in range(1 if args.quick else 7)]
        conc_snapshot.write_bytes(saved)
        one = row["hook_1000"]["wall_s"]["median"]
        conc_wall = statistics.median(t["wall"] for t in trials)
        concurrency = {"trials": trials, "wall_s_median": conc_wall, "wall_x_one_hook": conc_wall / one,
                       "cpu_s_median": statistics.median(t["cpu_total"] for t in trials),
                       "resident": {"trials": res_trials,
                                    "wall_s_median": statistics.median(t["wall"] for t in res_trials),
                                    "cpu_s_median": statistics.median(t["cpu_total"] for t in res_trials)}}

        state_sizes = {k: os.path.getsize(v) for k, v in snapshots.items() if k.isdigit()}

        importtime = None
        stages = None
        profile = None
        if not args.quick:
            print("import-time breakdown and in-process profile...", file=sys.stderr)
            importtime = run_importtime(runner, python, by_key["hook_1000"], 9)
            stages = run_stages(runner, python, by_key["hook_1000"], 21)
            prof = subprocess.run([py, str(Path(__file__).resolve()), "--worker", "profile", "--work", str(work),
                                   "--repeat", "15"], env=env, capture_output=True, text=True, check=False)
            if prof.returncode == 0:
                profile = json.loads(prof.stdout)
            else:
                print(prof.stderr, file=sys.stderr)

        pass_rss = row["pass"]["maxrss_kib_median"] * 1024
        def med(key: str, field: str = "wall_s", stat: str = "median") -> float:
            return float(row[key][field][stat])

        def ratio(name: str, a: str, b: str, limit: float, fmt: str) -> dict[str, Any]:
            return _target(name, med(a) / med(b), limit, fmt, med(a, "cpu_s") / med(b, "cpu_s"),
                           med(a, stat="min") / med(b, stat="min"))

        targets = [
            ratio("hook @1,000 calls vs import click, orjson, platformdirs", "hook_1000", "deps",
                  TARGETS["hook_vs_deps"], "{:.2f}x"),
            ratio("hook @1,000 calls vs python -c pass (stretch)", "hook_1000", "pass",
                  TARGETS["hook_vs_pass_stretch"], "{:.2f}x"),
            ratio("hook @10,000 calls vs @10 calls", "hook_10000", "hook_10", TARGETS["long_vs_short"], "{:.3f}x"),
            ratio("PostToolUse 5 MiB Write vs small PreToolUse (@1,000)", "post_big", "hook_1000",
                  TARGETS["big_vs_small"], "{:.2f}x"),
            ratio("resident: hook @1,000 calls vs python -c pass", "res_1000", "pass",
                  TARGETS["resident_vs_pass"], "{:.2f}x"),
            ratio("resident, lean launcher: hook @1,000 vs python -c pass", "res_lean_1000", "pass",
                  TARGETS["resident_vs_pass"], "{:.2f}x"),
            ratio("resident: PostToolUse 5 MiB vs small PreToolUse", "res_post_big", "res_1000",
                  TARGETS["big_vs_small"], "{:.2f}x"),
            ratio("resident, lean launcher: Post 5 MiB vs small Pre", "res_lean_post_big", "res_lean_1000",
                  TARGETS["big_vs_small"], "{:.2f}x"),
        ]
        for key in ("res_1000", "res_lean_1000"):
            paired = row[key]["paired_wall_x_pass"]
            targets.append(_target(f"{key}: median of paired ratios to python -c pass", paired,
                                   TARGETS["resident_vs_pass"], "{:.2f}x"))
        for key in ("hook_1000", "post_big"):
            r = row[key]
            limit = pass_rss + TARGETS["rss_payload_factor"] * r["payload_bytes"]
            size = f"{r['payload_bytes'] / MiB:.1f} MiB" if r["payload_bytes"] > MiB else f"{r['payload_bytes']:,} B"
            targets.append(_target(f"max RSS {key} <= pass RSS + 3 x payload ({size})",
                                   r["maxrss_kib_median"] * 1024 / MiB, limit / MiB, "{:.1f} MiB"))
        targets.append(_target("state file after 10,000 calls", state_sizes["10000"] / 1024,
                               TARGETS["state_bytes"] / 1024, "{:.1f} KiB"))
        lost = sum(CONCURRENT - t["recorded"] for t in trials)
        targets.append(_target(f"{CONCURRENT} concurrent: updates lost (all trials)", lost, 0, "{:.0f}"))
        res_lost = sum(CONCURRENT - t["recorded"] for t in res_trials)
        targets.append(_target(f"resident: {CONCURRENT} concurrent: updates lost (all trials)", res_lost, 0, "{:.0f}"))
        conc_cpu = statistics.median(t["cpu_total"] for t in trials)
        targets.append(_target(f"{CONCURRENT} concurrent: wall vs one hook's median", conc_wall / one, CONCURRENT, "{:.1f}x",
                               conc_cpu / row["hook_1000"]["cpu_s"]["median"]))

        results = {
            "machine": machine_info(worker, python),
            "quick": args.quick,
            "rounds": rounds,
            "warmup": warmup,
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "payload_bytes": {k: v["bytes"] for k, v in payloads.items() if isinstance(v, dict) and not k.startswith("par_")},
            "big_tool_response_bytes": payloads["big_tool_response_bytes"],
            "build": {k: worker[k] for k in ("build_seconds", "events", "errors", "attempts", "reused")},
            "cases": rows,
            "concurrency": concurrency,
            "state_file_bytes": state_sizes,
            "targets": targets,
            "importtime": importtime,
            "stages": stages,
            "profile": profile,
            "seconds": time.perf_counter() - started,
        }
        text = report(results)
        print(text)
        print(f"\n({results['seconds']:.0f} s)")
        RESULTS.mkdir(exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        name = f"{'quick' if args.quick else 'full'}-{stamp}"
        (RESULTS / f"{name}.json").write_text(json.dumps(results, indent=1))
        (RESULTS / f"{name}.txt").write_text(text + "\n")
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
        return 0
    finally:
        if runner is not None:
            runner.close()
        stop_helpers(work)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
