"""The polling rule's view of a shell job the agent put in the background (`rules/polling.py`):
what starts one, what probes it, what waits. The goldens `polling_*background_job*` pin the
decisions; these pin the reading of the command lines, look-alikes first."""

import pytest

from loopguard_hook.rules.polling import _probes, _waits, launched

BENCH = "nohup bench/run_all.sh > /tmp/bench.log 2>&1 & echo $!"


@pytest.mark.parametrize(
    ("command", "key"),
    [
        (BENCH, "job:/tmp/bench.log\nrun_all.sh"),
        ("python3 train.py >> out.log 2>&1 &", "job:out.log\ntrain.py"),
        ("npm run dev &>/tmp/dev.log &", "job:/tmp/dev.log\n"),
        ("setsid ./serve.sh >'/tmp/my server.log' 2>&1 &", "job:/tmp/my server.log\nserve.sh"),
        ("python -m http.server 8000 > /dev/null 2>&1 &", "job:\nhttp.server"),
    ],
)
def test_a_line_that_leaves_a_job_running_names_its_log_and_program(command: str, key: str) -> None:
    assert launched(command) == key


@pytest.mark.parametrize(
    "command",
    ["npm test && npm run build", "sleep 5 &", "echo a > /tmp/x.log", "make 2>&1 | tee build.log", "", "'unclosed &"],
)
def test_no_job_is_left_running(command: str) -> None:
    assert launched(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "tail -3 /tmp/bench.log",
        "grep -c DONE /tmp/bench.log",
        "pgrep -f run_all.sh",
        "ps aux | grep run_all | grep -v grep",
        "sleep 5 && tail -n 20 /tmp/bench.log",
        "tail -3 /tmp/bench.log; pgrep -f run_all.sh || echo gone",
    ],
)
def test_a_look_at_the_log_or_the_process_probes_the_job(command: str) -> None:
    assert _probes(command, launched(BENCH) or "")


@pytest.mark.parametrize(
    "command",
    [
        "tail -3 /tmp/other.log",  # another log
        "ps aux | grep node",  # another program
        "cat /tmp/bench.log > /tmp/copy.log",  # writes a file
        "tail -3 /tmp/bench.log && npm test",  # does other work too
        "until grep -q DONE /tmp/bench.log; do sleep 20; done",  # a loop that waits: the way out
        "python3 summarize.py /tmp/bench.log",  # works on the log
        "sed -i s/a/b/ /tmp/bench.log",
    ],
)
def test_other_work_is_no_probe(command: str) -> None:
    assert not _probes(command, launched(BENCH) or "")


@pytest.mark.parametrize(
    ("command", "waits"),
    [
        ("sleep 30 && tail -3 /tmp/bench.log", True),
        ("sleep 1m; tail -3 /tmp/bench.log", True),
        ("tail -f /tmp/bench.log", True),
        ("sleep 5 && tail -3 /tmp/bench.log", False),
        ("tail -3 /tmp/bench.log", False),
    ],
)
def test_a_probe_that_waits_on_its_own_is_no_rapid_one(command: str, waits: bool) -> None:
    assert _waits(command) is waits
