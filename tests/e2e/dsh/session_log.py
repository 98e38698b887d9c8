"""DSH's session log (`transcript_path`): `$DSH_HOME/sessions/<encoded cwd>/<session id>/session.jsonl.zstd`,
a series of independently decodable zstd frames of JSONL records `{"type", "seq", "time", "data"}`.

Decoded with the Node binary DSH runs on (Node >= 22.15 has `zlib.zstdDecompressSync`), so the
suite needs no Python zstd package. Records used here: `hook/result` (`data.point` = the event,
`data.decision` = pass/deny/…, `data.exitCode`, `data.stderrSummary`, `data.durationMs`) and
`assistant/message` (`data.message.content[]` items `{type: "text", text}`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

# Split the file at each frame magic (28 b5 2f fd) and decode the frames one by one; a chunk that
# does not decode (a magic inside compressed data, or a torn last frame) is joined to the next.
_DECODE = r"""
const { readFileSync } = require('node:fs')
const { zstdDecompressSync } = require('node:zlib')
const buf = readFileSync(process.argv[1])
const magic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])
const starts = []
for (let i = buf.indexOf(magic); i !== -1; i = buf.indexOf(magic, i + 4)) starts.push(i)
starts.push(buf.length)
let from = starts[0] ?? 0
for (let k = 1; k < starts.length; k++) {
  try { process.stdout.write(zstdDecompressSync(buf.subarray(from, starts[k]))); from = starts[k] } catch {}
}
"""


def session_logs(dsh_home: Path) -> list[Path]:
    """Every session log under a DSH_HOME (the main agent's and each subagent's), oldest first."""
    return sorted((dsh_home / "sessions").glob("*/*/session.jsonl.zstd"), key=lambda p: p.stat().st_mtime)


def records(node: Path, path: Path) -> list[dict[str, Any]]:
    """The JSONL records of one session log, in order."""
    proc = subprocess.run([str(node), "-e", _DECODE, str(path)], capture_output=True, check=True, timeout=60)
    return [json.loads(line) for line in proc.stdout.decode().splitlines() if line.strip()]


def hook_results(node: Path, dsh_home: Path) -> list[dict[str, Any]]:
    """The `data` of every `hook/result` record of every session under DSH_HOME."""
    return [r["data"] for path in session_logs(dsh_home) for r in records(node, path) if r.get("type") == "hook/result"]
