"""HumanoidFlagrunHarder-v0 by start task (issue 63): how often a policy gets up from its back
and from its face, and then reaches flags, against random actions, on the same episodes.

One episode per world; each episode's start task is the one the task drew (walk, stand_up:
on its back, roll_over: face down; drawn in proportion to 0.1 + the start's recent failure
rate, equal shares at first). Per start task: the share of episodes whose torso is up
(z >= 0.8 m, the task's on-ground threshold) within 3 s of the start (182 env steps of
16.5 ms; for "walk", still or again up at 3 s), the share that fell for good (terminated by
the on-ground counter), flags reached per episode and the mean return.

    python benchmarks/flagrun_harder_eval.py --policy benchmarks/results/training/flagrun_harder_20min/final.pt \\
        --episodes 256 --json benchmarks/results/flagrun_harder_eval.json
    python benchmarks/flagrun_harder_eval.py --table benchmarks/results/flagrun_harder_eval.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the tasks)
from ncpgym.tasks.flagrun import DT, START_TASKS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from policy_eval import policy_or_random, table_options  # noqa: E402

UP_Z = 0.8
WITHIN = int(round(3.0 / DT))  # env steps in 3 s


def run(kind: str, episodes: int, seed: int, policy: Path | None, threads: int) -> list[dict]:
    envs = gym.make_vec("ncpgym/HumanoidFlagrunHarder-v0", num_envs=episodes, num_threads=threads)
    try:
        act = policy_or_random(kind, envs, policy, seed)
        obs, _ = envs.reset(seed=seed)
        n = episodes
        start = envs.task.start.copy()
        up_by = np.full(n, -1)  # first env step with the torso up (-1: never)
        up_at_3s = np.zeros(n, bool)
        ret, flags = np.zeros(n), np.zeros(n)
        fell = np.zeros(n, bool)
        finished = np.zeros(n, bool)
        step = 0
        while not finished.all():
            obs, r, term, trunc, info = envs.step(act(obs))
            step += 1
            live = ~finished
            z = envs.batch.q[:, 2]
            up = live & (z >= UP_Z)
            up_by[(up_by < 0) & up & (step <= WITHIN)] = step
            if step == WITHIN:
                up_at_3s |= up
            ret += np.where(live, r, 0.0)
            flags += np.where(live, info["flags_reached"], 0.0)
            done = (term | trunc) & live
            fell |= term & live
            finished |= done
    finally:
        envs.close()
    rows = []
    for k, name in enumerate(START_TASKS):
        sel = start == k
        if not sel.any():
            continue
        got_up = up_at_3s[sel] if name == "walk" else (up_by[sel] > 0)
        rows.append({"controller": kind, "start": name, "episodes": int(sel.sum()),
                     "up_within_3s": float(got_up.mean()), "fell": float(fell[sel].mean()),
                     "flags_per_episode": float(flags[sel].mean()), "return": float(ret[sel].mean())})
    rows.append({"controller": kind, "start": "all", "episodes": n,
                 "up_within_3s": float(np.where(start == 0, up_at_3s, up_by > 0).mean()), "fell": float(fell.mean()),
                 "flags_per_episode": float(flags.mean()), "return": float(ret.mean())})
    return rows


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    lines = ["| controller | start | episodes | up within 3 s | fell | flags per episode | return |",
             "|---|---|---|---|---|---|---|"]
    for r in data["rows"]:
        lines.append(f"| {r['controller']} | {r['start']} | {r['episodes']} | {100 * r['up_within_3s']:.0f} % | "
                     f"{100 * r['fell']:.0f} % | {r['flags_per_episode']:.2f} | {r['return']:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", type=Path)
    ap.add_argument("--episodes", type=int, default=256)
    table_options(ap)
    args = ap.parse_args(argv)
    if args.table is not None:
        print(table(args.table))
        return
    if args.policy is None:
        ap.error("--policy is required (or --table)")
    rows = run("trained", args.episodes, args.seed, args.policy, args.threads)
    rows += run("random", args.episodes, args.seed, None, args.threads)
    if args.json is not None:
        command = (f"python benchmarks/flagrun_harder_eval.py --policy {args.policy} --episodes {args.episodes} "
                   f"--json {args.json}")
        args.json.write_text(json.dumps({"rows": rows, "command": command}, indent=1) + "\n")
        print(table(args.json))


if __name__ == "__main__":
    main()
