"""Discrete elastic shells (``dismech-rods-shells.txt`` §3.1 and §3.3.1) in ncpgym's Newton solve.

A shell is a triangle mesh of particles: every edge a stretching row, every interior edge a
hinge whose bending is one compliant row of the same solve as contact (hinge-based bending,
the seed's eq. 17; the mid-edge normal formulation is not implemented). Meshes here are
triangular lattices, the equilateral meshes the seed's stiffness k_b = E h^3 / (12 sqrt 3)
is calibrated for.

Example::

    import ncpgym
    from ncpgym import shells

    b = ncpgym.Builder()
    v, t = shells.rectangle_mesh(0.1, 0.02, 10)
    shell = shells.add_shell(b, v + [0, 0, 0.5], t, thickness=1e-3, young=2e9, poisson=0.3, density=1200.0)
    shells.clamp(b, shell, shell.vertices[:, 0] < 0.011)    # the first two columns
    sim = ncpgym.Simulator(b.build())
    sim.step(nsteps=100)

Natural hinge angles (the seed's manta ray actuation): ``builder.set_hinge_group(h, g)`` for
hinges ``shell.hinges``, then ``sim.activation[g] = angle`` (rad, per world in a Batch).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Shell", "add_shell", "clamp", "rectangle_mesh", "hexagon_mesh", "diamond_mesh", "hinge_angles"]


@dataclass(frozen=True)
class Shell:
    """A shell's particles (``first`` + vertex index), its rest ``vertices`` and
    ``triangles``, and the ids of its hinges in the model (``hinges``)."""

    first: int
    vertices: np.ndarray
    triangles: np.ndarray
    hinges: np.ndarray
    thickness: float
    young: float

    @property
    def particles(self) -> np.ndarray:
        """Every particle of the shell, (n,) int."""
        return np.arange(self.first, self.first + len(self.vertices))


def add_shell(builder, vertices, triangles, *, thickness: float, young: float, poisson: float,
              density: float, friction: float = 0.5) -> Shell:
    """Add a shell (consistently oriented triangles); stress-free in its initial shape."""
    v = np.asarray(vertices, float)
    t = np.asarray(triangles, int)
    h0 = builder.nhinge
    first = builder.add_shell(v, t, thickness, young, poisson, density, friction)
    return Shell(first, v, t, np.arange(h0, builder.nhinge), float(thickness), float(young))


def clamp(builder, shell: Shell, mask, body: int = 0) -> None:
    """Attach the shell's vertices where ``mask`` (n,) is true to the world (``body`` 0) or
    to a body whose frame is the world's at build time, where they are. Clamp two rows of
    vertices to hold the slope too."""
    mask = np.asarray(mask, bool)
    if mask.shape != (len(shell.vertices),) or not mask.any():
        raise ValueError("clamp: mask must be a boolean per vertex selecting at least one")
    for k in np.flatnonzero(mask):
        builder.add_attachment(int(shell.first + k), int(body), shell.vertices[k])


def rectangle_mesh(length: float, width: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A flat rectangle [0, length] x [-width/2, width/2] (z = 0) as a triangular lattice of
    nearly equilateral triangles, ``n`` edges along the length; returns (vertices, triangles),
    counter-clockwise seen from +z. Alternate rows are shifted by half a spacing and closed
    with half-width triangles at the ends."""
    if n < 1 or length <= 0 or width <= 0:
        raise ValueError("rectangle_mesh: needs length, width > 0 and n >= 1")
    dx = length / n
    rows = max(1, int(round(width / (dx * np.sqrt(3) / 2))))
    ys = np.linspace(-width / 2, width / 2, rows + 1)
    verts, index = [], []
    for j, y in enumerate(ys):
        xs = np.linspace(0, length, n + 1) if j % 2 == 0 else np.concatenate([[0], (np.arange(n) + 0.5) * dx, [length]])
        index.append(list(range(len(verts), len(verts) + len(xs))))
        verts += [[x, y, 0.0] for x in xs]
    tris = []
    for j in range(rows):
        lo, hi = index[j], index[j + 1]
        i = k = 0
        # walk both rows left to right, always advancing the one whose next vertex is nearer
        while i < len(lo) - 1 or k < len(hi) - 1:
            adv_lo = k == len(hi) - 1 or (i < len(lo) - 1 and verts[lo[i + 1]][0] <= verts[hi[k + 1]][0])
            if adv_lo:
                tris.append([lo[i], lo[i + 1], hi[k]])
                i += 1
            else:
                tris.append([lo[i], hi[k + 1], hi[k]])
                k += 1
    return np.asarray(verts), np.asarray(tris)


def hexagon_mesh(side: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A flat regular hexagon of ``side`` centred at the origin (z = 0), each of its six
    equilateral sectors split into n^2 equilateral triangles; counter-clockwise from +z."""
    if n < 1 or side <= 0:
        raise ValueError("hexagon_mesh: needs side > 0 and n >= 1")
    verts: dict[tuple[int, int], int] = {}
    pos = []
    a = np.array([1.0, 0.0]) * side / n
    b = np.array([0.5, np.sqrt(3) / 2]) * side / n

    def vid(i, j):  # lattice point i a + j b
        if (i, j) not in verts:
            verts[(i, j)] = len(pos)
            p = i * a + j * b
            pos.append([p[0], p[1], 0.0])
        return verts[(i, j)]

    def inside(i, j):  # hexagonal lattice distance from the centre
        return max(abs(i), abs(j), abs(i + j)) <= n

    tris = []
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            if inside(i, j) and inside(i + 1, j) and inside(i, j + 1):
                tris.append([vid(i, j), vid(i + 1, j), vid(i, j + 1)])
            if inside(i + 1, j) and inside(i + 1, j + 1) and inside(i, j + 1):
                tris.append([vid(i + 1, j), vid(i + 1, j + 1), vid(i, j + 1)])
    return np.asarray(pos), np.asarray(tris)


def diamond_mesh(span: float, length: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A flat rhombus |x| / (span/2) + |y| / (length/2) <= 1 (z = 0) covered by the
    equilateral lattice triangles (spacing length / n) that fit inside it, with lattice edges
    along y: the centre line x = 0 is a straight chain of edges (hinges to fold a body
    about, as the seed's manta ray does). Counter-clockwise from +z."""
    if n < 2 or span <= 0 or length <= 0:
        raise ValueError("diamond_mesh: needs span, length > 0 and n >= 2")
    s = length / n
    a, b = np.array([0.0, s]), np.array([s * np.sqrt(3) / 2, s / 2])
    index: dict[tuple[int, int], int] = {}
    pos = []

    def inside(i, j):
        p = i * a + j * b
        return abs(p[0]) / (span / 2) + abs(p[1]) / (length / 2) <= 1 + 1e-9

    def vid(i, j):
        if (i, j) not in index:
            index[(i, j)] = len(pos)
            p = i * a + j * b
            pos.append([p[0], p[1], 0.0])
        return index[(i, j)]

    r = 2 * n + 2
    tris = []
    for i in range(-r, r + 1):
        for j in range(-r, r + 1):
            # the two lattice triangles of cell (i, j); b lies clockwise of a, so each is
            # listed clockwise and reversed
            for tri in (((0, 0), (1, 0), (0, 1)), ((1, 0), (1, 1), (0, 1))):
                if all(inside(i + di, j + dj) for di, dj in tri):
                    tris.append([vid(i + di, j + dj) for di, dj in tri[::-1]])
    return np.asarray(pos), np.asarray(tris)


def hinge_angles(model, x, hinges=None) -> np.ndarray:
    """Each hinge's angle (rad) at positions ``x`` (nparticle, 3) or a batch of them
    (N, nparticle, 3), written out here independently of the C++ rows: the signed angle
    between the two triangles' normals about the hinge edge (0 flat; positive when the second
    tip folds to the side opposite the first triangle's normal). ``hinges``: (k, 4) particle
    ids of the hinges to measure (default: all of ``model.hinges``)."""
    x = np.asarray(x, float)
    h = np.asarray(model.hinges if hinges is None else hinges)
    x0, x1, x2, x3 = (x[..., h[:, k], :] for k in range(4))
    e = x1 - x0
    n0 = np.cross(e, x2 - x0)
    n1 = np.cross(x3 - x0, e)
    n0 /= np.linalg.norm(n0, axis=-1, keepdims=True)
    n1 /= np.linalg.norm(n1, axis=-1, keepdims=True)
    e /= np.linalg.norm(e, axis=-1, keepdims=True)
    return np.arctan2(np.sum(np.cross(n0, n1) * e, axis=-1), np.sum(n0 * n1, axis=-1))
