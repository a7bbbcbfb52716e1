"""Run a saved policy: ``python -m ncpgym.play --policy DIR/final.pt [--episodes N] [--video out.mp4] [--json out.json]``.

Runs a policy saved by ``python -m ncpgym.train`` (deterministic actions) for N episodes,
one per world, prints their returns and, for tasks that define ``info["is_success"]``, the
success rate; with ``--video``, films the first ``--worlds`` of them side by side (mp4;
extra ``render``). Frames go on until every episode has ended; a world whose episode ended
starts another meanwhile. The task and its keyword arguments come from the run's
config.json beside the policy unless ``--env`` / ``--env-kwargs`` are given.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable

import gymnasium as gym
import numpy as np

import ncpgym

from ._cli import json_object
from .tasks import evaluation_kwargs

__all__ = ["load_policy", "rollout", "main"]


def load_policy(path: str | Path, envs, deterministic: bool = True) -> Callable[[np.ndarray], np.ndarray]:
    """Actions of the PPO policy saved at ``path`` for ``envs``' observations: its mean action
    (``deterministic``, the default) or actions sampled from it. Loading resets ``envs``
    (with the run's seed): reset them again afterwards for other starts."""
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
    return lambda obs: agent.act(obs, deterministic=deterministic)


def rollout(
    envs,
    act: Callable[[np.ndarray], np.ndarray],
    *,
    seed: int = 12345,
    video: str | Path | None = None,
    max_steps: int | None = None,
    with_success: bool = False,
):
    """Returns of one episode per world of ``envs`` under ``act`` (NaN for a world whose
    episode had not ended after ``max_steps``); with ``video``, films the env's render
    worlds (tiled) at every step into that mp4. With ``with_success``, (returns, success):
    each episode's ``info["is_success"]`` at its last step (NaN where the task defines none
    or the episode had not ended)."""
    from .render import tile

    writer = None
    if video is not None:
        from .video import VideoWriter

        writer = VideoWriter(video, envs.metadata["render_fps"])
    obs, _ = envs.reset(seed=seed)
    n = envs.num_envs
    ret, out, success = np.zeros(n), np.full(n, np.nan), np.full(n, np.nan)
    finished = np.zeros(n, bool)
    steps = 0
    try:
        if writer is not None:
            writer.append(tile(envs.render()))
        while not finished.all() and (max_steps is None or steps < max_steps):
            obs, r, term, trunc, info = envs.step(act(obs))
            steps += 1
            ret += np.where(finished, 0.0, r)
            done = (term | trunc) & ~finished
            out[done] = ret[done]
            if "is_success" in info:
                success[done] = np.asarray(info["is_success"], float)[done]
            finished |= done
            if writer is not None:
                writer.append(tile(envs.render()))
    finally:
        if writer is not None:
            writer.close()
    return (out, success) if with_success else out


def main(argv=None) -> None:
    """The command line: ``python -m ncpgym.play --help``."""
    ap = argparse.ArgumentParser(prog="python -m ncpgym.play", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument(
        "--policy", type=Path, required=True, help="final.pt or checkpoint_*.pt of ncpgym.train"
    )
    ap.add_argument("--env", default=None,
                    help=f"task id (default: the run's, from config.json beside --policy), one of {', '.join(ncpgym.TASK_IDS)}")
    ap.add_argument("--env-kwargs", type=json_object, default=None, metavar="JSON",
                    help="task keyword arguments as a JSON object (default: the run's)")
    ap.add_argument("--episodes", type=int, default=1, help="episodes to run (one per world)")
    ap.add_argument("--video", type=Path, default=None, help="mp4 file to film the episodes into")
    ap.add_argument(
        "--worlds", type=int, default=4, help="worlds filmed side by side (at most --episodes)"
    )
    ap.add_argument("--width", type=int, default=480, help="video width (pixels)")
    ap.add_argument("--height", type=int, default=360, help="video height (pixels)")
    ap.add_argument("--seed", type=int, default=12345, help="seed of the episodes' worlds")
    ap.add_argument("--threads", type=int, default=0, help="physics threads (0: all cores)")
    ap.add_argument("--json", type=Path, default=None, help="also write returns and successes to this JSON file")
    args = ap.parse_args(argv)
    if not args.policy.is_file():
        ap.error(f"--policy {args.policy} is not a file")
    run = args.policy.parent / "config.json"
    made = json.loads(run.read_text()) if run.is_file() else {}
    if args.env is None:
        if "env" not in made:
            ap.error(f"--env is needed: no config.json of a training run beside {args.policy}")
        args.env = made["env"]
    env_kwargs = args.env_kwargs
    if env_kwargs is None:
        env_kwargs = made.get("env_kwargs", {}) if made.get("env") == args.env else {}
    if args.env not in ncpgym.TASK_IDS:
        ap.error(f"unknown --env {args.env!r}; registered: {', '.join(ncpgym.TASK_IDS)}")
    judged = evaluation_kwargs(args.env, env_kwargs)
    if judged != env_kwargs:
        print(f"{args.env}: playing the task as defined, without the training aids "
              f"{sorted(set(env_kwargs) - set(judged))}")
        env_kwargs = judged
    if args.episodes < 1:
        ap.error("--episodes must be >= 1")
    kw = {}
    if args.video is not None:
        kw = dict(
            render_mode="rgb_array",
            render_worlds=list(range(min(args.worlds, args.episodes))),
            width=args.width,
            height=args.height,
        )
    envs = gym.make_vec(args.env, num_envs=args.episodes, num_threads=args.threads, **kw, **env_kwargs)
    try:
        returns, success = rollout(envs, load_policy(args.policy, envs), seed=args.seed, video=args.video,
                                   with_success=True)
    finally:
        envs.close()
    line = (f"{args.env}: {args.episodes} episode(s), return {np.mean(returns):.1f} "
            f"(min {np.min(returns):.1f}, max {np.max(returns):.1f})")
    defined = not np.isnan(success).any()
    if defined:
        line += f", success {int(success.sum())}/{args.episodes} ({100 * success.mean():.0f} %)"
    print(line)
    if args.json is not None:
        report = {"env": args.env, "env_kwargs": env_kwargs, "policy": str(args.policy), "seed": args.seed,
                  "returns": returns.tolist(), "mean_return": float(np.mean(returns))}
        if defined:
            report["success"] = success.astype(bool).tolist()
            report["success_rate"] = float(success.mean())
        args.json.write_text(json.dumps(report, indent=1))
    if args.video is not None:
        print(f"video: {args.video}")


if __name__ == "__main__":
    main()
