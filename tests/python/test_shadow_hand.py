"""ncpgym/ShadowHandBlock-v0 (issue 62): Gymnasium-Robotics' Shadow hand and block on hard
contact. The block rests in the open palm, a scripted power grasp holds it palm down (gravity
turned over) where the open hand lets it fall, contacts stay within 1 mm; the task's
observation, reward, success and reset recomputed from its docstring."""

import warnings

import gymnasium as gym
import numpy as np
import pytest

import ncpgym
from ncpgym.tasks import shadow_hand_block as sh

warnings.filterwarnings("ignore", message=".*Adroit.*")


@pytest.fixture(scope="module")
def task():
    t = sh.ShadowHandBlockTask()
    t.model = t.build_model()
    return t


def _run(task, seconds, ctrl_at, gravity_at=lambda t: (0.0, 0.0, -9.81)):
    """One world from the task's resting state under its solver options: the block's positions
    and the deepest contact of every step."""
    b = ncpgym.Batch(task.model, 1, num_threads=1, **task.solver_options)
    b.reset(None, task.q_rest[None].copy(), np.zeros((1, task.model.nv)))
    o = task.object_q
    pos, depth = [], []
    for k in range(int(round(seconds / sh.H))):
        b.ctrl[:] = ctrl_at(k * sh.H)
        b.gravity[:] = gravity_at(k * sh.H)
        b.step()
        assert b.status[0] == 0
        pos.append(b.q[0, o:o + 3].copy())
        depth.append(float(b.contact_depth.max()))
    return np.array(pos), np.array(depth)


def test_the_block_rests_in_the_open_palm(task):
    """The fingers open from the settled pose (pushing the block as they straighten) for 2 s,
    then 2 s more with nothing moving: the block moves < 1 mm (measured 3 um) and sits on the
    palm (its centre 2.5 cm, half its side, above the palm's surface: within 1 mm of where
    the settled block rests)."""
    open_, _ = sh.grasp_controls(task)
    pos, depth = _run(task, 4.0, lambda t: open_)
    half = len(pos) // 2
    assert np.linalg.norm(pos[-1] - pos[half]) < 1e-3
    assert abs(pos[-1, 2] - task.rest_height) < 2e-3
    assert depth[half:].max() < 1e-3


def test_a_power_grasp_holds_the_block_palm_down(task):
    """Open 1 s, close 1.5 s, then gravity turned over (+z: the hand palm down) for 2 s: the
    grasped block settles into the fingers (within 2 cm of where it was at the turn) and holds
    (< 2 mm over the last second); the open hand under the same turn lets it fall away (> 10
    cm). The deepest contact stays within 1 mm throughout the grasp."""
    open_, closed = sh.grasp_controls(task)
    down = lambda t: (0.0, 0.0, -9.81) if t < 2.5 else (0.0, 0.0, 9.81)
    pos, depth = _run(task, 4.5, lambda t: open_ if t < 1.0 else closed, down)
    turn = int(round(2.5 / sh.H))
    last = int(round(1.0 / sh.H))
    assert np.linalg.norm(pos[-1] - pos[turn - 1]) < 0.02
    assert np.linalg.norm(pos[-1] - pos[-last]) < 2e-3
    assert depth[int(1.0 / sh.H):].max() <= 1e-3
    dropped, _ = _run(task, 4.5, lambda t: open_, down)
    assert dropped[-1, 2] - dropped[turn - 1, 2] > 0.10


def _angle_from_matrices(qa, qb):
    """Rotation angle between two orientations from their rotation matrices (not quaternions):
    arccos((trace(Ra Rb^T) - 1) / 2)."""
    import mujoco

    out = []
    for a, b in zip(qa, qb):
        Ra, Rb = np.zeros(9), np.zeros(9)
        mujoco.mju_quat2Mat(Ra, a / np.linalg.norm(a))
        mujoco.mju_quat2Mat(Rb, b / np.linalg.norm(b))
        c = (np.trace(Ra.reshape(3, 3) @ Rb.reshape(3, 3).T) - 1) / 2
        out.append(np.arccos(np.clip(c, -1, 1)))
    return np.array(out)


@pytest.mark.parametrize("target", ["z", "full"])
def test_observation_reward_and_success_follow_the_docstring(target):
    """Recomputed from the docstring: the goal is a rotation about z (target z) or about any
    axis; the observation's pieces are the batch's joints, block and goal, d is the angle
    between the block's and the goal's rotation matrices, the rotation still to make takes the
    block to the goal, and the reward is 1 - d / pi + 5 (d before - d) + 2 [d < 0.1] - 20 dropped -
    0.01 mean a^2. A world whose block is put at its goal about z succeeds."""
    envs = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=3, num_threads=1, target=target)
    obs, info = envs.reset(seed=5)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    o = task.object_q
    goal = obs[:, 64:68]
    assert np.all(goal[:, 0] >= 0)
    if target == "z":
        np.testing.assert_allclose(goal[:, 1:3], 0.0, atol=1e-15)
    d0 = _angle_from_matrices(batch.q[:, o + 3:o + 7], goal)
    np.testing.assert_allclose(info["rotation_error"], d0, atol=1e-7)
    rng = np.random.default_rng(0)
    for step in range(3):
        a = rng.uniform(-1, 1, (3, 20)).astype(np.float32)
        if step == 2:  # put world 1's block at its goal orientation: d = 0 after a still step
            batch.q[1, o + 3:o + 7] = goal[1]
            batch.u[1] = 0.0
            d0[1] = 0.0
            a[1] = 0.0
        obs, r, term, trunc, info = envs.step(a)
        q = batch.q
        np.testing.assert_array_equal(obs[:, :24], q[:, task.robot_q])
        np.testing.assert_array_equal(obs[:, 24:48], batch.u[:, task.robot_v])
        np.testing.assert_array_equal(obs[:, 54:57], q[:, o:o + 3])
        d = _angle_from_matrices(q[:, o + 3:o + 7], goal)
        np.testing.assert_array_equal(obs[:, 48:54], batch.u[:, task.object_v:task.object_v + 6])
        np.testing.assert_allclose(_angle_from_matrices(obs[:, 57:61], q[:, o + 3:o + 7]), 0, atol=1e-7)
        np.testing.assert_array_equal(obs[:, 61:64], q[:, o:o + 3])
        np.testing.assert_array_equal(obs[:, 64:68], goal)
        np.testing.assert_allclose(obs[:, 72], d, atol=1e-7)
        # the rotation still to make, applied after the block's, gives the goal
        np.testing.assert_allclose(_angle_from_matrices(sh.quat_mul(obs[:, 57:61], obs[:, 68:72]), goal), 0, atol=1e-6)
        tips = batch.site_xpos[:, task.tips] - q[:, None, o:o + 3]
        np.testing.assert_allclose(obs[:, 73:], tips.reshape(3, 15), atol=1e-15)
        dropped = q[:, o + 2] < task.rest_height - 0.05
        expected = (1 - d / np.pi + 5 * (d0 - d) + 2 * (d < 0.1) - 20 * dropped
                    - 0.01 * np.mean(a.astype(np.float64) ** 2, axis=1))
        np.testing.assert_allclose(r, expected, atol=1e-6)
        np.testing.assert_array_equal(info["is_success"], d < 0.1)
        d0 = d
    if target == "z":  # (a block turned about another axis tips over in the palm within the step)
        assert info["is_success"][1]


@pytest.mark.parametrize("control", ["absolute", "relative"])
def test_actions_map_to_servo_targets_and_the_ghost_shows_the_goal(control):
    """The docstring's action mapping, from MuJoCo's own model: absolute targets
    (lo + hi) / 2 + a (hi - lo) / 2, relative ones x + a (hi - lo) / 2 with x the actuator's
    joint (plus J0 for the four coupled J1s), both clipped to the actuator's ctrlrange. The
    ghost block sits 0.15 m beside the block (+x) at the goal's orientation, held still;
    no other velocity is touched."""
    import mujoco

    mj = mujoco.MjModel.from_xml_path(sh.model_path())
    envs = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=2, num_threads=1, control=control)
    envs.reset(seed=3)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    rng = np.random.default_rng(1)
    batch.q[:, :24] += rng.normal(0.0, 0.3, (2, 24))  # the hand's joints away from the settled pose
    ghost_v = mj.jnt_dofadr[mj.joint("target:joint").id]
    batch.u[:] = rng.normal(0.0, 1.0, batch.u.shape)
    u_before = batch.u.copy()
    a = rng.uniform(-1.0, 1.0, (2, 20))
    a[0, :4], a[1, :4] = 1.0, -1.0  # full scale, to reach the clip on either side
    targets = task.apply_action(batch, a, 0.04)
    lo, hi = mj.actuator_ctrlrange[:, 0], mj.actuator_ctrlrange[:, 1]
    if control == "absolute":
        expected = (lo + hi) / 2 + a * (hi - lo) / 2
    else:
        x = np.zeros((2, 20))
        for i in range(20):
            name = mj.joint(mj.actuator_trnid[i, 0]).name
            x[:, i] = batch.q[:, mj.jnt_qposadr[mj.actuator_trnid[i, 0]]]
            if name[-4:-2] in ("FF", "MF", "RF", "LF") and name.endswith("J1"):
                x[:, i] += batch.q[:, mj.jnt_qposadr[mj.joint(name[:-1] + "0").id]]
        expected = x + a * (hi - lo) / 2
        assert np.any(expected > hi) and np.any(expected < lo)  # the clip is exercised
    np.testing.assert_allclose(targets, np.clip(expected, lo, hi), rtol=1e-12, atol=1e-15)
    obj, ghost = (mj.jnt_qposadr[mj.joint(n).id] for n in ("object:joint", "target:joint"))
    np.testing.assert_array_equal(batch.q[:, ghost:ghost + 3], batch.q[:, obj:obj + 3] + [0.15, 0.0, 0.0])
    np.testing.assert_array_equal(batch.q[:, ghost + 3:ghost + 7], task.goal)
    np.testing.assert_array_equal(batch.u[:, ghost_v:ghost_v + 6], 0.0)
    keep = np.r_[0:ghost_v, ghost_v + 6:batch.u.shape[1]]
    np.testing.assert_array_equal(batch.u[:, keep], u_before[:, keep])
    envs.close()


def test_reward_terms_are_named_and_weighted_as_documented():
    """info["reward_terms"] holds each term's raw value under its docstring name, and the
    reward is their sum with the documented weights (success reweighted to 3 here, an extra
    term added): world 0's goal put where its block rests (success 1), world 1's dropped 0.3 m below its
    rest (dropped 1, -20, terminated)."""
    from ncpgym.wrappers import RewardTerm

    envs = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=2, num_threads=1, reward_weights={"success": 3.0},
                        extra_reward_terms=[RewardTerm("bonus", lambda c: np.ones(2), 0.5)])
    envs.reset(seed=2)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    o = task.object_q
    task.goal[0] = sh.canonical(batch.q[0, o + 3:o + 7])  # world 0's goal: where its block is
    batch.q[1, o + 2] = task.rest_height - 0.3
    batch.u[:] = 0.0
    d_before = sh.rotation_angle(batch.q[:, o + 3:o + 7], task.goal)
    a = np.full((2, 20), 0.5, np.float32)
    a[0] = 0.0  # (servos at mid-range: the pose the block settled in, so it stays at its goal)
    _, r, term, _, info = envs.step(a)
    terms, d = info["reward_terms"], info["rotation_error"]
    assert {k for k in terms if not k.startswith("_")} == {"rotation", "progress", "success", "dropped", "action",
                                                           "bonus"}  # ("_name": Gymnasium's vector masks)
    np.testing.assert_allclose(terms["rotation"], 1.0 - d / np.pi, rtol=1e-12)
    np.testing.assert_allclose(terms["progress"], d_before - d, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(terms["success"], [1.0, 0.0])
    np.testing.assert_array_equal(terms["dropped"], [0.0, 1.0])
    np.testing.assert_array_equal(info["dropped"], [False, True])
    np.testing.assert_allclose(terms["action"], [0.0, 0.25], rtol=1e-12)
    assert not term[0] and term[1]
    expected = (terms["rotation"] + 5 * terms["progress"] + 3 * terms["success"] - 20 * terms["dropped"]
                - 0.01 * terms["action"] + 0.5)
    np.testing.assert_allclose(r, expected, rtol=1e-12)
    envs.close()


def test_arguments_default_and_refuse_as_documented():
    t = sh.ShadowHandBlockTask()
    assert (t.target, t.control, t.near_goals) == ("z", "absolute", 0.0)
    assert sh.ShadowHandBlockTask(near_goals=1).near_goals == 1.0
    for bad in ({"target": "xyz"}, {"control": "torque"}, {"near_goals": True}, {"near_goals": -0.1},
                {"near_goals": "half"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            sh.ShadowHandBlockTask(**bad)


def test_quaternion_helpers_are_mujocos_on_any_leading_shape():
    """quat_mul, quat_conj, axis_angle_quat, canonical and rotation_angle on [2, 3, 4] arrays
    (the last axis is the quaternion, the docstring's convention) against MuJoCo's mju_mulQuat
    and mju_axisAngle2Quat one by one; canonical flips w < 0 only; a rotation's angle to itself
    is 0 (to rounding) and finite also where |w| rounds above 1."""
    import mujoco

    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    a /= np.linalg.norm(a, axis=-1, keepdims=True)
    b /= np.linalg.norm(b, axis=-1, keepdims=True)
    axis, angle = rng.normal(size=(2, 3, 3)) * 3.0, rng.uniform(-np.pi, np.pi, (2, 3))
    ab, aa, conj = sh.quat_mul(a, b), sh.axis_angle_quat(axis, angle), sh.quat_conj(a)
    for i in np.ndindex(2, 3):
        ref = np.zeros(4)
        mujoco.mju_mulQuat(ref, a[i], b[i])
        np.testing.assert_allclose(ab[i], ref, atol=1e-15)
        mujoco.mju_axisAngle2Quat(ref, axis[i] / np.linalg.norm(axis[i]), angle[i])
        np.testing.assert_allclose(aa[i], ref, atol=1e-15)
        mujoco.mju_negQuat(ref, a[i])
        np.testing.assert_allclose(conj[i], ref, atol=1e-15)
    c = sh.canonical(a)
    assert np.all(c[..., 0] >= 0)
    np.testing.assert_array_equal(c, np.where(a[..., :1] < 0, -a, a))
    assert np.any(a[..., 0] < 0) and np.any(a[..., 0] > 0)
    q = rng.normal(size=(4000, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w = np.abs(sh.quat_mul(q, sh.quat_conj(q))[:, 0])
    assert np.any(w > 1.0)  # rounding: the clip to [0, 1] is what keeps arccos finite
    self_angle = sh.rotation_angle(q, q)
    assert np.all(np.isfinite(self_angle)) and self_angle.max() < 1e-7
    np.testing.assert_allclose(sh.rotation_angle(a, b)[0, 0], 2 * np.arccos(abs(np.dot(a[0, 0], b[0, 0]))), rtol=1e-12)


@pytest.mark.parametrize("target", ["z", "full"])
def test_reset_places_the_block_and_the_ghost_as_documented(target):
    """The block starts within 3 cm (6 sigma of N(0, 5 mm)) of its rest in x and y, at its rest
    height (+1 cm for target="full"), the ghost 0.15 m beside it (+x) at the goal, everything
    at rest; the action space is float32 [-1, 1]^20."""
    envs = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=16, num_threads=1, target=target)
    _, info = envs.reset(seed=9)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    assert envs.single_action_space == gym.spaces.Box(-1.0, 1.0, (20,), np.float32)
    o, t = task.object_q, task.target_q
    off = batch.q[:, o:o + 2] - task.q_rest[o:o + 2]
    assert np.all(np.abs(off) < 0.03) and np.std(off) > 0.002
    np.testing.assert_allclose(batch.q[:, o + 2], task.q_rest[o + 2] + (0.01 if target == "full" else 0.0), atol=1e-12)
    np.testing.assert_array_equal(batch.q[:, t:t + 3], batch.q[:, o:o + 3] + [0.15, 0.0, 0.0])
    np.testing.assert_array_equal(batch.q[:, t + 3:t + 7], task.goal)
    np.testing.assert_array_equal(batch.u, 0.0)
    np.testing.assert_allclose(info["rotation_error"], sh.rotation_angle(batch.q[:, o + 3:o + 7], task.goal), rtol=1e-12)
    envs.close()


def _heading(q):
    """Heading (rad) of the x axis of each orientation's rotation matrix in the world's xy."""
    import mujoco

    out = []
    for a in q:
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, a / np.linalg.norm(a))
        out.append(np.arctan2(R[3], R[0]))
    return np.array(out)


def test_near_goals_training_aid_follows_the_docstring():
    """near_goals = 1: every goal is a rotation about z whose x axis heads within pi/4 of the
    block's start heading (matrices, not the task's quaternions); with target "full" every
    goal is within pi/4 of the block's start orientation. near_goals = 0.5 leaves the starts
    and the other worlds' goals bitwise those of the task without the aid, and changes about
    half of the goals; evaluations leave the aid out."""
    from ncpgym.tasks import evaluation_kwargs

    n = 16
    runs = {}
    for share in (0.0, 0.5, 1.0):
        envs = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=n, num_threads=1, near_goals=share)
        obs, info = envs.reset(seed=11)
        runs[share] = (envs.unwrapped.batch.q.copy(), obs[:, 64:68].copy(), info["rotation_error"])
        envs.close()
    q1, goal1, _ = runs[1.0]
    task = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=1, num_threads=1).unwrapped.task
    task_q = task.object_q
    block = q1[:, task_q + 3:task_q + 7]
    np.testing.assert_allclose(goal1[:, 1:3], 0.0, atol=1e-15)
    turn = (_heading(goal1) - _heading(block) + np.pi) % (2 * np.pi) - np.pi
    assert np.all(np.abs(turn) <= np.pi / 4 + 1e-9) and np.ptp(turn) > 0.5
    q0, goal0, _ = runs[0.0]
    qh, goalh, _ = runs[0.5]
    ghost = np.r_[task.target_q:task.target_q + 7]  # the goal's ghost block shows the goal
    np.testing.assert_array_equal(np.delete(qh, ghost, axis=1), np.delete(q0, ghost, axis=1))
    np.testing.assert_array_equal(np.delete(q1, ghost, axis=1), np.delete(q0, ghost, axis=1))
    same = np.all(goalh == goal0, axis=1)
    assert 3 <= np.count_nonzero(~same) <= 13
    np.testing.assert_array_equal(goalh[~same], goal1[~same])
    full = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=8, num_threads=1, target="full", near_goals=1.0)
    obs, _ = full.reset(seed=3)
    d = _angle_from_matrices(full.unwrapped.batch.q[:, task_q + 3:task_q + 7], obs[:, 64:68])
    assert np.all(d <= np.pi / 4 + 1e-9) and d.max() > 0.2
    assert evaluation_kwargs("ncpgym/ShadowHandBlock-v0", {"near_goals": 0.5, "target": "full"}) == {"target": "full"}
    with pytest.raises(ValueError, match="near_goals"):
        gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=1, near_goals=1.5)
