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


def outcome(
    text: str, *, failed: bool = False, unchanged: bool = False, now: float | None = None, shell: bool = False
) -> Outcome:
    """The outcome of a result whose model-facing text is `text`: failed when `failed` or when
    it reports a non-zero `Exit Code`; the fingerprint ignores the volatile lines (`now`: the
    event's time, `outcome.outcome_fingerprint`). A `shell` result is read as `shell_text` gives it."""
    code = re.search(_EXIT_CODE, text)
    failure = Failure.HARD if failed or (code is not None and code.group(1) != "0") else Failure.NONE
    if shell:
        text = shell_text(text)
    return Outcome(
        fingerprint=outcome_fingerprint(re.sub(_VOLATILE, "", text), now=now), failure=failure, text=text, unchanged=unchanged
    )


#: The lines that close a shell result, last first, each at most once (Qwen Code: all of them,
#: `(none)` when empty; Gemini CLI: `Exit Code` only when not 0, then the process group).
_TRAILER = ("Process Group PGID", "Background PIDs", "Signal", "Exit Code", "Error")


def shell_text(text: str) -> str:
    """A shell result as Claude Code words one: `Exit code N` first when N is not 0, then what
    the command printed, then the host's `Error` and `Signal` when there are any. Qwen Code's
    result names the command and its folder above the output (`Command: <cmd>`, `Directory:`)
    and Gemini CLI's wraps it in `<untrusted_context>` (captured AfterTool, PostToolUse and
    PostToolUseFailure payloads): so every failure would read as another error, and a quote of
    one, cut short, would leave the guard's own words inside the host's untrusted block. Any
    other text is returned as it is."""
    lines = text.split("\n")
    if lines and lines[0].strip() == "<untrusted_context>":
        lines = lines[1:]
    if lines and lines[-1].strip() == "</untrusted_context>":
        lines = lines[:-1]
    head = 1 if lines and lines[0].startswith("Command: ") else 0
    head += 1 if len(lines) > head and lines[head].startswith("Directory: ") else 0
    if len(lines) <= head or not lines[head].startswith("Output: "):
        return text
    end, fields = len(lines), {}
    for key in _TRAILER:
        if end > head + 1 and lines[end - 1].startswith(key + ": "):
            fields[key] = lines[end - 1][len(key) + 2 :].strip()
            end -= 1
    output = "\n".join([lines[head][len("Output: ") :], *lines[head + 1 : end]])
    said = [] if fields.get("Exit Code", "0") in ("0", "(none)") else [f"Exit code {fields['Exit Code']}"]
    said += [] if output.strip() == "(empty)" else [output]
    said += [fields["Error"]] if fields.get("Error", "(none)") != "(none)" else []
    said += [f"Signal: {fields['Signal']}"] if fields.get("Signal", "(none)") != "(none)" else []
    return "\n".join(said)
