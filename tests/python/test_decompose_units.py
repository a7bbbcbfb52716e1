"""ncpgym.models.decompose's and models.hull's pieces against geometry done by hand (issue
14): which surfaces are closed, the volumes of a box and of the L bracket and of its hull
from their profiles' areas, the "auto" rule either side of its 0.9 ratio, slivers, the
cache's key, location and files; MuJoCo's hull of a cube and its refusals."""

import logging
import re
from pathlib import Path

import mujoco
import numpy as np
import pytest

from ncpgym.models import decompose
from concave_meshes import L_DEPTH, L_HEIGHT, L_LONG, L_THICK, _fmt, box_mesh, l_mesh


def compiled(v, f):
    xml = f"""<mujoco><asset><mesh name="m" vertex="{_fmt(v)}" face="{_fmt(f)}"/></asset>
      <worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>"""
    return mujoco.MjModel.from_xml_string(xml)


def shoelace(points):
    x, y = np.asarray(points, float).T
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def test_closed_surfaces_are_told_from_open_flipped_and_degenerate_ones():
    v, f = box_mesh(0.1, 0.2, 0.3)
    assert decompose.is_closed(f)
    assert not decompose.is_closed(f[:-1])  # a hole
    flipped = f.copy()
    flipped[0] = flipped[0, ::-1]  # one triangle against its neighbours' orientation
    assert not decompose.is_closed(flipped)
    doubled = np.concatenate([f, f])  # every edge twice in the same direction
    assert not decompose.is_closed(doubled)
    degenerate = f.copy()
    degenerate[0, 1] = degenerate[0, 0]
    assert not decompose.is_closed(degenerate)
    assert not decompose.is_closed(np.zeros((0, 3), np.int32))
    assert decompose.is_closed(l_mesh()[1])
    # a degenerate triangle (8, 8, 9) beside the box: its edges 8-9 and 9-8 pair up and 8-8
    # is its own reverse, so only the degenerate-edge rule tells it apart
    assert not decompose.is_closed(np.vstack([f, [8, 8, 9]]))


def test_volumes_of_a_box_the_l_and_its_hull_from_their_profiles():
    """The box's volume a b c; the L's volume its profile's area (two legs) x depth; the
    L's hull the area of the profile's convex polygon x depth (shoelace), with the hull's
    triangles in any orientation; tetrahedra about the vertices' mean are signed."""
    v, f = box_mesh(0.1, 0.2, 0.3)
    assert decompose.enclosed_volume(v, f) == pytest.approx(0.1 * 0.2 * 0.3, rel=1e-12)
    assert decompose.enclosed_volume(v, f[:, ::-1]) == pytest.approx(0.006, rel=1e-12)  # inside out
    lv, lf = l_mesh()
    l_area = L_LONG * L_THICK + L_THICK * (L_HEIGHT - L_THICK)
    assert decompose.enclosed_volume(lv, lf) == pytest.approx(l_area * L_DEPTH, rel=1e-12)
    hull_area = shoelace([(0, 0), (L_LONG, 0), (L_LONG, L_THICK), (L_THICK, L_HEIGHT), (0, L_HEIGHT)])
    mj = compiled(lv, lf)
    mv, _ = decompose.mesh_arrays(mj, 0)
    hull = decompose.hull_triangles(mj, 0)
    assert decompose.hull_volume(mv, hull) == pytest.approx(hull_area * L_DEPTH, rel=1e-6)  # float32 vertices
    mixed = hull.copy()
    mixed[::2] = mixed[::2, ::-1]
    assert decompose.hull_volume(mv, mixed) == pytest.approx(hull_area * L_DEPTH, rel=1e-6)
    assert decompose._tetra_volumes(v, f).sum() == pytest.approx(0.006, rel=1e-12)
    assert decompose._tetra_volumes(v, f[:, ::-1]).sum() == pytest.approx(-0.006, rel=1e-12)
    # far from the origin, triangles in mixed orientation: still the box's volume
    far = v + [3.0, 40.0, -7.0]
    mixed_box = np.where(np.arange(12)[:, None] % 2 == 0, f, f[:, ::-1])
    assert decompose.hull_volume(far, mixed_box) == pytest.approx(0.006, rel=1e-12)
    assert decompose.enclosed_volume(far, f) == pytest.approx(0.006, rel=1e-12)
    mv, mf = decompose.mesh_arrays(mj, 0)
    assert mv.dtype == np.float64 and mf.dtype == np.int32 and mv.shape == (12, 3) and mf.shape == (len(lf), 3)


def test_auto_splits_closed_meshes_below_nine_tenths_of_their_hull():
    """The L fills l_area / hull_area (0.375 of its hull here): concave. A box notched so
    that it fills 0.95 of its hull is not, one notched to 0.85 is; open surfaces: None;
    "hull" never splits and "all" always does."""
    lv, lf = l_mesh()
    mj = compiled(lv, lf)
    assert decompose.is_concave(mj, 0) is True
    assert decompose.wanted(mj, 0, "auto") and decompose.wanted(mj, 0, "all") and not decompose.wanted(mj, 0, "hull")
    v, f = box_mesh(0.1, 0.1, 0.1)
    box_mj = compiled(v, f)
    assert decompose.is_concave(box_mj, 0) is False
    assert not decompose.wanted(box_mj, 0, "auto") and decompose.wanted(box_mj, 0, "all")
    for fill, concave in ((0.95, False), (0.85, True)):
        # the unit square (x-z) with a slot 0.5 deep and 2 (1 - fill) wide cut from the top,
        # extruded by 1: it fills `fill` of its hull, the unit cube
        sw = 2 * (1 - fill)
        prof = [(0, 0), (1, 0), (1, 1), (0.5 + sw / 2, 1), (0.5 + sw / 2, 0.5), (0.5 - sw / 2, 0.5),
                (0.5 - sw / 2, 1), (0, 1)]
        uv, uf = _extrude(prof)
        assert decompose.enclosed_volume(uv, uf) == pytest.approx(fill, rel=1e-9)
        assert decompose.is_concave(compiled(uv, uf), 0) is concave, fill
    open_mj = compiled(lv, lf[:-1])
    assert decompose.is_concave(open_mj, 0) is None and not decompose.wanted(open_mj, 0, "auto")


def _extrude(prof):
    """A closed prism on a simple polygon (x, z), extruded over y in [0, 1], its caps
    triangulated by ear clipping."""
    n = len(prof)
    v = [(x, y, z) for y in (0.0, 1.0) for x, z in prof]
    f = []
    for i in range(n):
        j = (i + 1) % n
        f += [(i, n + j, j), (i, n + i, n + j)]
    for a, b, c in _ears(prof):
        f += [(a, b, c), (n + a, n + c, n + b)]
    return np.array(v, float), np.array(f, np.int32)


def _ears(prof):
    """Ear clipping of a simple counter-clockwise polygon (x, z): triangles of its indices."""
    idx = list(range(len(prof)))
    p = np.asarray(prof, float)
    tris = []

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    while len(idx) > 3:
        for k in range(len(idx)):
            a, b, c = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            if cross(p[a], p[b], p[c]) <= 0:
                continue
            inside = any(cross(p[a], p[b], p[m]) > 0 and cross(p[b], p[c], p[m]) > 0 and cross(p[c], p[a], p[m]) > 0
                         for m in idx if m not in (a, b, c))
            if not inside:
                tris.append((a, b, c))
                idx.pop(k)
                break
    tris.append(tuple(idx))
    return tris


def test_slivers_are_not_solid():
    tet = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])
    assert decompose._is_solid(tet)
    assert not decompose._is_solid(tet[:3])  # three points
    flat = tet.copy()
    flat[3, 2] = 1e-12  # coplanar within rounding
    assert not decompose._is_solid(flat)
    thin = tet.copy()
    thin[3, 2] = 1e-6
    assert decompose._is_solid(thin)
    assert not decompose._is_solid(flat + [100.0, -50.0, 20.0])  # flat far from the origin
    assert not decompose._is_solid(np.ones((4, 3)))  # one point four times
    small = tet * 1e-3
    small[3, 2] = 1e-9  # 1e-6 of the size: solid at any scale
    assert decompose._is_solid(small)
    needle = np.array([[0, 0, 0], [1, 0, 0], [0.5, 1e-4, 0], [0.5, 0, 1e-10]])  # thickness 1e-10 of its length
    assert not decompose._is_solid(needle)


def test_the_cache_key_follows_every_setting_and_the_files_round_trip(tmp_path, monkeypatch, caplog):
    v, f = box_mesh(0.1, 0.2, 0.3)
    key = decompose._cache_key(v, f, 0.05, "1.0")
    assert key == decompose._cache_key(v.copy(), f.copy(), 0.05, "1.0") and len(key) == 64
    others = {decompose._cache_key(v, f, 0.06, "1.0"), decompose._cache_key(v, f, 0.05, "1.1"),
              decompose._cache_key(v + 1e-9, f, 0.05, "1.0"), decompose._cache_key(v, f[:, [1, 2, 0]], 0.05, "1.0"),
              decompose._cache_key(v.reshape(3, 8).T.copy(), f, 0.05, "1.0")}
    assert key not in others and len(others) == 5
    # the same bytes split differently between vertices and faces: another mesh, another key
    shifted = np.vstack([v, f.reshape(-1)[:6].view(np.float64)]), f.reshape(-1)[6:].reshape(-1, 3)
    assert shifted[0].tobytes() + shifted[1].tobytes() == v.tobytes() + f.astype(np.int32).tobytes()
    assert decompose._cache_key(*shifted, 0.05, "1.0") != key
    exact = np.round(v * 2) / 2  # halves: the same numbers in float32 and float64
    assert decompose._cache_key(exact.astype(np.float32), f.astype(np.int64), 0.05, "1.0") == \
        decompose._cache_key(exact, f, 0.05, "1.0")
    monkeypatch.setenv("NCPGYM_CACHE_DIR", str(tmp_path / "c"))
    assert decompose.cache_dir() == tmp_path / "c" / "coacd"
    monkeypatch.delenv("NCPGYM_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert decompose.cache_dir() == tmp_path / "home" / ".cache" / "ncpgym" / "coacd"
    parts = [v[:5], v[3:], box_mesh(1, 1, 1)[0][:4]]
    path = tmp_path / "c" / "coacd" / "k.npz"
    renames = []
    real_replace = decompose.os.replace
    monkeypatch.setattr(decompose.os, "replace", lambda a, b: renames.append((Path(a), Path(b))) or real_replace(a, b))
    decompose._write_cache(path, parts)
    # written beside its final name, then renamed (atomic only within one file system)
    assert len(renames) == 1 and renames[0][0].parent == path.parent and renames[0][1] == path
    back = decompose._read_cache(path)
    assert len(back) == 3 and all(np.array_equal(a, b) for a, b in zip(parts, back))
    assert list(path.parent.iterdir()) == [path]  # no temporary file left
    assert decompose._read_cache(tmp_path / "missing.npz") is None
    path.write_bytes(b"not a zip")
    assert decompose._read_cache(path) is None
    blocked = tmp_path / "file"
    blocked.write_text("")
    with caplog.at_level(logging.WARNING, logger="ncpgym"):
        decompose._write_cache(blocked / "coacd" / "k.npz", parts)  # its directory is a file
    assert re.fullmatch(rf"convex decomposition cache {re.escape(str(blocked / 'coacd'))} not writable: \[Errno \d+\] .+",
                        caplog.records[-1].getMessage())
    taken = tmp_path / "d" / "k.npz"
    taken.mkdir(parents=True)  # a directory where the file should go: the rename fails
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ncpgym"):
        decompose._write_cache(taken, parts)
    assert re.fullmatch(rf"convex decomposition cache {re.escape(str(taken))} not written: \[Errno \d+\] .+",
                        caplog.records[-1].getMessage())
    assert list(taken.parent.iterdir()) == [taken]  # the temporary file removed


def test_parts_are_cached_under_the_installed_coacds_version(tmp_path, monkeypatch):
    """convex_parts keys its cache file by the mesh, the threshold and the installed
    CoACD's version (an upgrade decomposes again), and the second call reads the file."""
    import importlib.metadata

    monkeypatch.setenv("NCPGYM_CACHE_DIR", str(tmp_path))
    v, f = box_mesh(0.1, 0.2, 0.3)
    parts, cached = decompose.convex_parts(v, f, 0.05)
    key = decompose._cache_key(v, f, 0.05, importlib.metadata.version("coacd"))
    assert not cached and [p.name for p in (tmp_path / "coacd").iterdir()] == [f"{key}.npz"]
    again, cached = decompose.convex_parts(v, f, 0.05)
    assert cached and len(again) == len(parts) and all(np.array_equal(a, b) for a, b in zip(parts, again))


def test_options_are_checked_at_their_bounds():
    for mode in ("auto", "hull", "all"):
        decompose.check_options(mode, 1.0)
    decompose.check_options("auto", 1e-9)
    for bad in (0.0, 1.0 + 1e-12, -1.0):
        with pytest.raises(ValueError, match=r"coacd_threshold must be in \(0, 1\], got"):
            decompose.check_options("auto", bad)
    with pytest.raises(ValueError, match=r"convex_decomposition must be one of 'auto', 'hull', 'all', got 'x'"):
        decompose.check_options("x", 0.5)


def test_convex_hull_of_a_cube_with_an_inside_point_and_its_refusals():
    """models.convex_hull: the unit cube's corners plus its centre give 12 triangles on the
    cube's faces (each triangle's corners share a coordinate at 0 or 1), 6 of area in all,
    never the centre; bad shapes, fewer than 4, non-finite and coplanar points are refused by
    name; MuJoCo makes no hull for a mesh no geom collides with (None)."""
    from ncpgym.models import convex_hull
    from ncpgym.models.hull import hull_triangles

    v, _ = box_mesh(1, 1, 1)
    pts = np.vstack([v, [0.5, 0.5, 0.5]])
    tris = convex_hull(pts)
    assert tris.shape == (12, 3) and tris.dtype == np.int32 and 8 not in tris
    corners = pts[tris]
    assert all(np.any(np.all(c == c[0], axis=0) & np.isin(c[0], (0.0, 1.0))) for c in corners)
    area = 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]), axis=1)
    assert area.sum() == pytest.approx(6.0, rel=1e-12)
    assert sorted(np.unique(tris).tolist()) == list(range(8))
    for bad, match in ((pts[:, :2], r"expected \(V >= 4, 3\) vertices, got shape \(9, 2\)"),
                       (pts[:3], r"got shape \(3, 3\)"), (np.vstack([v, [np.nan, 0, 0]]), "^convex_hull: non-finite vertex$"),
                       (np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.0]]), "convex_hull: .*coplanar")):
        with pytest.raises(ValueError, match=match):
            convex_hull(bad)
    lv, lf = l_mesh()
    xml = f"""<mujoco><asset><mesh name="m" vertex="{_fmt(lv)}" face="{_fmt(lf)}"/></asset>
      <worldbody><geom type="mesh" mesh="m" contype="0" conaffinity="0"/></worldbody></mujoco>"""
    assert hull_triangles(mujoco.MjModel.from_xml_string(xml), 0) is None
    assert hull_triangles(compiled(lv, lf), 0).shape[1] == 3


def test_hull_triangles_of_each_mesh_of_a_model_match_scipys_hull():
    """hull_triangles reads mesh k's hull out of MuJoCo's mesh_graph, where the meshes'
    graphs lie one after another: for each of two random point clouds in one model its
    triangles are the hull SciPy's Qhull finds (same faces as vertex triples), and a
    duplicated vertex stays in the caller's numbering (MuJoCo keeps it; convex_hull relies
    on that to return indices into the caller's array)."""
    from ncpgym.models import convex_hull
    from ncpgym.models.hull import hull_triangles
    from scipy.spatial import ConvexHull

    rng = np.random.default_rng(3)
    clouds = [rng.normal(size=(30, 3)), rng.normal(size=(12, 3)) * [1.0, 2.0, 0.5]]
    assets = "".join(f'<mesh name="m{k}" vertex="{_fmt(c)}"/>' for k, c in enumerate(clouds))
    geoms = "".join(f'<geom type="mesh" mesh="m{k}"/>' for k in range(len(clouds)))
    mj = mujoco.MjModel.from_xml_string(f"<mujoco><asset>{assets}</asset><worldbody>{geoms}</worldbody></mujoco>")
    for k, c in enumerate(clouds):
        ours = {frozenset(t) for t in hull_triangles(mj, k).tolist()}
        assert ours == {frozenset(t) for t in ConvexHull(c).simplices.tolist()}, k
    tet = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0.0]])
    corners = lambda tris: {frozenset(map(tuple, tet[t])) for t in tris}
    tris = convex_hull(tet)
    assert len(tris) == 4 and corners(tris) == corners(ConvexHull(tet[:4]).simplices)


def test_a_failing_decomposition_reports_the_mesh_and_the_childs_last_words(monkeypatch):
    """The child interpreter's failure: a RuntimeError naming the mesh's size and ending
    with the last 2000 characters of what the child wrote to stderr."""
    v, f = box_mesh(0.1, 0.2, 0.3)
    monkeypatch.setattr(decompose, "_CHILD", "import sys; sys.stderr.write('x' * 3000 + 'boom'); sys.exit(3)")
    with pytest.raises(RuntimeError) as e:
        decompose._decompose_in_child(v, f, 0.05)
    head, tail = str(e.value).split("\n", 1)
    assert head == "CoACD failed on a mesh of 8 vertices and 12 triangles:"
    assert tail == ("x" * 3000 + "boom")[-2000:]


def test_without_coacd_the_error_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "coacd", None)
    with pytest.raises(ImportError) as e:
        decompose._import_coacd()
    assert str(e.value) == ("convex decomposition of concave meshes needs the coacd package: pip install "
                            "ncpgym[decompose] (or load with convex_decomposition='hull')")
