"""Discrete elastic rods (``dismech-rods-shells.txt`` §3) in ncpgym's Newton solve.

A rod is a chain of particles (its nodes) with, per edge, a ghost particle whose offset from
the edge's axis is the edge's material vector (that is how ncpgym carries the twist, see
``docs/architecture.md``, "Rod twist by ghost points"). Stretching, bending about both
section axes and twisting are compliant rows of the same solve as contact, so rods touch
rigid shapes with the solver's hard contact and friction, hang from bodies by attachments,
and share the batch's determinism and OpenMP worlds.

Example::

    import numpy as np, ncpgym
    from ncpgym import rods

    b = ncpgym.Builder()
    rod = rods.add_rod(b, rods.straight([0, 0, 0.5], [0.1, 0, 0.5], 20, clamp="start"),
                       radius=1e-3, young=2e9, poisson=0.5, density=1200.0)
    rods.clamp(b, rod, "start")                    # cantilever of length 0.1 m
    sim = ncpgym.Simulator(b.build())
    sim.step(nsteps=100)
    tip = sim.x[rod.nodes[-1]]

Natural curvature (the seed's PneuNet actuation): ``add_rod(..., group=g)`` and then
``sim.activation[g] = kappa`` (1/m, per world in a Batch) curls the rod towards its material
vector ``normal`` with curvature ``kappa``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Rod", "add_rod", "clamp", "straight", "helix", "twist_angles", "bend_twist_energy"]


@dataclass(frozen=True)
class Rod:
    """Particle ids of one rod: ``nodes`` (n,) along the rod, ``ghosts`` (n - 1,) one per edge,
    and the material it was built with."""

    nodes: np.ndarray
    ghosts: np.ndarray
    radius: float
    young: float
    poisson: float
    density: float

    @property
    def area(self) -> float:
        """Cross-section area pi r^2 (m^2)."""
        return float(np.pi * self.radius**2)

    @property
    def EI(self) -> float:
        """Bending stiffness E pi r^4 / 4 (N m^2)."""
        return float(self.young * np.pi * self.radius**4 / 4)

    @property
    def GJ(self) -> float:
        """Twisting stiffness G pi r^4 / 2 with G = E / 2(1 + nu) (N m^2)."""
        return float(self.young / (2 * (1 + self.poisson)) * np.pi * self.radius**4 / 2)


def add_rod(builder, points, *, radius: float, young: float, poisson: float, density: float,
            friction: float = 0.5, normal=None, group: int = -1, start: int | None = None,
            end: int | None = None) -> Rod:
    """Add a rod through ``points`` (n, 3) with a solid circular section: Young's modulus (Pa),
    Poisson's ratio in (-1, 0.5], density (kg/m^3), contact friction. Its rest shape is
    stress-free. ``normal``: the first edge's material vector (projected off the edge; None:
    any), carried along by parallel transport. ``group`` >= 0: that activation group's value
    (1/m) is the natural curvature, bending the rod towards ``normal``. ``start`` / ``end``: an
    existing particle at the first / last point to use as that end node (a joint with another
    rod or a shell, or a payload); it gains the rod's share of mass."""
    pts = np.asarray(points, float)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise ValueError(f"points: expected shape (n, 3), got {pts.shape}")
    nrm = np.zeros(3) if normal is None else np.asarray(normal, float)
    start = None if start is None or int(start) < 0 else int(start)
    end = None if end is None or int(end) < 0 else int(end)
    s_id = -1 if start is None else start
    e_id = -1 if end is None else end
    first = builder.add_rod(pts, radius, young, poisson, density, friction, nrm, group, s_id, e_id)
    n = len(pts)
    new = n - (start is not None) - (end is not None)
    nodes = np.concatenate([[s_id] if start is not None else [], np.arange(first, first + new),
                            [e_id] if end is not None else []]).astype(int)
    ghosts = np.arange(first + new, first + new + n - 1)
    return Rod(nodes, ghosts, float(radius), float(young), float(poisson), float(density))


def clamp(builder, rod: Rod, end: str = "start", body: int = 0, body_pos=(0.0, 0.0, 0.0),
          body_quat=(1.0, 0.0, 0.0, 0.0)) -> None:
    """Clamp one end of ``rod`` to ``body`` (0: the world): its first (or last) two nodes and
    that edge's ghost are attached where they are, so position, direction and twist are held.
    The clamp acts at that edge's midpoint (the rod bends at its interior nodes): a rod of
    :func:`straight` points from 0 to L bends as a cantilever of length L - l/2; build it with
    ``straight(..., clamp="start")`` to hold it at its first point (free length L).
    ``body_pos`` / ``body_quat`` (w, x, y, z): the body's world pose in the initial
    configuration, to express the points in its frame."""
    if end not in ("start", "end"):
        raise ValueError(f"clamp: end must be 'start' or 'end', got {end!r}")
    nodes, ghosts = rod.nodes, rod.ghosts
    ids = (nodes[0], nodes[1], ghosts[0]) if end == "start" else (nodes[-1], nodes[-2], ghosts[-1])
    import mujoco

    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, np.asarray(body_quat, float) / np.linalg.norm(body_quat))
    R = R.reshape(3, 3)
    for p in ids:
        local = R.T @ (np.asarray(builder.particle_pos(int(p))) - np.asarray(body_pos, float))
        builder.add_attachment(int(p), int(body), local)


def straight(start, end, n_edges: int, clamp: str | None = None) -> np.ndarray:
    """(n_edges + 1, 3) evenly spaced points from ``start`` to ``end``.

    ``clamp="start"`` (or ``"end"``): points for a rod that :func:`clamp` holds at that point
    itself. A clamp holds a whole edge, and a rod's bending lives at its interior nodes
    (each node's share is half of each adjacent edge), so the clamp acts at the held edge's
    midpoint: a rod from 0 to L clamped at its start bends as a cantilever of length
    L - l/2 (4.9 % short of Euler-Bernoulli's tip deflection at 20 edges). With this option
    the first (last) edge straddles ``start`` (``end``): the points are spaced
    l = L / (n_edges - 1/2) from half an edge beyond it, and the free length is L."""
    if clamp not in (None, "start", "end"):
        raise ValueError(f"straight: clamp must be None, 'start' or 'end', got {clamp!r}")
    if n_edges < (2 if clamp else 1):
        raise ValueError(f"straight: n_edges must be >= {2 if clamp else 1}, got {n_edges}")
    a, b = np.asarray(start, float), np.asarray(end, float)
    if clamp == "end":
        return straight(b, a, n_edges, "start")[::-1].copy()
    k = np.arange(n_edges + 1, dtype=float)
    t = (k / n_edges if clamp is None else (k - 0.5) / (n_edges - 0.5))[:, None]
    return (1 - t) * a + t * b


def helix(radius: float, pitch: float, turns: float, n_edges: int, center=(0.0, 0.0, 0.0)) -> np.ndarray:
    """(n_edges + 1, 3) points on a helix about the z axis: ``pitch`` metres per turn."""
    if n_edges < 1 or radius <= 0:
        raise ValueError("helix: needs radius > 0 and n_edges >= 1")
    a = np.linspace(0.0, 2 * np.pi * turns, n_edges + 1)
    return np.stack([radius * np.cos(a), radius * np.sin(a), pitch * a / (2 * np.pi)], axis=1) + np.asarray(center, float)


def _material_m1(x: np.ndarray, a: int, b: int, g: int) -> tuple[np.ndarray, np.ndarray]:
    t = x[b] - x[a]
    t = t / np.linalg.norm(t)
    d = x[g] - 0.5 * (x[a] + x[b])
    d = d - t * (t @ d)
    return t, d / np.linalg.norm(d)


def twist_angles(model, x: np.ndarray) -> np.ndarray:
    """The twist (rad) at each interior rod node of ``model`` at particle positions ``x``
    (nparticle, 3): the angle about the outgoing edge from the incoming edge's material vector,
    parallel-transported, to the outgoing one's (independent of the C++ rows; for tests and
    plots)."""
    x = np.asarray(x, float)
    edges = np.asarray(model.rod_edges)
    out = np.zeros(model.nrodnode)
    for k, (e0, e1) in enumerate(np.asarray(model.rod_node_edges)):
        t0, m0 = _material_m1(x, *edges[e0])
        t1, m1 = _material_m1(x, *edges[e1])
        axis = np.cross(t0, t1)
        s, c = np.linalg.norm(axis), t0 @ t1
        if s > 1e-14:  # rotate m0 about axis by the angle between the tangents
            k_ = axis / s
            m0 = m0 * c + np.cross(k_, m0) * s + k_ * (k_ @ m0) * (1 - c)
        out[k] = np.arctan2(t1 @ np.cross(m0, m1), m0 @ m1)
    return out


def bend_twist_energy(model, x: np.ndarray, ei: float, gj: float) -> tuple[float, float]:
    """DER's bending and twisting energies (J) of a uniform rod at positions ``x``, relative to
    a straight untwisted rest shape, written out here independently of the C++ rows:
    sum over interior nodes of EI / (2 l) |kappa b|^2 and GJ / (2 l) tau^2 (l: Voronoi
    length). For tests and plots."""
    x = np.asarray(x, float)
    edges = np.asarray(model.rod_edges)
    p0 = np.asarray(model.particle_pos0)
    tau = twist_angles(model, x)
    ub = ut = 0.0
    for k, (e0, e1) in enumerate(np.asarray(model.rod_node_edges)):
        a, b, _ = edges[e0]
        _, c, _ = edges[e1]
        lv = 0.5 * (np.linalg.norm(p0[b] - p0[a]) + np.linalg.norm(p0[c] - p0[b]))
        u0, u1 = x[b] - x[a], x[c] - x[b]
        kb = 2 * np.cross(u0, u1) / (np.linalg.norm(u0) * np.linalg.norm(u1) + u0 @ u1)
        ub += ei / (2 * lv) * (kb @ kb)
        ut += gj / (2 * lv) * tau[k] ** 2
    return float(ub), float(ut)
