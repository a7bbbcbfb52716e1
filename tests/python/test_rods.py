"""Discrete elastic rods in the Newton solve (issue 21; dismech-rods-shells.txt §3, §7):
the seed's validation cases against closed forms and independent solutions.

- Cantilever under gravity (the seed's Fig. 8 materials: rho 1200, nu 0.5, E 20 GPa .. 20
  MPa) against Euler-Bernoulli (small deflection) and against the inextensible elastica
  solved here with scipy's BVP solver (large deflection), converging at second order.
- Natural curvature relaxes a free rod to a circle of radius 1 / kappa.
- A twisted rod relaxes to untwisted, its torsion energy decaying.
- A helix keeps its rest shape; a rod dropped on the ground does not sink into it.
"""

import numpy as np
import pytest
from scipy.integrate import solve_bvp

import ncpgym
from ncpgym import rods


def cantilever(n, young, length=0.1, radius=1e-3, rho=1200.0, nu=0.5, h=1e-3):
    """A rod clamped at x = 0 (its first edge straddles the clamp, so the free length is
    `length` from the clamp's mid-edge to the tip)."""
    b = ncpgym.Builder()
    b.set_timestep(h)
    pts = rods.straight([0, 0, 0], [length, 0, 0], n, clamp="start")
    rod = rods.add_rod(b, pts, radius=radius, young=young, poisson=nu, density=rho, normal=[0, 0, 1])
    rods.clamp(b, rod, "start")
    return b.build(), rod


def settle(sim, seconds, chunk=25):
    """Quasi-static relaxation: step, then take the kinetic energy out (velocities zeroed)."""
    for _ in range(int(round(seconds / sim.timestep / chunk))):
        sim.step(nsteps=chunk)
        sim.v[:] = 0.0


def elastica_tip(young, length=0.1, radius=1e-3, rho=1200.0, g=9.81):
    """Tip deflection of an inextensible cantilever under its weight, exact large-deflection
    statics: EI theta'' = -q (L - s) cos(theta), theta(0) = 0, theta'(L) = 0, y' = sin(theta)."""
    EI = young * np.pi * radius**4 / 4
    q = rho * np.pi * radius**2 * g

    def f(s, y):
        return np.vstack([y[1], q * (length - s) * np.cos(y[0]) / EI, np.sin(y[0])])

    def bc(ya, yb):
        return np.array([ya[0], yb[1], ya[2]])

    s = np.linspace(0, length, 200)
    sol = solve_bvp(f, bc, s, np.zeros((3, s.size)), tol=1e-10, max_nodes=100000)
    assert sol.success
    return -sol.sol(length)[2]  # theta measured downwards


@pytest.mark.parametrize("young", [2e10, 2e9, 2e8])
def test_cantilever_matches_euler_bernoulli_and_converges_at_second_order(young):
    q = 1200.0 * np.pi * 1e-6 * 9.81
    eb = q * 0.1**4 / (8 * young * np.pi * 1e-12 / 4)
    err = []
    for n in (10, 20):
        model, rod = cantilever(n, young)
        sim = ncpgym.Simulator(model)
        settle(sim, 1.0)
        err.append(abs(-sim.x[rod.nodes[-1], 2] - eb) / eb)
    # the small-deflection cases: within 0.7 % at 10 edges, 0.2 % at 20, a factor ~4 apart
    assert err[0] < 7e-3 and err[1] < 2e-3
    if young >= 2e9:
        assert 3.0 < err[0] / err[1] < 5.0


def test_straight_places_the_clamped_edge_across_the_clamp_point():
    """straight(..., clamp=...): n_edges + 1 evenly spaced points, the clamped end's edge
    centred on that end's point, the other end exactly at its point; without the option a
    rod clamped at its start is a cantilever of length L - l/2 (its tip sags (1 - l/2L)^4 of
    Euler-Bernoulli's at L), with it one of length L."""
    for n in (2, 5, 20):
        p = rods.straight([0, 0, 0], [0.1, 0, 0], n, clamp="start")
        l = 0.1 / (n - 0.5)
        np.testing.assert_allclose(p[:, 0], (np.arange(n + 1) - 0.5) * l, atol=1e-15)
        assert p[0, 0] + p[1, 0] == pytest.approx(0.0, abs=1e-15) and p[-1, 0] == pytest.approx(0.1, abs=1e-15)
        np.testing.assert_allclose(rods.straight([0, 0, 0], [0.1, 0, 0], n, clamp="end"), p[::-1] * [-1, 1, 1] + [0.1, 0, 0],
                                   atol=1e-15)
    with pytest.raises(ValueError, match="clamp"):
        rods.straight([0, 0, 0], [1, 0, 0], 4, clamp="middle")
    with pytest.raises(ValueError, match="n_edges"):
        rods.straight([0, 0, 0], [1, 0, 0], 1, clamp="start")
    q = 1200.0 * np.pi * 1e-6 * 9.81
    eb = q * 0.1**4 / (8 * 2e9 * np.pi * 1e-12 / 4)
    tips = {}
    for clamp in (None, "start"):
        b = ncpgym.Builder()
        b.set_timestep(1e-3)
        rod = rods.add_rod(b, rods.straight([0, 0, 0], [0.1, 0, 0], 20, clamp=clamp), radius=1e-3, young=2e9,
                           poisson=0.5, density=1200.0, normal=[0, 0, 1])
        rods.clamp(b, rod, "start")
        sim = ncpgym.Simulator(b.build())
        settle(sim, 1.0)
        tips[clamp] = -sim.x[rod.nodes[-1], 2]
    assert tips["start"] == pytest.approx(eb, rel=2e-3)
    # the short one: (L - l/2)^4 / L^4 of the deflection with its load moment, 9.5 % at l = L/20
    assert tips[None] == pytest.approx(eb * (1 - 0.5 / 20) ** 4, rel=0.02)


def test_large_deflection_cantilever_matches_the_elastica():
    # 20 MPa: the tip falls 27 % of the length, where Euler-Bernoulli overestimates by 7 %
    # (the seed's Fig. 8(b) trend); the exact elastica is the reference here
    exact = elastica_tip(2e7)
    model, rod = cantilever(20, 2e7)
    sim = ncpgym.Simulator(model)
    settle(sim, 1.5)
    tip = -sim.x[rod.nodes[-1], 2]
    eb = 1200.0 * np.pi * 1e-6 * 9.81 * 0.1**4 / (8 * 2e7 * np.pi * 1e-12 / 4)
    assert abs(tip - exact) / exact < 5e-3
    assert abs(tip - eb) / eb > 0.05


def test_natural_curvature_relaxes_a_free_rod_to_a_circle():
    # zero gravity; activation = natural curvature 10 / m; 0.3 m of rod turns by 3 rad
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    b.set_gravity([0, 0, 0])
    rod = rods.add_rod(b, rods.straight([0, 0, 0], [0.3, 0, 0], 30), radius=1e-3, young=1e8, poisson=0.5,
                       density=1200.0, normal=[0, 0, 1], group=0)
    model = b.build()
    assert model.nactgroup == 1
    sim = ncpgym.Simulator(model)
    sim.activation[0] = 10.0
    settle(sim, 3.0)
    x = sim.x[rod.nodes]
    # fit a circle in the plane of the nodes: centre c minimising the spread of |x - c|
    c0 = x.mean(axis=0)
    normal = np.linalg.svd(x - c0)[2][2]
    A = np.hstack([2 * (x - c0), np.ones((len(x), 1))])
    A = A - np.outer(A @ np.append(normal, 0), np.append(normal, 0))  # keep the centre in the plane
    sol = np.linalg.lstsq(A, np.sum((x - c0) ** 2, axis=1), rcond=None)[0]
    centre = c0 + sol[:3]
    radius = np.linalg.norm(x - centre, axis=1)
    assert np.abs(radius - 0.1).max() < 1e-4  # 1e-3 relative
    assert np.abs((x - c0) @ normal).max() < 1e-6  # planar
    # it curls towards its material vector (given as +z): the centre lies along m1 of an edge
    a, c, g = model.rod_edges[5]
    t = sim.x[c] - sim.x[a]
    m1 = sim.x[g] - 0.5 * (sim.x[a] + sim.x[c])
    m1 -= t * (t @ m1) / (t @ t)
    assert (centre - 0.5 * (sim.x[a] + sim.x[c])) @ m1 / np.linalg.norm(m1) > 0.099


def test_twisted_rod_untwists_and_its_torsion_energy_decays():
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    b.set_gravity([0, 0, 0])
    rod = rods.add_rod(b, rods.straight([0, 0, 0], [0.2, 0, 0], 20), radius=2e-3, young=1e6, poisson=0.5,
                       density=1000.0, normal=[0, 0, 1])
    rods.clamp(b, rod, "start")
    model = b.build()
    sim = ncpgym.Simulator(model)
    x = sim.x.copy()
    # twist the rod uniformly by 2 rad over its length: rotate each ghost about the axis
    l = 0.01
    for e, g in enumerate(rod.ghosts):
        mid = np.array([(e + 0.5) * l, 0, 0])
        a = 2.0 * e / (len(rod.ghosts) - 1)
        d = x[g] - mid
        x[g] = mid + np.array([d[0], d[1] * np.cos(a) - d[2] * np.sin(a), d[1] * np.sin(a) + d[2] * np.cos(a)])
    sim.x[:] = x
    tau0 = rods.twist_angles(model, sim.x)
    np.testing.assert_allclose(tau0, 2.0 / 19, rtol=1e-9)  # the twist we put in, read independently
    u0 = rods.bend_twist_energy(model, sim.x, rod.EI, rod.GJ)[1]
    assert u0 == pytest.approx(rod.GJ * 2.0**2 / (2 * 0.19), rel=1e-9)
    energies = []
    for _ in range(40):
        sim.step(nsteps=25)
        energies.append(rods.bend_twist_energy(model, sim.x, rod.EI, rod.GJ)[1])
    assert energies[-1] < 1e-3 * u0
    assert max(energies[20:]) < 0.05 * u0  # decayed, not merely passing through zero
    assert np.abs(rods.twist_angles(model, sim.x)).max() < 0.01


def test_helix_keeps_its_rest_shape():
    b = ncpgym.Builder()
    b.set_gravity([0, 0, 0])
    rod = rods.add_rod(b, rods.helix(0.05, 0.02, 2.0, 40), radius=1e-3, young=1e7, poisson=0.3, density=1000.0)
    model = b.build()
    sim = ncpgym.Simulator(model)
    x0 = sim.x.copy()
    sim.step(nsteps=200)
    assert np.abs(sim.x - x0).max() < 1e-9
    # its rest curvature is the helix's: |kappa| = 2 tan(phi / 2) with phi the turning angle of
    # the chords, close to the continuum R / (R^2 + c^2) (c = pitch / 2 pi) times the edge
    # length; so the stillness is not that of a rod without stiffness
    x = model.particle_pos0[rod.nodes]
    t = np.diff(x, axis=0)
    t /= np.linalg.norm(t, axis=1)[:, None]
    phi = np.arccos(np.sum(t[:-1] * t[1:], axis=1))
    rest = np.linalg.norm(model.rod_node_rest[:, :2], axis=1)
    np.testing.assert_allclose(rest, 2 * np.tan(phi / 2), rtol=1e-12)
    c = 0.02 / (2 * np.pi)
    l = np.linalg.norm(np.diff(x, axis=0), axis=1).mean()
    np.testing.assert_allclose(rest, 0.05 / (0.05**2 + c**2) * l, rtol=0.02)


@pytest.mark.parametrize("young", [2e6, 2e9])
def test_rod_dropped_on_the_ground_does_not_sink(young):
    # the seed's Fig. 7: 55 cm drop, rho 1500, nu 0.3, mu 0.25; here a 10 cm rod tilted 30 deg
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    b.add_geom(0, "plane", friction=[0.25, 0.005, 0.0001])
    d = np.array([np.cos(np.pi / 6), 0, -np.sin(np.pi / 6)]) * 0.1
    start = np.array([0, 0, 0.55 + 0.05])
    rod = rods.add_rod(b, rods.straight(start, start + d, 20), radius=1e-3, young=young, poisson=0.3,
                       density=1500.0, friction=0.25, normal=[0, 1, 0])
    sim = ncpgym.Simulator(b.build())
    low = []
    for _ in range(1000):
        sim.step()
        low.append(sim.x[rod.nodes, 2].min() - 1e-3)  # lowest point of the section
    low = np.array(low)
    assert low.min() > -1e-3  # never more than 1 mm into the ground
    assert low[360] < 1e-3  # it got there (a free fall of 0.55 m takes 0.335 s)
    assert abs(low[-1]) < 1e-3 and np.abs(sim.v[rod.nodes]).max() < 0.05  # and rests


def test_rod_model_pickles_and_steps_the_same():
    import pickle

    model, rod = cantilever(8, 2e8)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.rod_edges, model.rod_edges)
    np.testing.assert_array_equal(copy.rod_node_rest, model.rod_node_rest)
    a, c = ncpgym.Simulator(model), ncpgym.Simulator(copy)
    a.step(nsteps=20)
    c.step(nsteps=20)
    np.testing.assert_array_equal(a.x, c.x)


def test_rod_batch_is_deterministic_across_threads_and_sets_curvature_per_world():
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    rod = rods.add_rod(b, rods.straight([0, 0, 0.3], [0.1, 0, 0.3], 10), radius=1e-3, young=2e10, poisson=0.5,
                       density=1200.0, normal=[0, 0, 1], group=0)
    rods.clamp(b, rod, "start")
    model = b.build()
    runs = []
    for threads in (1, 2):
        batch = ncpgym.Batch(model, 3, num_threads=threads)
        batch.activation[:, 0] = [15.70, 31.45, 47.15]  # the seed's PneuNet rods
        batch.step(None, 150)
        runs.append(batch.x.copy())
    np.testing.assert_array_equal(runs[0], runs[1])
    # settled, each world's rod is the polygon whose chords turn by the inscribed-circle angle
    # 2 asin(l kappa / 2) at every free node (its first edge is clamped along x); gravity sags
    # this 20 GPa rod by ~3e-5 m
    for _ in range(40):
        batch.step(None, 25)
        batch.v[:] = 0.0
    for w, kappa in enumerate([15.70, 31.45, 47.15]):
        turn = 2 * np.arcsin(0.01 * kappa / 2)
        heading = np.concatenate([[0.0], turn * np.arange(1, 10)])
        expect = np.array([0, 0, 0.3]) + np.concatenate(
            [[[0, 0, 0]], 0.01 * np.cumsum(np.stack([np.cos(heading), 0 * heading, np.sin(heading)], axis=1), axis=0)])
        np.testing.assert_allclose(batch.x[w, rod.nodes], expect, atol=1e-4)


def test_bad_rods_are_refused_with_a_message():
    b = ncpgym.Builder()
    with pytest.raises(ValueError, match="at least 2 points"):
        rods.add_rod(b, [[0, 0, 0]], radius=1e-3, young=1e6, poisson=0.3, density=1000.0)
    with pytest.raises(ValueError, match="coincide"):
        rods.add_rod(b, [[0, 0, 0], [0, 0, 0]], radius=1e-3, young=1e6, poisson=0.3, density=1000.0)
    with pytest.raises(ValueError, match="expected shape"):
        rods.add_rod(b, [0, 0, 0], radius=1e-3, young=1e6, poisson=0.3, density=1000.0)
    with pytest.raises(ValueError, match="Poisson"):
        rods.add_rod(b, [[0, 0, 0], [1, 0, 0]], radius=1e-3, young=1e6, poisson=0.5001, density=1000.0)
    with pytest.raises(ValueError, match="end must be"):
        rods.clamp(b, rods.Rod(np.arange(2), np.arange(2, 3), 1e-3, 1e6, 0.3, 1000.0), "middle")


def test_a_rod_rests_on_a_thin_bar_between_its_nodes():
    # a fixed horizontal capsule (radius 3 mm) under the middle of an edge of 4 cm: node
    # spheres alone would let the rod fall past it; the edge rests on it, its axis at
    # 3 mm + 2 mm above the bar's axis, and the rod balances there
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    b.add_geom(0, "capsule", size=[0.003, 0.05, 0], pos=[0, 0, 0.1],
               quat=[np.cos(np.pi / 4), np.sin(np.pi / 4), 0, 0])  # fixed in the world, along y
    rod = rods.add_rod(b, rods.straight([-0.1, 0, 0.12], [0.1, 0, 0.12], 5), radius=2e-3, young=1e8, poisson=0.5,
                       density=1000.0, friction=0.5, normal=[0, 0, 1])
    model = b.build()
    sim = ncpgym.Simulator(model)
    sim.step(nsteps=1000)  # 2 s
    x = sim.x[rod.nodes]
    # the rod's axis point above the bar (x = 0) sits at 0.1 + 0.005
    i = np.searchsorted(x[:, 0], 0.0)
    t = (0.0 - x[i - 1, 0]) / (x[i, 0] - x[i - 1, 0])
    z_axis = (1 - t) * x[i - 1, 2] + t * x[i, 2]
    assert z_axis == pytest.approx(0.105, abs=2e-4)
    assert 0.1 < t < 0.9  # resting on the edge's interior, not on a node
    assert np.abs(sim.v[rod.nodes]).max() < 1e-3


def test_two_rods_cross_and_rest_on_each_other():
    # a clamped rod along x and a second, free, along y dropped across its middle edge: it
    # comes to rest with the axes r1 + r2 apart (edge-edge contact; particles alone have none)
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    low = rods.add_rod(b, rods.straight([-0.1, 0, 0.1], [0.1, 0, 0.1], 4), radius=2e-3, young=2e10, poisson=0.5,
                       density=1000.0, normal=[0, 0, 1])
    rods.clamp(b, low, "start")
    rods.clamp(b, low, "end")
    top = rods.add_rod(b, rods.straight([0.0, -0.05, 0.11], [0.0, 0.05, 0.11], 4), radius=3e-3, young=1e8,
                       poisson=0.5, density=1000.0, normal=[0, 0, 1])
    sim = ncpgym.Simulator(b.build())
    sim.step(nsteps=500)
    gap = sim.x[top.nodes, 2].min() - sim.x[low.nodes, 2].max()
    assert gap == pytest.approx(0.005, abs=2e-4)  # r1 + r2, the lower rod barely sags (20 GPa)
    assert np.abs(sim.v[top.nodes]).max() < 1e-3


def test_a_soft_coil_collapses_onto_itself_without_interpenetrating():
    # a helix of 2.5 turns (rod radius 2 mm, 1 mm between the coils) standing on the ground
    # under gravity, too soft to carry itself: its coils come to rest on each other (rod
    # self-contact, edges many edges apart on one rod), axes 2 r apart, not through
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    b.add_geom(0, "plane")
    r = 2e-3
    rod = rods.add_rod(b, rods.helix(0.03, 2 * r + 1e-3, 2.5, 50, center=[0, 0, r]), radius=r, young=2e5,
                       poisson=0.5, density=1000.0, friction=0.3)
    model = b.build()
    sim = ncpgym.Simulator(model)
    sim.step(nsteps=400)  # 0.8 s
    x = sim.x[rod.nodes]
    height = x[:, 2].max() - x[:, 2].min()
    assert height < 0.9 * (2.5 * (2 * r + 1e-3))  # it did collapse
    # closest approach between edges more than 15 edges apart (a turn is 20): never below 2 r
    s = np.linspace(0, 1, 11)
    pts = x[:-1, None, :] + s[None, :, None] * (x[1:] - x[:-1])[:, None, :]  # (edges, 11, 3) samples
    i, j = np.triu_indices(len(pts), 15)
    gaps = np.linalg.norm(pts[i][:, :, None, :] - pts[j][:, None, :, :], axis=-1).min(axis=(1, 2))
    assert gaps.min() > 2 * r - 3e-4


def test_stiffness_scale_stiffens_rods_per_world():
    # Batch.stiffness_scale multiplies Young's modulus: a cantilever sags 1, 1/2, 2 times as
    # far (small deflection: sag ~ 1 / E)
    model, rod = cantilever(10, 2e9)
    batch = ncpgym.Batch(model, 3)
    batch.stiffness_scale[:] = [1.0, 2.0, 0.5]
    for _ in range(40):
        batch.step(None, 25)
        batch.v[:] = 0.0
    sag = -batch.x[:, rod.nodes[-1], 2]
    np.testing.assert_allclose(sag / sag[0], [1.0, 0.5, 2.0], rtol=5e-3)


def test_clamp_holds_bending_and_twist_at_the_seed_stiffnesses():
    # a clamped rod (zero gravity) with, at its free end, a sideways force P on the tip node
    # and a couple T about the axis (F on the last ghost, -F/2 on each node of its edge): the tip moves
    # P L^3 / (3 EI) sideways and the last edge turns T L_t / GJ about the axis (L, L_t: the
    # clamp-to-tip and first-to-last edge-midpoint lengths); a clamp that let the second node
    # or the twist go would fail one of them
    n = 20
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    b.set_gravity([0, 0, 0])
    l = 0.1 / (n - 0.5)
    pts = np.zeros((n + 1, 3))
    pts[:, 0] = (np.arange(n + 1) - 0.5) * l
    rod = rods.add_rod(b, pts, radius=1e-3, young=2e9, poisson=0.5, density=1200.0, normal=[0, 0, 1])
    rods.clamp(b, rod, "start")
    model = b.build()
    sim = ncpgym.Simulator(model)
    d = model.particle_pos0[rod.ghosts[-1], 2]  # the last ghost's lever arm (it sits above the axis)
    P, F = 1e-3, 2e-2
    sim.particle_force[rod.nodes[-2]] = [0, -F / 2, 0]
    sim.particle_force[rod.nodes[-1]] = [0, P - F / 2, 0]
    sim.particle_force[rod.ghosts[-1]] = [0, F, 0]
    settle(sim, 1.0)
    tip_y = sim.x[rod.nodes[-1], 1]
    assert tip_y == pytest.approx(P * 0.1**3 / (3 * rod.EI), rel=0.02)
    a, c, g = model.rod_edges[-1]
    mid = 0.5 * (sim.x[a] + sim.x[c])
    # the couple (0, 0, d) x (0, F, 0) turns the ghost about -x, from +z towards +y
    turn = np.arctan2(sim.x[g, 1] - mid[1], sim.x[g, 2] - mid[2])
    assert turn == pytest.approx(F * d * (n - 1) * l / rod.GJ, rel=0.02)
