"""Evidence of learning: ncpgym's PPO trains the inverted pendulum to clearly beat a random
policy within the CI budget, and Stable-Baselines3 runs on the same vector env."""

import gymnasium as gym
import numpy as np
import pytest

import ncpgym  # noqa: F401  (registers the tasks)

torch = pytest.importorskip("torch")

from ncpgym.train import PPO, PPOConfig, evaluate  # noqa: E402


def test_ppo_learns_the_inverted_pendulum(tmp_path):
    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=16, num_threads=2)
    agent = PPO(envs, PPOConfig(rollout_steps=64, hidden=(64, 64), seed=0, torch_threads=1))
    rows = agent.learn(total_steps=60_000, out=tmp_path, progress=False, checkpoint_every=10)
    assert (tmp_path / "progress.csv").exists() and (tmp_path / "learning_curve.png").exists()
    assert (tmp_path / "final.pt").exists() and any(tmp_path.glob("checkpoint_*.pt"))
    assert rows[-1]["env_steps"] >= 60_000
    ev = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=8)
    trained = evaluate(ev, lambda o: agent.act(o, deterministic=True), 8)
    rng = np.random.default_rng(0)
    random = evaluate(ev, lambda o: rng.uniform(-3, 3, (8, 1)), 8)
    # random actions topple the pole in ~5 steps; the trained policy balances far longer
    assert trained.mean() > 100 and trained.mean() > 10 * random.mean(), (trained, random)
    # a checkpoint restores the same policy
    other = PPO(ev, PPOConfig(rollout_steps=64, hidden=(64, 64)))
    other.load(tmp_path / "final.pt")
    obs = np.random.default_rng(1).normal(size=(8, 4))
    np.testing.assert_allclose(other.act(obs, deterministic=True), agent.act(obs, deterministic=True))


def test_stable_baselines3_trains_on_an_ncpgym_vector_env():
    sb3 = pytest.importorskip("stable_baselines3")
    from ncpgym.train.sb3 import SB3VecEnv

    envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=4, autoreset_mode="same_step", max_episode_steps=20)
    venv = SB3VecEnv(envs)
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    # terminal observations are handed over the way SB3 expects, for every finished world
    seen = 0
    for _ in range(40):
        venv.step_async(np.zeros((4, 1)))
        obs, rew, done, infos = venv.step_wait()
        for i in np.flatnonzero(done):
            assert infos[i]["terminal_observation"].shape == (4,)
            assert isinstance(infos[i]["TimeLimit.truncated"], bool)
            seen += 1
        assert all("terminal_observation" not in infos[i] for i in np.flatnonzero(~done))
    assert seen >= 4  # every world finished at least once (20-step limit)
    model = sb3.PPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    with pytest.raises(ValueError, match="same_step"):
        SB3VecEnv(gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2))
