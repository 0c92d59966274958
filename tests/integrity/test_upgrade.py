"""Upgrades keep data (SPEC 14): a database filled by the code of an earlier commit of this
repository (``upgrade_base.txt``; a ``git worktree`` of it, its own migrate, demo data, labels,
frame checks, judge labels and a finished report) is migrated with today's code, and no label, event,
assignment, fold item or job is lost, and the report is the same."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SQUAD_SMALL, require, skip_or_fail
from tests.models_runner.subprocess_db import subprocess_env

pytestmark = pytest.mark.slow

BASE_FILE = Path(__file__).with_name("upgrade_base.txt")
FILL = REPO / "tests" / "study_fill.py"


def base_commit():
    """The commit upgrades are tested from: the first line of upgrade_base.txt that is not a comment."""
    lines = [line.strip() for line in BASE_FILE.read_text().splitlines()]
    return next(line for line in lines if line and not line.startswith("#"))


def common(new, old):
    """``new`` restricted to what ``old`` has: sections a later release added to the report are not
    compared, nor is the wording of explanations (prose: a text of several words, e.g. why a factor
    was skipped); every number, name and label both hold must be equal."""
    if isinstance(new, dict) and isinstance(old, dict):
        return {k: common(new[k], old[k]) for k in old if k in new}
    if isinstance(new, list) and isinstance(old, list) and len(new) == len(old):
        return [common(a, b) for a, b in zip(new, old, strict=True)]
    if isinstance(new, str) and isinstance(old, str) and _prose(new) and _prose(old):
        return old
    return new


def _prose(text):
    return len(text.split()) >= 4


@pytest.fixture
def old_tree(tmp_path):
    commit = base_commit()
    found = subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True)
    if found.returncode:
        skip_or_fail(f"commit {commit} of upgrade_base.txt is not in this clone (a shallow clone?)")
    tree = tmp_path / "old"
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), commit], check=True, capture_output=True
    )
    yield tree
    subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], capture_output=True)


def _fill(env, cwd, *args):
    done = subprocess.run(
        [sys.executable, "-m", "tests.study_fill", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_database_of_the_base_commit_migrates_forward_losing_nothing(tmp_path, old_tree):
    require(SQUAD_SMALL.exists(), f"shared data not found at {SQUAD_SMALL}")
    env = subprocess_env(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    # the old code fills the database (today's helper copied into the old tree: it uses only APIs
    # the old code has), then today's code migrates it and reads the same things back
    shutil.copy(FILL, old_tree / "tests" / FILL.name)
    _fill(env, old_tree, "fill", "demo", SQUAD_SMALL, before, "-")
    _fill(env, REPO, "check", "demo", "-", after, "-")
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    assert old["labels"] and old["assignments"] and old["fold_items"] and old["jobs"] and old["frame_checks"]
    # the old fingerprint computed one more report after reading the jobs
    assert new["jobs"] == sorted(old["jobs"] + [["report", "succeeded"]], key=repr)
    for key in ("labels", "resume", "assignments", "fold_items", "gold", "adjudications", "flags"):
        assert new[key] == old[key], f"{key} changed by the upgrade"
    for key in ("frame_checks", "judge_labels", "exchanges", "finished_report"):
        assert new[key] == old[key], f"{key} changed by the upgrade"
    assert common(new["report_now"], old["report_now"]) == old["report_now"], "the report changed"
