"""ncpgym/MantaSwim-v0 (issue 21): the task's definition checked by hand from its docstring,
the seed's gait as a scripted swimmer, Gymnasium conformance and determinism."""

import gymnasium as gym
import numpy as np
import pytest

import ncpgym
from ncpgym.tasks import manta_swim as ms


def make(n=2, threads=1, **kw):
    return ms.MantaSwimVectorEnv(num_envs=n, num_threads=threads, **kw)


def test_reset_observation_and_action_mapping_follow_the_docstring():
    env = make()
    obs, _ = env.reset(seed=3)
    assert obs.shape == (2, 31)
    batch, task = env.batch, env.task
    # forward axis +y, normal +z, no height change, flat (angles 0), targets 0, tips level,
    # clock at t = 0 (sin 0, cos 1), elapsed share 0
    np.testing.assert_allclose(obs[:, 3:6], [[0, 1, 0]] * 2, atol=1e-12)
    np.testing.assert_allclose(obs[:, 6:9], [[0, 0, 1]] * 2, atol=1e-12)
    np.testing.assert_allclose(obs[:, 9:28], 0.0, atol=1e-12)
    np.testing.assert_allclose(obs[:, 28:31], [[0, 1, 0]] * 2, atol=1e-12)
    # centre-of-mass velocity: the mass-weighted reset noise, each node within 0.05 m/s
    m = np.asarray(batch.model.particle_mass)
    np.testing.assert_allclose(obs[:, :3], (m[:, None] * batch.v).sum(1) / m.sum(), atol=1e-15)
    assert 0 < np.abs(batch.v).max() <= 0.05
    a = np.array([[1, -1, 0.5, 0, 0, 0, 0, -0.25]] * 2, np.float32)
    env.step(a)
    np.testing.assert_allclose(batch.activation, 2 * np.pi / 3 * a.astype(float), rtol=1e-7)
    # groups run front to back along the centre line
    hinges = np.asarray(batch.model.hinges)[task.groups]
    x0 = np.asarray(batch.model.particle_pos0)
    mid_y = x0[hinges[:, :2], 1].mean(axis=1)
    assert np.all(np.diff(mid_y) < 0) and np.allclose(x0[hinges[:, :2], 0], 0.0)


def test_reward_terms_and_success_computed_by_hand():
    env = make()
    env.reset(seed=0)
    batch = env.batch
    m = np.asarray(batch.model.particle_mass)
    com = lambda: (m[:, None] * batch.x).sum(1) / m.sum()  # noqa: E731
    before = com()
    a = np.array([[0.5] * 8, [-1.0] * 8], np.float32)
    _, r, term, trunc, info = env.step(a)
    forward = (com()[:, 1] - before[:, 1]) / (5 * 0.005)
    np.testing.assert_allclose(info["reward_terms"]["forward"], forward, rtol=1e-12)
    np.testing.assert_allclose(info["reward_terms"]["energy"], [0.25, 1.0])
    np.testing.assert_allclose(r, forward - 0.05 * np.array([0.25, 1.0]), rtol=1e-12)
    assert not term.any() and not trunc.any() and not info["is_success"].any()
    # carry world 1's body 1.2 m forward (past one body length) and world 0's 0.8 m (short of it)
    batch.x[1, :, 1] += 1.2
    batch.x[0, :, 1] += 0.8
    _, _, _, _, info = env.step(np.zeros((2, 8), np.float32))
    assert info["is_success"].tolist() == [False, True]
    np.testing.assert_allclose(info["distance"], [0.8, 1.2], atol=0.05)


def test_the_seeds_gait_swims_forward_and_random_flapping_does_not():
    env = make(n=2)
    env.reset(seed=0)
    for _ in range(60):  # 1.5 s
        _, _, _, _, info = env.step(ms.scripted_actions(env.task, env.batch).astype(np.float32))
    assert (info["distance"] > 1.0).all() and info["is_success"].all()
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(60):
        _, _, _, _, info = env.step(rng.uniform(-1, 1, (2, 8)).astype(np.float32))
    assert (np.abs(info["distance"]) < 0.5).all()


def test_manta_swim_is_a_gymnasium_env_and_deterministic():
    from gymnasium.utils.env_checker import check_env

    env = gym.make("ncpgym/MantaSwim-v0")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()
    runs = []
    for threads, n in ((1, 2), (2, 3)):
        e = make(n=n, threads=threads)
        e.reset(seed=[5, 6] + [7] * (n - 2))
        rng = np.random.default_rng(1)
        for _ in range(10):
            obs, *_ = e.step(rng.uniform(-1, 1, (3, 8))[:n].astype(np.float32))
        runs.append(obs[:2].copy())
        e.close()
    np.testing.assert_array_equal(runs[0], runs[1])


def test_manta_swim_refuses_bad_arguments():
    with pytest.raises(ValueError, match="mesh"):
        make(mesh=2)
    e = make(mesh=12)  # a finer body: 10 centre-line hinges, so 10 actions and 35 observations
    assert e.single_action_space.shape == (10,) and e.reset(seed=0)[0].shape == (2, 35)
    with pytest.raises(ValueError, match="unknown reward terms"):
        make(reward_weights={"lift": 1.0})


def test_forward_is_measured_from_the_steps_start_and_the_clock_counts_env_steps():
    """forward = (com_y after - com_y before the step) / dt also when the body is away from
    the origin (a sign error there is invisible at y = 0); extra reward terms see the
    control period dt = 5 x 5 ms; the clock observation is sin, cos of 2 pi 3.4 Hz t with
    t = env steps x 25 ms, the elapsed share t / 5 s. mesh = 4 is the smallest accepted,
    a bool is refused."""
    from ncpgym.wrappers import RewardTerm

    seen = []
    env = make(extra_reward_terms=[RewardTerm("dt", lambda c: seen.append(c.dt) or np.zeros(2), 1.0)])
    env.reset(seed=1)
    batch = env.batch
    m = np.asarray(batch.model.particle_mass)
    com = lambda: (m[:, None] * batch.x).sum(1) / m.sum()  # noqa: E731
    batch.x[:, :, 1] += 0.6
    before = com()
    obs, _, _, _, info = env.step(np.full((2, 8), 0.3, np.float32))
    np.testing.assert_allclose(info["reward_terms"]["forward"], (com()[:, 1] - before[:, 1]) / 0.025, rtol=1e-12)
    assert seen == [pytest.approx(0.025)]
    for k in range(2, 4):
        obs, *_ = env.step(np.zeros((2, 8), np.float32))
    t = 3 * 0.025
    np.testing.assert_allclose(obs[:, 28:31], [[np.sin(2 * np.pi * 3.4 * t), np.cos(2 * np.pi * 3.4 * t), t / 5]] * 2,
                               atol=1e-12)
    assert make(mesh=4).single_action_space.shape == (2,)
    with pytest.raises(ValueError, match="mesh"):
        make(mesh=True)
