"""One wall for every call (`rules/every_call.py`): every call refused the same way."""

from __future__ import annotations

import importlib

from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.core.outcome import Failure, Outcome
from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.every_call")
REFUSED = (
    "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1, stdout: , "
    "stderr: Operation not permitted"
)


def _refused(entry: dict, command: str, t: float) -> object:  # type: ignore[type-arg]
    ctx = result_ctx("Bash", {"command": command}, REFUSED, entry=entry, outcome=Outcome("f", Failure.SOFT, REFUSED))  # type: ignore[arg-type]
    ctx.agent["updated"] = t + 0.5
    return rule.on_result(ctx._replace(call={**ctx.call, "t": t}))


def test_three_programs_refused_the_same_way_are_reminded_then_denied_then_the_turn_ends() -> None:
    entry = agent()
    got = [_refused(entry, c, 10.0 * n) for n, c in enumerate(["git add -A", "npm install", "curl https://x.y"], start=1)]
    assert got[:2] == [None, None]
    assert got[2] is not None and (got[2].action, got[2].rule) == (Action.REMIND, Rule.WALL)  # type: ignore[attr-defined]
    deny = rule.on_call(call_ctx("Bash", {"command": "npm ci"}, entry=entry, now=50.0))  # type: ignore[arg-type]
    assert deny is not None and (deny.action, deny.rule) == (Action.DENY, Rule.WALL)
    stop = rule.on_call(call_ctx("Bash", {"command": "git commit -m x"}, entry=entry, now=60.0))  # type: ignore[arg-type]
    assert stop is not None and stop.action is Action.STOP and "rules" not in entry


def test_a_program_not_tried_yet_goes_ahead_and_a_success_ends_the_wall() -> None:
    entry = agent()
    for n, c in enumerate(["git add -A", "npm install", "curl https://x.y"], start=1):
        _refused(entry, c, 10.0 * n)
    assert rule.on_call(call_ctx("Bash", {"command": "eslint ."}, entry=entry, now=50.0)) is None  # type: ignore[arg-type]
    rule.on_result(result_ctx("Bash", {"command": "eslint ."}, {"stdout": "ok"}, entry=entry))  # type: ignore[arg-type]
    assert rule.on_call(call_ctx("Bash", {"command": "npm ci"}, entry=entry, now=60.0)) is None  # type: ignore[arg-type]


def test_one_batch_or_two_kinds_is_no_wall() -> None:
    batch = agent()
    for c in ["git add -A", "npm install", "curl https://x.y", "pip install x"]:
        assert _refused(batch, c, 10.0) is None  # issued together: one round
    two = agent()
    for n, c in enumerate(["git add -A", "npm install", "git add .", "npm i", "git add x"], start=1):
        assert _refused(two, c, 10.0 * n) is None


def test_an_escalated_retry_goes_ahead() -> None:
    entry = agent()
    for n, c in enumerate(["git add -A", "npm install", "curl https://x.y"], start=1):
        _refused(entry, c, 10.0 * n)
    retry = call_ctx("Bash", {"command": "git add -A"}, entry=entry, now=50.0)
    assert rule.on_call(retry._replace(call={**retry.call, "retry": True})) is None


def test_what_is_no_refusal() -> None:
    assert rule.refusal_key("Exit code 1", {}) is None
    assert rule.refusal_key("bash: syntax error near unexpected token `)'", {}) is None
    assert rule.refusal_key("PreToolUse:Bash hook error: /h/check.sh: Permission denied", {}) == rule.refusal_key(
        "PreToolUse:Read hook error: /h/check.sh: Permission denied", {}
    )


def test_codex_wrapper_alone_is_no_refusal_what_the_command_printed_is_judged() -> None:
    """Codex 0.2x-0.45 wrapped any non-zero exit as "sandbox denied" (openai/codex#4859)."""
    wrap = "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: {}, stdout: {}, stderr: {}"
    assert rule.refusal_key(wrap.format(1, "", ""), {}) is None
    assert rule.refusal_key(wrap.format(128, "", "Author identity unknown"), {}) is None
    assert rule.refusal_key(wrap.format(1, ".F  [100%]", ""), {}) is None
    assert rule.refusal_key(wrap.format(1, "", "Operation not permitted"), {}) is not None
    locked = wrap.format(128, "", "fatal: Unable to create '/w/.git/index.lock': Permission denied")
    assert rule.refusal_key(locked, {}) is not None
    assert rule.refusal_key(wrap.format(159, "", ""), {}) is not None  # killed by SIGSYS: seccomp's refusal


PERMISSION = (
    "Permission to use {} has been denied. IMPORTANT: You *may* attempt to accomplish this action using other "
    "tools that might naturally be used to accomplish this goal, e.g. using head instead of cat."
)


def _permission(entry: dict, tool: str, tool_input: dict, t: float) -> object:  # type: ignore[type-arg]
    text = PERMISSION.format(tool)
    ctx = result_ctx(tool, tool_input, text, entry=entry, outcome=Outcome("f", Failure.SOFT, text))  # type: ignore[arg-type]
    ctx.agent["updated"] = t + 0.5
    return rule.on_result(ctx._replace(call={**ctx.call, "t": t}))


def _worked(entry: dict, tool: str, tool_input: dict) -> None:  # type: ignore[type-arg]
    rule.on_result(result_ctx(tool, tool_input, {"stdout": "a line of output"}, entry=entry))  # type: ignore[arg-type]


def test_permission_refusals_of_every_tool_are_one_wall_that_a_success_of_another_kind_leaves_standing() -> None:
    """Claude Code's permission refusal names the tool; refusals of three tools are one wall,
    per kind: a grep an allow rule covers works beside it, and only the refused kinds are denied."""
    assert rule.refusal_key(PERMISSION.format("WebSearch"), {}) == rule.refusal_key(PERMISSION.format("Bash"), {})
    assert rule.refusal_key("The user doesn't want to proceed with this tool use. The tool use was rejected", {}) is None
    entry = agent()
    assert _permission(entry, "WebSearch", {"query": "team"}, 10.0) is None
    assert _permission(entry, "WebFetch", {"url": "https://x.example/about"}, 20.0) is None
    _worked(entry, "Bash", {"command": "grep -ri team data/"})
    got = _permission(entry, "Bash", {"command": "cd /p && curl -s https://x.example/"}, 30.0)
    assert got is not None and (got.action, got.rule) == (Action.REMIND, Rule.WALL)  # type: ignore[attr-defined]
    assert "WebSearch, WebFetch, curl (Bash)" in got.message  # type: ignore[attr-defined]
    _worked(entry, "Read", {"file_path": "/p/data/leads.csv"})
    assert rule.on_call(call_ctx("Bash", {"command": "grep -ri jo reports/"}, entry=entry, now=40.0)) is None  # type: ignore[arg-type]
    curl = {"command": 'curl -sL -A "Mozilla/5.0" https://x.example/contact'}
    deny = rule.on_call(call_ctx("Bash", curl, entry=entry, now=50.0))  # type: ignore[arg-type]
    assert deny is not None and (deny.action, deny.rule) == (Action.DENY, Rule.WALL)
    assert "permission system" in deny.message
    stop = rule.on_call(call_ctx("WebFetch", {"url": "https://x.example/team"}, entry=entry, now=60.0))  # type: ignore[arg-type]
    assert stop is not None and stop.action is Action.STOP and "rules" not in entry


def _by_rule(entry: dict, command: str, t: float) -> object:  # type: ignore[type-arg]
    """A deny rule's refusal of `command` (anthropics/claude-code#92398's form)."""
    text = f"Permission to use Bash with command {command} has been denied."
    ctx = result_ctx("Bash", {"command": command}, text, entry=entry, outcome=Outcome("f", Failure.SOFT, text))  # type: ignore[arg-type]
    ctx.agent["updated"] = t + 0.5
    return rule.on_result(ctx._replace(call={**ctx.call, "t": t}))


def test_deny_rules_refusing_three_programs_are_reminded_as_rules_and_deny_nothing_of_the_shell() -> None:
    """A deny rule goes by how a command starts: its refusals are a permission wall whose
    reminder says so (not "an approval nobody can give", not "whatever its arguments"), and
    after it no shell command is denied, not even a GET of a host a POST to was refused."""
    entry = agent()
    assert _by_rule(entry, "git push origin main", 10.0) is None
    assert _by_rule(entry, "npm publish", 20.0) is None
    got = _by_rule(entry, "curl -X POST https://example.com/deploy", 30.0)
    assert got is not None and (got.action, got.rule) == (Action.REMIND, Rule.WALL)  # type: ignore[attr-defined]
    said = got.message  # type: ignore[attr-defined]
    assert said.startswith("[loopguard] The permission settings have refused git (Bash), npm (Bash), curl (Bash)")
    assert "deny rules" in said and "nobody can give" not in said and "whatever its arguments" not in said
    for command in ("git status", "npm view left-pad", "curl -s https://example.com/health", "git push origin main"):
        assert rule.on_call(call_ctx("Bash", {"command": command}, entry=entry, now=40.0)) is None, command  # type: ignore[arg-type]


def test_what_worked_since_the_permission_wall_began_is_never_denied_and_a_refused_kind_that_works_ends_it() -> None:
    entry = agent()
    _permission(entry, "WebSearch", {"query": "team"}, 10.0)
    _worked(entry, "Bash", {"command": "curl -s https://x.example/health"})
    _permission(entry, "WebFetch", {"url": "https://x.example/about"}, 20.0)
    got = _permission(entry, "Bash", {"command": "curl -s https://x.example/"}, 30.0)
    assert got is not None and got.action is Action.REMIND  # type: ignore[attr-defined]
    assert rule.on_call(call_ctx("Bash", {"command": "curl -s https://x.example/a"}, entry=entry, now=40.0)) is None  # type: ignore[arg-type]
    _worked(entry, "WebFetch", {"url": "https://docs.example/"})  # a refused kind works: allowed now
    assert rule.on_call(call_ctx("WebSearch", {"query": "team 2"}, entry=entry, now=50.0)) is None  # type: ignore[arg-type]


def test_only_what_meets_the_same_approval_rule_is_denied() -> None:
    """Approvals go by command prefix and path (Bash, file tools), by host (WebFetch, curl) or by
    tool (WebSearch): a refusal of `git push` or of a path says nothing of `git diff` or of
    another path, so only a tool with neither, a fetch of a refused host, or a curl of it is
    denied."""
    paths = ("file_path", "path", "notebook_path")
    assert rule._target("WebSearch", {"query": "q"}, paths) == "WebSearch"
    assert rule._target("mcp__pg__query", {"sql": "UPDATE t SET a = 1"}, paths) is None  # refused for its input, maybe
    assert rule._target("Bash", {"command": "curl -s http://localhost:3000/health"}, paths) == "Bash:curl@localhost:3000"
    assert rule._target("Bash", {"command": "curl -x http://proxy:3128 https://x.example/"}, paths) == "Bash:curl@x.example"
    assert rule._target("WebFetch", {"url": "https://X.example/a", "prompt": "p"}, paths) == "WebFetch@x.example"
    quoted = 'cd /p && curl -sL -A "Mozilla/5.0 (Windows NT 10.0; Win64; x64)" "https://x.example/a/" | sed -n 1p'
    assert rule._target("Bash", {"command": quoted}, paths) == "Bash:curl@x.example"
    others = ["git push", "cd /home/u/p; npm install lodash", "cat ~/.npmrc", "grep -o https://x.example/a f | xargs curl -sI"]
    for command in others:
        assert rule._target("Bash", {"command": command}, paths) is None, command
    assert rule._target("Edit", {"file_path": "/p/.claude/settings.json", "old_string": "a", "new_string": "b"}, paths) is None


def test_a_shell_tool_that_cannot_start_is_a_wall_of_the_tool() -> None:
    """Claude Code unable to make its own folder in /tmp refuses every Bash call before the
    command runs (anthropics/claude-code#20139): two programs tried three times are the wall,
    and after the reminder any Bash call is denied; a program's own EACCES is no such wall."""
    host = "EACCES: permission denied, mkdir '/tmp/claude-10603'"
    assert rule.refusal_key(host, {}, "Bash") == rule.refusal_key(
        "Error: EACCES: permission denied, mkdir '/tmp/claude/-w-p/tasks'", {}, "Bash"
    )
    assert rule.refusal_key(host, {}, "Bash") == rule.SHELL_KEY
    own_errors = (
        "EACCES: permission denied, mkdir '/home/u/app/build'",
        "mkdir: cannot create directory '/opt/x': Permission denied",
    )
    for own in own_errors:
        assert rule.refusal_key(own, {}, "Bash") not in (None, rule.SHELL_KEY)
    entry = agent()
    got = []
    for n, command in enumerate(["mkdir -p b && ls -ld b", "pwd && mkdir -p ~/b", "mkdir -p /w/b"], start=1):
        ctx = result_ctx("Bash", {"command": command}, host, entry=entry, outcome=Outcome("f", Failure.HARD, host))  # type: ignore[arg-type]
        ctx.agent["updated"] = 10.0 * n + 0.5
        got.append(rule.on_result(ctx._replace(call={**ctx.call, "t": 10.0 * n})))
    assert got[:2] == [None, None] and got[2] is not None and (got[2].action, got[2].rule) == (Action.REMIND, Rule.WALL)
    deny = rule.on_call(call_ctx("Bash", {"command": "git status"}, entry=entry, now=50.0))  # type: ignore[arg-type]
    assert deny is not None and (deny.action, deny.rule) == (Action.DENY, Rule.WALL)
    assert rule.on_call(call_ctx("Read", {"file_path": "/w/b"}, entry=entry, now=51.0)) is None  # type: ignore[arg-type]


def _fails(entry: dict, tool: str, tool_input: dict, text: str, t: float) -> object:  # type: ignore[type-arg]
    ctx = result_ctx(tool, tool_input, text, entry=entry, outcome=Outcome("f", Failure.HARD, text))  # type: ignore[arg-type]
    ctx.agent["updated"] = t + 0.5
    return rule.on_result(ctx._replace(call={**ctx.call, "t": t}))


def test_only_the_shell_tool_failing_on_its_own_folder_is_a_wall_of_the_tool() -> None:
    """The wall of a whole tool is Claude Code's Bash failing on its own folder, the error's
    whole text: not Write or an MCP tool refused a mkdir under a folder named claude, not a
    program's own output (Codex, Droid pass it as the error), not a project's /tmp/claude-cache."""
    look_alikes = (
        (
            "Write",
            {"file_path": "/srv/claude/notes/a.md", "content": "x"},
            "EACCES: permission denied, mkdir '/srv/claude/notes'",
        ),
        ("mcp__fs__create_directory", {"path": "/tmp/claude/x"}, "Error: EACCES: permission denied, mkdir '/tmp/claude/x'"),
        ("Bash", {"command": "node build.js"}, "Error: EACCES: permission denied, mkdir '/home/u/claude-clone/dist'"),
        ("Bash", {"command": "npm test"}, "Error: EACCES: permission denied, mkdir '/tmp/claude-test-cache'"),
        (
            "Bash",
            {"command": "node cli.js"},
            "Error: EACCES: permission denied, mkdir '/tmp/claude-1000'\n"
            "    at Object.mkdirSync (node:fs:1371:26)\n    at main (/w/cli.js:4:6)",
        ),
    )
    for tool, tool_input, text in look_alikes:
        assert rule.refusal_key(text, tool_input, tool) != rule.SHELL_KEY, text
        entry = agent()
        got = [_fails(entry, tool, tool_input, text, 10.0 * n) for n in (1, 2, 3, 4)]
        assert got == [None] * 4, (tool, text)
        other = {"file_path": "/w/b.md", "content": "y"} if tool == "Write" else {"command": "git status", "path": "/w/b"}
        assert rule.on_call(call_ctx(tool, other, entry=entry, now=60.0)) is None, (tool, text)  # type: ignore[arg-type]
    for host in (
        "EACCES: permission denied, mkdir '/tmp/claude-10369'",
        "Error: EACCES: permission denied, mkdir '/tmp/claude-1000/-home-p-Projects-a/98c51c23-f5d6/tasks'",
        "Error: EACCES: permission denied, mkdir '/private/tmp/claude/-Users-b-app/tasks'\n",
    ):
        assert rule.refusal_key(host, {"command": "pwd"}, "Bash") == rule.SHELL_KEY, host


def test_the_wall_of_a_shell_that_cannot_start_says_what_still_works() -> None:
    """Only the shell tool is walled when Claude Code cannot make its own folder: the texts
    say so, and that the other tools still work, not "stop calling tools"."""
    host = "EACCES: permission denied, mkdir '/tmp/claude-10603'"
    entry = agent()
    got = [_fails(entry, "Bash", {"command": c}, host, 10.0 * n) for n, c in enumerate(["ls", "pwd", "id"], start=1)]
    remind = got[2]
    assert remind is not None and "cannot make its own folder" in remind.message and "Read, Edit, Write" in remind.message  # type: ignore[attr-defined]
    deny = rule.on_call(call_ctx("Bash", {"command": "git status"}, entry=entry, now=50.0))  # type: ignore[arg-type]
    assert deny is not None and "Read, Edit, Write" in deny.message and "Stop calling tools" not in deny.message
    assert rule.wall_denial(3).startswith("REPEAT_TOOL_BLOCKED: this call was not run: every call of the last ")



MKDIR = "Error: EACCES: permission denied, mkdir '/tmp/claude-1000/-home-u-proj/5adc0d65/tasks'"


def _looked(entry: dict, tool: str, tool_input: dict, t: float) -> object:  # type: ignore[type-arg]
    ctx = result_ctx(tool, tool_input, "ok", entry=entry, outcome=Outcome("ok", Failure.NONE, ""))  # type: ignore[arg-type]
    ctx.agent["updated"] = t + 0.5
    return rule.on_result(ctx._replace(call={**ctx.call, "t": t}))


def test_a_look_between_a_broken_shells_failures_leaves_its_wall_standing() -> None:
    """A Read or an LS says nothing of a shell that cannot make its folder: the wall counts on
    across them, and is reminded at its third failure; a Bash call straight after a failure is
    then denied with what still works. After a look a reminded wall lets one shell call through
    (the user may have mended the folder meanwhile), once: if it fails, the next is denied, looks
    or not. A Write that went through may have changed what the shell needs, and ends the wall."""
    entry = agent()
    assert _fails(entry, "Bash", {"command": "pytest -q"}, MKDIR, 10.0) is None
    assert _looked(entry, "Read", {"file_path": "/home/u/proj/tests/test_api.py"}, 15.0) is None
    assert _fails(entry, "Bash", {"command": "python -m pytest -q"}, MKDIR, 20.0) is None
    assert _looked(entry, "LS", {"path": "/home/u/proj"}, 25.0) is None
    remind = _fails(entry, "Bash", {"command": "ls tests"}, MKDIR, 30.0)
    assert remind is not None and (remind.action, remind.rule) == (Action.REMIND, Rule.WALL)  # type: ignore[attr-defined]
    assert "shell commands failed" in remind.message and "Read, Edit, Write" in remind.message  # type: ignore[attr-defined]
    _looked(entry, "Grep", {"pattern": "def handler"}, 35.0)
    assert rule.on_call(call_ctx("Bash", {"command": "pytest -q tests/test_api.py"}, entry=entry, now=40.0)) is None  # type: ignore[arg-type]
    _fails(entry, "Bash", {"command": "pytest -q tests/test_api.py"}, MKDIR, 40.0)
    _looked(entry, "Read", {"file_path": "/home/u/proj/src/api.py"}, 45.0)  # one try after a look, not one per look
    deny = rule.on_call(call_ctx("Bash", {"command": "id"}, entry=entry, now=50.0))  # type: ignore[arg-type]
    assert deny is not None and (deny.action, deny.rule) == (Action.DENY, Rule.WALL) and "Read, Edit, Write" in deny.message
    assert rule.on_call(call_ctx("Read", {"file_path": "/home/u/proj/a"}, entry=entry, now=51.0)) is None  # type: ignore[arg-type]

    fresh = agent()
    for n, command in enumerate(["pwd", "ls", "id"], start=1):
        _fails(fresh, "Bash", {"command": command}, MKDIR, 10.0 * n)
    assert _looked(fresh, "Write", {"file_path": "/home/u/proj/NOTES.md", "content": "y"}, 35.0) is None
    assert rule.on_call(call_ctx("Bash", {"command": "pwd"}, entry=fresh, now=40.0)) is None  # type: ignore[arg-type]


READ_ONLY = "patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings"
PATCH = {"command": "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a - b\n+    return a + b\n*** End Patch\n"}


def _failed(entry: dict, tool: str, tool_input: dict, text: str, t: float) -> object:  # type: ignore[type-arg]
    ctx = result_ctx(tool, tool_input, text, entry=entry, outcome=Outcome("f", Failure.SOFT, text))  # type: ignore[arg-type]
    ctx.agent["updated"] = t + 0.5
    return rule.on_result(ctx._replace(call={**ctx.call, "t": t}))


def test_a_read_only_sandbox_refusing_patches_is_a_wall_of_writes_alone() -> None:
    """Codex's "writing is blocked by read-only sandbox": three rounds of patches refused so are
    reminded with no other kind of call refused; reads and programs the sandbox never refused
    go ahead and leave the wall standing; the next patch is denied, the one after ends the turn."""
    assert rule.refusal_key(READ_ONLY, PATCH, "apply_patch") == rule.READ_ONLY_KEY
    entry = agent()
    got = [_failed(entry, "apply_patch", PATCH, READ_ONLY, 10.0 * n) for n in (1, 2, 3)]
    assert got[:2] == [None, None]
    remind = got[2]
    assert remind is not None and (remind.action, remind.rule) == (Action.REMIND, Rule.WALL)  # type: ignore[attr-defined]
    assert "Reading still works" in remind.message  # type: ignore[attr-defined]
    assert rule.on_call(call_ctx("Bash", {"command": "cat calc.py"}, entry=entry, now=40.0)) is None  # type: ignore[arg-type]
    rule.on_result(result_ctx("Bash", {"command": "cat calc.py"}, "def add(a, b):\n", entry=entry))  # type: ignore[arg-type]
    deny = rule.on_call(call_ctx("apply_patch", PATCH, entry=entry, now=50.0))  # type: ignore[arg-type]
    assert deny is not None and (deny.action, deny.rule) == (Action.DENY, Rule.WALL)
    assert deny.message.startswith("REPEAT_TOOL_BLOCKED: this call was not run: Codex's read-only sandbox has refused 3 ")
    stop = rule.on_call(call_ctx("apply_patch", PATCH, entry=entry, now=60.0))  # type: ignore[arg-type]
    assert stop is not None and stop.action is Action.STOP and "allow writes" in stop.message


def test_a_read_only_wall_is_of_patches_and_no_other_refusal_replaces_it() -> None:
    """Shell writes refused 'Read-only file system' never join the wall (the programs that failed
    to write also read: `sed -n` after `sed -i`) nor make one alone; another refusal (`rg: command
    not found`) leaves it standing; after the reminder only a patch is denied."""
    erofs = "sed: couldn't open temporary file ./sedX: Read-only file system\n"
    alone = agent()
    assert _failed(alone, "Bash", {"command": "sed -i s/a/b/ x"}, erofs, 10.0) is None
    assert alone["rules"]["every_call"][0] != rule.READ_ONLY_KEY
    entry = agent()
    _failed(entry, "apply_patch", PATCH, READ_ONLY, 10.0)
    assert _failed(entry, "Bash", {"command": "sed -i s/a/b/ calc.py"}, erofs, 20.0) is None
    assert _failed(entry, "Bash", {"command": "rg -n add ."}, "bash: rg: command not found", 30.0) is None
    _failed(entry, "apply_patch", PATCH, READ_ONLY, 40.0)
    remind = _failed(entry, "apply_patch", PATCH, READ_ONLY, 50.0)
    assert remind is not None and remind.rule is Rule.WALL  # type: ignore[attr-defined]
    assert rule.on_call(call_ctx("Bash", {"command": "sed -n 1,40p calc.py"}, entry=entry, now=60.0)) is None  # type: ignore[arg-type]
    deny = rule.on_call(call_ctx("apply_patch", PATCH, entry=entry, now=70.0))  # type: ignore[arg-type]
    assert deny is not None and deny.action is Action.DENY


#: Claude Code 1.0.x's block of a call by a hook that cannot start (held-out corpus transcript 5aab28de).
SPAWN = (
    "{tool} operation blocked by hook:\n- [uv run .claude/hooks/pre_tool_use.py]: error: Failed to spawn: "
    "`.claude/hooks/pre_tool_use.py`\n  Caused by: No such file or directory (os error 2)\n"
)


def _blocked(entry: dict, command: str, t: float) -> object:  # type: ignore[type-arg]
    text = SPAWN.format(tool="Bash")
    ctx = result_ctx("Bash", {"command": command}, text, entry=entry, outcome=Outcome("f", Failure.SOFT, text))  # type: ignore[arg-type]
    ctx.agent["updated"] = t + 0.5
    return rule.on_result(ctx._replace(call={**ctx.call, "t": t}))


def test_a_hook_that_cannot_start_is_one_wall_whatever_tool_it_blocks() -> None:
    keys = {rule.refusal_key(SPAWN.format(tool=tool), {}, tool) for tool in ("Bash", "Read", "MultiEdit")}
    python = "PreToolUse:Bash hook error: [python3 /h/guard.py]: python3: can't open file '/h/guard.py': [Errno 2] No such file"
    metadata = (
        "PreToolUse:Read hook error: [uv run /h/pre.py]: Reading inline script metadata from `/h/pre.py`\n"
        "error: Failed to spawn: `/h/pre.py`"
    )
    assert keys == {rule.HOOK_KEY}
    assert rule.refusal_key(python, {}, "Bash") == rule.refusal_key(metadata, {}, "Read") == rule.HOOK_KEY


def test_a_policy_hooks_block_is_no_broken_hook_whatever_words_its_reason_uses() -> None:
    # Claude Code blocks only on exit 2: a hook that ran and chose to block (a hostile review's cases)
    for said in (
        "BLOCKED: Dangerous rm command detected and prevented",
        "BLOCKED by safety policy: agents cannot execute destructive commands here",
        "Blocked: command not found in allowlist (docker)",
        "/home/u/.bashrc: line 12: pyenv: command not found\nBLOCKED: Dangerous rm command",
        "BLOCKED: config missing: No such file or directory",
    ):
        for head in ("PreToolUse:Bash hook error: [uv run .claude/hooks/g.py]: ", "Bash operation blocked by hook:\n- [g.py]: "):
            assert rule.refusal_key(head + said, {}, "Bash") not in (None, rule.HOOK_KEY), said


def test_one_reply_of_three_kinds_blocked_by_a_broken_hook_is_reminded_then_its_programs_are_denied() -> None:
    entry = agent()
    got = [_blocked(entry, c, 10.0) for c in ["npm install", "git status", "ls -la"]]  # one reply
    assert got[:2] == [None, None]
    assert got[2] is not None and (got[2].action, got[2].rule) == (Action.REMIND, Rule.WALL)  # type: ignore[attr-defined]
    reminder = got[2].message  # type: ignore[attr-defined]
    assert "A hook that cannot start refused your calls of npm (Bash), git (Bash), ls (Bash)" in reminder
    assert "a tool it does not cover can mend it" in reminder and "fix or remove it" in reminder
    # a program it has not refused goes ahead: a hook run only for some commands (`if: "Bash(git *)"`)
    assert rule.on_call(call_ctx("Bash", {"command": "pnpm test"}, entry=entry, now=20.0)) is None  # type: ignore[arg-type]
    deny = rule.on_call(call_ctx("Bash", {"command": "npm ci"}, entry=entry, now=20.1))  # type: ignore[arg-type]
    assert deny is not None and (deny.action, deny.rule) == (Action.DENY, Rule.WALL)
    assert "this call was not run: a hook that cannot start has refused your calls of" in deny.message
    stop = rule.on_call(call_ctx("Bash", {"command": "git log"}, entry=entry, now=40.0))  # type: ignore[arg-type]
    assert stop is not None and stop.action is Action.STOP and "fails to start" in stop.message


def test_a_broken_hooks_wall_first_standing_in_a_later_round_ends_the_turn_there() -> None:
    entry = agent()
    assert [_blocked(entry, c, 10.0) for c in ["git add -A", "npm run build"]] == [None, None]
    got = [_blocked(entry, c, 30.0) for c in ["ls .claude/hooks", "cat .claude/settings.json", "chmod +x x.py"]]
    assert got[:2] == [None, None]  # four kinds: a hook run only for some commands may be all that is broken
    stop = got[2]
    assert stop is not None and stop.action is Action.STOP and stop.rule == Rule.WALL  # type: ignore[attr-defined]
    refused = "git (Bash), npm (Bash), ls (Bash), cat (Bash), chmod (Bash)"
    assert f"refused your calls of {refused} in your last 2 replies" in stop.message  # type: ignore[attr-defined]
    assert stop.stop_reason.startswith("loopguard ended the turn: the hook [uv run .claude/hooks/pre_tool_use.py] cannot start")  # type: ignore[attr-defined]
    assert stop.advice.startswith("[loopguard] A hook that cannot start refused your calls of")  # type: ignore[attr-defined]
    assert _blocked(entry, "pwd", 30.0) is None  # the wall stays, reminded: a call sent with no prompt first is denied
    deny = rule.on_call(call_ctx("Bash", {"command": "git status"}, entry=entry, now=50.0))  # type: ignore[arg-type]
    assert deny is not None and deny.action is Action.DENY


def test_three_kinds_over_two_replies_wait_for_the_third_round_and_are_reminded() -> None:
    # a hook run only for git, npm and yarn (`if`) may be all that is broken: no end of turn
    entry = agent()
    assert _blocked(entry, "git status", 10.0) is None
    assert [_blocked(entry, c, 30.0) for c in ["npm test", "yarn test"]] == [None, None]
    got = _blocked(entry, "git log", 50.0)
    assert got is not None and got.action is Action.REMIND  # type: ignore[attr-defined]


def test_a_success_of_another_tool_since_the_wall_began_makes_a_later_standing_a_reminder() -> None:
    # the hook covers Bash only: a Read of the first reply came back before its refusals
    entry = agent()
    read = result_ctx("Read", {"file_path": "/p/a.py"}, {"type": "text"}, entry=entry)  # type: ignore[arg-type]
    entry["calls"]["toolu_read"] = {**read.call, "t": 10.0, "phase": "done"}
    assert [_blocked(entry, c, 10.0) for c in ["git status", "npm run build"]] == [None, None]
    got = [_blocked(entry, c, 30.0) for c in ["ls dist", "cat x", "chmod +x y"]]
    assert got == [None, None, None]  # five kinds in two replies, but not refused whole: no end of turn
    later = _blocked(entry, "pwd", 50.0)
    assert later is not None and later.action is Action.REMIND  # type: ignore[attr-defined]


def test_two_kinds_blocked_by_a_broken_hook_is_no_wall_yet() -> None:
    entry = agent()
    assert [_blocked(entry, c, 10.0 * n) for n, c in enumerate(["git status", "npm install", "git log"], start=1)] == [None] * 3


def test_a_damaged_wall_in_the_state_is_dropped_as_no_wall() -> None:
    for held in (
        ["hook", "x", [], 0.0, 0, 0.0], ["hook", 1, "notalist", 0.0, 0, 0.0], ["hook"], [], {"a": 1},
        ["hook", 1, [1, 2], 0.0, 0, 0.0], ["hook", 10**30, [], 0.0, 0, 0.0], ["hook", 1, [], 1e308, 0, 0.0],
    ):
        entry = agent()
        entry["rules"] = {rule.NAME: held}
        assert _blocked(entry, "git status", 10.0) is None
        assert rule.on_call(call_ctx("Bash", {"command": "ls"}, entry=entry, now=20.0)) is None  # type: ignore[arg-type]
        wall = entry["rules"].get(rule.NAME)
        assert wall is None or (wall[0] == rule.HOOK_KEY and wall[1] == 1), held
