"""The corpus of real sessions (`tests/corpus/`, see its README): the labels fit the files, every
file has a source, and (slow) what the guard must do on it today."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"


def _scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "bench" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _sessions() -> list[str]:
    """Every session file of the corpus (subagent transcripts belong to their main file)."""
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/*.jsonl"))


def _call_ids(path: Path) -> dict[str, str]:
    """Every tool call id in a session file and its subagent files, to the file that holds it."""
    files = [path, *sorted(path.with_suffix("").glob("subagents/*.jsonl"))]
    ids: dict[str, str] = {}
    for file in files:
        for line in file.read_text(encoding="utf-8").splitlines():
            if '"tool_use"' not in line and '"call_id"' not in line:
                continue
            record: dict[str, Any] = json.loads(line)
            message = record.get("message")
            if record.get("type") == "assistant" and isinstance(message, dict):
                for block in message.get("content") or []:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        ids[block["id"]] = file.name
            payload = record.get("payload")
            if record.get("type") == "response_item" and isinstance(payload, dict) and payload.get("call_id"):
                if payload.get("type") in ("function_call", "custom_tool_call", "local_shell_call"):
                    ids[payload["call_id"]] = file.name
    return ids


def test_labels_cover_every_session_and_nothing_else() -> None:
    labels = _scorer().load_labels(str(CORPUS))
    assert sorted(labels) == _sessions()


def test_every_labelled_call_is_in_its_session_and_one_agents() -> None:
    for name, episodes in _scorer().load_labels(str(CORPUS)).items():
        ids = _call_ids(CORPUS / name)
        for episode in episodes:
            named = [c for c in episode.calls if isinstance(c, str)]
            missing = [c for c in named if c not in ids]
            assert not missing, f"{name}: {missing} not in the session"
            assert len({ids[c] for c in named}) <= 1, f"{name}: an episode spans several agents' files: {episode.note}"
            assert all(c >= 1 for c in episode.calls if isinstance(c, int))


def test_sources_name_every_session_and_only_those() -> None:
    text = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    listed = re.findall(r"^## `([^`]+)`$", text, flags=re.MULTILINE)
    assert sorted(listed) == _sessions()
    for block in text.split("\n## ")[1:]:
        for field in ("- source:", "- licence:", "- client:", "- shows:"):
            assert field in block, f"{block.splitlines()[0]} lacks {field}"


def test_malformed_labels_are_refused(tmp_path: Path) -> None:
    scorer = _scorer()
    (tmp_path / "a.jsonl").write_text("{}\n", encoding="utf-8")
    cases: list[dict[str, Any]] = [
        {"sessions": {}},
        {"sessions": {"b.jsonl": {"episodes": []}}},
        {"sessions": {"a.jsonl": {"episodes": [{"class": "loopy", "calls": ["x"]}]}}},
        {"sessions": {"a.jsonl": {"episodes": [{"class": "repeat", "calls": []}]}}},
    ]
    for labels in cases:
        (tmp_path / "labels.json").write_text(json.dumps(labels), encoding="utf-8")
        with pytest.raises(scorer.CorpusError):
            scorer.load_labels(str(tmp_path))


def _hook() -> str:
    beside = os.path.join(os.path.dirname(sys.executable), "loopguard-hook")
    found = beside if os.access(beside, os.X_OK) else shutil.which("loopguard-hook")
    if found is None:
        pytest.skip("no loopguard-hook console script installed")
    return found


@pytest.mark.slow
def test_balanced_never_denies_ordinary_work() -> None:
    (score,) = _scorer().run(str(CORPUS), _hook(), ["balanced"], jobs=1)
    hard = [f for f in score.false if f["action"] in ("deny", "stop")]
    assert hard == []
    assert score.sessions == len(_sessions())


def test_holdout_names_labelled_sessions_marked_in_sources() -> None:
    scorer = _scorer()
    labels = scorer.load_labels(str(CORPUS))
    held = scorer.load_holdout(str(CORPUS), labels)
    assert held, "holdout.json lists the held-out sessions"
    text = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    blocks = {b.split("`", 2)[1]: b for b in text.split("\n## ")[1:]}
    for name in held:
        assert "- held out: yes" in blocks[name], f"{name}: SOURCES.md does not mark it held out"


def test_malformed_holdout_is_refused(tmp_path: Path) -> None:
    scorer = _scorer()
    (tmp_path / "a.jsonl").write_text("{}\n", encoding="utf-8")
    labels = {"a.jsonl": []}
    assert scorer.load_holdout(str(tmp_path), labels) == []
    for holdout in ({"sessions": ["b.jsonl"]}, {"sessions": "a.jsonl"}, ["a.jsonl"]):
        (tmp_path / "holdout.json").write_text(json.dumps(holdout), encoding="utf-8")
        with pytest.raises(scorer.CorpusError):
            scorer.load_holdout(str(tmp_path), labels)
    (tmp_path / "holdout.json").write_text(json.dumps({"sessions": ["a.jsonl"], "note": ""}), encoding="utf-8")
    assert scorer.load_holdout(str(tmp_path), labels) == ["a.jsonl"]


def test_table_prints_a_held_out_line_per_profile() -> None:
    scorer = _scorer()
    scores = [scorer.Score(p) for p in ("balanced", "breaker")]
    lines = scorer.table(scores, [scorer.Score(p) for p in ("balanced", "breaker")]).splitlines()
    assert [ln.split()[0] for ln in lines[1:3]] == ["balanced", "breaker"]
    assert [" ".join(ln.split()[:2]) for ln in lines[3:5]] == ["held-out balanced", "held-out breaker"]
    assert len(scorer.table(scores).splitlines()) == 3
