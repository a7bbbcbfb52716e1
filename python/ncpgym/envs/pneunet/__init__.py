"""PneuNet soft fingers for ncpgym (issue 7, in progress): procedural meshes of a finger
with a stiff, nearly inextensible bottom layer and pneumatic chambers along its back.

Dimensions follow the SOFA PneuNet tutorial's finger (about 115 x 30 x 20 mm with 7
chambers); material from the seed (silicone rubber, Young 0.01 GPa... here a softer 0.5 MPa
default so that the coarse mesh bends visibly, nu = 0.47, 1200 kg/m^3). The chambers are
modelled as groups of elements with an active volumetric strain (Batch.activation), the
seed's uniform internal volumetric stress written as a target strain, rather than as
hollow cavities. The bottom layer is 10x stiffer than the rest.

Solve the finger with ``linear="sparse_ldlt"``: PCR with 50 iterations leaves its stiff,
mesh-coupled systems far from converged (linear residual ~1e4), which shows as a wrongly
soft or stiff finger. Known problem: with Neo-Hookean elements the activated finger's
Newton iterations do not converge (and diverge with PCR); the default model here is the
linear co-rotational one.
"""

from __future__ import annotations

import numpy as np

from ...soft import add_mesh, box_mesh, tet_centroids

LENGTH, WIDTH, HEIGHT = 0.115, 0.030, 0.020
CHAMBERS = 7


def finger_mesh(n=(12, 3, 3)):
    """(verts, tets, groups, stiff) of one finger along +x from the origin: groups is the
    chamber index (0..6) of the elements in the upper two thirds, -1 elsewhere; stiff marks
    the bottom layer."""
    verts, tets = box_mesh((LENGTH, WIDTH, HEIGHT), n, origin=(0.0, -WIDTH / 2, 0.0))
    c = tet_centroids(verts, tets)
    stiff = c[:, 2] < HEIGHT / n[2]
    base = 0.1 * LENGTH  # the first 10 % is the clamped, passive root
    in_chamber = (c[:, 2] > HEIGHT / 3) & (c[:, 0] > base)
    idx = np.clip(((c[:, 0] - base) / (LENGTH - base) * CHAMBERS).astype(int), 0, CHAMBERS - 1)
    groups = np.where(in_chamber, idx, -1)
    return verts, tets, groups, stiff


def add_finger(builder, *, young=5e5, bottom_young=5e6, poisson=0.47, density=1200.0, model="linear",
               transform=None, clamp_body=0, friction=0.7, radius=0.002, n=(12, 3, 3)):
    """Add a finger (optionally moved by a 4 x 4 transform) and pin its root face to
    `clamp_body` (0: the world). Returns (first particle, particle count, first tet)."""
    verts, tets, groups, stiff = finger_mesh(n)
    x = verts if transform is None else (np.c_[verts, np.ones(len(verts))] @ np.asarray(transform).T)[:, :3]
    young_t = np.where(stiff, bottom_young, young)
    first, first_tet = add_mesh(builder, x, tets, density=density, young=young_t, poisson=poisson, model=model,
                                groups=groups, radius=radius, friction=friction)
    for i in np.flatnonzero(verts[:, 0] < 1e-9):
        builder.add_attachment(int(first + i), clamp_body, x[i])
    return first, len(verts), first_tet
