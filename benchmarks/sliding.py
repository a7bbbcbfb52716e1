"""Bodies moving in contact: how much speed a step keeps (ncpgym against MuJoCo and the
analytic answer; h = 1/120, one second).

ncpgym's damped Newton step starts from u = 0 (nonsmooth-newton-ncp.txt eq. 67) and keeps
1 - 0.25^k of a contact-coupled velocity per step after k iterations (docs/architecture.md,
"Starting from the motion"); option start_from_motion starts moving trees from their
velocity instead. Scenes, each a 1 kg body on a plane, exported to MJCF for MuJoCo from the
same model:

- slide: a box (half size 0.1 m) sliding at 2 m/s on a frictionless plane (exact: 2 m/s);
- friction: the box at 4 m/s with mu = 0.3 (exact: 4 - mu g t = 1.057 m/s after 1 s);
- roll: a solid sphere (r = 0.1 m) rolling at 1 m/s with mu = 0.5 (exact: 1 m/s);
- slow slide: the box at 0.05 m/s on the frictionless plane (exact: 0.05 m/s), slow enough
  (0.4 mm per step) for the warm start to find its contacts again, where option
  momentum_exit (on by default since session 36) ends each step at the velocity that
  balances the remembered impulses (the first steps, before the box has settled on the
  plane, keep the drag).

    python benchmarks/sliding.py --json benchmarks/results/sliding.json
    python benchmarks/sliding.py --table benchmarks/results/sliding.json   # the table of docs/benchmarks/contact.md
"""

import argparse
import json
import sys
from pathlib import Path

import mujoco
import numpy as np

import ncpgym
from ncpgym import Builder

H = 1 / 120
STEPS = 120
G = 9.81
SCENES = {  # shape, mu, initial speed, exact speed after STEPS steps
    "slide": ("box", 0.0, 2.0, 2.0),
    "friction": ("box", 0.3, 4.0, 4.0 - 0.3 * G * STEPS * H),
    "roll": ("sphere", 0.5, 1.0, 1.0),
    "slow slide": ("box", 0.0, 0.05, 0.05),
}
ENGINES = {
    "ncpgym (defaults: 8 Newton)": {},
    "ncpgym, 4 Newton (the seed's, the humanoid tasks')": {"newton_iterations": 4},
    "ncpgym, 4 Newton, momentum_exit=0 (before session 36)": {"newton_iterations": 4, "momentum_exit": 0.0},
    "ncpgym, start_from_motion=0.05": {"start_from_motion": 0.05},
    "ncpgym, 4 Newton, start_from_motion=0.05": {"newton_iterations": 4, "start_from_motion": 0.05},
}


def model(shape, mu):
    b = Builder()
    b.set_timestep(H)
    b.add_geom(0, "plane", friction=[mu, 0, 0])
    body = b.add_body(0, mass=1.0, inertia=np.eye(3) * (0.004 if shape == "sphere" else 2 * 0.04 / 12))
    b.add_joint(body, "free")
    size = [0.1, 0.1, 0.1] if shape == "box" else [0.1, 0, 0]
    b.add_geom(body, type=shape, size=size, friction=[mu, 0, 0])
    return b.build()


def start(shape, v):
    q = np.array([0, 0, 0.1, 1, 0, 0, 0], float)
    u = np.array([v, 0, 0, 0, v / 0.1 if shape == "sphere" else 0, 0], float)
    return q, u


def run_ncpgym(scene, **opts):
    shape, mu, v, _ = SCENES[scene]
    sim = ncpgym.Simulator(model(shape, mu), **opts)
    sim.q[:], sim.u[:] = start(shape, v)
    iters = 0
    for _ in range(STEPS):
        sim.step()
        iters += sim.solver_stats["newton_iterations"]
    return float(sim.u[0]), iters / STEPS


def run_mujoco(scene):
    shape, mu, v, _ = SCENES[scene]
    mj = mujoco.MjModel.from_xml_string(ncpgym.models.to_mjcf(model(shape, mu)))
    mj.opt.timestep = H
    d = mujoco.MjData(mj)
    d.qpos[:], d.qvel[:] = start(shape, v)
    for _ in range(STEPS):
        mujoco.mj_step(mj, d)
    return float(d.qvel[0]), None


def markdown(rows):
    """Speed after one second per engine (rows) and scene (columns), exact values first."""
    scenes = list(dict.fromkeys(r["scene"] for r in rows))
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    at = {(r["scene"], r["engine"]): r for r in rows}
    head = "| speed after 1 s (m/s) | " + " | ".join(scenes) + " |"
    lines = [head, "|---" * (len(scenes) + 1) + "|",
             "| exact | " + " | ".join(f"{at[(s, engines[0])]['exact_speed']:.4f}" for s in scenes) + " |"]
    for e in engines:
        lines.append(f"| {e} | " + " | ".join(f"{at[(s, e)]['speed']:.4f}" for s in scenes) + " |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", type=Path, help="write the rows here")
    p.add_argument("--table", type=Path, help="print the markdown table (docs/benchmarks/contact.md) of this JSON and stop")
    a = p.parse_args(argv)
    if a.table:
        print(markdown(json.loads(a.table.read_text())["rows"]))
        return 0
    rows = []
    for scene, (_, _, v0, exact) in SCENES.items():
        runs = [("MuJoCo (defaults)", run_mujoco(scene))]
        runs += [(name, run_ncpgym(scene, **opts)) for name, opts in ENGINES.items()]
        for engine, (speed, iters) in runs:
            rows.append(dict(scene=scene, engine=engine, initial_speed=v0, exact_speed=exact, speed=speed,
                             newton_iterations=iters))
    print(f"{'scene':10s} {'engine':56s} {'speed after 1 s':>16s} {'exact':>7s} {'Newton/step':>11s}")
    for r in rows:
        it = "" if r["newton_iterations"] is None else f"{r['newton_iterations']:.2f}"
        print(f"{r['scene']:10s} {r['engine']:56s} {r['speed']:16.4f} {r['exact_speed']:7.4f} {it:>11s}")
    if a.json:
        a.json.write_text(json.dumps(dict(rows=rows, meta=dict(timestep=H, steps=STEPS)), indent=1))
        print(f"wrote {a.json}")


if __name__ == "__main__":
    sys.exit(main())
