"""Trees that no row of a step touches take u~ (Stepper::free_rowless_trees).

Independent truth: a body in flight obeys the explicit kinematics of the time stepping
whatever else in the world is in contact: v_k = v_0 + g h k, z_k = z_0 + h sum v_j
(semi-implicit Euler, as the integration of eq. 63). Before, the damped Newton iteration
started such a body from u = 0 whenever any contact made the world iterate, and it kept
1 - 0.25^k of its velocity per step (0.977 of it after 0.5 s at 4 iterations)."""

import numpy as np
import pytest

import ncpgym

from bodies_on_plane import bodies_on_plane

H = 1 / 120
G = 9.81


@pytest.mark.parametrize("newton", [4, 8])
def test_a_box_in_flight_beside_a_resting_one_follows_the_ballistic_steps(newton):
    m = bodies_on_plane("box", "box", mu=0.5)
    sim = ncpgym.Simulator(m, newton_iterations=newton)
    # box 0 rests on the plane (its contact makes every step iterate); box 1 is thrown
    sim.q[:] = [0, 0, 0.1, 1, 0, 0, 0, 1, 0, 5, 1, 0, 0, 0]
    v0 = np.array([1.0, 0.0, 5.0])
    sim.u[6:9] = v0
    steps = 60
    iterated = 0
    for _ in range(steps):
        sim.step()
        iterated += len(sim.contacts["dist"]) > 0 and sim.solver_stats["newton_iterations"] > 0
    k = np.arange(1, steps + 1)
    vz = v0[2] - G * H * k
    np.testing.assert_allclose(sim.u[6:9], [1.0, 0.0, vz[-1]], atol=1e-12)
    np.testing.assert_allclose(sim.q[7:10], [1 + H * steps, 0.0, 5 + H * vz.sum()], atol=1e-12)
    np.testing.assert_array_equal(sim.u[9:], 0.0)  # no spin
    assert sim.q[2] == pytest.approx(0.1, abs=1e-3)  # the other box still rests
    assert iterated > 0  # the world did iterate (the resting box's first steps)
