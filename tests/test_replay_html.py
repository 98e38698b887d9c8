"""`replay --html FILE`: one self-contained page (no script, nothing fetched), an inline SVG
timeline of the calls that marks the interventions and shows each loop as a band, and the token
use over time; checked in the page's markup and, where Chromium is installed, in a real headless
browser's screenshot."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from loopguard_hook.entry import main

REPO = Path(__file__).parent.parent
READ_LOOP = REPO / "tests/data/transcripts/claude-read-loop.jsonl"
MIXED = REPO / "tests/data/transcripts/claude-guard-mixed/ee89b18a-ecbc-44eb-8d85-fa4b3bc970e3.jsonl"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: The colours the page paints (`render_html.COLOURS`), as a screenshot has them.
RGB = {"remind": (242, 169, 0), "deny": (214, 39, 40), "stop": (106, 27, 154), "loop": (251, 227, 228),
       "tokens": (26, 115, 232)}


class Elements(HTMLParser):
    """Every start tag of a page: (tag, attributes), and the URLs it would fetch."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def page(tmp_path: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    out = tmp_path / "replay.html"
    assert main(["replay", "--html", str(out), *args, str(READ_LOOP)]) == 0
    return out, capsys.readouterr().out


def marks(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = Elements()
    parser.feed(html)
    return parser.tags


def test_the_page_marks_every_intervention_and_the_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, said = page(tmp_path, capsys=capsys)
    # calls 9 and 10 came after the turn was ended: outlined, as the model would not have made them,
    # not drawn as ends of turn (the summary counts one stop)
    assert said.strip() == f"wrote {out}: 1 session(s), 10 calls, 6 interventions, 1 loop(s)"
    tags = marks(out.read_text())
    calls = {a["data-call"]: a["class"] for t, a in tags if t == "rect" and "data-call" in a}
    assert calls == {
        "1": "mark call", "2": "mark call", "3": "mark remind", "4": "mark remind", "5": "mark deny saved",
        "6": "mark deny saved", "7": "mark deny saved", "8": "mark stop saved", "9": "mark call saved unmade",
        "10": "mark call saved unmade",
    }
    assert [a["data-loop"] for t, a in tags if t == "rect" and a.get("class") == "loop"] == ["1", "1"]  # both charts
    (line,) = [a for t, a in tags if t == "polyline"]
    assert line["data-total"] == "1210"
    assert any(t == "line" and a.get("class") == "prompt" for t, a in tags)


def test_the_page_is_self_contained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = page(tmp_path, capsys=capsys)
    html = out.read_text()
    tags = marks(html)
    assert not [t for t, _ in tags if t in ("script", "link", "img", "iframe", "object", "embed")]
    assert not [a for _, a in tags for k, v in a.items() if k in ("src", "href") and v]
    assert "url(" not in html and "@import" not in html
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", html)  # the SVG namespace is a name, not a fetch
    assert "default-src 'none'" in html


def test_text_in_the_page_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = tmp_path / "hostile.jsonl"
    text = READ_LOOP.read_text().replace("/home/user/project/notes.txt", "</title><script>alert(1)</script>")
    hostile.write_text(text)
    out = tmp_path / "h.html"
    assert main(["replay", "--html", str(out), str(hostile)]) == 0
    capsys.readouterr()
    assert "<script>" not in out.read_text() and "&lt;script&gt;" in out.read_text()


def test_a_page_it_cannot_write_is_an_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--html", str(tmp_path / "no/such/dir/x.html"), str(READ_LOOP)]) == 1
    assert "cannot write" in capsys.readouterr().err


# -- in a real browser --------------------------------------------------------------------------


def _pixels(png: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Width, height and RGB pixels of an 8-bit RGB or RGBA PNG, not interlaced (what Chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        chunk = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = chunk
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0
    size = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * size
    rows: list[bytearray] = []
    prior = bytearray(stride)
    at = 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1 : at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - size] if i >= size else 0
            up, corner = prior[i], prior[i - size] if i >= size else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(line)
        prior = line
    pixels = [tuple(row[i : i + 3]) for row in rows for i in range(0, stride, size)]
    return width, height, pixels  # type: ignore[return-value]


def _screenshot(html: Path, png: Path) -> list[tuple[int, int, int]]:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
         "--window-size=1400,900", f"--screenshot={png}", html.as_uri()],
        capture_output=True, timeout=120,
    )
    assert done.returncode == 0 and png.is_file(), done.stderr.decode(errors="replace")[-2000:]
    return _pixels(png.read_bytes())[2]


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian: apt-get install chromium)")
def test_a_headless_browser_shows_the_marks_and_the_band(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The page with interventions against the same page in observe mode (no mark coloured): each
    colour covers far more than its legend swatch (10 x 10 pixels) only where the guard acted."""
    acted, _ = page(tmp_path, capsys=capsys)
    quiet = tmp_path / "quiet.html"
    assert main(["replay", "--html", str(quiet), "--mode", "observe", str(READ_LOOP)]) == 0
    counts = {}
    for name, path in (("acted", acted), ("quiet", quiet)):
        pixels = _screenshot(path, tmp_path / f"{name}.png")
        counts[name] = {role: sum(1 for p in pixels if p == rgb) for role, rgb in RGB.items()}
    acted_counts, quiet_counts = counts["acted"], counts["quiet"]
    # The quiet page has each colour in its legend swatch only (red also outlines "kept from running").
    assert quiet_counts["remind"] == quiet_counts["stop"] == 100 and quiet_counts["deny"] < 200, quiet_counts
    # Two reminders, three denials, one end of turn, each mark about 16 x 12 pixels.
    for role, n in (("remind", 2), ("deny", 3), ("stop", 1)):
        assert acted_counts[role] - quiet_counts[role] >= n * 150, (role, acted_counts, quiet_counts)
    # The loop's band, and the token line, are on both pages (the rules still found the loop).
    assert acted_counts["loop"] > 20_000 and acted_counts["tokens"] > 500


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--format", "html"], "the page is written with --html FILE"),
        (["--summary", "--html", "PAGE"], "--html writes the page instead of the text"),
        (["--format", "json", "--html", "PAGE"], "--html writes the page instead of the text"),
    ],
)
def test_html_asked_for_the_wrong_way_is_one_line_and_exit_1(
    args: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--format html` is pointed at --html; --html with a text option it would ignore is refused."""
    out = tmp_path / "replay.html"
    code = main(["replay", *[str(out) if a == "PAGE" else a for a in args], str(READ_LOOP)])
    err = capsys.readouterr().err
    assert code == 1 and said in err and err.count("\n") == 1 and not out.exists(), err


def test_html_never_writes_over_a_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`replay --html A.jsonl B.jsonl` reads as "the page into A": refused, A kept (before, the
    transcript A was replaced by the page of B); so is a page named as one of the FILES."""
    first = tmp_path / "a.jsonl"
    first.write_bytes(READ_LOOP.read_bytes())
    alias = tmp_path / "same"
    alias.symlink_to(first)
    for page in (first, alias):
        code = main(["replay", "--html", str(page), str(READ_LOOP), str(first)])
        err = capsys.readouterr().err
        assert code == 1 and "would write the page over a recording" in err and err.count("\n") == 1, err
        assert first.read_bytes() == READ_LOOP.read_bytes()
    # a link, under a page's name, to a file replay reads by itself (a subagent transcript): kept
    session = tmp_path / "s" / MIXED.name
    shutil.copytree(MIXED.parent, session.parent)
    subagent = next(session.with_suffix("").glob("subagents/agent-*.jsonl"))
    kept = subagent.read_bytes()
    for make in (os.symlink, os.link):
        page = tmp_path / f"page-{make.__name__}.html"
        make(subagent, page)
        assert main(["replay", "--html", str(page), str(session)]) == 1
        err = capsys.readouterr().err
        assert "holds something other than a page" in err and err.count("\n") == 1, err
        assert subagent.read_bytes() == kept
    # a page it wrote is replaced
    page = tmp_path / "page.html"
    for _ in range(2):
        assert main(["replay", "--html", str(page), str(READ_LOOP)]) == 0
        assert page.read_bytes().startswith(b"<!DOCTYPE html")


def test_html_into_a_fifo_nobody_reads_does_not_hang(tmp_path: Path) -> None:
    """Opening a FIFO to write waits for a reader: `--html` named one by mistake must say so, not hang."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "page.html"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "loopguard_hook", "replay", "--html", str(fifo), str(READ_LOOP)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)},
    )
    assert done.returncode == 1 and done.stderr.startswith(f"loopguard-hook: cannot write {fifo}: "), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_html_to_stdout_keeps_the_page_whole(tmp_path: Path) -> None:
    """`--html /dev/stdout | …`: stdout is the page and nothing after it; the summary line goes to stderr."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "loopguard_hook", "replay", "--html", "/dev/stdout", str(READ_LOOP)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)},
    )
    assert done.returncode == 0 and done.stdout.rstrip().endswith("</html>"), done.stdout[-200:]
    assert done.stderr.startswith("wrote /dev/stdout: 1 session(s)"), done.stderr


def test_a_control_character_from_a_transcript_is_shown_escaped_not_obeyed() -> None:
    """A bidi override or an escape sequence in a path reorders or restyles what a page shows
    (a hostile test, br63): the page writes it as Python does; line breaks and tabs stay."""
    from loopguard_hook.replay.render_html import _esc

    assert _esc("/w/\u202eexe.txt <b>") == "/w/\\u202eexe.txt &lt;b&gt;"
    assert _esc("a\x1b[31mred\nb\tc") == "a\\x1b[31mred\nb\tc"
    assert _esc("crlf\r\n\u00a0\U0001f468\u200d\U0001f469") == "crlf\r\n\u00a0\U0001f468\u200d\U0001f469"  # shown as they are


def test_the_page_draws_one_end_of_turn_per_turn_ended(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A corpus session the guard ends at call 15, the loop going on to call 20: the page drew six
    ends of turn under a summary of one stop, and its loop had 11 interventions to the summary's 6."""
    out = tmp_path / "replay.html"
    path = REPO / "tests/corpus/claude/c98c48ce-b4da-46d1-8f72-965d60d6e589.jsonl"
    assert main(["replay", "--html", str(out), str(path)]) == 0
    said = capsys.readouterr().out
    assert said.strip() == f"wrote {out}: 1 session(s), 21 calls, 6 interventions, 1 loop(s)"
    html = out.read_text()
    calls = {a["data-call"]: a["class"].split() for t, a in marks(html) if t == "rect" and "data-call" in a}
    assert [n for n, kinds in calls.items() if "stop" in kinds] == ["15"]
    assert [n for n, kinds in calls.items() if "unmade" in kinds] == [str(n) for n in range(16, 22)]
    assert "1 end of turn" in html
    (band,) = re.findall(r"loop 1: calls 8-21, (\d+) interventions", html)
    assert band == "6"


def test_a_recording_without_times_or_a_loops_usage_is_drawn_as_the_text_tells_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A transcript with usage but no times, whose first loop's calls come from no request that
    states usage: the text says "states no token usage" for that loop and notes the made-up
    spacing; the page once said "0 tokens" and drew the session's tokens as one step at +0 s."""
    recording = REPO / "tests/corpus/claude/5aab28de-84f9-4096-9c8b-6f9bc4360a2c.jsonl"
    assert main(["replay", "--only-decisions", str(recording)]) == 0
    text = capsys.readouterr().out
    assert "loop 1: calls 51-53; the recording states no token usage for them" in text
    assert "no times in the file: events spaced 0.1 s apart" in text
    out = tmp_path / "replay.html"
    assert main(["replay", "--html", str(out), str(recording)]) == 0
    html = out.read_text()
    assert "loop 1: calls 51-53, 1 intervention; the recording states no token usage for it" in html
    assert "0 tokens" not in html
    assert "no times in the file: events spaced 0.1 s apart (0.5 s before a call made after a result)" in html
    tags = marks(html)
    assert not [a for t, a in tags if t == "svg" and a.get("class") == "tokens"]
    assert "no chart: the recording holds no times to draw its token use over" in html
    # The second loop states its usage: its band says its tokens.
    assert "loop 2: calls 61-63, 1 intervention, 115k tokens" in html
    # What the 0 counts: not "no cost after the stop" (the text and the summaries say it so too).
    assert "in loops 115k, 0 of them after a call the recording ran and the guard would have denied, or past its end " \
        "of turn</p>" in html
