"""Big payloads: decoded in pieces, their big texts of tool calls replaced by stand-ins.

- A stand-in is equal for equal JSON text and different otherwise; it holds the text's real head
  and tail; its token never reaches a preview, a call head or a message.
- Everything else decodes exactly as a whole decode; bad input is refused with the same line.
- msgspec is imported for a big payload only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import scenario

from loopguard_hook.core import standin
from loopguard_hook.core.outcome import outcome_fingerprint, preview, result_text
from loopguard_hook.core.redact import redact_prefix
from loopguard_hook.core.signature import call_key, call_signature
from loopguard_hook.hosts import bigtext, payload

BIG = bigtext.THRESHOLD + 4096


def _raw(data: dict[str, Any], ascii_only: bool = False) -> bytes:
    return json.dumps(data, ensure_ascii=ascii_only).encode()


def _write(content: str, original: str | None, event: str = "PostToolUse") -> dict[str, Any]:
    data: dict[str, Any] = {"session_id": "s", "hook_event_name": event, "cwd": "/p", "tool_name": "Write",
                            "tool_input": {"file_path": "/p/a.py", "content": content}, "tool_use_id": "t1"}
    if event == "PostToolUse":
        data["tool_response"] = {"type": "update", "filePath": "/p/a.py", "content": content,
                                 "originalFile": original, "structuredPatch": []}
    return data


def _whole(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(bigtext, "THRESHOLD", 1 << 40)
        return payload.decode(raw)


def _same_but_stand_ins(split: Any, whole: Any) -> None:
    if isinstance(split, str) and standin.is_stand_in(split):
        assert isinstance(whole, str) and len(whole.encode()) > bigtext.THRESHOLD - 2
        token = standin.token_of(split)
        head, _, tail = split.partition(token)
        assert whole.startswith(head) and whole.endswith(tail) and len(head) > 1000 and len(tail) > 1000
    elif isinstance(split, dict):
        assert list(split) == list(whole)
        for key in split:
            _same_but_stand_ins(split[key], whole[key])
    elif isinstance(split, list):
        assert len(split) == len(whole)
        for a, b in zip(split, whole, strict=True):
            _same_but_stand_ins(a, b)
    else:
        assert split == whole


@pytest.mark.parametrize("ascii_only", [False, True], ids=["utf-8", "escaped"])
def test_a_big_write_decodes_as_whole_but_for_its_big_texts(ascii_only: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    content = scenario.big_text(BIG, "new")
    raw = _raw(_write(content, scenario.big_text(BIG, "old")), ascii_only)
    split = payload.decode(raw)
    _same_but_stand_ins(split, _whole(raw, monkeypatch))
    body = split["tool_input"]["content"]
    assert standin.is_stand_in(body) and len(body) < 3 * bigtext.END_BYTES
    assert split["tool_response"]["content"] == body  # equal texts, equal stand-ins
    assert split["tool_response"]["originalFile"] != body
    assert split["tool_input"]["file_path"] == "/p/a.py"


def test_only_texts_of_tool_calls_are_stood_in_for(monkeypatch: pytest.MonkeyPatch) -> None:
    text = scenario.big_text(BIG, "p")
    data = {"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": text, "tool_input": {"a": [text]},
            "tool_calls": [{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": text,
                            "extra": text}]}
    split = payload.decode(_raw(data))
    assert split["prompt"] == text  # a prompt is read whole (the text-loop rule reads it)
    assert standin.is_stand_in(split["tool_input"]["a"][0])
    entry = split["tool_calls"][0]
    assert standin.is_stand_in(entry["tool_response"]) and entry["extra"] == text
    _same_but_stand_ins(split, _whole(_raw(data), monkeypatch))


def test_a_small_payload_is_decoded_whole() -> None:
    text = "x" * (bigtext.THRESHOLD - 200)
    assert payload.decode(_raw(_write(text, None)))["tool_input"]["content"] == text


def test_texts_that_differ_only_in_the_middle_have_different_stand_ins() -> None:
    a = scenario.big_text(BIG, "same")
    middle = len(a) // 2
    b = a[:middle] + "Z" + a[middle + 1 :]
    first = payload.decode(_raw(_write(a, a)))["tool_input"]["content"]
    second = payload.decode(_raw(_write(b, b)))["tool_input"]["content"]
    again = payload.decode(_raw(_write(a, b)))["tool_input"]["content"]
    assert first != second and first == again


def test_pre_and_post_of_a_big_write_are_one_call_and_repeats_are_repeats() -> None:
    content = scenario.big_text(BIG, "w")
    pre = payload.decode(_raw(_write(content, None, "PreToolUse")))
    post = payload.decode(_raw(_write(content, "", "PostToolUse")))
    other = payload.decode(_raw(_write(scenario.big_text(BIG, "v"), None, "PreToolUse")))
    signature = call_signature("Write", pre["tool_input"], frozenset())
    assert signature == call_signature("Write", post["tool_input"], frozenset())
    assert signature != call_signature("Write", other["tool_input"], frozenset())


def test_the_outcome_of_a_big_write_tells_contents_apart() -> None:
    a, b = scenario.big_text(BIG, "a"), scenario.big_text(BIG, "b")
    responses = [payload.decode(_raw(_write(new, old)))["tool_response"] for new, old in ((a, b), (b, a), (a, a))]
    prints = [outcome_fingerprint(r, mutation=True) for r in responses]
    assert len(set(prints)) == 3
    assert prints[0] == outcome_fingerprint(payload.decode(_raw(_write(a, b)))["tool_response"], mutation=True)


def test_the_token_never_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "no spaces" + "x" * BIG  # no space near its ends: a stand-in of the token alone
    for body in (text, scenario.big_text(BIG, "log")):
        data = _write(body, None, "PreToolUse")
        data["tool_response"] = {"stdout": body, "stderr": ""}
        decoded = payload.decode(_raw(data))
        stand_in = decoded["tool_response"]["stdout"]
        assert standin.is_stand_in(stand_in)
        shown = result_text(decoded["tool_response"])
        for limit in (*range(0, 60), 200, 1000, 4000, 40000):
            for quoted in (preview(shown, limit), preview(redact_prefix(shown, limit + 1), limit)):
                assert "\x00" not in quoted and "loopguard-big-text" not in quoted, limit
        head = call_key("Write", decoded["tool_input"], frozenset()).head
        assert "\x00" not in head and "loopguard-big-text" not in head


def _replacing(old: bytes, new: bytes) -> Any:
    """A big Write's JSON with its first `old` replaced by `new`."""
    return lambda big: _raw(_write(big, None)).replace(old, new, 1)


BAD = {
    "trailing garbage": lambda big: _raw(_write(big, None))[:-1] + b"} x",
    "cut short": lambda big: _raw(_write(big, None))[:-20],
    "invalid UTF-8 in a small field": _replacing(b"/p/a.py", b"/p/\xff.py"),
    "invalid UTF-8 in a key": _replacing(b'"cwd"', b'"c\xffd"'),
    "invalid UTF-8 at a big text's head": _replacing(b"    value", b"\xff   value"),
    "lone surrogate in a small field": _replacing(b"/p/a.py", b"/p/\\ud800.py"),
    "lone surrogate in a key": _replacing(b'"cwd"', b'"c\\udc00d"'),
    "NaN": _replacing(b'"t1"', b"NaN"),
    "big integer": _replacing(b'"t1"', b"1" * 40),
    "control character in a small field": _replacing(b"/p/a.py", b"/p/\x01.py"),
    "nesting too deep": _replacing(b'"t1"', b"[" * 300 + b"]" * 300),
    "nesting beyond the parser": _replacing(b'"t1"', b"[" * 2000 + b"]" * 2000),
    "an array": lambda big: b"[" + _raw(_write(big, None)) + b"]",
    "byte-order mark": lambda big: b"\xef\xbb\xbf" + _raw(_write(big, None)),
    "duplicate keys": lambda big: _raw(_write(big, None))[:-1] + b', "cwd": "/q"}',
    "integer past 64 bits at the top": _replacing(b'"t1"', b"18446744073709551616"),
    "largest 64-bit integer at the top": _replacing(b'"t1"', b"18446744073709551615"),
    "smallest integer at the top": _replacing(b'"t1"', b"-9223372036854775809"),
    "infinite float at the top": _replacing(b'"t1"', b"1e400"),
    "long float at the top": _replacing(b'"t1"', b"0.1000000000000000055511151231257827e-3"),
    "negative zero at the top": _replacing(b'"t1"', b"-0.0"),
    "lone surrogate in a top string": _replacing(b'"t1"', b'"t\\udfff"'),
    "a text as the whole tool_response": lambda big: _raw({**_write(big, None), "tool_response": big}),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_big_input_is_refused_or_read_as_a_whole_decode_would(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = BAD[name](scenario.big_text(BIG, "bad"))
    assert len(raw) > bigtext.THRESHOLD

    def outcome(decode: Any) -> Any:
        try:
            return ("ok", decode())
        except payload.PayloadError as exc:
            return ("refused", str(exc))

    split, whole = outcome(lambda: payload.decode(raw)), outcome(lambda: _whole(raw, monkeypatch))
    assert split[0] == whole[0]
    if split[0] == "ok":
        _same_but_stand_ins(split[1], whole[1])
    else:
        assert split == whole


def test_a_big_text_is_not_checked_for_utf8_in_its_middle() -> None:
    """What a stand-in's middle holds is hashed as bytes, never decoded (bigtext.py)."""
    raw = _raw(_write(scenario.big_text(BIG, "mid"), None))
    middle = len(raw) // 3
    at = raw.index(b"value", middle)
    decoded = payload.decode(raw[:at] + b"\xff" + raw[at + 1 :])
    assert standin.is_stand_in(decoded["tool_input"]["content"])


def test_orjson_is_what_decodes_the_small_values() -> None:
    big = scenario.big_text(BIG, "o")
    data = _write(big, None)
    data["tool_input"]["numbers"] = [1, 2.5, -3e5, True, None, {"k": "v\u00e9"}]
    assert payload.decode(orjson.dumps(data))["tool_input"]["numbers"] == data["tool_input"]["numbers"]


@pytest.mark.parametrize(("size", "imported"), [(500, False), (BIG, True)], ids=["small", "big"])
def test_msgspec_is_imported_for_a_big_payload_only(size: int, imported: bool, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from loopguard_hook.hook import HookOptions, run\n"
        f"run(sys.stdin.buffer.read(), options=HookOptions(state_dir={str(tmp_path)!r}), environ={{}})\n"
        "print('msgspec' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=_raw(_write("x" * size, None, "PreToolUse")),
                         capture_output=True, timeout=60, check=True)
    assert out.stdout.decode().strip() == str(imported)


def test_a_container_of_very_many_entries_is_decoded_whole() -> None:
    data = _write(scenario.big_text(BIG, "many"), None)
    data["tool_input"].update({f"k{i}": i for i in range(bigtext.MAX_SPLIT_ENTRIES - 2)})  # with its 2 keys
    assert standin.is_stand_in(payload.decode(_raw(data))["tool_input"]["content"])
    data["tool_input"]["one more"] = 1
    decoded = payload.decode(_raw(data))
    assert decoded["tool_input"]["content"] == data["tool_input"]["content"]  # no stand-in: whole
