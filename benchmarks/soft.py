"""Soft-body step cost (issue 7, in progress): tetrahedral FEM rows in the Newton solve.

    python benchmarks/soft.py --json benchmarks/results/soft.json

Rows: {"scene", "tets", "particles", "contacts", "newton_iters", "linear_iters",
"step_ms", "threads", "linear"} for a bar stretched to twice its length (Neo-Hookean), a
soft ball squeezed between the ground and a 5 kg rigid plate, and one PneuNet finger with
inflated chambers, each with PCR (the default) and the sparse LDL^T; one world on one
thread, and a batch of 4 worlds on 2 threads (ms per world-step). The seed's Table 2 rows
(GPU PCR, assembly + solve per step) follow for comparison. The three-finger gripper is not
built yet.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import ncpgym
from ncpgym.envs.pneunet import add_finger
from ncpgym.soft import add_mesh, box_mesh, tet_centroids

SEED_TABLE2 = [  # Example, tets, contacts, Newton, linear, assembly ms + solve ms (GPU)
    ("seed: PneuNet", 2241, 532, 4, 80, 0.3 + 22.25),
    ("seed: Allegro Ball", 427, 409, 6, 50, 0.35 + 11.4),
    ("seed: Fetch Tomato", 319, 371, 4, 50, 0.45 + 12.2),
]


def bar():
    rest, tets = box_mesh((0.1, 0.1, 0.4), (2, 2, 8))
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.set_gravity([0, 0, 0])
    first, _ = add_mesh(b, rest, tets, density=1000.0, young=1e5, poisson=0.45, model="neohookean")
    x = rest * [1, 1, 2]
    for i in np.flatnonzero((rest[:, 2] < 1e-9) | (rest[:, 2] > 0.4 - 1e-9)):
        b.add_attachment(int(first + i), 0, x[i])
    return b.build(), x, None


def ball():
    r = 0.05
    v, t = box_mesh(2 * r, 6, origin=(-r, -r, 0.0))
    keep = np.linalg.norm(tet_centroids(v, t) - [0, 0, r], axis=1) < r
    t = t[keep]
    used = np.unique(t)
    remap = -np.ones(len(v), int)
    remap[used] = np.arange(len(used))
    v, t = v[used], remap[t]
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.add_geom(0, "plane")
    add_mesh(b, v, t, density=1000.0, young=1e5, poisson=0.45, friction=0.8)
    plate = b.add_body(0, pos=[0, 0, 2 * r + 0.011], mass=5.0, inertia=np.eye(3) * 0.01)
    b.add_joint(plate, "free")
    b.add_geom(plate, "box", size=[0.08, 0.08, 0.01])
    return b.build(), None, None


def finger():
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.set_gravity([0, 0, 0])
    add_finger(b)
    return b.build(), None, 0.2


def measure(scene, linear: str, steps: int, threads: int, worlds: int) -> dict:
    model, x0, act = {"bar": bar, "ball": ball, "pneunet_finger": finger}[scene]()
    if worlds == 1:
        sim = ncpgym.Simulator(model, linear=linear)
        if x0 is not None:
            sim.x[:] = x0
        if act:
            sim.activation[:] = act
        sim.step()
        newton, lin, contacts = [], [], []
        t = time.perf_counter()
        for _ in range(steps):
            sim.step()
            st = sim.solver_stats
            newton.append(st["newton_iterations"])
            lin.append(np.mean(st["linear_iterations"]) if st["linear_iterations"] else 0)
            contacts.append(int(np.sum(sim.contacts["force"][:, 0] > 0)) if len(sim.contacts["dist"]) else 0)
        ms = 1e3 * (time.perf_counter() - t) / steps
    else:
        batch = ncpgym.Batch(model, worlds, num_threads=threads, linear=linear)
        if x0 is not None:
            batch.x[:] = x0
        if act:
            batch.activation[:] = act
        batch.step(None, 1)
        t = time.perf_counter()
        batch.step(None, steps)
        ms = 1e3 * (time.perf_counter() - t) / steps / worlds
        newton, lin, contacts = [float("nan")], [float("nan")], [int(batch.ncontact.mean())]
    return {"scene": scene, "tets": model.ntet, "particles": model.nparticle, "contacts": int(np.median(contacts)),
            "newton_iters": float(np.mean(newton)), "linear_iters": float(np.mean(lin)), "step_ms": ms,
            "threads": threads, "worlds": worlds, "linear": linear}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    rows = []
    for scene in ("bar", "ball", "pneunet_finger"):
        for linear in ("pcr", "sparse_ldlt"):
            for threads, worlds in ((1, 1), (2, 4)):
                r = measure(scene, linear, args.steps, threads, worlds)
                rows.append(r)
                print(f"{scene:15s} {linear:11s} tets={r['tets']:4d} contacts={r['contacts']:4d} "
                      f"newton={r['newton_iters']:.1f} linear={r['linear_iters']:.1f} threads={threads} worlds={worlds} "
                      f"{r['step_ms']:8.1f} ms/world-step", flush=True)
    for name, tets, contacts, newton, lin, ms in SEED_TABLE2:
        rows.append({"scene": name, "tets": tets, "particles": None, "contacts": contacts, "newton_iters": newton,
                     "linear_iters": lin, "step_ms": ms, "threads": None, "worlds": 1, "linear": "pcr (GPU)"})
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows}, indent=1))
        print("wrote", args.json)


if __name__ == "__main__":
    main()
