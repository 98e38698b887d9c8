"""What Gemini CLI and Qwen Code (a fork of it) share: a tool's result as `{llmContent,
returnDisplay}`, where `llmContent` is what the model gets.

Facts (captured AfterTool / PostToolUse payloads, Gemini CLI 0.61.0 and Qwen Code 0.24.4,
`tests/e2e/gemini_cli/payloads/`, `tests/e2e/qwen_code/payloads/`):

- `llmContent` is a string (read_file: the text; run_shell_command: `Command:`/`Output:` lines
  with an `Exit Code: N` line) or, for a subagent's tool, a list of `{text}` parts;
- `returnDisplay` is what the user sees: a string, or an object with the whole file before and
  after an edit (`originalContent`, `newContent`) that the model never gets;
- Gemini's shell result ends in `Process Group PGID: <pid>`, a new number on every run.
"""

import re
from typing import Any

from ..core.outcome import Failure, Outcome, outcome_fingerprint

#: A shell result's exit status line (`Exit Code: 1`; Gemini writes it only when not 0).
_EXIT_CODE = r"(?m)^Exit Code: (-?\d+)\s*$"
#: Lines that differ between two runs of the same command (Gemini: the process group id).
_VOLATILE = r"(?m)^Process Group PGID: \d+\s*$"


def llm_text(response: Any) -> str | None:
    """The text the model got of a `{llmContent, returnDisplay}` result; None for another shape."""
    if not isinstance(response, dict) or "llmContent" not in response:
        return None
    content = response["llmContent"]
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text")) for p in content if isinstance(p, dict) and "text" in p)
    return None


def outcome(text: str, *, failed: bool = False, unchanged: bool = False, now: float | None = None) -> Outcome:
    """The outcome of a result whose model-facing text is `text`: failed when `failed` or when
    it reports a non-zero `Exit Code`; the fingerprint ignores the volatile lines (`now`: the
    event's time, `outcome.outcome_fingerprint`)."""
    code = re.search(_EXIT_CODE, text)
    failure = Failure.HARD if failed or (code is not None and code.group(1) != "0") else Failure.NONE
    return Outcome(
        fingerprint=outcome_fingerprint(re.sub(_VOLATILE, "", text), now=now), failure=failure, text=text, unchanged=unchanged
    )
