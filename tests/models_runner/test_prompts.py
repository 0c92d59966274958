import pytest

from models_runner import prompts


def test_seq2seq_input_is_the_paper_format():
    assert prompts.seq2seq_input(" Qui ? ", "Le texte.") == "question: Qui ? contexte : Le texte."
    assert prompts.seq2seq_input("Q", "C", "{context} || {question}") == "C || Q"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("question: {question}", "lacks"),
        ("{question} {context} {answer}", "unknown field"),
        ("", "non-empty"),
    ],
)
def test_bad_templates_are_refused(template, message):
    with pytest.raises(ValueError, match=message):
        prompts.check_template(template)


def test_few_shot_prompt_layout():
    text = prompts.few_shot_prompt("Où ?", "Ici et là.")
    assert text.startswith(prompts.EXTRACTION_INSTRUCTION + "\n\n\n### Paragraph:\n")
    assert text.endswith("### Paragraph:\nIci et là.\n### Question:\nOù ?\n### Answer:\n")
    assert text.count("### Paragraph:") == 4  # three examples + the query
    assert '### Answer:\n"Claude Rains"\n\n\n### Paragraph:' in text
    for ex in prompts.FEW_SHOT_EXAMPLES:
        assert ex.answer in ex.context  # the stand-in paragraphs contain their extractive answer


def test_custom_examples_are_checked():
    ex = prompts.parse_examples([{"context": "A B", "question": "Q", "answer": "B"}])
    assert prompts.few_shot_prompt("q", "c", ex).count("### Paragraph:") == 2
    with pytest.raises(ValueError, match="exactly the keys"):
        prompts.parse_examples([{"context": "A", "question": "Q"}])


@pytest.mark.parametrize(
    ("completion", "answer"),
    [
        ('"Claude Rains"\n\n\n### Paragraph:\nautre', "Claude Rains"),
        ("NULL", ""),
        ('"NULL"', ""),
        (" null \n### Paragraph", ""),
        ("Answer: « tracé du canal »", "tracé du canal"),
        ("Denver Broncos\nbecause they won", "Denver Broncos"),
        ('"quelques-uns" est la réponse', "quelques-uns"),
        ("", ""),
        ("### Paragraph:\nrien", ""),
    ],
)
def test_parse_completion(completion, answer):
    assert prompts.parse_completion(completion) == answer


def test_chat_messages_one_and_two_shots():
    one = prompts.chat_messages("Qui ?", "Texte.", shots=1)
    assert [m["role"] for m in one] == ["system", "user", "assistant", "user"]
    assert one[2]["content"] == '"Claude Rains"'
    assert one[-1]["content"] == "### Paragraph:\nTexte.\n### Question:\nQui ?\n### Answer:"
    two = prompts.chat_messages("Qui ?", "Texte.", shots=2)
    assert [m["role"] for m in two] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert two[4]["content"] == '"tracé du canal"'
    with pytest.raises(ValueError, match="shots"):
        prompts.chat_messages("q", "c", shots=4)
