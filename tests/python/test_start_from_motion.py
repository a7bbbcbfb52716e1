"""Option start_from_motion (solver/options.hpp): a warm-started step starts each tree that
moves from its velocity instead of u = 0 (nonsmooth-newton-ncp.txt eq. 67).

The damped Newton update u += t du leaves (1 - t)^k of the start's distance to the answer
after k iterations. From u = 0 that is (1 - t)^k of every velocity a contact touches, once
per step: a box sliding on a frictionless plane keeps (1 - (1 - t)^k) of its speed per
step, which the first test computes by hand for the defaults and which the option removes."""

import numpy as np
import pytest

import ncpgym
from bodies_on_plane import bodies_on_plane

H = 1 / 120
G = 9.81


def _run(m, u0, steps, **opts):
    sim = ncpgym.Simulator(m, **opts)
    sim.q[:] = [0, 0, 0.1, 1, 0, 0, 0]
    sim.u[:] = u0
    iterations = []
    for _ in range(steps):
        sim.step()
        iterations.append(sim.solver_stats["newton_iterations"])
    return sim, np.mean(iterations)


@pytest.mark.parametrize("newton", [4, 8])
def test_a_box_sliding_on_a_frictionless_plane_keeps_its_speed(newton):
    m = bodies_on_plane("box", mu=0.0)
    steps = 60
    default, _ = _run(m, [2, 0, 0, 0, 0, 0], steps, newton_iterations=newton)
    # the defaults: each step from u = 0 keeps 1 - 0.25^k of the speed (t = 0.75; the
    # direction is exact on this linear system)
    assert default.u[0] == pytest.approx(2 * (1 - 0.25**newton) ** steps, rel=1e-9)
    sim, mean_iterations = _run(m, [2, 0, 0, 0, 0, 0], steps, newton_iterations=newton, start_from_motion=1e-3)
    assert sim.u[0] == pytest.approx(2.0, abs=1e-9)
    assert sim.q[0] == pytest.approx(2.0 * steps * H, abs=1e-9)
    assert sim.q[2] == pytest.approx(0.1, abs=1e-8)  # resting on the plane, not sinking
    # the remembered impulses are found although the contacts moved 17 mm per step (beyond
    # the 1 mm of a resting match): the step starts converged and exits at once
    assert mean_iterations <= 1.0


def test_trees_slower_than_the_threshold_start_from_rest():
    # 0.5 mm/s is below the 1 mm/s threshold: the box starts every step from u = 0 (exact at
    # rest, where a velocity carried from step to step is what pumped the heavy stack
    # apart), so it keeps the defaults' 1 - 0.25^4 per step; at 0.2 mm/s over 0.1 mm/s it
    # keeps its speed
    # (over the last 30 of 60 steps: in the first two the box settles on the plane, its
    # vertical velocity above the threshold)
    # (momentum_exit off: it would end these slow steps at the balanced velocity by itself,
    # test_momentum_exit.py)
    m = bodies_on_plane("box", mu=0.0)
    for speed, threshold, kept in ((5e-4, 1e-3, (1 - 0.25**4) ** 30), (2e-4, 1e-4, 1.0)):
        sim, _ = _run(m, [speed, 0, 0, 0, 0, 0], 30, newton_iterations=4, start_from_motion=threshold,
                      momentum_exit=0.0)
        half = sim.u[0]
        for _ in range(30):
            sim.step()
        assert sim.u[0] == pytest.approx(kept * half, rel=1e-9)


def test_a_rolling_sphere_keeps_rolling_without_slip():
    m = bodies_on_plane("sphere", mu=0.5)
    v, r = 1.0, 0.1
    sim, _ = _run(m, [v, 0, 0, 0, v / r, 0], 120, newton_iterations=4, start_from_motion=1e-3)
    assert sim.u[0] == pytest.approx(v, abs=1e-9)
    assert sim.u[4] == pytest.approx(v / r, abs=1e-8)


def test_a_sliding_box_decelerates_at_mu_g():
    mu, v0, steps = 0.3, 2.0, 60  # still sliding at 0.5 s (it stops at v0 / (mu g) = 0.68 s)
    sim, _ = _run(bodies_on_plane("box", mu=mu), [v0, 0, 0, 0, 0, 0], steps, start_from_motion=1e-3)
    # implicit Euler's Coulomb friction takes mu m g h per step while the box slides
    assert sim.u[0] == pytest.approx(v0 - mu * G * steps * H, abs=2e-3)


def test_start_from_motion_is_validated():
    m = bodies_on_plane("box", mu=0.0)
    for bad in (-1e-3, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="start_from_motion"):
            ncpgym.Simulator(m, start_from_motion=bad)


def test_a_batch_starts_each_world_from_its_own_motion_whatever_the_threads():
    # worlds sliding at different speeds (one below the threshold): each world's start is its
    # own, bitwise the same on 1 and 2 threads and as a Simulator's
    m = bodies_on_plane("box", mu=0.3)
    n = 4
    u = np.zeros((n, m.nv))
    u[:, 0] = [0.0, 0.02, 1.0, 3.0]
    q = np.tile([0, 0, 0.1, 1, 0, 0, 0], (n, 1)).astype(float)
    runs = []
    for threads in (1, 2):
        b = ncpgym.Batch(m, n, num_threads=threads, start_from_motion=0.05)
        b.reset(None, q, u)
        for _ in range(40):
            b.step()
        runs.append(b.u.copy())
    np.testing.assert_array_equal(runs[0], runs[1])
    for w in (1, 3):
        sim, _ = _run(m, u[w], 40, start_from_motion=0.05)
        np.testing.assert_array_equal(runs[0][w], sim.u)
