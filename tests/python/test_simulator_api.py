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


def test_large_meshes_need_their_hull_and_then_collide_with_each_other():
    """Beyond 64 vertices the Builder asks for the hull's triangles (brute force is O(V^4));
    with models.convex_hull's, a 100-vertex flat pebble (points on an ellipsoid of radii
    0.1, 0.08, 0.03) dropped on a cube given as 200 points on its faces (its hull: the cube)
    comes to rest on its flat side on the cube's top, within the facets' sag of 3 cm."""
    rng = np.random.default_rng(0)
    ball = rng.normal(size=(100, 3))
    ball = ball / np.linalg.norm(ball, axis=1, keepdims=True) * [0.1, 0.08, 0.03]
    cube = rng.uniform(-0.2, 0.2, size=(200, 3))
    cube[np.arange(200), rng.integers(0, 3, 200)] = rng.choice([-0.2, 0.2], 200)  # on a face
    cube[:8] = 0.2 * np.array([[i & 1, i >> 1 & 1, i >> 2 & 1] for i in range(8)]) * 2 - 0.2
    b = ncpgym.Builder()
    with pytest.raises(ValueError, match="convex_hull"):
        b.add_mesh(ball)
    mball = b.add_mesh(ball, hull=ncpgym.models.convex_hull(ball))
    mcube = b.add_mesh(cube, hull=ncpgym.models.convex_hull(cube))
    assert len(b.build().mesh_hull(mcube)["faces"]) == 6  # coplanar triangles merged
    b.add_geom(b.add_body(0, pos=[0, 0, 0.2]), "mesh", mesh=mcube)  # welded to the world
    top = b.add_body(0, pos=[0, 0, 0.44], mass=1.0, inertia=np.diag([2e-3, 3e-3, 4e-3]))
    b.add_joint(top, "free")
    b.add_geom(top, "mesh", mesh=mball)
    sim = ncpgym.Simulator(b.build())
    for _ in range(360):
        sim.step()
    assert 0.43 - 0.005 < sim.q[2] < 0.43 and np.linalg.norm(sim.u) < 1e-3
    assert abs(sim.q[0]) < 0.2 and abs(sim.q[1]) < 0.2


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



def test_a_resting_warm_started_step_takes_no_newton_update():
    """The early exit is checked from iterate 0 on (dual path): a box resting on the ground,
    warm-started with the impulses that carry its weight, starts converged, so the step
    solves nothing (no update, no linear solve) and leaves the box where it was, its contact
    force still m g (1 kg x 9.81). A free-falling first step still iterates."""
    m, q0 = scenes.incline(0.0, 0.5)
    sim = ncpgym.Simulator(m)
    sim.q[:] = q0
    sim.step()
    assert sim.solver_stats["newton_iterations"] >= 1
    sim.step(nsteps=240)
    z = sim.q[2]
    sim.step()
    stats = sim.solver_stats
    assert stats["newton_iterations"] == 0 and stats["linear_iterations"] == []
    assert stats["residual"][0] < 1e-9 and stats["momentum_residual"][0] < 1e-9
    assert sim.contacts["force"][:, 0].sum() == pytest.approx(9.81, rel=1e-7)  # 1e-9 m/s x m / h
    assert abs(sim.q[2] - z) < 1e-11 and np.abs(sim.u).max() < 1e-9


def _interrupt_after(code: str, seconds: float = 1.5):
    """Run `code` in a child Python, send SIGINT after `seconds`; returns (returncode,
    output, seconds from the signal to the child's exit)."""
    import signal
    import subprocess
    import sys
    import time

    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(seconds)
        t = time.time()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
        return p.returncode, out, time.time() - t
    finally:  # a child that ignored the signal (started with SIGINT ignored) must not outlive the test
        if p.poll() is None:
            p.kill()
            p.wait()


def test_ctrl_c_stops_long_steps_and_leaves_a_usable_world():
    """SIGINT during sim.step(nsteps=10**9) and batch.step(substeps=10**9): a
    KeyboardInterrupt (the child exits within 2 s of the signal), after which the simulator or batch steps on from a finite
    state (the call stopped between whole steps)."""
    code = """
import numpy as np, ncpgym
from ncpgym import scenes
model, q0 = scenes.heavy_stack()
{make}
print("ready", flush=True)
try:
    {call}
except KeyboardInterrupt:
    s = {obj}
    assert np.all(np.isfinite(np.asarray(s.q)))
    {call_once}
    print("interrupted, steps on", flush=True)
"""
    cases = [
        ("sim = ncpgym.Simulator(model); sim.q[:] = q0", "sim.step(nsteps=10**9)", "sim", "sim.step()"),
        ("b = ncpgym.Batch(model, 4); b.q[:] = q0", "b.step(substeps=10**9)", "b", "b.step()"),
    ]
    for make, call, obj, once in cases:
        rc, out, dt = _interrupt_after(code.format(make=make, call=call, obj=obj, call_once=once))
        assert "interrupted, steps on" in out, out
        assert rc == 0 and dt < 2.0  # the 50 ms check, one more step and the interpreter's exit


def test_batch_steps_do_not_depend_on_how_they_are_chunked():
    """batch.step(substeps=40) (stepped in chunks of 16 between signal checks) equals 40
    single steps bitwise."""
    from ncpgym import scenes

    model, q0 = scenes.heavy_stack()
    a, b = ncpgym.Batch(model, 2), ncpgym.Batch(model, 2)
    for x in (a, b):
        x.q[:] = q0
        x.u[:, 0] = [0.3, -0.2]
        x.forward()
    a.step(substeps=40)
    for _ in range(40):
        b.step()
    assert np.array_equal(a.q, b.q) and np.array_equal(a.u, b.u)


def test_a_saved_simulator_state_continues_bitwise():
    """The PneuNet gripper (rigid bodies, particles, activations, servos) mid-grasp:
    restore_simulator(simulator_state(sim)) replays the next 40 steps bitwise; a state of
    another model is refused by shape."""
    from ncpgym.envs.pneunet import build_gripper
    from ncpgym.state import restore_simulator, simulator_state

    m, _ = build_gripper()
    sim = ncpgym.Simulator(m)

    def run(k0, k1):
        for k in range(k0, k1):
            sim.activation[:] = 0.25 * min(1.0, k / 30)
            sim.step(ctrl=np.full(m.nu, 0.001 * max(0, k - 30)))
        return np.concatenate([sim.q, sim.u, sim.x.ravel(), sim.v.ravel()])

    run(0, 40)
    saved = simulator_state(sim)
    first = run(40, 80)
    restore_simulator(sim, saved)
    assert np.array_equal(run(40, 80), first)
    other = ncpgym.Simulator(ncpgym.load_model("<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>"))
    with pytest.raises(ValueError, match="shape"):
        restore_simulator(other, saved)
