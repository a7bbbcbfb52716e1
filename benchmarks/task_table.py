"""Every task's committed PPO run, evaluated by one script (issue 63): trained return and
success rate with the policy's mean action and with actions sampled from it, against random
actions, on the same episodes, plus the run's wall time and env steps (from its
summary.json). The task is judged as defined: training aids (``Task.training_aids``, e.g.
FetchTomato's ``demo_starts``) are left out of the evaluation's env.

    python benchmarks/task_table.py --episodes 64 --json benchmarks/results/task_table.json
    python benchmarks/task_table.py --table benchmarks/results/task_table.json   # Markdown

``--only RUN ...`` evaluates some runs and keeps the others' rows from an existing --json
file. The docs' training page embeds the table (docs/hooks.py regenerates it from the JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym
from ncpgym.train.ppo import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from policy_eval import judged_task, policy_or_random, table_options  # noqa: E402

ROOT = Path(__file__).resolve().parent / "results" / "training"
# the README's task table: one committed run per row (a task may have several variants)
RUNS = (
    "flagrun_35min",
    "flagrun_10min_session41_seed0",
    "flagrun_10min_session41_seed1",
    "flagrun_10min_session41_seed2",
    "flagrun_harder_throw_110min",
    "pneunet_grasp_30min",
    "pneunet_grasp_pressure",
    "yumi_drawer_10min",
    "allegro_squeeze_60min",
    "allegro_grasp_60min",
    "fetch_tomato_positive_reach_115min",
    "fetch_tomato_demo_bc_95min",
    "fetch_beam_insert_50min",
    "manta_swim_motor_60min",
    "shadow_hand_block_95min",
    "shadow_hand_block_near_goals_105min",
)


def evaluate_run(name: str, episodes: int, seed: int, threads: int) -> dict:
    run = ROOT / name
    summary = json.loads((run / "summary.json").read_text())
    env_id, kwargs = judged_task(run)
    row = {"run": name, "env": env_id, "env_kwargs": kwargs, "episodes": episodes,
           "train_minutes": round(float(summary["minutes"]), 1), "train_env_steps": int(summary["env_steps"])}
    policy = run / "final.pt"
    envs = gym.make_vec(env_id, num_envs=episodes, num_threads=threads, **kwargs)
    t0 = time.perf_counter()
    try:
        controllers = {}
        if policy.is_file():
            controllers["mean"] = policy_or_random("trained", envs, policy, seed, deterministic=True)
            controllers["sampled"] = policy_or_random("trained", envs, policy, seed, deterministic=False)
        controllers["random"] = policy_or_random("random", envs, None, seed)
        for kind, act in controllers.items():
            ret, ok = evaluate(envs, act, episodes, seed=seed, with_success=True)
            row[f"return_{kind}"] = float(np.mean(ret))
            row[f"return_{kind}_std"] = float(np.std(ret))
            row[f"success_{kind}"] = None if np.isnan(ok).any() else float(np.mean(ok))
    finally:
        envs.close()
    if not policy.is_file():
        row["note"] = "no final.pt committed: its summary.json's evaluation only"
        row["summary_episodes"] = summary.get("eval_episodes")
        for kind, key in (("mean", "trained"), ("sampled", "trained_sampled")):
            row[f"return_{kind}"] = summary.get(f"eval_return_{key}")
            row[f"success_{kind}"] = summary.get(f"eval_success_{key}")
    row["eval_seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _fmt(v, pct=False) -> str:
    if v is None:
        return "—"
    return f"{100 * v:.0f} %" if pct else f"{v:,.1f}"


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    lines = ["| task (run) | train time, env steps | return: mean action / sampled / random | "
             "success: mean action / sampled / random |", "|---|---|---|---|"]
    for r in data["rows"]:
        kw = "".join(f" `{k}={v}`" for k, v in r["env_kwargs"].items())
        rets = " / ".join(_fmt(r.get(f"return_{k}")) for k in ("mean", "sampled", "random"))
        succ = " / ".join(_fmt(r.get(f"success_{k}"), pct=True) for k in ("mean", "sampled", "random"))
        mark = " *" if r.get("note") else ""
        lines.append(f"| `{r['env'].split('/')[1]}`{kw} ({r['run']}{mark}) | {r['train_minutes']:.0f} min, "
                     f"{r['train_env_steps'] / 1e6:.2f} M | {rets} | {succ} |")
    lines.append("")
    lines.append(f"{data['rows'][0]['episodes']} episodes per controller, the same starts for each "
                 f"(`{data['command']}`).")
    if any(r.get("note") for r in data["rows"]):
        lines.append("\n\\* no final.pt committed (the main job's runs): the trained figures are the run's own "
                     "evaluation at its end (summary.json, its own episodes); random as above.")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--only", nargs="+", choices=RUNS, default=None, metavar="RUN")
    table_options(ap)
    args = ap.parse_args(argv)
    if args.table is not None:
        print(table(args.table))
        return
    old = {}
    if args.only and args.json is not None and args.json.is_file():
        old = {r["run"]: r for r in json.loads(args.json.read_text())["rows"]}
    rows = []
    for name in RUNS:
        if args.only and name not in args.only:
            if name in old:
                rows.append(old[name])
            continue
        row = evaluate_run(name, args.episodes, args.seed, args.threads)
        print(f"{name}: return {_fmt(row.get('return_mean'))} mean action, {_fmt(row.get('return_sampled'))} "
              f"sampled, {_fmt(row['return_random'])} random; success {_fmt(row.get('success_mean'), True)} / "
              f"{_fmt(row.get('success_sampled'), True)} / {_fmt(row['success_random'], True)} "
              f"({row['eval_seconds']} s)", flush=True)
        rows.append(row)
    if args.json is not None:
        command = f"python benchmarks/task_table.py --episodes {args.episodes} --json {args.json}"
        args.json.write_text(json.dumps({"rows": rows, "command": command, "ncpgym": ncpgym.__version__}, indent=1) + "\n")


if __name__ == "__main__":
    main()
