"""python -m ncpgym.train --env ncpgym/HumanoidFlagrun-v0 --num-envs 256 --minutes 10 --out DIR

Trains PPO on an ncpgym vector env with a live progress bar; DIR receives progress.csv
(one row per update: env_steps, episode_return, losses, steps/s), checkpoints,
final.pt and learning_curve.png. Ends with an evaluation against a random policy.
--video films the final policy's evaluation (DIR/videos/final.mp4, --video-worlds worlds
side by side); --video-every K also films the current policy every K updates.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym

from .ppo import PPO, PPOConfig, evaluate


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m ncpgym.train", description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", default="ncpgym/HumanoidFlagrun-v0", help=f"task id, one of {', '.join(ncpgym.TASK_IDS)}")
    ap.add_argument("--num-envs", type=int, default=256)
    ap.add_argument("--minutes", type=float, default=10.0, help="wall-clock budget")
    ap.add_argument("--steps", type=int, default=None, help="env-step budget (stops at whichever comes first)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("runs") / time.strftime("%Y%m%d-%H%M%S"))
    ap.add_argument("--threads", type=int, default=0, help="physics threads (0: all cores; with --ray-workers: per worker, default 1)")
    ap.add_argument("--ray-workers", type=int, default=0, help="shard the worlds over this many Ray actors (ncpgym.cluster)")
    ap.add_argument("--ray-address", default=None, help="Ray cluster address (e.g. auto); default: start a local instance")
    ap.add_argument("--rollout-steps", type=int, default=PPOConfig.rollout_steps)
    ap.add_argument("--epochs", type=int, default=PPOConfig.epochs)
    ap.add_argument("--minibatches", type=int, default=PPOConfig.minibatches)
    ap.add_argument("--lr", type=float, default=PPOConfig.lr)
    ap.add_argument("--gamma", type=float, default=PPOConfig.gamma)
    ap.add_argument("--hidden", type=int, nargs="+", default=list(PPOConfig.hidden))
    ap.add_argument("--eval-episodes", type=int, default=16)
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--video", action="store_true",
                    help="film the final evaluation (DIR/videos/final.mp4)")
    ap.add_argument("--video-every", type=int, default=0, metavar="K",
                    help="also film an episode per filmed world every K updates (within --minutes)")
    ap.add_argument("--video-worlds", type=int, default=2, help="worlds filmed side by side")
    args = ap.parse_args(argv)
    if args.env not in ncpgym.TASK_IDS:
        ap.error(f"unknown --env {args.env!r}; registered: {', '.join(ncpgym.TASK_IDS)}")

    if args.ray_workers > 0:
        from ..cluster import RayVectorEnv

        envs = RayVectorEnv(args.env, args.num_envs, num_workers=args.ray_workers,
                            cpus_per_worker=max(1, args.threads), address=args.ray_address)
    else:
        envs = gym.make_vec(args.env, num_envs=args.num_envs, num_threads=args.threads)
    cfg = PPOConfig(rollout_steps=args.rollout_steps, epochs=args.epochs, minibatches=args.minibatches,
                    lr=args.lr, gamma=args.gamma, hidden=tuple(args.hidden), seed=args.seed)
    agent = PPO(envs, cfg)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "config.json").write_text(json.dumps({**vars(args), "out": str(args.out), "ppo": cfg.__dict__}, indent=1, default=str))
    print(f"training PPO on {args.env}: {args.num_envs} worlds, budget {args.minutes} min"
          + (f" / {args.steps} steps" if args.steps else "") + f", output in {args.out}")
    film = None
    if args.video or args.video_every > 0:
        from ..play import rollout

        def film(path: Path, worlds: int, episodes: int) -> None:
            kw = dict(render_mode="rgb_array", render_worlds=list(range(worlds)), width=480,
                      height=360)
            env = gym.make_vec(args.env, num_envs=episodes, num_threads=args.threads, **kw)
            try:
                rollout(env, lambda o: agent.act(o, deterministic=True), video=path)
            finally:
                env.close()

    callback = None
    if args.video_every > 0:
        def callback(row):
            if row["update"] % args.video_every == 0:
                k = args.video_worlds
                film(args.out / "videos" / f"update_{row['update']:05d}.mp4", k, k)

    rows = agent.learn(total_steps=args.steps, seconds=60 * args.minutes, out=args.out,
                       progress=not args.no_progress, callback=callback)
    envs.close()

    n = min(args.eval_episodes, args.num_envs)
    if args.video:  # the evaluation episodes (same seed as below), the first worlds filmed
        film(args.out / "videos" / "final.mp4", min(args.video_worlds, n), n)
    ev = gym.make_vec(args.env, num_envs=n, num_threads=args.threads)
    trained = evaluate(ev, lambda o: agent.act(o, deterministic=True), n)
    rng = np.random.default_rng(args.seed)
    space = ev.action_space
    random = evaluate(ev, lambda o: rng.uniform(space.low, space.high), n)
    ev.close()
    last = rows[-1] if rows else {}
    summary = {
        "env": args.env,
        "env_steps": agent.env_steps,
        "minutes": last.get("time_s", 0) / 60,
        "steps_per_s": last.get("steps_per_s"),
        "eval_return_trained": float(np.mean(trained)),
        "eval_return_random": float(np.mean(random)),
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"{agent.env_steps} env steps in {summary['minutes']:.1f} min ({summary['steps_per_s']} steps/s incl. learning)")
    print(f"evaluation over {n} episodes: trained {summary['eval_return_trained']:.1f}, random {summary['eval_return_random']:.1f}")
    print(f"learning curve: {args.out / 'learning_curve.png'}; CSV: {args.out / 'progress.csv'}")


if __name__ == "__main__":
    main()
