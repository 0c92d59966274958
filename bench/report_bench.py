"""Time the offline report computation (evaluation.report.pipeline.compute_report).

What is timed: the computation from the three DataFrames (scoring every prediction, triplet join,
ROVER, the seven factors for every metric with Mann-Whitney tests, Table 3, per frame, the two-factor
combinations, Krippendorff's alpha, bootstrap CIs, Holm). Not timed: reading the files (printed
apart for SQuAD), writing files and rendering figures.

    .venv/bin/python bench/report_bench.py                 # SQuAD dev + 25k/50k/100k x 50 generated
    .venv/bin/python bench/report_bench.py --sizes 25000   # fewer generated sizes
    .venv/bin/python bench/report_bench.py --no-squad --gen-repeat 3

Each generated size prints its best wall time with the process CPU seconds of that run (all
threads; on a shared machine CPU seconds are the figure to compare before / after a change) and
the seconds per 1,000 questions; the last lines compare them across sizes (constant seconds per
1,000 questions = linear growth). The default sizes end with the 100k questions x 50 systems
figure (issue 13: under 10 s on a quiet machine). For CPU figures comparable between runs, set
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 (the bootstrap runs its own threads).
"""

import argparse
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from evaluation.report.config import ReportConfig  # noqa: E402
from evaluation.report.inputs import read_inputs  # noqa: E402
from evaluation.report.pipeline import compute_report  # noqa: E402

SQUAD = pathlib.Path(os.environ.get("QAEVAL_SHARED_DATA", ROOT.parent / "shared" / "data")) / "squad-v1.1-dev"


def generate(n_questions, n_systems, seed=0):
    """A corpus with SPEC 6 attributes, n_systems systems of varied quality, and labels for every
    triplet (10% of them twice)."""
    rng = np.random.default_rng(seed)
    ids = np.array([f"g{i}" for i in range(n_questions)], dtype=object)
    n_frames = 120
    frame_idx = rng.integers(0, n_frames, n_questions)
    lus_per_frame = rng.integers(1, 6, n_frames)
    lu_idx = (rng.random(n_questions) * lus_per_frame[frame_idx]).astype(int)
    refs = [f"answer {i} words {i % 97}" for i in range(n_questions)]
    n_fes = rng.integers(0, 6, n_questions)
    fe_names = [["Agent", "Theme", "Place", "Time", "Manner"][:k] for k in n_fes]
    questions = pd.DataFrame(
        {
            "context": "a context",
            "question": "a question?",
            "answers": [[r] for r in refs],
            "language": "en",
            "frame": [f"Frame_{f}" for f in frame_idx],
            "lu": [f"lu{f}_{u}.v" for f, u in zip(frame_idx, lu_idx)],
            "lu_pos": np.where(rng.random(n_questions) < 0.4, "noun", "verb"),
            "frame_elements": fe_names,
            "coref": rng.random(n_questions) < 0.1,
            "dist": rng.integers(0, 5, n_questions),
            "trigger_in_question": rng.random(n_questions) < 0.55,
            "frame_freq": rng.random(n_questions) * 1000,
            "meta": [{}] * n_questions,
        },
        index=pd.Index(ids, name="question_id"),
    )
    difficulty = rng.random(n_questions)
    skill = np.linspace(0.9, 0.4, n_systems)
    draw = rng.random((n_questions, n_systems))
    correct = draw < skill[None, :] * (1.2 - difficulty[:, None])
    variant = ~correct & (draw < skill[None, :] + 0.15)
    wrong = rng.integers(0, 3, (n_questions, n_systems))
    qs, ss = np.meshgrid(np.arange(n_questions), np.arange(n_systems), indexing="ij")
    answers = np.where(correct, 0, np.where(variant, 1, 2 + wrong)).ravel()
    texts = np.empty(answers.size, dtype=object)
    qi = qs.ravel()
    forms = [
        lambda q: refs[q],
        lambda q: refs[q] + " indeed",
        lambda q: f"wrong {q}",
        lambda q: f"other thing {q % 13}",
        lambda q: f"nothing at all {q}",
    ]
    for code, form in enumerate(forms):
        where = np.flatnonzero(answers == code)
        texts[where] = [form(q) for q in qi[where]]
    predictions = pd.DataFrame(
        {
            "question_id": ids[qi],
            "system": np.array([f"sys{s:02d}" for s in range(n_systems)], dtype=object)[ss.ravel()],
            "answer": texts,
        }
    )
    triplets = predictions.drop_duplicates(["question_id", "answer"])[["question_id", "answer"]]
    label_of = np.array(["correct", "partial", "incorrect"], dtype=object)
    first = triplets.assign(
        annotator=np.array([f"ann{i}" for i in range(10)], dtype=object)[rng.integers(0, 10, len(triplets))],
        label=label_of[rng.choice(3, len(triplets), p=[0.6, 0.15, 0.25])],
    )
    second = first.sample(frac=0.1, random_state=seed).assign(
        annotator=lambda d: d["annotator"].map(lambda a: "ann" + str((int(a[3:]) + 1) % 10)),
        label=lambda d: label_of[rng.choice(3, len(d), p=[0.6, 0.15, 0.25])],
    )
    labels = pd.concat([first, second], ignore_index=True)
    return questions, predictions, labels


def timed(fn, repeat):
    """(best wall seconds, process CPU seconds of that run, result) of ``repeat`` runs of ``fn``.

    CPU seconds are ``time.process_time`` (every thread of the process): on a shared machine they
    move far less than wall seconds, so they are the figure to compare before / after a change."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        if wall < best:
            best, best_cpu = wall, cpu
    return best, best_cpu, result


def time_generated(size, args):
    """(questions, best seconds, seconds per 1,000 questions, CPU seconds per 1,000 questions) of one
    generated size, printed."""
    q, p, labels = generate(size, args.systems)
    config = ReportConfig(n_boot=args.bootstrap)
    seconds, cpu, report = timed(lambda: compute_report(q, p, labels, config=config), args.gen_repeat)
    per_k = 1000 * seconds / size
    print(
        f"generated: {size} questions x {args.systems} systems ({len(p)} predictions, {len(labels)} labels, "
        f"{len(report.data['factors'])} factor tables): {seconds:.2f} s wall, {cpu:.2f} s CPU "
        f"(best of {args.gen_repeat}) = {per_k:.3f} s per 1,000 questions",
        flush=True,
    )
    return size, seconds, per_k, 1000 * cpu / size


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="25000,50000,100000")
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per SQuAD measurement (best is printed)")
    parser.add_argument("--gen-repeat", type=int, default=2, help="runs per generated size (best is printed)")
    parser.add_argument("--no-squad", action="store_true")
    args = parser.parse_args()
    print(
        f"timing compute_report (file reading, writing and figures excluded); bootstrap {args.bootstrap}; "
        f"{os.cpu_count()} CPUs; best of N runs (the machine may be shared: compare ratios)"
    )
    if args.no_squad:
        pass
    elif SQUAD.exists():
        started = time.perf_counter()
        q, p, labels = read_inputs(SQUAD / "corpus.jsonl", SQUAD / "predictions.jsonl")
        read_s = time.perf_counter() - started
        for n_boot in (args.bootstrap, 0):
            config = ReportConfig(n_boot=n_boot)
            best, cpu, report = timed(lambda: compute_report(q, p, labels, config=config), args.repeat)  # noqa: B023
            print(
                f"SQuAD v1.1 dev: {len(q)} questions x {len(report.data['systems']) - 1} systems, bootstrap {n_boot}: "
                f"{best:.2f} s wall, {cpu:.2f} s CPU (best of {args.repeat}); reading the JSONL files: {read_s:.2f} s"
            )
    else:
        print(f"SQuAD data not found at {SQUAD}: skipped")
    rows = [time_generated(size, args) for size in [int(s) for s in args.sizes.split(",") if s]]
    if len(rows) > 1:
        print("seconds per 1,000 questions: " + ", ".join(f"{n}: {k:.3f}" for n, _, k, _ in rows))
        print("CPU seconds per 1,000 questions: " + ", ".join(f"{n}: {c:.3f}" for n, _, _, c in rows))
        (n0, t0, _, _), (n1, t1, _, _) = rows[0], rows[-1]
        print(
            f"growth {n0} -> {n1} questions: x{n1 / n0:.1f} data, x{t1 / t0:.2f} time "
            f"(x{t1 / t0 / (n1 / n0):.2f} per question; 1.00 = linear)"
        )


if __name__ == "__main__":
    main()
