"""Fixed tendons (issue 61 item 4): their passive forces equal MuJoCo's qfrc_passive and their
accelerations MuJoCo's qacc (contact-free, any joint order and slack spring), their limits
hold as hard rows on the length MuJoCo computes (ten_length) on Gymnasium-Robotics' Shadow
hand, and their frictionloss sticks and slides as the closed form says."""

import os

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn

TENDONS_MJCF = """<mujoco><option timestep="0.002"/><default><geom contype="0" conaffinity="0"/></default><worldbody>
  <body name="a"><joint name="ja" axis="0 1 0"/><geom size="0.05" fromto="0 0 0 0.3 0 0" type="capsule" mass="1"/>
    <body name="b" pos="0.3 0 0"><joint name="jb" axis="0 1 0"/>
      <geom size="0.04" fromto="0 0 0 0.3 0 0" type="capsule" mass="0.5"/>
      <body name="c" pos="0.3 0 0"><joint name="jc" type="slide" axis="1 0 0"/><geom size="0.05" mass="0.2"/></body>
    </body></body></worldbody>
  <tendon>
    <fixed name="spring" stiffness="30" springlength="0.1 0.3"><joint joint="ja" coef="1"/><joint joint="jb" coef="0.5"/></fixed>
    <fixed name="damper" damping="2"><joint joint="jc" coef="2"/><joint joint="ja" coef="-1"/></fixed>
    <fixed name="both" stiffness="5" damping="0.5" springlength="-0.2"><joint joint="jb" coef="-1.5"/></fixed>
  </tendon></mujoco>"""


def test_tendon_springs_and_dampers_are_mujocos_qfrc_passive_and_qacc():
    """Random states, some with the first spring slack (inside its deadband [0.1, 0.3]):
    qfrc_passive and qacc equal MuJoCo's to 1e-12 relative."""
    mj = mujoco.MjModel.from_xml_string(TENDONS_MJCF)
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(TENDONS_MJCF)
    rng = np.random.default_rng(0)
    slack = 0
    for _ in range(40):
        q, u = rng.normal(0, 0.4, mj.nq), rng.normal(0, 1.0, mj.nv)
        d.qpos[:], d.qvel[:] = q, u
        mujoco.mj_forward(mj, d)
        slack += 0.1 <= d.ten_length[0] <= 0.3
        scale = max(1.0, np.abs(d.qfrc_passive).max())
        np.testing.assert_allclose(dyn.passive(m, q, u), d.qfrc_passive, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(dyn.forward(m, q, u), d.qacc, rtol=0, atol=1e-10 * max(1, np.abs(d.qacc).max()))
    assert 3 <= slack <= 37  # both sides of the deadband were visited


def _hand():
    import gymnasium_robotics

    path = os.path.join(os.path.dirname(gymnasium_robotics.__file__), "envs", "assets", "hand", "reach.xml")
    return mujoco.MjModel.from_xml_path(path), ncpgym.load_model(path)


def test_shadow_hand_tendon_limits_hold_on_mujocos_tendon_lengths():
    """Gymnasium-Robotics' Shadow hand: 44 fixed tendons, all limited (the coupled distal
    joints J0/J1 within +-1 mm of tendon length; single-joint ranges). Under random controls
    for 1 s every tendon length MuJoCo computes from ncpgym's states stays within its range
    (to 1e-6), and the coupled joints move: without the limit rows they violate it by far."""
    mj, m = _hand()
    assert m.ntendon == mj.ntendon == 44
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(3)
    lo, hi = mj.tendon_range[:, 0], mj.tendon_range[:, 1]
    clo, chi = mj.actuator_ctrlrange[:, 0], mj.actuator_ctrlrange[:, 1]
    sim = ncpgym.Simulator(m)
    worst = 0.0
    for k in range(500):
        if k % 50 == 0:
            ctrl = rng.uniform(clo, chi)
        sim.step(ctrl=ctrl)
        d.qpos[:] = sim.q
        mujoco.mj_fwdPosition(mj, d)
        worst = max(worst, np.max(np.maximum(lo - d.ten_length, d.ten_length - hi)))
    assert worst < 1e-6, worst
    first = mj.joint("robot0:FFJ0").qposadr[0]
    assert abs(sim.q[first]) > 0.05  # the distal joint moved (with its coupled partner)


def test_tendon_frictionloss_sticks_below_and_slides_above():
    """Two hinges (I = 0.1 each about vertical axes) joined by a tendon L = qa + qb with
    frictionloss 0.4: L'' = J M^-1 (tau + J^T f) = tau / 0.1 + 20 f for a torque tau on
    joint a, so L holds with f = -tau / 2 while that is within 0.4 (tau = 0.3: the joints
    counter-rotate, L stays) and slides with f = -0.4 beyond (tau = 1: L'' = 2 rad/s^2)."""
    xml = """<mujoco><option timestep="0.002"/><worldbody>
      <body><joint name="a" axis="0 0 1"/><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>
      <body pos="1 0 0"><joint name="b" axis="0 0 1"/><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>
    </worldbody><tendon><fixed name="t" frictionloss="0.4"><joint joint="a" coef="1"/><joint joint="b" coef="1"/>
    </fixed></tendon><actuator><motor joint="a"/></actuator></mujoco>"""
    m = ncpgym.load_model(xml)
    for torque, rate in ((0.3, 0.0), (1.0, 2.0)):
        sim = ncpgym.Simulator(m, newton_iterations=30)
        sim.step(ctrl=[torque], nsteps=250)
        assert sim.u[0] + sim.u[1] == pytest.approx(rate * 0.5, abs=1e-4)  # 30 iterations: 5e-5


def test_tendon_actuators_are_mujocos_qfrc_actuator():
    """A motor (gain 1.5, gear 2, force range) and a <general> affine actuator (5 ctrl + 0.1
    - 3 L - 0.5 dL/dt) on fixed tendons: qfrc_actuator equals MuJoCo's (g J_t^T f) at random
    states and controls, in and out of the force range."""
    xml = TENDONS_MJCF.replace("</mujoco>", """<actuator>
      <general name="m" tendon="spring" gear="2" gainprm="1.5" forcelimited="true" forcerange="-1 1.2"/>
      <general name="g" tendon="damper" gainprm="5" biastype="affine" biasprm="0.1 -3 -0.5"/>
    </actuator></mujoco>""")
    mj = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(xml)
    assert list(m.actuator_tendon) == [0, 1] and list(m.actuator_joint) == [-1, -1]
    batch = ncpgym.Batch(m, 1)
    rng = np.random.default_rng(4)
    for _ in range(20):
        q, u, ctrl = rng.normal(0, 0.4, mj.nq), rng.normal(0, 1.0, mj.nv), rng.normal(0, 1.0, mj.nu)
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, ctrl
        mujoco.mj_forward(mj, d)
        batch.q[0], batch.u[0], batch.ctrl[0] = q, u, ctrl
        batch.forward()
        np.testing.assert_allclose(batch.qfrc_actuator[0], d.qfrc_actuator, rtol=1e-12, atol=1e-12)


def test_tendon_equality_holds_mujocos_tendon_lengths_coupled():
    """A tendon equality L1 - L1_0 = 0.5 (L2 - L2_0) + 0.3 (L2 - L2_0)^2 (MuJoCo's, L_0 the
    lengths at qpos0) between the 'spring' and 'damper' tendons holds to 1e-9 on the lengths
    MuJoCo computes from ncpgym's states while the arm swings under gravity for 1 s."""
    xml = TENDONS_MJCF.replace("</mujoco>", """<equality><tendon tendon1="spring" tendon2="damper"
      polycoef="0 0.5 0.3 0 0"/></equality></mujoco>""")
    mj = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mj)
    L0 = mj.tendon_length0
    sim = ncpgym.Simulator(ncpgym.load_model(xml))
    sim.u[:] = [1.0, -2.0, 0.5]
    worst = moved = 0.0
    for _ in range(500):
        sim.step()
        d.qpos[:] = sim.q
        mujoco.mj_fwdPosition(mj, d)
        x = d.ten_length[1] - L0[1]
        worst = max(worst, abs(d.ten_length[0] - L0[0] - 0.5 * x - 0.3 * x * x))
        moved = max(moved, abs(x))
    assert worst < 1e-9 and moved > 0.05, (worst, moved)
