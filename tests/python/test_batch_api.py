"""ncpgym.Batch from Python: zero-copy views that keep the batch alive, shapes, errors."""

import gc

import numpy as np
import pytest

import ncpgym
from ncpgym.tasks.humanoid import humanoid_xml


@pytest.fixture(scope="module")
def model():
    return ncpgym.load_model(humanoid_xml())


def test_views_share_memory_and_keep_the_batch_alive(model):
    b = ncpgym.Batch(model, 3, num_threads=2)
    q = b.q
    assert q.shape == (3, model.nq) and np.shares_memory(q, b.q)
    q[1, 2] = 5.0
    assert b.q[1, 2] == 5.0
    shapes = {
        "u": (3, model.nv), "ctrl": (3, model.nu), "xpos": (3, model.nbody, 3), "cinert": (3, model.nbody, 10),
        "cvel": (3, model.nbody, 6), "cfrc_ext": (3, model.nbody, 6), "qfrc_actuator": (3, model.nv),
        "geom_contact": (3, model.ngeom), "geom_force": (3, model.ngeom), "gravity": (3, 3),
        "site_xmat": (3, model.nsite, 3, 3), "status": (3,), "ncontact": (3,),
    }
    for name, shape in shapes.items():
        assert getattr(b, name).shape == shape, name
    del b
    gc.collect()
    q[0, 0] += 1.0  # still valid memory: the view owns a reference to the batch


def test_stepping_reports_contacts_and_per_world_gravity(model):
    b = ncpgym.Batch(model, 2, num_threads=2)
    b.gravity[1] = [0.0, 0.0, 0.0]
    b.q[1, 2] += 1.0  # well above the floor
    b.forward()
    mass = np.asarray(model.body_mass)
    com = lambda: (mass[None, :, None] * b.xipos).sum(1) / mass.sum()  # noqa: E731
    c0 = com()
    b.step(np.zeros((2, model.nu)), 80)  # the feet reach the floor after ~60 steps
    assert com()[0, 2] < c0[0, 2] - 0.05  # falls onto the floor
    # weightless: the centre of mass stays (up to the integrator's momentum error of the
    # articulated body, semi-implicit Euler conserves it only to first order)
    np.testing.assert_allclose(com()[1], c0[1], atol=1e-3)
    assert b.ncontact[0] > 0 and b.ncontact[1] == 0
    assert b.geom_contact[0, 0] == 1  # the floor
    # contact wrenches carry the weight: vertical forces sum to about m g at rest-ish
    assert b.cfrc_ext[0, :, 5].sum() > 0


def test_bad_arguments(model):
    b = ncpgym.Batch(model, 2)
    with pytest.raises(ValueError, match=r"ctrl: expected shape \(2, 17\)"):
        b.step(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="substeps"):
        b.step(None, 0)
    with pytest.raises(ValueError, match="mask"):
        b.forward(np.ones(3, bool))
    with pytest.raises(ValueError, match=r"q: expected shape \(1, 24\)"):
        b.reset(np.array([True, False]), np.zeros((2, 24)), np.zeros((1, 23)))
    with pytest.raises(ValueError, match="at least one world"):
        ncpgym.Batch(model, 0)
    with pytest.raises(ValueError, match="warm_start"):
        ncpgym.Batch(model, 2, warm_start=True)
    with pytest.raises(ValueError, match="unknown linear solver"):
        ncpgym.Batch(model, 2, linear="qr")


def test_contact_flags_tell_the_ground_from_moving_bodies():
    """Two boxes stacked on the ground: the bottom box touches the ground (static) and the
    top box (dynamic), the top box only a moving body; geom_force is the weight carried."""
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    ground = b.add_geom(0, "plane")
    geoms = []
    for z in (0.1, 0.3):
        body = b.add_body(0, pos=[0, 0, z], mass=2.0, inertia=np.eye(3) * 0.01)
        b.add_joint(body, "free")
        geoms.append(b.add_geom(body, "box", size=[0.1, 0.1, 0.1]))
    batch = ncpgym.Batch(b.build(), 1)
    for _ in range(60):
        batch.step()
    lo, hi = geoms
    assert batch.geom_static_contact[0, [ground, lo, hi]].tolist() == [0, 1, 0]
    assert batch.geom_dynamic_contact[0, [ground, lo, hi]].tolist() == [1, 1, 1]
    assert batch.geom_force[0, hi] == pytest.approx(2.0 * 9.81, rel=1e-3)
    assert batch.geom_force[0, lo] == pytest.approx(2 * 2.0 * 9.81 + 2.0 * 9.81, rel=1e-3)


def test_contact_depth_is_the_deepest_penetration_the_step_found():
    """A 0.2 m box placed 2 mm into the ground, one resting on it and one in the air: after
    a step, contact_depth reads the overlap each world started it with (2 mm, 0, 0: the
    geometry, by hand); the hard contact pushes the first box out within that step."""
    import ncpgym

    b = ncpgym.Builder()
    b.add_geom(0, "plane", size=[5, 5, 0.1])
    body = b.add_body(0, mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_joint(body, "free")
    b.add_geom(body, "box", size=[0.1, 0.1, 0.1])
    m = b.build()
    batch = ncpgym.Batch(m, 3, num_threads=1)
    q = np.tile(m.qpos0, (3, 1))
    q[:, 2] = [0.098, 0.1, 0.5]
    batch.reset(None, q, np.zeros((3, m.nv)))
    batch.step()
    np.testing.assert_allclose(batch.contact_depth, [0.002, 0.0, 0.0], atol=1e-12)
    batch.step()
    assert batch.contact_depth[0] < 1e-5 and batch.contact_depth[2] == 0.0
