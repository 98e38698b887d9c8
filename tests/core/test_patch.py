"""apply_patch's format and its verdict on a file's text (`core/patch.py`), as pure functions; the
same verdict is checked against the real apply_patch of Codex 0.171.0 in
`tests/e2e/test_codex_apply_patch.py`."""

from __future__ import annotations

from loopguard_hook.core.patch import (
    chunks,
    misfit,
    missing_lines,
    recorded_misfit,
    recorded_shell_patch,
    unseen_through_shell,
    updated_path,
)

FILE = "def build(path):\n    rows = load(path)  # all\n    return render(rows)\n"


def _patch(body: str, path: str = "src/report.py") -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n{body}\n*** End Patch"


def test_a_hunk_the_file_holds_fits_however_apply_patch_compares_it() -> None:
    assert misfit(_patch("@@\n     rows = load(path)  # all\n-    return render(rows)\n+    return rows"), FILE) is None
    assert misfit(_patch("@@\n-rows = load(path)  # all   \n+x"), FILE) is None  # both ends trimmed
    dashes = "note \u2013 \u201cquoted\u201d\u00a0it\u2019s\n"
    assert misfit(_patch("@@\n-note - \"quoted\" it's\n+x"), dashes) is None  # typographic punctuation read as ASCII
    assert misfit(_patch("@@\n-    return render(rows)\n-\n+x"), FILE) is None  # a last empty line retried without it
    assert misfit(_patch("@@ def build(path):\n-    return render(rows)\n+x"), FILE) is None
    assert misfit(_patch("@@\n+# a pure insertion"), FILE) is None


def test_a_hunk_it_does_not_hold_where_apply_patch_looks_is_quoted() -> None:
    # The line named is the first the file holds nowhere, else the hunk's first.
    assert misfit(_patch("@@\n     rows = load(path)\n-    return render(rows, limit)\n+x"), FILE) == "rows = load(path)"
    second = _patch("@@\n     rows = load(path)  # all\n-    return render(rows, limit)\n+x")
    assert misfit(second, FILE) == "return render(rows, limit)"
    assert misfit(_patch("@@\n-    return render(rows)\n-def build(path):\n+x"), FILE) == "return render(rows)"
    assert misfit(_patch("@@ def build(path, limit):\n-    return render(rows)\n+x"), FILE) == "def build(path, limit):"
    # After the first hunk, the next is looked for below it only.
    two = "@@\n-    return render(rows)\n+    return rows\n@@\n-def build(path):\n+def build(path, limit):"
    assert misfit(_patch(two), FILE) == "def build(path):"
    assert misfit(_patch("@@\n-" + "x" * 300 + "\n+y"), FILE) == "x" * 159 + "…"


def test_where_releases_differ_the_answer_is_the_one_that_applies() -> None:
    crlf = FILE.replace("\n", "\r\n")
    assert misfit(_patch("@@\n     rows = load(path)  # all\n-    return render(rows)\n+x"), crlf) is None
    # `*** End of File`: looked for from the previous hunk on, not only at the end.
    assert misfit(_patch("@@\n-def build(path):\n+def build(p):\n*** End of File"), FILE) is None
    # A context with trailing blanks: as written, and trimmed.
    assert misfit(_patch("@@ def build(path):   \n-    return render(rows)\n+x"), FILE) is None


def test_only_a_patch_of_one_file_it_can_read_is_judged() -> None:
    several = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Update File: b.py\n@@\n-x\n+y\n*** End Patch"
    assert chunks(several) is None and misfit(several, "z\n") is None and updated_path(several) is None
    assert misfit("*** Begin Patch\n*** Add File: a.py\n+x\n*** End Patch", "") is None
    assert misfit(_patch("@@\n-never there\n+x").replace("\n*** End Patch", ""), FILE) is None  # cut
    assert updated_path(_patch("@@\n-x\n+y", " /repo/src/report.py ")) == "/repo/src/report.py"


def test_a_replay_reads_the_verdict_from_apply_patchs_failure() -> None:
    patch = _patch("@@\n-    rows = load(path)\n+x")
    text = "apply_patch verification failed: Failed to find expected lines in /w/src/report.py:\n    rows = load(path)"
    assert recorded_misfit(patch, text) == "rows = load(path)"
    listed = 'Failed to find expected lines ["    rows = load(path)"] in /w/src/report.py'
    assert missing_lines(listed) == ["    rows = load(path)"] and recorded_misfit(patch, listed) == "rows = load(path)"
    assert recorded_misfit(patch, "Failed to find context 'def run():' in /w/src/report.py") == "def run():"
    assert recorded_misfit(patch, "Failed to read file to update /w/src/report.py: No such file or directory") is None
    assert recorded_misfit(patch, "Success. Updated the following files:\nM src/report.py") is None
    assert recorded_misfit("not a patch", text) is None


def test_a_relative_path_sent_through_the_shell_has_no_known_folder() -> None:
    body = "*** Begin Patch\n*** Update File: {}\n@@\n-a\n+b\n*** End Patch\n"
    assert not unseen_through_shell(body.format("src/a.py"))  # apply_patch's own input: the turn's cwd
    assert not unseen_through_shell("\n" + body.format("src/a.py"))
    assert unseen_through_shell("apply_patch <<'EOF'\n" + body.format("src/a.py") + "EOF\n")
    assert not unseen_through_shell("apply_patch <<'EOF'\n" + body.format("/w/src/a.py") + "EOF\n")



def test_a_patch_the_shell_unquotes_is_not_read_as_sent() -> None:
    """`apply_patch "…"` and `<<EOF`: bash takes out `\\"`, `'\\''`, `$…` before apply_patch reads
    the patch; the hook would look for `print(\\"hi\\")` in a file that holds `print("hi")`."""
    body = '*** Begin Patch\n*** Update File: /w/f.py\n@@\n-print(\\"hi\\")\n+x\n*** End Patch\n'
    assert unseen_through_shell(f'apply_patch "{body}"')
    assert unseen_through_shell("apply_patch '" + body.replace('\\"', '"') + "'")
    assert unseen_through_shell(f"apply_patch <<EOF\n{body}EOF\n")
    assert not unseen_through_shell(f"apply_patch <<'EOF'\n{body}EOF\n")
    assert unseen_through_shell(f'bash -lc "apply_patch <<\'EOF\'\n{body}EOF\n"')  # the body in double quotes
    assert unseen_through_shell(f"echo hi; apply_patch <<'EOF'\n{body}EOF\n")
    assert not unseen_through_shell(f'apply_patch <<"PATCH"\n{body}PATCH\n')


def test_a_quoted_line_never_shows_half_a_secret() -> None:
    """The quote was cut to 160 characters before the rule redacted it: a token cut in two
    escaped its pattern (`ghp_abcdefghijklmnopqrs…` in the denial)."""
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    for pad in range(100, 170):
        line = "y" * pad + " " + token
        quote = misfit(f"*** Begin Patch\n*** Update File: f\n@@\n-{line}\n+x\n*** End Patch\n", "nothing\n")
        assert quote is not None and "ghp_abc" not in quote, quote
        recorded = recorded_misfit(
            "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\n", f"Failed to find expected lines in /w/f:\n{line}"
        )
        assert recorded is not None and "ghp_abc" not in recorded, recorded


def test_the_quote_is_the_first_hunk_line_the_file_does_not_hold() -> None:
    """A denial that quoted the hunk's first line, which the file holds, sent the model looking
    for it (tests/e2e/test_codex.py: `rows = load(path)[:limit]` is in report.py; `return
    render(rows, limit)` is not). Lines that are each in the file, but not together: the first."""
    text = "def build(path, *, limit=None):\n    rows = load(path)[:limit]\n    return render(rows)\n"
    hunk = "*** Begin Patch\n*** Update File: report.py\n@@\n{}+x\n*** End Patch\n"
    lacks_second = hunk.format("-    rows = load(path)[:limit]\n-    return render(rows, limit)\n")
    assert misfit(lacks_second, text) == "return render(rows, limit)"
    assert misfit(hunk.format("-    return render(rows)\n-    rows = load(path)[:limit]\n"), text) == "return render(rows)"


def test_whitespace_is_what_rust_trims() -> None:
    """Python's strip() also takes \\x1c-\\x1f, Rust's trim() does not: the first hunk was found
    at `a\\x1c` by trimming the end, the real apply_patch found it at ` a` by trimming both ends,
    and the second hunk, between them, was predicted missing (the real apply_patch applied it)."""
    for sep in "\x1c\x1d\x1e\x1f":
        assert misfit("*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n@@\n-z\n+Z\n*** End Patch\n", f" a\nz\na{sep}\n") is None
    assert misfit("*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** End Patch\n", "a\x1c\n") == "a"
    # a `@@` context, trimmed as 0.171.0 trims it (fuzzed against the binary)
    context = "*** Begin Patch\n*** Update File: f\n@@ \n+new\n@@ c\x1f\n-\xa0\n+new\n*** End of File\n*** End Patch\n"
    assert misfit(context, "-\u2014\nc\x1f\n\n") is None


def test_a_shell_calls_record_says_which_patch_and_where() -> None:
    """`recorded_shell_patch`: the patch apply_patch gets and the folder, from the call's
    arguments as the rollout records them."""
    body = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** End Patch\n"
    heredoc = f"apply_patch <<'EOF'\n{body}EOF\n"
    assert recorded_shell_patch({"command": ["apply_patch", body]}) == (body, None)  # argv, Codex 0.4x-0.6x
    assert recorded_shell_patch({"command": ["apply_patch", body], "workdir": "/w/crates/a"}) == (body, "/w/crates/a")
    assert recorded_shell_patch({"cmd": heredoc, "workdir": "crates/a"}) == (heredoc, "crates/a")  # exec_command, 0.171.0
    assert recorded_shell_patch({"command": ["bash", "-lc", heredoc], "workdir": ""}) == (heredoc, None)
    assert recorded_shell_patch({"cmd": heredoc.replace("<<'EOF'", "<<EOF")}) is None  # the shell expands the body
    assert recorded_shell_patch({"cmd": f"cd sub && {heredoc}"}) is None
    assert recorded_shell_patch({"command": ["bash", "-lc", f'apply_patch "{body}"']}) is None
    assert recorded_shell_patch({"cmd": heredoc, "workdir": ["a"]}) is None
    assert recorded_shell_patch({"command": ["apply_patch", body.replace("Update", "Add")]}) is None  # updates no file
    assert recorded_shell_patch({"command": ["ls"]}) is None
    assert recorded_shell_patch(None) is None
    assert recorded_shell_patch("apply_patch") is None


def test_a_search_too_long_to_finish_gives_no_verdict() -> None:
    """A hunk of 8,000 blank lines and one the file lacks, against 256 Ki blank lines: every place
    matches the first line, and comparing the hunk at each took seconds of CPU on the hook path
    (a hostile test). Past `MAX_COMPARED_LINES` the patch is not judged: None, so never denied;
    the same hunk against a short file is still found not to fit."""
    from loopguard_hook.core import patch as patches

    hunk = "*** Begin Patch\n*** Update File: data.txt\n@@\n" + " \n" * 8000 + "-missing\n+new\n*** End Patch\n"
    assert patches.misfit(hunk, "\n" * (256 * 1024 - 1)) is None
    assert patches.misfit(hunk, "\n" * 100) == "missing"
    small = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    assert patches.misfit(small, "y = 1\n" * 10_000) == "x = 1"  # an ordinary search stays within it
    # a large source file whose `}` and blank lines recur every few lines: the search is cheap,
    # and a hunk of 150 of its lines with one misremembered is still found not to fit (rv74: a
    # budget charged at every place the first line matched gave it up)
    lines: list[str] = []
    for i in range(2_500):
        lines += [f"function f{i}(a, b) {{", f"  const x{i} = a + b;", f"  if (x{i} > {i}) {{", f"    return x{i};", "  }",
                  f"  return {i};", "}", ""]
    start = 6 + 8 * 1_200
    old = lines[start : start + 150]
    old[75] += " // edited"
    first = "@@\n" + "".join(" " + line + "\n" for line in old[:-1]) + "-" + old[-1] + "\n+// changed\n"
    second = "@@\n-" + lines[start + 400] + "\n+  return 0;\n"
    big = "*** Begin Patch\n*** Update File: big.js\n" + first + second + "*** End Patch\n"
    assert patches.misfit(big, "\n".join(lines) + "\n") == old[75].strip()
