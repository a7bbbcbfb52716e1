"""Inverse control of soft robots: which actuation puts the effectors there?
(inverse-qp-soft-robots.txt; written for ncpgym, a permissive implementation of the method
SOFA's SoftRobots.Inverse plugin ships under the AGPL.)

Per control step, on a :class:`ncpgym.Simulator`:

- Step I: a free step with the current actuation gives the effectors' free positions, and
  delta_e^free = x_e^free - target.
- Step II: the mechanics projected into the constraint space (eq. 3),
  W_ea = J_e K^-1 J_a^T and W_aa = J_a K^-1 J_a^T, with K^-1 the linearised response of the
  step just solved (``Simulator.particle_response``: one back-substitution per actuator on
  the step's own factorised KKT system, so contacts and attachments are in it; for the
  time-stepped system K^-1 is (M / h^2 + K)^-1, the static compliance as h grows).
- Step III: the bounded QP of eq. 4, regularised by the deformation energy as eq. 5 with the
  seed's epsilon = 1e-3 ||W_ea^T W_ea||_inf / ||W_aa||_inf, solved by DAQP (a dual
  active-set solver made for small dense QPs: 4-13 us for 3-21 actuators against 30-220 us
  for ProxQP and 0.5-0.7 ms for OSQP, ``benchmarks/inverse.py``), or the Gauss-Seidel loop of
  eqs. 6-10 (``solver="gs"``); then the step is taken again with the new actuation.

Effectors are particles (a soft node's position) and sites (a point on a rigid body: an
object the soft robot holds or pushes; its rows of W_ea by central differences of the
step, since the particle response returns particle velocities only). Actuators are
pressure chambers (their activation group, Pa; ``Builder.add_pressure_chamber``) and cables (a tension in N pulling a
particle towards a fixed point, applied as a particle force held over the step). The
actuation found is a change from the current one (Step I's), bounded so that the total stays
in [min, max].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["PressureActuator", "CableActuator", "ActivationActuator", "SoftInverse", "InverseResult", "batch_projection"]


@dataclass(frozen=True)
class PressureActuator:
    """The pressure (Pa) of the chambers in activation group ``group``, in [min, max]."""

    group: int
    min: float = 0.0
    max: float = np.inf
    fd_step: float | None = None  # site effectors' columns: central differences (None: 1e-3 x range)


@dataclass(frozen=True)
class CableActuator:
    """A cable pulling ``particle`` towards the fixed point ``anchor`` (world) with a tension
    (N) in [min, max]."""

    particle: int
    anchor: Sequence[float]
    min: float = 0.0
    max: float = np.inf
    fd_step: float | None = None  # site effectors' columns: central differences (None: 1e-3 x range)

    def __post_init__(self):  # a copy the caller cannot change after validation (and hashable)
        object.__setattr__(self, "anchor", tuple(float(v) for v in np.ravel(self.anchor)))


@dataclass(frozen=True)
class ActivationActuator:
    """One activation value (``State.act``) for the groups ``groups``: the active strain of
    tetrahedra (a PneuNet chamber's inflation as ``PneuNetGrasp-v0`` models it), a rod's
    natural curvature, a hinge's natural angle; in [min, max]. Its column of W_ea is taken by
    central differences of the step (+- ``fd_step``: two more steps per control step); it
    has no deformation-energy row (its W_aa row and column are zero)."""

    groups: tuple
    min: float = -np.inf
    max: float = np.inf
    fd_step: float = 1e-3


def _towards(anchor, x: np.ndarray) -> np.ndarray:
    """Unit vectors from x ([..., 3]) to the anchor; a cable whose particle sits on its anchor
    has no direction."""
    d = np.asarray(anchor, float) - x
    n = np.linalg.norm(d, axis=-1, keepdims=True)
    if np.any(n < 1e-12):
        raise ValueError("a cable's particle is at its anchor: the cable has no direction")
    return d / n


def batch_projection(batch, effectors, actuators):
    """Steps I-II for the pressure and cable actuators among ``actuators`` on every world of a
    Batch (``Batch.project``: C++, OpenMP over worlds, the free step not stored): the effector
    particles' free positions [N, ne, 3], W_ea [N, 3 ne, na] and W_aa [N, na, na] with the
    columns in the order of ``actuators`` (zero for the others)."""
    n, na = batch.q.shape[0], len(actuators)
    pres = [j for j, a in enumerate(actuators) if isinstance(a, PressureActuator)]
    cabs = [j for j, a in enumerate(actuators) if isinstance(a, CableActuator)]
    order = np.array(pres + cabs, dtype=np.int64)  # Batch.project's columns: pressures, then cables
    xf, W_p, Waa_p = batch.project(np.asarray(effectors, np.int32),
                                   np.array([actuators[j].group for j in pres], np.int32),
                                   np.array([actuators[j].particle for j in cabs], np.int32),
                                   np.array([actuators[j].anchor for j in cabs], float).reshape(-1, 3))
    W = np.zeros((n, W_p.shape[1], na))
    W[:, :, order] = W_p
    Waa = np.zeros((n, na, na))
    Waa[:, order[:, None], order[None, :]] = Waa_p
    return xf, W, Waa


@dataclass
class InverseResult:
    """What a control step planned or did: the new actuation (one value per actuator, within
    the bounds), its change from the current one, the effectors' predicted distance to their
    targets after the step (m, per effector), ``error``: their distance after the step for
    ``step``/``step_batch``, after the free step (before the change) for ``plan``/
    ``plan_batch``, the QP's iterations (GS sweeps), and W_ea, W_aa of the step."""

    actuation: np.ndarray
    change: np.ndarray
    predicted_error: np.ndarray
    error: np.ndarray
    iterations: int
    W_ea: np.ndarray
    W_aa: np.ndarray


class SoftInverse:
    """Inverse controller for the effectors (particle ids, and ``sites``: site ids of rigid
    bodies) of one simulated world, driven by ``actuators``. Targets list the particles
    first, then the sites.

    Actuators: :class:`PressureActuator`, :class:`CableActuator`, :class:`ActivationActuator`,
    each driving its own activation groups (no group twice).
    ``solver``: ``"qp"`` (eq. 5 with DAQP) or ``"gs"`` (eqs. 6-10, ``gs_iterations`` sweeps;
    it has no energy term: ``epsilon`` and W_aa are for the QP).
    ``epsilon``: the weight of the deformation energy in eq. 5, ``"auto"`` for the seed's rule
    (0 gives eq. 4). ``quasi_static``: zero the particle velocities after each step (the
    seed's method is static; with it a few steps per target reach equilibrium).
    ``max_change`` (scalar or one per actuator, optional): a bound on each control step's
    change of actuation (a trust region, not in the seed: W is the linearisation at the
    current state, and a chamber's response stiffens or softens with pressure, so a large
    step of a redundant actuation mispredicts and can oscillate).

    ``step(sim, targets)`` runs one control step (Steps I-III and the step itself) and returns
    an :class:`InverseResult`; ``actuation`` holds the current actuation. ``plan`` stops
    before the step; ``plan_batch``/``step_batch`` do the same for every world of a Batch
    (``batch_actuation`` [N, na])."""

    def __init__(self, model, effectors, actuators, *, sites=(), solver: str = "qp", epsilon="auto",
                 gs_iterations: int = 100, quasi_static: bool = False, max_change=None):
        self.model = model
        self.effectors = np.atleast_1d(np.asarray(effectors, dtype=np.int64))
        self.sites = np.atleast_1d(np.asarray(sites, dtype=np.int64))
        self.actuators = list(actuators)
        if solver not in ("qp", "gs"):
            raise ValueError(f"solver must be 'qp' or 'gs', got {solver!r}")
        if not self.actuators:
            raise ValueError("SoftInverse: no actuators")
        if self.effectors.size + self.sites.size == 0:
            raise ValueError("SoftInverse: no effectors")
        if np.any((self.sites < 0) | (self.sites >= model.nsite)):
            raise ValueError(f"sites must be site ids in [0, {model.nsite})")
        if epsilon != "auto" and not (np.isfinite(epsilon) and epsilon >= 0):
            raise ValueError(f"epsilon must be 'auto' or >= 0, got {epsilon!r}")
        if int(gs_iterations) < 1:
            raise ValueError(f"gs_iterations must be >= 1, got {gs_iterations}")
        self.solver, self.epsilon, self.gs_iterations, self.quasi_static = solver, epsilon, int(gs_iterations), quasi_static
        n = model.nparticle
        if np.any((self.effectors < 0) | (self.effectors >= n)):
            raise ValueError(f"effectors must be particle ids in [0, {n})")
        fixed = self._fixed_particles(model)
        if np.any(np.isin(self.effectors, fixed)):
            bad = self.effectors[np.isin(self.effectors, fixed)]
            raise ValueError(f"effector particles {bad.tolist()} are attached to the world: nothing can move them")
        for a in self.actuators:
            if not (a.min <= a.max) or np.isnan(a.min) or np.isnan(a.max):
                raise ValueError(f"{a}: min must be <= max")
            if isinstance(a, PressureActuator):
                if a.group not in set(np.asarray(model.chamber_group).tolist()):
                    raise ValueError(f"{a}: no pressure chamber is driven by activation group {a.group}")
            elif isinstance(a, CableActuator):
                if not 0 <= a.particle < n:
                    raise ValueError(f"{a}: particle must be in [0, {n})")
                if np.shape(a.anchor) != (3,) or not np.all(np.isfinite(a.anchor)):
                    raise ValueError(f"{a}: anchor must be 3 finite numbers")
            elif isinstance(a, ActivationActuator):
                g = np.atleast_1d(np.asarray(a.groups))
                if g.size == 0 or np.any((g < 0) | (g >= model.nactgroup)):
                    raise ValueError(f"{a}: groups must be activation groups in [0, {model.nactgroup})")
                if not a.fd_step > 0:
                    raise ValueError(f"{a}: fd_step must be > 0")
            else:
                raise TypeError("actuators must be PressureActuator, CableActuator or ActivationActuator, got "
                                f"{type(a).__name__}")
            if self.sites.size and not self._fd_step(a) > 0:
                raise ValueError(f"{a}: site effectors need its column by central differences: give fd_step "
                                 "or finite bounds (the step is then 1e-3 of the range)")
        if max_change is None:
            self.max_change = np.full(len(self.actuators), np.inf)
        else:
            self.max_change = np.broadcast_to(np.asarray(max_change, float), (len(self.actuators),)).copy()
            if np.any(~(self.max_change > 0)):
                raise ValueError("max_change must be > 0")
        driven = [g for a in self.actuators if isinstance(a, PressureActuator) for g in [a.group]] + [
            int(g) for a in self.actuators if isinstance(a, ActivationActuator) for g in np.atleast_1d(a.groups)]
        if len(driven) != len(set(driven)):
            raise ValueError("two actuators drive the same activation group: the last would overwrite the first")
        self.lo = np.array([a.min for a in self.actuators], float)
        self.hi = np.array([a.max for a in self.actuators], float)
        self.actuation = np.clip(np.zeros(len(self.actuators)), self.lo, self.hi)
        self.batch_actuation = None  # [N, na], set by the first plan_batch
        self._coords = (3 * self.effectors[:, None] + np.arange(3)).ravel()

    @property
    def n_effectors(self) -> int:
        """Number of effectors (particles and sites) the controller places."""
        return len(self.effectors) + len(self.sites)

    @staticmethod
    def _fd_step(a) -> float:
        if a.fd_step is not None:
            return float(a.fd_step)
        span = float(a.max) - float(a.min)
        return 1e-3 * span if np.isfinite(span) else np.nan

    def _site_positions(self, w) -> np.ndarray:
        from .dynamics import kinematics

        return np.asarray(kinematics(self.model, w.q)["site_xpos"])[..., self.sites, :]

    def _positions(self, w) -> np.ndarray:
        """The effectors' positions [(N,) ne + ns, 3]: particles, then sites."""
        parts = np.array(w.x[..., self.effectors, :], copy=True)
        return np.concatenate([parts, self._site_positions(w)], axis=-2) if self.sites.size else parts

    @staticmethod
    def _fixed_particles(model) -> np.ndarray:
        return np.asarray(model.attachment_particles)[np.asarray(model.attachment_bodies) == 0]

    # -- the actuators on a Simulator or a Batch (the same arrays, with a leading world axis) --
    _STATE = ("q", "u", "x", "v", "activation", "particle_force")

    def _snapshot(self, w) -> list[np.ndarray]:
        return [np.array(getattr(w, k), copy=True) for k in self._STATE]

    def _restore(self, w, snap) -> None:
        for k, a in zip(self._STATE, snap):
            getattr(w, k)[...] = a

    def _is_force(self, a) -> bool:
        return isinstance(a, (PressureActuator, CableActuator))

    def _directions(self, x_start: np.ndarray, x_end: np.ndarray) -> np.ndarray:
        """(3 nparticle, nact): the particle forces of one unit of each actuator as the step
        applies them: a pressure at the step's end positions (the load follows the walls
        implicitly), a cable's along its direction at the start (held over the step); zero
        for activations."""
        m = self.model
        B = np.zeros((3 * m.nparticle, len(self.actuators)))
        for j, a in enumerate(self.actuators):
            if isinstance(a, PressureActuator):
                act = np.zeros(m.nactgroup)
                act[a.group] = 1.0
                B[:, j] = m.pressure_forces(np.ravel(x_end), act)
            elif isinstance(a, CableActuator):
                B[3 * a.particle:3 * a.particle + 3, j] = _towards(a.anchor, x_start[a.particle])
        return B

    def _apply(self, w, actuation: np.ndarray, force0: np.ndarray) -> None:
        """Set the pressures, activations and the cables' forces (at the current positions)
        of a Simulator (actuation [na]) or a Batch ([N, na])."""
        w.particle_force[...] = force0
        for j, a in enumerate(self.actuators):
            value = actuation[..., j]
            if isinstance(a, PressureActuator):
                w.activation[..., a.group] = value
            elif isinstance(a, ActivationActuator):
                for g in np.atleast_1d(a.groups):
                    w.activation[..., int(g)] = value
            else:
                w.particle_force[..., a.particle, :] += value[..., None] * _towards(a.anchor, w.x[..., a.particle, :])

    def _project(self, w, current: np.ndarray, batched: bool):
        """Steps I and II from w's state with the actuation ``current``: the effectors' free
        positions, W_ea and W_aa (with a leading world axis for a Batch). Leaves w's state,
        activations and particle forces as it found them, also when a step fails (a Batch's
        derived contact summaries and status describe its last probe step; a Batch world
        whose free or probe step diverged gets NaN)."""
        snap = self._snapshot(w)
        try:
            return self._project_from(w, snap, current, batched)
        finally:
            self._restore(w, snap)
            if batched:
                w.forward()

    def _project_from(self, w, snap, current, batched):
        na, ne, ns = len(self.actuators), len(self.effectors), len(self.sites)
        force = any(self._is_force(a) for a in self.actuators)
        self._apply(w, current, snap[5])
        if batched and force:  # Steps I-II of the particles in C++ (its free step is not stored)
            xf, W, Waa = batch_projection(w, self.effectors, self.actuators)
            failed = ~np.isfinite(xf).all(axis=(1, 2))
            if ns:  # the free step again, for the sites
                self._restore(w, snap)
                self._apply(w, current, snap[5])
                w.step()
                failed |= np.asarray(w.status) != 0
                xf = self._positions(w)
        elif batched:
            w.step()  # Step I
            xf = self._positions(w)
            failed = np.asarray(w.status) != 0
            W, Waa = np.zeros((w.q.shape[0], 3 * ne, na)), np.zeros((w.q.shape[0], na, na))
        else:
            w.step()  # Step I
            xf = self._positions(w)
            W, Waa = np.zeros((3 * ne, na)), np.zeros((na, na))
            if force:  # Step II from the step's own factorised system
                B = self._directions(snap[2], w.x)
                R = w.particle_response(B)
                W, Waa = R[self._coords], B.T @ R
        Ws = np.zeros(W.shape[:-2] + (3 * ns, na))
        # central differences of the step: activations (all rows), forces (the sites' rows)
        for j, a in enumerate(self.actuators):
            if self._is_force(a) and not ns:
                continue
            h = self._fd_step(a)
            x = []
            for sign in (1.0, -1.0):
                self._restore(w, snap)
                bumped = np.array(current, float, copy=True)
                bumped[..., j] += sign * h
                self._apply(w, bumped, snap[5])
                w.step()
                if batched:
                    failed |= np.asarray(w.status) != 0
                x.append(self._positions(w))
            d = (x[0] - x[1]) / (2 * h)
            if not self._is_force(a):
                W[..., j] = d[..., :ne, :].reshape(W[..., j].shape)
            Ws[..., j] = d[..., ne:, :].reshape(Ws[..., j].shape)
        W = np.concatenate([W, Ws], axis=-2)
        if batched and failed.any():
            xf[failed], W[failed], Waa[failed] = np.nan, np.nan, np.nan
        return xf, W, Waa

    # -- Step III ---------------------------------------------------------------------------
    def _epsilon(self, WtW: np.ndarray, Waa: np.ndarray) -> float:
        if self.epsilon != "auto":
            return float(self.epsilon)
        n_aa = np.abs(Waa).sum(axis=1).max()
        return 1e-3 * np.abs(WtW).sum(axis=1).max() / n_aa if n_aa > 0 else 0.0  # eq. 5's rule

    def _qp_problem(self, W, Waa, delta, lo, hi):
        """Eq. 5 as DAQP gets it: (H, f, lo, hi) in the scaled variables y = x / D, and D."""
        WtW = W.T @ W
        # W_aa is a compliance, positive definite for distinct actuators (the seed); near a
        # chamber's inflation limit the pressure's follower stiffness makes dV/dp < 0, so the
        # energy term keeps only W_aa's positive part (the QP stays convex)
        w, V = np.linalg.eigh(0.5 * (Waa + Waa.T))
        Waa = (V * np.maximum(w, 0.0)) @ V.T
        H = WtW + self._epsilon(WtW, Waa) * Waa
        f = W.T @ delta
        na = len(f)
        # Jacobi scaling x = D y (unit diagonal): compliances are ~1e-7 m/Pa, and DAQP's
        # tolerances are absolute
        d = np.abs(np.diag(H))
        D = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 1.0)
        Hs = D[:, None] * H * D[None, :]
        # a 1e-9 ridge on the unit diagonal keeps it strictly convex when W_aa is nearly
        # singular in some actuators' units (pressures in Pa beside tensions in N)
        Hs[np.diag_indices(na)] += 1e-9
        return Hs, D * f, lo / D, hi / D, D

    def _qp(self, W, Waa, delta, lo, hi) -> tuple[np.ndarray, int]:
        import daqp

        Hs, fs, los, his, D = self._qp_problem(W, Waa, delta, lo, hi)
        y, _, flag, info = daqp.solve(Hs, fs, np.zeros((0, len(fs))), his, los)
        if flag < 0:
            raise RuntimeError(f"SoftInverse: DAQP failed (exit flag {flag})")
        return D * np.asarray(y, float), int(info["iterations"])

    def _gs(self, W, delta, lo, hi) -> tuple[np.ndarray, int]:
        # eqs. 6-10: one actuator at a time moves the effectors along its column w_*j by
        # the step that best removes the current shift, clamped to its bounds
        lam = np.clip(np.zeros(W.shape[1]), lo, hi)
        shift = delta + W @ lam
        norms = np.einsum("ij,ij->j", W, W)
        it = 0
        for it in range(1, self.gs_iterations + 1):
            biggest = 0.0
            for j in range(W.shape[1]):
                if norms[j] <= 0:
                    continue
                new = np.clip(lam[j] - W[:, j] @ shift / norms[j], lo[j], hi[j])  # eq. 10
                d = new - lam[j]
                shift += W[:, j] * d  # eq. 7
                lam[j] = new
                biggest = max(biggest, abs(d) * np.sqrt(norms[j]))
            if biggest < 1e-12:
                break
        return lam, it

    def solve(self, W: np.ndarray, Waa: np.ndarray, delta_free: np.ndarray, current=None) -> tuple[np.ndarray, int]:
        """Step III alone: the change of actuation that minimises |W dl + delta_free|^2
        (+ epsilon dl^T W_aa dl) within the bounds, from the ``current`` actuation (default:
        ``self.actuation``)."""
        current = np.clip(self.actuation if current is None else current, self.lo, self.hi)
        if not (np.all(np.isfinite(W)) and np.all(np.isfinite(Waa)) and np.all(np.isfinite(delta_free))):
            raise ValueError("solve: W, W_aa and delta_free must be finite")
        lo = np.maximum(self.lo - current, -self.max_change)
        hi = np.minimum(self.hi - current, self.max_change)
        return self._qp(W, Waa, delta_free, lo, hi) if self.solver == "qp" else self._gs(W, delta_free, lo, hi)

    # -- one control step -------------------------------------------------------------------
    def _check_targets(self, targets, n=None) -> np.ndarray:
        shape = (self.n_effectors, 3) if n is None else (n, self.n_effectors, 3)
        targets = np.asarray(targets, float)
        if targets.shape != shape and not (n is None and targets.shape == (3 * self.n_effectors,)):
            raise ValueError(f"targets: expected {shape} (one per effector), got {targets.shape}")
        if not np.all(np.isfinite(targets)):
            raise ValueError("targets must be finite")
        return targets.reshape(shape)

    def plan(self, sim, targets, current=None) -> InverseResult:
        """Steps I-III on a Simulator without taking the step: the actuation that best puts
        the effectors on ``targets`` after the next step, from ``current`` (default: the
        controller's own ``actuation``; pass the one the simulator really has when something
        else sets it). The simulator's state is left as it was."""
        targets = self._check_targets(targets)
        current = self.actuation if current is None else np.asarray(current, float).reshape(len(self.actuators))
        xf, W, Waa = self._project(sim, current, batched=False)
        delta = (xf - targets).ravel()
        change, iters = self.solve(W, Waa, delta, current)
        predicted = np.linalg.norm((delta + W @ change).reshape(-1, 3), axis=1)
        return InverseResult(np.clip(current + change, self.lo, self.hi), change, predicted,
                             np.linalg.norm(xf - targets, axis=1), iters, W, Waa)

    def _take_step(self, w, actuation, targets) -> np.ndarray:
        """The step of a Simulator or a Batch with ``actuation`` (cables' forces held over it,
        then removed); returns the effectors' distance to ``targets`` after it."""
        force0 = np.array(w.particle_force, copy=True)
        self._apply(w, actuation, force0)
        w.step()
        if self.quasi_static:
            w.v[...] = 0.0
        w.particle_force[...] = force0
        return np.linalg.norm(self._positions(w) - targets, axis=-1)

    def step(self, sim, targets) -> InverseResult:
        """One control step on a Simulator: ``plan``, then the step with the new actuation.
        ``error``: the effectors' distance to their targets after the step."""
        res = self.plan(sim, targets)
        self.actuation = res.actuation
        res.error = self._take_step(sim, self.actuation, self._check_targets(targets))
        return res

    # -- every world of a Batch at once --------------------------------------------------------
    def plan_batch(self, batch, targets, current=None) -> InverseResult:
        """``plan`` for every world of a :class:`ncpgym.Batch` (targets [N, ne, 3], current
        [N, na]): Step II for all worlds in C++ (``Batch.project``: each world's free step and
        back-substitutions, OpenMP over worlds; activations by central differences of
        ``batch.step()``), Step III per world. The batch's state is left as it was. Fields
        carry a leading world axis (iterations: the largest). A world whose free step fails
        keeps its actuation."""
        n = batch.q.shape[0]
        targets = self._check_targets(targets, n)
        na = len(self.actuators)
        if current is None:
            if self.batch_actuation is None or self.batch_actuation.shape != (n, na):
                self.batch_actuation = np.tile(np.clip(np.zeros(na), self.lo, self.hi), (n, 1))
            current = self.batch_actuation
        current = np.asarray(current, float).reshape(n, na)
        xf, W, Waa = self._project(batch, current, batched=True)
        delta = (xf - targets).reshape(n, -1)
        change = np.zeros((n, na))
        predicted = np.full((n, self.n_effectors), np.nan)
        iters = 0
        for i in range(n):
            if not (np.all(np.isfinite(W[i])) and np.all(np.isfinite(delta[i]))):
                continue
            try:
                change[i], it = self.solve(W[i], Waa[i], delta[i], current[i])
            except RuntimeError:  # DAQP failed on this world: it keeps its actuation
                continue
            iters = max(iters, it)
            predicted[i] = np.linalg.norm((delta[i] + W[i] @ change[i]).reshape(-1, 3), axis=1)
        return InverseResult(np.clip(current + change, self.lo, self.hi), change, predicted,
                             np.linalg.norm(xf - targets, axis=2), iters, W, Waa)

    def step_batch(self, batch, targets) -> InverseResult:
        """One control step for every world of a Batch: ``plan_batch``, then ``batch.step()``
        with the new actuation (kept in ``batch_actuation`` [N, na])."""
        res = self.plan_batch(batch, targets)
        self.batch_actuation = res.actuation
        res.error = self._take_step(batch, self.batch_actuation, self._check_targets(targets, batch.q.shape[0]))
        return res
