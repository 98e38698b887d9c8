"""The shell's own lines (`progress.without_noise`): a startup file's warning printed before
every command is no part of what the command answered."""

from __future__ import annotations

import time

from loopguard_hook.core import ledger, progress
from loopguard_hook.core.outcome import Failure, Outcome

NOISE = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted"


def _run(agent: ledger.Agent, sig: str, text: str, failure: int = Failure.SOFT) -> tuple[Outcome, str]:
    call: ledger.Call = {"sig": sig, "t": 1.0, "seq": 1, "phase": "pre"}
    return progress.without_noise(agent, call, Outcome("f" + sig, failure, text))


def test_a_profile_warning_before_every_command_stops_making_successes_failures() -> None:
    agent = ledger.new_agent(1.0)
    for n, rest in enumerate(["", "main\n", "origin/main\n"]):
        outcome, clean = _run(agent, f"s{n}", f"{NOISE}\n{rest}")
    assert outcome.failure == Failure.NONE and NOISE not in clean and outcome.text.startswith(NOISE)
    refused, clean = _run(agent, "s9", f"{NOISE}\nfatal: could not read Username")
    assert refused.failure == Failure.SOFT and clean == "fatal: could not read Username"


def test_an_error_repeated_by_different_calls_is_kept() -> None:
    agent = ledger.new_agent(1.0)
    for n in range(5):
        outcome, clean = _run(agent, f"s{n}", f"Failed to find expected lines in src/a.py:\n    line {n}")
    assert clean.startswith("Failed to find expected lines") and outcome.failure == Failure.SOFT


def test_the_same_answer_after_a_warning_is_no_noise() -> None:
    agent = ledger.new_agent(1.0)
    for n in range(5):
        outcome, clean = _run(agent, f"s{n}", "warning: the lock file is stale\nnot accessible on a free plan", Failure.NONE)
    assert clean.startswith("warning:")  # the same text after it every time: one answer, kept whole


def test_ssh_adds_note_at_the_end_of_every_output_is_the_shells() -> None:
    """Codex writes stderr after stdout: a startup file's ssh-add note ends every output."""
    agent = ledger.new_agent(1.0)
    note = "Identity added: /Users/dev/.ssh/id_rsa_github (/Users/dev/.ssh/id_rsa_github)"
    body = "\n".join(f"line {n}" for n in range(10))
    for n, rest in enumerate(["", "* main\n", f"{body}\n"]):
        outcome, clean = _run(agent, f"s{n}", f"{rest}{note}", Failure.NONE)
    assert clean == body and outcome.text.endswith(note)
    kept, clean = _run(agent, "s9", f"{body}\nline 10\n{note}\nline 11\nline 12\nline 13", Failure.NONE)
    assert note in clean  # past the last lines: the command's own


def test_a_startup_files_line_alone_is_the_shells_whatever_follows() -> None:
    agent = ledger.new_agent(1.0)
    note = "Identity added: /Users/dev/.ssh/id_rsa_github (/Users/dev/.ssh/id_rsa_github)"
    for n in range(4):
        outcome, clean = _run(agent, f"s{n}", note, Failure.NONE)
    assert clean == "" and outcome.text == note
    warned = ledger.new_agent(1.0)
    for n in range(4):
        outcome, clean = _run(warned, f"s{n}", "warning: the lock file is stale", Failure.NONE)
    assert clean == "warning: the lock file is stale"  # a warning alone, every time: the answer


def test_a_long_line_without_spaces_is_not_matched_for_seconds() -> None:
    """A minified bundle (one line, no spaces, `.profile` all over) printed first or last: the
    startup-file pattern took time quadratic in its length (432 KB: past the hook's 8 s
    deadline, the update lost). A line that long is the command's own."""
    agent = ledger.new_agent(1.0)
    line = "e.profile&&x(e.profile.id);" * 4000  # 108 KB: 1.5 s before
    started = time.perf_counter()
    for n in range(3):
        outcome, clean = _run(agent, f"s{n}", f"{line}\nok\n{line}", Failure.NONE)
    assert time.perf_counter() - started < 0.5
    assert clean == outcome.text


def test_a_profile_warning_right_after_codexs_sandbox_wrapper_is_the_shells() -> None:
    """Codex writes `failed in sandbox: ` and what the command printed on one line (corpus
    rollout of 2025-10-27: `pnpm typecheck` four ways, each `failed in sandbox: <the profile's
    line>`): the profile's line after the wrapper is noise too, and the wrapper stays."""
    agent = ledger.new_agent(1.0)
    for n, rest in enumerate(["", "src/app.ts(3,1): error TS2304\n", "Invalid option '--ignore-path'\n"]):
        outcome, clean = _run(agent, f"s{n}", f"failed in sandbox: {NOISE}\n{rest}")
    assert NOISE not in clean and clean.startswith("failed in sandbox:") and "--ignore-path" in clean
    assert outcome.failure == Failure.SOFT and outcome.text.startswith(f"failed in sandbox: {NOISE}")
    other = ledger.new_agent(1.0)
    for n in range(4):
        outcome, clean = _run(other, f"s{n}", f"failed in sandbox: error: package `app` not found {n}")
    assert clean.startswith("failed in sandbox: error: package")  # the command's own error, kept
