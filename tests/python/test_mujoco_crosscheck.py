"""ncpgym dynamics against MuJoCo on models ncpgym did not write: mass matrix (mj_fullM),
bias forces (qfrc_bias), forward accelerations (mj_forward with every constraint and the
actuators disabled, so both sides integrate the same smooth dynamics), site poses and
Jacobians (mj_jacSite)."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn

NSTATES = 50
TOL = 1e-8
MODELS = ["humanoid", "ant", "fetch", "allegro", "panda", "talos"]


def random_states(mj, rng, n):
    """Random configurations around qpos0 (unit quaternions), velocities and forces."""
    qs, us, taus = [], [], []
    for _ in range(n):
        q = mj.qpos0.copy()
        for j in range(mj.njnt):
            a = mj.jnt_qposadr[j]
            t = mj.jnt_type[j]
            if t == mujoco.mjtJoint.mjJNT_FREE:
                q[a:a + 3] += rng.normal(size=3)
                quat = rng.normal(size=4)
                q[a + 3:a + 7] = quat / np.linalg.norm(quat)
            elif t == mujoco.mjtJoint.mjJNT_BALL:
                quat = rng.normal(size=4)
                q[a:a + 4] = quat / np.linalg.norm(quat)
            else:
                q[a] += rng.uniform(-1.0, 1.0)
        qs.append(q)
        us.append(rng.normal(size=mj.nv))
        taus.append(rng.normal(size=mj.nv))
    return np.array(qs), np.array(us), np.array(taus)


def compiled(model_paths, name):
    path = model_paths[name]
    if path.suffix == ".urdf":
        # the same compiled model ncpgym converts: rebuild it through the loader's path
        from ncpgym.models import loader
        return loader.compile_urdf(path, floating_base=False)
    return mujoco.MjModel.from_xml_path(str(path))


def rel(a, b):
    return np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b)))


@pytest.mark.parametrize("name", MODELS)
def test_dynamics_match_mujoco(model_paths, name):
    mj = compiled(model_paths, name)
    m = ncpgym.models.from_mujoco(mj, strict=False)
    mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT) | int(
        mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(len(name))
    q, u, tau = random_states(mj, rng, NSTATES)
    M = dyn.mass_matrix(m, q)
    bias = dyn.bias(m, q, u)
    qacc = dyn.forward(m, q, u, tau)
    kin = dyn.kinematics(m, q)
    worst = np.zeros(4)
    for i in range(NSTATES):
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = q[i], u[i], tau[i]
        mujoco.mj_forward(mj, d)
        Mmj = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, d, Mmj)
        worst = np.maximum(worst, [
            rel(M[i], Mmj), rel(bias[i], d.qfrc_bias), rel(qacc[i], d.qacc),
            rel(kin["xpos"][i], d.xpos)])
    assert worst[0] <= TOL, f"mass matrix rel err {worst[0]:.2e}"
    assert worst[1] <= TOL, f"bias rel err {worst[1]:.2e}"
    assert worst[2] <= TOL, f"qacc rel err {worst[2]:.2e}"
    assert worst[3] <= TOL, f"body position rel err {worst[3]:.2e}"


@pytest.mark.parametrize("name", ["fetch"])
def test_site_jacobians_match_mujoco(model_paths, name):
    mj = compiled(model_paths, name)
    m = ncpgym.models.from_mujoco(mj, strict=False)
    assert m.nsite > 0
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(7)
    q, u, _ = random_states(mj, rng, 10)
    jacp, jacr = np.zeros((3, mj.nv)), np.zeros((3, mj.nv))
    for i in range(len(q)):
        d.qpos[:] = q[i]
        mujoco.mj_kinematics(mj, d)
        mujoco.mj_comPos(mj, d)
        kin = dyn.kinematics(m, q[i])
        np.testing.assert_allclose(kin["site_xpos"], d.site_xpos, atol=1e-12)
        np.testing.assert_allclose(kin["site_xmat"].reshape(-1, 9), d.site_xmat, atol=1e-12)
        for s in range(mj.nsite):
            mujoco.mj_jacSite(mj, d, jacp, jacr, s)
            J = dyn.site_jacobian(m, q[i], s)
            np.testing.assert_allclose(J[:3], jacp, atol=1e-12)
            np.testing.assert_allclose(J[3:], jacr, atol=1e-12)


def test_state_transfers_between_engines(model_paths):
    """A state copied from MuJoCo gives the same body poses in ncpgym (qpos layout)."""
    mj = mujoco.MjModel.from_xml_path(str(model_paths["humanoid"]))
    d = mujoco.MjData(mj)
    m = ncpgym.load_model(model_paths["humanoid"])
    rng = np.random.default_rng(1)
    d.qvel[:] = rng.normal(size=mj.nv)
    mujoco.mj_step(mj, d)  # any reachable state
    mujoco.mj_kinematics(mj, d)
    kin = dyn.kinematics(m, d.qpos.copy())
    np.testing.assert_allclose(kin["xpos"], d.xpos, atol=1e-12)
    # MuJoCo may flip a quaternion's sign; compare rotations
    for b in range(1, mj.nbody):
        assert abs(abs(np.dot(kin["xquat"][b], d.xquat[b])) - 1) < 1e-12
