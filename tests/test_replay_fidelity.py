"""Replay fidelity: a blocking Stop hook's feedback is a continuation, not a user prompt (the next
Stop has `stop_hook_active`), in every transcript shape there is; a Codex command starts its wall
time before its output.

The shapes, each pinned on real records (`tests/data/transcripts/`):

- Claude Code 1.0.45 (2025-07): a plain user message `Stop hook feedback:\n- [cmd]: …`, the
  turn's last message often without `stop_reason` (`claude-1.0-stop-hook-feedback.jsonl`,
  trimmed from tests/corpus/claude/08e71d8b-…, a broken Stop hook answering every reply);
- Claude Code 1.0.45 also writes a failing PostToolUse hook's feedback as a plain user message
  `Bash operation feedback:\n- [cmd]: …` (no prompt either), and a call a PreToolUse hook blocked
  as a result `TodoWrite operation blocked by hook:\n…` (`claude-1.0-post-tool-use-feedback.jsonl`);
- Claude Code 2.1.332: the feedback as an `isMeta` user message `Stop hook feedback:\n<reason>`,
  with a `hook_blocking_error` attachment of `hookEvent` Stop (`claude-stop-hook-continuation
  .jsonl`, written by the real client run offline with a Stop hook that blocks once);
- Codex 0.171.0: a user message `<hook_prompt hook_run_id="stop:…">reason</hook_prompt>` (and an
  `item_completed` `HookPrompt`), no `task_complete` for the blocked Stop
  (`codex-stop-hook-continuation.jsonl`, the real client run the same way)."""

from __future__ import annotations

import json
from pathlib import Path

from loopguard_hook import replay
from loopguard_hook.config.settings import Config
from loopguard_hook.replay.readers import load

DATA = Path(__file__).parent / "data" / "transcripts"


def _reply(base: dict[str, str], uuid: str, text: str, message_id: str | None = None) -> dict[str, object]:
    """A Claude Code assistant line of one text block, `stop_reason` null (1.0.x-2.1.49)."""
    content = [{"type": "text", "text": text}]
    message = {"id": message_id or uuid, "role": "assistant", "stop_reason": None, "content": content}
    return {**base, "type": "assistant", "uuid": uuid, "message": message}


def _user(base: dict[str, str], uuid: str, content: object, **extra: object) -> dict[str, object]:
    """A Claude Code user line (a prompt, a tool result, what the client wrote)."""
    return {**base, "type": "user", "uuid": uuid, "message": {"role": "user", "content": content}, **extra}


def _turns(path: Path) -> list[tuple[str, object, object]]:
    """The prompts and Stops replay rebuilds from a file: `(event, stop_hook_active, last message)`."""
    events = load([str(path)])[0].events
    return [
        (e.payload["hook_event_name"], e.payload.get("stop_hook_active"), e.payload.get("last_assistant_message"))
        for e in events
        if e.payload["hook_event_name"] in ("UserPromptSubmit", "Stop", "SubagentStop")
    ]


def test_claude_code_1_0_feedback_in_a_plain_user_message() -> None:
    assert [(name, active) for name, active, _ in _turns(DATA / "claude-1.0-stop-hook-feedback.jsonl")] == [
        ("UserPromptSubmit", None), ("Stop", False), ("Stop", True), ("Stop", True), ("Stop", True)
    ]


def test_claude_code_1_0_post_tool_use_feedback_is_no_prompt_and_a_hook_block_no_failure() -> None:
    """A failing PostToolUse hook's `Bash operation feedback:` user message leaves the turn going
    (no UserPromptSubmit), and a call answered `TodoWrite operation blocked by hook:` did not run:
    no PostToolUse or PostToolUseFailure (`claude-1.0-post-tool-use-feedback.jsonl`, trimmed from
    tests/corpus/claude/08e71d8b-…, hooks that fail to spawn)."""
    events = load([str(DATA / "claude-1.0-post-tool-use-feedback.jsonl")])[0].events
    assert [(e.payload["hook_event_name"], e.payload.get("tool_name")) for e in events] == [
        ("UserPromptSubmit", None), ("PreToolUse", "Bash"), ("PostToolUse", "Bash"), ("PostToolBatch", None),
        ("PreToolUse", "TodoWrite"), ("PostToolBatch", None),
    ]


def test_only_a_hooks_own_words_are_read_as_its_feedback_or_its_block() -> None:
    """An MCP tool's dashed name is blocked as any other; a user's pasted text, or a command's
    output that merely starts like a block, is not (rv75)."""
    from loopguard_hook.replay.claude_code_tools import classify_claude_result, is_tool_feedback
    from loopguard_hook.replay.model import Outcome

    blocked = "mcp__context7__get-library-docs operation blocked by hook:\n- [uv run pre.py]: error: Failed to spawn"
    assert classify_claude_result(blocked, True) is Outcome.DENIED
    assert classify_claude_result(blocked, False) is Outcome.RAN  # output that starts so, not an error
    assert is_tool_feedback("Bash operation feedback:\n- [uv run post.py]: error: Failed to spawn")
    assert is_tool_feedback("mcp__x__do-it operation feedback:\n- [post.sh]: no")
    assert not is_tool_feedback("Deploy operation feedback:\nthe deploy went wrong, can you look?")
    assert not is_tool_feedback("my.tool operation feedback:\n- [x]: y")


def test_claude_code_2_1_feedback_marked_meta_with_its_attachment(tmp_path: Path) -> None:
    path = DATA / "claude-stop-hook-continuation.jsonl"
    assert _turns(path) == [
        ("UserPromptSubmit", None, None), ("Stop", False, "All done."), ("Stop", True, "Checked, done.")
    ]
    lines = path.read_text(encoding="utf-8").splitlines()
    meta = [i for i, line in enumerate(lines) if '"isMeta": true' in line]
    block = [i for i, line in enumerate(lines) if '"hook_blocking_error"' in line]
    assert len(meta) == len(block) == 1
    for left_out in (meta[0], block[0]):  # either record alone says the turn went on
        alone = tmp_path / f"without-{left_out}.jsonl"
        alone.write_text("".join(line + "\n" for i, line in enumerate(lines) if i != left_out), encoding="utf-8")
        assert [active for name, active, _ in _turns(alone) if name == "Stop"] == [False, True]


def test_codex_hook_prompt_after_a_stop_that_has_no_task_complete() -> None:
    path = DATA / "codex-stop-hook-continuation.jsonl"
    assert _turns(path) == [
        ("UserPromptSubmit", None, None), ("Stop", False, "All done."), ("Stop", True, "Checked, done.")
    ]
    events = [e.payload["hook_event_name"] for e in load([str(path)])[0].events]
    assert events.index("Stop") < events.index("PreToolUse")  # the blocked Stop came before the check


def test_a_codex_stop_hook_ping_pong_is_judged_as_one_turn(tmp_path: Path) -> None:
    """The real rollout's blocked Stop repeated: the Stop hook blocks three more times and the
    model says `All done.` each time. Read as prompts, or with the blocked Stops missing, each
    reply started afresh; read as continuations, the same final message on consecutive Stops of
    a forced continuation ends the turn (`same_final_message_at`)."""
    lines = (DATA / "codex-stop-hook-continuation.jsonl").read_text(encoding="utf-8").splitlines()
    prompt = next(i for i, line in enumerate(lines) if "<hook_prompt" in line)
    answer = next(i for i in range(prompt - 1, 0, -1) if '"All done."' in lines[i] and '"response_item"' in lines[i])
    looped = lines[: prompt + 1] + [lines[answer], lines[prompt]] * 3 + lines[prompt + 1 :]
    path = tmp_path / "rollout-2026-12-02T07-36-37-01a235af-1983-7120-a2f3-aca2a9c806b3.jsonl"
    path.write_text("".join(line + "\n" for line in looped), encoding="utf-8")
    assert [active for name, active, _ in _turns(path) if name == "Stop"] == [False, True, True, True, True]
    report = replay.replay(load([str(path)])[0], Config())
    assert [(d.event, d.verdict.action, d.verdict.rule) for d in report.decisions][-1] == ("Stop", "stop", "LOOP_GUARD_TEXT")


def test_stop_hook_feedback_replays_as_a_continuation(tmp_path: Path) -> None:
    """Claude Code feeds a blocking Stop hook's reason back as a user message and fires no
    UserPromptSubmit; the next Stop has `stop_hook_active` (research/claude-code-e2e.md)."""
    base = {"sessionId": "s1", "cwd": "/p", "timestamp": "2025-07-09T16:11:39.000Z"}
    wrapped = (
        "<system-reminder>\nThe text below is the output of a hook that the user set up.\nStop hook feedback:\n"
        "[uv run stop.py]: error\n</system-reminder>"
    )
    records = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "why does it fail?"}},
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Because of X."}],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u2",
            "message": {"role": "user", "content": "Stop hook feedback:\n- [uv run stop.py]: error"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a2",
            "message": {
                "id": "m2",
                "role": "assistant",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "X, again."}],
            },
        },
        {**base, "type": "user", "uuid": "u3", "message": {"role": "user", "content": [{"type": "text", "text": wrapped}]}},
        {
            **base,
            "type": "assistant",
            "uuid": "a3",
            "message": {"id": "m3", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "X."}]},
        },
        {**base, "type": "user", "uuid": "u4", "message": {"role": "user", "content": "thanks, next"}},
        {
            **base,
            "type": "assistant",
            "uuid": "a4",
            "message": {
                "id": "m4",
                "role": "assistant",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Sure."}],
            },
        },
    ]
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    events = [(e.payload["hook_event_name"], e.payload.get("stop_hook_active")) for e in load([str(path)])[0].events]
    assert [e for e in events if e[0] in ("UserPromptSubmit", "Stop")] == [
        ("UserPromptSubmit", None),
        ("Stop", False),
        ("Stop", True),
        ("Stop", True),
        ("UserPromptSubmit", None),
        ("Stop", False),
    ]


def test_a_turn_left_without_stop_reason_ends_at_the_feedback(tmp_path: Path) -> None:
    """Transcripts of 2025-07 leave `stop_reason` null on a turn's last message: the Stop hook's
    feedback right after it shows that the turn ended there, so the Stop is replayed."""
    base = {"sessionId": "s2", "cwd": "/p", "timestamp": "2025-07-09T16:11:39.000Z"}

    def said(uuid: str, text: str) -> dict[str, object]:
        return _reply(base, uuid, text)

    feedback = {**base, "type": "user", "message": {"role": "user", "content": "Stop hook feedback:\n- [stop.py]: error"}}
    records = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "fix it"}},
        said("a1", "Change line 37."),
        {**feedback, "uuid": "u2"},
        said("a2", "Edit line 37."),
        {**feedback, "uuid": "u3"},
    ]
    path = tmp_path / "s2.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    stops = [
        (e.payload.get("stop_hook_active"), e.payload.get("last_assistant_message"))
        for e in load([str(path)])[0].events
        if e.payload["hook_event_name"] == "Stop"
    ]
    assert stops == [(False, "Change line 37."), (True, "Edit line 37.")]


def test_a_turn_left_without_stop_reason_ends_at_the_next_prompt_unless_interrupted(tmp_path: Path) -> None:
    """Transcripts of 1.0.x-2.1.49 leave `stop_reason` null on every message (corpus f5fec4ab,
    2.1.x: 148 messages, none `end_turn`): a reply the user answers with a prompt ended its
    turn, and the live host sent its Stop there; after `[Request interrupted by user]` it sent
    none (research/claude-code-hooks.md: Stop does not fire on user interrupt)."""
    base = {"sessionId": "s3", "cwd": "/p", "timestamp": "2026-02-20T20:02:16.000Z"}

    def said(uuid: str, text: str) -> dict[str, object]:
        return _reply(base, uuid, text)

    def user(uuid: str, content: object) -> dict[str, object]:
        return _user(base, uuid, content)

    records = [
        user("u1", "set up the client"),
        said("a1", "Done."),
        user("u2", "now find the people"),
        said("a2", "Trying the search endpoint."),
        user("u3", [{"type": "text", "text": "[Request interrupted by user]"}]),
        user("u4", "continue"),
    ]
    path = tmp_path / "s3.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert _turns(path) == [
        ("UserPromptSubmit", None, None),
        ("Stop", False, "Done."),
        ("UserPromptSubmit", None, None),
        ("UserPromptSubmit", None, None),
    ]


def test_a_files_last_reply_without_stop_reason_ends_its_turn(tmp_path: Path) -> None:
    """The file's last reply, `stop_reason` null and no prompt after it: the turn ended there
    and the live host sent its Stop (replay sent none, so a text loop in a session's last turn
    was never judged); after an interrupt, still none."""
    base = {"sessionId": "s5", "cwd": "/p", "timestamp": "2026-02-20T20:02:16.000Z"}

    def said(uuid: str, text: str) -> dict[str, object]:
        return _reply(base, uuid, text)

    def user(uuid: str, content: object) -> dict[str, object]:
        return _user(base, uuid, content)

    path = tmp_path / "s5.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [user("u1", "deploy it"), said("a1", "Deployed.")]))
    assert _turns(path) == [("UserPromptSubmit", None, None), ("Stop", False, "Deployed.")]
    interrupt = user("u2", [{"type": "text", "text": "[Request interrupted by user]"}])
    interrupted = [user("u1", "deploy it"), said("a1", "Deploying."), interrupt]
    path.write_text("".join(json.dumps(r) + "\n" for r in interrupted))
    assert _turns(path) == [("UserPromptSubmit", None, None)]
    # A transcript whose replies state their `stop_reason` (2.1.50 and newer): a last reply
    # stated null was cut short (the client killed before its tool call was written).
    ended = {**said("a0", "Checked."), "message": {**said("a0", "Checked.")["message"], "stop_reason": "end_turn"}}
    cut = [user("u0", "check it"), ended, user("u1", "now run the tests"), said("a1", "Let me run the tests.")]
    path.write_text("".join(json.dumps(r) + "\n" for r in cut))
    assert _turns(path) == [("UserPromptSubmit", None, None), ("Stop", False, "Checked."), ("UserPromptSubmit", None, None)]


def test_a_resumed_sessions_copy_of_a_reply_ends_no_turn_again(tmp_path: Path) -> None:
    """A resumed session may write the older conversation into the file again, each reply under
    its old message id (a public 2.0.x transcript: 112 message ids twice, a day apart); the
    live hooks fired nothing for the copy, so a copied reply replays no Stop (two Stops with
    one reply read as "your last replies were identical")."""
    base = {"sessionId": "s4", "cwd": "/p", "timestamp": "2025-12-09T23:22:43.000Z"}

    def said(uuid: str, message_id: str, text: str) -> dict[str, object]:
        return _reply(base, uuid, text, message_id)

    def user(uuid: str, text: str) -> dict[str, object]:
        return _user(base, uuid, text)

    records = [user("u1", "plan the sync"), said("a1", "m1", "Option 2.")]
    records += [user("u2", "why option 2?"), said("a2", "m2", "Fewer calls.")]
    copy = [user("c1", "plan the sync"), said("c2", "m1", "Option 2.")]
    copy += [user("c3", "why option 2?"), said("c4", "m2", "Fewer calls.")]
    path = tmp_path / "s4.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*records, *copy, user("u3", "write it")]))
    assert [(name, text) for name, _, text in _turns(path) if name == "Stop"] == [("Stop", "Option 2."), ("Stop", "Fewer calls.")]
    # The copy in the resumed session's own file, read with the older one: one session, as live.
    older, resumed = tmp_path / "older.jsonl", tmp_path / "resumed.jsonl"
    older.write_text("".join(json.dumps(r) + "\n" for r in [*records, user("u3", "thanks")]))
    resumed.write_text("".join(json.dumps(r) + "\n" for r in [*copy, user("u4", "write it")]))
    (recording,) = load([str(older), str(resumed)])
    stops = [e.payload["last_assistant_message"] for e in recording.events if e.payload["hook_event_name"] == "Stop"]
    assert stops == ["Option 2.", "Fewer calls."]


def test_a_session_resumed_in_its_own_file_replays_each_call_once(tmp_path: Path) -> None:
    """Claude Code 2.0.29 (a public transcript: 42 calls, then all of them again at one instant
    under new uuids) may write a resumed conversation into the same file again: its replies keep
    their message ids and their calls their `tool_use_id`s, its prompts come back with the IDE's
    note and the text on two lines. The live hooks fired once for each: the copy replays no
    call and no prompt; a line with no message id (a proxy's model, as in that transcript) is
    the copy's too. A prompt with something new in it stays, though a copy answers it, and a
    new message's call stays though its id was used before."""
    base = {"sessionId": "s5", "cwd": "/p"}

    def at(second: int) -> dict[str, str]:
        return {**base, "timestamp": f"2025-11-01T09:{second // 60:02d}:{second % 60:02d}.000Z"}

    def call(second: int, uuid: str, message_id: str | None, tool_use_id: str) -> list[dict[str, object]]:
        use = {"type": "tool_use", "id": tool_use_id, "name": "Bash", "input": {"command": "npm run build"}}
        message = {"role": "assistant", "stop_reason": None, "content": [use]}
        if message_id is not None:
            message["id"] = message_id
        line = {**at(second), "type": "assistant", "uuid": uuid, "message": message}
        result = [{"type": "tool_result", "tool_use_id": tool_use_id, "content": "built"}]
        return [line, _user(at(second), uuid + "r", result)]

    note = "<ide_opened_file>The user opened the file src/App.tsx in the IDE.</ide_opened_file>"
    first = [_user(at(0), "u1", [{"type": "text", "text": note}, {"type": "text", "text": "build it"}])]
    first += call(1, "a1", "m1", "t1") + call(2, "a2", "m2", "t2") + call(3, "a3", None, "t0")
    first += [_reply(at(4), "a4", "Built three times.", "m3")]
    copy = [_user(at(60), "c1", note), _user(at(60), "c2", "build it")]
    copy += call(60, "c3", "m1", "t1") + call(60, "c4", "m2", "t2") + call(60, "c5", None, "t0")  # a proxy's: no id
    copy += [_reply(at(60), "c6", "Built three times.", "m3")]
    asked = [_user(at(61), "u2", "why three times?")] + call(61, "c7", "m2", "t2")  # a new question, a copied answer
    then = [_user(at(70), "u3", "build it"), *call(71, "a5", "m4", "t3")]  # said before, answered anew
    then += call(72, "a6", "m5", "t1")  # an id used before, in a new message (a proxy's ids): a new call
    path = tmp_path / "s5.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*first, *copy, *asked, *then]))
    (recording,) = load([str(path)])
    names = [(e.payload["hook_event_name"], e.payload.get("tool_use_id") or e.payload.get("prompt")) for e in recording.events]
    assert [n for _, n in names if _ == "PreToolUse"] == ["t1", "t2", "t0", "t3", "t1"]
    prompts = [p for name, p in names if name == "UserPromptSubmit"]
    assert prompts == [note + "\nbuild it", "why three times?", "build it"]
    assert not recording.synthetic_times


def test_a_prompt_typed_before_a_copy_stays_and_the_copys_own_do_not(tmp_path: Path) -> None:
    """A hostile review of the copies' reading (rv82): a "continue" said before, left unanswered
    when the client was closed, then the session resumed in the same file. The live hooks saw
    that prompt: it stays though the copy's reply (with the copy's own "continue") comes next;
    only prompts written at the copy's instant go, also the copy's last one that a new reply
    answers. A copied reply ends no turn again."""
    base = {"sessionId": "s6", "cwd": "/p"}

    def at(second: int) -> dict[str, str]:
        return {**base, "timestamp": f"2025-11-01T09:{second // 60:02d}:{second % 60:02d}.000Z"}

    def call(second: int, uuid: str, message_id: str, tool_use_id: str) -> list[dict[str, object]]:
        use = {"type": "tool_use", "id": tool_use_id, "name": "Bash", "input": {"command": "npm run build"}}
        message = {"id": message_id, "role": "assistant", "stop_reason": None, "content": [use]}
        result = [{"type": "tool_result", "tool_use_id": tool_use_id, "content": "built"}]
        return [{**at(second), "type": "assistant", "uuid": uuid, "message": message}, _user(at(second), uuid + "r", result)]

    lines = [_user(at(0), "u1", "fix the build"), *call(1, "a1", "m1", "t1"), _reply(at(2), "a2", "Done.", "m2")]
    lines += [_user(at(60), "u2", "continue")]  # never answered: the client was closed
    copy = [_user(at(300), "c1", "fix the build"), *call(300, "c2", "m1", "t1"), _reply(at(300), "c3", "Done.", "m2")]
    copy += [_user(at(300), "c4", "continue")]
    lines += [*copy, _user(at(301), "u3", "continue"), *call(302, "a3", "m3", "t3"), _reply(at(303), "a4", "Lint clean.", "m4")]
    path = tmp_path / "s6.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    turns = _turns(path)
    assert [(name, text) for name, _, text in turns if name == "Stop"] == [("Stop", "Done."), ("Stop", "Lint clean.")]
    prompts = [e.payload for e in load([str(path)])[0].events if e.payload["hook_event_name"] == "UserPromptSubmit"]
    assert [p["prompt"] for p in prompts] == ["fix the build", "continue", "continue"]


def test_the_clients_own_messages_are_no_reply() -> None:
    """Claude Code writes an API error or "Not logged in · Please run /login" as an assistant
    message of model `<synthetic>` (public 2.1.x transcripts: 135 in one session); read as the
    model's text, every prompt answered so was a text loop (212 reminders in one public set)."""
    from loopguard_hook.hosts.transcript import assistant_texts

    def message(model: str, text: str) -> dict[str, object]:
        return {"type": "assistant", "message": {"id": "m", "model": model, "content": [{"type": "text", "text": text}]}}

    said, synthetic = message("claude-opus-4-5", "Done."), message("<synthetic>", "Not logged in")
    assert [text for _, text in assistant_texts(said)] == ["Done."]
    assert assistant_texts(synthetic) == []


def test_a_local_command_or_an_image_between_turns_keeps_the_stop(tmp_path: Path) -> None:
    """Only an interrupt leaves a reply's turn without its Stop: a `/cost`, a `! git status` or an
    image-only prompt between the reply and the next prompt does not (a hostile review)."""
    base = {"sessionId": "s9", "cwd": "/p", "timestamp": "2026-02-20T20:02:16.000Z"}

    def said(uuid: str, text: str) -> dict[str, object]:
        return _reply(base, uuid, text)

    def user(uuid: str, content: object, **extra: object) -> dict[str, object]:
        return _user(base, uuid, content, **extra)

    image = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]
    between = [
        [user("m1", "Caveat: The messages below were generated by the user while running local commands.", isMeta=True),
         user("c1", "<command-name>/cost</command-name>\n<command-message>cost</command-message>"),
         user("c2", "<local-command-stdout>Total cost: $0.12</local-command-stdout>")],
        [user("b1", "<bash-input>git status</bash-input>"), user("b2", "<bash-stdout>clean</bash-stdout>")],
        [user("i1", image)],
    ]
    for n, lines in enumerate(between):
        path = tmp_path / f"s9-{n}.jsonl"
        records = [user("u1", "set up the client"), said("a1", "Done."), *lines, user("u2", "now find the people")]
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        assert ("Stop", False, "Done.") in _turns(path), n


def test_a_final_message_split_over_two_lines_keeps_its_text(tmp_path: Path) -> None:
    """A final message written as a thinking line, then a text line, both `end_turn`: the text
    line is no resumed session's copy of the message."""
    base = {"sessionId": "s10", "cwd": "/p", "timestamp": "2026-02-20T20:02:16.000Z"}

    def line(uuid: str, blocks: list[dict[str, str]]) -> dict[str, object]:
        message = {"id": "m1", "role": "assistant", "stop_reason": "end_turn", "content": blocks}
        return {**base, "type": "assistant", "uuid": uuid, "message": message}

    records = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
        line("a1", [{"type": "thinking", "thinking": "hmm", "signature": "x"}]),
        line("a2", [{"type": "text", "text": "Hello there."}]),
        {**base, "type": "user", "uuid": "u2", "message": {"role": "user", "content": "bye"}},
    ]
    path = tmp_path / "s10.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert ("Stop", False, "Hello there.") in _turns(path)


def test_a_codex_command_starts_its_wall_time_before_its_output(tmp_path: Path) -> None:
    """Codex 0.6x rollouts write a command's call and output at one time, the output stating
    how long it ran: the PreToolUse is replayed that long before (as the live hook sees it), and
    never before the events already replayed."""
    from loopguard_hook.replay.codex_tools import wall_seconds

    assert wall_seconds("Exit code: 124\nWall time: 120 seconds\nOutput:\n") == 120.0
    assert wall_seconds("Exit code: 0\nOutput:\nok\n") is None
    assert wall_seconds("Wall time: 5 seconds, said the log") is None

    def record(t: str, kind: str, payload: dict[str, object]) -> dict[str, object]:
        return {"timestamp": f"2025-11-28T21:{t}Z", "type": kind, "payload": payload}

    def call(t: str, cid: str, command: str, output: str) -> list[dict[str, object]]:
        args = json.dumps({"command": command, "workdir": "/w"})
        return [
            record(t, "response_item", {"type": "function_call", "name": "shell_command", "arguments": args, "call_id": cid}),
            record(t, "response_item", {"type": "function_call_output", "call_id": cid, "output": output}),
        ]

    meta = {"id": "019a0000-0000-7000-8000-000000000001", "timestamp": "2025-11-28T21:00:00.000Z", "cwd": "/w"}
    records = [
        record("00:00.000", "session_meta", {**meta, "originator": "codex_cli_rs", "cli_version": "0.63.0"}),
        record("00:01.000", "turn_context", {"cwd": "/w", "approval_policy": "never", "model": "gpt-5.1-codex-max"}),
        record(
            "00:02.000", "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "push"}]}
        ),
        *call("00:10.000", "c1", "git status", "Exit code: 0\nWall time: 0 seconds\nOutput:\nclean\n"),
        *call("02:15.000", "c2", "git push", "Exit code: 124\nWall time: 120 seconds\nOutput:\n"),
        *call("02:20.000", "c3", "git push origin main", "Exit code: 124\nWall time: 300 seconds\nOutput:\n"),
    ]
    path = tmp_path / "rollout-2025-11-28T21-00-00-019a0000-0000-7000-8000-000000000001.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    events = load([str(path)])[0].events
    times = {(e.payload["hook_event_name"], e.payload.get("tool_use_id")): e.time for e in events}
    assert times[("PostToolUse", "c2")] - times[("PreToolUse", "c2")] == 120.0
    assert times[("PreToolUse", "c3")] == times[("PostToolUse", "c2")]  # not before the push before it
    assert times[("PreToolUse", "c1")] == times[("PostToolUse", "c1")]


def test_the_oldest_codex_rollouts_start_at_their_first_lines_time(tmp_path: Path) -> None:
    """Rollouts of mid-2025 time only their first line (`{id, timestamp, instructions}`), then bare
    response items with no time: the session starts at that line's time, not at the epoch."""
    lines = [
        {"id": "fa24fee9-0000-4000-8000-000000000001", "timestamp": "2025-08-20T01:42:25.583Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": "list it"}]},
        {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["ls"]}), "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": json.dumps({"output": "a\n", "metadata": {"exit_code": 0}})},
    ]
    path = tmp_path / "rollout-2025-08-20T01-42-25-fa24fee9-0000-4000-8000-000000000001.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    [report] = replay.replay_files([str(path)], Config())
    assert report.started == 1755654145.583 and [c.tool for c in report.calls] == ["Bash"]


def test_an_older_rollouts_patch_output_reaches_the_hook_as_codex_0_171_gives_it() -> None:
    # 2025-11 rollouts wrap apply_patch's output as JSON; the 0.171.0 hook sees a header that
    # states the exit code (captured payload PostToolUse__apply_patch__ok): a failed Delete File
    # says only "Failed to delete file", so without the header it read as a success.
    from loopguard_hook.core.outcome import Failure, outcome_of_response
    from loopguard_hook.replay.codex_tools import patch_output

    wrapped = '{"output":"Failed to delete file specs/a/spec.md\\n","metadata":{"exit_code":1,"duration_seconds":0.0}}'
    text = patch_output(wrapped)
    assert text == "Exit code: 1\nWall time: 0 seconds\nOutput:\nFailed to delete file specs/a/spec.md\n"
    assert outcome_of_response("apply_patch", text).failure != Failure.NONE
    ok = '{"output":"Success. Updated the following files:\\nM a.py\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'
    assert patch_output(ok) == "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM a.py\n"
    plain = "apply_patch verification failed: Failed to find expected lines in /w/a.py:\nx"
    assert patch_output(plain) == plain and patch_output("{not json") == "{not json"


CORPUS = Path(__file__).parent / "corpus" / "claude"


def _inline_roots(path: Path) -> dict[str, str]:
    """Each tool_use id of a subagent line kept in the main transcript -> the uuid of the line its
    chain of `parentUuid` starts at (Claude Code 1.0.x: the Task's prompt, `parentUuid` null)."""
    parent_of: dict[str, str | None] = {}
    roots: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("isSidechain") is not True:
            continue
        parent_of[record["uuid"]] = record.get("parentUuid")
        root = record["uuid"]
        while parent_of.get(root) is not None:
            root = parent_of[root]  # type: ignore[assignment]
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                roots[block["id"]] = root
    return roots


def test_claude_code_1_0_subagents_kept_in_the_main_transcript_are_one_agent_each() -> None:
    """Claude Code 1.0.x writes every subagent's lines into the main transcript (`isSidechain`,
    no `agentId`); replay made them one agent, `sidechain`, so four parallel review subagents
    were counted as one (a held-out 1.0.89 session: two subagents each reading a missing file
    twice were "failed 4 times" and the second one's turn was ended). Each chain of `parentUuid`
    is its own agent now, as hosts that name agents send them (corpus 666ba1ad, 1.0.55: four
    review subagents run in parallel)."""
    path = CORPUS / "666ba1ad-f06a-487c-9c1a-7b1c8d3d7ffe.jsonl"
    roots = _inline_roots(path)
    assert len(set(roots.values())) == 4
    report = replay.replay(load([str(path)])[0], Config())
    agent_of = {c.tool_use_id: c.agent for c in report.calls}
    chains: dict[str, set[str]] = {}
    for tool_use_id, root in roots.items():
        chains.setdefault(root, set()).add(agent_of[tool_use_id])
    assert all(len(agents) == 1 for agents in chains.values()), chains  # one agent per subagent
    agents = [next(iter(a)) for a in chains.values()]
    assert len(set(agents)) == 4 and "main" not in agents and "sidechain" in agents, agents


def _subagent_lines(task: str, prompt_uuid: str, reads: list[tuple[str, str]]) -> list[dict[str, object]]:
    """A 1.0.x subagent's lines as the main transcript keeps them (fields of the real 1.0.55 and
    1.0.89 records): its prompt, then for each `(tool_use id, path)` a Read and its result,
    "File does not exist." for a path under `missing/`."""
    lines: list[dict[str, object]] = []
    base = {"isSidechain": True, "userType": "external", "cwd": "/w/p", "sessionId": "5b16cde2-0000", "version": "1.0.89"}
    lines.append({**base, "parentUuid": None, "uuid": prompt_uuid, "type": "user",
                  "message": {"role": "user", "content": task}})
    parent = prompt_uuid
    for tool_use_id, file_path in reads:
        use = {**base, "parentUuid": parent, "uuid": f"{tool_use_id}-use", "type": "assistant",
               "message": {"id": f"msg-{tool_use_id}", "role": "assistant", "content": [
                   {"type": "tool_use", "id": tool_use_id, "name": "Read", "input": {"file_path": file_path}}]}}
        missing = "/missing/" in file_path
        result = {**base, "parentUuid": use["uuid"], "uuid": f"{tool_use_id}-result", "type": "user",
                  "message": {"role": "user", "content": [
                      {"type": "tool_result", "tool_use_id": tool_use_id, "is_error": missing,
                       "content": "<tool_use_error>File does not exist.</tool_use_error>" if missing else "1\tline"}]},
                  "toolUseResult": "Error: File does not exist." if missing else {"type": "text"}}
        lines += [use, result]
        parent = str(result["uuid"])
    return lines


def test_two_subagents_reading_one_missing_file_are_not_one_wall(tmp_path: Path) -> None:
    """Two subagents of one 1.0.x session, one after the other, each Read a missing file twice
    between other reads: each has failed twice, no wall of four (the replay ended the second's
    turn at its second failure, as in the held-out 1.0.89 session)."""
    first = _subagent_lines("review A", "pa", [("a1", "/w/p/missing/common.sh"), ("a2", "/w/p/a.sh"),
                                                ("a3", "/w/p/missing/common.sh"), ("a4", "/w/p/b.sh")])
    second = _subagent_lines("review B", "pb", [("b1", "/w/p/missing/common.sh"), ("b2", "/w/p/c.sh"),
                                                 ("b3", "/w/p/missing/common.sh"), ("b4", "/w/p/d.sh")])
    lines = first + second
    for i, line in enumerate(lines):
        line["timestamp"] = f"2025-08-24T19:{20 + i // 60:02d}:{i % 60:02d}.000Z"
    path = tmp_path / "5b16cde2-0000.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = replay.replay(load([str(path)])[0], Config())
    agents = {c.tool_use_id: c.agent for c in report.calls}
    assert agents["a1"] == agents["a3"] != agents["b1"] == agents["b3"], agents
    shown = [(c.tool_use_id, d.action) for c in report.calls for d in (c.pre, c.post) if d is not None and d.action != "allow"]
    assert shown == [], shown


def _codex_0_137_turn(turn: str, prompt: str, reply: str | None, at: str) -> list[dict[str, object]]:
    """One turn of a Codex 0.137.0 rollout, in its records' shapes (a public rollout of
    2026-06): the prompt as a response item and a `user_message` event, the reply as an
    `agent_message` event and an assistant response item, then `task_complete` naming it (null
    when the turn ended with no reply: a usage limit, an interrupt)."""
    records: list[dict[str, object]] = [
        {"timestamp": at, "type": "event_msg", "payload": {"type": "task_started", "turn_id": turn}},
        {"timestamp": at, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}},
        {"timestamp": at, "type": "event_msg", "payload": {"type": "user_message", "message": prompt}},
    ]
    if reply is not None:
        records += [
            {"timestamp": at, "type": "event_msg", "payload": {"type": "agent_message", "message": reply}},
            {"timestamp": at, "type": "response_item",
             "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": reply}]}},
        ]
    records.append({"timestamp": at, "type": "event_msg",
                    "payload": {"type": "task_complete", "turn_id": turn, "last_agent_message": reply}})
    return records


def test_a_codex_turn_with_no_reply_is_not_the_last_turns_reply_again(tmp_path: Path) -> None:
    """A Codex turn that ended with no reply (`last_agent_message: null`) was replayed with the
    previous turn's reply, so two such turns after one answer read as "your last replies were
    identical although the user asked different things" (a held-out Codex 0.137.0 session, and
    two turns ended by a usage limit in a 0.1xx one). Its Stop has no reply now."""
    meta = {"timestamp": "2026-06-07T20:13:01.077Z", "type": "session_meta",
            "payload": {"id": "019ea3b4-0000", "timestamp": "2026-06-07T20:09:07.009Z", "cwd": "/w/p",
                        "originator": "codex-tui", "cli_version": "0.137.0", "source": "cli"}}
    records = [meta]
    records += _codex_0_137_turn("t1", "Can we codify the backfill?", "Yes. I codified it as a subcommand.",
                                 "2026-06-07T21:02:37.465Z")
    for i, prompt in enumerate(("Why do the profiles differ?", "And the deploy step?", "Try once more.")):
        records += _codex_0_137_turn(f"t{i + 2}", prompt, None, f"2026-06-09T22:4{i + 6}:06.880Z")
    path = tmp_path / "rollout-2026-06-07T16-09-07-019ea3b4-0000.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert [active for _, active, last in _turns(path) if _ == "Stop"] == [False] * 4
    assert [last for name, _, last in _turns(path) if name == "Stop"] == ["Yes. I codified it as a subcommand.", None, None, None]
    report = replay.replay(load([str(path)])[0], Config())
    assert [(d.event, d.verdict.rule) for d in report.decisions] == [], report.decisions


def test_a_forked_codex_threads_copy_of_its_parents_history_gives_no_events(tmp_path: Path) -> None:
    """A Codex 0.118.0 subagent spawned with `fork_context` (public rollouts of 2026-04) has its
    own `session_meta`, then the parent's and every record of the parent's conversation, all at
    one instant, then its own turns. Read alone, its rollout replayed the parent's 68 calls as
    the subagent's, at made-up times; the live hooks fired for them in the parent's thread. The
    copy's turns are older than the thread (ids are UUIDv7): they give no events. Read along
    with the parent's rollout, the session is the same as before: every call once."""
    parent_id, child_id = "019d5247-8044-7113-a227-a181e2c40e45", "019d52ee-4600-7181-8312-04482733014b"
    at = "2026-04-03T10:40:40.4{:02d}Z"

    def call(turn: str, call_id: str, command: str, when: str) -> list[dict[str, object]]:
        return [
            {"timestamp": when, "type": "event_msg", "payload": {"type": "task_started", "turn_id": turn}},
            {"timestamp": when, "type": "response_item", "payload": {
                "type": "function_call", "name": "exec_command", "call_id": call_id,
                "arguments": json.dumps({"cmd": command})}},
            {"timestamp": when, "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": call_id, "output": "Process exited with code 0\nOutput:\nok"}},
        ]

    def meta(own: str, when: str, **more: object) -> dict[str, object]:
        return {"timestamp": when, "type": "session_meta",
                "payload": {"id": own, "timestamp": when, "cwd": "/w/p", "cli_version": "0.118.0", **more}}

    def spent(total: int, when: str) -> dict[str, object]:  # the running total of input tokens
        usage = {"input_tokens": total, "cached_input_tokens": 0, "output_tokens": 10}
        return {"timestamp": when, "type": "event_msg", "payload": {"type": "token_count", "info": {
            "total_token_usage": usage, "last_token_usage": usage}}}

    history = call("019d524b-8d50-7f11-8e6c-541030b50762", "call_p1", "ls", "2026-04-03T07:38:31.000Z")
    history += call("019d528d-0cbc-7332-a8a6-28f3c3634220", "call_p2", "git status", "2026-04-03T08:50:00.000Z")
    history.append(spent(1000, "2026-04-03T08:50:01.000Z"))
    parent = [meta(parent_id, "2026-04-03T07:38:30.866Z", source="cli"), *history]
    spawned = {"subagent": {"thread_spawn": {"parent_thread_id": parent_id, "depth": 1, "agent_role": "architect"}}}
    child = [meta(child_id, at.format(86), forked_from_id=parent_id, source=spawned), meta(parent_id, at.format(87))]
    child += [{**r, "timestamp": at.format(90)} for r in history]  # the copy, at one instant
    child += call("019d52ee-4636-74e1-ac7c-f9aa6feee2f9", "call_c1", "cat README.md", "2026-04-03T10:40:55.455Z")
    child.append({**spent(1500, "2026-04-03T10:40:56.000Z"),  # goes on from the parent's 1000
                  "payload": {**spent(1500, "")["payload"], "turn_id": "019d52ee-4636-74e1-ac7c-f9aa6feee2f9"}})
    first = tmp_path / f"rollout-2026-04-02T21-38-30-{parent_id}.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in parent), encoding="utf-8")
    alone = tmp_path / f"rollout-2026-04-03T00-40-40-{child_id}.jsonl"
    alone.write_text("".join(json.dumps(r) + "\n" for r in child), encoding="utf-8")
    (recording,) = load([str(alone)])
    pre = [(e.payload["tool_use_id"], e.payload.get("agent_id")) for e in recording.events
           if e.payload["hook_event_name"] == "PreToolUse"]
    assert pre == [("call_c1", child_id)] and not recording.synthetic_times
    assert [r.usage.input for r in recording.requests] == [500]  # its own, not the parent's too
    (both,) = load([str(first), str(alone)])
    ids = [e.payload["tool_use_id"] for e in both.events if e.payload["hook_event_name"] == "PreToolUse"]
    assert ids == ["call_p1", "call_p2", "call_c1"] and not both.synthetic_times
    assert [r.usage.input for r in both.requests] == [1000, 500]  # the parent's and the fork's own
    # rv83: the parent's rollout copied under another name, and a fork killed before its first
    # turn (all copy), add no tokens to the session.
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(first.read_bytes())
    killed = tmp_path / "killed.jsonl"
    killed.write_text("".join(json.dumps(r) + "\n" for r in child[: 2 + len(history)]), encoding="utf-8")
    (again,) = load([str(first), str(copy), str(killed)])
    assert [r.usage.input for r in again.requests] == [1000] and len(again.calls) == 2
    assert load([str(killed)])[0].events == ()
    # A turn made in the thread's own millisecond is the thread's (rv82: the rest of the id is
    # random); a rollout that names no turn of its own is read whole, as before.
    own_turn = "019d52ee-4636-74e1-ac7c-f9aa6feee2f9"
    same = [{**r, "payload": {**r["payload"], "turn_id": "019d52ee-4600-7000-8000-000000000000"}}
            if r["payload"].get("turn_id") == own_turn else r for r in child]
    alone.write_text("".join(json.dumps(r) + "\n" for r in same), encoding="utf-8")
    assert [e.payload["tool_use_id"] for e in load([str(alone)])[0].events if e.payload["hook_event_name"] == "PreToolUse"] == [
        "call_c1"]
    unnamed = [{**r, "payload": {k: v for k, v in r["payload"].items() if k != "turn_id"}} for r in child]
    alone.write_text("".join(json.dumps(r) + "\n" for r in unnamed), encoding="utf-8")
    assert [e.payload["tool_use_id"] for e in load([str(alone)])[0].events if e.payload["hook_event_name"] == "PreToolUse"] == [
        "call_p1", "call_p2", "call_c1"]


def test_a_codex_mcp_call_is_named_as_its_hook_names_it_whatever_the_namespace_spelling() -> None:
    """A rollout's MCP call is `name` in a `namespace`: `mcp__demo` (Codex 0.171.0, whose hook
    names the tool `mcp__demo__echo`) or `mcp__serena__` (a public 0.122.0 rollout), which was
    joined to `mcp__serena____read_memory`; other namespaces join as Codex joins them."""
    from loopguard_hook.replay.codex_tools import codex_tool

    def named(namespace: str, name: str) -> object:
        found = codex_tool({"type": "function_call", "name": name, "namespace": namespace, "arguments": "{}"})
        return found[0] if found else None

    assert named("mcp__demo", "echo") == "mcp__demo__echo"
    assert named("mcp__serena__", "read_memory") == "mcp__serena__read_memory"
    assert named("multi_agent_v1", "wait_agent") == "multi_agent_v1wait_agent"


def test_the_text_table_tells_agents_apart_that_share_a_long_start() -> None:
    """The agent column is 10 wide: `sidechain-2` and `sidechain-3` both read `sidechain…` (a new
    user could not tell the 1.0.x subagents apart); names that would read alike keep their ends."""
    from loopguard_hook.replay.render_text import _agent_columns

    cols = _agent_columns({"main", "sidechain", "sidechain-2", "sidechain-3", "ad8c325e97ab37910"})
    assert cols["main"] == "main" and cols["sidechain"] == "sidechain" and cols["ad8c325e97ab37910"] == "ad8c325e9…"
    assert cols["sidechain-2"] != cols["sidechain-3"] and all(len(c) <= 10 for c in cols.values()), cols


def test_a_loop_resumed_by_continue_is_one_loop_in_the_report() -> None:
    """Corpus f5fec4ab (Claude Code 2.1.x): curl refused "not accessible on a free plan" at 70
    and 71, the user interrupts and types "continue", 72 is refused the same way and reminded:
    the prompt is marked as resuming the turn, and the loop is costed from 70, not from 72."""
    path = Path(__file__).parent / "corpus" / "claude" / "f5fec4ab-0ebd-4890-bd02-ce6ad08279c6.jsonl"
    [report] = replay.replay_files([str(path)], Config())
    assert [m.detail for m in report.markers].count("user prompt, resuming the interrupted turn") == 1
    assert [(loop.first_call, loop.last_call) for loop in report.loops] == [(70, 72)]


def test_a_patch_the_live_guard_denied_as_not_fitting_replays_as_that_look() -> None:
    """Recorded under the guard, a patch it denied as not fitting its file has no verdict of
    apply_patch's; its denial, as Codex records it, says which line the file lacked, and the
    replay reads that as the live hook's look (`codex_tools.denied_misfit`, whose pattern must
    follow `target.misfit_denial`'s wording). Anything else is no such look."""
    from loopguard_hook.core.patch import recorded_misfit
    from loopguard_hook.replay.codex_tools import denied_misfit, patch_failed
    from loopguard_hook.rules.target import misfit_denial

    patch = "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return sub(a, b)\n+    return a + b\n*** End Patch\n"
    output = "Command blocked by PreToolUse hook: " + misfit_denial("calc.py", 2, "return sub(a, b)")
    said = denied_misfit(output)
    assert said == "Failed to find expected lines in calc.py:\nreturn sub(a, b)"
    assert recorded_misfit(patch, said) is not None
    assert denied_misfit(misfit_denial("calc.py", 2, "x")) is None  # not as Codex records a hook's denial
    assert denied_misfit("Command blocked by PreToolUse hook: REPEAT_TOOL_BLOCKED: this Read call is identical") is None
    assert patch_failed("apply_patch", "apply_patch verification failed: Failed to find expected lines in a.py:\nx")
    assert not patch_failed("apply_patch", "Success. Updated the following files:\nM a.py\n")
    assert not patch_failed("Bash", "apply_patch verification failed: quoted in a log")
