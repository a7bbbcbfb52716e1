"""Soft surfaces in contact (issue 7, section 1; issue 16): rigid spheres, capsules, boxes
(corners and edges), cylinders and convex meshes against a soft body's boundary
triangles, and soft-soft contact. The soft block is meshed
coarsely (10 cm cells) so that the rigid bodies (2 cm) land between its vertices: vertex
contacts alone let them fall through, triangle contacts hold them on the surface."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym.soft import add_mesh, box_mesh

TOP = 0.1


def scene(kind, surface=True):
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.add_geom(0, "plane")
    v, t = box_mesh((0.2, 0.2, TOP), (2, 2, 1), origin=(-0.1, -0.1, 0.0))
    add_mesh(b, v, t, density=500.0, young=1e6, poisson=0.3, friction=0.8)
    fr = [0.8, 0.005, 0.0001]
    if kind == "soft":
        v2, t2 = box_mesh((0.04, 0.04, 0.04), (1, 1, 1), origin=(0.03, 0.03, TOP + 0.005))
        add_mesh(b, v2, t2, density=500.0, young=1e6, poisson=0.3, friction=0.8)
    else:
        q = [1, 0, 0, 0]
        if kind == "box":  # tilted: a corner lands first, then it settles on a face
            q = np.array([0.88, 0.28, 0.36, 0.0]) / np.linalg.norm([0.88, 0.28, 0.36, 0.0])
        body = b.add_body(0, pos=[0.05, 0.05 if kind != "capsule" else 0.0, TOP + 0.03], quat=q, mass=0.1,
                          inertia=np.eye(3) * 1e-5)
        b.add_joint(body, "free")
        if kind == "sphere":
            b.add_geom(body, "sphere", size=[0.01, 0, 0], friction=fr)
        elif kind == "capsule":  # lying along y across the middle of a face
            b.add_geom(body, "capsule", size=[0.01, 0.03, 0], quat=[0.7071068, 0.7071068, 0, 0], friction=fr)
        else:
            b.add_geom(body, "box", size=[0.01, 0.01, 0.01], friction=fr)
    model = b.build()
    opts = {"soft_triangle_contacts": surface} if kind != "soft" else {"soft_soft_contacts": surface}
    sim = ncpgym.Simulator(model, **opts)
    lowest = []
    for _ in range(180):
        sim.step()
        lowest.append(sim.x[-8:, 2].min() if kind == "soft" else sim.q[2] - 0.01)
    return model, sim, np.array(lowest)


def test_boundary_triangles_of_a_block():
    model, _, _ = scene("sphere")
    tri = model.surface_triangles
    assert model.nsoft == 1
    # a 2 x 2 x 1 hex grid: 2 (2 x 2) + 4 (2 x 1) faces of 2 triangles = 32
    assert tri.shape == (32, 3)
    x = np.asarray(model.particle_pos0)
    n = np.cross(x[tri[:, 1]] - x[tri[:, 0]], x[tri[:, 2]] - x[tri[:, 0]])
    outward = (x[tri].mean(axis=1) - [0, 0, TOP / 2])
    assert np.all(np.einsum("ij,ij->i", n, outward) > 0)  # oriented outward


@pytest.mark.parametrize("kind", ["sphere", "capsule", "box"])
def test_rigid_geoms_rest_on_soft_faces_between_vertices(kind):
    _, sim, low = scene(kind)
    assert abs(low[-1] - TOP) < 1.5e-3, low[-1]  # on the surface (sag under 1 N < 1.5 mm)
    assert np.ptp(low[-60:]) < 1e-4                # at rest
    _, sim, low = scene(kind, surface=False)
    assert low[-1] < TOP / 2                       # vertex contacts alone: it falls through


def test_soft_body_rests_on_another_soft_body():
    model, sim, low = scene("soft")
    assert model.nsoft == 2
    assert abs(low[-1] - TOP) < 1.5e-3 and np.ptp(low[-60:]) < 1e-4
    _, _, low = scene("soft", surface=False)
    assert low[-1] < TOP / 2


# ---------------------------------------------------------------- edges, cylinders (issue 16)
def _top_surface_height(model, x, xy):
    """Height of the block's deformed top surface at the points xy (k, 2): the top
    triangles (from sim.x) interpolated linearly, as the contact code never sees them."""
    tri = model.surface_triangles
    x0 = np.asarray(model.particle_pos0)
    top = tri[np.all(np.isclose(x0[tri][:, :, 2], TOP), axis=1)]
    out = []
    for p in xy:
        for t in top:
            a, b, c = x[t]
            l = np.linalg.solve(np.array([b[:2] - a[:2], c[:2] - a[:2]]).T, p - a[:2])
            if l.min() >= -1e-9 and l.sum() <= 1 + 1e-9:
                out.append(a[2] + l[0] * (b[2] - a[2]) + l[1] * (c[2] - a[2]))
                break
    assert len(out) == len(xy), "point off the block"
    return np.array(out)


EDGE_DROP = 0.02 * np.sqrt(2)  # a 4 x 4 cm cross-section turned 45 degrees: edge 2.83 cm below


def pressed_edge(mass, surface=True):
    """A 4 x 30 x 4 cm box turned 45 degrees about y, so its lower edge runs along y at
    x = 0.05 (midway between the block's vertex columns) and overhangs the 20 cm block at
    both ends (no corner over the block), on a vertical slide joint: its weight presses the
    edge into a light (50 kg/m^3), soft (E = 20 kPa) block. Returns (model, sim, edge
    heights per step, geom id)."""
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.add_geom(0, "plane")
    v, t = box_mesh((0.2, 0.2, TOP), (2, 2, 1), origin=(-0.1, -0.1, 0.0))
    add_mesh(b, v, t, density=50.0, young=2e4, poisson=0.3, friction=0.8)
    z0 = TOP + EDGE_DROP + 0.002
    body = b.add_body(0, pos=[0.05, 0.0, z0], mass=mass, inertia=np.eye(3) * 1e-3)
    b.add_joint(body, "slide", axis=[0, 0, 1])
    turn = [np.cos(np.pi / 8), 0.0, np.sin(np.pi / 8), 0.0]
    g = b.add_geom(body, "box", size=[0.02, 0.15, 0.02], quat=turn, friction=[0.8, 0.005, 0.0001])
    model = b.build()
    # 10 Newton iterations: the face's particles stick under the edge as slowly as other
    # sticking contacts converge (docs/architecture.md, Known limits): at the default 8 they
    # creep by 10.4 um per 0.5 s with the time-step r on rows that move a particle (2.4 um with
    # eq. 66's r on the friction rows before session 27), at 10 by 3.6 um
    sim = ncpgym.Simulator(model, soft_triangle_contacts=surface, newton_iterations=10)
    edge = []
    for _ in range(240):
        sim.step()
        edge.append(z0 + sim.q[0] - EDGE_DROP)
    return model, sim, np.array(edge), g


def test_box_edge_pressed_across_a_soft_face_indents_it_and_rests_on_it():
    """The edge crosses the top triangles with no box corner over the block: it rests (moves
    < 10 um over the last 0.5 s) on the deformed surface (its height equals the surface's,
    interpolated from the particles, to 0.05 mm along the whole edge), which it has pushed
    > 0.5 mm below the top; the contacts carry the weight (normal forces sum to m g within
    0.5 %); with vertex contacts alone the edge falls through the block."""
    for mass in (0.5, 1.0):
        model, sim, edge, g = pressed_edge(mass)
        assert np.ptp(edge[-60:]) < 1e-5
        ys = np.linspace(-0.095, 0.095, 7)
        surf = _top_surface_height(model, sim.x, np.c_[np.full_like(ys, 0.05), ys])
        assert np.abs(surf - edge[-1]).max() < 5e-5, (edge[-1], surf)
        assert TOP - edge[-1] > 5e-4
        c = sim.contacts
        mine = c["geom2"] == g
        assert c["force"][mine][:, 0].sum() == pytest.approx(mass * 9.81, rel=5e-3)
    _, _, edge, _ = pressed_edge(1.0, surface=False)
    assert edge[-1] < TOP / 2


def cylinder_on_slab(upright, surface=True):
    """A 1 kg cylinder (r = 3 cm) dropped from 2 mm onto a 40 x 40 x 10 cm slab meshed in
    10 cm cells, centred at (0.05, 0.05) between vertices: lying (axis along y, 30 cm) or
    upright (8 cm tall, its cap inside one cell)."""
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.add_geom(0, "plane")
    v, t = box_mesh((0.4, 0.4, TOP), (4, 4, 1), origin=(-0.2, -0.2, 0.0))
    add_mesh(b, v, t, density=50.0, young=2e4, poisson=0.3, friction=0.8)
    r, half = 0.03, (0.04 if upright else 0.15)
    lie = [np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0]
    body = b.add_body(0, pos=[0.05, 0.05, TOP + (half if upright else r) + 0.002], mass=1.0,
                      inertia=np.eye(3) * 1e-3)
    b.add_joint(body, "free")
    g = b.add_geom(body, "cylinder", size=[r, half, 0], quat=[1, 0, 0, 0] if upright else lie,
                   friction=[0.8, 0.005, 0.0001])
    model = b.build()
    sim = ncpgym.Simulator(model, soft_triangle_contacts=surface)
    z = []
    for _ in range(240):
        sim.step()
        z.append(sim.q[2])
    bottom = np.array(z) - (half if upright else r)
    return model, sim, bottom, g


@pytest.mark.parametrize("upright", [False, True], ids=["lying", "upright"])
def test_cylinder_rests_on_a_soft_slab(upright):
    """A true cylinder's side (a line) or cap (a disc) against soft triangles: it rests on
    the deformed surface (bottom height = surface height under it, interpolated from the
    particles, within 0.05 mm; still to 20 um over the last 0.5 s) carried by the contacts
    (normal forces sum to m g within 2 %: a lying cylinder may still creep as it rolls);
    with vertex contacts alone it falls through."""
    model, sim, bottom, g = cylinder_on_slab(upright)
    x, y = sim.q[:2]
    if upright:  # the rim, which rests on the surface when the cap lies flat on it
        ang = np.linspace(0, 2 * np.pi, 8, endpoint=False)
        xy = np.c_[x + 0.03 * np.cos(ang), y + 0.03 * np.sin(ang)]
    else:  # under the axis, where the lowest side line touches
        xy = np.array([[x, y]])
    surf = _top_surface_height(model, sim.x, xy)
    assert np.ptp(bottom[-60:]) < 2e-5
    assert np.abs(surf - bottom[-1]).max() < 5e-5 + (2e-4 if upright else 0.0), (bottom[-1], surf)
    c = sim.contacts
    assert c["force"][c["geom2"] == g][:, 0].sum() == pytest.approx(9.81, rel=2e-2)
    _, _, bottom, _ = cylinder_on_slab(upright, surface=False)
    assert bottom[-1] < TOP / 2


def test_convex_mesh_rests_on_a_soft_slab():
    """A 300-vertex convex hull (a squashed ellipsoid, 6 x 5 x 2.5 cm, 0.5 kg) dropped from
    2 mm onto the coarse slab between its vertices: its hull faces clipped to the triangles
    hold it (lowest vertex on the deformed surface within 0.2 mm; normal forces sum to m g
    within 2 %); with vertex contacts alone it falls through."""
    rng = np.random.default_rng(3)
    d = rng.normal(size=(300, 3))
    verts = d / np.linalg.norm(d, axis=1, keepdims=True) * [0.06, 0.05, 0.025]

    def run(surface):
        b = ncpgym.Builder()
        b.set_timestep(1 / 120)
        b.add_geom(0, "plane")
        v, t = box_mesh((0.4, 0.4, TOP), (4, 4, 1), origin=(-0.2, -0.2, 0.0))
        add_mesh(b, v, t, density=50.0, young=2e4, poisson=0.3, friction=0.8)
        mesh = b.add_mesh(verts, hull=ncpgym.models.convex_hull(verts))
        body = b.add_body(0, pos=[0.05, 0.05, TOP + 0.025 + 0.002], mass=0.5, inertia=np.eye(3) * 2e-4)
        b.add_joint(body, "free")
        g = b.add_geom(body, "mesh", mesh=mesh, friction=[0.8, 0.005, 0.0001])
        model = b.build()
        sim = ncpgym.Simulator(model, soft_triangle_contacts=surface)
        sim.step(nsteps=240)
        return model, sim, g

    model, sim, g = run(True)
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, sim.q[3:7])
    world = verts @ R.reshape(3, 3).T + sim.q[:3]
    low = world[np.argmin(world[:, 2])]
    surf = _top_surface_height(model, sim.x, low[None, :2])
    assert abs(low[2] - surf[0]) < 2e-4, (low, surf)
    c = sim.contacts
    assert c["force"][c["geom2"] == g][:, 0].sum() == pytest.approx(0.5 * 9.81, rel=2e-2)
    _, sim, _ = run(False)
    assert sim.q[2] < TOP / 2
