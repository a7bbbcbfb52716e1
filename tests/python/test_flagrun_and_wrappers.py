"""HumanoidFlagrun-v0's definition, composable reward terms, and the IWIM task-space
observation against the dense inverse of MuJoCo's mass matrix."""

import gymnasium as gym
import mujoco
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ncpgym
from ncpgym.tasks.flagrun import flagrun_xml
from ncpgym.wrappers import RewardTerm, RewardTerms, TaskSpaceObservation

ID = "ncpgym/HumanoidFlagrun-v0"


def test_flagrun_model_matches_the_published_humanoid():
    m = mujoco.MjModel.from_xml_path(flagrun_xml())
    assert m.njnt == 18 and m.nu == 17 and m.nbody == 14  # world + 13 bodies
    size = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g): m.geom_size[g][0] for g in range(m.ngeom)}
    assert size["torso"] == 0.07 and size["butt"] == 0.09 and size["right_thigh"] == 0.06
    assert size["right_shin"] == 0.049 and size["head"] == 0.09 and size["left_foot"] == 0.075
    assert size["right_upper_arm"] == 0.04 and size["left_lower_arm"] == 0.031 and size["right_hand"] == 0.04
    gear = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, a): m.actuator_gear[a, 0] for a in range(m.nu)}
    assert gear["right_hip_y"] == pytest.approx(0.41 * 300) and gear["left_knee"] == pytest.approx(0.41 * 200)
    assert gear["abdomen_x"] == pytest.approx(41) and gear["right_elbow"] == pytest.approx(0.41 * 75)


def test_flagrun_env_contract():
    """The Gymnasium contract; every observation entry, reward term, termination and the
    flag rules are pinned by hand-computed values in test_task_definitions.py."""
    check_env(gym.make(ID).unwrapped, skip_render_check=True)
    envs = gym.make_vec(ID, num_envs=8)
    assert envs.dt == pytest.approx(0.0165)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (8, 44) and obs.dtype == np.float32
    for _ in range(5):
        obs, r, term, trunc, info = envs.step(np.zeros((8, 17)))
    assert set(info["reward_terms"]) >= {"alive", "progress", "electricity", "stall_torque", "joints_at_limit",
                                         "feet_collision"}
    np.testing.assert_array_equal(info["reward_terms"]["alive"], 2.0)  # standing after 5 steps


def test_reward_terms_wrapper_gives_nothing_on_the_next_step_reset():
    """Next-step autoreset: the step that only resets a world gives reward 0 and zero terms,
    added ones included (they are evaluated on the freshly reset batch)."""
    w = RewardTerms(gym.make_vec(ID, num_envs=2, max_episode_steps=2), weights={"alive": 0.5},
                    add=[RewardTerm("height", lambda c: c.batch.q[:, 2], 0.1)])
    w.reset(seed=0)
    rs, ts = [], []
    for _ in range(3):
        _, r, _, trunc, info = w.step(np.zeros((2, 17)))
        rs.append(r)
        ts.append(info["reward_terms"])
    assert trunc.sum() == 0 and ts[0]["height"].min() > 1.0
    t = ts[0]
    expect = 0.5 * t["alive"] + t["progress"] - 8.5 * t["electricity"] - 0.425 * t["stall_torque"] \
        - 0.1 * t["joints_at_limit"] - t["feet_collision"] + 0.1 * t["height"]
    np.testing.assert_allclose(rs[0], expect, rtol=1e-12)
    np.testing.assert_array_equal(rs[2], 0.0)  # step 3 resets both worlds
    for k, v in ts[2].items():
        if not k.startswith("_"):
            np.testing.assert_array_equal(v, 0.0, err_msg=k)


def test_reward_terms_can_be_reweighted_dropped_and_added():
    a = gym.make_vec(ID, num_envs=4)
    b = gym.make_vec(ID, num_envs=4, reward_weights={"electricity": 0.0, "alive": 0.5},
                     extra_reward_terms=[RewardTerm("height", lambda c: c.batch.q[:, 2], 0.1)])
    w = RewardTerms(gym.make_vec(ID, num_envs=4), weights={"electricity": 0.0, "alive": 0.5},
                    add=[RewardTerm("height", lambda c: c.batch.q[:, 2], 0.1)])
    acts = np.random.default_rng(0).uniform(-1, 1, (3, 4, 17))
    for e in (a, b, w):
        e.reset(seed=5)
    for t in range(3):
        _, ra, *_, ia = a.step(acts[t])
        _, rb, *_, ib = b.step(acts[t])
        _, rw, *_, iw = w.step(acts[t])
        ta = ia["reward_terms"]
        expect = ra + 8.5 * ta["electricity"] - 0.5 * ta["alive"] + 0.1 * ib["reward_terms"]["height"]
        np.testing.assert_allclose(rb, expect, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(rw, rb, rtol=1e-10, atol=1e-10)
        assert "height" in iw["reward_terms"] and iw["reward_terms"]["_height"].all()
    with pytest.raises(ValueError, match="unknown reward terms"):
        gym.make_vec(ID, num_envs=2, reward_weights={"nope": 1.0})


def test_reward_terms_added_terms_see_the_clipped_action_and_the_control_period():
    """An added term sees the action clipped to the action space and the env's dt, may return
    a scalar (one value for every world), and adds weight x value to the task's own reward;
    terms the task does not have are refused by name."""
    seen = {}

    def probe(c):
        seen["action"], seen["dt"] = c.action.copy(), c.dt
        return 2  # an int scalar: the term is float64, one value per world

    base = gym.make_vec(ID, num_envs=3)
    w = RewardTerms(gym.make_vec(ID, num_envs=3), add=[RewardTerm("probe", probe, 0.25)])
    lo, hi = base.single_action_space.low, base.single_action_space.high
    a = np.tile(np.linspace(-3.0, 3.0, 17), (3, 1))
    a[1] *= -1
    for e in (base, w):
        e.reset(seed=4)
    _, r0, *_, info0 = base.step(a)
    _, r, *_, info = w.step(a.astype(np.float32))
    np.testing.assert_array_equal(seen["action"], np.clip(a.astype(np.float32), lo, hi))
    assert seen["action"].dtype == np.float64
    assert seen["dt"] == pytest.approx(base.unwrapped.dt)
    probe_v = info["reward_terms"]["probe"]
    assert probe_v.dtype == np.float64 and probe_v.shape == (3,) and np.all(probe_v == 2.0)
    names = set(info0["reward_terms"]) | {"probe", "_probe"}
    assert set(info["reward_terms"]) == names  # each term once, with its one mask
    assert set(info) == set(info0)  # the env's other info entries pass through
    np.testing.assert_allclose(r, r0 + 0.5, rtol=1e-12)
    with pytest.raises(ValueError, match="unknown reward terms \\['nope'\\]"):
        RewardTerms(gym.make_vec(ID, num_envs=1), weights={"nope": 1.0})


def test_task_space_observation_matches_the_dense_inverse():
    """J M^-1 B and J M^-1 J^T from the IIM against MuJoCo's mass matrix and site Jacobians
    on Fetch (gymnasium-robotics' model, with sites) at random states."""
    pytest.importorskip("gymnasium_robotics")
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("gymnasium_robotics")
    path = Path(spec.submodule_search_locations[0]) / "envs" / "assets" / "fetch" / "reach.xml"
    model = ncpgym.load_model(path, strict=False)
    mj = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(mj)
    sites = [model.site_id("robot0:grip")]
    rng = np.random.default_rng(0)
    q = np.tile(model.qpos0, (3, 1))
    q[:, 7:] += rng.uniform(-0.3, 0.3, (3, model.nq - 7)) if model.nq > 7 else 0
    jmb, lam = ncpgym.dynamics.task_space(model, q, sites)
    mjs = mj.site("robot0:grip").id
    for i in range(3):
        d.qpos[:] = q[i]
        mujoco.mj_forward(mj, d)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, d, M)
        jp, jr = np.zeros((3, mj.nv)), np.zeros((3, mj.nv))
        mujoco.mj_jacSite(mj, d, jp, jr, mjs)
        J = np.vstack([jp, jr])
        Minv = np.linalg.inv(M)
        np.testing.assert_allclose(lam[i], J @ Minv @ J.T, rtol=1e-7, atol=1e-9)
        B = np.zeros((mj.nv, model.nu))
        for a in range(model.nu):
            B[model.jnt_dofadr[model.actuator_joint[a]], a] = model.actuator_gear[a]
        np.testing.assert_allclose(jmb[i], J @ Minv @ B, rtol=1e-7, atol=1e-9)


def test_task_space_observation_wrapper_extends_the_observation():
    envs = gym.make_vec(ID, num_envs=3)
    model = envs.unwrapped.batch.model
    w = TaskSpaceObservation(envs, sites=["right_hand", "left_foot"])
    obs, _ = w.reset(seed=0)
    n = 44 + 12 * 17 + 144
    assert obs.shape == (3, n) and w.observation_space.shape == obs.shape
    jmb, lam = ncpgym.dynamics.task_space(model, envs.unwrapped.batch.q, ["right_hand", "left_foot"])
    np.testing.assert_allclose(obs[:, 44:44 + 12 * 17], jmb.reshape(3, -1))
    np.testing.assert_allclose(obs[:, 44 + 12 * 17:], lam.reshape(3, -1))
    np.testing.assert_allclose(lam, np.swapaxes(lam, 1, 2), atol=1e-12)  # symmetric
    assert np.all(np.linalg.eigvalsh(lam)[:, 0] > -1e-12)  # positive semidefinite
    obs, *_ = w.step(np.zeros((3, 17)))
    assert obs.shape == (3, n)
    with pytest.raises(ValueError, match="quantities"):
        TaskSpaceObservation(envs, sites=["right_hand"], quantities=("nope",))


def test_task_space_observation_quantities_and_sites_one_by_one():
    """Each quantity alone appends only its own block, in the order asked for; sites may be
    given by id; the spaces say the same sizes; no site and no quantity are refused."""
    for quantities, width in ((("jminvb",), 6 * 17), (("lambda_inv",), 36)):
        envs = gym.make_vec(ID, num_envs=2)  # (a wrapper closes its env when it goes)
        model = envs.unwrapped.batch.model
        hand = model.site_id("right_hand")
        w = TaskSpaceObservation(envs, sites=[hand], quantities=quantities)
        obs, _ = w.reset(seed=1)
        jmb, lam = ncpgym.dynamics.task_space(model, envs.unwrapped.batch.q, [hand])
        assert obs.shape == (2, 44 + width)
        assert w.single_observation_space.shape == (44 + width,) and w.observation_space.shape == (2, 44 + width)
        assert w.single_observation_space.dtype == np.float64
        assert np.all(w.single_observation_space.low == -np.inf)
        np.testing.assert_allclose(obs[:, 44:], (jmb if quantities == ("jminvb",) else lam).reshape(2, -1))
    envs = gym.make_vec(ID, num_envs=2)
    with pytest.raises(ValueError, match="at least one site"):
        TaskSpaceObservation(envs, sites=[])
    with pytest.raises(ValueError, match="quantities must be a non-empty subset"):
        TaskSpaceObservation(envs, sites=[hand], quantities=())
    envs.close()


HARDER = "ncpgym/HumanoidFlagrunHarder-v0"


def test_harder_env_contract_and_start_tasks():
    check_env(gym.make(HARDER).unwrapped, skip_render_check=True)
    envs = gym.make_vec(HARDER, num_envs=48)
    envs.reset(seed=0)
    task, b = envs.unwrapped._c.task, envs.unwrapped.batch
    starts = task.start.copy()
    assert set(np.unique(starts)) == {0, 1, 2}  # walk, stand up, roll over all drawn
    z = b.q[:, 2]
    assert np.all(z[starts > 0] < 0.5) and np.all(z[starts == 0] > 1.0)
    # lying on the back faces up, face down faces down: the torso's forward axis (x)
    w, x, y, zq = b.xquat[:, 1].T
    forward_z = 2 * (x * zq - w * y)  # z component of the rotated x axis
    assert np.all(forward_z[starts == 1] > 0.9) and np.all(forward_z[starts == 2] < -0.9)
    _, r, term, trunc, info = envs.step(np.zeros((48, 17)))
    alive = info["reward_terms"]["alive"]
    np.testing.assert_allclose(alive, 0.5 + 1.5 * np.clip(b.q[:, 2], 0, 1.2) / 1.2)  # stand_height's default
    lying = b.q[:, 2] < 0.8
    np.testing.assert_array_equal(info["reward_terms"]["progress"][lying], 0.0)  # no crawling


def test_harder_stand_height_makes_the_alive_term_pay_for_height_up_to_it():
    # 0.5 + 1.5 clip(z, 0, h) / h by hand: standing (z ~ 1.4) earns 2 under both heights,
    # lying (z ~ 0.3) earns less the higher h is, a squat at 0.9 m earns 2 only under h = 0.7
    alive = {}
    for h in (0.7, 1.2):
        envs = gym.make_vec(HARDER, num_envs=16, stand_height=h)
        envs.reset(seed=1)
        b = envs.unwrapped.batch
        _, _, _, _, info = envs.step(np.zeros((16, 17)))
        z = b.q[:, 2].copy()
        alive[h] = info["reward_terms"]["alive"]
        np.testing.assert_allclose(alive[h], 0.5 + 1.5 * np.minimum(z, h) / h, rtol=1e-12)
        envs.close()
    standing = z > 1.2
    assert standing.any() and (~standing).any()
    np.testing.assert_array_equal(alive[1.2][standing], 2.0)
    assert np.all(alive[1.2][~standing] < alive[0.7][~standing])
    for bad in (0.0, -1.0, 1.5, True, "1.2"):
        with pytest.raises(ValueError, match="stand_height"):
            gym.make_vec(HARDER, num_envs=1, stand_height=bad)


def test_harder_throw_when_refuses_unknown_rules_naming_both():
    for bad in ("Up", "roboschool", 0, None):
        with pytest.raises(ValueError, match=r"throw_when: expected one of \('up', 'counter_zero'\)"):
            gym.make_vec(HARDER, num_envs=1, throw_when=bad)


def test_harder_throws_the_cube_at_the_robot_and_ends_long_falls():
    envs = gym.make_vec(HARDER, num_envs=8)
    envs.reset(seed=3)
    task, b = envs.unwrapped._c.task, envs.unwrapped.batch
    i = int(np.flatnonzero(b.q[:, 2] > 1.0)[0])  # a world that starts standing
    j = (i + 1) % 8
    task.frame[:] = 119
    task.ground[:] = 0
    task.ground[j] = 169
    b.q[j, 2] = 0.3  # world j is down and has been for 169 frames
    b.forward()
    _, _, term, _, _ = envs.step(np.zeros((8, 17)))
    assert term[j] and not term[i]
    cq, cv = task._cube_q, task._cube_v
    speed = np.linalg.norm(b.u[i, cv:cv + 3])
    assert 18.0 < speed < 32.0
    offset = b.q[i, cq:cq + 3] - b.xpos[i, 1]
    assert 3.0 < np.linalg.norm(offset[:2]) < 5.0 and 0.5 < offset[2] < 1.6
    # the cube flies at the robot: its horizontal velocity points back towards it
    vxy = b.u[i, cv:cv + 2]
    assert np.dot(vxy, -offset[:2]) / (np.linalg.norm(vxy) * np.linalg.norm(offset[:2])) > 0.8
    assert b.q[j, cq + 2] > 1000  # the fallen world got no cube
    # it arrives: within 0.4 s the cube touches the robot or has passed it
    hit = False
    for _ in range(25):
        envs.step(np.zeros((8, 17)))
        hit |= bool(b.geom_contact[i, task._feet].any() and not b.geom_static_contact[i, task._feet].all()) or \
            bool(b.geom_contact[i, b.model.geom_id("cube")])
    assert hit


def test_harder_weak_gravity_draws_a_level_per_episode_from_the_stream_and_learns_from_falls():
    """weak_gravity (a training aid): from the two numbers after the start task's (replayed
    here on an env without the aid, same seed), r0 < share picks a weaker gravity, r1 the
    level (equal shares at first: floor(3 r1)); the world's gravity is the model's times
    GRAVITY_LEVELS[level], the state is that of the task without the aid. A fall under a
    weak gravity moves that level's failure rate (by (1 - 0.95)(1 - 0.5)), not the start
    task's; a full-gravity fall moves its start task's. The evaluation leaves the aid out."""
    from ncpgym.tasks import evaluation_kwargs
    from ncpgym.tasks.flagrun import GRAVITY_LEVELS

    n = 32
    aided = gym.make_vec(HARDER, num_envs=n, num_threads=1, weak_gravity=0.4)
    plain = gym.make_vec(HARDER, num_envs=n, num_threads=1)
    aided.reset(seed=5)
    plain.reset(seed=5)
    task, b = aided.unwrapped._c.task, aided.unwrapped.batch
    pb = plain.unwrapped.batch
    np.testing.assert_array_equal(b.q, pb.q)
    r = pb.uniform(np.arange(n, dtype=np.int32), 2, 0.0, 1.0)
    level = np.where(r[:, 0] < 0.4, np.floor(3 * r[:, 1]).astype(int), -1)
    np.testing.assert_array_equal(task.gravity_level, level)
    assert set(level) == {-1, 0, 1, 2}
    scale = np.where(level >= 0, np.take(GRAVITY_LEVELS, level.clip(0)), 1.0)
    np.testing.assert_array_equal(b.gravity, scale[:, None] * [0.0, 0.0, -9.81])
    np.testing.assert_array_equal(pb.gravity, np.tile([0.0, 0.0, -9.81], (n, 1)))
    # one weak-gravity world and one full-gravity world fall for good on this step
    weak, full = int(np.flatnonzero(level == 1)[0]), int(np.flatnonzero(level == -1)[0])
    rates, start_rates = task.gravity_curriculum.failure.copy(), task.curriculum.failure.copy()
    started = task.start[full]  # the full-gravity episode's start task (redrawn at its reset)
    task.ground[[weak, full]] = 169
    b.q[[weak, full], 2] = 0.3
    b.forward()
    g_before = b.gravity.copy()
    _, _, term, _, _ = aided.step(np.zeros((n, 17)))
    assert term[weak] and term[full] and term.sum() == 2
    aided.step(np.zeros((n, 17)))  # their next step resets them: the rates learn
    others = np.setdiff1d(np.arange(n), [weak, full])
    np.testing.assert_array_equal(b.gravity[others], g_before[others])  # the others keep theirs
    want = rates.copy()
    want[1] += 0.05 * (1.0 - rates[1])
    np.testing.assert_allclose(task.gravity_curriculum.failure, want, rtol=1e-12)
    want = start_rates.copy()
    want[started] += 0.05 * (1.0 - start_rates[started])
    np.testing.assert_allclose(task.curriculum.failure, want, rtol=1e-12)
    # every world falls with its gravity set wrong by hand: each reset rewrites it from the
    # new level, a full-gravity episode after a weak one included
    old_level = task.gravity_level.copy()
    task.ground[:] = 169
    b.q[:, 2] = 0.3
    b.forward()
    b.gravity[:] = [0.0, 0.0, -1.0]
    _, _, term, _, _ = aided.step(np.zeros((n, 17)))
    assert term.all()
    aided.step(np.zeros((n, 17)))
    new_level = task.gravity_level
    assert ((old_level >= 0) & (new_level < 0)).any() and (new_level >= 0).any()
    scale = np.where(new_level >= 0, np.take(GRAVITY_LEVELS, new_level.clip(0)), 1.0)
    np.testing.assert_array_equal(b.gravity, scale[:, None] * [0.0, 0.0, -9.81])
    assert evaluation_kwargs(HARDER, {"weak_gravity": 0.5, "flag_timeout": 100}) == {"flag_timeout": 100}
    for bad in (-0.1, 1.5, True, "half"):
        with pytest.raises(ValueError, match="weak_gravity: expected a share in"):
            gym.make_vec(HARDER, num_envs=1, weak_gravity=bad)
    aided.close()
    plain.close()


def test_harder_cube_throw_stays_finite_for_a_world_with_a_huge_state():
    """A world whose humanoid state is huge (about to be flagged as diverged) must not get a
    NaN cube velocity: target - start used to underflow to 0 there."""
    envs = gym.make_vec(HARDER, num_envs=4)
    envs.reset(seed=3)
    task, b = envs.unwrapped._c.task, envs.unwrapped.batch
    b.u[0, 0:3] = 1e300  # the predicted target moves ~1e300 m away
    with np.errstate(all="raise"):
        task._throw(b, np.array([True, True, False, False]))
    cv = task._cube_v
    speed = np.linalg.norm(b.u[:2, cv:cv + 3], axis=1)
    assert np.all(np.isfinite(speed)) and np.all((18.0 < speed) & (speed < 32.0))


def test_domain_randomization_draws_per_world_at_every_reset():
    """Parameters within their ranges, different across worlds, the same for a seed on 1
    and 2 threads and 3 or 5 worlds (world i's draws), different for another seed;
    redrawn only for the worlds that reset (by reset_mask or autoreset). That the batch's
    scales change the physics is tested in test_physics_references."""
    from ncpgym.wrappers import DomainRandomization

    def make(n, threads, seed):
        envs = DomainRandomization(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=n, num_threads=threads),
                                   friction=(0.5, 1.5), mass=(0.8, 1.2), stiffness=(0.5, 2.0),
                                   gravity=((-0.5, 0.0, -10.3), (0.5, 0.0, -9.3)))
        _, info = envs.reset(seed=seed)
        return envs, info["domain"]

    a, da = make(3, 1, 7)
    b, db = make(5, 2, 7)
    _, dc = make(3, 1, 8)
    for k in ("friction", "mass", "stiffness", "gravity"):
        np.testing.assert_array_equal(da[k], db[k][:3])
        assert not np.array_equal(da[k], dc[k])
    assert np.all((da["friction"] >= 0.5) & (da["friction"] <= 1.5)) and np.ptp(da["friction"]) > 0
    assert np.all((da["mass"] >= 0.8) & (da["mass"] <= 1.2))
    assert np.all((da["stiffness"] >= 0.5) & (da["stiffness"] <= 2.0)) and np.ptp(da["stiffness"]) > 0
    np.testing.assert_array_equal(da["stiffness"], a.unwrapped.batch.stiffness_scale)
    g = da["gravity"]
    assert np.all(np.abs(g[:, 0]) <= 0.5) and np.all(g[:, 1] == 0) and np.all((g[:, 2] >= -10.3) & (g[:, 2] <= -9.3))
    # only world 1 resets: only its parameters change
    _, info = a.reset(options={"reset_mask": np.array([False, True, False])})
    d = info["domain"]
    assert d["mass"][0] == da["mass"][0] and d["mass"][2] == da["mass"][2] and d["mass"][1] != da["mass"][1]
    # autoreset (next-step): a world whose episode ends draws anew when it restarts
    before = d["mass"].copy()
    act = np.zeros((3, 1), np.float32)
    act[2] = 1.0  # push world 2's pole over
    for _ in range(200):
        _, _, term, trunc, info = a.step(act)
        if a.unwrapped.reset_step[2]:
            break
    assert a.unwrapped.reset_step[2] and info["domain"]["mass"][2] != before[2]
    assert info["domain"]["mass"][0] == before[0]
    with pytest.raises(ValueError, match="friction"):
        DomainRandomization(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2), friction=(0.0, 1.0))
    with pytest.raises(ValueError, match="gravity"):
        DomainRandomization(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2), gravity=((0, 0, -9), (0, 0, -10)))


def test_domain_randomization_draws_one_number_per_range_and_three_for_gravity():
    """From the docstring: a reset world draws one number per range given and three for
    gravity from its own stream (its counter moves by exactly that much more than without
    the wrapper); low == high sets a fixed value; parameters not given keep their values
    (the model's gravity, scales 1). Refusals name the parameter."""
    from ncpgym.wrappers import DomainRandomization

    def counters(envs):
        envs.reset(seed=5)
        return envs.unwrapped.batch.rng_state[:, 1].copy()

    plain = counters(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=3))
    full = DomainRandomization(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=3), friction=(0.5, 1.5),
                               mass=(0.8, 1.2), stiffness=(0.5, 2.0), gravity=((-1, 0, -10), (1, 0, -9)))
    np.testing.assert_array_equal(counters(full) - plain, [6, 6, 6])
    fixed = DomainRandomization(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=3), mass=(2.0, 2.0))
    np.testing.assert_array_equal(counters(fixed) - plain, [1, 1, 1])
    b = fixed.unwrapped.batch
    np.testing.assert_array_equal(b.mass_scale, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(b.friction_scale, 1.0)
    np.testing.assert_array_equal(b.stiffness_scale, 1.0)
    np.testing.assert_array_equal(b.gravity, np.tile(b.model.gravity, (3, 1)))

    make = lambda: gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2)  # noqa: E731
    for kw, name in ((dict(mass=(0.0, 1.0)), "mass"), (dict(stiffness=(1.0, 0.5)), "stiffness"),
                     (dict(friction=(0.5, np.inf)), "friction")):
        with pytest.raises(ValueError, match=f"^{name}: expected a range"):
            DomainRandomization(make(), **kw)
    with pytest.raises(ValueError, match="gravity: expected"):
        DomainRandomization(make(), gravity=((0, 0, -10), (0, -9)))
    with pytest.raises(TypeError, match="needs an ncpgym vector env made in this process, got SyncVectorEnv"):
        DomainRandomization(gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync"), mass=(1.0, 2.0))


def test_reward_composition_gives_float64_terms_and_names_its_errors():
    """A term returning integers (or a scalar) reports float64 values broadcast to [N];
    adding a second term of a name is refused by name; a missing task quantity is an
    AttributeError naming it."""
    from ncpgym.wrappers import RewardComposition, RewardTerm, StepContext

    b = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=3).unwrapped.batch
    comp = RewardComposition([RewardTerm("count", lambda ctx: np.array([1, 2, 3]), 0.5),
                              RewardTerm("bonus", lambda ctx: 2, 1.0)])
    total, values = comp(StepContext(b, np.zeros((3, 1)), 0.02))
    assert values["count"].dtype == np.float64 and values["bonus"].dtype == np.float64
    np.testing.assert_array_equal(values["bonus"], [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(total, [2.5, 3.0, 3.5])
    with pytest.raises(ValueError, match="reward term 'count' already exists"):
        comp.add(RewardTerm("count", lambda ctx: 0))
    with pytest.raises(AttributeError, match="flag_distance"):
        StepContext(b, np.zeros((3, 1)), 0.02).flag_distance
