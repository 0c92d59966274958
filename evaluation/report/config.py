"""The report's vocabulary and choices: metric names, ``ReportConfig`` (every choice that changes a
number) and the ``Report`` record that ``compute_report`` returns (``evaluation.report.pipeline``)."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields

import numpy as np
import pandas as pd

from annotation.dedup import DEFAULT_POLICY
from evaluation.report.options import SIGNIFICANCE_MARKS, config_defaults
from evaluation.science import factors as fx
from evaluation.science import human, metric_registry

FALLBACK_METRIC = "f1"  # the metric of a report asked for a human metric without labels
ROVER_NAME = "ROVER"
DEFAULT_COMBINATION = ("nb_fes", "entropy")
DEFAULT_DESIGN = "uniform"  # the human sample of a report without a judge (SPEC 12)
_OPTION = config_defaults()  # the defaults of the fields a report option sets: its ``ReportOption``
MAX_FLIP_NOTES = 10  # one note per possible ranking flip up to this many, then one summary line


def canonical_metric(name: str) -> str:
    """The registered metric (``evaluation.science.metric_registry``) that ``name`` means (case, ``-`` and
    ROUGE spellings forgiven).

    Parameters
    ----------
    name : str
        A metric name as a user writes it.

    Returns
    -------
    str
        A registered metric key; ``ValueError`` for an unknown name.

    Examples
    --------
    >>> canonical_metric("ROUGE-L"), canonical_metric("F1")
    ('rouge_l', 'f1')
    """
    key = metric_registry.lookup(name)
    if key is None:
        raise ValueError(f"unknown metric {name!r}; choose one of {', '.join(metric_registry.all_keys())}")
    return key


@dataclass
class ReportConfig:
    """The choices of a report (checked on creation; ``ValueError`` for a bad one).

    Examples
    --------
    >>> config = ReportConfig(metric="F1", n_boot=0)
    >>> config.metric, config.as_dict()["n_boot"]
    ('f1', 0)
    """

    systems: list | None = _OPTION["systems"]  # ROVER voters, in tie-break order; default: all but `reference`
    alpha: float = _OPTION["alpha"]
    metric: str = _OPTION["metric"]
    factors: tuple = fx.DEFAULT_FACTORS
    entropy_source: str = "corpus"
    lexicon: dict | None = None  # frame -> list of LU names, for entropy_source="lexicon"
    dedup_policy: str = DEFAULT_POLICY
    combination: tuple = DEFAULT_COMBINATION
    n_boot: int = _OPTION["n_boot"]
    seed: int = _OPTION["seed"]
    significance: float = fx.SIGNIFICANCE
    hard_partitions: tuple = ()  # hard subset export: questions in these partitions ...
    hard_factors: tuple = ()  # ... or in E_f of these factors
    hard_require: str = "any"  # "any" criterion, or "all" of them
    human_aggregate: str = _OPTION["human_aggregate"]  # SPEC 3: "mean" of the labels' values, or "majority"
    table_significance: str = _OPTION["table_significance"]  # bold cells of the paper tables: raw p, or "holm"
    # Choices made before the computation (which labels, which judge), recorded in ``config``:
    adjudicated: bool = _OPTION["adjudicated"]  # an admin's final label replaces the labels of an adjudicated answer
    include_excluded: bool = _OPTION["include_excluded"]  # labels of participants excluded from a study counted
    judge: str | None = None  # the automatic judge of the prediction-powered estimates (SPEC 10)
    design: str = DEFAULT_DESIGN  # how the human-labelled answers were chosen (SPEC 12)
    tie_margin: float = _OPTION["tie_margin"]  # SPEC 16: delta, two systems bound within +-delta are tied

    def __post_init__(self):
        self.metric = canonical_metric(self.metric)
        self.factors = tuple(fx.parse_factor(f) for f in self.factors)
        names = [f.name for f in self.factors]
        if len(set(names)) != len(names):
            raise ValueError(f"two factors share a name: {names}")
        if self.hard_require not in ("any", "all"):
            raise ValueError("hard_require must be 'any' or 'all'")
        if not self.alpha > 0:
            raise ValueError(f"alpha must be positive, got {self.alpha!r}")
        if self.tie_margin is None:  # an empty form field: the default
            self.tie_margin = _OPTION["tie_margin"]
        if not (isinstance(self.tie_margin, (int, float)) and 0 <= self.tie_margin <= 0.5):
            raise ValueError(f"tie_margin must be a share of the range in [0, 0.5], got {self.tie_margin!r}")
        if self.n_boot < 0:
            raise ValueError("n_boot must be >= 0")
        if self.human_aggregate not in human.AGGREGATES:
            raise ValueError(
                f"human_aggregate must be one of {', '.join(human.AGGREGATES)}, got {self.human_aggregate!r}"
            )
        if self.table_significance not in SIGNIFICANCE_MARKS:
            raise ValueError(
                f"table_significance must be one of {', '.join(SIGNIFICANCE_MARKS)}, got {self.table_significance!r}"
            )

    def as_dict(self) -> dict:
        """The configuration as plain data (``report.json``'s ``config``).

        Returns
        -------
        dict
            Every option, JSON-ready.

        Examples
        --------
        >>> ReportConfig(alpha=3).as_dict()["alpha"]
        3
        """
        return {
            "systems": list(self.systems) if self.systems else None,
            "alpha": self.alpha,
            "metric": self.metric,
            "factors": [f.as_dict() for f in self.factors],
            "entropy_source": self.entropy_source,
            "dedup_policy": self.dedup_policy,
            "combination": list(self.combination),
            "n_boot": self.n_boot,
            "seed": self.seed,
            "significance": self.significance,
            "hard_partitions": list(self.hard_partitions),
            "hard_factors": list(self.hard_factors),
            "hard_require": self.hard_require,
            "human_aggregate": self.human_aggregate,
            "table_significance": self.table_significance,
            "adjudicated": self.adjudicated,
            "include_excluded": self.include_excluded,
            "judge": self.judge,
            "design": self.design,
            "tie_margin": self.tie_margin,
        }


def config_field_defaults() -> dict:
    """The default of every ``ReportConfig`` field, by name: what a report written before a choice was
    recorded in its ``config`` had (the readers of report.json ask here, never type a default again).

    Returns
    -------
    dict

    Examples
    --------
    >>> d = config_field_defaults()
    >>> d["human_aggregate"], d["dedup_policy"], d["design"], d["judge"]
    ('mean', 'whitespace', 'uniform', None)
    """
    out = {}
    for f in fields(ReportConfig):
        out[f.name] = f.default if f.default is not MISSING else f.default_factory()
    return out


def recorded(data: dict, key: str):
    """A choice of a report: its value in report.json's ``config``, or the field's default when the
    report was written before the choice was recorded.

    Parameters
    ----------
    data : dict
        report.json data.
    key : str
        A ``ReportConfig`` field.

    Returns
    -------
    object

    Examples
    --------
    >>> recorded({"config": {"table_significance": "holm"}}, "table_significance"), recorded({}, "design")
    ('holm', 'uniform')
    """
    config = data.get("config") or {}
    return config[key] if key in config else config_field_defaults()[key]


def recorded_aggregate(data: dict) -> str:
    """How the labels of one answer make its human scores in a report: as the report computed them
    (``human_aggregate`` of report.json), else its ``config``'s, else the default.

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    str

    Examples
    --------
    >>> recorded_aggregate({"human_aggregate": "majority"}), recorded_aggregate({"config": {}})
    ('majority', 'mean')
    """
    return data.get("human_aggregate") or recorded(data, "human_aggregate")


@dataclass
class ScoreTable:
    """Every score of every prediction and of ROVER, from ``score_table``."""

    question_ids: pd.Index
    columns: list  # systems then ROVER
    matrices: dict  # metric -> (questions x columns) float array, NaN = undefined
    present: np.ndarray  # (questions x columns) bool: a prediction exists
    partition: np.ndarray  # per question: k (0 when no ROVER voter answered)
    rover_source: list  # per question: the system the ROVER answer came from (None)
    rover_systems: list
    n_unmatched_labels: int = 0
    labels: pd.DataFrame | None = None  # the labels with their triplet key (``tkey``)
    label_matched: np.ndarray | None = None  # per label: its triplet is one of a prediction
    empty_answers: dict = field(default_factory=dict)  # system -> its empty answers (no triplet; SPEC 1)

    def column(self, name):
        """The column index of a system (or ``ROVER_NAME``) in the matrices.

        Parameters
        ----------
        name : str
            A system's name, or ``ROVER_NAME``.

        Returns
        -------
        int

        Examples
        --------
        >>> from evaluation.report.inputs import _example_inputs
        >>> from evaluation.report.scoring import score_table
        >>> table = score_table(*_example_inputs(), config=ReportConfig())
        >>> table.column("s2"), table.column(ROVER_NAME)
        (1, 2)
        """
        return self.columns.index(name)


@dataclass
class Report:
    """A computed report: ``data`` (report.json), its tables, bold cells and figures' data."""

    data: dict
    tables: dict = field(default_factory=dict)  # name -> DataFrame
    bold: dict = field(default_factory=dict)  # table name -> DataFrame of bools (significant cells)
    figures: dict = field(default_factory=dict)  # name -> plotting data
    scores: ScoreTable | None = None
    sides: pd.DataFrame | None = None
    hard_subset: pd.DataFrame | None = None


@dataclass
class StepOutput:
    """What one step of the report returns (``evaluation.report.pipeline.STEPS``): its keys of report.json
    (``data``, plain JSON values), the DataFrames of its CSV / LaTeX tables, their bold cells and its
    figures' data. ``compute_report`` collects them into the ``Report``; nothing rebuilds a table later."""

    data: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)  # name -> DataFrame
    bold: dict = field(default_factory=dict)  # table name -> DataFrame of bools
    figures: dict = field(default_factory=dict)  # name -> plotting data


@dataclass
class ReportExtras:
    """What a report adds beyond its three tables, each optional: one automatic judge's labels (SPEC 10) and the
    active design its human labels were drawn by (SPEC 12), with the platform facts of its validity guard
    (``evaluation.judge_inputs.sample_facts``), the frame proxy's rows (SPEC 7, 8: ``(outcomes, checks)``, see
    ``evaluation.report.sections.frame_proxy_step``) and the corpus's name. The offline command fills what its
    files give, the report job what the database holds; ``compute_report`` is the same."""

    judge_labels: pd.DataFrame | None = None
    design: pd.DataFrame | None = None  # SPEC 12: pi and sampled per triplet (``sections.active_step``)
    facts: dict | None = None
    frame_rows: tuple | None = None
    # issue 26 point 4: humans' checks of the derived attributes (``sections.attribute_check_step``)
    attribute_check_rows: list | None = None
    corpus: str | None = None
    # SPEC 17: every label with its ``excluded`` flag (``evaluation.report.inputs.crowd_table``) and whether a study
    # participant gave one (the two-way bootstrap then); None: the report's own labels, nobody excluded
    crowd_labels: pd.DataFrame | None = None
    from_study: bool = False
