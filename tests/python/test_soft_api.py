"""Soft bodies from Python: generated meshes, lumped masses, stepping in a Batch."""

import numpy as np
import pytest

import ncpgym
from ncpgym.soft import box_mesh


def test_box_mesh_is_a_valid_tetrahedral_partition():
    v, t = box_mesh((0.2, 0.1, 0.1), (4, 2, 2))
    assert v.shape == (5 * 3 * 3, 3) and t.shape == (6 * 16, 4)
    d = v[t[:, 1:]] - v[t[:, :1]]
    vol = np.linalg.det(d) / 6
    assert np.all(vol > 0)  # positively oriented
    np.testing.assert_allclose(vol.sum(), 0.2 * 0.1 * 0.1)
    with pytest.raises(ValueError):
        box_mesh((0.1, 0.1, 0.0), 2)


def test_soft_body_model_and_batch():
    v, t = box_mesh(0.1, 3, origin=(-0.05, -0.05, 0.02))
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.add_geom(0, "plane")
    first = b.add_soft_body(v, t, density=500.0, young=2e5, poisson=0.4, friction=0.8)
    m = b.build()
    assert m.ntet == t.shape[0] and m.nparticle == v.shape[0] and first == 0
    np.testing.assert_allclose(np.sum(m.particle_mass), 500.0 * 1e-3)
    np.testing.assert_allclose(np.sum(m.tet_volume), 1e-3)
    batch = ncpgym.Batch(m, 2, num_threads=2)
    batch.gravity[1] = 0.0  # world 1 floats
    batch.step(None, 120)
    assert batch.status.sum() == 0
    x = batch.x
    assert x[0, :, 2].min() > -1e-3 and x[0, :, 2].min() < 5e-3  # landed on the ground
    np.testing.assert_allclose(x[1], x[1][0] + (np.asarray(m.particle_pos0) - np.asarray(m.particle_pos0)[0]), atol=1e-9)
    with pytest.raises(ValueError, match="inverted"):
        b2 = ncpgym.Builder()
        ids = [b2.add_particle(p, 1.0) for p in ([0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1])]
        b2.add_tet(ids, 1e5, 0.3)


def test_neohookean_soft_body_steps_and_bad_model_name():
    v, t = box_mesh(0.05, 2, origin=(0, 0, 0.01))
    b = ncpgym.Builder()
    b.add_geom(0, "plane")
    b.add_soft_body(v, t, density=1000.0, young=1e5, poisson=0.45, model="neohookean")
    sim = ncpgym.Simulator(b.build())
    sim.step(nsteps=60)
    assert np.isfinite(sim.x).all() and sim.x[:, 2].min() > -1e-3
    with pytest.raises(ValueError, match="unknown tet model"):
        ncpgym.Builder().add_soft_body(v, t, 1000.0, 1e5, 0.3, model="rubber")


def test_activation_is_set_per_world_through_the_batch():
    v, t = box_mesh(0.1, 2)
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.set_gravity([0, 0, 0])
    b.add_soft_body(v, t, density=1000.0, young=1e5, poisson=0.3)
    for k in range(t.shape[0]):
        b.set_tet_group(k, 0)
    m = b.build()
    assert m.nactgroup == 1
    batch = ncpgym.Batch(m, 2, num_threads=2)
    assert batch.activation.shape == (2, 1)
    batch.activation[1, 0] = 0.1  # inflate world 1 only
    batch.step(None, 400)
    ext = batch.x.max(axis=1) - batch.x.min(axis=1)  # bounding box edge lengths
    np.testing.assert_allclose(ext[0], 0.1, atol=1e-6)
    np.testing.assert_allclose(ext[1], 0.11, rtol=0.01)


def test_soft_solver_options_are_checked():
    import pytest

    with pytest.raises(ValueError, match="soft solver"):
        ncpgym.SolverOptions(soft_solver="cholesky")
    ncpgym.SolverOptions(soft_solver="dual", soft_triangle_contacts=True, soft_soft_contacts=False)


def test_a_diverging_soft_world_is_reported_and_leaves_the_others_untouched():
    # Neo-Hookean finger inflated far beyond its material (a = 1: chambers at twice their
    # rest size; a = 0.2 diverged with the three-row elements, now it converges) in world 1 only,
    # with the damped step (line_search, this finger's default, carries it through a = 1):
    # world 1 is flagged and keeps its last finite state; worlds 0 and 2 are bitwise a clean
    # run's; a reset brings world 1 back to rest
    from ncpgym.envs.pneunet import add_finger

    b = ncpgym.Builder()
    b.set_timestep(1 / 30)
    b.set_gravity([0, 0, 0])
    add_finger(b, n=(8, 2, 2), model="neohookean")
    m = b.build()
    batch = ncpgym.Batch(m, 3, num_threads=2, line_search=False)
    clean = ncpgym.Batch(m, 3, num_threads=1, line_search=False)
    for k in range(12):
        for bb in (batch, clean):
            bb.activation[:] = 0.02 * min(1, k / 15)
        batch.activation[1] = 1.0 * min(1, k / 15)  # chambers at twice their rest size: the solve fails
        batch.step(None, 1)
        clean.step(None, 1)
    assert list(batch.status) == [0, 1, 0]
    assert np.isfinite(batch.x).all()
    for w in (0, 2):
        assert np.array_equal(batch.x[w], clean.x[w]) and np.array_equal(batch.v[w], clean.v[w])
    batch.reset(np.array([0, 1, 0], np.uint8), np.zeros((1, m.nq)), np.zeros((1, m.nv)))
    assert list(batch.status) == [0, 0, 0]
    np.testing.assert_array_equal(batch.x[1], np.asarray(m.particle_pos0))


def test_particle_forces_accelerate_particles_and_reset_to_zero():
    # a free particle in zero gravity under F: v = n h F / m after n steps (implicit Euler is
    # exact for a constant force); per world in a Batch, zeroed by reset
    b = ncpgym.Builder()
    b.set_gravity([0, 0, 0])
    b.set_timestep(0.01)
    b.add_particle([0, 0, 0], 2.0)
    model = b.build()
    sim = ncpgym.Simulator(model)
    sim.particle_force[0] = [1.0, -2.0, 0.5]
    sim.step(nsteps=10)
    np.testing.assert_allclose(sim.v[0], 10 * 0.01 * np.array([1.0, -2.0, 0.5]) / 2.0, rtol=1e-12)
    batch = ncpgym.Batch(model, 2)
    batch.particle_force[1, 0] = [0, 0, 4.0]
    batch.step(None, 5)
    np.testing.assert_allclose(batch.v[:, 0, 2], [0.0, 5 * 0.01 * 4.0 / 2.0], rtol=1e-12)
    batch.reset(np.array([1, 1], np.uint8), np.zeros((2, 0)), np.zeros((2, 0)))
    assert not batch.particle_force.any()
    sim.particle_force[:] = np.nan
    with pytest.raises(ValueError, match="particle forces are not finite"):
        sim.step()
