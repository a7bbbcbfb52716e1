"""Meshes for the tests: a concave closed one for the decomposition tests
(test_convex_decomposition.py, test_loading.py, test_decompose_units.py), an L profile in
the x-z plane extruded along y (a long leg flat on the ground, x in [0, 0.3], z in
[0, 0.05], and a short leg standing up at its end, x in [0, 0.05], z up to 0.2); and a
box and a binary STL writer."""

import numpy as np

L_LONG, L_HEIGHT, L_THICK, L_DEPTH = 0.3, 0.2, 0.05, 0.1


def _fmt(a) -> str:
    a = np.asarray(a)
    return " ".join(str(int(x)) if a.dtype.kind == "i" else repr(float(x)) for x in a.ravel())


def l_mesh() -> tuple[np.ndarray, np.ndarray]:
    """The L's closed surface: the profile's six corners at y = -d/2 and y = +d/2, the side
    walls, and both caps fanned from the outer corner (0, 0) (the L is star-shaped about it)."""
    t = L_THICK
    prof = [(0, 0), (L_LONG, 0), (L_LONG, t), (t, t), (t, L_HEIGHT), (0, L_HEIGHT)]
    n = len(prof)
    v = [(x, y, z) for y in (-L_DEPTH / 2, L_DEPTH / 2) for x, z in prof]
    f = []
    for i in range(n):  # side walls, outward normals
        j = (i + 1) % n
        f += [(i, n + j, j), (i, n + i, n + j)]
    for k in range(1, n - 1):  # caps: normal -y at y = -d/2, +y at y = +d/2
        f += [(0, k, k + 1), (n, n + k + 1, n + k)]
    return np.array(v, float), np.array(f, np.int32)


def write_stl(path, v, f):
    """A binary STL file of triangles f (indices into vertices v); returns path."""
    import struct

    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<I", len(f)))
        for tri in np.asarray(v)[f]:
            fh.write(struct.pack("<12fH", 0, 0, 0, *tri.ravel(), 0))
    return path


def box_mesh(a=0.1, b=0.1, c=0.1):
    """A closed box [0, a] x [0, b] x [0, c]: 8 vertices, 12 outward triangles."""
    v = np.array([(x, y, z) for x in (0, a) for y in (0, b) for z in (0, c)], float)
    f = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
         (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return v, np.array(f, np.int32)
