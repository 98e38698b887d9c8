"""Shell command lines in a canonical spelling, so that spacing and quoting style do not split a
call's signature (`signature.call_key`); the command a shell call runs (`shell_command`), and
whether it only reads (`reads_only`; `powershell_reads_only` for a PowerShell script, which Codex
runs on Windows). Pure; no imports beyond `re`.

`grep -rn "x"  src/`, `grep -rn 'x' src/` and `grep  -rn x src/ ` are one command to the shell:
blank runs between words are one separator and quotes around plain text mean nothing. Blanks
inside quotes are part of the argument (`"def  main"` is not `"def main"`), and characters the
shell expands or treats as operators keep a mark of their quoting (`'$HOME'` is not `$HOME`).
"""

import posixpath
import re
from typing import Any

#: Tools whose `command`/`cmd` argument is a shell command line (Claude Code `Bash`, Codex
#: `Bash`/`exec_command`/`shell`/`local_shell`, DSH `bash`, Gemini CLI `run_shell_command`).
SHELL_TOOLS = frozenset({"Bash", "bash", "exec_command", "shell", "shell_command", "local_shell", "run_shell_command"})
#: Factory Droid's `Execute` (0.215.0) and Cursor's `Shell` (its documented tool names).
SHELL_TOOLS |= {"Execute", "Shell"}
#: Claude Code's `PowerShell` tool (2.1.x on Windows: `{"command", "description", "timeout"}`, public transcripts).
SHELL_TOOLS |= {"PowerShell"}
SHELL_KEYS = ("command", "cmd")
#: Longer command lines are compared as given: tokenising costs time on every PreToolUse.
MAX_SHELL_CHARS = 4096
#: A shell edit in place of a file the command names (`sed -i`, `sed -i.bak`, `gsed -e … -i`,
#: `perl -pi -e`): a write no redirect shows.
#: Perl editing in place: `-i` among its switches, not `-I` (a folder to include), whose folder
#: may come as the next word (`perl -I lib -pi -e … a.py`); `-M` likewise takes a module.
PERL_IN_PLACE = r"perl\s+(?:-[IM]\s+[^\s-]\S*\s+|-\w+\s+)*-[a-z0-9]*i"
IN_PLACE = r"\b(?:sed|gsed)\s+(?:-[^\s]*\s+)*-i|\b" + PERL_IN_PLACE

# One shell word piece at a time: a single-quoted string, a double-quoted string, a backslash
# escape (a backslash before a newline joins two lines), a run of plain characters, or a run of
# blanks (a newline is a command separator).
_SHELL_TOKEN = r"""(?s)'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^\s'"\\]+|[ \t]+|\n|."""
# Characters whose meaning depends on quoting (expansion, globbing, operators): they keep a mark
# of the quoting they came in, so `'$HOME'` and `"$HOME"` and `a*` and `'a*'` stay distinct.
_SHELL_SPECIAL = frozenset("$`*?[]{}~!|&;<>()#=\\\n")
#: The marks `shell_words` puts before a special character that was single-quoted, double-quoted
#: or escaped (a reader of `command_words` tells a quoted `;`, `(` or `)` apart by them).
QUOTE_MARKS = frozenset("\x01\x03\x04")


def _quote_marked(text: str, mark: str) -> str:
    if _SHELL_SPECIAL.isdisjoint(text):
        return text
    return "".join(mark + ch if ch in _SHELL_SPECIAL else ch for ch in text)


def shell_words(command: str) -> str | None:
    """`command` with the spelling the shell ignores removed: blank runs between words collapse
    to one separator, leading and trailing blanks go, and quotes around text with no special
    character are dropped (`grep "x"  src/` = `grep 'x' src/` = `grep x src/`). Blanks inside
    quotes are kept, a backslash-newline joins two lines, and a comment (`# …` where a word would
    start, to the end of its line; in a line with `$( … )`, backquotes, `${ … }` or `$'…'`, whose
    nested quotes this reading does not follow, only a comment that starts its line) goes. None
    when the line does not tokenise (an unclosed quote), is a here-document (its body is
    whitespace-sensitive), or is longer than `MAX_SHELL_CHARS`."""
    if len(command) > MAX_SHELL_CHARS or "<<" in command:
        return None
    if "'" not in command and '"' not in command and "\\" not in command and "#" not in command:
        return "\0".join(re.findall(r"\n|[^ \t\n]+", command))  # no quoting: the words as they are
    words: list[str] = []
    word: list[str] = []
    token = re.compile(_SHELL_TOKEN)  # from `re`'s cache after the first call
    # Quotes nest inside `$( … )`, backquotes, `${ … }` and `$'…'`, which this reading does not
    # follow (`"$(grep " # x" f)"`): in a line with any of them, only a `#` that starts its line
    # is taken for a comment (a `case` pattern's `-h)` closes no `$(`: counting is no help).
    nested = "$(" in command or "`" in command or "${" in command or "$'" in command
    at = 0
    while at < len(command):
        if not word and command[at] == "#" and (not nested or not command[command.rfind("\n", 0, at) + 1 : at].strip()):
            end = command.find("\n", at)  # a comment, quotes in it and all (`# don't`)
            at = end if end >= 0 else len(command)
            continue
        match = token.match(command, at)
        if match is None:  # cannot happen: `.` matches any one character
            return None
        piece, at = match.group(), match.end()
        first = piece[0]
        if piece == "\\\n":
            continue  # a line continuation: the two lines are one
        if first in " \t":
            if word:
                words.append("".join(word))
                word = []
            continue
        if first == "'":
            if len(piece) < 2 or piece[-1] != "'":
                return None
            word.append(_quote_marked(piece[1:-1], "\x01") or "\x02")
        elif first == '"':
            if len(piece) < 2 or piece[-1] != '"':
                return None
            text = piece[1:-1]
            if "\\\n" in text:  # a line continuation inside double quotes (not `\\` before a newline)
                text = re.sub(r"\\([\s\S])", lambda m: "" if m.group(1) == "\n" else m.group(0), text)
            word.append(_quote_marked(text, "\x03") or "\x02")
        elif first == "\\" and len(piece) == 2:
            word.append(piece[1] if piece[1] not in _SHELL_SPECIAL else "\x04" + piece[1])
        elif piece == "\n":
            if word:
                words.append("".join(word))
                word = []
            words.append("\n")
        else:
            if first in "'\"\\":
                return None  # an unclosed quote or a trailing backslash
            word.append(piece)
    if word:
        words.append("".join(word))
    return "\0".join(words)  # not a blank: `"a b"` (one word) is not `a b` (two)


#: Leading commands that only set the scene (`cd repo && make`): the command is what follows.
SCENE = frozenset({"cd", "pushd", "export", "source", ".", "set", "ulimit", "umask"})
#: Words before the program a command runs (`sudo make`, `nohup python3 train.py`): not the program.
WRAPPERS = frozenset({"sudo", "env", "command", "exec", "time", "nohup", "timeout", "nice"})
#: The words that end a command in a line (`command_words` splits a glued `;` off).
OPERATORS = frozenset({"&&", "||", ";", "|", "&", "\n", "|&"})


def command_words(command: str) -> list[str]:
    """The words of a command line as `shell_words` spells them (quoted special characters
    keep their marks), a `;` glued to a word (`cd app; npm test`) split off, not a quoted or
    escaped one (`echo "done;"`, `find . -exec rm {} \\;`); split at blanks when the line does not
    tokenise."""
    spelled = shell_words(command[:4096])
    return _glued_apart(spelled.split("\0") if spelled is not None else command.split())


def _glued_apart(words: list[str]) -> list[str]:
    """`words` with a `;` glued to a word's end split off, not a quoted or escaped one."""
    return [part for w in words for part in ((w[:-1], ";") if len(w) > 1 and w[-1] == ";" and w[-2] not in QUOTE_MARKS else (w,))]


def assignment(word: str) -> bool:
    """A `NAME=value` word (not an option's `--name=value`, not a path's `a/b=c`)."""
    return "=" in word.split("/")[0] and not word.startswith("-")


def past_assignments(segment: list[str]) -> list[str]:
    """A command's words past its assignments (`CI=1 make all` → `make all`)."""
    return [w for w in segment if not assignment(w)]


def command_parts(command: str) -> tuple[list[list[str]], list[str], str, list[str]]:
    """A command line read once: the words of each scene-setting command before the first
    other one (`cd repo &&`, `export CI=1;`: `SCENE`), that command's words, the operator that
    ends it ("" at the end of the line), and the words of the command after that operator
    (`cat` in `git log | cat`). No such command: `(scene, [], "", [])`."""
    scene: list[list[str]] = []
    segment: list[str] = []
    words = command_words(command)
    for i, word in enumerate([*words, ""]):
        if word and word not in OPERATORS:
            segment.append(word)
            continue
        program = past_assignments(segment)
        if program and program[0] not in SCENE:
            after = words[i + 1 :]
            ends = next((k for k, w in enumerate(after) if w in OPERATORS), len(after))
            return scene, segment, word, after[:ends]
        if segment:
            scene.append(segment)
        segment = []
    return scene, [], "", []


def program_words(segment: list[str]) -> list[str]:
    """One command's words from its program on: past its assignments and wrappers (`CI=1 sudo
    make all` → `make all`: `WRAPPERS`)."""
    words = past_assignments(segment)
    while words and words[0] in WRAPPERS:
        words = words[1:]
    return words


def programs_of(command: str) -> list[str]:
    """The program each command of a line runs (`program_words`), lower case, by its name
    without its folder; a command of wrappers alone names none."""
    found: list[str] = []
    segment: list[str] = []
    for word in [*command_words(command[:1024]), ";"]:
        if word not in OPERATORS:
            segment.append(word)
            continue
        words = program_words(segment)
        if words:
            found.append(words[0].rsplit("/", 1)[-1].lower())
        segment = []
    return found


def shell_normal(tool_name: str, tool_input: Any) -> Any:
    """`tool_input` with its shell command line in `shell_words` form (shell tools only)."""
    if tool_name not in SHELL_TOOLS or not isinstance(tool_input, dict):
        return tool_input
    for key in SHELL_KEYS:
        command = tool_input.get(key)
        if isinstance(command, str):
            normal = shell_words(command)
            if normal is not None and normal != command:
                return {**tool_input, key: normal}
            return tool_input
    return tool_input


def shell_command(tool: str, tool_input: Any, limit: int = 4096) -> str | None:
    """The command a shell tool's call runs (`SHELL_TOOLS`, under one of `SHELL_KEYS`), without
    the comment and blank lines it starts with (the shell skips them: `# check 3⏎sleep 45 && gh
    pr checks` sleeps first), cut to `limit` characters; None for another tool or no command text."""
    if tool not in SHELL_TOOLS or not isinstance(tool_input, dict):
        return None
    command = next((v for k in SHELL_KEYS if isinstance(v := tool_input.get(k), str)), None)
    if command is not None and command.lstrip().startswith("#"):
        command = re.sub(_COMMENT_LINES, "", command, count=1)
    return command[:limit] if command is not None else None


#: The comment and blank lines a command line starts with.
_COMMENT_LINES = r"\A(?:[ \t]*(?:#[^\n]*)?\n)+"


#: Commands that print the words they are given, or nothing.
_PRINTERS = frozenset({"echo", "printf", "true", ":"})
#: A line whose first command (past comment lines) is a printer.
_PRINTER_FIRST = r"\s*(?:#[^\n]*\n\s*)*(?:echo|printf|true|:)(?:\s|;|\Z)"
#: What runs one command after another in a line (a pipe or `&` makes another program's input).
_SEQUENCE = frozenset({"&&", "||", ";", "\n"})
#: Characters that, unquoted, make a word more than text (expansion, globbing, redirection, an
#: operator glued to a word); `$` and a backquote expand inside double quotes too.
_MORE_THAN_TEXT = frozenset("$`<>|&;(){}*?[]~")


def prints_only(command: str) -> bool:
    """Whether a shell line only prints words it spells out, or nothing: every command in it
    `echo`, `printf`, `true` or `:`, run one after another, with no expansion, substitution,
    glob, redirect, pipe or background, nor a `printf` conversion (`true`, `echo "All set."`,
    `printf 'done\\n'; true`; not `printf '%x\\n' 48879`).
    Such a call does nothing and says nothing the agent did not write itself. False for a line
    `shell_words` cannot read whole (an unclosed quote, a here-document, longer than
    `MAX_SHELL_CHARS`)."""
    if re.match(_PRINTER_FIRST, command) is None:
        return False  # the cheap look first: most lines start with another program
    if not QUOTE_MARKS.isdisjoint(command):
        return False  # `shell_words`' own marks in the line: its reading cannot be trusted
    spelled = shell_words(command)
    if not spelled:
        return False
    printed = formats = False
    start = True
    for word in _glued_apart(spelled.split("\0")):  # a glued `;` ends its command (`printf 'done'; true`)
        if word in _SEQUENCE:
            start = True
            continue
        if start:
            if word not in _PRINTERS:
                return False
            printed, start, formats = True, False, word == "printf"
            continue
        if formats and "%" in word:
            return False  # `printf '%x' 48879`, `printf '%(%s)T'`: it computes or reads the clock
        for i, ch in enumerate(word):
            mark = word[i - 1] if i else ""
            quoted = mark in ("\x01", "\x04") or (mark == "\x03" and ch not in "$`")
            if ch in _MORE_THAN_TEXT and not quoted:
                return False
    return printed


#: A shell command that first sleeps, then checks: `sleep 45 && gh pr checks 412`, `sleep 2m; tail log`,
#: also after a `cd` into the project (`cd /w/api && sleep 45 && gh pr checks 412`).
_SLEEP_FIRST = r"(?a)\A\s*(?:cd\s+[^\s;&|]+\s*(?:&&|;)\s*)?sleep\s+(\d+(?:\.\d+)?[smh]?)\s*(?:&&|;)"
#: A `sleep` duration: a number with an optional unit (`45`, `2.5s`, `2m`, `1h`).
_DURATION = r"(?a)(\d+(?:\.\d+)?)([smh]?)"

#: A target or script whose name says it checks on something rather than runs work (`_TEST_OR_BUILD`).
_NO_STATUS = r"(?![^\s]*(?i:status|wait|watch|poll|deploy|rollout|health|ready|alive))"
#: A test run or a package build named as such: it repeats its work whatever it waited for
#: (`sleep 30 && npm test`, or `sleep 30` then `npm test`, with nothing changed is a loop), so no
#: wait before it makes it a poll (`sleeps_first`, `reruns_work`). A make, gradle or just target
#: named for testing or building, not any (`make rollout-status`, `npm run build:status`), nor
#: `go run`, `cargo run`; a Gradle task of a module (`:app:test`) or spelt in camel case
#: (`testDebugUnitTest`, `assembleRelease`) too, and `check` tasks (`make check`, `:app:check`,
#: `check-types`) but those named for a status, a wait or a health probe (`check-health`).
_TEST_OR_BUILD = (
    r"\s*(?:(?:python3?|uv\s+run|poetry\s+run)\s+-m\s+)?(?:pytest|tox|nox|jest|vitest|mocha|ctest"
    r"|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?" + _NO_STATUS + r"(?:test|build|lint|check|typecheck)"
    r"|npx\s+(?:jest|vitest|tsc|playwright)"
    r"|cargo\s+(?:test|build|check|clippy|nextest)|go\s+(?:test|build|vet)|tsc"
    r"|(?:g?make|just|gradle|(?:\./)?gradlew)(?:\s+-C\s+\S+)?(?:\s+-\S+)*\s+" + _NO_STATUS
    + r":?(?:[\w.]+[-_:])*(?:tests?|unit|build|all|lint|check|assemble)(?:[A-Z][\w.]*)?(?:[-_:][\w.]+)*(?=\s|$)"
    r"|g?make\s*$|(?:\./)?mvnw?\s+(?:\S+\s+)*(?:test|verify|package)|bazel\s+(?:test|build)|dotnet\s+(?:test|build))\b"
)


def reruns_work(tool: str, tool_input: Any) -> bool:
    """Whether a shell call runs a test suite or a build (`_TEST_OR_BUILD`): it repeats its work
    whatever it waited for, so a wait of its own before it (`sleep 30`, then `npm test`) makes it
    no poll."""
    return runs_tests_or_build(shell_command(tool, tool_input, 256) or "")


def runs_tests_or_build(command: str) -> bool:
    """Whether a command (a line, or one pipeline of it) starts with a test run or a build
    (`_TEST_OR_BUILD`: `pytest …`, `npm test`, `./gradlew :app:test`)."""
    return re.match(_TEST_OR_BUILD, command) is not None


def sleep_then(command: str) -> tuple[float, str] | None:
    """A shell command that first sleeps, then runs something: `(seconds, the rest)`
    (`sleep 45 && gh pr checks 412`: `(45.0, "gh pr checks 412")`; `sleep 2m; tail log`: 120
    seconds), or None (no sleep first, or nothing after it)."""
    found = re.match(_SLEEP_FIRST, command)
    rest = command[found.end() :].strip() if found is not None else ""
    if found is None or not rest:
        return None
    seconds = sleep_seconds(found.group(1))
    return (seconds, rest) if seconds is not None else None


def sleep_seconds(word: str) -> float | None:
    """The seconds a `sleep` operand stands for (`45`: 45.0, `2m`: 120.0), or None for another word."""
    found = re.fullmatch(_DURATION, word)
    return float(found.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[found.group(2)] if found else None


#: A shell command that does nothing but wait (`sleep 30`, `sleep 2m;`).
_ONLY_SLEEP = r"(?a)\A\s*sleep\s+(\d+(?:\.\d+)?[smh]?)\s*;?\s*\Z"


def only_sleeps(tool: str, tool_input: Any) -> float:
    """The seconds a shell call that does nothing but sleep waits (`sleep 30`: 30.0, `sleep 2m`:
    120.0); 0.0 for any other call."""
    found = re.match(_ONLY_SLEEP, shell_command(tool, tool_input, 256) or "")
    return (sleep_seconds(found.group(1)) or 0.0) if found is not None else 0.0


def sleeps_first(tool: str, tool_input: Any) -> float:
    """The seconds a shell call sleeps before the rest of its command runs (`sleep 45 && gh pr
    checks`: 45.0; `sleep 2m; …`: 120.0); 0.0 for any other call, and for a test run or a build
    after the sleep (`_TEST_OR_BUILD`)."""
    found = sleep_then(shell_command(tool, tool_input, 256) or "")
    if found is None or runs_tests_or_build(found[1]):
        return 0.0
    return found[0]


#: Programs that only read, print or list: a command made of nothing else changes no file. A
#: conservative approximation of Claude Code's own allowlist of read-only commands (it runs
#: such Bash calls in parallel): unsure means "may write".
_READ_ONLY_COMMANDS = frozenset(
    {
        "cat",
        "head",
        "tail",
        "ls",
        "pwd",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "wc",
        "stat",
        "file",
        "du",
        "df",
        "which",
        "whoami",
        "id",
        "date",
        "uname",
        "tree",
        "diff",
        "cmp",
        "sort",
        "uniq",
        "cut",
        "jq",
        "echo",
        "printf",
        "cd",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "test",
        "true",
        "false",
        "nl",
        "od",
        "hexdump",
        "md5sum",
        "sha256sum",
        "printenv",
        "env",
        "type",
        "less",
        "more",
        "column",
    }
)
_READ_ONLY_GIT = frozenset(
    {
        "status",
        "log",
        "diff",
        "show",
        "rev-parse",
        "ls-files",
        "grep",
        "blame",
        "describe",
        "shortlog",
        "cat-file",
        "ls-tree",
        "reflog",
    }
)
# Patterns are compiled at first use (`re` caches them): the hook path compiles none at import.
_SEGMENT_SPLIT = r"&&|\|\||&(?!>)|[;|\n]"
_REDIRECT = r">|\$\(|`|<\("
#: Redirections that write no file: a descriptor copy, the null device (`$null`: PowerShell's).
_HARMLESS_REDIRECT = r"\d?>&\d|&?\d?>>?\s*(?:/dev/null|\$null\b)"


def _env_program(words: list[str]) -> list[str]:
    """The words of the program `env` runs after its options and `VAR=value` settings (none:
    `env -i` alone prints the environment, a read)."""
    while words and (words[0].startswith("-") or "=" in words[0]):
        takes_value = words[0] in ("-u", "--unset", "-C", "--chdir")
        words = words[2:] if takes_value else words[1:]
    return words


#: A quoted word whose text the shell runs nothing in: single-quoted, or double-quoted with no
#: `$(`, backtick or backslash (a `|`, `;` or `>` in it is a pattern's, not the shell's).
_INERT_QUOTED = r"'[^']*'|\"[^\"`\\$]*(?:\$(?!\()[^\"`\\$]*)*\""


def reads_only(command: str) -> bool:
    """True when a shell command line looks read-only: every part of its pipelines and lists runs
    a reading program (`_READ_ONLY_COMMANDS`, git's reading subcommands, `find` without actions,
    `sed -n` without `-i`) and nothing goes into a file or runs a substitution. Quoted text the
    shell runs nothing in is a word (`rg -n "def f|return" app.py` is one search)."""
    if "\\'" not in command and '\\"' not in command:  # an escaped quote: where words end is not told
        command = re.sub(_INERT_QUOTED, "''", command)
    command = re.sub(_HARMLESS_REDIRECT, "", command)
    if re.search(_REDIRECT, command):
        return False
    for segment in re.split(_SEGMENT_SPLIT, command):
        words = segment.split()
        while words and "=" in words[0] and not words[0].startswith("="):
            words.pop(0)  # VAR=value prefixes
        if words and words[0] == "env" and len(words) > 1:
            words = _env_program(words[1:])  # `env VAR=1 prog`: the program it runs
        if not words:
            continue
        head = words[0]
        if head == "git":
            sub = next((w for w in words[1:] if not w.startswith("-")), "")
            if sub not in _READ_ONLY_GIT:
                return False
        elif head == "find":
            if any(w in ("-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint", "-fprintf", "-fls") for w in words):
                return False
        elif head == "sed":
            if "-n" not in words or any(w.startswith("-i") or w.startswith("--in-place") for w in words):
                return False
        elif head in ("sort", "tree"):
            if any(w.startswith(("-o", "--output")) for w in words[1:]):
                return False  # `sort -o FILE`, `tree -o FILE` write it
        elif head == "uniq":
            if len([w for w in words[1:] if not w.startswith("-")]) > 1:
                return False  # `uniq IN OUT` writes OUT
        elif head not in _READ_ONLY_COMMANDS:
            return False
    return True


#: A PowerShell script run through `powershell -Command` / `pwsh -c`: its body.
_POWERSHELL = r"(?is)\A\s*(?:powershell|pwsh)(?:\.exe)?(?:\s+-(?!c\b|command\b)\w+)*\s+-(?:c|command)\s+(.*)\Z"
#: PowerShell text that runs nothing: a single-quoted string (`''` inside), a double-quoted one
#: with no `$(` subexpression and at most one backtick (an escape there, `"`n"`; two would run a
#: command in a POSIX shell: `"`rm x`"`; `\` is a plain character).
_PS_INERT = r"'(?:[^']|'')*'|\"[^\"`$]*(?:\$(?!\()[^\"`$]*)*(?:`[^`][^\"`$]*(?:\$(?!\()[^\"`$]*)*)?\""
#: Where a PowerShell command may start: a statement, a pipeline stage, a block, a group.
_PS_SPLIT = r"&&|\|\||[;|\n{}()]"
#: Redirects to nowhere (`2>$null`, `2>&1`, `*>$null`): any other `>` writes a file.
_PS_HARMLESS_REDIRECT = r"[1-6*]>\s*(?:\$null\b|&1)"
#: What makes a script more than reads, wherever it stands: a `>` into a file, a leftover quote
#: (a string with a subexpression, a here-string), `&` (the call operator), a property set
#: (`(Get-Item f).IsReadOnly = $false`), a method that writes or runs (`.Delete(`,
#: `.WriteLine(`, `.ForEach('Delete')`, `.'Delete'()`), or `ForEach-Object` given a method's
#: name (`gci *.tmp | % Delete`).
_PS_NOT_READ = (
    r"(?i)[\"'>]|(?<!&)&(?!&)|\.\w+\s*[-+*/]?=(?!=)"
    r"|\.(?:Write|Save|Delete|MoveTo|CopyTo|Create|Open|Append|Start|Kill|Invoke|Execute|Set|ForEach|Where)\w*\s*\("
    r"|\.\x00\s*\("
    r"|(?:^|[\s|;{])(?:%|foreach|ForEach-Object)\s+(?:-\w+\s+)?(?![{($-])\S"
)
#: Static .NET calls that only read (`[IO.File]::ReadAllText(`, `[Text.Encoding]::UTF8`): any
#: other `::` call may write (`[IO.File]::WriteAllText(`).
_PS_STATIC_READ = (
    r"(?i)::(?:Read\w*|Exists|Get\w*|Combine|Join|Equals|Format|IsNullOrEmpty|IsNullOrWhiteSpace|UTF8|ASCII"
    r"|Unicode|Default|Match(?:es)?|Escape|Split|Parse|TryParse|Abs|Max|Min|Round|Floor|Ceiling|Now|UtcNow|Compare|ToString)\b"
)
#: Commands that read or shape text and change no file: `Get-*` and `Test-*` (by PowerShell's
#: naming rule, they change nothing), the pipeline's filters and formatters, their aliases, the
#: language's keywords. Names a POSIX shell has too (`cat`, `ls`, `sort`, `echo`) are left to
#: `reads_only`.
_PS_READ_COMMANDS = (
    r"(?i)(?:Get-\w+|Test-\w+|Select-(?:String|Object)|Where-Object|ForEach-Object|Sort-Object|Group-Object"
    r"|Measure-Object|Compare-Object|Format-\w+|Out-(?:String|Host|Null|Default)|Write-(?:Output|Host)"
    r"|ConvertFrom-\w+|ConvertTo-(?:Json|Csv|Xml)|Resolve-Path|Split-Path|Join-Path|gc|gci|gi|sls|select|where"
    r"|foreach|measure|fl|ft|%|\?|if|elseif|else|for|while|do|switch|in|return|break|continue)"
)


#: What may follow a variable or a string that a PowerShell statement starts with: `++`/`--`
#: alone, a member, an index, an arithmetic sign, a range, a named operator (`-f`, `-replace`,
#: `-ge`...), nothing. Not a path or a program's options: a POSIX shell runs `$HOME/bin/fmt`,
#: `$PY -m black .`, `"$VENV/bin/python" x.py`.
_PS_OPERAND_TAIL = (
    r"(?:\s*(?:\+\+|--)\s*|\s*(?:[.\[,+*%<]|/(?=[\s\d$(])|-(?![a-zA-Z-])|(?i:in)\b"
    r"|(?i:-[ci]?(?:eq|ne|gt|ge|lt|le|like|notlike|match|notmatch|contains|notcontains|in|notin|replace|split)"
    r"|-(?:f|join|isnot|is|as|and|or|xor|not|band|bor|bxor|bnot|shl|shr))\b).*)?"
)


def only_reads(command: str) -> bool:
    """Whether a shell call's command only reads, as a POSIX shell's line (`reads_only`) or as a
    PowerShell script (`powershell_reads_only`: Codex on Windows runs its commands so)."""
    return reads_only(command) or powershell_reads_only(command)


def powershell_reads_only(script: str) -> bool:
    """True when a PowerShell script looks read-only: every command in it (`_PS_SPLIT`) is a
    reading cmdlet or keyword (`_PS_READ_COMMANDS`), an expression (a string, a number, a
    variable set to or used in one, a .NET type's reading call: `_PS_STATIC_READ`) or a program
    `reads_only` takes for a read, and nothing in it writes (`_PS_NOT_READ`).

    Codex on Windows runs a shell call's command as a PowerShell script (corpus rollouts of
    2025-11 and 2026-07; `powershell -Command …` wrapped around it in others, read here too):
    `$i=1; Get-Content f | ForEach-Object { '{0}: {1}' -f $i, $_; $i++ }` reads;
    `(Get-Content f) -replace 'a','b' | Set-Content f` does not. Sound for a POSIX shell's
    line too: a variable followed by a bare word (`$PY app.py`), a path (`/bin/rm`), `!`, `.`
    are not reads."""
    if len(script) > MAX_SHELL_CHARS:
        return False
    wrapped = re.match(_POWERSHELL, script)
    if wrapped is not None:
        script = wrapped.group(1).strip()
        if len(script) > 1 and script[0] == script[-1] == '"':
            script = script[1:-1]
        elif re.fullmatch(r"'(?:[^']|'')*'", script):  # one single-quoted string: the script, `''` a quote
            script = script[1:-1].replace("''", "'")
    text = re.sub(_PS_HARMLESS_REDIRECT, "", re.sub(_PS_INERT, "''", script)).replace("''", "\x00")
    if re.search(_PS_NOT_READ, text) or "::" in re.sub(_PS_STATIC_READ, "", text):
        return False
    return all(_ps_reads(piece.strip()) for piece in re.split(_PS_SPLIT, text))


def _ps_reads(piece: str) -> bool:
    """Whether one PowerShell command (a piece of `powershell_reads_only`'s script, its strings
    each a NUL) only reads."""
    while True:
        assigned = re.match(r"\$(?:\w+:)?\w+(?:\[[^\]]*\])?\s*[-+*/]?=(?!=)\s*", piece)
        if assigned is None:
            break
        piece = piece[assigned.end() :]  # `$x = <command>`: the command is judged
    if piece.startswith(("$", "\x00")):  # a variable or a string, then an operator, an index, a member, nothing
        return re.fullmatch(r"(?s)(?:\$(?:\w+:)?\w+|\x00)" + _PS_OPERAND_TAIL, piece) is not None
    if not piece or piece[0] in "-+,[@" or re.match(r"\d[\d.]*(?:[\s,]|$)|\.(?:\d|\w+\s*$)|!\s*$", piece):
        return True  # an operator or argument after a group, a number, a member, `!(`
    if piece.startswith("!"):
        return _ps_reads(piece[1:].strip())
    return re.fullmatch(_PS_READ_COMMANDS, piece.split(None, 1)[0]) is not None or reads_only(piece.replace("\x00", "''"))


def normal_folder(folder: str) -> str:
    """A folder as compared: `/w/app/`, `/w/app/.` and `/w/./app` are `/w/app` (Codex joins
    `workdir` to the turn's folder without normalising it); a Windows folder (`C:\\w\\app\\`,
    `c:/w/app`) by its backslash form without a trailing separator, in any case."""
    if "\\" in folder or folder[1:3] in (":\\", ":/"):
        return folder.replace("/", "\\").rstrip("\\").casefold()
    return posixpath.normpath(folder)
