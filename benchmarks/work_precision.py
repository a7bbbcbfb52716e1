"""Work-precision: wall time per simulated second against the accuracy it buys, for ncpgym
and MuJoCo on the same scenes, sweeping each engine's time step (and ncpgym's Newton
iteration count, MuJoCo's contact settings). The honest speed comparison for a
hard-contact solver: per step MuJoCo is cheaper, but at its defaults its contacts are soft
and it sinks; the question is what each engine costs for a given accuracy.

    python benchmarks/work_precision.py --json benchmarks/results/work_precision.json   # ~6 minutes
    python benchmarks/work_precision.py --scenes humanoid --seconds 2                    # one scene

Scenes (built by benchmarks/contact_scenes.py, MuJoCo runs the same Model exported with
ncpgym.models.to_mjcf, the humanoid Gymnasium's humanoid.xml in both):
  heavy_stack  five boxes of 8 .. 32768 kg; error = deepest overlap between boxes (or
               with the ground) at the end, or the largest horizontal drift if larger
  arch         20 voussoirs of the seed's 15-110 kg; error = largest displacement
  pile         50 boxes and capsules dropped between walls; error = deepest penetration
               of any step (transient)
  humanoid     humanoid.xml dropped, random torques (uniform +-0.4, a new draw every
               1/120 s whatever the time step); error = deepest penetration of any step
Engines: ncpgym (h in 1/30 .. 1/240, newton_iterations in 2, 4, 8; one thread), MuJoCo
"default" (the model's solref/solimp, pyramidal cone) and "stiff" (solref 0.002 1, solimp
0.99 0.999 0.0001, elliptic cone, impratio 10, 10 noslip iterations), h in 1/60 .. 1/3840.
A run that diverges or leaves a body more than 5 cm off is unstable (kept, marked).

Rows: {scene, engine, setting, h, newton_iterations, wall_s_per_sim_s, error_m, stable}.
`summary`: per scene and accuracy (10, 5, 1, 0.1, 0.01 mm), each engine's cheapest stable
setting reaching it. One PNG per scene (error against cost, log-log) next to the JSON.
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

import ncpgym

sys.path.insert(0, str(Path(__file__).resolve().parent))
from contact_scenes import build, measure, mujoco_model  # noqa: E402

SCENES = ("heavy_stack", "arch", "pile", "humanoid")
SECONDS = {"heavy_stack": 4.0, "arch": 4.0, "pile": 3.0, "humanoid": 4.0}
NCP_STEPS = (1 / 30, 1 / 60, 1 / 120, 1 / 240)
NCP_NEWTON = (2, 4, 8)
MJ_STEPS = (1 / 60, 1 / 120, 1 / 240, 1 / 480, 1 / 960, 1 / 1920, 1 / 3840)
TORQUE_DT = 1 / 120  # the humanoid's random torques change at this rate for every h
ACCURACY = (1e-2, 5e-3, 1e-3, 1e-4, 1e-5)


def _torques(nu: int, seconds: float) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.uniform(-0.4, 0.4, (int(np.ceil(seconds / TORQUE_DT)) + 1, nu))


def _error(scene, q, q0, pen, m):
    """The scene's error (m) from the final q, q0 and the deepest tracked penetration."""
    if not np.all(np.isfinite(q)):
        return np.inf
    if scene in ("pile", "humanoid"):
        return pen
    p, drift = measure(scene, q, q0, pen, None, m)
    return max(p, drift)


def run_ncpgym(scene: str, h: float, newton: int, seconds: float) -> dict:
    m, q0 = build(scene)
    sim = ncpgym.Simulator(m, timestep=h, newton_iterations=newton)
    sim.q[:] = q0
    n = int(round(seconds / h))
    torques = _torques(m.nu, seconds) if scene == "humanoid" else None
    pen, stable = 0.0, True
    t0 = time.perf_counter()
    try:
        for k in range(n):
            ctrl = torques[int(k * h / TORQUE_DT)] if torques is not None else None
            sim.step(ctrl=ctrl)
            if scene in ("pile", "humanoid"):
                c = sim.contacts
                d = c["dist"][~c["refreshed"]]  # the state's depth (refresh-added rows: not a depth)
                pen = max(pen, -float(d.min()) if len(d) else 0.0)
    except RuntimeError:
        stable = False
    wall = time.perf_counter() - t0
    err = _error(scene, sim.q.copy(), q0, pen, m) if stable else np.inf
    return dict(engine="ncpgym", setting=f"newton {newton}", h=h, newton_iterations=newton,
                wall_s_per_sim_s=wall / (n * h), error_m=float(err), stable=bool(stable and err < 0.05))


def run_mujoco(scene: str, h: float, stiff: bool, seconds: float) -> dict:
    m, q0, mj = mujoco_model(scene, stiff)
    mj.opt.timestep = h
    if stiff:  # solref's time constant must stay >= 2 h (MuJoCo's rule): 2 h where 0.002 s is shorter
        mj.geom_solref[:, 0] = max(0.002, 2 * h)
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    n = int(round(seconds / h))
    torques = _torques(mj.nu, seconds) if scene == "humanoid" else None
    pen = 0.0
    t0 = time.perf_counter()
    for k in range(n):
        if torques is not None:
            d.ctrl[:] = torques[int(k * h / TORQUE_DT)]
        mujoco.mj_step(mj, d)
        if scene in ("pile", "humanoid") and d.ncon:
            pen = max(pen, -float(d.contact.dist[: d.ncon].min()))
    wall = time.perf_counter() - t0
    # MuJoCo resets a diverging state and only warns: count those warnings as divergence
    bad = sum(int(d.warning[w].number) for w in (mujoco.mjtWarning.mjWARN_BADQACC, mujoco.mjtWarning.mjWARN_BADQVEL,
                                                 mujoco.mjtWarning.mjWARN_BADQPOS))
    err = _error(scene, d.qpos.copy(), q0, pen, m) if bad == 0 else np.inf
    return dict(engine="mujoco", setting="stiff" if stiff else "default", h=h, newton_iterations=None,
                wall_s_per_sim_s=wall / (n * h), error_m=float(err), stable=bool(np.isfinite(err) and err < 0.05))


def summarise(rows: list[dict]) -> dict:
    out: dict = {}
    for scene in sorted({r["scene"] for r in rows}):
        out[scene] = {}
        for acc in ACCURACY:
            best = {}
            for engine in ("ncpgym", "mujoco"):
                ok = [r for r in rows if r["scene"] == scene and r["engine"] == engine and r["stable"]
                      and r["error_m"] <= acc]
                if ok:
                    r = min(ok, key=lambda r: r["wall_s_per_sim_s"])
                    best[engine] = {k: r[k] for k in ("setting", "h", "wall_s_per_sim_s", "error_m")}
                else:
                    best[engine] = None
            if best["ncpgym"] and best["mujoco"]:
                best["mujoco_over_ncpgym_cost"] = best["mujoco"]["wall_s_per_sim_s"] / best["ncpgym"]["wall_s_per_sim_s"]
            out[scene][f"{acc:g} m"] = best
    return out


def plot(rows: list[dict], scene: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    groups: dict = {}
    for r in rows:
        if r["scene"] == scene:
            groups.setdefault((r["engine"], r["setting"]), []).append(r)
    styles = {"ncpgym": "o-", "mujoco": "s--"}
    floor = 1e-9  # exact zeros (no overlap at all) drawn at the floor
    for (engine, setting), rs in sorted(groups.items()):
        rs = sorted(rs, key=lambda r: r["h"])
        x = [max(r["error_m"], floor) if np.isfinite(r["error_m"]) else np.nan for r in rs]
        y = [r["wall_s_per_sim_s"] for r in rs]
        line, = ax.plot(x, y, styles[engine], label=f"{engine} {setting}", ms=5)
        for r, xi, yi in zip(rs, x, y):
            if not r["stable"] and np.isfinite(xi):
                ax.plot(xi, yi, "x", color=line.get_color(), ms=9)
            ax.annotate(f"1/{round(1 / r['h'])}", (xi, yi), fontsize=6, alpha=0.7,
                        xytext=(3, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("error (m): " + {"heavy_stack": "overlap or drift at the end", "arch": "largest displacement",
                                   "pile": "deepest transient penetration",
                                   "humanoid": "deepest penetration"}[scene])
    ax.set_ylabel("wall time per simulated second (s, one thread)")
    ax.set_title(f"work-precision: {scene} (labels: time step; x: unstable)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=None, help="write rows and summary here (plots next to it)")
    ap.add_argument("--scenes", nargs="+", default=list(SCENES), choices=SCENES)
    ap.add_argument("--seconds", type=float, default=None, help="simulated seconds per run (default per scene)")
    args = ap.parse_args()
    rows = []
    mujoco.set_mju_user_warning(lambda msg: None)  # divergence is counted per run (d.warning)
    for scene in args.scenes:
        seconds = args.seconds or SECONDS[scene]
        run_ncpgym(scene, 1 / 60, 2, 0.1)  # warm-up: first-call costs (allocations, caches) off the clock
        runs = [(run_ncpgym, (scene, h, k, seconds)) for k in NCP_NEWTON for h in NCP_STEPS]
        runs += [(run_mujoco, (scene, h, stiff, seconds)) for stiff in (False, True) for h in MJ_STEPS]
        for fn, a in runs:
            r = dict(scene=scene, **fn(*a))
            rows.append(r)
            print(f"{scene:12s} {r['engine']:7s} {r['setting']:9s} h=1/{round(1 / r['h']):<5d} "
                  f"{r['wall_s_per_sim_s'] * 1e3:9.1f} ms/s  error {r['error_m']:.2e} m"
                  f"{'' if r['stable'] else '  (unstable)'}", flush=True)
    summary = summarise(rows)
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        old = json.loads(args.json.read_text())["rows"] if args.json.exists() else []
        keep = [r for r in old if r["scene"] not in args.scenes]  # a partial rerun replaces its scenes
        rows = keep + rows
        args.json.write_text(json.dumps({"rows": rows, "summary": summarise(rows),
                                         "command": "python benchmarks/work_precision.py --json " + str(args.json)},
                                        indent=1))
        for scene in sorted({r["scene"] for r in rows}):
            plot(rows, scene, args.json.parent / f"work_precision_{scene}.png")


if __name__ == "__main__":
    main()
