"""Dry joint friction (MJCF joint/@frictionloss) as box-bounded rows of the Newton solve
(issue 61, item 3): a joint sticks while the other torques on it stay below its frictionloss
and slides against it otherwise, checked against the closed forms of a pendulum and a wheel."""

import numpy as np
import pytest

import ncpgym

G = 9.81


def _pendulum(theta0, frictionloss=1.0):
    """A 1 kg point mass (a 1 mm sphere) 0.5 m below a horizontal hinge, I = 0.25 kg m^2,
    turned by theta0 from hanging down: gravity's torque is m g l sin(theta0)."""
    return ncpgym.load_model(f"""<mujoco><option timestep="0.002"/><worldbody>
      <body pos="0 0 1" euler="{np.degrees(theta0)} 0 0"><joint name="h" axis="1 0 0" frictionloss="{frictionloss}"/>
        <geom type="sphere" size="0.001" pos="0 0 -0.5" mass="1" contype="0" conaffinity="0"/></body>
    </worldbody></mujoco>""")


def test_pendulum_sticks_below_its_frictionloss_and_slides_above_it():
    """frictionloss 1 N m: at 0.15 rad gravity pulls with 0.733 N m and the pendulum stays
    where it is (exactly: the rows reach their fixed point); at 0.3 rad (1.450 N m) it starts
    with alpha = (m g l sin theta - 1) / I = 1.798 rad/s^2 (against 5.798 without friction).
    At 30 Newton iterations: the rows' W converges linearly from lambda = 0 in every step
    (the residual halves per iterate), 8 leave the first steps' rate 10 % low."""
    sim = ncpgym.Simulator(_pendulum(0.15), newton_iterations=30)
    sim.step(nsteps=500)
    assert abs(sim.q[0]) < 1e-9 and abs(sim.u[0]) < 1e-9
    for fl, rate in ((1.0, 1.798), (0.0, 5.798)):
        sim = ncpgym.Simulator(_pendulum(0.3, fl), newton_iterations=30)
        sim.step(nsteps=5)
        alpha = (G * 0.5 * np.sin(0.3) - fl) / 0.25
        assert alpha == pytest.approx(rate, abs=1e-3)
        assert abs(sim.u[0]) / 0.01 == pytest.approx(alpha, rel=1e-3)


def _wheel(frictionloss=0.5):
    return ncpgym.load_model(f"""<mujoco><option timestep="0.002"/><worldbody>
      <body><joint name="w" axis="0 0 1" frictionloss="{frictionloss}"/>
        <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>
    </worldbody><actuator><motor joint="w"/></actuator></mujoco>""")


def test_wheel_torque_against_frictionloss_follows_the_closed_form():
    """A wheel (I = 0.1 kg m^2) about a vertical axis with frictionloss 0.5 N m: a motor
    torque 0.4 N m does not move it; 0.9 N m turns it at (0.9 - 0.5) / I = 4 rad/s^2; spun
    at 5 rad/s and let go it slows at 5 rad/s^2 and stops at t = 1 s, and stays stopped."""
    m = _wheel()
    sim = ncpgym.Simulator(m, newton_iterations=30)
    sim.step(ctrl=[0.4], nsteps=250)
    assert abs(sim.u[0]) < 1e-9
    sim = ncpgym.Simulator(m, newton_iterations=30)
    sim.step(ctrl=[0.9], nsteps=250)
    assert sim.u[0] == pytest.approx(4.0 * 0.5, rel=1e-6)
    sim = ncpgym.Simulator(m, newton_iterations=30)
    sim.u[0] = 5.0
    sim.step(ctrl=[0.0], nsteps=250)
    assert sim.u[0] == pytest.approx(5.0 - 5.0 * 0.5, rel=1e-6)
    sim.step(ctrl=[0.0], nsteps=300)  # t = 1.1 s
    assert abs(sim.u[0]) < 1e-9
    assert list(m.dof_frictionloss) == [0.5]
