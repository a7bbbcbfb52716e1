"""Solver options are resolved once, in C++ (solver/options.hpp): the defaults there are the
ones the docstring, the type stub and a default SolverOptions report, the time step and
iteration counts come from the model when the caller leaves them unset, and a Simulator or
Batch says which options it actually runs with."""

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import ncpgym
from ncpgym import _core, scenes


def stub_defaults():
    tree = ast.parse(Path(inspect.getfile(ncpgym)).with_name("_core.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SolverOptions")
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    args = init.args
    return {a.arg: ast.literal_eval(d) for a, d in zip(args.kwonlyargs, args.kw_defaults)}


def test_stub_docstring_and_defaults_agree():
    defaults = _core.SolverOptions().as_dict()
    assert stub_defaults() == defaults
    doc = dict(re.findall(r"^  (\w+)=(.+?): ", _core.SolverOptions.__doc__, re.M))
    assert set(doc) == set(defaults)
    for name, value in defaults.items():
        assert doc[name] == repr(value), name


def test_unset_entries_come_from_the_model_and_explicit_ones_win():
    m, q0 = scenes.incline(np.deg2rad(20), 0.5, newton_iterations=5)  # the model asks for 5
    opts = ncpgym.Simulator(m).options
    assert opts["newton_iterations"] == 5 and opts["linear_iterations"] == 50
    assert opts["timestep"] == m.timestep
    assert ncpgym.Simulator(m, newton_iterations=3, timestep=0.01).options["newton_iterations"] == 3
    b = ncpgym.Batch(m, 2, linear_iterations=7)
    assert (b.options["newton_iterations"], b.options["linear_iterations"]) == (5, 7)
    assert b.timestep == b.options["timestep"] == m.timestep
    r = _core.resolve_options(m, _core.SolverOptions(step=0.5))
    assert (r.newton_iterations, r.step, r.timestep) == (5, 0.5, m.timestep)
    # and the Newton loop runs that many
    sim = ncpgym.Simulator(m)
    sim.q[:] = q0
    sim.step(nsteps=3)
    assert sim.solver_stats["newton_iterations"] == 5


@pytest.mark.parametrize("bad, match", [
    ({"step": 1.5}, "step"), ({"step": 0.0}, "step"), ({"newton_iterations": -1}, "newton_iterations"),
    ({"regularization": -1.0}, "regularization"), ({"margin": -0.1}, "margin"),
    ({"max_speed": -1.0}, "max_speed"), ({"timestep": float("nan")}, "timestep"),
    ({"tolerance": -1.0}, "tolerance"), ({"thickness": float("inf")}, "thickness"),
    ({"linear_tolerance": -0.1}, "linear_tolerance"), ({"linear_tolerance": 1.0}, "linear_tolerance"),
])
def test_bad_options_are_refused_with_the_option_named(bad, match):
    m, _ = scenes.incline(0.0, 0.5)
    with pytest.raises(ValueError, match=match):
        ncpgym.Simulator(m, **bad)
    with pytest.raises(ValueError, match=match):
        ncpgym.Batch(m, 1, **bad)


def test_unknown_or_mistyped_options_raise_type_errors():
    m, _ = scenes.incline(0.0, 0.5)
    with pytest.raises(TypeError, match="unknown solver option 'newton_iters'.*newton_iterations"):
        ncpgym.Simulator(m, newton_iters=3)
    with pytest.raises(TypeError, match="solver option 'step'"):
        ncpgym.Simulator(m, step="big")
    with pytest.raises(ValueError, match="unknown linear solver 'cg'.*pcr"):
        ncpgym.Simulator(m, linear="cg")


def test_momentum_residual_is_reported_and_vanishes_at_the_solution():
    """g of eq. 57 at each iterate, on a linear system (a hinge chain with its springs as
    rows): the damped Newton step t = 0.75 shrinks it by 1 - t = 0.25 per iteration, full
    steps (smooth_full_step, and the default's backtracking on this smooth step, which starts
    from t = 1 and keeps it) solve it in one; the early exit needs both residuals below the
    tolerance."""
    m = scenes.stiff_chain(n=8)
    sim = ncpgym.Simulator(m, implicit_springs=False, tolerance=0, line_search=False)  # damped, all 8
    sim.step()
    st = sim.solver_stats
    assert len(st["momentum_residual"]) == st["newton_iterations"] == 8
    r = np.array(st["momentum_residual"])
    np.testing.assert_allclose(r[2:] / r[1:-1], 0.25, rtol=0.05)
    for opts in ({"smooth_full_step": True, "line_search": False}, {}):
        sim = ncpgym.Simulator(m, implicit_springs=False, tolerance=0, **opts)
        sim.step()
        r = sim.solver_stats["momentum_residual"]
        assert r[0] > 1e-3 and r[2] < 1e-12
    sim = ncpgym.Simulator(m, implicit_springs=False, tolerance=1e-9, newton_iterations=30)
    sim.step()
    st = sim.solver_stats
    assert st["newton_iterations"] < 30
    assert st["residual"][-1] < 1e-9 and st["momentum_residual"][-1] < 1e-9


def test_linear_tolerance_reaches_the_contact_solve():
    """A pile of 20 bodies settling (steps 120-180 of the drop; ~200 contact rows, the
    matrix-free PCR) runs 36 of its 50 PCR iterations per Newton iteration on average (the
    rest stop at the rounding floor); with linear_tolerance = 1e-2 about 6.5 (the stopping
    rule itself is tested in C++, tests/cpp/test_linear.cpp), and the pile still holds
    (deepest contact 1.6-1.7 mm either way, every body inside the walls). (The 1:8:..:4096
    heavy stack of earlier versions reaches the rounding floor in ~6 iterations now that the
    dense form multiplies through H^-1 J^T instead of an assembled matrix.)"""

    def run(**opts):
        m, q0 = scenes.pile(n=20)
        sim = ncpgym.Simulator(m, **opts)
        sim.q[:] = q0
        its, pen = [], 0.0
        for k in range(180):
            sim.step()
            if k >= 120:
                assert not sim.solver_stats["assembled"]
                its += sim.solver_stats["linear_iterations"]
            pen = max(pen, -sim.contacts["dist"].min(initial=0.0))
        return np.array(its), pen, sim.q.reshape(-1, 7)[:, :3]

    full, pen_full, pos_full = run()
    loose, pen, pos = run(linear_tolerance=1e-2)
    assert full.mean() > 25 and (full == 50).any()  # the budget binds
    assert loose.mean() < 0.4 * full.mean(), (loose.mean(), full.mean())
    for p, x in ((pen, pos), (pen_full, pos_full)):
        assert p < 3e-3
        assert np.abs(x[:, :2]).max() < 1.2 and x[:, 2].min() > 0.0


def test_line_search_leaves_rigid_steps_to_the_damped_iteration():
    """line_search acts on steps with soft elements only (options.hpp: on the arch and the
    heavy stack its full steps let the arch collapse and the stack drift 2 m): a rigid
    scene's trajectory is bitwise the same with it, and no backtrack is reported."""
    m, q0 = scenes.heavy_stack()
    out = []
    for opts in ({}, {"line_search": True}):
        sim = ncpgym.Simulator(m, **opts)
        sim.q[:] = q0
        for _ in range(60):
            sim.step()
            assert sim.solver_stats["backtracks"] == 0
        out.append(sim.q.copy())
    np.testing.assert_array_equal(out[0], out[1])


def test_line_search_defaults_on_for_activated_neo_hookean_elements_only():
    """line_search=None (the default) resolves once per model (options.cpp): on where a
    Neo-Hookean element is in an activation group (the Neo-Hookean PneuNet finger: its
    damped step diverges under random activations, 1,258 of 3,200 world-steps), off for the
    same finger with linear elements and for a passive Neo-Hookean body (Fetch's tomato,
    which slipped further in the fingers with the search); an explicit value wins. Catches
    the rule reading the material or the activation groups wrongly, or the default not
    reaching the solver."""
    from ncpgym.envs.fetch import add_tomato
    from ncpgym.envs.pneunet import add_finger

    assert ncpgym.SolverOptions().line_search is None
    models = {}
    for name, add in (("active neo-hookean", lambda b: add_finger(b, n=(4, 1, 1), model="neohookean")),
                      ("active linear", lambda b: add_finger(b, n=(4, 1, 1), model="linear")),
                      ("passive neo-hookean", lambda b: add_tomato(b))):
        b = ncpgym.Builder()
        add(b)
        models[name] = b.build()
    assert ncpgym.Simulator(models["active neo-hookean"]).options["line_search"] is True
    assert ncpgym.Simulator(models["active linear"]).options["line_search"] is False
    assert ncpgym.Simulator(models["passive neo-hookean"]).options["line_search"] is False
    assert ncpgym.Batch(models["active neo-hookean"], 2).options["line_search"] is True
    assert ncpgym.Simulator(models["active neo-hookean"], line_search=False).options["line_search"] is False
    assert ncpgym.Simulator(models["passive neo-hookean"], line_search=True).options["line_search"] is True
    with pytest.raises(TypeError, match="line_search"):
        ncpgym.SolverOptions(line_search="auto")
