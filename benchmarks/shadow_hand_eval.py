"""ncpgym/ShadowHandBlock-v0: how far a controller turns the block towards its goal.

    python benchmarks/shadow_hand_eval.py --policy benchmarks/results/training/<run>/final.pt \\
        --json benchmarks/results/shadow_hand_eval.json

One episode per world (64 by default, 100 env steps each, the task's reset distribution
from one seed) for each controller: the trained policy's mean action and its sampled
actions, uniform random actions, and zero actions (every servo at mid-range: the pose the
block settles in). Per controller: success at the episode's end (d < 0.1 rad), the mean
rotation error d at the start, at the end and at its smallest, the share of episodes that
turned the block at least 0.5 rad closer to its goal, and the share that dropped it. What
limits learning shows here: whether the policy turns the block at all, and how that compares
with what random motion of the fingers does by chance.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the task ids)
from ncpgym.play import load_policy


def run(kind: str, episodes: int, seed: int, policy: Path | None) -> dict:
    envs = gym.make_vec("ncpgym/ShadowHandBlock-v0", num_envs=episodes, autoreset_mode="same_step")
    act = None
    if kind.startswith("trained"):  # (loading resets the envs: before ours)
        act = load_policy(policy, envs, deterministic=kind == "trained (mean action)")
    obs, info = envs.reset(seed=seed)
    start = np.asarray(info["rotation_error"], float).copy()
    envs.action_space.seed(seed)
    best, last = start.copy(), start.copy()
    success = np.zeros(episodes, bool)
    dropped = np.zeros(episodes, bool)
    done = np.zeros(episodes, bool)
    while not done.all():
        if act is not None:
            a = act(obs)
        elif kind == "random":
            a = envs.action_space.sample()
        else:
            a = np.zeros(envs.action_space.shape, np.float32)
        obs, _, term, trunc, info = envs.step(a)
        live = ~done
        d = np.asarray(info["rotation_error"], float)
        best[live] = np.minimum(best[live], d[live])
        last[live] = d[live]
        ended = (term | trunc) & live
        success[ended] = np.asarray(info["is_success"])[ended]
        dropped[ended] = np.asarray(info["dropped"])[ended]
        done |= ended
    envs.close()
    return {"controller": kind, "episodes": episodes, "success": float(success.mean()),
            "d_start": float(start.mean()), "d_end": float(last.mean()), "d_best": float(best.mean()),
            "turned_0.5rad_closer": float(np.mean(start - best >= 0.5)), "dropped": float(dropped.mean())}


def table(rows: list[dict]) -> None:
    print("| controller | success | d at start (rad) | d at end | smallest d | turned >= 0.5 rad closer | dropped |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['controller']} | {100 * r['success']:.0f} % | {r['d_start']:.2f} | {r['d_end']:.2f} | "
              f"{r['d_best']:.2f} | {100 * r['turned_0.5rad_closer']:.0f} % | {100 * r['dropped']:.0f} % |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", type=Path, help="print the markdown table of this JSON and stop")
    ap.add_argument("--policy", type=Path)
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.table:
        return table(json.loads(args.table.read_text())["rows"])
    if args.policy is None:
        ap.error("--policy is required (or --table)")
    rows = [run(k, args.episodes, args.seed, args.policy)
            for k in ("trained (mean action)", "trained (sampled)", "random", "zero")]
    table(rows)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "policy": str(args.policy), "seed": args.seed,
                                         "command": f"python benchmarks/shadow_hand_eval.py --policy {args.policy} "
                                                    f"--json {args.json}"}, indent=1))
        print("wrote", args.json)


if __name__ == "__main__":
    main()
