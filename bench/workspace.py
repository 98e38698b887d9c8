#!/usr/bin/env python3
"""What looking at the workspace costs the hook (`workspace_evidence`, hosts/workspace.py).

    python bench/workspace.py [--python PATH] [--rounds N] [--json OUT] [--patch]

A PreToolUse of a shell command that edits files (`sed -i … a.py b.py c.md`: three real files
of 2 KiB, 40 KiB and 200 KiB in a scratch workspace, so their content is read and hashed), or
with `--patch` Codex's PreToolUse of a patch of the 200 KiB file with a hunk it does not hold
(the file is read and every line compared in each way apply_patch compares them), is run
as a fresh `loopguard-hook` process with `workspace_evidence` on and off, interleaved with
`python -c pass` (one of each per round, shuffled), on the resident helper (the default) and
in-process (`LOOPGUARD_RESIDENT=off`). Reported as paired ratios of medians: the hook with the
evidence over the hook without it, and each over `python -c pass`. The session ledger is
restored before every run, so each run does the same work. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SESSION = "6b1f0c2e-workspace-bench"
COMMAND = "sed -i 's/RETRIES = 3/RETRIES = 5/' src/a.py src/b.py docs/c.md"
#: A patch of the 200 KiB file whose hunk it does not hold: the most work of a patch's check
#: (every line compared in each way apply_patch compares them).
PATCH = "*** Begin Patch\n*** Update File: docs/c.md\n@@\n RETRIES = 3\n-RETRIES = 4\n+RETRIES = 5\n*** End Patch\n"


def _payload(cwd: Path, patch: bool = False) -> bytes:
    if patch:  # Codex 0.171.0's PreToolUse of apply_patch (captured payload PreToolUse__apply_patch)
        return json.dumps({
            "session_id": SESSION, "turn_id": "01a22ad7-6a0b-7812-a3ba-114cc8b6eeb4", "transcript_path": None,
            "cwd": str(cwd), "hook_event_name": "PreToolUse", "model": "gpt-5.5", "permission_mode": "bypassPermissions",
            "tool_name": "apply_patch", "tool_input": {"command": PATCH}, "tool_use_id": "call_0_0",
        }).encode()
    return json.dumps({
        "session_id": SESSION, "transcript_path": str(cwd / "t.jsonl"), "cwd": str(cwd), "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": COMMAND},
        "tool_use_id": "toolu_01Bench",
    }).encode()


def _run(argv: list[str], env: dict[str, str], stdin: bytes) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--json", default=None)
    parser.add_argument("--patch", action="store_true",
                        help="a Codex apply_patch of the 200 KiB file that does not fit it, in place of the sed -i")
    args = parser.parse_args(argv)
    python = Path(args.python)
    hook = str(python.with_name("loopguard-hook"))
    work = Path(tempfile.mkdtemp(prefix="lg-ws-bench-"))
    try:
        (work / "src").mkdir()
        (work / "docs").mkdir()
        for name, size in (("src/a.py", 2 << 10), ("src/b.py", 40 << 10), ("docs/c.md", 200 << 10)):
            (work / name).write_text(("RETRIES = 3\n" * (size // 12 + 1))[:size])
        stdin = _payload(work, args.patch)
        base = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGUARD_")}
        base["PYTHONDONTWRITEBYTECODE"] = "1"
        cases: dict[str, tuple[list[str], dict[str, str]]] = {"pass": ([str(python), "-c", "pass"], base)}
        for where in ("resident", "in-process"):
            for evidence in ("on", "off"):
                env = dict(base, LOOPGUARD_STATE_DIR=str(work / f"state-{where}-{evidence}"),
                           LOOPGUARD_WORKSPACE_EVIDENCE="true" if evidence == "on" else "false",
                           TMPDIR=str(work), LOOPGUARD_RESIDENT="on" if where == "resident" else "off")
                cases[f"{where} evidence {evidence}"] = ([hook], env)
        for _ in range(3):  # warm: bytecode, the helpers, the ledgers
            for argv_, env in cases.values():
                _run(argv_, env, stdin)
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            order = list(cases)
            random.shuffle(order)
            for name in order:
                times[name].append(_run(*cases[name], stdin))
        median = {name: statistics.median(t) for name, t in times.items()}
        ratio = {name: statistics.median(a / b for a, b in zip(times[name], times["pass"], strict=True)) for name in cases}
        result = {
            "load": os.getloadavg()[0], "rounds": args.rounds, "median_ms": {k: v * 1000 for k, v in median.items()},
            "vs_pass": ratio,
            "evidence_on_vs_off": {
                where: statistics.median(a / b for a, b in zip(
                    times[f"{where} evidence on"], times[f"{where} evidence off"], strict=True))
                for where in ("resident", "in-process")
            },
        }
        print(f"load {result['load']:.1f}, {args.rounds} rounds")
        for name in cases:
            print(f"  {name:24} {median[name] * 1000:7.1f} ms  {ratio[name]:.2f}x pass")
        for where, value in result["evidence_on_vs_off"].items():
            print(f"  {where}: evidence on / off = {value:.3f}")
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
        subprocess.run([hook, "helper", "stop"], env=cases["resident evidence on"][1], capture_output=True, check=False)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
