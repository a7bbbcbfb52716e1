"""Sensors in MuJoCo's sensordata layout (issue 61 item 7): every reading that depends on the
state alone equals MuJoCo's sensordata at the same state, on models we did not write
(Gymnasium-Robotics' Shadow hand with its 92 touch sensors, the Adroit hand's actuator-force
sensors) and on one with every frame sensor; touch sensors read the normal forces ncpgym's
solver applied, checked against a box's weight on a plate with sites over and beside it."""

import os

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym.errors import UnsupportedFeatureError

G = 9.81


def _assets():
    import gymnasium_robotics

    return os.path.join(os.path.dirname(gymnasium_robotics.__file__), "envs", "assets")


STATE_TYPES = {int(t) for t in (mujoco.mjtSensor.mjSENS_JOINTPOS, mujoco.mjtSensor.mjSENS_JOINTVEL,
                                mujoco.mjtSensor.mjSENS_TENDONPOS, mujoco.mjtSensor.mjSENS_TENDONVEL,
                                mujoco.mjtSensor.mjSENS_ACTUATORPOS, mujoco.mjtSensor.mjSENS_ACTUATORVEL,
                                mujoco.mjtSensor.mjSENS_ACTUATORFRC, mujoco.mjtSensor.mjSENS_FRAMEPOS,
                                mujoco.mjtSensor.mjSENS_FRAMEQUAT, mujoco.mjtSensor.mjSENS_GYRO,
                                mujoco.mjtSensor.mjSENS_VELOCIMETER, mujoco.mjtSensor.mjSENS_FRAMELINVEL,
                                mujoco.mjtSensor.mjSENS_FRAMEANGVEL, mujoco.mjtSensor.mjSENS_FRAMEXAXIS,
                                mujoco.mjtSensor.mjSENS_FRAMEYAXIS, mujoco.mjtSensor.mjSENS_FRAMEZAXIS,
                                mujoco.mjtSensor.mjSENS_SUBTREECOM, mujoco.mjtSensor.mjSENS_SUBTREELINVEL,
                                mujoco.mjtSensor.mjSENS_SUBTREEANGMOM)}


def _compare_state_sensors(mj, m, rng, n=5):
    """Random states (q near qpos0, u, ctrl in range): the state sensors' readings equal MuJoCo's."""
    d = mujoco.MjData(mj)
    batch = ncpgym.Batch(m, 1)
    assert (m.nsensor, m.nsensordata) == (mj.nsensor, mj.nsensordata)
    np.testing.assert_array_equal(m.sensor_adr, mj.sensor_adr)
    np.testing.assert_array_equal(m.sensor_dim, mj.sensor_dim)
    rows = [i for k in range(mj.nsensor) if int(mj.sensor_type[k]) in STATE_TYPES
            for i in range(mj.sensor_adr[k], mj.sensor_adr[k] + mj.sensor_dim[k])]
    assert rows
    lo, hi = mj.actuator_ctrlrange[:, 0], mj.actuator_ctrlrange[:, 1]
    for _ in range(n):
        q = mj.qpos0 + rng.normal(0, 0.1, mj.nq)
        for j in range(mj.njnt):  # free and ball joints: unit quaternions
            if mj.jnt_type[j] in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL):
                a = mj.jnt_qposadr[j] + (3 if mj.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE else 0)
                q[a:a + 4] /= np.linalg.norm(q[a:a + 4])
        u, ctrl = rng.normal(0, 0.5, mj.nv), rng.uniform(lo, hi)
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, ctrl
        mujoco.mj_forward(mj, d)
        batch.q[0], batch.u[0], batch.ctrl[0] = q, u, ctrl
        batch.forward()
        np.testing.assert_allclose(batch.sensordata[0, rows], d.sensordata[rows], rtol=1e-12, atol=1e-12)
    return len(rows)


def test_shadow_hand_sensors_are_mujocos_at_the_same_state():
    """manipulate_block_touch_sensors.xml: 24 joint-position sensors (the 92 touch sensors
    read contact forces: next test); each reading equals MuJoCo's."""
    path = os.path.join(_assets(), "hand", "manipulate_block_touch_sensors.xml")
    mj = mujoco.MjModel.from_xml_path(path)
    assert _compare_state_sensors(mj, ncpgym.load_model(path), np.random.default_rng(0)) == 24


def test_adroit_actuator_force_sensors_are_mujocos():
    """Adroit's door: joint-position and actuator-force sensors; its actuators are MuJoCo
    <general> ones (gain 500, bias -200 q on the arm) and position servos."""
    path = os.path.join(_assets(), "adroit_hand", "adroit_door.xml")
    mj = mujoco.MjModel.from_xml_path(path)
    n = _compare_state_sensors(mj, ncpgym.load_model(path), np.random.default_rng(1))
    assert n > 30


FRAMES_MJCF = """<mujoco><worldbody>
  <body name="a" pos="0.1 0.2 0.3" euler="10 20 30"><joint name="h" axis="0 1 0" range="-1 1"/>
    <geom name="ga" type="box" size="0.1 0.05 0.02" pos="0.1 0 0" euler="0 0 40" mass="1"/>
    <site name="sa" pos="0 0.1 0" euler="5 0 0"/>
    <body name="b" pos="0.3 0 0"><joint name="s" type="slide" axis="1 0 0"/>
      <geom name="gb" size="0.05" mass="0.5" pos="0.02 0 0"/></body></body></worldbody>
  <tendon><fixed name="t"><joint joint="h" coef="2"/><joint joint="s" coef="-0.5"/></fixed></tendon>
  <actuator><motor name="m" joint="h" gear="3" ctrlrange="-1 1" forcerange="-0.5 0.5" forcelimited="true"/>
    <position name="p" joint="s" kp="20" kv="1" gear="2"/></actuator>
  <sensor><framepos objtype="site" objname="sa"/><framequat objtype="site" objname="sa"/>
    <framepos objtype="body" objname="b"/><framepos objtype="xbody" objname="b"/>
    <framequat objtype="xbody" objname="a"/><framequat objtype="body" objname="b"/><framepos objtype="geom" objname="ga"/>
    <framequat objtype="geom" objname="ga"/><tendonpos tendon="t"/><tendonvel tendon="t"/>
    <actuatorpos actuator="m"/><actuatorvel actuator="p"/><actuatorfrc actuator="m"/>
    <actuatorfrc actuator="p" cutoff="0.3"/><jointvel joint="s"/>
    <gyro site="sa"/><velocimeter site="sa"/><framelinvel objtype="body" objname="b"/>
    <frameangvel objtype="geom" objname="ga"/><framexaxis objtype="site" objname="sa"/>
    <frameyaxis objtype="xbody" objname="b"/><framezaxis objtype="geom" objname="gb"/>
    <subtreecom body="a"/><subtreelinvel body="a"/><subtreeangmom body="a"/></sensor></mujoco>"""


def test_frame_tendon_and_actuator_sensors_are_mujocos():
    """Every frame object kind (site, body's inertial frame, body frame, geom), quaternions
    with MuJoCo's sign, axes, linear and angular velocities, a site's gyro and velocimeter,
    a subtree's centre of mass, its velocity and angular momentum, a fixed tendon, a motor's
    and a servo's position, velocity and force (a force range and a cutoff clamping them)."""
    mj = mujoco.MjModel.from_xml_string(FRAMES_MJCF)
    assert _compare_state_sensors(mj, ncpgym.load_model(FRAMES_MJCF), np.random.default_rng(2), n=20) == 65


def _plate(extra_sites):
    """A 2 kg box resting on a 1 m plate (a body on a slide joint held by a stiff servo) whose
    touch sites are given."""
    return f"""<mujoco><option timestep="0.002"/><worldbody>
      <body name="plate"><joint name="z" type="slide" axis="0 0 1"/>
        <geom type="box" size="0.5 0.5 0.05" mass="10"/>{extra_sites}</body>
      <body pos="0.2 0 0.15"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="2"/></body>
    </worldbody><actuator><position joint="z" kp="1e5" kv="1e3"/></actuator>
    <sensor><touch site="over"/><touch site="beside"/><touch site="above"/><touch site="under"/></sensor></mujoco>"""


def test_touch_reads_the_weight_the_solver_carries_where_its_site_covers_the_contacts():
    """The box's four corner contacts carry its weight m g = 19.62 N; a site box over the
    box's footprint reads it, one beside it 0; one wholly above the plate's top face reads it
    too (the contact points lie outside it, but their normal rays out of the plate cross it:
    MuJoCo's re-projection), one below the face 0 (the rays leave away from it). MuJoCo's own
    touch readings on the same model agree within its soft-contact error."""
    sites = ('<site name="over" type="box" size="0.15 0.15 0.02" pos="0.2 0 0.05"/>'
             '<site name="beside" type="box" size="0.05 0.05 0.02" pos="-0.3 0 0.05"/>'
             '<site name="above" type="ellipsoid" size="0.15 0.15 0.01" pos="0.2 0 0.08"/>'
             '<site name="under" type="box" size="0.15 0.15 0.01" pos="0.2 0 0.02"/>')
    xml = _plate(sites)
    expect = [2 * G, 0.0, 2 * G, 0.0]
    sim = ncpgym.Simulator(ncpgym.load_model(xml))
    sim.step(nsteps=300)
    np.testing.assert_allclose(sim.sensordata, expect, rtol=1e-6, atol=1e-9)
    batch = ncpgym.Batch(ncpgym.load_model(xml), 2)
    batch.step(None, 300)
    np.testing.assert_allclose(batch.sensordata, [expect] * 2, rtol=1e-6, atol=1e-9)
    mj = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mj)
    mujoco.mj_step(mj, d, 2000)
    np.testing.assert_allclose(d.sensordata, expect, rtol=1e-2, atol=1e-9)


def _humanoid_with_acceleration_sensors():
    """Gymnasium's humanoid.xml (we did not write it) with, through MuJoCo's own MjSpec, a
    site on every body at an offset and turned, carrying an accelerometer, a force and a
    torque sensor."""
    import gymnasium

    path = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "humanoid.xml")
    spec = mujoco.MjSpec.from_file(path)
    rng = np.random.default_rng(7)
    for body in spec.bodies[1:]:
        site = body.add_site(name=f"acc_{body.name}", pos=rng.normal(0, 0.05, 3))
        site.quat = rng.normal(size=4) / np.linalg.norm(rng.normal(size=4))
        site.quat = np.asarray(site.quat) / np.linalg.norm(site.quat)
        for kind in ("ACCELEROMETER", "FORCE", "TORQUE"):
            spec.add_sensor(type=getattr(mujoco.mjtSensor, f"mjSENS_{kind}"), objtype=mujoco.mjtObj.mjOBJ_SITE,
                            objname=site.name)
    return spec.compile()


def test_accelerometer_force_and_torque_sensors_are_mujocos_without_constraints():
    """Away from the floor with no joint at a limit (MuJoCo's nefc = 0), forward() gives the
    free acceleration and the sensors read what MuJoCo's mj_rnePostConstraint gives: a site's
    classical acceleration less gravity, the force and torque its body's parent exerts on the
    body's subtree, each in the site's frame. Catches: gravity left out of the base's
    acceleration, the velocity term of the classical acceleration, the subtree sum, the
    torque taken about the origin instead of the site, the site's rotation."""
    mj = _humanoid_with_acceleration_sensors()
    m = ncpgym.load_model(mj)
    assert m.nsensordata == mj.nsensordata == 9 * (mj.nbody - 1)
    d = mujoco.MjData(mj)
    batch = ncpgym.Batch(m, 1)
    rng = np.random.default_rng(3)
    compared = 0
    while compared < 5:
        q = mj.qpos0 + rng.normal(0, 0.05, mj.nq)
        q[2] += 3.0
        q[3:7] /= np.linalg.norm(q[3:7])
        u, ctrl = rng.normal(0, 0.5, mj.nv), rng.uniform(-0.4, 0.4, mj.nu)
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, ctrl
        mujoco.mj_forward(mj, d)
        if d.nefc:  # a joint at its limit: MuJoCo's qacc has its force, forward()'s not
            continue
        batch.q[0], batch.u[0], batch.ctrl[0] = q, u, ctrl
        batch.forward()
        scale = np.abs(d.sensordata).max()
        assert scale > 50
        np.testing.assert_allclose(batch.sensordata[0], d.sensordata, rtol=0, atol=1e-12 * scale)
        compared += 1


STACK_MJCF = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="2 2 0.1"/>
  <body name="base" pos="0 0 0.05"><freejoint/><geom type="box" size="0.3 0.3 0.05" mass="4"/>
    <body name="plate" pos="0 0 0.06"><geom type="box" size="0.2 0.2 0.01" mass="1"/>
      <site name="mount" pos="0 0 -0.01" euler="0 0 90"/>
      <body name="arm" pos="0.2 0 0.02"><geom type="box" size="0.2 0.02 0.01" pos="0.2 0 0" mass="0.5"/>
        <site name="hinge" pos="0 0 0"/></body></body></body>
  <body name="box" pos="-0.1 0 0.12"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="2"/>
    <site name="imu" euler="90 0 0"/></body></worldbody>
  <sensor><force site="mount"/><torque site="hinge"/><accelerometer site="imu"/></sensor></mujoco>"""


def test_force_torque_and_accelerometer_read_a_resting_stack_by_hand():
    """A base on the floor carries a plate (rigidly attached) with a cantilever arm 0.4 m long
    (0.5 kg, its centre 0.2 m out) and, by contact, a free 2 kg box. At rest the plate's
    mount (turned 90 degrees about z) reads the weight of plate, arm and the box on it,
    (1 + 0.5 + 2) g upward; the arm's root reads the torque holding the arm up, m g 0.2 about
    -y; the box's accelerometer (turned 90 degrees about x) reads g up, (0, g, 0) in its frame.
    In free fall (the same stack one step after release, no contact) the accelerometer
    reads 0. Catches: contact forces left out of the subtree (the box's weight), contact
    torque arms, the step's acceleration replaced by zero or gravity's sign."""
    sim = ncpgym.Simulator(ncpgym.load_model(STACK_MJCF))
    sim.step(nsteps=500)
    expect = [0, 0, 3.5 * G, 0, -0.5 * G * 0.2, 0, 0, G, 0]
    np.testing.assert_allclose(sim.sensordata, expect, rtol=0, atol=1e-6)
    batch = ncpgym.Batch(ncpgym.load_model(STACK_MJCF), 2)
    batch.step(None, 500)
    np.testing.assert_allclose(batch.sensordata, [expect] * 2, rtol=0, atol=1e-6)
    mj = mujoco.MjModel.from_xml_string(STACK_MJCF)  # MuJoCo's readings at rest agree
    d = mujoco.MjData(mj)
    mujoco.mj_step(mj, d, 1000)
    np.testing.assert_allclose(d.sensordata, expect, rtol=0, atol=1e-3)
    fall = ncpgym.Simulator(ncpgym.load_model(STACK_MJCF.replace('pos="-0.1 0 0.12"', 'pos="-0.1 0 2"')))
    fall.step(nsteps=3)
    np.testing.assert_allclose(fall.sensordata[6:], 0, atol=1e-9)


@pytest.mark.parametrize("sensor, line", [
    ('<rangefinder site="s"/>', "sensor '' (mjSENS_RANGEFINDER): this sensor type is not computed yet"),
    ('<jointpos joint="h" noise="0.1"/>', "sensor '' (mjSENS_JOINTPOS): noise 0.1"),
    ('<framepos objtype="site" objname="s" reftype="body" refname="a"/>',
     "sensor '' (mjSENS_FRAMEPOS): measured in another object's frame (reftype)"),
    ('<framepos objtype="camera" objname="c"/>', "sensor '' (mjSENS_FRAMEPOS): of a mjOBJ_CAMERA"),
])
def test_sensors_not_computed_are_refused_by_name(sensor, line):
    xml = f"""<mujoco><worldbody><body name="a"><joint name="h"/><geom size="0.1"/><site name="s"/><camera name="c"/></body>
      </worldbody><sensor>{sensor}</sensor></mujoco>"""
    with pytest.raises(UnsupportedFeatureError) as e:
        ncpgym.load_model(xml)
    assert str(e.value).splitlines()[1:] == ["  " + line]
