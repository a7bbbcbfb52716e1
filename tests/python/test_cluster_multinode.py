"""RayVectorEnv on a simulated two-node cluster (ray.cluster_utils.Cluster): one worker
per node, results bitwise those of the local vector env."""

import gymnasium as gym
import numpy as np
import pytest

import ncpgym  # noqa: F401

ray = pytest.importorskip("ray")
# one pytest-xdist worker runs both Ray modules, one after the other (one Ray instance at a time
# on the machine: scripts/test.sh runs pytest with --dist loadgroup)
pytestmark = pytest.mark.xdist_group("ray")
from ray.cluster_utils import Cluster  # noqa: E402

from ncpgym.cluster import RayVectorEnv  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    try:
        ray.init(address=c.address, log_to_driver=False)
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def test_two_nodes_two_workers(cluster):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    env = RayVectorEnv("ncpgym/HumanoidFlagrun-v0", num_envs=6, num_workers=2, cpus_per_worker=1)
    try:
        _check_two_nodes(env)
    finally:
        env.close()


def _check_two_nodes(env):
    pids = {w["pid"] for w in env.worker_threads()}
    assert len(pids) == 2  # one actor per node's single CPU
    local = gym.make_vec("ncpgym/HumanoidFlagrun-v0", num_envs=6, num_threads=1)
    o1, _ = env.reset(seed=3)
    o2, _ = local.reset(seed=3)
    np.testing.assert_array_equal(o1, o2)
    acts = np.random.default_rng(1).uniform(-1, 1, (20, 6, 17))
    for t in range(20):
        a, b = env.step(acts[t]), local.step(acts[t])
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        np.testing.assert_array_equal(a[4]["reward_terms"]["progress"], b[4]["reward_terms"]["progress"])
