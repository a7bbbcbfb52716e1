"""Rigid-body dynamics of an ncpgym Model, for one state or a batch of states.

Every function accepts one state (``q`` of shape ``(nq,)``) or a batch (``(N, nq)``), and
returns arrays without or with the leading ``N`` accordingly. Batches run in C++ with
OpenMP over the states (the GIL is released); ``threads=0`` uses OpenMP's default.

Conventions are MuJoCo's: free joints store ``[x y z qw qx qy qz]`` with linear velocity
in world axes and angular velocity in body axes; ball joints ``[qw qx qy qz]`` with body
angular velocity.
"""

from __future__ import annotations

import numpy as np

from . import _core

__all__ = [
    "mass_matrix", "bias", "inverse", "forward", "passive", "minv_times", "eufm",
    "site_jacobian", "task_space", "kinematics", "kinematic_map", "integrate",
]


def _as_batch(x, width, name, batch=None):
    """Validate one array: float, finite, last dim `width`; returns (N, width) and whether
    the input was a single state."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise TypeError(f"{name}: expected a real numeric array, got dtype {a.dtype}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    single = a.ndim == 1
    if single:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != width:
        raise ValueError(f"{name}: expected shape ({width},) or (N, {width}), got {np.shape(x)}")
    if batch is not None and a.shape[0] != batch:
        if a.shape[0] == 1:
            a = np.ascontiguousarray(np.broadcast_to(a, (batch, width)))
        else:
            raise ValueError(f"{name}: batch size {a.shape[0]} does not match {batch}")
    if not np.all(np.isfinite(a)):
        bad = np.nonzero(~np.all(np.isfinite(a), axis=1))[0]
        raise ValueError(f"{name}: non-finite values in batch entries {bad.tolist()}")
    return a, single


def _states(model, q, u=None, extra=()):
    qb, single = _as_batch(q, model.nq, "q")
    n = qb.shape[0]
    out = [qb]
    if u is not None:
        out.append(_as_batch(u, model.nv, "u", n)[0])
    for arr, name in extra:
        out.append(_as_batch(arr, model.nv, name, n)[0])
    return out, single


def _ret(a, single):
    return a[0] if single else a


def mass_matrix(model, q, *, threads=0):
    """Joint-space mass matrix M(q) including armature (CRBA): (nv, nv) or (N, nv, nv)."""
    (qb,), single = _states(model, q)
    return _ret(_core.mass_matrix(model, qb, threads), single)


def bias(model, q, u, *, threads=0):
    """Bias forces C(q, u) u + g(q) (MuJoCo's qfrc_bias), by RNEA with zero acceleration."""
    (qb, ub), single = _states(model, q, u)
    return _ret(_core.inverse(model, qb, ub, np.zeros_like(ub), threads), single)


def inverse(model, q, u, qacc, *, threads=0):
    """Inverse dynamics (RNEA): M(q) qacc + C(q, u) u + g(q); passive forces excluded."""
    (qb, ub, ab), single = _states(model, q, u, [(qacc, "qacc")])
    return _ret(_core.inverse(model, qb, ub, ab, threads), single)


def forward(model, q, u, tau=None, *, passive=True, threads=0):
    """O(n) forward dynamics: qacc = M^-1 (tau + passive(q, u) - bias(q, u)).

    ``passive=True`` adds joint and tendon springs and damping (as MuJoCo's qfrc_passive);
    ``tau`` defaults to zero."""
    if tau is None:
        tau = np.zeros(model.nv)
    (qb, ub, tb), single = _states(model, q, u, [(tau, "tau")])
    return _ret(_core.forward(model, qb, ub, tb, passive, threads), single)


def passive(model, q, u):
    """MuJoCo's qfrc_passive: joint spring and damping forces -k (q - q_spring) - b u, fixed
    tendons' spring and damper forces J_t^T f (ncpgym/dynamics/tendon.hpp) and gravity
    compensation."""
    (qb, ub), single = _states(model, q, u)
    return _ret(_core.passive(model, qb, ub), single)


def _input_matrix(model, B, n, single):
    Bm = np.asarray(B, dtype=np.float64)
    if Bm.ndim == 2:
        Bm = np.broadcast_to(Bm, (n,) + Bm.shape)
    if Bm.ndim != 3 or Bm.shape[:2] != (n, model.nv):
        want = f"({model.nv}, m)" + ("" if single else f" or ({n}, {model.nv}, m)")
        raise ValueError(f"B: expected shape {want}, got {np.shape(B)}")
    if not np.all(np.isfinite(Bm)):
        raise ValueError("B: non-finite values")
    return np.ascontiguousarray(Bm)


def minv_times(model, q, B, *, threads=0):
    """M(q)^-1 B by the Implicit Inversion Method (no mass matrix is formed).

    ``B`` is (nv, m), shared by every state, or (N, nv, m). With B = J^T for a site
    Jacobian J, ``J @ minv_times(model, q, J.T)`` is the inverse operational-space inertia."""
    (qb,), single = _states(model, q)
    Bm = _input_matrix(model, B, qb.shape[0], single)
    return _ret(_core.minv_times(model, qb, Bm, threads), single)


def eufm(model, q, u, B, tau=None, *, threads=0):
    """M(q)^-1 B by the extended unit force method (m + 1 forward-dynamics passes), the
    baseline the IIM is compared against."""
    if tau is None:
        tau = np.zeros(model.nv)
    (qb, ub, tb), single = _states(model, q, u, [(tau, "tau")])
    Bm = _input_matrix(model, B, qb.shape[0], single)
    return _ret(_core.eufm(model, qb, ub, tb, Bm, threads), single)


def _site(model, site):
    if isinstance(site, str):
        return model.site_id(site)
    site = int(site)
    if not 0 <= site < model.nsite:
        raise IndexError(f"unknown site id {site} (model has {model.nsite} sites)")
    return site


def site_jacobian(model, q, site, u=None):
    """Jacobian (6, nv) of a site (id or name): rows are the site's linear velocity and
    angular velocity in world axes. With ``u`` also returns J-dot u (6,)."""
    (qb,), single = _states(model, q)
    ub = np.zeros((qb.shape[0], model.nv)) if u is None else _as_batch(u, model.nv, "u", qb.shape[0])[0]
    J, Jdu = _core.site_jacobian(model, qb, ub, _site(model, site))
    if u is None:
        return _ret(J, single)
    return _ret(J, single), _ret(Jdu, single)


def task_space(model, q, sites, *, threads=0):
    """Task-space quantities of sites (ids or names) by the Implicit Inversion Method:
    (J M^-1 B, J M^-1 J^T) with J the stacked site Jacobians (6k, nv) and B the actuator
    gear matrix (nv, nu); shapes (6k, nu) and (6k, 6k), with a leading batch axis for q (N, nq)."""
    (qb,), single = _states(model, q)
    ids = [_site(model, s) for s in sites]
    jmb, lam = _core.task_space(model, qb, ids, threads)
    return _ret(jmb, single), _ret(lam, single)


def kinematics(model, q):
    """Body poses (xpos, xquat wxyz) and site poses (site_xpos, site_xmat) in world axes."""
    (qb,), single = _states(model, q)
    r = _core.kinematics(model, qb)
    return {k: _ret(v, single) for k, v in r.items()}


def kinematic_map(model, q):
    """G(q) (nq, nv) with qdot = G(q) u (nonsmooth-newton-ncp eqs. 88-89)."""
    (qb,), single = _states(model, q)
    return _ret(_core.kinematic_map(model, qb), single)


def integrate(model, q, u, h):
    """q + h G(q) u with quaternions renormalised."""
    (qb, ub), single = _states(model, q, u)
    if not np.isfinite(h):
        raise ValueError("h must be finite")
    return _ret(_core.integrate(model, qb, ub, float(h)), single)
