"""Validation scenes of nonsmooth-newton-ncp.txt built with the Builder API (used by the
tests and benchmarks/contact_scenes.py)."""

from __future__ import annotations

import numpy as np

from ._core import Builder, Model


def _box_inertia(mass, half):
    x, y, z = 2 * np.asarray(half, dtype=float)
    return mass / 12.0 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])


def _quat_x(angle):
    return np.array([np.cos(angle / 2), np.sin(angle / 2), 0.0, 0.0])


def incline(theta: float, mu: float, half=0.1, mass=1.0, timestep=1 / 120) -> tuple[Model, np.ndarray]:
    """A box resting on a plane tilted by `theta` about x. Returns the model and the
    initial qpos (box on the plane, aligned with it)."""
    b = Builder()
    b.set_timestep(timestep)
    quat = _quat_x(theta)
    b.add_geom(0, "plane", quat=quat, friction=[mu, 0, 0], name="incline")
    hs = np.full(3, half)
    body = b.add_body(0, mass=mass, inertia=_box_inertia(mass, hs), name="box")
    b.add_joint(body, "free")
    b.add_geom(body, "box", size=hs, friction=[mu, 0, 0], name="box")
    normal = np.array([0.0, -np.sin(theta), np.cos(theta)])
    q0 = np.concatenate([normal * half, quat])
    return b.build(), q0


def heavy_stack(masses=(8, 64, 512, 4096, 32768), half=0.2, mu=0.5, timestep=1 / 120):
    """Boxes stacked on the ground with geometrically increasing masses (seed §10.1.5).
    Returns the model and the initial qpos (resting, touching)."""
    b = Builder()
    b.set_timestep(timestep)
    b.add_geom(0, "plane", friction=[mu, 0, 0], name="ground")
    hs = np.full(3, half)
    q0 = []
    for i, m in enumerate(masses):
        body = b.add_body(0, mass=float(m), inertia=_box_inertia(m, hs), name=f"box{i}")
        b.add_joint(body, "free")
        b.add_geom(body, "box", size=hs, friction=[mu, 0, 0], name=f"box{i}")
        q0 += [0.0, 0.0, half * (2 * i + 1), 1.0, 0.0, 0.0, 0.0]
    return b.build(), np.array(q0)
