"""Outcomes as the rules compare them (`core/outcome.py`)."""

from __future__ import annotations

from loopguard_hook.core.outcome import Failure, classify_response, error_signature

#: A Codex 0.2x sandbox refusal, as its rollouts write it (corpus rollout of 2025-09-07).
REFUSED = (
    "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 128, "
    "stdout: {out}, stderr: fatal: Unable to create '/workspaces/app/.git/index.lock': Permission denied\n"
)


def test_a_sandbox_refusal_is_compared_without_the_refused_commands_stdout() -> None:
    bare = error_signature(REFUSED.format(out=""), {"command": "git add a.js && git commit -m x"})
    printed = REFUSED.format(out="total 8\n-rw-r--r-- 1 node node 33 HEAD\n")
    listed = error_signature(printed, {"command": "ls -l .git && git commit"})
    assert bare == listed
    other = REFUSED.format(out="").replace("Unable to create", "Unable to read")
    assert error_signature(other) != bare  # the error itself still tells walls apart


def test_a_retry_with_a_reworded_hunk_fails_the_same_way() -> None:
    one = "Failed to find expected lines in /w/src/a.py:\n    return x"
    two = "Failed to find expected lines in /w/src/a.py:\n    return  x"
    assert error_signature(one, {"command": "*** Begin Patch\n-    return x"}) == error_signature(
        two, {"command": "*** Begin Patch\n-    return  x"}
    )


def test_the_guards_own_denials_are_told_from_another_hooks() -> None:
    from loopguard_hook.core.messages import is_guard_denial

    ours = "PreToolUse:Bash hook error: REPEAT_TOOL_BLOCKED: this Bash call is identical to the previous ones"
    seed = "PreToolUse:Read hook error: [loopguard-hook --profile progress]: LOOP_GUARD_STOP: tool calls are paused"
    theirs = "PreToolUse:Bash hook error: [python3 /h/guard.py]: python3: can't open file '/h/guard.py': [Errno 2]"
    policy = "PreToolUse:Bash hook error: [uv run hooks/pre_tool_use.py]: BLOCKED: Dangerous rm command detected"
    assert is_guard_denial(ours) and is_guard_denial(seed)
    assert not is_guard_denial(theirs) and not is_guard_denial(policy)


def test_a_refusal_that_quotes_the_whole_command_in_its_message_is_one_wall() -> None:
    """Claude Code words a permission rule's refusal with the command inside the message's one
    line (public Claude Code 2.1 transcripts: nine reworded `rm -rf` refused so): commands
    refused by one rule fail the same way, and the message itself still tells errors apart."""
    said = "Permission to use Bash with command {} has been denied."
    one, two = "rm -rf /tmp/cache-a", 'rm -rf /tmp/cache-* && echo "removed"'
    assert error_signature(said.format(one), {"command": one}) == error_signature(said.format(two), {"command": two})
    # A first line that only names the command (Qwen Code) heads the same body for every command
    # that printed nothing: those stay distinct answers.
    body = "Command: {}\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1"
    assert error_signature(body.format(one), {"command": one}) != error_signature(body.format(two), {"command": two})
    asked = "The user doesn't want to proceed with this tool use. Command: {}"
    assert error_signature(asked.format(one), {"command": one}) != error_signature(said.format(two), {"command": two})


def test_a_refusal_naming_the_refused_program_is_one_wall_and_a_missing_program_is_not() -> None:
    """A sandbox refusing each program in turn names it (`bash: line 1: pip: Operation not
    permitted`): one error whichever program (a new user's session, never caught). A program
    missing (`rg: command not found`) says nothing of the next: those stay distinct, and so does
    a name the command does not run."""
    def sig(program: str, says: str, command: str | None = None) -> str:
        return error_signature(f"Exit code 1\nbash: line 1: {program}: {says}", {"command": command or f"{program} x"})

    assert sig("pip", "Operation not permitted") == sig("uv", "Operation not permitted")
    assert sig("pip", "network access denied by sandbox policy") == sig("npm", "network access denied by sandbox policy")
    assert sig("rg", "command not found") != sig("ag", "command not found")
    assert sig("pip", "Operation not permitted", "make install") != sig("uv", "Operation not permitted", "make install")


def test_lines_quoted_in_a_list_by_older_codex_are_the_calls_own() -> None:
    """Codex 0.2x-0.3x quotes the lines apply_patch looked for as a JSON list on the message's
    line: two patches of one file that fail to find their own lines fail the same way."""
    from loopguard_hook.core.outcome import error_signature

    first = "*** Begin Patch\n*** Update File: backend.js\n@@\n-testConnection().then(ok => {\n-  if (ok) {\n+x\n*** End Patch"
    second = "*** Begin Patch\n*** Update File: backend.js\n@@\n-    console.log(`Batch result`);\n-\n+y\n*** End Patch"
    e1 = 'error: Failed to find expected lines ["testConnection().then(ok => {", "  if (ok) {"] in c:\\w\\backend.js'
    e2 = 'error: Failed to find expected lines ["    console.log(`Batch result`);", ""] in c:\\w\\backend.js'
    assert error_signature(e1, {"command": first}) == error_signature(e2, {"command": second})
    # Lines the call did not send stay: another error.
    assert error_signature(e1, {"command": second}) != error_signature(e2, {"command": second})
    # A list cut short (the error's first 2,000 characters) is read as far as it goes.
    cut = 'error: Failed to find expected lines ["testConnection().then(ok => {", "  if (o'
    assert error_signature(cut, {"command": first}) == error_signature(cut[:-1], {"command": first})


def test_an_empty_error_field_says_nothing_is_wrong() -> None:
    from loopguard_hook.core.outcome import says_not_right

    fine = ['{"success": true, "error": null, "message": "saved"}', '{"ok":true,"errors":[]}', "Result(ok=True, error=None)"]
    wrong = ['{"success": false, "error": "bad key"}', '{"user": null}', '{"errors": ["x"]}', "error: null pointer"]
    assert [says_not_right(t) for t in fine] == [False] * len(fine)
    assert [says_not_right(t) for t in wrong] == [True] * len(wrong)


def test_an_exceptions_name_says_something_is_wrong() -> None:
    """`ValueError: bad input` left by `| tail -1` (its Traceback line cut off) names a failure;
    a word merely ending in "error" in lower case does not."""
    from loopguard_hook.core.outcome import says_not_right

    assert says_not_right("ValueError: bad input") and says_not_right("java.lang.IllegalStateException at x")
    assert not says_not_right("terror alert level: low") and not says_not_right("mirror synced")


def test_codex_sandbox_wrapper_states_a_failure_as_an_exit_code_does() -> None:
    """Not a failure inferred from words (SOFT, where a changed text is new evidence): the
    wrapper gives the exit code, as `Exit code: 128` would."""
    printed = REFUSED.format(out="total 8\nExit code: 0\n")
    assert classify_response("Bash", REFUSED.format(out="")) == Failure.HARD
    assert classify_response("Bash", printed) == Failure.HARD
    assert classify_response("Bash", "failed in sandbox LinuxSeccomp with execution error: command timed out") == Failure.SOFT


def test_powershell_error_record_reads_as_a_failure() -> None:
    """Windows PowerShell prints its error record under every error; Codex's hook payload
    carries no exit code (public rollout of 2025-09-11, powershell.exe)."""
    parse = ("At line:1 char:429\r\n+ ... lue (Jupiter raw response ...\r\n+        ~\r\nMissing closing ')' in expression.\r\n"
             "    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\r\n"
             "    + FullyQualifiedErrorId : MissingEndParenthesisInExpression\r\n \r\n")
    assert classify_response("Bash", parse) == Failure.SOFT
    listing = "\r\nFullName\r\n--------\r\nC:\\Users\\dev\\app\\n8n\\workflow.json   13315\r\n"
    assert classify_response("Bash", listing) == Failure.NONE


def test_a_number_that_reads_as_epoch_time_is_the_polls_clock_only_near_the_events_time() -> None:
    """A poll's own timestamp (seconds or milliseconds, within `EPOCH_WINDOW` of the event) is
    removed from the fingerprint; a byte count of 1.5-2 GB, which reads as epoch seconds too but
    lies years from the event's time, is the work and tells two polls apart. With no time given
    (a caller that has none), or one of no year 2017-2033 (a replay's made-up times of a log that
    has none), every such number is removed as before."""
    from loopguard_hook.core.outcome import outcome_fingerprint
    from loopguard_hook.core.signature import EPOCH_WINDOW, normalise_text

    now = 1_796_500_000.0  # 2026-12
    poll = "[{t}] state=waiting_for_lock\n"
    one, two = (outcome_fingerprint(poll.format(t=t), now=now) for t in (1_796_500_012, 1_796_500_032))
    assert one == two
    millis = '{{"checked": {t}}}'
    assert outcome_fingerprint(millis.format(t=1_796_500_012_345), now=now) == outcome_fingerprint(
        millis.format(t=1_796_500_032_001), now=now
    )
    size = "{n}\tmodels/model.safetensors\n"
    one, two = (outcome_fingerprint(size.format(n=n), now=now) for n in (1_510_000_000, 1_570_000_000))
    assert one != two
    for near in (now - EPOCH_WINDOW, now + EPOCH_WINDOW, now + 1):
        assert normalise_text(f"{int(near)} at", now) == "<t> at", near
    for far in (now - 3 * EPOCH_WINDOW, now + 3 * EPOCH_WINDOW, 1_510_000_000):
        assert normalise_text(f"{int(far)} bytes", now) == f"{int(far)} bytes", far
    for unknown in (None, 12.5, 2.5e9):
        assert normalise_text("1510000000 and 1570000000123", unknown) == "<t> and <t>", unknown


def test_a_timestamp_spelt_for_a_file_name_is_a_timestamp() -> None:
    """npm names its debug log after the run's time with `_` for `:` and `.`: two runs of one
    failing test differ in nothing else (a new user's `npm test`, nine times unanswered)."""
    from loopguard_hook.core.outcome import outcome_fingerprint
    from loopguard_hook.core.signature import normalise_text

    failed = "npm ERR! A complete log of this run can be found in:\nnpm ERR!     /root/.npm/_logs/{}-debug-0.log"
    one, two = (outcome_fingerprint(failed.format(t)) for t in ("2026-12-07T07_29_01_019Z", "2026-12-07T07_32_46_502Z"))
    assert one == two
    assert normalise_text("2026-12-07T07:29_01 and build_2026-12-07") == "2026-12-07T07:29_01 and build_2026-12-07"


def test_a_python_objects_address_and_pytests_run_folder_are_volatile() -> None:
    """Two runs of one failing test differ in a fixture's address and pytest's numbered
    temporary folder; a flasher's `Writing at 0x0014641f` is progress, not an address."""
    from loopguard_hook.core.outcome import outcome_fingerprint
    from loopguard_hook.core.signature import normalise_text

    failed = "client = <TestClient object at {}>\nE   FileNotFoundError: /tmp/pytest-of-root/pytest-{}/test_load0/x"
    assert outcome_fingerprint(failed.format("0x10a755d10", 480)) == outcome_fingerprint(failed.format("0x10a6f8d70", 481))
    assert normalise_text("Writing at 0x0014641f [=====") == "Writing at 0x0014641f [====="


def test_a_listing_that_succeeds_keeps_its_addresses_and_timestamped_names() -> None:
    """Only a failure's report loses them: a new backup's name, a new set of live objects, a
    new pytest folder in a listing are news (a hostile review, rv76: balanced reminded and the
    progress profile denied such polls once every report lost them)."""
    from loopguard_hook.core.outcome import outcome_fingerprint

    backups = ("db-2026-12-07T07_30_00.sql.gz", "db-2026-12-07T07_31_00.sql.gz")
    assert outcome_fingerprint(backups[0]) != outcome_fingerprint(backups[1])
    live = "<Session object at 0x7f1200{}>\n<Session object at 0x7f1300aa>"
    assert outcome_fingerprint(live.format("10")) != outcome_fingerprint(live.format("20"))
    assert outcome_fingerprint("/tmp/pytest-of-u/pytest-7") != outcome_fingerprint("/tmp/pytest-of-u/pytest-8")
    npm = "npm error A complete log of this run can be found in: /root/.npm/_logs/2026-12-07T07_{}_00_000Z-debug-0.log"
    assert outcome_fingerprint(npm.format(30)) == outcome_fingerprint(npm.format(31))


def test_an_epoch_time_with_its_fraction_is_the_polls_clock_whole() -> None:
    """`{"ts": 1796573409.512}`: the fraction of a poll's own timestamp moved on every poll, so
    two polls of an unchanged state never looked the same (a hostile review of 9dd8eab)."""
    from loopguard_hook.core.outcome import outcome_fingerprint
    from loopguard_hook.core.signature import normalise_text

    now = 1_796_573_409.0
    poll = '{{"status": "running", "ts": {t}}}'
    one, two = (outcome_fingerprint(poll.format(t=t), now=now) for t in ("1796573409.512", "1796573412.087"))
    assert one == two
    assert normalise_text("1510000000.25 and 1570000000123.5", None) == "<t> and <t>"


def test_a_search_result_is_quoted_as_the_model_read_it() -> None:
    """Claude Code sends Grep's and Glob's results structured; the model reads text. Pairs from
    the corpus's transcripts (1.0-2.1: `toolUseResult` and the tool_result the model got)."""
    from loopguard_hook.core.outcome import result_text

    pairs = [
        ({"mode": "files_with_matches", "filenames": [], "numFiles": 0}, "No files found"),
        (
            {"mode": "files_with_matches", "filenames": ["/w/src/api/mod.rs"], "numFiles": 1},
            "Found 1 file\n/w/src/api/mod.rs",
        ),
        ({"mode": "files_with_matches", "filenames": ["a.ts", "b.ts"], "numFiles": 2}, "Found 2 files\na.ts\nb.ts"),
        (
            {"mode": "content", "numFiles": 0, "filenames": [], "content": "main.go:func main() {", "numLines": 1},
            "main.go:func main() {",
        ),
        ({"mode": "content", "numFiles": 0, "filenames": [], "content": "", "numLines": 0}, "No matches found"),
        (
            {"mode": "count", "numFiles": 2, "filenames": [], "content": "src/a.rs:5\nsrc/b.rs:26", "numMatches": 31},
            "src/a.rs:5\nsrc/b.rs:26\n\nFound 31 total occurrences across 2 files.",
        ),
        ({"filenames": [], "durationMs": 18, "numFiles": 0, "truncated": False}, "No files found"),
        ({"filenames": ["/w/ci.yml", "/w/cd.yml"], "durationMs": 51, "numFiles": 2, "truncated": False}, "/w/ci.yml\n/w/cd.yml"),
        (
            {"filenames": ["/w/a/package.json"], "durationMs": 86, "numFiles": 100, "truncated": True},
            "/w/a/package.json\n(Results are truncated. Consider using a more specific path or pattern.)",
        ),
    ]
    for response, text in pairs:
        assert result_text(response) == text, response
