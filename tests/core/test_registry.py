"""core.registry: the one shape of every registry (issue 43, point 3), and the registries that use it."""

import sys

import pytest

from core.registry import Registry, resolve
from tests.conftest import fresh_process


def test_register_get_all_keep_the_order_and_replace_in_place():
    reg = Registry("toys")
    assert reg.register("a", 1) == 1 and reg.register("b", 2) == 2
    reg.register("a", 3)
    assert reg.all() == {"a": 3, "b": 2} and list(reg) == ["a", "b"] and len(reg) == 2
    assert reg.get("a") == 3 and reg.get("z") is None and reg.get("z", 0) == 0
    with pytest.raises(KeyError):
        reg["z"]
    reg.unregister("a")
    reg.unregister("never there")
    assert reg.all() == {"b": 2}


def test_a_dotted_path_is_imported_on_first_read_only():
    reg = Registry("lazy")
    reg.register_path("x", "tests.core.no_such_module:X")  # nothing imported yet: registering is free
    assert "x" in reg and list(reg) == ["x"]
    with pytest.raises(ModuleNotFoundError):
        reg.get("x")
    reg.register_path("join", "os.path:join")
    import os.path

    assert reg["join"] is os.path.join and resolve("os.path.join") is os.path.join


def test_a_filler_runs_once_on_the_first_read():
    calls = []
    reg = Registry("filled")
    sys.modules[__name__].fill_for_test = lambda: calls.append(reg.register("filled", True))
    reg.fill_on_first_use(f"{__name__}:fill_for_test")
    reg.fill_on_first_use(f"{__name__}:fill_for_test")  # named twice: still once
    assert calls == []
    assert reg.get("filled") is True and reg.all() == {"filled": True} and len(calls) == 1


def test_override_adds_or_replaces_for_the_block_and_restores_even_on_error():
    reg = Registry("o")
    reg.register("a", 1)
    with reg.override({"b": 2}):
        assert reg.all() == {"a": 1, "b": 2}
    with reg.override({"b": 2}, only=True):
        assert reg.all() == {"b": 2}

    def fails():
        with reg.override({"a": 9}):
            assert reg["a"] == 9
            raise RuntimeError

    with pytest.raises(RuntimeError):
        fails()
    assert reg.all() == {"a": 1}


def test_every_registry_has_the_one_shape():
    from annotation import fold_designs, fold_kinds, human_metrics, screening, studies
    from core import i18n, job_kinds, languages, pages
    from evaluation.science import metric_registry
    from frames import human_checks
    from models_runner import backends

    registries = [
        job_kinds.KINDS,
        languages.LANGUAGES,
        pages.PAGES,
        fold_kinds.KINDS,
        fold_designs.DESIGNS,
        human_metrics.VALUES,
        studies.LABELS_ARRIVED,
        screening.FIGURES,
        human_checks.KINDS,
        metric_registry.METRICS,
        backends.REGISTRY,
        i18n.FALLBACKS,
    ]
    assert all(isinstance(r, Registry) for r in registries)
    assert (
        "active" in fold_designs.DESIGNS
        and "refresh" in studies.LABELS_ARRIVED
        and "study" in screening.FIGURES
        and "hscore" in human_metrics.VALUES
    )


@pytest.mark.django_db
def test_each_job_kind_is_one_record_with_its_next_step_resume_and_files():
    """The steps, resume functions and files that three registries used to keep (a prefix table in
    core.next_steps, RESUMERS in each tasks module, archive.JOB_FILES) are the kinds' own, as before."""
    from core import job_kinds, next_steps, reaper
    from core.models import Job
    from evaluation.jobs import report_dir
    from frames import tasks as frame_tasks
    from models_runner import tasks as runner_tasks

    steps = {}
    for kind in job_kinds.registered():
        job = Job(pk=7, kind=kind, params={"corpus": "c"}, result={})
        steps[kind] = next_steps.of(job)
    folds = ("Build folds for this corpus", "/folds/?corpus=c")
    assert {k: s for k, s in steps.items() if s} == {
        "import_corpus": folds,
        "import_predictions": folds,
        "import_labels": folds,
        "import_study": folds,
        "frames": ("Build frame-check folds for this corpus", "/folds/?corpus=c"),
        "frames_lexicon": ("Predict frames for a corpus (Corpora)", "/admin/annotation/corpus/"),
        "report": ("Open the report", "/research/reports/7/"),
        # issue 45: no dead end after a model run (the judge's step: the evaluation app's page, by core.pages)
        "inference": ("Build or extend the folds", "/folds/?corpus=c"),
        "judge": ("See the live conclusions with this judge", "/research/conclusions/?corpus=c"),
    }
    assert reaper.resumers() == {
        "frames": frame_tasks.resume,
        "attributes": frame_tasks.resume_attributes,
        "inference": runner_tasks.resume,
        "judge": runner_tasks.resume_judge,
    }
    assert dict(job_kinds.FILES) == {"report": report_dir} and "inference" not in job_kinds.FILES


def test_start_up_registers_without_loading_the_heavy_modules():
    """Registering by dotted path keeps numpy, pandas and the Celery shells off a web process's start-up."""
    code = (
        "import sys, django; django.setup(); "
        "heavy = ['pandas', 'evaluation.live', 'models_runner.active_design', 'frames.tasks', 'evaluation.jobs']; "
        "print([m for m in heavy if m in sys.modules])"
    )
    out = fresh_process(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
