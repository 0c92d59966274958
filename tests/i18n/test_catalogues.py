"""The committed catalogues: every French entry translated and not fuzzy, every .mo compiled from
its .po as it is now (the site runs from the committed .mo files, without gettext installed)."""

import gettext
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import require

ROOT = Path(settings.BASE_DIR)
OWN_CATALOGUES = ("locale", "core/locale", "annotation/locale")


def po_files():
    skip = {".venv", "tests", "var", "node_modules", "bench"}
    return sorted(p for p in ROOT.rglob("locale/*/LC_MESSAGES/*.po") if not skip & set(p.relative_to(ROOT).parts))


def test_each_layer_has_its_french_catalogue():
    found = {str(p.relative_to(ROOT).parents[2]) for p in po_files() if p.parent.parent.name == "fr"}
    assert set(OWN_CATALOGUES) <= found
    assert set(settings.LOCALE_PATHS) == {ROOT / "locale"}


@pytest.mark.parametrize("po", po_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_fuzzy_or_empty_entry(po, tmp_path):
    require(shutil.which("msgfmt"), "msgfmt (GNU gettext) is not installed: apt-get install gettext")
    text = po.read_text(encoding="utf-8")
    fuzzy = [line for line in text.splitlines() if line.startswith("#,") and "fuzzy" in line]
    assert not fuzzy, f"{po}: {len(fuzzy)} fuzzy entries (check each translation, then remove the flag)"
    done = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", str(tmp_path / "x.mo"), str(po)],
        capture_output=True,
        text=True,
        env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert "untranslated" not in done.stderr and "fuzzy" not in done.stderr, f"{po}: {done.stderr.strip()}"


@pytest.mark.parametrize("po", po_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_mo_is_compiled_from_the_po(po, tmp_path):
    require(shutil.which("msgfmt"), "msgfmt (GNU gettext) is not installed: apt-get install gettext")
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: run bin/translations compile and commit it"
    fresh = tmp_path / "fresh.mo"
    subprocess.run(["msgfmt", "-o", str(fresh), str(po)], check=True)
    with open(mo, "rb") as committed, open(fresh, "rb") as compiled:
        old, new = gettext.GNUTranslations(committed), gettext.GNUTranslations(compiled)
    stale = sorted(set(old._catalog.items()) ^ set(new._catalog.items()), key=str)
    assert not stale, f"{mo} is stale against its .po (run bin/translations compile): {stale[:5]}"


def test_no_mo_without_its_po():
    skip = {".venv", "tests", "var", "node_modules"}
    mos = [p for p in ROOT.rglob("locale/*/LC_MESSAGES/*.mo") if not skip & set(p.relative_to(ROOT).parts)]
    assert [m for m in mos if not m.with_suffix(".po").exists()] == []
