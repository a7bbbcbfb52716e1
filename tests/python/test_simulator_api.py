"""ncpgym.Simulator: options, views, errors, and motors against analytic dynamics."""

import numpy as np
import pytest

import ncpgym
from ncpgym import scenes


def pendulum_with_motor():
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    b.set_gravity([0, 0, 0])
    link = b.add_body(0, mass=1.0, com=[0, 0, -1], inertia=np.zeros((3, 3)))
    j = b.add_joint(link, "hinge", axis=[0, 1, 0])
    b.add_actuator(j, "motor", gear=2.0, ctrlrange=(-1, 1))
    return b.build()


def test_motor_torque_is_gear_times_clipped_ctrl():
    sim = ncpgym.Simulator(pendulum_with_motor())
    sim.step(ctrl=[5.0], nsteps=100)  # clipped to 1 -> torque 2, inertia 1 -> qdd = 2
    t = 100 * 1e-3
    assert sim.u[0] == pytest.approx(2.0 * t, rel=1e-9)
    assert sim.q[0] == pytest.approx(2.0 * t * t / 2, rel=2e-2)  # semi-implicit Euler
    assert sim.ctrl[0] == 5.0  # the raw control is kept; clipping happens in the step


def test_options_are_validated():
    m, _ = scenes.incline(0.0, 0.5)
    with pytest.raises(ValueError, match="unknown linear solver 'cholmod'"):
        ncpgym.Simulator(m, linear="cholmod")
    with pytest.raises(ValueError, match="unknown ncp function"):
        ncpgym.Simulator(m, ncp="smooth")
    with pytest.raises(ValueError, match="step must be in"):
        ncpgym.Simulator(m, step=1.5)
    with pytest.raises(TypeError):
        ncpgym.Simulator(m, 8)  # options are keyword-only
    sim = ncpgym.Simulator(m)
    with pytest.raises(ValueError, match=r"ctrl: expected shape \(0,\)"):
        sim.step(ctrl=[1.0])
    with pytest.raises(ValueError, match="nsteps"):
        sim.step(nsteps=0)


def test_unsupported_geom_pair_is_rejected_at_creation():
    """Meshes beyond 64 vertices get no hull: they may only meet planes."""
    rng = np.random.default_rng(0)
    sphere_pts = rng.normal(size=(100, 3))
    sphere_pts /= np.linalg.norm(sphere_pts, axis=1, keepdims=True)
    b = ncpgym.Builder()
    mesh = b.add_mesh(0.1 * sphere_pts)
    for k in range(2):
        body = b.add_body(0, pos=[0, 0, k])
        b.add_joint(body, "free")
        b.add_geom(body, "mesh", mesh=mesh)
    with pytest.raises(ValueError, match="mesh-mesh"):
        ncpgym.Simulator(b.build())


def test_solver_stats_and_contacts_report_the_step():
    m, q0 = scenes.incline(0.0, 0.5)
    sim = ncpgym.Simulator(m, newton_iterations=5, linear_iterations=7)
    sim.q[:] = q0
    sim.step()
    st = sim.solver_stats
    assert st["newton_iterations"] == 5 and len(st["residual"]) == 5
    assert len(st["linear_iterations"]) == 5 and max(st["linear_iterations"]) <= 7
    # max |t du| per Newton update: a block at rest converges, so the updates shrink
    assert len(st["step_size"]) == 5 and st["step_size"][-1] < 0.1 * st["step_size"][0]
    c = sim.contacts
    assert c["pos"].shape == (4, 3) and np.allclose(c["normal"], [0, 0, 1])
    assert set(c["geom1"]) == {m.geom_id("box")} and set(c["geom2"]) == {m.geom_id("incline")}


def test_tolerance_exits_early():
    m, q0 = scenes.incline(0.0, 0.5)
    sim = ncpgym.Simulator(m, newton_iterations=50, tolerance=1e-8, step=1.0)
    sim.q[:] = q0
    sim.step(nsteps=10)
    assert sim.solver_stats["residual"][-1] < 1e-8
    assert len(sim.solver_stats["residual"]) < 50
