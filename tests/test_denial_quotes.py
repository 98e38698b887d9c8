"""What a denial quotes of a call's result is what the model read of it, not the hook's
structured payload (Claude Code's Grep and Glob results: `core/outcome._search_text`)."""

from __future__ import annotations

import json
from pathlib import Path

import scenario


def test_a_repeated_empty_grep_is_denied_quoting_no_files_found(tmp_path: Path) -> None:
    grep = {"pattern": "retryPolicy", "path": "/home/user/project/src"}
    empty = {"mode": "files_with_matches", "filenames": [], "numFiles": 0}
    steps = [{"event": "UserPromptSubmit", "prompt": "find the retry policy", "expect": "silent"}]
    steps += [{"call": "Grep", "input": grep, "response": empty, "pre": "any", "post": "any"} for _ in range(6)]
    runner = scenario.Runner({"steps": steps}, "balanced", "claude-code", str(tmp_path / "state"))
    runner.play()
    denials = [
        json.loads(result.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
        for step, result in runner.results
        if step.event == "PreToolUse" and result.stdout and b"permissionDecision" in result.stdout
    ]
    assert denials, "six identical empty Greps: the repeat rule denies"
    assert all("No files found" in text and "filenames" not in text for text in denials), denials
