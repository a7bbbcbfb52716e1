"""Convex decomposition of concave meshes at load time (issue 16): an L-shaped bracket and a
cup written as one closed mesh each, loaded with convex_decomposition="hull" / "auto", and
stepped on ncpgym's physics; truths are the analytic resting poses. Also the disk cache
(CoACD runs once per mesh, in a worker process), the error without coacd and option
checking; and coacd never enters the user's process (it breaks a later ray.init)."""

import logging
import sys

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym.models import decompose, from_mujoco, to_mjcf
from concave_meshes import L_DEPTH, L_HEIGHT, L_LONG, L_THICK, _fmt, box_mesh, l_mesh

H = 1 / 120
# open box cup: outer half width, wall, height, floor thickness, chamfer of the rim's inner edge
CUP_A, CUP_WALL, CUP_H, CUP_FLOOR, CUP_CHAMFER = 0.1, 0.015, 0.12, 0.015, 0.005
BALL_R = 0.04


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    """Every test decomposes into its own empty cache, never the user's."""
    monkeypatch.setenv("NCPGYM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "coacd"


@pytest.fixture
def coacd_calls(monkeypatch):
    """Counts CoACD runs (each still runs, in its child interpreter)."""
    calls = []
    real = decompose._decompose_in_child

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(decompose, "_decompose_in_child", counting)
    return calls


def cup_mesh() -> tuple[np.ndarray, np.ndarray]:
    """An open-topped square cup as one closed surface: outer bottom, outer walls, a rim
    sloping down to the inner walls by the chamfer, inner walls and inner floor."""
    a, b = CUP_A, CUP_A - CUP_WALL
    sq = [(-1, -1), (1, -1), (1, 1), (-1, 1)]  # counter-clockwise seen from +z
    rings = [(a, 0.0), (a, CUP_H), (b, CUP_H - CUP_CHAMFER), (b, CUP_FLOOR)]
    v = [(r * x, r * y, z) for r, z in rings for x, y in sq]
    f = [(0, 2, 1), (0, 3, 2), (12, 13, 14), (12, 14, 15)]  # outer bottom, inner floor
    for i in range(4):
        j = (i + 1) % 4
        for r in range(3):  # outer wall, rim, inner wall: ring r to ring r + 1
            p, q = 4 * r, 4 * (r + 1)
            f += [(p + i, p + j, q + j), (p + i, q + j, q + i)]
    return np.array(v, float), np.array(f, np.int32)


def _scene(tmp_path, mesh, name="obj", pos=(0, 0, 0.01), extra="") -> str:
    v, f = mesh
    xml = f"""<mujoco><option timestep="{H!r}"/>
  <asset><mesh name="{name}" vertex="{_fmt(v)}" face="{_fmt(f)}"/></asset>
  <worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="{name}" pos="{_fmt(pos)}"><freejoint/>
      <geom name="{name}" type="mesh" mesh="{name}"/></body>
    {extra}
  </worldbody></mujoco>"""
    path = tmp_path / f"{name}.xml"
    path.write_text(xml)
    return str(path)


def _world_vertices(q7, v) -> np.ndarray:
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, q7[3:7])
    return q7[:3] + v @ R.reshape(3, 3).T


def _mesh_geoms(m) -> int:
    return int(np.sum(np.asarray(m.geom_type) == 7))


@pytest.mark.parametrize("mode", ["hull", "auto"])
def test_l_rests_on_its_long_leg_in_the_analytic_pose(tmp_path, mode):
    """Dropped 1 cm onto the plane in its concave orientation (inner corner up), the L must
    come to rest with its long leg's four bottom corners at z = 0 and its orientation
    unchanged (its centre of mass lies over that face), and not rock."""
    v, f = l_mesh()
    m = ncpgym.load_model(_scene(tmp_path, (v, f), "L"), convex_decomposition=mode)
    if mode == "hull":
        assert _mesh_geoms(m) == 1
    else:
        assert _mesh_geoms(m) >= 2  # CoACD: one part per leg
    sim = ncpgym.Simulator(m)
    bottom = v[v[:, 2] == 0]
    assert len(bottom) == 4
    track = []
    for _ in range(int(round(2.0 / H))):
        sim.step()
        track.append(_world_vertices(sim.q[:7], v))
    track = np.array(track)
    np.testing.assert_allclose(track[-1][v[:, 2] == 0][:, 2], 0.0, atol=1e-3)
    np.testing.assert_allclose(track[-1], v, atol=1e-3)  # resting pose = the mesh as written
    drift = np.abs(track[-int(round(1.0 / H)):] - track[-1]).max()
    assert drift < 1e-4, f"{mode}: the L rocks by {drift:.2e} m in the last second"


def test_convex_box_stays_one_geom_without_coacd(tmp_path, coacd_calls):
    m = ncpgym.load_model(_scene(tmp_path, box_mesh(), "box"))  # auto
    assert _mesh_geoms(m) == 1 and m.nmesh == 1 and not coacd_calls


def test_ball_falls_into_the_decomposed_cup_and_onto_its_hull(tmp_path):
    """A ball dropped over the cup's opening ends on the inner floor when the cup is split
    into convex parts (centre at floor + radius, inside the walls), and on the lid of the
    convex hull (centre at rim + radius) when it is not."""
    ball = (f'<body name="ball" pos="0.01 0.005 0.3"><freejoint/>'
            f'<geom name="ball" type="sphere" size="{BALL_R}"/></body>')
    path = _scene(tmp_path, cup_mesh(), "cup", pos=(0, 0, 0), extra=ball)
    rest = {}
    for mode in ("hull", "auto"):
        m = ncpgym.load_model(path, convex_decomposition=mode)
        sim = ncpgym.Simulator(m)
        sim.step(nsteps=int(round(2.0 / H)))
        cup, centre = sim.q[:3], sim.q[7:10]
        rest[mode] = centre - cup  # the ball may still roll on the flat floor or lid
        assert abs(sim.u[8]) < 1e-3, f"{mode}: the ball still bounces, u = {sim.u}"
        if mode == "auto":
            assert _mesh_geoms(m) >= 5  # floor and four walls at least
    inner = CUP_A - CUP_WALL
    assert rest["auto"][2] < CUP_H and np.all(np.abs(rest["auto"][:2]) < inner - BALL_R + 1e-3)
    assert rest["auto"][2] == pytest.approx(CUP_FLOOR + BALL_R, abs=1e-3)
    assert rest["hull"][2] == pytest.approx(CUP_H + BALL_R, abs=1e-3)


def test_parts_export_to_mjcf_with_the_geom_pose(tmp_path):
    """Each part is a geom on the cup's body with the cup geom's pose and contact bits;
    to_mjcf writes them and MuJoCo compiles the result."""
    path = _scene(tmp_path, cup_mesh(), "cup", pos=(0, 0, 0))
    m = ncpgym.load_model(path)
    mj = mujoco.MjModel.from_xml_path(path)
    parts = [g for g in range(m.ngeom) if m.geom_names[g].startswith("cup/part")]
    assert len(parts) == _mesh_geoms(m) == m.nmesh >= 5
    for g in parts:
        assert m.geom_body[g] == 1
        np.testing.assert_allclose(m.geom_pos[g], mj.geom_pos[1])
        np.testing.assert_allclose(m.geom_quat[g], mj.geom_quat[1])
        assert len(m.mesh_vertices(m.geom_mesh[g])) <= decompose.MAX_PART_VERTICES
    exported = mujoco.MjModel.from_xml_string(to_mjcf(m))
    assert exported.ngeom == m.ngeom and exported.nmesh == m.nmesh


def test_second_load_reads_the_cache(tmp_path, cache_dir, coacd_calls, caplog):
    path = _scene(tmp_path, l_mesh(), "L")
    with caplog.at_level(logging.INFO, logger="ncpgym"):
        first = ncpgym.load_model(path)
        assert len(coacd_calls) == 1 and "cache miss" in caplog.text
        assert len(list(cache_dir.glob("*.npz"))) == 1
        second = ncpgym.load_model(path)
    assert len(coacd_calls) == 1, "the second load ran CoACD again"
    assert "mesh 'L': 2 convex parts" in caplog.text and "cache hit" in caplog.text
    assert first.nmesh == second.nmesh >= 2
    for i in range(first.nmesh):  # the same parts, bit for bit
        np.testing.assert_array_equal(first.mesh_vertices(i), second.mesh_vertices(i))
    (entry,) = cache_dir.glob("*.npz")
    entry.write_bytes(entry.read_bytes()[:100])  # a damaged entry is decomposed again
    ncpgym.load_model(path)
    assert len(coacd_calls) == 2 and not list(cache_dir.glob("*.tmp"))
    ncpgym.load_model(path, coacd_threshold=0.1)  # other settings, other key
    assert len(coacd_calls) == 3 and len(list(cache_dir.glob("*.npz"))) == 2


def test_without_coacd_concave_meshes_ask_for_the_extra(tmp_path, monkeypatch):
    import importlib.metadata as md

    real_version = md.version
    monkeypatch.setattr(md, "version", lambda name: real_version(name) if name != "coacd" else (_ for _ in ()).throw(
        md.PackageNotFoundError(name)))
    monkeypatch.setitem(sys.modules, "coacd", None)  # import coacd raises ImportError
    path = _scene(tmp_path, l_mesh(), "L")
    with pytest.raises(ImportError, match=r"pip install ncpgym\[decompose\]"):
        ncpgym.load_model(path)
    assert _mesh_geoms(ncpgym.load_model(path, convex_decomposition="hull")) == 1
    assert _mesh_geoms(ncpgym.load_model(_scene(tmp_path, box_mesh(), "box"))) == 1


def test_open_surfaces_keep_their_hull_under_auto(tmp_path, coacd_calls):
    """A surface with a hole has no enclosed volume: "auto" keeps its hull ("all" would
    decompose it)."""
    v, f = l_mesh()
    xml = _scene(tmp_path, (v, f[:-1]), "L").replace("<freejoint/>", "")
    mj = mujoco.MjModel.from_xml_string(open(xml).read())
    assert not decompose.is_closed(decompose.mesh_arrays(mj, 0)[1])
    assert _mesh_geoms(from_mujoco(mj)) == 1 and not coacd_calls


def test_bad_option_names_the_valid_values(tmp_path):
    path = _scene(tmp_path, box_mesh(), "box")
    for bad in ("convex", "Hull", None):
        with pytest.raises(ValueError, match="'auto', 'hull', 'all'"):
            ncpgym.load_model(path, convex_decomposition=bad)
    with pytest.raises(ValueError, match="'auto', 'hull', 'all'"):
        from_mujoco(mujoco.MjModel.from_xml_path(path), convex_decomposition="none")
    for bad in (0.0, -0.1, 2.0):
        with pytest.raises(ValueError, match=r"coacd_threshold must be in \(0, 1\]"):
            ncpgym.load_model(path, coacd_threshold=bad)


def test_decomposition_keeps_coacd_out_of_the_process(tmp_path):
    """Loading a concave mesh runs CoACD in a child interpreter: importing coacd here would
    make a later ray.init abort (std::regex_error between the two C++ runtimes). Also from a
    user's script without an ``if __name__ == "__main__"`` guard (a multiprocessing "spawn"
    worker re-runs such a script and failed with BrokenProcessPool)."""
    import subprocess

    path = _scene(tmp_path, l_mesh(), "L")
    script = tmp_path / "user_script.py"
    script.write_text("import sys, ncpgym\nm = ncpgym.load_model(sys.argv[1])\n"
                      "assert 'coacd' not in sys.modules, 'coacd was imported'\nprint(m.ngeom)\n")
    r = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True,
                       env={**__import__("os").environ, "NCPGYM_CACHE_DIR": str(tmp_path / "c")})
    assert r.returncode == 0, r.stderr[-2000:]
    assert int(r.stdout.split()[-1]) > 2  # decomposed into parts


def test_a_forked_process_decomposes_too(tmp_path):
    """A process forked after a decomposition (multiprocessing's fork start method, a test
    runner) decomposes a new mesh itself; a worker pool inherited through fork() hung."""
    from forking import in_forked_child

    v, f = l_mesh()
    assert len(decompose.convex_parts(v, f, 0.05)[0]) >= 2
    parts, cached = in_forked_child(lambda: decompose.convex_parts(2 * v, f, 0.05), timeout=60)
    assert not cached and len(parts) >= 2
    np.testing.assert_allclose(np.vstack(parts).max(0) - np.vstack(parts).min(0), 2 * (v.max(0) - v.min(0)), atol=1e-6)


def test_decompose_geoms_splits_only_the_named_mesh(tmp_path):
    """Under "hull", a geom named in decompose_geoms is split (the L's two legs) and the
    other geom of the same mesh keeps its one hull; a name that is no mesh geom is refused."""
    v, f = l_mesh()
    other = '<body name="L2" pos="0.5 0 0.01"><freejoint/><geom name="L2" type="mesh" mesh="L"/></body>'
    path = _scene(tmp_path, (v, f), "L", extra=other)
    whole = ncpgym.load_model(path, convex_decomposition="hull")
    split = ncpgym.load_model(path, convex_decomposition="hull", decompose_geoms=["L"])
    assert _mesh_geoms(whole) == 2
    body_of_mesh_geoms = np.asarray(split.geom_body)[np.asarray(split.geom_type) == 7]
    assert np.sum(body_of_mesh_geoms == 2) == 1 and np.sum(body_of_mesh_geoms == 1) >= 2
    for bad in ("floor", "nothing"):
        with pytest.raises(ValueError, match=f"decompose_geoms: '{bad}' is not a mesh geom"):
            ncpgym.load_model(path, decompose_geoms=[bad])
