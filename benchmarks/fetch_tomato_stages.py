"""FetchTomato-v0 policies by where the episode starts (issue 63): from the task's own reset
and from each stage of the scripted demonstration that ``demo_starts`` trains from (over
the tomato, down, closed, lifted, mid-carry, over the plate, lowered, opening), the share
of episodes that succeed (released on the plate, reading its mass within 5 %), drop or
crush the tomato, with the policy's mean action and with random actions. It shows how far
back from the goal a reverse curriculum has carried the policy.

One episode per world: 8 from the task's reset and the 8 stored scripted episodes' states
at each stage (``FetchTomatoTask.restore_demo``), all run for the task's 300 steps.

    python benchmarks/fetch_tomato_stages.py --policy RUN/final.pt --json benchmarks/results/fetch_tomato_stages.json
    python benchmarks/fetch_tomato_stages.py --table benchmarks/results/fetch_tomato_stages.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the tasks)
from ncpgym.tasks import fetch_tomato as ft

sys.path.insert(0, str(Path(__file__).resolve().parent))
from policy_eval import policy_or_random, table_options  # noqa: E402

NAMES = dict(zip(ft.DEMO_STAGES, ("over the tomato", "down", "closed", "lifted", "mid-carry", "over the plate",
                                  "lowered", "opening")))


def run(kind: str, policy: Path | None, mesh: int, seed: int, threads: int) -> list[dict]:
    stages = ft.demo_stages(mesh)
    per = int(np.sum(stages == stages[0]))
    n = per * (1 + len(ft.DEMO_STAGES))
    envs = gym.make_vec("ncpgym/FetchTomato-v0", num_envs=n, num_threads=threads, mesh=mesh)
    try:
        act = policy_or_random(kind, envs, policy, seed)
        obs, _ = envs.reset(seed=seed)
        start = np.zeros(n, np.int64)  # 0: the task's reset
        for j, s in enumerate(ft.DEMO_STAGES):
            worlds = np.arange(per * (j + 1), per * (j + 2))
            envs.task.restore_demo(envs.batch, worlds, np.flatnonzero(stages == s))
            start[worlds] = s
        obs = envs.task.observe(envs.batch)
        done, ok = np.zeros(n, bool), np.zeros(n, bool)
        dropped, crushed = np.zeros(n, bool), np.zeros(n, bool)
        for _ in range(ft.FetchTomatoTask.max_episode_steps):
            obs, _, term, trunc, info = envs.step(act(obs))
            live = ~done
            ok |= live & info["is_success"]
            dropped |= live & info["dropped"]
            crushed |= live & info["crushed"]
            done |= term | trunc
    finally:
        envs.close()
    rows = []
    for s in (0, *ft.DEMO_STAGES):
        m = start == s
        rows.append({"controller": kind, "start": "task reset" if s == 0 else f"step {s}: {NAMES[s]}",
                     "episodes": int(m.sum()), "success": float(ok[m].mean()), "dropped": float(dropped[m].mean()),
                     "crushed": float(crushed[m].mean())})
    return rows


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    lines = ["| controller | episode starts at | episodes | success | dropped | crushed |", "|---|---|---|---|---|---|"]
    for r in data["rows"]:
        lines.append(f"| {r['controller']} | {r['start']} | {r['episodes']} | {100 * r['success']:.0f} % | "
                     f"{100 * r['dropped']:.0f} % | {100 * r['crushed']:.0f} % |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", type=Path)
    ap.add_argument("--mesh", type=int, default=None, help="the tomato's mesh (default: the run's, from config.json)")
    table_options(ap)
    args = ap.parse_args(argv)
    if args.table is not None:
        print(table(args.table))
        return
    if args.policy is None:
        ap.error("--policy is required (or --table)")
    mesh = args.mesh
    if mesh is None:
        made = args.policy.parent / "config.json"
        mesh = (json.loads(made.read_text()).get("env_kwargs") or {}).get("mesh", 4) if made.is_file() else 4
    rows = run("trained", args.policy, mesh, args.seed, args.threads) + run("random", None, mesh, args.seed, args.threads)
    data = {"rows": rows, "mesh": mesh,
            "command": f"python benchmarks/fetch_tomato_stages.py --policy {args.policy} --json {args.json}"}
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
        print(table(args.json))


if __name__ == "__main__":
    main()
