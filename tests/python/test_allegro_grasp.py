"""ncpgym/AllegroGrasp-v0 (issue 19 part 4): the pinch synergy against MuJoCo's forward
kinematics, the scripted pinch grasp over generated objects of both sets (lift, slip,
contact counts, the parked objects' welds), and the task's definition recomputed from its
docstring."""

import importlib.util

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import objects as ob
from ncpgym.envs import allegro
from ncpgym.tasks import allegro_grasp as ag
from concave_meshes import write_stl

if importlib.util.find_spec("coacd") is None:  # not imported here: it would break a later ray.init
    pytest.skip("the objects need coacd (pip install ncpgym[decompose])", allow_module_level=True)


def test_pinch_synergy_sweeps_the_fingertips_at_a_fixed_depth():
    """MuJoCo's kinematics of the palm-down hand at closures 0..1: each fingertip centre
    stays GRASP_DEPTH below the palm origin (within 3 mm) while it moves back from 0.100 m
    to 0.021 m ahead of it, monotonically; the thumb's tip moves forward from -0.045 m to
    0.002 m within 8 mm of that depth; beyond 1 only the distal joints close further."""
    origin = np.array([0.0, 0.0, 0.3])
    mj = allegro.hand_world(0.0083, palm="down", origin=origin)
    d = mujoco.MjData(mj)
    tips = [mj.geom(n).id for n in allegro.TIPS]
    fq = [mj.jnt_qposadr[mj.joint(n).id] for n in allegro.FINGER_JOINTS]
    xs, thumbs = [], []
    for s in np.linspace(0.0, 1.0, 21):
        d.qpos[:] = mj.qpos0
        d.qpos[fq] = allegro.grasp_synergy(s)
        mujoco.mj_kinematics(mj, d)
        p = d.geom_xpos[tips] - origin
        np.testing.assert_allclose(p[:3, 2], -allegro.GRASP_DEPTH, atol=3e-3)
        assert abs(p[3, 2] + allegro.GRASP_DEPTH) < 8e-3 and abs(p[3, 1]) < 0.012
        xs.append(p[1, 0])
        thumbs.append(p[3, 0])
    assert xs[0] == pytest.approx(0.100, abs=2e-3) and xs[-1] == pytest.approx(0.021, abs=2e-3)
    assert thumbs[0] == pytest.approx(-0.045, abs=3e-3) and thumbs[-1] == pytest.approx(0.002, abs=3e-3)
    assert np.all(np.diff(xs) < 0) and np.all(np.diff(thumbs) > 0)
    more = allegro.grasp_synergy(1.2) - allegro.grasp_synergy(1.0)
    np.testing.assert_allclose(more[[2, 3, 6, 7, 10, 11]], 0.2, atol=1e-12)
    np.testing.assert_allclose(more[[0, 1, 4, 5, 8, 9]], 0.0, atol=1e-12)
    np.testing.assert_array_equal(allegro.grasp_synergy(5.0), allegro.grasp_synergy(allegro.GRASP_MAX))


def scripted_episode(objects, n=24, seed=4):
    env = gym.make_vec("ncpgym/AllegroGrasp-v0", num_envs=n, num_threads=2, objects=objects).unwrapped
    env.reset(seed=seed)
    task, batch = env.task, env.batch
    picked = task.current.copy()
    park0 = batch.q[:, task.object_q[:, None] + np.arange(3)].copy()  # [N, K, 3]
    success = np.zeros(n, bool)
    lost = np.zeros(n, bool)
    rel = {}
    most = 0
    for step in range(180):
        obs, _, term, _, info = env.step(ag.scripted_actions(task, batch, step))
        lost |= term
        success |= info["is_success"]
        most = max(most, int(batch.ncontact.max()))
        if step in (100, 160):
            rel[step] = obs[:, 23:26].copy()  # object minus pinch point
    q = batch.q[:, task.object_q[:, None] + np.arange(3)]
    for i in np.flatnonzero(~lost):  # the other objects stay parked, up to the welds'
        # residual after the seed's 20 linear iterations (5-6 mm of sag measured; 0.3 mm with
        # 100: issue 20); a world whose episode ended was reset to a new draw
        others = [k for k in range(len(task.objects)) if k != picked[i]]
        np.testing.assert_allclose(q[i, others], park0[i, others], atol=1e-2)
    slip = np.linalg.norm(rel[160] - rel[100], axis=1)
    env.close()
    return [task.objects[k].name for k in picked], success & ~lost, slip, most


def test_scripted_pinch_lifts_generated_objects_and_holds_them_without_slip():
    """The scripted pinch (pinch point over the centre of mass, close, lift 12 cm) on both
    object sets, 24 worlds each, from two reset seeds (96 draws): the object is 10 cm up
    for 2 s in >= 90 % of the draws; >= 75 % of the draws lift it and hold it for 2 s
    moving < 5 mm relative to the palm, and at least 12 of the 16 objects are held so in
    at least 2/3 of their own draws (the median slip is < 2 mm); the other objects stay
    parked; the contact count per world stays bounded (the over-specified sets of CoACD
    parts). Measured (session 30): 99 % lifted, 85 % held, 14 objects. The statistic was
    "at least 10 objects held in every draw of one seed", which sat at 9-10 for changes
    that only moved the last bits (one draw of 5.03 mm decided it)."""
    names, ok, slips, counts = [], [], [], []
    for seed in (4, 5):
        for objects in ("train", "test"):
            n, s, slip, most = scripted_episode(objects, seed=seed)
            names += n
            ok += list(s)
            slips += list(slip)
            counts.append(most)
    ok, slips = np.array(ok), np.array(slips)
    assert ok.mean() >= 0.9
    held = ok & (slips < 5e-3)  # lifted, and moved < 5 mm in the hand over 2 s
    assert held.mean() >= 0.75
    rate = {name: np.mean([h for m, h in zip(names, held) if m == name]) for name in set(names)}
    assert len(rate) == 16 and sum(r >= 2 / 3 for r in rate.values()) >= 12, sorted(rate.items())
    assert np.median(slips[ok]) < 2e-3
    assert max(counts) < 200  # 27-47 measured


def test_grasp_task_definition_from_its_docstring():
    """Reset placement, actions, observation entries, reward terms, success and termination
    recomputed from the docstring (objects from their vertices, the pinch point from the
    palm body's position)."""
    env = gym.make_vec("ncpgym/AllegroGrasp-v0", num_envs=4, num_threads=1).unwrapped
    obs, _ = env.reset(seed=11)
    task, batch, mj = env.task, env.batch, env.task.mj
    assert len(set(task.current.tolist())) > 1  # worlds draw different objects
    palm = mj.jnt_bodyid[mj.joint("wrist_x").id]
    for i in range(4):
        k = task.current[i]
        a = task.object_q[k]
        pos, quat = batch.q[i, a:a + 3], batch.q[i, a + 3:a + 7]
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, quat)
        v = task.vertices[k] @ R.reshape(3, 3).T + pos
        assert v[:, 2].min() == pytest.approx(ag.TABLE_TOP + 5e-4, abs=1e-9)  # resting on the table
        assert abs(pos[0] - allegro.GRASP_X) <= 0.02 and abs(pos[1]) <= 0.02
        assert quat[1] == quat[2] == 0.0  # yawed only
        np.testing.assert_allclose(obs[i, 39:42], np.ptp(v, axis=0), atol=1e-12)
        active = batch.eq_active[i, task.park_eq]
        assert active.sum() == len(task.objects) - 1 and active[k] == 0
        pinch = batch.xpos[i, palm] + [allegro.GRASP_X, 0.0, -allegro.GRASP_DEPTH]
        np.testing.assert_allclose(obs[i, 23:26], pos - pinch, atol=1e-9)
    assert np.all(np.abs(obs[:, 0:2]) <= 0.01) and np.all(obs[:, 6] == 0.0)
    act = np.array([[1.0, -1.0, 1.0, 1.0], [-0.5, 0.5, -1.0, 0.3], [0, 0, 0, -1], [0.2, 0.2, 0.2, 0.2]], np.float32)
    target, s = np.c_[obs[:, 0:2], np.zeros(4)], np.zeros(4)
    for _ in range(12):
        obs, reward, term, trunc, info = env.step(act)
        target = np.clip(target + 0.01 * act[:, :3].astype(float), [-0.06, -0.06, -0.08], [0.06, 0.06, 0.14])
        s = np.clip(s + 0.1 * act[:, 3].astype(float), 0.0, 1.3)
    np.testing.assert_allclose(obs[:, 6], s, atol=1e-12)
    np.testing.assert_allclose(batch.ctrl[:, task.wrist_act], target, atol=1e-12)
    lo, hi = mj.jnt_range[[mj.joint(n).id for n in allegro.FINGER_JOINTS]].T
    np.testing.assert_allclose(batch.ctrl[:, task.finger_act], np.clip(allegro.grasp_synergy(s), lo, hi), atol=1e-12)
    assert np.abs(obs[0, 0:3] - target[0]).max() < 5e-3  # the wrist servos follow
    terms = info["reward_terms"]
    np.testing.assert_allclose(terms["reach"], 1 - np.tanh(10 * np.linalg.norm(obs[:, 23:26], axis=1)), atol=1e-12)
    np.testing.assert_allclose(terms["action"], np.mean(act.astype(float) ** 2, axis=1))
    tips = [mj.geom(n).id for n in allegro.TIPS]
    np.testing.assert_allclose(obs[:, 42:46], np.tanh(batch.geom_force[:, tips] / 10.0))
    # lift, hold, success, loss: the objects moved by hand
    rows = np.arange(4)
    zq = task.object_q[task.current] + 2
    rest = batch.q[rows, zq] - obs[:, 26]
    batch.q[rows, zq] = rest + np.array([0.05, 0.099, 0.101, 0.12])
    xq = task.object_q[task.current]
    batch.q[3, xq[3]] += 0.16  # 16 cm off its start: lost
    batch.forward()
    task.held[:] = 0
    reward, term, info = task.evaluate(batch, None, act, env.dt)
    t = info["reward_terms"]
    np.testing.assert_allclose(t["lift"], [0.5, 0.99, 1.0, 1.0], atol=1e-9)
    assert t["hold"].tolist() == [0.0, 0.0, 1.0, 1.0] and term.tolist() == [False, False, False, True]
    assert t["failed"].tolist() == [0.0, 0.0, 0.0, 1.0]
    np.testing.assert_allclose(reward, 0.5 * t["reach"] + 0.5 * t["touch"] + 2 * t["lift"] + 2 * t["hold"]
                               - 0.01 * t["action"] - 10 * t["failed"], atol=1e-12)
    for k in range(60):
        _, _, info = task.evaluate(batch, None, act, env.dt)
        assert info["is_success"].tolist() == [False, False, k >= 58, k >= 58]
    batch.q[0, zq[0]] = ag.TABLE_TOP - 0.01  # under the table top: lost
    batch.forward()
    assert task.evaluate(batch, None, act, env.dt)[1][0]


def test_grasp_env_rejects_bad_object_sets(tmp_path):
    for bad in ("hard", [], ["blob"], [ob.generate("blob", 0), ob.generate("blob", 0)]):
        with pytest.raises(ValueError, match="objects"):
            gym.make("ncpgym/AllegroGrasp-v0", objects=bad)
    with pytest.raises(TypeError, match="unexpected"):
        gym.make("ncpgym/AllegroGrasp-v0", object_set="train")
    # a user's mesh through the same path: one object, every world grasps it
    cube = ob.MeshObject("cube", [ob.voxel_surface(np.ones((1, 1, 1), bool), 0.05)], 400.0)
    cube = ob.load_mesh_object(write_stl(tmp_path / "cube.stl", *cube.parts[0]))
    env = gym.make_vec("ncpgym/AllegroGrasp-v0", num_envs=2, objects=[cube]).unwrapped
    env.reset(seed=0)
    assert env.task.current.tolist() == [0, 0] and env.task.size[0, 2] == pytest.approx(0.05, abs=1e-6)


def test_grasp_reset_draws_observation_entries_and_scripted_pinch_by_hand():
    """Reset from each world's stream (a twin batch seeded alike): the object k =
    floor(8 u) of the set, its yaw U(-pi, pi) (quaternion cos(yaw/2), 0, 0, sin(yaw/2)), its
    centre U(-2, 2) cm about (GRASP_X, 0), the wrist U(-1, 1) cm in x and y, fingers open.
    Observation entries 3-6, 7-23, 26-39 for a state set by hand (a general rotation, every
    velocity non-zero); touch = share of fingertips touching. scripted_actions and
    pinch_height by their docstrings."""
    env = gym.make_vec("ncpgym/AllegroGrasp-v0", num_envs=4, num_threads=1).unwrapped
    env.reset(seed=13)
    task, b, mj = env.task, env.batch, env.task.mj
    twin = ncpgym.Batch(b.model, 4)
    twin.seed(13)
    w = np.arange(4, dtype=np.int32)
    pick = np.floor(twin.uniform(w, 1, 0.0, 1.0)[:, 0] * 8).astype(int)
    yaw = twin.uniform(w, 1, -np.pi, np.pi)[:, 0]
    xy = twin.uniform(w, 2, -0.02, 0.02) + [allegro.GRASP_X, 0.0]
    wrist = twin.uniform(w, 2, -0.01, 0.01)
    assert task.current.tolist() == pick.tolist() and len(set(pick)) > 1
    rows = np.arange(4)
    a0 = task.object_q[pick]
    np.testing.assert_allclose(b.q[rows[:, None], a0[:, None] + np.arange(2)], xy, atol=1e-15)
    quat = np.column_stack([np.cos(yaw / 2), 0 * yaw, 0 * yaw, np.sin(yaw / 2)])
    np.testing.assert_allclose(b.q[rows[:, None], a0[:, None] + np.arange(3, 7)], quat, atol=1e-15)
    wq = [mj.jnt_qposadr[mj.joint(n).id] for n in ("wrist_x", "wrist_y", "wrist_z")]
    np.testing.assert_allclose(b.q[:, wq], np.c_[wrist, np.zeros(4)], atol=1e-15)
    np.testing.assert_allclose(task.wrist_target, np.c_[wrist, np.zeros(4)], atol=1e-15)
    lo, hi = mj.jnt_range[[mj.joint(n).id for n in allegro.FINGER_JOINTS]].T
    fq = [mj.jnt_qposadr[mj.joint(n).id] for n in allegro.FINGER_JOINTS]
    np.testing.assert_allclose(b.q[:, fq], np.tile(np.clip(allegro.grasp_synergy(0.0), lo, hi), (4, 1)))
    assert np.all(b.u == 0.0) and np.all(task.closure == 0.0) and task.held.tolist() == [0] * 4
    # observation on a state set by hand
    rng = np.random.default_rng(3)
    q4 = rng.normal(size=(4, 4))
    q4 /= np.linalg.norm(q4, axis=1, keepdims=True)
    b.q[rows[:, None], a0[:, None] + np.arange(3, 7)] = q4
    b.q[rows, a0 + 2] += [0.0, 0.01, 0.02, 0.03]
    b.u[:] = rng.normal(size=b.u.shape)
    obs = task.observe(b)
    wv = [mj.jnt_dofadr[mj.joint(n).id] for n in ("wrist_x", "wrist_y", "wrist_z")]
    np.testing.assert_allclose(obs[:, 3:6], b.u[:, wv])
    np.testing.assert_allclose(obs[:, 7:23], b.q[:, fq])
    np.testing.assert_allclose(obs[:, 26], [0.0, 0.01, 0.02, 0.03], atol=1e-12)
    v0 = task.object_v[pick]
    np.testing.assert_allclose(obs[:, 27:33], b.u[rows[:, None], v0[:, None] + np.arange(6)])
    for i in range(4):
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, q4[i])
        np.testing.assert_allclose(obs[i, 33:39], R.reshape(3, 3)[:, :2].T.ravel(), atol=1e-12)
    contact = np.array(b.geom_dynamic_contact)
    contact[:] = 0
    tips = [mj.geom(n).id for n in allegro.TIPS]
    contact[np.ix_([1, 2, 3], tips)] = [[1, 0, 0, 0], [1, 1, 0, 1], [1, 1, 1, 1]]
    b.geom_dynamic_contact[:] = contact
    reward, _, info = task.evaluate(b, None, np.zeros((4, 4)), env.dt)
    t = info["reward_terms"]
    np.testing.assert_allclose(t["touch"], [0.0, 0.25, 0.75, 1.0])
    np.testing.assert_allclose(reward, 0.5 * t["reach"] + 0.5 * t["touch"] + 2 * t["lift"] + 2 * t["hold"]
                               - 0.01 * t["action"] - 10 * t["failed"], atol=1e-12)
    # the scripted pinch: over the object's centre and down by step 19, close from 30, lift from 54
    assert [ag.pinch_height(h) for h in (0.01, 0.05, 0.2)] == pytest.approx([0.013, 0.02, 0.04])
    obj = task.object_pos(b)
    task.wrist_target[:] = [[0.01, 0.0, 0.0], [-0.02, 0.005, -0.03], [0.0, 0.0, -0.06], [0.003, -0.004, -0.05]]
    start = task.wrist_target.copy()
    down = np.clip(task.size[:, 2] / 2 - 0.005, 0.013, 0.04) - 0.08
    over = obj[:, :2] - [allegro.GRASP_X, 0.0]
    for step, z, xy_goal, close in ((0, down / 20, over, -1.0), (9, down / 2, over, -1.0), (29, down, over, -1.0),
                                    (30, start[:, 2], start[:, :2], 1.0), (53, start[:, 2], start[:, :2], 1.0),
                                    (54, down + 0.005, start[:, :2], 1.0), (100, down + 0.12, start[:, :2], 1.0)):
        goal = np.c_[xy_goal, z]
        want = np.c_[np.clip((goal - start) / 0.01, -1, 1), np.full(4, close)]
        np.testing.assert_allclose(ag.scripted_actions(task, b, step), want, atol=1e-12, err_msg=str(step))
    # the lift's height, seen within one step's reach: 5 mm at step 54, 12 cm from step 77 on
    for step, z in ((54, down + 0.005), (60, down + 0.035), (100, down + 0.12)):
        task.wrist_target[:] = np.c_[start[:, :2], z - 0.003]
        want = np.tile([0.0, 0.0, 0.3, 1.0], (4, 1))
        np.testing.assert_allclose(ag.scripted_actions(task, b, step), want, atol=1e-9, err_msg=str(step))
    env.close()


def test_grasp_world_object_sets_table_parking_spaces_and_reward_options():
    """The docstring's world: objects="train"/"test" are object_set(8, seed 0/1) of
    GRASP_KINDS (refusals by text); the table a 0.6 m square box with its top at z = 0.04;
    mu = 0.8 on the table and on every object geom; every object welded (a weld per object)
    and parked 1 m up, clear of the table and of each other. Spaces: 46 float64
    observations, 4 float32 actions in [-1, 1]. reward_weights reweight the named terms,
    extra terms see dt = 4 x 8.3 ms; the closure stops at GRASP_MAX (1.3); the hold count
    restarts when the object drops below 10 cm; info carries lift_height and object."""
    from ncpgym.wrappers import RewardTerm

    ag._named_world.cache_clear()  # built here, not taken from an earlier test's cache
    for name, seed in (("train", 0), ("test", 1)):
        want = ob.object_set(8, seed, kinds=ag.GRASP_KINDS)
        got = ag.object_list(name)
        assert [o.name for o in got] == [o.name for o in want]
        assert all(np.array_equal(a.parts[0][0], b.parts[0][0]) for a, b in zip(got, want))
    for bad, message in (("hard", "objects: unknown object set 'hard'; sets: train, test (or a list of "
                                  "ncpgym.objects.MeshObject)"),
                         ([], "objects: expected 'train', 'test' or a non-empty list of ncpgym.objects.MeshObject"),
                         ([ob.generate("blob", 0)] * 2, "objects: every MeshObject needs its own name")):
        with pytest.raises(ValueError) as e:
            ag.object_list(bad)
        assert str(e.value) == message
    seen = []
    env = gym.make_vec("ncpgym/AllegroGrasp-v0", num_envs=2, num_threads=1,
                       reward_weights={"reach": 3.0, "failed": -1.0},
                       extra_reward_terms=[RewardTerm("dt", lambda c: seen.append(c.dt) or np.zeros(2), 1.0)]).unwrapped
    env.reset(seed=2)
    task, b, mj = env.task, env.batch, env.task.mj
    assert env.single_observation_space == gym.spaces.Box(-np.inf, np.inf, (46,), np.float64)
    assert env.single_action_space == gym.spaces.Box(-1.0, 1.0, (4,), np.float32)
    table = mj.geom("table")
    assert table.type[0] == mujoco.mjtGeom.mjGEOM_BOX and table.bodyid[0] == 0
    np.testing.assert_allclose(table.size, [0.3, 0.3, 0.02])
    np.testing.assert_allclose(table.pos, [0.0, 0.0, 0.02])
    objects = [g for g in range(mj.ngeom) if mj.body(mj.geom_bodyid[g]).name.startswith("object_")]
    assert len(objects) >= 8 and np.all(mj.geom_friction[[table.id, *objects], 0] == 0.8)
    assert [mj.eq_type[e] for e in task.park_eq] == [mujoco.mjtEq.mjEQ_WELD] * 8
    assert sorted(mj.body(mj.eq_obj1id[e]).name for e in task.park_eq) == [f"object_{k}" for k in range(8)]
    parked = np.array([mj.body(f"object_{k}").pos for k in range(8)])
    assert np.all(parked[:, 2] == 1.0) and np.all(np.abs(parked[:, 0]) > 0.3 + 0.08)  # beyond the table's edge
    gaps = np.linalg.norm(parked[:, None] - parked[None], axis=2) + np.eye(8)
    assert gaps.min() > 0.1 + 1e-12  # clear of each other (objects are ~8 cm across)
    # reward options and info
    a = np.zeros((2, 4), np.float32)
    _, reward, _, _, info = env.step(a)
    t = info["reward_terms"]
    np.testing.assert_allclose(reward, 3.0 * t["reach"] + 0.5 * t["touch"] + 2 * t["lift"] + 2 * t["hold"]
                               - 0.01 * t["action"] - 1.0 * t["failed"], atol=1e-12)
    assert np.all(t["reach"] > 0.01)
    assert seen[-1] == pytest.approx(4 * 0.0083)
    np.testing.assert_array_equal(info["object"], task.current)
    rows = np.arange(2)
    zq = task.object_q[task.current] + 2
    rest = b.q[rows, zq] - info["lift_height"]
    task.closure[:] = 1.25
    ctrl = task.apply_action(b, np.array([[0, 0, 0, 1.0], [0, 0, 0, -1.0]]), env.dt)
    np.testing.assert_allclose(task.closure, [1.3, 1.15])
    lo, hi = mj.jnt_range[[mj.joint(n).id for n in allegro.FINGER_JOINTS]].T
    fingers = allegro.grasp_synergy(np.array([1.3, 1.15]))
    assert fingers[0, 15] < lo[15] and fingers[0, 12] > hi[12]  # the synergy at 1.3 leaves both ends of a range
    np.testing.assert_allclose(ctrl[:, task.finger_act], np.clip(fingers, lo, hi))
    task.held[:] = 0
    for k in range(71):  # lifted 11 cm, except 9 cm at step 10: the count restarts, 60 steps on at 70
        b.q[rows, zq] = rest + (0.09 if k == 10 else 0.11)
        b.forward()
        _, _, info = task.evaluate(b, None, a, env.dt)
        np.testing.assert_allclose(info["lift_height"], 0.09 if k == 10 else 0.11, atol=1e-12)
        assert info["is_success"].tolist() == [k == 70] * 2, k
    # 5 mm below its rest height: no lift (not negative); 16 cm off its start along -x: lost
    xq = task.object_q[task.current]
    b.q[rows, zq] = rest - 0.005
    b.q[1, xq[1]] -= 0.16
    b.forward()
    _, term, info = task.evaluate(b, None, a, env.dt)
    assert info["reward_terms"]["lift"].tolist() == [0.0, 0.0] and term.tolist() == [False, True]
    env.close()
