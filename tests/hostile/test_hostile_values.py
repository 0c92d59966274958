"""Hostile values in import files and exports, on whichever database runs the suite (both in CI).

- values no column can hold (NaN, Infinity, 1e400, integers beyond 64 bits, ``dist`` beyond 32 bits,
  ids / language / frame / system / annotator longer than their columns, meta nested hundreds deep)
  are refused with ``file:line`` and the field, and nothing is written; the admin list pages keep
  answering 200;
- fuzzed: a valid file with one hostile value dropped at a random place is refused with its line;
- CSV exports (labels; report tables) neutralise cells starting with ``= + - @``, tab or CR, leave
  numbers alone; download file names are sanitised.
"""

import csv
import io
import json
from types import SimpleNamespace

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Label, Prediction, Question, System, Triplet
from core.safe_json import MAX_DEPTH
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db


def counts():
    return (
        Corpus.objects.count(),
        Question.objects.count(),
        Prediction.objects.count(),
        Triplet.objects.count(),
        System.objects.count(),
        Label.objects.count(),
    )


def nested(depth):
    value = "leaf"
    for _ in range(depth):
        value = {"k": value}
    return value


GOOD_Q = {"id": "n1", "context": "Some context.", "question": "What?", "answers": ["context"]}
CORPUS_CASES = [
    ('{"id": "n1", "context": "c", "question": "q", "answers": ["a"], "frame_freq": NaN}', None, "NaN"),
    ('{"id": "n1", "context": "c", "question": "q", "answers": ["a"], "frame_freq": Infinity}', None, "Infinity"),
    ('{"id": "n1", "context": "c", "question": "q", "answers": ["a"], "x": -Infinity}', None, "Infinity"),
    ('{"id": "n1", "context": "c", "question": "q", "answers": ["a"], "frame_freq": 1e400}', None, "out of range"),
    (
        '{"id": "n1", "context": "c", "question": "q", "answers": ["a"], "x": 123456789012345678901234567890}',
        None,
        "out of range",
    ),
    ({**GOOD_Q, "dist": 1e30}, "dist", "expected int"),
    ({**GOOD_Q, "dist": 2**40}, "dist", "out of range"),
    ({**GOOD_Q, "id": "i" * 201}, "id", "longer than 200"),
    ({**GOOD_Q, "language": "l" * 17}, "language", "longer than 16"),
    ({**GOOD_Q, "frame": "F" * 201}, "frame", "longer than 200"),
    ({**GOOD_Q, "lu_pos": "v" * 41}, "lu_pos", "longer than 40"),
    ({**GOOD_Q, "meta": nested(300)}, None, "nested deeper"),
    ({**GOOD_Q, "unknown": nested(MAX_DEPTH + 5)}, None, "nested deeper"),
    (
        '{"id": "n1", "context": "c", "question": "q", "answers": ["a"], "x": ' + "[" * 5000 + "]" * 5000 + "}",
        None,
        "nested deeper",
    ),
]


@pytest.mark.parametrize(("line", "field", "reason"), CORPUS_CASES)
def test_hostile_corpus_values_refused_with_line(tmp_path, tiny_corpus, line, field, reason):
    before = counts()
    path = write_jsonl(tmp_path / "bad.jsonl", [{**GOOD_Q, "id": "ok1"}, line])
    with pytest.raises(InterchangeError) as err:
        import_corpus(path, "tiny")
    assert err.value.line == 2 and err.value.field == field and reason in err.value.reason, str(err.value)
    assert str(err.value).startswith(f"{path}:2:")
    assert counts() == before


def test_hostile_predictions_and_labels_refused(tmp_path, tiny_corpus):
    before = counts()
    preds = write_jsonl(tmp_path / "p.jsonl", [{"question_id": "q1", "system": "s" * 201, "answer": "x"}])
    with pytest.raises(InterchangeError, match="longer than 200") as err:
        import_predictions(preds, tiny_corpus)
    assert err.value.field == "system"
    preds = write_jsonl(tmp_path / "p2.jsonl", ['{"question_id": "q1", "system": "s", "answer": "x", "score": NaN}'])
    with pytest.raises(InterchangeError, match="NaN"):
        import_predictions(preds, tiny_corpus)
    labels = write_jsonl(
        tmp_path / "l.jsonl",
        [{"question_id": "q1", "answer": "Denver Broncos", "annotator": "a" * 151, "label": "correct"}],
    )
    with pytest.raises(InterchangeError, match="longer than 150") as err:
        import_labels(labels, tiny_corpus)
    assert err.value.field == "annotator"
    assert counts() == before


def test_admin_lists_answer_after_deep_but_allowed_meta(tmp_path, client, make_user):
    """What is accepted (nesting up to MAX_DEPTH) renders on every admin list page."""
    path = write_jsonl(tmp_path / "c.jsonl", [{**GOOD_Q, "meta": nested(MAX_DEPTH - 1)}])
    import_corpus(path, "deep")
    boss = make_user("boss", "admin")
    boss.is_superuser = True
    boss.save()
    client.force_login(boss)
    for url in (
        "/admin/annotation/question/",
        "/admin/annotation/corpus/",
        "/admin/annotation/prediction/",
        "/admin/annotation/triplet/",
    ):
        assert client.get(url).status_code == 200, url


HOSTILE = st.sampled_from(
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "-1e999",
        "99999999999999999999999",
        "[" * 40 + "]" * 40,
        '{"a":' * 30 + "1" + "}" * 30,
    ]
)


@settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(
    n=st.integers(1, 6), where=st.integers(0, 5), value=HOSTILE, key=st.sampled_from(["meta", "extra", "frame_freq"])
)
def test_fuzz_one_hostile_value_anywhere_is_refused_at_its_line(tmp_path_factory, tiny_corpus, n, where, value, key):
    where = where % n
    lines = [json.dumps({**GOOD_Q, "id": f"f{i}"}) for i in range(n)]
    lines[where] = lines[where][:-1] + f', "{key}": {value}}}'
    path = tmp_path_factory.mktemp("fz") / "c.jsonl"
    path.write_text("\n".join(lines) + "\n")
    before = counts()
    with pytest.raises(InterchangeError) as err:
        import_corpus(path, "tiny")
    assert err.value.line == where + 1
    assert counts() == before


# --- CSV exports -------------------------------------------------------------------------------

FORMULAS = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"]


def test_labels_csv_neutralises_formulas_and_keeps_numbers(tmp_path, tiny_corpus, client, make_user):
    write_jsonl(
        tmp_path / "c.jsonl",
        [{"id": f"x{i}", "context": f"ctx {f}", "question": "q?", "answers": [f]} for i, f in enumerate(FORMULAS)],
    )
    import_corpus(tmp_path / "c.jsonl", "formulas")
    corpus = Corpus.objects.get(name="formulas")
    import_labels(
        write_jsonl(
            tmp_path / "l.jsonl",
            [
                {"question_id": f"x{i}", "answer": f, "annotator": "=cmd|' /C calc'!A0", "label": "correct"}
                for i, f in enumerate(FORMULAS)
            ],
        ),
        corpus,
    )
    client.force_login(make_user("res", "researcher"))
    response = client.get("/downloads/labels/?format=csv&corpus=formulas")
    assert response["Content-Disposition"] == 'attachment; filename="labels-formulas.csv"'
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == len(FORMULAS)
    assert sum(row["answer"].startswith("'") for row in rows) >= 4  # tab / CR were stripped at import
    for row in rows:
        assert row["annotator"].startswith("'=")
        float(row["seconds_spent"])  # numbers are left as numbers
        assert not any(v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in row.values())


def test_report_tables_neutralised(tmp_path):
    from evaluation.render.outputs import write_report

    table = pd.DataFrame(
        {"score": [-0.5, 0.25], "note": ["=1+1", "fine"]}, index=pd.Index(["@sys", "-sys"], name="system")
    )
    systems = [
        {
            "system": "=cmd|' /C calc'!A0",
            "n": 1,
            "coverage": 1.0,
            "hscore": 0.5,
            "hcorrect": 0.5,
            "rouge_l": 0.5,
            "f1": 0.5,
            "em": 0.0,
        }
    ]
    report = SimpleNamespace(
        data={"n": 1, "systems": systems}, tables={"scores": table}, bold={}, figures={}, hard_subset=None
    )
    write_report(report, tmp_path, render_figures=False)
    back = pd.read_csv(tmp_path / "scores.csv", index_col=0)
    assert list(back.index) == ["'@sys", "'-sys"] and list(back["note"]) == ["'=1+1", "fine"]
    assert list(back["score"]) == [-0.5, 0.25]
    paper = (tmp_path / "table1_systems.csv").read_text()  # the paper tables go through the same guard
    assert "'=cmd" in paper and "\n=cmd" not in paper and not paper.startswith("=")
    from core.export_safety import csv_cell

    assert [csv_cell(v) for v in ("\tx", "\rx", "-x", "x-", -1, None)] == ["'\tx", "'\rx", "'-x", "x-", -1, None]


def test_download_names_sanitised(client, make_user):
    from core.export_safety import attachment

    Corpus.objects.create(name='evil"\r\nSet-Cookie: a=b')
    client.force_login(make_user("res", "researcher"))
    response = client.get("/downloads/triplet-map/", {"corpus": 'evil"\r\nSet-Cookie: a=b'})
    assert response.status_code == 200
    disposition = response["Content-Disposition"]
    assert (
        "\r" not in disposition and "\n" not in disposition and '"' not in disposition.split("filename=")[1].strip('"')
    )
    assert attachment("../../etc/passwd") == 'attachment; filename="etc_passwd"'
