"""A scripted mock of the Gemini API on 127.0.0.1, for the real Gemini CLI.

Scripts are the suite's `Script` / `Subscript` (`tests/e2e/mock_model.py`); build turns with
`call(name, args)` and `text(...)`. Each request that offers function declarations and whose
system instruction is the agent's takes the next turn of its script (a subagent's `Subscript`
when its `match` occurs in the request's first user content); every other request takes no turn.

Wire facts (Gemini CLI 0.61.0, shared/research/gemini-cli-hooks.md §1): with
`GOOGLE_GEMINI_BASE_URL=<mock>` it POSTs `/v1beta/models/<model>:streamGenerateContent?alt=sse`
once per model turn (the whole history in `contents`, the tools in `tools[0].
functionDeclarations`) and reads SSE `data: <GenerateContentResponse>` frames; before each
prompt it asks the model router `:generateContent` in JSON mode (`complexity_score`; 50 routes to
`gemini-3.8-flash`), and its next-speaker and loop checks are JSON-mode side queries too: all
get `AUX_JSON`, which satisfies each. `:countTokens` gets a rough count. The agent's system
instruction says "CLI agent" ("You are Gemini CLI, an autonomous CLI agent" for Gemini 3 models,
"a non-interactive CLI agent" for older ones; a subagent's too). A `functionCall` the mock sends
without an `id` gets one from the CLI (`<tool>_<epoch ms>_<index>`), echoed in its
`functionResponse`; with `call_ids` the mock names them `call_<script>_<turn>_<index>`.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from ..mock_model import Logged, MockModel, Script, text

__all__ = ["GeminiMock", "call", "text"]

#: In the system instruction of the agent's (and a subagent's) requests.
MAIN_MARKER = "CLI agent"
#: One answer for every JSON-mode side query seen: the router, next-speaker and loop checks.
AUX_JSON = {
    "complexity_reasoning": "mock",
    "complexity_score": 50,
    "reasoning": "mock",
    "next_speaker": "user",
    "model_choice": "pro",
    "unproductive_state_analysis": "mock",
    "unproductive_state_confidence": 0.0,
}
USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
_ROUTE = re.compile(r"/models/([^/:]+):(\w+)$")


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A `functionCall` of Gemini CLI tool `name` (`read_file`, `run_shell_command`, ...)."""
    return {"type": "call", "name": name, "args": args}


class GeminiMock(MockModel):
    """`POST .../models/<m>:streamGenerateContent` and `:generateContent` answered from the
    script (tool-less and foreign requests get side answers); `:countTokens` a count."""

    def __init__(self, script: Script, log_path: Path, *, call_ids: bool = False) -> None:
        super().__init__(script, log_path)
        self.call_ids = call_ids

    def answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        match = _ROUTE.search(path.split("?", 1)[0])
        if match is None or not isinstance(body, dict):
            return 404, "application/json", b'{"error": {"code": 404, "message": "not mocked", "status": "NOT_FOUND"}}'
        model, method = match.groups()
        if method == "countTokens":
            return 200, "application/json", json.dumps({"totalTokens": 100}).encode()
        with self._lock:
            entry = self._reply(path, body)
            self.log(entry)
        if method == "generateContent":
            return 200, "application/json", json.dumps(_response(model, _parts(entry.reply))).encode()
        # SSE: one chunk per text item, then every functionCall in one chunk; the last one finishes
        parts = _parts(entry.reply)
        chunks = [_response(model, [part]) for part in parts if "text" in part]
        calls = [part for part in parts if "functionCall" in part]
        if calls or not chunks:
            chunks.append(_response(model, calls or [{"text": ""}]))
        for chunk in chunks[:-1]:
            del chunk["candidates"][0]["finishReason"], chunk["usageMetadata"]
        return 200, "text/event-stream", b"".join(f"data: {json.dumps(c)}\r\n\r\n".encode() for c in chunks)

    def _reply(self, path: str, body: dict[str, Any]) -> Logged:
        seq = len(self.requests) + 1
        if not _has_tools(body):
            answer = json.dumps(AUX_JSON) if _wants_json(body) else "OK"
            return Logged(seq, path, body, "aux", None, reply=[text(answer)])
        name, tag, turns, final = "main", "main", self.script.turns, self.script.final_text
        first = first_user_text(body)
        for i, sub in enumerate(self.script.subagents):
            if sub.match in first:
                name, tag, turns, final = sub.match, f"sub{i}", sub.turns, sub.final_text
                break
        else:
            if MAIN_MARKER not in system_text(body):
                return Logged(seq, path, body, "side", None, reply=[text("OK")])
        turn = self.next_turn(name, turns)
        if turn is None:
            return Logged(seq, path, body, name, None, reply=[text(final)])
        items = [
            dict(item, id=f"call_{tag}_{turn}_{j}") if item["type"] == "call" and self.call_ids else dict(item)
            for j, item in enumerate(turns[turn])
        ]
        return Logged(seq, path, body, name, turn, reply=items)


def _parts(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for item in items:
        if item["type"] == "text":
            parts.append({"text": item["text"]})
        elif item["type"] == "call":
            function = {"name": item["name"], "args": item["args"]} | ({"id": item["id"]} if "id" in item else {})
            parts.append({"functionCall": function})
        else:
            raise ValueError(f"unknown script item type {item['type']!r}")
    return parts


def _response(model: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": dict(USAGE),
        "modelVersion": model,
        "responseId": f"mock-{time.time_ns()}",
    }


def _has_tools(body: dict[str, Any]) -> bool:
    return any(isinstance(t, dict) and t.get("functionDeclarations") for t in body.get("tools") or [])


def _wants_json(body: dict[str, Any]) -> bool:
    config = body.get("generationConfig") or {}
    return config.get("responseMimeType") == "application/json" or bool(
        config.get("responseSchema") or config.get("responseJsonSchema")
    )


def parts_text(parts: Any) -> str:
    """The text of a list of parts (other parts left out)."""
    return "".join(str(p.get("text", "")) for p in parts or [] if isinstance(p, dict))


def first_user_text(body: dict[str, Any]) -> str:
    """The text of the first `user` content of a request body."""
    for content in body.get("contents") or []:
        if isinstance(content, dict) and content.get("role", "user") == "user":
            return parts_text(content.get("parts"))
    return ""


def system_text(body: dict[str, Any]) -> str:
    """The text of a request's system instruction."""
    instruction = body.get("systemInstruction") or {}
    return parts_text(instruction.get("parts")) if isinstance(instruction, dict) else str(instruction)
