"""Issue 46: when a score of the past changes (a second annotator's label, a label changed), the background
job recomputes only the systems whose past changed; the others are carried as stored, and the result is
the full recomputation's."""

import numpy as np

from evaluation.science import anytime
from tests.evaluation.test_anytime import _scores


def test_only_the_system_whose_past_changed_is_recomputed(monkeypatch):
    rng = np.random.default_rng(7)
    full = _scores(rng, systems=("a", "b", "c"), n=120)
    arrival = list(rng.permutation(full["tkey"].to_numpy()))
    _rows, state = anytime.advance(None, full, arrival=arrival)
    entered = []

    class Counted(anytime.Capital):
        def update(self, h, f=None):
            entered.append(len(h))
            return super().update(h, f)

    changed = full.copy()
    first_b = next(k for k in arrival if k.startswith("b"))  # b's first label now says otherwise
    old = float(changed.loc[changed["tkey"] == first_b, "h_hscore"].iloc[0])
    changed.loc[changed["tkey"] == first_b, ["h_hscore", "h_hcorrect"]] = [float(old != 1.0), float(old != 1.0)]
    with monkeypatch.context() as m:
        m.setattr(anytime, "Capital", Counted)
        rows, state = anytime.advance(state, changed, arrival=arrival)
    assert rows == anytime.sequence_rows(changed, arrival=arrival)
    # b's two metrics, each with its classical and prediction-powered capital, entered again from its first
    # label; a's and c's capitals carried as stored (no label arrived for them)
    assert len(entered) == 12 and sorted(entered) == [0] * 8 + [120] * 4
    entered.clear()
    with monkeypatch.context() as m:
        m.setattr(anytime, "Capital", Counted)
        again, _state = anytime.advance(state, changed, arrival=arrival)  # nothing changed: nothing entered
    assert again == rows and entered == [0] * 12
