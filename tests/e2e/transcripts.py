"""The clients' own records of a run, with machine paths made neutral.

Claude Code 2.1.332 writes `<HOME>/.claude/projects/<cwd slug>/<session_id>.jsonl` (subagents
under `<session_id>/subagents/`); Codex 0.171.0 writes
`<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<session_id>.jsonl`. These are the inputs of
`loopguard-hook replay`. With `LOOPGUARD_E2E_TRANSCRIPTS=DIR` set, the tests that produce the
example transcripts write their neutral copies there (`examples/transcripts/` holds the last ones).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .clients import HOOK_BIN, Run

EXPORT_DIR = os.environ.get("LOOPGUARD_E2E_TRANSCRIPTS")  # read at import (see clients.CACHE_DIR)

NEUTRAL_PROJECT = "/home/user/project"
NEUTRAL_HOME = "/home/user"


def slug(path: str) -> str:
    """Claude Code's project directory name for a cwd: every non-alphanumeric character is '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def claude_transcript(run: Run, session_id: str) -> Path:
    """The main conversation's transcript of a Claude Code session."""
    found = sorted((run.ws.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    assert len(found) == 1, f"no single transcript for session {session_id}: {found}"
    return found[0]


def codex_rollouts(run: Run) -> list[Path]:
    """Every rollout file Codex wrote in this run."""
    return sorted((run.ws.codex_home / "sessions").rglob("rollout-*.jsonl"))


def codex_session_id(rollout: Path) -> str:
    """The thread id from the rollout's first record (`session_meta`), which Codex also sends to
    hooks as `session_id`."""
    with open(rollout, encoding="utf-8") as fh:
        first = json.loads(fh.readline())
    assert first.get("type") == "session_meta", f"{rollout} does not start with session_meta"
    return str(first["payload"]["id"])


def neutral(text: str, run: Run) -> str:
    """`text` with the run's machine paths replaced: the cwd by /home/user/project, HOME by
    /home/user (so CODEX_HOME becomes /home/user/.codex), the state dir by the default cache dir,
    the console script by its bare name. Longest paths first, so nested ones map consistently."""
    ws = run.ws
    pairs = {
        str(ws.work): NEUTRAL_PROJECT,
        slug(str(ws.work)): slug(NEUTRAL_PROJECT),
        str(ws.state): f"{NEUTRAL_HOME}/.cache/loopguard-hook",
        str(ws.tmp): "/tmp",
        str(ws.home): NEUTRAL_HOME,
        str(HOOK_BIN): "loopguard-hook",
        str(ws.root): f"{NEUTRAL_HOME}/run",
    }
    for old in sorted(pairs, key=len, reverse=True):
        text = text.replace(old, pairs[old])
    return text


def export(run: Run, source: Path, name: str) -> str:
    """Neutralise `source`, check no machine path is left, and write it to
    `$LOOPGUARD_E2E_TRANSCRIPTS/<name>` when that is set. Returns the neutral text."""
    text = neutral(source.read_text(encoding="utf-8"), run)
    for leftover in (str(run.ws.root), str(HOOK_BIN.parent), slug(str(run.ws.root))):
        assert leftover not in text, f"{leftover} survived neutralisation of {source}"
    for line in text.splitlines():
        json.loads(line)  # still one JSON record per line
    if EXPORT_DIR:
        Path(EXPORT_DIR).mkdir(parents=True, exist_ok=True)
        (Path(EXPORT_DIR) / name).write_text(text, encoding="utf-8")
    return text
