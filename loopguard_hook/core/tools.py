"""Tool classification by the configured name lists: tracked, read-like, mutation, paths. Pure."""

import ntpath
import posixpath
import re
from typing import Any

from ..config.settings import Config
from .shellwords import (
    IN_PLACE,
    PERL_IN_PLACE,
    SHELL_KEYS,
    SHELL_TOOLS,
    programs_of,
    reads_only,
    runs_tests_or_build,
    shell_command,
)
from .standin import is_stand_in


def matches(name: str, patterns: tuple[str, ...]) -> bool:
    """True when `name` matches one pattern; `*` is the only wildcard (any run of characters).

    Patterns come from config files, a project's too: matching takes time linear in the name
    for each literal piece, never the exponential backtracking of `*a*a*a…` as a regex.
    """
    for pattern in patterns:
        if "*" not in pattern:
            if name == pattern:
                return True
        elif _wildcard(name, pattern.split("*")):
            return True
    return False


def _wildcard(name: str, pieces: list[str]) -> bool:
    """`pieces` of a pattern split at `*` (at least two): the first must start `name`, the last
    end it, the middle ones appear in order between, each as early as possible."""
    first, last = pieces[0], pieces[-1]
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    at, end = len(first), len(name) - len(last)
    for piece in pieces[1:-1]:
        found = name.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def is_tracked(tool: str, config: Config) -> bool:
    """Tracked by the repeat counters: in `include` (empty = all) and not in `exclude`."""
    if config.include and not matches(tool, config.include):
        return False
    return not matches(tool, config.exclude)


#: Tools that only search or list, beside `Config.read_tools`: Claude Code's Glob, Grep and LS
#: (2.1.332); Gemini CLI's and Qwen Code's glob, grep_search and list_directory (captured
#: payloads, shared/payloads); a web search.
SEARCH_TOOLS = frozenset(
    {"Glob", "Grep", "LS", "glob", "grep", "grep_search", "search_file_content", "list_directory", "WebSearch", "web_search"}
)


def only_looks(tool: str, config: Config) -> bool:
    """Whether `tool` only reads or searches: in `read_tools` (or read-like, `is_read_tool`) or
    `SEARCH_TOOLS`. A tool neither names (an MCP editor, a user's own) is not taken to look."""
    return tool in SEARCH_TOOLS or is_read_tool(tool, config)


def is_read_tool(tool: str, config: Config) -> bool:
    """A read-like tool for the same-path cap (breaker profile: names, or any name containing "read")."""
    return matches(tool, config.read_tools) or (config.match_read_by_substring and "read" in tool.lower())


def path_of(tool_input: Any, config: Config) -> str | None:
    """The path a read-like call targets, found through `path_keys`."""
    if isinstance(tool_input, dict):
        for key in config.path_keys:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value
    return None


_PATCH_PATH = r"^\*\*\* (?:Add|Update|Delete) File: (.+)$"
#: A program that applies a unified diff to the files it names (`git apply`, `patch -p1`), and a
#: diff's line naming the file it changes (`+++ b/src/client.py`; git's `b/` is left off, as
#: `git apply` and `patch -p1` leave it off, and the name as written is kept too).
_APPLIES_DIFF = r"(?m)(?:^|[;&|(])\s*(?:git\s+apply|patch)(?:\s|$)"
#: Options with which they may change nothing in the files (`git apply --check`, `--cached`,
#: `--allow-empty`, `--exclude`, `patch --dry-run`, `-f`) or undo an earlier apply (`-R`,
#: `--reverse`): such a success is no edit to credit unseen (`applies_diff`). `patch -N` fails on
#: a patch applied already: its success is an apply.
_ONLY_LOOKS = (
    r"\s(?:--(?:check|stat|numstat|summary|dry-run|cached|allow-empty|exclude|include|reverse|force)\b"
    r"|-[A-Za-z]*[Rf])"
)
_DIFF_PATH = r"^\+\+\+ (?:b/)?([^\s]+)"


def target_of(tool_input: Any, config: Config) -> str | None:
    """The file a call works on, by its last two path components (`ui/vite.config.ts`: the
    same file named absolutely or from the project root; `packages/a/package.json` and
    `packages/b/package.json` are two files): the path a file tool names
    (`path_keys`), or the first file of a patch (`*** Update File: …`, Codex's `apply_patch`,
    also run through its shell as `apply_patch <<'EOF'`). None when the call names no file."""
    path = named_path(tool_input, config)
    return short_path(path) if path else None


def named_path(tool_input: Any, config: Config) -> str | None:
    """The file a call works on as the call names it (`target_of` before it is shortened): the
    path a file tool names, or the first file of a patch; what a text may tell the model to read.
    None when the call names no file."""
    path = path_of(tool_input, config)
    if path is None and isinstance(tool_input, dict):
        command = tool_input.get("command")
        if isinstance(command, str) and "*** " in command:
            found = re.search(_PATCH_PATH, command, re.M)
            path = found.group(1).strip() if found else None
    return path


def short_path(path: str) -> str:
    """A file's path by its last two components, as `target_of` names files (`/w/ui/vite.config.ts`,
    `./ui/vite.config.ts` and `ui\\vite.config.ts` are `ui/vite.config.ts`)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts[-2:]) or path


def resolve_path(name: str, cwd: str | None, dirs: tuple[str, ...] = ()) -> str | None:
    """`name` as an absolute POSIX path, from the folder `cwd` and the `cd` steps `dirs`, or
    None when it cannot be told (no folder, a `~` or a variable, a Windows path)."""
    steps = [*dirs, name]
    if any(s.startswith(("~", "$")) or "\\" in s or ":" in s for s in steps):
        return None
    base = cwd if cwd and cwd.startswith("/") else None
    for step in steps:
        if step.startswith("/"):
            base = step
        elif base is None:
            return None
        else:
            base = posixpath.join(base, step)
    return posixpath.normpath(base) if base is not None else None


def place_of(tool: str, path: str | None, cwd: str | None) -> str | None:
    """Where the file a call of `tool` works on is (`where_is`): `path`, the file a file tool or a
    patch tool names (`named_path`, given by the caller, who reads it once), in the session's folder
    `cwd`, for the rules that key files by their last two components (`target_of`), which two files
    may share (`packages/api/src/index.ts`, `packages/web/src/index.ts`). None for no path, for a
    shell command (its paths are its shell's, which a `cd` may have moved, and `git apply` reads a
    diff's from the repository's top), or a path that cannot be resolved (a relative one and no
    folder, `~`, a variable)."""
    return where_is(path, cwd) if path and tool not in SHELL_TOOLS else None


#: A Windows path from a drive's root (`C:\\w\\a.py`, `c:/w/a.py`).
_DRIVE = r"[A-Za-z]:[\\/]"
#: macOS's folders that are links into /private (`/tmp/x` is `/private/tmp/x`).
_PRIVATE = ("/private/tmp/", "/private/var/", "/private/etc/")


def where_is(path: str, cwd: str | None) -> str | None:
    """`path` resolved in the folder `cwd` (`resolve_path`; a Windows path by its drive, also
    against a Windows `cwd`), written one way for comparing: lower case (macOS and Windows
    disks ignore case), forward slashes, one leading slash, macOS's `/private/tmp` as `/tmp`.
    Two spellings that still differ are taken for two files (a link elsewhere is not followed).
    None when it cannot be resolved."""
    if re.match(_DRIVE, path) or (cwd and re.match(_DRIVE, cwd) and not path.startswith(("~", "$", "/"))):
        if ":" in path[2:] or path.startswith(("~", "$")):
            return None
        joined = ntpath.normpath(ntpath.join(cwd or "", path))
        return joined.replace("\\", "/").lower() if re.match(_DRIVE, joined) else None
    resolved = resolve_path(path, cwd)
    if resolved is None:
        return None
    resolved = "/" + resolved.lstrip("/")
    if resolved.startswith(_PRIVATE):
        resolved = resolved[len("/private") :]
    return resolved.lower()


def mutated_paths(tool: str, tool_input: Any, config: Config) -> list[str] | None:
    """Paths a mutation touched; None when unknown (then every read cap is reset)."""
    if isinstance(tool_input, dict):
        command = tool_input.get("command")
        if tool == "apply_patch" and isinstance(command, str):
            if is_stand_in(command):  # a patch of megabytes: only its ends are at hand (bigtext.py)
                return None
            return [p.strip() for p in re.findall(_PATCH_PATH, command, re.M)]
        path = path_of(tool_input, config)
        if path:
            return [path]
    return None


def is_noop_mutation(tool: str, tool_input: Any, response: Any) -> bool:
    """A Claude Code Write whose `originalFile` already equals the content it wrote changed
    nothing: the result's `content` (Claude Code may write other text than the model sent:
    corpus session 1fb5e404, a memory file given an `originSessionId:` line), else the input's
    (2.1.332 PostToolUse payload: `{"type": "update", "filePath", "content", "structuredPatch",
    "originalFile", "userModified"}`)."""
    if tool == "Write" and isinstance(tool_input, dict) and isinstance(response, dict):
        written = response.get("content")
        written = written if isinstance(written, str) else tool_input.get("content")
        return isinstance(written, str) and response.get("originalFile") == written
    return False


#: Tools that run another agent, which may change any file (Claude Code `Task`/`Agent`, Codex
#: `spawn_agent`, DSH `task`, Gemini CLI `invoke_agent`).
AGENT_TOOLS = frozenset({"Task", "Agent", "spawn_agent", "task", "invoke_agent"})

#: Tools whose result is the user's answer to the agent's question: Claude Code's
#: `AskUserQuestion`, whose `tool_response` holds the `answers` (2.1.x transcripts'
#: `toolUseResult`, corpus session f5fec4ab: `{"questions": […], "answers": {"…": "i upgraded my
#: apollo plan"}}`; the model reads `User has answered your questions: …`).
USER_QUESTION_TOOLS = frozenset({"AskUserQuestion"})


def user_answered(tool: str, response: Any) -> bool:
    """Whether a call's result is the user's answer to the agent's question (`answers` given):
    a user's word in the middle of the turn, which may change what the calls before it found."""
    if tool not in USER_QUESTION_TOOLS:
        return False
    if isinstance(response, dict):
        return bool(response.get("answers"))
    return isinstance(response, str) and response.lstrip().startswith("User has answered")


#: A shell command that writes a file it names (followed by the file's name to be one). A
#: redirect into a descriptor (`2>&1`, `>&2`) or a device (`2>/dev/null`) writes no file, and
#: `=>`, `->` are code (`node -e 'x => x'`).
SHELL_WRITES = (
    r"\bsed\s+(?:-[^\s]*\s+)*-i|\b" + PERL_IN_PLACE
    + r"|(?<![=>-])>>?\s*(?!>|/dev/|&[\d-])['\"]?\S|\btee\b|\bsponge\b|write_text\s*\("
    r"|\.write\s*\(|open\s*\([^)]*['\"][wa]\+?['\"]|\bwriteFile(?:Sync)?\s*\(|\bFile\.write\s*\(|\btruncate\b|\bdd\b[^|]*\bof="
    r"|\bgit\s+(?:checkout|restore|stash|reset|apply|am|cherry-pick|revert|mv|rm)\b|\b(?:mv|cp|rm|touch|chmod)\s"
    r"|(?i:\b(?:set-content|out-file|add-content)\b)"  # PowerShell's (Claude Code's PowerShell tool)
)
#: The most paths a call is judged by (`change_paths`).
MAX_CHANGE_PATHS = 8
#: A word of a shell command that may be a file's path: no option, variable, glob or URL; a
#: script's assignment to a name (`f='src/a.js'`) names its value.
_PATH_WORD = r"""(?:\w+=)?['"]?([\w.~/][\w.@+,%~/-]*)['"]?"""
#: A word of a shell command that is a pattern of files' paths the shell expands (`*`, `?`), with an
#: extension or a folder: `calc*.py`, `src/*/handler.go`; no quote, variable or brace.
GLOB_WORD_CHARS = "*?"
_GLOB_WORD = r"[\w.~/-]*[*?][\w.*?~/-]*(?:\.\w{1,8}|/[\w.*?~-]+)"
#: How a file's name ends: an extension (`change_paths`).
_EXTENSION = r"\.\w{1,8}$"


def change_paths(tool: str, tool_input: Any, config: Config) -> tuple[str, ...]:
    """The paths a call means to change, as it names them (at most `MAX_CHANGE_PATHS`): the
    file of a mutation tool (`mutating_tools`), the files of a patch (`*** Update File: …`,
    also sent through the shell), or, for a shell command that writes (`SHELL_WRITES`), every
    word of it that looks like a file's path (a word with a `/` or a `.` in it, not a call such
    as a script's `text.replace(`; the host layer keeps those that are files) and every pattern
    of paths the shell expands, unquoted (`calc*.py`: the host layer lists the files it matches). `()` for a call
    that changes nothing it names, or whose input is only a stand-in (a payload of megabytes)."""
    if not isinstance(tool_input, dict):
        return ()
    command = next((v for k in SHELL_KEYS if isinstance(v := tool_input.get(k), str)), None)
    if command is not None and "*** " in command:
        if is_stand_in(command):
            return ()
        return tuple(dict.fromkeys(p.strip() for p in re.findall(_PATCH_PATH, command[:65536], re.M)))[:MAX_CHANGE_PATHS]
    if matches(tool, config.mutating_tools):
        path = path_of(tool_input, config)
        return (path,) if path else ()
    if tool not in SHELL_TOOLS or command is None or is_stand_in(command):
        return ()
    diffed = diff_paths(command)
    if diffed is not None:
        return diffed[:MAX_CHANGE_PATHS]
    command = command[:4096]
    if not re.search(SHELL_WRITES, command):
        return ()
    named: dict[str, None] = {}
    for each in re.finditer(r"[^\s;&|<>(),]+", command):
        if command[each.end() : each.end() + 1] == "(":
            continue  # a call in a script (`text.replace(`), not a file
        found = re.fullmatch(_PATH_WORD, each.group())
        if found and ("/" in (path := found.group(1)) or "." in path.strip(".")) and "//" not in path:
            named[path] = None
            if len(named) == 4 * MAX_CHANGE_PATHS:
                break
    # A pattern the shell expands (`sed -i … calc*.py`), unquoted, outside any here-document: the
    # host layer lists what it names.
    unquoted = bare_line(command) if "*" in command or "?" in command else ""
    for each in re.finditer(r"[^\s;&|<>()]+", unquoted):
        if re.fullmatch(_GLOB_WORD, each.group()) and len(named) < 4 * MAX_CHANGE_PATHS:
            named[each.group()] = None
    # Names with a file's extension first: a sed script's pieces (`s/x`, `1/x`) must not crowd
    # out the file it edits.
    return tuple(sorted(named, key=lambda path: re.search(_EXTENSION, path) is None))[:MAX_CHANGE_PATHS]


def diff_paths(command: str) -> tuple[str, ...] | None:
    """The files a shell line's diff changes when the line applies one (its own `git apply` or
    `patch`, not a script's `patch = …` line): the `+++` lines' paths (`git apply <<'EOF'`,
    `patch -p1 <<'EOF'`), `()` for a diff read from a file (`git apply /tmp/fix.patch`: the line
    names no file it changes); None for a line that applies none. Asked of every shell call
    (`change_paths`, the target rule): a substring test comes before the parse."""
    head = command[:4096]
    if "apply" not in head and "patch" not in head or not re.search(_APPLIES_DIFF, _without_documents(head)):
        return None
    return tuple(dict.fromkeys(p for p in re.findall(_DIFF_PATH, command[:65536], re.M) if p != "/dev/null"))


#: How a patch in apply_patch's format begins (Codex's apply_patch input, or a shell command
#: carrying one: `apply_patch <<'EOF'`).
PATCH_MARK = "*** Begin Patch"


#: What a workspace snapshot (`HookEvent.workspace`) starts with when some file was judged by size
#: and mtime, not by content (`hosts/workspace.py`): a rewrite of the same bytes moves it.
WORKSPACE_BY_TIME = "~"
#: The programs of a line's in-place edits (`edits_only`).
_IN_PLACE_EDITORS = frozenset({"sed", "gsed", "perl"})
#: A loop's own words, with no program of their own (`for f in a.py $PWD/b.py`, `done`; `edits_only`).
_LOOP_WORDS = r"\s*(?:for\s+\w+\s+in(?:\s+[\w.~/*?'\\${},-]+)*|do|done)\s*"
#: An in-place edit that another program runs, on the files it finds or is given (`edits_only`):
#: `find . -name '*.py' -exec sed -i '' {} +` (its `\;` ends a pipeline of its own), `… | xargs
#: sed -i ''`, a loop's `do sed -i '' "$f"`. Quoted text emptied first; nothing into a file.
_WRAPPED_EDIT = (
    r"\s*(?:find\s[^>]*?-exec\s+|xargs\s+(?:-\S+\s+)*|do\s+)"
    r"(?:(?:sed|gsed)\s+(?:-\S*\s+)*-i|" + PERL_IN_PLACE + ")"
)
#: Where a line's pipelines end (`edits_only`; quoted text emptied first).
_PIPELINES = r"&&|\|\||;|\n|(?<![>&<|])&(?![&>])"
#: Programs that write what they are given into a file (`edits_only`): redirected into it, or
#: `tee` given it.
_WRITERS = frozenset({"echo", "printf", "cat", "tee"})
#: A redirect into a file (not a descriptor, not /dev/null), in a line whose quoted text was emptied.
_INTO_FILE = r"(?<![<>&\d])>>?\s*(?!&|/dev/)['\"]?[\w.~/]"
#: PowerShell's writers of a file, and what may feed them text in the same pipeline (lower case,
#: as `programs_of` gives them; a literal or a `$variable` too): `(Get-Content a.py) -replace 'x','y' |
#: Set-Content a.py`, `'LIMIT = 8' | Out-File config.py`.
_PS_WRITERS = frozenset({"set-content", "out-file", "add-content"})
_PS_TEXT = frozenset({"get-content", "(get-content", "write-output", "echo"})
#: Programs that only move, copy or remove the files they name (`edits_only`): `mv tmp.json
#: package.json` after a filter wrote it, `rm a.py.bak` after `sed -i.bak`, `cp a.py.orig a.py`.
_FILE_MOVERS = frozenset({"mv", "cp", "rm"})
#: Formatters that rewrite the files they are given where they are (`edits_only`): `sed -i … a.go
#: && gofmt -w a.go`; one that changes nothing leaves the digest as it was.
_FORMATTERS = frozenset(
    {"gofmt", "goimports", "black", "isort", "rustfmt", "clang-format", "prettier", "autopep8", "yapf", "shfmt"}
)
#: A formatter run through a tool of its own (`edits_only`): `ruff format a.py`, `npx prettier --write a.ts`.
_FORMATS = r"\s*(?:ruff\s+format|cargo\s+fmt|go\s+fmt|(?:npx\s+|pnpm\s+(?:exec\s+)?|yarn\s+)?prettier)\s"
#: Git putting files it is given back as a commit or the index holds them (`edits_only`): `git
#: checkout -- a.py`, `git checkout HEAD~1 -- a.py`, `git restore a.py`; never a switch of branch
#: (`git checkout main`: no `--`), which changes files the line does not name.
_GIT_RESTORES = r"\s*(?:\w+=\S*\s+)*git\s+(?:checkout\s+(?:[^\s-]\S*\s+)?--|restore)\s+(?:-[\w=~^/.@-]+\s+)*[^\s-]"
#: The interpreters whose inline scripts may be edits (`_script_edits`): Python's and Node's.
_INTERPRETER = r"(?:python[\d.]*|node)"
#: A here-document piped into an interpreter, in a line whose quoted text was emptied: `cat <<'EOF' | python3`.
_FED_SCRIPT = rf"\s*cat\s+<<\S*\s*\|\s*(?:[\w.~/-]*/)?{_INTERPRETER}(?:\s+-)?\s*$"
#: An interpreter given its script inline, in a line whose quoted text was emptied: `python3 -
#: <<''` (a here-document), `python -c ''`, `node -e ''`.
_INLINE_SCRIPT = rf"\s*(?:uv\s+run\s+)?(?:[\w.~/-]*/)?{_INTERPRETER}\s+(?:-(?:\s+[\w.~/-]+)*\s+)?(?:<<|-[ce]\s+'')"
#: What an inline script writes files with (`_script_edits`).
_SCRIPT_WRITES = (
    r"\.write(?:_text|_bytes)?\s*\(|\bopen\s*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*,\s*(?:mode\s*=\s*)?['\"][wax]b?\+?['\"]"
    r"|\bwriteFile(?:Sync)?\s*\(|\bFile\.write\s*\("
)
#: What makes an inline script more than an edit: it runs programs, tests or code it was not
#: given, or reaches the network (Node's `fetch`; Python's network modules are no allowed import).
_SCRIPT_RUNS = (
    r"\bsubprocess\b|\bos\s*\.\s*(?:system|popen|exec\w*|spawn\w*|fork)\b|\bpty\b|(?<![\w.])(?:exec|eval|system|spawn)\s*\("
    r"|child_process|\b(?:pytest|unittest|runpy|importlib|__import__)\b|(?<![\w.])(?:fetch|import)\s*\("
)
#: A script's string literals (Python's, triple-quoted too, and Node's template literals): text
#: it writes or compares, emptied before its code is judged (`_script_edits`).
_SCRIPT_STRINGS = r"'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`"
#: Modules an editing script may import (Python's `import x`/`from x import`, Node's `require('x')`
#: and `import … from 'x'`): anything else may run the project's own code.
_SCRIPT_MODULES = frozenset(
    {"pathlib", "re", "json", "os", "sys", "io", "textwrap", "glob", "fnmatch", "difflib", "tomllib", "string",
     "collections", "itertools", "csv", "shutil", "ast", "tokenize", "yaml", "toml", "tomli", "tomlkit", "configparser",
     "codecs", "unicodedata", "html", "copy", "functools", "operator", "typing", "dataclasses", "pprint", "math", "bisect",
     "fs", "path", "node:fs", "node:path", "fs/promises", "node:fs/promises"}
)
#: A module a script imports (`_script_edits`): Python's two forms and Node's two.
_SCRIPT_IMPORT = (
    r"(?:^|;)\s*(?:from\s+(\S+)\s+import|import\s+([^#;\n]+))"
    r"|\brequire\s*\(?\s*['\"]([^'\"]+)['\"]|^\s*import\b[^'\"\n]*\bfrom\s+['\"]([^'\"]+)['\"]"
)
#: A here-document's operator: its body runs up to the line that is its word.
_HEREDOC = r"<<-?[ \t]*(['\"]?)(\w+)\1"
#: Quoted text, emptied before a line is split (a `>` or `;` in a sed script is no operator).
_QUOTED_TEXT = r"'[^']*'|\"(?:[^\"\\]|\\.)*\""


def bare_line(command: str) -> str:
    """`command` without its here-documents' bodies and with its quoted text emptied (`''`):
    the words the shell runs, not the text it hands them (`sed -i 's|cd build|…|'` moves to no
    folder; a `cd` in a here-document's script is the script's)."""
    return re.sub(_QUOTED_TEXT, "''", _without_documents(command))


def _without_documents(command: str) -> str:
    """`command` without its here-documents' bodies (the lines up to each one's word): the
    commands after them stay (`cat > a <<EOF … EOF` then `pytest`)."""
    return _documents(command)[0]


def _documents(command: str) -> tuple[str, list[str]]:
    """`command` without its here-documents' bodies, and the bodies fed to an interpreter
    (their line runs one: `_INTERPRETER`), in order."""
    lines, kept, ending = command.split("\n"), [], None
    bodies: list[str] = []
    scripted = False
    for line in lines:
        if ending is not None:
            if line.strip() == ending:
                ending = None
            elif scripted:
                bodies[-1] += line + "\n"
            continue
        kept.append(line)
        found = re.search(_HEREDOC, line)
        ending = found.group(2) if found else None
        scripted = found is not None and re.search(rf"\b{_INTERPRETER}(?:\s|$)", line) is not None
        if scripted:
            bodies.append("")
    return "\n".join(kept), bodies


def _script_edits(command: str, bodies: list[str]) -> bool:
    """Whether every inline script of a line (here-documents' `bodies`, `-c`/`-e` texts of
    `command`) only edits files: it writes one (`_SCRIPT_WRITES`), runs nothing
    (`_SCRIPT_RUNS`) and imports only modules that read and write text (`_SCRIPT_MODULES`). A
    script that writes a file it names and changes it is then an edit, as `sed -i` is: `python -
    <<'PY'` with `Path("a.py").write_text(…)`, `node -e "fs.writeFileSync('a.js', …)"`."""
    inline = rf"\b{_INTERPRETER}\s+(?:-[^\sce]\S*\s+)*-[ce]\s+('[^']*'|\"(?:[^\"\\]|\\.)*\")"
    scripts = [*bodies, *(m.group(1)[1:-1] for m in re.finditer(inline, command))]
    if not scripts:
        return False
    for script in scripts:
        if not re.search(_SCRIPT_WRITES, script):
            return False
        code = re.sub(_SCRIPT_STRINGS, "''", script)  # the text it writes or compares is no code it runs
        if re.search(_SCRIPT_RUNS, code):
            return False
        names: list[str] = []
        for found in re.finditer(_SCRIPT_IMPORT, code, re.M):  # Python's, outside its strings
            if found.group(2) is not None:  # `import a.b as c, d  # why`: the first word of each part
                names += [part.split()[0] for part in found.group(2).split(",") if part.split()]
            elif found.group(1) is not None:
                names.append(found.group(1))
        for found in re.finditer(_SCRIPT_IMPORT, script, re.M):  # Node's, whose module is a string
            if found.group(3) or found.group(4):
                names.append(found.group(3) or found.group(4))
        if any(name.split(".")[0] not in _SCRIPT_MODULES for name in names):
            return False
    return True


def _text_in(program: str) -> bool:
    """Whether a part of a PowerShell pipeline only feeds its writer text: a writer, a reader
    (`_PS_TEXT`), a `$variable`, or a literal (no program: quoted text)."""
    return program in _PS_WRITERS or program in _PS_TEXT or program[:1] == "$" or not any(c.isalnum() for c in program)


def edits_only(tool: str, tool_input: Any) -> bool:
    """Whether a shell call only edits files and reads: a patch, or a line each of whose
    pipelines is an in-place edit (`sed -i`, `perl -pi`), text written into a file (`echo
    'LIMIT = 8' > config.py`, `cat > app.py <<'EOF'`, `… | tee a.py`: `_WRITERS`; PowerShell's
    `Set-Content`, `Out-File`: `_PS_WRITERS`), an inline script that only edits (`_script_edits`:
    `_INLINE_SCRIPT`, `_FED_SCRIPT`), a filter's output moved onto a file (`_moved_after`), a move,
    copy or removal (`_FILE_MOVERS`), a formatter (`_FORMATTERS`, `_FORMATS`) or files git puts back
    (`_GIT_RESTORES`) with no output into a file, a `cd`, or reads only (`shellwords.reads_only`:
    `git diff --stat`, `grep -n x a.py`), so that a change the workspace saw in the files it names
    is the edit's. A test run in the line names its log, which changes whatever the edit did
    (`sed -i … && pytest > test.log`, also after a here-document, or inside `$(…)`): not such a line."""
    command = shell_command(tool, tool_input)
    if command is None:
        return False
    if PATCH_MARK in command:
        return True
    whole = command
    command, bodies = _documents(command)
    if "$(" in command.replace("$(pwd)", "") or "`" in command:
        return False  # a substitution runs a program of its own (a test, into the file written); `pwd` only names the cwd
    command = re.sub(_QUOTED_TEXT, "''", command)
    pipelines = re.split(_PIPELINES, command)
    edits = False
    scripts: bool | None = None
    for at, pipeline in enumerate(pipelines):
        parts = [p for p in re.split(r"\|&?", pipeline) if p.strip()]
        if not parts:
            continue
        programs = [found[-1] if (found := programs_of(p)) else "" for p in parts]
        if programs == ["cd"] or re.fullmatch(_LOOP_WORDS, pipeline):
            continue
        last = parts[-1]
        if (
            (len(parts) > 1) == (programs[-1] == "xargs") and ">" not in last and last.count("-exec") <= 1
            and re.match(_WRAPPED_EDIT, last) and all(reads_only(p) for p in parts[:-1])
        ):
            edits = True  # `… -exec sed -i … {} +`, `ls *.py | xargs sed -i …`, a loop's `do sed -i …`
        elif len(parts) == 1 and programs[0] in _IN_PLACE_EDITORS and re.search(IN_PLACE, parts[0]):
            if re.search(_INTO_FILE, parts[0]):
                return False  # its output goes into a file as well
            edits = True
        elif all(p in _WRITERS for p in programs) and (re.search(_INTO_FILE, pipeline) or programs[-1] == "tee"):
            edits = True
        elif programs[-1] in _PS_WRITERS and all(_text_in(p) for p in programs):
            edits = True
        elif len(parts) == 1 and (
            programs[0] in _FILE_MOVERS | _FORMATTERS or re.match(_FORMATS, pipeline) or re.match(_GIT_RESTORES, pipeline)
            or re.match(_APPLIES_DIFF, pipeline.lstrip())
        ) and not re.search(_INTO_FILE, pipeline):
            edits = True
        elif (
            re.match(_INLINE_SCRIPT, parts[0]) and all(reads_only(p) for p in parts[1:]) or re.match(_FED_SCRIPT, pipeline)
        ) and not re.search(_INTO_FILE, pipeline):
            if scripts is None:
                scripts = _script_edits(whole, bodies)  # every script of the line, judged once
            if not scripts:
                return False
            edits = True
        elif _moved_after(pipeline, pipelines[at + 1 :]):
            edits = True
        elif not reads_only(pipeline):
            return False
    return edits


#: A program's output sent into a file: a redirect of stdout or stderr or both (`> log`, `>>
#: out.txt`, `&> test.log`, `1> x`, `2> err.txt`, `>| x`; not into a descriptor or /dev/).
_OUTPUT_INTO = r"(?<![<>])(?:&|\d)?>[>|]?\s*(?!&)([^\s;&|<>()'\"]+)"
#: A plain word in quotes (`tee "test.log"`): the word, for a file's name.
_QUOTED_WORD = r"""(['"])([\w.~/@+-]+)\1"""


def output_paths(tool: str, tool_input: Any) -> tuple[str, ...]:
    """The files a shell call sends a program's output into (`pytest | tee test.log`, `npm test
    &> test.log`), as it names them: they change whatever the line's edits did, so a change the
    workspace sees in such a line is not its edits' (`engine`: `ResultContext.changed`). Text
    written into a file by a writer alone (`echo x > a.py`, `cat > a.py <<'EOF'`: `_WRITERS`) is
    an edit, not output. Quoted text (a plain quoted word is a name) and here-documents aside."""
    command = shell_command(tool, tool_input)
    if command is None or ">" not in command and "tee" not in command:
        return ()
    line = re.sub(_QUOTED_TEXT, "''", re.sub(_QUOTED_WORD, r"\2", _documents(command[:4096])[0]))
    found: list[str] = []
    for pipeline in re.split(_PIPELINES, line):
        parts = [p for p in re.split(r"\|&?", pipeline) if p.strip()]
        programs = [found_[-1] if (found_ := programs_of(p)) else "" for p in parts]
        if programs and all(p in _WRITERS for p in programs):
            continue  # `echo 'LIMIT = 8' > config.py`: an edit
        names = [t.group(1) for t in re.finditer(_OUTPUT_INTO, pipeline)]
        for part, program in zip(parts, programs, strict=True):
            if program == "tee":  # `… | tee -a test.log`: its files
                names += [w for w in part.split()[1:] if not w.startswith("-") and w not in ("''", "tee")]
        found += [name for name in names if not name.startswith("/dev/")]
    return tuple(dict.fromkeys(found))


def run_paths(tool: str, tool_input: Any, paths: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `paths` (named by the line, `change_paths`) that a shell line names only in its
    test runs and builds (`shellwords.runs_tests_or_build`): `pytest --junit-xml report.xml`,
    `go test -coverprofile cover.out`, a test file given to the run. A run changes its report
    whatever the line's edits did (`hosts/workspace`: not the edits' files). A name the line
    writes anywhere else as well, quoted or in a here-document too (`python3 -c "…'tests/t.py'…"
    && pytest tests/t.py`), stays the edits'."""
    command = shell_command(tool, tool_input)
    if command is None or not paths:
        return ()
    pipelines = re.split(_PIPELINES, bare_line(command))
    runs = [p for p in pipelines if runs_tests_or_build(p)]
    if not runs:
        return ()
    found = []
    for path in paths:
        word = r"(?<![\w./~-])" + re.escape(path) + r"(?![\w./-])"
        in_runs = sum(len(re.findall(word, p)) for p in runs)
        if in_runs and len(re.findall(word, command)) <= in_runs:
            found.append(path)
    return tuple(found)


def applies_diff(tool: str, tool_input: Any) -> bool:
    """Whether a shell call is a line of edits and reads (`edits_only`) that applies a diff
    (`git apply`, `patch`) last or before `&&` only, with no option that may leave the files as
    they were or undo an apply (`_ONLY_LOOKS`). Such a call that succeeds changed the files its
    diff names: both refuse a diff that does not apply, or was applied already."""
    command = shell_command(tool, tool_input)
    if command is None or ("apply" not in command and "patch" not in command):
        return False  # the common case, asked of most results: no shell parse
    line = _documents(command[:4096])[0].rstrip()
    applied = re.search(_APPLIES_DIFF, line)
    # Its success is the line's only when nothing after it could hide its failure (`git apply
    # x.patch; git diff --stat` exits 0 whatever the apply did).
    if applied is None or not edits_only(tool, tool_input):
        return False
    own = re.split(r"&&|;|\||\n", line[applied.end() :], maxsplit=1)[0]
    return re.search(_ONLY_LOOKS, " " + own) is None and re.search(r";|\|\||\||\n", line[applied.end() :]) is None


def _moved_after(pipeline: str, later: list[str]) -> bool:
    """Whether a pipeline's output goes into a file that a later command of the line moves or
    copies onto a file the pipeline read (`jq '.a = 1' p.json > tmp.json && mv tmp.json p.json`,
    `awk … a.csv > /tmp/x && mv /tmp/x a.csv`): a filter's edit of its own input. A program's
    output moved elsewhere (`pytest > out.txt && mv out.txt last.txt`) is none."""
    into = re.search(r"(?<![<>&\d])>\s*([\w.~/@+-]+)\s*$", pipeline)
    if into is None or "|" in pipeline:
        return False
    moved = rf"\s*(?:mv|cp)\s+(?:-\w+\s+)*{re.escape(into.group(1))}\s+([\w.~/@+-]+)\s*$"
    read = pipeline[: into.start()].split()
    return any((found := re.match(moved, each)) is not None and found.group(1) in read for each in later)


def edits_in_place(tool: str, tool_input: Any) -> bool:
    """Whether a call's command line edits files where they are: it carries a patch
    (`PATCH_MARK`, also Codex's `apply_patch` tool) or runs an in-place editor
    (`shellwords.IN_PLACE`: `sed -i`, `perl -pi`). Its first 4,096 characters are read
    (`command_text`)."""
    command = command_text(tool, tool_input)
    return command is not None and (PATCH_MARK in command or re.search(IN_PLACE, command) is not None)


def command_text(tool: str, tool_input: Any, limit: int = 4096) -> str | None:
    """The text a call runs, cut to `limit` characters: a shell tool's command, or the `command`
    any other tool sends (Codex's apply_patch carries its patch there); None for none."""
    command = shell_command(tool, tool_input, limit)
    if command is None and isinstance(tool_input, dict) and isinstance(raw := tool_input.get("command"), str):
        return raw[:limit]
    return command


def patch_text(tool: str, tool_input: Any, limit: int = 4096) -> str | None:
    """The patch a call sends (`command_text` that holds `PATCH_MARK` in its first 4 KiB), or None."""
    text = command_text(tool, tool_input, limit)
    return text if text is not None and PATCH_MARK in text[:4096] else None


#: Claude Code's words for a call whose input lacks a parameter the tool requires, on a line of
#: its own under "InputValidationError: <Tool> failed due to the following issue(s):" (2.1
#: transcripts: "The required parameter `command` is missing").
_MISSING = r"\nThe required parameter `[^`\n]{1,80}` is missing"


def cut_rejection(tool_input: Any, response: Any) -> bool:
    """Whether a call and its answer are a reply cut before the call's input: its input is
    `{}` (`cut_input`) and Claude Code refused it as an `InputValidationError` naming a required
    parameter missing (not an unknown tool, nor another hook's denial)."""
    if not cut_input(tool_input) or not isinstance(response, str):
        return False
    return response.startswith("<tool_use_error>InputValidationError: ") and re.search(_MISSING, response[:1024]) is not None


def cut_input(tool_input: Any) -> bool:
    """Whether a call's input is what a reply cut before the call's input leaves: `{}`, or only
    the `raw` text Claude Code keeps of input it could not parse (public Claude Code 2.1
    transcripts: `Write {}` rejected "The required parameter `file_path` is missing"). Such a
    call, first seen by PostToolBatch, never ran (`rules/cut_input.py`)."""
    return isinstance(tool_input, dict) and tool_input.keys() <= {"raw"}


#: Claude Code's settings files, where its permission rules live (user, project, local, managed;
#: docs.anthropic.com settings, 2.1.x): a write to one that went through may have changed what
#: the permission settings refuse. Case-blind (Windows and macOS file systems).
SETTINGS = r"(?i)(?:\A|[/\\])(?:\.claude[/\\]+(?:\.[/\\]+)?settings(?:\.local)?|managed-settings)\.json\Z"


def writes_settings(tool: str, tool_input: Any, config: Config) -> bool:
    """Whether a call of a write tool (`mutating_tools`) names a Claude Code settings file
    (`SETTINGS`) as the file it writes; a shell command's edit (`jq`, `sed -i`) is not read."""
    if not matches(tool, config.mutating_tools):
        return False
    path = path_of(tool_input, config)
    return path is not None and re.search(SETTINGS, path[-4096:]) is not None
