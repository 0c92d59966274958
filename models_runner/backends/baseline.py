"""``baseline``: sliding-window lexical overlap (``models_runner.lexical``), no weights, no torch."""

from __future__ import annotations

import time

from models_runner import lexical

from .base import Backend


class BaselineBackend(Backend):
    name = "baseline"
    defaults = {
        "window": 10,
        "max_answer_words": 4,
        # Seconds to sleep per batch: simulates a slow model (used to test kill and resume).
        "delay_s": 0.0,
    }
    prompt_template = "(none: lexical overlap heuristic, see models_runner/lexical.py)"

    def check_options(self):
        super().check_options()
        self.int_option("window")
        self.int_option("max_answer_words")
        self.number_option("delay_s")

    def load(self):
        self.device = "cpu"
        self.revision = "lexical-v1"
        return super().load()

    def answer(self, items):
        self.ensure_loaded()
        if self.options["delay_s"]:
            time.sleep(self.options["delay_s"])
        return [
            lexical.extract_answer(
                it.question,
                it.context,
                window=self.options["window"],
                max_answer_words=self.options["max_answer_words"],
            )
            for it in items
        ]
