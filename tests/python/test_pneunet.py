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
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.set_gravity([0, 0, 0])
    first, n, _ = add_finger(b)
    m = b.build()
    assert m.nactgroup == CHAMBERS
    sim = ncpgym.Simulator(m)
    tip = [i for i in range(n) if abs(np.asarray(m.particle_pos0)[first + i][0] - LENGTH) < 1e-9]
    x0 = sim.x[tip].mean(axis=0).copy()
    for k in range(240):  # pressure ramps up over 0.5 s, then holds
        sim.activation[:] = 0.2 * min(1.0, k / 60)
        sim.step()
    x1 = sim.x[tip].mean(axis=0)
    assert np.isfinite(sim.x).all()
    # the longer back bends the finger down (towards the stiff bottom) and draws the tip back
    assert x1[2] < x0[2] - 0.03, (x0, x1)
    assert x1[0] < x0[0] - 0.003, (x0, x1)
    for k in range(480):  # and deflates
        sim.activation[:] = 0.2 * max(0.0, 1 - k / 60)
        sim.step()
    np.testing.assert_allclose(sim.x[tip].mean(axis=0), x0, atol=3e-3)
