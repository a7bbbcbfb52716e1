"""Issue 18: the seed's Fetch Beam without the robot (scenes.fetch_beam: 16 links of 3 g
joined by 250 N m/rad bending springs), against statics solved here independently."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import scenes

H = 0.0083  # the seed's time step (Table 2)
SEED = {"newton_iterations": 6, "linear_iterations": 50}  # the seed's budget for this scene
ROWS = {**SEED, "implicit_springs": False}  # the springs as compliant rows of the NCP solve


def exact_tip_load_angles(n, m, k, link, M, g=9.81):
    """Large-deflection statics of the cantilever, by fixed-point iteration: joint i turns
    by its moment over k, the moment of every weight outboard at its true horizontal arm
    (links' weights at their centres, M at the tip)."""
    theta = np.zeros(n)
    for _ in range(200):
        phi = np.cumsum(theta)
        joints = np.concatenate([[0.0], np.cumsum(link * np.cos(phi))])
        com, tip = joints[:n] + 0.5 * link * np.cos(phi), joints[n]
        moment = np.array([m * g * np.sum(com[i:] - joints[i]) + M * g * (tip - joints[i]) for i in range(n)])
        theta = moment / k  # a hinge about +y turns +x towards -z: the weights turn it positively
    return theta


@pytest.mark.parametrize("opts", [SEED, ROWS], ids=["implicit_springs", "springs_as_rows"])
def test_cantilever_under_a_tip_load_deflects_as_exact_statics_predict(opts):
    """0.2 kg at the tip of the 32 cm beam: after 3 s every joint angle equals the exact
    statics within 1e-6 relative (measured: 1e-10), with the seed's 6 Newton / 50 linear
    iterations, springs folded into H or solved as rows."""
    p = scenes.BEAM
    model = scenes.fetch_beam(timestep=H, tip_mass=0.2)
    sim = ncpgym.Simulator(model, **opts)
    sim.mocap_pos[0, 2] = -1.0  # the support out of the way
    for _ in range(int(3.0 / H)):
        sim.step()
    ref = exact_tip_load_angles(p["n"], p["mass"], p["stiffness"], p["link"], 0.2)
    theta = sim.q[: p["n"]]
    assert ref[0] > 2e-3  # a real deflection: 2.8 mrad at the root, 14 mm at the tip
    np.testing.assert_allclose(theta, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


def raise_support(opts, lift=0.005, seconds=1.5):
    model = scenes.fetch_beam(timestep=H)
    sim = ncpgym.Simulator(model, **opts)
    z0 = float(sim.mocap_pos[0, 2])
    touch = -scenes.BEAM["thickness"] / 2 - 0.005  # the capsule's top at the straight beam's underside
    ramp = int(0.5 / H)
    for k in range(int(seconds / H)):
        sim.mocap_pos[0, 2] = z0 + min(1.0, k / ramp) * (touch + lift - z0)
        sim.step()
    return sim


def test_support_bends_the_beam_as_its_stiffness_predicts_with_pcr_at_the_seeds_budget():
    """The support pushed 5 mm up into the last link: through the contact the joints turn
    as small-deflection statics of the springs predicts (support force 2.5 N, root 2.8
    mrad) within 1 % with PCR, the springs as rows, at the seed's 6 Newton / 50 linear
    iterations (measured 0.19 %; the residue is the contact point moving along the
    tilted link); the implicit form agrees with the rows within 1 %."""
    ref, F = scenes.fetch_beam_angles(0.005)
    rows = raise_support(ROWS).q[:16].copy()
    assert 2.0 < F < 3.0 and ref[0] < -2e-3
    assert np.abs(rows - ref).max() <= 0.01 * np.abs(ref).max()
    implicit = raise_support(SEED).q[:16]
    assert np.abs(implicit - rows).max() <= 0.01 * np.abs(rows).max()


def test_fetch_beam_angles_are_the_statics_of_the_chain():
    """The reference itself, from its definition: the support force times each joint's arm,
    less the weights' moment, over k, lifts the support point by exactly `lift`; without
    gravity the angles fall linearly to zero at the support."""
    link, n = 0.02, 16
    theta, F = scenes.fetch_beam_angles(0.004, g=0.0)
    xs = link * (n - 0.5)
    arm = xs - link * np.arange(n)
    assert -np.sum(theta * arm) == pytest.approx(0.004, rel=1e-12)
    np.testing.assert_allclose(theta, -F * arm / 250.0, rtol=1e-12)
    assert F == pytest.approx(250.0 * 0.004 / np.sum(arm**2), rel=1e-12)


def test_mocap_bodies_are_exported_to_mjcf():
    """to_mjcf keeps the support a mocap body, so MuJoCo can move it as ncpgym does."""
    model = scenes.fetch_beam(timestep=H)
    mj = mujoco.MjModel.from_xml_string(ncpgym.models.to_mjcf(model))
    assert mj.nmocap == 1 and mj.body_mocapid[np.flatnonzero(np.asarray(model.body_mocapid) >= 0)[0]] == 0
    d = mujoco.MjData(mj)
    d.mocap_pos[0] = [0.31, 0.0, -0.0075 + 0.002]  # 2 mm into the last link
    mujoco.mj_forward(mj, d)
    assert d.ncon > 0
