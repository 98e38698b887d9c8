#!/usr/bin/env python3
"""The harness's scripted hook: logs every payload it gets and answers from a table.

    probe_hook.py --log HOOKS.jsonl [--table TABLE.json] --event EVENT

Registered by the e2e harness for Qwen Code and Gemini CLI on every hook event, `--event` being
the event the handler was registered for. Without `--table` it answers nothing (a capture hook).

The table is a JSON list of rules; a rule answers the `nth` firing of `event` (counted per event
over the whole run, or per event and tool when the rule names a `tool`):

    {"event": "PreToolUse", "nth": 3, "tool": "run_shell_command",           # tool: optional
     "stdout": {...} | "text", "stderr": "text", "exit": 0}                  # all optional

`stdout` (a JSON value is printed as JSON), `stderr` and `exit` are what the hook does; the
strings `{n}` and `{event}` in them are replaced by the count and the event. The first
matching rule wins; with none the hook prints nothing and exits 0.

Each run appends one record to the log: `{seq, event, payload, n, rule, exit, stdin_newline,
start, end, cwd, env}` (`rule` = the index of the rule that answered, or null; `env` = the
QWEN*/GEMINI*/CLAUDE* variables, never one whose name says KEY, TOKEN or SECRET). Counting and
logging happen under a lock on `<log>.lock`: the hooks of parallel calls run concurrently.

Standard library only, and nothing of the project's own: it must start fast and stay neutral.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
from typing import Any

ENV_PREFIXES = ("QWEN", "GEMINI", "CLAUDE")
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def fill(value: Any, n: int, event: str) -> Any:
    """`value` with `{n}` and `{event}` replaced in every string."""
    if isinstance(value, str):
        return value.replace("{n}", str(n)).replace("{event}", event)
    if isinstance(value, list):
        return [fill(v, n, event) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, n, event) for k, v in value.items()}
    return value


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--table")
    parser.add_argument("--event", required=True)
    args = parser.parse_args()
    start = time.time()
    raw = sys.stdin.read()
    try:
        payload: Any = json.loads(raw)
    except ValueError:
        payload = raw
    tool = payload.get("tool_name") if isinstance(payload, dict) else None
    rules: list[dict[str, Any]] = []
    if args.table:
        with open(args.table, encoding="utf-8") as fh:
            rules = json.load(fh)

    with open(args.log + ".lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.seek(0)
        counts: dict[str, int] = json.loads(lock.read() or "{}")
        for key in (args.event, f"{args.event}|{tool}"):
            counts[key] = counts.get(key, 0) + 1
        counts["seq"] = counts.get("seq", 0) + 1
        lock.seek(0)
        lock.truncate()
        lock.write(json.dumps(counts))
        lock.flush()

        chosen, n = None, counts[args.event]
        for i, rule in enumerate(rules):
            if rule.get("event") != args.event:
                continue
            count = counts[f"{args.event}|{tool}"] if "tool" in rule else counts[args.event]
            if ("tool" not in rule or rule["tool"] == tool) and rule.get("nth") == count:
                chosen, n = i, count
                break
        answer = fill(rules[chosen], n, args.event) if chosen is not None else {}
        code = int(answer.get("exit", 0))
        record = {
            "seq": counts["seq"],
            "event": args.event,
            "payload": payload,
            "n": n,
            "rule": chosen,
            "exit": code,
            "stdin_newline": raw.endswith("\n"),
            "start": round(start, 3),
            "end": round(time.time(), 3),
            "cwd": os.getcwd(),
            "env": {
                k: v
                for k, v in sorted(os.environ.items())
                if k.startswith(ENV_PREFIXES) and not any(word in k for word in SECRET_WORDS)
            },
        }
        with open(args.log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")

    if "stdout" in answer:
        out = answer["stdout"]
        sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
    if "stderr" in answer:
        sys.stderr.write(answer["stderr"])
    return code


if __name__ == "__main__":
    sys.exit(main())
