"""Fischer-Burmeister against the minimum map on the humanoid (issue 20, item 4).

    python benchmarks/ncp_functions.py --json benchmarks/results/ncp_functions.json

ncpgym/Humanoid-v0's model under uniform random controls in [-1, 1] for 3,000 steps (a
reset every 300), 8 Newton iterations: diverged steps (the solver's max_speed guard; the
world is reset), the median and 90th percentile of the last Newton iterate's NCP residual
over steps with contacts, the deepest penetration, for each NCP function at several
regularizations. The minimum map's generalised Jacobian gives a contact row in the gap
branch no diagonal, so redundant contacts (more rows than dofs) leave J H^-1 J^T singular
and only the regularization bounds the Newton step (docs/architecture.md, Known limits).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import ncpgym
from ncpgym.tasks.humanoid import humanoid_xml

CASES = [("fischer_burmeister", 1e-6), ("minimum_map", 1e-6), ("minimum_map", 1e-4), ("minimum_map", 1e-3)]


def run(ncp: str, regularization: float, steps: int = 3000, seed: int = 1) -> dict:
    model = ncpgym.load_model(humanoid_xml())
    sim = ncpgym.Simulator(model, ncp=ncp, regularization=regularization)
    rng = np.random.default_rng(seed)
    q0, u0 = sim.q.copy(), sim.u.copy()
    diverged, contacts_at, final, deepest = 0, [], [], 0.0
    for k in range(steps):
        if k % 300 == 0:
            sim.q[:], sim.u[:] = q0, u0
        sim.ctrl[:] = rng.uniform(-1, 1, model.nu)
        try:
            sim.step()
        except RuntimeError:  # the max_speed guard: the state is left as it was
            diverged += 1
            contacts_at.append(len(sim.contacts["dist"]))
            sim.q[:], sim.u[:] = q0, u0
            continue
        dist = sim.contacts["dist"]
        if len(dist):
            final.append(sim.solver_stats["residual"][-1])
            deepest = max(deepest, float(-np.min(dist)))
    f = np.array(final)
    return {"ncp": ncp, "regularization": regularization, "steps": steps, "diverged_steps": diverged,
            "contacts_at_divergence": contacts_at, "residual_median": float(np.median(f)),
            "residual_p90": float(np.percentile(f, 90)), "deepest_m": deepest}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows = []
    for ncp, reg in CASES:
        r = run(ncp, reg)
        rows.append(r)
        print(f"{ncp:20s} regularization {reg:.0e}: diverged {r['diverged_steps']}/{r['steps']} "
              f"(contacts {r['contacts_at_divergence']}), final residual median {r['residual_median']:.1e} "
              f"p90 {r['residual_p90']:.1e}, deepest {1e3 * r['deepest_m']:.2f} mm", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "command": "python benchmarks/ncp_functions.py --json "
                                         + str(args.json)}, indent=1))
        print("wrote", args.json)


if __name__ == "__main__":
    main()
