"""Hand-written one-line mutants of the C++ core (issue 14: collision, the refresh, the
element compliances; issue 61: the row kinds and features MuJoCo's models needed), each built into a scratch copy of the source and run against the
tests that should catch it; prints KILLED or SURVIVED per mutant and writes a JSON summary.
Not in CI (a build and the tests per mutant: 30 s to 2 minutes each on 2 cores).

    python scripts/mutants_cpp.py [--only NAME ...] [--json benchmarks/results/mutants_cpp.json]

The scratch copy is `git archive HEAD` (commit first), configured like the editable
install (pybind11, Eigen from cmeel, ccache) and built with the GoogleTest suite; the
Python tests import a scratch package holding the mutated extension module.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutant_runner import write_runner
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
C = "cpp/ncpgym/collision/"

# (file, original text, mutated text, name, gtest filter, pytest files)
CONVEX_PY = ["test_convex_collision.py"]
M = [
    (C + "convex.cpp", "if (vv - v.dot(w.w) <= 1e-13 * vv) return false;",
     "if (vv - v.dot(w.w) <= 1e-3 * vv) return false;", "GJK stops early", "Convex*", CONVEX_PY),
    (C + "convex.cpp", "if (!flat && sp * so > 0) continue;", "if (sp * so > 0) continue;",
     "GJK takes a flat tetrahedron as holding the origin", "Convex*", CONVEX_PY),
    (C + "convex.cpp", "      const Vec3 vw = w.w - v;\n      const double t = std::min(1.0, -v.dot(vw) / vw.squaredNorm());",
     "      const Vec3 vw = w.w - v;\n      const double t = 0 * std::min(1.0, -v.dot(vw) / vw.squaredNorm());",
     "GJK without the Frank-Wolfe fallback", "Convex*", CONVEX_PY),
    (C + "convex.cpp", "if (rad > 1e-300) p.head<2>() = size[0] / rad * l.head<2>();",
     "if (rad > 1e-300) p.head<2>() = size[0] / std::abs(l.x() + l.y()) * l.head<2>();",
     "cylinder support off the rim", "Convex*", CONVEX_PY),
    (C + "convex.cpp", "const double tol = 1e-10 * scale;", "const double tol = 1e-3 * scale;",
     "EPA stops early", "Convex*", CONVEX_PY),
    (C + "convex_contact.cpp", "const double kCosFace = std::cos(3 * M_PI / 180);",
     "const double kCosFace = std::cos(30 * M_PI / 180);", "face contact within 30 degrees", "Narrowphase*:Convex*",
     CONVEX_PY + ["test_contact_scenes.py"]),
    (C + "convex_contact.cpp", "const Vec3 side = (ref[(i + 1) % ref.size()] - ref[i]).cross(m);",
     "const Vec3 side = m.cross(ref[(i + 1) % ref.size()] - ref[i]);", "clip planes face inwards",
     "Narrowphase*:Convex*", CONVEX_PY + ["test_soft_contact.py"]),
    (C + "convex_contact.cpp", "      pts.push_back(S.pos - S.size[1] * axis);\n      pts.push_back(S.pos + S.size[1] * axis);\n      return;\n    }\n    case CoreKind::Cylinder:",
     "      pts.push_back(S.support(d));\n      return;\n    }\n    case CoreKind::Cylinder:",
     "capsule feature: one end only", "Narrowphase*:Convex*", CONVEX_PY),
    (C + "narrowphase.cpp", "for (int v : hull.faces[hull.face_around(low, down)].verts) {",
     "for (int v = 0; v < static_cast<int>(hull.vert.size()); ++v) {", "mesh-plane: every vertex in the margin",
     "Narrowphase*", CONVEX_PY),
    (C + "narrowphase.cpp", "if (h < margin) push(out, pt, pt - h * n, n, rr, 0.0);",
     "if (h < margin) push(out, pt, pt - h * n, n, 0.0, 0.0);", "cylinder on a plane: material rim points",
     "Narrowphase*", CONVEX_PY),
    ("cpp/ncpgym/model/hull.hpp", "      if (c > bc) {\n        bc = c;\n        best = vface[k];",
     "      if (c < bc) {\n        bc = c;\n        best = vface[k];", "face_around picks the worst face",
     "Narrowphase*:Convex*", CONVEX_PY),
    (C + "soft_contact.cpp", "emit(X, rad, y, w, -nt, h - rad, true);", "emit(X, rad, y, w, -nt, h - rad, false);",
     "clipped soft points obey edge ownership", "Soft*", ["test_soft_contact.py"]),
    (C + "soft_contact.cpp", "if (h - rad < -deep) continue;", "if (h - rad < 0) continue;",
     "soft clipped points dropped once inside", "Soft*", ["test_soft_contact.py"]),
    (C + "broadphase.cpp", "std::sort(pairs.begin(), pairs.end());", "(void)0;",
     "broad phase pairs unsorted", "Narrowphase*", ["test_golden_trajectories.py", "test_convex_collision.py"]),
    ("cpp/ncpgym/solver/refresh.cpp", "if (f.dist - opt_.thickness - f.margin > -opt_.refresh_depth) continue;", "continue;",
     "refresh never adds", "Narrowphase*", CONVEX_PY),
    ("cpp/ncpgym/solver/refresh.cpp", "cover = std::min(cover, 0.25 * inner_radius(m, g));",
     "cover = std::min(cover, 25 * inner_radius(m, g));", "refresh covers everything", "Narrowphase*", CONVEX_PY),
    ("cpp/ncpgym/constraints/tet_linear.cpp", "rows.E[r] = k == 0 ? 1.0 / (3.0 * K * V) : 1.0 / (2.0 * mu * V);",
     "rows.E[r] = k == 0 ? 1.0 / (2.0 * mu * V) : 1.0 / (2.0 * mu * V);", "tet bulk compliance from mu",
     "Soft*", ["test_soft_physics.py"]),
    ("cpp/ncpgym/builder/hull.cpp", "if ((c.n - nrm).norm() < 1e-6 && std::abs(c.d - d) < 1e-9 * s) g = &c;",
     "if (false) g = &c;",
     "hull faces not merged", "Convex*:Narrowphase*", CONVEX_PY),
]

# issue 61: the row kinds and features MuJoCo's models needed (Python tests only: "-*" runs
# no GoogleTest)
K = "cpp/ncpgym/constraints/"
TENDON_PY = ["test_tendons.py", "test_spatial_tendons.py"]
M += [
    (K + "spin_roll_rows.cpp", "add_rotation_row(m, d, k.body2, dirs[i], -1.0, rows.J);",
     "add_rotation_row(m, d, k.body2, dirs[i], 1.0, rows.J);", "torsion rows: body 2 turns the same way", "-*",
     ["test_contact_parameters.py"]),
    (K + "ncp.hpp", "W[i] = Wt / (mu[i] * mu[i]);", "W[i] = Wt;", "elliptic cone ignores the coefficients", "-*",
     ["test_contact_parameters.py"]),
    (K + "dry_friction_rows.cpp", "if (m.dof_frictionloss[d] > 0) *bound++ = m.dof_frictionloss[d];",
     "if (m.dof_frictionloss[d] > 0) *bound++ = 2 * m.dof_frictionloss[d];", "dry friction bound doubled", "-*",
     ["test_dof_friction.py"]),
    (K + "limit_rows.cpp", "add_tendon_row(m, d, t, lower ? 1.0 : -1.0, rows.J);", "add_tendon_row(m, d, t, 1.0, rows.J);",
     "tendon upper limit pushes the wrong way", "-*", TENDON_PY),
    (K + "limit_rows.cpp", "out.slack.push_back(recover > 0 && -c > recover ? -c - recover : 0.0);",
     "out.slack.push_back(recover > 0 && -c > recover ? -c + recover : 0.0);", "limit recovery overshoots", "-*",
     ["test_depenetration.py"]),
    (K + "equality_rows.cpp", "if (o2 >= 0) add_tendon_row(m, d, o2, -slope, rows.J);",
     "if (o2 >= 0) add_tendon_row(m, d, o2, slope, rows.J);", "tendon coupling's second tendon sign", "-*", TENDON_PY),
    (K + "equality_rows.cpp", "for (int k = 0; r0 + k < r; ++k) rows.C[r0 + k] -= slack[k];",
     "for (int k = 0; r0 + k < r; ++k) rows.C[r0 + k] += slack[k];", "equality recovery slack sign", "-*",
     ["test_equality.py"]),
    ("cpp/ncpgym/dynamics/tendon.hpp", "      w = 1.0 / m.tendon_coef[k++];", "      w = 1.0;\n      ++k;",
     "pulley divisor ignored", "-*", TENDON_PY),
    ("cpp/ncpgym/dynamics/tendon.hpp", "fn(j, scale * w * e.dot(point_velocity(d, j, b)));",
     "fn(j, scale * w * e.dot(d.cdof.col(j).tail<3>()));", "spatial tendon Jacobian at the origin", "-*", TENDON_PY),
    ("cpp/ncpgym/dynamics/tendon_wrap.cpp", "if (near.squaredNorm() > r2 && (!side || !ray_crosses(-*side, a, b))) return -1;",
     "if (near.squaredNorm() > r2) return -1;", "wrap ignores a side site behind the circle", "-*",
     ["test_spatial_tendons.py"]),
    ("cpp/ncpgym/dynamics/tendon_wrap.cpp", "r1.z() = q0.z() + (q1.z() - q0.z()) * (L0 + len) / total;",
     "r1.z() = q0.z() + (q1.z() - q0.z()) * L0 / total;", "helix without its rise along the arc", "-*",
     ["test_spatial_tendons.py"]),
    ("cpp/ncpgym/dynamics/actuation.hpp", "if (m.act_type[a] == ActuatorType::Damper) return -m.act_kv[a] * c * g * uj;",
     "if (m.act_type[a] == ActuatorType::Damper) return -m.act_kv[a] * g * uj;", "damper ignores its control", "-*",
     ["test_activation.py"]),
    ("cpp/ncpgym/dynamics/tendon.hpp", "f -= k * (L < lo ? L - lo : L > hi ? L - hi : 0.0);", "f -= k * (L - lo);",
     "tendon spring without its deadband", "-*", TENDON_PY),
    ("cpp/ncpgym/batch/sensors.cpp", "if (c.n1 == 0 && c.body1 > 0) d.force[c.body1] -= w;",
     "if (c.n1 == 0 && c.body1 > 0) d.force[c.body1] += w;", "force sensor: contact force sign", "-*",
     ["test_sensors.py"]),
    ("cpp/ncpgym/batch/sensors.cpp", "d.cvel[b].head<3>().cross(point_velocity_of(d, b, p))", "Vec3::Zero()",
     "accelerometer without the velocity term", "-*", ["test_sensors.py"]),
    ("cpp/ncpgym/dynamics/actuation.hpp", "case ActuatorDyn::Filter: next = x + h * ((c - x) / m.act_dyntau[a]); break;",
     "case ActuatorDyn::Filter: next = x + h * ((c - x) / (2 * m.act_dyntau[a])); break;",
     "activation filter's time constant doubled", "-*", ["test_activation.py"]),
    ("cpp/ncpgym/dynamics/actuation.hpp",
     "return m.act_actlimited[a] ? std::clamp(next, m.act_actrange[2 * a], m.act_actrange[2 * a + 1]) : next;",
     "return next;", "activation range ignored", "-*", ["test_activation.py"]),
    (C + "filter.cpp", "while (b != 0 && m.body_jntnum[b] == 0) b = m.body_parent[b];", "(void)m;",
     "filter without welded groups", "-*", ["test_contact_parameters.py"]),
    ("cpp/ncpgym/dynamics/fluid.hpp", "const double area_max = kPi * r_max * r_mid;",
     "const double area_max = 4 * kPi * r_max * r_min;", "ellipsoid fluid: the text's A_max", "-*", ["test_fluid.py"]),
    ("cpp/ncpgym/dynamics/fluid.hpp", "f += c_kutta * density * area * u.dot(n) * n.cross(v).cross(v);",
     "f += c_kutta * density * area * u.dot(n) * v.cross(n).cross(v);", "Kutta lift reversed", "-*", ["test_fluid.py"]),
    ("cpp/ncpgym/dynamics/fluid.hpp", "f += p_lin.cross(w);", "f += w.cross(p_lin);", "added-mass force reversed", "-*",
     ["test_fluid.py"]),
    ("cpp/ncpgym/dynamics/passive.cpp", "if (!m.body_fluid_ellipsoid.empty() && m.body_fluid_ellipsoid[b]) continue;",
     "", "inertia box kept beside the ellipsoids", "-*", ["test_fluid.py"]),
]


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True, text=True, **kw)


def configure(scratch: Path) -> Path:
    src = scratch / "src"
    src.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pybind = sh([sys.executable, "-m", "pybind11", "--cmakedir"]).stdout.strip()
    build = scratch / "build"
    r = sh(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
            "-DSKBUILD=2", f"-Dpybind11_DIR={pybind}", f"-DPython_EXECUTABLE={sys.executable}",
            "-DNCPGYM_BUILD_TESTS=ON"])
    if r.returncode:
        sys.exit(r.stdout + r.stderr)
    return src


def build(scratch: Path) -> bool:
    r = sh(["cmake", "--build", str(scratch / "build"), "-j2"])
    if r.returncode:
        print(r.stdout[-2000:], r.stderr[-2000:])
    return r.returncode == 0


def package(scratch: Path, src: Path) -> Path:
    """A scratch package: the committed Python sources and the freshly built module."""
    pkg = scratch / "pkg"
    shutil.rmtree(pkg, ignore_errors=True)
    shutil.copytree(src / "python" / "ncpgym", pkg / "ncpgym")
    so = next((scratch / "build").glob("_core*.so"))
    shutil.copy(so, pkg / "ncpgym" / so.name)
    return pkg


def run_tests(scratch: Path, src: Path, gtest: str, pyfiles: list[str]) -> tuple[bool, str]:
    """True when a test fails (the mutant is killed)."""
    r = sh([str(scratch / "build" / "tests" / "cpp" / "ncpgym_tests"), f"--gtest_filter={gtest}"])
    if r.returncode:
        return True, "gtest"
    pkg = package(scratch, src)
    runner = write_runner(scratch / "run_pytest.py", pkg)
    r = sh([sys.executable, runner, "-x", "-q", "-p", "no:cacheprovider", *pyfiles],
           cwd=str(src / "tests" / "python"))
    if r.returncode not in (0, 1):
        raise RuntimeError(f"pytest could not run ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r.returncode == 1, "pytest" if r.returncode == 1 else ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only the mutants whose name contains one of these")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "mutants_cpp.json")
    args = ap.parse_args(argv)
    chosen = [mu for mu in M if not args.only or any(o in mu[3] for o in args.only)]
    scratch = Path(tempfile.mkdtemp(prefix="ncpgym-cpp-mutants-"))
    t0 = time.time()
    src = configure(scratch)
    print(f"building the unmutated copy in {scratch} ...", flush=True)
    if not build(scratch):
        sys.exit("the unmutated copy does not build")
    results = []
    for f, old, new, name, gtest, pyfiles in tqdm(chosen, unit="mutant"):
        path = src / f
        text = path.read_text()
        if text.count(old) != 1:
            sys.exit(f"mutant {name!r}: the original text occurs {text.count(old)} times in {f}")
        path.write_text(text.replace(old, new))
        try:
            built = build(scratch)
            killed, by = (True, "compile") if not built else run_tests(scratch, src, gtest, pyfiles)
        finally:
            path.write_text(text)
        results.append(dict(name=name, file=f, killed=killed, by=by))
        tqdm.write(f"{'KILLED  ' if killed else 'SURVIVED'} {name} ({f}{', by ' + by if by else ''})")
    killed = sum(r["killed"] for r in results)
    print(f"{killed} of {len(results)} killed in {(time.time() - t0) / 60:.1f} min")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    commit = sh(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]).stdout.strip()
    args.json.write_text(json.dumps({"command": "python scripts/mutants_cpp.py", "commit": commit,
                                     "killed": killed, "total": len(results), "mutants": results}, indent=1) + "\n")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
