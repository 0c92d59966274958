"""Issue 9: annotation never imports frames (nor models_runner through frame code); frames never
imports evaluation; the frame outcome words are spelled in frames/outcomes.py only."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(folder):
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                yield from ((path, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                yield path, node.module


def _offenders(folder, forbidden):
    return sorted({f"{path.relative_to(ROOT)}: {name}" for path, name in _imports(folder)
                   if name.split(".")[0] in forbidden})


def test_annotation_does_not_import_frames():
    assert _offenders("annotation", {"frames"}) == []


def test_frames_does_not_import_evaluation():
    assert _offenders("frames", {"evaluation"}) == []


def test_frame_outcomes_are_spelled_once():
    spelled = re.compile(r"""["'](no_trigger|unknown_frame|bad_output)["']""")
    found = sorted(str(p.relative_to(ROOT)) for folder in ("annotation", "frames", "evaluation")
                   for p in (ROOT / folder).rglob("*.py")
                   if "migrations" not in p.parts and spelled.search(p.read_text(encoding="utf-8")))
    assert found == ["frames/outcomes.py"]
