"""Soft-body step cost (issue 7): tetrahedral FEM in the Newton solve, coupled to rigid bodies.

    python benchmarks/soft.py --json benchmarks/results/soft.json
    python benchmarks/soft.py --only pneunet_grasp --json benchmarks/results/soft.json --update

Rows {"scene", "tets", "particles", "contacts", "newton_iters", "linear_iters", "step_ms",
"timestep", "final_residual", "final_momentum_residual", "threads", "worlds", "solver"}:
step_ms is milliseconds per world-step (wall time of the batch step / worlds); the
residuals (max |NCP or row residual| and max |H^-1 g| of the last Newton iterate, solver_stats)
are medians over the timed steps, one-world rows only. Scenes:

* pneunet_grasp: ncpgym/PneuNetGrasp-v0's world (three fingers, rigid 0.32 kg ball) at the
  seed's mesh size (14 x 3 x 3 hexahedra per finger, 2,268 tets) and at the task's default
  (8 x 2 x 2, 576 tets), timed while the scripted close-and-lift holds the ball (every
  finger in contact), with the task's solver options (the seed's 4 Newton iterations,
  time-step complementarity scaling, no geometric stiffness) and with the defaults
  (mixed scaling, geometric stiffness) at 4 and 6 iterations; and at the seed's
  mesh and time step (Table 2: h = 0.0083 s; here 1/120) with the task's options and with
  the defaults at the seed's 4 iterations;
* pneunet_grasp neohookean: the task's default mesh with ``material="neohookean"`` (App. B's
  elements; the task's options plus ``line_search``, without which it diverges);
* pneunet_grasp pressure: the same task's ``actuation="pressure"`` world (thin-walled air
  chambers, 1,110 tets per finger, pressure on the cavity walls), closed at 0.75 MPa and
  lifted as above, with the task's solver options (and with ``stress_stiffness``, which
  lets it close at up to 2 MPa): pressure against active-strain actuation at the task's
  default sizes;
* allegro_ball: ncpgym/AllegroSqueeze-v0's world (the Allegro hand palm up, a 384-element
  foam ball; the seed's Allegro Ball has 427), timed while the fingers, closed by a
  scripted 1 s ramp to HOME + 0.5 rad, hold it squeezed (about 4 % volumetric strain),
  with the task's options (4 Newton iterations, time-step scaling, no geometric
  stiffness), the same at the seed's 6 Newton iterations, and the defaults at 6;
* fetch_tomato: ncpgym/FetchTomato-v0's world (Fetch, the 384-element Neo-Hookean tomato,
  the scale; the seed's Fetch Tomato has 319), timed while the fingers hold the tomato
  lifted mid-carry (the scripted pick-and-place's step 150), with the task's 10 Newton
  iterations and the seed's 4 / 50;
* ball_squeezed: a voxelised soft ball (r = 5 cm, 696 tets) squeezed between a fixed rigid
  plate and a 5 kg rigid plate resting on it;
* extension_block: the seed's Fig. 13 bar held at twice its length, stable Neo-Hookean.

Each with one world on one thread and 4 worlds on 2 threads, the default solver (primal
elimination of the element rows + sparse LDL^T of the KKT system). The seed's Table 2 rows
(GPU, PCR on the dual system, assembly + solve per step) follow for comparison.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import ncpgym
from ncpgym.envs.pneunet import build_gripper
from ncpgym.soft import add_mesh, box_mesh, sphere_mesh

SEED_TABLE2 = [  # example, tets, contacts, Newton, linear, assembly ms + solve ms (GPU)
    ("seed: PneuNet", 2241, 532, 4, 80, 0.3 + 22.25),
    ("seed: Allegro Ball", 427, 409, 6, 50, 0.35 + 11.4),
    ("seed: Fetch Tomato", 319, 371, 4, 50, 0.45 + 12.2),
]


def grasp(mesh, activation, material="linear", timestep=0.02):
    """The gripper closed on the ball and lifted 5 cm (a scripted 1.5 s), then timed. The
    finer mesh bends more easily (linear tetrahedra lock less) and needs more activation to
    hold the ball."""
    model, _ = build_gripper(n=mesh, tilt=np.radians(70.0), root_radius=0.03, mount_height=0.12, timestep=timestep,
                             model=material)
    return model, close_and_lift(activation, timestep)


def close_and_lift(level, h=0.02):
    """The warm-up of both grippers (time step h): chambers ramped to `level` over 0.5 s, the
    mount up 5 cm at 0.1 m/s from 0.6 s, 1.5 s in all."""
    def warm(set_act, set_ctrl, step):
        for k in range(int(round(1.5 / h))):
            t = k * h
            set_act(level * min(1.0, t / 0.5))
            set_ctrl(0.0 if t < 0.6 - 1e-9 else min(0.05, (t - 0.6) * 0.1))
            step()
    return warm


def grasp_pressure(pressure):
    """PneuNetGrasp-v0's pressure variant (``actuation="pressure"``: thin-walled chambered
    fingers, 1,110 tets each, 80-degree hang, nu = 0.3) closed on the ball at `pressure` Pa
    in every chamber and lifted 5 cm, as ``grasp``."""
    from ncpgym.tasks.pneunet_grasp import _gripper

    model, _ = _gripper((8, 2, 2), "pressure")
    return model, close_and_lift(pressure)


def allegro_ball():
    from ncpgym.tasks.allegro_squeeze import HOME, AllegroSqueezeTask

    task = AllegroSqueezeTask()
    model = task.build_model()
    closed = HOME.copy()
    closed[[1, 2, 3, 5, 6, 7, 9, 10, 11, 14, 15]] += 0.5

    def warm(set_act, set_ctrl, step):
        ctrl = np.zeros(model.nu)
        for k in range(180):
            ctrl[task.finger_act] = HOME + (closed - HOME) * min(1.0, k / 120)
            set_ctrl(ctrl)
            step()
    return model, warm, task.home


def fetch_tomato():
    """ncpgym/FetchTomato-v0's world (Fetch, 384-tet Neo-Hookean tomato, scale) at env step
    150 of the scripted pick-and-place (the tomato lifted and carried in the fingers), the
    servo targets then held: (model, warm-up, q, x)."""
    from ncpgym.tasks import fetch_tomato as ft

    env = ft.FetchTomatoVectorEnv(num_envs=1)
    env.reset(seed=0)
    task, b = env.task, env.batch
    start, plate = task.tomato(b).copy(), task.plate_top(b).copy()
    for k in range(150):
        env.step(ft.scripted_actions(task, b, k, start, plate).astype(np.float32))
    q0, x0, ctrl = b.q[0].copy(), b.x[0].copy(), task.targets[0].copy()
    model = b.model
    env.close()

    def warm(set_act, set_ctrl, step):
        for _ in range(20):
            set_ctrl(ctrl)
            step()
    return model, warm, q0, x0


def ball_squeezed():
    v, t = sphere_mesh(0.05, 6, center=(0, 0, 0.05))
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.add_geom(0, "box", size=[0.1, 0.1, 0.01], pos=[0, 0, -0.01])  # the fixed plate
    add_mesh(b, v, t, density=1000.0, young=1e5, poisson=0.45, friction=0.8)
    plate = b.add_body(0, pos=[0, 0, 0.1 + 0.011], mass=5.0, inertia=np.eye(3) * 0.01)
    b.add_joint(plate, "free")
    b.add_geom(plate, "box", size=[0.08, 0.08, 0.01])
    model = b.build()

    def warm(set_act, set_ctrl, step):
        for _ in range(60):
            step()
    return model, warm


def extension_block():
    rest, tets = box_mesh((0.1, 0.1, 0.4), (2, 2, 8))
    b = ncpgym.Builder()
    b.set_timestep(1 / 120)
    b.set_gravity([0, 0, 0])
    first, _ = add_mesh(b, rest, tets, density=1000.0, young=1e5, poisson=0.45, model="neohookean")
    x = rest * [1, 1, 2]
    for i in np.flatnonzero((rest[:, 2] < 1e-9) | (rest[:, 2] > 0.4 - 1e-9)):
        b.add_attachment(int(first + i), 0, x[i])
    model = b.build()
    return model, x


def prepare(world, model, warm, x0, step, q0=None):
    """Initial particle positions (and joint positions) and the scene's warm-up on a
    Simulator or a Batch."""
    if x0 is not None:
        world.x[:] = x0
    if q0 is not None:
        world.q[:] = q0
        if hasattr(world, "forward"):  # a Batch recomputes its derived quantities
            world.forward()

    def set_act(a):
        world.activation[:] = a

    def set_ctrl(c):
        if model.nu:
            world.ctrl[:] = c
    if warm:
        warm(set_act, set_ctrl, step)


def measure(name, model, warm, x0, opts, threads, worlds, steps, q0=None):
    newton = opts["newton_iterations"]
    if worlds == 1:
        sim = ncpgym.Simulator(model, **opts)
        prepare(sim, model, warm, x0, sim.step, q0)
        newton_it, lin, contacts, res, mom = [], [], [], [], []
        t = time.perf_counter()
        for _ in range(steps):
            sim.step()
            st = sim.solver_stats
            newton_it.append(st["newton_iterations"])
            res.append(st["residual"][-1] if st["residual"] else 0.0)
            mom.append(st["momentum_residual"][-1] if st["momentum_residual"] else 0.0)
            lin.append(float(np.mean(st["linear_iterations"])) if st["linear_iterations"] else 0.0)
            contacts.append(int(np.sum(sim.contacts["force"][:, 0] > 0)) if len(sim.contacts["dist"]) else 0)
        ms = 1e3 * (time.perf_counter() - t) / steps
    else:
        batch = ncpgym.Batch(model, worlds, num_threads=threads, **opts)
        prepare(batch, model, warm, x0, lambda: batch.step(None, 1), q0)
        t = time.perf_counter()
        batch.step(None, steps)
        ms = 1e3 * (time.perf_counter() - t) / steps / worlds
        newton_it, lin, contacts = None, None, [int(batch.ncontact.mean())]  # not per world
        res = mom = None
    return {"scene": name, "tets": model.ntet, "particles": model.nparticle, "contacts": int(np.median(contacts)),
            "newton_iters": float(np.mean(newton_it)) if newton_it else newton,
            "linear_iters": float(np.mean(lin)) if lin else None, "step_ms": ms,
            "timestep": model.timestep if "timestep" not in opts else opts["timestep"],
            # the last Newton iterate's residuals, median over the timed steps (one world only)
            "final_residual": float(np.median(res)) if res else None,
            "final_momentum_residual": float(np.median(mom)) if mom else None,
            "threads": threads, "worlds": worlds, "solver": "primal KKT supernodal LDLT",
            "options": opts}


def seed_rows() -> list[dict]:
    """The seed's Table 2 rows (constants), written after the measured ones."""
    return [{"scene": name, "tets": tets, "particles": None, "contacts": contacts, "newton_iters": newton,
             "linear_iters": lin, "step_ms": ms, "threads": None, "worlds": 1, "solver": "PCR on GPU (seed)"}
            for name, tets, contacts, newton, lin, ms in SEED_TABLE2]


def row_key(r: dict) -> tuple:
    """What identifies a row across runs: scenes share names across option sets ("defaults" at
    4 and 6 Newton iterations) and thread counts."""
    return r["scene"], json.dumps(r.get("options"), sort_keys=True), r["threads"], r["worlds"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--only", help="run only the scenes whose name contains this text")
    ap.add_argument("--update", action="store_true",
                    help="with --json: replace only the rerun scenes' rows of the existing file")
    args = ap.parse_args()
    from ncpgym.tasks import PneuNetGraspTask

    task_opts = dict(PneuNetGraspTask.solver_options)
    cases = []
    for mesh, activation in (((14, 3, 3), 0.35), ((8, 2, 2), 0.25)):
        model, warm = grasp(mesh, activation)
        name = f"pneunet_grasp {mesh[0]}x{mesh[1]}x{mesh[2]}"
        cases.append((name + " (task solver)", model, warm, None, task_opts, None))
        for newton in (6, 4):
            cases.append((name + " (defaults)", model, warm, None, {"newton_iterations": newton}, None))
    # the seed's time step (Table 2: h = 0.0083 s) at the seed's mesh size
    model, warm = grasp((14, 3, 3), 0.35, timestep=1 / 120)
    cases.append(("pneunet_grasp 14x3x3 h=1/120 (task solver)", model, warm, None, task_opts, None))
    cases.append(("pneunet_grasp 14x3x3 h=1/120 (defaults)", model, warm, None, {"newton_iterations": 4}, None))
    model, warm = grasp((8, 2, 2), 0.25, "neohookean")
    cases.append(("pneunet_grasp 8x2x2 neohookean (task solver + line_search)", model, warm, None,
                  {**task_opts, "line_search": True}, None))
    model, warm = grasp_pressure(7.5e5)
    cases.append(("pneunet_grasp pressure 0.75 MPa (task solver)", model, warm, None, task_opts, None))
    cases.append(("pneunet_grasp pressure 0.75 MPa (task solver + stress_stiffness)", model, warm, None,
                  {**task_opts, "stress_stiffness": True}, None))
    model, warm, q0 = allegro_ball()
    from ncpgym.tasks.allegro_squeeze import AllegroSqueezeTask

    squeeze_opts = dict(AllegroSqueezeTask.solver_options)
    cases.append(("allegro_ball (task solver)", model, warm, None, squeeze_opts, q0))
    cases.append(("allegro_ball (task solver, 6 Newton)", model, warm, None, {**squeeze_opts, "newton_iterations": 6}, q0))
    cases.append(("allegro_ball (defaults)", model, warm, None, {"newton_iterations": 6}, q0))
    model, warm, q0, x0 = fetch_tomato()
    from ncpgym.tasks.fetch_tomato import FetchTomatoTask

    cases.append(("fetch_tomato (task solver: 10 Newton)", model, warm, x0, dict(FetchTomatoTask.solver_options), q0))
    cases.append(("fetch_tomato (the seed's 4 Newton / 50 linear)", model, warm, x0,
                  {"newton_iterations": 4, "linear_iterations": 50}, q0))
    model, warm = ball_squeezed()
    cases.append(("ball_squeezed", model, warm, None, {"newton_iterations": 8}, None))
    model, x = extension_block()
    cases.append(("extension_block", model, None, x, {"newton_iterations": 8}, None))
    if args.only:
        cases = [c for c in cases if args.only in c[0]]
    rows = []
    print(f"{'scene':44s} {'tets':>5s} {'contacts':>8s} {'newton':>6s} {'threads':>7s} {'worlds':>6s} {'ms/world-step':>14s}"
          f" {'residual':>9s}")
    for name, model, warm, x0, opts, q0 in cases:
        for threads, worlds in ((1, 1), (2, 4)):
            r = measure(name, model, warm, x0, opts, threads, worlds, args.steps, q0)
            rows.append(r)
            print(f"{name:44s} {r['tets']:5d} {r['contacts']:8d} {opts['newton_iterations']:6d} {threads:7d} "
                  f"{worlds:6d} {r['step_ms']:14.1f} {r['final_residual'] or float('nan'):9.2g}", flush=True)
    rows += seed_rows()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        if args.update and args.json.exists():  # the rerun rows replace theirs in place, the rest is kept
            merged = {row_key(r): r for r in json.loads(args.json.read_text())["rows"]}
            merged.update({row_key(r): r for r in rows})
            rows = list(merged.values())
        args.json.write_text(json.dumps({"rows": rows}, indent=1))
        print("wrote", args.json)


if __name__ == "__main__":
    main()
