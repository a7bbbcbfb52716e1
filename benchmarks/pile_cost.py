"""Where the 50-body pile's step time goes, against MuJoCo's in the same run (issue 16's
figure "pile <= 2x MuJoCo's us/step").

Two measurements, one thread, h = 1/120, the pile of benchmarks/contact_scenes.py (seed 0):

1. Phases. The 6 s drop timed step by step for ncpgym at its defaults (8 Newton / 50 linear
   iterations), at the seed's Table 2 counts for piles (4 / 20) and at 3 / 10, and for
   MuJoCo at its defaults, split into the fall (0-0.5 s: few contacts), the impacts and
   settling (0.5-3 s) and the settled pile (3-6 s); per phase the mean time, Newton
   iterations and linear iterations (products J H^-1 J^T x) per step, and for the whole run
   the transient penetration (deepest contact of any step).
2. The fixed cost of a step. From ncpgym's state at t = 2 s (mid-settling, every iteration
   runs) the same step is repeated (state restored each time) at newton x linear = 1 x 1,
   1 x 50, 8 x 1 and 8 x 50; the fit gives the part of a step that does not depend on the
   iteration counts (collision, rows, warm start, dynamics, one Newton iterate and one
   product), the cost of one more Newton iterate and of one more product. MuJoCo's step is
   timed from its own state at t = 2 s the same way.

The budget line: what 2x MuJoCo's mean step leaves for the solve after the fixed cost, in
products per step, against what each ncpgym setting spends.

    python benchmarks/pile_cost.py --json benchmarks/results/pile_cost.json   # ~10 seconds

Writes the JSON and a plot of the step time over the run (pile_cost.png next to it).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import sys
import time
from pathlib import Path

import mujoco
import numpy as np
from tqdm import tqdm

import ncpgym
from ncpgym.state import restore_simulator, simulator_state

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contact_scenes as cs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
H = cs.H
SECONDS = 6.0
PHASES = {"fall": (0.0, 0.5), "impacts": (0.5, 3.0), "settled": (3.0, 6.0)}
SETTINGS = {"defaults 8x50": {}, "seed 4x20": dict(newton_iterations=4, linear_iterations=20),
            "3x10": dict(newton_iterations=3, linear_iterations=10)}
PROBE_T = 2.0  # s: the state the fixed cost is measured from
REPEATS = 60


def run_ncpgym(opts, probe_step):
    m, q0 = cs.build("pile")
    sim = ncpgym.Simulator(m, **opts)
    sim.q[:] = q0
    n = int(round(SECONDS / H))
    t, newton, linear, contacts = (np.zeros(n) for _ in range(4))
    pen, probe = 0.0, None
    for k in tqdm(range(n), desc=f"ncpgym {opts or 'defaults'}", leave=False):
        if k == probe_step:
            probe = simulator_state(sim)
        t0 = time.perf_counter()
        sim.step()
        t[k] = time.perf_counter() - t0
        s = sim.solver_stats
        newton[k], linear[k] = s["newton_iterations"], sum(s["linear_iterations"])
        d = cs.detected_dist(sim)
        contacts[k] = len(d)
        pen = max(pen, -d.min() if len(d) else 0.0)
    return dict(t=t, newton=newton, linear=linear, contacts=contacts, pen=pen), m, probe


def run_mujoco(probe_step):
    _, q0, mj = cs.mujoco_model("pile", stiff=False)
    mj.opt.timestep = H
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    n = int(round(SECONDS / H))
    t, contacts = np.zeros(n), np.zeros(n)
    pen, probe = 0.0, None
    for k in tqdm(range(n), desc="mujoco", leave=False):
        if k == probe_step:
            probe = (d.qpos.copy(), d.qvel.copy(), d.qacc_warmstart.copy())
        t0 = time.perf_counter()
        mujoco.mj_step(mj, d)
        t[k] = time.perf_counter() - t0
        contacts[k] = d.ncon
        if d.ncon:
            pen = max(pen, -float(d.contact.dist[: d.ncon].min()))
    # the step repeated from the probe state
    reps = []
    for _ in range(REPEATS):
        d.qpos[:], d.qvel[:], d.qacc_warmstart[:] = probe
        t0 = time.perf_counter()
        mujoco.mj_step(mj, d)
        reps.append(time.perf_counter() - t0)
    return dict(t=t, contacts=contacts, pen=pen, probe_us=float(np.median(reps)) * 1e6)


def repeated_step(m, probe, **opts):
    """Median time of the step from `probe` (state restored before each), and its counts."""
    sim = ncpgym.Simulator(m, **opts)
    ts = []
    for _ in range(REPEATS):
        restore_simulator(sim, probe)
        t0 = time.perf_counter()
        sim.step()
        ts.append(time.perf_counter() - t0)
    s = sim.solver_stats
    return float(np.median(ts)) * 1e6, s["newton_iterations"], sum(s["linear_iterations"])


def phase_rows(run):
    rows = {}
    for name, (a, b) in PHASES.items():
        sl = slice(int(round(a / H)), int(round(b / H)))
        row = dict(step_us=float(run["t"][sl].mean() * 1e6), contacts=float(run["contacts"][sl].mean()))
        if "newton" in run:
            row.update(newton=float(run["newton"][sl].mean()), linear=float(run["linear"][sl].mean()))
        rows[name] = row
    rows["all"] = dict(step_us=float(run["t"].mean() * 1e6), max_penetration_m=float(run["pen"]))
    if "newton" in run:
        rows["all"].update(newton=float(run["newton"].mean()), linear=float(run["linear"].mean()))
    return rows


def fixed_cost(m, probe):
    """Step times from the probe state at the four iteration counts, and the fit
    T(N, L) = F + (N - 1) n + (N L - 1) p for N Newton iterates of L products each."""
    times = {}
    for nn, ll in ((1, 1), (1, 50), (8, 1), (8, 50)):
        us, newton, linear = repeated_step(m, probe, newton_iterations=nn, linear_iterations=ll)
        if newton != nn or linear != nn * ll:  # an early exit would make the fit meaningless
            raise RuntimeError(f"the probe step ran {newton} x {linear}, not {nn} x {nn * ll}")
        times[f"{nn}x{ll}"] = us
    per_product = (times["1x50"] - times["1x1"]) / 49
    per_newton = (times["8x1"] - times["1x1"]) / 7 - per_product
    fit_8x50 = times["1x1"] + 7 * per_newton + 399 * per_product
    return dict(times_us=times, fixed_us=times["1x1"], per_newton_us=per_newton, per_product_us=per_product,
                fit_8x50_us=fit_8x50)


def plot(runs, mj, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    w = 12  # a 0.1 s moving mean
    for name, run in runs.items():
        x = np.arange(len(run["t"])) * H
        ax.plot(x[w - 1:], np.convolve(run["t"] * 1e6, np.ones(w) / w, "valid"), label=f"ncpgym {name}")
    x = np.arange(len(mj["t"])) * H
    ax.plot(x[w - 1:], np.convolve(mj["t"] * 1e6, np.ones(w) / w, "valid"), "k", label="MuJoCo defaults")
    ax.axhline(2 * mj["t"].mean() * 1e6, color="k", ls=":", label="2x MuJoCo's mean")
    for a, _ in list(PHASES.values())[1:]:
        ax.axvline(a, color="grey", lw=0.5)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("us per step (0.1 s mean)")
    ax.set_yscale("log")
    ax.set_title("50-body pile, one thread, h = 1/120")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/pile_cost.json")
    args = ap.parse_args(argv)
    probe_step = int(round(PROBE_T / H))
    mj = run_mujoco(probe_step)
    runs, out = {}, {"command": "python benchmarks/pile_cost.py --json benchmarks/results/pile_cost.json"}
    for name, opts in SETTINGS.items():
        run, m, probe = run_ncpgym(opts, probe_step)
        runs[name] = run
        out[name] = phase_rows(run)
        if not opts:
            out["fixed_cost"] = fixed_cost(m, probe)
    out["mujoco"] = phase_rows(mj)
    out["mujoco"]["probe_step_us"] = mj["probe_us"]
    fc, mj_us = out["fixed_cost"], out["mujoco"]["all"]["step_us"]
    out["budget"] = dict(mujoco_step_us=mj_us, two_x_us=2 * mj_us, fixed_over_mujoco=fc["fixed_us"] / mj_us,
                         products_in_budget=(2 * mj_us - fc["fixed_us"]) / fc["per_product_us"])

    print(f"{'setting':<16}{'phase':<10}{'us/step':>9}{'x MuJoCo':>10}{'Newton':>8}{'products':>10}{'contacts':>10}")
    for name in list(SETTINGS) + ["mujoco"]:
        for ph, row in out[name].items():
            if ph == "probe_step_us":
                continue
            ref = out["mujoco"][ph]["step_us"]
            extra = f"   transient {row['max_penetration_m'] * 1e3:.1f} mm" if ph == "all" else ""
            print(f"{name:<16}{ph:<10}{row['step_us']:>9.0f}{row['step_us'] / ref:>10.2f}"
                  f"{row.get('newton', float('nan')):>8.2f}{row.get('linear', float('nan')):>10.1f}"
                  f"{row.get('contacts', float('nan')):>10.1f}{extra}")
    print(f"\nfixed cost from the state at t = {PROBE_T} s: {fc['times_us']} us")
    print(f"  step at 1 x 1 {fc['fixed_us']:.0f} us (MuJoCo's step from its own t = {PROBE_T} s state: "
          f"{mj['probe_us']:.0f} us, its mean {mj_us:.0f}); one more Newton iterate {fc['per_newton_us']:.1f} us, "
          f"one more product {fc['per_product_us']:.2f} us; fit at 8 x 50 {fc['fit_8x50_us']:.0f}")
    b = out["budget"]
    print(f"  2x MuJoCo = {b['two_x_us']:.0f} us/step leaves {b['products_in_budget']:.0f} products per step after "
          f"the fixed cost ({b['fixed_over_mujoco']:.2f}x MuJoCo's mean step)")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1) + "\n")
    png = args.json.with_suffix(".png")
    plot(runs, mj, png)
    print(f"wrote {args.json} and {png}")


if __name__ == "__main__":
    main()
