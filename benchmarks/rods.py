"""Rods and shells (issue 21; dismech-rods-shells.txt): the cost of a physics step for the
seed's scenes in ncpgym, and PyElastica (PyPI, MIT; an explicit Cosserat-rod code) on the same
damped cantilever in the same run.

    python benchmarks/rods.py --json benchmarks/results/rods.json

Rows: scene, nodes, edges, triangles, newton_iters, step_ms (median of 5 repeats of a timed
window, one thread), threads, and for the cantilever the tip deflection's error against
Euler-Bernoulli after simulating 1 s. "rod_drops": the lowest point of the dropped rod every
1 ms (the seed's Fig. 7 g; plotted to rod_drop.png beside the JSON), ncpgym at both Young's
moduli and PyElastica at 2 MPa (its penalty contact, no friction). The seed reports no run times, so PyElastica is the
peer: its explicit step is stable only at ~1e-6 s here, ncpgym's implicit one runs at 1e-3 s;
both simulate the same 1 s with the same damping rate (20 1/s) and the same clamp (the first
edge straddles x = 0).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import ncpgym
from ncpgym import rods, scenes

RHO, R, L, NU = 1200.0, 1e-3, 0.1, 0.5


def _timed(fn, repeats=5):
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def _counts(model):
    nodes = int(np.sum(~np.asarray(model.particle_ghost)))
    return nodes, int(model.nrodedge), int(len(model.shell_triangles))


def cantilever_model(young, n=20, h=1e-3, damping=20.0):
    b = ncpgym.Builder()
    b.set_timestep(h)
    l = L / (n - 0.5)
    pts = np.zeros((n + 1, 3))
    pts[:, 0] = (np.arange(n + 1) - 0.5) * l
    # viscous damping at rate eta / (rho A) = damping (1/s), implicit (soft/medium.hpp)
    b.set_medium(0.0, 0.0, damping * RHO * np.pi * R**2)
    rod = rods.add_rod(b, pts, radius=R, young=young, poisson=NU, density=RHO, normal=[0, 0, 1])
    rods.clamp(b, rod, "start")
    return b.build(), rod


def euler_bernoulli(young):
    return RHO * np.pi * R**2 * 9.81 * L**4 / (8 * young * np.pi * R**4 / 4)


def ncpgym_cantilever(young, seconds=1.0):
    model, rod = cantilever_model(young)
    sim = ncpgym.Simulator(model)
    steps = int(round(seconds / sim.timestep))
    t0 = time.perf_counter()
    sim.step(nsteps=steps)
    wall = time.perf_counter() - t0
    tip = -sim.x[rod.nodes[-1], 2]
    nodes, edges, tris = _counts(model)
    return {"scene": f"cantilever E={young:g}", "simulator": "ncpgym", "nodes": nodes, "edges": edges, "triangles": tris,
            "newton_iters": int(sim.solver_stats["newton_iterations"]), "h": sim.timestep,
            "step_ms": 1e3 * wall / steps, "threads": 1, "sim_seconds": seconds, "wall_s": wall,
            "tip_error": (tip - euler_bernoulli(young)) / euler_bernoulli(young)}


def pyelastica_cantilever(young, seconds=1.0, dt=2e-6, n=20, damping=20.0):
    import elastica as ea

    class Sim(ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping):
        pass

    def build():
        sim = Sim()
        dl = L / (n - 0.5)
        rod = ea.CosseratRod.straight_rod(n, np.array([-dl / 2, 0, 0]), np.array([1.0, 0, 0]),
                                          np.array([0, 0, 1.0]), n * dl, R, RHO, youngs_modulus=young,
                                          shear_modulus=young / (2 * (1 + NU)))
        sim.append(rod)
        sim.constrain(rod).using(ea.OneEndFixedBC, constrained_position_idx=(0,), constrained_director_idx=(0,))
        sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.array([0, 0, -9.81]))
        sim.dampen(rod).using(ea.AnalyticalLinearDamper, uniform_damping_constant=damping, time_step=dt)
        sim.finalize()
        return sim, rod

    warm, _ = build()
    ea.integrate(ea.PositionVerlet(), warm, 10 * dt, 10, progress_bar=False)  # numba compiles first
    sim2, rod = build()
    steps = int(round(seconds / dt))
    t0 = time.perf_counter()
    ea.integrate(ea.PositionVerlet(), sim2, seconds, steps, progress_bar=False)
    wall = time.perf_counter() - t0
    tip = -rod.position_collection[2, -1]
    return {"scene": f"cantilever E={young:g}", "simulator": "pyelastica", "nodes": n + 1, "edges": n, "triangles": 0,
            "newton_iters": 0, "h": dt, "step_ms": 1e3 * wall / steps, "threads": 1, "sim_seconds": seconds,
            "wall_s": wall, "tip_error": (tip - euler_bernoulli(young)) / euler_bernoulli(young)}


def stepping_row(name, model, setup=None, steps=200, **opts):
    sim = ncpgym.Simulator(model, **opts)
    if setup:
        setup(sim)
    sim.step(nsteps=20)  # past the first step's set-up
    ms = 1e3 * _timed(lambda: sim.step(nsteps=steps)) / steps
    assert np.isfinite(sim.x).all()
    nodes, edges, tris = _counts(model)
    return {"scene": name, "simulator": "ncpgym", "nodes": nodes, "edges": edges, "triangles": tris,
            "newton_iters": int(sim.solver_stats["newton_iterations"]), "h": sim.timestep, "step_ms": ms,
            "threads": 1}


def pneunet_rod(kappa=31.45):
    # the seed's Fig. 4 rod: 0.1 m, r 1 mm, E 20 GPa, nu 0.5, rho 1200, clamped, natural curvature
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    rod = rods.add_rod(b, rods.straight([0, 0, 0.3], [0.1, 0, 0.3], 20), radius=1e-3, young=2e10, poisson=0.5,
                       density=1200.0, normal=[0, 0, 1], group=0)
    rods.clamp(b, rod, "start")

    def setup(sim):
        sim.activation[0] = kappa

    return b.build(), setup


def rod_drop(young):
    # the seed's Fig. 7: rho 1500, nu 0.3, mu 0.25, from 55 cm; a 10 cm rod tilted 30 degrees
    b = ncpgym.Builder()
    b.set_timestep(1e-3)
    b.add_geom(0, "plane", friction=[0.25, 0.005, 0.0001])
    d = np.array([np.cos(np.pi / 6), 0, -np.sin(np.pi / 6)]) * 0.1
    start = np.array([0, 0, 0.6])
    rods.add_rod(b, rods.straight(start, start + d, 20), radius=1e-3, young=young, poisson=0.3, density=1500.0,
                 friction=0.25, normal=[0, 1, 0])
    return b.build()


def rod_drop_trajectory(young, seconds=1.0):
    """Lowest point of the rod's surface (m) every 1 ms: ncpgym, hard contact with mu 0.25."""
    model = rod_drop(young)
    sim = ncpgym.Simulator(model)
    nodes = np.flatnonzero(~np.asarray(model.particle_ghost))
    low = []
    t0 = time.perf_counter()
    for _ in range(int(round(seconds / sim.timestep))):
        sim.step()
        low.append(float(sim.x[nodes, 2].min() - R))
    return {"simulator": "ncpgym", "young": young, "h": sim.timestep, "wall_s": time.perf_counter() - t0,
            "lowest": low, "deepest_m": -min(0.0, min(low))}


def pyelastica_rod_drop(young, seconds=1.0, dt=1e-5, k=1e3, nu_c=1.0):
    """The same drop in PyElastica: its rod-plane contact is a penalty spring k (N/m per
    element) with damping nu_c and no friction (Gazzola et al. 2018, eq. 4.8)."""
    import elastica as ea

    class Sim(ea.BaseSystemCollection, ea.Forcing, ea.Contact, ea.CallBacks):
        pass

    class Lowest(ea.CallBackBaseClass):
        def __init__(self, every, out):
            super().__init__()
            self.every, self.out = every, out

        def make_callback(self, system, time, current_step):
            if current_step % self.every == 0:
                self.out.append(float(system.position_collection[2].min() - R))

    sim = Sim()
    d = np.array([np.cos(np.pi / 6), 0, -np.sin(np.pi / 6)])
    rod = ea.CosseratRod.straight_rod(20, np.array([0, 0, 0.6]), d, np.array([0, 1.0, 0]), 0.1, R, 1500.0,
                                      youngs_modulus=young, shear_modulus=young / (2 * 1.3))
    plane = ea.Plane(plane_origin=np.zeros(3), plane_normal=np.array([0, 0, 1.0]))
    sim.append(rod)
    sim.append(plane)
    sim.detect_contact_between(rod, plane).using(ea.RodPlaneContact, k=k, nu=nu_c)
    sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.array([0, 0, -9.81]))
    low: list[float] = []
    every = int(round(1e-3 / dt))
    sim.collect_diagnostics(rod).using(Lowest, every=every, out=low)
    sim.finalize()
    t0 = time.perf_counter()
    ea.integrate(ea.PositionVerlet(), sim, seconds, int(round(seconds / dt)), progress_bar=False)
    return {"simulator": "pyelastica", "young": young, "h": dt, "wall_s": time.perf_counter() - t0,
            "lowest": low[1:], "deepest_m": -min(0.0, min(low))}


def plot_drops(drops, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for d in drops:
        t = 1e-3 * np.arange(1, len(d["lowest"]) + 1)
        ax.plot(t, d["lowest"], label=f"{d['simulator']}, E = {d['young']:g} Pa",
                ls="-" if d["simulator"] == "ncpgym" else "--")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("lowest point (m)")
    ax.set_title("rod dropped from 0.55 m (seed Fig. 7 g)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--no-pyelastica", action="store_true", help="skip the PyElastica rows")
    args = ap.parse_args(argv)
    rows = []
    for young in (2e8,):
        rows.append(ncpgym_cantilever(young))
        if not args.no_pyelastica:
            try:
                rows.append(pyelastica_cantilever(young))
            except ImportError:
                print("pyelastica not installed (pip install pyelastica): its rows are skipped", file=sys.stderr)
    model, setup = pneunet_rod()
    rows.append(stepping_row("pneunet rod kappa=31.45", model, setup))
    manta, _ = scenes.manta_ray()
    rows.append(stepping_row("manta ray", manta))
    rows.append(stepping_row("parachute", scenes.parachute()[0]))
    for young in (2e6, 2e9):
        rows.append(stepping_row(f"rod drop E={young:g}", rod_drop(young)))
    drops = [rod_drop_trajectory(young) for young in (2e6, 2e9)]
    if not args.no_pyelastica:
        try:
            drops.append(pyelastica_rod_drop(2e6))
        except ImportError:
            pass
    for d in drops:
        print(f"rod drop {d['simulator']} E={d['young']:g}: deepest {1e3 * d['deepest_m']:.2f} mm, "
              f"rests at {1e3 * d['lowest'][-1]:.2f} mm, 1 s in {d['wall_s']:.2f} s")
    cols = ["scene", "simulator", "nodes", "edges", "triangles", "newton_iters", "h", "step_ms", "wall_s", "tip_error"]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(f"{r[c]:.4g}" if isinstance(r.get(c), float) else str(r.get(c, "")) for c in cols))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows, "rod_drops": drops}, indent=1))
        plot_drops(drops, args.json.with_name("rod_drop.png"))
    return rows


if __name__ == "__main__":
    main()
