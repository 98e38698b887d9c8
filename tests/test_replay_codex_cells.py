"""Code Mode cells of Codex Desktop rollouts with no nested items: calls read from the script."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from loopguard_hook import replay
from loopguard_hook.config import load as config
from loopguard_hook.replay.codex_cells import Printed, read_script, shares
from loopguard_hook.rules.same_answer import MIN_ANSWER_CHARS

DATA = Path(__file__).parent / "data" / "transcripts"
DESKTOP = DATA / "codex-desktop-code-mode.jsonl"
HOME = "C:\\Users\\kiki"
TWO_CALLS = 'const a = await tools.shell_command({command: "ls x"});\nconst b = await tools.shell_command({command: "ls y"});\n'


def _payloads(recording: replay.Recording, name: str) -> dict[str, dict[str, Any]]:
    return {e.payload["tool_use_id"]: e.payload for e in recording.events if e.payload["hook_event_name"] == name}


def test_desktop_rollout_calls_are_read_from_the_scripts() -> None:
    recording = replay.read_transcript(str(DESKTOP))
    pre, post = _payloads(recording, "PreToolUse"), _payloads(recording, "PostToolUse")
    one, pair = "call_e56Gofv2WNgGWeqTyBgRbV7e:0", ("call_GcVZ81lDhszihEMLJOj6GaGL:0", "call_GcVZ81lDhszihEMLJOj6GaGL:1")
    node, slow, git = "call_Lmo664TL5qeJVEaZVl1b8jt7:0", "call_uv1WgohjiYPxopKjBqC2zH38:0", "call_2WbEfFeZtxHdxltZJGu4HR3N:0"
    assert list(pre) == [one, *pair, node, slow, git] and list(post) == list(pre)
    assert {p["tool_name"] for p in pre.values()} == {"Bash"} and all(p["cwd"] == HOME for p in pre.values())
    script = f"{HOME}\\.codex\\skills\\.system\\openai-docs\\scripts\\fetch-codex-manual.mjs"
    assert pre[node]["tool_input"] == {"command": f"node '{script}'"}
    assert post[one]["tool_response"].startswith("---\r\nname: control-in-app-browser")  # the printed item, header off
    assert post[node]["tool_response"].startswith("node : The term 'node' is not recognized")
    assert post[slow]["tool_response"] == "command timed out after 34043 milliseconds\n"  # given by the second wait
    calls = recording.calls
    assert [(calls[c].outcome, calls[c].exit_code) for c in (one, node, slow, git)] == [
        (replay.Outcome.RAN, 0), (replay.Outcome.FAILED, 1), (replay.Outcome.FAILED, 124), (replay.Outcome.FAILED, 1)
    ]
    # one JSON of both results printed: neither call gets it, nor an answer or an error
    first, second = (post[c]["tool_response"] for c in pair)
    assert first != second and max(len(first), len(second)) < MIN_ANSWER_CHARS and "Exit code" not in first + second
    assert [(calls[c].outcome, calls[c].exit_code) for c in pair] == [(replay.Outcome.RAN, None)] * 2
    assert dict(recording.unseen) == {"exec": 5, "wait": 2}  # no hook of their own


def test_the_slow_call_is_answered_when_the_wait_finishes_it() -> None:
    recording = replay.read_transcript(str(DESKTOP))
    names = [(e.payload["hook_event_name"], e.payload.get("tool_use_id")) for e in recording.events]
    slow = "call_uv1WgohjiYPxopKjBqC2zH38:0"
    assert names.index(("PostToolUse", slow)) == names.index(("PreToolUse", slow)) + 1
    post = next(e for e in recording.events if e.payload.get("tool_use_id") == slow and "tool_response" in e.payload)
    assert post.line == 15  # the second wait's output, not the cell's "still running" answer


def _rollout(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    head = [
        {"timestamp": "2026-07-13T06:09:11.000Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/w"}},
        {"timestamp": "2026-07-13T06:09:11.100Z", "type": "turn_context", "payload": {"turn_id": "t1", "cwd": "/w"}},
    ]
    path = tmp_path / "rollout.jsonl"
    lines = [{"timestamp": f"2026-07-13T06:09:{12 + i:02d}.000Z", "type": t, "payload": p} for i, (t, p) in enumerate(records)]
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in head + lines) + b"\n")
    return path


def _cell(script: str, *items: str, failed: bool = False) -> list[tuple[str, dict[str, Any]]]:
    header = f"Script {'failed' if failed else 'completed'}\nWall time 0.1 seconds\nOutput:\n"
    output = [{"type": "input_text", "text": t} for t in (header, *items)]
    return [
        ("response_item", {"type": "custom_tool_call", "call_id": "c1", "name": "exec", "input": script}),
        ("response_item", {"type": "custom_tool_call_output", "call_id": "c1", "output": output}),
    ]


def test_nested_items_of_code_mode_are_not_counted_twice(tmp_path: Path) -> None:
    script = 'const r = await tools.exec_command({"cmd": "cat a.txt"});\ntext(r);'
    cell = _cell(script, "Exit code: 0\nWall time: 0 seconds\nOutput:\nA\n")
    nested = {
        "id": "exec-4f6c0d0e-1111-4222-8333-944455556666", "type": "CommandExecution",
        "command": ["/bin/bash", "-lc", "cat a.txt"],
        "aggregated_output": "A\n", "exit_code": 0, "status": "completed",
    }
    path = _rollout(tmp_path, [cell[0], ("event_msg", {"type": "item_completed", "item": nested}), cell[1]])
    recording = replay.read_transcript(str(path))
    pre = _payloads(recording, "PreToolUse")
    assert list(pre) == [nested["id"]] and list(_payloads(recording, "PostToolUse")) == [nested["id"]]
    assert list(recording.calls) == [nested["id"]]


def test_a_multi_call_script_gives_no_shared_answer(tmp_path: Path) -> None:
    listing = "Exit code: 0\nWall time: 0 seconds\nOutput:\n" + "no such file or directory, looked everywhere\n"
    script = TWO_CALLS + "text(a + b);"
    recording = replay.read_transcript(str(_rollout(tmp_path, _cell(script, listing + listing))))
    post = _payloads(recording, "PostToolUse")
    answers = [post[f"c1:{k}"]["tool_response"] for k in (0, 1)]
    assert answers[0] != answers[1] and all(len(a) < MIN_ANSWER_CHARS and "Exit code" not in a for a in answers)
    report = replay.replay(recording, config.load(environ={}, cwd=None, user_path="", flags={}).config)
    assert report.decisions == ()


def test_a_straight_line_script_gives_each_call_its_print() -> None:
    script = TWO_CALLS + "text(b);\ntext(a);"
    read = read_script(script)
    assert [c.argument for c in read.calls] == [{"command": "ls x"}, {"command": "ls y"}]
    assert shares(read, Printed(None, False, ("Y", "X"))) == ["X", "Y"]
    # prints of one call's result made after the other call's failure ended the script: unknown
    failed = shares(read, Printed(None, True, ("X", "Script error:\nExit code: 2\nWall time: 0 seconds\nOutput:\n")))
    assert all(f.startswith("(cell output of 2 calls") for f in failed)


def test_script_calls_read_only_literal_arguments() -> None:
    script = (
        'const patch = "*** Begin Patch\\n*** Add File: a\\n+x\\n*** End Patch\\n";\n'
        'await tools.apply_patch(patch);\n'
        'for (const c of cmds) await tools.shell_command({command: c});\n'
        'const s = "tools.shell_command({\\"command\\": \\"rm -rf /\\"})";\n'
        "await tools.update_plan({plan: [{step: 'a', status: 'pending'}]});\n"
        'await tools.mcp__node_repl__js({code: "1+1", "timeout_ms": 30000});\n'
    )
    found = [(c.name, c.argument) for c in read_script(script).calls]
    assert found == [
        ("apply_patch", "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"),
        ("update_plan", {"plan": [{"step": "a", "status": "pending"}]}),
        ("mcp__node_repl__js", {"code": "1+1", "timeout_ms": 30000}),
    ]


def _cells(*cells: tuple[str, tuple[str, ...]]) -> list[tuple[str, dict[str, Any]]]:
    """Completed cells, one after another, with the call ids `c0`, `c1`…"""
    records = []
    for k, (script, items) in enumerate(cells):
        output = [{"type": "input_text", "text": t} for t in ("Script completed\nWall time 0.1 seconds\nOutput:\n", *items)]
        records += [
            ("response_item", {"type": "custom_tool_call", "call_id": f"c{k}", "name": "exec", "input": script}),
            ("response_item", {"type": "custom_tool_call_output", "call_id": f"c{k}", "output": output}),
        ]
    return records


def _balanced_report(recording: replay.Recording) -> replay.Report:
    return replay.replay(recording, config.load(environ={}, cwd=None, user_path="", flags={}).config)


def test_a_print_is_no_read_calls_when_a_call_of_the_script_was_not_read(tmp_path: Path) -> None:
    """Six different reads, each followed by a call built at run time that fails the same way, and
    only that failure printed: the print is not the reads' result (no failure, no repeat)."""
    node = "Exit code: 127\nWall time: 0.1 seconds\nOutput:\n/bin/bash: line 1: node: command not found\n"
    script = (
        'const src = await tools.shell_command({command: "sed -n %d,%dp src/build.mjs"});\n'
        'const script = src.output.includes("vite") ? "vite.mjs" : "build.mjs";\n'
        'const r = await tools.shell_command({command: "node " + script});\ntext(r);\n'
    )
    cells = [(script % (50 * k + 1, 50 * k + 50), (node,)) for k in range(6)]
    recording = replay.read_transcript(str(_rollout(tmp_path, _cells(*cells))))
    post = _payloads(recording, "PostToolUse")
    assert list(post) == [f"c{k}:0" for k in range(6)]
    assert all(p["tool_response"].startswith("(cell output of 2 calls, #1 ") for p in post.values())
    assert {recording.calls[c].outcome for c in post} == {replay.Outcome.RAN}
    assert _balanced_report(recording).decisions == ()
    read = read_script(cells[0][0])
    assert (len(read.calls), read.sites) == (1, 2)
    assert shares(read, Printed(None, False, (node,)))[0].startswith("(cell output of 2 calls")
    failed = Printed(None, True, ("Script error:\n" + node,))
    assert shares(read, failed)[0].startswith("(cell output of 2 calls")  # nor a failure that ended it


def test_a_hostile_script_is_read_in_linear_time() -> None:
    """Scripts that took minutes to hours when every call site's argument was scanned to the end
    of the script (hundreds of kilobytes each): each is read in one pass now."""
    unclosed = "tools.a({" * 20_000
    nested = "await tools.a({x: " * 10_000 + "1" + "})" * 10_000
    straight = "".join(f'const a{k} = await tools.shell_command({{command: "echo {k}"}});\n' for k in range(4000))
    straight += "".join(f"text(a{k});\n" for k in range(4000))
    slashes = "x = /[" * 50_000 + "\n" + "'" + "q" * 200_000
    assert read_script(unclosed)[1:] == ((), 20_000)
    assert len(read_script(nested).calls) == 1 and read_script(nested).sites == 10_000  # only the innermost is a literal
    read = read_script(straight)
    assert read.sites == len(read.calls) == 4000
    assert shares(read, Printed(None, False, tuple(f"{k}\n" for k in range(4000))))[3999] == "3999\n"
    assert read_script(slashes).sites == 0


def test_script_calls_read_every_literal_form() -> None:
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    script = (
        f"await tools.apply_patch({orjson.dumps(patch).decode()});\n"
        f"await tools.apply_patch(`{patch}`);\n"
        f"const p = `{patch}`;\nawait tools.apply_patch(p);\n"
        "const quote = /\"/g, it = 'it\\'s';\n"  # a quote in a regular expression, an escaped quote
        "await tools.shell_command({command: 'ls -la', workdir: `/w`});\n"
        'await tools.shell_command({\n  "command": "git status",\n  env: ["A", "B",],\n});\n'
        "x = a / b; await tools.shell_command({command: 'echo \\x41\\u{1F600}\\n'});\n"
        "await tools.shell_command({command: `ls ${dir}`});\n"  # built at run time: not read
    )
    read = read_script(script)
    assert [(c.name, c.argument) for c in read.calls] == [
        ("apply_patch", patch),
        ("apply_patch", patch),
        ("apply_patch", patch),
        ("shell_command", {"command": "ls -la", "workdir": "/w"}),
        ("shell_command", {"command": "git status", "env": ["A", "B"]}),
        ("shell_command", {"command": "echo A\U0001f600\n"}),
    ]
    assert read.sites == 7


def test_the_report_counts_the_calls_it_could_not_read(tmp_path: Path) -> None:
    """A patch written at run time may loop unseen: the report says how many calls were left out."""
    script = (
        'const s = await tools.shell_command({command: "git status"});\n'
        "for (const c of cmds) await tools.shell_command({command: c});\n"
        "await tools.apply_patch(makePatch(s));\n"
    )
    recording = replay.read_transcript(str(_rollout(tmp_path, _cells((script, ("x",)), (script, ("x",))))))
    assert recording.unread == {"c0": 2, "c1": 2}
    report = _balanced_report(recording)
    assert report.unread == 4
    assert "; 4 calls in Code Mode scripts replay cannot read (an argument that is no literal): not judged" in (
        replay.format_text(report)
    )
    assert orjson.loads(replay.render([report], "json"))["reports"][0]["unread_cell_calls"] == 4


def test_a_session_split_over_two_rollouts_keeps_the_unhooked_calls_of_both(tmp_path: Path) -> None:
    """Two files of one session: the second file's polls, calls no hook fires for, and unread
    calls are the session's as much as the first's (each call once, also when a file is read twice)."""
    lines = DESKTOP.read_bytes().splitlines(keepends=True)
    whole = replay.read_transcript(str(DESKTOP))
    cut = next(k for k, line in enumerate(lines) if k > 2 and b'"custom_tool_call"' in line and k > len(lines) // 2)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(b"".join(lines[:cut]))
    second.write_bytes(b"".join(lines[:2] + lines[cut:]))
    merged = replay.load([str(first), str(second), str(second)])
    assert len(merged) == 1 and dict(merged[0].unseen) == dict(whole.unseen) == {"exec": 5, "wait": 2}
    hung = DATA / "codex-hung-build.jsonl"
    lines = hung.read_bytes().splitlines(keepends=True)
    first.write_bytes(b"".join(lines[:11]))
    second.write_bytes(b"".join(lines[:1] + lines[11:]))
    merged = replay.load([str(first), str(second)])
    assert [p.call_id for p in merged[0].polls] == [p.call_id for p in replay.read_transcript(str(hung)).polls]
