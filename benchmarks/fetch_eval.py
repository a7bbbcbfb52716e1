"""FetchTomato-v0 and FetchBeamInsert-v0: a trained policy against random actions and the
task's scripted baseline.

    python benchmarks/fetch_eval.py --task tomato --policy DIR/final.pt [--mesh 4] [--episodes 16] [--json DIR/evaluation.json]
    python benchmarks/fetch_eval.py --task beam --policy DIR/final.pt [--episodes 16] [--json DIR/evaluation.json]

One episode per world for each controller, the same reset seed for all. Tomato (300 env
steps; ``--mesh`` sets the tomato's resolution, 4 = the task's default 384 tetrahedra, so
a policy trained at mesh 3 is also measured on the finer tomato): mean return, success
rate (released on the scale at rest, reading its mass within 5 %, at the episode's end),
how many were crushed or dropped, the largest squeeze (N) and how many ever lifted the
tomato 10 cm. Beam (150 steps): mean return, success rate (tip 3 cm into the hole, beam
straight within 0.05 rad, at the end), mean final depth and bend, mean largest bend.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from policy_eval import CONTROLLERS, controller  # noqa: E402


def tomato(kind: str, episodes: int, seed: int, policy: Path | None, mesh: int) -> dict:
    from ncpgym.tasks import fetch_tomato as ft

    envs = gym.make_vec("ncpgym/FetchTomato-v0", num_envs=episodes, mesh=mesh)
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    start, plate = task.tomato(batch).copy(), task.plate_top(batch).copy()
    act = controller(kind, envs, policy, lambda k: ft.scripted_actions(task, batch, k, start, plate), seed)
    ret, squeeze, lifted = np.zeros(episodes), np.zeros(episodes), np.zeros(episodes, bool)
    live = np.ones(episodes, bool)
    success, crushed, dropped = (np.zeros(episodes, bool) for _ in range(3))
    for k in range(ft.FetchTomatoTask.max_episode_steps):
        obs, r, term, trunc, info = envs.step(act(obs, k))
        ret += np.where(live, r, 0.0)
        squeeze = np.where(live, np.maximum(squeeze, info["squeeze"]), squeeze)
        lifted |= live & (task.tomato(batch)[:, 2] - task.rest_z > 0.10)
        done = live & (term | trunc)
        success[done], crushed[done], dropped[done] = info["is_success"][done], info["crushed"][done], info["dropped"][done]
        live &= ~done
        if not live.any():
            break
    envs.close()
    return {"controller": kind, "episodes": episodes, "mesh": mesh, "mean_return": float(ret.mean()),
            "success_rate": float(success.mean()), "crushed": int(crushed.sum()), "dropped": int(dropped.sum()),
            "lifted_10cm": int(lifted.sum()), "mean_peak_squeeze_N": float(squeeze.mean())}


def beam(kind: str, episodes: int, seed: int, policy: Path | None) -> dict:
    from ncpgym.tasks import fetch_beam_insert as fb

    envs = gym.make_vec("ncpgym/FetchBeamInsert-v0", num_envs=episodes)
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    act = controller(kind, envs, policy, lambda k: fb.scripted_actions(task, batch, k), seed)
    ret, top_bend = np.zeros(episodes), np.zeros(episodes)
    for k in range(fb.FetchBeamInsertTask.max_episode_steps):
        obs, r, term, trunc, info = envs.step(act(obs, k))
        ret += r
        top_bend = np.maximum(top_bend, info["bend"])
    envs.close()  # no termination: every world ends at the truncation step, info is its last
    return {"controller": kind, "episodes": episodes, "mean_return": float(ret.mean()),
            "success_rate": float(np.mean(info["is_success"])), "mean_depth_m": float(np.mean(info["depth"])),
            "mean_bend_rad": float(np.mean(info["bend"])), "mean_peak_bend_rad": float(top_bend.mean())}


COLUMNS = {
    "tomato": [("return", "mean_return", ".1f"), ("success", "success_rate", ".2f"), ("crushed", "crushed", "d"),
               ("dropped", "dropped", "d"), ("lifted", "lifted_10cm", "d"), ("squeeze N", "mean_peak_squeeze_N", ".1f")],
    "beam": [("return", "mean_return", ".1f"), ("success", "success_rate", ".2f"), ("depth m", "mean_depth_m", ".4f"),
             ("bend rad", "mean_bend_rad", ".3f"), ("peak bend", "mean_peak_bend_rad", ".3f")],
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", choices=("tomato", "beam"), required=True)
    ap.add_argument("--policy", type=Path, required=True)
    ap.add_argument("--mesh", type=int, nargs="+", default=[4], help="tomato resolutions to evaluate on")
    ap.add_argument("--episodes", type=int, default=16)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.task == "tomato":
        rows = [tomato(k, args.episodes, args.seed, args.policy, m) for m in args.mesh for k in CONTROLLERS]
    else:
        rows = [beam(k, args.episodes, args.seed, args.policy) for k in CONTROLLERS]
    cols = COLUMNS[args.task]
    widths = [max(len(h) + 2, 9) for h, _, _ in cols]
    print(f"{'controller':<10}" + ("  mesh" if args.task == "tomato" else "")
          + "".join(f"{h:>{w}}" for (h, _, _), w in zip(cols, widths)))
    for r in rows:
        print(f"{r['controller']:<10}" + (f"{r['mesh']:>6d}" if args.task == "tomato" else "")
              + "".join(f"{r[key]:>{w}{fmt}}" for (_, key, fmt), w in zip(cols, widths)))
    if args.json:
        command = " ".join(["python benchmarks/fetch_eval.py", *(argv if argv is not None else sys.argv[1:])])
        args.json.write_text(json.dumps({"rows": rows, "command": command}, indent=1) + "\n")
        print("wrote", args.json)


if __name__ == "__main__":
    main()
