"""The Gymnasium contract of ncpgym's vector and single-world envs (Humanoid-v0), their
behaviour under bad input and divergence, determinism, and the task's observations
against MuJoCo's own definitions on Gymnasium's Humanoid-v5."""

import gymnasium as gym
import mujoco
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import ncpgym

ID = "ncpgym/Humanoid-v0"


@pytest.fixture
def envs():
    e = gym.make_vec(ID, num_envs=4, num_threads=2)
    yield e
    e.close()


def test_single_env_passes_gymnasium_checker():
    env = gym.make(ID)
    assert env.spec.max_episode_steps == 1000
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    obs, r, term, trunc, info = env.step(env.action_space.sample())
    assert isinstance(r, float) and isinstance(term, bool) and isinstance(trunc, bool)
    assert set(info) >= {"x_velocity", "reward_forward", "reward_survive", "diverged"}
    env.close()


def test_vector_env_api(envs):
    assert envs.num_envs == 4
    assert envs.single_observation_space.shape == (348,)
    assert envs.single_action_space.shape == (17,)
    assert envs.observation_space.shape == (4, 348) and envs.action_space.shape == (4, 17)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.dt == pytest.approx(0.015)  # Humanoid-v5's control period
    obs, info = envs.reset(seed=0)
    assert obs.shape == (4, 348) and obs.dtype == np.float64 and envs.observation_space.contains(obs)
    obs, rew, term, trunc, info = envs.step(envs.action_space.sample())
    assert rew.shape == (4,) and rew.dtype == np.float64
    assert term.dtype == np.bool_ and trunc.dtype == np.bool_
    for k in ("x_velocity", "reward_ctrl", "diverged"):
        assert info[k].shape == (4,) and info["_" + k].all()
    # reward values and parts against Humanoid-v5: test_task_definitions.py
    assert ncpgym.make_vec("Humanoid-v0", num_envs=2).num_envs == 2
    with pytest.raises(ValueError, match="unknown ncpgym task"):
        ncpgym.make_vec("Nope-v0", num_envs=2)


def test_forward_reward_is_the_centre_of_mass_velocity(envs):
    envs.reset(seed=1)
    b = envs.unwrapped.batch
    mass = np.asarray(b.model.body_mass)
    before = (mass[:, None] * b.xipos[:, :, 0].T).sum(0) / mass.sum()
    _, _, _, _, info = envs.step(np.zeros((4, 17)))
    after = (mass[:, None] * b.xipos[:, :, 0].T).sum(0) / mass.sum()
    np.testing.assert_allclose(info["x_velocity"], (after - before) / envs.dt, rtol=1e-10)
    np.testing.assert_allclose(info["reward_forward"], 1.25 * info["x_velocity"])


def test_next_step_autoreset_truncates_and_resets():
    envs = gym.make_vec(ID, num_envs=3, max_episode_steps=3, healthy_z_range=(-10.0, 10.0))
    envs.reset(seed=0)
    truncs, rewards = [], []
    for _ in range(7):
        obs, r, term, trunc, _ = envs.step(np.zeros((3, 17)))
        truncs.append(trunc.copy())
        rewards.append(r.copy())
        assert not term.any()
    assert [t.all() for t in truncs] == [False, False, True, False, False, False, True]
    np.testing.assert_array_equal(rewards[3], 0.0)  # the reset step
    # the reset step resets the state: the last step (a reset step) left every coordinate
    # within the reset noise (0.01) of qpos0, velocities included (three steps of falling
    # give the torso ~0.4 m/s), and reports that state's observation
    obs, r, *_ = envs.step(np.zeros((3, 17)))  # step 8: a reset step again
    b = envs.unwrapped.batch
    np.testing.assert_array_equal(r, 0.0)
    assert np.all(np.abs(b.q - np.asarray(b.model.qpos0)) <= 0.01) and np.all(np.abs(b.u) <= 0.01)
    np.testing.assert_array_equal(obs[:, :22], b.q[:, 2:])
    np.testing.assert_array_equal(obs[:, 22:45], b.u)


def test_same_step_autoreset_keeps_the_final_observation():
    envs = gym.make_vec(ID, num_envs=2, max_episode_steps=2, autoreset_mode="same_step")
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    envs.reset(seed=0)
    _, _, _, trunc, info = envs.step(np.zeros((2, 17)))
    assert not trunc.any() and "final_obs" not in info
    obs, _, _, trunc, info = envs.step(np.zeros((2, 17)))
    assert trunc.all() and info["_final_obs"].all()
    assert info["final_obs"].shape == (2, 348)
    assert not np.array_equal(info["final_obs"], obs)  # obs is already the new episode's
    assert info["final_info"]["_x_velocity"].all()
    # the finished worlds were reset within the step: obs is the reset state's observation
    # (every coordinate within the reset noise, 0.01, of qpos0), and it is recorded as the
    # last observation (a partial reset returns it for the world left alone)
    b = envs.unwrapped.batch
    assert np.all(np.abs(b.q - np.asarray(b.model.qpos0)) <= 0.01) and np.all(np.abs(b.u) <= 0.01)
    np.testing.assert_array_equal(obs[:, :22], b.q[:, 2:])
    np.testing.assert_array_equal(obs[:, 22:45], b.u)
    again, _ = envs.reset(options={"reset_mask": np.array([True, False])})
    np.testing.assert_array_equal(again[1], obs[1])


def test_reset_mask_resets_only_the_masked_worlds(envs):
    envs.reset(seed=0)
    for _ in range(3):
        obs, *_ = envs.step(np.zeros((4, 17)))
    mask = np.array([True, False, True, False])
    new, _ = envs.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(new[~mask], obs[~mask])
    assert not np.allclose(new[mask], obs[mask])
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.ones(3, bool)})


def test_bad_actions_raise_clear_errors(envs):
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"expected shape \(4, 17\), got \(4, 16\)"):
        envs.step(np.zeros((4, 16)))
    with pytest.raises(ValueError, match="floating dtype.*int64"):
        envs.step(np.zeros((4, 17), dtype=np.int64))
    a = np.zeros((4, 17))
    a[1, 3] = np.nan
    a[3, 0] = np.inf
    with pytest.raises(ValueError, match=r"world\(s\) \[1, 3\]"):
        envs.step(a)
    # out of range: clipped to the action space
    envs.step(np.full((4, 17), 7.0))
    np.testing.assert_array_equal(envs.unwrapped.batch.ctrl, 0.4)


def test_step_after_close_and_before_reset_raise():
    e = gym.make_vec(ID, num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        e.step(np.zeros((2, 17)))
    e.reset(seed=0)
    e.close()
    e.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        e.step(np.zeros((2, 17)))


def test_a_diverging_world_is_reported_reset_and_leaves_the_others_bitwise_alone():
    clean = gym.make_vec(ID, num_envs=4, num_threads=2)
    dirty = gym.make_vec(ID, num_envs=4, num_threads=2)
    acts = np.random.default_rng(5).uniform(-0.4, 0.4, (6, 4, 17))
    oc, _ = clean.reset(seed=9)
    od, _ = dirty.reset(seed=9)
    for t in range(6):
        if t == 2:
            dirty.unwrapped.batch.u[2, 5] = np.nan  # inject into world 2's state
        last = od.copy()
        oc, rc, tc, uc, _ = clean.step(acts[t])
        od, rd, td, ud, info = dirty.step(acts[t])
        if t == 2:
            assert info["diverged"][2] and ud[2] and rd[2] == 0.0
            assert not info["diverged"][[0, 1, 3]].any()
            np.testing.assert_array_equal(od[2], last[2])  # its last finite observation
        assert np.isfinite(od).all()
        keep = [0, 1, 3]
        np.testing.assert_array_equal(od[keep], oc[keep])
        np.testing.assert_array_equal(rd[keep], rc[keep])
    assert np.isfinite(dirty.unwrapped.batch.q).all()  # world 2 was reset


def _rollout(num_envs, threads, seed, steps, actions):
    e = gym.make_vec(ID, num_envs=num_envs, num_threads=threads)
    obs, _ = e.reset(seed=seed)
    out_obs, out_rew = [obs], []
    for t in range(steps):
        obs, r, *_ = e.step(actions[t, :num_envs])
        out_obs.append(obs)
        out_rew.append(r)
    return np.stack(out_obs), np.stack(out_rew)


def test_same_seed_is_bitwise_reproducible_across_threads_and_batch_sizes():
    steps = 1000
    acts = np.random.default_rng(0).uniform(-0.4, 0.4, (steps, 64, 17))
    o64, r64 = _rollout(64, 2, 7, steps, acts)
    o1, r1 = _rollout(1, 1, 7, steps, acts)
    np.testing.assert_array_equal(o1[:, 0], o64[:, 0])
    np.testing.assert_array_equal(r1[:, 0], r64[:, 0])
    o64b, r64b = _rollout(64, 1, 7, steps, acts)  # one thread, same batch
    np.testing.assert_array_equal(o64b, o64)
    np.testing.assert_array_equal(r64b, r64)
    o1c, _ = _rollout(1, 1, 8, 5, acts)  # another seed differs
    assert not np.array_equal(o1c[0, 0], o1[0, 0])


def test_observation_matches_humanoid_v5_definitions():
    """Our obs layout and MuJoCo's quantities: set Gymnasium's Humanoid-v5 (MuJoCo) to the
    same state and controls and compare its _get_obs() with ours (contact wrenches
    aside: with no contact both are zero)."""
    env = gym.make_vec(ID, num_envs=3)
    env.reset(seed=2)
    b = env.unwrapped.batch
    rng = np.random.default_rng(3)
    b.q[:, 2] = 3.0  # in the air: no contacts
    b.u[:] = rng.normal(0, 1, b.u.shape)
    b.ctrl[:] = rng.uniform(-0.4, 0.4, b.ctrl.shape)
    b.forward()
    ours = env.unwrapped._c.task.observe(b)
    ref = gym.make("Humanoid-v5").unwrapped
    ref.reset(seed=0)
    for i in range(3):
        ref.set_state(b.q[i].copy(), b.u[i].copy())
        ref.data.ctrl[:] = b.ctrl[i]
        mujoco.mj_forward(ref.model, ref.data)
        theirs = ref._get_obs()
        assert theirs.shape == ours[i].shape
        np.testing.assert_allclose(ours[i], theirs, rtol=1e-9, atol=1e-9)


def test_bad_sizes_and_thread_counts_are_refused_clearly():
    """num_envs: a positive int (not a bool), at most what a batch indexes and what the
    machine's memory holds (refused before allocating, naming the size); num_threads: a
    non-negative int, with a warning above the core count (results unchanged)."""
    import os
    import warnings

    for n in (0, -3, True, 2.0, "4"):
        with pytest.raises(ValueError, match="num_envs must be a positive integer"):
            gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=n)
    with pytest.raises(ValueError, match="at most 2147483647"):
        gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=10**12)
    with pytest.raises(MemoryError, match=r"GiB, more than this machine"):
        gym.make_vec("ncpgym/Humanoid-v0", num_envs=2**30)
    for t in (-1, 1.5, False):
        with pytest.raises(ValueError, match="num_threads must be a non-negative integer"):
            gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, num_threads=t)
    from ncpgym import scenes

    with pytest.raises(ValueError, match="num_threads must be >= 0"):
        ncpgym.Batch(scenes.heavy_stack()[0], 2, num_threads=-2)
    many = (os.cpu_count() or 1) + 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, num_threads=many)
    assert any("more than this machine" in str(x.message) for x in w)
    b = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, num_threads=1)
    oa, _ = a.reset(seed=4)
    ob, _ = b.reset(seed=4)
    act = np.full((2, 1), 0.3, np.float32)
    for _ in range(5):
        oa, *_ = a.step(act)
        ob, *_ = b.step(act)
    assert np.array_equal(oa, ob)


def test_thread_warning_names_the_count_and_only_above_the_cores(monkeypatch):
    """As many threads as cores: no warning; one more: the warning's whole text; a platform
    that does not say its core count (os.cpu_count() is None) counts as one core."""
    import os
    import warnings

    from ncpgym.tasks.inverted_pendulum import InvertedPendulumTask
    from ncpgym.vector import NcpVectorEnv

    cores = os.cpu_count()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=cores).close()
    assert not [w for w in caught if "more than this machine" in str(w.message)]
    text = (rf"^num_threads={cores + 1} is more than this machine's {cores} cores: the threads share them "
            r"\(slower; results are the same\)$")
    with pytest.warns(UserWarning, match=text):
        NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=cores + 1).close()
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    with pytest.warns(UserWarning, match=r"^num_threads=2 is more than this machine's 1 cores"):
        NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=2).close()


def test_thread_warning_points_at_the_users_line_however_the_env_is_made(monkeypatch):
    """The warning is attributed to the caller's own line (the line making the env in this
    file), not to ncpgym's or Gymnasium's internals, for an env made directly, through an env class and through
    gymnasium.make_vec. Catches: a fixed stacklevel (right for one of the three at most)."""
    import os
    import warnings

    import gymnasium as gym

    from ncpgym.tasks.inverted_pendulum import InvertedPendulumTask, InvertedPendulumVectorEnv
    from ncpgym.vector import NcpVectorEnv

    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    makers = [lambda: NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=2),
              lambda: InvertedPendulumVectorEnv(num_envs=2, num_threads=2),
              lambda: gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, num_threads=2)]
    for make in makers:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make().close()
        ours = [w for w in caught if "more than this machine" in str(w.message)]
        where = [(w.filename, w.lineno) for w in ours]
        assert where == [(__file__, make.__code__.co_firstlineno)]  # the lambda's own line


def _sites_and_soft_body_model():
    """Two hinged links with a sphere and a site each (a motor on the first hinge), a floor
    plane, and a soft body of one tetrahedron: every count world_bytes reads is nonzero."""
    b = ncpgym.Builder()
    b.add_geom(0, "plane")
    parent = 0
    for k in range(2):
        link = b.add_body(parent, pos=[0, 0, 1.0], mass=1.0, inertia=0.01 * np.eye(3))
        j = b.add_joint(link, "hinge", axis=[0, 1, 0])
        b.add_geom(link, "sphere", size=[0.1, 0, 0])
        b.add_site(link, pos=[0, 0, -0.5])
        if k == 0:
            b.add_actuator(j)
        parent = link
    v = np.array([[0, 0, 2.0], [0.1, 0, 2.0], [0, 0.1, 2.0], [0, 0, 2.1]])
    b.add_soft_body(v, np.array([[0, 1, 2, 3]], np.int32), 500.0, 1e5, 0.3)
    return b.build()


def test_world_bytes_counts_each_worlds_arrays():
    """world_bytes: 8 bytes per double of one world's state and derived arrays: q (nq), three
    nv-sized vectors, the controls (nu), particle position and velocity (6 per particle), per
    body position 3 + quaternion 4 + centre of mass 3 + inertia 10 + two 6-vectors = 32,
    per site 12 (position and rotation matrix), 2 per geom, 1 per soft body, 8 scalars."""
    from ncpgym.tasks.inverted_pendulum import InvertedPendulumTask
    from ncpgym.vector import world_bytes

    m = _sites_and_soft_body_model()
    counts = [m.nq, m.nv, m.nu, m.nparticle, m.nbody, m.nsite, m.ngeom, m.nsoft]
    assert counts == [2, 2, 1, 4, 3, 2, 3, 1]
    # 2 + 3*2 + 1 + 6*4 + 32*3 + 12*2 + 2*3 + 1 + 8 = 168 doubles
    assert world_bytes(m) == 8 * 168 == 1344
    # InvertedPendulum: nq 2, nv 2, nu 1, 3 bodies, 3 geoms: 2 + 6 + 1 + 96 + 6 + 8 = 119 doubles
    assert world_bytes(InvertedPendulumTask().build_model()) == 8 * 119


def test_the_memory_refusal_states_need_and_ram_in_gib(monkeypatch):
    """num_envs at the batch's limit (2**31 - 1 InvertedPendulum worlds, 952 bytes each:
    1904.0 GiB) is refused before allocating, with both sizes in GiB (the machine's from
    /proc/meminfo); exactly as much memory as the worlds need is enough; a platform that does
    not say its memory (physical_memory() 0) refuses nothing."""
    import os
    from pathlib import Path

    from ncpgym import vector
    from ncpgym.tasks.inverted_pendulum import InvertedPendulumTask

    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():
        pytest.skip("no /proc/meminfo")
    ram = int(meminfo.read_text().split("MemTotal:")[1].split()[0]) * 1024
    assert vector.physical_memory() == ram
    if ram >= 952 * vector.MAX_WORLDS:
        pytest.skip("this machine holds 2**31 - 1 pendulum worlds")
    with pytest.raises(MemoryError, match=rf"^num_envs=2147483647: the worlds' state needs about 1904.0 GiB, "
                                          rf"more than this machine's {ram / 2**30:.1f} GiB$"):
        vector.NcpVectorEnv(InvertedPendulumTask(), vector.MAX_WORLDS)
    monkeypatch.setattr(vector, "physical_memory", lambda: 3 * 952)
    vector.NcpVectorEnv(InvertedPendulumTask(), 3, num_threads=1).close()
    with pytest.raises(MemoryError, match=r"^num_envs=4: "):
        vector.NcpVectorEnv(InvertedPendulumTask(), 4, num_threads=1)
    monkeypatch.undo()

    def no_sysconf(name):
        raise ValueError(f"unknown configuration name {name}")

    monkeypatch.setattr(os, "sysconf", no_sysconf)
    assert vector.physical_memory() == 0
    vector.NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1).close()


def test_the_single_env_names_world_0_for_any_bad_action_entry():
    """A single env's NaN or inf action, wherever in the action vector, is world 0's."""
    env = ncpgym.make("Humanoid-v0")
    env.reset(seed=0)
    a = np.zeros(17)
    a[5] = np.inf
    with pytest.raises(ValueError, match=r"^actions: NaN or inf in world\(s\) \[0\]$"):
        env.step(a)
    env.close()


def test_reset_takes_one_seed_per_world_as_gymnasium_does():
    """reset(seed=[s0, s1, ...]) seeds world i from (s_i, i): [s] * N is exactly seed=s,
    a world's trajectory depends on its own seed only, and bad lists are refused."""
    def rollout(seed, n=3):
        envs = gym.make_vec("ncpgym/Humanoid-v0", num_envs=n, num_threads=1)
        obs, _ = envs.reset(seed=seed)
        out = [obs]
        act = np.full((n, 17), 0.1, np.float32)
        for _ in range(3):
            obs, *_ = envs.step(act)
            out.append(obs)
        envs.close()
        return np.array(out)

    same = rollout(11)
    assert np.array_equal(rollout([11, 11, 11]), same)
    mixed = rollout([11, 12, 11])
    assert np.array_equal(mixed[:, [0, 2]], same[:, [0, 2]]) and not np.array_equal(mixed[:, 1], same[:, 1])
    assert np.array_equal(rollout(np.array([11, 12, 11])), mixed)
    envs = gym.make_vec("ncpgym/Humanoid-v0", num_envs=3)
    for bad in ([1, 2], [1, -2, 3], [1, 2.5, 3], [True, 1, 2]):
        with pytest.raises(ValueError, match=r"one integer in \[0, 2\*\*64\) per world"):
            envs.reset(seed=bad)


@pytest.mark.parametrize("env_id", ncpgym.TASK_IDS)
def test_every_task_reports_named_reward_terms_that_reweight(env_id):
    """Every task's info carries reward_terms; dropping the first term with reward_weights
    lowers the reward by exactly its weight times its value, step for step, and the
    RewardTerms wrapper accepts the env."""
    from ncpgym.wrappers import RewardTerms

    def run(**kw):
        envs = gym.make_vec(env_id, num_envs=2, num_threads=1, **kw)
        envs.reset(seed=3)
        envs.action_space.seed(0)
        out = []
        for _ in range(3):
            _, r, _, _, info = envs.step(envs.action_space.sample())
            out.append((r, info["reward_terms"]))
        return envs, out

    envs, base = run()
    task = envs.unwrapped.task
    first = task.rewards.terms[0]
    assert [k for k in base[0][1] if not k.startswith("_")] == task.rewards.names  # (and Gymnasium masks)
    _, dropped = run(reward_weights={first.name: 0.0})
    for (r, terms), (r0, terms0) in zip(base, dropped):
        np.testing.assert_allclose(r0, r - first.weight * terms[first.name], rtol=1e-12, atol=1e-12)
    RewardTerms(envs, weights={first.name: 2 * first.weight})


@pytest.mark.parametrize("env_id", ncpgym.TASK_IDS)
def test_saved_state_continues_bitwise_and_envs_pickle(env_id):
    """Mid-episode (after 6 steps, an episode end included for the short pendulum cut),
    set_state(get_state()) replays the next steps bitwise (observations, rewards, flags,
    the task's random draws at autoreset included); a pickled copy and a deepcopy continue
    the same way from where the original was."""
    import copy
    import pickle

    envs = gym.make_vec(env_id, num_envs=2, num_threads=1, max_episode_steps=4)
    envs.reset(seed=9)
    rng = np.random.default_rng(1)
    acts = rng.uniform(envs.single_action_space.low, envs.single_action_space.high,
                       (12,) + envs.action_space.shape).astype(np.float32)

    def play(env, a):
        out = []
        for x in a:
            obs, r, term, trunc, _ = env.step(x)
            out.append(np.concatenate([obs.ravel(), r, term, trunc]))
        return np.array(out)

    play(envs, acts[:6])
    state = envs.get_state()
    blob = pickle.dumps(envs)
    twin = copy.deepcopy(envs)
    first = play(envs, acts[6:])
    envs.set_state(state)
    assert np.array_equal(play(envs, acts[6:]), first)
    assert np.array_equal(play(pickle.loads(blob), acts[6:]), first)
    assert np.array_equal(play(twin, acts[6:]), first)
    assert pickle.loads(pickle.dumps(state))["batch"]["q"].shape == (2, envs.unwrapped.batch.model.nq)
    other = gym.make_vec(env_id, num_envs=3, num_threads=1)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="worlds"):
        other.set_state(state)


@pytest.mark.parametrize("env_id", ncpgym.TASK_IDS)
def test_every_task_is_deterministic_whatever_the_threads_and_batch(env_id):
    """World 0's trajectory under the same actions: 1 thread and 1 world against 2 threads
    and 3 worlds (the others doing something else), bitwise, for every task."""
    def rollout(threads, n, steps=6):
        envs = gym.make_vec(env_id, num_envs=n, num_threads=threads)
        envs.reset(seed=3)
        space = envs.single_action_space
        rng = np.random.default_rng(0)
        out = []
        for _ in range(steps):
            a = np.tile(rng.uniform(space.low, space.high), (n, 1)).astype(np.float32)
            a[1:] = -a[1:]
            obs, *_ = envs.step(a)
            out.append(obs[0].copy())
        envs.close()
        return np.array(out)

    assert np.array_equal(rollout(1, 1), rollout(2, 3))


@pytest.mark.parametrize("env_id", ncpgym.TASK_IDS)
def test_every_tasks_model_pickles_and_steps_bitwise_the_same(env_id):
    """A task's Model through pickle (its bytes): every attribute Python sees is equal, and
    batches of the original and of the copy, started from the same mid-episode state, step
    bitwise the same under the task's solver options (contacts, meshes, soft bodies,
    equalities and mocap bodies, where the task has them)."""
    import pickle

    from ncpgym.state import batch_state, restore_batch

    envs = gym.make_vec(env_id, num_envs=2, num_threads=1)
    envs.reset(seed=4)
    rng = np.random.default_rng(2)
    for _ in range(3):
        envs.step(rng.uniform(envs.single_action_space.low, envs.single_action_space.high,
                              envs.action_space.shape).astype(np.float32))
    batch = envs.unwrapped.batch
    model = batch.model
    twin = pickle.loads(pickle.dumps(model))
    for name in dir(model):
        value = getattr(model, name)
        if name.startswith("_") or callable(value):
            continue
        assert np.array_equal(np.asarray(value), np.asarray(getattr(twin, name))), name
    for i in range(model.nmesh):
        a, b = model.mesh_hull(i), twin.mesh_hull(i)
        assert a["faces"] == b["faces"], i
        assert np.array_equal(a["vertices"], b["vertices"]) and np.array_equal(a["normals"], b["normals"]), i
        assert np.array_equal(model.mesh_vertices(i), twin.mesh_vertices(i)), i
    state, out = batch_state(batch), []
    for m in (model, twin):
        b = ncpgym.Batch(m, 2, num_threads=1, **batch.options)
        restore_batch(b, state)
        for _ in range(8):
            b.step(state["ctrl"])
        out.append(np.concatenate([b.q.ravel(), b.u.ravel(), b.x.ravel(), b.v.ravel()]))
    before = np.concatenate([state["q"].ravel(), state["u"].ravel(), state["x"].ravel(), state["v"].ravel()])
    assert np.array_equal(out[0], out[1]) and not np.array_equal(out[0], before)  # the same, and it moved
    envs.close()


def test_model_bytes_that_are_not_a_model_are_refused_clearly():
    """Truncated, padded, foreign and other-version bytes raise ValueError saying which."""
    model = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=1).unwrapped.batch.model
    data = model.to_bytes()
    Model = type(model)
    assert Model.from_bytes(data).to_bytes() == data
    with pytest.raises(ValueError, match="truncated or padded"):
        Model.from_bytes(data[:-1])
    with pytest.raises(ValueError, match="truncated or padded"):
        Model.from_bytes(data + b"\0")
    with pytest.raises(ValueError, match="not an ncpgym Model"):
        Model.from_bytes(b"PK" + data[2:])
    other = int.from_bytes(data[8:12], "little") + 1  # a format this build does not read
    with pytest.raises(ValueError, match=f"format version {other}"):
        Model.from_bytes(data[:8] + other.to_bytes(4, "little") + data[12:])


def test_the_fused_observation_record_travels_with_get_state_and_serves_partial_resets():
    """Humanoid-v0's observation is the batch's fused one, which is also the env's record of
    the last observations: set_state puts the saved rows back (a partial reset returns
    them for the other worlds, a diverging world keeps its saved row), and a subclass that
    overrides observe() keeps its own record."""
    from ncpgym.tasks.humanoid import HumanoidTask
    from ncpgym.vector import env_classes

    a = gym.make_vec(ID, num_envs=3, num_threads=1)
    b = gym.make_vec(ID, num_envs=3, num_threads=1)
    rng = np.random.default_rng(4)
    acts = rng.uniform(-0.4, 0.4, (30, 3, 17))
    a.reset(seed=1)
    b.reset(seed=2)
    for t in range(25):  # b's rows differ from a's (another seed, fewer steps)
        a.step(acts[t])
        if t < 5:
            b.step(acts[t])
    state = a.get_state()
    assert a.unwrapped._c.fused and state["obs"].shape == (3, 348)
    np.testing.assert_array_equal(state["obs"], a.unwrapped.batch.observation)
    b.unwrapped.set_state(state)
    np.testing.assert_array_equal(b.unwrapped.batch.observation, state["obs"])
    kept, _ = b.reset(options={"reset_mask": np.array([True, False, False])})
    np.testing.assert_array_equal(kept[1:], state["obs"][1:])
    assert not np.array_equal(kept[0], state["obs"][0])
    b.unwrapped.set_state(state)
    b.unwrapped.batch.u[2, 3] = np.nan
    obs, _, _, trunc, info = b.step(acts[25])
    assert info["diverged"].tolist() == [False, False, True] and trunc[2]
    np.testing.assert_array_equal(obs[2], state["obs"][2])
    ref, *_ = a.step(acts[25])
    np.testing.assert_array_equal(obs[:2], ref[:2])

    class Float32Humanoid(HumanoidTask):
        def spaces(self, model):
            o, act = super().spaces(model)
            return gym.spaces.Box(-np.inf, np.inf, o.shape, np.float32), act

        def observe(self, batch):
            return super().observe(batch).astype(np.float32)

    Vec, _ = env_classes(Float32Humanoid, "Float32Humanoid")
    f = Vec(3, num_threads=1)
    assert not f.unwrapped._c.fused
    last, _ = f.reset(seed=1)
    f.unwrapped.batch.u[0, 3] = np.nan
    obs, _, _, _, info = f.step(acts[0])
    assert obs.dtype == np.float32 and info["diverged"][0]
    np.testing.assert_array_equal(obs[0], last[0])
    np.testing.assert_array_equal(obs, f.unwrapped._c.last_obs())
    for e in (a, b, f):
        e.close()


def test_a_task_without_observe_or_observation_segments_is_refused_by_name():
    from ncpgym.tasks.inverted_pendulum import InvertedPendulumTask
    from ncpgym.vector import Task, env_classes

    class Blind(InvertedPendulumTask):
        observe = Task.observe

    Vec, _ = env_classes(Blind, "Blind")
    with pytest.raises(NotImplementedError, match=r"^Blind defines neither observe\(\) nor observation_segments\(\)$"):
        Vec(2, num_threads=1).reset(seed=0)



def test_info_masks_are_separate_arrays():
    """Every ``_key`` mask of a step's info is its own all-True array (Gymnasium's layout):
    clearing one leaves the others, nested reward-term masks included."""
    env = gym.make_vec(ID, num_envs=3, num_threads=1)
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.zeros((3, 17)))
    masks = [info[k] for k in info if k.startswith("_")] + [
        v for k, v in info["reward_terms"].items() if k.startswith("_")]
    assert len(masks) > 10 and all(m.dtype == bool and m.tolist() == [True] * 3 for m in masks)
    masks[0][1] = False
    assert all(m.tolist() == [True] * 3 for m in masks[1:])
    env.close()


def test_solver_options_of_make_vec_go_over_the_tasks_and_survive_pickling():
    """gym.make_vec(..., solver_options={...}) reaches the batch on top of the task's own
    options (PneuNetGrasp-v0 keeps its time-step r where the caller says nothing), in the
    single env too; a warm-started env saves its impulses and continues bitwise from a
    pickle; unknown names and non-dicts are refused."""
    import pickle

    e = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=2, num_threads=1,
                     solver_options={"newton_iterations": 7, "warm_start": True})
    opts = e.unwrapped.batch.options
    assert opts["newton_iterations"] == 7 and opts["warm_start"]
    assert opts["rscale"] == e.unwrapped.task.solver_options["rscale"] != "mixed"  # the task's, kept
    e.close()
    one = gym.make("ncpgym/Humanoid-v0", solver_options={"linear_iterations": 9})
    assert one.unwrapped.batch.options["linear_iterations"] == 9
    envs = gym.make_vec(ID, num_envs=2, num_threads=1, solver_options={"warm_start": True})
    envs.reset(seed=2)
    a = np.zeros(envs.action_space.shape, np.float32)
    for _ in range(40):
        envs.step(a)
    assert len(envs.unwrapped.batch.warm_start_state) > 0  # the feet's impulses
    blob = pickle.dumps(envs)
    first = [envs.step(a)[0] for _ in range(5)]
    again = pickle.loads(blob)
    assert again.unwrapped.batch.options["warm_start"]
    assert all(np.array_equal(x, y) for x, y in zip(first, [again.step(a)[0] for _ in range(5)]))
    with pytest.raises(TypeError, match="unknown solver option 'newton'"):
        gym.make_vec(ID, num_envs=1, solver_options={"newton": 3})
    with pytest.raises(TypeError, match="solver_options must be a dict"):
        gym.make_vec(ID, num_envs=1, solver_options=12)
