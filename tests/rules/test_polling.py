"""Background polling (`rules/polling.py`): rapid probes of a task that is still running."""

from __future__ import annotations

import importlib

from rulekit import agent, call_ctx, result_ctx

from loopguard_hook.core.verdict import Action, Rule

rule = importlib.import_module("loopguard_hook.rules.polling")
RUNNING = {"shellId": "b1", "status": "running", "exitCode": None, "stdout": "step 3/40", "stderr": ""}


def _call(entry: dict, tool: str, tool_input: dict, response: object, now: float, took: float) -> object:  # type: ignore[type-arg]
    """One call at `now`: its PreToolUse verdict, then (unless denied) its result, `took` s later."""
    verdict = rule.on_call(call_ctx(tool, tool_input, entry=entry, now=now))  # type: ignore[arg-type]
    if verdict is None or verdict.action is not Action.DENY:
        ctx = result_ctx(tool, tool_input, response, entry=entry, now=now)  # type: ignore[arg-type]
        ctx.agent["updated"] = now + took
        rule.on_result(ctx._replace(call={**ctx.call, "t": now}))
    return verdict


def _probe(entry: dict, now: float, *, response: object = RUNNING, took: float = 0.5) -> object:  # type: ignore[type-arg]
    """One BashOutput of task b1 at `now`."""
    return _call(entry, "BashOutput", {"bash_id": "b1"}, response, now, took)


def test_rapid_probes_of_a_running_task_are_reminded_then_denied() -> None:
    entry = agent()
    got = [_probe(entry, 100.0 + 10 * n) for n in range(9)]
    assert got[:6] == [None] * 6
    assert got[6] is not None and (got[6].action, got[6].rule) == (Action.REMIND, Rule.POLL)  # type: ignore[attr-defined]
    # No BashOutput recording (1.0.72-2.0.61) holds a notice of the task's end: none is promised.
    assert "host tells you" not in got[6].message  # type: ignore[attr-defined]
    assert "Wait a minute or more between checks" in got[6].message  # type: ignore[attr-defined]
    assert [(v.action, v.rule) for v in got[7:]] == [(Action.DENY, Rule.POLL)] * 2  # type: ignore[attr-defined]
    # each denied check is counted in the next text (a new user saw 'checked 6 times' over and over)
    assert "checked 6 times" in got[7].message and "checked 7 times" in got[8].message  # type: ignore[attr-defined]


def test_a_denied_check_that_runs_all_the_same_is_counted_once() -> None:
    """Under advise or observe a denial is not sent and the check runs: its result adds nothing
    to the count its PreToolUse already gave it (a hostile review, rv76: 6, 6, 8, 10…)."""
    entry = agent()
    texts = []
    for n in range(11):
        now = 100.0 + 10 * n
        pre = call_ctx("BashOutput", {"bash_id": "b1"}, entry=entry, now=now)  # type: ignore[arg-type]
        verdict = rule.on_call(pre)
        texts.append(verdict.message if verdict is not None else "")
        ctx = result_ctx("BashOutput", {"bash_id": "b1"}, RUNNING, entry=entry, now=now)  # type: ignore[arg-type]
        ctx.agent["updated"] = now + 0.5
        rule.on_result(ctx._replace(call={**pre.call, "t": now}))  # run whatever was decided
    counts = [int(t.split("checked ")[1].split(" times")[0]) for t in texts if "checked " in t]
    assert counts == [6, 6, 7, 8, 9], counts


def test_only_a_task_the_host_reports_on_is_said_to_be_reported() -> None:
    """Claude Code 2.1 sends a `<task-notification>` when a TaskOutput task ends; the reminder
    says so there and only there."""
    entry = agent()
    got = []
    for n in range(7):
        now = 100.0 + 10 * n
        got.append(rule.on_call(call_ctx("TaskOutput", {"task_id": "t1"}, entry=entry, now=now)))  # type: ignore[arg-type]
        ctx = result_ctx("TaskOutput", {"task_id": "t1"}, {"task": {"status": "running"}}, entry=entry, now=now)  # type: ignore[arg-type]
        ctx.agent["updated"] = now + 0.5
        rule.on_result(ctx._replace(call={**ctx.call, "t": now}))
    assert got[6] is not None and "the host tells you when a background task ends" in got[6].message
    shell = rule.poll_reminder("tail -n 20 build.log", 6)
    assert "host tells you" not in shell and shell.endswith("say what you are waiting for.")


def test_a_task_the_agent_stopped_is_no_longer_said_to_run() -> None:
    """After `KillShell` (or `TaskStop`) of a task, a read of it is not named a running task's."""
    for tool, field in (("KillShell", "shell_id"), ("TaskStop", "task_id"), ("KillBash", "shell_id")):
        entry = agent()
        _probe(entry, 100.0)
        ctx = call_ctx("BashOutput", {"bash_id": "b1"}, entry=entry, now=110.0)  # type: ignore[arg-type]
        assert rule.running_task(ctx) == "background task b1"
        _call(entry, tool, {field: "b1"}, {"message": "Successfully killed shell: b1"}, 120.0, 0.2)
        ctx = call_ctx("BashOutput", {"bash_id": "b1"}, entry=entry, now=130.0)  # type: ignore[arg-type]
        assert rule.running_task(ctx) is None, tool
        # another task's stop leaves this one running
        other = agent()
        _probe(other, 100.0)
        _call(other, tool, {field: "b2"}, {"message": "Successfully killed shell: b2"}, 120.0, 0.2)
        ctx = call_ctx("BashOutput", {"bash_id": "b1"}, entry=other, now=130.0)  # type: ignore[arg-type]
        assert rule.running_task(ctx) == "background task b1"


def test_a_long_check_is_its_own_task_and_named_without_its_digest() -> None:
    """Checks that agree in their first 160 characters are two tasks when they differ later; the
    texts name one by its start and `…`."""
    long = "sleep 2 && curl -s 'https://api.example.com/v1/" + "x" * 150 + "?page={}'"
    one, two = (rule.task_of("Bash", {"command": long.format(n)}) for n in (1, 2))
    assert one != two and len(one) == len(two) == rule.MAX_KEY
    assert rule._what(one).startswith("curl -s 'https://api.example.com/v1/xx") and rule._what(one).endswith("x…")
    assert rule.task_of("BashOutput", {"bash_id": "b1"}) == "BashOutput:b1"
    assert rule.task_of("Bash", {"command": "sleep 2 && tail log # " + "y" * 1100}) is None  # no check


def test_polls_a_minute_apart_blocking_waits_and_finished_tasks_stay_free() -> None:
    slow = agent()
    assert [_probe(slow, 100.0 + 61 * n) for n in range(12)] == [None] * 12
    waiting = agent()
    assert [_probe(waiting, 100.0 + 31 * n, took=30.0) for n in range(12)] == [None] * 12
    finished = agent()
    done = {**RUNNING, "status": "completed"}
    assert [_probe(finished, 100.0 + 5 * n, response=done) for n in range(12)] == [None] * 12


def test_a_shell_probe_that_sleeps_then_reads_counts_as_a_poll() -> None:
    assert rule.task_of("Bash", {"command": "sleep 5 && tail -n 20 build.log"}) == "sh:tail -n 20 build.log"
    assert rule.task_of("Bash", {"command": "sleep 120 && tail build.log"}) is None  # waits long enough itself
    assert rule.task_of("Bash", {"command": "tail build.log"}) is None
    assert rule.task_of("TaskOutput", {"task_id": "t9", "block": True}) == "TaskOutput:t9"


def test_a_shell_check_run_past_the_budget_is_said_to_repeat_not_to_run_on() -> None:
    """`sleep 8 && docker compose ps` while a container starts, every 10 s: reminded past the
    budget and then denied, and the texts say the checks repeat, each a short wait and a look,
    not that a task still runs (no task was started: the guard does not know what it waits for)."""
    entry = agent()
    command = "sleep 8 && docker compose ps"
    got = [
        _call(entry, "Bash", {"command": command}, {"stdout": f"es  Up {8 * n} seconds (health: starting)", "stderr": ""},
              100.0 + 10 * n, 8.2)
        for n in range(9)
    ]
    remind = next(v for v in got if v is not None)
    assert (remind.action, remind.rule) == (Action.REMIND, Rule.POLL)  # type: ignore[attr-defined]
    assert "`docker compose ps` has been run" in remind.message and "still running" not in remind.message  # type: ignore[attr-defined]
    deny = got[-1]
    assert deny is not None and deny.action is Action.DENY and "each a short wait and a look" in deny.message  # type: ignore[attr-defined]
    assert "still running" not in deny.message  # type: ignore[attr-defined]


def test_a_prompt_starts_the_count_again() -> None:
    entry = agent()
    for n in range(6):
        _probe(entry, 100.0 + 10 * n)
    rule.reset(entry, "prompt")
    assert _probe(entry, 170.0) is None and "rules" in entry  # counted afresh from here


def _shell(entry: dict, command: str, now: float, out: str = "") -> object:  # type: ignore[type-arg]
    """One Bash call at `now` printing `out`."""
    return _call(entry, "Bash", {"command": command}, {"stdout": out, "stderr": "", "interrupted": False}, now, 0.3)


def test_a_background_job_outlives_a_prompt_and_its_repeated_probes_are_counted() -> None:
    entry = agent()
    _shell(entry, "nohup ./train.sh > train.log 2>&1 &", 100.0)
    rule.reset(entry, "prompt")  # "keep an eye on it": the next turn watches the same job
    got = [_shell(entry, "tail -3 train.log", 106.0 + 6 * n, f"epoch {n}") for n in range(8)]
    assert got[:6] == [None] * 6
    assert [(v.action, v.rule) for v in got[6:]] == [(Action.REMIND, Rule.POLL), (Action.DENY, Rule.POLL)]  # type: ignore[attr-defined]
    assert "the background job train.sh (its output in train.log)" in got[6].message  # type: ignore[attr-defined]
    assert "asking the same things again" in got[6].message and "finish sooner" not in got[6].message  # type: ignore[attr-defined]


def test_a_damaged_job_entry_is_read_as_a_new_run() -> None:
    entry = agent()
    _shell(entry, "nohup ./train.sh > train.log 2>&1 &", 100.0)
    rule.slots(entry)["polling"] = {"job:train.log\ntrain.sh": [0, 100.0, True, "junk", "junk"]}
    assert [_shell(entry, "tail -3 train.log", 106.0 + 6 * n, f"epoch {n}") for n in range(3)] == [None] * 3
    rule.reset(entry, "compaction")
    assert rule.slots(entry)["polling"]["job:train.log\ntrain.sh"][0] == 0


def test_a_job_is_named_by_its_program_not_its_operand() -> None:
    key = rule.launched("nohup bench/run_all.sh fast > /tmp/b.log 2>&1 &")[0]
    assert rule._what(key) == "the background job run_all.sh (its output in /tmp/b.log)"


def _batch(entry: dict, now: float, size: int) -> list[object]:  # type: ignore[type-arg]
    """`size` BashOutput probes of task b1 issued together at `now`, then their results."""
    pre = call_ctx("BashOutput", {"bash_id": "b1"}, entry=entry, now=now)  # type: ignore[arg-type]
    verdicts = [rule.on_call(pre) for _ in range(size)]
    for _ in range(size):
        ctx = result_ctx("BashOutput", {"bash_id": "b1"}, RUNNING, entry=entry, now=now)  # type: ignore[arg-type]
        ctx.agent["updated"] = now + 0.5
        rule.on_result(ctx._replace(call={**ctx.call, "t": now}))
    return verdicts


def test_batches_that_pass_the_budget_at_once_are_reminded_before_any_denial() -> None:
    entry = agent()
    got = [_batch(entry, 100.0 + 10 * n, size) for n, size in enumerate((1, 4, 3, 2, 1))]
    assert got[:3] == [[None], [None] * 4, [None] * 3]  # counts 0, 4, 7: past the budget of 5 at once
    assert [v and v.action for v in got[3]] == [Action.REMIND, None]  # type: ignore[attr-defined]
    assert [v and v.action for v in got[4]] == [Action.DENY]  # type: ignore[attr-defined]


def test_an_entry_written_by_an_older_version_is_reminded_then_denied() -> None:
    entry = agent()
    rule.slots(entry)["polling"] = {"BashOutput:b1": [5, 99.5, True]}  # the shape of 351db38
    reminded, denied = _probe(entry, 100.0), _probe(entry, 110.0)
    assert (reminded.action, denied.action) == (Action.REMIND, Action.DENY)  # type: ignore[attr-defined]


def _in(
    entry: dict, tool: str, tool_input: dict, out: object, now: float, cwd: str, after: str | None = None  # type: ignore[type-arg]
) -> object:
    """One call at `now` whose PreToolUse `cwd` is `cwd` (its result's `after`, default the same):
    its PreToolUse verdict, then its result."""
    pre = call_ctx(tool, tool_input, entry=entry, now=now)  # type: ignore[arg-type]
    verdict = rule.on_call(pre._replace(event=pre.event._replace(cwd=cwd)))
    if verdict is None or verdict.action is not Action.DENY:
        ctx = result_ctx(tool, tool_input, out, entry=entry, now=now)  # type: ignore[arg-type]
        ctx.agent["updated"] = now + 0.3
        rule.on_result(ctx._replace(call={**pre.call, **ctx.call, "t": now}, cwd=after or cwd))
    return verdict


def test_a_read_tool_on_the_job_log_probes_it_and_its_arguments_say_what_it_asks() -> None:
    entry, cwd = agent(), "/home/u/p"
    _in(entry, "Bash", {"command": "nohup python3 train.py > logs/train.log 2>&1 &"}, {"stdout": ""}, 100.0, cwd)
    tail = {"file_path": "/home/u/p/logs/train.log", "offset": 1, "limit": 20}
    paged = [_in(entry, "Read", {**tail, "offset": 1 + 20 * n}, f"step {n}", 106.0 + 6 * n, cwd) for n in range(10)]
    assert paged == [None] * 10  # reading a log part by part asks something new each time
    shell = {"command": "cd logs && tail -3 train.log"}
    got = [_in(entry, *(("Read", tail) if n % 2 else ("Bash", shell)), f"step {n}", 200.0 + 6 * n, cwd) for n in range(10)]
    assert got[:7] == [None] * 7
    assert [(v.action, v.rule) for v in got[7:]] == [(Action.REMIND, Rule.POLL)] + [(Action.DENY, Rule.POLL)] * 2  # type: ignore[attr-defined]
    assert "(its output in /home/u/p/logs/train.log)" in got[7].message  # type: ignore[attr-defined]


def test_a_read_tool_on_a_log_of_the_same_name_elsewhere_is_no_probe() -> None:
    entry, cwd = agent(), "/home/u/p"
    _in(entry, "Bash", {"command": "nohup python3 train.py > train.log 2>&1 &"}, {"stdout": ""}, 100.0, cwd)
    got = [_in(entry, "Read", {"file_path": "/home/u/other/train.log"}, f"step {n}", 106.0 + 6 * n, cwd) for n in range(10)]
    assert got == [None] * 10


def test_a_launch_after_a_relative_cd_is_read_from_the_folder_it_started_in() -> None:
    """Claude Code keeps its shell's folder: the result of `cd server` + a launch already gives
    `…/server` as its `cwd`; the launch is read from the folder noted at its PreToolUse."""
    entry, project, server = agent(), "/home/u/p", "/home/u/p/server"
    launch = {"command": "cd server\nnohup npm run dev > dev.log 2>&1 &\necho started"}
    _in(entry, "Bash", launch, {"stdout": "started"}, 100.0, project, after=server)
    probes = [("Bash", {"command": "tail -5 dev.log"}), ("Read", {"file_path": server + "/dev.log"})]
    got = [_in(entry, *probes[n % 2], f"compiling {n}", 106.0 + 6 * n, server) for n in range(10)]
    assert got[:7] == [None] * 7
    assert [(v.action, v.rule) for v in got[7:]] == [(Action.REMIND, Rule.POLL)] + [(Action.DENY, Rule.POLL)] * 2  # type: ignore[attr-defined]
