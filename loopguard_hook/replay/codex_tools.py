"""Codex facts the rollout reader needs: which rollout items fire which hook, with what
`tool_input` and `tool_response` (Codex 0.171.0; research notes `codex-hooks.md` §6, §8)."""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from collections.abc import Mapping
from typing import Any

import orjson

from ..core.outcome import PATCH_REJECTED, SANDBOX_EXIT, Failure, classify_response
from ..hosts.rollout import REFUSED, call_arguments, exec_failure
from .jsonl import text_of
from .model import Outcome

#: Response items as written by rollouts from before records were wrapped in `{type, payload}`.
BARE_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "reasoning",
    }
)


_EXEC_HEADER = re.compile(
    r"\A(?:(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count"
    r"|Exit code|Total output lines)\b[^\n]*\n)+Output:\n?"
)
_EXIT_LINE = re.compile(r"^(?:Process exited with code|Exit code:) ?(-?\d+)", re.M)
STILL_RUNNING = re.compile(r"^Process running with session ID", re.M)
_CODEX_BLOCKED = ("Command blocked by PreToolUse hook:", "Tool call blocked by PreToolUse hook:")
#: Model-side tools that run no hooks in Codex 0.171.0 (research notes §6).
CODEX_UNHOOKED_TOOLS = frozenset({"write_stdin", "tool_search", "web_search", "exec", "wait"})
_SHELL_TOOLS = frozenset({"exec_command", "shell_command", "shell", "container.exec", "local_shell"})
COMPLETION_EVENTS = frozenset({"exec_command_end", "patch_apply_end", "mcp_tool_call_end"})


def split_exec_output(output: str) -> tuple[str, int | None]:
    """Codex shell output as the hook sees it, and the exit code the header states.

    `"Chunk ID: …\\nWall time: …\\nProcess exited with code 2\\nOriginal token count: 15\\nOutput:\\nls: …"`
    gives `("ls: …", 2)` (Codex 0.171.0 `function_call_output`). Older rollouts wrap the output
    as JSON `{"output": …, "metadata": {"exit_code": N}}`; that form is unwrapped too. Their
    sandbox's refusal is plain text that states its exit code (`outcome.SANDBOX_EXIT`): that
    code is given, the text as it is. A command that Codex failed to run is answered
    `exec_command failed: …` (0.115-0.119: `exec_command failed for `CMD`: …`, read without the
    command: `rollout.exec_failure`): its sandbox's `exit_code: N` when it states one, else -1 (no
    process ran, as Codex's own exec events give it).
    """
    wrapped = _wrapped(output)
    if wrapped is not None:
        text, meta = wrapped
        code = meta.get("exit_code")
        return text, code if isinstance(code, int) else None
    match = _EXEC_HEADER.match(output)
    if match is None and output.startswith("exec_command failed"):
        output = exec_failure(output)
        # the sandbox's own record (`output: ExecToolCallOutput { exit_code: 1, stdout: …`), not an
        # `exit_code: N` the command printed in the message before it
        stated = re.search(r"\bExecToolCallOutput \{ exit_code: (-?\d+)", output[:16384])
        return output, int(stated.group(1)) if stated else -1
    if match is None:
        sandbox = re.match(SANDBOX_EXIT, output[:400])  # `failed in sandbox … exit code: 128, …` (0.2x-0.3x)
        return output, int(sandbox.group(1)) if sandbox else None
    exit_match = _EXIT_LINE.search(match.group(0))
    return output[match.end() :], int(exit_match.group(1)) if exit_match else None


def patch_output(output: str) -> str:
    """apply_patch's output as Codex 0.171.0 gives it to the hook, header and all
    (`"Exit code: 0\\nWall time: 0 seconds\\nOutput:\\nSuccess. …"`, captured payload
    PostToolUse__apply_patch__ok): older rollouts record it as JSON `{"output": …, "metadata":
    {"exit_code": N, "duration_seconds": S}}`, whose exit code the hook would have seen in that
    header (a failed `*** Delete File` of 2025-11 rollouts says only `Failed to delete file …`).
    Any other text is returned as it is (a verification failure is recorded as plain text)."""
    wrapped = _wrapped(output)
    code = wrapped[1].get("exit_code") if wrapped is not None else None
    if wrapped is None or not isinstance(code, int):
        return output
    seconds = wrapped[1].get("duration_seconds")
    wall = f"{seconds:g}" if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else "0"
    return f"Exit code: {code}\nWall time: {wall} seconds\nOutput:\n{wrapped[0]}"


def _wrapped(output: str) -> tuple[str, dict[str, Any]] | None:
    """An older rollout's JSON form of a tool's output, `{"output": …, "metadata": {…}}`, as
    its text and metadata (`{}` for none); None for any other text."""
    stripped = output.lstrip()
    if not (stripped.startswith("{") and '"output"' in stripped[:200]):
        return None
    try:
        wrapped = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(wrapped, dict) or not isinstance(wrapped.get("output"), str):
        return None
    meta = wrapped.get("metadata")
    return wrapped["output"], meta if isinstance(meta, dict) else {}


_WALL_TIME = re.compile(r"^Wall time: (\d+(?:\.\d+)?) seconds$", re.M)


def wall_seconds(output: Any) -> float | None:
    """How long a command ran, from the header of its output (`Wall time: 120 seconds`), or None."""
    if not isinstance(output, str):
        return None
    match = _EXEC_HEADER.match(output[:600])
    found = _WALL_TIME.search(match.group(0)) if match else None
    return float(found.group(1)) if found else None


def shell_script(argv: Any) -> str | None:
    """The script of a Codex `shell` argv (`["bash", "-lc", "cat x"]` gives `cat x`)."""
    if isinstance(argv, str):
        return argv
    if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
        if len(argv) >= 3 and argv[-2] in ("-lc", "-c") and os.path.basename(argv[0]) in ("bash", "sh", "zsh", "dash"):
            return str(argv[-1])
        return " ".join(argv)
    return None


def codex_tool(item: Mapping[str, Any]) -> tuple[str, Any] | None:
    """Hook `tool_name` and `tool_input` of a rollout call item, or None if no hook fires for it."""
    kind = item.get("type")
    name = item.get("name")
    if kind == "local_shell_call":
        action = item.get("action")
        command = shell_script(action.get("command")) if isinstance(action, dict) else None
        return ("Bash", {"command": command}) if command is not None else None
    if not isinstance(name, str) or name in CODEX_UNHOOKED_TOOLS:
        return None
    if kind == "custom_tool_call":
        raw = item.get("input")
        if name == "apply_patch":
            return "apply_patch", {"command": raw if isinstance(raw, str) else ""}
        return name, raw
    if kind != "function_call":
        return None
    arguments = item.get("arguments")
    try:
        args = orjson.loads(arguments) if isinstance(arguments, str) else arguments
    except orjson.JSONDecodeError:
        args = arguments  # malformed input is compared as the raw string, as the hook would
    namespace = item.get("namespace")
    if isinstance(namespace, str) and namespace:
        # MCP tools are `mcp__<server>__<tool>`, whether the rollout writes the namespace
        # `mcp__demo` (0.171.0 probe P11) or `mcp__serena__` (a public 0.122.0 rollout); other
        # namespaces are joined as Codex does (0.171.0 probe P20: `multi_agent_v1wait_agent`).
        mcp = namespace.startswith("mcp__") and not namespace.endswith("__")
        joined = f"{namespace}__{name}" if mcp else namespace + name
        return joined, args
    if name in _SHELL_TOOLS:
        if not isinstance(args, dict):
            return "Bash", {"command": args if isinstance(args, str) else ""}
        command = args.get("cmd", args.get("command"))
        script = shell_script(command)
        return "Bash", {"command": script if script is not None else ""}
    if name == "apply_patch":
        patch = args.get("input", args.get("patch")) if isinstance(args, dict) else args
        return "apply_patch", {"command": patch if isinstance(patch, str) else ""}
    return name, args


NOT_PROMPTS = ("<environment_context>", "<user_instructions>", "<hook_prompt", "# AGENTS.md", "<turn_aborted>")


def is_stop_continuation(text: str) -> bool:
    """Whether a user message is a Stop hook's reason fed back to the model: Codex 0.171.0 writes
    a blocked Stop as `<hook_prompt hook_run_id="stop:<order>:<hooks file>">REASON</hook_prompt>`
    (a `response_item` user message, and an `item_completed` `HookPrompt`), calls the model
    again, and sends the next Stop with `stop_hook_active` true; the turn has no `task_complete`
    until then (research/codex-hooks.md §7.5; a real rollout in tests/data/transcripts)."""
    head = text.lstrip()[:300]
    return head.startswith("<hook_prompt") and ('hook_run_id="stop:' in head or 'hook_run_id="subagent_stop:' in head)


def seconds(item: Mapping[str, Any], key: str) -> float | None:
    """A millisecond epoch field of a Codex item (`started_at_ms`) in seconds, or None."""
    value = item.get(key)
    return value / 1000.0 if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def exit_code(item: Mapping[str, Any] | None) -> int | None:
    if item is None:
        return None
    code = item.get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


#: The guard's own denial of a patch that does not fit its file (`rules.target.misfit_denial`), as
#: Codex records it: the line it quotes is what the live hook found missing at the PreToolUse.
_MISFIT_DENIAL = re.compile(
    r"REPEAT_TOOL_BLOCKED: this patch of (.+?) was not run: its hunk does not match .+? as it is now \(the guard "
    r"looked before the call; its lines from `(.*)` on are not in the file"
)


def denied_misfit(output: Any) -> str | None:
    """For a patch the live guard denied as not fitting its file (a recording made under the
    guard: apply_patch never ran, so its own failure is not there), that look as apply_patch
    words such a failure (`Failed to find expected lines in <path>:` and the line), which
    `core.patch.recorded_misfit` reads; None for any other output. A replay of the recording then
    denies the patch as the live hook did, where it once saw nothing (a new user's session: six
    patches denied live, none in the replay)."""
    text = output if isinstance(output, str) else text_of(output)
    found = _MISFIT_DENIAL.search(text[:4096]) if text.startswith(_CODEX_BLOCKED) else None
    return f"Failed to find expected lines in {found.group(1)}:\n{found.group(2)}" if found is not None else None


def patch_failed(tool: str, output: Any) -> bool:
    """Whether apply_patch's recorded answer is a failure it gives with no exit code
    (`apply_patch verification failed: …`), as `outcome.classify_response` reads it, for the
    replay's `recorded` column."""
    return tool == "apply_patch" and isinstance(output, str) and classify_response(tool, output) != Failure.NONE


def blocked(output: Any) -> Outcome | None:
    """Why a call with this output did not run and got no post event: `DENIED` (a PreToolUse
    hook's denial), `REFUSED` (the execution policy's, `hosts.rollout.REFUSED`, or a read-only
    sandbox's refusal of a patch, `outcome.PATCH_REJECTED`), or None."""
    text = exec_failure((text_of(output) if not isinstance(output, str) else output).lstrip())
    if text.startswith(_CODEX_BLOCKED):
        return Outcome.DENIED
    return Outcome.REFUSED if text.startswith((REFUSED, PATCH_REJECTED)) else None


def call_folder(cwd: str | None, arguments: Any) -> str | None:
    """The folder a shell call ran in: the session's `cwd` with the call's `workdir` applied, as
    Codex 0.171.0 gives it as the payload's `cwd` (`Capabilities.cwd_is_workdir`)."""
    workdir = call_arguments(arguments).get("workdir")
    if not isinstance(workdir, str) or not workdir:
        return cwd
    windows = "\\" in (cwd or "") or re.match(r"[A-Za-z]:[\\/]", workdir) is not None
    joined = ntpath.join if windows else posixpath.join
    return joined(cwd, workdir) if cwd else workdir


def find_key(value: Any, keys: tuple[str, ...]) -> str | None:
    if isinstance(value, dict):
        for key in keys:
            found = value.get(key)
            if isinstance(found, str) and found:
                return found
        for inner in value.values():
            found = find_key(inner, keys)
            if found is not None:
                return found
    return None

