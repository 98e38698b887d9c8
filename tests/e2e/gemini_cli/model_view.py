"""What the model received from Gemini CLI: the contents each request added after the model's
previous turn.

Where hook output lands (Gemini CLI 0.61.0, shared/research/gemini-cli-hooks.md §5): a call's
result is the `functionResponse` part of a `user` content, `response` being `{"output": …}`, or
`{"error": …}` for a failed call;

- a BeforeTool denial (top-level `decision: "deny"`/`"block"` + `reason`, or an exit >= 2 with
  the reason on stderr) replaces it with `{"error": "Tool execution blocked: <reason>"}`; the
  Claude form `hookSpecificOutput.permissionDecision` is ignored (the tool runs);
- an AfterTool `decision: "block"` replaces the result with `{"error": "<reason>"}`;
- an AfterTool `additionalContext` is appended inside the output:
  `"<result>\\n\\n<hook_context><text></hook_context>"`;
- a BeforeAgent `additionalContext` is an extra text part `<hook_context>…</hook_context>` after
  the prompt in the first user content; a SessionStart one is prepended to the prompt's part.

Each request resends the whole history, so what is new is everything after the last `model`
content.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..model_view import Seen

__all__ = ["Call", "calls", "hook_contexts", "new_contents", "prompt_parts", "views"]


def new_contents(body: dict[str, Any]) -> list[Seen]:
    """Every part of the contents after the last `model` content of one request body: a
    `functionResponse` as `Seen("functionResponse", <response as JSON>, <id>, is_error)`, a text
    part as `Seen(<role>, <text>)`."""
    contents = body.get("contents") or []
    last = max((i for i, c in enumerate(contents) if c.get("role") == "model"), default=-1)
    seen = []
    for content in contents[last + 1 :]:
        role = str(content.get("role", "user"))
        for part in content.get("parts") or []:
            if "functionResponse" in part:
                fr = part["functionResponse"]
                response = fr.get("response") or {}
                seen.append(Seen("functionResponse", json.dumps(response, ensure_ascii=False), fr.get("id"), "error" in response))
            elif "text" in part:
                seen.append(Seen(role, str(part["text"])))
    return seen


def views(bodies: list[dict[str, Any]]) -> list[list[Seen]]:
    """`new_contents` of every request after the first: view k holds the results of the model's k-th turn."""
    return [new_contents(body) for body in bodies[1:]]


@dataclass(frozen=True)
class Call:
    """One tool call as the model saw it come back: its `functionResponse.response` and the text
    parts that followed in the same request (`after`)."""

    call_id: str | None
    name: str
    args: dict[str, Any]
    response: dict[str, Any]
    after: tuple[str, ...]

    @property
    def error(self) -> bool:
        return "error" in self.response

    @property
    def result(self) -> str:
        """The output, or the error text."""
        value = self.response.get("error", self.response.get("output", ""))
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def calls(bodies: list[dict[str, Any]]) -> list[Call]:
    """Every tool call of one conversation, in order: request k+1 carries the results of the
    calls in the model's k-th answer (its last `model` content). Results are joined to calls by
    id (the CLI gives every call one), else by position."""
    out: list[Call] = []
    for body in bodies[1:]:
        contents = body.get("contents") or []
        last = max((i for i, c in enumerate(contents) if c.get("role") == "model"), default=-1)
        if last < 0:
            continue
        function_calls = [p["functionCall"] for p in contents[last].get("parts") or [] if "functionCall" in p]
        responses = [p["functionResponse"] for c in contents[last + 1 :] for p in c.get("parts") or [] if "functionResponse" in p]
        by_id = {r.get("id"): r for r in responses if r.get("id")}
        after = tuple(s.text for s in new_contents(body) if s.where != "functionResponse")
        for i, fc in enumerate(function_calls):
            response = by_id.get(fc.get("id")) or (responses[i] if i < len(responses) else {})
            out.append(Call(fc.get("id"), str(fc.get("name", "")), fc.get("args") or {}, response.get("response") or {}, after))
    return out


def prompt_parts(body: dict[str, Any]) -> list[str]:
    """The text parts of the first user content: Gemini's session context, the prompt, then what
    a BeforeAgent hook added."""
    for content in body.get("contents") or []:
        if content.get("role", "user") == "user":
            return [str(p["text"]) for p in content.get("parts") or [] if "text" in p]
    return []


def hook_contexts(text: str) -> list[str]:
    """The bodies of the `<hook_context>` blocks in `text`."""
    return re.findall(r"<hook_context>(.*?)</hook_context>", text, re.S)
