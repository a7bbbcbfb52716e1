"""HumanoidFlagrunHarder-v0 by start task (issue 63): how often a policy gets up from its back
and from its face, and then reaches flags, against random actions, on the same episodes.

One episode per world; each episode's start task is the one the task drew (walk, stand_up:
on its back, roll_over: face down; drawn in proportion to 0.1 + the start's recent failure
rate, equal shares at first). Per start task: the share of episodes whose torso is up
(z >= 0.8 m, the task's on-ground threshold) within 3 s of the start (182 env steps of
16.5 ms; for "walk", still or again up at 3 s), the share standing (z >= 1.0 m: the
task's threshold is a deep squat; Flagrun's trained gait carries the torso at 1.12-1.23 m,
10th-90th percentile) within 3 s, the median torso height after 3 s while the episode
runs (the median over the episodes still running then: a lying start that never gets up
ends before), the share that fell for good (terminated by the on-ground counter), flags reached
per episode and the mean return. The task is made with the options of the policy's run
(its config.json, training aids left out), so the return is the one it was trained for.

    python benchmarks/flagrun_harder_eval.py --policy benchmarks/results/training/flagrun_harder_throw_110min/final.pt \\
        --episodes 256 --json benchmarks/results/flagrun_harder_eval.json
    python benchmarks/flagrun_harder_eval.py --table benchmarks/results/flagrun_harder_eval.json

``--sweep RUN`` evaluates the run's checkpoints instead (every ``--every``-th kept and
final.pt; mean action, all start tasks) and writes their "all" rows, with a plot of the
share up within 3 s against env steps: how that share moved while the return rose. Use
another ``--seed`` than the table's when the sweep picks a checkpoint, so the table judges
it on episodes it was not picked on. Checkpoints stay on the machine that trained.

    python benchmarks/flagrun_harder_eval.py --sweep benchmarks/results/training/flagrun_harder_throw_110min \\
        --every 40 --episodes 128 --seed 1 --json benchmarks/results/flagrun_harder_sweep.json
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
from policy_eval import judged_task, policy_or_random, table_options  # noqa: E402

UP_Z = 0.8  # the task's on-ground threshold
STAND_Z = 1.0  # standing, not squatting
WITHIN = int(round(3.0 / DT))  # env steps in 3 s


def run(kind: str, episodes: int, seed: int, policy: Path | None, threads: int, kwargs: dict) -> list[dict]:
    envs = gym.make_vec("ncpgym/HumanoidFlagrunHarder-v0", num_envs=episodes, num_threads=threads, **kwargs)
    try:
        act = policy_or_random(kind, envs, policy, seed)
        obs, _ = envs.reset(seed=seed)
        n = episodes
        start = envs.task.start.copy()
        thresholds = {"up": UP_Z, "standing": STAND_Z}
        ever = {k: np.zeros(n, bool) for k in thresholds}  # at the threshold within 3 s
        at_3s = {k: np.zeros(n, bool) for k in thresholds}  # at the threshold at 3 s
        heights = []  # [N] torso heights per step after 3 s, NaN where the episode has ended
        ret, flags = np.zeros(n), np.zeros(n)
        fell = np.zeros(n, bool)
        finished = np.zeros(n, bool)
        step = 0
        while not finished.all():
            obs, r, term, trunc, info = envs.step(act(obs))
            step += 1
            live = ~finished
            z = envs.batch.q[:, 2].copy()
            for k, zk in thresholds.items():
                if step <= WITHIN:
                    ever[k] |= live & (z >= zk)
                if step == WITHIN:
                    at_3s[k] |= live & (z >= zk)
            if step > WITHIN:
                heights.append(np.where(live, z, np.nan))
            ret += np.where(live, r, 0.0)
            flags += np.where(live, info["flags_reached"], 0.0)
            done = (term | trunc) & live
            fell |= term & live
            finished |= done
    finally:
        envs.close()
    # standing starts count if (again) at the threshold at 3 s; lying ones if ever within 3 s
    got = {k: np.where(start == 0, at_3s[k], ever[k]) for k in thresholds}
    # per episode over its steps after 3 s (NaN: none, or a diverged step, left out)
    h = np.array(heights).reshape(-1, n)
    ran = np.isfinite(h).any(axis=0)
    median_z = np.full(n, np.nan)
    median_z[ran] = np.nanmedian(h[:, ran], axis=0)
    rows = []
    for name, sel in [*((name, start == k) for k, name in enumerate(START_TASKS)), ("all", np.ones(n, bool))]:
        if not sel.any():
            continue
        rows.append({"controller": kind, "start": name, "episodes": int(sel.sum()),
                     "up_within_3s": float(got["up"][sel].mean()),
                     "standing_within_3s": float(got["standing"][sel].mean()),
                     "median_height_after_3s": float(np.nanmedian(median_z[sel])) if np.isfinite(median_z[sel]).any() else None,
                     "fell": float(fell[sel].mean()),
                     "flags_per_episode": float(flags[sel].mean()), "return": float(ret[sel].mean())})
    return rows


def harder_options(run_dir: Path, flag: str) -> dict:
    """The judged task options of a HumanoidFlagrunHarder-v0 run (SystemExit naming ``flag``
    for another task's run)."""
    env_id, kwargs = judged_task(run_dir)
    if env_id != "ncpgym/HumanoidFlagrunHarder-v0":
        raise SystemExit(f"{flag}: a HumanoidFlagrunHarder-v0 run's, got one of {env_id}")
    return kwargs


def sweep(run_dir: Path, every: int, episodes: int, seed: int, threads: int) -> dict:
    """The "all" row of each every-th checkpoint of ``run_dir`` (and of final.pt)."""
    from checkpoint_curve import checkpoints, env_steps
    from tqdm import tqdm

    kwargs = harder_options(run_dir, "--sweep")
    steps = env_steps(run_dir)
    todo = checkpoints(run_dir, max(steps))
    todo = todo[-1::-every][::-1]  # every-th counted back from final.pt, which is always in
    rows = []
    for update, path in tqdm(todo, desc=run_dir.name, unit="checkpoint"):
        row = run("trained", episodes, seed, path, threads, kwargs)[-1]
        rows.append({"update": update, "env_steps": steps[update], "checkpoint": path.name,
                     **{k: v for k, v in row.items() if k not in ("controller", "start")}})
    return {"run": run_dir.name, "env_kwargs": kwargs, "seed": seed, "rows": rows}


def plot_sweep(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.array([r["env_steps"] for r in data["rows"]]) / 1e6
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, [100 * r["up_within_3s"] for r in data["rows"]], marker="o", ms=3, label="up (z ≥ 0.8 m) within 3 s")
    ax.plot(x, [100 * r["standing_within_3s"] for r in data["rows"]], marker="s", ms=3, label="standing (z ≥ 1 m) within 3 s")
    ax.plot(x, [100 * r["fell"] for r in data["rows"]], marker="x", ms=3, label="fell for good")
    ax.set_xlabel("environment steps (millions)")
    ax.set_ylabel("% of episodes (all start tasks)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    ax.set_title(f"{data['run']}: checkpoints, mean action, {data['rows'][0]['episodes']} episodes, seed {data['seed']}",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    lines = ["| controller | start | episodes | up (z ≥ 0.8 m) within 3 s | standing (z ≥ 1.0 m) within 3 s "
             "| torso height after 3 s (median) | fell | flags per episode | return |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in data["rows"]:
        h = r.get("median_height_after_3s")
        stand = r.get("standing_within_3s")
        lines.append(f"| {r['controller']} | {r['start']} | {r['episodes']} | {100 * r['up_within_3s']:.0f} % | "
                     f"{'—' if stand is None else f'{100 * stand:.0f} %'} | {'—' if h is None else f'{h:.2f} m'} | "
                     f"{100 * r['fell']:.0f} % | {r['flags_per_episode']:.2f} | {r['return']:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", type=Path)
    ap.add_argument("--episodes", type=int, default=256)
    ap.add_argument("--sweep", type=Path, metavar="RUN", help="evaluate this run's checkpoints instead")
    ap.add_argument("--every", type=int, default=10, help="with --sweep: every K-th checkpoint")
    table_options(ap)
    args = ap.parse_args(argv)
    if args.table is not None:
        print(table(args.table))
        return
    if args.sweep is not None:
        data = sweep(args.sweep, args.every, args.episodes, args.seed, args.threads)
        data["command"] = (f"python benchmarks/flagrun_harder_eval.py --sweep {args.sweep} --every {args.every} "
                           f"--episodes {args.episodes} --seed {args.seed}" + (f" --json {args.json}" if args.json else ""))
        for r in data["rows"]:
            print(f"{r['checkpoint']:>20} {r['env_steps'] / 1e6:6.1f} M: up {100 * r['up_within_3s']:3.0f} %, "
                  f"standing {100 * r['standing_within_3s']:3.0f} %, fell {100 * r['fell']:3.0f} %, "
                  f"torso {r['median_height_after_3s'] or float('nan'):.2f} m, return {r['return']:.1f}")
        if args.json is not None:
            args.json.write_text(json.dumps(data, indent=1) + "\n")
            plot_sweep(data, args.json.with_suffix(".png"))
        return
    if args.policy is None:
        ap.error("--policy is required (or --table)")
    kwargs = harder_options(args.policy.parent, "--policy")
    rows = run("trained", args.episodes, args.seed, args.policy, args.threads, kwargs)
    rows += run("random", args.episodes, args.seed, None, args.threads, kwargs)
    if args.json is not None:
        command = (f"python benchmarks/flagrun_harder_eval.py --policy {args.policy} --episodes {args.episodes} "
                   + (f"--seed {args.seed} " if args.seed != ap.get_default("seed") else "") + f"--json {args.json}")
        args.json.write_text(json.dumps({"rows": rows, "env_kwargs": kwargs, "command": command}, indent=1) + "\n")
        print(table(args.json))


if __name__ == "__main__":
    main()
