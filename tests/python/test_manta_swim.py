"""ncpgym/MantaSwim-v0 (issue 21): the task's definition checked by hand from its docstring,
the seed's gait as a scripted swimmer, Gymnasium conformance and determinism."""

import gymnasium as gym
import numpy as np
import pytest

import ncpgym
from ncpgym.tasks import manta_swim as ms

from rotations import axis_angle


def make(n=2, threads=1, **kw):
    return ms.MantaSwimVectorEnv(num_envs=n, num_threads=threads, **kw)


def folded(x0, theta):
    """The flat body ``x0`` with both wings raised by theta about the centre line (the y axis,
    x = 0): its centre hinges stand at 2 theta."""
    fold = x0.copy()
    for side in (1, -1):
        w = np.sign(x0[:, 0]) == side
        fold[w, 0] = x0[w, 0] * np.cos(theta)
        fold[w, 2] = x0[w, 2] + abs(x0[w, 0]) * np.sin(theta)
    return fold


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
    assert 0 < np.abs(batch.v).max() <= 0.05 and batch.v.min() < -0.04 and batch.v.max() > 0.04
    a = np.array([[1, -1, 0.5, 0, 0, 0, 0, -0.25]] * 2, np.float32)
    env.step(a)
    # from the flat start the motors move at most 66 rad/s x 25 ms = 1.65 rad towards their
    # commands 2 pi / 3 a (the torque bound, a lead of 14.4 / k_b = 3.12 rad, is not reached)
    np.testing.assert_allclose(batch.activation, np.clip(2 * np.pi / 3 * a.astype(float), -1.65, 1.65), rtol=1e-15)
    unlimited = make(max_torque=np.inf, max_speed=np.inf)
    unlimited.reset(seed=3)
    unlimited.step(a)
    np.testing.assert_allclose(unlimited.batch.activation, 2 * np.pi / 3 * a.astype(float), rtol=1e-15)  # in double
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
    # power: from the flat start (phi = 0, phi_bar 0 -> p) each of the 8 motors does
    # k_b (p / 2) p over 25 ms, k_b = 2 E h^3 / (12 sqrt 3) with E = 6 GPa, h = 2 mm; p is
    # pi / 3 for world 0 and, speed-bound, -1.65 rad for world 1
    kb = 2 * 6e9 * 2e-3 ** 3 / (12 * np.sqrt(3))
    p = np.array([np.pi / 3, -1.65])
    power = 8 * kb * p ** 2 / 2 / 0.025
    np.testing.assert_allclose(info["reward_terms"]["power"], power, rtol=1e-12)
    np.testing.assert_allclose(r, forward - 0.002 * power, rtol=1e-12)
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
    # random flapping does not reach the success distance (measured 0.27 / 0.50 m; at 30
    # Newton iterations 0.44 / 0.69 m, so 0.5 m is not a bound the physics gives)
    assert (np.abs(info["distance"]) < 1.0).all() and not info["is_success"].any()


def test_the_motors_speed_and_torque_bounds_computed_by_hand():
    """The docstring's motor: from the flat start a command of 2 pi / 3 moves the motor by
    min(u, omega_max dt, tau_max / k_b): the speed bound with omega_max = 10 rad/s (0.25 rad),
    the torque bound with tau_max = 2 N m (0.433 rad lead). Then, the body folded by hand so
    the centre hinges stand at phi = +-1.6 rad, a command to the other side leaves the motor
    tau_max / k_b = 3.12 rad beyond phi (default limits; the speed bound alone would allow
    -1.65 rad). The power term uses the lead at the step's start."""
    from ncpgym.shells import hinge_angles

    kb = 2 * 6e9 * 2e-3 ** 3 / (12 * np.sqrt(3))
    ones = np.ones((2, 8), np.float32)
    for kw, moved in (({"max_speed": 10.0}, 0.25), ({"max_torque": 2.0}, 2.0 / kb)):
        env = make(**kw)
        env.reset(seed=0)
        env.step(ones)
        np.testing.assert_allclose(env.batch.activation, moved, rtol=1e-12)
    env = make()
    env.reset(seed=0)
    batch = env.batch
    x0 = np.asarray(batch.model.particle_pos0)
    fold = folded(x0, 0.8)  # centre hinges at 1.6 rad
    batch.x[:] = fold
    batch.v[:] = 0.0
    phi = hinge_angles(batch.model, fold, env.task.centre_hinges)
    np.testing.assert_allclose(np.abs(phi), 1.6, atol=1e-9)
    sign = np.sign(phi[0])
    _, _, _, _, info = env.step(-sign * ones)
    after = phi - sign * 14.4 / kb
    np.testing.assert_allclose(batch.activation, [after] * 2, rtol=1e-12)
    power = np.abs(kb * (after / 2 - phi) * after).sum() / 0.025
    np.testing.assert_allclose(info["reward_terms"]["power"], power, rtol=1e-12)


def test_stroke_frequency_of_sampled_waves():
    """A sine of f Hz sampled at 40 Hz for 5 s strokes at f (within the sampling's
    resolution); a square wave at its own rate; noise at 1 % of the wave does not add
    strokes; a motor that only jitters about its mean counts no stroke in a still world."""
    t = np.arange(200) * 0.025
    rng = np.random.default_rng(0)
    for f in (0.7, 3.4, 6.0, 11.0):
        wave = np.sin(2 * np.pi * f * t - np.linspace(0, np.pi, 8)[:, None]).T
        x = np.stack([wave, np.sign(wave)], axis=1) + 0.01 * rng.normal(size=(200, 2, 8))
        np.testing.assert_allclose(ms.stroke_frequency(x, 0.025), f, rtol=0.03)
    still = np.zeros((200, 1, 8))
    still[::2] = 1e-3
    assert ms.stroke_frequency(still, 0.025)[0] > 15  # alternate samples are strokes too
    still[:] = 0.0
    assert ms.stroke_frequency(still, 0.025)[0] == 0.0


def test_stroke_frequency_by_hand_on_short_sequences():
    """Crossings counted by hand (dt = 0.5 s). A = 0 1 1 0 -1 -1 0 1 1 0 -1 -1 0 (mean 0,
    band 0.25 sd = 0.196; the zeros sit inside it): crossings complete at samples 4, 7 and
    10, so (3 - 1) / (2 x 6 x 0.5) = 1/3 Hz. B = 0 0 0 1 -1 -1 0 0 1 0 0 0 0: crossings at 4
    and 8, two are enough: 1 / (2 x 4 x 0.5) = 1/4 Hz. A constant motor crosses nothing (0),
    and counts in its world's mean; 3 + 0.01 A (its own mean and spread) strokes as A does."""
    A = np.array([0, 1, 1, 0, -1, -1, 0, 1, 1, 0, -1, -1, 0], float)
    B = np.array([0, 0, 0, 1, -1, -1, 0, 0, 1, 0, 0, 0, 0], float)
    x = np.stack([np.stack([A, np.full(13, 5.0)], axis=1), np.stack([3 + 0.01 * A, B], axis=1)], axis=1)
    np.testing.assert_allclose(ms.stroke_frequency(x, 0.5), [1 / 6, (1 / 3 + 1 / 4) / 2], rtol=1e-12)
    one = np.array([1.0, 1.0, -1.0, -1.0])[:, None, None]  # one crossing: no stroke timed
    assert ms.stroke_frequency(one, 0.5).tolist() == [0.0]


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
    for bad in ({"max_torque": 0.0}, {"max_speed": -1.0}, {"max_torque": True}, {"max_speed": "fast"}):
        with pytest.raises(ValueError, match="max_"):
            make(**bad)


def test_manta_swim_argument_bounds_are_the_documented_ones():
    """The constructor's own checks at their edges (no world is built): mesh in [4, 30],
    limits any number > 0 (NumPy scalars and np.inf too); 0, a negative, NaN, -inf, a bool
    or a string refused; the limits stored as the floats given."""
    for mesh in (4, 30, np.int64(17)):
        assert ms.MantaSwimTask(mesh=mesh).mesh == int(mesh)
    for mesh in (3, 31, 10.0, True):
        with pytest.raises(ValueError, match="mesh"):
            ms.MantaSwimTask(mesh=mesh)
    task = ms.MantaSwimTask(max_torque=0.5, max_speed=np.float32(2.5))
    assert (task.max_torque, task.max_speed) == (0.5, 2.5) and type(task.max_speed) is float
    task = ms.MantaSwimTask(max_torque=np.inf, max_speed=7)
    assert (task.max_torque, task.max_speed) == (np.inf, 7.0)
    assert (ms.MantaSwimTask().max_torque, ms.MantaSwimTask().max_speed) == (ms.MAX_TORQUE, ms.MAX_SPEED)
    for name in ("max_torque", "max_speed"):
        for bad in (0, -0.1, np.nan, -np.inf, False, "1"):
            with pytest.raises(ValueError, match=name):
                ms.MantaSwimTask(**{name: bad})


def test_forward_is_measured_from_the_steps_start_and_the_clock_counts_env_steps():
    """forward = (com_y after - com_y before the step) / dt also when the body is away from
    the origin (a sign error there is invisible at y = 0); extra reward terms see the
    control period dt = 5 x 5 ms; the clock observation is sin, cos of 2 pi 3.4 Hz t with
    t = env steps x 25 ms, the elapsed share t / 5 s. mesh = 4 is the smallest accepted,
    a bool or a float is refused."""
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
    for bad in (True, 10.0):
        with pytest.raises(ValueError, match="mesh"):
            make(mesh=bad)


def test_observation_of_a_turned_and_of_a_folded_body_computed_by_hand():
    """The docstring's observation for poses set by hand: the body turned rigidly about its
    centre of mass (forward axis R y, normal R z, tip heights the turned tips' heights above
    the centre of mass, hinge angles 0) and lifted 0.3 m (height 0.3 from the start); then
    folded along its centre line, both wings raised by theta (the centre hinges at 2 theta,
    all of one sign; forward y and normal z unchanged; tip heights half-span x sin theta less the
    centre of mass's rise, which is computed here from the particle masses; the lattice's
    wing tips lie sqrt(3)/4 m from the centre line)."""
    env = make()
    env.reset(seed=2)
    batch = env.batch
    m = np.asarray(batch.model.particle_mass)
    x0 = np.asarray(batch.model.particle_pos0)
    com0 = (m[:, None] * x0).sum(0) / m.sum()
    left, right = np.argmin(x0[:, 0]), np.argmax(x0[:, 0])
    R = axis_angle([0.3, -0.5, 0.8], 0.7)
    batch.x[0] = (x0 - com0) @ R.T + com0 + [0.4, -0.2, 0.3]
    batch.v[:] = 0.0
    theta = 0.25
    fold = folded(x0, theta)
    batch.x[1] = fold
    obs = env.task.observe(batch)
    np.testing.assert_allclose(obs[0, 3:6], R @ [0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(obs[0, 6:9], R @ [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(obs[0, 9], 0.3, atol=1e-12)
    np.testing.assert_allclose(obs[0, 10:18], 0.0, atol=1e-9)
    np.testing.assert_allclose(obs[0, 26:28], [(R @ (x0[k] - com0))[2] for k in (left, right)], atol=1e-12)
    np.testing.assert_allclose(obs[1, 3:9], [0, 1, 0, 0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(np.abs(obs[1, 10:18]), 2 * theta, atol=1e-9)
    assert len(set(np.sign(obs[1, 10:18]))) == 1
    rise = (m * (fold[:, 2] - x0[:, 2])).sum() / m.sum()
    np.testing.assert_allclose(obs[1, 9], rise, atol=1e-12)
    half_span = x0[right, 0]  # the lattice's tips: 0.43 m, inside the 1 m rhombus
    np.testing.assert_allclose(half_span, np.sqrt(3) / 4, atol=1e-12)
    np.testing.assert_allclose(obs[1, 26:28], half_span * np.sin(theta) - rise, atol=1e-12)
    np.testing.assert_allclose(obs[:, :3], 0.0, atol=1e-15)


def test_spaces_scripted_gait_and_a_partial_reset_follow_the_docstring():
    """Spaces: actions float32 in [-1, 1]^8, observations float64 unbounded (31). The seed's
    gait at env step k: a_j = sin(2 pi 3.4 Hz t - phi_j), t = 25 ms k, phi_j = j pi / 7.
    Resetting world 1 alone zeroes its natural angles, its commanded angles in the
    observation, its clock and its start (the centre of mass at the reset); world 0 goes on."""
    env = make()
    act, obs_space = env.single_action_space, env.single_observation_space
    assert act.dtype == np.float32 and act.shape == (8,)
    assert np.all(act.low == -1.0) and np.all(act.high == 1.0)
    assert obs_space.dtype == np.float64 and obs_space.shape == (31,)
    assert np.all(obs_space.low == -np.inf) and np.all(obs_space.high == np.inf)
    env.reset(seed=4)
    for k in range(3):
        a = ms.scripted_actions(env.task, env.batch)
        t = k * 0.025
        np.testing.assert_allclose(a, [np.sin(2 * np.pi * 3.4 * t - np.arange(8) * np.pi / 7)] * 2, atol=1e-12)
        obs, *_ = env.step(np.full((2, 8), 0.5, np.float32))
    env.batch.x[1, :, 1] += 2.0  # world 1 carried 2 m forward before its reset
    obs, _ = env.reset(options={"reset_mask": np.array([False, True])})
    np.testing.assert_allclose(env.batch.activation[0], 2 * np.pi / 3 * 0.5)
    np.testing.assert_allclose(env.batch.activation[1], 0.0)
    np.testing.assert_allclose(obs[1, 18:26], 0.0)
    np.testing.assert_allclose(obs[0, 18:26], 2 * np.pi / 3 * 0.5)
    t = 3 * 0.025
    np.testing.assert_allclose(obs[:, 28:31], [[np.sin(2 * np.pi * 3.4 * t), np.cos(2 * np.pi * 3.4 * t), t / 5],
                                               [0.0, 1.0, 0.0]], atol=1e-12)
    _, _, _, _, info = env.step(np.zeros((2, 8), np.float32))
    assert abs(info["distance"][1]) < 0.01  # measured from where the reset left the body
    assert 0.0 < np.abs(env.batch.v[1]).max()
    with pytest.raises(ValueError, match="mesh"):
        make(mesh=31)
    assert make(mesh=30).single_action_space.shape == (28,)
