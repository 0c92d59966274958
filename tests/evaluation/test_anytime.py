"""SPEC 16: confidence sequences that hold however often they are watched (radius, per-system
sequences, the report's fields), each checked against a computation written out here with numpy
and math, independently of ``evaluation.science.anytime``."""

import json
import math

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from evaluation.science import anytime
from tests.conftest import write_jsonl

SCORE = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}


GRID = np.arange(2001) / 2000


def _naive(h, f=None, f_all=None, *, alpha, N):
    """SPEC 16 (amended) written out term by term over the full grid, each past quantity summed afresh
    from its definition: (low, high) of the running intersection, the last non-empty set if it empties."""
    h = [float(v) for v in h]
    ppi = f is not None
    xs, log_kp, log_km = [], np.zeros(len(GRID)), np.zeros(len(GRID))
    kept, last = np.ones(len(GRID), dtype=bool), (0.0, 1.0)
    for i in range(1, len(h) + 1):
        past_h = h[: i - 1]
        if ppi:
            past_f = list(f[: i - 1])
            lam = 0.0
            if i - 1 >= 2 and np.var(past_f, ddof=1) > 1e-12:
                lam = min(max(np.cov(past_h, past_f, ddof=1)[0, 1] / np.var(past_f, ddof=1), 0.0), 1.0)
            mu_f = (sum(f_all) - sum(past_f)) / (N - i + 1)
            x, lo, hi = h[i - 1] - lam * (f[i - 1] - mu_f), -lam * (1 - mu_f), 1 + lam * mu_f
        else:
            x, lo, hi = h[i - 1], 0.0, 1.0
        mhat = [(0.5 + sum(xs[:j])) / (j + 1) for j in range(1, i)]  # mhat_j after term j
        s2 = (0.25 + sum((xs[j - 1] - mhat[j - 1]) ** 2 for j in range(1, i))) / i
        b = math.sqrt(2 * math.log(2 / alpha) / (s2 * i * math.log(i + 1)))
        mu = (N * GRID - sum(past_h)) / (N - i + 1)
        with np.errstate(divide="ignore"):
            bet_p = np.where(mu - lo > 0, np.minimum(b, 0.5 / (mu - lo)), b)
            bet_m = np.where(hi - mu > 0, np.minimum(b, 0.5 / (hi - mu)), b)
        log_kp = log_kp + np.log(1 + bet_p * (x - mu))
        log_km = log_km + np.log(1 - bet_m * (x - mu))
        kept = kept & (np.maximum(np.exp(log_kp), np.exp(log_km)) / 2 < 1 / alpha)
        if kept.any():
            last = (GRID[kept].min(), GRID[kept].max())
        xs.append(x)
    return last


def _cases():
    rng = np.random.default_rng(5)
    out = []
    for N, n in ((200, 120), (60, 60), (500, 90)):
        h = rng.choice([0.0, 0.5, 1.0], size=N, p=[0.25, 0.15, 0.6])
        f_all = np.clip(h + rng.choice([0.0, 0.5, -0.5], size=N, p=[0.7, 0.15, 0.15]), 0, 1)
        out.append(("random", h[:n], f_all[:n], f_all))
    ones = np.ones(80)
    out += [
        ("all equal", ones[:50], ones[:50], ones),
        ("all zero", np.zeros(40), np.full(40, 0.5), np.full(100, 0.5)),
        ("one label", np.array([0.5]), np.array([1.0]), rng.choice([0.0, 1.0], size=30)),
        ("N = 2", np.array([1.0, 0.0]), np.array([1.0, 0.5]), np.array([1.0, 0.5])),
        ("N = 2, one", np.array([0.5]), np.array([0.5]), np.array([0.5, 1.0])),
        ("constant judge", rng.choice([0.0, 1.0], size=70), np.ones(70), np.ones(150)),
        ("labels 1 or 0.5", rng.choice([1.0, 0.5], size=90, p=[0.9, 0.1]), np.ones(90), np.ones(120)),
        ("judge against", np.r_[np.ones(20), np.zeros(20)], np.r_[np.zeros(20), np.ones(20)],
         np.r_[np.zeros(20), np.ones(20), np.ones(30)]),
    ]  # fmt: skip
    return out


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_sequence_equals_spec16_written_out(case):
    _name, h, f, f_all = case
    N, alpha = len(f_all), 0.025
    s = anytime.sequence(h, f, f_all, alpha=alpha)
    classical = anytime.sequence(h, alpha=alpha, population=N)
    expect_ppi, expect_classical = _naive(h, f, f_all, alpha=alpha, N=N), _naive(h, alpha=alpha, N=N)
    assert (s["low"], s["high"]) == pytest.approx(expect_ppi, abs=1e-12)
    assert (s["classical_low"], s["classical_high"]) == pytest.approx(expect_classical, abs=1e-12)
    assert (classical["low"], classical["high"]) == pytest.approx(expect_classical, abs=1e-12)
    assert classical["lambda"] is None and not classical["ppi"] and s["ppi"]
    assert s["classical"] == pytest.approx(np.mean(h)) and s["n"] == len(h)
    if len(h) < N:  # never zero width before every prediction is labelled (none of these empties)
        assert s["high"] > s["low"] and s["classical_high"] > s["classical_low"]


def test_sequence_at_no_label_and_errors():
    s = anytime.sequence([], alpha=0.05, population=10)
    assert (s["low"], s["high"], s["classical"], s["estimate"]) == (0.0, 1.0, None, None)
    with pytest.raises(ValueError, match="population"):
        anytime.sequence([1.0], alpha=0.05)
    with pytest.raises(ValueError, match="more labels"):
        anytime.sequence([1.0, 1.0, 0.0], alpha=0.05, population=2)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        anytime.sequence([1.5], alpha=0.05, population=4)


def test_thirty_equal_labels_are_not_zero_width_and_the_truth_stays_inside():
    """The audit's case: a system whose first 30 labels are all equal (reference answers, 1 or 0.5)."""
    s = anytime.sequence(np.ones(30), alpha=0.05 / 11, population=1000)
    assert s["low"] < 0.95 and s["high"] == 1.0
    rng = np.random.default_rng(2)
    misses = 0
    for _ in range(200):
        population = rng.choice([1.0, 0.5], size=400, p=[0.9, 0.1])
        order = rng.permutation(400)[:300]
        truth = population.mean()
        capital = anytime.Capital(0.05, 400)
        for start in range(0, 300, 25):  # read the sequence after every 25 labels
            capital.update(population[order[start : start + 25]])
            low, high = capital.bounds()
            if not low - 1e-12 <= truth <= high + 1e-12:
                misses += 1
                break
    assert misses <= 20  # alpha = 5% of 200 is 10: at most twice that (binomial tail < 1e-3)


def test_the_sequence_is_a_running_intersection():
    rng = np.random.default_rng(8)
    h = rng.choice([0.0, 1.0], size=300)
    widths = [anytime.sequence(h[:n], alpha=0.05, population=300) for n in (10, 50, 100, 200, 300)]
    lows, highs = [w["low"] for w in widths], [w["high"] for w in widths]
    assert lows == sorted(lows) and highs == sorted(highs, reverse=True)


def _scores(rng, systems=("a", "b", "c"), n=150, judge=True, degenerate=False):
    import pandas as pd

    rows = []
    for s_i, system in enumerate(systems):
        for i in range(n):
            h = 1.0 if degenerate and s_i == 0 else float(rng.choice([0.0, 0.5, 1.0]))
            f = (
                (1.0 if degenerate and s_i == 1 else min(1.0, max(0.0, h + rng.choice([0.0, 0.5, -0.5]))))
                if judge
                else np.nan
            )
            rows.append({"system": system, "tkey": f"{system}{i}", "h_hscore": h, "h_hcorrect": float(h == 1.0),
                         "f_hscore": f, "f_hcorrect": float(f == 1.0) if judge else np.nan})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("seed", "judge", "degenerate"), [(1, True, False), (2, False, False), (3, True, True), (4, False, True)]
)
def test_incremental_sequences_equal_the_full_recomputation(seed, judge, degenerate):
    """The background job's step carries each grid value's capital forward; bit for bit the full
    recomputation, whatever the pieces the labels arrive in (random and degenerate data)."""
    rng = np.random.default_rng(seed)
    full = _scores(rng, judge=judge, degenerate=degenerate)
    arrival = list(rng.permutation(full["tkey"].to_numpy()))
    state, seen = None, 0
    for step in [*sorted(rng.choice(np.arange(1, len(arrival)), size=6, replace=False)), len(arrival)]:
        seen = int(step)
        now = full.copy()
        unlabelled = ~now["tkey"].isin(set(arrival[:seen]))
        now.loc[unlabelled, ["h_hscore", "h_hcorrect"]] = np.nan
        rows, state = anytime.advance(state, now, arrival=arrival[:seen])
        assert rows == anytime.sequence_rows(now, arrival=arrival[:seen]), seen
    # a triplet's score changed after it entered (a second annotator): that system is recomputed
    changed = full.copy()
    changed.loc[changed["tkey"] == arrival[0], ["h_hscore", "h_hcorrect"]] = [0.5, 0.0]
    rows, _state = anytime.advance(state, changed, arrival=arrival)
    assert rows == anytime.sequence_rows(changed, arrival=arrival)
    # labels enter in arrival order, not in the order of the rows
    one = full[full["system"] == "b"]
    h = one.set_index("tkey").loc[[k for k in arrival if k.startswith("b")], "h_hscore"].to_numpy()
    row = next(r for r in rows if (r.system, r.metric) == ("b", "hscore"))
    expected = anytime.sequence(h, alpha=0.05 / 3, population=len(one))
    assert (row.classical_cs_low, row.classical_cs_high) == (expected["low"], expected["high"])


def test_stored_state_survives_a_round_trip_through_plain_arrays():
    rng = np.random.default_rng(9)
    capital = anytime.Capital(0.01, 500, rng.random(500))
    capital.update(rng.choice([0.0, 1.0], size=100), rng.random(100))
    again = anytime.Capital.from_state(
        {k: (np.asarray(v) if not isinstance(v, dict) else v) for k, v in capital.to_state().items()}
    )
    more_h, more_f = rng.choice([0.0, 1.0], size=50), rng.random(50)
    capital.update(more_h, more_f)
    again.update(more_h, more_f)
    assert capital.bounds() == again.bounds() and np.array_equal(capital.log_kp, again.log_kp)


def _files(tmp_path, n_q=120, labelled=(70, 45)):
    """Two systems on ``n_q`` questions; a three-valued human label on the first ``labelled`` of each,
    written to the file in a shuffled order with a ``created_at`` that gives the order they arrived in
    (question order); a judge that is right 80% of the time (deterministically) on every prediction."""
    rng = np.random.default_rng(11)
    questions = [
        {"id": f"q{i}", "context": f"T{i} won.", "question": f"Who {i}?", "answers": [f"T{i}"]} for i in range(n_q)
    ]
    preds, labels, judge, truth = [], [], [], {}
    values = list(SCORE)
    for s_index, (system, n_lab) in enumerate(zip(("sys-a", "sys-b"), labelled, strict=True)):
        for i in range(n_q):
            answer = f"{system} says {i}"
            preds.append({"question_id": f"q{i}", "system": system, "answer": answer})
            human = values[int(rng.integers(0, 3)) if s_index else int(rng.choice(3, p=[0.6, 0.2, 0.2]))]
            judged = human if rng.random() < 0.8 else values[int(rng.integers(0, 3))]
            judge.append({"question_id": f"q{i}", "answer": answer, "annotator": "judge-j", "label": judged})
            truth[(system, i)] = (human, judged)
            if i < n_lab:
                at = f"2026-12-0{1 + s_index}T{i // 60:02d}:{i % 60:02d}:00+00:00"
                labels.append({"question_id": f"q{i}", "answer": answer, "annotator": "ann", "label": human,
                               "created_at": at})  # fmt: skip
    labels = [labels[k] for k in rng.permutation(len(labels))]  # file order is not the arrival order
    paths = [
        write_jsonl(tmp_path / f"{n}.jsonl", rows)
        for n, rows in (("c", questions), ("p", preds), ("l", labels), ("j", judge))
    ]
    return paths, truth


def _expected(truth, system, metric, n_q, n_lab, alpha):
    """SPEC 16 written out (``_naive``) on the labels in created_at order, and SPEC 10's point estimate
    with lambda over all n labels (report scale)."""
    value = (lambda lab: SCORE[lab]) if metric == "hscore" else (lambda lab: float(lab == "correct"))
    scale = 1.0 if metric == "hscore" else 100.0
    h = np.array([value(truth[(system, i)][0]) for i in range(n_lab)])
    f_all = np.array([value(truth[(system, i)][1]) for i in range(n_q)])
    f, f_u = f_all[:n_lab], f_all[n_lab:]
    n, n_u = n_lab, n_q - n_lab
    var_all = np.var(f_all, ddof=1)
    lam = min(max(np.cov(h, f, ddof=1)[0, 1] / ((1 + n / n_u) * var_all), 0.0), 1.0) if var_all > 0 else 0.0
    est = np.mean(h - lam * f) + lam * np.mean(f_u)
    low, high = _naive(h, f, f_all, alpha=alpha, N=n_q)
    c_low, c_high = _naive(h, alpha=alpha, N=n_q)
    return {
        "cs_estimate": est * scale,
        "cs_low": low * scale,
        "cs_high": high * scale,
        "classical_cs_low": c_low * scale,
        "classical_cs_high": c_high * scale,
    }


def _report(tmp_path, paths, **options):
    corpus, preds, labels, judge = paths
    out = tmp_path / "out"
    call_command(
        "report",
        corpus=str(corpus),
        predictions=str(preds),
        labels=str(labels),
        judge_labels=str(judge),
        out=str(out),
        bootstrap=0,
        no_figures=True,
        no_reference_system=True,
        **options,
    )
    return json.loads((out / "report.json").read_text()), out


@pytest.mark.parametrize("tie_margin", [None, 0.05])
def test_offline_report_writes_spec16_sequences(tmp_path, tie_margin):
    paths, truth = _files(tmp_path)
    data, out = _report(tmp_path, paths, **({"tie_margin": tie_margin} if tie_margin else {}))
    rows = {(r["system"], r["metric"]): r for r in data["ppi"]}
    for system, n_lab in (("sys-a", 70), ("sys-b", 45)):
        for metric in ("hscore", "hcorrect"):
            row = rows[(system, metric)]
            assert "n_plan" not in row and row["alpha_split"] == pytest.approx(0.025)
            expected = _expected(truth, system, metric, 120, n_lab, 0.025)
            for key, value in expected.items():
                assert row[key] == pytest.approx(value, abs=1e-9), (system, metric, key)
            live = next(r for r in data["live"]["rows"] if (r["system"], r["metric"]) == (system, metric))
            assert live["n"] == n_lab and live["estimate"] == pytest.approx(expected["cs_estimate"], abs=1e-9)
            assert (live["cs_low"], live["cs_high"]) == pytest.approx(
                (expected["cs_low"], expected["cs_high"]), abs=1e-9
            )
            width = 0.02 if metric == "hscore" else 2.0
            assert live["done"] == ((expected["cs_high"] - expected["cs_low"]) / 2 <= width)
    pairs = [p for p in data["live"]["settled_pairs"] if p["metric"] == "hscore"]
    a, b = rows[("sys-a", "hscore")], rows[("sys-b", "hscore")]
    assert pairs[0]["settled"] == (a["cs_low"] > b["cs_high"] or b["cs_low"] > a["cs_high"])
    assert data["live"]["tie_margin"] == (tie_margin or 0.02) and data["live"]["tied_pairs"] == []
    assert data["config"]["tie_margin"] == (tie_margin or 0.02) and "n_plan" not in data["config"]
    latex = (out / "table_ppi.tex").read_text()
    assert "confidence sequence" in latex and "watched" in latex


def test_the_labels_order_changes_the_sequence_and_the_reference_counts_as_a_system(tmp_path):
    paths, truth = _files(tmp_path, labelled=(70, 20))
    data, _out = _report(tmp_path, paths)
    few = next(r for r in data["ppi"] if r["system"] == "sys-b" and r["metric"] == "hscore")
    assert few["n_human"] == 20 and 0 <= few["cs_low"] < few["cs_high"] <= 1  # wide, never [x, x]
    # without created_at the file order is the arrival order: other bounds, as SPEC 16 written out says
    corpus, preds, labels, judge = paths
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    write_jsonl(labels, [{k: v for k, v in r.items() if k != "created_at"} for r in rows])
    undated, _out = _report(tmp_path, paths)
    order = [int(r["question_id"][1:]) for r in rows if r["answer"].startswith("sys-a")]
    value = [SCORE[truth[("sys-a", i)][0]] for i in order]
    low, high = _naive(value, alpha=0.025, N=120)
    row = next(r for r in undated["ppi"] if (r["system"], r["metric"]) == ("sys-a", "hscore"))
    assert (row["classical_cs_low"], row["classical_cs_high"]) == pytest.approx((low, high), abs=1e-12)
    out = tmp_path / "with-reference"
    call_command("report", corpus=str(corpus), predictions=str(preds), labels=str(labels), judge_labels=str(judge),
                 out=str(out), bootstrap=0, no_figures=True)  # fmt: skip
    data = json.loads((out / "report.json").read_text())
    assert {r["system"] for r in data["ppi"]} == {"reference", "sys-a", "sys-b"}  # not ROVER
    assert all(r["alpha_split"] == pytest.approx(0.05 / 3) for r in data["ppi"])


def test_live_section_without_a_judge_is_classical(tmp_path):
    paths, truth = _files(tmp_path)
    corpus, preds, labels, _judge = paths
    out = tmp_path / "no-judge"
    call_command("report", corpus=str(corpus), predictions=str(preds), labels=str(labels), out=str(out),
                 bootstrap=0, no_figures=True, no_reference_system=True)  # fmt: skip
    data = json.loads((out / "report.json").read_text())
    assert data["ppi"] == []
    row = next(r for r in data["live"]["rows"] if (r["system"], r["metric"]) == ("sys-a", "hscore"))
    expected = _expected(truth, "sys-a", "hscore", 120, 70, 0.025)
    assert (row["cs_low"], row["cs_high"]) == pytest.approx(
        (expected["classical_cs_low"], expected["classical_cs_high"]), abs=1e-9
    )


def test_tie_margin_must_be_a_share_of_the_range(tmp_path):
    paths, _truth = _files(tmp_path)
    with pytest.raises(CommandError, match=r"tie_margin|tie-margin|0\.5"):
        _report(tmp_path, paths, tie_margin=0.9)


def test_settled_pairs_and_ranking():
    rows = [
        {"system": "a", "metric": "hscore", "cs_estimate": 0.8, "cs_low": 0.76, "cs_high": 0.84},
        {"system": "b", "metric": "hscore", "cs_estimate": 0.7, "cs_low": 0.65, "cs_high": 0.75},
        {"system": "c", "metric": "hscore", "cs_estimate": 0.62, "cs_low": 0.5, "cs_high": 0.74},
    ]
    pairs = {tuple(p["systems"]): p for p in anytime.settled(rows, "hscore")}
    assert pairs[("a", "b")]["ahead"] == "a" and pairs[("a", "c")]["settled"] and not pairs[("b", "c")]["settled"]
    assert not anytime.ranking_settled(rows) and anytime.ranking_settled(rows[:2])
    assert anytime.is_done(rows[0], 0.04) and not anytime.is_done(rows[2], 0.04)


def test_tied_within_delta_settles_a_near_tie():
    near = [
        {"system": "a", "metric": "hscore", "cs_estimate": 0.712, "cs_low": 0.700, "cs_high": 0.715},
        {"system": "b", "metric": "hscore", "cs_estimate": 0.709, "cs_low": 0.703, "cs_high": 0.718},
        {"system": "c", "metric": "hscore", "cs_estimate": 0.5, "cs_low": 0.45, "cs_high": 0.55},
    ]
    assert [p["systems"] for p in anytime.tied_pairs(near, "hscore")] == [["a", "b"]]
    assert anytime.ranking_settled(near) and not any(p["settled"] for p in anytime.settled(near[:2], "hscore"))
    # 0.718 - 0.700 = 0.018: tied within 0.02, not within 0.01
    assert anytime.tied_pairs(near, "hscore", 0.01) == [] and not anytime.ranking_settled(near, 0.01)
    pct = [{**r, "metric": "hcorrect", **{k: r[k] * 100 for k in ("cs_estimate", "cs_low", "cs_high")}} for r in near]
    assert [p["systems"] for p in anytime.tied_pairs(pct, "hcorrect")] == [["a", "b"]]  # delta on the % scale
    live = anytime.live_from_rows(near, has_judge=False, margin=0.02)
    assert live["stop"] and live["tied_pairs"][0]["systems"] == ["a", "b"] and live["tie_margin"] == 0.02
    with pytest.raises(ValueError, match="tie margin"):
        anytime.live_from_rows(near, has_judge=False, margin=-0.1)


def test_report_page_says_which_interval_to_quote(tmp_path):
    from django.template.loader import render_to_string
    from django.utils import translation

    from evaluation.render.page import report_page

    paths, _truth = _files(tmp_path)
    data, _out = _report(tmp_path, paths)
    html = render_to_string("evaluation/_report_judge.html", {"page": report_page(data), "data": data})
    assert "Which interval to quote:" in html and "whenever the labelling stopped" in html
    row = next(r for r in data["ppi"] if (r["system"], r["metric"]) == ("sys-a", "hscore"))
    assert f"{row['cs_low']:.3f} – {row['cs_high']:.3f}" in html
    with translation.override("fr"):
        french = render_to_string("evaluation/_report_judge.html", {"page": report_page(data), "data": data})
    assert "Quel intervalle citer" in french


def test_a_capital_keeps_its_last_row_not_the_blocks_matrix():
    """Issue 46: a capital carried forward keeps a grid's worth of numbers, not the last block's
    (block x 2001) matrices its row was cut from; a report holds one capital per system, metric and kind
    of sequence, so a view kept them all alive (the 10x report's peak)."""
    from stats.betting import CHUNK, GRID, Capital

    rng = np.random.default_rng(0)
    n = 2 * CHUNK + 100
    for f_all in (None, rng.random(n)):
        capital = Capital(0.05, n, f_all)
        h = rng.integers(0, 2, CHUNK + 44).astype(float)
        capital.update(h, None if f_all is None else f_all[: len(h)])
        for row in (capital.log_kp, capital.log_km, capital.kept):
            assert row.shape == GRID.shape and row.base is None  # its own data: no matrix behind it
