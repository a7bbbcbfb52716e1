"""Convex decomposition of concave collision meshes at load time (CoACD).

ncpgym collides a mesh as its convex hull, as MuJoCo does; a cup or an L-shaped bracket
then collides as a closed block. The loader asks this module which meshes to split and
adds each convex part as a mesh geom of its own. Parts are cached on disk, keyed by the
mesh and the decomposition settings, so only the first load of a mesh runs CoACD.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import mujoco
import numpy as np

from .hull import hull_triangles

MODES = ("auto", "hull", "all")
# "auto" splits a closed mesh whose volume is below this fraction of its convex hull's
AUTO_VOLUME_RATIO = 0.9
# Vertices per part (CoACD's max_ch_vertex): hulls of any size collide, but small parts keep
# support queries and face scans cheap, and a part of a decomposition is small by nature.
MAX_PART_VERTICES = 64
SEED = 0  # CoACD's random seed: the same mesh gives the same parts
_INSTALL_HINT = "pip install ncpgym[decompose]"

log = logging.getLogger("ncpgym")


def check_options(mode: str, threshold: float) -> None:
    """Raise ValueError unless ``mode`` is one of :data:`MODES` and ``threshold`` is in
    (0, 1] (CoACD's concavity threshold: 0.01 is fine-grained, 1 keeps nearly the hull)."""
    if mode not in MODES:
        raise ValueError(f"convex_decomposition must be one of {', '.join(map(repr, MODES))}, "
                         f"got {mode!r}")
    if not 0 < threshold <= 1:
        raise ValueError(f"coacd_threshold must be in (0, 1], got {threshold!r}")


def mesh_arrays(mjm: mujoco.MjModel, mesh: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (nvert x 3, float64, in the mesh frame that geom_pos/geom_quat place on
    the body) and triangles (nface x 3, int32, indices into those vertices) of a compiled mesh."""
    va, vn = mjm.mesh_vertadr[mesh], mjm.mesh_vertnum[mesh]
    fa, fn = mjm.mesh_faceadr[mesh], mjm.mesh_facenum[mesh]
    return (np.array(mjm.mesh_vert[va:va + vn], dtype=np.float64),
            np.array(mjm.mesh_face[fa:fa + fn], dtype=np.int32))


def is_closed(faces: np.ndarray) -> bool:
    """Every directed edge occurs once and its reverse once: a closed, consistently
    oriented surface (the divergence theorem then gives its volume)."""
    if faces.size == 0:
        return False
    n = int(faces.max()) + 1
    a, b = faces.reshape(-1), np.roll(faces, -1, axis=1).reshape(-1)
    if np.any(a == b):
        return False
    fwd = a.astype(np.int64) * n + b
    rev = b.astype(np.int64) * n + a
    return len(np.unique(fwd)) == len(fwd) and np.array_equal(np.sort(fwd), np.sort(rev))


def enclosed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    """|sum of signed tetrahedra (centroid, triangle)| / 6: the volume of a closed surface."""
    return abs(float(_tetra_volumes(vertices, faces).sum()))


def hull_volume(vertices: np.ndarray, hull: np.ndarray) -> float:
    """Volume of a convex hull from its triangles, whatever their orientation (the mean of
    the vertices is inside their hull, so each tetrahedron counts with its size)."""
    return float(np.abs(_tetra_volumes(vertices, hull)).sum())


def _tetra_volumes(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Signed volumes of the tetrahedra (the vertices' mean, triangle)."""
    t = (vertices - vertices.mean(axis=0))[faces]
    return np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])) / 6.0


def is_concave(mjm: mujoco.MjModel, mesh: int) -> bool | None:
    """Whether the mesh's volume is below AUTO_VOLUME_RATIO of its convex hull's; None when
    that is not meaningful (surface not closed, or no hull)."""
    vertices, faces = mesh_arrays(mjm, mesh)
    hull = hull_triangles(mjm, mesh)
    if hull is None or not is_closed(faces):
        return None
    limit = AUTO_VOLUME_RATIO * hull_volume(vertices, hull)
    return limit > 0 and enclosed_volume(vertices, faces) < limit


def wanted(mjm: mujoco.MjModel, mesh: int, mode: str) -> bool:
    """Whether a collidable geom of this mesh is decomposed under ``mode`` (see MODES)."""
    if mode == "hull":
        return False
    return mode == "all" or bool(is_concave(mjm, mesh))


def convex_parts(vertices: np.ndarray, faces: np.ndarray,
                 threshold: float) -> tuple[list[np.ndarray], bool]:
    """CoACD's convex parts of a triangle mesh, as vertex arrays (each at most
    MAX_PART_VERTICES vertices), and whether they came from the disk cache.

    Raises:
        ImportError: coacd is not installed.
    """
    version = _coacd_version()
    path = cache_dir() / f"{_cache_key(vertices, faces, threshold, version)}.npz"
    parts = _read_cache(path)
    if parts is not None:
        return parts, True
    result = _decompose_in_child(np.asarray(vertices, np.float64), np.asarray(faces, np.int32), float(threshold))
    parts = [v for v in result if _is_solid(v)] or [vertices]
    _write_cache(path, parts)
    return parts, False


# CoACD runs in a fresh interpreter: loading its extension into the user's process breaks
# Ray (``import coacd`` before ``ray.init`` aborts Ray's GCS client with a std::regex_error:
# the two C++ runtimes disagree), and Ray clusters are how ncpgym scales. Not a
# multiprocessing pool: its "spawn" children re-run the user's main script (a script
# without an ``if __name__ == "__main__"`` guard failed with BrokenProcessPool), and a pool
# inherited through fork() hangs. A decomposition is cached on disk, so the interpreter's
# start (~0.3 s) is paid once per mesh.
_CHILD = """
import sys
import numpy as np
import coacd
data = np.load(sys.argv[1])
coacd.set_log_level("error")  # CoACD logs every step of its search otherwise
parts = coacd.run_coacd(coacd.Mesh(data["vertices"], data["faces"]), threshold=float(data["threshold"]),
                        decimate=True, max_ch_vertex=int(data["max_vertices"]), seed=int(data["seed"]))
vertices = [np.asarray(v, dtype=np.float64).reshape(-1, 3) for v, _ in parts]
np.savez(sys.argv[2], vertices=np.concatenate(vertices), counts=[len(v) for v in vertices])
"""


def _decompose_in_child(vertices: np.ndarray, faces: np.ndarray, threshold: float) -> list[np.ndarray]:
    """CoACD's parts (vertex arrays) of one mesh, computed in a child interpreter."""
    with tempfile.TemporaryDirectory(prefix="ncpgym_coacd_") as d:
        src, dst = Path(d) / "mesh.npz", Path(d) / "parts.npz"
        np.savez(src, vertices=vertices, faces=faces, threshold=threshold, max_vertices=MAX_PART_VERTICES, seed=SEED)
        run = subprocess.run([sys.executable, "-c", _CHILD, str(src), str(dst)], capture_output=True, text=True,
                             check=False)
        if run.returncode != 0:
            raise RuntimeError(f"CoACD failed on a mesh of {len(vertices)} vertices and {len(faces)} triangles:\n"
                               f"{run.stderr.strip()[-2000:]}")
        with np.load(dst) as z:
            return np.split(z["vertices"], np.cumsum(z["counts"])[:-1])


def cache_dir() -> Path:
    """Directory of cached parts: ``$NCPGYM_CACHE_DIR/coacd``, by default
    ``~/.cache/ncpgym/coacd``."""
    root = os.environ.get("NCPGYM_CACHE_DIR") or Path.home() / ".cache" / "ncpgym"
    return Path(root) / "coacd"


def _import_coacd():
    try:
        import coacd
    except ImportError as e:
        raise ImportError("convex decomposition of concave meshes needs the coacd package: "
                          f"{_INSTALL_HINT} (or load with convex_decomposition='hull')") from e
    return coacd


def _cache_key(vertices: np.ndarray, faces: np.ndarray, threshold: float, version: str) -> str:
    h = hashlib.sha256()
    for arr in (np.ascontiguousarray(vertices, np.float64), np.ascontiguousarray(faces, np.int32)):
        h.update(repr(arr.shape).encode())
        h.update(arr.tobytes())
    settings = (float(threshold), MAX_PART_VERTICES, SEED, version)
    h.update(repr(settings).encode())
    return h.hexdigest()


def _coacd_version() -> str:
    """The installed coacd's version (read without importing it); ImportError if absent."""
    try:
        return importlib.metadata.version("coacd")
    except importlib.metadata.PackageNotFoundError:
        _import_coacd()  # installed without metadata, or not at all: the clear error
        return "unknown"


def _is_solid(vertices: np.ndarray) -> bool:
    """Not flat: the Builder refuses coplanar meshes (CoACD may return slivers)."""
    if len(vertices) < 4:
        return False
    s = np.linalg.svd(vertices - vertices.mean(axis=0), compute_uv=False)
    return s[2] > 1e-9 * s[0]


def _read_cache(path: Path) -> list[np.ndarray] | None:
    try:
        with np.load(path) as z:
            return np.split(z["vertices"], np.cumsum(z["counts"])[:-1])
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None  # absent or damaged: decompose again


def _write_cache(path: Path, parts: list[np.ndarray]) -> None:
    """Write to a temporary file in the cache directory, then rename it (atomic: a reader
    never sees half a file; concurrent writers of the same key write the same parts). A
    cache that cannot be written costs a decomposition per load, not the load."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError as e:
        log.warning("convex decomposition cache %s not writable: %s", path.parent, e)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, vertices=np.concatenate(parts), counts=[len(p) for p in parts])
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        log.warning("convex decomposition cache %s not written: %s", path, e)
