"""The env classes of a task (vector.env_classes), the single-world env (NcpEnv) and the
vector env's state, pickling, info zeroing and errors, against their docstrings and
Gymnasium's conventions. Classes are made at test time (the registered ones are made when
ncpgym is imported), with InvertedPendulum-v0's task: fast enough for mutation testing."""

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import ncpgym
from ncpgym.tasks.inverted_pendulum import InvertedPendulumTask
from ncpgym.vector import NcpVectorEnv, env_classes



def _classes():
    # made inside each test: made once at import, mutmut's forked runs could not switch
    # env_classes' mutants on (the registered classes are made at ncpgym's import)
    return env_classes(InvertedPendulumTask, "Pend")


def test_env_classes_names_docs_and_defaults():
    """``<name>VectorEnv`` and ``<name>Env``, documented as the task, in the task's module;
    defaults from the docstring: one world, every core (num_threads 0), next-step
    autoreset, the task's episode limit, world offset 0, no rendering; the single env on
    one thread."""
    Vec, One = _classes()
    assert (Vec.__name__, One.__name__) == ("PendVectorEnv", "PendEnv")
    doc = "Pend: see ncpgym.tasks.inverted_pendulum.InvertedPendulumTask."
    assert Vec.__doc__ == doc and One.__doc__ == doc
    assert Vec.__module__ == One.__module__ == "ncpgym.tasks.inverted_pendulum"
    v = Vec()
    assert v.num_envs == 1 and v.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert v.max_episode_steps == InvertedPendulumTask.max_episode_steps == 1000 and v.render_mode is None
    assert v.batch.num_threads == ncpgym.Batch(v.batch.model, 1).num_threads  # 0: the default team
    assert repr(v) == "PendVectorEnv(InvertedPendulumTask, num_envs=1)"
    s = One()
    assert s.batch.num_threads == 1 and s.render_mode is None and s.batch.num_worlds == 1
    assert s.metadata["render_fps"] == pytest.approx(1.0 / s.dt) and s.metadata["render_modes"] == ["rgb_array"]


def test_every_vector_argument_reaches_the_env_and_task_kwargs_reach_the_task(tmp_path):
    """num_envs, num_threads, autoreset_mode, max_episode_steps (truncation), world_offset
    (world i draws from stream offset + i: the same worlds as rows 2-4 of a 5-world env),
    render_mode, render_worlds, width, height; task kwargs (reward_weights) reach the task."""
    Vec, One = _classes()
    v = Vec(3, num_threads=1, autoreset_mode="same_step", max_episode_steps=4, world_offset=2,
            render_mode="rgb_array", render_worlds=[1], width=32, height=24, reward_weights={"survive": 2.5})
    assert v.num_envs == 3 and v.batch.num_threads == 1
    assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, _ = v.reset(seed=9)
    wide = Vec(5, num_threads=1)
    np.testing.assert_array_equal(obs, wide.reset(seed=9)[0][2:])
    assert v.render_worlds == [1] and v.render().shape == (1, 24, 32, 3)
    zero = np.zeros((3, 1), np.float32)
    for k in range(4):
        _, reward, _, truncated, info = v.step(zero)
    assert truncated.all()  # the 4th step
    np.testing.assert_allclose(reward, 2.5 * info["final_info"]["reward_terms"]["survive"])
    v.close()
    s = One(num_threads=2, render_mode="rgb_array", width=40, height=30, reward_weights={"survive": 3.0})
    assert s.batch.num_threads == 2
    s.reset(seed=1)
    assert s.render().shape == (30, 40, 3)
    _, reward, *_ = s.step(np.zeros(1, np.float32))
    assert reward == 3.0
    s.close()


def test_the_single_env_returns_gymnasium_types_and_refuses_misuse():
    """step/render before reset raise, render without render_mode warns and returns None;
    step returns (obs, float, bool, bool, info) with per-world scalars as Python numbers
    and per-world arrays as arrays; after close, every call is refused."""
    Vec, One = _classes()
    s = One()
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\)$"):
        s.step(np.zeros(1, np.float32))
    s.reset(seed=0)
    with pytest.warns(UserWarning, match=r"render\(\) needs render_mode='rgb_array' when making the env"):
        assert s.render() is None
    obs, reward, terminated, truncated, info = s.step(np.ones(1, np.float32))
    assert obs.shape == (4,) and type(reward) is float
    assert type(terminated) is bool and type(truncated) is bool and terminated is False
    assert type(info["reward_survive"]) is float and type(info["diverged"]) is bool
    assert type(info["reward_terms"]["survive"]) is float
    for _ in range(200):  # the pole falls: terminated becomes True (a bool)
        *_, terminated, truncated, info = s.step(np.ones(1, np.float32))
        if terminated:
            break
    assert terminated is True and truncated is False
    s.close()
    s.close()  # twice is fine
    with pytest.raises(RuntimeError, match="closed"):
        s.reset()
    r = One(render_mode="rgb_array", width=16, height=12)
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before render\(\): the world has no state yet$"):
        r.render()
    r.close()


def test_vector_render_errors_repr_and_pickling():
    """render() without render_mode warns and returns None, before reset it raises; the
    repr names class, task and size; an env of registered classes pickles (rebuilt from
    its arguments, state restored; closed: no state), one made directly is refused."""
    from ncpgym.tasks.inverted_pendulum import InvertedPendulumVectorEnv

    v = InvertedPendulumVectorEnv(2)
    v.reset(seed=0)
    with pytest.warns(UserWarning, match=r"render\(\) needs render_mode='rgb_array' when making the env"):
        assert v.render() is None
    r = InvertedPendulumVectorEnv(2, render_mode="rgb_array", width=16, height=12)
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before render\(\): the worlds have no state yet$"):
        r.render()
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\)$"):
        r.step(np.zeros((2, 1), np.float32))
    r.close()
    direct = NcpVectorEnv(InvertedPendulumTask(), 2)
    assert repr(direct) == "NcpVectorEnv(InvertedPendulumTask, num_envs=2)"
    with pytest.raises(TypeError, match="^NcpVectorEnv made without env_classes cannot be pickled$"):
        pickle.dumps(direct)
    twin = pickle.loads(pickle.dumps(v))  # made by env_classes: rebuilt, state restored
    assert type(twin) is InvertedPendulumVectorEnv
    a = np.full((2, 1), 0.5, np.float32)
    np.testing.assert_array_equal(twin.step(a)[0], v.step(a)[0])
    v.close()
    fresh = pickle.loads(pickle.dumps(v))  # closed: rebuilt without a state, so it needs a reset
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        fresh.step(a)


def test_set_state_copies_what_it_is_given():
    """set_state keeps copies: changing the state dict afterwards changes nothing; a state
    taken before the first reset restores 'needs a reset'; the 'seeded' flag travels (a
    seeded env's reset(seed=None) keeps its streams: the same as the original's)."""
    Vec, One = _classes()
    a, b = Vec(3, num_threads=1), Vec(3, num_threads=1)
    a.reset(seed=4)
    for _ in range(3):
        a.step(np.full((3, 1), 0.2, np.float32))
    state = a.get_state()
    b.set_state(state)
    state["obs"][:] = 99.0
    state["elapsed"][:] = 10**6
    state["pending"][:] = True
    state["reset_step"][:] = True
    np.testing.assert_array_equal(b.reset_step, a.reset_step)
    act = np.full((3, 1), -0.3, np.float32)
    for x, y in zip(a.step(act)[:4], b.step(act)[:4]):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])  # seeded travelled: same streams kept
    c = Vec(3)
    c.set_state(Vec(3).get_state())  # taken before any reset
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        c.step(act)


def test_the_reset_step_reports_zeros_for_the_reset_worlds():
    """Next-step autoreset: on the step that only resets a finished world, its reward is 0
    and its info entries are cleared (floats 0, booleans False, nested reward terms too),
    the other worlds' entries are theirs. Same-step autoreset: final_info is a copy
    (changing the step's info afterwards leaves it alone)."""
    Vec, One = _classes()
    v = Vec(3, num_threads=1)
    v.reset(seed=0)
    push = np.array([[1.0], [0.0], [0.0]], np.float32)
    for _ in range(300):
        _, _, terminated, _, info = v.step(push)
        if terminated[0]:
            break
    assert terminated[0] and not terminated[1:].any()
    # world 0 resets on this step; make world 1 look diverged-free and its terms nonzero
    _, reward, _, _, info = v.step(np.zeros((3, 1), np.float32))
    assert v.reset_step.tolist() == [True, False, False]
    assert reward[0] == 0.0 and reward[1] == 1.0
    assert info["reward_terms"]["survive"][0] == 0.0 and info["reward_terms"]["survive"][1] == 1.0
    assert info["reward_survive"][0] == 0.0 and info["reward_survive"][1] == 1.0
    assert info["diverged"].dtype == bool and not info["diverged"].any()

    s = Vec(2, num_threads=1, autoreset_mode="same_step")
    s.reset(seed=0)
    for _ in range(300):
        _, _, terminated, _, info = s.step(np.array([[1.0], [0.0]], np.float32))
        if terminated[0]:
            break
    assert terminated[0]
    kept = info["final_info"]["reward_terms"]["survive"].copy()
    info["reward_terms"]["survive"][:] = 123.0
    np.testing.assert_array_equal(info["final_info"]["reward_terms"]["survive"], kept)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.close()


class _Scripted(InvertedPendulumTask):
    """InvertedPendulum with terminations set by the test (``end``) and two info entries
    that are nonzero for every world: a float count and a bool flag."""

    end = None

    def evaluate(self, batch, before, ctrl, dt):
        reward, terminated, info = super().evaluate(batch, before, ctrl, dt)
        n = batch.num_worlds
        if self.end is not None:
            terminated = self.end.copy()
        info["count"] = np.ones(n)
        info["flag"] = np.ones(n, bool)
        return reward, terminated, info


def test_info_rows_of_reset_and_diverged_worlds_are_cleared_and_the_others_kept():
    """Next-step autoreset: on the step that only resets world 0, its float info entries are
    0 and its bool ones False; world 1, which terminates on that same step, reports its
    termination and its own entries. A world that diverges (NaN injected) gets the same
    clearing, and another world's termination on that step stands. Same-step autoreset:
    final_info's nested masks are the finished worlds', masks are bool, final_info is a
    copy. One world's NaN action is named in the error."""
    Vec, One = env_classes(_Scripted, "Scripted")
    v = Vec(3, num_threads=1)
    task = v.unwrapped._c.task
    v.reset(seed=0)
    zero = np.zeros((3, 1), np.float32)
    task.end = np.array([True, False, False])
    v.step(zero)
    task.end = np.array([False, True, False])
    _, reward, terminated, _, info = v.step(zero)  # world 0 resets, world 1 ends
    assert v.reset_step.tolist() == [True, False, False]
    assert terminated.tolist() == [False, True, False] and reward[0] == 0.0
    assert info["count"].tolist() == [0.0, 1.0, 1.0] and info["flag"].tolist() == [False, True, True]
    assert info["_count"].dtype == bool and info["_reward_terms"].dtype == bool
    assert info["reward_terms"]["_survive"].dtype == bool and info["reward_terms"]["_survive"].all()
    task.end = np.array([False, False, True])
    v.unwrapped.batch.u[0, 0] = np.nan  # world 0 diverges; world 2 ends on this step
    _, reward, terminated, truncated, info = v.step(zero)  # (world 1, ended last step, resets)
    assert info["diverged"].tolist() == [True, False, False] and truncated[0] and reward[0] == 0.0
    assert terminated.tolist() == [False, False, True]
    assert info["count"].tolist() == [0.0, 0.0, 1.0] and info["flag"].tolist() == [False, False, True]
    v.close()

    s = Vec(3, num_threads=1, autoreset_mode="same_step")
    task = s.unwrapped._c.task
    s.reset(seed=0)
    task.end = np.array([False, True, False])
    _, _, _, _, info = s.step(zero)
    done = np.array([False, True, False])
    np.testing.assert_array_equal(info["_final_info"], done)
    np.testing.assert_array_equal(info["final_info"]["_count"], done)
    np.testing.assert_array_equal(info["final_info"]["reward_terms"]["_survive"], done)
    assert info["final_info"]["reward_terms"]["_survive"].dtype == bool
    s.close()
    one = One()
    one.reset(seed=0)
    with pytest.raises(ValueError, match=r"NaN or inf in world\(s\) \[0\]$"):
        one.step(np.array([np.nan], np.float32))


def test_reset_seeds_the_envs_own_generator_and_refuses_bad_seeds():
    """Gymnasium's VectorEnv.reset(seed) seeds env.np_random: with the seed, or with the
    first world's seed when one is given per world."""
    Vec, _ = env_classes(InvertedPendulumTask, "Pend")
    v = Vec(3)
    v.reset(seed=5)
    assert v.np_random_seed == 5
    v.reset(seed=[8, 9, 10])
    assert v.np_random_seed == 8
    with pytest.raises(ValueError, match="seed must be an integer, one per world, or None, got 'x'"):
        v.reset(seed="x")


def test_frame_skip_steps_the_batch_that_many_times():
    """An env step is frame_skip physics steps with the control held: Humanoid-v0 with
    frame_skip=3 against its batch stepped by hand (3 substeps) from the same state."""
    env = gym.make_vec("ncpgym/Humanoid-v0", num_envs=2, num_threads=1, frame_skip=3)
    env.reset(seed=1)
    b = env.unwrapped.batch
    twin = ncpgym.Batch(b.model, 2, num_threads=1, **b.options)
    twin.q[:], twin.u[:] = b.q, b.u
    twin.forward()
    a = np.full((2, 17), 0.2, np.float32)
    env.step(a)
    twin.step(a.astype(np.float64), 3)  # the float32 action as it is
    np.testing.assert_array_equal(b.q, twin.q)
    assert env.unwrapped.dt == pytest.approx(3 * b.timestep)
    env.close()


def test_a_copy_is_made_with_every_argument_and_continues_the_state():
    """copy.deepcopy goes through the same rebuild as pickling (the class made with the
    env's arguments, then its state): every argument and task kwarg survives, and the copy
    steps as the original. A camera given to the env is the one that draws (not the
    task's default)."""
    import copy

    from ncpgym.render import Camera

    Vec, One = _classes()
    cam = Camera(lookat=(0.0, 0.0, 0.0), distance=9.0, azimuth=0.0, elevation=-60.0)
    v = Vec(3, num_threads=1, autoreset_mode="same_step", max_episode_steps=7, world_offset=2,
            render_mode="rgb_array", render_worlds=[2], width=24, height=16, camera=cam,
            reward_weights={"survive": 2.0})
    v.reset(seed=3)
    v.step(np.full((3, 1), 0.1, np.float32))
    w = copy.deepcopy(v)
    assert type(w) is type(v) and w.num_envs == 3 and w.batch.num_threads == 1
    assert w.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP and w.max_episode_steps == 7
    assert w._c.world_offset == 2 and w.render_mode == "rgb_array" and w.render_worlds == [2]
    assert w.render().shape == (1, 16, 24, 3)
    np.testing.assert_array_equal(w.render(), v.render())
    a = np.full((3, 1), -0.2, np.float32)
    for x, y in zip(w.step(a)[:4], v.step(a)[:4]):
        np.testing.assert_array_equal(x, y)
    assert w.step(a)[1][0] == 2.0  # the task kwarg (reward weight) travelled
    plain = Vec(3, num_threads=1, render_mode="rgb_array", render_worlds=[2], width=24, height=16)
    plain.reset(seed=3)
    v.reset(seed=3)
    assert not np.array_equal(plain.render(), v.render())  # the given camera draws
    s = One(render_mode="rgb_array", width=24, height=16, camera=cam)
    t = One(render_mode="rgb_array", width=24, height=16)
    s.reset(seed=0)
    t.reset(seed=0)
    assert not np.array_equal(s.render(), t.render())
    for e in (v, w, plain, s, t):
        e.close()
