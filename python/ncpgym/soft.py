"""Tetrahedral meshes for ncpgym's soft bodies, generated procedurally (written for ncpgym;
no meshing library). Feed them to ``Builder.add_soft_body(vertices, tets, density, young,
poisson)``."""

from __future__ import annotations

import numpy as np

__all__ = ["box_mesh", "ball_mesh", "hollow_ball_mesh", "sphere_mesh", "ellipsoid_mesh", "read_mesh", "add_mesh",
           "tet_centroids", "compact", "boundary_faces", "cavities", "surface_volume", "add_pressure_chambers"]

# The six tetrahedra of a hexahedron around its main diagonal (corner bits: x=1, y=2, z=4),
# one per monotone path 0 -> a -> b -> 7; neighbouring hexahedra share faces consistently.
_KUHN = ((1, 3), (1, 5), (2, 3), (2, 6), (4, 5), (4, 6))


def box_mesh(size, n, origin=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """A box of ``size`` (3,) split into ``n`` (3,) hexahedra per axis, six tetrahedra each.
    Returns (vertices (V, 3), tets (6 nx ny nz, 4))."""
    size = np.broadcast_to(np.asarray(size, float), (3,))
    n = np.broadcast_to(np.asarray(n, int), (3,))
    if np.any(size <= 0) or np.any(n < 1):
        raise ValueError(f"box_mesh: size must be > 0 and n >= 1, got {size}, {n}")
    return grid_mesh(*[np.linspace(0.0, size[k], n[k] + 1) + origin[k] for k in range(3)])


def grid_mesh(xs, ys, zs) -> tuple[np.ndarray, np.ndarray]:
    """``box_mesh`` on a rectilinear grid with the given (increasing) node coordinates per
    axis: cells of different sizes, e.g. thin walls beside wide cavities. Cell (i, j, k)'s
    six tetrahedra are tets[c + b * ncell] for b in 0..5, c = (i * ny + j) * nz + k."""
    axes = [np.asarray(a, float) for a in (xs, ys, zs)]
    if any(a.ndim != 1 or len(a) < 2 or np.any(np.diff(a) <= 0) for a in axes):
        raise ValueError("grid_mesh: each axis needs >= 2 strictly increasing coordinates")
    n = np.array([len(a) - 1 for a in axes])
    X, Y, Z = np.meshgrid(*axes, indexing="ij")
    verts = np.stack([X.ravel(), Y.ravel(), Z.ravel()], axis=1)
    idx = np.arange(verts.shape[0]).reshape(n[0] + 1, n[1] + 1, n[2] + 1)
    i, j, k = np.meshgrid(np.arange(n[0]), np.arange(n[1]), np.arange(n[2]), indexing="ij")
    i, j, k = i.ravel(), j.ravel(), k.ravel()
    corner = [idx[i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1)] for b in range(8)]
    tets = np.concatenate([np.stack([corner[0], corner[a], corner[a | b], corner[7]], axis=1) for a, b in _KUHN])
    d = verts[tets[:, 1:]] - verts[tets[:, :1]]
    neg = np.linalg.det(d) < 0  # odd paths: swap two vertices to orient positively
    tets[neg] = tets[neg][:, [0, 2, 1, 3]]
    return verts, tets.astype(np.int32)


def compact(verts: np.ndarray, tets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop the vertices no tetrahedron uses and renumber the tetrahedra."""
    tets = np.asarray(tets)
    used = np.unique(tets)
    remap = -np.ones(len(verts), np.int64)
    remap[used] = np.arange(len(used))
    return np.asarray(verts)[used], remap[tets].astype(np.int32)


def ellipsoid_mesh(radii, n, center=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """A voxelised ellipsoid with semi-axes ``radii`` (3,): the tetrahedra of an ``n`` (int
    or (3,)) box grid around it whose centroids lie inside (a staircase surface at the
    grid's resolution)."""
    r = np.broadcast_to(np.asarray(radii, float), (3,))
    n = np.broadcast_to(np.asarray(n, int), (3,))
    if np.any(r <= 0) or np.any(n < 2):
        raise ValueError(f"ellipsoid_mesh: radii must be > 0 and n >= 2, got {r}, {n}")
    c = np.asarray(center, float)
    v, t = box_mesh(2 * r, n, origin=c - r)
    keep = np.sum(((tet_centroids(v, t) - c) / r) ** 2, axis=1) < 1.0
    return compact(v, t[keep])


def sphere_mesh(radius: float, n: int, center=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """A voxelised ball (``ellipsoid_mesh`` with equal semi-axes)."""
    if radius <= 0 or n < 2:
        raise ValueError(f"sphere_mesh: radius must be > 0 and n >= 2, got {radius}, {n}")
    return ellipsoid_mesh(radius, n, center)


def ball_mesh(radius: float, n: int, center=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """A round ball: the ``box_mesh`` of the cube [-r, r]^3 (``n`` hexahedra per axis, 6 n^3
    tetrahedra) with every cube shell max|p_i| = s mapped onto the sphere of radius s by
    the analytic cube-to-sphere map (x sqrt(1 - y^2/2 - z^2/2 + y^2 z^2/3), ... on the unit
    cube's surface), which spreads the corner cells better than a radial projection
    (largest/smallest element volume 8 at n = 4, against 25 radially). Unlike
    ``sphere_mesh`` its surface is round at any n, so it rolls and presses like a ball."""
    if radius <= 0 or n < 1:
        raise ValueError(f"ball_mesh: radius must be > 0 and n >= 1, got {radius}, {n}")
    v, t = box_mesh(2.0, n, origin=(-1.0, -1.0, -1.0))
    shell = np.abs(v).max(axis=1)
    u = v / np.where(shell > 0, shell, 1.0)[:, None]  # on the unit cube's surface
    x2, y2, z2 = (u * u).T
    sq = np.sqrt(np.stack([1 - y2 / 2 - z2 / 2 + y2 * z2 / 3, 1 - z2 / 2 - x2 / 2 + z2 * x2 / 3,
                           1 - x2 / 2 - y2 / 2 + x2 * y2 / 3], axis=1))
    return u * sq * (radius * shell)[:, None] + np.asarray(center, float), t


def hollow_ball_mesh(radius: float, inner: float, n: int, center=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """``ball_mesh`` with a spherical cavity of radius ``inner``: the cube shells inside it are
    left out, so the cavity's vertices lie on that sphere. ``inner / radius`` must be a
    shell of the grid: m / n with 0 < m < n and m - n even."""
    # the grid's cube shells lie at |2 i / n - 1|: m / n with m = n, n - 2, ... (same parity as n)
    m = inner / radius * n
    if not (0 < inner < radius) or abs(m - round(m)) > 1e-9 or (round(m) - n) % 2:
        raise ValueError("hollow_ball_mesh: inner / radius must be one of the grid's shells, m / n with m < n of "
                         f"n's parity, got {inner / radius}")
    v, t = ball_mesh(radius, n, center)
    # a tetrahedron of the cube grid is inside the cavity when its cube cell is: all four
    # corners on or inside the cavity's sphere
    r = np.linalg.norm(v - np.asarray(center, float), axis=1)
    inside = np.all(r[t] < inner * (1 + 1e-9), axis=1)
    return compact(v, t[~inside])


def boundary_faces(tets: np.ndarray) -> np.ndarray:
    """The faces of a positively oriented tetrahedral mesh that belong to one tetrahedron
    only, (F, 3) vertex indices oriented out of the material."""
    tets = np.asarray(tets)
    faces = np.concatenate([tets[:, [1, 2, 3]], tets[:, [0, 3, 2]], tets[:, [0, 1, 3]], tets[:, [0, 2, 1]]])
    _, inverse, count = np.unique(np.sort(faces, axis=1), axis=0, return_inverse=True, return_counts=True)
    return faces[count[inverse.ravel()] == 1]


def surface_volume(x: np.ndarray, tris: np.ndarray) -> float:
    """Volume enclosed by a closed triangle surface (positive when oriented outward)."""
    y = np.asarray(x, float)[np.asarray(tris)] - np.asarray(x, float)[np.unique(tris)].mean(axis=0)
    return float(np.einsum("ij,ij->i", y[:, 0], np.cross(y[:, 1], y[:, 2])).sum() / 6.0)


def cavities(verts: np.ndarray, tets: np.ndarray) -> list[np.ndarray]:
    """The closed cavities of a tetrahedral mesh (the hollow chambers of a PneuNet, a hollow
    ball): each connected piece of the boundary that encloses negative volume when oriented
    out of the material, returned as (F, 3) vertex-index triangles oriented out of the cavity
    (into the walls), as ``Builder.add_pressure_chamber`` takes them. Sorted by their
    smallest vertex index."""
    faces = boundary_faces(tets)
    # boundary pieces: faces joined across shared edges (not at a lone shared vertex, where a
    # cavity may touch the outer surface or another cavity)
    parent = np.arange(len(faces))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    owner = np.tile(np.arange(len(faces)), 3)
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    e, o = edges[order], owner[order]
    same = np.all(e[1:] == e[:-1], axis=1)
    for a, b in zip(o[:-1][same], o[1:][same]):
        ra, rb = find(a), find(b)
        parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([find(i) for i in range(len(faces))])
    out = []
    for r in np.unique(roots):
        piece = faces[roots == r]
        if surface_volume(verts, piece) < 0:
            out.append(piece[:, [0, 2, 1]])
    return sorted(out, key=lambda p: int(p.min()))


def add_pressure_chambers(builder, first: int, verts: np.ndarray, tets: np.ndarray, groups) -> list[int]:
    """Make every cavity of a tetrahedral mesh already added at particle ``first`` a pressure
    chamber, cavity k (``cavities`` order) driven by activation group ``groups[k]`` (Pa).
    Returns the chambers' indices."""
    cav = cavities(verts, tets)
    groups = np.broadcast_to(np.asarray(groups, int), (len(cav),))
    if not cav:
        raise ValueError("add_pressure_chambers: the mesh has no closed cavity")
    return [builder.add_pressure_chamber(first + c, int(g)) for c, g in zip(cav, groups)]


def read_mesh(path) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, tets) of the tetrahedra in a volume mesh file read with meshio (Gmsh .msh,
    VTK .vtu/.vtk, Medit .mesh, ...; ``pip install meshio``). Tetrahedra are oriented
    positively; a file without tetrahedra raises ValueError."""
    try:
        import meshio
    except ImportError as e:  # optional dependency
        raise ImportError("read_mesh needs meshio: pip install meshio") from e
    mesh = meshio.read(str(path))
    blocks = [c.data for c in mesh.cells if c.type == "tetra"]
    if not blocks:
        raise ValueError(f"{path}: no tetrahedra (cell types: {sorted({c.type for c in mesh.cells})})")
    tets = np.concatenate(blocks).astype(np.int64)
    verts = np.asarray(mesh.points, float)[:, :3]
    d = verts[tets[:, 1:]] - verts[tets[:, :1]]
    neg = np.linalg.det(d) < 0
    tets[neg] = tets[neg][:, [0, 2, 1, 3]]
    return compact(verts, tets)


def tet_volumes(x: np.ndarray, tets: np.ndarray) -> np.ndarray:
    """Signed volumes [..., ntet] of the tetrahedra over particle positions [..., n, 3]."""
    p = x[..., tets, :]  # [..., ntet, 4, 3]
    return np.linalg.det(p[..., 1:, :] - p[..., :1, :]) / 6.0


def tet_centroids(verts: np.ndarray, tets: np.ndarray) -> np.ndarray:
    """Centroids (M, 3) of the tetrahedra."""
    return np.asarray(verts)[np.asarray(tets)].mean(axis=1)


def add_mesh(builder, verts, tets, *, density: float, young, poisson: float, model: str = "linear",
             groups=None, radius: float = 0.0, friction: float = 0.5) -> tuple[int, int]:
    """Add a tetrahedral mesh with per-element Young's modulus (scalar or (M,)) and
    activation groups ((M,) ints, -1 for none): lumped particle masses (density x volume
    / 4 per vertex), then the elements. Returns (first particle id, first tet id)."""
    verts = np.asarray(verts, float)
    tets = np.asarray(tets, int)
    m = tets.shape[0]
    young = np.broadcast_to(np.asarray(young, float), (m,))
    groups = np.full(m, -1) if groups is None else np.asarray(groups, int)
    if groups.shape != (m,):
        raise ValueError(f"groups: expected shape ({m},), got {groups.shape}")
    d = verts[tets[:, 1:]] - verts[tets[:, :1]]
    vol = np.linalg.det(d) / 6.0
    if np.any(vol <= 0):
        raise ValueError(f"add_mesh: {int(np.sum(vol <= 0))} tetrahedra are degenerate or inverted")
    mass = np.zeros(len(verts))
    np.add.at(mass, tets.ravel(), np.repeat(density * vol / 4.0, 4))
    if np.any(mass <= 0):
        raise ValueError("add_mesh: some vertices belong to no tetrahedron")
    first = None
    for x, mv in zip(verts, mass):
        pid = builder.add_particle(x, float(mv), radius, friction)
        first = pid if first is None else first
    first_tet = None
    for k in range(m):
        tid = builder.add_tet([int(first + i) for i in tets[k]], float(young[k]), poisson, model)
        first_tet = tid if first_tet is None else first_tet
        if groups[k] >= 0:
            builder.set_tet_group(tid, int(groups[k]))
    return first, first_tet
