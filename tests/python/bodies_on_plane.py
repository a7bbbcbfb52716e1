"""Free bodies above a plane, for the tests of how a step moves bodies in contact and in
flight (test_start_from_motion.py, test_momentum_exit.py, test_rowless_trees.py)."""

import numpy as np

from ncpgym import Builder


def bodies_on_plane(*shapes, mu=0.0, timestep=1 / 120):
    """A plane with friction mu and one 1 kg free body per shape: "box" (half size 0.1 m,
    I = 0.01) or "sphere" (radius 0.1 m, I = 2/5 m r^2 = 0.004), with the same mu."""
    b = Builder()
    b.set_timestep(timestep)
    b.add_geom(0, "plane", friction=[mu, 0, 0])
    for shape in shapes:
        body = b.add_body(0, mass=1.0, inertia=np.eye(3) * (0.004 if shape == "sphere" else 0.01))
        b.add_joint(body, "free")
        size = [0.1, 0.1, 0.1] if shape == "box" else [0.1, 0, 0]
        b.add_geom(body, type=shape, size=size, friction=[mu, 0, 0])
    return b.build()
