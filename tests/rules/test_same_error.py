"""The same-error wall's escalation (`rules/same_error.py`, the call side): how a call's way of running is told, the
settings, and the texts. The behaviour over whole sessions is pinned by the `escalate_*`
golden scenarios."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
import scenario

from loopguard_hook import rules
from loopguard_hook.config.keys import ConfigError
from loopguard_hook.config.load import Layer, resolve
from loopguard_hook.config.settings import PROFILE_DEFAULTS, Config
from loopguard_hook.core import messages
from loopguard_hook.core.tools import only_looks

walls = importlib.import_module("loopguard_hook.rules.same_error")


@pytest.mark.parametrize(
    ("command", "shape"),
    [
        ("ss -tulpnH | awk '{split($5,a)}'", "ss|awk"),
        ("sleep 300 && gh run view 17467241167", "sleep|gh"),
        ("GOCACHE=$(pwd)/.cache GOPROXY=off go test ./...", "go"),
        ('cd /repo && curl -s "https://x/y" | python3 -m json.tool', "curl|python3"),
        ("sudo -n timeout 30 /usr/bin/curl -I https://x", "curl"),
        ("pwsh.exe -NoLogo -Command Get-Content -Path a.txt", "get-content"),
        ("bash -lc 'npm install'", "npm"),
        ("cd /repo", None),
        # Quoted text and a here-document's body are arguments: their lines start no program.
        ('curl -s "https://x/a?q=1" | python3 -c "\nimport sys, json\nprint(json.load(sys.stdin))\n"', "curl|python3"),
        ("cat <<'EOF' > a.py\nimport os; print(os.sep)\nEOF\npython3 a.py", "cat|python3"),
        ('grep -n "a\\|b; c" src/x.py | head', "grep|head"),
        ("echo 'done; ok' && ls", "echo|ls"),
        # A shell given its script in quotes runs the script's programs.
        ("bash -lc 'cd repo && pytest -q' 2>&1", "pytest"),
        ("bash --noprofile --norc -lc 'npm ci; npm test'", "npm|npm"),
        ('sh -c "echo \\"a\\" && make"', "echo|make"),
        ("pwsh -NoProfile -Command \"$p='a.txt'; Get-Content $p\"", "get-content"),
        # A shell with many options and no script: read in one pass (a first version's pattern
        # could match each `--option` two ways and took hours on 30 of them).
        ("bash" + " --a" * 40 + " x", "x"),
        # A quoted program path is one word.
        ('"C:/Program Files/Python312/python.exe" -c "print(1)"', "python.exe"),
    ],
)
def test_a_command_runs_by_its_programs(command: str, shape: str | None) -> None:
    assert walls.shape_of({"command": command}, has_file=False) == shape


def test_the_other_shapes() -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n"
    assert walls.shape_of({"command": "apply_patch <<'P'\n" + patch}, has_file=True) == "patch-update"
    assert walls.shape_of({"command": patch.replace("Update", "Delete")}, has_file=True) == "patch-delete"
    assert walls.shape_of({"url": "https://User@API.Example.com:8443/v1?q=1"}, has_file=False) == "//api.example.com"
    assert walls.shape_of({"file_path": "/p/a.py", "old_string": "x"}, has_file=True) == ""
    # Nothing to tell a call by: never in a wall, so never denied.
    assert walls.shape_of({"query": "flood zones"}, has_file=False) is None
    assert walls.shape_of({"url": "not a url"}, has_file=False) is None
    assert walls.shape_of("text", has_file=False) is None


def test_the_seed_profiles_do_not_escalate() -> None:
    for profile in ("reminder", "breaker", "progress"):
        defaults = PROFILE_DEFAULTS[profile]
        assert defaults["same_error_deny_at"] == defaults["same_error_stop_at"] == 0
    balanced = resolve([]).config
    assert (balanced.same_error_deny_at, balanced.same_error_stop_at) == (4, 0)  # the end of turn is the repeat rule's


def test_the_end_must_come_after_the_denial() -> None:
    expected = "same_error_stop_at = 5, but same_error_stop_at must be greater than same_error_deny_at"
    with pytest.raises(ConfigError, match=expected):
        resolve([Layer("test.toml", {"same_error_deny_at": 5, "same_error_stop_at": 5})])
    assert resolve([Layer("test.toml", {"same_error_deny_at": 5, "same_error_stop_at": 0})]).config.same_error_deny_at == 5


def test_every_text_is_named_by_its_variant() -> None:
    texts = {
        "same_error_denial": walls.denial_text("Bash", 4, "Permission denied", has_file=False),
        "same_error_stop": walls.stop_text("Edit on a.py", 5, "not found", has_file=True, ends_turn=True, pauses=False),
        "same_error_advice": walls.advice_text("Bash", 3, "Permission denied", has_file=False),
        "same_error_late_stop": walls.late_stop_text("Edit on a.py", 4, "not found"),
        "same_error_killed_denial": walls.killed_denial("pytest", 4, "sandbox error: command was killed by a signal"),
        "same_error_killed_advice": walls.killed_advice("pytest", 4, "sandbox error: command was killed by a signal"),
    }
    for name, text in texts.items():
        assert messages.variant_of(text, rules.VARIANTS) == name, text
    for ends_turn, pauses, ending in ((True, False, "ending this turn"), (False, True, "paused"), (False, False, "final")):
        assert ending in walls.stop_text("Bash", 5, "e", has_file=False, ends_turn=ends_turn, pauses=pauses)


@pytest.mark.parametrize("mark", [True, "yes", [1], 1])
def test_a_read_leaves_only_a_true_killed_mark_armed(mark: object) -> None:
    """A state file's `killed` that is not exactly true (corrupted, hand-edited) is no mark:
    a read disarms the wall as any other success does, and no new run is denied."""
    entry = {"sigs": ["a", "b", "c"], "t": 1.0, "rounds": 3, "level": 1, "shapes": ["x"], "killed": mark}
    entry["again"] = [walls.shape_id("pytest")]
    errors = {"Bash::k": entry}
    walls.answered(errors, "Bash", None, "cat", reads=True)  # type: ignore[arg-type]
    assert ("idle" not in entry) is (mark is True)
    assert walls._kills_every_run(entry, "pytest") is (mark is True and "idle" not in entry)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "killed"),
    [
        ("failed in sandbox: sandbox error: command was killed by a signal", True),
        ("sandbox error: command was killed by a signal", True),
        ("Exit code 1\nE   assert 'sandbox error: command was killed by a signal' == x", False),
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nsandbox error: command was killed by a signal", False),
    ],
)
def test_only_the_hosts_report_of_a_kill_is_one(error: str, killed: bool) -> None:
    assert (walls.re.match(walls.KILLED, error) is not None) is killed


def test_one_batch_that_passes_both_thresholds_is_reminded_once(tmp_path: Path) -> None:
    """The golden `same_error_one_reminder_for_one_batch.json`: what the model reads after the
    second refused batch holds one reminder, not one at five failures and another at six."""
    data = scenario.load(scenario.SCENARIO_DIR / "same_error_one_reminder_for_one_batch.json")
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    reminded = [a for a in answers if "has failed" in json.dumps(a)]
    assert len(reminded) == 1
    assert json.dumps(reminded[0]).count("[loopguard] Bash has failed") == 1


def test_a_wall_of_searches_on_one_folder_is_told_to_look_not_to_rewrite(tmp_path: Path) -> None:
    """The golden `same_error_search_wall_on_one_folder_is_told_to_look.json`: a wall of Globs of
    one folder is told to check the path and search narrower, not to rewrite a file; an edit wall
    keeps its own text. Both are the `same_error_reminder` variant (`stats` compares them)."""
    data = scenario.load(scenario.SCENARIO_DIR / "same_error_search_wall_on_one_folder_is_told_to_look.json")
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    (reminder,) = [a["hookSpecificOutput"]["additionalContext"] for a in answers]
    assert "Glob on C:/Users/Administrator has failed 3 times" in reminder
    assert "a narrower folder or pattern" in reminder
    assert "rewrite" not in reminder
    edits = walls.same_error_reminder("Edit", 3, "String to replace not found in file.", 200, target="src/app.py")
    assert "rewrite the file whole" in edits
    for text in (reminder, edits):
        assert messages.variant_of(text, rules.VARIANTS) == "same_error_reminder"


def test_a_wall_of_an_editor_the_profile_does_not_list_keeps_the_edit_text(tmp_path: Path) -> None:
    """The golden `same_error_mcp_tool_wall_on_one_file_gets_a_text_for_reads_and_edits.json`: an
    MCP tool missing from both `mutating_tools` and the tools known to read or search
    (`tools.only_looks`) may edit or read: it gets neither a narrower search nor "rewrite the
    file whole" (for a file not found, that would invite creating it), but a text for both."""
    data = scenario.load(scenario.SCENARIO_DIR / "same_error_mcp_tool_wall_on_one_file_gets_a_text_for_reads_and_edits.json")
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    (reminder,) = [a["hookSpecificOutput"]["additionalContext"] for a in answers]
    assert "mcp__jetbrains__replace_text_in_file on " in reminder and "has failed 3 times" in reminder
    assert "check that the path is where you think" in reminder
    assert "narrower folder" not in reminder and "rewrite" not in reminder
    reader = walls.same_error_reminder("mcp__fs__read_text_file", 3, "ENOENT", 200, target="src/a.py", looks=None)
    assert "rewrite" not in reader and messages.variant_of(reader, rules.VARIANTS) == "same_error_reminder"
    config = Config()
    assert all(only_looks(tool, config) for tool in ("Read", "Glob", "Grep", "grep_search", "list_directory", "view"))
    assert not any(only_looks(tool, config) for tool in ("Edit", "mcp__jetbrains__replace_text_in_file", "Bash"))


def test_a_denied_retry_quotes_the_refusal_of_its_own_command(tmp_path: Path) -> None:
    """The golden `same_error_permission_refusals_quote_their_command.json` and then the first
    refused command sent again: denied, quoting the refusal as Claude Code words it for that
    command, not the reminded call's (whose command the wall's quote holds). With the
    refused-again rule on (balanced), that rule denies such a retry instead: it knows the
    permission mode (a user who left `dontAsk` may have it approved); the same-error denial is
    what a user who turns that rule off gets."""
    data = scenario.load(scenario.SCENARIO_DIR / "same_error_permission_refusals_quote_their_command.json")
    first = data["steps"][1]
    handed = {**data, "steps": [*data["steps"], {**first, "t": 40.0, "pre": "deny:LOOP_GUARD_REFUSED_AGAIN"}]}
    assert scenario.Runner(handed, "balanced", "claude-code", str(tmp_path / "handed")).play() == []
    data["config"] = {**data.get("config", {}), "refused_again_deny_at": 0}
    data["steps"].append({**first, "t": 40.0, "pre": "deny:LOOP_GUARD_SAME_ERROR"})
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    denial = answers[-1]["hookSpecificOutput"]["permissionDecisionReason"]
    assert f"Permission to use Bash with command {first['input']['command']} has been denied" in denial
    assert "/tmp/mem-import" not in denial


def test_a_kill_that_killed_its_own_shell_is_told_why(tmp_path: Path) -> None:
    """The golden `same_error_pkill_kills_its_own_shell.json`: the reminder, and the denial of the
    reminded command sent again at once, say that `pkill -f` killed the command's own shell and
    how to kill by a pattern that cannot match itself, not that the environment is limited.
    Both are still named by their variants (`stats` compares them)."""
    data = scenario.load(scenario.SCENARIO_DIR / "same_error_pkill_kills_its_own_shell.json")
    cut = next(i for i, step in enumerate(data["steps"]) if step.get("id") == "restart") + 1
    data["steps"] = [*data["steps"][:cut], {"same": "restart", "t": 80.0, "pre": "deny:LOOP_GUARD_SAME_ERROR"}]
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout)["hookSpecificOutput"] for _, result in runner.results if result.stdout.strip()]
    reminder, denial = answers[0]["additionalContext"], answers[1]["permissionDecisionReason"]
    for text, variant in ((reminder, "same_error_reminder"), (denial, "same_error_denial")):
        assert "its own shell's command line holds that pattern" in text
        assert "`pkill -f '[n]ext-server'`" in text
        assert "environment limit" not in text
        assert messages.variant_of(text, rules.VARIANTS) == variant


@pytest.mark.parametrize(
    ("command", "error", "kills_itself"),
    [
        ("pkill -f jake_pessoal.py 2>/dev/null; sleep 1\nnohup python3 bot.py &", "Exit code 144", True),
        ("sudo pkill -9 -f 'uvicorn.*8100' && sleep 2 && ./start.sh", "Exit code 137", True),
        ("kill $(pgrep -f next-server); npm run start", "Exit code 143", True),
        # Killed by a signal, but by nothing it ran: another wall's text.
        ("npm run build", "Exit code 137", False),
        # A kill by process name, or one that found nothing to kill, did not kill its shell.
        ("pkill next-server; npm run start", "Exit code 144", False),
        ("pkill -f next-server; npm run start", "Exit code 1", False),
        ("pkill -f next-server", "Exit code 2\npkill: invalid option", False),
        # A look that kills nothing, and a kill by a signal of another kind (Ctrl-C).
        ("pgrep -f next-server && sleep 2", "Exit code 137", False),
        ("pkill -f next-server; npm run start", "Exit code 130", False),
    ],
)
def test_which_failures_killed_their_own_shell(command: str, error: str, kills_itself: bool) -> None:
    assert walls._kills_itself("Bash", {"command": command}, error) is kills_itself


def test_a_wall_of_one_missing_page_says_to_check_the_address() -> None:
    """A page not found is no environment limit: every text of such a wall says to check the
    address, and each is still named by its variant (`stats` compares them)."""
    texts = {
        "same_error_reminder": walls.same_error_reminder("WebFetch", 3, "Request failed with status code 404", 200, page=True),
        "same_error_denial": walls.denial_text("WebFetch", 4, "Request failed with status code 404", has_file=False, page=True),
        "same_error_advice": walls.advice_text("WebFetch", 4, "Request failed with status code 404", has_file=False, page=True),
        "same_error_stop": walls.stop_text("WebFetch", 5, "404", has_file=False, ends_turn=False, pauses=False, page=True),
    }
    for name, text in texts.items():
        assert messages.variant_of(text, rules.VARIANTS) == name, text
        assert "check the address" in text and "environment limit" not in text, text


def test_the_page_of_a_fetch_is_its_address_without_its_fragment() -> None:
    """`url`, else the address the error names, else the first in the prompt (Gemini CLI); a
    `#fragment` is the same page; an address cut at 1,024 characters no longer merges pages."""
    page = walls._page_of({"url": "https://docs.example/a.html"}, "")
    assert page is not None and walls._page_of({"url": " https://docs.example/a.html#top "}, "") == page
    assert walls._page_of({"prompt": "Summarise https://docs.example/a.html please"}, "") == page
    failed = "Error during fallback fetch for https://docs.example/b.html: Request failed with status code 404 Not Found"
    assert walls._page_of({"prompt": "Compare https://docs.example/a.html and https://docs.example/b.html"}, failed) != page
    long = "https://docs.example/?q=" + "x" * 2000
    assert walls._page_of({"url": long + "1"}, "") != walls._page_of({"url": long + "2"}, "")
    for nothing in ({"url": ""}, {"url": 5}, {"prompt": "no address here"}, "text", None):
        assert walls._page_of(nothing, "") is None
    assert walls._missing_page({"url": "https://docs.example/a.html"}, "Request failed with status code 403") is None
    assert walls._missing_page({"url": "https://docs.example/a.html"}, "Request failed with status code 404") == page


def test_an_address_named_in_text_is_the_page_without_the_punctuation_after_it() -> None:
    """Gemini CLI's error names the page with a colon after it (`… fallback fetch for URL: …`,
    `All fallback fetch attempts failed: URL: …`) and a prompt may end it with a full stop: the
    wall of that page was keyed `URL:`, which a success of the page (its prompt naming `URL`)
    never matched, so the wall outlived the page working."""
    page = walls._page_of({"prompt": "Summarise https://docs.example/b.html"}, "")
    assert page is not None
    for failed in (
        "Error during fallback fetch for https://docs.example/b.html: Request failed with status code 404 Not Found",
        "All fallback fetch attempts failed: https://docs.example/b.html: Request failed with status code 404 Not Found",
    ):
        assert walls._missing_page({"prompt": "Read https://docs.example/b.html"}, failed) == page, failed
    prompts = ("Read https://docs.example/b.html.", "What does https://docs.example/b.html say?", "See https://docs.example/b.html;")
    for prompt in prompts:
        assert walls._page_of({"prompt": prompt}, "") == page, prompt
    assert walls._page_of({"url": "https://docs.example/b.html."}, "") != page  # a `url` is the address as sent


def test_a_gemini_page_wall_ends_when_that_page_works(tmp_path: Path) -> None:
    """A Gemini CLI wall of one missing page, reminded, is gone once a fetch of that page works."""
    url = "https://nvidia.github.io/TensorRT-Model-Optimizer/guides/quantization.html"
    failed = f"Error during fallback fetch for {url}: Request failed with status code 404 Not Found"
    asks = ("Find the NVFP4 configuration:", "Find the NVFP4 preset and its activations:", "List every NVFP4 preset on:")
    steps: list[dict[str, object]] = [{"event": "SessionStart", "source": "startup"}]
    steps += [{"call": "web_fetch", "input": {"prompt": f"{ask} {url}"}, "error": failed} for ask in asks]
    steps[-1]["post"] = "remind:LOOP_GUARD_SAME_ERROR"
    steps.append({"call": "web_fetch", "input": {"prompt": f"Summarise {url}"}, "response": "The guide lists NVFP4_DEFAULT_CFG."})
    data = {"description": "", "source": "", "clients": ["gemini-cli"], "steps": steps}
    state = tmp_path / "state"
    runner = scenario.Runner(data, "balanced", "gemini-cli", str(state))
    assert runner.play() == []
    (ledger,) = (state / "sessions").glob("*.json")
    agents = json.loads(ledger.read_text())["agents"]
    assert [e for a in agents.values() for e in a.get("rules", {}).get("same_error", {}).values() if "page" in e] == []


def test_a_missing_pages_wall_is_disarmed_by_a_success_that_may_have_put_the_page_there() -> None:
    """Another page working or a search says nothing of a missing page: its reminded wall stays
    armed. A shell's success (a build, a server started, a deploy) or a subagent's may have put it
    there, as it may have fixed any wall of calls that name no file: it disarms the wall, which
    denied the next identical fetch of the page (golden
    `same_error_lookalike_missing_local_page_fetched_again_after_a_build`)."""
    host = walls.shape_id("//localhost")

    def wall() -> dict[str, Any]:
        return {"sigs": ["a", "b", "c"], "t": 1.0, "rounds": 3, "level": 1, "shapes": [host], "page": "p1"}

    assert walls._asks_the_web({"url": "http://localhost:3000/other"}, "p2")
    assert walls._asks_the_web({"query": "express router 404"}, None)
    assert not walls._asks_the_web({"description": "Deploy", "prompt": "Build and deploy the docs."}, None)  # Task
    errors: dict[str, Any] = {"WebFetch::e@p1": wall()}
    walls.answered(errors, "WebFetch", None, "//localhost", page="p2", web=True)
    walls.answered(errors, "WebSearch", None, None, web=True)
    assert "idle" not in errors["WebFetch::e@p1"]
    walls.answered(errors, "Bash", None, "npm", page=None, web=False)
    assert errors["WebFetch::e@p1"]["idle"] == 3
    errors = {"WebFetch::e@p1": wall()}
    walls.answered(errors, "Task", None, None, web=False)
    assert errors["WebFetch::e@p1"]["idle"] == 3
    errors = {"WebFetch::e@p1": wall()}
    walls.answered(errors, "WebFetch", None, "//localhost", page="p1", web=True)
    assert errors == {}


@pytest.mark.parametrize("damage", [{"t": "yesterday"}, {"t": None}, {"page": 5}, {"page": ["x"]}, {"page": None}])
def test_a_damaged_wall_of_a_missing_page_fails_safe(tmp_path: Path, damage: dict[str, Any]) -> None:
    """A hand-edited or corrupted ledger: a missing page's wall whose time is not a number made
    the next 404 of another page raise in `_keep_pages` (it sorts the walls of pages by it), and
    the hook's net for a ledger of the wrong shape started the whole session afresh, every count
    lost, with a warning line; one whose page is not a string was held as a wall of a page no
    success could match. Now the 404 is counted quietly, and such a wall is one of calls that
    name no file."""
    from test_hardening_helpers import at, dumps, load_state, pre

    from loopguard_hook.hook import HookOptions, run

    opts, clock = HookOptions(state_dir=str(tmp_path / "state")), 1_800_000_000.0

    def fetch(i: int, url: str) -> None:
        call = {"url": url, "prompt": f"Find the deploy guide ({i})."}
        for payload in (
            pre("claude-code", "s1", "WebFetch", call, f"toolu_{i}"),
            {**pre("claude-code", "s1", "WebFetch", call, f"toolu_{i}"), "hook_event_name": "PostToolUseFailure",
             "error": "Request failed with status code 404"},
        ):
            result = run(dumps(payload), options=opts, environ={}, user_config="", clock=at(clock + 5 * i))
            assert result.exit_code == 0 and not result.stderr, result.stderr

    fetch(0, "https://docs.example.org/v0/deploy.html")
    fetch(1, "https://docs.example.org/v1/deploy.html")
    ledger = next((tmp_path / "state" / "sessions").glob("*.json"))
    state = json.loads(ledger.read_text())
    errors = state["agents"]["main"]["rules"]["same_error"]
    assert len(errors) == 2 and all("page" in e for e in errors.values()), errors
    errors[min(errors)].update(damage)
    ledger.write_text(json.dumps(state))
    fetch(2, "https://docs.example.org/v2/deploy.html")
    assert len(load_state(tmp_path / "state", "s1")["agents"]["main"]["rules"]["same_error"]) == 3
    wall = {"sigs": ["a", "b", "c"], "t": 1.0, "rounds": 3, "level": 1, "shapes": [walls.shape_id("npm")], **damage}
    errors = {"Bash::e": wall}
    walls.answered(errors, "Bash", None, "npm")
    assert errors == {}  # its program working ends it, as any wall of a shell


def test_which_changes_keep_their_files_failures_when_they_changed_nothing() -> None:
    """An edit, write or patch tool's call that left its file as it was keeps that file's
    failures standing; a shell command never does (it may change what no file it names shows)."""
    assert walls._edit_tool("Write", {"file_path": "/p/a.py", "content": "x"})
    assert walls._edit_tool("Edit", {"file_path": "/p/a.py", "old_string": "x", "new_string": "y"})
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n"
    assert walls._edit_tool("apply_patch", {"command": patch})  # Codex's patch tool: its input is a `command`
    assert not walls._edit_tool("Bash", {"command": "sed -i 's/x/y/' a.py && pip install foo"})
    assert not walls._edit_tool("Bash", {"command": "apply_patch <<'EOF'\n" + patch + "EOF"})
    assert not walls._edit_tool("run_shell_command", {"command": "sed -i 's/x/y/' a.py"})


@pytest.mark.parametrize(
    ("command", "asked"),
    [
        # A program that asks: its failure with nothing printed is the answer "none".
        ("grep -rn 'TODO' src", True),
        ("ss -tlnp | grep 8080", True),
        ("lsof -i :8230", True),
        ("[ -f .env ] && echo yes", True),
        ("git config --get user.signingkey", True),
        ("pgrep -f uvicorn", True),
        # A command that silences itself asks for its status.
        ("python3 -c 'import yaml' 2>/dev/null", True),
        ("curl -sf http://localhost:8000/health", True),
        # A plain command prints why it failed: a failure that says nothing is an error of its.
        ("ls -la", False),
        ("pwd", False),
        ("cd /root/app && npm install", False),
        ("node --version", False),
    ],
)
def test_which_silent_failures_are_the_answer_none(command: str, asked: bool) -> None:
    shape = walls.shape_of({"command": command}, has_file=False)
    assert walls._asked("Bash", {"command": command}, shape) is asked
    assert walls.re.match(walls._EXIT_ONE, "Exit code 1") and walls.re.match(walls._SAYS_NOTHING, "Error")


def test_a_wall_on_one_file_names_it_as_the_calls_do(tmp_path: Path) -> None:
    """The golden `recall_reworded_edit_fails_same_way.json` (three Edits of /p/schemas/schema.json
    failing alike): the reminder names the file by the path the calls used. It named it by the
    wall's key, `schemas/schema.json`, which is no path from the workspace (a new user's Gemini CLI
    and Qwen Code sessions were told to read such a key)."""
    data = scenario.load(scenario.SCENARIO_DIR / "recall_reworded_edit_fails_same_way.json")
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "state"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    [reminder] = [json.dumps(a) for a in answers if "has failed" in json.dumps(a)]
    assert "Edit on /p/schemas/schema.json has failed 3 times" in reminder, reminder
    # a path too long to quote whole would lose its name: the key instead (rv72)
    long_path = "/p/" + "d" * 150 + "/schemas/schema.json"
    for step in data["steps"]:
        if isinstance(step.get("input"), dict) and "file_path" in step["input"]:
            step["input"]["file_path"] = long_path
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "long"))
    assert runner.play() == []
    answers = [json.loads(result.stdout) for _, result in runner.results if result.stdout.strip()]
    [reminder] = [json.dumps(a) for a in answers if "has failed" in json.dumps(a)]
    assert "Edit on schemas/schema.json has failed 3 times" in reminder, reminder
    # the key shown for a long path is redacted as any quote (rv73)
    secret = "ghp_" + "Zq8v" * 9
    for step in data["steps"]:
        if isinstance(step.get("input"), dict) and "file_path" in step["input"]:
            step["input"]["file_path"] = long_path.replace("/schemas/", f"/{secret}/")
    runner = scenario.Runner(data, "balanced", "claude-code", str(tmp_path / "secret"))
    assert runner.play() == []
    said = " ".join(r.stdout.decode() for _, r in runner.results)
    assert secret not in said and "Edit on [REDACTED]/schema.json has failed" in said, said
