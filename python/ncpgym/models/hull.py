"""Convex hulls of vertex sets, computed by MuJoCo's compiler (qhull), for
``Builder.add_mesh(vertices, hull=...)``: ncpgym collides meshes as their convex hulls and
takes the hull from the library that MuJoCo already ships rather than computing its own."""

from __future__ import annotations

import mujoco
import numpy as np


def convex_hull(vertices) -> np.ndarray:
    """Triangles (T, 3) of the convex hull of ``vertices`` (V, 3), as indices into
    ``vertices``. Raises ValueError for fewer than 4 points or points without volume."""
    v = np.asarray(vertices, dtype=float)
    if v.ndim != 2 or v.shape[1] != 3 or len(v) < 4:
        raise ValueError(f"convex_hull: expected (V >= 4, 3) vertices, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError("convex_hull: non-finite vertex")
    spec = mujoco.MjSpec()
    mesh = spec.add_mesh()
    mesh.name = "hull"
    mesh.uservert = v.reshape(-1).tolist()
    geom = spec.worldbody.add_body().add_geom()
    geom.type = mujoco.mjtGeom.mjGEOM_MESH
    geom.meshname = "hull"
    try:
        mjm = spec.compile()
    except ValueError as e:  # MuJoCo's message names the problem (e.g. coplanar points)
        raise ValueError(f"convex_hull: {e}") from None
    if int(mjm.mesh_vertnum[0]) != len(v):  # indices must refer to the caller's vertices
        raise ValueError("convex_hull: MuJoCo changed the vertex count (duplicate vertices?)")
    tris = hull_triangles(mjm, 0)
    if tris is None:
        raise ValueError("convex_hull: MuJoCo computed no hull for these points")
    return tris


def hull_triangles(mjm: mujoco.MjModel, mesh: int) -> np.ndarray | None:
    """Triangles of MuJoCo's convex hull of a mesh (indices into its vertices), or None
    when MuJoCo computed no hull. mesh_graph holds, per mesh: numvert, numface,
    vert_edgeadr[numvert], vert_globalid[numvert], edge_localid[numvert + 3 numface],
    face_globalid[3 numface]."""
    adr = int(mjm.mesh_graphadr[mesh])
    if adr < 0:
        return None
    nv, nf = int(mjm.mesh_graph[adr]), int(mjm.mesh_graph[adr + 1])
    start = adr + 2 + 3 * nv + 3 * nf
    return np.array(mjm.mesh_graph[start:start + 3 * nf], dtype=np.int32).reshape(nf, 3)
