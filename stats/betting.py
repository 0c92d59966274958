"""The betting confidence sequence for a finite population (SPEC 16, amended), carried label by label.

Waudby-Smith & Ramdas, "Estimating means of bounded random variables by betting" (JRSSB 2024) and
"Confidence sequences for sampling without replacement" (NeurIPS 2020): for every candidate value m
of the target (the mean of the human scores of all N predictions) on the grid k / 2000, two
capital processes K+ (betting that the mean is above m) and K- (below) are multiplied by one factor
per label; a value whose capital ever reaches 1 / alpha is excluded for good (running intersection).

``Capital`` holds that state: the log-capital of every grid value, the values kept and the running
sums the predictable bets need. ``Capital.update`` takes the next labels in arrival order, so a
background job carries it forward as labels arrive and the result is, bit for bit, the one of a
full recomputation (every cumulative sum is taken with the carried value in front, in the same
order). ``Capital.bounds`` reads the sequence now. Pure numpy.

Per term i (1-based), from terms 1..i-1 only: mhat_{i-1} = (1/2 + sum x) / i, s2_{i-1} = (1/4 +
sum (x_j - mhat_j)^2) / i, b_i = sqrt(2 log(2 / alpha) / (s2_{i-1} i log(i + 1))); mu_i(m) =
(N m - sum_{j<i} h_j) / (N - i + 1); K+ factor 1 + min(b_i, c / (mu_i - lo_i)) (x_i - mu_i), K- factor
1 - min(b_i, c / (hi_i - mu_i)) (x_i - mu_i), c = 1/2 (a cap with a denominator <= 0 is not applied);
K = max(K+, K-) / 2. Prediction-powered terms (a judge scored all N): lambda_{i-1} = cov(h, f) /
var(f) over labels 1..i-1 clipped to [0, 1] (0 under two labels or a constant f); mu^f_i = the mean
of f over the predictions not yet labelled; x_i = h_i - lambda_{i-1} (f_i - mu^f_i), lo_i = -lambda_{i-1}
(1 - mu^f_i), hi_i = 1 + lambda_{i-1} mu^f_i.
"""

from __future__ import annotations

import math

import numpy as np

GRID_STEPS = 2000  # the candidate values m = k / GRID_STEPS, k = 0..GRID_STEPS
GRID = np.arange(GRID_STEPS + 1) / GRID_STEPS
CAP = 0.5  # c: the bet never stakes more than half of what would make the capital 0
CHUNK = 256  # labels per vectorised block (memory: CHUNK x 2001 floats a matrix)
FLAT_F = 1e-12  # var(f) at or below this counts as a judge whose scores do not vary
_SUMS = ("sh", "sx", "sv", "sf", "shf", "sff", "sf_all")


class Capital:
    """One system's sequence state: log K+ and log K- of every grid value, the kept values, running sums.

    Parameters
    ----------
    alpha : float
        The sequence's level (alpha / K of the report), in (0, 1).
    population : int
        N, the system's predictions (labelled or not).
    f_all : array_like, optional
        The judge's scores of all N predictions (prediction-powered terms); None: classical terms.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.betting import Capital
    >>> cap = Capital(0.05, 100)
    >>> cap.update(np.array([1.0, 1.0, 1.0, 0.0] * 10))
    >>> cap.bounds(), cap.n
    ((0.5925, 0.9105), 40)
    """

    def __init__(self, alpha, population, f_all=None):
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
        self.alpha, self.N = float(alpha), int(population)
        self.ppi = f_all is not None
        if self.ppi and len(f_all) != self.N:
            raise ValueError("f_all must hold the judge's score of every one of the N predictions")
        self.n = 0
        self.sums = dict.fromkeys(_SUMS, 0.0)
        if self.ppi:
            self.sums["sf_all"] = float(np.sum(np.asarray(f_all, dtype=float)))
        self.log_kp = np.zeros(len(GRID))
        self.log_km = np.zeros(len(GRID))
        self.kept = np.ones(len(GRID), dtype=bool)
        self.empty = False  # every candidate excluded (probability <= alpha): the bounds stay the last ones
        self.last = (0.0, 1.0)

    def update(self, h, f=None) -> None:
        """Carry the state forward over the next labels ``h`` (and their judge scores ``f``), in arrival order.

        Parameters
        ----------
        h : array_like of float
            Human scores in [0, 1].
        f : array_like of float, optional
            The judge's scores of the same predictions (prediction-powered terms only).

        Raises
        ------
        ValueError
            On more labels than predictions, scores outside [0, 1], or judge scores missing.

        Examples
        --------
        >>> from stats.betting import Capital
        >>> one, two = Capital(0.05, 50), Capital(0.05, 50)
        >>> one.update([1.0, 0.5, 0.0, 1.0]); two.update([1.0, 0.5]); two.update([0.0, 1.0])
        >>> one.bounds() == two.bounds(), one.n
        (True, 4)
        """
        h = np.asarray(h, dtype=float)
        if self.n + len(h) > self.N:
            raise ValueError(f"more labels ({self.n + len(h)}) than predictions ({self.N})")
        if self.ppi and (f is None or len(f) != len(h)):
            raise ValueError("prediction-powered terms need the judge's score of every labelled prediction")
        if np.isnan(h).any() or (h < 0).any() or (h > 1).any():
            raise ValueError("human scores must lie in [0, 1]")
        f = np.asarray(f, dtype=float) if self.ppi else None
        for start in range(0, len(h), CHUNK):
            stop = start + CHUNK
            self._block(h[start:stop], None if f is None else f[start:stop])

    def _terms(self, h, f):
        """Per label of the block: x_i, lo_i, hi_i, the bet b_i and sum_{j<i} h_j (all from the past)."""
        k = len(h)
        i = self.n + np.arange(1, k + 1, dtype=float)  # global 1-based positions
        s = self.sums
        sh_before = np.cumsum(np.r_[s["sh"], h])[:-1]
        if self.ppi:
            pairs = (("sf", f), ("shf", h * f), ("sff", f * f))
            sf_b, shf_b, sff_b = (np.cumsum(np.r_[s[key], v])[:-1] for key, v in pairs)
            m = i - 1  # labels before i
            safe = np.maximum(m - 1, 1)
            var_f = (sff_b - sf_b**2 / np.maximum(m, 1)) / safe
            cov = (shf_b - sh_before * sf_b / np.maximum(m, 1)) / safe
            ok = (m >= 2) & (var_f > FLAT_F)
            lam = np.where(ok, np.clip(cov / np.where(ok, var_f, 1.0), 0.0, 1.0), 0.0)
            mu_f = (s["sf_all"] - sf_b) / (self.N - i + 1)
            x, lo, hi = h - lam * (f - mu_f), -lam * (1 - mu_f), 1 + lam * mu_f
        else:
            x, lo, hi = h, np.zeros(k), np.ones(k)
        sx = np.cumsum(np.r_[s["sx"], x])
        mhat = (0.5 + sx[1:]) / (i + 1)  # mhat_i, after term i
        sv = np.cumsum(np.r_[s["sv"], (x - mhat) ** 2])
        s2_before = (0.25 + sv[:-1]) / i
        bet = np.sqrt(2 * math.log(2 / self.alpha) / (s2_before * i * np.log(i + 1)))
        return {"x": x, "lo": lo, "hi": hi, "bet": bet, "sh_before": sh_before, "i": i, "sums": (sx[-1], sv[-1])}

    def _block(self, h, f):
        t = self._terms(h, f)
        mu = (self.N * GRID[None, :] - t["sh_before"][:, None]) / (self.N - t["i"][:, None] + 1)
        x, lo, hi, bet = (t[k][:, None] for k in ("x", "lo", "hi", "bet"))
        gap = x - mu
        down, up = mu - lo, hi - mu
        with np.errstate(divide="ignore", invalid="ignore"):
            lam_p = np.where(down > 0, np.minimum(bet, CAP / np.where(down > 0, down, 1.0)), bet)
            lam_m = np.where(up > 0, np.minimum(bet, CAP / np.where(up > 0, up, 1.0)), bet)
        log_kp = np.cumsum(np.vstack([self.log_kp, np.log1p(lam_p * gap)]), axis=0)[1:]
        log_km = np.cumsum(np.vstack([self.log_km, np.log1p(-lam_m * gap)]), axis=0)[1:]
        over = np.maximum(log_kp, log_km) - math.log(2) >= math.log(1 / self.alpha)
        kept = ~np.logical_or.accumulate(over, axis=0) & self.kept[None, :]
        if not self.empty:
            alive = kept.any(axis=1)
            last_alive = int(np.flatnonzero(alive)[-1]) if alive.any() else -1
            if last_alive >= 0:
                self.last = _ends(kept[last_alive])
            self.empty = not alive[-1]
        # copies: a row of a block's matrix would keep the whole matrix (block x 2001 floats) alive for as
        # long as the capital lives, one per system, metric and kind of sequence (issue 46: the report's peak)
        self.kept = kept[-1].copy()
        self.log_kp, self.log_km = log_kp[-1].copy(), log_km[-1].copy()
        s = self.sums
        s["sh"] = float(np.cumsum(np.r_[s["sh"], h])[-1])
        s["sx"], s["sv"] = float(t["sums"][0]), float(t["sums"][1])
        if self.ppi:
            for key, v in (("sf", f), ("shf", h * f), ("sff", f * f)):
                s[key] = float(np.cumsum(np.r_[s[key], v])[-1])
        self.n += len(h)

    def bounds(self) -> tuple:
        """(low, high): the smallest and largest grid values kept (the last non-empty set once empty).

        Returns
        -------
        tuple of float

        Examples
        --------
        >>> from stats.betting import Capital
        >>> Capital(0.05, 10).bounds()
        (0.0, 1.0)
        """
        return self.last

    def to_state(self) -> dict:
        """The state as plain data (numpy arrays and numbers), to store and to restore with ``from_state``.

        Returns
        -------
        dict

        Examples
        --------
        >>> from stats.betting import Capital
        >>> cap = Capital(0.05, 10); cap.update([1.0, 0.0])
        >>> Capital.from_state(cap.to_state()).bounds() == cap.bounds()
        True
        """
        return {
            "alpha": self.alpha,
            "N": self.N,
            "ppi": self.ppi,
            "n": self.n,
            "empty": self.empty,
            "last": np.asarray(self.last),
            "log_kp": self.log_kp,
            "log_km": self.log_km,
            "kept": self.kept,
            **{f"sum_{k}": v for k, v in self.sums.items()},
        }

    @classmethod
    def from_state(cls, state: dict) -> Capital:
        """The ``Capital`` that ``to_state`` gave."""
        cap = cls(float(state["alpha"]), int(state["N"]))
        cap.ppi, cap.n, cap.empty = bool(state["ppi"]), int(state["n"]), bool(state["empty"])
        cap.last = tuple(float(v) for v in state["last"])
        cap.log_kp, cap.log_km = np.array(state["log_kp"], dtype=float), np.array(state["log_km"], dtype=float)
        cap.kept = np.array(state["kept"], dtype=bool)
        cap.sums = {k: float(state[f"sum_{k}"]) for k in _SUMS}
        return cap


def _ends(kept):
    idx = np.flatnonzero(kept)
    return float(GRID[idx[0]]), float(GRID[idx[-1]])
