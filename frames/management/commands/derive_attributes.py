"""Offline SPEC 15: ``python manage.py derive_attributes --in corpus.jsonl --out out.jsonl
[--parser NAME] [--lexicon PATH] [--adaptation adaptation.jsonl] [--overwrite]``.

Files in, files out (SPEC 9 corpus files): no database, no SECRET_KEY (``manage.py`` lists it among
the offline commands). Lines need ``frame`` and ``lu`` to derive from; the others are copied as read.
"""

import json
import time

from django.core.management.base import BaseCommand, CommandError

from annotation import formats
from annotation.interchange import InterchangeError, write_jsonl
from frames import attributes, derivation, parsing
from frames.framenet import SHIPPED_LEXICON, SHIPPED_LEXICON_FR, LexiconError


def read_records(path):
    reader = formats.reader_for(path)
    return [record for _, record in reader(path)]


def without_nones(record):
    return {k: v for k, v in record.items() if v is not None and (k != "meta" or v)}


class Command(BaseCommand):
    help = (
        "Derive trigger_in_question, dist, lu_pos and frame_freq (SPEC 15) from a corpus file with a spaCy "
        "parser, a FrameNet lexicon and an optional adaptation corpus; write the corpus with them."
    )
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--in", dest="source", required=True, help="corpus JSONL (SPEC 9) or SQuAD JSON")
        parser.add_argument("--out", required=True, help="corpus JSONL written with the derived attributes")
        parser.add_argument(
            "--parser", help="spaCy pipeline name (default by the corpus language: fr -> fr_core_news_sm)"
        )
        parser.add_argument(
            "--lexicon",
            help=(
                "FrameNet directory (framenet_v17 layout) or JSON {frame: [LU names]} "
                "(default: the shipped mini one of the corpus language, framenet_fr_mini for fr)"
            ),
        )
        parser.add_argument(
            "--adaptation", help="corpus JSONL whose `frame`s give frame_freq (without it, frame_freq is not derived)"
        )
        parser.add_argument("--overwrite", action="store_true", help="replace imported values too")

    def handle(self, *args, **o):
        try:
            records = read_records(o["source"])
            frequencies = None
            if o["adaptation"]:
                frequencies = attributes.frame_frequencies(r.get("frame") for r in read_records(o["adaptation"]))
            languages = sorted({r["language"] for r in records})
            if len(languages) > 1 and not o["parser"]:
                raise parsing.ParserError(
                    f"the corpus has several languages ({', '.join(languages)}): name the pipeline with --parser"
                )
            name = parsing.pipeline_name(languages[0], o["parser"])
            french = languages[0].split("-")[0].lower() == "fr"
            lexicon = derivation.read_lexicon(o["lexicon"] or (SHIPPED_LEXICON_FR if french else SHIPPED_LEXICON))
            parse, described = derivation.spacy_parser(name)
        except (InterchangeError, LexiconError, parsing.ParserError, OSError) as exc:
            raise CommandError(str(exc)) from None
        source = {**described, "adaptation": o["adaptation"]}
        started = time.perf_counter()
        out, summary = derivation.derive_records(
            records,
            parse,
            lexicon=lexicon,
            options={"source": source, "frequencies": frequencies, "overwrite": o["overwrite"]},
        )
        seconds = time.perf_counter() - started
        with open(o["out"], "w", encoding="utf-8") as stream:
            write_jsonl((without_nones(r) for r in out), stream)
        self.stdout.write(json.dumps(summary, ensure_ascii=False, indent=1))
        if not summary["with_frame"]:
            self.stderr.write(
                "note: no line has both `frame` and `lu`: nothing was derived (import frame annotation or predict "
                "frames first, SPEC 8)"
            )
        self.stdout.write(
            f"{summary['with_frame']} of {summary['questions']} questions with a frame, "
            f"{summary['contexts_parsed']} contexts parsed in {seconds:.1f}s; wrote {o['out']}"
        )
