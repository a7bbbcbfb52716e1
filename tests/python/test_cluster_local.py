"""RayVectorEnv and RLlib on a local Ray instance (one instance for the module: Ray
start-up is slow)."""

import gymnasium as gym
import numpy as np
import pytest

import ncpgym  # noqa: F401

ray = pytest.importorskip("ray")
# one pytest-xdist worker runs both Ray modules, one after the other (one Ray instance at a time
# on the machine: scripts/test.sh runs pytest with --dist loadgroup)
pytestmark = pytest.mark.xdist_group("ray")
from ncpgym.cluster import RayVectorEnv, rllib_config  # noqa: E402

ID = "ncpgym/Humanoid-v0"


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture
def closing():
    """Envs registered here are closed after the test, also when it fails (their actors
    would otherwise hold the CPUs the next test's actors wait for)."""
    envs = []
    yield envs.append
    for e in envs:
        e.close()


def test_sharded_env_is_bitwise_the_local_env(closing):
    remote = RayVectorEnv(ID, num_envs=6, num_workers=2, cpus_per_worker=1)
    closing(remote)
    local = gym.make_vec(ID, num_envs=6, num_threads=1)
    assert remote.single_observation_space == local.single_observation_space
    assert remote.action_space.shape == (6, 17) and remote.metadata["autoreset_mode"] == local.metadata["autoreset_mode"]
    assert remote.ranges == [(0, 3), (3, 6)]
    o1, _ = remote.reset(seed=11)
    o2, _ = local.reset(seed=11)
    np.testing.assert_array_equal(o1, o2)
    acts = np.random.default_rng(0).uniform(-0.4, 0.4, (40, 6, 17))
    for t in range(40):
        a, b = remote.step(acts[t]), local.step(acts[t])
        for x, y in zip(a[:4], b[:4]):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(a[4]["x_velocity"], b[4]["x_velocity"])
        assert a[4]["_x_velocity"].all()
    mask = np.array([True, False, False, False, True, False])
    r1, _ = remote.reset(options={"reset_mask": mask})
    r2, _ = local.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(r1, r2)
    seeds = [5, 6, 7, 8, 9, 10]  # one per world: each shard seeds its own
    np.testing.assert_array_equal(remote.reset(seed=seeds)[0], local.reset(seed=seeds)[0])
    with pytest.raises(ValueError, match=r"world\(s\) \[4\]"):
        bad = np.zeros((6, 17))
        bad[4, 0] = np.nan
        remote.step(bad)
    remote.close()
    remote.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        remote.step(acts[0])


def test_worker_threads_follow_cpus_per_worker(closing):
    env = RayVectorEnv(ID, num_envs=4, num_workers=1, cpus_per_worker=2)
    closing(env)
    (info,) = env.worker_threads()
    assert info["batch_threads"] == 2 and info["OMP_NUM_THREADS"] == "2"
    env.close()


def test_a_dead_worker_is_named_with_its_worlds(closing):
    env = RayVectorEnv(ID, num_envs=4, num_workers=2, cpus_per_worker=1)
    closing(env)
    env.reset(seed=0)
    ray.kill(env._workers[1], no_restart=True)
    # ray.kill is asynchronous: wait until the actor is gone (a call right after the kill can
    # still be served, which made this test flaky)
    import time

    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            ray.get(env._workers[1].reset.remote(0, None), timeout=5)
        except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
            break
        time.sleep(0.1)
    with pytest.raises(RuntimeError, match=r"worker 1 \(worlds 2-3\)"):
        env.step(np.zeros((4, 17)))
    env.close()


def test_same_step_autoreset_across_shards(closing):
    env = RayVectorEnv("ncpgym/InvertedPendulum-v0", num_envs=4, num_workers=2, autoreset_mode="same_step",
                       max_episode_steps=3)
    closing(env)
    env.reset(seed=0)
    for _ in range(3):
        obs, r, term, trunc, info = env.step(np.zeros((4, 1)))
    assert trunc.all() and info["_final_obs"].all() and info["final_obs"].shape == (4, 4)
    env.close()


def test_rllib_runs_a_training_iteration_on_an_ncpgym_vector_env():
    pytest.importorskip("ray.rllib")
    cfg = rllib_config("ncpgym/InvertedPendulum-v0", num_envs_per_env_runner=8).training(
        train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
    algo = cfg.build_algo()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
        assert np.isfinite(result["env_runners"]["episode_return_mean"])
    finally:
        algo.stop()
    with pytest.raises(ValueError, match="unknown ncpgym task"):
        rllib_config("ncpgym/Nope-v0")


def test_training_cli_runs_on_ray_workers(tmp_path):
    from ncpgym.train.__main__ import main

    # the step budget ends the run, never the wall clock (--minutes far above what it takes)
    main(["--env", "ncpgym/InvertedPendulum-v0", "--num-envs", "8", "--ray-workers", "2", "--steps", "1024",
          "--minutes", "600", "--rollout-steps", "32", "--eval-episodes", "4", "--no-progress", "--out", str(tmp_path)])
    import json

    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["env_steps"] == 1024 and (tmp_path / "learning_curve.png").exists()  # 4 updates of 8 x 32
