"""Soft surfaces in contact (issue 7, section 1): rigid spheres, capsules and box corners
against a soft body's boundary triangles, and soft-soft contact. The soft block is meshed
coarsely (10 cm cells) so that the rigid bodies (2 cm) land between its vertices: vertex
contacts alone let them fall through, triangle contacts hold them on the surface."""

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
