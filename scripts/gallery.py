"""A still of every registered task, for the README and the task pages: python scripts/gallery.py [--out DIR] [--tasks ID ...]

A task with a committed trained policy is run with that policy's deterministic actions,
under the task options it was trained for (training aids left out); the others with
random actions from a fixed seed. The policy is that of the task's run in the task table
(benchmarks/results/task_table.json, written by benchmarks/task_table.py) with the best
mean-action return, variants' runs apart. Each picture is taken after the task's number
of steps below (the flag runner mid-run, the gripper holding its ball), with the task's
own camera, and saved as DIR/<task>.png (default docs/gallery). Task variants
(``VARIANTS``: a task with keyword arguments) are pictured with ``--tasks NAME`` as
DIR/<NAME>.png, with the run trained for exactly those options.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym
from ncpgym.play import load_policy

ROOT = Path(__file__).resolve().parents[1]
STEPS = {  # env steps before the picture
    "ncpgym/Humanoid-v0": 12,
    "ncpgym/HumanoidFlagrun-v0": 150,
    "ncpgym/HumanoidFlagrunHarder-v0": 175,
    "ncpgym/InvertedPendulum-v0": 10,
    "ncpgym/PneuNetGrasp-v0": 120,
    "ncpgym/YuMiDrawer-v0": 300,
    "ncpgym/AllegroSqueeze-v0": 60,
    "ncpgym/AllegroGrasp-v0": 110,
    "ncpgym/FetchTomato-v0": 180,
    "ncpgym/FetchBeamInsert-v0": 60,
    "ncpgym/MantaSwim-v0": 40,
    "ncpgym/ShadowHandBlock-v0": 50,
}

# variants pictured on request: name -> (task id, keyword arguments)
VARIANTS = {"PneuNetGrasp-v0-pressure": ("ncpgym/PneuNetGrasp-v0", {"actuation": "pressure"})}


def key(env_id: str, kwargs: dict) -> str:
    return env_id + json.dumps(kwargs, sort_keys=True)


def trained_policies(table: Path = ROOT / "benchmarks" / "results" / "task_table.json") -> dict[str, tuple[Path, dict]]:
    """(final.pt, task options) by task id and by variant name: per task id the table's run
    with the best mean-action return among those not trained for a variant's options; per
    variant the run trained for exactly its options."""
    variant_keys = {key(*v): name for name, v in VARIANTS.items()}
    out, best = {}, {}
    for row in json.loads(table.read_text())["rows"]:
        policy = ROOT / "benchmarks" / "results" / "training" / row["run"] / "final.pt"
        if row.get("return_mean") is None or not policy.is_file():
            continue
        variant = variant_keys.get(key(row["env"], row["env_kwargs"]))
        if variant is not None:
            out[variant] = (policy, row["env_kwargs"])
        elif row["return_mean"] > best.get(row["env"], -np.inf):
            best[row["env"]] = row["return_mean"]
            out[row["env"]] = (policy, row["env_kwargs"])
    return out


def still(env_id: str, policy: Path | None, width: int, height: int, seed: int, kwargs=None) -> np.ndarray:
    envs = gym.make_vec(env_id, num_envs=1, render_mode="rgb_array", width=width, height=height, **(kwargs or {}))
    try:
        act = load_policy(policy, envs) if policy is not None else None
        envs.action_space.seed(seed)
        obs, _ = envs.reset(seed=seed)
        for _ in range(STEPS[env_id]):
            obs, *_ = envs.step(act(obs) if act else envs.action_space.sample())
        return envs.render()[0]
    finally:
        envs.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "gallery")
    ap.add_argument("--width", type=int, default=400)
    ap.add_argument("--height", type=int, default=300)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--tasks", nargs="+", choices=[*ncpgym.TASK_IDS, *VARIANTS], default=ncpgym.TASK_IDS,
                    help="the tasks to picture (default: every task id; variants by name)")
    args = ap.parse_args()
    from PIL import Image

    args.out.mkdir(parents=True, exist_ok=True)
    policies = trained_policies()
    for name in args.tasks:
        env_id, kwargs = VARIANTS.get(name, (name, {}))
        policy, kwargs = policies.get(name, (None, kwargs))
        img = still(env_id, policy, args.width, args.height, args.seed, kwargs)
        path = args.out / (name.split("/")[-1] + ".png")
        Image.fromarray(img).save(path, optimize=True)
        how = f"policy {policy.relative_to(ROOT)}" if policy else "random actions"
        print(f"{name}: {STEPS[env_id]} steps, {how} -> {path}")


if __name__ == "__main__":
    main()
