#!/usr/bin/env python3
"""The hook's cost as the real DeepSeek Harness (DSH) measures it, through both bridges.

    .venv/bin/python bench/dsh_real.py [--rounds N] [--calls N] [--json OUT]

Runs `dsh --profile headless` (0.1.0-rc.8, installed by `python tests/e2e/dsh/install.py`)
against the e2e suite's scripted model: `--calls` distinct tool calls (reads of different files
and `bash` commands), one a turn, in DSH's default permission mode (`workspace-write`: every
hook confined by DSH's sandbox, Landlock here), the guard's state in the workspace as installed.
Each bridge is run with three hook commands, one run of each per round in a shuffled order:

- `loopguard-hook` (the resident path: a helper of the workspace after the first events);
- `LOOPGUARD_RESIDENT=off loopguard-hook` (every event in-process, as before);
- `<python> -c pass` (the bare interpreter, as the baseline).

DSH records each hook run's wall time (`durationMs` of its `hook/result` records: the sandbox
launcher, `bash -c` and the hook), so the figure is DSH's own. Reported per bridge: the median
over PreToolUse and PostToolUse runs, and its ratio to the `python -c pass` median of the same
bridge. The first 4 PreToolUse/PostToolUse runs of each resident run (the helper may not
listen yet: it is started by the third event of a workspace, SessionStart and UserPromptSubmit
included) are left out of the resident row and reported apart. Results: `bench/results/dsh-real-<time>.json`.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.e2e.clients import HOOK_BIN, Workspace  # noqa: E402
from tests.e2e.dsh.driver import Dsh  # noqa: E402
from tests.e2e.dsh.install import install  # noqa: E402
from tests.e2e.dsh.mock_deepseek import call  # noqa: E402
from tests.e2e.dsh.session_log import hook_results  # noqa: E402
from tests.e2e.mock_model import Script  # noqa: E402

COMMANDS = {
    "resident": str(HOOK_BIN),
    "in-process": f"LOOPGUARD_RESIDENT=off {HOOK_BIN}",
    "pass": f"{HOOK_BIN.parent / 'python'} -c pass",
}
#: Tool-call hook runs left out of a resident run's row (the workspace helper is started by the
#: third event of the workspace: SessionStart and UserPromptSubmit come first).
WARM_EVENTS = 4


def script(calls: int) -> tuple[Script, dict[str, str]]:
    files = {f"f{i}.txt": f"file {i}\n" for i in range(calls)}
    turns = [[call("read", {"file_path": f"f{i}.txt"})] if i % 2 else
             [call("bash", {"command": f"wc -l f{i}.txt", "description": "count"})] for i in range(calls)]
    return Script(turns, final_text="Done."), files


def durations(run_root: Path, node: Path) -> list[float]:
    """`durationMs` of the run's PreToolUse and PostToolUse hook results, in order."""
    found = hook_results(node, run_root / "dsh_home")
    return [float(r["durationMs"]) for r in found if r.get("point") in ("PreToolUse", "PostToolUse") and "durationMs" in r]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    found = install()
    times: dict[tuple[str, str], list[float]] = {}
    warm: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="lg-dsh-real-") as scratch:
        for r in range(args.rounds):
            jobs = [(b, c) for b in ("claude-code", "codex") for c in COMMANDS]
            random.shuffle(jobs)
            for bridge, name in jobs:
                ws = Workspace.create(Path(scratch) / f"{bridge}-{name}-{r}")
                the_script, files = script(args.calls)
                for path, content in files.items():
                    (ws.work / path).write_text(content)
                run = Dsh(found, bridge).run(ws, the_script, "Look at every file", command=COMMANDS[name], state=False,
                                             permission_mode=None, timeout=600)
                if run.exit_code != 0:
                    print(f"{bridge} {name}: dsh exit {run.exit_code}: {run.stderr[-400:]}", file=sys.stderr)
                    return 1
                seen = durations(ws.root, found.node)
                if name == "resident":
                    warm.setdefault(bridge, []).extend(seen[:WARM_EVENTS])
                    seen = seen[WARM_EVENTS:]
                times.setdefault((bridge, name), []).extend(seen)
                print(f"round {r} {bridge:11} {name:10} {len(seen):3} hook runs, median "
                      f"{statistics.median(seen):6.1f} ms", flush=True)
    result: dict[str, object] = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rounds": args.rounds,
                                 "calls": args.calls, "median_ms": {}, "vs_pass": {}}
    print("DSH's own durationMs per hook run (PreToolUse and PostToolUse), medians:")
    for bridge in ("claude-code", "codex"):
        base = statistics.median(times[(bridge, "pass")])
        for name in COMMANDS:
            median = statistics.median(times[(bridge, name)])
            result["median_ms"][f"{bridge} {name}"] = median  # type: ignore[index]
            result["vs_pass"][f"{bridge} {name}"] = round(median / base, 3)  # type: ignore[index]
            print(f"  {bridge:11} {name:10} {median:6.1f} ms  {median / base:.2f}x python -c pass")
        first = statistics.median(warm[bridge])
        print(f"  {bridge:11} first {WARM_EVENTS} tool-call hook runs of the resident runs: {first:6.1f} ms")
    out = Path(args.json) if args.json else REPO / "bench" / "results" / f"dsh-real-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
