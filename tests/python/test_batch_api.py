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


def _slices(b, segments):
    """The fused observation written out with NumPy: each segment a slice of the world's
    flattened row of the named array."""
    n = b.num_worlds
    return np.concatenate([getattr(b, f).reshape(n, -1)[:, o:o + k] for f, o, k in segments], axis=1)


def test_fused_observation_gathers_the_named_slices_after_step_reset_and_forward(model):
    b = ncpgym.Batch(model, 5, num_threads=2)
    nb = model.nbody
    # odd offsets and lengths inside rows (a fencepost error shows), every field once
    segments = [("q", 2, model.nq - 2), ("u", 1, 3), ("xpos", 4, 5), ("xquat", 3, 6), ("xipos", 3, 3 * nb - 3),
                ("cinert", 10, 10 * (nb - 1)), ("cvel", 7, 11), ("cfrc_ext", 6, 6 * (nb - 1)),
                ("qfrc_actuator", 6, model.nv - 6), ("site_xpos", 0, 3 * model.nsite)]
    b.q[:, 2] += np.linspace(0.0, 0.2, 5)
    b.forward()
    b.set_observation(segments)
    assert b.observation_segments == segments
    assert b.observation.shape == (5, sum(k for _, _, k in segments))
    assert np.array_equal(b.observation, _slices(b, segments))  # gathered at once
    rng = np.random.default_rng(3)
    for _ in range(30):  # falls onto the floor: contact wrenches in cfrc_ext too
        b.step(rng.uniform(-0.4, 0.4, (5, model.nu)), 2)
        assert np.array_equal(b.observation, _slices(b, segments))
    assert np.abs(b.cfrc_ext).max() > 0
    mask = np.array([0, 1, 0, 1, 0], np.uint8)
    before = b.observation.copy()
    b.reset(mask, np.tile(model.qpos0, (2, 1)), np.ones((2, model.nv)))
    assert np.array_equal(b.observation, _slices(b, segments))
    assert np.array_equal(b.observation[[0, 2, 4]], before[[0, 2, 4]])  # untouched worlds
    b.q[0, 0] += 1.0  # written by hand: gathered by forward(), as the other derived arrays
    b.forward()
    assert np.array_equal(b.observation, _slices(b, segments))
    with pytest.raises(ValueError, match="read-only"):
        b.observation[0, 0] = 1.0
    with pytest.raises(ValueError, match=r"segment of 'u' \[20, 24\) outside its 23 numbers"):
        b.set_observation([("u", 20, 4)])
    with pytest.raises(ValueError, match="unknown field 'qvel'"):
        b.set_observation([("qvel", 0, 1)])
    assert b.observation_segments == segments  # a refused spec leaves the last one


def test_step_copies_the_fused_observation_out_and_a_diverged_world_keeps_its_row(model):
    b = ncpgym.Batch(model, 4, num_threads=2)
    segments = [("q", 2, model.nq - 2), ("u", 0, model.nv), ("cfrc_ext", 6, 6 * (model.nbody - 1))]
    with pytest.raises(ValueError, match="no observation is set"):
        b.step(None, 1, np.zeros((4, 3)))
    b.set_observation(segments)
    dim = b.observation.shape[1]
    rng = np.random.default_rng(1)
    for _ in range(60):  # falling onto the floor: contact wrenches in the rows too
        out = np.full((4, dim), np.nan)
        b.step(rng.uniform(-0.4, 0.4, (4, model.nu)), 2, out)
        assert np.array_equal(out, b.observation) and np.array_equal(out, _slices(b, segments))
    last = b.observation.copy()
    assert np.abs(last[:, -6 * (model.nbody - 1):]).max() > 0
    b.u[1, 4] = np.nan  # world 1 diverges in the next step
    out = np.full((4, dim), np.nan)
    b.step(None, 2, out)
    assert b.status.tolist() == [0, 1, 0, 0]
    assert np.array_equal(out[1], last[1]) and np.array_equal(b.observation[1], last[1])  # its last row
    assert np.array_equal(out[[0, 2, 3]], _slices(b, segments)[[0, 2, 3]])
    assert not np.array_equal(out[0], last[0])
    # restoring saved rows (an environment's set_state) by assignment, checked like mocap_pos
    b.observation = last
    assert np.array_equal(b.observation, last)
    for bad in (np.zeros((4, dim + 1)), np.zeros((3, dim)), np.zeros((4, dim), np.float32),
                np.zeros((4, dim))[:, ::-1], np.asfortranarray(np.zeros((4, dim))), np.zeros((8, dim))[::2]):
        with pytest.raises(ValueError, match=r"observation_out: expected a writable C-contiguous float64 array of shape \(4, "):
            b.step(None, 1, bad)
    ro = np.zeros((4, dim))
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="observation_out: expected a writable"):
        b.step(None, 1, ro)


def test_mass_centre_is_mujocos_subtree_com_of_the_world_body(model):
    import mujoco

    mj = mujoco.MjModel.from_xml_path(humanoid_xml())
    d = mujoco.MjData(mj)
    b = ncpgym.Batch(model, 3, num_threads=1)
    rng = np.random.default_rng(2)
    q = np.tile(model.qpos0, (3, 1))
    q[:, :3] += rng.uniform(-1, 1, (3, 3))
    q[:, 7:] += rng.uniform(-0.5, 0.5, (3, model.nq - 7))
    b.reset(None, q, np.zeros((3, model.nv)))
    b.mass_scale[2] = 3.0  # every mass scaled: the same centre
    b.forward()
    for i in range(3):
        d.qpos[:] = q[i]
        mujoco.mj_forward(mj, d)
        np.testing.assert_allclose(b.mass_centre[i], d.subtree_com[0], atol=1e-12)
    assert b.mass_centre.shape == (3, 3)


def test_humanoid_observation_is_humanoid_v5s_layout(model):
    # Humanoid-v5's observation (gymnasium/envs/mujoco/humanoid_v5.py, _get_obs): qpos[2:],
    # qvel, cinert[1:], cvel[1:], qfrc_actuator[6:], cfrc_ext[1:], flattened in that order
    env = ncpgym.make_vec("Humanoid-v0", 3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(25):
        obs, *_ = env.step(rng.uniform(-0.4, 0.4, (3, model.nu)))
    b = env.unwrapped.batch
    n = 3
    v5 = np.concatenate([b.q[:, 2:], b.u, b.cinert[:, 1:].reshape(n, -1), b.cvel[:, 1:].reshape(n, -1),
                         b.qfrc_actuator[:, 6:], b.cfrc_ext[:, 1:].reshape(n, -1)], axis=1)
    assert obs.shape == (3, 348) and np.array_equal(obs, v5)
    assert not np.shares_memory(obs, b.observation)  # the env's rows are the caller's
    env.close()
