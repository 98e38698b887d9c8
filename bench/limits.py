"""The time bounds that used to be test assertions, measured as paired ratios.

    .venv/bin/python bench/limits.py              # 5 rounds
    .venv/bin/python bench/limits.py --rounds 11 --json out.json

Tests assert behaviour only (it answers, and answers right); how long it takes is measured here,
where a loaded machine shows as noise in a ratio, not as a failure. Each case runs once per
round, interleaved with its baseline, and the result is the median over rounds of
(case / baseline) in CPU seconds (user + sys):

- the hook (the real console script, in-process) on a PostToolBatch of 100,000 calls, a
  `tool_input` / `tool_response` of 2 million keys, a list of 2 million items, against the hook
  on a small PreToolUse (the tests asserted under 2 s of CPU);
- `redact` on each hostile text of the secrets tests (40 to 80 KB) against plain prose of the
  same length (under 1 s of CPU; linear patterns take about 0.05 s);
- `matches` with 20 stars against one star (under 1 s);
- `normalise_text` (every result's fingerprint) on 32 KB of "0.0.0…" against prose (it took 16 s
  while a pattern scanned each run of digits and dots from every word boundary in it);
- the DSH Stop wait and the transcript read per event are bounded by design (`STOP_WAIT_SECONDS`,
  `transcript_read_bytes`), and `bench/load.py` measures the 64-hook burst at load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _child_cpu(argv: list[str], stdin: bytes) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, input=stdin, capture_output=True, timeout=600, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def payload_cases() -> dict[str, Callable[[], float]]:
    import orjson
    from test_hardening_helpers import HOOK, dumps, pre
    from test_hardening_payload_size import CASES

    env_state = tempfile.mkdtemp(prefix="limits-")
    os.environ["LOOPGUARD_RESIDENT"] = "off"
    small = dumps(pre("claude-code", "small", "Bash", {"command": "ls"}, "t1"))
    out: dict[str, Callable[[], float]] = {"hook small PreToolUse (baseline)": lambda: _child_cpu(
        [HOOK, "--state-dir", env_state], small)}
    for name, build in CASES.items():
        raw = orjson.dumps(build())
        out[f"hook {name}"] = lambda raw=raw: _child_cpu([HOOK, "--state-dir", tempfile.mkdtemp(prefix="limits-")], raw)
    return out


def redact_cases() -> dict[str, Callable[[], float]]:
    from loopguard_hook.core.redact import redact

    hostile = ["a." * 20_000, "a-" * 20_000, "password" * 5_000, "sk-" * 13_000, "://a:" * 8_000, '\\"' * 20_000,
               'token=\\"' * 5_000, "-u a" * 10_000, "'" * 40_000, 'API_KEY="' * 4_000, "password " * 8_000,
               "-Ua" * 10_000, "zip -P " * 8_000, "openssl -k " * 6_000, "pass:" * 10_000, "://:" * 10_000,
               "://" + "a1" * 20_000, "aKey" * 10_000, "ldap -w " * 8_000, "-storepass " * 6_000]
    prose = "the quick brown fox jumps over the lazy dog "
    out: dict[str, Callable[[], float]] = {}
    for text in hostile:
        plain = (prose * (len(text) // len(prose) + 1))[: len(text)]
        out[f"redact {text[:12]!r}… ÷ prose"] = (
            lambda t=text, p=plain: _cpu(lambda: redact(t)) / max(_cpu(lambda: redact(p)), 1e-6))
    return out


def other_cases() -> dict[str, Callable[[], float]]:
    from loopguard_hook.core.tools import matches

    def stars() -> object:
        return [matches("a" * 28, ("*a" * 20 + "*b",)) for _ in range(100)]

    def star() -> object:
        return [matches("a" * 28, ("*b",)) for _ in range(100)]

    from loopguard_hook.core.signature import normalise_text

    dots, prose = "0." * 16_384, ("the quick brown fox " * 2_000)[:32_768]
    return {
        "matches 20 stars ÷ one star": lambda: _cpu(stars) / max(_cpu(star), 1e-6),
        # a 32 KB result of digits and dots (a word boundary at every character) took 16 s
        "normalise_text '0.0.0…' ÷ prose": lambda: _cpu(lambda: normalise_text(dots))
        / max(_cpu(lambda: normalise_text(prose)), 1e-6),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    payloads = payload_cases()
    base = "hook small PreToolUse (baseline)"
    ratios: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        baseline = payloads[base]()
        for name, fn in payloads.items():
            if name != base:
                seconds = fn()
                cpu.setdefault(name, []).append(seconds)
                ratios.setdefault(name + " ÷ small", []).append(seconds / max(baseline, 1e-6))
        for name, fn in {**redact_cases(), **other_cases()}.items():
            ratios.setdefault(name, []).append(fn())
    report = {name: round(statistics.median(values), 2) for name, values in ratios.items()}
    report.update({f"{name} (CPU s)": round(statistics.median(values), 2) for name, values in cpu.items()})
    width = max(map(len, report))
    for name, value in report.items():
        print(f"{name:<{width}}  {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
