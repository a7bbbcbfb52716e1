"""Equality constraints (connect, weld, joint coupling), mocap bodies and contact exclusions
from MJCF: bilateral rows of the Newton solve (nonsmooth-newton-ncp.txt eq. 8), checked
against geometry recomputed by MuJoCo's kinematics (an independent implementation), a
converged MuJoCo reference trajectory, and the constraint equations themselves."""

import numpy as np
import mujoco
import pytest

import ncpgym
from ncpgym.errors import ModelError, UnsupportedFeatureError
from ncpgym import scenes
from ncpgym.models import from_mujoco

H = 1 / 120


def relative_pose(mj, d, q, b1, b2):
    """Position and orientation of body b2 in body b1's frame, by MuJoCo's kinematics."""
    d.qpos[:] = q
    mujoco.mj_kinematics(mj, d)
    R1, R2 = d.xmat[b1].reshape(3, 3), d.xmat[b2].reshape(3, 3)
    return R1.T @ (d.xpos[b2] - d.xpos[b1]), R1.T @ R2


def rotation_angle(R):
    axis = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    return np.arctan2(np.linalg.norm(axis) / 2, (np.trace(R) - 1) / 2)  # exact near 0, unlike arccos


WELDS = """<mujoco><option timestep="{h}"/>
<worldbody>
 <body name="link" pos="0 0 1" euler="0 -69 0"><joint name="swing" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.4 0 -0.1" size="0.03" mass="1" contype="0" conaffinity="0"/></body>
 <body name="carried" pos="0.45 0.1 0.8" euler="0.3 0.2 0.1"><freejoint/>
  <geom type="box" size="0.05 0.1 0.02" mass="0.7" contype="0" conaffinity="0"/></body>
 <body name="fixed" pos="-0.5 0 1.2" euler="0 0.5 0"><freejoint/>
  <geom type="sphere" size="0.05" mass="2" contype="0" conaffinity="0"/></body>
</worldbody>
<equality><weld body1="link" body2="carried" anchor="0.02 0.03 0.01"/><weld body1="world" body2="fixed"/></equality>
</mujoco>"""


def test_weld_holds_pose_to_the_world_and_to_a_swinging_link():
    """Over 10 s at h = 1/120 the welds hold to 1e-6 m / 1e-6 rad, with the default damped
    Newton step and with full steps on this smooth system (smooth_full_step)."""
    mj = mujoco.MjModel.from_xml_string(WELDS.format(h=H))
    m = from_mujoco(mj)
    assert m.neq == 2 and list(m.eq_type) == ["weld", "weld"]
    damped = ncpgym.Simulator(m)
    sim = ncpgym.Simulator(m, smooth_full_step=True)
    d = mujoco.MjData(mj)
    link, carried, fixed = (mj.body(n).id for n in ("link", "carried", "fixed"))
    # the compiler's relative pose at qpos0 is the one to hold
    p_ref, R_ref = relative_pose(mj, d, mj.qpos0, link, carried)
    fixed_ref = relative_pose(mj, d, mj.qpos0, 0, fixed)
    worst = np.zeros(4)
    swing, damped_worst = [], 0.0
    for _ in range(int(10 / H)):
        sim.step()
        damped.step()
        p, _ = relative_pose(mj, d, damped.q, link, carried)
        damped_worst = max(damped_worst, np.linalg.norm(p - p_ref))
        p, R = relative_pose(mj, d, sim.q, link, carried)
        pf, Rf = relative_pose(mj, d, sim.q, 0, fixed)
        worst = np.maximum(worst, [np.linalg.norm(p - p_ref), rotation_angle(R_ref.T @ R),
                                   np.linalg.norm(pf - fixed_ref[0]), rotation_angle(fixed_ref[1].T @ Rf)])
        swing.append(sim.q[0])
    assert np.ptp(swing) > 1.5  # it did swing, carrying the welded body
    assert worst[0] <= 1e-6 and worst[1] <= 1e-6, worst  # welded to the swinging link
    assert worst[2] <= 1e-6 and worst[3] <= 1e-6, worst  # welded to the world
    assert damped_worst <= 1e-6, damped_worst  # the default damped step (measured 2.8e-8 m)
    print("weld to swinging link: full steps", worst[0], "damped", damped_worst)


FOURBAR = """<mujoco><option timestep="{h}"/>
<worldbody>
 <body name="crank" pos="0 0 1"><joint name="j0" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.5" contype="0" conaffinity="0"/>
  <body name="coupler" pos="0.2 0 0"><joint name="j1" type="hinge" axis="0 1 0"/>
   <geom type="capsule" fromto="0 0 0 0.5 0 0.3" size="0.02" mass="1" contype="0" conaffinity="0"/></body>
 </body>
 <body name="rocker" pos="0.6 0 1"><joint name="j2" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.1 0 0.3" size="0.02" mass="0.7" contype="0" conaffinity="0"/></body>
</worldbody>
<equality><connect body1="coupler" body2="rocker" anchor="0.5 0 0.3" {solref}/></equality></mujoco>"""


def fourbar(h, solref=""):
    return mujoco.MjModel.from_xml_string(FOURBAR.format(h=h, solref=solref))


def loop_gap(mj, d, q):
    d.qpos[:] = q
    mujoco.mj_kinematics(mj, d)
    c, r = mj.body("coupler").id, mj.body("rocker").id
    return np.linalg.norm(d.xpos[c] + d.xmat[c].reshape(3, 3) @ mj.eq_data[0][0:3]
                          - d.xpos[r] - d.xmat[r].reshape(3, 3) @ mj.eq_data[0][3:6])


def test_connect_closes_a_fourbar_loop_and_follows_the_rigid_loop_dynamics():
    """The loop stays closed to 1e-6 m over 10 s at h = 1/120 (MuJoCo's soft connect opens
    it by ~4 mm), and the motion converges to the rigid four-bar's: the reference is MuJoCo
    at h = 1e-5 with a 50x stiffer solref (its own refinement changes it by < 1e-4 rad), which
    approximates the rigid loop; ncpgym's implicit step is first order, so its error shrinks
    about 4x from h = 1e-3 to 2.5e-4. MuJoCo's default soft constraint at h = 1/120 stays 0.07
    rad from that reference, so a direct comparison at the default settings could only be
    that loose."""
    mj = fourbar(H)
    sim = ncpgym.Simulator(from_mujoco(mj))
    d = mujoco.MjData(mj)
    gaps = []
    for _ in range(int(10 / H)):
        sim.step()
        gaps.append(loop_gap(mj, d, sim.q))
    assert max(gaps) <= 1e-6, max(gaps)
    assert np.ptp(sim.q) > 0.1

    ref_mj = fourbar(1e-5, 'solref="0.0002 1"')
    rd = mujoco.MjData(ref_mj)
    ref = []
    for k in range(100_000):  # 1 s; keep every 0.1 s
        mujoco.mj_step(ref_mj, rd)
        if (k + 1) % 10_000 == 0:
            ref.append(rd.qpos.copy())
    ref = np.array(ref)
    err = {}
    for h in (1e-3, 2.5e-4):
        s = ncpgym.Simulator(from_mujoco(fourbar(h)), newton_iterations=30)
        out = []
        n = int(round(0.1 / h))
        for k in range(10 * n):
            s.step()
            if (k + 1) % n == 0:
                out.append(s.q.copy())
        err[h] = np.abs(np.array(out) - ref).max()
    assert err[2.5e-4] <= 0.012, err  # measured 0.0065 rad over a 3 rad swing
    assert err[1e-3] / err[2.5e-4] >= 3.0, err  # first-order convergence (measured 4.1)


def hanging_loop():
    """n capsules of 0.1 kg on ball joints bent into a half circle, the last link's end
    connected to the world (scenes.hanging_loop_mjcf, contact_scenes.py's weld_chain)."""
    return mujoco.MjModel.from_xml_string(scenes.hanging_loop_mjcf(timestep=H))


def test_a_hanging_loop_of_light_ball_jointed_links_stays_closed():
    """A loop of 20 light links on ball joints (options.hpp, line_search on smooth steps): its
    tension makes the loop's geometric stiffness, which the Newton matrix leaves out, larger
    than a link's inertia about its own axis (5e-6 kg m^2), so the damped step t = 0.75
    overshoots and the loop runs away (line_search=False: open by > 1 cm within 2 s, from
    the exact start and from 1e-9 rad/s of noise); backtracking from t = 1 keeps the gap,
    measured by MuJoCo's kinematics, below 0.1 mm (measured 1.7e-5 / 3.4e-5 m)."""
    mj = hanging_loop()
    d = mujoco.MjData(mj)
    end = mj.body("l19").id

    def worst_gap(noise, **opts):
        sim = ncpgym.Simulator(from_mujoco(mj), **opts)
        sim.q[:] = mj.qpos0
        sim.u[:] = noise * np.random.default_rng(1).standard_normal(mj.nv)
        worst = 0.0
        for _ in range(int(2 / H)):
            try:
                sim.step()
            except RuntimeError:  # max_speed: counts as open
                return np.inf
            d.qpos[:] = sim.q
            mujoco.mj_kinematics(mj, d)
            tip = d.xpos[end] + d.xmat[end].reshape(3, 3) @ mj.eq_data[0][0:3]
            worst = max(worst, np.linalg.norm(tip - mj.eq_data[0][3:6]))
        return worst

    for noise in (0.0, 1e-9):
        assert worst_gap(noise) < 1e-4
        assert worst_gap(noise, line_search=False) > 1e-2


def test_a_smooth_step_whose_search_stalls_ends_there():
    """At rest the hanging loop's search finds no decrease within its halvings (the Newton
    matrix lacks the loop's geometric stiffness): such a step ends with that trial instead
    of running its remaining iterates (stepper.cpp), so over a second of the hanging loop
    unconverged steps end early (measured 87 of 120), each after an exhausted search (4
    halvings), and the loop stays closed."""
    mj = hanging_loop()
    sim = ncpgym.Simulator(from_mujoco(mj))
    sim.q[:] = mj.qpos0
    early = 0
    for _ in range(int(1 / H)):
        sim.step()
        st = sim.solver_stats
        converged = max(st["residual"][-1], st["momentum_residual"][-1]) < 1e-9  # the tolerance exit
        if st["newton_iterations"] < 8 and not converged:
            early += 1
            assert st["backtracks"] >= 4
    assert early > 10
    d = mujoco.MjData(mj)
    d.qpos[:] = sim.q
    mujoco.mj_kinematics(mj, d)
    end = mj.body("l19").id
    tip = d.xpos[end] + d.xmat[end].reshape(3, 3) @ mj.eq_data[0][0:3]
    assert np.linalg.norm(tip - mj.eq_data[0][3:6]) < 1e-4


COUPLED = """<mujoco><option timestep="{h}"/>
<worldbody>
 <body name="a" pos="0 0 1"><joint name="a" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/></body>
 <body name="b" pos="1 0 1"><joint name="b" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.2 0 0.1" size="0.02" mass="0.4" contype="0" conaffinity="0"/></body>
</worldbody>
<equality><joint joint1="b" joint2="a" polycoef="0.1 2 0 0 0"/></equality></mujoco>"""


def test_joint_coupling_holds_q1_equal_2_q0_plus_0_1():
    m = from_mujoco(mujoco.MjModel.from_xml_string(COUPLED.format(h=H)))
    assert list(m.eq_type) == ["joint"]
    sim = ncpgym.Simulator(m)
    sim.q[:] = [0.0, 0.1]  # on the constraint (qpos0 = 0 for both)
    worst, qa = 0.0, []
    for _ in range(int(5 / H)):
        sim.step()
        worst = max(worst, abs(sim.q[1] - (2 * sim.q[0] + 0.1)))
        qa.append(sim.q[0])
    assert np.ptp(qa) > 0.5  # the coupled pair swings
    assert worst <= 1e-8, worst


def test_equalities_can_be_switched_off_per_world():
    m = from_mujoco(mujoco.MjModel.from_xml_string(COUPLED.format(h=H)))
    batch = ncpgym.Batch(m, 3, num_threads=2)
    batch.q[:] = [0.0, 0.1]
    assert batch.eq_active.dtype == np.uint8 and batch.eq_active.shape == (3, 1)
    batch.eq_active[1] = 0
    for _ in range(60):
        batch.step()
    gap = np.abs(batch.q[:, 1] - (2 * batch.q[:, 0] + 0.1))
    assert gap[0] <= 1e-8 and gap[2] <= 1e-8 and gap[1] > 0.05, gap
    np.testing.assert_array_equal(batch.q[0], batch.q[2])  # the switched-off world is independent
    # Simulator: the same switch
    sim = ncpgym.Simulator(m)
    sim.q[:] = [0.0, 0.1]
    sim.eq_active[:] = 0
    sim.step(nsteps=60)
    assert abs(sim.q[1] - (2 * sim.q[0] + 0.1)) > 0.05


def fetch_with_mocap(model_paths, collisions=True):
    """Gymnasium-Robotics' pick_and_place.xml, loaded strictly (mocap body and its weld,
    the fingers' torsional friction)."""
    mj = mujoco.MjModel.from_xml_path(str(model_paths["fetch"]))
    if collisions:  # the arm's large meshes wait for mesh-mesh collision (issue 16)
        mesh = mj.geom_type == mujoco.mjtGeom.mjGEOM_MESH
        mj.geom_contype[mesh] = 0
        mj.geom_conaffinity[mesh] = 0
    return mj, from_mujoco(mj, strict=True)


def test_fetch_loads_strictly_with_its_mocap_weld_and_its_fingers_torsional_friction(model_paths):
    for name in ("pick_and_place.xml", "push.xml", "slide.xml", "reach.xml"):
        mj = mujoco.MjModel.from_xml_path(str(model_paths["fetch"].with_name(name)))
        m = ncpgym.load_model(model_paths["fetch"].with_name(name))  # strict by default
        for side in "rl":
            g = mj.geom(f"robot0:{side}_gripper_finger_link").id
            assert m.geom_condim[g] == mj.geom_condim[g] == 4, name
            assert list(m.geom_friction[g]) == list(mj.geom_friction[g]), name
        assert m.nmocap == 1 and m.neq == 1 and list(m.eq_type) == ["weld"], name
        assert len(m.exclude_pairs) == 3, name  # <contact><exclude>
    mj, m = fetch_with_mocap(model_paths)
    mocap = mj.body("robot0:mocap").id
    assert m.body_mocapid[mocap] == 0 and (m.eq_obj1[0], m.eq_obj2[0]) == (
        mocap, mj.body("robot0:gripper_link").id)


def test_moving_the_mocap_body_drives_the_fetch_gripper(model_paths):
    """Fetch's arm follows its mocap body through the rigid weld: the target 14 cm away,
    approached over 0.5 s, is reached within 2 mm by 1 s (MuJoCo's kinematics measures the
    gripper), and its orientation is held."""
    mj, m = fetch_with_mocap(model_paths)
    d = mujoco.MjData(mj)
    q0 = mj.qpos0.copy()
    for name, val in {"robot0:torso_lift_joint": 0.0386, "robot0:shoulder_lift_joint": -0.6,
                      "robot0:elbow_flex_joint": 1.4, "robot0:wrist_flex_joint": 0.8,
                      "robot0:upperarm_roll_joint": 0.3}.items():
        q0[mj.jnt_qposadr[mj.joint(name).id]] = val  # within the limits, the arm bent
    g = mj.body("robot0:gripper_link").id
    d.qpos[:] = q0
    mujoco.mj_kinematics(mj, d)
    p0, R0, quat0 = d.xpos[g].copy(), d.xmat[g].reshape(3, 3).copy(), d.xquat[g].copy()
    relpos = mj.eq_data[0][3:6]  # the weld point in the mocap frame (relquat = identity)
    sim = ncpgym.Simulator(m, timestep=0.002)
    sim.q[:] = q0
    sim.mocap_quat[0] = quat0
    target = p0 + np.array([0.1, -0.05, 0.08])
    for k in range(500):
        goal = p0 + min(1.0, (k + 1) / 250) * (target - p0)
        sim.mocap_pos[0] = goal - R0 @ relpos
        sim.step()
    d.qpos[:] = sim.q
    mujoco.mj_kinematics(mj, d)
    assert np.linalg.norm(d.xpos[g] - target) <= 2e-3
    assert abs(abs(d.xquat[g] @ quat0) - 1) <= 1e-6


def test_fetch_dynamics_still_match_mujoco_when_loaded_strictly(model_paths):
    from ncpgym import dynamics as dyn

    mj, m = fetch_with_mocap(model_paths, collisions=False)
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(5)
    for _ in range(5):
        q = mj.qpos0 + rng.normal(0, 0.3, mj.nq)
        q[-4:] /= np.linalg.norm(q[-4:])
        u = rng.normal(0, 1, mj.nv)
        d.qpos[:], d.qvel[:] = q, u
        mujoco.mj_forward(mj, d)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, d, M)
        np.testing.assert_allclose(dyn.mass_matrix(m, q), M, atol=1e-8 * np.abs(M).max())
        np.testing.assert_allclose(dyn.bias(m, q, u), d.qfrc_bias, atol=1e-8 * max(1, np.abs(d.qfrc_bias).max()))


def test_contact_exclude_removes_the_pair():
    xml = """<mujoco><worldbody><geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="a" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body name="b" pos="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    </worldbody>{exclude}</mujoco>"""
    falls = {}
    for key, exc in {"kept": "", "excluded": '<contact><exclude body1="a" body2="b"/></contact>'}.items():
        m = from_mujoco(mujoco.MjModel.from_xml_string(xml.format(exclude=exc)))
        sim = ncpgym.Simulator(m, timestep=H)
        sim.step(nsteps=60)
        falls[key] = sim.q[9]  # b's height
    assert falls["kept"] == pytest.approx(0.3, abs=2e-3)  # resting on a
    assert falls["excluded"] < 0.15  # fell through a onto the floor


def test_soft_equalities_map_or_are_refused():
    base = """<mujoco><worldbody><body name="a"><freejoint/><geom size="0.1"/></body>
    </worldbody><equality><connect body1="a" body2="world" anchor="0 0 0" {}/></equality></mujoco>"""
    m = from_mujoco(mujoco.MjModel.from_xml_string(base.format('solref="-2000 0"')))
    assert m.eq_compliance[0] == pytest.approx(1 / 2000)
    assert from_mujoco(mujoco.MjModel.from_xml_string(base.format(""))).eq_compliance[0] == 0
    with pytest.raises(UnsupportedFeatureError, match="solref"):
        from_mujoco(mujoco.MjModel.from_xml_string(base.format('solref="0.1 1"')))
    # stiffer than MuJoCo's default (dm_control's couplings: 0.005 0.5) is rigid like it;
    # just softer, or without damping, is refused
    assert from_mujoco(mujoco.MjModel.from_xml_string(base.format('solref="0.005 0.5"'))).eq_compliance[0] == 0
    for soft in ('solref="0.021 1"', 'solref="0.01 0"'):
        with pytest.raises(UnsupportedFeatureError, match="solref"):
            from_mujoco(mujoco.MjModel.from_xml_string(base.format(soft)))
    # a compliant connect under gravity stretches by m g / k (1 kg sphere: 4.19 kg at
    # density 1000 and r = 0.1 -> 20.5 N on 2000 N/m)
    m = from_mujoco(mujoco.MjModel.from_xml_string(base.format('solref="-2000 0"')))
    sim = ncpgym.Simulator(m, timestep=H)
    sim.step(nsteps=600)
    mass = 1000 * 4 / 3 * np.pi * 0.1**3
    sim2 = ncpgym.Simulator(m, timestep=H, newton_iterations=30)
    sim2.q[:] = sim.q
    sim2.u[:] = sim.u
    sim2.step(nsteps=600)
    assert sim2.q[2] == pytest.approx(-mass * 9.81 / 2000, rel=0.02)


def test_inactive_flags_come_from_mujoco_for_every_kind_and_a_zero_solref_is_refused():
    """MuJoCo's active="false" (eq_active0) on a weld, a joint coupling and a connect is each
    row's initial switch in ncpgym, next to active ones of the same kinds. A solref of
    (0, 0) is MuJoCo's direct format with no stiffness and no damping: refused by name, not
    read as a compliance of 1/0. Catches (mutmut survivors): a weld's or a coupling's
    active flag dropped (switched on), solref[0] = 0 taken as a stiffness."""
    xml = """<mujoco><worldbody>
      <body name="a" pos="0 0 1"><joint name="ja" type="hinge"/><geom size="0.1" mass="1"/></body>
      <body name="b" pos="1 0 1"><joint name="jb" type="hinge"/><geom size="0.1" mass="1"/></body>
      <body name="c" pos="2 0 1"><freejoint/><geom size="0.1" mass="1"/></body></worldbody>
      <equality><weld name="w_off" body1="c" active="false"/><weld name="w_on" body1="b"/>
        <joint name="j_off" joint1="ja" joint2="jb" active="false"/><joint name="j_on" joint1="jb"/>
        <connect name="c_off" body1="a" body2="c" anchor="0.5 0 0" active="false"/></equality></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml)
    m = from_mujoco(mj)
    assert list(m.eq_name) == ["w_off", "w_on", "j_off", "j_on", "c_off"]
    assert list(m.eq_type) == ["weld", "weld", "joint", "joint", "connect"]
    np.testing.assert_array_equal(m.eq_active, mj.eq_active0)
    assert list(mj.eq_active0) == [0, 1, 0, 1, 0]
    zero = """<mujoco><worldbody><body name="a"><freejoint/><geom size="0.1"/></body></worldbody>
      <equality><connect name="z" body1="a" body2="world" anchor="0 0 0" solref="0 0"/></equality></mujoco>"""
    with pytest.raises(UnsupportedFeatureError) as e:
        from_mujoco(mujoco.MjModel.from_xml_string(zero))
    (line,) = str(e.value).splitlines()[1:]
    assert line.startswith("  equality 'z' (mjEQ_CONNECT): solref (0.0, 0.0) "), line


def test_bad_equality_input_raises_clear_errors():
    b = ncpgym.Builder()
    a = b.add_body(0, mass=1.0, inertia=np.eye(3))
    jf = b.add_joint(a, "free")
    with pytest.raises(ValueError, match="body does not exist"):
        b.add_connect(a, 7)
    with pytest.raises(ValueError, match="itself"):
        b.add_weld(a, a)
    with pytest.raises(ValueError, match="not a hinge or slide"):
        b.add_joint_coupling(jf, -1, [0.0, 1.0])
    with pytest.raises(ValueError, match="polycoef"):
        b.add_joint_coupling(jf, -1, [0.0] * 6)
    # MJCF naming a missing body: MuJoCo's compiler refuses, and the loader says so
    with pytest.raises(ModelError):
        ncpgym.models.loader._compile(lambda: mujoco.MjModel.from_xml_string(
            "<mujoco><worldbody><body name='a'><freejoint/><geom size='.1'/></body></worldbody>"
            "<equality><weld body1='a' body2='nope'/></equality></mujoco>"), "<string>")
    m = from_mujoco(mujoco.MjModel.from_xml_string(COUPLED.format(h=H)))
    batch = ncpgym.Batch(m, 2)
    with pytest.raises(ValueError, match=r"eq_active: expected shape \(2, 1\)"):
        batch.eq_active = np.ones((3, 1), np.uint8)
    with pytest.raises(TypeError, match="eq_active: expected dtype bool or uint8"):
        batch.eq_active = np.ones((2, 1))
    batch.eq_active = np.zeros((2, 1), bool)
    assert not batch.eq_active.any()
    sim = ncpgym.Simulator(m)
    with pytest.raises(ValueError, match="eq_active"):
        sim.eq_active = np.ones(2, np.uint8)
    with pytest.raises(ValueError, match="mocap_pos"):
        sim.mocap_pos = np.zeros((1, 3))  # this model has no mocap body


RECOVERY_MJCF = """<mujoco><option gravity="0 0 0" timestep="0.002"/><worldbody>
  <body name="ball"><freejoint/><geom size="0.05" mass="1"/></body></worldbody>
  <equality><connect body1="ball" body2="world" anchor="0 0 0"/></equality></mujoco>"""


def test_a_far_violated_equality_is_corrected_at_the_recovery_speed():
    """A ball connected to the world origin but moved 0.5 m from it (MuJoCo's soft connect
    would pull it over; a rigid row alone would move it in one step at 250 m/s): with
    equality_recovery_speed v each step closes h v of the gap (to 1e-12) until the rest is
    within reach, which the next step closes; v = 0 closes it in one step as before.
    Catches: the slack's sign, the bound applied to compliant rows, the reach not scaled by h."""
    m = ncpgym.load_model(RECOVERY_MJCF)
    h, v = 0.002, 1.0
    sim = ncpgym.Simulator(m, newton_iterations=20)
    sim.q[0] = 0.5  # MuJoCo's compiler satisfies the connect at qpos0: violate it here
    gaps = []
    for _ in range(260):
        sim.step()
        gaps.append(sim.q[0])
    expect = np.maximum(0.5 - h * v * np.arange(1, 261), 0.0)
    np.testing.assert_allclose(gaps, expect, atol=1e-9)
    assert np.abs(sim.q[1:3]).max() < 1e-12
    snap = ncpgym.Simulator(m, newton_iterations=20, equality_recovery_speed=0.0)
    snap.q[0] = 0.5
    snap.step()
    assert abs(snap.q[0]) < 1e-9 and snap.u[0] == pytest.approx(-0.5 / h, rel=1e-9)
    soft = ncpgym.load_model(RECOVERY_MJCF.replace('anchor="0 0 0"', 'anchor="0 0 0" solref="-2000 0"'))
    spring = ncpgym.Simulator(soft, newton_iterations=20)
    spring.q[0] = 0.5
    spring.step()  # compliant: its stretch is physical, not a violation to recover slowly
    k = 2000.0  # the implicit spring step from rest: u = -k x h / (m + h^2 k), beyond v
    assert spring.u[0] == pytest.approx(-k * 0.5 * h / (1 + h * h * k), rel=1e-6)
