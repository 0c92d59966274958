"""Questions per second of each local backend (baseline, extractive, seq2seq, causal) at batch sizes
1, 8 and 32 on the device present (cuda if available, else cpu). No database: the backends are
called directly, exactly as the inference job calls them.

    .venv/bin/python bench/inference_bench.py                       # random-weight models built here
    .venv/bin/python bench/inference_bench.py --causal-model /models/llama2-7b --causal-adapter /models/lora
    .venv/bin/python bench/inference_bench.py --backends baseline,extractive --questions 256 --out bench/out/inf.json

Without a model directory for a backend, a random-weight model of ``--size`` (``small``: 4 layers,
hidden 256; ``tiny``: 2 layers, hidden 32) is built locally with a word-level tokenizer trained on
the questions: its answers are meaningless, its cost per question is real for that size (generation
always runs the full 40 new tokens because random weights rarely emit the end token).
Questions come from /work/shared/data/squad-v1.1-dev/small/corpus.jsonl when present.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models_runner import loading, tiny_models  # noqa: E402
from models_runner.backends import LOCAL, QAItem, create_backend  # noqa: E402

SQUAD = (
    Path(os.environ.get("QAEVAL_SHARED_DATA", ROOT.parent / "shared" / "data"))
    / "squad-v1.1-dev"
    / "small"
    / "corpus.jsonl"
)
BUILDERS = {
    "extractive": tiny_models.build_extractive,
    "seq2seq": tiny_models.build_seq2seq,
    "causal": tiny_models.build_causal,
}


def load_questions(n):
    if SQUAD.exists():
        with open(SQUAD, encoding="utf-8") as fh:
            rows = [json.loads(line) for _, line in zip(range(n), fh)]
        return [QAItem(r["id"], r["question"], r["context"], r.get("language", "en")) for r in rows], str(SQUAD)
    context = (
        "The Denver Broncos defeated the Carolina Panthers 24-10 to earn their third Super Bowl title. "
        "The game was played on February 7, 2016, at Levi's Stadium in Santa Clara, California. "
    ) * 3
    return [QAItem(i, f"Which team won game {i}?", context) for i in range(n)], "synthetic (shared data not found)"


def measure(backend, items, batch_size, warmup=True):
    if warmup:
        backend.answer(items[:batch_size])
    sync = getattr(getattr(backend, "torch", None), "cuda", None)
    start = time.perf_counter()
    for i in range(0, len(items), batch_size):
        backend.answer(items[i : i + batch_size])
    if sync is not None and backend.device.startswith("cuda"):
        sync.synchronize()
    elapsed = time.perf_counter() - start
    return len(items) / elapsed, elapsed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backends", default=",".join(LOCAL))
    p.add_argument("--batch-sizes", default="1,8,32")
    p.add_argument("--questions", type=int, default=64, help="questions timed per (backend, batch size)")
    p.add_argument("--device", default="auto")
    p.add_argument("--size", default="small", choices=sorted(tiny_models.SIZES))
    for name in BUILDERS:
        p.add_argument(f"--{name}-model", help=f"local {name} model directory (else a random-weight model is built)")
    p.add_argument("--causal-adapter", help="PEFT LoRA adapter directory for the causal model")
    p.add_argument("--out", help="write the results as JSON here too")
    args = p.parse_args(argv)

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = sorted(set(backends) - set(LOCAL))
    if unknown:
        p.error(f"unknown local backend(s) {unknown}; choose among {list(LOCAL)}")
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    device = loading.resolve_device(args.device)
    import torch

    gpu = torch.cuda.get_device_name(0) if device.startswith("cuda") else ""
    items, source = load_questions(max(args.questions, *sizes))
    print(
        f"device: {device}{' (' + gpu + ')' if gpu else ''}; torch {torch.__version__}; "
        f"{torch.get_num_threads()} CPU threads; {platform.machine()}"
    )
    print(f"questions: {len(items)} from {source}")
    workdir = Path(tempfile.mkdtemp(prefix="inference-bench-"))
    sentences = [it.question for it in items] + [it.context for it in items] + list(tiny_models.DEFAULT_SENTENCES)
    results = []
    for name in backends:
        options = {}
        origin = "no weights"
        if name in BUILDERS:
            given = getattr(args, f"{name}_model")
            if given:
                options["model"], origin = given, f"local model {given}"
            else:
                t0 = time.perf_counter()
                options["model"] = str(BUILDERS[name](workdir / name, size=args.size, sentences=sentences))
                origin = f"built locally, random weights, size {args.size} ({time.perf_counter() - t0:.1f}s to build)"
            if name == "causal" and args.causal_adapter:
                options["adapter"] = args.causal_adapter
        backend = create_backend(name, options, device=device)
        t0 = time.perf_counter()
        backend.load()
        load_s = time.perf_counter() - t0
        print(f"\n{name}: {origin}; loaded in {load_s:.2f}s on {backend.device}")
        for bs in sizes:
            qps, elapsed = measure(backend, items[: max(args.questions, bs)], bs)
            print(f"  batch {bs:>3}: {qps:9.1f} questions/s  ({elapsed:.2f}s for {max(args.questions, bs)})")
            results.append(
                {
                    "backend": name,
                    "batch_size": bs,
                    "questions": max(args.questions, bs),
                    "qps": round(qps, 2),
                    "seconds": round(elapsed, 3),
                    "device": backend.device,
                    "model": origin,
                    "revision": backend.describe()["revision"],
                }
            )
        del backend
        if device.startswith("cuda"):
            torch.cuda.empty_cache()
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(
            json.dumps({"device": device, "gpu": gpu, "source": source, "results": results}, indent=2)
        )
        print(f"\nwrote {args.out}")
    return results


if __name__ == "__main__":
    main()
