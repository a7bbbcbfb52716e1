"""Markdown table of benchmarks/results/throughput.json for the README."""

import json
import sys
from pathlib import Path

path = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/throughput.json")
d = json.loads(path.read_text())
rows = d["rows"]


def get(engine, n, t, dt=None):
    for r in rows:
        if r["engine"] == engine and r["num_envs"] == n and r["threads"] == t and (dt is None or r["physics_dt"] == dt):
            return r
    return None


def k(x):
    return "-" if x is None else f"{x['env_steps_per_s'] / 1e3:.1f}k"


ns = sorted({r["num_envs"] for r in rows})
ts = sorted({r["threads"] for r in rows})
ncp_dt = next(r["physics_dt"] for r in rows if r["engine"] == "ncpgym")
print("| N | threads | ncpgym Humanoid-v0 | Python share | MuJoCo rollout, 0.003 s × 5 | MuJoCo rollout, "
      f"{ncp_dt} s × 2 | EnvPool Humanoid-v4 | Gymnasium sync | vs MuJoCo own dt | vs MuJoCo same dt |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n in ns:
    for t in ts:
        ours = get("ncpgym", n, t)
        own, same = get("mujoco.rollout", n, t, 0.003), get("mujoco.rollout", n, t, ncp_dt)
        gym_ = get("gymnasium-sync", n, 1) if t == 1 else None
        r1 = ours["env_steps_per_s"] / own["env_steps_per_s"] if ours and own else None
        r2 = ours["env_steps_per_s"] / same["env_steps_per_s"] if ours and same else None
        print(f"| {n} | {t} | {k(ours)} | {100 * ours['python_overhead_frac']:.1f} % | {k(own)} | {k(same)} | "
              f"{k(get('envpool', n, t))} | {k(gym_)} | {r1:.2f} | {r2:.2f} |")
