"""The polling rule's view of a shell job the agent put in the background (`rules/shell_jobs.py`):
what starts one, what probes it, what waits. The goldens `polling_*background_job*` pin the
decisions; these pin the reading of the command lines, look-alikes first."""

import pytest

from loopguard_hook.rules.shell_jobs import checks_process_only, launched, probes, same_log, segments, waits

BENCH = "nohup bench/run_all.sh > /tmp/bench.log 2>&1 & echo $!"


@pytest.mark.parametrize(
    ("command", "keys"),
    [
        (BENCH, ["job:/tmp/bench.log\nrun_all.sh"]),
        ("python3 train.py >> out.log 2>&1 &", ["job:out.log\ntrain.py"]),
        ("npm run dev &>/tmp/dev.log &", ["job:/tmp/dev.log\ndev"]),  # a runner's words: what it runs
        ("nohup uv run python train.py > t.log 2>&1 &", ["job:t.log\ntrain.py"]),
        ("nohup npm run start -- -H 0.0.0.0 -p 8230 > w.log 2>&1 &", ["job:w.log\nstart"]),  # no address
        ("(cd ml && uv run train.py > train.log 2>&1) &", ["job:train.log\ntrain.py"]),  # a subshell (its folder unknown)
        ("( python3 app.py ) &", ["job:\napp.py"]),
        ("setsid ./serve.sh >'/tmp/my server.log' 2>&1 &", ["job:/tmp/my server.log\nserve.sh"]),
        ("python -m http.server 8000 > /dev/null 2>&1 &", ["job:\nhttp.server"]),
        ("nohup python3 serve.py --host '' > srv.log 2>&1 &", ["job:srv.log\nserve.py"]),  # an empty word
        ("nohup ./a > a.log 2>&1 & nohup ./b > b.log 2>&1 &", ["job:a.log\n", "job:b.log\n"]),
        ("pkill -f serve.py; nohup python3 serve.py > srv.log 2>&1 &", ["job:srv.log\nserve.py"]),  # a restart
    ],
)
def test_a_line_that_leaves_jobs_running_names_their_logs_and_programs(command: str, keys: list[str]) -> None:
    assert launched(command) == keys


@pytest.mark.parametrize(
    "command",
    [
        "npm test && npm run build",
        "sleep 100 &",
        "echo a > /tmp/x.log",
        "echo done > out.txt '&'",  # a quoted `&` is a word
        "make 2>&1 | tee build.log",
        "",
        "'unclosed &",
        "pytest tests/unit > unit.log 2>&1 & pytest tests/integration > integ.log 2>&1 & wait",
        "python server.py > server.log 2>&1 & sleep 2; pytest -q; kill $!",
        "make " + "x " * 2100 + "> build.log 2>&1 && echo built",  # too long to read whole
    ],
)
def test_no_job_is_left_running(command: str) -> None:
    assert launched(command) == []


@pytest.mark.parametrize(
    "command",
    [
        "tail -3 /tmp/bench.log",
        "grep -c DONE /tmp/bench.log",
        "tail -5 /tmp/bench.log | grep -i error",
        "pgrep -f run_all.sh",
        "pgrep -f run_all.sh > /dev/null && echo running || echo done",
        "ps aux | grep [r]un_all.sh",
        "ps aux | grep run_all.sh | grep -v grep",
        "sleep 5 && tail -n 20 /tmp/bench.log",
        "tail -3 /tmp/bench.log; pgrep -f run_all.sh || echo gone",
    ],
)
def test_a_look_at_the_log_or_the_process_probes_the_job(command: str) -> None:
    assert probes(command, launched(BENCH)[0])


@pytest.mark.parametrize(
    "command",
    [
        "tail -3 /tmp/other.log",  # another log
        "tail -3 /var/log/bench.log",  # a log of the same name elsewhere
        "ps aux | grep node",  # another program
        "pgrep -f run_all",  # another name
        "cat /tmp/bench.log > /tmp/copy.log",  # writes a file
        "tail -3 /tmp/bench.log && npm test",  # does other work too
        "until grep -q DONE /tmp/bench.log; do sleep 20; done",  # a loop that waits: the way out
        "python3 summarize.py /tmp/bench.log",  # works on the log
        "sed -i s/a/b/ /tmp/bench.log",
    ],
)
def test_other_work_is_no_probe(command: str) -> None:
    assert not probes(command, launched(BENCH)[0])


def test_a_relative_log_is_the_same_file_only_when_spelt_the_same_way() -> None:
    key = launched("nohup ./train.sh > train.log 2>&1 &")[0]
    assert probes("tail -2 ./train.log", key)
    assert not probes("cat /var/log/other/train.log", key)
    assert not probes("pgrep -f redis-server", launched("nohup ./server > app.log 2>&1 &")[0])


@pytest.mark.parametrize(
    ("command", "waiting"),
    [
        ("sleep 30 && tail -3 /tmp/bench.log", True),
        ("sleep 1m; tail -3 /tmp/bench.log", True),
        ("tail -f /tmp/bench.log", True),
        ("sleep 5 && tail -3 /tmp/bench.log", False),
        ("tail -3 /tmp/bench.log", False),
    ],
)
def test_a_probe_that_waits_on_its_own_is_no_rapid_one(command: str, waiting: bool) -> None:
    assert waits(command) is waiting


@pytest.mark.parametrize(
    ("command", "only"),
    [
        ("pgrep -f train.sh", True),
        ("pidof train", True),
        ("pgrep -f train.sh || echo finished", False),
        ("ps aux | grep x", False),
    ],
)
def test_only_a_bare_process_check_says_by_failing_that_the_job_ended(command: str, only: bool) -> None:
    assert checks_process_only(command) is only


def test_hostile_lines_are_read_without_error() -> None:
    for junk in ["\0 &", "& " * 5000, "x" * 5_000_000 + " &", "nohup ./x\0 > log &", "'' &", "> &"]:
        assert isinstance(launched(junk), list)
        probes(junk, "job:log\nx")
        waits(junk)


def test_a_log_is_read_against_the_folder_the_line_runs_in() -> None:
    key = launched("cd /srv/eq && nohup python3 train.py > logs/train.log 2>&1 &", "/home/u/p")[0]
    assert key == "job:/srv/eq/logs/train.log\ntrain.py"
    assert probes("tail -3 logs/train.log", key, "/srv/eq")
    assert probes("cd logs && tail -3 train.log", key, "/srv/eq")  # a `cd` is no other work
    assert probes("cd /srv/eq/logs; grep -c DONE ./train.log", key, None)
    assert probes("[ -f /srv/eq/logs/train.log ] && tail -1 /srv/eq/logs/train.log", key, None)
    assert not probes("tail -3 logs/train.log", key, "/home/u/p")  # a log of that name elsewhere
    assert not probes("cd /srv/other && tail -3 logs/train.log", key, "/srv/eq")
    assert not probes("cd $LOGS && tail -3 train.log", key, "/srv/eq")  # a folder it cannot follow
    assert not probes("cd logs && make && tail -3 train.log", key, "/srv/eq")


def test_a_log_launched_where_the_folder_was_unknown_is_compared_as_spelt() -> None:
    key = launched("nohup ./train.sh > out/train.log 2>&1 &")[0]
    assert key == "job:out/train.log\ntrain.sh"
    assert probes("tail -2 ./out/train.log", key, "/home/u/p")
    assert probes("cd out && tail -2 train.log", key, None)
    assert not probes("cd /home/u/p/out && tail -2 train.log", key, "/home/u/p")  # where `out` was is not known


def test_a_launch_after_a_cd_to_an_absolute_folder_has_an_absolute_log_wherever_it_started() -> None:
    assert launched("cd /srv/eq && nohup ./run.sh > run.log 2>&1 &") == ["job:/srv/eq/run.log\nrun.sh"]
    assert launched("cd eq && nohup ./run.sh > run.log 2>&1 &") == ["job:run.log\nrun.sh"]  # where `eq` is: unknown
    assert launched("cd eq && nohup ./run.sh > run.log 2>&1 &", "/home/u") == ["job:/home/u/eq/run.log\nrun.sh"]


def test_a_job_with_no_log_is_probed_by_no_file() -> None:
    key = launched("nohup ./serve.sh &")[0]
    assert key == "job:\nserve.sh"
    assert not same_log(".", "", "/home/u/p", "") and not same_log("./", "", None, "")
    assert not probes("ls .", key, "/home/u/p")


def test_braces_that_are_no_group_are_words() -> None:
    """A `{` or `}` that starts no command is an argument (`echo { a }`, `find -exec … {} +`),
    and a quoted `;}` ends nothing (`awk "{print;}" f > o &`)."""
    assert segments("echo { a }") == [(["echo", "{", "a", "}"], False)]
    assert launched('awk "{print;}" f > o &', "/p") == ["job:/p/o\nawk {print;}"]
    assert launched("find . -name '*.log' -exec gzip {} + > gz.log &", "/p") == ["job:/p/gz.log\nfind"]


def test_a_subshell_moves_its_own_folder_only() -> None:
    """`(cd web && npm run dev > dev.log) &`: the job runs in web/, its log is web/dev.log; a
    redirect past the `)` is the line's own folder's, and a later `cd` starts from there. The
    parentheses once stayed on the words (`(cd`, `app.py)`): the `cd` was not followed and the job
    was named `app.py)`, which no process check names."""
    assert launched("(cd web && npm run dev > dev.log 2>&1) &", "/p") == ["job:/p/web/dev.log\ndev"]
    assert launched("(cd web && make) > build.log 2>&1 &", "/p") == ["job:/p/build.log\nmake"]
    assert launched("(cd web && make ) > build.log 2>&1 &", "/p") == ["job:/p/build.log\nmake"]
    assert launched("(cd a && ./x > l1) & (cd b && ./y.sh > l2) &", "/p") == ["job:/p/a/l1\n", "job:/p/b/l2\ny.sh"]
    assert launched("((n++)); ./serve.sh > s.log &", "/p") == ["job:/p/s.log\nserve.sh"]  # arithmetic, no subshell
    key = launched("(cd ml && nohup python train.py > train.log 2>&1) &", "/p")[0]
    assert probes("tail -3 ml/train.log", key, "/p") and probes("pgrep -f train.py", key, "/p")
    assert not probes("tail -3 train.log", key, "/p")  # another folder's log of the same name
    assert probes("(cd ml && tail -3 train.log)", key, "/p")
    assert not probes("(cd ml && ls) && tail train.log", key, "/p")  # read outside the subshell


JOB_HERE = "nohup python train.py > train.log 2>&1 &"


@pytest.mark.parametrize(
    ("command", "key"),
    [
        # a `)` glued to what follows it closes the subshell all the same (rv72)
        ("(cd ml && make)>/dev/null 2>&1; " + JOB_HERE, "job:/p/train.log\ntrain.py"),
        ("(cd ml && make)|tail -1; " + JOB_HERE, "job:/p/train.log\ntrain.py"),
        ("(cd ml && make)&>/dev/null; " + JOB_HERE, "job:/p/train.log\ntrain.py"),
        ("(cd a && (cd b && make) && make) ; " + JOB_HERE, "job:/p/train.log\ntrain.py"),  # nested
        # a quoted `)`, or an expansion's, closes no subshell
        ('(cd ml && python train.py --note "v2)" > train.log 2>&1) &', "job:/p/ml/train.log\ntrain.py"),
        ("(cd ml && python train.py --sha $(git rev-parse HEAD) > train.log) &", "job:/p/ml/train.log\ntrain.py"),
        ("(./run_server.sh) > server.log 2>&1 &", "job:/p/server.log\nrun_server.sh"),  # one word
        ("( cd web ; ./serve.sh ) &", "job:\nserve.sh"),
        # the `&` glued to the `)`: the job is left running inside the subshell (br62)
        ("(nohup ./srv > s.log 2>&1 &)", "job:/p/s.log\nsrv"),
        ("cd api && (npm run dev > ../dev.log 2>&1 &)", "job:/p/dev.log\ndev"),
        ("(cd x && ./srv.sh > l &) ; tail l", "job:/p/x/l\nsrv.sh"),
        # a case pattern's `)` closes nothing, and the pattern is no command (rv74)
        ("(case $x in a) make;; b|c) ls;; esac; cd d; ./srv > s.log 2>&1) &", "job:/p/d/s.log\nsrv"),
        ("case $1 in start) ./srv > log 2>&1 & ;; esac", "job:/p/log\nsrv"),
        ("(case $x in (a) (cd d && ./srv > s.log &) ;; esac)", "job:/p/d/s.log\nsrv"),
        # a group ended by `;` is sent to the background whole: its last command is the job
        ("(npm run dev;) &", "job:\ndev"),
        ("(cd web; npm run dev > ../d.log 2>&1;) &", "job:/p/d.log\ndev"),
        # a brace group sent to the background runs as a subshell does: its `{` is no program,
        # its `}`'s redirect is opened outside it, its `;}` may be glued (br63)
        ("{ npm run dev; } > dev.log 2>&1 &", "job:/p/dev.log\ndev"),
        ("{ cd web; npm run dev;} > dev.log 2>&1 &", "job:/p/dev.log\ndev"),
        ("{ cd web && nohup ./srv > s.log 2>&1; } &", "job:/p/web/s.log\nsrv"),
        ("case $1 in a) { ./srv; } > s.log & ;; esac", "job:/p/s.log\nsrv"),
    ],
)
def test_a_subshell_ends_at_its_own_paren(command: str, key: str) -> None:
    assert launched(command, "/p") == [key]


@pytest.mark.parametrize(
    ("command", "keys"),
    [
        # one arm of a case runs: another arm's kill, or cd, is not this one's (rv75)
        ("case $x in start) nohup ./srv > s.log 2>&1 & ;; stop) pkill -f srv ;; esac", ["job:/p/s.log\nsrv"]),
        ("case $x in build) cd web && npm run build ;; *) npm run dev > dev.log 2>&1 & ;; esac", ["job:/p/dev.log\ndev"]),
        ("case $x in a) cd web && npm run dev > dev.log 2>&1 & ;; esac", ["job:/p/web/dev.log\ndev"]),
        ("case $x in a) nohup ./srv > s.log & ;; esac; pkill srv", []),
        # signal 0 only asks whether the job runs (br63)
        ("nohup ./srv > s.log 2>&1 & sleep 1; kill -0 $! && echo started", ["job:/p/s.log\nsrv"]),
        ("nohup ./srv > s.log 2>&1 & kill -s 0 $!", ["job:/p/s.log\nsrv"]),
        ("nohup ./srv > s.log 2>&1 & kill $!", []),
        # every spelling of an arm's end, glued or not
        ("case $x in a) make ;;& b) nohup ./srv > s.log & ;; esac", ["job:/p/s.log\nsrv"]),
        ("case $x in a) make ;& b) nohup ./srv > s.log & ;; esac", ["job:/p/s.log\nsrv"]),
        ("(case $x in a) make ;;b) cd d && ./srv > s.log & ;; esac)", ["job:/p/d/s.log\nsrv"]),
        ("case $x in a)make;;b)nohup ./srv > s.log &;;esac", ["job:/p/s.log\nsrv"]),
        # `esac` is no command, and a group's redirect past its `;)` is the job's
        ("(case $1 in dev) npm run dev > dev.log 2>&1 ;; esac;) &", ["job:/p/dev.log\ndev"]),
        ("(npm run dev;) > dev.log 2>&1 &", ["job:/p/dev.log\ndev"]),
        ("bash -c 'case $1 in start) nohup ./srv > s.log 2>&1 ;; esac' > run.log 2>&1 &", ["job:/p/run.log\nsrv"]),
    ],
)
def test_a_case_runs_one_of_its_arms(command: str, keys: list[str]) -> None:
    assert launched(command, "/p") == keys


@pytest.mark.parametrize(
    ("command", "names"),
    [
        ("uv run --env-file .env python app.py > app.log &", "app.py"),  # not the option's value (rv72)
        ("uv run --with rich python train.py &", "train.py"),
        ("uv run --python 3.12 python train.py &", "train.py"),
        ("uv run train.py --mode run &", "train.py"),
        ("npm run dev -- -H 0.0.0.0 > d.log &", "dev"),
        ("bun run server.ts &", "server.ts"),
        ("python3 train.py &", "train.py"),
    ],
)
def test_a_runner_is_known_by_what_it_runs(command: str, names: str) -> None:
    [key] = launched(command)
    assert key.partition("\n")[2] == names


def test_a_group_ending_in_a_printer_is_known_by_its_log() -> None:
    """`(for …; do echo step; sleep 1; done; echo BUILD OK) > build.log &`: the texts named such a
    job "echo" (a new user's finding); its log alone names it."""
    assert launched("(for i in 1 2 3; do echo step $i; sleep 1; done; echo BUILD OK) > build.log 2>&1 &") == ["job:build.log\n"]
    assert launched("nohup python train.py > train.log 2>&1 &") == ["job:train.log\ntrain.py"]


@pytest.mark.parametrize(
    "command, names",
    [
        ("nohup sh -c 'for i in $(seq 1 90); do echo step $i; sleep 1; done; echo DONE' > b.log 2>&1 &", "seq"),
        ("nohup bash -c \"python3 train.py --epochs 3\" > t.log 2>&1 &", "train.py"),
        ("nohup sh -c 'cd docs/_build && python3 -m http.server 8000' > d.log 2>&1 &", "http.server"),
        ("bash -c 'while true; do ./poll.sh; sleep 5; done' > p.log &", "poll.sh"),
        ("nohup bash -c 'pip install -r r.txt && python train.py' > t.log 2>&1 &", "train.py"),
        ("nohup bash train.sh -c configs/base.yaml > t.log 2>&1 &", "train.sh"),
        ("/bin/bash -c 'make build && ./bin/server' > s.log 2>&1 &", "server"),
        ("nohup bash -lc 'python train.py' > t.log 2>&1 &", "train.py"),
        ("bash run.sh > r.log 2>&1 &", "run.sh"),
        ("uv run pytest -n 8 > pytest.log 2>&1 &", "pytest"),  # what the runner runs (rv68: not any process)
        ("sh -c 'echo started; sleep 600' > s.log &", ""),
    ],
)
def test_a_job_run_as_a_shells_script_is_known_by_the_programs_it_runs(command: str, names: str) -> None:
    [key] = launched(command, "/w")
    assert key.partition("\n")[2] == names
    assert probes("pgrep -f 'seq 1 90'", key, "/w") is (names == "seq")
    assert not probes("ps -C postgres --no-headers | wc -l", key, "/w")
