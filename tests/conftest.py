import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_DATA = pathlib.Path(os.environ.get("QAEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))
SQUAD = SHARED_DATA / "squad-v1.1-dev"
SQUAD_SMALL = SQUAD / "small"


@pytest.fixture
def squad_small():
    if not SQUAD_SMALL.exists():
        pytest.skip(f"shared data not found at {SQUAD_SMALL}")
    return SQUAD_SMALL
