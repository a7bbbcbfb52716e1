"""Option cone_return (options.hpp, ncp.hpp friction_return): friction that an iterate
pushed outside the Coulomb cone is returned to the cone's boundary instead of to zero.

Independent truth: Coulomb's law itself. At a solution every contact's friction impulse lies
inside its cone, |lambda_f| <= mu lambda_n, and the momentum balance of eq. 57 holds."""

import numpy as np

import ncpgym
from ncpgym import scenes, state

MU = 0.5  # scenes.pile's friction


def _settled_pile():
    m, q0 = scenes.pile(n=50, mu=MU, timestep=1 / 120)
    sim = ncpgym.Simulator(m, warm_start=True, cone_return=True)
    sim.q[:] = q0
    for _ in range(600):  # 5 s: the pile has come to rest
        sim.step()
    return m, state.simulator_state(sim)


def _one_step(m, saved, **opts):
    sim = ncpgym.Simulator(m, warm_start=True, newton_iterations=12, **opts)
    state.restore_simulator(sim, saved)
    sim.step()
    f = sim.contacts["force"]  # normal, two tangents (impulses / h)
    pushing = f[:, 0] > 1e-3
    cone = np.hypot(f[pushing, 1], f[pushing, 2]) / (MU * f[pushing, 0])
    return cone, sim.solver_stats["momentum_residual"][-1]


def test_a_resting_pile_converges_inside_the_friction_cone_with_the_return():
    """A warm-started step of the resting 50-body pile (12 Newton iterations). With the seed's
    friction row (slip + W lambda_f, eq. 36) an iterate's friction outside the cone is sent to
    zero, the neighbours take the load and leave their cones: the step ends with friction up
    to 2x outside the cone and a momentum residual of 0.09 m/s (measured: 6 contacts above
    1.01x, worst 2.01x). With the return every pushing contact ends inside its cone (measured
    worst 1 + 1.2e-8) and the momentum residual at 5e-8 m/s. Dropping the return's term
    (k = 0 in ncp_terms) makes the first assertion fail."""
    m, saved = _settled_pile()
    cone, momentum = _one_step(m, saved, cone_return=True)
    assert cone.max() <= 1 + 1e-6 and momentum < 1e-6, (cone.max(), momentum)
    cone, momentum = _one_step(m, saved, cone_return=False)
    assert cone.max() > 1.1 and momentum > 1e-3, (cone.max(), momentum)  # what the option removes
