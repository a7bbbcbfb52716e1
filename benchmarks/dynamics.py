"""Runtime of the O(n) dynamics against the seed's study (Krög et al. §6) and
against Pinocchio, one world on one thread.

    python benchmarks/dynamics.py --json benchmarks/results/dynamics.json

Cases: n-link chains (n = 1, 5, 10, 20, 50), single input (last joint) and fully
actuated (Table 1 of the seed), and Gymnasium's humanoid.xml with 8 contact points on the
feet and hands plus every joint torque as inputs (§6.2). Columns, median microseconds per
call:
  fd_us          O(n) forward dynamics (ABA)
  iim_us         forward dynamics + M^-1 B by the Implicit Inversion Method (the seed's
                 timing: accelerations and the IWIM together)
  iim_minv_b_us  M^-1 B alone by the IIM (configuration pass + the two sweeps), the
                 like-for-like counterpart of pin_minv_b_us
  eufm_us        M^-1 B by the extended unit force method (inputs + 1 ABA passes)
  pin_aba_us     pinocchio::aba
  pin_minv_b_us  pinocchio::computeMinverse followed by the product with B
Both engines are timed by a C++ loop (ncpgym: _core.bench_dynamics; Pinocchio:
benchmarks/pin_bench, compiled against the headers and libraries the `pin` wheel ships).
If pin_bench cannot be built, Pinocchio is timed through its Python bindings and the
JSON says so ("pin_timing": "python", with the binding's empty-call overhead).
"""

from __future__ import annotations

import os

# NumPy's OpenBLAS threads busy-wait after a call and steal the core being timed.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import importlib.metadata as md
import importlib.util
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np

import ncpgym
from ncpgym import _core
from ncpgym import dynamics as dyn

ROOT = Path(__file__).resolve().parents[1]
PIN_BENCH_BUILD = ROOT / "build" / "pin_bench"


def chain_mjcf(n: int) -> str:
    """n-link pendulum: unit links along -z, hinges about y, explicit inertials."""
    body = ""
    for i in range(n, 0, -1):
        pos = "0 0 0" if i == 1 else "0 0 -1"
        body = (f'<body name="l{i}" pos="{pos}"><joint name="j{i}" type="hinge" axis="0 1 0"/>'
                f'<inertial pos="0 0 -0.5" mass="1" diaginertia="0.084 0.084 0.001"/>{body}</body>')
    return f'<mujoco model="chain{n}"><compiler angle="radian"/><worldbody>{body}</worldbody></mujoco>'


def humanoid_path() -> Path:
    spec = importlib.util.find_spec("gymnasium.envs.mujoco")
    if spec is None:
        sys.exit("needs gymnasium for humanoid.xml: pip install gymnasium")
    return Path(spec.submodule_search_locations[0]) / "assets" / "humanoid.xml"


# 8 contact points (body, offset in the body frame): three under each foot sphere, one per hand.
HUMANOID_CONTACTS = [
    ("right_foot", (0.0, 0.0, -0.075)), ("right_foot", (0.05, 0.0, -0.06)),
    ("right_foot", (-0.05, 0.0, -0.06)), ("left_foot", (0.0, 0.0, -0.075)),
    ("left_foot", (0.05, 0.0, -0.06)), ("left_foot", (-0.05, 0.0, -0.06)),
    ("right_lower_arm", (0.18, 0.18, 0.18)), ("left_lower_arm", (0.18, -0.18, 0.18)),
]


def humanoid_case(rng):
    """ncpgym model with contact sites, state, and B = [J_a^T, J_c^T] (torques, forces)."""
    spec = mujoco.MjSpec.from_file(str(humanoid_path()))
    for k, (body, pos) in enumerate(HUMANOID_CONTACTS):
        spec.body(body).add_site(name=f"contact{k}", pos=list(pos))
    mjm = spec.compile()
    m = ncpgym.models.from_mujoco(mjm)
    q = m.qpos0.copy()
    q[7:] += rng.uniform(-0.3, 0.3, m.nq - 7)
    Ja_T = np.zeros((m.nv, m.nu))
    for a in range(m.nu):
        Ja_T[m.jnt_dofadr[m.actuator_joint[a]], a] = m.actuator_gear[a]
    Jc_T = np.concatenate([dyn.site_jacobian(m, q, f"contact{k}")[:3].T
                           for k in range(len(HUMANOID_CONTACTS))], axis=1)
    return m, q, np.concatenate([Ja_T, Jc_T], axis=1)


def build_pin_bench() -> Path | None:
    exe = PIN_BENCH_BUILD / "pin_bench"
    if exe.exists():
        return exe
    try:
        prefix = Path(str(md.distribution("libpinocchio").locate_file("cmeel.prefix")))
    except md.PackageNotFoundError:
        return None
    print("building benchmarks/pin_bench against the pin wheel (first run only, ~2 min) ...",
          flush=True)
    try:
        subprocess.run(["cmake", "-S", str(ROOT / "benchmarks" / "pin_bench"), "-B",
                        str(PIN_BENCH_BUILD), f"-DPIN_PREFIX={prefix}"], check=True,
                       capture_output=True)
        subprocess.run(["cmake", "--build", str(PIN_BENCH_BUILD)], check=True, capture_output=True)
    except subprocess.CalledProcessError as e:
        print(f"pin_bench did not build; timing Pinocchio through Python\n{e.stderr.decode()[-2000:]}")
        return None
    return exe


def pin_q(m, q):
    """ncpgym/MuJoCo qpos -> Pinocchio configuration (free-flyer quaternion xyzw)."""
    if m.njnt and m.jnt_type[0] == 0:
        return np.concatenate([q[:3], q[4:7], q[3:4], q[7:]])
    return q


def time_pinocchio(exe, pm, q, v, tau, B, reps, rounds):
    if exe is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.bin")
            pm.saveToBinary(path)
            fmt = lambda a: " ".join("%.17g" % x for x in np.ravel(a))
            inp = f"{fmt(q)} {fmt(v)} {fmt(tau)} {B.shape[1]} {fmt(B)}\n"
            out = subprocess.run([str(exe), path, str(reps), str(rounds)], input=inp, text=True,
                                 capture_output=True, check=True).stdout.split()
        return float(out[2]), float(out[3])
    import pinocchio as pin
    pd = pm.createData()

    def med(f):
        ts = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            ts.append((time.perf_counter() - t0) / reps * 1e6)
        return float(np.median(ts))
    aba = med(lambda: pin.aba(pm, pd, q, v, tau))
    minv = med(lambda: pin.computeMinverse(pm, pd, q) @ B)
    return aba, minv


def reps_for(us_estimate, target_s=0.02):
    return int(max(5, min(200000, target_s / (us_estimate * 1e-6))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "dynamics.json")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    import pinocchio as pin

    exe = build_pin_bench()
    rng = np.random.default_rng(0)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        specs = []
        for n in (1, 5, 10, 20, 50):
            path = Path(tmp) / f"chain{n}.xml"
            path.write_text(chain_mjcf(n))
            m = ncpgym.load_model(path)
            q = rng.uniform(-1, 1, m.nq)
            single = np.zeros((m.nv, 1))
            single[-1, 0] = 1.0
            specs.append((f"chain{n}-single", m, path, q, single))
            specs.append((f"chain{n}-full", m, path, q, np.eye(m.nv)))
        hm, hq, hB = humanoid_case(rng)
        specs.append(("humanoid-8contacts", hm, humanoid_path(), hq, hB))

        print(f"{'model':<22}{'nv':>4}{'inputs':>7}{'fd':>9}{'iim':>9}{'eufm':>10}"
              f"{'pin_aba':>9}{'pin_MiB':>9}{'iim_MiB':>9}{'iim/fd':>8}{'eufm/iim':>9}{'fd/pin':>8}"
              f"{'iimMiB/pinMiB':>14}")
        for name, m, path, q, B in specs:
            u = rng.normal(size=m.nv)
            tau = rng.normal(size=m.nv)
            est = _core.bench_dynamics(m, "fd", q, u, tau, B, reps=20, rounds=1)
            r = reps_for(est)
            fd = _core.bench_dynamics(m, "fd", q, u, tau, B, reps=r, rounds=args.rounds)
            iim = _core.bench_dynamics(m, "iim", q, u, tau, B, reps=reps_for(2 * est), rounds=args.rounds)
            minv_b = _core.bench_dynamics(m, "minv_b", q, u, tau, B, reps=reps_for(2 * est),
                                          rounds=args.rounds)
            eufm = _core.bench_dynamics(m, "eufm", q, u, tau, B,
                                        reps=reps_for(est * (B.shape[1] + 1)), rounds=args.rounds)
            pm = pin.buildModelFromMJCF(str(path))
            assert pm.nv == m.nv, (pm.nv, m.nv)
            pa, pmb = time_pinocchio(exe, pm, pin_q(m, q), u, tau, B, r, args.rounds)
            row = dict(model=name, nv=int(m.nv), inputs=int(B.shape[1]), fd_us=fd, iim_us=iim,
                       eufm_us=eufm, pin_aba_us=pa, pin_minv_b_us=pmb, iim_minv_b_us=minv_b)
            cases.append(row)
            print(f"{name:<22}{m.nv:>4}{B.shape[1]:>7}{fd:>9.2f}{iim:>9.2f}{eufm:>10.2f}{pa:>9.2f}"
                  f"{pmb:>9.2f}{minv_b:>9.2f}{iim / fd:>8.2f}{eufm / iim:>9.1f}{fd / pa:>8.2f}"
                  f"{minv_b / pmb:>14.2f}")

    result = {
        "cases": cases,
        "meta": {
            "command": "python benchmarks/dynamics.py --json " + str(args.json),
            "pin_timing": "cpp" if exe is not None else "python",
            "ncpgym": ncpgym.__version__, "pin": md.version("pin"), "mujoco": mujoco.__version__,
            "machine": platform.machine(), "processor": platform.processor(),
            "cpu_count": os.cpu_count(),
            "date": time.strftime("%Y-%m-%d"),
        },
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
