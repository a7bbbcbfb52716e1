"""Start draws weighted by recent failure: the task a policy fails at most is practised most.

HumanoidFlagrunHarder-v0 draws its start task (standing, on the back, face down) this way,
and FetchTomato-v0's ``demo_starts`` its stage of the scripted demonstration. Written here
because it is a few lines of bookkeeping that no RL library offers as a piece on its own.
"""

from __future__ import annotations

import numpy as np


class FailureWeightedDraw:
    """Draws one of ``k`` options with probability proportional to ``floor`` + the option's
    recent failure rate, an exponential moving average over finished episodes (factor
    1 - ``decay``); every rate starts at ``initial``. n episodes of one option that finish
    at once count as n steps of their mean: the rate moves by (1 - decay^n) (mean - rate),
    so the update does not depend on how the episodes were batched (decay n overshot the
    mean from n = 20 on)."""

    def __init__(self, k: int, floor: float = 0.1, initial: float = 0.5, decay: float = 0.95):
        self.floor, self.decay = float(floor), float(decay)
        self.failure = np.full(int(k), float(initial))

    def record(self, options: np.ndarray, failed: np.ndarray) -> None:
        """Episodes that finished: the option each started from and whether it failed."""
        options, failed = np.asarray(options), np.asarray(failed, float)
        for k in np.unique(options):
            sel = options == k
            w = 1.0 - self.decay ** np.count_nonzero(sel)
            self.failure[k] += w * (failed[sel].mean() - self.failure[k])

    def get_state(self) -> dict[str, np.ndarray]:
        """The failure rates (a copy): what a saved env needs to draw as this one will."""
        return {"failure": self.failure.copy()}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        failure = np.asarray(state["failure"])  # (the assignment below casts)
        if failure.shape != self.failure.shape:
            raise ValueError(f"failure rates: expected shape {self.failure.shape}, got {failure.shape}")
        self.failure[...] = failure

    @property
    def probabilities(self) -> np.ndarray:
        """Each option's probability of being drawn now."""
        p = self.floor + self.failure
        return p / p.sum()

    def draw(self, r: np.ndarray) -> np.ndarray:
        """The options for uniform numbers ``r`` in [0, 1): the first option whose
        cumulative probability exceeds r."""
        return np.searchsorted(np.cumsum(self.probabilities), r, side="right").clip(0, len(self.failure) - 1)
