"""Rotation matrices for the tests, from SciPy (an implementation independent of ncpgym's)."""

import numpy as np
from scipy.spatial.transform import Rotation


def axis_angle(axis, angle) -> np.ndarray:
    """The 3 x 3 rotation by ``angle`` (rad) about ``axis`` (any length)."""
    k = np.asarray(axis, float)
    return Rotation.from_rotvec(angle * k / np.linalg.norm(k)).as_matrix()
