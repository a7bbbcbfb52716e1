"""Soak (issue 25): random actions on every registered task, every world autoresetting,
for a wall-clock budget per task, and the process's memory over many resets and env
constructions. Not a test (it runs for an hour); its figures go in the JSON.

Per task: world-steps, episodes, non-finite observations or rewards that reached the user
(must be 0: a diverging world is reported in info["diverged"] and reset with its last
finite observation), diverged worlds, the deepest contact penetration any step left
(Batch.contact_depth), resident memory before and after. Memory: RSS growth over
--resets resets of a 16-world humanoid env and --constructions constructions and
closures of a 16-world pendulum env (after a warm-up of each).

    python benchmarks/soak.py --seconds-per-task 300 --json benchmarks/results/soak.json
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym

# worlds per task: many where a step is cheap, few where it is heavy (soft bodies, meshes)
WORLDS = {"ncpgym/Humanoid-v0": 256, "ncpgym/HumanoidFlagrun-v0": 256, "ncpgym/HumanoidFlagrunHarder-v0": 256,
          "ncpgym/InvertedPendulum-v0": 256, "ncpgym/PneuNetGrasp-v0": 16, "ncpgym/YuMiDrawer-v0": 64,
          "ncpgym/AllegroSqueeze-v0": 8, "ncpgym/AllegroGrasp-v0": 8, "ncpgym/FetchTomato-v0": 8,
          "ncpgym/FetchBeamInsert-v0": 16}


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def soak(env_id: str, worlds: int, seconds: float, threads: int, seed: int, kwargs=None) -> dict:
    rss0 = rss_mb()
    envs = gym.make_vec(env_id, num_envs=worlds, num_threads=threads, **(kwargs or {}))
    batch = envs.unwrapped.batch
    envs.reset(seed=seed)
    envs.action_space.seed(seed)
    steps = episodes = diverged = nonfinite = 0
    deepest = 0.0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, reward, term, trunc, info = envs.step(envs.action_space.sample())
        steps += 1
        episodes += int(np.sum(term | trunc))
        diverged += int(np.sum(info.get("diverged", 0)))
        nonfinite += int(np.sum(~np.isfinite(obs).all(axis=1)) + np.sum(~np.isfinite(reward)))
        deepest = max(deepest, float(np.max(batch.contact_depth)))
    elapsed = time.perf_counter() - t0
    envs.close()
    del envs, batch
    gc.collect()
    name = env_id + (" " + json.dumps(kwargs, sort_keys=True) if kwargs else "")
    return {"task": name, "worlds": worlds, "threads": threads, "seconds": round(elapsed, 1),
            "world_steps": steps * worlds, "world_steps_per_s": round(steps * worlds / elapsed),
            "episodes": episodes, "nonfinite_escaped": nonfinite, "diverged_worlds": diverged,
            "max_penetration_m": deepest, "rss_before_mb": round(rss0, 1), "rss_after_mb": round(rss_mb(), 1)}


def memory(resets: int, constructions: int) -> dict:
    envs = gym.make_vec("ncpgym/Humanoid-v0", num_envs=16, num_threads=1)
    for i in range(1000):
        envs.reset(seed=i)
    gc.collect()
    r0 = rss_mb()
    for i in range(resets):
        envs.reset(seed=i)
    gc.collect()
    r1 = rss_mb()
    envs.close()
    for _ in range(100):
        gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=16, num_threads=1).close()
    gc.collect()
    c0 = rss_mb()
    t0 = time.perf_counter()
    for k in range(constructions):
        e = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=16, num_threads=1)
        e.reset(seed=k)
        e.close()
        if k % 1000 == 999:
            gc.collect()
    gc.collect()
    c1 = rss_mb()
    return {"resets": resets, "reset_rss_growth_mb": round(r1 - r0, 2), "constructions": constructions,
            "construction_rss_growth_mb": round(c1 - c0, 2),
            "construction_ms": round(1e3 * (time.perf_counter() - t0) / max(constructions, 1), 2)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--seconds-per-task", type=float, default=300.0, help="wall-clock budget of each task")
    ap.add_argument("--tasks", nargs="*", default=list(ncpgym.TASK_IDS), help="task ids (default: every one)")
    ap.add_argument("--threads", type=int, default=1, help="physics threads")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resets", type=int, default=100_000, help="resets of the memory check (0: skip it)")
    ap.add_argument("--constructions", type=int, default=100_000, help="env constructions of the memory check")
    ap.add_argument("--env-kwargs", type=json.loads, default={},
                    help="task keyword arguments (JSON) for every task of this run (a variant's rows are "
                         "named by task id and arguments)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--update", action="store_true",
                    help="replace only these tasks' rows in an existing --json (its other rows and memory kept)")
    args = ap.parse_args(argv)
    rows = []
    for env_id in args.tasks:
        row = soak(env_id, WORLDS.get(env_id, 16), args.seconds_per_task, args.threads, args.seed,
                   args.env_kwargs)
        rows.append(row)
        print(f"{row['task']:34s} {row['world_steps']:>11,d} world-steps ({row['world_steps_per_s']:,}/s)  "
              f"episodes {row['episodes']:>7,d}  non-finite {row['nonfinite_escaped']}  diverged "
              f"{row['diverged_worlds']}  deepest {1e3 * row['max_penetration_m']:.2f} mm  "
              f"RSS {row['rss_before_mb']:.0f} -> {row['rss_after_mb']:.0f} MB", flush=True)
    out = {"rows": rows, "total_world_steps": sum(r["world_steps"] for r in rows),
           "command": "python benchmarks/soak.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    if args.resets:
        out["memory"] = memory(args.resets, args.constructions)
        print("memory:", out["memory"], flush=True)
    print(f"total: {out['total_world_steps']:,} world-steps, "
          f"{sum(r['nonfinite_escaped'] for r in rows)} non-finite values escaped")
    if args.json is not None:
        if args.update and args.json.is_file():
            old = json.loads(args.json.read_text())
            merged = {r["task"]: r for r in old["rows"]}
            merged.update({r["task"]: r for r in rows})
            rows = list(merged.values())
            out = {**old, "rows": rows, "total_world_steps": sum(r["world_steps"] for r in rows),
                   "updated": old.get("updated", []) + [out["command"]]}
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
