#!/usr/bin/env python3
"""How `loopguard-hook replay` scales: a long Claude Code transcript built from an example one.

    python bench/replay_scale.py [--calls 20000] [--keep PATH] [--profile]

The transcript is `examples/transcripts/claude-code-edit-test-cycle.jsonl` (Claude Code 2.1.332)
with its tool calls repeated until there are `--calls` of them: fresh ids, two seconds apart, each
call's arguments made distinct (so no rule fires) and a user prompt every 50 calls. The command
runs in-process on it (`replay_files` then `render`, as the CLI does) and the seconds of each
stage are printed (wall clock and CPU: the machine may be busy); `--profile` adds the top of a cProfile listing.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import json
import pstats
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "examples" / "transcripts" / "claude-code-edit-test-cycle.jsonl"
PROMPT_EVERY = 50
STEP_SECONDS = 2.0


def _distinct(tool_input: Any, n: int) -> Any:
    """The input with each string value told apart by `n`, so every call has its own signature."""
    if isinstance(tool_input, dict):
        return {k: (f"{v} #{n}" if isinstance(v, str) and k != "file_path" else v) for k, v in tool_input.items()} | (
            {"file_path": f"{tool_input['file_path']}.{n}"} if isinstance(tool_input.get("file_path"), str) else {}
        )
    return tool_input


def build(calls: int, out: Path) -> None:
    """Write a transcript of `calls` tool calls to `out`."""
    lines = [json.loads(line) for line in SOURCE.read_text().splitlines() if line.strip()]
    prompt = next(d for d in lines if d.get("type") == "user" and isinstance(d["message"]["content"], str))
    results = {
        b["tool_use_id"]: d
        for d in lines
        if d.get("type") == "user" and isinstance(d["message"]["content"], list)
        for b in d["message"]["content"]
        if b.get("type") == "tool_result"
    }
    pairs = [
        (d, results[b["id"]])
        for d in lines
        if d.get("type") == "assistant"
        for b in d["message"]["content"]
        if b.get("type") == "tool_use" and b["id"] in results
    ]
    t0 = 1_796_022_478.0
    with out.open("w") as fh:
        for n in range(calls):
            when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0 + n * STEP_SECONDS)) + ".000Z"
            if n % PROMPT_EVERY == 0:
                fh.write(json.dumps({**prompt, "uuid": f"p{n}", "promptId": f"prompt-{n}", "timestamp": when}) + "\n")
            use, result = (copy.deepcopy(x) for x in pairs[n % len(pairs)])
            block = next(b for b in use["message"]["content"] if b.get("type") == "tool_use")
            block["id"] = f"toolu_{n:06d}"
            block["input"] = _distinct(block["input"], n)
            use["message"]["id"] = f"msg_{n:06d}"
            use["uuid"], use["timestamp"] = f"a{n}", when
            for item in result["message"]["content"]:
                if item.get("type") == "tool_result":
                    item["tool_use_id"] = block["id"]
            result["uuid"], result["timestamp"] = f"r{n}", when
            fh.write(json.dumps(use) + "\n")
            fh.write(json.dumps(result) + "\n")


def run(path: Path) -> dict[str, float]:
    """Seconds to read and replay `path`, and to render the text report."""
    from loopguard_hook import replay
    from loopguard_hook.config import load as config

    cfg = config.resolve([]).config
    start, cpu = time.perf_counter(), time.process_time()
    reports = replay.replay_files([str(path)], cfg)
    replayed, replayed_cpu = time.perf_counter(), time.process_time()
    text = replay.render(reports, "text", width=160)
    assert reports[0].summary.calls > 0 and text
    return {
        "calls": reports[0].summary.calls,
        "replay": replayed - start,
        "replay_cpu": replayed_cpu - cpu,
        "render": time.perf_counter() - replayed,
        "render_cpu": time.process_time() - replayed_cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--keep", type=Path, help="write the transcript here and keep it")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "long.jsonl"
        build(args.calls, path)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            figures = run(path)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        else:
            figures = run(path)
    print(
        f"{figures['calls']:.0f} calls: replay {figures['replay']:.2f} s (CPU {figures['replay_cpu']:.2f} s), "
        f"render {figures['render']:.2f} s (CPU {figures['render_cpu']:.2f} s)"
    )


if __name__ == "__main__":
    main()
