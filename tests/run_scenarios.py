"""Run scenario files from any folder and print, per file, which (profile, client) runs hold.

    .venv/bin/python tests/run_scenarios.py tests/scenarios-pending/*.json
    .venv/bin/python tests/run_scenarios.py -v tests/scenarios-pending/class3_*.json   # mismatches too

Exit status 0 when every run of every file holds. `tests/scenarios-pending/` is not collected by
pytest; this is how its files are checked while the behaviour they pin is being built.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import scenario  # noqa: E402


def run(path: Path) -> list[tuple[str, str, list[str]]]:
    data = scenario.load(path)
    out = []
    for profile in data.get("profiles", ["balanced"]):
        for client in data.get("clients", list(scenario.CLIENTS)):
            with tempfile.TemporaryDirectory() as tmp:
                runner = scenario.Runner(data, profile, client, str(Path(tmp) / "state"))
                out.append((profile, client, runner.play()))
    return out


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    paths = [Path(a) for a in argv if a != "-v"]
    failed = 0
    for path in paths:
        results = run(path)
        bad = [(p, c, e) for p, c, e in results if e]
        status = "FAIL" if bad else "ok"
        failed += bool(bad)
        runs = ", ".join(f"{p}@{c}:{'x' if e else 'ok'}" for p, c, e in results)
        print(f"{status:4} {path.name}  [{runs}]")
        if verbose:
            for p, c, errors in bad:
                for error in errors:
                    print(f"       {p}@{c}: {error}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
