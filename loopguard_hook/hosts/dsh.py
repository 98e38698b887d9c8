"""What both DeepSeek Harness (DSH 0.1.0-rc.8) hook bridges share: how their payloads are told
apart, how their results read, and what their output forms do.

Facts (research/dsh-hooks.md §2-§7 and research/dsh-e2e.md, verified against the real
harness with `dsh-hooks-claude-code` 0.0.1-rc.5 and `dsh-hooks-codex` 0.0.1-rc.1):

- `transcript_path` is DSH's zstd-compressed session log,
  `…/sessions/<encoded cwd>/<session id>/session.jsonl.zstd`, on every event of both bridges;
- tool names are DSH's lower-case names (`read`, `bash`, `write`, `edit`, `grep`, `glob`,
  `todo_write`, `subagent`…) and `tool_response` is always the text the model gets: a failed
  `bash` ends in `[exit code: N]`; a call that did not run (invalid arguments, or denied by a
  hook, which still gets its PostToolUse) reads `Error: <reason>`;
- `additionalContext` is ignored on PreToolUse; on PostToolUse it becomes a separate user
  message after the tool result, and the bridge then fires UserPromptSubmit with that text as
  the prompt (so does a Stop block's reason); on UserPromptSubmit it becomes a user message;
- a PreToolUse deny works (the model's tool result is exactly `Error: <reason>`, nothing
  appended); `continue: false` does nothing anywhere; `systemMessage` reaches nobody;
- never sent: PostToolUseFailure, PostToolBatch, SessionEnd; the hooks of parallel calls run
  one at a time; Stop carries no `last_assistant_message`.
"""

import re
from collections.abc import Mapping
from typing import Any

from ..core.host import Capabilities
from ..core.outcome import Failure, Outcome, classify_response, outcome_fingerprint, result_text

#: Every DSH session log ends so (both bridges; research/dsh-hooks.md §3).
TRANSCRIPT_NAME = "session.jsonl.zstd"

#: The events both bridges fire (SessionStart detached, the others awaited).
SENDS = frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"})

_EXIT_CODE = r"\[exit code: (-?\d+)\]\s*\Z"


def capabilities(sends: frozenset[str], arguments: frozenset[str] | None) -> Capabilities:
    """The capability table of a DSH bridge that fires `sends` and carries the arguments of
    `arguments` (None: of every tool)."""
    return Capabilities(
        context=frozenset({"PostToolUse", "UserPromptSubmit"}),
        deny=frozenset({"PreToolUse"}),
        end_turn=frozenset(),
        block=frozenset({"PreToolUse", "PostToolUse", "Stop"}),
        system_message=frozenset(),
        sends=sends,
        context_returns_as_prompt=True,
        denied_call_reports_result=True,
        arguments=arguments,
        transcript_text=False,  # a zstd session log, not JSONL
        session_log=True,
        workspace_state=True,  # research/dsh-hooks.md §8: hooks write the workspace and /tmp only
        turn_end_fallback="answer_only",
    )


def sent_by_dsh(data: Mapping[str, Any]) -> bool:
    """Whether the payload's `transcript_path` is a DSH session log,
    `…/sessions/<encoded cwd>/<session id>/session.jsonl.zstd` (both bridges)."""
    path = data.get("transcript_path")
    if not isinstance(path, str):
        return False
    path = path.replace("\\", "/")
    return path.endswith("/" + TRANSCRIPT_NAME) and "/sessions/" in path


def outcome(tool: str, response: Any, *, mutation: bool, now: float | None = None) -> Outcome:
    """A DSH result: failed when it ends in `[exit code: N]` with N != 0, or is an `Error: …`
    (invalid arguments, or a hook's denial), else as the shared rules read any text."""
    failure = classify_response(tool, response)
    if isinstance(response, str):
        code = re.search(_EXIT_CODE, response[-200:])
        if code is not None:
            failure = Failure.HARD if code.group(1) != "0" else Failure.NONE
        elif response.startswith("Error: "):
            failure = Failure.HARD
    fingerprint = outcome_fingerprint(response, mutation=mutation, now=now)
    return Outcome(fingerprint=fingerprint, failure=failure, text=result_text(response))


def denied_in_batch(text: str) -> bool:
    """A result that is a hook's denial (DSH sends no PostToolBatch; this reads the text form)."""
    return text.startswith("Error: ") and not text.startswith("Error: invalid arguments")


def cancelled_in_batch(text: str) -> bool:
    """Never: DSH sends no PostToolBatch, and runs the hooks of parallel calls one at a time."""
    return False
