"""python -m ncpgym.play --env ID --policy DIR/final.pt [--episodes N] [--video out.mp4]

Runs a policy saved by ``python -m ncpgym.train`` (deterministic actions) for N episodes,
one per world, prints their returns and, with ``--video``, films the first ``--worlds`` of
them side by side (mp4; extra ``render``). Frames go on until every episode has ended; a
world whose episode ended starts another meanwhile.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

import gymnasium as gym
import numpy as np

import ncpgym

__all__ = ["load_policy", "rollout", "main"]


def load_policy(path: str | Path, envs) -> Callable[[np.ndarray], np.ndarray]:
    """Deterministic actions of the PPO policy saved at ``path`` for ``envs``' observations."""
    import torch

    from .train.ppo import PPO, PPOConfig

    ck = torch.load(path, weights_only=False)
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    act_dim = int(np.prod(envs.single_action_space.shape))
    if (ck["obs_dim"], ck["act_dim"]) != (obs_dim, act_dim):
        raise ValueError(
            f"{path}: a policy for {ck['obs_dim']} observations and {ck['act_dim']} "
            f"actions; this env has {obs_dim} and {act_dim}"
        )
    agent = PPO(envs, PPOConfig(**ck["config"]))
    agent.load(path)
    return lambda obs: agent.act(obs, deterministic=True)


def rollout(
    envs,
    act: Callable[[np.ndarray], np.ndarray],
    *,
    seed: int = 12345,
    video: str | Path | None = None,
    max_steps: int | None = None,
) -> np.ndarray:
    """Returns of one episode per world of ``envs`` under ``act`` (NaN for a world whose
    episode had not ended after ``max_steps``); with ``video``, films the env's render
    worlds (tiled) at every step into that mp4."""
    from .render import tile

    writer = None
    if video is not None:
        from .video import VideoWriter

        writer = VideoWriter(video, envs.metadata["render_fps"])
    obs, _ = envs.reset(seed=seed)
    n = envs.num_envs
    ret, out = np.zeros(n), np.full(n, np.nan)
    finished = np.zeros(n, bool)
    steps = 0
    try:
        if writer is not None:
            writer.append(tile(envs.render()))
        while not finished.all() and (max_steps is None or steps < max_steps):
            obs, r, term, trunc, _ = envs.step(act(obs))
            steps += 1
            ret += np.where(finished, 0.0, r)
            done = (term | trunc) & ~finished
            out[done] = ret[done]
            finished |= done
            if writer is not None:
                writer.append(tile(envs.render()))
    finally:
        if writer is not None:
            writer.close()
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m ncpgym.play", description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", required=True, help=f"task id, one of {', '.join(ncpgym.TASK_IDS)}")
    ap.add_argument(
        "--policy", type=Path, required=True, help="final.pt or checkpoint_*.pt of ncpgym.train"
    )
    ap.add_argument("--episodes", type=int, default=1, help="episodes to run (one per world)")
    ap.add_argument("--video", type=Path, default=None, help="mp4 file to film the episodes into")
    ap.add_argument(
        "--worlds", type=int, default=4, help="worlds filmed side by side (at most --episodes)"
    )
    ap.add_argument("--width", type=int, default=480)
    ap.add_argument("--height", type=int, default=360)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args(argv)
    if args.env not in ncpgym.TASK_IDS:
        ap.error(f"unknown --env {args.env!r}; registered: {', '.join(ncpgym.TASK_IDS)}")
    if args.episodes < 1:
        ap.error("--episodes must be >= 1")
    if not args.policy.is_file():
        ap.error(f"--policy {args.policy} is not a file")
    kw = {}
    if args.video is not None:
        kw = dict(
            render_mode="rgb_array",
            render_worlds=list(range(min(args.worlds, args.episodes))),
            width=args.width,
            height=args.height,
        )
    envs = gym.make_vec(args.env, num_envs=args.episodes, num_threads=args.threads, **kw)
    try:
        returns = rollout(envs, load_policy(args.policy, envs), seed=args.seed, video=args.video)
    finally:
        envs.close()
    print(
        f"{args.env}: {args.episodes} episode(s), return {np.mean(returns):.1f} "
        f"(min {np.min(returns):.1f}, max {np.max(returns):.1f})"
    )
    if args.video is not None:
        print(f"video: {args.video}")


if __name__ == "__main__":
    main()
