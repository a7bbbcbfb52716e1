"""ncpgym against Pinocchio (pin) on example-robot-data URDFs: aba, rnea, crba and
computeMinverse (the latter against the Implicit Inversion Method's M^-1 I).

Joints are matched by name, never by index. Pinocchio's free-flyer differs from MuJoCo's
free joint: q = [x y z qx qy qz qw] and both velocities in the body frame, so the
velocity maps as u_mj = T v_pin with T = blockdiag(R, I), and accelerations as
a_mj = T a_pin + dT/dt v_pin, where dT/dt v_pin = [R (w x v_local); 0]."""

import numpy as np
import pinocchio as pin
import pytest

import ncpgym
from ncpgym import dynamics as dyn

NSTATES = 50
TOL = 1e-9


def quat_mat(wxyz):
    w, x, y, z = wxyz
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


class Mapping:
    """Index maps between a Pinocchio model and an ncpgym model of the same URDF."""

    def __init__(self, pm, m):
        self.pm, self.m = pm, m
        self.free = False
        qmap, vmap = [], []  # (pin index, ncpgym index)
        for j in range(1, pm.njoints):
            jm = pm.joints[j]
            if jm.shortname() == "JointModelFreeFlyer":
                assert m.jnt_type[0] == 0, "ncpgym model has no free joint"
                self.free = True
                continue
            assert jm.nq == 1 and jm.nv == 1, f"unexpected joint {pm.names[j]} {jm.shortname()}"
            k = m.joint_id(pm.names[j])
            qmap.append((jm.idx_q, m.jnt_qposadr[k]))
            vmap.append((jm.idx_v, m.jnt_dofadr[k]))
        self.q_pin, self.q_ours = map(np.array, zip(*qmap))
        self.v_pin, self.v_ours = map(np.array, zip(*vmap))
        assert len(self.v_pin) + 6 * self.free == pm.nv == m.nv

    def q(self, q_pin):
        q = np.zeros(self.m.nq)
        q[self.q_ours] = q_pin[self.q_pin]
        if self.free:
            q[:3] = q_pin[:3]
            q[3] = q_pin[6]
            q[4:7] = q_pin[3:6]
        return q

    def T(self, q_ours):
        """u_ours = T v_pin (a permutation, plus R on the free-flyer's linear part)."""
        T = np.zeros((self.m.nv, self.m.nv))
        T[self.v_ours, self.v_pin] = 1.0
        if self.free:
            T[:3, :3] = quat_mat(q_ours[3:7])
            T[3:6, 3:6] = np.eye(3)
        return T

    def Tdot_v(self, q_ours, v_pin):
        r = np.zeros(self.m.nv)
        if self.free:
            r[:3] = quat_mat(q_ours[3:7]) @ np.cross(v_pin[3:6], v_pin[:3])
        return r


def load_pair(path, floating):
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else \
        pin.buildModelFromUrdf(str(path))
    m = ncpgym.load_model(path, floating_base=floating, strict=False)
    return pm, m


def symmetric(upper):
    return np.triu(upper) + np.triu(upper, 1).T


@pytest.mark.parametrize("name,floating", [("panda", False), ("talos", False), ("talos", True),
                                           ("allegro", False)])
def test_against_pinocchio(model_paths, name, floating):
    pm, m = load_pair(model_paths[name], floating)
    mp = Mapping(pm, m)
    if name == "allegro":
        # Allegro's URDF inertias violate the triangle inequality; MuJoCo's compiler
        # repairs them (balanceinertia). Give Pinocchio the same repaired inertias, in the
        # same link frames, so both compute with identical physical parameters.
        for j in range(1, pm.njoints):
            b = m.jnt_body[m.joint_id(pm.names[j])]
            pm.inertias[j] = pin.Inertia(m.body_mass[b], m.body_com[b], m.body_inertia[b])
    pd = pm.createData()
    rng = np.random.default_rng(3)
    worst = dict(M=0.0, Minv=0.0, rnea=0.0, aba=0.0)
    for _ in range(NSTATES):
        qp = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq)) if not floating else None
        if floating:
            qp = np.concatenate([rng.normal(size=3), pin.Quaternion(
                *rng.normal(size=4)).normalized().coeffs(), rng.uniform(-1, 1, pm.nq - 7)])
        v, a, tau = rng.normal(size=(3, pm.nv))
        q = mp.q(qp)
        T = mp.T(q)
        Ti = np.linalg.inv(T)
        M_pin = symmetric(pin.crba(pm, pd, qp))
        Minv_pin = symmetric(pin.computeMinverse(pm, pd, qp))
        tau_pin = pin.rnea(pm, pd, qp, v, a)
        ddq_pin = pin.aba(pm, pd, qp, v, tau)

        M = dyn.mass_matrix(m, q)
        Minv = dyn.minv_times(m, q, np.eye(m.nv))  # Implicit Inversion Method
        tau_ours = T.T @ dyn.inverse(m, q, T @ v, T @ a + mp.Tdot_v(q, v))
        acc = dyn.forward(m, q, T @ v, Ti.T @ tau, passive=False)
        ddq_ours = Ti @ (acc - mp.Tdot_v(q, v))

        def rel(x, y):
            return np.max(np.abs(x - y)) / max(1.0, np.max(np.abs(y)))
        worst["M"] = max(worst["M"], rel(T.T @ M @ T, M_pin))
        worst["Minv"] = max(worst["Minv"], rel(Ti @ Minv @ Ti.T, Minv_pin))
        worst["rnea"] = max(worst["rnea"], rel(tau_ours, tau_pin))
        worst["aba"] = max(worst["aba"], rel(ddq_ours, ddq_pin))
    for k, e in worst.items():
        assert e <= TOL, f"{name}: {k} relative error {e:.2e}"
