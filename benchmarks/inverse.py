"""Inverse control of soft robots (issue 22; inverse-qp-soft-robots.txt, ncpgym.control).

    pip install proxsuite osqp   # the peers (DAQP is ncpgym's dependency)
    python benchmarks/inverse.py --json benchmarks/results/inverse.json

"qp_solvers": the QP of eq. 5 (dense, box bounds) solved by DAQP, ProxQP (proxsuite) and
OSQP, median microseconds per solve over 500 solves, for random problems of 3, 7 and 21
actuators (9 effector coordinates) and for the pressure finger's own problem (7 chambers,
two tip effectors), with each solver's largest distance from DAQP's solution. This is how
ncpgym chose DAQP.

"inverse_finger": the pressure-actuated PneuNet finger (ncpgym.envs.pneunet.add_pressure_
finger, 1110 tetrahedra, 7 chambers, h = 0.02 s, quasi-static) tracking four targets round a
loop (20 control steps each): physics ms per plain step, controller ms per control step (the
free step, the projection, the QP, the step again), QP iterations, the final tracking error,
and the real-time factor h / (controller wall time per step). SOFA reports real-time inverse
control of such fingers; ncpgym is real time when that factor is >= 1.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

import ncpgym
from ncpgym.control import PressureActuator, SoftInverse
from ncpgym.envs import pneunet
from ncpgym.envs.pneunet import settle


def finger():
    return pneunet.pressure_finger()


def qp_rows(problems, repeats=500):
    import daqp

    solvers = {"daqp": None}
    try:
        import proxsuite

        solvers["proxqp"] = proxsuite
    except ImportError:
        pass
    try:
        import osqp
        import scipy.sparse as sp

        solvers["osqp"] = (osqp, sp)
    except ImportError:
        pass
    rows = []
    for name, (H, f, lo, hi) in problems.items():
        n = len(f)
        ref, _, _, _ = daqp.solve(H, f, np.zeros((0, n)), hi, lo)
        for solver in solvers:
            def run():
                if solver == "daqp":
                    return daqp.solve(H, f, np.zeros((0, n)), hi, lo)[0]
                if solver == "proxqp":
                    qp = proxsuite.proxqp.dense.QP(n, 0, 0, True)
                    qp.init(H, f, None, None, None, None, None, lo, hi)
                    qp.solve()
                    return qp.results.x
                o, sp = solvers["osqp"]
                m = o.OSQP()
                m.setup(sp.csc_matrix(H), f, sp.eye(n, format="csc"), lo, hi, verbose=False, eps_abs=1e-9, eps_rel=1e-9)
                return m.solve().x
            reps = repeats if solver != "osqp" else repeats // 5
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                x = run()
                times.append(time.perf_counter() - t0)
            rows.append({"problem": name, "actuators": n, "solver": solver, "us_per_solve": 1e6 * statistics.median(times),
                         "max_diff_from_daqp": float(np.abs(np.asarray(x) - ref).max())})
    return rows


def finger_problem():
    """The QP of the finger's first control step towards a reachable target, as SoftInverse
    hands it to DAQP (scaled to a unit diagonal)."""
    model, tips = finger()
    sim = ncpgym.Simulator(model)
    sim.activation[:] = 1.2e4
    settle(sim, 30)
    target = sim.x[tips].copy()
    sim = ncpgym.Simulator(model)
    settle(sim, 20)
    ctl = SoftInverse(model, tips, [PressureActuator(g, 0.0, 2.5e4) for g in range(7)])
    xf, W, Waa = ctl._project(sim, ctl.actuation, batched=False)
    H, f, lo, hi, _ = ctl._qp_problem(W, Waa, (xf - target).ravel(), ctl.lo - ctl.actuation, ctl.hi - ctl.actuation)
    return H, f, lo, hi


def inverse_finger_row(solver):
    model, tips = finger()
    targets = pneunet.loop_targets(model, tips)
    sim = ncpgym.Simulator(model)
    settle(sim, 20)
    t0 = time.perf_counter()
    for _ in range(20):
        sim.step()
    physics = (time.perf_counter() - t0) / 20
    sim = ncpgym.Simulator(model)
    settle(sim, 20)
    ctl = SoftInverse(model, tips, [PressureActuator(g, 0.0, 2.5e4) for g in range(7)], solver=solver,
                      quasi_static=True, max_change=3e3)
    times, iters, errors = [], [], []
    for target in targets:
        for _ in range(20):
            t0 = time.perf_counter()
            res = ctl.step(sim, target)
            times.append(time.perf_counter() - t0)
            iters.append(res.iterations)
        errors.append(float(res.error.max()))
    control = statistics.median(times)
    return {"scene": "inverse_finger", "solver": solver, "tets": model.ntet, "chambers": 7, "timestep": model.timestep,
            "physics_ms_per_step": 1e3 * physics, "controller_ms_per_step": 1e3 * control,
            "qp_iterations_median": float(np.median(iters)), "final_error_mm": [1e3 * e for e in errors],
            "realtime_factor": model.timestep / control}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=Path("benchmarks/results/inverse.json"))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    problems = {}
    for n in (3, 7, 21):
        W = rng.normal(size=(9, n))
        A = rng.normal(size=(n, n))
        H = W.T @ W + 1e-3 * (A @ A.T + 0.1 * np.eye(n))
        problems[f"random_{n}"] = (H, W.T @ rng.normal(size=9) * 10, np.zeros(n), np.ones(n))
    problems["pressure_finger"] = finger_problem()
    out = {"qp_solvers": qp_rows(problems), "inverse_finger": [inverse_finger_row(s) for s in ("qp", "gs")]}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1))
    print(f"{'problem':16s} {'n':>3s} {'solver':8s} {'us':>8s} {'diff':>9s}")
    for r in out["qp_solvers"]:
        print(f"{r['problem']:16s} {r['actuators']:3d} {r['solver']:8s} {r['us_per_solve']:8.1f} {r['max_diff_from_daqp']:9.1e}")
    for r in out["inverse_finger"]:
        print(f"inverse_finger ({r['solver']}): physics {r['physics_ms_per_step']:.1f} ms/step, controller "
              f"{r['controller_ms_per_step']:.1f} ms/step, QP iterations {r['qp_iterations_median']:.0f}, final errors "
              f"{', '.join(f'{e:.4f}' for e in r['final_error_mm'])} mm, real-time factor {r['realtime_factor']:.2f}")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
