"""PneuNet finger (issue 7 in progress): inflating the chambers curls the finger."""

import numpy as np

import ncpgym
from ncpgym.envs.pneunet import CHAMBERS, LENGTH, add_finger, finger_mesh


def test_finger_mesh_has_seven_chambers_along_its_back():
    verts, tets, groups, stiff = finger_mesh()
    assert set(np.unique(groups[groups >= 0])) == set(range(CHAMBERS))
    c = verts[tets].mean(axis=1)
    assert np.all(c[groups >= 0, 2] > c[stiff, 2].max())  # chambers above the stiff layer


def test_inflating_the_chambers_curls_the_finger_towards_its_stiff_side():
    # quasi-static: h = 1/30 s, exact linear solves (sparse LDL^T), a coarse finger
    b = ncpgym.Builder()
    b.set_timestep(1 / 30)
    b.set_gravity([0, 0, 0])
    first, n, _ = add_finger(b, n=(8, 2, 2))
    m = b.build()
    assert m.nactgroup == CHAMBERS and m.ntet == 192
    sim = ncpgym.Simulator(m, linear="sparse_ldlt")
    x0 = np.asarray(m.particle_pos0)
    tip = np.flatnonzero(np.abs(x0[:, 0] - LENGTH) < 1e-9)
    for k in range(45):  # pressure ramps up, then holds
        sim.activation[:] = 0.2 * min(1.0, k / 15)
        sim.step()
    assert sim.solver_stats["linear_residual"][-1] < 1e-8
    d = sim.x[tip].mean(axis=0) - x0[tip].mean(axis=0)
    assert np.isfinite(sim.x).all()
    # the longer back bends the finger down (towards the stiff bottom) and draws the tip back
    assert d[2] < -0.04 and d[0] < -0.02, d
    for k in range(45):  # and deflates
        sim.activation[:] = 0.2 * max(0.0, 1 - k / 15)
        sim.step()
    np.testing.assert_allclose(sim.x[tip].mean(axis=0), x0[tip].mean(axis=0), atol=2e-3)
