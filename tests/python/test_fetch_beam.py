"""Issue 18: the seed's Fetch Beam without the robot (scenes.fetch_beam: 16 links of 3 g
joined by 250 N m/rad bending springs), against statics solved here independently."""

from types import SimpleNamespace

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import scenes

H = 0.0083  # the seed's time step (Table 2)
SEED = {"newton_iterations": 6, "linear_iterations": 50}  # the seed's budget for this scene
ROWS = {**SEED, "implicit_springs": False}  # the springs as compliant rows of the NCP solve


def exact_tip_load_angles(n, m, k, link, M, g=9.81):
    """Large-deflection statics of the cantilever, by fixed-point iteration: joint i turns
    by its moment over k, the moment of every weight outboard at its true horizontal arm
    (links' weights at their centres, M at the tip)."""
    theta = np.zeros(n)
    for _ in range(200):
        phi = np.cumsum(theta)
        joints = np.concatenate([[0.0], np.cumsum(link * np.cos(phi))])
        com, tip = joints[:n] + 0.5 * link * np.cos(phi), joints[n]
        moment = np.array([m * g * np.sum(com[i:] - joints[i]) + M * g * (tip - joints[i]) for i in range(n)])
        theta = moment / k  # a hinge about +y turns +x towards -z: the weights turn it positively
    return theta


@pytest.mark.parametrize("opts", [SEED, ROWS], ids=["implicit_springs", "springs_as_rows"])
def test_cantilever_under_a_tip_load_deflects_as_exact_statics_predict(opts):
    """0.2 kg at the tip of the 20 cm beam: after 3 s every joint angle equals the exact
    statics within 1e-6 relative, with the seed's 6 Newton / 50 linear iterations, springs
    folded into H or solved as rows."""
    p = scenes.BEAM
    model = scenes.fetch_beam(timestep=H, tip_mass=0.2)
    sim = ncpgym.Simulator(model, **opts)
    sim.mocap_pos[0, 2] = -1.0  # the support out of the way
    for _ in range(int(3.0 / H)):
        sim.step()
    ref = exact_tip_load_angles(p["n"], p["mass"], p["stiffness"], p["link"], 0.2)
    theta = sim.q[: p["n"]]
    assert ref[0] > 1.5e-3  # a real deflection: 1.7 mrad at the root
    np.testing.assert_allclose(theta, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


def raise_support(opts, lift=0.005, seconds=1.5):
    model = scenes.fetch_beam(timestep=H)
    sim = ncpgym.Simulator(model, **opts)
    z0 = float(sim.mocap_pos[0, 2])
    touch = -scenes.BEAM["thickness"] / 2 - 0.005  # the capsule's top at the straight beam's underside
    ramp = int(0.5 / H)
    for k in range(int(seconds / H)):
        sim.mocap_pos[0, 2] = z0 + min(1.0, k / ramp) * (touch + lift - z0)
        sim.step()
    return sim


def test_support_bends_the_beam_as_its_stiffness_predicts_with_pcr_at_the_seeds_budget():
    """The support pushed 5 mm up into the last link: through the contact the joints turn
    as small-deflection statics of the springs predicts (support force 6 N, root 4.6
    mrad) within 1 % with PCR, the springs as rows, at the seed's 6 Newton / 50 linear
    iterations (the residue is the contact point moving along the tilted link); the
    implicit form agrees with the rows within 1 %."""
    ref, F = scenes.fetch_beam_angles(0.005)
    rows = raise_support(ROWS).q[:16].copy()
    assert 4.0 < F < 8.0 and ref[0] < -3e-3
    assert np.abs(rows - ref).max() <= 0.01 * np.abs(ref).max()
    implicit = raise_support(SEED).q[:16]
    assert np.abs(implicit - rows).max() <= 0.01 * np.abs(rows).max()


def test_fetch_beam_angles_are_the_statics_of_the_chain():
    """The reference itself, from its definition: the support force times each joint's arm,
    less the weights' moment, over k, lifts the support point by exactly `lift`; without
    gravity the angles fall linearly to zero at the support."""
    link, n = scenes.BEAM["link"], 16
    theta, F = scenes.fetch_beam_angles(0.004, g=0.0)
    xs = link * (n - 0.5)
    arm = xs - link * np.arange(n)
    assert -np.sum(theta * arm) == pytest.approx(0.004, rel=1e-12)
    np.testing.assert_allclose(theta, -F * arm / 250.0, rtol=1e-12)
    assert F == pytest.approx(250.0 * 0.004 / np.sum(arm**2), rel=1e-12)


def test_mocap_bodies_are_exported_to_mjcf():
    """to_mjcf keeps the support a mocap body, so MuJoCo can move it as ncpgym does."""
    model = scenes.fetch_beam(timestep=H)
    mj = mujoco.MjModel.from_xml_string(ncpgym.models.to_mjcf(model))
    assert mj.nmocap == 1 and mj.body_mocapid[np.flatnonzero(np.asarray(model.body_mocapid) >= 0)[0]] == 0
    d = mujoco.MjData(mj)
    d.mocap_pos[0] = [scenes.BEAM["link"] * 15.5, 0.0, -0.008 + 0.002]  # 2 mm into the last link
    mujoco.mj_forward(mj, d)
    assert d.ncon > 0


# -- FetchBeamInsert-v0: the beam on the robot ----------------------------------------------

def beam_env(n=2, threads=1, seed=0):
    from ncpgym.tasks import fetch_beam_insert as fb

    env = fb.FetchBeamInsertVectorEnv(num_envs=n, num_threads=threads)
    env.reset(seed=seed)
    return env, env.task, env.batch


def test_bend_is_the_angle_between_the_handle_and_the_last_link():
    """Planar bending by hand: turning every link by 0.01 rad about the same axis bends the
    beam by 0.16 rad, the root hinge at the handle included (it carries the largest
    moment); turning them alternately by +-0.01 leaves the ends parallel."""
    env, task, b = beam_env(1)
    q = b.q.copy()
    ys = task.beam_q[0::2]
    q[0, ys] = 0.01
    b.reset(np.ones(1, np.uint8), q, np.zeros_like(b.u))
    assert task.bend(b)[0] == pytest.approx(0.16, rel=1e-9)
    q[0, ys] = 0.01 * (-1.0) ** np.arange(16)
    b.reset(np.ones(1, np.uint8), q, np.zeros_like(b.u))
    assert task.bend(b)[0] < 1e-7
    env.close()


def test_scripted_insertion_and_the_terms_follow_the_docstring():
    """Scripted: tip over the hole's centre, then 3.3 cm into it, straight (bend < 0.05 rad)
    in every world, is_success once d >= 3 cm; at the start the terms equal what MuJoCo's
    kinematics of the same joints and the docstring's weights give."""
    from ncpgym.tasks import fetch_beam_insert as fb

    env, task, b = beam_env(4, threads=2, seed=3)
    mj = task.mj
    d = mujoco.MjData(mj)
    _, reward, _, _, info = env.step(np.zeros((4, 3), np.float32))
    d.qpos[:] = b.q[0]
    d.mocap_pos[:] = b.mocap_pos[0]
    mujoco.mj_kinematics(mj, d)
    tip, top = d.site_xpos[mj.site("beam_tip").id], d.mocap_pos[0] + [0, 0, 0.04]
    terms = {k: v[0] for k, v in info["reward_terms"].items()}
    assert terms["reach"] == pytest.approx(-np.linalg.norm(tip - top), rel=1e-9)
    assert terms["insert"] == 0.0 and terms["success"] == 0.0 and terms["action"] == 0.0
    assert terms["bend"] < 1e-3
    weights = {"reach": 5, "insert": 5, "success": 5, "bend": -5, "action": -0.01}  # the docstring's
    assert reward[0] == pytest.approx(sum(w * terms[k] for k, w in weights.items()), rel=1e-12)
    for k in range(1, 90):
        _, reward, term, _, info = env.step(fb.scripted_actions(task, b, k).astype(np.float32))
        assert not term.any()
    assert np.all(info["is_success"]), (info["depth"], info["bend"])
    np.testing.assert_allclose(info["depth"], 0.033, atol=2e-3)
    assert np.all(info["bend"] < 0.05) and np.all(info["reward_terms"]["insert"] == 1.0)
    assert np.all(info["reward_terms"]["success"] == 1.0)
    env.close()


def test_depth_earns_nothing_while_the_beam_is_bent():
    """The docstring's insert term by hand: depth d counts (d / 3 cm, at most 1) only while
    the bend b < 0.05 rad; success needs d >= 3 cm and b < 0.05. Contexts built by hand."""
    from ncpgym.tasks import fetch_beam_insert as fb
    from ncpgym.wrappers import RewardComposition, StepContext

    depth = np.array([0.015, 0.015, 0.035, 0.035, 0.029])
    bend = np.array([0.01, 0.06, 0.049, 0.051, 0.0])
    success = (depth >= 0.03) & (bend < 0.05)
    ctx = StepContext(SimpleNamespace(num_worlds=5), np.zeros((5, 3)), 1 / 30, {"reach": np.zeros(5), "depth": depth, "bend": bend,
                                                        "success": success})
    _, terms = RewardComposition(fb.default_terms())(ctx)
    np.testing.assert_allclose(terms["insert"], [0.5, 0.0, 1.0, 0.0, 0.029 / 0.03], rtol=1e-12)
    np.testing.assert_array_equal(terms["success"], [0.0, 0.0, 1.0, 0.0, 0.0])


def test_the_beam_is_welded_to_the_gripper():
    """Through reaching and inserting, the handle keeps the gripper's pose (it is part of
    the gripper's body tree, no joint between them) while the arm moved the gripper."""
    from ncpgym.tasks import fetch_beam_insert as fb

    env, task, b = beam_env(1)
    g, h = task.mj.body("robot0:gripper_link").id, task.handle
    start = b.xpos[0, g].copy()
    for k in range(60):
        env.step(fb.scripted_actions(task, b, k).astype(np.float32))
    assert np.linalg.norm(b.xpos[0, g] - start) > 0.05
    np.testing.assert_allclose(b.xpos[0, h], b.xpos[0, g], atol=1e-12)
    np.testing.assert_allclose(b.xquat[0, h], b.xquat[0, g], atol=1e-12)
    env.close()


def test_fetch_beam_insert_is_a_gymnasium_env_and_deterministic():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    from ncpgym.tasks import fetch_beam_insert as fb

    env = gym.make("ncpgym/FetchBeamInsert-v0")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()
    runs = []
    for threads, n in ((1, 2), (2, 3)):
        e = fb.FetchBeamInsertVectorEnv(num_envs=n, num_threads=threads)
        e.reset(seed=[5, 6] + [7] * (n - 2))
        rng = np.random.default_rng(1)
        for _ in range(12):
            obs, *_ = e.step(rng.uniform(-1, 1, (3, 3))[:n].astype(np.float32))
        runs.append(obs[:2].copy())
        e.close()
    np.testing.assert_array_equal(runs[0], runs[1])


def test_fetch_beam_insert_refuses_unknown_arguments():
    import gymnasium as gym

    with pytest.raises(TypeError, match="unexpected"):
        gym.make_vec("ncpgym/FetchBeamInsert-v0", num_envs=1, mesh=3)
    with pytest.raises(ValueError, match="unknown reward terms"):
        gym.make_vec("ncpgym/FetchBeamInsert-v0", num_envs=1, reward_weights={"lift": 1.0})


def test_success_needs_the_depth_and_a_straight_beam():
    """A state built by hand and judged by the task: the fixture moved so that the tip is
    3.5 cm below the hole's top, inside its outline. Straight (bend 0): success, insert 1.
    Every link turned by 0.004 rad (bend 0.064 > 0.05): no success, insert 0, though d is the
    same 3.5 cm."""
    env, task, b = beam_env(1)
    ys = task.beam_q[0::2]
    for turn, ok in ((0.0, True), (0.004, False)):
        q = b.q.copy()
        q[0, ys] = turn
        b.reset(np.ones(1, np.uint8), q, np.zeros_like(b.u))
        tip = task.tip_pos(b)[0].copy()
        b.mocap_pos[0, 0] = [tip[0], tip[1], tip[2] + 0.035 - 0.04]  # the hole's top (fixture + 4 cm) 3.5 cm above
        b.forward()
        _, _, info = task.evaluate(b, None, np.zeros((1, 3)), 4 * 0.0083)
        assert info["depth"][0] == pytest.approx(0.035, abs=1e-9)
        assert info["bend"][0] == pytest.approx(16 * turn, abs=1e-9)
        assert info["is_success"][0] == ok
        assert info["reward_terms"]["success"][0] == float(ok) and info["reward_terms"]["insert"][0] == float(ok)
    env.close()


# -- FetchBeamInsert-v0's definition by hand (issue 14) -----------------------------------

def _mj_tip(task, q, mocap):
    """The tip site and the hole's top centre from MuJoCo's kinematics of the same joints."""
    d = mujoco.MjData(task.mj)
    d.qpos[:] = q
    d.mocap_pos[:] = mocap
    mujoco.mj_kinematics(task.mj, d)
    return d.site_xpos[task.mj.site("beam_tip").id].copy(), d.mocap_pos[0] + [0.0, 0.0, 0.04]


def test_observation_entries_and_spaces_computed_by_hand():
    """The docstring's observation: tip minus the hole's top centre (fixture + 4 cm), tip
    minus where a straight beam would put it (0 for the straight beam; for a bent one the
    tip MuJoCo computes bent less the tip it computes straight, same arm), grip goal minus
    grip site, depth; grip site, arm joints. Spaces: actions float32 in [-1, 1]^3,
    observations float64 (30), unbounded."""
    from ncpgym.envs import fetch

    env, task, b = beam_env(2)
    act, obs_space = env.single_action_space, env.single_observation_space
    assert act.dtype == np.float32 and act.shape == (3,) and np.all(act.low == -1) and np.all(act.high == 1)
    assert obs_space.dtype == np.float64 and obs_space.shape == (30,) and np.all(np.isinf(obs_space.low))
    q = b.q.copy()
    q[1, task.beam_q[0::2]] = 0.01  # world 1's beam bent
    b.reset(np.ones(2, np.uint8), q, np.zeros_like(b.u))
    task.goal[:] = [[1.3, 0.7, 0.7], [1.2, 0.8, 0.75]]
    obs = task.observe(b)
    straight, _ = _mj_tip(task, np.where(np.isin(np.arange(q.shape[1]), task.beam_q), 0.0, q[1]), b.mocap_pos[1])
    for w in range(2):
        tip, top = _mj_tip(task, q[w], b.mocap_pos[w])
        grip = b.site_xpos[w, task.idx.grip_site]
        np.testing.assert_allclose(obs[w, 0:3], grip, atol=1e-12)
        np.testing.assert_allclose(obs[w, 3:10], q[w, task.idx.arm_q], atol=0)
        np.testing.assert_allclose(obs[w, 17:20], tip - top, atol=1e-9)
        np.testing.assert_allclose(obs[w, 26:29], task.goal[w] - grip, atol=1e-12)
        assert obs[w, 29] == 0.0  # the tip 8 cm above the hole
    np.testing.assert_allclose(obs[0, 23:26], 0.0, atol=1e-9)
    bent, _ = _mj_tip(task, q[1], b.mocap_pos[1])
    assert np.linalg.norm(bent - straight) > 0.01
    np.testing.assert_allclose(obs[1, 23:26], bent - straight, atol=1e-9)
    assert fetch.grip_frame(b, task.idx)[0].shape == (2, 3)
    env.close()


def test_depth_is_counted_inside_the_holes_outline_only():
    """d = c_z - t_z when |t_x - c_x| and |t_y - c_y| < 7 mm, else 0, per world: the fixture
    moved under each world's tip by hand, 1 cm up from the tip's height less the hole's 4 cm,
    offset 5 mm along y (inside), 10 mm along y (outside), 6 mm along x and 6 mm along y
    (inside: each axis on its own)."""
    env, task, b = beam_env(3)
    tip = task.tip_pos(b).copy()
    for w, off in enumerate(((0.0, 0.005), (0.0, 0.010), (0.006, -0.006))):
        b.mocap_pos[w, 0] = [tip[w, 0] + off[0], tip[w, 1] + off[1], tip[w, 2] + 0.01 - 0.04]
    b.forward()
    c = b.mocap_pos[:, 0] + [0, 0, 0.04]
    t = task.tip_pos(b)
    np.testing.assert_array_equal(task.depth(b), [c[0, 2] - t[0, 2], 0.0, c[2, 2] - t[2, 2]])
    np.testing.assert_allclose(task.depth(b)[[0, 2]], 0.01, atol=1e-12)
    env.close()


def test_success_at_the_boundaries_and_extra_terms_see_the_control_period():
    """is_success is d >= 3 cm and b < 0.05 rad: true at d = 0.03 exactly, false at b = 0.05
    exactly (the task's depth and bend read as given here); the weights are the docstring's
    (reach 5, insert 5, success 5, bend -5, action -0.01 x mean a^2, per world); an extra
    reward term sees dt = 4 x 8.3 ms."""
    from ncpgym.tasks import fetch_beam_insert as fb
    from ncpgym.wrappers import RewardTerm

    seen = []
    env = fb.FetchBeamInsertVectorEnv(num_envs=3, num_threads=1, extra_reward_terms=[
        RewardTerm("dt", lambda c: seen.append(c.dt) or np.zeros(3), 1.0)])
    env.reset(seed=0)
    task, b = env.task, env.batch
    task.depth = lambda batch: np.array([0.03, 0.03, 0.045])
    task.bend = lambda batch: np.array([0.02, 0.05, 0.0])
    a = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, -0.5], [0.0, 0.0, 0.0]])
    reward, _, info = task.evaluate(b, None, a, 4 * 0.0083)
    assert seen == [pytest.approx(4 * 0.0083)]
    assert info["is_success"].tolist() == [True, False, True]
    tip, top = task.tip_pos(b), task.hole_top(b)
    reach = np.linalg.norm(tip - top, axis=1)
    insert = np.array([1.0, 0.0, 1.0])
    want = -5 * reach + 5 * insert + 5 * np.array([1.0, 0.0, 1.0]) - 5 * np.array([0.02, 0.05, 0.0]) \
        - 0.01 * np.array([1 / 3, 0.25, 0.0])
    np.testing.assert_allclose(reward, want, rtol=1e-12)
    # the terms' own edges, contexts built by hand: d < 0 clips to 0 and bend = 0.05 gives 0
    from ncpgym.wrappers import RewardComposition, StepContext

    ctx = StepContext(b, np.zeros((3, 3)), 0.03, {"reach": np.zeros(3), "depth": np.array([-0.01, 0.02, 0.02]),
                                                  "bend": np.array([0.0, 0.05, 0.0]), "success": np.zeros(3, bool)})
    _, terms = RewardComposition(fb.default_terms())(ctx)
    np.testing.assert_allclose(terms["insert"], [0.0, 0.0, 0.02 / 0.03], rtol=1e-12)
    assert terms["success"].dtype == np.float64
    env.close()


def test_actions_move_the_goal_within_the_workspace_and_the_arm_follows_it_fed_forward():
    """apply_action: goal += 5 mm x a, kept in x 1.05-1.55, y 0.40-1.10, z 0.624-0.85 (the
    docstring's box; z's floor is the hole's floor for the tip); the arm's targets are
    envs.fetch's resolved-rate step towards the goal with the gripper pointing down and the
    goal's move fed forward; the fingers rest on the handle (2 mm)."""
    from ncpgym.envs import fetch
    from ncpgym.envs.fetch import beam
    from ncpgym.tasks import fetch_beam_insert as fb

    env, task, b = beam_env(2)
    task.goal[:] = [[1.549, 0.401, 0.849], [1.051, 1.099, 0.626]]
    start = task.goal.copy()
    before = task.targets.copy()
    pos, R = task.grip(b)
    a = np.array([[1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]])
    targets = task.apply_action(b, a, 4 * 0.0083)
    np.testing.assert_allclose(task.goal, [[1.55, 0.40, 0.85], [1.05, 1.10, 0.624]], atol=1e-12)
    assert abs(fb.WORKSPACE[0][2] - 0.624) < 5e-4
    want = fetch.ik_targets(b.model, b.q, task.idx, before[:, task.idx.arm_act], task.goal,
                            fetch.yaw_frame(np.zeros(2)), pos, R, goal_step=task.goal - start)
    np.testing.assert_allclose(targets[:, task.idx.arm_act], want, atol=1e-12)
    np.testing.assert_allclose(targets[:, task.idx.finger_act], beam.HANDLE_GRIP)
    env.close()


def test_reset_spreads_the_fixture_by_up_to_3_cm_and_quat_angle_survives_rounding():
    """Reset: the fixture at (1.25, 0.75) plus uniform [-0.03, 0.03] m in x and y, drawn
    from each world's stream after the 7 arm joints' noise (a twin batch seeded alike
    draws the same numbers); quat_angle of a unit quaternion with itself (or with -q, the
    same rotation) is 0, also where the dot product rounds above 1."""
    import ncpgym
    from ncpgym.tasks import fetch_beam_insert as fb

    env, task, b = beam_env(8, seed=11)
    twin = ncpgym.Batch(b.model, 8)
    twin.seed(11)
    w = np.arange(8, dtype=np.int32)
    arm = twin.uniform(w, 7, -0.03, 0.03)
    shift = twin.uniform(w, 2, -0.03, 0.03)
    np.testing.assert_allclose(b.q[:, task.idx.arm_q], np.clip(task.home[task.idx.arm_q] + arm, task.idx.arm_lo,
                                                                task.idx.arm_hi), atol=1e-15)
    np.testing.assert_allclose(b.mocap_pos[:, 0, :2], np.array([1.25, 0.75]) + shift, atol=1e-15)
    assert shift.min() < -0.01 and shift.max() > 0.01
    rng = np.random.default_rng(0)
    q = rng.normal(size=(2000, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    assert np.abs(np.sum(q * q, axis=1)).max() > 1.0  # rounding puts some dots above 1
    angle = fb.quat_angle(q, q)
    assert np.all(np.isfinite(angle)) and angle.max() < 1e-7  # arccos's slope near 1: 1e-16 -> 1e-8
    np.testing.assert_allclose(fb.quat_angle(q[:3], -q[:3]), 0.0, atol=1e-7)  # q and -q: one rotation
    env.close()


def test_scripted_actions_follow_their_docstring():
    """scripted_actions by hand: the goal is sent towards grip site + target - tip by at most
    2.5 mm per step (a = move / 5 mm, within +-0.5); the target is 2 cm over the hole's
    centre until the tip is within 3 mm of the centre horizontally or already in the hole
    (d > 0), then 3.3 cm below the hole's top. World 0: tip 10 mm off (over); world 1: 2 mm
    off, 1 cm above the top (in); world 2: 5 mm off but 1 cm deep (in)."""
    from ncpgym.tasks import fetch_beam_insert as fb

    env, task, b = beam_env(3)
    t = task.tip_pos(b).copy()
    for w, (dx, dz) in enumerate(((0.010, 0.02), (0.002, 0.01), (0.005, -0.01))):
        b.mocap_pos[w, 0] = [t[w, 0] - dx, t[w, 1], t[w, 2] - dz - 0.04]  # the hole's top dz below the tip
    b.forward()
    c = b.mocap_pos[:, 0] + [0.0, 0.0, 0.04]
    pos = b.site_xpos[:, task.idx.grip_site]
    target = c + np.array([[0, 0, 0.02], [0, 0, -0.033], [0, 0, -0.033]])
    wanted = pos + target - t
    task.goal[:] = wanted - np.array([[0.001, -0.004, 0.01], [-0.01, 0.002, 0.0005], [0.0, 0.0, 0.0]])
    a = fb.scripted_actions(task, b, 0)
    move = np.clip(wanted - task.goal, -0.0025, 0.0025)
    np.testing.assert_allclose(a, move / 0.005, atol=1e-9)
    assert a[0].tolist() == pytest.approx([0.2, -0.5, 0.5]) and a[1].tolist() == pytest.approx([-0.5, 0.4, 0.1])
    env.close()
