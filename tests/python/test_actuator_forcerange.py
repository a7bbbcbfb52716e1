"""Actuator force ranges (MJCF actuator/@forcerange, issue 61 item 5): qfrc_actuator equals
MuJoCo's (the clamped gain * ctrl + bias, times the gear) at states in and out of the range,
and a saturated servo turns its joint with exactly the bound."""

import mujoco
import numpy as np
import pytest

import ncpgym

MJCF = """<mujoco><option timestep="0.002"/><worldbody>
  <body><joint name="a" axis="0 0 1"/><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>
  <body pos="1 0 0"><joint name="b" axis="0 0 1"/><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>
</worldbody><actuator>
  <position name="servo" joint="a" kp="100" kv="2" gear="1.5" forcelimited="true" forcerange="-0.5 0.8"/>
  <motor name="motor" joint="b" gear="3" forcelimited="true" forcerange="-1 2"/>
</actuator></mujoco>"""


def test_qfrc_actuator_is_mujocos_clamped_force_in_and_out_of_range():
    mj = mujoco.MjModel.from_xml_string(MJCF)
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(MJCF)
    batch = ncpgym.Batch(m, 1)
    rng = np.random.default_rng(1)
    saturated = 0
    for _ in range(40):
        q, u, ctrl = rng.normal(0, 0.02, 2), rng.normal(0, 0.2, 2), rng.normal(0, 1.0, 2)
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, ctrl
        mujoco.mj_forward(mj, d)
        batch.q[0], batch.u[0], batch.ctrl[0] = q, u, ctrl
        batch.forward()
        np.testing.assert_allclose(batch.qfrc_actuator[0], d.qfrc_actuator, rtol=1e-12, atol=1e-12)
        lo, hi = mj.actuator_forcerange[:, 0], mj.actuator_forcerange[:, 1]
        saturated += np.sum((d.actuator_force <= lo) | (d.actuator_force >= hi))
    assert saturated > 10  # both sides of the range were visited


def test_saturated_servo_turns_its_joint_with_the_bound():
    """The servo's target is 1 rad away: kp * 1 = 100 N m far beyond its 0.8 N m bound, so the
    wheel (I = 0.1) turns at gear * 0.8 / I = 12 rad/s^2 until the servo's own force falls
    inside the range; the motor's control 5 is clamped to its bound 2: 3 * 2 / I = 60 rad/s^2."""
    sim = ncpgym.Simulator(ncpgym.load_model(MJCF))
    sim.step(ctrl=[1.0, 5.0], nsteps=50)
    assert sim.u[0] == pytest.approx(1.5 * 0.8 / 0.1 * 0.1, rel=1e-9)
    assert sim.u[1] == pytest.approx(3 * 2.0 / 0.1 * 0.1, rel=1e-9)
