"""load_model on third-party MJCF and URDF files, and clear errors on bad input."""

import logging

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym.errors import ModelError, UnsupportedFeatureError


@pytest.mark.parametrize("name,nq,nv,nu", [("humanoid", 24, 23, 17), ("ant", 15, 14, 8)])
def test_gymnasium_assets_load(model_paths, name, nq, nv, nu, caplog):
    with caplog.at_level(logging.INFO, logger="ncpgym"):
        m = ncpgym.load_model(model_paths[name])
    mj = mujoco.MjModel.from_xml_path(str(model_paths[name]))
    assert (m.nq, m.nv, m.nu) == (nq, nv, nu) == (mj.nq, mj.nv, mj.nu)
    assert m.nbody == mj.nbody and m.ngeom == mj.ngeom
    assert np.isclose(m.total_mass(), mj.body_mass.sum())
    assert m.timestep == mj.opt.timestep
    assert list(m.joint_names) == [mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(mj.njnt)]
    np.testing.assert_array_equal(m.qpos0, mj.qpos0)
    assert m.ntendon == mj.ntendon  # humanoid: two fixed tendons (without effect: no rows)
    assert list(m.tendon_names) == [mj.tendon(t).name for t in range(mj.ntendon)]


def test_urdf_allegro_repairs_inertia_with_warning(model_paths, caplog):
    with caplog.at_level(logging.WARNING, logger="ncpgym"):
        m = ncpgym.load_model(model_paths["allegro"], strict=False)
    assert m.nq == m.nv == 16
    assert "balanceinertia" in caplog.text


def test_urdf_panda_mimic_joint_becomes_a_joint_coupling(model_paths):
    """MuJoCo's URDF import turns panda's <mimic> finger into a joint equality, which now
    loads strictly as a coupling row: the fingers move together."""
    m = ncpgym.load_model(model_paths["panda"])  # strict
    assert (m.nq, m.nv) == (9, 9) and list(m.eq_type) == ["joint"]
    from ncpgym.models import loader

    mj = loader.compile_urdf(model_paths["panda"], floating_base=False)
    mj.geom_contype[:] = mj.geom_conaffinity[:] = 0  # link meshes: mesh-mesh collision is issue 16
    m = ncpgym.models.from_mujoco(mj)
    j1, j2 = m.eq_obj1[0], m.eq_obj2[0]
    assert {m.joint_names[j1], m.joint_names[j2]} == {"panda_finger_joint1", "panda_finger_joint2"}
    sim = ncpgym.Simulator(m, timestep=1 / 240)
    sim.q[j1] = sim.q[j2] = 0.02
    sim.u[j2] = 0.05  # push one finger: the other follows
    sim.step(nsteps=20)
    assert abs(sim.q[j1] - sim.q[j2]) < 1e-8 and sim.q[j1] != 0.02


def test_urdf_talos_fixed_and_floating(model_paths):
    fixed = ncpgym.load_model(model_paths["talos"], strict=False)
    floating = ncpgym.load_model(model_paths["talos"], floating_base=True, strict=False)
    assert (fixed.nq, fixed.nv) == (32, 32)
    assert (floating.nq, floating.nv) == (39, 38)
    assert floating.jnt_type[0] == int(mujoco.mjtJoint.mjJNT_FREE)
    # the floating base carries the root link's mass, which the fixed import fuses away
    assert floating.total_mass() > fixed.total_mass() + 1.0


def test_unsupported_features_are_dropped_with_a_warning_when_not_strict(caplog):
    xml = """<mujoco><option viscosity="0.5"/><worldbody><body name="a">
    <joint name="j" type="hinge"/><geom size="0.1"/><site name="s"/></body></worldbody>
    <sensor><jointpos joint="j"/><rangefinder site="s"/></sensor></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(UnsupportedFeatureError, match="sensor") as e:  # never dropped silently
        ncpgym.models.from_mujoco(mj)
    assert "sensor '' (mjSENS_RANGEFINDER): this sensor type is not computed yet" in str(e.value)
    with caplog.at_level(logging.WARNING, logger="ncpgym"):
        m = ncpgym.models.from_mujoco(mj, strict=False)
    assert m.nv == 1 and "not computed yet" in caplog.text
    assert m.nsensor == 1  # the joint-position sensor loads; the rangefinder is dropped


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        ncpgym.load_model(tmp_path / "nope.xml")


def test_malformed_mjcf(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text("<mujoco><worldbody><body><geom type='sphere'</worldbody></mujoco>")
    with pytest.raises(ModelError, match="bad.xml"):
        ncpgym.load_model(p)


def test_malformed_urdf(tmp_path):
    p = tmp_path / "bad.urdf"
    p.write_text("<robot name='x'><link name='a'>")
    with pytest.raises(ModelError, match="malformed URDF"):
        ncpgym.load_model(p)


def test_unknown_extension(tmp_path):
    p = tmp_path / "m.sdf"
    p.write_text("<sdf/>")
    with pytest.raises(ModelError, match="unknown model format"):
        ncpgym.load_model(p)


def test_unsupported_geom_named(tmp_path):
    p = tmp_path / "sdf.xml"
    p.write_text("""<mujoco><asset><hfield name="h" nrow="3" ncol="3" size="1 1 0.1 0.1"/></asset>
      <worldbody><geom name='ground' type='hfield' hfield='h'/><body name='b'><freejoint/>
      <geom size='.1'/></body></worldbody></mujoco>""")
    with pytest.raises(UnsupportedFeatureError, match="geom 'ground'.*HFIELD"):
        ncpgym.load_model(p)


def test_position_servo_and_ref_carried_over(tmp_path):
    p = tmp_path / "servo.xml"
    p.write_text("""<mujoco><compiler angle='radian'/><worldbody><body name='b'>
      <joint name='j' type='hinge' ref='0.3' stiffness='2' springref='0.1' damping='0.5' armature='0.01' range='-1 1'/>
      <geom type='capsule' size='.05' fromto='0 0 0 0 0 -1'/></body></worldbody>
      <actuator><position name='servo' joint='j' kp='30' kv='2' ctrlrange='-1 1'/></actuator></mujoco>""")
    m = ncpgym.load_model(p)
    assert m.qpos0[0] == pytest.approx(0.3)
    assert m.actuator_names == ["servo"]
    assert m.jnt_limited[0] == 1 and tuple(m.jnt_range[0]) == (-1.0, 1.0)
    assert m.dof_damping[0] == 0.5 and m.dof_armature[0] == 0.01 and m.jnt_stiffness[0] == 2


def test_mjcf_export_round_trip_keeps_the_dynamics():
    """to_mjcf(model) compiled by MuJoCo and converted back gives the same dynamics."""
    from ncpgym import scenes
    from ncpgym.models import from_mujoco, to_mjcf

    rng = np.random.default_rng(0)
    for m, q in [(scenes.stiff_chain(), None), scenes.heavy_stack()]:
        q = m.qpos0 + 0.1 * rng.normal(size=m.nq) if q is None else q
        m2 = from_mujoco(mujoco.MjModel.from_xml_string(to_mjcf(m)))
        u = rng.normal(size=m.nv)
        np.testing.assert_allclose(ncpgym.dynamics.forward(m2, q, u), ncpgym.dynamics.forward(m, q, u),
                                   rtol=1e-9, atol=1e-9)
        assert m2.ngeom == m.ngeom
        solid = m.geom_type != 0  # planes: MuJoCo stores a display size, ncpgym none
        assert np.allclose(m2.geom_size[solid], m.geom_size[solid])


LOADER_MJCF = """
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" friction="0.3 0.01 0.002" contype="2" conaffinity="4"/>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" ref="0.1" stiffness="5" springref="0.4"
             damping="0.3" range="-1.2 0.9" limited="true"/>
      <geom name="link" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"
            friction="0.7 0.02 0.003" contype="1" conaffinity="3"/>
      <body name="slider" pos="0.3 0 0">
        <joint name="slide" type="slide" axis="1 0 0" range="-0.1 0.2" limited="true" stiffness="2" springref="0.05"/>
        <geom type="box" size="0.05 0.05 0.05" mass="0.5" friction="1.1 0.005 0.0001"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general name="motor" joint="hinge" gear="2" gainprm="3" ctrlrange="-1 1" ctrllimited="true"/>
    <position name="servo" joint="slide" kp="40" kv="2"/>
  </actuator>
</mujoco>
"""


def test_loader_and_export_keep_springs_actuator_gains_limits_friction_and_contact_bits():
    """Against MuJoCo on an MJCF written here: passive forces with springs at springref
    (not ref), actuator forces (a motor's gear x gain, a servo's kp and kv) at a random
    state and control, joint limits, friction and contact bits; then all of it through
    to_mjcf and back (MuJoCo's own actuator forces on the exported file, too)."""
    from ncpgym.models import from_mujoco, to_mjcf

    mjm = mujoco.MjModel.from_xml_string(LOADER_MJCF)
    mjd = mujoco.MjData(mjm)
    rng = np.random.default_rng(7)
    q, u, ctrl = np.array([0.25, 0.07]), rng.normal(size=2), np.array([0.6, 0.12])
    mjd.qpos[:], mjd.qvel[:], mjd.ctrl[:] = q, u, ctrl
    mujoco.mj_forward(mjm, mjd)
    m = from_mujoco(mjm)
    for model in (m, from_mujoco(mujoco.MjModel.from_xml_string(to_mjcf(m)))):
        # springs (and damping) as MuJoCo's qfrc_passive: qacc with tau = 0 and no contact
        expect = np.zeros((1, 2))
        mujoco.mj_solveM(mjm, mjd, expect, (mjd.qfrc_passive - mjd.qfrc_bias)[None])
        expect = expect[0]
        np.testing.assert_allclose(ncpgym.dynamics.forward(model, q, u), expect, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(model.jnt_limited, mjm.jnt_limited)
        np.testing.assert_allclose(model.jnt_range, mjm.jnt_range)
        np.testing.assert_allclose(np.asarray(model.geom_friction), mjm.geom_friction)
        np.testing.assert_array_equal(model.geom_contype, mjm.geom_contype)
        np.testing.assert_array_equal(model.geom_conaffinity, mjm.geom_conaffinity)
    exported = mujoco.MjModel.from_xml_string(to_mjcf(m))
    for model in (m, from_mujoco(exported)):
        b = ncpgym.Batch(model, 1)
        b.q[0], b.u[0], b.ctrl[0] = q, u, ctrl
        b.forward()
        np.testing.assert_allclose(b.qfrc_actuator[0], mjd.qfrc_actuator, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(model.actuator_ctrlrange[0], [-1, 1])
        assert list(model.actuator_ctrllimited) == [1, 0] and list(model.actuator_type) == [0, 1]
    d2 = mujoco.MjData(exported)
    d2.qpos[:], d2.qvel[:], d2.ctrl[:] = q, u, ctrl
    mujoco.mj_forward(exported, d2)
    np.testing.assert_allclose(d2.qfrc_actuator, mjd.qfrc_actuator, rtol=1e-12, atol=1e-12)


def test_load_model_takes_mjcf_text_and_compiled_models():
    """The loader's MJCF as text, as a compiled MjModel and as a file give the same model
    (same dynamics at a random state); bad text names MuJoCo's reason."""
    from ncpgym.errors import ModelError

    m_text = ncpgym.load_model(LOADER_MJCF)
    m_mj = ncpgym.load_model(mujoco.MjModel.from_xml_string(LOADER_MJCF))
    q, u = np.array([0.3, -0.05]), np.array([0.2, -0.4])
    for m in (m_text, m_mj):
        assert (m.nq, m.nu, m.ngeom) == (2, 2, 3)
        np.testing.assert_allclose(ncpgym.dynamics.forward(m, q, u), ncpgym.dynamics.forward(m_text, q, u))
    with pytest.raises(ModelError, match="MJCF text"):
        ncpgym.load_model("<mujoco><worldbody><geom type='nope'/></worldbody></mujoco>")


NAMED_MJCF = """<mujoco><compiler angle="radian"/>
 <worldbody>
  <geom name="floor" type="plane" size="1 1 0.1"/>
  <body name="base" pos="0.3 0.2 1"><freejoint name="root"/>
   <geom name="torso" type="box" size="0.1 0.1 0.1" mass="2"/>
   <body name="upper" pos="0.1 0 0"><joint name="shoulder" type="ball"/>
    <geom name="upper_arm" type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.5"/>
    <body name="fore" pos="0.2 0 0">
     <joint name="elbow" type="hinge" axis="0 1 0" pos="0.05 0 0.02" ref="0.2" stiffness="1" springref="0.3"/>
     <geom name="hand" type="sphere" size="0.03" pos="0.1 0 0" mass="0.3"/>
    </body>
   </body>
  </body>
 </worldbody>
 <actuator>
  <motor name="elbow_motor" joint="elbow" gear="3"/>
  <position name="elbow_servo" joint="elbow" kp="20" kv="1" gear="2"/>
 </actuator>
</mujoco>"""


def test_loaded_model_keeps_mujocos_names_joint_frames_and_geared_servo():
    """Against MuJoCo's compile of the file written here: every body, joint, geom and
    actuator keeps MuJoCo's name; a hinge placed off its body's origin (pos) moves the
    body as MuJoCo's does (its pos, and the accelerations under gravity and its spring at
    a random state); a position servo with gear 2 pushes with MuJoCo's force (gear times
    kp (ctrl - gear q) - kv gear qdot, as qfrc_actuator); primitives have no mesh (MuJoCo's
    geom_dataid -1). MuJoCo's ref and springref exist for hinge and slide joints only: a
    free or ball joint's are 0 (Builder.add_joint's default), not its first qpos0 entry.
    Catches (mutmut survivors): a body's or an actuator's name dropped, the joint position
    dropped, a servo's gear dropped, a mesh id on a sphere, a free joint's ref taken from
    its qpos0 (the body's x) or set to 1."""
    from ncpgym.models import from_mujoco

    mj = mujoco.MjModel.from_xml_string(NAMED_MJCF)
    m = from_mujoco(mj)

    def names(obj, n):
        return [mujoco.mj_id2name(mj, obj, i) or "" for i in range(n)]

    assert list(m.body_names) == names(mujoco.mjtObj.mjOBJ_BODY, mj.nbody)
    assert list(m.joint_names) == names(mujoco.mjtObj.mjOBJ_JOINT, mj.njnt) == ["root", "shoulder", "elbow"]
    assert list(m.geom_names) == names(mujoco.mjtObj.mjOBJ_GEOM, mj.ngeom)
    assert list(m.actuator_names) == names(mujoco.mjtObj.mjOBJ_ACTUATOR, mj.nu) == ["elbow_motor", "elbow_servo"]
    np.testing.assert_array_equal(m.geom_mesh, mj.geom_dataid)
    np.testing.assert_allclose(m.jnt_pos, mj.jnt_pos, atol=1e-12)
    elbow = mj.jnt_qposadr[2]
    np.testing.assert_allclose(m.jnt_ref, [0, 0, mj.qpos0[elbow]], atol=1e-12)
    np.testing.assert_allclose(m.jnt_springref, [0, 0, mj.qpos_spring[elbow]], atol=1e-12)
    assert mj.qpos0[0] == 0.3 and mj.qpos0[3] == 1  # what a ref taken from qpos0 would read
    rng = np.random.default_rng(3)
    q = mj.qpos0.copy()
    q[3:7] = rng.normal(size=4)
    q[7:11] = rng.normal(size=4)
    q[3:7] /= np.linalg.norm(q[3:7])
    q[7:11] /= np.linalg.norm(q[7:11])
    q[11] = 0.7
    u, ctrl = rng.normal(size=mj.nv), np.array([0.4, -0.3])
    d = mujoco.MjData(mj)
    d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, ctrl
    mujoco.mj_forward(mj, d)
    expect = np.zeros((1, mj.nv))
    mujoco.mj_solveM(mj, d, expect, (d.qfrc_passive - d.qfrc_bias)[None])
    np.testing.assert_allclose(ncpgym.dynamics.forward(m, q, u), expect[0], rtol=1e-9, atol=1e-9)
    b = ncpgym.Batch(m, 1)
    b.q[0], b.u[0], b.ctrl[0] = q, u, ctrl
    b.forward()
    np.testing.assert_allclose(b.qfrc_actuator[0], d.qfrc_actuator, rtol=1e-9, atol=1e-9)
    g, kp, kv = 2.0, 20.0, 1.0  # the servo by hand: gear g on the elbow (dof 9)
    servo = g * (kp * (ctrl[1] - g * q[11]) - kv * g * u[9])
    assert d.qfrc_actuator[9] == pytest.approx(3 * ctrl[0] + servo, rel=1e-12)


SHAPES_MJCF = """<mujoco><worldbody>
 <geom type="plane" size="0 0 1"/>
 <body name="mixed" pos="0 0 1"><freejoint/>
  <geom type="sphere" size="0.05" pos="0.1 0 0" mass="0.3"/>
  <geom type="capsule" size="0.02 0.1" pos="-0.1 0 0" mass="0.2"/>
  <geom type="cylinder" size="0.03 0.04" pos="0 0.1 0" mass="0.4"/>
  <geom type="box" size="0.02 0.03 0.04" pos="0 -0.1 0" mass="0.5"/>
 </body>
 <body name="skew" pos="1 0 1"><joint type="hinge" axis="1 1 0"/>
  <inertial pos="0.1 0 0" mass="2" fullinertia="0.3 0.25 0.2 0.05 -0.02 0.03"/>
  <geom type="box" size="0.1 0.1 0.1" contype="0" conaffinity="0" mass="0"/>
 </body>
 <body name="target" mocap="true" pos="0 1 1"><geom type="sphere" size="0.02" contype="0" conaffinity="0"/></body>
</worldbody></mujoco>"""


def test_export_keeps_every_geom_its_shape_off_diagonal_inertia_and_mocap():
    """to_mjcf and back through MuJoCo's compiler, against MuJoCo on the file written here:
    every geom of a body with four (type, size, position), a body's full inertia with
    off-diagonal terms (the mass matrix at a hinge angle), the mocap flag. Catches (mutmut
    survivors): only the last geom of a body kept, an off-diagonal inertia entry swapped,
    the mocap flag dropped, a geom's type, size or position changed (a sphere written with
    two sizes is equivalent: MuJoCo's compiler keeps the first)."""
    from ncpgym.models import from_mujoco, to_mjcf

    ref = mujoco.MjModel.from_xml_string(SHAPES_MJCF)
    back = mujoco.MjModel.from_xml_string(to_mjcf(from_mujoco(ref)))

    def geoms(mj):  # (body name, type, size, pos) of each geom, in a fixed order
        out = []
        for g in range(mj.ngeom):
            b = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_BODY, mj.geom_bodyid[g]) or "world"
            out.append((b, int(mj.geom_type[g]), np.round(mj.geom_size[g], 12).tolist(), np.round(mj.geom_pos[g], 12).tolist()))
        return sorted(out, key=str)

    gr, gb = geoms(ref), geoms(back)
    assert len(gb) == len(gr)
    for (br, tr, sr, pr), (bb, tb, sb, pb) in zip(gr, gb):
        assert tr == tb and np.allclose(pr, pb, atol=1e-9), (br, bb)
        if tr != mujoco.mjtGeom.mjGEOM_PLANE:  # the plane's size is only its drawing
            np.testing.assert_allclose(sb, sr, atol=1e-9, err_msg=br)
    # the skew body's inertia: its mass matrix entry about the hinge (axis (1, 1, 0) / sqrt 2)
    for mj in (ref, back):
        mj.opt.gravity[:] = 0
    d_ref, d_back = mujoco.MjData(ref), mujoco.MjData(back)
    for d, mj in ((d_ref, ref), (d_back, back)):
        d.qpos[7] = 0.7
        mujoco.mj_forward(mj, d)
    M_ref, M_back = np.zeros((ref.nv, ref.nv)), np.zeros((back.nv, back.nv))
    mujoco.mj_fullM(ref, d_ref, M_ref)
    mujoco.mj_fullM(back, d_back, M_back)
    np.testing.assert_allclose(M_back, M_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(back.body_mocapid, ref.body_mocapid)
    assert ref.body_mocapid.max() == 0  # the target is mocap in both


EVERYTHING_MJCF = """<mujoco><compiler angle="radian"/>
 <asset><mesh name="gem" vertex="0.05 0 0  -0.04 0.01 0  0 0.06 0  0.01 -0.05 0  0 0 0.07  0.005 0.003 -0.03"/>
  <mesh name="wedge" vertex="0 0 0  0.1 0 0  0 0.08 0  0 0 0.05  0.1 0 0.05  0 0.08 0.05"/></asset>
 <worldbody>
  <geom type="plane" size="0 0 1"/>
  <geom type="box" size="0.2 0.1 0.05" pos="1 1 0.05" euler="0 0 0.3" friction="0.6 0.01 0.002"/>
  <body name="torso" pos="0 0 1" euler="0.1 0.2 0.3"><joint type="free" damping="0.05" armature="0.02"/>
   <inertial pos="0.01 0.02 -0.03" mass="3" fullinertia="0.3 0.25 0.2 0.05 -0.02 0.03"/>
   <geom type="mesh" mesh="gem" pos="0 0 0.2" euler="0.4 0 0" mass="0"/>
   <geom type="cylinder" size="0.03 0.04" pos="0 0.1 0" mass="0"/>
   <body name="shoulder" pos="0.2 0 0" gravcomp="0.5">
    <joint name="ball" type="ball" damping="0.2" armature="0.01"/>
    <geom type="capsule" size="0.02 0.1" pos="0.1 0 0" euler="0 1.5708 0" mass="0.4"/>
    <body name="elbow" pos="0.2 0 0">
     <joint name="hinge" type="hinge" axis="0 0.6 0.8" ref="0.1" stiffness="3" springref="0.3"
            damping="0.1" range="-1 1.2" limited="true"/>
     <geom type="sphere" size="0.04" pos="0.05 0 0" mass="0.3" contype="2" conaffinity="5"/>
     <body name="finger" pos="0.1 0 0">
      <joint name="slide" type="slide" axis="1 0 0" range="-0.02 0.05" limited="true" stiffness="4" springref="0.01"/>
      <geom type="box" size="0.01 0.02 0.03" mass="0.1"/>
      <geom type="mesh" mesh="wedge" pos="0.02 0 0" mass="0"/>
     </body>
    </body>
   </body>
  </body>
  <body name="target" mocap="true" pos="0 1 1" gravcomp="1">
   <geom type="sphere" size="0.02" contype="0" conaffinity="0"/>
  </body>
 </worldbody>
 <actuator>
  <position joint="slide" kp="50" kv="3" ctrlrange="-0.02 0.05" ctrllimited="true"/>
  <motor joint="hinge" gear="2"/>
  <motor joint="slide" gear="0.5" ctrlrange="-1 1" ctrllimited="true"/>
 </actuator>
</mujoco>"""


def _body_frame_inertia(mj, b):
    """Body b's inertia about its mass centre in the body frame (MuJoCo keeps principal
    moments and the principal frame's quaternion; the tensor is what an export must keep)."""
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, mj.body_iquat[b])
    R = R.reshape(3, 3)
    return R @ np.diag(mj.body_inertia[b]) @ R.T


def _mesh_points(mj, g):
    """Mesh geom g's vertices in its body's frame, sorted (MuJoCo recentres a mesh and moves
    the geom's pose to match; the points on the body are what must survive)."""
    m = mj.geom_dataid[g]
    v = mj.mesh_vert[mj.mesh_vertadr[m]:mj.mesh_vertadr[m] + mj.mesh_vertnum[m]]
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, mj.geom_quat[g])
    pts = v @ R.reshape(3, 3).T + mj.geom_pos[g]
    return pts[np.lexsort(np.round(pts, 9).T)]


def test_export_compiles_to_the_model_mujoco_compiled_from_the_original():
    """to_mjcf of a model with every feature the exporter writes (plane, box, mesh, cylinder,
    capsule and sphere geoms, two meshes; free (with damping and armature), ball, hinge and
    slide joints; full inertia, gravity
    compensation, a mocap body, a servo followed by two motors), compiled by MuJoCo, against
    MuJoCo's compile of the original file: every body, joint, geom, mesh point and actuator
    parameter the exporter writes. Catches (mutmut survivors): the inertia's xz entry
    written as yz, gravity compensation dropped or put on the wrong bodies, a mocap flag
    lost next to gravcomp, a mesh written without its vertices or the asset section
    dropped, a geom of a body but not the world's written, a motor replacing the actuators
    before it, a free joint's damping dropped (the exporter's bug before session 18). The
    file itself is clean MJCF: no stray text between elements (indentation written as None
    or garbage would be), no empty sections, a geom's size with the numbers its type reads;
    a world with geoms only exports too."""
    import xml.etree.ElementTree as ET

    from ncpgym.models import from_mujoco, to_mjcf

    ref = mujoco.MjModel.from_xml_string(EVERYTHING_MJCF)
    text = to_mjcf(from_mujoco(ref))
    back = mujoco.MjModel.from_xml_string(text)
    for f in ("nbody", "njnt", "nq", "nv", "ngeom", "nmesh", "nu", "nmocap"):
        assert getattr(back, f) == getattr(ref, f), f
    np.testing.assert_array_equal(back.body_parentid, ref.body_parentid)
    for f in ("body_pos", "body_quat", "body_mass", "body_ipos", "body_gravcomp"):
        np.testing.assert_allclose(getattr(back, f), getattr(ref, f), atol=1e-9, err_msg=f)
    np.testing.assert_array_equal(back.body_mocapid, ref.body_mocapid)
    for b in range(ref.nbody):
        np.testing.assert_allclose(_body_frame_inertia(back, b), _body_frame_inertia(ref, b), atol=1e-12, err_msg=str(b))
    for f in ("jnt_type", "jnt_bodyid", "jnt_limited", "dof_bodyid"):
        np.testing.assert_array_equal(getattr(back, f), getattr(ref, f), err_msg=f)
    for f in ("jnt_pos", "jnt_axis", "jnt_range", "jnt_stiffness", "dof_damping", "dof_armature", "qpos0", "qpos_spring"):
        np.testing.assert_allclose(getattr(back, f), getattr(ref, f), atol=1e-9, err_msg=f)
    np.testing.assert_array_equal(back.geom_type, ref.geom_type)
    np.testing.assert_array_equal(back.geom_bodyid, ref.geom_bodyid)
    for f in ("geom_friction", "geom_contype", "geom_conaffinity"):
        np.testing.assert_allclose(getattr(back, f), getattr(ref, f), err_msg=f)
    used = {mujoco.mjtGeom.mjGEOM_SPHERE: 1, mujoco.mjtGeom.mjGEOM_CAPSULE: 2, mujoco.mjtGeom.mjGEOM_CYLINDER: 2,
            mujoco.mjtGeom.mjGEOM_BOX: 3}
    for g in range(ref.ngeom):
        t = ref.geom_type[g]
        if t == mujoco.mjtGeom.mjGEOM_MESH:
            np.testing.assert_allclose(_mesh_points(back, g), _mesh_points(ref, g), atol=1e-9)
            continue
        np.testing.assert_allclose(back.geom_pos[g], ref.geom_pos[g], atol=1e-9)
        np.testing.assert_allclose(np.abs(back.geom_quat[g] @ ref.geom_quat[g]), 1, atol=1e-9)
        if t in used:
            np.testing.assert_allclose(back.geom_size[g, :used[t]], ref.geom_size[g, :used[t]], atol=1e-12)
    np.testing.assert_array_equal(back.actuator_trnid, ref.actuator_trnid)
    np.testing.assert_array_equal(back.actuator_ctrllimited, ref.actuator_ctrllimited)
    for f in ("actuator_gear", "actuator_ctrlrange", "actuator_gainprm", "actuator_biasprm"):
        np.testing.assert_allclose(getattr(back, f), getattr(ref, f), atol=1e-12, err_msg=f)

    def clean(root):
        sizes = {"sphere": 1, "capsule": 2, "cylinder": 2, "box": 3, "plane": 3}
        for el in root.iter():
            assert (el.text or "").strip() == "" and (el.tail or "").strip() == "", el.tag
            if el.tag == "geom" and el.get("type") != "mesh":
                assert len(el.get("size").split()) == sizes[el.get("type")], ET.tostring(el)
        return [c.tag for c in root]

    assert clean(ET.fromstring(text)) == ["compiler", "option", "asset", "worldbody", "actuator"]
    bare = ET.fromstring(to_mjcf(ncpgym.load_model("<mujoco><worldbody><body><freejoint/>"
                                                  "<geom size='0.1'/></body></worldbody></mujoco>")))
    assert clean(bare) == ["compiler", "option", "worldbody"]
    floor = ncpgym.load_model("<mujoco><worldbody><geom type='plane' size='1 1 1'/></worldbody></mujoco>")
    assert mujoco.MjModel.from_xml_string(to_mjcf(floor)).ngeom == 1


def _box_obj(path, half):
    """A Wavefront OBJ of a box with the given half sizes (8 vertices, 12 triangles)."""
    h = np.asarray(half, float)
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
    faces = [(1, 3, 4, 2), (5, 6, 8, 7), (1, 2, 6, 5), (3, 7, 8, 4), (1, 5, 7, 3), (2, 4, 8, 6)]  # 1-based quads
    lines = [f"v {x} {y} {z}" for x, y, z in corners]
    lines += [f"f {a} {b} {c}\nf {a} {c} {d}" for a, b, c, d in faces]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


URDF = """<robot name="r">
  {compiler}
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="../meshes/missing.dae"/></geometry></visual>
    <visual><geometry><box size="1 1 1"/></geometry></visual>
    <collision><geometry><mesh filename="../meshes/box.obj"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="package://pkg/meshes/long.obj"/></geometry></collision>
    <collision><geometry><mesh filename="../meshes/shape.dae"/></geometry></collision>
    <collision><geometry><mesh filename="{absolute}"/></geometry></collision>
    <collision><geometry><mesh filename="package://pkg/meshes/nowhere.stl"/></geometry></collision>
  </link>
  <link name="tip">
    <inertial><mass value="{tip_mass}"/><inertia ixx="{tip_i}" iyy="{tip_i}" izz="{tip_i}" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="arm"/><child link="tip"/><origin xyz="0 0 0.5"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


@pytest.mark.parametrize("compiler", ["", '<mujoco><compiler angle="radian"/></mujoco>'])
def test_urdf_meshes_resolved_visuals_discarded_and_unreadable_meshes_dropped_with_a_note(tmp_path, caplog,
                                                                                          compiler):
    """A URDF written here (pkg/urdf/r.urdf): collision meshes by a relative path, by
    package:// (resolved against the directories above the URDF: pkg/meshes/long.obj) and
    by an absolute path load with their own vertices (half sizes 0.1, 0.3 and 0.05 m: the
    compiled mesh extents); visual elements are discarded (no geom of the 1 m visual box);
    a .dae collision mesh and a package:// file that exists nowhere are dropped, each with
    an INFO line naming the file and the link. An existing <mujoco><compiler> element is
    kept and extended."""
    import logging

    from ncpgym.models import loader

    root = tmp_path / "pkg"
    _box_obj(root / "meshes" / "box.obj", (0.1, 0.1, 0.1))
    _box_obj(root / "meshes" / "long.obj", (0.3, 0.02, 0.02))
    _box_obj(tmp_path / "elsewhere" / "small.obj", (0.05, 0.05, 0.05))
    (root / "meshes" / "shape.dae").write_text("<COLLADA/>")
    urdf = root / "urdf" / "r.urdf"
    urdf.parent.mkdir(parents=True)
    urdf.write_text(URDF.format(compiler=compiler, absolute=tmp_path / "elsewhere" / "small.obj",
                                tip_mass=0.1, tip_i=0.001))
    with caplog.at_level(logging.INFO, logger="ncpgym"):
        mj = loader.compile_urdf(urdf)
    meshes = [g for g in range(mj.ngeom) if mj.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH]
    assert len(meshes) == 3 and mj.ngeom == 4  # three meshes and the sphere, no visual box
    half = sorted(np.round(np.ptp(mj.mesh_vert[mj.mesh_vertadr[m]:mj.mesh_vertadr[m] + mj.mesh_vertnum[m]], axis=0)
                           .max() / 2, 6) for m in range(mj.nmesh))
    assert half == [0.05, 0.1, 0.3]
    assert "dropping collision mesh ../meshes/shape.dae of link 'arm' (MuJoCo cannot read it)" in caplog.text
    assert "dropping collision mesh package://pkg/meshes/nowhere.stl of link 'arm'" in caplog.text
    assert "missing.dae" not in caplog.text  # visuals are dropped without reading them
    m = ncpgym.load_model(urdf)
    assert m.nq == 2 and m.ngeom == 4


def test_urdf_inertia_repairs_are_logged_and_only_applied_when_needed(tmp_path, caplog):
    """The same URDF with a massless tip link: MuJoCo refuses it, the loader recompiles with
    MuJoCo's boundmass / boundinertia and logs one WARNING naming the file, MuJoCo's reason
    and the settings; a valid tip compiles without a warning and keeps its own mass."""
    import logging

    from ncpgym.models import loader

    root = tmp_path / "pkg"
    for name, half in (("box", 0.1), ("long", 0.3)):
        _box_obj(root / "meshes" / f"{name}.obj", (half, 0.02, 0.02))
    _box_obj(tmp_path / "small.obj", (0.05, 0.05, 0.05))
    urdf = root / "urdf" / "r.urdf"
    urdf.parent.mkdir(parents=True)
    for mass, inertia, warned in ((0.1, 0.001, False), (0.0, 0.0, True)):
        urdf.write_text(URDF.format(compiler="", absolute=tmp_path / "small.obj", tip_mass=mass, tip_i=inertia))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="ncpgym"):
            mj = loader.compile_urdf(urdf)
        tip = mj.body("tip").id
        if warned:
            warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
            assert len(warnings) == 1, warnings
            assert warnings[0].startswith(f"{urdf}: invalid inertial data (")
            assert "mass and inertia of moving bodies" in warnings[0]
            assert warnings[0].endswith("compiling with MuJoCo's boundmass=1e-6, boundinertia=1e-9")
            assert mj.body_mass[tip] == pytest.approx(1e-6)
        else:
            assert not caplog.records and mj.body_mass[tip] == pytest.approx(0.1)


SENSOR_MJCF = """<mujoco><worldbody><body><joint name="hinge" type="hinge"/>
  <geom type="sphere" size="0.1" mass="1"/><site name="s"/></body></worldbody><sensor><rangefinder site="s"/></sensor></mujoco>"""


def test_load_model_names_its_source_in_refusals_and_notes_for_every_kind_of_input(tmp_path, caplog):
    """The source a refusal or a dropped-feature warning names: '<MJCF text>' for a string,
    '<MjModel>' for a compiled model, the path for a file (.xml or .MJCF, any case);
    floating_base is refused for MJCF with the reason, and MJCF text MuJoCo cannot compile
    is a ModelError about '<MJCF text>'."""
    import logging

    mj = mujoco.MjModel.from_xml_string(SENSOR_MJCF)
    path = tmp_path / "m.MJCF"
    path.write_text(SENSOR_MJCF)
    for given, name in ((SENSOR_MJCF, "<MJCF text>"), (mj, "<MjModel>"), (path, str(path))):
        with pytest.raises(UnsupportedFeatureError) as e:
            ncpgym.load_model(given)
        assert str(e.value).startswith(f"{name}: features ncpgym does not support yet"), str(e.value)
        assert "sensor" in str(e.value)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="ncpgym"):
            m = ncpgym.load_model(given, strict=False)
        assert m.nv == 1
        assert f"{name}: dropped unsupported feature:" in caplog.text and "sensor" in caplog.text
    with pytest.raises(ValueError) as e:
        ncpgym.load_model(SENSOR_MJCF, floating_base=True)
    assert str(e.value) == "floating_base applies to URDF files"
    with pytest.raises(ValueError) as e:
        ncpgym.load_model(path, floating_base=True)
    assert str(e.value) == "floating_base applies to URDF files; MJCF declares <freejoint/>"
    with pytest.raises(ModelError, match=r"^<MJCF text>: MuJoCo could not compile the model"):
        ncpgym.load_model("<mujoco><worldbody><geom type='sphere'/></worldbody></mujoco>")
    with pytest.raises(ValueError, match=r"decompose_geoms: 'nope' is not a mesh geom of <MJCF text>"):
        ncpgym.load_model(SENSOR_MJCF, strict=False, decompose_geoms=["nope"])
    with pytest.raises(ValueError) as e:  # a file's decompose_geoms reach the converter too
        ncpgym.load_model(path, strict=False, decompose_geoms=["nope"])
    assert str(e.value) == f"decompose_geoms: 'nope' is not a mesh geom of {path}"


def test_from_mujoco_and_mujoco_builder_default_to_strict_and_builder_errors_name_the_source():
    """from_mujoco and mujoco_builder given a compiled model alone: strict (a refusal, not a
    warning) and about '<MjModel>'; mujoco_builder's default options are valid (its Builder
    builds). A compiled model that MuJoCo accepted but the Builder refuses (a moving body's
    mass and inertia set to 0 after compiling: a singular mass matrix) is a ModelError that
    names its source, then the Builder's reason. Catches (mutmut survivors): the default
    source changed, strict=False by default, invalid default options, the source or the
    whole message of a Builder error lost."""
    from ncpgym.models import from_mujoco, loader

    mj = mujoco.MjModel.from_xml_string(SENSOR_MJCF)
    for convert in (from_mujoco, loader.mujoco_builder):
        with pytest.raises(UnsupportedFeatureError) as e:
            convert(mj)
        assert str(e.value).startswith("<MjModel>: features ncpgym does not support yet"), str(e.value)
    ok = mujoco.MjModel.from_xml_string("<mujoco><worldbody><body name='a'><joint name='h' type='hinge'/>"
                                        "<geom size='0.1' mass='1'/></body></worldbody></mujoco>")
    assert loader.mujoco_builder(ok).build().nv == 1
    ok.body_mass[1] = 0.0
    ok.body_inertia[1] = 0.0
    for kw, source in (({}, "<MjModel>"), ({"source": "robot.xml"}, "robot.xml")):
        with pytest.raises(ModelError) as e:
            from_mujoco(ok, **kw)
        assert str(e.value).startswith(f"{source}: body 1 ('a'): zero mass"), str(e.value)


REFUSED_MJCF = """<mujoco>
  <worldbody>
    <body name="a"><joint name="fl" type="hinge" frictionloss="0.2"/><geom name="ga" type="sphere" size="0.1" mass="1"/>
      <site name="s_a" pos="0.1 0.2 0.3" quat="0.9238795 0 0.3826834 0"/>
      <body name="b" pos="0 0 0.5"><joint name="bs" type="ball" stiffness="3"/><geom name="gb" type="sphere" size="0.1" mass="1"/>
        <body name="c" pos="0 0 0.5"><joint name="bl" type="ball" range="0 0.5" limited="true"/>
          <geom name="ge" type="ellipsoid" size="0.1 0.2 0.3" mass="1"/>
          <site name="s_c" pos="-0.1 0 0.2"/></body></body></body>
    <body name="d" pos="1 0 0"><joint name="h" type="hinge"/><geom name="gd" type="box" size="0.1 0.1 0.1" mass="1"/>
      <site name="s_d1" pos="0 0 0.1"/><site name="s_d2" pos="0 0.1 0"/></body>
  </worldbody>
  <tendon><fixed name="passive"><joint joint="h" coef="1"/></fixed><fixed name="driven"><joint joint="fl" coef="1"/></fixed></tendon>
  <contact><exclude body1="d" body2="b"/><exclude body1="a" body2="c"/></contact>
  <actuator>
    <motor name="tm" tendon="driven"/>
    <general name="filt" joint="h" dyntype="user"/>
    <motor name="lim" joint="h" forcelimited="true" forcerange="-1 1"/>
    <general name="odd" joint="h" gaintype="affine" gainprm="1 2 0"/>
    <general name="odd2" joint="h" biastype="affine" gainprm="3" biasprm="0 -5 0"/>
  </actuator>
</mujoco>"""


def test_every_refused_feature_is_named_and_sites_and_excludes_carry_over(caplog):
    """Each feature the loader cannot simulate is named in the refusal, one line each, in
    the loader's words: stiffness on a ball joint, limits on a ball joint,
    user activation dynamics, a gain that depends on the position. With strict=False
    each is a WARNING and the rest loads: every geom, the ball joint
    without its limits, sites on their bodies with their names, positions and orientations
    (world frames equal MuJoCo's after forward), and the excluded body pairs, by body id."""
    import logging

    with pytest.raises(UnsupportedFeatureError) as e:
        ncpgym.load_model(REFUSED_MJCF)
    lines = str(e.value).splitlines()
    assert lines[0] == ("<MJCF text>: features ncpgym does not support yet (load with strict=False to drop "
                        "them):")
    wanted = ["joint 'bs': stiffness on a ball joint",
              "joint 'bl': limits on a ball joint",
              "actuator 'filt': activation dynamics mjDYN_USER",
              "actuator 'odd': gain type mjGAIN_AFFINE"]
    for w in wanted:
        assert sum(line == "  " + w for line in lines[1:]) == 1, (w, lines)
    assert len(lines) == 1 + len(wanted)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ncpgym"):
        m = ncpgym.load_model(REFUSED_MJCF, strict=False)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == len(wanted)
    assert all(msg.startswith("<MJCF text>: dropped unsupported feature: ") for msg in warned)
    notes = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert notes == []  # both fixed tendons load, the driven one with its motor
    assert m.ntendon == 2 and m.nu == 3  # 'tm' (on a tendon), 'lim' (a force range), 'odd2' (3 ctrl - 5 q) load
    assert list(m.geom_names) == ["ga", "gb", "ge", "gd"]
    assert list(m.joint_names) == ["fl", "bs", "bl", "h"] and list(m.jnt_limited) == [0, 0, 0, 0]
    mj = mujoco.MjModel.from_xml_string(REFUSED_MJCF)
    assert list(m.site_names) == ["s_a", "s_c", "s_d1", "s_d2"]
    np.testing.assert_array_equal(m.site_body, mj.site_bodyid)
    np.testing.assert_allclose(m.site_pos, mj.site_pos, atol=1e-12)
    pairs = {tuple(sorted(p)) for p in np.asarray(m.exclude_pairs).tolist()}
    assert pairs == {tuple(sorted((mj.body(x).id, mj.body(y).id))) for x, y in (("d", "b"), ("a", "c"))}
    batch = ncpgym.Batch(m, 1)
    rng = np.random.default_rng(0)
    q = m.qpos0.copy()
    q[0] = 0.4
    for k in (1, 5):
        quat = rng.normal(size=4)
        q[k:k + 4] = quat / np.linalg.norm(quat)
    q[9] = -0.7
    batch.q[0] = q
    batch.forward()
    d = mujoco.MjData(mj)
    d.qpos[:] = q
    mujoco.mj_kinematics(mj, d)
    np.testing.assert_allclose(batch.site_xpos[0], d.site_xpos, atol=1e-12)
    np.testing.assert_allclose(batch.site_xmat[0].reshape(-1, 9), d.site_xmat, atol=1e-12)


PER_DOF_MJCF = """<mujoco><worldbody>
  <body name="fb" pos="0 0 1"><freejoint name="f"/><geom size="0.1" mass="1"/>
    <body name="bb" pos="0 0 0.3"><joint name="b" type="ball" damping="0.2"/><geom size="0.05" mass="0.5"/></body>
  </body>
  <body name="hb" pos="1 0 1" gravcomp="1"><joint name="h" type="hinge" actuatorgravcomp="true"/>
    <geom size="0.1" mass="1"/></body>
</worldbody></mujoco>"""


def test_per_dof_damping_or_armature_and_actuator_gravcomp_are_refused_and_free_joints_never_limited():
    """MuJoCo keeps damping and armature per dof (a compiled model can give a ball or free
    joint's dofs different values), ncpgym one per joint: a ball joint whose third dof's
    damping differs, a free joint whose fifth dof's armature differs, each refused by name,
    as is actuatorgravcomp, in exactly these words. MuJoCo ignores limits on free joints
    (no limit row however far the body is outside the range): the loader loads one that a
    compiled model marks limited as unlimited. Catches (mutmut survivors): every joint read
    as one dof, the free or ball joint's dof count lost, damping and armature both required
    to differ, a refusal text replaced (None, XX, case), a free joint's limit kept."""
    from ncpgym.models import from_mujoco

    mj = mujoco.MjModel.from_xml_string(PER_DOF_MJCF)
    f, b = (mj.joint(n).dofadr[0] for n in ("f", "b"))
    mj.dof_damping[b + 2] = 0.5
    mj.dof_armature[f + 4] = 0.1
    with pytest.raises(UnsupportedFeatureError) as e:
        from_mujoco(mj)
    assert str(e.value).splitlines()[1:] == [
        "  joint 'f': per-dof damping/armature differ within the joint",
        "  joint 'b': per-dof damping/armature differ within the joint",
        "  joint 'h': actuatorgravcomp (gravity compensation through the actuators, clamped by their force range)"]
    free = mujoco.MjModel.from_xml_string("<mujoco><worldbody><body pos='0 0 1'><freejoint/>"
                                          "<geom size='0.1' mass='1'/></body></worldbody></mujoco>")
    free.jnt_limited[0] = 1
    free.jnt_range[0] = [-1e-3, 1e-3]
    d = mujoco.MjData(free)
    d.qpos[:3] = [2, 3, 4]
    mujoco.mj_forward(free, d)
    assert d.nefc == 0 and d.qacc[2] == pytest.approx(-9.81)  # MuJoCo: no limit on the free joint
    m = from_mujoco(free)
    assert list(m.jnt_limited) == [0]


TENDONS_MJCF = """<mujoco><worldbody>
  <body name="a"><joint name="ja" type="hinge"/><geom size="0.1" mass="1"/></body>
  <body name="b" pos="1 0 0"><joint name="jb" type="hinge"/><geom size="0.1" mass="1"/></body>
  <body name="c" pos="2 0 0"><joint name="jc" type="hinge"/><geom size="0.1" mass="1"/></body></worldbody>
  <tendon>
    <fixed name="passive"><joint joint="ja" coef="1"/></fixed>
    <fixed name="ranged" limited="true" range="-1 1"><joint joint="jb" coef="1"/></fixed>
    <fixed name="damped" damping="0.5"><joint joint="jc" coef="1"/></fixed>
    <fixed name="idle"><joint joint="jc" coef="2"/></fixed>
    <fixed name="coupled"><joint joint="ja" coef="1"/><joint joint="jb" coef="-1"/></fixed>
  </tendon>
  <equality><weld name="w" body1="c"/><tendon name="teq" tendon1="coupled"/></equality></mujoco>"""


def test_fixed_tendons_and_a_tendon_equality_load():
    """Fixed tendons load, whatever they carry (limits, damping, none: test_tendons.py checks
    what they do), in MuJoCo's order with its ranges, and so does the equality on one. The
    weld on body 3 (c) stays a weld, although tendon 3 (idle) has the same id."""
    mj = mujoco.MjModel.from_xml_string(TENDONS_MJCF)
    assert mj.eq_obj1id[0] == mj.tendon("idle").id == 3  # the weld's body id is an idle tendon's id
    m = ncpgym.load_model(TENDONS_MJCF)  # strict
    assert list(m.eq_name) == ["w", "teq"] and list(m.eq_type) == ["weld", "tendon"]
    assert list(m.tendon_names) == ["passive", "ranged", "damped", "idle", "coupled"]
    np.testing.assert_array_equal(m.tendon_range[1], [-1, 1])


def test_decomposed_mesh_parts_are_named_shared_and_placed_after_mujocos_geoms(tmp_path, monkeypatch, caplog):
    """One concave mesh (the L) on three geoms under convex_decomposition="all": two that
    collide share one set of convex parts (CoACD runs once), a visual-only one keeps the
    whole mesh as one hull. The first part keeps its geom's id and MuJoCo's name + "/part0";
    the other parts follow all of MuJoCo's geoms, geom by geom, with the geom's body, pose,
    friction and collision bits. The parts together span the L. The model carries the mesh
    names (its bytes: Builder errors name meshes by them): the parts' "L/part<k>". A second
    load reads the parts from the cache ("cache hit"), and each log line's time is at most
    the load's own."""
    import time

    from concave_meshes import _fmt, l_mesh

    monkeypatch.setenv("NCPGYM_CACHE_DIR", str(tmp_path / "cache"))
    v, f = l_mesh()
    xml = f"""<mujoco><asset><mesh name="L" vertex="{_fmt(v)}" face="{_fmt(f)}"/></asset>
      <worldbody><geom name="floor" type="plane" size="1 1 0.1"/>
        <body name="one" pos="0 0 1"><freejoint/>
          <geom name="a" type="mesh" mesh="L" pos="0.1 0.2 0.3" euler="0 0 90" friction="0.7 0.01 0.001"/>
          <geom name="seen" type="mesh" mesh="L" contype="0" conaffinity="0"/></body>
        <body name="two" pos="1 0 1"><freejoint/>
          <geom name="c" type="mesh" mesh="L" contype="2" conaffinity="4"/></body>
      </worldbody></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml)
    lines = []
    for cache in ("miss", "hit"):
        caplog.clear()
        start = time.perf_counter()
        with caplog.at_level(logging.INFO, logger="ncpgym"):
            m = ncpgym.load_model(xml, convex_decomposition="all")
        elapsed = time.perf_counter() - start
        (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("mesh 'L'")]
        k = int(line.split(": ")[1].split()[0])
        seconds = float(line.split("(")[1].split(" s,")[0])
        assert line == f"mesh 'L': {k} convex parts ({seconds:.2f} s, cache {cache})"
        assert 0 <= seconds <= elapsed + 0.005, (line, elapsed)  # %.2f rounds up by at most 0.005
        lines.append(line)
    assert k >= 2 and lines[0].split("(")[0] == lines[1].split("(")[0]
    saved = m.to_bytes()
    assert all(f"L/part{i}".encode() in saved for i in range(k)) and f"L/part{k}".encode() not in saved
    names, mesh = list(m.geom_names), np.asarray(m.geom_mesh)
    assert m.ngeom == mj.ngeom + 2 * (k - 1) and m.nmesh == k + 1
    assert names[:mj.ngeom] == ["floor", "a/part0", "seen", "c/part0"]
    assert names[mj.ngeom:] == [f"a/part{i}" for i in range(1, k)] + [f"c/part{i}" for i in range(1, k)]
    a_parts = [mesh[1]] + list(mesh[mj.ngeom:mj.ngeom + k - 1])
    c_parts = [mesh[3]] + list(mesh[mj.ngeom + k - 1:])
    assert a_parts == c_parts and len(set(a_parts)) == k and mesh[2] not in a_parts
    np.testing.assert_allclose(m.mesh_vertices(int(mesh[2])), mj.mesh_vert, atol=1e-12)  # the whole mesh
    for first, extra in ((1, range(mj.ngeom, mj.ngeom + k - 1)), (3, range(mj.ngeom + k - 1, m.ngeom))):
        for g in extra:
            assert m.geom_body[g] == mj.geom_bodyid[first] and m.geom_type[g] == mj.geom_type[first]
            for field, mjfield in (("geom_pos", "geom_pos"), ("geom_quat", "geom_quat"), ("geom_friction", "geom_friction")):
                np.testing.assert_allclose(np.asarray(getattr(m, field))[g], getattr(mj, mjfield)[first], atol=1e-12)
            assert (m.geom_contype[g], m.geom_conaffinity[g]) == (mj.geom_contype[first], mj.geom_conaffinity[first])
    # MuJoCo moves a mesh to its principal frame of inertia: compare in that frame
    allv = np.vstack([m.mesh_vertices(int(i)) for i in a_parts])
    np.testing.assert_allclose([allv.min(0), allv.max(0)], [mj.mesh_vert.min(0), mj.mesh_vert.max(0)], atol=1e-6)


def _prism(profile, depth):
    """A closed prism: a profile in the x-z plane (star-shaped about its first corner)
    extruded along y, as concave_meshes.l_mesh builds the L."""
    n = len(profile)
    v = [(x, y, z) for y in (-depth / 2, depth / 2) for x, z in profile]
    f = []
    for i in range(n):
        j = (i + 1) % n
        f += [(i, n + j, j), (i, n + i, n + j)]
    for k in range(1, n - 1):
        f += [(0, k, k + 1), (n, n + k + 1, n + k)]
    return np.array(v, float), np.array(f, np.int32)


def test_decomposition_options_reach_the_converter_from_text_files_and_compiled_models(tmp_path, monkeypatch,
                                                                                      caplog):
    """The L (concave) given as MJCF text, as a file and as a compiled model: split into two
    or more parts by default (auto, CoACD's threshold 0.05); convex_decomposition="hull"
    keeps the whole mesh as one geom without running CoACD; coacd_threshold=1 gives one
    part (CoACD stops when the concavity is below the threshold; the L's is below 1).
    Catches (mutmut survivors): either option dropped on its way from load_model or
    from_mujoco to the converter, or the mode lost inside it."""
    import logging

    from concave_meshes import _fmt, l_mesh

    monkeypatch.setenv("NCPGYM_CACHE_DIR", str(tmp_path / "cache"))
    v, f = l_mesh()
    xml = f"""<mujoco><asset><mesh name="L" vertex="{_fmt(v)}" face="{_fmt(f)}"/></asset>
      <worldbody><body name="one" pos="0 0 1"><freejoint/><geom name="a" type="mesh" mesh="L"/></body>
      </worldbody></mujoco>"""
    path = tmp_path / "l.xml"
    path.write_text(xml)
    mj = mujoco.MjModel.from_xml_string(xml)
    assert ncpgym.load_model(xml).ngeom >= 2
    for given in (xml, path, mj):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="ncpgym"):
            hull = ncpgym.load_model(given, convex_decomposition="hull")
            one = ncpgym.load_model(given, coacd_threshold=1.0)
        assert list(hull.geom_names) == list(one.geom_names) == ["a"], given
        np.testing.assert_allclose(hull.mesh_vertices(0), mj.mesh_vert, atol=1e-12)  # the whole mesh
        assert [r.getMessage().split(" (")[0] for r in caplog.records
                if r.getMessage().startswith("mesh 'L'")] == ["mesh 'L': 1 convex parts"], given


# a 0.3 x 0.2 block (x-z), 0.1 deep, with a 5 cm square notch cut out of one corner: closed,
# it encloses (0.06 - 0.0025) / (0.06 - 0.00125) = 97.9 % of its hull's volume, so "auto"
# keeps its hull; CoACD splits it at the default threshold
NOTCHED = [(0, 0), (0.3, 0), (0.3, 0.15), (0.25, 0.15), (0.25, 0.2), (0, 0.2)]


def test_decompose_geoms_splits_the_named_geoms_whatever_the_mode(tmp_path, monkeypatch):
    """The notched block as a world geom (geom 0, 'n') and on a free body ('m', the last
    geom): "auto" keeps both whole (97.9 % of the hull); decompose_geoms=['n'] splits n into
    two or more parts under "hull" and "auto" alike (its first part keeps id 0, the others
    follow MuJoCo's geoms) and leaves m whole; a name that is no geom, or a sphere's, is
    refused by name. Catches (mutmut survivors): geom 0 refused, the forced mode ignored or
    misspelt (which falls back to the 90 % rule), a missing name passed when the last geom
    is a mesh, the mesh test inverted."""
    from concave_meshes import _fmt

    monkeypatch.setenv("NCPGYM_CACHE_DIR", str(tmp_path / "cache"))
    v, f = _prism(NOTCHED, 0.1)
    xml = f"""<mujoco><asset><mesh name="N" vertex="{_fmt(v)}" face="{_fmt(f)}"/></asset><worldbody>
      <geom name="n" type="mesh" mesh="N"/>
      <body name="b" pos="1 0 1"><freejoint/><geom name="ball" type="sphere" size="0.05"/>
        <geom name="m" type="mesh" mesh="N"/></body></worldbody></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml)
    assert mj.geom("n").id == 0 and mj.geom_type[-1] == mujoco.mjtGeom.mjGEOM_MESH
    assert list(ncpgym.load_model(xml).geom_names) == ["n", "ball", "m"]
    for mode in ("hull", "auto"):
        m = ncpgym.load_model(xml, convex_decomposition=mode, decompose_geoms=["n"])
        k = m.ngeom - 2
        assert k >= 2 and list(m.geom_names) == ["n/part0", "ball", "m"] + [f"n/part{i}" for i in range(1, k)], mode
        assert m.geom_body[0] == 0 and all(m.geom_body[g] == 0 for g in range(3, m.ngeom))
    for name in ("nope", "ball"):
        with pytest.raises(ValueError) as e:
            ncpgym.load_model(xml, decompose_geoms=[name])
        assert str(e.value) == f"decompose_geoms: {name!r} is not a mesh geom of <MJCF text>"


def _mujoco_hull_points(mj, mesh):
    """The mesh's vertices on MuJoCo's convex hull, read from mesh_graph (per mesh: numvert,
    numface, vert_edgeadr[numvert], vert_globalid[numvert], ...)."""
    adr = int(mj.mesh_graphadr[mesh])
    nv = int(mj.mesh_graph[adr])
    return mj.mesh_vert[mj.mesh_vertadr[mesh] + mj.mesh_graph[adr + 2 + nv:adr + 2 + 2 * nv]]


def _sorted_rows(a):
    a = np.asarray(a, float)
    return a[np.lexsort(a.T)]


def test_mesh_hulls_are_mujocos_own_reduced_ones_or_computed_when_mujoco_made_none():
    """80 points on a sphere as a mesh. With maxhullvert="8" MuJoCo collides it as a hull of
    8 of them: ncpgym's hull has the same 8 vertices. MuJoCo 3 (the package allows
    mujoco>=3.1) compiles no hull for a mesh that no geom collides with (mesh_graphadr -1),
    MuJoCo 4 always does: a compiled model with the hull taken away as MuJoCo 3 leaves it
    gets one from MuJoCo's compiler, all 80 points (in general position on the sphere) and
    2 * 80 - 4 triangles (Euler's formula). Catches (mutmut survivors): MuJoCo's hull
    replaced by one of all the vertices, the missing hull left to the Builder (which refuses
    more than 64 vertices) or computed from None."""
    from concave_meshes import _fmt
    from ncpgym.models import from_mujoco

    p = np.random.default_rng(0).normal(size=(80, 3))
    p = 0.1 * p / np.linalg.norm(p, axis=1, keepdims=True)
    xml = """<mujoco><asset><mesh name="cloud" vertex="{v}" {extra}/></asset><worldbody>
      <body name="b" pos="0 0 1"><freejoint/><geom name="g" type="mesh" mesh="cloud" contype="{c}" conaffinity="{c}"/>
        <geom name="s" type="sphere" size="0.01"/></body></worldbody></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml.format(v=_fmt(p), extra='maxhullvert="8"', c=1))
    reduced = _mujoco_hull_points(mj, 0)
    assert len(reduced) == 8
    m = from_mujoco(mj)
    assert m.ngeom == 2
    np.testing.assert_allclose(_sorted_rows(m.mesh_hull(int(m.geom_mesh[0]))["vertices"]), _sorted_rows(reduced),
                               atol=1e-12)
    mj3 = mujoco.MjModel.from_xml_string(xml.format(v=_fmt(p), extra="", c=0))
    full = _mujoco_hull_points(mj3, 0)
    assert len(full) == 80
    mj3.mesh_graphadr[0] = -1
    hull = from_mujoco(mj3).mesh_hull(0)
    assert len(hull["faces"]) == 2 * 80 - 4
    np.testing.assert_allclose(_sorted_rows(hull["vertices"]), _sorted_rows(full), atol=1e-12)


EQUALITIES = """<mujoco><worldbody>
  <body name="a" pos="0 0 1"><joint name="ja" type="hinge"/><geom size="0.1" mass="1"/><site name="sa"/></body>
  <body name="b" pos="1 0 1"><joint name="jb" type="hinge"/><geom size="0.1" mass="1"/><site name="sb"/></body>
  <body name="c" pos="2 0 1"><freejoint/><geom size="0.1" mass="1"/></body></worldbody>
  <tendon><fixed name="t"><joint joint="ja" coef="1"/></fixed><fixed name="t2"><joint joint="jb" coef="1"/></fixed></tendon>
  <equality>
    <connect name="con" body1="a" body2="b" anchor="0.5 0 0" active="false"/>
    <weld name="weld" body1="c" solref="-1000 0"/>
    <joint name="cpl" joint1="jb" joint2="ja" polycoef="0.1 2 0 0 0" solref="-500 0"/>
    <weld name="plain" body1="a" body2="c"/>
    <weld name="damped" body1="b" solref="-1000 5"/>
    <weld name="soft" body1="b" solref="0.05 1"/>
    <weld name="sites" site1="sa" site2="sb"/>
    <weld name="tq" body1="a" torquescale="0.5"/>
    <tendon name="teq" tendon1="t" tendon2="t2"/>
  </equality></mujoco>"""


def test_equalities_load_with_their_bodies_compliance_and_active_flag_or_are_refused_by_name(caplog):
    """From the file: connect a-b switched off; weld of c to the world with solref -1000 0
    (compliance 1 / 1000); joint coupling jb = f(ja) with solref -500 0 (1 / 500); a plain
    weld a-c (MuJoCo's default solref: rigid); a tendon equality t = t2. Refused, each named
    once with its reason: a damped solref, a MuJoCo-soft solref, a weld between sites, a
    torquescale."""
    import logging

    with pytest.raises(UnsupportedFeatureError) as e:
        ncpgym.load_model(EQUALITIES)
    with caplog.at_level(logging.WARNING, logger="ncpgym"):
        m = ncpgym.load_model(EQUALITIES, strict=False)
    assert list(m.eq_name) == ["con", "weld", "cpl", "plain", "teq"]
    assert list(m.eq_type) == ["connect", "weld", "joint", "weld", "tendon"]
    assert [int(x) for x in m.eq_active] == [0, 1, 1, 1, 1]
    np.testing.assert_allclose(m.eq_compliance, [0.0, 1e-3, 2e-3, 0.0, 0.0], rtol=1e-15)
    assert [(int(a), int(b)) for a, b in zip(m.eq_obj1, m.eq_obj2)] == [(1, 2), (3, 0), (1, 0), (1, 3), (0, 1)]
    reasons = ["equality 'damped' (mjEQ_WELD): solref damping -5.0 (only a stiffness, -k 0, is supported)",
               "equality 'soft' (mjEQ_WELD): solref (0.05, 1.0) (softer than MuJoCo's default (0.02, 1), "
               "through MuJoCo's effective mass; use solref='-stiffness 0' for a compliant constraint)",
               "equality 'sites' (mjEQ_WELD): defined between sites",
               "equality 'tq' (mjEQ_WELD): torquescale 0.5"]
    warnings = [r.getMessage() for r in caplog.records]
    for reason in reasons:
        assert str(e.value).count(reason) == 1, reason
        assert warnings.count(f"<MJCF text>: dropped unsupported feature: {reason}") == 1, reason


ODD_URDF = """<robot name="odd">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
    <collision><geometry><mesh filename="package://pkg/meshes/box.obj"/></geometry></collision>
    <collision><geometry><mesh/></geometry></collision>
    <collision><geometry><mesh filename="../meshes/gone.obj"/></geometry></collision>
    <collision><geometry><mesh filename="../meshes/UPPER.STL"/></geometry></collision>
  </link>
</robot>"""


def test_urdf_refusals_name_the_file_and_odd_collision_entries_load_or_drop(tmp_path, caplog):
    """A primitive before a package:// mesh in one link (both load), a mesh without a file
    and a relative path to no file (dropped with an INFO line each), an STL whose name is upper case (loaded: the
    extension is compared case-blind); edit(spec) changes the spec before compiling. Errors
    name the file: not a <robot>, floating_base over two root links, MuJoCo's refusal."""
    import logging

    from concave_meshes import box_mesh, write_stl
    from ncpgym.models import loader

    root = tmp_path / "pkg"
    _box_obj(root / "meshes" / "box.obj", (0.1, 0.2, 0.3))
    write_stl(root / "meshes" / "UPPER.STL", *box_mesh(0.4, 0.4, 0.4))
    urdf = root / "urdf" / "odd.urdf"
    urdf.parent.mkdir(parents=True)
    urdf.write_text(ODD_URDF)
    with caplog.at_level(logging.INFO, logger="ncpgym"):
        mj = loader.compile_urdf(urdf, edit=lambda spec: spec.worldbody.add_geom(name="added", size=[0.05, 0, 0]))
    assert [r.getMessage() for r in caplog.records] == [
        f"{urdf}: dropping collision mesh {name} of link 'base' (MuJoCo cannot read it)"
        for name in ("None", "../meshes/gone.obj")]
    extents = sorted(round(float(np.ptp(mj.mesh_vert[mj.mesh_vertadr[m]:mj.mesh_vertadr[m] + mj.mesh_vertnum[m]],
                                        axis=0).max()), 6) for m in range(mj.nmesh))
    assert extents == [0.4, 0.6]  # the STL's 0.4 m cube and the OBJ's 0.6 m long side
    assert mj.geom("added").size[0] == 0.05 and mj.ngeom == 4
    bad = tmp_path / "x.urdf"
    bad.write_text("<sdf version='1.6'/>")
    with pytest.raises(ModelError) as e:
        loader.compile_urdf(bad)
    assert str(e.value) == f"{bad}: not a URDF file (root element <sdf>, expected <robot>)"
    two = tmp_path / "two.urdf"
    two.write_text('<robot name="t"><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" '
                   'ixy="0" ixz="0" iyz="0"/></inertial></link><link name="b"><inertial><mass value="1"/>'
                   '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>')
    with pytest.raises(ModelError) as e:
        loader.compile_urdf(two, floating_base=True)
    assert str(e.value) == f"{two}: floating_base needs exactly one root link"
    broken = tmp_path / "broken.urdf"
    broken.write_text('<robot name="b"><link name="a"/><joint name="j" type="revolute"><parent link="a"/>'
                      '<child link="nowhere"/></joint></robot>')
    with pytest.raises(ModelError) as e:
        loader.compile_urdf(broken)
    assert str(e.value).startswith(f"{broken}: MuJoCo could not compile the URDF: ")


def _box_msh(path, size):
    """A box [0, a] x [0, b] x [0, c] as MuJoCo's legacy binary MSH file (XMLreference,
    'Legacy MSH file format': int32 nvertex, nnormal, ntexcoord, nface, then float32
    positions and int32 face indices)."""
    import struct

    from concave_meshes import box_mesh

    v, f = box_mesh(*size)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(struct.pack("<4i", len(v), 0, 0, len(f)) + v.astype("<f4").tobytes() + f.astype("<i4").tobytes())


MSH_URDF = """<robot name="m">
  <mujoco><compiler discardvisual="false" strippath="true"/></mujoco>
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="../meshes/missing.dae"/></geometry></visual>
    <visual><geometry><box size="1 1 1"/></geometry></visual>
    <collision><geometry><mesh filename="../meshes/block.msh"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="package://pkg/meshes/long.obj"/></geometry></collision>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


def test_urdf_msh_meshes_load_and_visuals_and_strippath_are_the_loaders_whatever_the_file_says(tmp_path):
    """A URDF whose own <mujoco><compiler> asks MuJoCo to keep visuals (discardvisual=false:
    MuJoCo would then load the missing .dae and the 1 m box) and to strip mesh paths to
    their file names (strippath=true: MuJoCo would then look for block.msh in the working
    directory). compile_urdf drops the visuals and keeps the resolved paths whole, as
    load_model documents: the two collision meshes load, MuJoCo's legacy .msh format
    among them (its extents 0.1 x 0.2 x 0.3 m), and without floating_base the root link
    stays welded (one hinge: nq = 1). Catches (mutmut survivors): visuals kept, the .msh
    extension misspelt (the mesh dropped), strippath not overridden, floating_base on by
    default."""
    from ncpgym.models import loader

    root = tmp_path / "pkg"
    _box_msh(root / "meshes" / "block.msh", (0.1, 0.2, 0.3))
    _box_obj(root / "meshes" / "long.obj", (0.3, 0.02, 0.02))
    urdf = root / "urdf" / "m.urdf"
    urdf.parent.mkdir(parents=True)
    urdf.write_text(MSH_URDF)
    mj = loader.compile_urdf(urdf)
    assert (mj.nq, mj.njnt, mj.ngeom, mj.nmesh) == (1, 1, 2, 2)
    assert all(t == mujoco.mjtGeom.mjGEOM_MESH for t in mj.geom_type)
    # each mesh's extents along MuJoCo's principal axes (it rotates meshes into them), sorted
    extents = sorted(sorted(np.round(np.ptp(mj.mesh_vert[mj.mesh_vertadr[m]:mj.mesh_vertadr[m] + mj.mesh_vertnum[m]],
                                            axis=0).astype(float), 6).tolist()) for m in range(mj.nmesh))
    assert extents == [[0.04, 0.04, 0.6], [0.1, 0.2, 0.3]]


def test_urdf_inertia_that_a_repair_does_not_fix_is_a_model_error_after_one_warning(tmp_path, caplog):
    """A link with ixx = inf: MuJoCo refuses its inertia ('mass and inertia of moving
    bodies') with boundmass and boundinertia too. The loader tries the repair once (one
    WARNING) and then raises a ModelError with the file and MuJoCo's reason, rather than
    applying the same repair again. (A logging filter stops the test after three warnings:
    a loop that retried the repair would otherwise never end.) Catches (mutmut survivor):
    a repair already applied counted as new."""
    import logging

    from ncpgym.models import loader

    urdf = tmp_path / "inf.urdf"
    urdf.write_text('<robot name="r"><link name="base"/><link name="tip"><inertial><mass value="1"/>'
                    '<inertia ixx="inf" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                    '<joint name="j" type="revolute"><parent link="base"/><child link="tip"/><axis xyz="0 0 1"/>'
                    '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')

    class StopAfterThreeWarnings(logging.Filter):
        count = 0

        def filter(self, record):
            self.count += record.levelno >= logging.WARNING
            if self.count > 3:
                raise RuntimeError("the loader keeps repairing")
            return True

    guard = StopAfterThreeWarnings()
    logger = logging.getLogger("ncpgym")
    logger.addFilter(guard)
    try:
        with caplog.at_level(logging.WARNING, logger="ncpgym"), pytest.raises(ModelError) as e:
            loader.compile_urdf(urdf)
    finally:
        logger.removeFilter(guard)
    assert str(e.value).startswith(f"{urdf}: MuJoCo could not compile the URDF: ")
    assert "mass and inertia of moving bodies" in str(e.value)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].endswith("compiling with MuJoCo's boundmass=1e-6, boundinertia=1e-9")


def _incline(box_condim: int, slope_condim: int, box_mu: float = 1.0, slope_mu: float = 1.0, extra: str = "") -> str:
    """A 10 cm box resting on a plane tilted 20 degrees about y (its contact normal
    (sin 20, 0, cos 20), downhill (cos 20, 0, -sin 20))."""
    n = np.array([np.sin(np.radians(20)), 0.0, np.cos(np.radians(20))])
    return f"""<mujoco><option timestep="0.005"/><worldbody>
      <geom name="slope" type="plane" size="5 5 0.1" euler="0 20 0" condim="{slope_condim}" friction="{slope_mu} 0.005 0.0001"/>
      <body name="box" pos="{' '.join(map(str, 0.05 * n))}" euler="0 20 0"><freejoint/>
        <geom name="cube" type="box" size="0.05 0.05 0.05" mass="1" condim="{box_condim}" friction="{box_mu} 0.005 0.0001"/>
      </body></worldbody>{extra}</mujoco>"""


def test_condim_1_contacts_are_frictionless_only_between_condim_1_geoms():
    """MuJoCo's condim: a contact has the larger condim of its two geoms. Between two
    condim-1 geoms it is frictionless: the box slides down the 20 degree slope with
    a = g sin 20 (0.5 s: s = a h^2 N (N + 1) / 2 for semi-implicit Euler, 0.4234 m), whatever
    its mu; a condim-1 box on a condim-3 slope (mu 1 > tan 20) sticks, as it does with
    condim 3 on both, and so does one whose mu (1.2) exceeds the slope's: the contact takes
    the larger (Hopper's foot; the rules in full: test_contact_parameters.py)."""
    downhill = np.array([np.cos(np.radians(20)), 0.0, -np.sin(np.radians(20))])
    for box, slope, slides, mu in ((1, 1, True, 1.0), (1, 1, True, 1.2), (1, 3, False, 1.0), (3, 3, False, 1.0),
                                   (3, 1, False, 1.0), (1, 3, False, 1.2)):
        sim = ncpgym.Simulator(ncpgym.load_model(_incline(box, slope, box_mu=mu)))
        start = np.array(sim.q[:3])
        for _ in range(100):
            sim.step()
        s = float((np.array(sim.q[:3]) - start) @ downhill)
        if slides:
            assert s == pytest.approx(9.81 * np.sin(np.radians(20)) * 0.005**2 * 100 * 101 / 2, rel=1e-3)
        else:
            assert abs(s) < 1e-4, (box, slope, s)


def _mujoco_contacts(xml):
    """MuJoCo's contacts of the incline with the box pushed 1 mm into the slope:
    (dim, friction) of each."""
    mj = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mj)
    d.qpos[:3] -= 0.001 * np.array([np.sin(np.radians(20)), 0.0, np.cos(np.radians(20))])
    mujoco.mj_forward(mj, d)
    return [(int(c.dim), float(c.friction[0])) for c in d.contact[:d.ncon]]


def _ncpgym_contacts(xml):
    """ncpgym's contacts in the same state: (condim, friction) of each."""
    sim = ncpgym.Simulator(ncpgym.load_model(xml))
    sim.q[:3] -= 0.001 * np.array([np.sin(np.radians(20)), 0.0, np.cos(np.radians(20))])
    sim.step()
    c = sim.contacts
    return [(int(k), float(f)) for k, f in zip(c["condim"], c["friction"])]


def test_contacts_pair_geoms_by_mujocos_contact_filter():
    """MuJoCo pairs two geoms when contype of either shares a bit with conaffinity of the
    other; a geom with a contype but no conaffinity still collides. ncpgym's contacts have
    MuJoCo's (dim, mu): a condim-4 box with contype 1, conaffinity 0 touches the slope
    (dim 4); a condim-1 box with mu 1.2 that reaches a condim-3 slope through one direction
    of the filter only (dim 3, mu 1.2); the same box with a slope whose bits it shares in
    neither direction has no contact. Catches: 'can collide' requiring both bits, either
    direction alone, | for &."""
    one_way = ' contype="1" conaffinity="0"'
    torsional = _incline(4, 3).replace('name="cube"', 'name="cube"' + one_way)
    reached = (_incline(1, 3, box_mu=1.2).replace('name="cube"', 'name="cube"' + one_way)
               .replace('name="slope"', 'name="slope" contype="2" conaffinity="1"'))
    apart = _incline(1, 3, box_mu=1.2).replace('name="slope"', 'name="slope" contype="2" conaffinity="2"')
    for xml, expect in ((torsional, {(4, 1.0)}), (reached, {(3, 1.2)}), (apart, set())):
        assert set(_mujoco_contacts(xml)) == expect
        assert set(_ncpgym_contacts(xml)) == expect


ACTUATED_MJCF = """<mujoco><option density="{density}" wind="{wind}"/><worldbody>
  <body name="a"><joint name="ja" type="hinge" axis="0 1 0" {frc}/><geom size="0.1" mass="1"/></body>
  <body name="b" pos="1 0 0"><joint name="jb" type="hinge" axis="0 1 0" actuatorfrcrange="-1 1"/>
    <geom size="0.1" mass="1"/></body></worldbody>
  <actuator><motor name="m" joint="ja" gear="2"/></actuator></mujoco>"""


def test_force_clamps_and_mujoco4_joint_and_actuator_terms_are_refused_where_they_act():
    """Features that change the dynamics are refused, never dropped: a joint's
    actuatorfrcrange clamps the actuators' total force on it (MuJoCo's URDF import makes
    every effort limit one), so it is refused on a joint an actuator drives ('ja') and
    loads where none does ('jb': MuJoCo clamps nothing there, checked); MuJoCo 4's
    polynomial joint damping and stiffness, actuator damping and armature, and control
    delay are refused by name (set on the compiled model, as MuJoCo 4 keeps them). Wind
    alone loads (MuJoCo applies no fluid force without density or viscosity: checked);
    with a density it is refused. Catches: the clamp, a polynomial term or a MuJoCo 4
    actuator term silently dropped; the clamp refused on a joint no actuator drives; wind
    refused without a medium."""
    from ncpgym.models import from_mujoco

    def compiled(frc="", density=0, wind="0 0 0"):
        return mujoco.MjModel.from_xml_string(ACTUATED_MJCF.format(frc=frc, density=density, wind=wind))

    plain = compiled()
    d = mujoco.MjData(plain)
    d.ctrl[0] = 3.0
    mujoco.mj_forward(plain, d)
    assert d.qfrc_actuator[plain.joint("jb").dofadr[0]] == 0  # nothing to clamp on jb
    m = from_mujoco(plain)  # jb's range acts on nothing
    assert m.nu == 1 and list(m.actuator_gear) == [2.0]

    with pytest.raises(UnsupportedFeatureError) as e:
        from_mujoco(compiled(frc='actuatorfrcrange="-1 1"'))
    assert str(e.value).splitlines()[1:] == [
        "  joint 'ja': actuatorfrcrange (the actuators' total force on the joint clamped)"]

    poly = [("dof_dampingpoly", "joint 'ja': polynomial damping or stiffness (MuJoCo 4)"),
            ("jnt_stiffnesspoly", "joint 'ja': polynomial damping or stiffness (MuJoCo 4)"),
            ("actuator_damping", "actuator 'm': damping or armature of the actuator (MuJoCo 4)"),
            ("actuator_dampingpoly", "actuator 'm': damping or armature of the actuator (MuJoCo 4)"),
            ("actuator_armature", "actuator 'm': damping or armature of the actuator (MuJoCo 4)"),
            ("actuator_delay", "actuator 'm': control delay (MuJoCo 4)")]
    for field, line in poly:
        mj = compiled()
        if not hasattr(mj, field):
            continue  # MuJoCo 3: no such term
        values = getattr(mj, field)
        values.reshape(-1)[0] = 0.5
        with pytest.raises(UnsupportedFeatureError) as e:
            from_mujoco(mj)
        assert str(e.value).splitlines()[1:] == ["  " + line], field

    windy = compiled(wind="5 0 0")
    d = mujoco.MjData(windy)
    mujoco.mj_forward(windy, d)
    assert not d.qfrc_passive.any()  # wind without a medium pushes nothing
    assert from_mujoco(windy).nv == 2
    dense = compiled(density=1.2, wind="5 0 0")  # the medium and its wind: fluid forces, simulated
    d = mujoco.MjData(dense)
    d.qvel[:] = [0.3, -0.7]
    mujoco.mj_forward(dense, d)
    assert d.qfrc_passive.any()
    np.testing.assert_allclose(ncpgym.dynamics.passive(from_mujoco(dense), d.qpos, d.qvel), d.qfrc_passive,
                               rtol=1e-12, atol=1e-15)


def test_urdf_meshes_are_found_in_the_urdfs_own_meshdir_as_mujoco_finds_them(tmp_path):
    """A URDF whose <mujoco><compiler meshdir="assets"/> names the mesh folder: MuJoCo
    loads box.obj from urdf_dir/assets; so does compile_urdf (before: dropped as missing,
    leaving a link without collision). Also with a path in the name (strippath, MuJoCo's
    URDF default, looks up its last part) and with assetdir. Catches: meshdir ignored
    (the mesh dropped), the wrong base directory."""
    from ncpgym.models import loader

    _box_obj(tmp_path / "assets" / "box.obj", (0.1, 0.2, 0.3))
    body = """<link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"
      ixy="0" ixz="0" iyz="0"/></inertial><collision><geometry><mesh filename="{name}"/></geometry>
      </collision></link>"""
    for attr, name in (("meshdir", "box.obj"), ("meshdir", "some/where/box.obj"), ("assetdir", "box.obj")):
        text = f'<robot name="r"><mujoco><compiler {attr}="assets"/></mujoco>{body.format(name=name)}</robot>'
        urdf = tmp_path / f"{attr}.urdf"
        urdf.write_text(text)
        if name == "box.obj":
            assert mujoco.MjModel.from_xml_path(str(urdf)).nmesh == 1  # MuJoCo finds it there
        mj = loader.compile_urdf(urdf)
        assert mj.nmesh == 1, (attr, name)
        half = np.ptp(mj.mesh_vert[:mj.mesh_vertnum[0]], axis=0).max() / 2
        assert half == pytest.approx(0.3), (attr, name)


TWO_OF_EACH_MJCF = """<mujoco><worldbody>
  <body name="a"><joint name="ja" type="hinge" axis="0 1 0"/><geom size="0.1" mass="1"/></body>
  <body name="b" pos="1 0 0"><joint name="jb" type="hinge" axis="0 1 0"/><geom size="0.1" mass="1"/></body></worldbody>
  <tendon><fixed name="t1"><joint joint="ja" coef="1"/></fixed><fixed name="t2"><joint joint="jb" coef="1"/></fixed></tendon>
  <actuator><motor name="m1" joint="ja"/><motor name="m2" joint="jb"/></actuator></mujoco>"""


def test_each_refusal_names_only_the_element_that_has_the_feature():
    """Per-element MuJoCo 4 terms set on the second joint, actuator or tendon only (the last
    dof, so a slice that runs short or past its joint shows): exactly that element is named.
    Tendon force ranges and polynomial terms make an otherwise idle tendon active. And the
    field lookup tolerates an older MuJoCo without the field (nothing to refuse). Catches:
    the dof range of a joint empty or running into later joints, a term read across all
    actuators or tendons, a tendon term dropped."""
    from ncpgym.models import from_mujoco
    from ncpgym.models.loader import _nonzero

    cases = [("dof_dampingpoly", 1, "joint 'jb': polynomial damping or stiffness (MuJoCo 4)"),
             ("jnt_stiffnesspoly", 1, "joint 'jb': polynomial damping or stiffness (MuJoCo 4)"),
             ("actuator_damping", 1, "actuator 'm2': damping or armature of the actuator (MuJoCo 4)"),
             ("actuator_delay", 1, "actuator 'm2': control delay (MuJoCo 4)"),
             ("tendon_actfrclimited", 1, "tendon 't2': actfrclimited"),
             ("tendon_dampingpoly", 1, "tendon 't2': dampingpoly"),
             ("tendon_stiffnesspoly", 1, "tendon 't2': stiffnesspoly")]
    for field, index, line in cases:
        mj = mujoco.MjModel.from_xml_string(TWO_OF_EACH_MJCF)
        if not hasattr(mj, field):
            continue  # an older MuJoCo without the term
        values = getattr(mj, field)
        values[index] = 1 if values.dtype == bool else 0.5
        with pytest.raises(UnsupportedFeatureError) as e:
            from_mujoco(mj)
        assert str(e.value).splitlines()[1:] == ["  " + line], field

    class OldModel:  # what MuJoCo 3.1 offers: no MuJoCo 4 terms at all
        pass

    assert _nonzero(OldModel(), "dof_dampingpoly", 0) is False


def test_urdf_mesh_at_a_missing_absolute_path_is_dropped_with_a_log_line(tmp_path, caplog):
    """A collision mesh named by an absolute path that does not exist is dropped (logged),
    as a missing relative one is, and the rest of the URDF loads. Catches: a missing
    absolute file kept (MuJoCo would then refuse the whole URDF)."""
    from ncpgym.models import loader

    missing = tmp_path / "nowhere" / "gone.stl"
    urdf = tmp_path / "r.urdf"
    urdf.write_text(f'<robot name="r"><link name="base"><inertial><mass value="1"/><inertia ixx="0.01" '
                    f'iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial><collision><geometry>'
                    f'<mesh filename="{missing}"/></geometry></collision><collision><geometry><sphere '
                    f'radius="0.1"/></geometry></collision></link></robot>')
    with caplog.at_level(logging.INFO, logger="ncpgym"):
        mj = loader.compile_urdf(urdf)
    assert (mj.nmesh, mj.ngeom) == (0, 1)
    assert f"dropping collision mesh {missing} of link 'base' (MuJoCo cannot read it)" in caplog.text


def test_urdf_links_overlapping_at_rest_do_not_collide_unless_asked(caplog):
    """example-robot-data's SO-100 arm (we did not write it): its shoulder's collision mesh
    sinks 34 mm into the base's at the rest pose, a pair no joint motion can separate. With
    self_collision='auto' (the default) each such pair becomes an exclude, logged: MuJoCo's
    own collision detection then finds no interpenetration at rest, other pairs keep
    colliding, and 1 s under random controls stays finite. 'all' keeps MuJoCo's import."""
    from conftest import erd_robots
    from ncpgym.models import loader
    from ncpgym.models.loader import _rest_pose_overlaps

    path = erd_robots() / "so_arm_description/urdf/so100.urdf"
    plain = loader.compile_urdf(path)
    overlaps = _rest_pose_overlaps(plain)
    assert overlaps and min(overlaps.values()) < -0.03
    assert _rest_pose_overlaps(loader.compile_urdf(path, self_collision="auto")) == {}
    with caplog.at_level(logging.INFO, logger="ncpgym"):
        m = ncpgym.load_model(path)
    assert f"{len(overlaps)} link pairs interpenetrate at the rest pose" in caplog.text
    every = ncpgym.load_model(path, self_collision="all")
    assert len(m.exclude_pairs) == len(every.exclude_pairs) + len(overlaps)
    sim = ncpgym.Simulator(m)
    lo, hi = np.asarray(m.actuator_ctrlrange).reshape(-1, 2).T if m.nu else (np.zeros(0), np.zeros(0))
    rng = np.random.default_rng(0)
    for _ in range(round(1 / m.timestep)):
        sim.step(rng.uniform(lo, hi) if m.nu else None)
    assert np.isfinite(sim.u).all() and np.abs(sim.u).max() < 100
    with pytest.raises(ValueError, match="self_collision"):
        ncpgym.load_model(path, self_collision="none")


def test_frames_mujoco_merges_with_the_body_frame_are_merged_as_mujoco_does():
    """MuJoCo's compiler marks an inertial frame, geom or site whose rotation is within 1e-6 of its
    body's (``body_sameframe`` / ``geom_sameframe`` / ``site_sameframe``) and its kinematics then
    use the body's own rotation, dropping the stored 5e-7 rad. Loaded frames follow: the mass
    matrix and the site frames equal MuJoCo's to round-off, where keeping the stored rotation
    (the loader before) left the mass matrix 1e-7 off -- rtb-data's pincher arms have such links."""
    xml = """<mujoco><worldbody><body><joint axis="0 0 1"/><geom type="capsule" size="0.02 0.1" euler="0 90 0"/>
      <body pos="0.2 0 0"><joint axis="0 1 0"/>
        <inertial pos="0 0 0.1" mass="0.5" diaginertia="2e-3 1.9e-3 2e-4" quat="1 0 5e-7 0"/>
        <geom type="box" size="0.02 0.03 0.1" pos="0 0 0.1" quat="1 0 5e-7 0" contype="0" conaffinity="0"/>
        <site name="tip" pos="0 0 0.2" quat="1 4e-7 0 0"/></body></body></worldbody>
      <sensor><framequat objtype="site" objname="tip"/></sensor></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml)
    S = mujoco.mjtSameFrame
    assert mj.body_sameframe[2] == S.mjSAMEFRAME_BODYROT and abs(mj.body_iquat[2][2]) > 1e-7  # stored, unused
    assert mj.site_sameframe[0] == S.mjSAMEFRAME_BODYROT
    m = ncpgym.load_model(xml)
    d = mujoco.MjData(mj)
    for q in ([0.0, 0.3], [1.0, -0.7]):
        d.qpos[:] = q
        mujoco.mj_forward(mj, d)
        M = np.zeros((2, 2))
        mujoco.mj_fullM(mj, d, M)
        np.testing.assert_allclose(ncpgym.dynamics.mass_matrix(m, np.array(q)), M, rtol=0, atol=1e-15 * np.abs(M).max())
        site = ncpgym.dynamics.kinematics(m, np.array(q))["site_xmat"][0].reshape(3, 3)
        np.testing.assert_allclose(site, d.site_xmat[0].reshape(3, 3), rtol=0, atol=1e-15)
