"""Forces of a surrounding medium (issue 21; dismech-rods-shells.txt §5): buoyancy, viscous
friction and aerodynamic drag, against closed forms: a rod's momentum under viscosity
decays by exactly 1 / (1 + h eta / (rho A)) per implicit step; a rod as dense as the medium
floats and one twice as dense falls at g / 2; a flat plate falls at the terminal speed of
m g = 1/2 rho C_D A v^2; the seed's parachute descends at the speed its drag law gives for
the canopy's shape. Per-world media in a Batch, and the dual solver's refusal of drag."""

import numpy as np
import pytest

import ncpgym
from ncpgym import rods, scenes, shells


def free_rod(builder, z=0.0):
    return rods.add_rod(builder, rods.straight([0, 0, z], [0.2, 0, z], 10), radius=2e-3, young=1e7, poisson=0.5,
                        density=1000.0)


def test_viscous_friction_decays_a_rods_momentum_at_the_implicit_rate():
    b = ncpgym.Builder()
    h, eta = 1e-3, 0.5
    b.set_timestep(h)
    b.set_gravity([0, 0, 0])
    b.set_medium(density=0.0, drag_coefficient=0.0, viscosity=eta)
    rod = free_rod(b)
    model = b.build()
    # each node's viscous length is its Voronoi length: they add up to the rod's length
    assert model.particle_visc_length[rod.nodes].sum() == pytest.approx(0.2, rel=1e-12)
    # 30 damped Newton iterations: the 8 default ones leave (1 - 0.75)^8 of each step's
    # velocity change unsolved, 8e-4 of the decay over 50 steps
    sim = ncpgym.Simulator(model, newton_iterations=30)
    sim.v[:] = [0.3, 0.4, 0.0]  # a uniform translation (ghosts too)
    sim.step(nsteps=50)
    # total momentum: M (v' - v) = -h eta L v', M = rho A L  =>  v' = v / (1 + h eta / (rho A))
    expect = 0.5 * (1 + h * eta / (1000.0 * np.pi * 4e-6)) ** -50
    speed = np.linalg.norm((model.particle_mass[:, None] * sim.v).sum(0)) / model.particle_mass.sum()
    assert speed == pytest.approx(expect, rel=1e-5)  # the solver regularisation (1e-6) is left
    assert expect < 0.1  # the decay is not negligible


def test_buoyancy_floats_a_neutral_rod_and_halves_gravity_at_twice_the_density():
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    rod = free_rod(b)
    model = b.build()
    batch = ncpgym.Batch(model, 3, num_threads=2, newton_iterations=30)  # see the viscosity test
    batch.medium[:] = [[1000.0, 0, 0], [500.0, 0, 0], [0.0, 0, 0]]  # neutral, half, vacuum
    batch.step(None, 100)
    vz = batch.v[:, rod.nodes, 2].mean(axis=1)
    np.testing.assert_allclose(vz, [0.0, -9.81 * 0.5 * 0.1, -9.81 * 0.1], rtol=1e-6, atol=1e-12)


def flat_plate(n=4, h=5e-3):
    b = ncpgym.Builder()
    b.set_timestep(h)
    b.set_medium(density=1.0, drag_coefficient=10.0)
    v, t = shells.hexagon_mesh(1.0, n)
    shell = shells.add_shell(b, v + [0, 0, 10.0], t, thickness=1e-3, young=1e9, poisson=0.3, density=1500.0)
    return b.build(), shell


def test_flat_plate_falls_at_the_terminal_speed_of_its_drag():
    model, shell = flat_plate()
    sim = ncpgym.Simulator(model)
    sim.step(nsteps=400)  # 2 s; the time constant v_t / g is 0.18 s
    mass = model.particle_mass.sum()
    area = 3 * np.sqrt(3) / 2
    # weight less buoyancy (rho_med / rho = 1 / 1500) against drag: 1.71 m/s
    vt = np.sqrt(2 * mass * 9.81 * (1 - 1.0 / 1500.0) / (1.0 * 10.0 * area))
    # 2.5e-4 short with the default 8 damped Newton iterations (each step starts from u = 0,
    # eq. 67, where the drag's Jacobian vanishes), 1e-6 with 30
    np.testing.assert_allclose(sim.v[:, 2], -vt, rtol=1e-3)
    sim30 = ncpgym.Simulator(model, newton_iterations=30)
    sim30.step(nsteps=400)
    np.testing.assert_allclose(sim30.v[:, 2], -vt, rtol=1e-6)
    np.testing.assert_allclose(sim.x[:, 2], sim.x[0, 2], atol=1e-9)  # stays flat


def test_a_plate_sliding_in_its_plane_reaches_the_terminal_speed_of_its_skin_friction():
    """Skin friction (ncpgym's, not the seed's): a flat plate with gravity in its own plane
    feels no normal drag and slides at the speed where its weight less buoyancy equals
    rho_med C_f A v^2 (both faces of area A at 1/2 rho C_f v^2); with C_f = 0 it keeps
    accelerating at g (1 - rho_med / rho)."""
    b = ncpgym.Builder()
    b.set_timestep(5e-3)
    b.set_gravity([9.81, 0.0, 0.0])
    b.set_medium(density=1000.0, drag_coefficient=10.0, skin_friction=0.02)
    v, t = shells.hexagon_mesh(1.0, 4)
    shells.add_shell(b, v, t, thickness=1e-3, young=1e9, poisson=0.3, density=1500.0)
    model = b.build()
    assert model.skin_friction == 0.02
    assert ncpgym.Model.from_bytes(model.to_bytes()).skin_friction == 0.02  # (format 8 bytes: the goldens)
    sim = ncpgym.Simulator(model, newton_iterations=30)
    sim.step(nsteps=400)  # 2 s; the time constant v_t / g (1 - rho_med / rho) is 0.15 s
    mass, area = model.particle_mass.sum(), 3 * np.sqrt(3) / 2
    vt = np.sqrt(mass * 9.81 * (1 - 1000.0 / 1500.0) / (1000.0 * 0.02 * area))  # 0.49 m/s
    np.testing.assert_allclose(sim.v[:, 0], vt, rtol=1e-5)
    np.testing.assert_allclose(sim.v[:, 1:], 0.0, atol=1e-9)
    b.set_medium(density=1000.0, drag_coefficient=10.0)
    free = ncpgym.Simulator(b.build(), newton_iterations=30)
    free.step(nsteps=200)
    np.testing.assert_allclose(free.v[:, 0], 9.81 * (1 - 1000.0 / 1500.0) * 1.0, rtol=1e-7)  # (regularisation)
    with pytest.raises(ValueError, match="skin friction"):
        b.set_medium(density=1.0, skin_friction=-0.1)


def test_the_seeds_parachute_descends_at_the_speed_of_its_canopys_drag():
    # dismech-rods-shells.txt §7: hexagonal canopy (side 1 m, 1 mm, E 1 GPa, nu 0.3), six rope
    # rods (E 10 MPa, nu 0.5) from its corners to a 0.13 kg payload, rho 1500, rho_med 1, C_D 10
    model, canopy, payload, ropes = scenes.parachute()
    assert len(ropes) == 6
    v = canopy.vertices
    corners = np.flatnonzero(np.abs(np.linalg.norm(v[:, :2], axis=1) - 1.0) < 1e-9)
    assert all(r.nodes[0] == canopy.first + k and r.nodes[-1] == payload for r, k in zip(ropes, corners))
    sim = ncpgym.Simulator(model)
    sim.step(nsteps=800)  # 4 s: opened and steady
    mass = model.particle_mass.sum()
    speed = -(model.particle_mass * sim.v[:, 2]).sum() / mass
    tri = model.shell_triangles
    cr = np.cross(sim.x[tri[:, 1]] - sim.x[tri[:, 0]], sim.x[tri[:, 2]] - sim.x[tri[:, 0]])
    area = 0.5 * np.linalg.norm(cr, axis=1)
    cos = np.abs(cr[:, 2]) / (2 * area)
    # the seed's drag law on a steady descent: m g = 1/2 rho C_D v^2 sum_k A_k cos^3
    assert speed == pytest.approx(np.sqrt(2 * mass * 9.81 / (10.0 * np.sum(area * cos**3))), rel=0.01)
    # the opened canopy (a bowl: projected area 2.24 m^2 of 2.60) against m g = 1/2 rho C_D A v^2
    # with its projected area: 11 % faster, the tilt of its triangles
    v_proj = np.sqrt(2 * mass * 9.81 / (10.0 * np.sum(area * cos)))
    assert 1.0 < speed / v_proj < 1.15
    assert np.sum(area * cos) < 0.9 * 3 * np.sqrt(3) / 2  # it did open into a bowl
    assert sim.x[payload, 2] < sim.x[canopy.particles, 2].min()  # payload below


def test_drag_is_refused_by_the_dual_solver_and_media_are_validated():
    model, _ = flat_plate(n=2)
    sim = ncpgym.Simulator(model, soft_solver="dual")
    with pytest.raises(ValueError, match="primal"):
        sim.step()
    with pytest.raises(ValueError, match="viscosity"):
        ncpgym.Builder().set_medium(1.0, 0.5, -1.0)
