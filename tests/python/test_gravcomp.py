"""Gravity compensation (MJCF body/@gravcomp): a passive force -w m g at each body's centre
of mass. Checked against MuJoCo on the YuMi URDF (a model we did not write) with weights
of our choosing, and by the analytic case: a fully compensated robot stays where it is."""

import pickle

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn
from ncpgym.envs import yumi
from ncpgym.errors import UnsupportedFeatureError
from ncpgym.models import compile_urdf, from_mujoco, to_mjcf

pytest.importorskip("rtbdata")


def yumi_with(weights, collide=False, actuator_gravcomp=False):
    """The bare YuMi URDF (no servos), gravcomp weights[k] on its k-th body (cycled)."""

    def edit(spec):
        for k, body in enumerate(spec.bodies[1:]):
            body.gravcomp = weights[k % len(weights)]
        for g in spec.geoms:
            if not collide:
                g.contype = g.conaffinity = 0
        for j in spec.joints:  # the URDF's effort limits (no actuators here to clamp)
            j.actfrclimited = mujoco.mjtLimited.mjLIMITED_FALSE
        if actuator_gravcomp:
            spec.joints[0].actgravcomp = True

    return compile_urdf(yumi.yumi_urdf(), edit=edit)


def test_passive_forces_and_accelerations_match_mujoco():
    # weights 0, partial, full, over-compensating: a sign, scale or body-index slip shows
    mj = yumi_with([0.0, 0.5, 1.0, 2.0, 0.3])
    assert np.count_nonzero(mj.body_gravcomp) > 10
    m = from_mujoco(mj)
    np.testing.assert_array_equal(m.body_gravcomp, mj.body_gravcomp)
    mj.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT  # qacc = the smooth dynamics
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(0)
    for _ in range(20):
        q = yumi.home_pose(mj) + rng.normal(0, 0.5, mj.nq)
        u = rng.normal(0, 1, mj.nv)
        d.qpos[:], d.qvel[:] = q, u
        mujoco.mj_forward(mj, d)
        scale = np.abs(d.qfrc_gravcomp).max()
        assert scale > 1.0  # the compensation is there to compare
        np.testing.assert_allclose(dyn.passive(m, q, u), d.qfrc_passive, atol=1e-10 * scale)
        np.testing.assert_allclose(dyn.forward(m, q, u), d.qacc, atol=1e-9 * np.abs(d.qacc).max())
        # passive=False drops every passive force, the compensation too (MuJoCo's mjDSBL_PASSIVE)
        np.testing.assert_allclose(
            dyn.forward(m, q, u, passive=False),
            np.linalg.solve(_mass(mj, d), -d.qfrc_bias), atol=1e-9 * np.abs(d.qacc).max())


def _mass(mj, d):
    M = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, d, M)
    return M


def test_a_fully_compensated_robot_stays_at_rest_and_an_uncompensated_one_falls():
    """Weight 1 on every body cancels gravity exactly: from rest the solver's step keeps
    every joint where it was (the stepper path, not only the dynamics functions)."""
    for w, moves in ((1.0, False), (0.0, True)):
        mj = yumi_with([w])
        sim = ncpgym.Simulator(from_mujoco(mj))
        q0 = yumi.home_pose(mj)
        sim.q[:] = q0
        for _ in range(240):  # 2 s at 1/120
            sim.step()
        drift = np.abs(sim.q - q0).max()
        if moves:
            assert drift > 0.1
        else:
            assert drift < 1e-9


def test_gravcomp_survives_export_and_pickling():
    mj = yumi_with([0.0, 0.5, 1.0, 2.0, 0.3])
    m = from_mujoco(mj)
    back = mujoco.MjModel.from_xml_string(to_mjcf(m))
    np.testing.assert_array_equal(back.body_gravcomp, mj.body_gravcomp)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(m)).body_gravcomp, mj.body_gravcomp)


def test_actuator_gravcomp_is_refused_and_bad_weights_too():
    with pytest.raises(UnsupportedFeatureError, match="actuatorgravcomp"):
        from_mujoco(yumi_with([1.0], actuator_gravcomp=True))
    b = ncpgym.Builder()
    body = b.add_body(0, np.zeros(3), np.array([1.0, 0, 0, 0]), 1.0, np.zeros(3), np.eye(3), "b")
    with pytest.raises(ValueError, match="world"):
        b.set_gravcomp(0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        b.set_gravcomp(body, float("nan"))
    b.set_gravcomp(body, 0.0)  # zero everywhere: the model carries no weights
    assert not b.build().body_gravcomp.any()
