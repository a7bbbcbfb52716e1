"""When does sharding over Ray pay off? Env steps per second of the local batch against
RayVectorEnv with 1 and 2 workers, and the cost of the Ray round trip.

    python benchmarks/cluster.py --json benchmarks/results/cluster.json

Rows: {"engine", "task", "num_envs", "workers", "threads_per_worker", "env_steps_per_s",
"step_ms", "round_trip_ms"}; round_trip_ms is the extra wall time per step over the local
batch with the same total threads, i.e. what one fan-out/gather through Ray costs. On one
2-core machine sharding cannot add compute; the figures show the overhead users pay
before adding machines.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import ray

import ncpgym  # noqa: F401
from ncpgym.cluster import RayVectorEnv


def timed(env, n: int, seconds: float) -> float:
    acts = np.random.default_rng(0).uniform(-0.4, 0.4, (16, n, 17))
    env.reset(seed=0)
    for k in range(3):
        env.step(acts[k])
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.step(acts[steps % 16])
        steps += 1
    return (time.perf_counter() - t0) / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--num-envs", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--task", default="ncpgym/Humanoid-v0")
    args = ap.parse_args()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    rows = []
    for n in args.num_envs:
        local = gym.make_vec(args.task, num_envs=n, num_threads=2)
        base = timed(local, n, args.seconds)
        local.close()
        rows.append({"engine": "local", "task": args.task, "num_envs": n, "workers": 0, "threads_per_worker": 2,
                     "env_steps_per_s": n / base, "step_ms": 1e3 * base, "round_trip_ms": 0.0})
        for workers, threads in ((1, 2), (2, 1)):
            env = RayVectorEnv(args.task, n, num_workers=workers, cpus_per_worker=threads)
            dt = timed(env, n, args.seconds)
            env.close()
            rows.append({"engine": "ray", "task": args.task, "num_envs": n, "workers": workers,
                         "threads_per_worker": threads, "env_steps_per_s": n / dt, "step_ms": 1e3 * dt,
                         "round_trip_ms": 1e3 * (dt - base)})
        for r in rows[-3:]:
            print(f"{r['engine']:6s} N={n:5d} workers={r['workers']} threads={r['threads_per_worker']} "
                  f"{r['env_steps_per_s']:9.0f} env-steps/s  {r['step_ms']:7.2f} ms/step  "
                  f"overhead {r['round_trip_ms']:6.2f} ms", flush=True)
    ray.shutdown()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows}, indent=1))
        print("wrote", args.json)


if __name__ == "__main__":
    main()
