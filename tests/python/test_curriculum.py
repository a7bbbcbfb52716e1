"""ncpgym.tasks.curriculum.FailureWeightedDraw on its own, against its docstring computed by
hand (the tasks that use it, HumanoidFlagrunHarder and FetchTomato's demo_starts, test it
through their episodes in test_task_definitions.py and test_fetch_tomato.py)."""

import numpy as np
import pytest

from ncpgym.tasks.curriculum import FailureWeightedDraw


def test_every_rate_starts_at_initial_and_the_draw_is_proportional_to_floor_plus_rate():
    d = FailureWeightedDraw(3)
    np.testing.assert_array_equal(d.failure, [0.5, 0.5, 0.5])
    assert (d.floor, d.decay) == (0.1, 0.95)
    np.testing.assert_allclose(d.probabilities, [1 / 3] * 3, rtol=1e-15)
    d = FailureWeightedDraw(4, floor=0.2, initial=0.3, decay=0.5)
    d.failure[:] = [0.0, 0.3, 0.8, 1.0]
    np.testing.assert_allclose(d.probabilities, np.array([0.2, 0.5, 1.0, 1.2]) / 2.9, rtol=1e-15)


def test_a_finished_batch_moves_its_options_rate_by_one_minus_decay_to_the_n():
    """n episodes of one option at once move its rate by (1 - decay^n) (mean - rate); other
    options keep theirs. By hand: rate 0.5, decay 0.95, three episodes failing 1, 1, 0 (mean
    2/3): 0.5 + (1 - 0.857375) (2/3 - 0.5) = 0.52377083...; one episode of option 2 that
    succeeded: 0.5 - 0.05 * 0.5 = 0.475."""
    d = FailureWeightedDraw(3)
    d.record(np.array([1, 1, 2, 1]), np.array([True, True, False, False]))
    np.testing.assert_allclose(d.failure, [0.5, 0.5 + (1 - 0.95 ** 3) * (2 / 3 - 0.5), 0.475], rtol=1e-14)
    assert abs(d.failure[1] - 0.523770833) < 1e-9


def test_the_update_does_not_depend_on_how_episodes_are_batched():
    """n episodes at once are n steps of their mean: recording [1, 0] together equals two
    records of 0.5, and 40 failures at once approach 1 without overshooting it."""
    a, b = FailureWeightedDraw(2), FailureWeightedDraw(2)
    a.record([0, 0], [1.0, 0.0])
    b.record([0], [0.5])
    b.record([0], [0.5])
    np.testing.assert_allclose(a.failure, b.failure, rtol=1e-15)
    c = FailureWeightedDraw(1, initial=0.0)
    c.record(np.zeros(40, int), np.ones(40))
    assert 0.87 < c.failure[0] <= 1.0
    np.testing.assert_allclose(c.failure[0], 1 - 0.95 ** 40, rtol=1e-14)


@pytest.mark.parametrize("r, option", [(0.0, 0), (0.0999, 0), (0.1, 1), (0.35, 1), (0.3999, 1), (0.4, 2),
                                       (0.9999999, 2), (1.0, 2)])
def test_draw_picks_the_first_option_whose_cumulative_probability_exceeds_r(r, option):
    """Probabilities (0.1, 0.3, 0.6): cumulative 0.1, 0.4, 1.0; r = 1.0 (or a cumulative sum
    that rounds below r) stays the last option."""
    d = FailureWeightedDraw(3, floor=0.0)
    d.failure[:] = [0.1, 0.3, 0.6]
    assert d.draw(np.array([r]))[0] == option


def test_draws_follow_the_probabilities():
    d = FailureWeightedDraw(3, floor=0.1)
    d.failure[:] = [0.0, 0.4, 0.9]
    counts = np.bincount(d.draw(np.random.default_rng(0).random(20000)), minlength=3)
    np.testing.assert_allclose(counts / 20000, np.array([0.1, 0.5, 1.0]) / 1.6, atol=0.01)  # sd <= 0.0035


def test_a_saved_env_keeps_its_curricula_and_draws_the_same_starts():
    # the failure rates are what the next draws depend on: a state or a pickle without them
    # would resume at the initial 0.5 and draw other start tasks and gravity levels
    import pickle

    import gymnasium as gym

    import ncpgym  # noqa: F401

    def make():
        envs = gym.make_vec("ncpgym/HumanoidFlagrunHarder-v0", num_envs=8, weak_gravity=0.5)
        envs.reset(seed=4)
        return envs

    envs = make()
    task = envs.unwrapped._c.task
    task.curriculum.failure[:] = [0.0, 0.9, 0.05]
    task.gravity_curriculum.failure[:] = [0.7, 0.0, 0.2]
    blob = pickle.dumps(envs)
    twin = make()
    twin.unwrapped.set_state(envs.unwrapped.get_state())
    task.curriculum.failure[:] = 0.3  # the state is a copy, not a view
    for other in (twin, pickle.loads(blob)):
        t = other.unwrapped._c.task
        np.testing.assert_array_equal(t.curriculum.failure, [0.0, 0.9, 0.05])
        np.testing.assert_array_equal(t.gravity_curriculum.failure, [0.7, 0.0, 0.2])
    with pytest.raises(ValueError, match="failure rates"):
        FailureWeightedDraw(3).set_state({"failure": np.zeros(2)})
