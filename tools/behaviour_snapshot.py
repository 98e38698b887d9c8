"""Write what the guard does over every golden scenario and the corpus, to compare two versions.

    .venv/bin/python tools/behaviour_snapshot.py OUT_DIR
    diff -r OLD_DIR NEW_DIR        # nothing: the wire output, logs and replay reports are identical

For each golden scenario (`tests/scenarios/`), under each profile and host it names: every hook
answer as it leaves the process (stdout bytes, the stderr line, the exit code), then the audit
log (`decisions.jsonl`) and the follow-up log (`responses.jsonl`) it left. For the corpus
(`tests/corpus/`): `replay --format json` under every profile. A refactor that changes no
behaviour leaves both files byte-identical; the ledger itself may change shape, so it is not
written.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import scenario  # noqa: E402

PROFILES = ("balanced", "reminder", "breaker", "progress")


def scenarios(out: Path) -> None:
    with open(out / "scenarios.jsonl", "w", encoding="utf-8") as fh:
        for name, profile, client in scenario.cases():
            data = scenario.load(scenario.SCENARIO_DIR / name)
            with tempfile.TemporaryDirectory() as tmp:
                runner = scenario.Runner(data, profile, client, str(Path(tmp) / "state"))
                runner.play()
                answers = [
                    [step.index, step.event, result.stdout.decode("utf-8", "replace"), result.stderr, int(result.exit_code)]
                    for step, result in runner.results
                ]
                logs = {}
                for log in ("decisions.jsonl", "responses.jsonl"):
                    path = Path(tmp) / "state" / log
                    logs[log] = path.read_text(encoding="utf-8") if path.exists() else ""
            fh.write(json.dumps({"scenario": name, "profile": profile, "client": client, "answers": answers, **logs}) + "\n")


def corpus(out: Path) -> None:
    files = sorted(str(p) for p in (ROOT / "tests" / "corpus").rglob("*.jsonl") if "subagents" not in p.parts)
    files += sorted(str(p) for p in (ROOT / "examples" / "transcripts").iterdir())
    for profile in PROFILES:
        result = subprocess.run(
            [sys.executable, "-m", "loopguard_hook", "replay", "--format", "json", "--profile", profile, *files],
            capture_output=True, check=False, cwd=ROOT,
        )
        (out / f"replay-{profile}.json").write_bytes(result.stdout + b"\n--- stderr\n" + result.stderr)


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    scenarios(out)
    corpus(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
