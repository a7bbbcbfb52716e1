"""The Python dynamics API: single vs batched calls, thread-count independence, bad
input, Builder/State from Python, and task-space quantities through the IIM."""

import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn


@pytest.fixture(scope="module")
def humanoid(model_paths):
    return ncpgym.load_model(model_paths["humanoid"])


def random_batch(m, n, seed=0):
    rng = np.random.default_rng(seed)
    q = np.tile(m.qpos0, (n, 1))
    q[:, 7:] += rng.uniform(-0.5, 0.5, size=(n, m.nq - 7))
    quat = rng.normal(size=(n, 4))
    q[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    return q, rng.normal(size=(n, m.nv)), rng.normal(size=(n, m.nv))


def test_single_and_batch_agree_bitwise(humanoid):
    q, u, tau = random_batch(humanoid, 16)
    batch = dyn.forward(humanoid, q, u, tau)
    assert batch.shape == (16, humanoid.nv)
    for i in (0, 7, 15):
        np.testing.assert_array_equal(dyn.forward(humanoid, q[i], u[i], tau[i]), batch[i])
    assert dyn.mass_matrix(humanoid, q[0]).shape == (humanoid.nv, humanoid.nv)
    assert dyn.mass_matrix(humanoid, q).shape == (16, humanoid.nv, humanoid.nv)


def test_thread_count_does_not_change_results(humanoid):
    q, u, tau = random_batch(humanoid, 64, seed=1)
    B = np.random.default_rng(2).normal(size=(humanoid.nv, 5))
    for f in (lambda t: dyn.forward(humanoid, q, u, tau, threads=t),
              lambda t: dyn.minv_times(humanoid, q, B, threads=t),
              lambda t: dyn.mass_matrix(humanoid, q, threads=t)):
        np.testing.assert_array_equal(f(1), f(2))


def test_iim_gives_inverse_operational_space_inertia(model_paths):
    m = ncpgym.load_model(model_paths["fetch"], strict=False)
    q, _, _ = random_batch(m, 1, seed=3)
    q = m.qpos0 + 0.0
    site = m.site_id("robot0:grip")
    J = dyn.site_jacobian(m, q, site)
    lam_inv = J @ dyn.minv_times(m, q, J.T)
    M = dyn.mass_matrix(m, q)
    np.testing.assert_allclose(lam_inv, J @ np.linalg.solve(M, J.T), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(lam_inv, lam_inv.T, atol=1e-12)
    # the extended unit force method gives the same M^-1 B
    np.testing.assert_allclose(dyn.eufm(m, q, np.zeros(m.nv), J.T), dyn.minv_times(m, q, J.T),
                               rtol=1e-7, atol=1e-9)


def test_forward_equals_mass_matrix_solve(humanoid):
    q, u, tau = random_batch(humanoid, 4, seed=4)
    acc = dyn.forward(humanoid, q, u, tau)
    for i in range(4):
        rhs = tau[i] + dyn.passive(humanoid, q[i], u[i]) - dyn.bias(humanoid, q[i], u[i])
        np.testing.assert_allclose(acc[i], np.linalg.solve(dyn.mass_matrix(humanoid, q[i]), rhs),
                                   rtol=1e-9, atol=1e-9)


def test_bad_input_gets_clear_errors(humanoid):
    q, u, tau = random_batch(humanoid, 3)
    with pytest.raises(ValueError, match=r"q: expected shape \(24,\) or \(N, 24\)"):
        dyn.mass_matrix(humanoid, np.zeros(5))
    with pytest.raises(ValueError, match=r"u: batch size 2 does not match 3"):
        dyn.forward(humanoid, q, u[:2], tau)
    bad = q.copy()
    bad[1, 4] = np.nan
    with pytest.raises(ValueError, match=r"non-finite values in batch entries \[1\]"):
        dyn.forward(humanoid, bad, u, tau)
    with pytest.raises(TypeError, match="dtype"):
        dyn.mass_matrix(humanoid, np.array(["a"] * 24))
    with pytest.raises(ValueError, match=r"B: expected shape"):
        dyn.minv_times(humanoid, q, np.zeros((3, 2)))
    with pytest.raises(IndexError, match="unknown site id 0"):
        dyn.site_jacobian(humanoid, q[0], 0)
    with pytest.raises(IndexError, match="unknown site name 'tip'"):
        dyn.site_jacobian(humanoid, q[0], "tip")


def test_builder_from_python_pendulum():
    b = ncpgym.Builder()
    link = b.add_body(0, mass=2.0, com=[0, 0, -0.5], inertia=np.zeros((3, 3)), name="link")
    b.add_joint(link, "hinge", axis=[0, 1, 0], name="pivot")
    b.add_site(link, pos=[0, 0, -0.5], name="tip")
    m = b.build()
    for th in (0.1, 1.0, 2.5):
        acc = dyn.forward(m, [th], [0.0])
        assert acc[0] == pytest.approx(-9.81 / 0.5 * np.sin(th), rel=1e-12)
    assert m.body_id("link") == 1 and m.site_names == ["tip"]
    with pytest.raises(ValueError, match="negative mass"):
        b.add_body(0, mass=-1.0)
    with pytest.raises(ValueError, match="unknown joint type 'screw'"):
        b.add_joint(link, "screw")
    with pytest.raises(ValueError, match="zero mass in a moving subtree"):
        b2 = ncpgym.Builder()
        ghost = b2.add_body(0, mass=0.0, inertia=np.zeros((3, 3)), name="ghost")
        b2.add_joint(ghost, "slide")
        b2.build()


def test_state_views_write_through(humanoid):
    s = ncpgym.State(humanoid)
    np.testing.assert_array_equal(s.q, humanoid.qpos0)
    view = s.q
    view[0] = 3.0
    assert s.q[0] == 3.0
    assert s.u.shape == (humanoid.nv,) and s.ctrl.shape == (humanoid.nu,)
    with pytest.raises(ValueError, match="wrong size"):
        s.u = np.zeros(3)
