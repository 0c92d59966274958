"""Issue 9: the frame outcome words are spelled in frames/outcomes.py only (the layering of the apps
is checked by bin/check-architecture, tests/core/test_architecture.py)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_frame_outcomes_are_spelled_once():
    spelled = re.compile(r"""["'](no_trigger|unknown_frame|bad_output)["']""")
    found = sorted(
        str(p.relative_to(ROOT))
        for folder in ("annotation", "frames", "evaluation")
        for p in (ROOT / folder).rglob("*.py")
        if "migrations" not in p.parts and spelled.search(p.read_text(encoding="utf-8"))
    )
    assert found == ["frames/outcomes.py"]
