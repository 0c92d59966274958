"""``extractive``: span extraction with ``AutoModelForQuestionAnswering`` (CamemBERT, BERT, ...).

Long contexts are cut into overlapping features (``max_length`` tokens, ``doc_stride`` tokens of
overlap) with offset mappings; the answer is the best span over the features of the question
(``models_runner.spans``), at most ``max_answer_len`` tokens, sliced from the context text.
"""

from __future__ import annotations

from collections import defaultdict

from models_runner import spans

from .base import BackendError
from .hf import HFBackend


class ExtractiveBackend(HFBackend):
    name = "extractive"
    defaults = {"max_length": 384, "doc_stride": 128, "max_answer_len": 30, "n_best": 20}
    prompt_template = "(question, context) token pair"

    def check_options(self):
        super().check_options()
        for key in ("max_length", "doc_stride", "max_answer_len", "n_best"):
            self.int_option(key)
        if self.options["doc_stride"] >= self.options["max_length"]:
            raise BackendError("doc_stride must be smaller than max_length")

    def load_model(self, path):
        from transformers import AutoModelForQuestionAnswering

        return AutoModelForQuestionAnswering.from_pretrained(path, local_files_only=True, dtype=self.dtype)

    def load(self):
        super().load()
        if not getattr(self.tokenizer, "is_fast", False):
            raise BackendError(f"the tokenizer of {self.model_path} is not a fast tokenizer: offsets are needed")
        self.question_first = self.tokenizer.padding_side == "right"
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and self.options["max_length"] > limit:
            self.options["max_length"] = limit - 2 if limit > 2 else limit
        return self

    def answer(self, items):
        self.ensure_loaded()
        if not items:
            return []
        questions = [it.question.lstrip() for it in items]
        contexts = [it.context for it in items]
        first, second = (questions, contexts) if self.question_first else (contexts, questions)
        encoded = self.tokenizer(
            first,
            second,
            truncation="only_second" if self.question_first else "only_first",
            max_length=self.options["max_length"],
            stride=self.options["doc_stride"],
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            padding="longest",
            return_tensors="pt",
        )
        context_index = 1 if self.question_first else 0
        sample_map = encoded["overflow_to_sample_mapping"].tolist()
        offsets = encoded["offset_mapping"].tolist()
        masks = [[sid == context_index for sid in encoded.sequence_ids(i)] for i in range(len(sample_map))]
        feature_rows = defaultdict(list)
        with self.torch.inference_mode():
            out = self.model(**self.to_device(encoded))
        starts = out.start_logits.float().cpu().numpy()
        ends = out.end_logits.float().cpu().numpy()
        for i, sample in enumerate(sample_map):
            feature_rows[sample].append(
                {"start_logits": starts[i], "end_logits": ends[i], "offsets": offsets[i], "context_mask": masks[i]}
            )
        return [
            spans.best_answer(
                feature_rows[j],
                contexts[j],
                max_answer_len=self.options["max_answer_len"],
                n_best=self.options["n_best"],
            )
            for j in range(len(items))
        ]
