"""Walk one event through the core and count what it touches: calls into the package's functions,
the modules they are in, and the switches from one module to another.

    .venv/bin/python tools/trace_event.py          # the 4th identical Read (a reminder), balanced, Claude Code

The event is decided by the same step the hook runs (`core.engine.step`); the ledger holds the
three identical Reads before it. Module switches count each time the running module changes, by a
call or by a return; a lower count is a walk that goes down the layers and back up fewer times.
"""

from __future__ import annotations

import sys
from typing import Any

from loopguard_hook.config.settings import Config
from loopguard_hook.core import engine
from loopguard_hook.core.event import Client
from loopguard_hook.hosts import claude_code
from loopguard_hook.hosts.payload import parse

BASE = {"session_id": "s", "transcript_path": "/nonexistent/s.jsonl", "cwd": "/tmp", "tool_name": "Read"}
READ = {"file_path": "/p/notes.txt"}
RESULT = {"type": "text", "file": {"filePath": "/p/notes.txt", "content": "alpha\n", "numLines": 1}}


def _events(n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        call = {**BASE, "tool_input": READ, "tool_use_id": f"toolu_{i}"}
        out.append({**call, "hook_event_name": "PreToolUse"})
        out.append({**call, "hook_event_name": "PostToolUse", "tool_response": RESULT})
    return out


def main() -> int:
    config = Config()
    state = None
    now = 1000.0
    for payload in _events(3):
        now += 2.0
        state, _ = engine.step(state, parse(payload, Client.CLAUDE_CODE), config, claude_code, now)
    event = parse({**BASE, "tool_input": READ, "tool_use_id": "toolu_9", "hook_event_name": "PreToolUse"}, Client.CLAUDE_CODE)
    calls: list[str] = []  # the module of each package function called
    trail: list[str] = []  # the module running after each call and each return
    stack: list[str] = []

    def profile(frame: Any, what: str, arg: Any) -> None:
        if what == "call":
            module = frame.f_globals.get("__name__", "")
            stack.append(module)
            if module.startswith("loopguard_hook"):
                calls.append(module)
                trail.append(module)
        elif what == "return" and stack:
            stack.pop()
            if stack and stack[-1].startswith("loopguard_hook"):
                trail.append(stack[-1])

    sys.setprofile(profile)
    try:
        _, step = engine.step(state, event, config, claude_code, now + 2.0)
    finally:
        sys.setprofile(None)
    walk = [m.removeprefix("loopguard_hook.") for i, m in enumerate(trail) if i == 0 or trail[i - 1] != m]
    print(f"decision: {step.decision.action.name} by {step.decision.rule}")
    print(f"calls into package functions: {len(calls)}; modules touched: {len(set(calls))}")
    print(f"module switches (down by a call or back up by a return): {len(walk) - 1}")
    print(" > ".join(walk))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
