"""Checks of task keyword arguments that several tasks share, so each refusal reads alike."""

from __future__ import annotations


def share(name: str, value) -> float:
    """``value`` as a float if it is a real number in [0, 1] (the share of training episodes
    a training aid changes), else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name}: expected a share in [0, 1], got {value!r}")
    return float(value)
