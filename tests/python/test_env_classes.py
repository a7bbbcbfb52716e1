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


# gymnasium.logger.warn's text (colour codes around "WARN: " + the message), matched whole
RENDER_WARNING = r"WARN: render\(\) needs render_mode='rgb_array' when making the env(\x1b\[0m)?$"


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
    with pytest.warns(UserWarning, match=RENDER_WARNING):
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
    s.reset(seed=0)
    s.batch.u[0, 0] = np.nan  # the world diverges: truncated (not terminated), reward 0
    _, reward, terminated, truncated, info = s.step(np.zeros(1, np.float32))
    assert (reward, terminated, truncated, info["diverged"]) == (0.0, False, True, True)
    s.close()
    s.close()  # twice is fine
    with pytest.raises(RuntimeError, match=r"^this environment is closed; make a new one$"):
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
    with pytest.warns(UserWarning, match=RENDER_WARNING):
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
    # the last observations are copied too: a partial reset returns the other worlds' rows
    # as the state had them, not as the dict says after set_state
    d = Vec(3, num_threads=1)
    state = a.get_state()
    saved = state["obs"].copy()
    d.set_state(state)
    state["obs"][:] = 99.0
    kept, _ = d.reset(options={"reset_mask": np.array([True, False, False])})
    np.testing.assert_array_equal(kept[1:], saved[1:])
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
    # the same worlds (world_offset too): only the camera differs
    plain = Vec(3, num_threads=1, world_offset=2, render_mode="rgb_array", render_worlds=[2], width=24, height=16)
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


class _Float32Obs(InvertedPendulumTask):
    """InvertedPendulum observed in float32 (Gymnasium's default Box dtype)."""

    def spaces(self, model):
        obs, act = super().spaces(model)
        return gym.spaces.Box(-np.inf, np.inf, obs.shape, np.float32), act

    def observe(self, batch):
        return super().observe(batch).astype(np.float32)


class _Recorded(InvertedPendulumTask):
    """InvertedPendulum whose after_reset hook records what it was called with."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def after_reset(self, batch, worlds):
        self.calls.append((batch, np.asarray(worlds).tolist()))


class _Unbuildable(InvertedPendulumTask):
    def build_model(self):
        raise AssertionError("the model was built")


def test_direct_constructors_default_to_one_world_all_cores_and_world_0():
    """NcpVectorEnv(task) without arguments: one world, every core (num_threads 0: the
    Batch's default team), world numbering from 0 (world i seeded from (seed, i): the rows
    of a 2-world env are worlds 0 and 1, row 1 is a 1-world env at world_offset 1), the
    class metadata kept (render_modes) beside autoreset_mode and render_fps. NcpEnv(task):
    one thread, world 0 of the same seeding."""
    from ncpgym.vector import NcpEnv

    model = InvertedPendulumTask().build_model()
    v = NcpVectorEnv(InvertedPendulumTask())
    assert v.num_envs == 1 and v.num_threads == ncpgym.Batch(model, 1).num_threads
    assert v.metadata["render_modes"] == ["rgb_array"]
    assert v.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert v.metadata["render_fps"] == pytest.approx(1.0 / v.dt)
    two, _ = NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1).reset(seed=3)
    second, _ = NcpVectorEnv(InvertedPendulumTask(), 1, num_threads=1, world_offset=1).reset(seed=3)
    assert not np.array_equal(two[0], two[1])
    np.testing.assert_array_equal(second[0], two[1])
    s = NcpEnv(InvertedPendulumTask())
    assert s.batch.num_threads == 1
    np.testing.assert_array_equal(s.reset(seed=3)[0], two[0])


def test_constructor_and_reset_arguments_are_refused_with_their_messages():
    """The refusals' whole texts: unknown task kwargs (sorted), world_offset, max_episode_steps
    (1 is allowed: every step truncates), autoreset_mode (the AutoresetMode's own value
    'SameStep' is accepted, 'Disabled' is not), render_mode (refused before the task's model
    is built), a negative seed."""
    from ncpgym.vector import NcpEnv, Task

    class Bare(Task):
        pass

    with pytest.raises(TypeError, match=r"^Bare got unexpected arguments: \['alpha', 'zeta'\]$"):
        Bare(zeta=1, alpha=2)
    for bad in (-1, 1.5):
        with pytest.raises(ValueError, match=rf"^world_offset must be a non-negative integer, got {bad}$"):
            NcpVectorEnv(InvertedPendulumTask(), 2, world_offset=bad)
    with pytest.raises(ValueError, match=r"^max_episode_steps must be >= 1 or None, got 0$"):
        NcpVectorEnv(InvertedPendulumTask(), 2, max_episode_steps=0)
    one = NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1, max_episode_steps=1)
    one.reset(seed=0)
    assert one.step(np.zeros((2, 1), np.float32))[3].tolist() == [True, True]
    v = NcpVectorEnv(InvertedPendulumTask(), 2, autoreset_mode="SameStep")
    assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    for bad in ("Disabled", "never"):
        with pytest.raises(ValueError, match=r"^autoreset_mode must be 'next_step' or 'same_step' "
                                             rf"\(or the AutoresetMode\), got '{bad}'$"):
            NcpVectorEnv(InvertedPendulumTask(), 2, autoreset_mode=bad)
    msg = r"^render_mode 'human' is not supported; supported: \['rgb_array'\] or None$"
    with pytest.raises(ValueError, match=msg):
        NcpVectorEnv(_Unbuildable(), 2, render_mode="human")
    with pytest.raises(ValueError, match=msg):
        NcpEnv(_Unbuildable(), render_mode="human")
    with pytest.raises(ValueError, match=r"^seed must be an integer in \[0, 2\*\*64\) or one per world, got -1$"):
        v.reset(seed=-1)
    # the streams take 64-bit seeds: 2**64 is refused as a ValueError, not a binding error
    with pytest.raises(ValueError, match=r"^seed must be an integer in \[0, 2\*\*64\) or one per world, got 18446744073709551616$"):
        v.reset(seed=2**64)
    with pytest.raises(ValueError, match=r"^seed: expected one integer in \[0, 2\*\*64\) per world \(2\), got \[0, 18446744073709551616\]$"):
        v.reset(seed=[0, 2**64])
    v.reset(seed=2**64 - 1)
    v.reset(seed=[2**64 - 1, 0])
    v.reset(seed=0)
    v.close()
    with pytest.raises(RuntimeError, match=r"^this environment is closed; make a new one$"):
        v.step(np.zeros((2, 1), np.float32))


def test_a_refused_construction_leaves_nothing_that_fails_to_close(monkeypatch):
    """A constructor that raises leaves a half-made VectorEnv, which Gymnasium's __del__
    closes: that close must not fail (it would print 'Exception ignored in ... __del__')."""
    import gc
    import sys

    raised = []
    monkeypatch.setattr(sys, "unraisablehook", raised.append)

    def make(**kwargs):
        try:
            NcpVectorEnv(InvertedPendulumTask(), **kwargs)
        except ValueError:
            return
        raise AssertionError(f"{kwargs} was accepted")

    for bad in (dict(autoreset_mode="never"), dict(num_envs=0), dict(num_envs=2, render_worlds=[5]),
                dict(num_envs=2, max_episode_steps=0)):
        make(**bad)
        gc.collect()
    assert [str(r.exc_value) for r in raised] == []


def test_close_releases_the_renderer():
    """close() frees the renderer's OpenGL context (MuJoCo's Renderer.close), for the
    vector and the single env, once; closing twice is fine."""
    from ncpgym.vector import NcpEnv

    for env in (NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1, render_mode="rgb_array", width=8, height=6),
                NcpEnv(InvertedPendulumTask(), render_mode="rgb_array", width=8, height=6)):
        env.reset(seed=0)
        env.render()
        held = env._render
        gl = held._r._renderer
        assert gl._gl_context is not None
        env.close()
        assert held._r is None and gl._gl_context is None and gl._mjr_context is None
        env.close()


def test_reset_observations_keep_the_spaces_dtype():
    """A task observed in float32: the reset observations are float32 and inside the
    observation space (Gymnasium's contains checks the dtype), as the steps' are."""
    v = NcpVectorEnv(_Float32Obs(), 2, num_threads=1)
    obs, _ = v.reset(seed=0)
    assert obs.dtype == np.float32 and v.observation_space.contains(obs)
    obs, *_ = v.step(np.zeros((2, 1), np.float32))
    assert obs.dtype == np.float32 and v.observation_space.contains(obs)


def test_reset_without_a_seed_draws_a_fresh_one_and_reset_step_is_a_mask():
    """Gymnasium: reset(seed=None) on a new env seeds from fresh entropy, so two new envs
    start differently; reset_step (the worlds a step only reset) is a boolean mask, all False
    before any step, usable as an index."""
    a, b = NcpVectorEnv(InvertedPendulumTask(), 2), NcpVectorEnv(InvertedPendulumTask(), 2)
    oa, _ = a.reset()
    ob, _ = b.reset()
    assert not np.array_equal(oa, ob)
    assert a.reset_step.dtype == bool and not a.reset_step.any()
    assert oa[a.reset_step].shape == (0, 4)


def test_per_world_seeds_follow_the_world_offset_and_keep_all_64_bits():
    """reset(seed=[s0, s1]) seeds world offset + i from (s_i, offset + i): a 2-world env at
    offset 1 is rows 1-2 of a 3-world env given the same seeds there; a seed above 2**63 is
    used whole (world i of seed=[s, ...] is world i of seed=s)."""
    shard, _ = NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1, world_offset=1).reset(seed=[5, 6])
    full, _ = NcpVectorEnv(InvertedPendulumTask(), 3, num_threads=1).reset(seed=[4, 5, 6])
    np.testing.assert_array_equal(shard, full[1:])
    big = 2**63 + 1
    mixed, _ = NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1).reset(seed=[big, 7])
    alone, _ = NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1).reset(seed=big)
    seven, _ = NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1).reset(seed=7)
    near, _ = NcpVectorEnv(InvertedPendulumTask(), 2, num_threads=1).reset(seed=2**63)
    np.testing.assert_array_equal(mixed[0], alone[0])
    np.testing.assert_array_equal(mixed[1], seven[1])
    assert not np.array_equal(alone[0], near[0])  # the last bit counts


def test_reset_hooks_see_the_batch_and_the_reset_worlds_before_the_observation():
    """The task's after_reset and every callable in reset_hooks get (batch, indices of the
    worlds reset): on reset (all, or the reset_mask's) and on a next-step autoreset; a hook
    runs before the worlds' first observation (what it sets is observed)."""
    task = _Recorded()
    v = NcpVectorEnv(task, 3, num_threads=1)
    seen = []

    def hook(batch, worlds):
        seen.append((batch, np.asarray(worlds).tolist()))
        batch.q[worlds, 0] = 0.125  # the cart's position

    v.reset_hooks.append(hook)
    obs, _ = v.reset(seed=0)
    np.testing.assert_array_equal(obs[:, 0], 0.125)
    moved, *_ = v.step(np.full((3, 1), 0.5, np.float32))
    obs, _ = v.reset(options={"reset_mask": np.array([True, False, True])})
    assert obs[:, 0].tolist() == [0.125, moved[1, 0], 0.125] and moved[1, 0] != 0.125
    assert [(b is v.batch, w) for b, w in seen] == [(True, [0, 1, 2]), (True, [0, 2])]
    assert [(b is v.batch, w) for b, w in task.calls] == [(True, [0, 1, 2]), (True, [0, 2])]
    end = NcpVectorEnv(task, 3, num_threads=1, max_episode_steps=1)
    end.reset_hooks.append(hook)
    end.reset(seed=0)
    seen.clear()
    task.calls.clear()
    end.step(np.zeros((3, 1), np.float32))  # truncates every world
    end.step(np.zeros((3, 1), np.float32))  # the reset step
    assert [w for _, w in seen] == [[0, 1, 2]] and [w for _, w in task.calls] == [[0, 1, 2]]


class _Clocked(InvertedPendulumTask):
    """InvertedPendulum whose observation also reads a task clock that every evaluate
    advances (as a flag or a timer would): a world's fresh observation then differs from
    its last one even when its state did not move."""

    def __init__(self):
        super().__init__()
        self.clock = 0.0

    def observe(self, batch):
        return np.concatenate([super().observe(batch), np.full((batch.num_worlds, 1), self.clock)], axis=1)

    def evaluate(self, batch, before, ctrl, dt):
        self.clock += 1.0
        return super().evaluate(batch, before, ctrl, dt)

    def spaces(self, model):
        obs, act = super().spaces(model)
        return gym.spaces.Box(-np.inf, np.inf, (obs.shape[0] + 1,), obs.dtype), act


def test_a_diverged_world_keeps_its_last_observation_until_it_is_reset():
    """A NumPy-observed task: the world whose step diverges returns its last finite
    observation (not one made afresh from its kept state and the task's moved clock), and
    still does when a partial reset() of another world follows."""
    Vec, _ = env_classes(_Clocked, "Clocked")
    v = Vec(3, num_threads=1)
    v.reset(seed=0)
    zero = np.zeros((3, 1), np.float32)
    last, *_ = v.step(zero)
    v.batch.u[1, 0] = np.nan
    obs, _, _, truncated, info = v.step(zero)
    assert info["diverged"].tolist() == [False, True, False] and truncated[1]
    np.testing.assert_array_equal(obs[1], last[1])
    assert obs[0, -1] == obs[2, -1] == last[0, -1] + 1.0  # the others see the clock move
    kept, _ = v.reset(options={"reset_mask": np.array([True, False, False])})
    np.testing.assert_array_equal(kept[1], last[1])
    np.testing.assert_array_equal(kept[2], obs[2])
    v.close()
