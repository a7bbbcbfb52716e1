"""The warm start (option warm_start, solver/warm_start.hpp): each world starts its
contacts' Newton iteration from its own last impulses, in a Batch as in a Simulator,
whatever the thread count, and a saved state carries them.

One Newton iteration per step makes the start visible: from lambda = 0 a resting box
recovers only part of its weight per step and sinks; started from the last impulses it
carries m g (test_public_api_behaviour.py measures that on a Simulator)."""

import numpy as np
import pytest

import ncpgym
from ncpgym import scenes
from ncpgym.state import batch_state, restore_batch, restore_simulator, simulator_state

OPTS = dict(warm_start=True, newton_iterations=1)


def _start(n):
    """A box on a 0.2 rad incline (mu = 0.5, so it comes to rest), world k launched along
    the slope at 0.1 k m/s: every world's impulses differ."""
    m, q0 = scenes.incline(0.2, 0.5)
    u = np.zeros((n, m.nv))
    u[:, 1] = 0.1 * np.arange(n)
    return m, q0, u


def _batch_run(n, threads, steps=60, **opts):
    m, q0, u = _start(n)
    b = ncpgym.Batch(m, n, num_threads=threads, **{**OPTS, **opts})
    b.reset(None, np.tile(q0, (n, 1)), u)
    out = []
    for _ in range(steps):
        b.step()
        out.append(b.q.copy())
    return np.array(out)


def _sim_run(k, steps=60, **opts):
    m, q0, u = _start(k + 1)
    sim = ncpgym.Simulator(m, **{**OPTS, **opts})
    sim.q = q0
    sim.u = u[k]
    out = []
    for _ in range(steps):
        sim.step()
        out.append(sim.q.copy())
    return np.array(out)


def test_each_world_starts_from_its_own_impulses_whatever_the_threads():
    """Bitwise: a Batch's worlds on 1 and 2 threads, a batch of 4 and of 1, and a
    Simulator per world. A memory kept per thread instead of per world would hand world
    k the impulses of the world its thread stepped before."""
    one, two = _batch_run(4, 1), _batch_run(4, 2)
    assert np.array_equal(one, two)
    for k in range(4):
        assert np.array_equal(one[:, k], _sim_run(k)), k
    assert np.array_equal(_batch_run(1, 1)[:, 0], one[:, 0])
    # the start matters here: from lambda = 0 (the default) world 0 takes another path
    cold = _batch_run(4, 2, warm_start=False)
    assert np.abs(cold[:, 0] - one[:, 0]).max() > 1e-6


def test_a_resting_box_in_a_batch_carries_its_weight_with_one_newton_iteration():
    m, q0, u = _start(2)
    b = ncpgym.Batch(m, 2, num_threads=2, **OPTS)
    b.reset(None, np.tile(q0, (2, 1)), np.zeros((2, m.nv)))
    b.step(None, 240)
    normal = np.array([0.0, -np.sin(0.2), np.cos(0.2)])
    sink = (b.q[:, :3] - q0[:3]) @ normal  # along the incline's normal
    assert np.all(np.abs(sink) < 1e-8), sink
    rows = b.warm_start_state  # [world, keys (5), pos, multipliers (normal, t1, t2)]
    for w in range(2):  # the normal impulses carry m g cos(0.2) (with 1e-10 of m g sin(0.2) in friction)
        np.testing.assert_allclose(rows[rows[:, 0] == w, 9].sum(), 9.81 * np.cos(0.2), rtol=1e-8)


def test_a_saved_batch_state_continues_bitwise_and_carries_the_impulses():
    m, q0, u = _start(3)
    b = ncpgym.Batch(m, 3, num_threads=2, **OPTS)
    b.reset(None, np.tile(q0, (3, 1)), u)
    b.step(None, 20)
    saved = batch_state(b)
    b.step(None, 30)
    after = b.q.copy()
    restore_batch(b, saved)
    b.step(None, 30)
    assert np.array_equal(b.q, after)
    # a state without the impulses (saved before they were kept) starts from lambda = 0
    restore_batch(b, {k: v for k, v in saved.items() if k != "warm_start"})
    b.step(None, 30)
    assert not np.array_equal(b.q, after)


def test_reset_forgets_a_worlds_impulses():
    m, q0, u = _start(2)
    b = ncpgym.Batch(m, 2, num_threads=1, **OPTS)
    b.reset(None, np.tile(q0, (2, 1)), u)
    b.step(None, 30)
    b.reset(np.array([True, False]), q0[None], u[:1])
    assert not np.any(b.warm_start_state[:, 0] == 0)
    out = []
    for _ in range(60):
        b.step()
        out.append(b.q[0].copy())
    assert np.array_equal(np.array(out), _sim_run(0))


def test_a_saved_simulator_state_continues_bitwise():
    m, q0, u = _start(2)
    sim = ncpgym.Simulator(m, **OPTS)
    sim.q = q0
    sim.u = u[1]
    sim.step(nsteps=20)
    saved = simulator_state(sim)
    sim.step(nsteps=30)
    after = sim.q.copy()
    restore_simulator(sim, saved)
    sim.step(nsteps=30)
    assert np.array_equal(sim.q, after)
    # a state without the impulses (saved before they were kept) starts from lambda = 0
    restore_simulator(sim, {k: v for k, v in saved.items() if k != "warm_start"})
    assert sim.warm_start_state.shape == (0, saved["warm_start"].shape[1])
    sim.step(nsteps=30)
    assert not np.array_equal(sim.q, after)


def test_bad_warm_start_rows_are_refused():
    m, q0, u = _start(2)
    b = ncpgym.Batch(m, 2, **OPTS)
    b.reset(None, np.tile(q0, (2, 1)), u)
    with pytest.raises(ValueError, match=r"expected shape \(K, 12\)"):
        b.warm_start_state = np.zeros((1, 15))
    row = np.zeros((1, 12))
    row[0, 0] = 2  # world 2 of 2
    with pytest.raises(ValueError, match="names world"):
        b.warm_start_state = row
    row[0, 0] = 0
    row[0, 11] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        b.warm_start_state = row
    row[0, 11] = 0
    row[0, 1] = 0.5  # a geom id that is not an integer
    b.step(None, 30)
    before = b.warm_start_state
    assert len(before) > 0
    changed = before.copy()
    changed[:, 9:] *= 2  # other impulses for every world, and a bad row for world 1
    row[0, 0] = 1
    with pytest.raises(ValueError, match="non-integer"):
        b.warm_start_state = np.concatenate([changed, row])
    assert np.array_equal(b.warm_start_state, before)  # all worlds or none
