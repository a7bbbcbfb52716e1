"""Irregular, concave objects to grasp: a seeded generator in the spirit of the DexNet
adversarial set (Macklin et al. 2019 §10.1.3, Fig. 10: "highly irregular" objects
"with many concave areas"), and a user's OBJ/STL file through the same path.

Each object is one or more closed triangle surfaces (metres, in the object's frame, the
origin at its centre of mass) with a density. :meth:`MeshObject.add_to` puts it on a body
of a ``mujoco.MjSpec`` as mesh geoms whose inertia MuJoCo computes exactly from the closed
surfaces (``mjMESH_INERTIA_EXACT``); the ncpgym loader then decomposes the concave ones into
convex parts with CoACD (``models.decompose``, cached on disk). The meshes are generated
here (written for ncpgym: lathes, extrusions, voxel unions and displaced spheres); no
meshing library is needed.

Kinds (``KINDS``): ``blob`` (a sphere with random smooth dents and bumps), ``polycube``
(L, T, U, S and random face-connected unions of cubes), ``star`` (a star-shaped prism),
``mug`` (a lathed cup with a separate half-torus handle), ``bowl`` (a lathed bowl),
``ring`` (a torus: an object with a hole), ``plate`` (a thin plate with a bent edge).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import mujoco
import numpy as np

__all__ = ["MeshObject", "KINDS", "generate", "object_set", "load_mesh_object", "lathe", "extrude",
           "voxel_surface", "is_closed", "volume"]

KINDS = ("blob", "polycube", "star", "mug", "bowl", "ring", "plate")


@dataclass
class MeshObject:
    """Closed triangle surfaces ``parts`` [(vertices (V, 3), faces (F, 3))] in the object's
    frame, ``density`` in kg/m^3. ``name`` says what it is (kind and seed)."""

    name: str
    parts: list[tuple[np.ndarray, np.ndarray]]
    density: float = 500.0
    files: list[str] = field(default_factory=list)  # meshes read from disk (load_mesh_object)

    @property
    def volume(self) -> float:
        """Enclosed volume of the object's mesh (m^3)."""
        return float(sum(volume(v, f) for v, f in self.parts))

    @property
    def mass(self) -> float:
        """Mass at the object's density (kg)."""
        return self.density * self.volume

    def extent(self) -> np.ndarray:
        """Axis-aligned size (3,) of the object."""
        v = np.concatenate([p[0] for p in self.parts])
        return v.max(axis=0) - v.min(axis=0)

    def add_to(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, *, friction=(0.8, 0.005, 0.0001),
               rgba=(0.85, 0.55, 0.3, 1.0)) -> list[mujoco.MjsGeom]:
        """Mesh geoms of the object on ``body`` (mesh assets named after the object); the
        body's inertia follows from the geoms (MuJoCo's exact volume integrals)."""
        geoms = []
        for k, (v, f) in enumerate(self.parts):
            name = f"{self.name}/{k}"
            mesh = spec.add_mesh(name=name, uservert=np.asarray(v, float).ravel().tolist(),
                                 userface=np.asarray(f, int).ravel().tolist())
            mesh.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_EXACT
            geoms.append(body.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_MESH, meshname=name,
                                       density=self.density, friction=list(friction), rgba=list(rgba)))
        return geoms


# -- geometry of closed surfaces ----------------------------------------------------------------

def volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    """Signed volume of a closed, outward-oriented surface (divergence theorem)."""
    t = np.asarray(vertices, float)[np.asarray(faces)]
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)


def is_closed(faces: np.ndarray) -> bool:
    """Every directed edge occurs once and its reverse once (closed and consistently oriented)."""
    from .models.decompose import is_closed as closed

    return closed(np.asarray(faces))


def lathe(profile, segments: int) -> tuple[np.ndarray, np.ndarray]:
    """The surface of revolution about z of a closed profile [(r, z), ...] (counter-
    clockwise in the (r, z) plane, so the surface faces outward). Profile points with r = 0
    lie on the axis and become poles; a profile with none is a loop (a torus-like solid)."""
    p = np.asarray(profile, float)
    if p.ndim != 2 or p.shape[1] != 2 or len(p) < 3 or np.any(p[:, 0] < 0):
        raise ValueError("lathe: profile must be at least three (r, z) points with r >= 0")
    a = 2 * np.pi * np.arange(segments) / segments
    verts, ring = [], []
    for r, z in p:
        if r == 0.0:
            ring.append(len(verts))
            verts.append((0.0, 0.0, z))
        else:
            ring.append(np.arange(len(verts), len(verts) + segments))
            verts.extend(zip(r * np.cos(a), r * np.sin(a), np.full(segments, z)))
    faces = []
    n = len(p)
    for i in range(n):
        A, B = ring[i], ring[(i + 1) % n]
        for s in range(segments):
            t = (s + 1) % segments
            a0 = A if np.isscalar(A) else A[s]
            a1 = A if np.isscalar(A) else A[t]
            b0 = B if np.isscalar(B) else B[s]
            b1 = B if np.isscalar(B) else B[t]
            # the profile runs counter-clockwise in (r, z) and the angle grows counter-
            # clockwise about z: (a0, b1, b0) faces outward
            if a0 != b0 and b0 != b1 and a0 != b1:
                faces.append((a0, b1, b0))
            if a0 != b1 and b1 != a1 and a0 != a1:
                faces.append((a0, a1, b1))
    return np.array(verts), np.array(faces, dtype=np.int32)


def extrude(polygon, height: float) -> tuple[np.ndarray, np.ndarray]:
    """A prism of a polygon [(x, y), ...] (counter-clockwise, star-shaped about its vertex
    mean, which becomes the cap triangulation's centre) from z = 0 to ``height``."""
    p = np.asarray(polygon, float)
    n = len(p)
    c = p.mean(axis=0)
    bottom = np.c_[p, np.zeros(n)]
    top = np.c_[p, np.full(n, height)]
    verts = np.vstack([bottom, top, [[*c, 0.0], [*c, height]]])
    cb, ct = 2 * n, 2 * n + 1
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces += [(i, j, n + j), (i, n + j, n + i), (cb, j, i), (ct, n + i, n + j)]
    return verts, np.array(faces, dtype=np.int32)


def voxel_surface(filled: np.ndarray, size: float) -> tuple[np.ndarray, np.ndarray]:
    """The outer surface of a union of cubes of side ``size`` (``filled``: a boolean 3-D
    grid of face-connected voxels), two outward triangles per exposed cube face."""
    g = np.pad(np.asarray(filled, bool), 1)
    index: dict[tuple[int, int, int], int] = {}
    verts, faces = [], []

    def vid(p):
        if p not in index:
            index[p] = len(verts)
            verts.append(p)
        return index[p]

    # the 4 corners of the +axis face of a cube at the origin, counter-clockwise seen from outside
    quads = {0: [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)], 1: [(0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)],
             2: [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]}
    for axis in range(3):
        step = np.eye(3, dtype=int)[axis]
        for sign in (1, -1):
            nb = np.roll(g, -sign, axis=axis)
            for i, j, k in np.argwhere(g & ~nb):
                q = quads[axis]
                if sign < 0:  # the -axis face: mirror the quad onto the cube's near side, reversed
                    q = [tuple(np.array(c) - step) for c in q[::-1]]
                ids = [vid((i + c[0], j + c[1], k + c[2])) for c in q]
                faces += [(ids[0], ids[1], ids[2]), (ids[0], ids[2], ids[3])]
    return (np.array(verts, float) - 1.0) * size, np.array(faces, dtype=np.int32)


# -- the generator -------------------------------------------------------------------------

def _centred(parts, density, name):
    """Shift the parts so that the origin is the centre of mass of the union (parts may
    overlap slightly, as a mug's handle enters its wall: their volumes add)."""
    mass, moment = 0.0, np.zeros(3)
    for v, f in parts:
        t = np.asarray(v)[f]
        vol = np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])) / 6.0
        mass += vol.sum()
        moment += (vol[:, None] * t.sum(axis=1) / 4.0).sum(axis=0)
    c = moment / mass
    return MeshObject(name, [(np.asarray(v) - c, np.asarray(f, np.int32)) for v, f in parts], density)


def _icosphere(level: int) -> tuple[np.ndarray, np.ndarray]:
    t = (1 + 5**0.5) / 2
    v = np.array([(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
                  (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)], float)
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
         (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
         (8, 6, 7), (9, 8, 1)]
    verts = list(v / np.linalg.norm(v, axis=1, keepdims=True))
    for _ in range(level):
        mid: dict[tuple[int, int], int] = {}

        def m(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                p = verts[a] + verts[b]
                mid[key] = len(verts)
                verts.append(p / np.linalg.norm(p))
            return mid[key]
        f = [tri for a, b, c in f for tri in ((a, m(a, b), m(c, a)), (b, m(b, c), m(a, b)),
                                              (c, m(c, a), m(b, c)), (m(a, b), m(b, c), m(c, a)))]
    return np.array(verts), np.array(f, dtype=np.int32)


def _blob(rng, size):
    v, f = _icosphere(3)  # 642 vertices
    r = np.ones(len(v))
    for _ in range(rng.integers(4, 8)):  # smooth dents (down to -35 %) and bumps (up to +25 %)
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        width = rng.uniform(0.3, 0.7)
        r += rng.uniform(-0.35, 0.25) * np.exp(-(1 - v @ axis) / width**2 * 2)
    r = np.clip(r, 0.45, None)
    scale = size / 2 * rng.uniform(0.8, 1.2, 3)
    return [(v * r[:, None] * scale, f)]


_POLYCUBES = {
    "L": [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (0, 2, 0)],
    "T": [(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0), (1, 2, 0)],
    "U": [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (2, 1, 0)],
    "S": [(0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0)],
}


def _polycube(rng, size):
    name = rng.choice([*_POLYCUBES, "random"])
    thick = rng.uniform(0.5, 1.0)  # cubes flattened along z
    for _ in range(50):
        if name == "random":  # a random face-connected union of 5-7 cubes in a 3 x 3 x 2 box
            cells, count = {(1, 1, 0)}, rng.integers(5, 8)
            while len(cells) < count:
                c = list(cells)[rng.integers(len(cells))]
                d = np.eye(3, dtype=int)[rng.integers(3)] * rng.choice([-1, 1])
                cells.add(tuple(int(x) for x in np.clip(np.array(c) + d, 0, [2, 2, 1])))
        else:
            cells = set(_POLYCUBES[name])
        grid = np.zeros((3, 3, 2), bool)
        for c in cells:
            grid[c] = True
        v, f = voxel_surface(grid, size / 3)
        if is_closed(f):  # cubes meeting only along an edge make a non-manifold surface: draw again
            return [(v * [1.0, 1.0, thick], f)]
        name = "random"
    raise RuntimeError("polycube: no manifold union in 50 draws")  # pragma: no cover


def _star(rng, size):
    n = int(rng.integers(4, 7))
    a = np.pi * np.arange(2 * n) / n + rng.uniform(0, np.pi)
    r = np.where(np.arange(2 * n) % 2 == 0, 1.0, rng.uniform(0.35, 0.6)) * size / 2
    return [extrude(np.c_[r * np.cos(a), r * np.sin(a)], size * rng.uniform(0.2, 0.45))]


def _mug(rng, size):
    R = size / 2 * rng.uniform(0.55, 0.75)  # outer radius
    h = size * rng.uniform(0.7, 1.0)
    w = rng.uniform(0.006, 0.01)  # wall
    # counter-clockwise profile: the axis at the bottom, the outside up, the rim, the inside down
    cup = lathe([(0.0, 0.0), (R, 0.0), (R, h), (R - w, h), (R - w, w), (0.0, w)], 32)
    # the handle: a "[" of five cubes in the xz-plane, its open side against the wall
    cells = np.zeros((2, 1, 3), bool)
    cells[1, 0, :] = True
    cells[0, 0, 0] = cells[0, 0, 2] = True
    depth, tube, height = rng.uniform(0.012, 0.02), 0.012, h * rng.uniform(0.5, 0.7)
    v, f = voxel_surface(cells, 1.0)
    handle = v * [depth / 2, tube, height / 3] + [R - w / 2, -tube / 2, (h - height) / 2]
    return [cup, (handle, f)]


def _bowl(rng, size):
    R = size / 2 * rng.uniform(0.8, 1.0)
    h = size * rng.uniform(0.3, 0.45)
    w = rng.uniform(0.006, 0.01)
    k = 8
    t = np.linspace(0, np.pi / 2, k)
    outer = np.c_[R * np.sin(t), h * (1 - np.cos(t))]
    inner = np.c_[(R - w) * np.sin(t[::-1]), w + (h - w) * (1 - np.cos(t[::-1]))]
    profile = np.vstack([[[0.0, 0.0]], outer[1:], inner[:-1], [[0.0, w]]])
    return [lathe(profile, 32)]


def _ring(rng, size):
    R = size / 2 * rng.uniform(0.6, 0.8)  # the tube's centre line
    r = R * rng.uniform(0.25, 0.4)  # the tube
    a = np.linspace(0, 2 * np.pi, 13)[:-1]
    return [lathe(np.c_[R + r * np.cos(a), r * np.sin(a)], 32)]


def _plate(rng, size):
    # a thin plate with one edge bent up: an L of two thin boxes (one voxel union)
    v, f = voxel_surface(np.array([[[True, True]], [[True, False]], [[True, False]], [[True, False]]]), size / 4)
    return [(v * [1.0, rng.uniform(2.5, 3.5), 0.35], f)]


_GENERATORS = {"blob": _blob, "polycube": _polycube, "star": _star, "mug": _mug, "bowl": _bowl,
               "ring": _ring, "plate": _plate}


def generate(kind: str, seed: int, *, size: float = 0.08, density: float = 500.0) -> MeshObject:
    """One object of ``kind`` (see KINDS) about ``size`` metres across, drawn from
    ``seed`` (the same seed, the same object)."""
    if kind not in _GENERATORS:
        raise ValueError(f"unknown object kind {kind!r}; kinds: {', '.join(KINDS)}")
    if not size > 0 or not density > 0:
        raise ValueError(f"size and density must be > 0, got {size}, {density}")
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    return _centred(_GENERATORS[kind](rng, size), density, f"{kind}_{seed}")


def object_set(n: int, seed: int = 0, *, kinds=KINDS, size: float = 0.08, density: float = 500.0) -> list[MeshObject]:
    """``n`` objects cycling through ``kinds``, object i drawn from seed (seed, i)."""
    unknown = set(kinds) - set(KINDS)
    if unknown or not kinds:
        raise ValueError(f"unknown object kinds {sorted(unknown)}; kinds: {', '.join(KINDS)}")
    return [generate(kinds[i % len(kinds)], seed * 100003 + i, size=size, density=density) for i in range(n)]


def load_mesh_object(path: str | os.PathLike, *, scale: float = 1.0, density: float = 500.0,
                     name: str | None = None) -> MeshObject:
    """A user's closed triangle mesh (STL or OBJ, read by MuJoCo's mesh reader), scaled by
    ``scale`` and centred at its centre of mass. Raises ValueError for a file MuJoCo cannot
    read, an empty mesh or one that encloses no volume."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"mesh file {path} does not exist")
    spec = mujoco.MjSpec()
    spec.add_mesh(name="m", file=str(path.resolve()), scale=[scale] * 3)
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_MESH, meshname="m", contype=0, conaffinity=0)
    try:
        m = spec.compile()
    except ValueError as e:
        raise ValueError(f"{path}: MuJoCo could not read the mesh: {str(e).splitlines()[0]}") from None
    from .models.decompose import mesh_arrays

    v, f = mesh_arrays(m, 0)
    if len(f) == 0:
        raise ValueError(f"{path}: the mesh has no triangles")
    if abs(volume(v, f)) < 1e-12:
        raise ValueError(f"{path}: the mesh encloses no volume")
    if volume(v, f) < 0:
        f = f[:, [0, 2, 1]]
    obj = _centred([(v, f)], density, name or path.stem)
    obj.files.append(str(path))
    return obj
