"""Activation dynamics (issue 61 item 5): actuators with MuJoCo's integrator, filter and
filterexact dynamics read their activation instead of their control; the activations follow
MuJoCo's act step by step, the forces equal MuJoCo's qfrc_actuator at the same state, a
filtered motor spins a wheel as the first-order response says, and the activations are
part of a world's state (reset, save and restore, per world in a Batch)."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym.errors import UnsupportedFeatureError
from ncpgym.state import batch_state, restore_batch

ACT_MJCF = """<mujoco><option timestep="0.004"/><default><geom contype="0" conaffinity="0"/></default><worldbody>
  <body name="a"><joint name="ja" axis="0 1 0" range="-2 2"/><geom size="0.05" fromto="0 0 0 0.3 0 0" type="capsule" mass="1"/>
    <body name="b" pos="0.3 0 0"><joint name="jb" axis="0 1 0"/><geom size="0.04" fromto="0 0 0 0.3 0 0" type="capsule" mass="0.5"/>
      <body name="c" pos="0.3 0 0"><joint name="jc" type="slide" axis="1 0 0"/><geom size="0.05" mass="0.2"/></body>
    </body></body></worldbody>
  <tendon><fixed name="t"><joint joint="ja" coef="1"/><joint joint="jb" coef="-0.5"/></fixed></tendon>
  <actuator>
    <general name="filtered_motor" joint="ja" dyntype="filter" dynprm="0.05" gainprm="3" ctrlrange="-1 1"/>
    <general name="exact_servo" joint="jb" dyntype="filterexact" dynprm="0.1" gainprm="20" biastype="affine"
             biasprm="0 -20 -1" ctrlrange="-1 1"/>
    <intvelocity name="integrator" joint="jc" kp="50" actrange="-0.2 0.3"/>
    <general name="tendon_filter" tendon="t" dyntype="filter" dynprm="0.02" gainprm="2" ctrlrange="-2 2"/>
    <motor name="plain" joint="jc" gear="0.5" ctrlrange="-1 1"/>
  </actuator>
  <sensor><actuatorfrc actuator="filtered_motor"/><actuatorfrc actuator="exact_servo"/>
    <actuatorfrc actuator="integrator"/><actuatorfrc actuator="tendon_filter"/></sensor></mujoco>"""


def test_activations_follow_mujocos_act():
    """300 steps under random controls (some beyond ctrlrange, so clamped first; the
    integrator runs into its actrange): the activations equal MuJoCo's act after every step
    (they depend on the controls alone). Catches: the control not clamped, the filter's time
    constant misread, filterexact integrated as filter, the actrange clamp, the activation
    advanced before its force is read."""
    mj = mujoco.MjModel.from_xml_string(ACT_MJCF)
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(ACT_MJCF)
    assert (m.nu, m.na) == (5, 4)
    sim = ncpgym.Simulator(m)
    rng = np.random.default_rng(0)
    hit_range = 0
    for k in range(300):
        ctrl = rng.uniform(-1.5, 1.5, mj.nu)
        ctrl[2] = 1.5 if k < 150 else -1.5  # the integrator up into its range's top, then its bottom
        d.ctrl[:] = ctrl
        mujoco.mj_step(mj, d)
        sim.step(ctrl)
        np.testing.assert_allclose(sim.actuator_act, d.act, rtol=1e-14, atol=1e-15)
        hit_range += d.act[2] in (-0.2, 0.3)
    assert hit_range > 100


def test_forces_read_the_activation_as_mujocos_qfrc_actuator():
    """Random states, activations and controls: qfrc_actuator and the actuator-force sensors
    equal MuJoCo's (which read act, not ctrl, for the four actuators with dynamics)."""
    rng = np.random.default_rng(1)
    _same_forces_as_mujoco(ACT_MJCF, 20, lambda mj: (rng.normal(0, 0.5, mj.nq), rng.normal(0, 1, mj.nv),
                                                     rng.normal(0, 0.5, mj.na), rng.uniform(-1, 1, mj.nu)),
                           tol=1e-13, sensors=True)


def _same_forces_as_mujoco(xml, n, draw, tol, sensors=False):
    """At n states (q, u, act, ctrl) = draw(mj): ncpgym's qfrc_actuator (and sensordata)
    after forward() equal MuJoCo's after mj_forward."""
    mj = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mj)
    batch = ncpgym.Batch(ncpgym.load_model(xml), 1)
    for _ in range(n):
        q, u, act, ctrl = draw(mj)
        d.qpos[:], d.qvel[:], d.act[:], d.ctrl[:] = q, u, act, ctrl
        mujoco.mj_forward(mj, d)
        batch.q[0], batch.u[0], batch.actuator_act[0], batch.ctrl[0] = q, u, act, ctrl
        batch.forward()
        np.testing.assert_allclose(batch.qfrc_actuator[0], d.qfrc_actuator, rtol=tol, atol=tol)
        if sensors:
            np.testing.assert_allclose(batch.sensordata[0], d.sensordata, rtol=tol, atol=tol)


WHEEL_MJCF = """<mujoco><option timestep="0.01" gravity="0 0 0"/><worldbody>
  <body><joint name="w" axis="0 0 1"/><geom type="cylinder" size="0.1 0.02" mass="2" contype="0" conaffinity="0"/></body>
  </worldbody><actuator><general joint="w" dyntype="filter" dynprm="0.2" gainprm="0.4"/></actuator></mujoco>"""


def test_a_filtered_motor_spins_a_wheel_as_the_first_order_response():
    """A wheel (I = m r^2 / 2 = 0.01) under a filtered motor (tau 0.2 s, gain 0.4) with ctrl
    1: the activation after n steps is 1 - (1 - h/tau)^n (MuJoCo's Euler filter) and each step
    applies the torque of the activation at its start, so the wheel's speed after n steps is
    (h / I) 0.4 sum_{k<n} (1 - (1 - h/tau)^k). Catches: the force reading the control (the
    wheel would spin at 0.4 n h / I) or the next activation."""
    m = ncpgym.load_model(WHEEL_MJCF)
    sim = ncpgym.Simulator(m)
    h, tau, inertia, n = 0.01, 0.2, 2 * 0.1**2 / 2, 50
    sim.step(np.ones(1), nsteps=n)
    acts = 1 - (1 - h / tau) ** np.arange(n + 1)
    assert sim.actuator_act[0] == pytest.approx(acts[n], rel=1e-12)
    assert sim.u[0] == pytest.approx(h / inertia * 0.4 * acts[:n].sum(), rel=1e-9)


def test_activations_are_per_world_state_reset_saved_and_restored():
    """In a Batch each world's activations advance with its own controls; reset zeroes them;
    batch_state / restore_batch carry them, so a restored batch continues bitwise."""
    m = ncpgym.load_model(ACT_MJCF)
    batch = ncpgym.Batch(m, 3)
    ctrl = np.array([[0.5] * 5, [-0.5] * 5, [1.0] * 5])
    batch.step(ctrl, 10)
    assert batch.actuator_act.shape == (3, 4)
    assert batch.actuator_act[0, 0] > 0 > batch.actuator_act[1, 0]
    saved = batch_state(batch)
    batch.step(ctrl, 5)
    after = (batch.q.copy(), batch.actuator_act.copy())
    restore_batch(batch, saved)
    batch.step(ctrl, 5)
    np.testing.assert_array_equal(batch.q, after[0])
    np.testing.assert_array_equal(batch.actuator_act, after[1])
    batch.reset(np.array([True, False, False]), m.qpos0[None], np.zeros((1, m.nv)))
    assert not batch.actuator_act[0].any() and batch.actuator_act[1].all()


@pytest.mark.parametrize("actuator, line", [
    ('<muscle joint="h" lengthrange="-1 1"/>', "actuator '': activation dynamics mjDYN_MUSCLE"),
    ('<general joint="h" dyntype="filter" dynprm="0.1" actearly="true"/>', "actuator '': actearly"),
    ('<general joint="h" dyntype="filter" dynprm="0"/>', "actuator '': a filter's time constant 0"),
])
def test_activation_dynamics_not_simulated_are_refused_by_name(actuator, line):
    xml = f"""<mujoco><worldbody><body><joint name="h"/><geom size="0.1"/></body></worldbody>
      <actuator>{actuator}</actuator></mujoco>"""
    with pytest.raises(UnsupportedFeatureError) as e:
        ncpgym.load_model(xml)
    assert line in str(e.value).splitlines()[1:][0]


CYLINDER_MJCF = """<mujoco><option timestep="0.004" gravity="0 0 0"/><worldbody>
  <body><joint name="s" type="slide" axis="1 0 0"/><geom size="0.05" mass="1" contype="0" conaffinity="0"/></body>
  <body pos="0 0.3 0"><joint name="h"/><geom size="0.05" mass="1" contype="0" conaffinity="0"/></body></worldbody>
  <actuator><cylinder name="piston" joint="s" timeconst="0.03" area="0.002" ctrlrange="0 500000"/>
    <cylinder name="biased" joint="h" timeconst="0.05" diameter="0.04" bias="3 -2 -0.5"/>
    <general name="offset" joint="h" gainprm="2" biastype="affine" biasprm="0.7 0 0"/></actuator></mujoco>"""


def test_mujocos_cylinder_and_a_constant_bias_are_its_forces_and_activations():
    """MuJoCo's <cylinder> shortcut (a filter with the time constant, the area as gain, an
    affine bias) and a <general> actuator whose bias is a constant: qfrc_actuator at random
    states and the activations over 100 steps equal MuJoCo's."""
    rng = np.random.default_rng(4)
    _same_forces_as_mujoco(CYLINDER_MJCF, 10, lambda mj: (rng.normal(0, 0.5, mj.nq), rng.normal(0, 1, mj.nv),
                                                          rng.normal(0, 1e5, mj.na), rng.uniform(0, 5e5, mj.nu)),
                           tol=1e-9)
    mj = mujoco.MjModel.from_xml_string(CYLINDER_MJCF)
    m = ncpgym.load_model(CYLINDER_MJCF)
    d = mujoco.MjData(mj)
    sim = ncpgym.Simulator(m)
    for _ in range(100):
        ctrl = rng.uniform(0, 2e3, mj.nu)  # forces of a few newtons: the bodies stay slow
        d.ctrl[:] = ctrl
        mujoco.mj_step(mj, d)
        sim.step(ctrl)
        np.testing.assert_allclose(sim.actuator_act, d.act, rtol=1e-14)


DAMPER_MJCF = """<mujoco><option timestep="0.01" gravity="0 0 0"/><worldbody>
  <body><joint name="w" axis="0 0 1"/><geom type="cylinder" size="0.1 0.02" mass="2" contype="0" conaffinity="0"/></body>
  </worldbody><actuator><damper name="brake" joint="w" kv="0.3" gear="2" ctrlrange="0 1"/></actuator></mujoco>"""


def test_mujocos_damper_brakes_a_wheel_as_implicit_damping():
    """MuJoCo's damper (f = -kv ctrl V, V = gear qdot): qfrc_actuator equals MuJoCo's at random
    states; on a free wheel (I = 0.01) with ctrl c the speed after n steps is
    u0 / (1 + h kv c g^2 / I)^n (implicit, as the joint's own damping). Catches: the control or
    the gear left out of the damping, an explicit damper (u0 (1 - h kv c g^2 / I)^n)."""
    rng = np.random.default_rng(5)
    _same_forces_as_mujoco(DAMPER_MJCF, 10, lambda mj: (np.zeros(1), rng.normal(0, 3, 1), np.zeros(0),
                                                        rng.uniform(0, 1, 1)), tol=1e-14)
    m = ncpgym.load_model(DAMPER_MJCF)
    sim = ncpgym.Simulator(m)
    sim.u[0] = 5.0
    h, kv, c, g, inertia, n = 0.01, 0.3, 0.7, 2.0, 2 * 0.1**2 / 2, 40
    sim.step(np.array([c]), nsteps=n)
    assert sim.u[0] == pytest.approx(5.0 / (1 + h * kv * c * g * g / inertia) ** n, rel=1e-12)
