"""Option cone_return (options.hpp, ncp.hpp friction_return): friction that an iterate
pushed outside the Coulomb cone is returned to the cone's boundary instead of to zero.

Independent truth: Coulomb's law itself. At a solution every contact's friction impulse lies
inside its cone, |lambda_f| <= mu lambda_n, and the momentum balance of eq. 57 holds."""

import numpy as np

import ncpgym
from ncpgym import scenes, state

MU = 0.5  # scenes.pile's friction


def _settled_pile():
    """The 50-body pile after 5 s, warm-started with the seed's friction row (the state in
    which the two-iterate cycle was found; it does not depend on the return's code)."""
    m, q0 = scenes.pile(n=50, mu=MU, timestep=1 / 120)
    sim = ncpgym.Simulator(m, warm_start=True, cone_return=False)
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
    return cone, sim.solver_stats["residual"]


def test_a_resting_pile_converges_inside_the_friction_cone_with_the_return():
    """A warm-started step of the resting 50-body pile (12 Newton iterations). With the seed's
    friction row (slip + W lambda_f, eq. 36) an iterate's friction outside the cone is sent to
    zero, the neighbours take the load and leave their cones: the NCP residual alternates
    between two iterates (measured 0.089 / 0.44 to the 12th) and the step ends with friction
    outside the cone (measured 4 contacts above 1.01x, worst 1.83x). With the return the
    residual falls at the damping's rate (measured 0.040 -> 1e-6) and every pushing contact
    ends within 5 % of its cone (measured worst 1.036x, still converging linearly). Dropping
    the return (cone_return's offset set to zero in ncp_terms) fails the first assertion."""
    m, saved = _settled_pile()
    cone, residual = _one_step(m, saved, cone_return=True)
    assert cone.max() < 1.05 and residual[-1] < 1e-4, (cone.max(), residual)
    cone, residual = _one_step(m, saved, cone_return=False)
    assert cone.max() > 1.5 and min(residual[-4:]) > 0.01, (cone.max(), residual)  # what the option removes
