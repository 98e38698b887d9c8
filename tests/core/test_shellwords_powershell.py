# ruff: noqa: E501  (the scripts are quoted whole, as Codex sent them)
"""`shellwords.powershell_reads_only`: which PowerShell scripts only read.

Codex on Windows runs a shell call's command as a PowerShell script. A read between two patches
that did not fit must not restart their count (issue 22 class 1); a script that may change files
must. The read cases are commands Codex sent in the corpus rollouts of 2025-11 and 2026-07 and in
public rollouts; the others are the ways a PowerShell line writes a file or runs a program.
"""

import pytest

from loopguard_hook.core.shellwords import powershell_reads_only, reads_only

READS = [
    # numbered lines, the corpus's most common read before a retried patch
    "$i=1; Get-Content -LiteralPath 'Script\\Lin\\ToastManager.lua' | ForEach-Object { '{0,4}: {1}' -f $i, $_; $i++ }",
    "$i=0; Get-Content -Path 'Script\\Lin\\StateMgr.lua' | ForEach-Object { $i++; if($i -ge 160 -and $i -le 190){ '{0}:{1}' -f $i, $_ } }",
    "$lines = Get-Content -LiteralPath 'X.lua'; for ($i=15; $i -le 30; $i++) { '{0,4}: [{1}]' -f $i, $lines[$i-1] }",
    "$lines = Get-Content -LiteralPath 'X.lua'; 18..26 | ForEach-Object { $s=$lines[$_-1]; $bytes=[System.Text.Encoding]::UTF8.GetBytes($s); '{0}: {1}' -f $_, (($bytes | ForEach-Object { $_.ToString('X2') }) -join ' ') }",
    '$c = Get-Content -Path "f.tsx"; $start = ($c | Select-String -Pattern "export interface").LineNumber; ($c | Select-Object -Skip ($start-1) -First 25) -join "`n"',
    '$lines = Get-Content -Path "f.tsx"; $i=1; foreach ($l in $lines){ if($l -match \'useEffect|x\'){ "{0,4} {1}" -f $i, $l }; $i++ }',
    '$c = Get-Content -Path "f.tsx" -Raw; $c -split "\\r?\\n" | ForEach-Object { $global:i=0 } { $global:i++; "{0,4} {1}" -f $global:i, $_ }',
    '$content = Get-Content -Path "f.tsx" -Raw; $content.Length; $content.Substring(0,120)',
    "Get-Content -Path app/x.ts -TotalCount 200",
    "Get-Content a.lua | Select-Object -Skip 120 -First 100",
    "Get-ChildItem -Path . -Recurse -Include *.log -ErrorAction SilentlyContinue | Sort-Object LastWriteTime -Descending | Select-Object -First 20 FullName",
    "Select-String -Path 'a.yaml' -Pattern 'x:' | ForEach-Object { $_.LineNumber.ToString() + ': ' + $_.Line }",
    "[IO.File]::ReadAllText('a.ts')",
    "if (!(Test-Path a)) { 'missing' }",
    "Get-Content a 2>$null",
    # the wrapped form Codex sent in other rollouts
    'pwsh.exe -NoLogo -Command Select-String -Path "frontend/src/x.tsx" -Pattern "a"',
    'powershell.exe -NoProfile -Command "Get-Content -Path src/app.ts -First 40"',
    "powershell.exe -NoProfile -Command 'Select-String -Path src/app.ts -Pattern ''def '''",
    # a POSIX shell's reads are reads here too
    "git status; rg -n foo src",
    "cat a.txt",
]

WRITES = [
    "(Get-Content -Raw a.ts) -replace 'x','y' | Set-Content a.ts",
    "$c = Get-Content -Raw a.ts; $c = $c -replace 'a','b'; Set-Content a.ts $c",
    "$x = Remove-Item a.ts",
    "Get-Content a.ts > b.ts",
    "Get-Content a | Out-File b",
    "Get-Content a | Tee-Object b",
    "Copy-Item a b",
    "[IO.File]::WriteAllText('a.ts', 'x')",
    "gci -Recurse | % { $_.Delete() }",
    "gci *.tmp | % Delete",
    "gci *.tmp | ForEach-Object -MemberName Delete",
    "(Get-Item a).IsReadOnly = $false",
    "if (!(Test-Path a)) { New-Item a }",
    "Get-ChildItem src -Filter *.py | ForEach-Object { (Get-Content $_.FullName) -replace 'a', 'b' | Set-Content $_.FullName }",
    # scripts and programs run
    "& ./build.ps1",
    ". ./env.ps1",
    ".\\build.ps1",
    "..\\build.ps1",
    "Invoke-Expression 'rm a'",
    "iex $s",
    "Start-Process notepad",
    'Write-Output "$(Remove-Item a)"',
    "@'\nx\n'@ | Set-Content a",
    "npm run format",
    "python x.py",
    "git stash",
    # a POSIX shell's line that would read as an expression in PowerShell
    "$PY app.py",
    "$EDITOR a.txt",
    "7z x a.7z",
    "/bin/rm a",
    "! rm a",
    "$(rm a)",
    "echo `rm a`",
    "for f in *; do rm $f; done",
    # a program named through a variable or a quoted path: a POSIX shell runs it
    "$HOME/.cargo/bin/cargo fmt",
    "$VIRTUAL_ENV/bin/python -m black .",
    "$PY -m ruff format src",
    "$PROG --fix .",
    '"$VENV/bin/python" -m black .',
    "'./node_modules/.bin/prettier' --write src",
    # the wrapped form with the script in single quotes: the script is judged, not a string
    "powershell -NoProfile -Command '(Get-Content a.ts) -replace ''x'',''y'' | Set-Content a.ts'",
    "pwsh -c 'Remove-Item a.ts'",
]


@pytest.mark.parametrize("script", READS)
def test_a_script_that_only_reads(script: str) -> None:
    assert powershell_reads_only(script)


@pytest.mark.parametrize("script", WRITES)
def test_a_script_that_may_change_files(script: str) -> None:
    assert not powershell_reads_only(script)


def test_a_script_longer_than_the_shell_limit_is_not_judged() -> None:
    assert not powershell_reads_only("Get-Content a; " * 400)


@pytest.mark.parametrize("command", ["sort -o out in", "sort --output=out in", "uniq in out", "tree -o t.txt"])
def test_reading_programs_that_write_a_named_file(command: str) -> None:
    assert not reads_only(command)
    assert not powershell_reads_only(command)


@pytest.mark.parametrize("command", ["sort -u a", "uniq -c a", "tree -L 2"])
def test_reading_programs_without_an_output_file(command: str) -> None:
    assert reads_only(command)


@pytest.mark.parametrize(
    "script",
    [
        'echo "`rm -rf build`"',  # two backticks in double quotes: a POSIX command substitution
        "(gci *.tmp).ForEach('Delete')",
        "$x.'Delete'()",
    ],
)
def test_a_command_hidden_in_a_string_or_a_method_name_is_no_read(script: str) -> None:
    assert not powershell_reads_only(script)


def test_a_backtick_escape_in_double_quotes_is_a_read() -> None:
    assert powershell_reads_only('$c = Get-Content -Path "f.tsx"; ($c | Select-Object -First 25) -join "`n"')


def test_the_numbered_read_the_misfit_denial_suggests_on_windows_is_a_read() -> None:
    """Following the denial's advice on Windows (Codex runs PowerShell there) is a read: it does
    not restart the count of patches that did not fit."""
    import re

    from loopguard_hook.rules.target import misfit_denial

    text = misfit_denial("Script/Lin/StateMgr.lua", 2, "local x", windows=True)
    (command,) = re.findall(r"\(`(\$i=0; Get-Content [^`]*(?:`t[^`]*)?)`, a read tool\)", text)
    assert powershell_reads_only(command.replace("<from>", "10").replace("<to>", "20")), command
    assert "nl -ba" not in text and "nl -ba" in misfit_denial("src/app.py", 2, "x")


@pytest.mark.parametrize(
    "command", ["ls & rm x", "cat f & npm install", "ls & sed -i s/a/b/ f", "ls &>out.txt", "echo v2>VERSION", "cat a b 1>merged.txt"]
)
def test_a_background_list_or_an_ampersand_redirect_into_a_file_is_no_read(command: str) -> None:
    """A single `&` ends a command as `;` does (a hostile review found `ls & rm x` read as a
    read), and `&>`, `1>` and a `>` after a word that ends in a digit write a file as `>` does."""
    assert not reads_only(command)


@pytest.mark.parametrize(
    "command", ["cat a & cat b", "ls 2>&1 | head", "ls >&2", "ls &>/dev/null", 'grep -n "a&b" f', "ls 2>>/dev/null", "git rev-parse 2>$null"]
)
def test_an_ampersand_that_copies_a_descriptor_or_is_quoted_keeps_a_read(command: str) -> None:
    assert reads_only(command)
