"""`shellwords.shell_words`: the spelling the shell ignores (blanks, quotes around plain text,
comments, line continuations) does not make two command lines differ."""

from __future__ import annotations

import pytest

from loopguard_hook.core.shellwords import command_words, shell_command, shell_words, sleeps_first
from loopguard_hook.core.signature import call_signature
from loopguard_hook.rules.shell_jobs import launched


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ('grep -rn "x"  src/', "grep -rn x src/"),
        ("# check the ports\nss -tlnp | grep 8231", "# are they up yet?\nss -tlnp | grep 8231"),
        ("ss -tlnp | grep 8231  # again", "ss -tlnp | grep 8231"),
        ("# don't stop now\nnpm test", "# it's the last try\nnpm test"),  # a quote inside a comment
        ("cd app && \\\n  npm test", "cd app && npm test"),  # a line continuation
        ('echo "a\\\nb"', 'echo "ab"'),  # a continuation inside double quotes
        ('# check 3\necho "$(date)" && gh pr checks 412', '# check 4\necho "$(date)" && gh pr checks 412'),  # a comment line
    ],
)
def test_spellings_the_shell_ignores_are_one_command(one: str, other: str) -> None:
    assert shell_words(one) == shell_words(other)
    assert call_signature("Bash", {"command": one}, frozenset()) == call_signature("Bash", {"command": other}, frozenset())


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ('grep -n "#include" main.c', 'grep -n "#define" main.c'),  # a quoted `#` is an argument
        ("echo a#b", "echo a#c"),  # a `#` inside a word starts no comment
        ("echo ${#files}", "echo ${#dirs}"),
        ("git log -1\n# then\ngit status", "git log -1\n# then\ngit diff"),  # the command after a comment counts
        # quotes nest inside `$( … )`, backquotes and `${ … }`: a `#` there is no comment (bash prints it)
        ('n="$(grep -c " # TODO" src/a.py)"; echo "$n"', 'n="$(grep -c " # TODO" src/b.py)"; echo "$n"'),
        ('echo "$(awk \'{print $1 " #" $2}\' a.txt)"; wc -l a.txt', 'echo "$(awk \'{print $1 " #" $2}\' b.txt)"; wc -l b'),
        ("echo `git rev-parse HEAD #sha` api", "echo `git rev-parse HEAD #sha` web"),
        ("echo ${MSG:-no #tag} > a.txt", "echo ${MSG:-no #tag} > b.txt"),
        ("printf $'it\\'s #1\\n'; make api", "printf $'it\\'s #1\\n'; make web"),
        # a `case` pattern's `)` closes no `$(`
        (
            'case $f in */test_*) continue;; esac; echo "$(grep -c " # TODO" "$f")"',
            'case $f in */test_*) continue;; esac; echo "$(grep -c " # FIXME" "$f")"',
        ),
        ('printf "a\\\\\nb"', 'printf "a\\b"'),  # an escaped backslash before a newline is no continuation
    ],
)
def test_a_hash_that_starts_no_comment_keeps_commands_apart(one: str, other: str) -> None:
    assert call_signature("Bash", {"command": one}, frozenset()) != call_signature("Bash", {"command": other}, frozenset())


@pytest.mark.parametrize("command", ["echo 'unclosed", 'echo "unclosed', "echo trailing \\", "cat <<EOF\nx\nEOF"])
def test_lines_the_shell_would_not_read_whole_are_none(command: str) -> None:
    assert shell_words(command) is None


def test_a_comment_line_in_a_line_with_substitutions_is_still_a_comment() -> None:
    command = "x=$(date +%s)\n# don't wait for it\nnohup python3 train.py > train.log 2>&1 &"
    assert launched(command) == ["job:train.log\ntrain.py"]


def test_a_commented_launch_continued_over_lines_is_a_background_job() -> None:
    command = (
        "# start the API with its settings\npkill -f 'uvicorn api.main' || true\nsleep 2\n\\\n"
        "FORTUNE_DB_PORT=8224 \\\n  FORTUNE_USE_DB_STORE=true \\\n"
        "  nohup python3 -m uvicorn api.main:app --port 8230 > /tmp/api.log 2>&1 &\nsleep 3 && tail -5 /tmp/api.log"
    )
    assert launched(command) == ["job:/tmp/api.log\nuvicorn"]


def test_a_shell_command_is_read_past_the_comment_lines_it_starts_with() -> None:
    command = "# CI still running (check 3), wait\n\n  # then ask\nsleep 45 && gh pr checks 412"
    assert shell_command("Bash", {"command": command}) == "sleep 45 && gh pr checks 412"
    assert sleeps_first("Bash", {"command": command}) == 45.0
    assert shell_command("Bash", {"command": "ls # and more"}) == "ls # and more"


def test_only_an_unquoted_semicolon_glued_to_a_word_ends_its_command() -> None:
    assert command_words("cd app; npm test") == ["cd", "app", ";", "npm", "test"]
    assert ";" not in command_words('echo "done;"') and ";" not in command_words("find . -name '*.pyc' -exec rm {} \\;")
