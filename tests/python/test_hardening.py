"""Issue 25: bad input never crashes (a bounded, seeded fuzz of the loader and the Builder),
threads share nothing they should not (concurrent envs and simulators give the sequential
results bitwise), and memory does not grow over resets and env constructions."""

import gc
import threading
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import numpy as np
import pytest

import ncpgym
from ncpgym import scenes

import fuzzing


def test_mutated_mjcf_files_end_in_an_exception_with_a_message_or_a_model_that_steps():
    """300 seeded mutations (odd attribute values, deleted, duplicated and transplanted
    elements) of three MJCF texts: each ends in an exception with a message or a model that
    steps; both kinds occur (a fuzzer whose cases all fail to parse tests nothing)."""
    src = fuzzing.sources()
    rng = np.random.default_rng(25)
    outcomes = {}
    for i in range(300):
        name = sorted(src)[i % len(src)]
        _, out = fuzzing.mjcf_case(src[name], rng)
        outcomes[out] = outcomes.get(out, 0) + 1
    assert outcomes.get("model", 0) >= 30 and outcomes.get("ModelError", 0) >= 100, outcomes


def test_random_builder_call_sequences_end_in_an_exception_with_a_message_or_a_model_that_steps():
    """300 seeded sequences of 25 Builder calls with indices out of range and NaN, negative,
    zero or huge values: every refusal carries a message, every built model steps or says
    why it cannot."""
    rng = np.random.default_rng(26)
    outcomes = {}
    for _ in range(300):
        out = fuzzing.run_case(fuzzing.random_builder(rng), rng)
        outcomes[out] = outcomes.get(out, 0) + 1
    assert outcomes.get("model", 0) >= 100, outcomes


def _rollout(env_id, seed, steps, threads=1):
    envs = gym.make_vec(env_id, num_envs=4, num_threads=threads)
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        a = rng.uniform(envs.single_action_space.low, envs.single_action_space.high,
                        envs.action_space.shape).astype(np.float32)
        obs, r, *_ = envs.step(a)
        out.append(np.concatenate([obs.ravel(), r]))
    envs.close()
    return np.array(out)


def test_two_python_threads_stepping_two_envs_get_the_sequential_results():
    """Two vector envs (2 OpenMP threads each) stepped at the same time from two Python
    threads (the GIL is released inside a step) give, bitwise, what each gives alone."""
    jobs = [("ncpgym/Humanoid-v0", 1), ("ncpgym/PneuNetGrasp-v0", 2)]
    alone = [_rollout(env_id, seed, 40, threads=2) for env_id, seed in jobs]
    together = [None, None]
    start = threading.Barrier(2)

    def run(i):
        start.wait()
        together[i] = _rollout(*jobs[i], 40, threads=2)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(alone, together):
        assert np.array_equal(a, b)


def test_simulators_stepped_from_a_thread_pool_get_the_sequential_results():
    """Four heavy stacks, each stepped in 10 chunks of 30 steps submitted to a pool of four
    threads (a simulator's chunks land on whichever thread is free, never two at once),
    end bitwise where one thread stepping them in turn ends."""
    def make():
        m, q = scenes.heavy_stack()
        sims = []
        for k in range(4):
            s = ncpgym.Simulator(m)
            s.q[:] = q
            s.u[:] = 0.01 * k  # four different trajectories
            sims.append(s)
        return sims

    seq = make()
    for s in seq:
        s.step(nsteps=300)
    pooled = make()
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(10):
            list(pool.map(lambda s: s.step(nsteps=30), pooled))
    for a, b in zip(seq, pooled):
        assert np.array_equal(a.q, b.q) and np.array_equal(a.u, b.u)


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_memory_does_not_grow_over_resets_and_env_constructions():
    """5,000 resets of 16 worlds and 300 constructions and closures of an env, after a
    warm-up of each: the process's resident memory grows by less than 8 MB (300 envs kept
    alive instead, each a batch of 16 humanoid worlds, hold 146 MB: measured)."""
    envs = gym.make_vec("ncpgym/Humanoid-v0", num_envs=16, num_threads=1)
    for i in range(500):
        envs.reset(seed=i)
    gc.collect()
    before = _rss_mb()
    for i in range(5000):
        envs.reset(seed=i)
    envs.close()
    for _ in range(30):
        gym.make_vec("ncpgym/Humanoid-v0", num_envs=16, num_threads=1).close()
    gc.collect()
    mid = _rss_mb()
    for _ in range(300):
        e = gym.make_vec("ncpgym/Humanoid-v0", num_envs=16, num_threads=1)
        e.reset(seed=0)
        e.close()
    gc.collect()
    after = _rss_mb()
    assert after - before < 8.0, (before, mid, after)


def test_a_process_forked_after_threaded_steps_steps_on_one_thread_with_the_same_results():
    """libgomp's threads do not survive fork(): a child forked after its parent stepped a
    2-thread batch used to hang in its first step (multiprocessing's default start method
    on Linux, AsyncVectorEnv and DataLoader workers fork). Batches there run on one thread,
    with the same (bitwise) trajectory, and say so once with a RuntimeWarning."""
    import warnings

    from forking import in_forked_child

    def run():
        envs = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=4, num_threads=2)
        envs.reset(seed=3)
        for k in range(20):
            obs, *_ = envs.step(np.full((4, 1), np.sin(k), np.float32))
        envs.close()
        return obs

    parent = run()  # a 2-thread team has run in this process

    def child():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            obs = run()
        return obs, [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]

    obs, messages = in_forked_child(child, timeout=60)
    np.testing.assert_array_equal(obs, parent)
    assert len(messages) == 1 and "forked" in messages[0] and "'spawn'" in messages[0], messages
