"""MuJoCo's <option><flag> switches mean the same in ncpgym (issue 61; dm_control's finger,
acrobot, cartpole ... set them): what they turn off is not simulated, checked against MuJoCo's
accelerations and against the motion of a body a disabled contact no longer stops; flags
ncpgym cannot honour are refused by name."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn
from ncpgym.errors import UnsupportedFeatureError

BASE = """<mujoco><option timestep="0.002">{flag}</option><worldbody><geom type="plane" size="1 1 .1"/>
  <body name="arm" pos="0 0 .5"><joint name="a" axis="0 1 0" range="-0.1 0.1" stiffness="5" damping="0.3"
    frictionloss="0.2"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".05" mass="1"/></body>
  <body name="ball" pos="1 0 0.2"><freejoint/><geom size="0.1" mass="1"/></body>
</worldbody><actuator><motor joint="a" ctrlrange="-1 1"/></actuator></mujoco>"""


@pytest.mark.parametrize("flag", ['<flag gravity="disable"/>', '<flag spring="disable" damper="disable"/>',
                                  '<flag spring="disable"/>', '<flag clampctrl="disable"/>'])
def test_disabled_terms_leave_the_accelerations_mujocos(flag):
    """The smooth accelerations (MuJoCo's qacc with its constraints off as well) at random
    states and a control outside the range (with clampctrl disabled it acts unclamped)
    equal MuJoCo's with the same flags."""
    xml = BASE.format(flag=flag)
    mj = mujoco.MjModel.from_xml_string(xml)
    m = ncpgym.load_model(xml)
    mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(0)
    for _ in range(5):
        d.qpos[:] = mj.qpos0 + np.r_[rng.normal(0, 0.05, 1), 0, 0, 5, 0, 0, 0, 0]  # ball well above the floor
        d.qvel[:] = rng.normal(0, 1, mj.nv)
        d.ctrl[:] = 3.0
        mujoco.mj_forward(mj, d)
        ours = dyn.forward(m, d.qpos, d.qvel, d.qfrc_actuator)
        np.testing.assert_allclose(ours, d.qacc, rtol=1e-12, atol=1e-10)
        batch = ncpgym.Batch(m, 1)
        batch.q[0], batch.u[0], batch.ctrl[0] = d.qpos, d.qvel, d.ctrl
        batch.forward()
        np.testing.assert_allclose(batch.qfrc_actuator[0], d.qfrc_actuator, rtol=1e-12, atol=1e-12)


def test_disabled_contacts_and_limits_are_not_simulated():
    """Contacts off: the ball falls through the floor (z = 0.2 - g t^2 / 2 after 0.4 s, the
    semi-implicit sum); limits off: the arm swings past its 0.1 rad range; all constraints
    off: both, and the joint's dry friction no longer holds it. With the flags on, the floor
    holds the ball and the range holds the arm."""
    h, n = 0.002, 200
    fall = 0.2 - 9.81 * h * h * n * (n + 1) / 2
    for flag, falls, swings in (('', False, False), ('<flag contact="disable"/>', True, False),
                                ('<flag limit="disable"/>', False, True),
                                ('<flag constraint="disable"/>', True, True)):
        sim = ncpgym.Simulator(ncpgym.load_model(BASE.format(flag=flag)))
        sim.step(ctrl=[1.0], nsteps=n)
        assert (sim.q[3] == pytest.approx(fall, abs=1e-9)) == falls, flag
        assert (abs(sim.q[0]) > 0.11) == swings, flag


@pytest.mark.parametrize("flag, line", [
    ('<flag filterparent="disable"/>', "option flag: parent-child contacts (filterparent disabled)"),
    ('<flag actuation="disable"/>', "option flag: actuation disabled"),
    ('<flag override="enable"/>', "option flag: contact parameter override"),
])
def test_flags_ncpgym_cannot_honour_are_refused(flag, line):
    with pytest.raises(UnsupportedFeatureError) as e:
        ncpgym.load_model(BASE.format(flag=flag))
    assert str(e.value).splitlines()[1:] == ["  " + line]
