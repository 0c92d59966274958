"""Before/after comparison of the offline report: every output file of ``manage.py report``, value for value.

Runs the offline command of one checkout on the shared SQuAD small data in four variants (plain; with
human labels and a judge, so PPI; majority aggregate; Holm significance), each into ``OUT/<variant>``,
then compares two such folders: report.json parsed and compared as data, every CSV and LaTeX file as
text. The labels and the judge's labels are drawn here, deterministically (seed 0), from the
predictions: the shared data has none.

    .venv/bin/python bench/report_compare.py run --checkout /tmp/wings-before --out /tmp/cmp/before
    .venv/bin/python bench/report_compare.py run --checkout . --out /tmp/cmp/after
    .venv/bin/python bench/report_compare.py diff /tmp/cmp/before /tmp/cmp/after

Exit status 1 when a file differs or is missing on one side.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "squad-v1.1-dev" / "small"
LABELS = ("correct", "partial", "incorrect")


def draw_labels(folder: Path) -> tuple[Path, Path]:
    """Human labels (two annotators on about 60% of the answers) and one judge's labels on all, seed 0."""
    rng = random.Random(0)
    human, judge, seen = [], [], set()
    for line in (DATA / "predictions.jsonl").read_text(encoding="utf-8").splitlines():
        p = json.loads(line)
        key = (p["question_id"], p["answer"])
        if key in seen:
            continue
        seen.add(key)
        truth = rng.choice(LABELS)
        judge.append({**dict(zip(("question_id", "answer"), key)), "annotator": "judge", "label": truth})
        if rng.random() < 0.6:
            for annotator in ("ann1", "ann2"):
                label = truth if rng.random() < 0.8 else rng.choice(LABELS)
                human.append({**dict(zip(("question_id", "answer"), key)), "annotator": annotator, "label": label})
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "labels.jsonl", folder / "judge.jsonl"
    for path, rows in zip(paths, (human, judge)):
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return paths


def variants(labels: Path, judge: Path) -> dict[str, list[str]]:
    with_labels = ["--labels", str(labels)]
    return {
        "plain": [],
        "judge": [*with_labels, "--judge-labels", str(judge)],
        "majority": [*with_labels, "--human-aggregate", "majority"],
        "holm": [*with_labels, "--significance", "holm", "--hard-partitions", "1,2"],
    }


def run(checkout: Path, out: Path, n_boot: int) -> None:
    labels, judge = draw_labels(out / "_inputs")
    python = checkout / ".venv" / "bin" / "python"
    for name, extra in variants(labels, judge).items():
        command = [str(python), "manage.py", "report", "--corpus", str(DATA / "corpus.jsonl")]
        command += ["--predictions", str(DATA / "predictions.jsonl"), "--out", str(out / name)]
        command += ["--bootstrap", str(n_boot), "--no-figures", *extra]
        start = time.perf_counter()
        subprocess.run(command, cwd=checkout, check=True, stdout=subprocess.DEVNULL)
        print(f"{name}: {time.perf_counter() - start:.2f}s")


def diff(before: Path, after: Path) -> int:
    bad = 0
    for variant in sorted(p.name for p in before.iterdir() if p.is_dir() and not p.name.startswith("_")):
        a, b = before / variant, after / variant
        names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
        same = 0
        for name in names:
            if not (a / name).exists() or not (b / name).exists():
                print(f"{variant}/{name}: only {'after' if (b / name).exists() else 'before'}")
                bad += 1
                continue
            if name.endswith(".json"):
                equal = json.loads((a / name).read_text()) == json.loads((b / name).read_text())
            else:
                equal = (a / name).read_bytes() == (b / name).read_bytes()
            if not equal:
                print(f"{variant}/{name}: differs")
                bad += 1
            else:
                same += 1
        print(f"{variant}: {same} of {len(names)} files identical")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--checkout", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--bootstrap", type=int, default=200)
    d = sub.add_parser("diff")
    d.add_argument("before", type=Path)
    d.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        run(args.checkout.resolve(), args.out.resolve(), args.bootstrap)
        return 0
    return diff(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
