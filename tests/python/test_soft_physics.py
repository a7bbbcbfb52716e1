"""Soft bodies against independent truth (issue 7, section 2): Euler-Bernoulli cantilever,
a soft ball at rest on the ground, a rigid ball held between two soft pads by friction,
and meshes read with meshio."""

import numpy as np
import pytest

import ncpgym
from ncpgym.soft import add_mesh, box_mesh, read_mesh, sphere_mesh


def cantilever_tip(n, L=0.2, a=0.02, E=1e7, rho=1000.0):
    v, t = box_mesh((L, a, a), n, origin=(0, -a / 2, -a / 2))
    b = ncpgym.Builder()
    b.set_timestep(1 / 30)  # quasi-static: implicit Euler damps the 8 Hz bending mode
    first, _ = add_mesh(b, v, t, density=rho, young=E, poisson=0.3)
    for i in np.flatnonzero(v[:, 0] < 1e-9):
        b.add_attachment(int(first + i), 0, v[i])
    sim = ncpgym.Simulator(b.build())
    for _ in range(90):
        sim.step()
    assert np.abs(sim.v).max() < 1e-6  # static
    tip = np.flatnonzero(np.abs(v[:, 0] - L) < 1e-9)
    return -sim.x[tip, 2].mean()


def test_cantilever_converges_towards_euler_bernoulli_with_refinement():
    # 0.2 m beam, 2 cm square section, E = 10 MPa, 1000 kg/m^3 under gravity: deflection
    # q L^4 / (8 E I) = 5.9 mm (3 % of the length: small-load regime). Linear tetrahedra
    # lock in bending, so the tip approaches the analytic value from below as the mesh is
    # refined (measured ratios 0.13, 0.36, 0.68; 0.79 at 40 x 4 x 4 and 0.82 at 30 x 6 x 6).
    L, a, E, rho = 0.2, 0.02, 1e7, 1000.0
    eb = rho * 9.81 * a * a * L**4 / (8 * E * a**4 / 12)
    ratios = [cantilever_tip(n) / eb for n in ((5, 1, 1), (10, 2, 2), (20, 4, 4))]
    errors = [1 - r for r in ratios]
    assert all(0 < r < 1.02 for r in ratios), ratios
    assert errors[1] < 0.8 * errors[0] and errors[2] < 0.6 * errors[1], ratios
    assert ratios[-1] > 0.6, ratios


def test_soft_ball_settles_on_the_ground_without_jitter():
    # a voxelised 5 cm ball (E = 0.1 MPa) dropped from 1 cm: after 1.5 s it rests, its
    # centre still to 1e-5 m over the last 0.5 s, no vertex below the ground
    v, t = sphere_mesh(0.05, 6, center=(0, 0, 0.06))
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.add_geom(0, "plane")
    add_mesh(b, v, t, density=1000.0, young=1e5, poisson=0.45, friction=0.8)
    sim = ncpgym.Simulator(b.build())
    centre = []
    for k in range(240):
        sim.step()
        if k >= 180:
            centre.append(sim.x.mean(axis=0))
    centre = np.array(centre)
    assert centre[:, 2].std() < 1e-5 and np.ptp(centre[:, 2]) < 5e-5
    assert np.abs(sim.v).max() < 1e-3
    assert sim.x[:, 2].min() > -1e-3
    assert centre[-1, 2] < 0.05  # landed (and sagged a little)


def pads_and_ball(mu):
    # two soft pads (4 x 4 x 2 cm, E = 0.2 MPa) pinned at their outer faces squeeze a rigid
    # ball (r = 2 cm, 50 g) from both sides by 2 mm each
    r, gap = 0.02, 0.036
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    for side in (-1, 1):
        x0 = gap / 2 if side > 0 else -gap / 2 - 0.02
        v, t = box_mesh((0.02, 0.04, 0.04), (2, 4, 4), origin=(x0, -0.02, 0.08))
        first, _ = add_mesh(b, v, t, density=1000.0, young=2e5, poisson=0.3, friction=mu)
        outer = np.abs(v[:, 0] - (x0 + 0.02 if side > 0 else x0)) < 1e-9
        for i in np.flatnonzero(outer):
            b.add_attachment(int(first + i), 0, v[i])
    ball = b.add_body(0, pos=[0, 0, 0.1], mass=0.05, inertia=np.eye(3) * 0.4 * 0.05 * r * r)
    b.add_joint(ball, "free")
    b.add_geom(ball, "sphere", size=[r, 0, 0], friction=[mu, 0.005, 0.0001])
    return ncpgym.Simulator(b.build())


def test_rigid_ball_held_between_two_soft_pads_by_friction_does_not_slip():
    sim = pads_and_ball(0.8)
    z = []
    for k in range(240):
        sim.step()
        z.append(sim.q[2])
    z = np.array(z)
    assert np.ptp(z[120:]) < 1e-4  # held still over the last second
    assert z[-1] > 0.1 - 1e-3      # after settling into the grip (measured 0.2 mm)
    # without friction the ball sinks into the pads until their dimples carry it
    # (measured 5.8 mm): friction, not the dimples, holds it above
    sim = pads_and_ball(0.0)
    for k in range(240):
        sim.step()
    assert 0.1 - sim.q[2] > 10 * (0.1 - z[-1])


def test_read_mesh_with_meshio_round_trips_a_generated_mesh(tmp_path):
    meshio = pytest.importorskip("meshio")
    v, t = box_mesh((0.1, 0.05, 0.02), (3, 2, 1))
    path = tmp_path / "block.vtu"
    flipped = t.copy()
    flipped[::2] = flipped[::2][:, [1, 0, 2, 3]]  # some inverted: read_mesh reorients them
    meshio.write(str(path), meshio.Mesh(v, [("tetra", flipped)]))
    v2, t2 = read_mesh(path)
    np.testing.assert_allclose(v2, v)
    d = v2[t2[:, 1:]] - v2[t2[:, :1]]
    assert np.all(np.linalg.det(d) > 0)
    assert {tuple(sorted(x)) for x in t2} == {tuple(sorted(x)) for x in t}
    b = ncpgym.Builder()
    add_mesh(b, v2, t2, density=1000.0, young=1e5, poisson=0.3)
    assert b.build().ntet == len(t)
    meshio.write(str(tmp_path / "tri.vtu"), meshio.Mesh(v, [("triangle", t[:, :3])]))
    with pytest.raises(ValueError, match="no tetrahedra"):
        read_mesh(tmp_path / "tri.vtu")


def test_voxelised_ellipsoid_has_the_right_volume_and_orientation():
    from ncpgym.soft import ellipsoid_mesh, sphere_mesh

    r = np.array([0.05, 0.03, 0.02])
    v, t = ellipsoid_mesh(r, 16)
    vol = np.linalg.det(v[t[:, 1:]] - v[t[:, :1]]) / 6
    assert np.all(vol > 0)
    np.testing.assert_allclose(vol.sum(), 4 / 3 * np.pi * r.prod(), rtol=0.05)  # staircase error
    assert np.all(np.abs(v) <= r + 1e-12)
    v2, t2 = sphere_mesh(0.05, 6)
    assert np.unique(t2).size == len(v2)  # no unused vertices
    with pytest.raises(ValueError):
        ellipsoid_mesh([0.05, 0.0, 0.02], 8)


def test_stiffness_scale_per_world_scales_the_cantilever_deflection_inversely():
    """Batch.stiffness_scale multiplies each world's Young's modulus: the same cantilever
    (E = 1e7 Pa, small deflection, linear elasticity) in worlds scaled 1, 2 and 0.5 sags
    1, 1/2 and 2 times as much (Euler-Bernoulli: tip deflection = rho g A L^4 / (8 E I));
    world 0 equals the Simulator's static tip."""
    L, a = 0.2, 0.02
    v, t = box_mesh((L, a, a), (8, 2, 2), origin=(0, -a / 2, -a / 2))
    b = ncpgym.Builder()
    b.set_timestep(1 / 30)
    first, _ = add_mesh(b, v, t, density=1000.0, young=1e7, poisson=0.3)
    for i in np.flatnonzero(v[:, 0] < 1e-9):
        b.add_attachment(int(first + i), 0, v[i])
    m = b.build()
    batch = ncpgym.Batch(m, 3, num_threads=2)
    batch.stiffness_scale[:] = [1.0, 2.0, 0.5]
    batch.step(substeps=90)
    tip = np.flatnonzero(np.abs(v[:, 0] - L) < 1e-9)
    sag = -batch.x[:, tip, 2].mean(axis=1)
    assert np.abs(batch.v).max() < 1e-6  # static
    np.testing.assert_allclose(sag / sag[0], [1.0, 0.5, 2.0], rtol=5e-3)
    assert sag[0] == pytest.approx(cantilever_tip((8, 2, 2)), rel=1e-12)
