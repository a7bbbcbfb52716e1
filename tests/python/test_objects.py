"""The irregular-object generator (ncpgym.objects, issue 19): closed surfaces with exact
volumes for the shapes where geometry gives one, MuJoCo's own mass properties of every
generated object, convex decomposition of the concave ones, a user's STL through the same
path, and generated objects at rest on the ground."""

import struct

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import objects as ob
from ncpgym.models import from_mujoco


def test_lathed_cylinder_and_torus_have_their_polygonal_volumes():
    """Every face of a lathe joins two horizontal circles at the same angles, so the solid
    is exactly the revolution with N-gon cross-sections: a cylinder becomes an N-gon prism,
    (N / 2) sin(2 pi / N) R^2 h; a torus of an M-gon tube, area A centred at R, has Pappus's
    volume times N sin(2 pi / N) / (2 pi)."""
    N, R, h = 24, 0.03, 0.05
    v, f = ob.lathe([(0.0, 0.0), (R, 0.0), (R, h), (0.0, h)], N)
    assert ob.is_closed(f)
    assert ob.volume(v, f) == pytest.approx(N / 2 * np.sin(2 * np.pi / N) * R**2 * h, rel=1e-12)
    M, r = 10, 0.008
    a = 2 * np.pi * np.arange(M) / M
    v, f = ob.lathe(np.c_[R + r * np.cos(a), r * np.sin(a)], N)
    assert ob.is_closed(f)
    area = M / 2 * np.sin(2 * np.pi / M) * r**2
    assert ob.volume(v, f) == pytest.approx(area * R * N * np.sin(2 * np.pi / N), rel=1e-12)


def test_extruded_star_and_voxel_union_volumes():
    a = np.pi * np.arange(10) / 5
    rad = np.where(np.arange(10) % 2 == 0, 0.04, 0.015)
    poly = np.c_[rad * np.cos(a), rad * np.sin(a)]
    v, f = ob.extrude(poly, 0.02)
    x, y = poly.T
    shoelace = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
    assert ob.is_closed(f) and ob.volume(v, f) == pytest.approx(shoelace * 0.02, rel=1e-12)
    grid = np.zeros((3, 3, 2), bool)
    grid[[0, 1, 2, 0, 0], [0, 0, 0, 1, 2], 0] = True  # an L
    v, f = ob.voxel_surface(grid, 0.02)
    assert ob.is_closed(f) and ob.volume(v, f) == pytest.approx(5 * 0.02**3, rel=1e-12)
    assert len(f) == 2 * 22  # an L of five cubes shows 22 cube faces


@pytest.mark.parametrize("kind", ob.KINDS)
def test_generated_objects_are_closed_and_mujoco_agrees_on_their_mass(kind):
    """Three seeds per kind: closed outward surfaces; MuJoCo's exact mesh inertia gives the
    same mass (density x volume) and puts the centre of mass at the object's origin; the
    same seed gives the same object, another seed another."""
    for seed in range(3):
        obj = ob.generate(kind, seed, size=0.08, density=600.0)
        assert all(ob.is_closed(f) for _, f in obj.parts)
        assert all(ob.volume(v, f) > 0 for v, f in obj.parts)
        assert 0.04 < obj.extent().max() < 0.11
        spec = mujoco.MjSpec()
        body = spec.worldbody.add_body(name="obj")
        body.add_freejoint()
        obj.add_to(spec, body)
        m = spec.compile()
        assert m.body_mass[1] == pytest.approx(600.0 * obj.volume, rel=1e-6)
        np.testing.assert_allclose(m.body_ipos[1], 0.0, atol=1e-6)
    a, b, c = ob.generate(kind, 5), ob.generate(kind, 5), ob.generate(kind, 6)
    assert all(np.array_equal(p[0], q[0]) for p, q in zip(a.parts, b.parts))
    assert not all(p[0].shape == q[0].shape and np.allclose(p[0], q[0]) for p, q in zip(a.parts, c.parts))


def test_concave_objects_are_decomposed_by_the_loader():
    """A mug, a ring and a star each become several convex parts of their body (CoACD
    through models.decompose, in the loader's default "auto" mode)."""
    spec = mujoco.MjSpec()
    for k, kind in enumerate(("mug", "ring", "star")):
        body = spec.worldbody.add_body(name=kind, pos=[0.2 * k, 0, 0.1])
        body.add_freejoint()
        ob.generate(kind, 1).add_to(spec, body)
    mj = spec.compile()
    m = from_mujoco(mj)
    for kind in ("mug", "ring", "star"):
        b = mj.body(kind).id
        parts = sum(1 for g in range(m.ngeom) if m.geom_body[g] == b)
        assert parts > 2, (kind, parts)


def _write_stl(path, vertices, faces):
    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<I", len(faces)))
        for tri in vertices[faces]:
            fh.write(struct.pack("<12fH", 0, 0, 0, *tri.ravel(), 0))


def test_a_user_stl_loads_like_a_generated_object(tmp_path):
    obj = ob.generate("star", 4)
    v, f = obj.parts[0]
    path = tmp_path / "star.stl"
    _write_stl(path, v + [0.3, 0.0, 0.1], f)  # off-centre in the file: centred on load
    loaded = ob.load_mesh_object(path, scale=2.0, density=800.0)
    assert loaded.volume == pytest.approx(8 * obj.volume, rel=1e-5)  # float32 STL
    assert loaded.mass == pytest.approx(800.0 * loaded.volume)
    spec = mujoco.MjSpec()
    body = spec.worldbody.add_body(name="obj")
    body.add_freejoint()
    loaded.add_to(spec, body)
    m = spec.compile()
    np.testing.assert_allclose(m.body_ipos[1], 0.0, atol=1e-6)
    empty = tmp_path / "empty.stl"
    empty.write_bytes(b"\0" * 80 + struct.pack("<I", 0))
    with pytest.raises(ValueError, match="empty.stl"):
        ob.load_mesh_object(empty)
    with pytest.raises(FileNotFoundError):
        ob.load_mesh_object(tmp_path / "missing.stl")
    with pytest.raises(ValueError, match="unknown object kind"):
        ob.generate("teapot", 0)
    with pytest.raises(ValueError, match="unknown object kinds"):
        ob.object_set(3, kinds=("mug", "vase"))


def test_generated_objects_come_to_rest_on_the_ground():
    """One object of every kind dropped from 2 cm onto a plane (mu 0.8, h = 0.0083 s): after
    1.5 s those with flat faces (L blocks, stars, mugs, rings, plates) are at rest (speed
    below 1 mm/s or 1 mrad/s); the round ones may still roll (a blob rolls on at 2-3 rad/s,
    slowing, a bowl rocks); no contact is deeper than 1 mm."""
    spec = mujoco.MjSpec()
    spec.option.timestep = 0.0083
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[2, 2, 0.1], friction=[0.8, 0.005, 0.0001])
    for k, kind in enumerate(ob.KINDS):
        obj = ob.generate(kind, 2)
        body = spec.worldbody.add_body(name=kind, pos=[0.15 * k, 0, 0.02 + obj.extent()[2]])
        body.add_freejoint()
        obj.add_to(spec, body)
    mj = spec.compile()
    m = from_mujoco(mj)
    sim = ncpgym.Simulator(m)
    sim.step(nsteps=int(1.5 / 0.0083))
    speed = np.abs(sim.u.reshape(len(ob.KINDS), 6)).max(axis=1)
    flat = [k for k, kind in enumerate(ob.KINDS) if kind not in ("blob", "bowl")]
    assert speed[flat].max() < 1e-3, dict(zip(ob.KINDS, speed))
    c = sim.contacts
    assert len(c["dist"]) > 0 and c["dist"].min() > -1e-3
