"""Jobs in French (issue 32): every kind of job the code starts is registered in ``core.job_kinds``
with French words for its title, its result's keys and its progress messages; no job body writes a
message the pages cannot translate; every kind's job page and the jobs list read in French.

The kinds are found in the code (every ``create_job(...)`` call of our apps), the messages too (every
``progress(message=...)``), so that a new kind or a new message cannot skip the check.
"""

import ast
import importlib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from core import job_kinds
from core.models import Job
from tests.i18n.test_field_labels import OWN_APPS, has_french, read
from tests.i18n.test_pages_in_french import blocks

ROOT = Path(settings.BASE_DIR)


def own_modules():
    """(module name, parsed source) of every Python module of our apps (no migrations, no tests)."""
    for config in OWN_APPS:
        for path in sorted(Path(config.path).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" not in parts and "tests" not in parts:
                yield ".".join(parts), ast.parse(path.read_text(encoding="utf-8"))


def calls(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if getattr(func, "id", None) == name or getattr(func, "attr", None) == name:
                yield node


def started_kinds():
    """Every kind a ``create_job`` call of our code names: a constant's value, or an f-string's prefix."""
    kinds, prefixes = set(), set()
    for module, tree in own_modules():
        for call in calls(tree, "create_job"):
            if module == "core.runner" or not call.args:
                continue
            first = call.args[0]
            if isinstance(first, ast.Constant):
                kinds.add(first.value)
            elif isinstance(first, ast.Name):
                kinds.add(getattr(importlib.import_module(module), first.id))
            elif isinstance(first, ast.JoinedStr):
                prefixes.add("".join(v.value for v in first.values if isinstance(v, ast.Constant)))
            else:
                pytest.fail(f"{module}: create_job with a kind this test cannot read: {ast.unparse(first)}")
    return kinds, prefixes


def test_every_kind_the_code_starts_is_registered():
    kinds, prefixes = started_kinds()
    assert len(kinds) >= 7, kinds
    registered = set(job_kinds.registered())
    assert kinds - registered == set(), "kinds started but not registered in core.job_kinds"
    for prefix in prefixes:  # annotation's import_<kind>: each importer's kind
        assert any(k.startswith(prefix) for k in registered), prefix
    from annotation.admin import ImportForm

    imports = {f"import_{value}" for value, _ in ImportForm.base_fields["kind"].choices}
    assert imports - registered == set(), "import kinds offered by the import form but not registered"


@pytest.mark.parametrize("kind", sorted(job_kinds.registered()))
def test_every_kind_has_french_words(kind):
    registered = job_kinds.registered()[kind]
    texts = [registered.title, *registered.results.values()]
    assert [str(t) for t in texts if not has_french(t)] == []
    for template in registered.messages:
        values = dict.fromkeys(re.findall(r"%\((\w+)\)", template), "7")
        with translation.override("fr"):
            french = job_kinds.message_text(template % values)
        assert french != template % values, f"no French for the message {template!r}"


def progress_messages():
    """(module, line, message expression) of every ``progress(..., message=...)`` call of our code."""
    for module, tree in own_modules():
        for call in calls(tree, "progress"):
            for keyword in call.keywords:
                if keyword.arg == "message":
                    yield module, call.lineno, keyword.value


def readable(module, expression):
    """True when the pages can translate the message: a template registered in core.job_kinds
    (``TEMPLATE % values``, or the template itself), or a whole message with a French entry."""
    templates = {t for k in job_kinds.registered().values() for t in k.messages} | set(job_kinds.templates())
    if isinstance(expression, ast.BinOp) and isinstance(expression.op, ast.Mod):
        expression = expression.left
    if isinstance(expression, ast.IfExp):
        return readable(module, expression.body) and readable(module, expression.orelse)
    if isinstance(expression, ast.Call) and getattr(expression.func, "id", "") == "gettext_noop":
        expression = expression.args[0]
    if isinstance(expression, ast.Constant):
        return expression.value in templates or has_french(expression.value)
    if isinstance(expression, ast.Name):
        value = getattr(importlib.import_module(module), expression.id, None)
        return value is None or value in templates  # None: a local variable, checked where it is made
    return False


def test_every_progress_message_can_be_translated():
    found = list(progress_messages())
    assert len(found) >= 15
    bad = [f"{m}:{line}: {ast.unparse(e)}" for m, line, e in found if not readable(m, e)]
    assert bad == [], "job messages the pages cannot translate:\n" + "\n".join(bad)


def test_message_text_keeps_values_and_falls_back():
    from annotation.importers import WROTE_QUESTIONS
    from models_runner.jobs import ANSWERED

    with translation.override("fr"):
        assert job_kinds.message_text(WROTE_QUESTIONS % {"done": 120, "total": 857}) == "120 questions écrites sur 857"
        assert job_kinds.message_text("done") == "terminé"
        assert job_kinds.message_text("something a worker wrote") == "something a worker wrote"
        answered = ANSWERED % {"done": 10, "total": 857, "rate": "1.5"}
        assert job_kinds.message_text(answered) == "10 réponses sur 857 (1,5 q/s)"
    assert job_kinds.message_text(WROTE_QUESTIONS % {"done": 1, "total": 2}) == "wrote 1 of 2 questions"


def sample_job(kind, admin):
    registered = job_kinds.registered()[kind]
    template = registered.messages[0] if registered.messages else "done"
    message = template % dict.fromkeys(re.findall(r"%\((\w+)\)", template), "7")
    return Job.objects.create(
        kind=kind,
        status=Job.SUCCEEDED,
        result=dict.fromkeys(registered.results, 3),
        message=message,
        created_by=admin,
    )


def english_words(kind, job):
    """The English words of the job's page that French writes otherwise (its title, its result's
    keys, its message)."""
    registered = job_kinds.registered()[kind]
    pairs = [(read(t, "en"), read(t, "fr")) for t in (registered.title, *registered.results.values())]
    with translation.override("fr"):
        pairs.append((job.message, job_kinds.message_text(job.message)))
    return {english for english, french in pairs if english != french}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", sorted(job_kinds.registered()))
def test_every_kind_job_page_reads_in_french(kind, client, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "root@example.org", "pw")
    client.force_login(admin)
    job = sample_job(kind, admin)
    english = english_words(kind, job)
    for path in (reverse("admin:core_job_change", args=[job.pk]), reverse("admin:core_job_changelist")):
        french = client.get(path, HTTP_ACCEPT_LANGUAGE="fr")
        assert french.status_code == 200
        page = blocks(french.content.decode())
        left = sorted(w for w in english if any(w == b or f" {w} " in f" {b} " for b in page))
        assert left == [], f"{path}: English left: {left}"
    with translation.override("fr"):  # the page's title and breadcrumbs name the job in French
        name = str(job)
        assert name.startswith(f"Tâche {job.pk}\u00a0: {job_kinds.kind_title(kind)} (")
    change = client.get(reverse("admin:core_job_change", args=[job.pk]), HTTP_ACCEPT_LANGUAGE="fr")
    assert f"<title>{name} |" in change.content.decode()
