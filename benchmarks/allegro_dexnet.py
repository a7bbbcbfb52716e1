"""The seed's Allegro DexNet scene (Macklin et al. 2019 §10.1.3, Fig. 10; Table 2: 104
contacts, 8 Newton / 20 linear iterations, 10.4 ms per step on its GPU at h = 0.0083 s):
the Allegro hand pinches each irregular object of AllegroGrasp-v0's sets off a table,
lifts it 12 cm and holds it 2 s, in ncpgym and in MuJoCo on the same model.

    python benchmarks/allegro_dexnet.py [--sets train test] [--json benchmarks/results/allegro_dexnet.json]

One world per object (the object alone on the table, its centre of mass under the pinch
point, no parked objects), the same open-loop script for both engines: descend to the
task's grasp height (``tasks.allegro_grasp.pinch_height``), close the pinch synergy to
s = 1.3, wait 0.3 s, lift 12 cm, hold 2 s. Per engine: objects held (10 cm up at the end
and moved < 5 mm relative to the palm over the 2 s hold), mean and worst slip, deepest
contact penetration over the run, most contacts in a step, time per step (one core).
MuJoCo runs the ncpgym Model exported with ``ncpgym.models.to_mjcf`` (so the same CoACD
parts) with the implicitfast integrator (the servos' velocity gains need it), once
with its defaults and once with its documented settings for hard,
non-slipping contact (elliptic cones, impratio 10, noslip 10).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import mujoco
import numpy as np

import ncpgym
from ncpgym.envs import allegro
from ncpgym.models import from_mujoco, to_mjcf
from ncpgym.tasks import allegro_grasp as ag

ROOT = Path(__file__).resolve().parents[1]
H = ag.H
SEED_SOLVER = {"newton_iterations": 8, "linear_iterations": 20}  # Table 2, Allegro DexNet
SETTLE, DESCEND, CLOSE, WAIT, LIFT, HOLD = 0.3, 0.8, 0.8, 0.3, 0.7, 2.0
APPROACH, LIFT_BY = 0.05, 0.12


def world(obj: ncpgym.objects.MeshObject):
    """(ncpgym Model, q0) of one object's world: the fingers open, the object at rest."""
    v = np.concatenate([p[0] for p in obj.parts])
    h = float(np.ptp(v[:, 2]))
    origin = np.array([0.0, 0.0, ag.TABLE_TOP + ag.pinch_height(h) + allegro.GRASP_DEPTH + APPROACH])

    def edit(spec):
        ag.add_table(spec)
        body = spec.worldbody.add_body(name="object", pos=[allegro.GRASP_X, 0.0, ag.TABLE_TOP - v[:, 2].min() + 5e-4])
        body.add_freejoint()
        obj.add_to(spec, body, friction=(allegro.FRICTION, 0.005, 0.0001))

    mj = allegro.hand_world(H, palm="down", origin=origin, edit=edit)
    model = from_mujoco(mj, source=obj.name)
    q0 = mj.qpos0.copy()
    q0[6:22] = allegro.grasp_synergy(0.0)  # wrist (6), fingers (16), the object's free joint (7)
    return model, q0


def script(t: float) -> tuple[float, float]:
    """(wrist z target, closure) at time t."""
    t1 = SETTLE + DESCEND
    t2 = t1 + CLOSE
    t3 = t2 + WAIT
    t4 = t3 + LIFT
    if t < SETTLE:
        return 0.0, 0.0
    if t < t1:
        return -APPROACH * (t - SETTLE) / DESCEND, 0.0
    if t < t2:
        return -APPROACH, allegro.GRASP_MAX * (t - t1) / CLOSE
    if t < t3:
        return -APPROACH, allegro.GRASP_MAX
    return -APPROACH + LIFT_BY * min(1.0, (t - t3) / LIFT), allegro.GRASP_MAX


HOLD_START = SETTLE + DESCEND + CLOSE + WAIT + LIFT
STEPS = int(round((HOLD_START + HOLD) / H))


class Ncp:
    def __init__(self, model, q0):
        self.sim = ncpgym.Simulator(model, **SEED_SOLVER)
        self.sim.q[:] = q0
        self.nu = model.nu

    def step(self, ctrl):
        self.sim.ctrl[:] = ctrl
        self.sim.step()

    def q(self):
        return self.sim.q

    def contacts(self):
        c = self.sim.contacts
        d = c["dist"][~c["refreshed"]]  # detected at the step's start: the state's depth
        return len(d), (-float(d.min()) if len(d) else 0.0)


class MuJoCo:
    def __init__(self, model, q0, stiff: bool):
        self.m = mujoco.MjModel.from_xml_string(to_mjcf(model))
        self.m.opt.timestep = H
        # the servos' velocity gains (kv) need MuJoCo's implicit damping: explicit Euler
        # blows the wrist up within 0.05 s
        self.m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        if stiff:
            self.m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
            self.m.opt.impratio = 10
            self.m.opt.noslip_iterations = 10
        self.d = mujoco.MjData(self.m)
        self.d.qpos[:] = q0
        self.nu = self.m.nu

    def step(self, ctrl):
        self.d.ctrl[:] = ctrl
        mujoco.mj_step(self.m, self.d)

    def q(self):
        return self.d.qpos

    def contacts(self):
        n = self.d.ncon
        return n, (-float(self.d.contact.dist[:n].min()) if n else 0.0)


def run(engine) -> dict:
    """One scripted grasp: lift, slip over the hold, penetration, contacts, time per step."""
    ctrl = np.zeros(engine.nu)
    pen, most, rel = 0.0, 0, {}
    z0 = engine.q()[24]
    t0 = time.perf_counter()
    for k in range(STEPS):
        z, s = script(k * H)
        ctrl[2] = z
        ctrl[6:22] = allegro.grasp_synergy(s)
        engine.step(ctrl)
        n, deepest = engine.contacts()
        pen, most = max(pen, deepest), max(most, n)
        if k in (int(round(HOLD_START / H)), STEPS - 1):
            q = engine.q()
            rel[k] = q[22:25] - q[0:3]  # object minus the wrist's slide displacement
    step_us = (time.perf_counter() - t0) / STEPS * 1e6
    a, b = sorted(rel)
    slip = float(np.linalg.norm(rel[b] - rel[a]))
    lift = float(engine.q()[24] - z0)
    return {"lift_m": lift, "slip_m": slip, "held": bool(lift > 0.10 and slip < 5e-3 and np.isfinite(lift)),
            "max_penetration_m": pen, "max_contacts": most, "step_us": step_us}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="+", default=["train", "test"], choices=list(ag.OBJECT_SETS))
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "allegro_dexnet.json")
    args = ap.parse_args(argv)
    objs = [o for s in args.sets for o in ag.object_list(s)]
    engines = {"ncpgym (seed 8/20)": lambda m, q: Ncp(m, q),
               "mujoco-default": lambda m, q: MuJoCo(m, q, False),
               "mujoco-stiff": lambda m, q: MuJoCo(m, q, True)}
    per_object = []
    for obj in objs:
        model, q0 = world(obj)
        for name, make in engines.items():
            r = dict(object=obj.name, engine=name, **run(make(model, q0)))
            per_object.append(r)
            print(f"{obj.name:<16}{name:<20} lift {r['lift_m'] * 100:6.1f} cm  slip {r['slip_m'] * 1e3:6.2f} mm  "
                  f"pen {r['max_penetration_m'] * 1e3:5.2f} mm  contacts {r['max_contacts']:4d}  "
                  f"{r['step_us']:7.0f} us/step  {'held' if r['held'] else '--'}", flush=True)
    summary = []
    print(f"\n{'engine':<20}{'held':>8}{'mean slip mm':>14}{'worst pen mm':>14}{'max contacts':>14}{'us/step':>10}")
    for name in engines:
        rows = [r for r in per_object if r["engine"] == name]
        s = {"engine": name, "objects": len(rows), "held": sum(r["held"] for r in rows),
             "mean_slip_m": float(np.mean([r["slip_m"] for r in rows])),
             "max_penetration_m": max(r["max_penetration_m"] for r in rows),
             "max_contacts": max(r["max_contacts"] for r in rows),
             "step_us": float(np.median([r["step_us"] for r in rows]))}
        summary.append(s)
        print(f"{name:<20}{s['held']:>5}/{s['objects']:<2}{s['mean_slip_m'] * 1e3:>14.2f}"
              f"{s['max_penetration_m'] * 1e3:>14.2f}{s['max_contacts']:>14d}{s['step_us']:>10.0f}")
    meta = {"command": f"python benchmarks/allegro_dexnet.py --sets {' '.join(args.sets)} --json {args.json}",
            "timestep": H, "ncpgym": ncpgym.__version__, "mujoco": mujoco.__version__,
            "seed_anchor": "10.4 ms per step on the seed's GPU (Table 2, Allegro DexNet, 104 contacts)"}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"summary": summary, "objects": per_object, "meta": meta}, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
