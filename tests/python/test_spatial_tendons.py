"""Spatial tendons through sites and pulleys (issue 61 item 4): their lengths, rates and
passive forces equal MuJoCo's ten_length, ten_velocity and qfrc_passive on a chain with a
free body, a pulley and a slack spring; a limited one (a string) holds a hanging ball at
its length and swings it as a pendulum of that length; what is not simulated yet (wrapping
around geoms, actuators and equalities on spatial tendons) is refused by name."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn
from ncpgym.errors import UnsupportedFeatureError

G = 9.81

SPATIAL_MJCF = """<mujoco><option timestep="0.002"/><default><geom contype="0" conaffinity="0"/></default>
  <worldbody><site name="anchor" pos="0 0 0.5"/><site name="anchor2" pos="0.4 0.1 0.6"/>
  <body name="a"><joint name="ja" axis="0 1 0"/><geom size="0.05" fromto="0 0 0 0.3 0 0" type="capsule" mass="1"/>
    <site name="sa" pos="0.2 0.02 0.03"/>
    <body name="b" pos="0.3 0 0"><joint name="jb" axis="0 0.6 0.8"/>
      <geom size="0.04" fromto="0 0 0 0.3 0 0" type="capsule" mass="0.5"/><site name="sb" pos="0.25 -0.03 0"/>
      <site name="sb2" pos="0.1 0.05 0.02"/></body></body>
  <body name="f" pos="0.6 0.3 0.2"><freejoint/><geom size="0.05" mass="0.3"/><site name="sf" pos="0.03 0 0.04"/></body>
  </worldbody>
  <tendon>
    <spatial name="spring" stiffness="40" damping="0.7" springlength="1.2 1.6">
      <site site="anchor"/><site site="sa"/><site site="sb"/><site site="sf"/></spatial>
    <spatial name="pulley" stiffness="25" damping="0.3">
      <site site="anchor2"/><site site="sb2"/><pulley divisor="2"/><site site="sa"/><site site="sf"/></spatial>
  </tendon>
  <sensor><tendonpos tendon="spring"/><tendonpos tendon="pulley"/><tendonvel tendon="spring"/>
    <tendonvel tendon="pulley"/></sensor></mujoco>"""


def test_spatial_tendon_lengths_rates_and_forces_are_mujocos():
    """Random states (the first spring at times slack inside [1.2, 1.6]): the tendon sensors
    read MuJoCo's ten_length and ten_velocity, and qfrc_passive (J_t^T f through the sites'
    point Jacobians, the pulley halving the second branch) and qacc equal MuJoCo's.
    Catches: a pulley's divisor ignored or applied before it, a segment's direction
    reversed, a site's Jacobian taken at its body's origin, the deadband."""
    mj = mujoco.MjModel.from_xml_string(SPATIAL_MJCF)
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(SPATIAL_MJCF)
    assert m.ntendon == 2
    batch = ncpgym.Batch(m, 1)
    rng = np.random.default_rng(0)
    slack = 0
    for _ in range(40):
        q, u = mj.qpos0 + rng.normal(0, 0.3, mj.nq), rng.normal(0, 1.0, mj.nv)
        q[5:9] /= np.linalg.norm(q[5:9])
        d.qpos[:], d.qvel[:] = q, u
        mujoco.mj_forward(mj, d)
        slack += 1.2 <= d.ten_length[0] <= 1.6
        batch.q[0], batch.u[0] = q, u
        batch.forward()
        np.testing.assert_allclose(batch.sensordata[0], np.r_[d.ten_length, d.ten_velocity], rtol=1e-12, atol=1e-12)
        scale = max(1.0, np.abs(d.qfrc_passive).max())
        np.testing.assert_allclose(dyn.passive(m, q, u), d.qfrc_passive, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(dyn.forward(m, q, u), d.qacc, rtol=0, atol=1e-10 * max(1, np.abs(d.qacc).max()))
    assert 3 <= slack <= 37  # both sides of the deadband were visited


STRING_MJCF = """<mujoco><option timestep="{h}"/><worldbody><site name="pin" pos="0 0 1"/>
  <body name="ball" pos="{x} 0 {z}"><freejoint/><geom size="0.02" mass="0.1" contype="0" conaffinity="0"/>
    <site name="knot"/></body></worldbody>
  <tendon><spatial name="string" limited="true" range="0 0.3"><site site="pin"/><site site="knot"/></spatial></tendon>
  <sensor><tendonpos tendon="string"/></sensor></mujoco>"""


def test_a_string_holds_a_hanging_ball_and_swings_it_as_a_pendulum():
    """dm_control's ball_in_cup string: a limited spatial tendon 0.3 m long. A ball hanging
    from it stays at 0.3 m (to 1e-6: a hard limit row, no sag); released with the string
    taut and horizontal it swings through the bottom at sqrt(2 g L) with the string never
    longer than 0.3 m (1e-6). The step's projection onto the circle loses energy in O(h):
    0.26 % of the speed at h = 0.25 ms with a converged solve (30 Newton iterations; 1.3 %
    at 1 ms, 8 iterations). Without the limit row the ball would fall away."""
    sim = ncpgym.Simulator(ncpgym.load_model(STRING_MJCF.format(h=0.001, x=0, z=0.7)))
    sim.step(nsteps=500)
    assert sim.sensordata[0] == pytest.approx(0.3, abs=1e-6)
    assert np.abs(sim.u).max() < 1e-6
    h = 0.00025
    sim = ncpgym.Simulator(ncpgym.load_model(STRING_MJCF.format(h=h, x=0.3, z=1)), newton_iterations=30)
    longest, fastest = 0.0, 0.0
    for _ in range(int(0.4 / h)):  # a quarter period is about 0.32 s
        sim.step()
        longest = max(longest, sim.sensordata[0])
        fastest = max(fastest, np.linalg.norm(sim.u[:3]))
    assert longest <= 0.3 + 1e-6
    assert fastest == pytest.approx(np.sqrt(2 * G * 0.3), rel=0.004)


@pytest.mark.parametrize("extra, line", [
    ('<actuator><motor tendon="t"/></actuator>', "actuator '': on a spatial tendon"),
    ('<equality><tendon tendon1="t"/></equality>', "equality '' (mjEQ_TENDON): on a spatial tendon"),
])
def test_actuators_and_equalities_on_spatial_tendons_are_refused_by_name(extra, line):
    xml = f"""<mujoco><worldbody><site name="s0"/><body name="a"><joint name="h"/><geom size="0.1"/>
      <site name="s1" pos="0.2 0 0"/></body></worldbody>
      <tendon><spatial name="t"><site site="s0"/><site site="s1"/></spatial></tendon>{extra}</mujoco>"""
    with pytest.raises(UnsupportedFeatureError) as e:
        ncpgym.load_model(xml)
    assert str(e.value).splitlines()[1:] == ["  " + line]


def test_wrapping_around_a_geom_is_refused_and_a_passive_one_ignored():
    xml = """<mujoco><worldbody><site name="s0"/><geom name="w" type="cylinder" size="0.05 0.1" pos="0.1 0 0"/>
      <body name="a"><joint name="h"/><geom size="0.1"/><site name="s1" pos="0.2 0.1 0"/></body></worldbody>
      <tendon><spatial name="t" {}><site site="s0"/><geom geom="w"/><site site="s1"/></spatial></tendon></mujoco>"""
    with pytest.raises(UnsupportedFeatureError, match="wrapping around a geom"):
        ncpgym.load_model(xml.format('stiffness="10"'))
    assert ncpgym.load_model(xml.format("")).ntendon == 0


def test_builder_checks_a_spatial_tendons_path():
    b = ncpgym.Builder()
    body = b.add_body(0, pos=[0, 0, 0], mass=1.0, inertia=np.eye(3) * 0.01)
    s0, s1 = b.add_site(0, [0, 0, 0]), b.add_site(body, [0.1, 0, 0])
    with pytest.raises(ValueError, match="two sites"):
        b.add_spatial_tendon([s0])
    with pytest.raises(ValueError, match="two sites"):
        b.add_spatial_tendon([s0, s1, ("pulley", 2.0), s1])
    with pytest.raises(ValueError, match="divisor"):
        b.add_spatial_tendon([s0, s1, ("pulley", 0.0), s0, s1])
    with pytest.raises(ValueError, match="site id 7"):
        b.add_spatial_tendon([s0, 7])
    assert b.add_spatial_tendon([s0, s1, ("pulley", 2.0), s1, s0]) == 0
