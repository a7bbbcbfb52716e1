"""Contact validation scenes: ncpgym (PCR, and Jacobi / Gauss-Seidel / PCG at the same
iteration budget) against MuJoCo on the same geometry, plus convergence plots in the
manner of the seed's Figs. 16-18.

    python benchmarks/contact_scenes.py --json benchmarks/results/contact_scenes.json
    python benchmarks/contact_scenes.py --scenes rocks table_pile   # only these rows

Rows: {"scene", "engine", "max_penetration_m", "drift_m", "stable", "step_us"}; step_us is
the mean time of the step call alone (setting ctrl included), not of the script's probes
(contact queries, penetration tracking) between steps (since session 34).
Scenes: incline (mu > tan theta, block must stay put), heavy_stack (masses 8..32768 kg,
mu 0.5), arch (20 convex voussoirs, the seed's 15-110 kg, mu 0.6; drift = largest displacement), pile (50 boxes and capsules between walls; drift = largest
displacement over the last second, i.e. how settled it is), rocks (30 random convex hulls
of 50-300 points dropped into a box of four walls on the ground) and table_pile (the seed's
54 tables of five boxes, 4.7 kg, mu 0.7), both 6 s with drift as for the pile and two more
fields: "rest_penetration_m" (deepest contact over the last second, against the transient
maximum of max_penetration_m) and "contacts" (contact points with a gap of at most 1 mm
at the last step; the seed reports 936 for its table pile), stiff_chain (16 links of 3 g
with 250 N m/rad springs; drift = error of the static tip deflection against the
analytic value), fetch_beam (the seed's Fetch beam, §10.1.2: the same links on 2 cm
bent 5 mm by a support through contact, springs as rows at the seed's 6 Newton / 50 linear
iterations, per linear solver, with "angle_error" against the springs' statics; plus the
Newton convergence of one step per solver, the seed's Fig. 18, in
convergence_fetch_beam.png), humanoid (Gymnasium's humanoid.xml dropped, random torques), and the
equality scenes weld_chain (20 links on ball joints closed into a hanging loop by a
connect), fourbar (a four-bar linkage closed by a connect) and weld_link (a box welded to a
swinging link), 10 s each, with "max_violation_m" (largest gap of an equality over the run;
rotation in rad for welds) and drift_m = the violation at the end. MuJoCo runs
the same Model exported with ncpgym.models.to_mjcf. "ncpgym-pcr-seed-newton" rows run the
seed's Newton iteration without ncpgym's safeguards (impulse clipping, bounded friction W,
the warm start and the return of friction to the cone); "ncpgym-pcr-cold" rows the defaults
before session 31 (every step from lambda = 0, the seed's friction row: warm_start and
cone_return off);
the humanoid is also run over random-torque seeds 0-11 with and without them (and at the
seed's counts). "ncpgym-pcr-NxL" rows run N Newton / L linear iterations, the seed's Table 2
counts for the scene (SEED_COUNTS; ncpgym's defaults are the table's largest, 8 / 50). PNG plots of the NCP residual per Newton iteration (one step of the heavy
stack, per linear solver and per r-factor strategy) land next to the JSON.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import importlib.util
import json
import time
from pathlib import Path

import mujoco
import numpy as np

import ncpgym
from ncpgym import scenes

ROOT = Path(__file__).resolve().parents[1]
H = 1 / 120
THETA, MU_STICK = np.deg2rad(20), 0.5
MASSES = (8, 64, 512, 4096, 32768)
HALF = 0.2
# "stable": finite, penetration < 5 cm, drift below this (pile: a capsule may still roll
# in the last second, so up to 10 cm of motion counts as settled)
DRIFT_LIMIT = {"pile": 0.1, "rocks": 0.1}
# scenes whose penetration is tracked over the run (the others measure it at the end)
TRACKED = ("humanoid", "pile", "rocks", "table_pile")
# piles: displacement over the last second, resting penetration and contact count
PILES = ("pile", "rocks", "table_pile")


def humanoid_path() -> Path:
    spec = importlib.util.find_spec("gymnasium.envs.mujoco")
    return Path(spec.submodule_search_locations[0]) / "assets" / "humanoid.xml"


# the scenes drawn from a seed (shapes, sizes and drop poses); the others have none
SEEDED = ("pile", "rocks", "table_pile")


def build(scene: str, seed: int = 0):
    if scene == "incline":
        return scenes.incline(THETA, MU_STICK, timestep=H)
    if scene == "heavy_stack":
        return scenes.heavy_stack(MASSES, half=HALF, timestep=H)
    if scene == "pile":
        return scenes.pile(n=50, seed=seed, timestep=H)
    if scene == "rocks":
        return scenes.rocks(n=30, seed=seed, timestep=H)
    if scene == "table_pile":
        return scenes.table_pile(n=54, seed=seed, timestep=H)
    if scene == "stiff_chain":
        m = scenes.stiff_chain(timestep=H)
        return m, m.qpos0.copy()
    if scene == "arch":  # the seed's masses
        return scenes.arch(timestep=H, masses=(15.0, 110.0))
    m = ncpgym.load_model(humanoid_path())
    return m, m.qpos0.copy()


# The seed's own iteration counts (Table 2, nonsmooth-newton-ncp.txt; ncpgym's defaults are
# the largest of the table, 8 Newton / 50 linear, for every scene): Table Pile 4 / 20, Arch
# 6 / 20, Humanoid Run 4 / 10 (the humanoid tasks run 4 Newton iterations too). The pile and
# the rocks, which the seed does not have, take the table pile's. Rows "ncpgym-pcr-NxL".
SEED_COUNTS = {"table_pile": (4, 20), "pile": (4, 20), "rocks": (4, 20), "arch": (6, 20), "humanoid": (4, 10)}

# ---------------------------------------------------------------- ncpgym runs
# The seed's Newton iteration without ncpgym's safeguards (docs/architecture.md).
# The defaults before session 31: every step from lambda = 0 (eq. 68), the seed's friction row.
COLD = dict(warm_start=False, cone_return=False)
SEED_NEWTON = dict(project_impulses=False, bounded_friction_w=False, **COLD)


def run_ncpgym(scene: str, seconds: float, seed: int = 0, **opts):
    m, q0 = build(scene)
    if scene == "humanoid":
        opts.setdefault("timestep", H)
    sim = ncpgym.Simulator(m, **opts)
    sim.q[:] = q0
    rng = np.random.default_rng(seed)
    n = int(round(seconds / H))
    late = n - int(round(1.0 / H))
    pen, rest_pen, stable, q_late = 0.0, 0.0, True, q0
    elapsed, done = 0.0, 0
    try:
        for k in range(n):
            ctrl = rng.uniform(-0.4, 0.4, m.nu) if scene == "humanoid" else None
            t1 = time.perf_counter()  # the step alone, as for MuJoCo (not the probes below)
            sim.step(ctrl=ctrl)
            elapsed += time.perf_counter() - t1
            done += 1
            if scene in TRACKED:
                d = detected_dist(sim)
                deepest = -d.min() if len(d) else 0.0
                pen = max(pen, deepest)
                rest_pen = max(rest_pen, deepest) if k >= late else rest_pen
            if k == late:
                q_late = sim.q.copy()
    except RuntimeError as e:
        stable = False
        print(f"  {scene}: ncpgym stopped at step {done} of {n}: {e}")
    dt = elapsed / max(done, 1)
    q = sim.q.copy()
    pen, drift = measure(scene, q, q0, pen, q_late, m)
    stable = stable and bool(np.isfinite(q).all()) and pen < 0.05 and drift < DRIFT_LIMIT.get(scene, 0.05)
    row = dict(max_penetration_m=float(pen), drift_m=float(drift), stable=stable, step_us=dt * 1e6)
    if scene in PILES:
        d = detected_dist(sim)
        row.update(rest_penetration_m=float(rest_pen), contacts=int((d <= 1e-3).sum()))
    return row


def detected_dist(sim) -> np.ndarray:
    """Gaps of the contacts the last step detected at its start, i.e. the penetration of
    the state the step before left (what MuJoCo's d.contact.dist holds after mj_step).
    Contacts the refresh added at the step's end (contacts["refreshed"]) are left out:
    their dist is their row's value at the step's start, an extrapolation of a feature
    that was not in contact there, not a depth of any state."""
    c = sim.contacts
    return c["dist"][~c["refreshed"]]


def measure(scene, q, q0, pen, q_late=None, m=None):
    if scene in PILES:  # displacement over the last second, and pieces inside the walls
        if not np.all(np.isfinite(q)):
            return pen, np.inf
        pos = q.reshape(-1, 7)[:, :3]
        walls = {"pile": 1.2, "rocks": 0.6, "table_pile": np.inf}[scene]
        inside = np.abs(pos[:, :2]).max() < walls and pos[:, 2].min() > -0.05  # none fell through
        move = np.linalg.norm((q - q_late).reshape(-1, 7)[:, :3], axis=1).max()
        return pen, float(move if inside else np.inf)
    if scene == "arch":  # largest displacement of a voussoir
        if not np.all(np.isfinite(q)):
            return 0.0, np.inf
        return 0.0, float(np.linalg.norm((q - q0).reshape(-1, 7)[:, :3], axis=1).max())
    if scene == "stiff_chain":
        if not np.all(np.isfinite(q)):
            return 0.0, np.inf
        tip = ncpgym.dynamics.kinematics(m, q)["site_xpos"][0]
        return 0.0, float(abs(-tip[2] - scenes.stiff_chain_deflection()))
    if scene == "incline":
        return max(0.0, -(q[:3] @ np.array([0, -np.sin(THETA), np.cos(THETA)]) - HALF * 0.5)), \
            float(np.linalg.norm(q[:3] - q0[:3]))
    if scene == "heavy_stack":
        z = q.reshape(-1, 7)[:, 2]
        gaps = np.diff(np.concatenate([[-HALF], z])) - 2 * HALF
        return float(max(0.0, -gaps.min())), float(np.linalg.norm(q.reshape(-1, 7)[:, :2], axis=1).max())
    return pen, 0.0


# ---------------------------------------------------------------- MuJoCo runs
STIFF_SOLREF, STIFF_SOLIMP = "0.002 1", "0.99 0.999 0.0001"


def mujoco_model(scene: str, stiff: bool):
    """(ncpgym Model, q0, MjModel) of a scene: MuJoCo at its defaults or with the stiff
    settings (the humanoid from Gymnasium's file, the others exported with to_mjcf)."""
    m, q0 = build(scene)
    if scene == "humanoid":
        mj = mujoco.MjModel.from_xml_path(str(humanoid_path()))
        if stiff:
            mj.geom_solref[:] = [0.002, 1]
            mj.geom_solimp[:, :3] = [0.99, 0.999, 0.0001]
    else:
        mj = mujoco.MjModel.from_xml_string(ncpgym.models.to_mjcf(
            m, solref=STIFF_SOLREF if stiff else None, solimp=STIFF_SOLIMP if stiff else None))
    if stiff:  # MuJoCo's documented settings for hard, non-slipping contact
        mj.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
        mj.opt.impratio = 10
        mj.opt.noslip_iterations = 10
    return m, q0, mj


def run_mujoco(scene: str, seconds: float, stiff: bool):
    m, q0, mj = mujoco_model(scene, stiff)
    mj.opt.timestep = H
    d = mujoco.MjData(mj)
    d.qpos[:] = q0
    rng = np.random.default_rng(0)
    n = int(round(seconds / H))
    late = n - int(round(1.0 / H))
    pen, rest_pen, q_late = 0.0, 0.0, q0
    elapsed = 0.0
    for k in range(n):
        ctrl = rng.uniform(-0.4, 0.4, mj.nu) if scene == "humanoid" else None
        t1 = time.perf_counter()  # the step alone (with setting ctrl), as for ncpgym
        if ctrl is not None:
            d.ctrl[:] = ctrl
        mujoco.mj_step(mj, d)
        elapsed += time.perf_counter() - t1
        if scene in TRACKED and d.ncon:
            deepest = -float(d.contact.dist[: d.ncon].min())
            pen = max(pen, deepest)
            rest_pen = max(rest_pen, deepest) if k >= late else rest_pen
        if k == late:
            q_late = d.qpos.copy()
    dt = elapsed / n
    q = d.qpos.copy()
    pen, drift = measure(scene, q, q0, pen, q_late, m)
    stable = bool(np.isfinite(q).all()) and pen < 0.05 and drift < DRIFT_LIMIT.get(scene, 0.05)
    row = dict(max_penetration_m=float(pen), drift_m=float(drift), stable=stable, step_us=dt * 1e6)
    if scene in PILES:
        row.update(rest_penetration_m=float(rest_pen),
                   contacts=int((d.contact.dist[: d.ncon] <= 1e-3).sum()))
    return row


# ---------------------------------------------------------------- equality scenes
# Closed loops and welds written as MJCF, loaded by both engines from the same file: the
# violation is measured with MuJoCo's kinematics on each engine's q (max over the run, and
# at the end as "drift").
FOURBAR_XML = f"""<mujoco><option timestep="{H}"/><worldbody>
 <body name="crank" pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.5" contype="0" conaffinity="0"/>
  <body name="coupler" pos="0.2 0 0"><joint type="hinge" axis="0 1 0"/>
   <geom type="capsule" fromto="0 0 0 0.5 0 0.3" size="0.02" mass="1" contype="0" conaffinity="0"/></body>
 </body>
 <body name="rocker" pos="0.6 0 1"><joint type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.1 0 0.3" size="0.02" mass="0.7" contype="0" conaffinity="0"/></body>
</worldbody><equality><connect body1="coupler" body2="rocker" anchor="0.5 0 0.3"/></equality></mujoco>"""

WELD_LINK_XML = f"""<mujoco><option timestep="{H}"/><worldbody>
 <body name="link" pos="0 0 1" euler="0 -69 0"><joint type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.4 0 -0.1" size="0.03" mass="1" contype="0" conaffinity="0"/></body>
 <body name="carried" pos="0.45 0.1 0.8" euler="0.3 0.2 0.1"><freejoint/>
  <geom type="box" size="0.05 0.1 0.02" mass="0.7" contype="0" conaffinity="0"/></body>
</worldbody><equality><weld body1="link" body2="carried"/></equality></mujoco>"""

EQUALITY_SCENES = {"weld_chain": scenes.hanging_loop_mjcf(timestep=H), "fourbar": FOURBAR_XML, "weld_link": WELD_LINK_XML}


def equality_violation(mj, d, q):
    """Largest violation of the model's equalities at q (m for points, rad for welds' rotation)."""
    d.qpos[:] = q
    mujoco.mj_kinematics(mj, d)
    worst = 0.0
    for e in range(mj.neq):
        b1, b2, data = mj.eq_obj1id[e], mj.eq_obj2id[e], mj.eq_data[e]
        R1, R2 = d.xmat[b1].reshape(3, 3), d.xmat[b2].reshape(3, 3)
        if mj.eq_type[e] == mujoco.mjtEq.mjEQ_CONNECT:
            gap = d.xpos[b1] + R1 @ data[0:3] - d.xpos[b2] - R2 @ data[3:6]
            worst = max(worst, float(np.linalg.norm(gap)))
        else:  # weld: relpos on body 1, anchor on body 2, R2 = R1 Rrel
            gap = d.xpos[b1] + R1 @ data[3:6] - d.xpos[b2] - R2 @ data[0:3]
            rel = np.zeros(9)
            mujoco.mju_quat2Mat(rel, data[6:10])
            Re = R1 @ rel.reshape(3, 3) @ R2.T
            axis = np.array([Re[2, 1] - Re[1, 2], Re[0, 2] - Re[2, 0], Re[1, 0] - Re[0, 1]])
            angle = np.arctan2(np.linalg.norm(axis) / 2, (np.trace(Re) - 1) / 2)  # exact near 0
            worst = max(worst, float(np.linalg.norm(gap)), float(angle))
    return worst


def run_equality(scene: str, engine: str, seconds: float = 10.0, **opts):
    mj = mujoco.MjModel.from_xml_string(EQUALITY_SCENES[scene])
    d, dd = mujoco.MjData(mj), mujoco.MjData(mj)
    q0 = mj.qpos0.copy()
    n = int(round(seconds / H))
    worst, stable = 0.0, True
    if engine.startswith("ncpgym"):
        sim = ncpgym.Simulator(ncpgym.models.from_mujoco(mj), **opts)
        sim.q[:] = q0
        step, state = sim.step, (lambda: sim.q)
    else:
        if engine == "mujoco-stiff":
            mj.eq_solref[:] = [0.002, 1]
            mj.eq_solimp[:, :3] = [0.99, 0.999, 0.0001]
        d.qpos[:] = q0
        step, state = (lambda: mujoco.mj_step(mj, d)), (lambda: d.qpos)
    elapsed = 0.0
    try:
        for _ in range(n):
            t1 = time.perf_counter()
            step()
            elapsed += time.perf_counter() - t1
            worst = max(worst, equality_violation(mj, dd, state()))
    except RuntimeError:
        stable = False
    end = equality_violation(mj, dd, state())
    stable = stable and bool(np.isfinite(state()).all()) and worst < 0.05
    return dict(max_violation_m=worst, drift_m=end, max_penetration_m=0.0, stable=stable, step_us=elapsed / n * 1e6)


# ---------------------------------------------------------------- the Fetch beam
# The seed's Fig. 18 claim (§10.1.2): relaxation cannot make 250 N m/rad joints on 3 g links
# stiff within a step, PCR can. scenes.fetch_beam with its support raised 5 mm into the
# last link over 0.5 s and held for 1 s; the error is the joints' largest deviation from
# the statics of the springs (scenes.fetch_beam_angles) over the largest angle. MuJoCo runs
# the exported model with its default (semi-implicit Euler) integrator, with implicitfast,
# and with implicitfast and the stiff contact settings.
BEAM_LIFT, BEAM_SECONDS = 0.005, 1.5
BEAM_BUDGET = dict(newton_iterations=6, linear_iterations=50)  # the seed's, Table 2


def _support_height(k, z0):
    touch = -scenes.BEAM["thickness"] / 2 - 0.005
    return z0 + min(1.0, k / int(round(0.5 / H))) * (touch + BEAM_LIFT - z0)


def run_fetch_beam(engine: str, **opts):
    m = scenes.fetch_beam(timestep=H)
    ref, _ = scenes.fetch_beam_angles(BEAM_LIFT)
    n = int(round(BEAM_SECONDS / H))
    pen, stable, elapsed, done = 0.0, True, 0.0, 0
    if engine.startswith("ncpgym"):
        sim = ncpgym.Simulator(m, **opts)
        z0 = float(sim.mocap_pos[0, 2])

        def step(k):
            sim.mocap_pos[0, 2] = _support_height(k, z0)
            sim.step()

        def deepest():
            d = detected_dist(sim)
            return -d.min() if len(d) else 0.0
        angles = lambda: sim.q[:16]  # noqa: E731
    else:
        mj = mujoco.MjModel.from_xml_string(ncpgym.models.to_mjcf(
            m, solref=STIFF_SOLREF if engine == "mujoco-stiff" else None,
            solimp=STIFF_SOLIMP if engine == "mujoco-stiff" else None))
        mj.opt.timestep = H
        if engine != "mujoco-default":  # MuJoCo's implicit-in-velocity integrator for the stiff springs
            mj.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        d = mujoco.MjData(mj)
        mujoco.mj_forward(mj, d)
        z0 = float(d.mocap_pos[0, 2])

        def step(k):
            d.mocap_pos[0, 2] = _support_height(k, z0)
            mujoco.mj_step(mj, d)

        def deepest():
            return -float(d.contact.dist[: d.ncon].min()) if d.ncon else 0.0
        angles = lambda: d.qpos[:16]  # noqa: E731
    try:
        for k in range(n):
            t1 = time.perf_counter()
            step(k)
            elapsed += time.perf_counter() - t1
            done += 1
            pen = max(pen, deepest())
    except RuntimeError as e:
        stable = False
        print(f"  fetch_beam: {engine} stopped at step {done} of {n}: {e}")
    q = np.array(angles())
    err = float(np.abs(q - ref).max() / np.abs(ref).max()) if np.isfinite(q).all() else float("inf")
    # drift: the error of the support point's lift implied by the angles (small deflection), m
    arm = scenes.BEAM["link"] * (15.5 - np.arange(16))
    lift_err = float(abs(np.sum((q - ref) * arm))) if np.isfinite(q).all() else float("inf")
    stable = stable and err < 0.05
    return dict(angle_error=err, max_penetration_m=float(pen), drift_m=lift_err, stable=stable,
                step_us=elapsed / max(done, 1) * 1e6)


BEAM_ENGINES = [(f"ncpgym-{s}", dict(BEAM_BUDGET, implicit_springs=False, linear=s))
                for s in ("pcr", "pcg", "jacobi", "gauss_seidel", "ldlt")] + [
    ("ncpgym-pcr-implicit-springs", dict(BEAM_BUDGET)),
    ("ncpgym-jacobi-implicit-springs", dict(BEAM_BUDGET, linear="jacobi")),
    ("mujoco-default", {}), ("mujoco-implicitfast", {}), ("mujoco-stiff", {})]


def beam_convergence(out_dir: Path):
    """The seed's Fig. 18: the NCP residual per Newton iteration of one step of the loaded
    beam (springs as rows), per linear solver at 50 iterations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = scenes.fetch_beam(timestep=H)
    settle = ncpgym.Simulator(m, implicit_springs=False)
    z0 = float(settle.mocap_pos[0, 2])
    for k in range(int(round(BEAM_SECONDS / H))):
        settle.mocap_pos[0, 2] = _support_height(k, z0)
        settle.step()
    curves = {}
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for label in ("pcr", "pcg", "jacobi", "gauss_seidel", "ldlt"):
        sim = ncpgym.Simulator(m, newton_iterations=20, linear_iterations=50, implicit_springs=False, linear=label)
        sim.q[:], sim.u[:], sim.mocap_pos[:] = settle.q, settle.u, settle.mocap_pos
        diverged = False
        try:
            sim.step()
        except RuntimeError:
            diverged = True
        r = np.maximum(np.array(sim.solver_stats["residual"])[:20], 1e-16)
        curves[f"fetch_beam:{label}"] = r.tolist()
        ax.semilogy(np.minimum(r, 1e8), label=label + (" (diverges)" if diverged else ""))
    ax.set_ylim(1e-14, 1e9)
    ax.set_xlabel("Newton iteration")
    ax.set_ylabel("max |NCP residual|")
    ax.set_title("Fetch beam, springs as rows (50 linear iterations)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_dir / "convergence_fetch_beam.png", dpi=120)
    plt.close(fig)
    return curves


# ---------------------------------------------------------------- convergence plots
def convergence(out_dir: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m, q0 = scenes.heavy_stack(MASSES, half=HALF, timestep=H)
    settle = ncpgym.Simulator(m)  # a settled stack (PCR), then one step per variant
    settle.q[:] = q0
    settle.step(nsteps=60)
    curves = {}
    for key, opts in [("linear", [("pcr", {}), ("pcg", {"linear": "pcg"}),
                                  ("jacobi", {"linear": "jacobi"}),
                                  ("gauss_seidel", {"linear": "gauss_seidel"}),
                                  ("ldlt", {"linear": "ldlt"})]),
                      ("rscale", [("effective_mass", {"rscale": "effective_mass"}), ("time_step", {"rscale": "time_step"}),
                                  ("identity", {"rscale": "identity"})])]:
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for label, o in opts:
            sim = ncpgym.Simulator(m, newton_iterations=30, tolerance=0, **o)  # every iteration plotted
            sim.q[:], sim.u[:] = settle.q, settle.u
            try:
                sim.step()
            except RuntimeError:
                pass  # diverged: the residual history up to the blow-up is still recorded
            r = np.maximum(np.array(sim.solver_stats["residual"]), 1e-16)
            curves[f"{key}:{label}"] = r.tolist()
            ax.semilogy(r, label=label)
        ax.set_xlabel("Newton iteration")
        ax.set_ylabel("max |NCP residual|")
        ax.set_title(f"heavy stack 4096:1, by {'linear solver' if key == 'linear' else 'r-factor'}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out_dir / f"convergence_{key}.png", dpi=120)
        plt.close(fig)
    return curves


SECONDS = {"incline": 5.0, "heavy_stack": 10.0, "arch": 10.0, "pile": 6.0, "rocks": 6.0,
           "table_pile": 6.0, "stiff_chain": 2.0, "humanoid": 10000 * H}


def _print_row(r):
    extra = (f"  rest_pen {r['rest_penetration_m']:.2e} m, {r['contacts']} contacts"
             if "contacts" in r else "")
    print(f"{r['scene']:<12}{r['engine']:<26}{r['max_penetration_m']:>11.2e}{r['drift_m']:>11.2e}"
          f"{str(r['stable']):>8}{r['step_us']:>9.0f}{extra}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "contact_scenes.json")
    ap.add_argument("--scenes", nargs="+", choices=[*SECONDS, "fetch_beam", *EQUALITY_SCENES], metavar="SCENE",
                    help="run only these scenes (contact: " + ", ".join(SECONDS) + ", fetch_beam; equality: "
                    + ", ".join(EQUALITY_SCENES) + "); their rows replace the same scenes' rows "
                    "in an existing --json file, whose other rows, humanoid seeds and "
                    "convergence curves are kept (those two run only without --scenes)")
    args = ap.parse_args(argv)
    chosen = set(args.scenes or [*SECONDS, "fetch_beam", *EQUALITY_SCENES])
    rows = []
    print(f"{'scene':<12}{'engine':<26}{'max_pen_m':>11}{'drift_m':>11}{'stable':>8}{'step_us':>9}")
    for scene, secs in SECONDS.items():
        if scene not in chosen:
            continue
        runs = [("ncpgym-pcr", lambda: run_ncpgym(scene, secs))]
        if scene in SEED_COUNTS:  # at the seed's Table 2 counts
            nw, nl = SEED_COUNTS[scene]
            runs += [(f"ncpgym-pcr-{nw}x{nl}",
                      lambda nw=nw, nl=nl: run_ncpgym(scene, secs, newton_iterations=nw, linear_iterations=nl))]
        if scene == "arch":
            runs += [("ncpgym-pcr-block", lambda: run_ncpgym(scene, secs, block_preconditioner=True)),
                     ("ncpgym-ldlt-eps1e-4", lambda: run_ncpgym(scene, secs, linear="ldlt", regularization=1e-4))]
        if scene in ("incline", "heavy_stack", "arch", *PILES, "humanoid"):  # DESIGN: warm start on the hard scenes
            runs += [("ncpgym-pcr-cold", lambda: run_ncpgym(scene, secs, **COLD))]
        if scene in ("arch", "humanoid", "heavy_stack"):  # the seed's Newton iteration, no safeguards
            runs += [("ncpgym-pcr-seed-newton", lambda: run_ncpgym(scene, secs, **SEED_NEWTON))]
        if scene in PILES:  # the direct solve of the primal KKT system (docs/architecture.md)
            runs += [("ncpgym-kkt", lambda: run_ncpgym(scene, secs, linear="kkt"))]
        if scene in (*PILES, "arch", "heavy_stack"):  # ... with Marquardt damping of the impulses
            runs += [("ncpgym-kkt-prox1e-3", lambda: run_ncpgym(scene, secs, linear="kkt", proximal=1e-3))]
        if scene in ("incline", "heavy_stack", "arch"):
            runs += [(f"ncpgym-{s}", (lambda s=s: run_ncpgym(scene, secs, linear=s)))
                     for s in ("pcg", "jacobi", "gauss_seidel")]
        runs += [("mujoco-default", lambda: run_mujoco(scene, secs, False)),
                 ("mujoco-stiff", lambda: run_mujoco(scene, secs, True))]
        for engine, fn in runs:
            r = dict(scene=scene, engine=engine, **fn())
            rows.append(r)
            _print_row(r)
    if "fetch_beam" in chosen:
        print(f"{'scene':<12}{'engine':<32}{'angle_err':>11}{'max_pen_m':>11}{'stable':>8}{'step_us':>9}")
        for engine, opts in BEAM_ENGINES:
            r = dict(scene="fetch_beam", engine=engine, **run_fetch_beam(engine, **opts))
            rows.append(r)
            print(f"{'fetch_beam':<12}{engine:<32}{r['angle_error']:>11.2e}{r['max_penetration_m']:>11.2e}"
                  f"{str(r['stable']):>8}{r['step_us']:>9.0f}")
        beam_curves = beam_convergence(args.json.parent)
    if chosen & set(EQUALITY_SCENES):
        print(f"{'scene':<12}{'engine':<26}{'max_viol_m':>11}{'end_viol':>11}{'stable':>8}{'step_us':>9}")
    for scene in EQUALITY_SCENES:
        if scene not in chosen:
            continue
        for engine, opts in (("ncpgym-pcr", {}), ("ncpgym-damped", {"line_search": False}),
                             ("ncpgym-full-step", {"smooth_full_step": True, "line_search": False}),
                             ("mujoco-default", {}), ("mujoco-stiff", {})):
            r = dict(scene=scene, engine=engine, **run_equality(scene, engine, **opts))
            rows.append(r)
            print(f"{scene:<12}{engine:<26}{r['max_violation_m']:>11.2e}{r['drift_m']:>11.2e}"
                  f"{str(r['stable']):>8}{r['step_us']:>9.0f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    meta = {"command": f"python benchmarks/contact_scenes.py --json {args.json}",
            "timestep": H, "ncpgym": ncpgym.__version__, "mujoco": mujoco.__version__,
            "note": "arch: PCR with the default 50 iterations creeps; see ncpgym-ldlt-eps1e-4"}
    if args.scenes:  # merge into the existing results: replace the chosen scenes' rows only
        old = json.loads(args.json.read_text()) if args.json.is_file() else {"scenes": []}
        kept = [r for r in old["scenes"] if r["scene"] not in chosen]
        order = [*SECONDS, "fetch_beam", *EQUALITY_SCENES]  # scene order of a full run
        old["scenes"] = sorted(kept + rows, key=lambda r: order.index(r["scene"]))
        if "fetch_beam" in chosen:
            old.setdefault("convergence", {}).update(beam_curves)
        old.setdefault("meta", meta)
        old["meta"]["partial_runs"] = old["meta"].get("partial_runs", []) + [
            f"python benchmarks/contact_scenes.py --scenes {' '.join(args.scenes)} "
            f"(ncpgym {ncpgym.__version__}, mujoco {mujoco.__version__})"]
        args.json.write_text(json.dumps(old, indent=1) + "\n")
        print(f"updated {args.json} ({len(rows)} rows)")
        return
    # The humanoid is chaotic: one trajectory's worst step says little, so report seeds 0-11.
    seeds = {}
    nw, nl = SEED_COUNTS["humanoid"]
    for name, opts in (("default", {}), ("seed-newton", SEED_NEWTON),
                       (f"{nw}x{nl}", dict(newton_iterations=nw, linear_iterations=nl))):
        pens = [run_ncpgym("humanoid", SECONDS["humanoid"], seed=k, **opts)["max_penetration_m"] for k in range(12)]
        seeds[name] = pens
        print(f"humanoid seeds 0-11, {name:<12} max penetration per seed (mm): "
              + " ".join(f"{p * 1e3:.2f}" for p in pens) + f" | worst {max(pens) * 1e3:.2f}")
    curves = {**convergence(args.json.parent), **beam_curves}
    args.json.write_text(json.dumps({"scenes": rows, "convergence": curves,
                                     "humanoid_seeds_max_penetration_m": seeds, "meta": meta},
                                    indent=1) + "\n")
    print(f"wrote {args.json} and convergence_*.png")


if __name__ == "__main__":
    main()
