"""Model inputs and answer parsing for every backend: pure functions on plain strings.

Paper appendix A.2 (T5 / mT5 / FLAN-T5 input), A.3 (LLaMA-2 few-shot extraction prompt) and
section 4 (one- and two-shot prompting of GPT-3.5 and Mixtral). The paper elides the paragraphs of
its three FQuAD examples (``[...]``); ``FEW_SHOT_EXAMPLES`` keeps the paper's questions and answers
with short stand-in paragraphs that contain those answers. Give the exact FQuAD paragraphs through
the ``examples`` option to reproduce the paper's prompt byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEQ2SEQ_TEMPLATE = "question: {question} contexte : {context}"

EXTRACTION_INSTRUCTION = (
    "Below is a paragraph of text, paired with a question. Extract the sequence of words in the article "
    "that answers the following question, or answer NULL if there are no answers."
)
NO_ANSWER = "NULL"


@dataclass(frozen=True)
class Example:
    context: str
    question: str
    answer: str


FEW_SHOT_EXAMPLES = (
    Example(
        "Après le tournage, Hal B. Wallis envisage une nouvelle scène finale, mais Claude Rains, retenu par "
        "un autre film, ne peut pas se libérer pour la tourner.",
        "Qui ne peut pas se libérer pour la scène envisagée par Wallis ?",
        "Claude Rains",
    ),
    Example(
        "Riquet étudie de façon approfondie l'alimentation en eau du canal ; son projet reste toutefois "
        "imprécis sur le tracé du canal entre Toulouse et la mer.",
        "Quel est l'un des points sur lequel le projet de Riquet reste imprécis ?",
        "tracé du canal",
    ),
    Example(
        "Dans cet intervalle de 31 jours, la maladie ne touche que quelques-uns des habitants du village.",
        "Combien sont-ils à être frappés ?",
        "quelques-uns",
    ),
)


def check_template(template: str, fields=("question", "context")) -> str:
    """A template must name every field in ``fields`` and nothing else (``{question}``, ``{context}``)."""
    if not isinstance(template, str) or not template.strip():
        raise ValueError("the prompt template must be a non-empty string")
    named = set(re.findall(r"(?<!\{)\{(\w*)\}(?!\})", template))
    unknown = named - set(fields)
    missing = set(fields) - named
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)} in template {template!r}; use {list(fields)}")
    if missing:
        raise ValueError(f"template {template!r} lacks {sorted('{' + m + '}' for m in missing)}")
    return template


def seq2seq_input(question: str, context: str, template: str = SEQ2SEQ_TEMPLATE) -> str:
    """The encoder input of the T5 family (paper A.2)."""
    return template.format(question=question.strip(), context=context.strip())


def parse_examples(raw) -> tuple[Example, ...]:
    """``[{"context", "question", "answer"}, ...]`` (JSON-able) -> Examples; ``None`` -> the defaults."""
    if raw is None:
        return FEW_SHOT_EXAMPLES
    if not isinstance(raw, (list, tuple)):
        raise ValueError("examples must be a list of {context, question, answer} objects")
    out = []
    for i, item in enumerate(raw):
        if isinstance(item, Example):
            out.append(item)
            continue
        if not isinstance(item, dict) or set(item) != {"context", "question", "answer"}:
            raise ValueError(f"example {i} must have exactly the keys context, question, answer")
        out.append(Example(str(item["context"]), str(item["question"]), str(item["answer"])))
    return tuple(out)


def _block(context: str, question: str) -> str:
    return f"### Paragraph:\n{context.strip()}\n### Question:\n{question.strip()}\n### Answer:\n"


def few_shot_prompt(
    question: str, context: str, examples=FEW_SHOT_EXAMPLES, *, instruction: str = EXTRACTION_INSTRUCTION
) -> str:
    """The causal-LM extraction prompt of appendix A.3.

    Instruction, two blank lines, then per example ``### Paragraph / ### Question / ### Answer`` with
    the answer in double quotes, examples separated by two blank lines; the query ends right after
    ``### Answer:`` and a newline so that the model writes the quoted answer. (The paper writes
    ``Answer:`` without ``###`` in two of its examples; we use ``### Answer:`` throughout.)
    """
    parts = [instruction.strip()]
    for ex in examples:
        parts.append(_block(ex.context, ex.question) + f'"{ex.answer}"')
    parts.append(_block(context, question))
    return "\n\n\n".join(parts)


def parse_completion(text: str) -> str:
    """Answer from a causal-LM completion: the first quoted string or first line, ``NULL`` -> ``""``.

    The completion is cut at the next ``###`` block or blank line (the model going on with a new
    example), then a leading ``Answer:`` and surrounding quotes are removed.
    """
    text = (text or "").replace("\r\n", "\n")
    text = text.split("###", 1)[0]
    text = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0].strip()
    text = re.sub(r"^(?:answer|réponse)\s*:\s*", "", text, flags=re.IGNORECASE).strip()
    quoted = re.match(r'^["“«]\s*(.*?)\s*["”»]', text, flags=re.DOTALL)
    if quoted:
        text = quoted.group(1)
    else:
        text = text.split("\n", 1)[0].strip().strip('"“”«»').strip()
    return "" if text.upper() == NO_ANSWER or not text else text


CHAT_SYSTEM = EXTRACTION_INSTRUCTION + " Answer with the extracted words only, between double quotes, or NULL."


def chat_messages(
    question: str, context: str, *, shots: int = 1, examples=FEW_SHOT_EXAMPLES, system: str = CHAT_SYSTEM
) -> list[dict]:
    """One- or two-shot chat prompt (paper section 4: GPT-3.5 one-shot, Mixtral two-shot).

    A system message states the extraction requirement; each example is a user turn (paragraph and
    question in the A.3 layout) followed by the assistant's quoted answer; then the real question.
    """
    if shots < 0 or shots > len(examples):
        raise ValueError(f"shots must be between 0 and {len(examples)} (the number of examples), got {shots}")
    messages = [{"role": "system", "content": system}]
    for ex in examples[:shots]:
        messages.append({"role": "user", "content": _block(ex.context, ex.question).rstrip()})
        messages.append({"role": "assistant", "content": f'"{ex.answer}"'})
    messages.append({"role": "user", "content": _block(context, question).rstrip()})
    return messages


def parse_chat_reply(text: str) -> str:
    """Answer from a chat reply: same rules as ``parse_completion``."""
    return parse_completion(text)
