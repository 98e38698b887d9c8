"""Shell lines that leave a job running in the background, and the lines that look at it: how the
polling rule (`polling.py`) reads them. Pure functions of a command line; no state.

A job is known by its log (the file its standard output goes to) and by the names of its program
(`nohup bench/run_all.sh > /tmp/bench.log 2>&1 &`: `/tmp/bench.log`, `run_all.sh`). A probe of it
only reads that log (`tail`, `grep -c`, `wc -l`… naming the log as a word, `./log` and `log`
alike; not a log of the same name in another folder) or asks whether a process of that name runs
(`pgrep -f run_all.sh`, `ps aux | grep [r]un_all.sh`), printing, filtering, short sleeps, tests
of the log (`[ -f log ]`), a `cd` and output thrown away (`> /dev/null`) aside.

Where the folder a line runs in is known (the payload's `cwd`, on Codex with the call's `workdir`
applied), a relative log is read against it and against the line's own `cd`s, so `cd logs &&
tail train.log` probes the job started with `nohup … > logs/train.log &` and `cd /srv && tail
train.log` does not probe one started elsewhere. Unknown, a log is compared as the line spells it.
"""

import posixpath
import re
from typing import NamedTuple

from ..core.shellwords import (
    MAX_SHELL_CHARS,
    OPERATORS,
    QUOTE_MARKS,
    WRAPPERS,
    assignment,
    command_words,
    shell_words,
    sleep_seconds,
)

#: A job's task key starts so: `job:<its log>\n<its program's names, space-separated>`.
JOB = "job:"
#: A lone `&` that puts a command in the background (not `&&`, `2>&1`, `&>`, `|&`).
BACKGROUND = r"(?<![&>|])&(?![&>])"
#: A probe that took this long, or sleeps this long first (`sleep 30 &&`), waited for the task
#: itself: no rapid poll (`polling.py` judges both by it; one that follows a log waits too).
WAIT_SECONDS = 20.0
#: Programs that ask whether a process still runs (a probe when they name the job's program).
_PROCESS_CHECKS = frozenset({"pgrep", "pidof", "ps"})
#: Every program a probe may run: the process checks, readers of the log, and what prints,
#: counts, filters or waits a little.
_PROBE_PROGRAMS = _PROCESS_CHECKS | frozenset(
    {"cat", "tail", "head", "grep", "egrep", "fgrep", "rg", "wc", "less", "sed", "awk", "ls", "stat"}
    | {"echo", "printf", "sleep", "date", "true", "sort", "uniq", "cut", "tr"}
)
#: Commands that only test a file (`[ -f log ] && tail log`): a probe may run them (and a `cd`).
_ASIDE = frozenset({"[", "test"})
#: Words before a background job's program other than `WRAPPERS` (`setsid nohup x &`).
_DETACHERS = frozenset({"setsid", "disown", "stdbuf"})
#: Programs too common to name a job by (`python3 train.py` is known by `train.py`).
_GENERIC = frozenset(
    {"python", "python3", "node", "bash", "sh", "npm", "npx", "pnpm", "yarn", "bun", "uv", "java", "go", "run", "exec", "sleep"}
)
#: Shells that run a script given with `-c` (`-lc`, `-ec`: `_SCRIPT_FLAG`; `_script_of`).
_SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
_SCRIPT_FLAG = r"-[a-z]*c[a-z]*"
#: A shell's own words before a command of its script, and commands that set the scene only.
_SHELL_WORDS = frozenset({"for", "while", "until", "if", "elif", "then", "else", "do", "done", "fi", "!", "true", "false", ":"})
_SCENE = frozenset({"cd", "pushd", "export", "set", "source", ".", "trap", "ulimit", "umask"})
#: Builtins that only print: a job whose last command is one is known by its log alone.
_PRINTERS = frozenset({"echo", "printf"})
#: Commands that end, later in the same line, the jobs the line started (`a & b & wait`, `kill $!`).
_ENDERS = frozenset({"wait", "kill", "pkill", "killall"})
#: What sends a command's standard output to a file (`> log`, `&>>log`).
_REDIRECTS = ("&>>", "&>", ">>", ">", "1>>", "1>")
#: `shellwords`' quote marks, dropped from a word once the line is split.
_UNMARK = {1: None, 2: None, 3: None, 4: None}


def segments(command: str) -> list[tuple[list[str], bool]]:
    """A shell line's commands: each its words without quote marks or `VAR=value` prefixes, and
    whether an unquoted `&` puts it in the background. Empty words (`''`) are dropped, and so are
    the parentheses of a subshell (`(cd web && npm run dev) &`: `cd web`, then `npm run dev` in
    the background, `_parts`) and the braces of a group (`{ npm run dev; } > dev.log &`: `npm run
    dev > dev.log` in the background)."""
    return [(part.words, part.background) for part in _parts(command) if part.words]


class _Part(NamedTuple):
    """One command of a line (`_parts`): its words, whether it runs in the background, whether it
    opens a subshell, for each subshell it closes the index of its first word outside it
    (`(cd web && make) > build.log`: 1, `> build.log` is the line's), and the `case` arm it is
    in (a number of its own for each arm of the line, 0 for none): one arm of a case runs, not
    each in turn."""

    words: list[str]
    background: bool
    opens: bool
    shut: list[int]
    arm: int = 0


#: How a `case` arm ends: `;;`, or `;&` and `;;&` (bash: fall through, test the next pattern).
_ARM_ENDS = (";;&", ";;", ";&")


def _arm_end(word: str) -> list[str] | None:
    """A word of a `case` holding an unquoted `;`, split at it (`make;;b)`: `make`, `;`, `;`,
    `b)`; `;;&` and `;&` read as `;;`); None for a word with none."""
    at = word.find(";")
    while at > 0 and word[at - 1] in QUOTE_MARKS:
        at = word.find(";", at + 1)
    if at < 0:
        return None
    end = next((e for e in _ARM_ENDS if word.startswith(e, at)), ";")
    pieces = [word[:at], *([";", ";"] if end != ";" else [";"]), word[at + len(end) :]]
    return [p for p in pieces if p]


#: What may follow a subshell's `)` glued to it and end the command (`make)|tee x`, `make);`);
#: `&>` and `&>>` are redirects, not `&`.
_GLUED_OPERATORS = ("||", "&&", "|&", "|", ";", "&")


def _ended(head: str) -> str | None:
    """The operator glued to the end of a word before a subshell's `)` (`&` in `2>&1 &)`, `;` in
    `b;)`), unquoted and not part of a redirect (`2>&`, `|&`, `&&`); None for none."""
    for op in ("&", ";"):
        if head.endswith(op) and not head.endswith(("&&", ">&", "|&")) and not head[:-1].endswith(tuple(QUOTE_MARKS)):
            return op
    return None


def _parts(command: str) -> list[_Part]:
    """`segments` with the subshells they open and close: an unquoted `(` that starts a command
    (not `((` arithmetic), closed by the unquoted `)` that is not an expansion's (`$(…)`, `<(…)`,
    counted across words) nor quoted, where a word may go on past it (`make)>/dev/null`,
    `make)|tee x`: a redirect of the subshell, or an operator and the next command). A `cd` in
    a subshell moves only the subshell (`launched`, `probes`). A `case` statement's patterns
    (`a)`, `(b|c)`, after its `in` or a `;;`) are left out, their `)` closing nothing."""
    found: list[_Part] = []
    words: list[str] = []
    depth = pending = 0  # open subshells; an expansion's `(` not closed yet
    opens = False
    shut: list[int] = []
    outer: list[int] = []  # for each open `case … esac`, the arm it is in
    arm = arms = 0  # the arm the words are in; arms so far
    pattern = False  # the next word starts a case pattern
    semis = 0  # `;` in a row: `;;` ends a case's arm
    queue = [*command_words(command), ";"]
    queue.reverse()
    while queue:
        word = queue.pop()
        if outer and word not in OPERATORS and ";" in word:
            pieces = _arm_end(word)  # `make;;` is read as `make;` `;`, `a)make;;b)x` as one word
            if pieces is not None:
                queue.extend(reversed(pieces))
                continue
        if word in OPERATORS:
            semis = semis + 1 if word == ";" else 0
            pattern = pattern or bool(outer and semis == 2)
            if word == "&" and shut and shut[0] == 0 and found and found[-1].words and not found[-1].background:
                # `(npm run dev;) > dev.log &`: the group's last command is the job
                last = found.pop()
                shut = [*last.shut, *(len(last.words) + i for i in shut)]
                words, opens = [*last.words, *words], last.opens or opens
            if words or shut:
                found.append(_Part(words, word == "&", opens, shut, arm))
            words, opens, shut = [], False, []
            continue
        semis = 0
        if word.endswith(";}") and len(word) > 2 and not word[:-2].endswith(tuple(QUOTE_MARKS)):
            queue.extend(["}", ";", word[:-2]])  # `{ npm run dev;}`: the `;` ends the command, `}` the group
            continue
        if not words and word in ("{", "}"):
            # A brace group (`{ cd web; npm run dev; } > dev.log &`) is read as a subshell: sent
            # to the background it runs in one, and its redirect, past its `}`, is opened where
            # the line is outside it. Its `{` is no command; what follows its `}` (a redirect,
            # the `&`) is its last command's, as after a subshell's `)`.
            if word == "{":
                opens = True
            elif found and found[-1].words and not found[-1].background and found[-1].arm == arm:
                last = found.pop()
                words, opens, shut = list(last.words), last.opens, [*last.shut, len(last.words)]
            continue
        if outer and not words and (word == "esac" or word.startswith("esac") and word[4] in ")&;|>"):
            arm, pattern, word = outer.pop(), False, word[4:]  # what follows may close a subshell
        elif pattern and word.startswith("("):
            word = word[1:]  # the pattern's optional `(`
        if not words and not opens and not pattern and word.startswith("(") and not word.startswith("(("):
            word, depth, opens = word[1:], depth + 1, True
        cut = -1
        for at, ch in enumerate(word if "(" in word or ")" in word else ""):  # most words hold neither
            if ch not in "()" or (at and word[at - 1] in QUOTE_MARKS):
                continue
            if ch == "(":
                pending += 1
            elif pending:
                pending -= 1
            elif pattern:  # the pattern ends: what came before it is no command
                if word[at + 1 :]:
                    queue.append(word[at + 1 :])
                if opens or shut:  # a subshell opened before the `case` (`(case … in a) (cd d && …)`)
                    found.append(_Part([], False, opens, shut, arm))
                arms += 1
                word, words, pattern, opens, shut, arm = "", [], False, False, [], arms
                break
            elif depth:
                cut = at
                break
        else:
            if pattern:
                continue  # one word of a pattern (`a |`), the `)` to come
        ended = _ended(word[:cut]) if cut >= 0 else None
        if ended is not None:  # `./srv > log 2>&1 &)`: the `&` ends the command inside, then the `)` closes
            queue.extend([word[cut:], ended])
            word, cut = word[: cut - len(ended)], -1
        if cut >= 0:
            depth -= 1
            word, rest = word[:cut], word[cut + 1 :]
            glued = next((op for op in _GLUED_OPERATORS if rest.startswith(op) and not rest.startswith(("&>",))), None)
            if glued is not None:
                queue.extend(reversed([glued, rest[len(glued) :]] if rest[len(glued) :] else [glued]))
            elif rest:
                queue.append(rest)
        if words or not assignment(word):
            plain = word.translate(_UNMARK)
            if plain:
                words.append(plain)
        if cut >= 0:
            shut = [*shut, len(words)]
        if words == ["case"]:
            outer.append(arm)
        elif len(words) == 3 and words[0] == "case" and words[2] == "in":
            pattern = True
    return found


def _stdout_targets(words: list[str]) -> list[str]:
    """The files a command's standard output goes to (`> log`, `>>log`, `&> log`), in order."""
    targets = []
    for i, word in enumerate(words):
        for op in _REDIRECTS:
            if word == op:
                targets.append(words[i + 1] if i + 1 < len(words) else "")
            elif word.startswith(op) and len(word) > len(op) and word[len(op)] not in "&>":
                targets.append(word[len(op) :])
            else:
                continue
            break
    return targets


def _names(words: list[str]) -> list[str]:
    """The names a job's program is known by: the base names of its program and first operand,
    not a generic interpreter's, not a number, a redirect or a multi-word script."""
    targets = {i + 1 for i, w in enumerate(words) if w in _REDIRECTS}
    program = [
        w
        for i, w in enumerate(words)
        if i not in targets and w not in WRAPPERS and w not in _DETACHERS and not w.startswith("-") and ">" not in w
    ]
    if program and program[0] in _PRINTERS:
        return []  # the last line of a group sent whole to the background (`(…; echo DONE) > log &`)
    script = _script_of(words, program[0]) if program and posixpath.basename(program[0]) in _SHELLS else None
    if script is not None:
        return _script_names(script)
    names = _known_by(program[:2])
    if not names:  # a runner's words first (`uv run python train.py`, `bun run server.ts`): what it runs
        names = _known_by(_run_by(program))
    return names


def _run_by(program: list[str]) -> list[str]:
    """What a runner's line runs (`uv run --with rich python train.py`: `train.py`; `npm run dev
    -- -H 0.0.0.0`: `dev`): the word after the last generic word that one follows, since an
    option's value may sit between the runner and what it runs (`--env-file .env`, `--python
    3.12`); [] for none."""
    after = [
        program[i + 1]
        for i in range(len(program) - 1)
        if posixpath.basename(program[i]) in _GENERIC and posixpath.basename(program[i + 1]) not in _GENERIC
        and not _number(program[i + 1])
    ]
    return after[-1:]


def _known_by(words: list[str]) -> list[str]:
    """The base names of `words` that can name a job: not a generic interpreter's, not a
    number, an address or a port, not a multi-word script, not two letters or fewer."""
    names = [posixpath.basename(w.rstrip("/")) for w in words if not _number(w) and not any(c.isspace() for c in w)]
    return [n for n in names if len(n) > 2 and n not in _GENERIC]


def _number(word: str) -> bool:
    """Whether a word is a number, an address or a port (`8080`, `0.0.0.0`, `127.0.0.1:3000`)."""
    return word.replace(".", "").replace(":", "").isdigit()


def _script_of(words: list[str], shell: str) -> str | None:
    """The script a shell is given with `-c` (`-lc`, `-ec`: `_SCRIPT_FLAG`) among its own options,
    before its first operand (`bash train.sh -c cfg.yaml` runs a file: no script); None for none."""
    at = words.index(shell) + 1
    while at < len(words) and words[at].startswith("-"):
        if re.fullmatch(_SCRIPT_FLAG, words[at]):
            return words[at + 1] if at + 1 < len(words) else None
        at += 1
    return None


def _script_names(script: str) -> list[str]:
    """The names a job run as a shell's script is known by (`sh -c 'for i in $(seq 1 90); do …;
    done'`: `seq`): those of the last of its commands that has any (`_names`), read past the
    shell's own words (`for i in`, `do`, `while true`); a command that sets the scene (`cd`,
    `export`) has none. The last is the one the job runs on: a setup step before it (`pip install
    -r r.txt && python train.py`: `train.py`) ends first, and a process check of it that finds
    nothing says nothing of the job. Before, such a job had no name, and a `pgrep -f 'seq 1 90'`
    between reads of its log was other work (a new user's Claude Code session: 14 probes in 4 s,
    never counted)."""
    if len(script) >= MAX_SHELL_CHARS or shell_words(script) is None:
        return []
    for words, _ in reversed(segments(script)):
        words = [w.strip("$()`;") for w in words]
        if len(words) > 2 and words[0] == "for" and "in" in words:
            words = words[words.index("in") + 1 :]  # `for i in $(seq 1 90)`: what the list runs
        while words and words[0] in _SHELL_WORDS:
            words = words[1:]
        names = _names(words) if words and words[0] not in _SCENE else []
        if names:
            return names
    return []


def _moved(where: str | None, words: list[str]) -> str | None:
    """The folder a line runs in after a `cd`/`pushd` (`words`) from `where` ("" the line's
    start, None unknown: an absolute folder is known from anywhere); None for a `cd` it cannot
    follow (`cd -`, `cd` alone, `cd $DIR`)."""
    operands = [w for w in words[1:] if not w.startswith("-")]
    if len(operands) != 1 or operands[0].startswith("~") or "$" in operands[0]:
        return None
    if where is None and not posixpath.isabs(operands[0]):
        return None
    return posixpath.normpath(posixpath.join(where or "", operands[0]))


def same_log(word: str, log: str, where: str | None, moved: str | None) -> bool:
    """Whether a file word names the job log `log` (absolute when its folder was known at the
    launch): read against `where`, the folder the line runs in when known, or `moved`, where the
    line's `cd`s led from its start ("": none; None: somewhere it cannot follow)."""
    if not word or not log or word.startswith(("~", "$")):
        return False
    if posixpath.isabs(log):
        path = word if posixpath.isabs(word) else posixpath.join(where, word) if where else ""
        return bool(path) and posixpath.normpath(path) == log
    return moved is not None and posixpath.normpath(posixpath.join(moved, word)) == posixpath.normpath(log)


def launched(command: str, where: str | None = None) -> list[str]:
    """The task keys of the jobs a shell line leaves running in the background (`nohup x > log
    2>&1 &`: `job:log\\nx`): each job's log (its output redirected to a file, "" when none or
    `/dev/null`) and its program's names. No key when the line cannot be read whole (longer than
    `MAX_SHELL_CHARS`, an unclosed quote, a here-document), and none for a job the line waits for or
    kills before it ends (`a & b & wait`, `… & pytest; kill $!`); a restart (`pkill -f x; nohup x
    > log &`) leaves its new job. `where`, the folder the line starts in when known, makes a
    relative log absolute (the line's `cd`s followed)."""
    if len(command) >= MAX_SHELL_CHARS or "&" not in command or re.search(BACKGROUND, command) is None:
        return []
    if shell_words(command) is None:
        return []
    keys: list[str] = []
    outside: list[str | None] = []  # the folders outside the open subshells, where their `cd`s do not reach
    arm, before, kept = 0, where, 0  # a `case`: the arm, the folder the case started in, the jobs before the arm
    for words, background, opens, shut, in_arm in _parts(command):
        if in_arm != arm:  # only one arm runs: each starts where the case did, and no cd of one reaches past it
            before = where if not arm else before
            arm, where, kept = in_arm, before, len(keys)
        outside = [*outside, where] if opens else outside
        head = words[0] if words else ""
        if head in ("cd", "pushd"):
            where = _moved(where, words)
        elif _ends_jobs(words):
            # waits for or kills the jobs started before it (`pkill x; nohup x &` restarts one);
            # in a case's arm, only its own (`start) nohup ./srv & ;; stop) pkill srv ;;`)
            keys = keys[:kept] if arm else []
        elif background and words:
            # the group's own redirect, past its `)`, is read where the line is outside it
            after = outside[-len(shut)] if shut and len(outside) >= len(shut) else where
            logs = [(after, t) for t in _stdout_targets(words[shut[-1] :])] if shut else []
            folder, log = next(iter(logs), (where, next(iter(_stdout_targets(words)), "")))
            if log and not posixpath.isabs(log) and folder is not None:
                log = posixpath.normpath(posixpath.join(folder, log))
            log = "" if log.startswith("/dev/") else log
            names = _names(words[: shut[0]] if shut else words)
            if log or names:
                keys.append(f"{JOB}{log}\n{' '.join(names)}"[:240])
        for _ in shut:
            where = outside.pop() if outside else where
    return keys


def _ends_jobs(words: list[str]) -> bool:
    """Whether a command ends the line's jobs (`_ENDERS`), not only asks whether one runs (`kill
    -0 $!`, `kill -s 0 PID`: signal 0 is a check)."""
    if not words or words[0] not in _ENDERS:
        return False
    return not (words[1:2] == ["-0"] or words[1:3] in (["-s", "0"], ["-n", "0"]))


def _writes(words: list[str]) -> bool:
    """Whether a command of a probe writes: a redirect to a file other than `/dev/null`, or an
    in-place edit (`sed -i`, `perl -pi`)."""
    if words[0] in ("sed", "perl") and any(w.startswith(("-i", "--in-place")) or w == "-pi" for w in words):
        return True
    return any(target != "/dev/null" for target in _stdout_targets(words))


def _plain_name(word: str) -> set[str]:
    """The base names a pattern given to `pgrep` or `grep` names (`[r]un_all.sh`, `-f
    'python train.py'`: `run_all.sh`, `python`, `train.py`)."""
    return {posixpath.basename(piece) for piece in word.replace("[", "").replace("]", "").split()}


def probes(command: str, key: str, where: str | None = None) -> bool:
    """Whether a shell line run in `where` (None: unknown) only looks at the job `key` names:
    reads its log or asks whether its program runs, printing, filtering, short sleeps, file tests
    and a `cd` aside, and names the job at least once."""
    log, _, names = key[len(JOB) :].partition("\n")
    parts = _parts(command)
    checks = named = False
    moved: str | None = ""
    outside: list[tuple[str | None, str | None]] = []  # (where, moved) outside each open subshell
    for words, background, opens, shut, _ in parts:
        outside = [*outside, (where, moved)] if opens else outside
        head = words[0] if words else ""
        if words and (background or _writes(words)):
            return False
        if head in ("cd", "pushd"):
            where, moved = _moved(where, words), _moved(moved, words)
            if where is None and moved is None:
                return False  # a folder it cannot follow: the files it names are not known
            moved = None if moved is not None and posixpath.isabs(moved) else moved
        elif words and head not in _PROBE_PROGRAMS and head not in _ASIDE:
            return False
        elif words:
            checks = checks or head in _PROCESS_CHECKS
            named = named or bool(log) and any(same_log(w, log, where, moved) for w in words[1:])
        for _ in shut:
            where, moved = outside.pop() if outside else (where, moved)
    if named or not checks or not names:
        return named
    operands = {n for part in parts for w in part.words[1:] if not w.startswith("-") for n in _plain_name(w)}
    return not operands.isdisjoint(names.split())


def waits(command: str) -> bool:
    """Whether a shell line waits on its own (`sleep 30`, `tail -f`): no rapid probe."""
    for words, _ in segments(command):
        seconds = sleep_seconds(words[1]) if words[0] == "sleep" and len(words) > 1 else None
        if seconds is not None and seconds >= WAIT_SECONDS:
            return True
        if words[0] == "tail" and any(w in ("-f", "-F", "--follow") for w in words):
            return True
    return False


def checks_process_only(command: str) -> bool:
    """Whether a shell line's only question is whether a process runs (`pgrep -f x`): its
    failure then says the process is gone. Not `ps | grep x` (the grep may find itself) nor a
    line that answers otherwise on failure (`pgrep x || echo finished`)."""
    parts = segments(command)
    return len(parts) == 1 and parts[0][0][0] in ("pgrep", "pidof")
