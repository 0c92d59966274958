"""The languages of the platform, one ``Language`` record each: the one home of what a language changes.

A corpus (and every question) carries a language tag; only its primary subtag counts (``fr-CA`` is
``fr``, everywhere: :func:`primary`). Its record says how the metrics normalize answers
(``evaluation.science.metrics``: the normalizer and the articles dropped), which spaCy pipeline
derives the attributes (``frames.parsing``), in which words the frame proxy asks the LLM
(``frames.proxy``: the two prompts and the FE hint), which frame lexicon is shipped for it
(``frames.lexicon_store``), which demo data it has (``manage.py load_demo --lang``) and whether the
interface speaks it (``settings.LANGUAGES``, with a catalogue in each app's ``locale/``).

A new language is one :func:`register` call here (docs/architecture.md, "Where new things go"), plus
its catalogues. Pure: no database, no Django import.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.registry import Registry

DEFAULT = "en"  # the language of a corpus that names none


@dataclass(frozen=True)
class FramePrompts:
    """The frame proxy's two prompts and its optional FE hint in one language (``str.format`` fields:
    ``{list}``, ``{question}`` for the frame; ``{pair}``, ``{question}`` for the FEs; ``{elements}``)."""

    frame: str
    fe: str
    fe_hint: str


@dataclass(frozen=True)
class Demo:
    """The demo of a language: its data folder under ``shared/data``, the environment variable that
    overrides it, the corpus name, and whether the platform answers it with its own systems (no
    predictions file)."""

    folder: str
    env: str
    corpus: str
    own_systems: bool = False


@dataclass(frozen=True)
class Language:
    """One language. ``code`` is a primary subtag (lowercase); ``normalizer`` one of the metrics'
    normalizers (``squad``, ``french``, ``generic``) and ``articles`` the tokens it drops;
    ``spacy_pipeline`` the default parser (None: the user names one); ``prompts`` the frame proxy's
    words (None: the paper's English); ``lexicon`` the shipped frame lexicon; ``demo`` its demo data
    (None: no demo); ``interface``: the pages speak it (its catalogues exist)."""

    code: str
    name: str
    normalizer: str = "generic"
    articles: tuple = ()
    spacy_pipeline: str | None = None
    prompts: FramePrompts | None = None
    lexicon: str = "framenet-mini"
    demo: Demo | None = None
    interface: bool = False


#: Every language, by its code (core.registry's shape: register, get, all, override).
LANGUAGES = Registry("languages")


def register(language: Language) -> Language:
    """Add (or replace) a language; its code is a primary subtag.

    >>> register(Language("en", "English")).code
    'en'
    """
    if not language.code or language.code != primary(language.code):
        raise ValueError(f"a language's code is a primary subtag in lowercase, got {language.code!r}")
    return LANGUAGES.register(language.code, language)


def unregister(code: str) -> None:
    """Remove a language (tests that add a toy one)."""
    LANGUAGES.unregister(code)


def primary(tag: str | None) -> str:
    """The primary subtag of a language tag, lowercase: the one subtag rule of the platform.

    >>> primary("fr-CA"), primary(" EN "), primary(None)
    ('fr', 'en', '')
    """
    return (tag or "").strip().lower().split("-")[0]


def get(tag: str | None) -> Language | None:
    """The record of a language tag by its primary subtag (an empty tag is :data:`DEFAULT`), or None.

    >>> get("fr-CA").code, get("").code, get("de")
    ('fr', 'en', None)
    """
    return LANGUAGES.get(primary(tag) or DEFAULT)


def default() -> Language:
    """The record of :data:`DEFAULT`."""
    return LANGUAGES[DEFAULT]


def all_languages() -> list[Language]:
    """Every record, in the order of registration."""
    return list(LANGUAGES.all().values())


def interface_languages() -> list[tuple[str, str]]:
    """``(code, name)`` of the languages the pages speak (``settings.LANGUAGES``).

    >>> interface_languages()[:2]
    [('en', 'English'), ('fr', 'Français')]
    """
    return [(lang.code, lang.name) for lang in LANGUAGES.all().values() if lang.interface]


# Paper, appendix A.5 (line breaks of the two-column layout joined). Sent to the LLM by the corpus
# language, not the reader's: never marked for translation.
ENGLISH_PROMPTS = FramePrompts(
    frame=(
        "From a list of (frame, lexical unit) from FrameNet, predict which is the most likely for the given "
        "question. Only answer with the correct (frame, lexical unit) pair.\n"
        "List : {list}\n"
        "Question : {question}"
    ),
    fe=(
        "From a FrameNet (frame , lu/trigger) pair and a context extract the corresponding Frame Elements "
        "from the given question. The LU can't be a FE.  Output a json.\n"
        "Pair : {pair}\n"
        "Question : {question}"
    ),
    # Optional line (off by default, not in the paper): the FE names of the chosen frame.
    fe_hint="\nFrame Elements of the frame : {elements}",
)
# The paper's French setting (issue 25): frame and FE names stay FrameNet's (English), as in the
# French FrameNet; only the instructions are French.
FRENCH_PROMPTS = FramePrompts(
    frame=(
        "À partir d'une liste de paires (frame, unité lexicale) de FrameNet, prédis la plus probable pour la "
        "question donnée. Réponds uniquement avec la bonne paire (frame, unité lexicale).\n"
        "Liste : {list}\n"
        "Question : {question}"
    ),
    fe=(
        "À partir d'une paire FrameNet (frame, unité lexicale/déclencheur) et d'un contexte, extrais de la "
        "question donnée les éléments de frame (Frame Elements) correspondants. L'unité lexicale ne peut pas "
        "être un élément de frame. Réponds en JSON.\n"
        "Paire : {pair}\n"
        "Question : {question}"
    ),
    fe_hint="\nÉléments de la frame : {elements}",
)

register(
    Language(
        "en",
        "English",
        normalizer="squad",  # the official SQuAD normalization (``annotation.dedup.normalize_squad``)
        articles=("a", "an", "the"),
        spacy_pipeline="en_core_web_sm",  # installed by the user
        prompts=ENGLISH_PROMPTS,
        demo=Demo("squad-v1.1-dev/small", "QAEVAL_DEMO_DATA", "squad-small"),
        interface=True,
    )
)
register(
    Language(
        "fr",
        "Français",
        normalizer="french",
        # l' and d' become the tokens "l" and "d" once elisions are split.
        articles=("le", "la", "les", "l", "un", "une", "des", "du", "de", "d"),
        spacy_pipeline="fr_core_news_sm",
        prompts=FRENCH_PROMPTS,
        lexicon="framenet-fr-mini",
        demo=Demo("piaf-v1.1/small", "QAEVAL_DEMO_DATA_FR", "piaf-small", own_systems=True),
        interface=True,
    )
)
