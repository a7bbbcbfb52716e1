"""Issue 20: the stable Neo-Hookean PneuNet finger under activation with the default solver
options. With App. B's three principal-stretch rows it diverged at a = 0.2; with the six
stretch-tensor rows (soft/tet.hpp) it settles at every activation tried, and at small
activation it bends as the linear co-rotational finger does (the two models agree at small
strain: the Lame mapping)."""

import numpy as np
import pytest

import ncpgym
from ncpgym.envs.pneunet import add_finger


def bent_finger(model, a, seconds=2.0, h=1 / 120, **options):
    b = ncpgym.Builder()
    b.set_timestep(h)
    add_finger(b, n=(8, 2, 2), model=model)
    m = b.build()
    sim = ncpgym.Simulator(m, **options)
    steps = int(round(seconds / h))
    worst = 0.0  # the largest NCP residual a step ended with
    for k in range(steps):
        sim.activation[:] = a * min(1.0, k / (steps / 4))
        sim.step()
        worst = max(worst, sim.solver_stats["residual"][-1])
    tip = int(np.argmax(np.asarray(m.particle_pos0)[:, 0]))
    return sim.x[tip].copy(), float(np.abs(sim.v).max()), worst


def test_neohookean_finger_bends_like_the_linear_one_at_small_activation():
    (nh, v_nh, _), (lin, v_lin, _) = bent_finger("neohookean", 0.05), bent_finger("linear", 0.05)
    drop_nh, drop_lin = -nh[2], -lin[2]
    assert drop_lin > 5e-3  # it bends (gravity and the chambers)
    assert drop_nh == pytest.approx(drop_lin, rel=0.05)
    assert v_nh < 1e-4 and v_lin < 1e-4


@pytest.mark.parametrize("a", [0.1, 0.2, 0.35])
def test_neohookean_finger_settles_under_activation(a):
    """Issue 20: the activated finger converges every step, its activation ramp included: the
    NCP residual each step ends with stays below 1e-6 (measured at most 2.5e-9; 480 / 944 at
    a = 0.2 / 0.35 and 3.7e4 during the ramp when the eliminated element rows carried their
    linearised multipliers from the zero start, Stepper::element_multipliers)."""
    tip, vmax, worst = bent_finger("neohookean", a)
    assert worst < 1e-6
    lin = bent_finger("linear", a)[0]
    rest = bent_finger("neohookean", 0.0)[0]  # under gravity alone
    assert np.isfinite(tip).all() and vmax < 1e-4  # at rest, not jittering or diverging
    half = bent_finger("neohookean", a / 2)[0]
    assert np.linalg.norm(tip - rest) > np.linalg.norm(half - rest)  # more activation, more curl
    assert np.linalg.norm(tip - lin) < 0.2 * np.linalg.norm(lin - rest)  # near the linear finger


def test_element_multipliers_carried_from_the_zero_start_leave_the_residual_unconverged():
    """The same finger at a = 0.2 with the element rows' multipliers carried as Newton
    unknowns from lambda = 0 (element_multipliers_from_x=False, the seed's iteration): the
    damped steps leave (1 - t)^k of the elastic forces unsolved, residual 480 at rest (3.7e4
    during the ramp), at the same shape. Catches the option not reaching the stepper."""
    tip, _, worst = bent_finger("neohookean", 0.2, element_multipliers_from_x=False)
    assert worst > 100.0  # measured 3.7e4
    assert np.linalg.norm(tip - bent_finger("neohookean", 0.2)[0]) < 1e-5  # measured 4e-10 m


def lone_finger(model, h=0.02, gravity=True):
    b = ncpgym.Builder()
    b.set_timestep(h)
    if not gravity:
        b.set_gravity([0, 0, 0])
    add_finger(b, n=(8, 2, 2), model=model)
    return b.build()


def test_line_search_keeps_newton_from_diverging_on_a_sudden_activation():
    """A lone Neo-Hookean finger (no gravity), activation jumping from 0 to 0.035 within one
    0.02 s step: full Newton steps diverge in the first step (residual 3.4 -> 6e6 -> NaN);
    backtracking on the residual merit (line_search) never lets the iterate run away and
    converges by the third step (8.5e-7; the seed's damped step also survives this finger,
    2.3e-4 after 8 iterations). Catches a line search that never backtracks, skips the check
    of the last update, or is not reached by the option."""
    m = lone_finger("neohookean", gravity=False)
    sim = ncpgym.Simulator(m, newton_iterations=8, geometric_stiffness=False, step=1.0, line_search=False)
    sim.activation[:] = 0.035
    with pytest.raises(RuntimeError, match="diverged"):
        for _ in range(3):
            sim.step()
    sim = ncpgym.Simulator(m, newton_iterations=8, geometric_stiffness=False, line_search=True)
    backtracks = 0
    for _ in range(3):
        sim.activation[:] = 0.035
        sim.step()
        st = sim.solver_stats
        backtracks += st["backtracks"]
        assert len(st["residual"]) == st["newton_iterations"] + 1  # the last update is checked too
    assert backtracks > 0
    assert st["residual"][-1] < 1e-5 and st["momentum_residual"][-1] < 1e-3  # measured 8.5e-7, 8.5e-5
    assert np.isfinite(sim.x).all()


def test_neohookean_gripper_survives_its_activation_ramp():
    """The PneuNet gripper with Neo-Hookean fingers (E 10 MPa, nu 0.47, h = 0.02 s, the task's
    mesh), activation ramped to 0.35 over 10 steps, ball out of reach (issue 20's "Neo-Hookean
    fingers diverge under activation"): with the default damped step every step stays finite
    and the fingers curl in since session 27 (the time-step r on the friction rows that move a
    particle too); with eq. 66's r on every row (rscale="effective_mass") the damped step
    diverges at the fourth step, as the defaults did before. line_search (the default in
    worlds with activated Neo-Hookean elements since session 32: random actions need it) and the
    elements' stress stiffness carry it as well. Catches the mixed r-factor not reaching
    friction rows, and line_search's default not turning on for these elements."""
    from ncpgym.envs.pneunet import build_gripper

    m, info = build_gripper(n=(8, 2, 2), tilt=np.radians(70), root_radius=0.03, mount_height=0.12, timestep=0.02,
                            model="neohookean")
    damped = {"line_search": False}
    for opts, diverges in ((damped, False), ({**damped, "rscale": "effective_mass"}, True),
                           ({"rscale": "effective_mass"}, False), ({**damped, "stress_stiffness": True}, False)):
        sim = ncpgym.Simulator(m, **opts)
        sim.q[1] = 0.5  # the ball out of reach
        tips = lambda: np.stack([sim.x[t].mean(axis=0) for t in info["tips"]])  # noqa: E731
        r0 = np.linalg.norm(tips()[:, :2], axis=1)
        failed = None
        for k in range(12):
            sim.activation[:] = 0.35 * min(1.0, k / 10)
            try:
                sim.step()
            except RuntimeError:
                failed = k
                break
        if diverges:
            assert failed is not None
            continue
        assert failed is None and np.isfinite(sim.x).all()
        r = np.linalg.norm(tips()[:, :2], axis=1)
        assert np.all(r < r0 - 0.03), (r0, r)  # curled in by centimetres (measured 9 -> 2.6 cm at 50 steps)


def test_stress_stiffness_makes_newton_converge_quadratically_on_a_stressed_finger():
    """A linear co-rotational finger held at activation 0.2 under gravity (root clamped),
    one step from its settled state with 8 full Newton steps: without the elements' stress
    stiffness in the Newton matrix (the seed's K = M + J^T D^-1 J) the momentum residual
    stalls (7e-3 after the first update -> 2e-4 after 7: linear convergence, rate ~0.5); with
    it Newton converges quadratically (2.6e3 at the start, where the elements' forces are
    taken from x and the root's pin reactions from zero, -> 4e-7 -> 2e-10 by the third
    update, the rounding floor). Catches a sign slip or a dropped term in the stress Hessian
    (soft/tet.cpp, tet_newton_block), or the option not reaching K."""
    m = lone_finger("linear")
    base = ncpgym.Simulator(m, newton_iterations=4, rscale="time_step", geometric_stiffness=False)
    for k in range(60):
        base.activation[:] = 0.2 * min(1.0, k / 20)
        base.step()
    mom = {}
    for ss in (False, True):
        sim = ncpgym.Simulator(m, newton_iterations=8, step=1.0, rscale="time_step", geometric_stiffness=False,
                               stress_stiffness=ss)
        sim.x[:] = base.x
        sim.v[:] = base.v
        sim.activation[:] = 0.2
        sim.step()
        mom[ss] = np.array(sim.solver_stats["momentum_residual"])
    assert mom[True][3] < 1e-9 and mom[True][1] < 1e-8 * mom[True][0]  # measured 1.9e-10; 4.4e-7 from 2.6e3
    assert mom[True][3] < 1e-4 * mom[False][3]  # measured 1.9e-10 against 4.4e-3
    assert mom[False][-1] > 1e-5 and mom[False][-1] > 0.01 * mom[False][1]  # measured 1.9e-4 from 7.1e-3
