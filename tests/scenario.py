"""Golden scenarios: a sequence of hook events with the decision expected after each.

A scenario file (`tests/scenarios/*.json`) holds one JSON object:

    {
      "description": "what happens and why the expectation is right",
      "source": "where the case comes from (seed rule, public report)",
      "clients": ["claude-code", "codex"],        # default: both
      "profiles": ["balanced"],                   # default: ["balanced"]
      "config": {"deny_at": 4},                   # optional overrides, our keys or seed aliases
      "batch_events": true,                       # Claude Code: send PostToolBatch after each batch
      "steps": [ ... ]
    }

Steps use the sketch grammar of the public cases:

- `{"call": TOOL, "input": {...}, "response": R, "pre": E, "post": E}`: a tool call. Expands to
  PreToolUse (expects `pre`), then, unless the call was denied, PostToolUse with `response`
  (expects `post`, default "silent"). With `"error": TEXT` instead of `response` the post event is
  Claude Code's PostToolUseFailure (Codex: PostToolUse whose output is the error text).
  With `"rejected": TEXT` the call failed Claude Code's input validation: no Pre, no Post, only
  the PostToolBatch entry (expect `post` on that batch event); Codex gets Pre + a failed Post.
  With `"forbidden": REASON` (Codex) the execution policy refused the command before it started:
  no post event; the rollout holds Codex's answer, `exec_command failed: CreateProcess { message:
  "Rejected(\"`/bin/bash -lc '…'` rejected: REASON\")" }`. So does a Codex apply_patch whose `response`
  is its sandbox's "patch rejected: …" (no post event, a `custom_tool_call_output` in the rollout).
  With `"refused": TEXT` a permission rule (or the user) refused the call after its PreToolUse:
  Claude Code sends no post event, only the PostToolBatch entry with TEXT (expect `post` on that
  batch event); the other clients get TEXT as the call's error.
  Optional: `id` (name a call), `same` (repeat a named call verbatim), `batch` (calls with the
  same batch label send all their PreToolUse events before any post event), `agent_id`,
  `session_id`, `t` (seconds since start; default 2 s after the previous step), `note`,
  `workdir` (Codex: the `exec_command`'s folder, relative to the session's; its payloads' `cwd`),
  `mode` (the `permission_mode` of the call's events, and of its batch's PostToolBatch when it is
  the batch's last call).
  With a top-level `"workspace": {PATH: TEXT}` the session's `cwd` is a real folder holding
  those files, and a call step's `"writes": {PATH: TEXT or null}` is what the call did to it
  when it ran (written, or deleted, between its PreToolUse and its post event); a command or
  an edit tool's `file_path` that names `/home/user/project` names that folder.
- `{"event": NAME, ...payload fields..., "expect": E}`: a literal hook event (`prompt`,
  `source`, `last_assistant_message`, ...).

Codex only, the calls no hook sees: the runner keeps a real rollout file (a `session_meta` line
first) that `transcript_path` names, and writes each Codex `Bash` call to it as Codex does (an
`exec_command` `function_call` before the PreToolUse, its `function_call_output` after). A call
step with `"running": N` left its command running as session N: its output, written `wall`
seconds (default 30) after the call with its `response` as the text printed so far, says
`Process running with session ID N`, and no PostToolUse follows (Codex sends one only when the
command exits). A step `{"poll": N, "output": TEXT, "wall": SECONDS}` is a `write_stdin` poll
of session N, which fires no hook: its call is written at `t` and its answer `wall` seconds
(default 10) later, still running, or ended with `"exit": CODE`; `"typed": TEXT` types into it
(`"\u0003"` is a Ctrl-C).

In any string, `<big BYTES SEED>` stands for a text of BYTES UTF-8 bytes made from SEED (lines of
source-like text with some non-ASCII; the same pair always gives the same text): a big file or
output, written in a few characters (loopguard_hook/hosts/bigtext.py decodes such payloads in pieces).

An expectation E is `silent`/`allow`, `remind`, `deny`, `stop` or `any`, or an object keyed by
profile (`"breaker"`), by profile and client (`"balanced@codex"`), or `"*"` as the fallback. An
intervention may name the rule code that must decide it: `"deny:LOOP_GUARD_SAME_ERROR"` (the code of
the decision that goes on the wire: the strongest verdict, the first listed rule on a tie).

Tool calls are written in Claude Code's shapes; for Codex they are translated the way Codex
0.171.0 reports them: `Read` becomes `Bash` `cat`/`sed -n`, `Edit`/`Write` become `apply_patch`,
Bash input keeps only `command` and its response is the output text.

The DeepSeek Harness bridges (`"clients": ["dsh-claude-code", "dsh-codex"]`, never a default)
take DSH's own lower-case tool names and text results as written; the Codex bridge's input is
`{"command": <command>}` for `bash` and `{"command": ""}` for every other tool, and an `error`
is the result text. As DSH does (research/dsh-hooks.md §2), a denied call still gets a
PostToolUse whose result is `Error: <reason>`, and a PostToolUse answer with
`additionalContext` is followed by a UserPromptSubmit whose prompt is that text; both are
expected to be silent. No PostToolBatch is sent. A literal UserPromptSubmit step with
`"injected": true` is context another hook injected: it stays in the current turn (`turn_id`).

Qwen Code and Gemini CLI (`"clients": ["qwen-code", "gemini-cli"]`, never a default) take their
own tool names and results, expanded to their own payloads by `scenario_hosts.py`.

GitHub Copilot CLI, Factory Droid and Cursor (`"clients": ["copilot", "droid", "cursor"]`,
never a default) get each event in their own payload shape (`to_host`): Copilot's camelCase
file (`sessionId`, `toolName`, `toolArgs`, `toolResult`, the event named by `--event` as its
install writes it; its tool names `bash`, `view`, `create`, `edit`; a bash result ending in its
exit code line), Droid's (`Execute` with its risk fields, `Create`; string results; a session
path under `~/.factory/sessions/`; a failed call gets no post event, as in Droid), Cursor's
(`conversation_id`, `cursor_version`, camelCase events, `Shell`, `StrReplace`, `tool_output` as a
JSON text, `tool_use_id` with a newline inside). None of them gets a PostToolBatch, and none
sends a call id but Cursor.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenario_hosts import HOST_CLIENTS
from scenario_hosts import play as play_host

from loopguard_hook.core.engine import Action
from loopguard_hook.hook import HookOptions, HookResult, run

SCENARIO_DIR = Path(__file__).parent / "scenarios"
#: The input keys whose `/home/user/project` names the scenario's workspace.
MAPPED_KEYS = ("command", "cmd", "file_path", "path")
CLIENTS = ("claude-code", "codex")
DSH_CLIENTS = ("dsh-claude-code", "dsh-codex")
NEW_CLIENTS = ("copilot", "droid", "cursor")
START = 1_800_000_000.0
NAMES = {
    "silent": Action.ALLOW,
    "allow": Action.ALLOW,
    "allow-stop": Action.ALLOW,
    "remind": Action.REMIND,
    "deny": Action.DENY,
    "stop": Action.STOP,
}


def load(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    expanded: dict[str, Any] = _expand(data)
    return expanded


_BIG = re.compile(r"<big (\d+) ([^>]*)>")


def _expand(value: Any) -> Any:
    if isinstance(value, str):
        return _BIG.sub(lambda m: big_text(int(m.group(1)), m.group(2)), value) if "<big " in value else value
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value


@functools.lru_cache(maxsize=32)
def big_text(size: int, seed: str) -> str:
    """A text of exactly `size` UTF-8 bytes, made from `seed`."""
    line = f"    value = compute('{seed}')  # café, naïve, résumé\n"
    text = (line * (size // len(line.encode()) + 1)).encode()[:size].decode("utf-8", "ignore")
    return text + " " * (size - len(text.encode()))


def cases() -> list[tuple[str, str, str]]:
    """(file name, profile, client) for every scenario file in the folder."""
    out = []
    for path in sorted(SCENARIO_DIR.glob("*.json")):
        data = load(path)
        for profile in data.get("profiles", ["balanced"]):
            for client in data.get("clients", list(CLIENTS)):
                out.append((path.name, profile, client))
    return out


def expected(spec: Any, profile: str, client: str) -> str:
    if spec is None:
        return "silent"
    if isinstance(spec, str):
        return spec
    for key in (f"{profile}@{client}", profile, f"*@{client}", "*"):
        if key in spec:
            return str(spec[key])
    return "silent"


# -- translation to each client's payloads ----------------------------------------------------


def to_dsh(client: str, tool: str, tool_input: Any, response: Any, error: str | None) -> tuple[Any, Any]:
    """A DSH-named call as the bridge reports it: `(tool_input, tool_response)`."""
    text = error if error is not None else _text_of(response)
    if client == "dsh-codex":
        command = tool_input.get("command", "") if isinstance(tool_input, dict) and tool == "bash" else ""
        return {"command": command}, text
    return tool_input, text


def _text_of(response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        file = response.get("file")
        if isinstance(file, dict) and "content" in file:
            return str(file["content"])
        if "stdout" in response:
            return str(response.get("stdout", "")) + str(response.get("stderr", ""))
    return json.dumps(response, sort_keys=True)


def to_codex(tool: str, tool_input: Any, response: Any, error: str | None) -> tuple[str, Any, Any]:
    """A Claude-shaped call as Codex 0.171.0 would report it to a hook."""
    out_text = error if error is not None else _text_of(response)
    if tool == "Bash":
        command = tool_input.get("command") if isinstance(tool_input, dict) else tool_input
        return "Bash", {"command": command}, out_text
    if tool == "Read" and isinstance(tool_input, dict):
        path = tool_input.get("file_path", "")
        offset, limit = tool_input.get("offset"), tool_input.get("limit")
        if offset or limit:
            start = int(offset or 1)
            command = f"sed -n '{start},{start + int(limit or 2000) - 1}p' {path}"
        else:
            command = f"cat {path}"
        return "Bash", {"command": command}, out_text
    if tool in ("Edit", "Write", "MultiEdit") and isinstance(tool_input, dict):
        path = tool_input.get("file_path", "")
        if tool == "Write":
            body = "".join(f"+{line}\n" for line in str(tool_input.get("content", "")).splitlines())
            patch = f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"
        else:
            old = "".join(
                f"-{line}\n" for line in str(tool_input.get("old_string", "")).splitlines()
            )
            new = "".join(
                f"+{line}\n" for line in str(tool_input.get("new_string", "")).splitlines()
            )
            patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n{old}{new}*** End Patch\n"
        if error is not None:
            result = f"Exit code: 1\nWall time: 0 seconds\nOutput:\n{error}\n"
        else:
            result = f"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM {path}\n"
        return "apply_patch", {"command": patch}, result
    if error is not None:
        return tool, tool_input, {"content": [{"type": "text", "text": error}], "isError": True}
    return tool, tool_input, response


#: Claude-shaped tools as each host names them, with the argument keys renamed.
_HOST_TOOLS: dict[str, dict[str, tuple[str, dict[str, str]]]] = {
    "copilot": {
        "Bash": ("bash", {}), "Read": ("view", {"file_path": "path"}), "Grep": ("grep", {}), "Glob": ("glob", {}),
        "Write": ("create", {"file_path": "path", "content": "file_text"}),
        "Edit": ("edit", {"file_path": "path", "old_string": "old_str", "new_string": "new_str"}),
    },
    "droid": {
        "Bash": ("Execute", {}), "Read": ("Read", {}), "Grep": ("Grep", {}), "Glob": ("Glob", {}),
        "Write": ("Create", {}), "Edit": ("Edit", {"old_string": "old_str", "new_string": "new_str"}),
    },
    "cursor": {
        "Bash": ("Shell", {}), "Read": ("Read", {"file_path": "path"}), "Grep": ("Grep", {}),
        "Glob": ("Glob", {"pattern": "glob_pattern"}), "Write": ("Write", {"file_path": "path", "content": "contents"}),
        "Edit": ("StrReplace", {"file_path": "path"}),
    },
}
_COPILOT_EVENTS = {
    "PreToolUse": "preToolUse", "PostToolUse": "postToolUse", "PostToolUseFailure": "postToolUseFailure",
    "UserPromptSubmit": "userPromptSubmitted", "SessionStart": "sessionStart", "SessionEnd": "sessionEnd",
    "Stop": "agentStop", "SubagentStop": "subagentStop",
}
_CURSOR_EVENTS = {
    "PreToolUse": "preToolUse", "PostToolUse": "postToolUse", "PostToolUseFailure": "postToolUseFailure",
    "UserPromptSubmit": "beforeSubmitPrompt", "SessionStart": "sessionStart", "SessionEnd": "sessionEnd",
    "Stop": "stop", "SubagentStop": "subagentStop",
}


def to_host(client: str, payload: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """A Claude-shaped payload as Copilot (camelCase file), Droid or Cursor sends it, and the
    event name the command line gives (Copilot); None when the host sends no such event (Droid
    sends no post event for a call that failed)."""
    event = payload["hook_event_name"]
    session = payload["session_id"]
    tool = payload.get("tool_name")
    name, keys = _HOST_TOOLS[client].get(tool, (tool, {})) if tool else (None, {})
    args = payload.get("tool_input")
    if isinstance(args, dict):
        args = {keys.get(k, k): v for k, v in args.items()}
        if client == "droid" and name == "Execute":
            args.update(riskLevel="low", riskLevelReason="reads files")
        if client == "droid" and name == "Glob" and "pattern" in args:
            args["patterns"] = [args.pop("pattern")]
    text = payload.get("error") if event == "PostToolUseFailure" else _text_of(payload.get("tool_response"))
    if client == "copilot":
        out: dict[str, Any] = {"sessionId": session, "timestamp": 1796190378235, "cwd": payload.get("cwd")}
        if tool:
            out.update(toolName=name, toolArgs=args)
        if event == "PostToolUse":
            if name == "bash":  # the shell id counts up with every call of the session
                shell = payload.get("tool_use_id")
                text = f"{text}\n<shellId: {shell} completed with exit code 0>"
            out["toolResult"] = {"resultType": "success", "textResultForLlm": text}
        elif event == "PostToolUseFailure":
            out["error"] = text
        elif event == "UserPromptSubmit":
            out["prompt"] = payload.get("prompt")
        elif event == "SessionStart":
            out.update(source="new" if payload.get("source") in (None, "startup") else payload["source"], initialPrompt="")
        elif event in ("Stop", "SubagentStop"):
            out.update(stopReason="end_turn", stop_hook_active=bool(payload.get("stop_hook_active")))
            out["transcriptPath"] = f"/home/user/.copilot/session-state/{session}/events.jsonl"
        elif event == "SessionEnd":
            out["reason"] = "complete"
        return out, _COPILOT_EVENTS.get(event, event)
    if client == "droid":
        if event == "PostToolUseFailure":
            return None, None
        out = {k: v for k, v in payload.items() if k not in ("tool_use_id", "duration_ms", "agent_id", "agent_type")}
        out["transcript_path"] = f"/home/user/.factory/sessions/-home-user-project/{session}.jsonl"
        out["permission_mode"] = "auto-high"
        if tool:
            out.update(tool_name=name, tool_input=args)
        if event == "PostToolUse":
            out["tool_response"] = f"{text}\n\n\n[Process exited with code 0]" if name == "Execute" else text
        return out, None
    out = {
        "conversation_id": session, "generation_id": "gen-1", "model": "composer-2.5", "session_id": session,
        "hook_event_name": _CURSOR_EVENTS.get(event, event), "cursor_version": "2026.09.18-9a7762b",
        "workspace_roots": [payload.get("cwd")], "user_email": None, "transcript_path": None,
    }
    if tool:
        out.update(tool_name=name, tool_input=args, tool_use_id=f"{payload.get('tool_use_id')}\nctc_1", cwd=payload.get("cwd"))
    if event == "PostToolUse":
        result = {"output": text, "exitCode": 0} if name == "Shell" else {"content": text}
        out.update(tool_output=json.dumps(result), duration=12)
    elif event == "PostToolUseFailure":
        out.update(error_message=text, failure_type="error", is_interrupt=False, duration=12)
    elif event == "UserPromptSubmit":
        out.update(prompt=payload.get("prompt"), attachments=[])
    elif event == "SessionStart":
        out.update(is_background_agent=False, composer_mode="agent")
    elif event == "Stop":
        out.update(status="completed", loop_count=1 if payload.get("stop_hook_active") else 0)
    elif event == "SessionEnd":
        out.update(reason="completed", duration_ms=1000, is_background_agent=False, final_status="completed")
    return out, None


@dataclass
class Step:
    index: int
    event: str
    payload: dict[str, Any]
    expect: str
    note: str = ""


@dataclass
class Expanded:
    steps: list[Step] = field(default_factory=list)


def _stamp(seconds: float) -> str:
    """A rollout `timestamp` (`2027-01-15T08:00:02.000Z`) of `seconds` since the scenario's start."""
    from datetime import UTC, datetime

    return datetime.fromtimestamp(START + seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _exec_output(text: str, wall: float, session: int | None, code: int = 0) -> str:
    """A Codex 0.1xx command output: its header, then what the command printed."""
    state = f"Process running with session ID {session}" if session is not None else f"Process exited with code {code}"
    return (
        f"Chunk ID: 5e55a0\nWall time: {wall:.4f} seconds\n{state}\n"
        f"Original token count: {len(text) // 4}\nOutput:\n{text}"
    )


def _base(client: str, session_id: str, agent_id: str | None, turn: int) -> dict[str, Any]:
    base: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": f"/home/user/.claude/projects/-home-user-project/{session_id}.jsonl",
        "cwd": "/home/user/project",
    }
    if client in DSH_CLIENTS:
        base["transcript_path"] = (
            f"/home/user/.dsh/sessions/--home-user-project--/{session_id}/session.jsonl.zstd"
        )
        if client == "dsh-codex":
            base.update(model="deepseek-v4-flash", permission_mode="default", turn_id=str(max(turn, 1)))
        return base
    if client == "codex":
        base["transcript_path"] = (
            f"/home/user/.codex/sessions/2026/11/30/rollout-{session_id}.jsonl"
        )
        base["turn_id"] = f"turn-{turn}"
        base["model"] = "gpt-5.5"
        base["permission_mode"] = "bypassPermissions"
    else:
        base["permission_mode"] = "default"
    if agent_id:
        base["agent_id"] = agent_id
        base["agent_type"] = "general-purpose"
    return base


class Runner:
    """Feeds a scenario through the real hook entry (`loopguard_hook.hook.run`) in-process."""

    def __init__(self, data: dict[str, Any], profile: str, client: str, state_dir: str) -> None:
        self.data = data
        self.profile = profile
        self.client = client
        self.state_dir = state_dir
        self.config_path: str | None = None
        if data.get("config"):
            self.config_path = os.path.join(state_dir, "scenario.toml")
            os.makedirs(state_dir, exist_ok=True)
            with open(self.config_path, "w", encoding="utf-8") as fh:
                fh.write(_toml(data["config"]))
        #: A real folder as the session's `cwd` when the scenario has `"workspace"` files (the
        #: guard looks at the files a call names to change, before and after it).
        self.workspace: str | None = None
        if data.get("workspace"):
            self.workspace = state_dir.rstrip("/") + "-workspace"
            self._put(data["workspace"])
        #: Codex: the rollout file `transcript_path` names (the calls no hook sees are written there).
        self.rollout: str | None = None
        if client == "codex":
            os.makedirs(state_dir, exist_ok=True)
            self.rollout = os.path.join(state_dir, "rollout-s1.jsonl")
            self._write({"type": "session_meta", "payload": {"id": "s1", "cwd": "/home/user/project"}}, 0.0)
        self.results: list[tuple[Step, HookResult]] = []
        #: Every answer checked: (the step's position and expectation key, the expectation, the answer).
        self.observed: list[tuple[tuple[int, str] | None, str, HookResult]] = []

    def _write(self, record: dict[str, Any], seconds: float) -> None:
        """Append one record to the rollout, stamped `seconds` after the scenario's start."""
        if self.rollout is None:
            return
        with open(self.rollout, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"timestamp": _stamp(seconds), **record}) + "\n")

    def _item(self, payload: dict[str, Any], seconds: float) -> None:
        self._write({"type": "response_item", "payload": payload}, seconds)

    def _poll(self, step: dict[str, Any], counter: int) -> None:
        """A `write_stdin` poll: written to the rollout only, as no hook fires for it."""
        call_id = f"poll_{counter}"
        args = {"session_id": step["poll"], "chars": step.get("typed", ""), "yield_time_ms": 10000}
        call = {"type": "function_call", "name": "write_stdin", "arguments": json.dumps(args), "call_id": call_id}
        self._item(call, step["_t"])
        wall = float(step.get("wall", 10))
        session = None if "exit" in step else step["poll"]
        output = _exec_output(step.get("output", ""), wall, session, step.get("exit", 0))
        self._item({"type": "function_call_output", "call_id": call_id, "output": output}, step["_t"] + wall)

    def _put(self, files: dict[str, str | None]) -> None:
        """Write (or, for None, delete) files of the scenario's workspace."""
        assert self.workspace is not None, "a step with `writes` needs the scenario's `workspace`"
        for name, text in files.items():
            path = os.path.join(self.workspace, name)
            if text is None:
                os.unlink(path)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)

    def wire_payload(self, step: Step) -> tuple[bytes | None, str | None]:
        """The step's payload as this client sends it, and the `--event` its command line names
        (Copilot); None when the client sends no such event. A Codex `transcript_path` names the
        scenario's rollout."""
        payload: dict[str, Any] | None = step.payload
        event = None
        if self.workspace is not None and step.payload.get("cwd") == "/home/user/project":
            step.payload["cwd"] = self.workspace
        tool_input = step.payload.get("tool_input")
        if self.workspace is not None and isinstance(tool_input, dict):
            # a copy: the scenario's own input serves every client (a Codex `workdir` step too)
            here = self.workspace
            step.payload["tool_input"] = {
                k: re.sub(r"/home/user/project(?![\w.-])", here, v) if k in MAPPED_KEYS and isinstance(v, str) else v
                for k, v in tool_input.items()
            }
        if self.client in NEW_CLIENTS:
            payload, event = to_host(self.client, step.payload)
        elif self.rollout is not None and step.payload.get("transcript_path", "").startswith("/home/user/.codex/"):
            step.payload["transcript_path"] = self.rollout
        return (None if payload is None else json.dumps(payload).encode()), event

    def send(self, step: Step, now: float) -> HookResult:
        raw, event = self.wire_payload(step)
        if raw is None:  # the host sends no such event
            return HookResult()
        result = run(
            raw,
            options=HookOptions(
                # A host's payloads must be recognised as its own.
                client="auto" if self.client in HOST_CLIENTS else self.client,
                profile=self.profile,
                config=self.config_path,
                state_dir=self.state_dir,
                event=event,
            ),
            environ={},
            clock=lambda: now,
            user_config="",
        )
        self.results.append((step, result))
        return result

    def play(self) -> list[str]:
        """Run every step; return the list of mismatches (empty when the scenario holds)."""
        if self.client in HOST_CLIENTS:
            return play_host(self, self.data["steps"])
        errors: list[str] = []
        named: dict[str, dict[str, Any]] = {}
        steps = self.data["steps"]
        t = 0.0
        turn = 0
        i = 0
        counter = 0
        while i < len(steps):
            group = [steps[i]]
            positions = [i]
            label = steps[i].get("batch") if "call" in steps[i] or "same" in steps[i] else None
            if label is not None:
                while i + 1 < len(steps) and steps[i + 1].get("batch") == label:
                    i += 1
                    group.append(steps[i])
                    positions.append(i)
            i += 1
            resolved = []
            for raw_step, position in zip(group, positions, strict=True):
                step = dict(raw_step)
                if "same" in step:
                    base = copy.deepcopy(named[step["same"]])
                    base.update({k: v for k, v in step.items() if k != "same"})
                    step = base
                if "id" in step and "same" not in raw_step:
                    named[step["id"]] = {
                        k: v
                        for k, v in step.items()
                        if k not in ("id", "pre", "post", "t", "batch", "note")
                    }
                t = float(step["t"]) if "t" in step else t + 2.0
                step["_t"] = t
                step["_pos"] = position
                resolved.append(step)
            if "poll" in resolved[0]:
                counter += 1
                if self.client == "codex":
                    self._poll(resolved[0], counter)
                continue
            if "event" in resolved[0]:
                step = resolved[0]
                if step["event"] == "UserPromptSubmit" and not step.get("injected"):
                    turn += 1
                payload = _base(
                    self.client, step.get("session_id", "s1"), step.get("agent_id"), turn
                )
                payload.update(
                    {
                        k: v
                        for k, v in step.items()
                        if k not in ("event", "expect", "t", "_t", "_pos", "note", "id", "injected")
                    }
                )
                payload["hook_event_name"] = step["event"]
                want = expected(step.get("expect"), self.profile, self.client)
                result = self.send(
                    Step(counter, step["event"], payload, want, step.get("note", "")),
                    START + step["_t"],
                )
                errors.extend(self.check(counter, step["event"], want, result, where=(step["_pos"], "expect")))
                counter += 1
                continue
            # a batch of calls: all Pre first, then the posts, then one PostToolBatch (Claude Code)
            entries = []
            for step in resolved:
                counter += 1
                tool, tool_input = step["call"], step.get("input", {})
                response, error, rejected = (
                    step.get("response"),
                    step.get("error"),
                    step.get("rejected"),
                )
                if "refused" in step and self.client != "claude-code":
                    error = step["refused"]
                if self.client in DSH_CLIENTS:
                    tool_input, response = to_dsh(self.client, tool, tool_input, response, error)
                    error = None
                elif self.client == "codex":
                    tool, tool_input, response = to_codex(
                        tool, tool_input, response, error if error is not None else rejected
                    )
                    error = None
                    if rejected is not None:
                        rejected = None
                tool_use_id = f"call_{counter}"
                base = _base(self.client, step.get("session_id", "s1"), step.get("agent_id"), turn)
                if step.get("mode"):  # the host's permission mode at this call's events
                    base = dict(base, permission_mode=step["mode"])
                if step.get("workdir"):  # Codex applies exec_command's workdir to the payload's cwd
                    base = dict(base, cwd=posixpath.join(base.get("cwd") or "/", step["workdir"]))
                entries.append(
                    (counter, step, tool, tool_input, response, error, rejected, tool_use_id, base)
                )
            denied: set[str] = set()
            batch_calls = []
            for (
                counter_i,
                step,
                tool,
                tool_input,
                _response,
                _error,
                rejected,
                tool_use_id,
                base,
            ) in entries:
                if rejected is not None:
                    continue
                if self.client == "codex" and tool == "Bash":
                    args = json.dumps(
                        {"cmd": tool_input.get("command"), "yield_time_ms": 30000}
                        | ({"workdir": step["workdir"]} if step.get("workdir") else {})
                    )
                    call = {"type": "function_call", "name": "exec_command", "arguments": args, "call_id": tool_use_id}
                    self._item(call, step["_t"])
                want = expected(step.get("pre"), self.profile, self.client)
                payload = dict(
                    base,
                    hook_event_name="PreToolUse",
                    tool_name=tool,
                    tool_input=tool_input,
                    tool_use_id=tool_use_id,
                )
                result = self.send(
                    Step(counter_i, "PreToolUse", payload, want, step.get("note", "")),
                    START + step["_t"],
                )
                errors.extend(self.check(counter_i, f"PreToolUse {tool}", want, result, where=(step["_pos"], "pre")))
                if result.decision is not None and result.decision.action >= Action.DENY:
                    denied.add(tool_use_id)
                    if self.client != "claude-code":
                        continue  # only Claude Code sends a PostToolBatch
                    reason = json.loads(result.stdout)["hookSpecificOutput"][
                        "permissionDecisionReason"
                    ]
                    batch_calls.append(
                        {
                            "tool_name": tool,
                            "tool_input": tool_input,
                            "tool_use_id": tool_use_id,
                            "tool_response": f"PreToolUse:{tool} hook error: {reason}",
                        }
                    )
            for (
                counter_i,
                step,
                tool,
                tool_input,
                response,
                error,
                rejected,
                tool_use_id,
                base,
            ) in entries:
                if tool_use_id in denied:
                    if self.client in DSH_CLIENTS:
                        errors.extend(self._dsh_denied_post(counter_i, step, base, tool, tool_input, tool_use_id))
                    continue
                if self.client == "codex" and tool == "Bash" and "forbidden" in step:
                    # Codex's execution policy refused it before it started: its answer is in the
                    # rollout only, no post event (tests/e2e/test_codex_policy.py)
                    line = f"`/bin/bash -lc '{tool_input.get('command')}'` rejected: {step['forbidden']}"
                    output = 'exec_command failed: CreateProcess { message: "Rejected(\\"' + line + '\\")" }'
                    self._item({"type": "function_call_output", "call_id": tool_use_id, "output": output}, step["_t"] + 0.01)
                    continue
                if self.client == "codex" and tool == "apply_patch" and str(response).startswith("patch rejected: "):
                    # Codex 0.171.0 sends no post event for a patch its sandbox rejects either: its
                    # answer is in the rollout only (hosts/rollout.py)
                    self._item({"type": "custom_tool_call_output", "call_id": tool_use_id, "output": response}, step["_t"] + 0.01)
                    continue
                if self.client == "codex" and tool == "Bash":
                    wall = float(step.get("wall", 30 if "running" in step else 0.4))
                    output = _exec_output(_text_of(response), wall, step.get("running"))
                    self._item({"type": "function_call_output", "call_id": tool_use_id, "output": output}, step["_t"] + wall)
                    if "running" in step:
                        continue  # Codex sends a command's PostToolUse only when it exits
                if rejected is not None:
                    batch_calls.append(
                        {
                            "tool_name": tool,
                            "tool_input": tool_input,
                            "tool_use_id": tool_use_id,
                            "tool_response": rejected,
                        }
                    )
                    continue
                if "refused" in step and self.client == "claude-code":
                    batch_calls.append(
                        {
                            "tool_name": tool,
                            "tool_input": tool_input,
                            "tool_use_id": tool_use_id,
                            "tool_response": step["refused"],
                        }
                    )
                    continue
                if "writes" in step:  # what the call did to the workspace when it ran
                    self._put(step["writes"])
                want = expected(step.get("post"), self.profile, self.client)
                if error is not None and self.client in ("claude-code", *NEW_CLIENTS):
                    payload = dict(
                        base,
                        hook_event_name="PostToolUseFailure",
                        tool_name=tool,
                        tool_input=tool_input,
                        tool_use_id=tool_use_id,
                        error=error,
                        is_interrupt=False,
                        duration_ms=12,
                    )
                    text = error
                else:
                    payload = dict(
                        base,
                        hook_event_name="PostToolUse",
                        tool_name=tool,
                        tool_input=tool_input,
                        tool_use_id=tool_use_id,
                        tool_response=response,
                        duration_ms=12,
                    )
                    text = _text_of(response)
                result = self.send(
                    Step(
                        counter_i, payload["hook_event_name"], payload, want, step.get("note", "")
                    ),
                    START + step["_t"] + 0.5,
                )
                errors.extend(
                    self.check(counter_i, f"{payload['hook_event_name']} {tool}", want, result, where=(step["_pos"], "post"))
                )
                if self.client in DSH_CLIENTS:
                    errors.extend(self._dsh_context_prompt(counter_i, base, result, START + step["_t"] + 0.7))
                batch_calls.append(
                    {
                        "tool_name": tool,
                        "tool_input": tool_input,
                        "tool_use_id": tool_use_id,
                        "tool_response": text,
                    }
                )
            if self.client == "claude-code" and self.data.get("batch_events", True) and batch_calls:
                # Each agent runs its own loop, so each gets its own PostToolBatch.
                agent_of = {e[7]: e[8].get("agent_id") for e in entries}
                for agent in dict.fromkeys(agent_of.values()):
                    calls = [c for c in batch_calls if agent_of[c["tool_use_id"]] == agent]
                    mine = [e for e in entries if e[8].get("agent_id") == agent]
                    rejected_steps = [e[1] for e in mine if e[6] is not None or "refused" in e[1]]
                    want = expected(rejected_steps[-1].get("post"), self.profile, self.client) if rejected_steps else "silent"
                    payload = dict(mine[-1][8], hook_event_name="PostToolBatch", tool_calls=calls)
                    result = self.send(Step(counter, "PostToolBatch", payload, want), START + mine[-1][1]["_t"] + 0.9)
                    where = (rejected_steps[-1]["_pos"], "post") if rejected_steps else None
                    errors.extend(self.check(counter, "PostToolBatch", want, result, where=where))
        return errors

    def _dsh_denied_post(
        self, index: int, step: dict[str, Any], base: dict[str, Any], tool: str, tool_input: Any, tool_use_id: str
    ) -> list[str]:
        """DSH still sends the PostToolUse of a denied call, its result the denial text."""
        reason = ""
        for _step, result in reversed(self.results):
            if _step.payload.get("tool_use_id") == tool_use_id and result.stdout:
                reason = json.loads(result.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
                break
        payload = dict(
            base, hook_event_name="PostToolUse", tool_name=tool, tool_input=tool_input,
            tool_use_id=tool_use_id, tool_response=f"Error: {reason}",
        )
        result = self.send(Step(index, "PostToolUse", payload, "silent"), START + step["_t"] + 0.5)
        return self.check(index, f"PostToolUse {tool} (denied)", "silent", result)

    def _dsh_context_prompt(self, index: int, base: dict[str, Any], answer: HookResult, now: float) -> list[str]:
        """DSH fires UserPromptSubmit with each injected PostToolUse context as the prompt."""
        if not answer.stdout:
            return []
        context = json.loads(answer.stdout).get("hookSpecificOutput", {}).get("additionalContext")
        if not context:
            return []
        payload = {k: v for k, v in base.items() if k not in ("agent_id", "agent_type")}
        payload.update(hook_event_name="UserPromptSubmit", prompt=context)
        result = self.send(Step(index, "UserPromptSubmit", payload, "silent", "injected context"), now)
        return self.check(index, "UserPromptSubmit (injected context)", "silent", result)

    def check(
        self, index: int, what: str, want: str, result: HookResult, *, where: tuple[int, str] | None = None
    ) -> list[str]:
        """The mismatches of one answer with its expectation `want` (`deny`, or `deny:RULE_CODE`
        to name the rule that must decide it). `where` is the step's position in the file and
        the key its expectation is under (kept in `observed`, for tools that read the answers)."""
        from wire import validate

        self.observed.append((where, want, result))
        problems = validate(result, self.client)
        if result.event is not None and result.event.client.value != self.client:
            problems.append(f"the payload was taken for {result.event.client.value}'s")
        if result.exit_code != 0:
            # A failed hook prints nothing, which would otherwise read as "silent".
            problems.append(f"hook failed (exit {int(result.exit_code)}): {result.stderr}")
        action, _, code = want.partition(":")
        if action != "any":
            got = result.decision.action if result.decision is not None else Action.ALLOW
            if got is not NAMES[action]:
                problems.append(f"expected {action}, got {got.name.lower()}")
            elif code and (result.decision is None or result.decision.rule != code):
                rule = result.decision.rule if result.decision is not None else ""
                problems.append(f"expected {action} by {code}, got it by {rule or 'no rule'}")
        return [f"step {index} {what}: {p}" for p in problems]


def _toml(values: dict[str, Any]) -> str:
    lines = []
    for key, value in values.items():
        lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"
