"""Spatial tendons through sites and pulleys (issue 61 item 4): their lengths, rates and
passive forces equal MuJoCo's ten_length, ten_velocity and qfrc_passive on a chain with a
free body, a pulley and a slack spring, and around spheres and cylinders (side sites, the
inside wrap, helices); a limited one (a string) holds a hanging ball at its length and swings
it as a pendulum of that length, a rope over a drum lifts a load; what is not simulated yet
(actuators and equalities on spatial tendons) is refused by name."""

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


WRAP_MJCF = """<mujoco><option timestep="0.002" gravity="0 0 -9.81"/>
  <default><geom contype="0" conaffinity="0"/></default><worldbody>
  <site name="origin" pos="-0.3 0 0.4"/><site name="side_out" pos="0 -0.2 0.05"/>
  <body name="pulley" pos="0 0 0.2"><joint name="spin" axis="0 1 0"/>
    <geom name="drum" type="cylinder" size="0.06 0.05" euler="90 0 0" mass="0.5"/>
    <geom name="ball" type="sphere" size="0.05" pos="0 0 -0.25" mass="0.2"/>
    <site name="side_in" pos="0.01 0 -0.25"/></body>
  <body name="arm" pos="0.3 0 0.2"><joint name="swing" axis="0 1 0"/><joint name="slide" type="slide" axis="1 0 0"/>
    <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.02" mass="0.4"/>
    <site name="hook" pos="0 0 -0.3"/><site name="hook2" pos="0.02 0.01 -0.35"/></body></worldbody>
  <tendon>
    <spatial name="over_drum" stiffness="60" damping="0.5" springlength="0.5">
      <site site="origin"/><geom geom="drum"/><site site="hook"/></spatial>
    <spatial name="round_ball" stiffness="40" damping="0.3" springlength="0.4">
      <site site="origin"/><geom geom="ball" sidesite="side_out"/><site site="hook2"/></spatial>
    <spatial name="inside"><site site="origin"/><geom geom="ball" sidesite="side_in"/>
      <site site="hook"/><pulley divisor="2"/><site site="hook"/><geom geom="drum"/><site site="side_out"/></spatial>
  </tendon>
  <sensor><tendonpos tendon="over_drum"/><tendonpos tendon="round_ball"/><tendonpos tendon="inside"/>
    <tendonvel tendon="over_drum"/><tendonvel tendon="round_ball"/><tendonvel tendon="inside"/></sensor></mujoco>"""


def test_wrapping_around_spheres_and_cylinders_is_mujocos():
    """Tendons wrapping a cylinder (a helix when the ends differ in height), a sphere on the
    side of a side site, and a sphere from the inside (a side site within it) then a pulley
    and a cylinder: at random states, some wrapped and some straight, the lengths, rates,
    qfrc_passive and qacc equal MuJoCo's (1e-12, 1e-10). Catches: the wrong tangent pair,
    the helix's height, the side site ignored, J_t missing the tangent points' motion with
    the geom's body, the straight fallback."""
    mj = mujoco.MjModel.from_xml_string(WRAP_MJCF)
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(WRAP_MJCF)
    batch = ncpgym.Batch(m, 1)
    rng = np.random.default_rng(3)
    wrapped = straight = inside = 0
    for _ in range(60):
        q, u = rng.normal(0, 0.8, mj.nq), rng.normal(0, 1.0, mj.nv)
        d.qpos[:], d.qvel[:] = q, u
        mujoco.mj_forward(mj, d)
        wrapped += int((d.wrap_obj[:d.ten_wrapnum[0]] >= 0).sum() > 0)  # tangent points of the drum
        straight += int(d.ten_wrapnum[0] == 2)
        batch.q[0], batch.u[0] = q, u
        batch.forward()
        got = batch.sensordata[0]
        np.testing.assert_allclose(got[:5], np.r_[d.ten_length, d.ten_velocity[:2]], rtol=1e-12, atol=1e-12)
        # the inside wrap's point solves its equation only to MuJoCo's tolerance 1e-6, within
        # which the two solves' points differ: the length is stationary in the point, its rate
        # is not (7e-8 relative seen)
        assert got[5] == pytest.approx(d.ten_velocity[2], rel=1e-6, abs=1e-9)
        scale = max(1.0, np.abs(d.qfrc_passive).max())
        np.testing.assert_allclose(dyn.passive(m, q, u), d.qfrc_passive, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(dyn.forward(m, q, u), d.qacc, rtol=0, atol=1e-10 * max(1, np.abs(d.qacc).max()))
        inside += int(d.ten_wrapnum[2] == 7)
    assert wrapped > 5 and straight > 5 and inside > 5


def test_a_rope_over_a_drum_lifts_a_load_as_the_lengths_say():
    """A limited spatial tendon over a fixed cylinder (a side site above it: the way over the
    top) from a hanging weight to a slider: the
    tendon's length (MuJoCo's, at ncpgym's states) stays at its limit while the slider pulls,
    so the weight rises by what the slider travels (the rope is taut and inextensible)."""
    xml = """<mujoco><option timestep="0.002"/><default><geom contype="0" conaffinity="0"/></default><worldbody>
      <geom name="drum" type="cylinder" size="0.05 0.05" pos="0 0 1" euler="90 0 0"/><site name="top" pos="0 0 1.2"/>
      <body name="load" pos="-0.05 0 0.5"><joint name="lift" type="slide" axis="0 0 1"/><geom size="0.03" mass="1"/>
        <site name="a"/></body>
      <body name="cart" pos="0.05 0 0.5"><joint name="pull" type="slide" axis="0 0 1"/><geom size="0.03" mass="1"/>
        <site name="b"/></body></worldbody>
      <tendon><spatial limited="true" range="0 1.157"><site site="a"/><geom geom="drum" sidesite="top"/><site site="b"/></spatial></tendon>
      <actuator><motor joint="pull" gear="1"/></actuator></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mj)
    mujoco.mj_forward(mj, d)
    rest = float(d.ten_length[0])  # 2 x 0.5 m straight + half the drum: 1 + 0.05 pi
    assert rest == pytest.approx(1 + 0.05 * np.pi, abs=1e-9)
    sim = ncpgym.Simulator(ncpgym.load_model(xml))
    for _ in range(300):
        sim.step(np.array([-30.0]))  # pull the cart down harder than the load weighs
    d.qpos[:] = sim.q
    mujoco.mj_forward(mj, d)
    assert d.ten_length[0] == pytest.approx(1.157, abs=1e-5)  # taut at its limit
    assert sim.q[0] == pytest.approx(-sim.q[1] + (rest - 1.157), abs=1e-5)  # L = rest - q_load - q_cart
    assert sim.q[0] > 0.2  # the load rose


def test_a_coupling_of_two_spatial_tendons_holds_on_mujocos_lengths():
    """A tendon equality between the rope over the drum (a cylinder wrap) and a cord between
    two sites of the wrap model (their length changes from qpos0 in ratio 1 : 0.5): under gravity and random joint pushes, the
    lengths MuJoCo computes from ncpgym's states keep L1 - L1_0 = 0.5 (L2 - L2_0) to 1e-9,
    with tendon_length0 MuJoCo's. Catches: the spatial length at qpos0 taken at the state,
    the path bodies left unposed at the iterate, the coupling's Jacobian."""
    xml = WRAP_MJCF.replace("  </tendon>", """    <spatial name="cord"><site site="side_out"/><site site="hook2"/></spatial>
  </tendon>
  <equality><tendon tendon1="over_drum" tendon2="cord" polycoef="0 0.5 0 0 0"/></equality>""")
    mj = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mj)
    sim = ncpgym.Simulator(ncpgym.load_model(xml), newton_iterations=20)
    rng = np.random.default_rng(7)
    worst = 0.0
    for k in range(300):
        if k % 50 == 0:
            sim.u[:] += rng.normal(0, 0.5, sim.u.shape)
        sim.step()
        d.qpos[:] = sim.q
        mujoco.mj_kinematics(mj, d)
        mujoco.mj_tendon(mj, d)
        dl = d.ten_length - mj.tendon_length0
        worst = max(worst, abs(dl[0] - 0.5 * dl[3]))
    assert worst < 1e-9
    assert abs(d.ten_length[0] - mj.tendon_length0[0]) > 1e-3  # the tendons moved


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


ACTUATED_MJCF = WRAP_MJCF.replace("""  <sensor>""", """  <actuator><motor name="pull" tendon="over_drum" gear="2" ctrlrange="-1 1"/>
    <general name="servo" tendon="round_ball" gainprm="30" biastype="affine" biasprm="0 -30 -2"/>
    <motor name="inside" tendon="inside" gear="0.5"/></actuator>
  <sensor><actuatorpos actuator="pull"/><actuatorvel actuator="servo"/><actuatorfrc actuator="inside"/>""")


def test_actuators_on_spatial_tendons_are_mujocos():
    """A motor and an affine servo on wrapped spatial tendons, a motor on one with an inside
    wrap and a pulley: qfrc_actuator (g f J_t^T through the path's points), the actuator
    sensors equal MuJoCo's (to 1e-6, 1e-7 m/s: the inside wrap's touching point, above)."""
    mj = mujoco.MjModel.from_xml_string(ACTUATED_MJCF)
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(ACTUATED_MJCF)
    batch = ncpgym.Batch(m, 1)
    rng = np.random.default_rng(6)
    for _ in range(20):
        q, u, ctrl = rng.normal(0, 0.8, mj.nq), rng.normal(0, 1.0, mj.nv), rng.uniform(-1, 1, mj.nu)
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, ctrl
        mujoco.mj_forward(mj, d)
        batch.q[0], batch.u[0], batch.ctrl[0] = q, u, ctrl
        batch.forward()
        scale = max(1.0, np.abs(d.qfrc_actuator).max())
        np.testing.assert_allclose(batch.qfrc_actuator[0], d.qfrc_actuator, rtol=0, atol=1e-6 * scale)
        np.testing.assert_allclose(batch.sensordata[0], d.sensordata, rtol=1e-6, atol=1e-7)
