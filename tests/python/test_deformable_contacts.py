"""Contacts between deformable pieces (issue 21 item 5; collision/deformable_contact.cpp):
rods on shells, shells on shells and on themselves, rods and shells on tetrahedral bodies,
tetrahedral bodies on shells and rods. Each case is dropped with the contacts on and off:
off, the piece falls through (so the case exercises the contact it names); on, it rests at
the distance the two radii give (rod radius r, shell half thickness h/2), measured here by an
independent closest-point computation on the final positions."""

import numpy as np
import pytest

import ncpgym
from ncpgym import rods, shells, soft


def closest_on_triangle(p, a, b, c):
    """Closest point to p on triangle abc (Ericson, Real-Time Collision Detection §5.1.5)."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = ab @ ap, ac @ ap
    if d1 <= 0 and d2 <= 0:
        return a
    bp = p - b
    d3, d4 = ab @ bp, ac @ bp
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + d1 / (d1 - d3) * ab
    cp = p - c
    d5, d6 = ab @ cp, ac @ cp
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + d2 / (d2 - d6) * ac
    va = d3 * d6 - d5 * d4
    if va <= 0 and d4 - d3 >= 0 and d5 - d6 >= 0:
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b)
    denom = 1.0 / (va + vb + vc)
    return a + ab * vb * denom + ac * vc * denom


def surface_distance(points, x, tris):
    """Distance of each point to the triangle surface (x[tris])."""
    out = np.full(len(points), np.inf)
    for i, p in enumerate(points):
        for t in tris:
            out[i] = min(out[i], np.linalg.norm(p - closest_on_triangle(p, *x[t])))
    return out


def segment_distance(p0, p1, q0, q1, samples=2001):
    """Distance between two segments, by dense sampling of the first (a check, not a solver)."""
    s = np.linspace(0, 1, samples)[:, None]
    P = p0 + s * (p1 - p0)
    d = q1 - q0
    t = np.clip((P - q0) @ d / (d @ d), 0, 1)[:, None]
    return np.min(np.linalg.norm(P - (q0 + t * d), axis=1))


def trampoline(b, n=12, h=2e-3):
    """A 0.3 m square shell clamped along its border, centred at the origin."""
    v, t = shells.rectangle_mesh(0.3, 0.3, n)
    v = v - v.mean(0)
    sh = shells.add_shell(b, v, t, thickness=h, young=1e7, poisson=0.3, density=1000.0)
    shells.clamp(b, sh, (np.abs(v[:, 0]) > 0.149) | (np.abs(v[:, 1]) > 0.149))
    return sh


def block(b, origin, size=(0.06, 0.06, 0.04)):
    """A soft tetrahedral box; returns its particle ids and its boundary triangles (particle ids)."""
    bv, bt = soft.box_mesh(list(size), 3, origin=origin)
    p0, _ = soft.add_mesh(b, bv, bt, density=500.0, young=1e5, poisson=0.3)
    return np.arange(p0, p0 + len(bv))


def run(b, deform, seconds, h=2e-3):
    sim = ncpgym.Simulator(b.build(), deformable_contacts=deform)
    sim.step(nsteps=int(round(seconds / h)))
    return sim


def boundary_triangles(model, particles):
    tri = np.asarray(model.surface_triangles)
    return tri[np.isin(tri[:, 0], particles)]


@pytest.mark.parametrize("deform", [False, True])
def test_rod_rests_on_a_shell(deform):
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    sh = trampoline(b)
    rod = rods.add_rod(b, rods.straight([-0.1, 0.02, 0.05], [0.1, -0.03, 0.05], 10), radius=5e-3, young=1e7,
                       poisson=0.3, density=1500.0)
    sim = run(b, deform, 0.8)
    x = sim.x
    if not deform:
        assert x[rod.nodes, 2].max() < -0.5  # through the shell, falling
        return
    dist = surface_distance(x[rod.nodes], x, sh.first + sh.triangles)
    # every node on or above the shell's surface (r + h/2 = 6 mm from its mid-surface), the
    # lowest touching it, and the rod at rest on it
    assert dist.min() > 6e-3 - 3e-4 and dist.min() < 6e-3 + 5e-4
    assert np.abs(sim.v[rod.nodes]).max() < 0.02


@pytest.mark.parametrize("deform", [False, True])
def test_soft_block_rests_on_a_shell(deform):
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    sh = trampoline(b)
    blk = block(b, (-0.03, -0.03, 0.01))
    model = b.build()
    sim = ncpgym.Simulator(model, deformable_contacts=deform)
    sim.step(nsteps=300)
    x = sim.x
    if not deform:
        assert x[blk, 2].max() < -0.3
        return
    bottom = blk[np.isclose(np.asarray(model.particle_pos0)[blk, 2], 0.01)]
    dist = surface_distance(x[bottom], x, sh.first + sh.triangles)
    assert dist.min() > 1e-3 - 3e-4 and dist.min() < 1e-3 + 5e-4  # h/2 from the mid-surface
    # and on top of it: every bottom vertex above the shell's vertices around it
    assert x[bottom, 2].min() > x[sh.particles, 2].min()


@pytest.mark.parametrize("deform", [False, True])
def test_folded_shell_rests_on_itself(deform):
    # a hairpin: a strip lying on the ground, bent round a 3 cm half circle and back over
    # itself; gravity lays the soft upper layer on the lower one
    L, W, n, R, a, h = 0.5, 0.1, 30, 0.03, 0.2, 2e-3
    v, t = shells.rectangle_mesh(L, W, n)
    u = v[:, 0]
    arc = np.pi * R
    xx = np.where(u < a, u, np.where(u < a + arc, a + R * np.sin((u - a) / R), a - (u - a - arc)))
    zz = np.where(u < a, 0.0, np.where(u < a + arc, R - R * np.cos((u - a) / R), 2 * R)) + h / 2
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    b.add_geom(0, "plane", size=[1, 1, 0.1], name="ground")
    sh = shells.add_shell(b, np.stack([xx, v[:, 1], zz], 1), t, thickness=h, young=2e6, poisson=0.3,
                          density=1000.0)
    shells.clamp(b, sh, u < 0.02)
    sim = run(b, deform, 0.8)
    x = sim.x[sh.particles]
    top = u > a + arc + 0.02
    if not deform:
        assert x[top, 2].min() < h  # through the lower layer, onto the ground
        return
    lower = sh.first + sh.triangles[np.all(u[sh.triangles] < a, axis=1)]
    dist = surface_distance(sim.x[sh.particles[top]], sim.x, lower)
    assert dist.min() > h - 3e-4  # the layers' half thicknesses apart
    assert x[top, 2].min() < 2 * h + 1e-3  # lying on it


def test_flat_shell_has_no_contacts_with_itself():
    # neighbours closer than the margin (1 cm) in a fine flat mesh are not a fold
    v, t = shells.rectangle_mesh(0.1, 0.1, 16)
    b = ncpgym.Builder()
    b.set_gravity([0, 0, 0])
    shells.add_shell(b, v, t, thickness=1e-3, young=1e7, poisson=0.3, density=1000.0)
    sim = ncpgym.Simulator(b.build())
    sim.step()
    assert len(sim.contacts["dist"]) == 0


@pytest.mark.parametrize("deform", [False, True])
def test_rod_hangs_over_a_shell_edge(deform):
    # edge against edge: a plate standing in the x-z plane, clamped along its foot, and a
    # rod across its free top edge between two nodes (no node near the plate)
    v, t = shells.rectangle_mesh(0.2, 0.1, 8)
    verts = np.stack([v[:, 0] - 0.1, 0 * v[:, 0], v[:, 1]], 1)
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    sh = shells.add_shell(b, verts, t, thickness=2e-3, young=1e9, poisson=0.3, density=1000.0)
    shells.clamp(b, sh, verts[:, 2] < 1e-9)
    pts = np.stack([np.zeros(4), [-0.15, -0.05, 0.05, 0.15], np.full(4, verts[:, 2].max() + 0.02)], 1)
    rod = rods.add_rod(b, pts, radius=4e-3, young=1e8, poisson=0.3, density=1500.0)
    sim = run(b, deform, 0.5)
    x = sim.x
    if not deform:
        assert x[rod.nodes, 2].max() < -0.5
        return
    top = sh.particles[np.isclose(verts[:, 2], verts[:, 2].max())]
    top = top[np.argsort(x[top, 0])]
    gap = min(segment_distance(x[rod.nodes[1]], x[rod.nodes[2]], x[p], x[q]) for p, q in zip(top[:-1], top[1:]))
    assert 5e-3 - 3e-4 < gap < 5e-3 + 5e-4  # r + h/2


@pytest.mark.parametrize("deform", [False, True])
def test_soft_block_rests_on_taut_rods(deform):
    # boundary vertices and edges of a tetrahedral body against rod edges' interiors: two rods
    # clamped at both ends, under two rows of the block's bottom vertices, their middle edges
    # under the block and their nodes away from it
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    rod_list = []
    for y in (-0.01, 0.01):
        pts = np.stack([[-0.25, -0.15, -0.05, 0.05, 0.15, 0.25], np.full(6, y), np.zeros(6)], 1)
        rod = rods.add_rod(b, pts, radius=3e-3, young=1e9, poisson=0.3, density=1500.0)
        rods.clamp(b, rod, "start")
        rods.clamp(b, rod, "end")
        rod_list.append(rod)
    blk = block(b, (-0.03, -0.03, 0.005))
    sim = run(b, deform, 0.6)
    x = sim.x
    if not deform:
        assert x[blk, 2].max() < -0.3
        return
    tris = boundary_triangles(sim.model, blk)
    for rod in rod_list:
        a, c = x[rod.nodes[2]], x[rod.nodes[3]]
        dist = surface_distance(a + np.linspace(0.2, 0.8, 31)[:, None] * (c - a), x, tris)
        assert 3e-3 - 3e-4 < dist.min() < 3e-3 + 5e-4  # the rod's radius
    assert np.abs(sim.v[blk]).max() < 0.02


@pytest.mark.parametrize("piece", ["rod", "shell"])
def test_rod_and_shell_rest_on_a_soft_block(piece):
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    b.add_geom(0, "plane", size=[1, 1, 0.1], name="ground")
    blk = block(b, (-0.05, -0.05, 0.0), size=(0.1, 0.1, 0.04))
    if piece == "rod":
        p = rods.add_rod(b, rods.straight([-0.04, 0.01, 0.06], [0.04, -0.01, 0.06], 6), radius=2e-3, young=1e8,
                         poisson=0.3, density=1500.0).nodes
        reach = 2e-3
    else:
        v, t = shells.rectangle_mesh(0.06, 0.06, 4)
        p = shells.add_shell(b, v - [0.03, 0.03, -0.06], t, thickness=2e-3, young=1e8, poisson=0.3,
                             density=1000.0).particles
        reach = 1e-3
    sim = run(b, True, 0.6)
    x = sim.x
    tris = boundary_triangles(sim.model, blk)
    dist = surface_distance(x[p], x, tris)
    assert reach - 3e-4 < dist.min() < reach + 5e-4
    assert x[p, 2].min() > 0.03  # on the block (0.04 tall, squeezed a little), not through it
    off = run(b, False, 0.6)
    assert off.x[p, 2].max() < 0.02  # without the contacts it sinks through to the ground


def test_deformable_contacts_are_deterministic_across_threads():
    b = ncpgym.Builder()
    b.set_timestep(2e-3)
    trampoline(b, n=8)
    rods.add_rod(b, rods.straight([-0.1, 0.02, 0.03], [0.1, -0.03, 0.03], 8), radius=5e-3, young=1e7, poisson=0.3,
                 density=1500.0)
    model = b.build()
    runs = []
    for threads in (1, 2):
        batch = ncpgym.Batch(model, 3, num_threads=threads)
        batch.step(None, 100)
        runs.append(batch.x.copy())
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0][0], runs[0][2])
