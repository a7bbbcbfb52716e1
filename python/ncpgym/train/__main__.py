"""python -m ncpgym.train --env ncpgym/HumanoidFlagrun-v0 --num-envs 256 --minutes 10 --out DIR

Trains PPO on an ncpgym vector env with a live progress bar; DIR receives progress.csv
(one row per update: env_steps, episode_return, losses, steps/s), checkpoints,
final.pt and learning_curve.png. Ends with an evaluation against a random policy.
--video films the final policy's evaluation (DIR/videos/final.mp4, --video-worlds worlds
side by side); --video-every K also films the current policy every K updates.
--resume DIR continues the run in DIR from its newest checkpoint (same task, worlds and
PPO settings, read from DIR/config.json) until its budget: the original one, or the
--minutes / --steps given now (both count the whole run).
--demo-bc COEF adds a behaviour-cloning term on the task's scripted demonstrations
(demonstration-augmented PPO; tasks that define Task.demonstrations, e.g. FetchTomato).
"""

from __future__ import annotations

import argparse
import json
import signal
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym

from .._cli import json_object
from ..tasks import evaluation_kwargs
from .ppo import PPO, PPOConfig, evaluate, latest_checkpoint


def _positive(kind):
    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if not v > 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return v
    parse.__name__ = f"positive {kind.__name__}"
    return parse


def _non_negative_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return v


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default where it has one (not "(default: None)" or "(default:
    False)" for flags), and leaves a help text that already states its default alone."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False or "(default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m ncpgym.train", description=__doc__.split("\n\n")[0],
                                 formatter_class=_HelpFormatter)
    ap.add_argument("--env", metavar="ID", help=f"task id (required unless --resume), one of {', '.join(ncpgym.TASK_IDS)}")
    ap.add_argument("--env-kwargs", type=json_object, default={}, metavar="JSON",
                    help='task keyword arguments, e.g. \'{"mesh": 3}\' (training, videos and evaluation)')
    ap.add_argument("--num-envs", type=_positive(int), default=256, help="worlds stepped in parallel")
    ap.add_argument("--minutes", type=_positive(float), default=None,
                    help="wall-clock budget of the whole run in minutes (default 10; with --resume, the run's own)")
    ap.add_argument("--steps", type=_positive(int), default=None, help="env-step budget (stops at whichever comes first)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the worlds and the network")
    ap.add_argument("--out", type=Path, default=Path("runs") / time.strftime("%Y%m%d-%H%M%S"),
                    help="output folder for progress.csv, checkpoints, final.pt, learning_curve.png and summary.json "
                         "(default runs/YYYYmmdd-HHMMSS, the start time)")
    ap.add_argument("--threads", type=_non_negative_int, default=0,
                    help="physics threads (0: all cores; with --ray-workers: per worker, default 1)")
    ap.add_argument("--ray-workers", type=_non_negative_int, default=0,
                    help="shard the worlds over this many Ray actors (ncpgym.cluster)")
    ap.add_argument("--ray-address", default=None, help="Ray cluster address (e.g. auto); default: start a local instance")
    ap.add_argument("--rollout-steps", type=_positive(int), default=PPOConfig.rollout_steps,
                    help="env steps per world between updates")
    ap.add_argument("--epochs", type=_positive(int), default=PPOConfig.epochs, help="passes over each rollout")
    ap.add_argument("--minibatches", type=_positive(int), default=PPOConfig.minibatches, help="minibatches per epoch")
    ap.add_argument("--lr", type=_positive(float), default=PPOConfig.lr, help="Adam learning rate (annealed to 5 %%)")
    ap.add_argument("--gamma", type=_positive(float), default=PPOConfig.gamma, help="discount")
    ap.add_argument("--hidden", type=_positive(int), nargs="+", default=list(PPOConfig.hidden),
                    help="hidden layer widths of the policy and value networks")
    ap.add_argument("--init-log-std", type=float, default=PPOConfig.init_log_std,
                    help="initial log standard deviation of the Gaussian policy (exploration noise)")
    ap.add_argument("--demo-bc", type=float, default=0.0, metavar="COEF",
                    help="weight of a behaviour-cloning term on the task's scripted demonstrations "
                         "(Task.demonstrations; demonstration-augmented PPO, DAPG-style); 0: none")
    ap.add_argument("--demo-bc-decay", type=_positive(float), default=1.0, metavar="F",
                    help="the term's weight is COEF * F**update")
    ap.add_argument("--demo-bc-pretrain", type=_non_negative_int, default=0, metavar="STEPS",
                    help="Adam steps of behaviour cloning alone on the demonstrations before the first rollout "
                         "(PPO.pretrain_bc; not when resuming)")
    ap.add_argument("--demo-episodes", type=_positive(int), default=64,
                    help="scripted episodes recorded for --demo-bc (the successful ones are kept)")
    ap.add_argument("--eval-episodes", type=_positive(int), default=None,
                    help="episodes of the final evaluation (trained and random; at most --num-envs) "
                         "(default: --num-envs, at most 256: 16 episodes left the main job's mean "
                         "and sampled returns 350 apart by chance)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar: a log line every 30 s instead")
    ap.add_argument("--video", action="store_true",
                    help="film the final evaluation (DIR/videos/final.mp4)")
    ap.add_argument("--video-every", type=_non_negative_int, default=0, metavar="K",
                    help="also film an episode per filmed world every K updates (within --minutes; 0: never)")
    ap.add_argument("--video-worlds", type=_positive(int), default=2, help="worlds filmed side by side")
    ap.add_argument("--checkpoint-every", type=_non_negative_int, default=25, metavar="K",
                    help="write DIR/checkpoint_NNNNN.pt every K updates (0: only final.pt)")
    ap.add_argument("--resume", type=Path, default=None, metavar="DIR",
                    help="continue the run in DIR from its newest checkpoint (its config.json gives the task, "
                         "worlds, seed and PPO settings; outputs go to DIR)")
    return ap


# options --resume takes from the run's config.json (a run continues as it was made)
_RUN_FIELDS = ("env", "env_kwargs", "num_envs", "seed", "threads", "ray_workers", "ray_address", "rollout_steps",
               "epochs", "minibatches", "lr", "gamma", "hidden", "init_log_std", "checkpoint_every", "demo_bc",
               "demo_bc_decay", "demo_bc_pretrain", "demo_episodes")


def _resumed_args(ap: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    cfg_path = args.resume / "config.json"
    if not cfg_path.exists():
        ap.error(f"--resume {args.resume}: no config.json there (not a run of python -m ncpgym.train)")
    made = json.loads(cfg_path.read_text())
    if args.env is not None and args.env != made["env"]:
        ap.error(f"--resume {args.resume}: that run trains {made['env']}, not {args.env}")
    for k in _RUN_FIELDS:
        # a run made before an option existed continues with the option's default, not
        # with what this command line says (the run was made without it)
        setattr(args, k, made[k] if k in made else ap.get_default(k))
    if args.minutes is None and args.steps is None:
        args.minutes, args.steps = made["minutes"], made["steps"]
    args.out = args.resume
    return args


def main(argv=None) -> None:
    # A command started with `&` from a script inherits SIGINT ignored (POSIX shells do that
    # for background jobs), and Python then keeps it ignored: `kill -INT` would not stop the
    # run. Stopping cleanly (final.pt, curve, evaluation) must work there too.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    ap = parser()
    args = ap.parse_args(argv)
    if args.resume is not None:
        args = _resumed_args(ap, args)
    elif args.env is None:
        ap.error("the following arguments are required: --env (or --resume DIR)")
    if args.minutes is None:
        args.minutes = 10.0
    if args.env not in ncpgym.TASK_IDS:
        ap.error(f"unknown --env {args.env!r}; registered: {', '.join(ncpgym.TASK_IDS)}")
    if args.gamma > 1:
        ap.error(f"--gamma must be in (0, 1], got {args.gamma}")
    if args.demo_bc < 0 or args.demo_bc_decay > 1:
        ap.error(f"--demo-bc must be >= 0 and --demo-bc-decay in (0, 1], got {args.demo_bc} and {args.demo_bc_decay}")

    if args.ray_workers > 0:
        from ..cluster import RayVectorEnv

        envs = RayVectorEnv(args.env, args.num_envs, num_workers=args.ray_workers,
                            cpus_per_worker=max(1, args.threads), address=args.ray_address, **args.env_kwargs)
    else:
        envs = gym.make_vec(args.env, num_envs=args.num_envs, num_threads=args.threads, **args.env_kwargs)
    cfg = PPOConfig(rollout_steps=args.rollout_steps, epochs=args.epochs, minibatches=args.minibatches,
                    lr=args.lr, gamma=args.gamma, hidden=tuple(args.hidden), seed=args.seed,
                    init_log_std=args.init_log_std, bc_coef=args.demo_bc, bc_decay=args.demo_bc_decay)
    agent = PPO(envs, cfg)
    demo_s = _demonstrations(args, agent) if args.demo_bc > 0 else 0.0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.resume is not None:
        ck = latest_checkpoint(args.resume)
        agent.resume(ck)
        print(f"resuming {args.resume} from {ck.name}: update {agent.updates}, {agent.env_steps} env steps, "
              f"{agent.elapsed_before / 60:.1f} min trained")
    run = {**vars(args), "out": str(args.out), "resume": None, "ppo": cfg.__dict__}
    (args.out / "config.json").write_text(json.dumps(run, indent=1, default=str))
    print(f"training PPO on {args.env}: {args.num_envs} worlds, budget {args.minutes} min"
          + (f" / {args.steps} steps" if args.steps else "") + f", output in {args.out}")
    # evaluations and videos judge the task as defined: training aids (e.g. FetchTomato's
    # demo_starts) left out
    judged = evaluation_kwargs(args.env, args.env_kwargs)
    film = None
    if args.video or args.video_every > 0:
        from ..play import rollout

        def film(path: Path, worlds: int, episodes: int) -> None:
            kw = dict(render_mode="rgb_array", render_worlds=list(range(worlds)), width=480,
                      height=360)
            env = gym.make_vec(args.env, num_envs=episodes, num_threads=args.threads, **kw, **judged)
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

    rows = agent.learn(total_steps=args.steps, seconds=60 * args.minutes, out=args.out, checkpoint_every=args.checkpoint_every,
                       progress=not args.no_progress, callback=callback)
    envs.close()
    if agent.interrupted:
        print(f"interrupted after {agent.env_steps} env steps: {args.out / 'final.pt'} and the curve are written; "
              "evaluating (Ctrl-C again to skip)")
    try:
        summary = _evaluate(args, agent, rows, film, judged)
        if demo_s:  # recording the demonstrations (and cloning them), before the training clock
            summary["demonstration_minutes"] = round(demo_s / 60, 2)
            (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    except KeyboardInterrupt:
        last = rows[-1] if rows else {}
        summary = {"env": args.env, "env_steps": agent.env_steps, "minutes": last.get("time_s", 0) / 60,
                   "steps_per_s": last.get("steps_per_s"), "interrupted": True}
        (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
        print("evaluation skipped")
        return
    print(f"{agent.env_steps} env steps in {summary['minutes']:.1f} min ({summary['steps_per_s']} steps/s incl. learning)")
    success = ""
    if "eval_success_trained" in summary:
        success = (f"; success rate trained {summary['eval_success_trained']:.2f} (sampled "
                   f"{summary['eval_success_trained_sampled']:.2f}), random {summary['eval_success_random']:.2f}")
    print(f"evaluation over {summary['eval_episodes']} episodes: trained {summary['eval_return_trained']:.1f} "
          f"± {summary['eval_return_trained_sem']:.1f} (mean action; sampled actions "
          f"{summary['eval_return_trained_sampled']:.1f} ± {summary['eval_return_trained_sampled_sem']:.1f}), "
          f"random {summary['eval_return_random']:.1f} (± one standard error){success}")
    print(f"learning curve: {args.out / 'learning_curve.png'}; CSV: {args.out / 'progress.csv'}")


def _demonstrations(args, agent) -> float:
    """Record the task's scripted demonstrations into ``agent`` (--demo-bc); the seconds taken."""
    from ..tasks import task_class

    t0 = time.perf_counter()
    try:
        obs, act = task_class(args.env).demonstrations(args.demo_episodes, seed=args.seed, num_threads=args.threads,
                                                       **args.env_kwargs)
    except NotImplementedError as e:
        raise SystemExit(f"--demo-bc: {e}") from None
    agent.set_demonstrations(obs, act)
    print(f"demonstrations: {len(obs)} steps of {args.env}'s scripted episodes recorded in "
          f"{time.perf_counter() - t0:.0f} s (behaviour-cloning weight {args.demo_bc} x {args.demo_bc_decay}**update)",
          flush=True)
    if args.demo_bc_pretrain and args.resume is None:
        loss = agent.pretrain_bc(args.demo_bc_pretrain)
        print(f"behaviour cloning: {args.demo_bc_pretrain} steps, squared error {loss:.4f}", flush=True)
    return time.perf_counter() - t0


def _sem(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")


def _evaluate(args, agent, rows, film, env_kwargs: dict) -> dict:

    n = min(args.eval_episodes or 256, args.num_envs)
    if args.video:  # the evaluation episodes (same seed as below), the first worlds filmed
        film(args.out / "videos" / "final.mp4", min(args.video_worlds, n), n)
    ev = gym.make_vec(args.env, num_envs=n, num_threads=args.threads, **env_kwargs)
    trained, trained_ok = evaluate(ev, lambda o: agent.act(o, deterministic=True), n, with_success=True)
    # the policy as it acts in training (sampled actions): early in training, while the action
    # noise is still large, it can score far from its mean action
    sampled, sampled_ok = evaluate(ev, lambda o: agent.act(o), n, with_success=True)
    rng = np.random.default_rng(args.seed)
    space = ev.action_space
    random, random_ok = evaluate(ev, lambda o: rng.uniform(space.low, space.high), n, with_success=True)
    ev.close()
    last = rows[-1] if rows else {}
    summary = {
        "env": args.env,
        "env_steps": agent.env_steps,
        "minutes": last.get("time_s", 0) / 60,
        "steps_per_s": last.get("steps_per_s"),
        "eval_episodes": n,
        "eval_return_trained": float(np.mean(trained)),
        "eval_return_trained_sampled": float(np.mean(sampled)),
        "eval_return_random": float(np.mean(random)),
        # standard errors of the means (the episodes' spread / sqrt(n)): what chance allows
        "eval_return_trained_sem": _sem(trained),
        "eval_return_trained_sampled_sem": _sem(sampled),
        "eval_return_random_sem": _sem(random),
    }
    if not np.isnan(trained_ok).any():  # the task defines success
        summary["eval_success_trained"] = float(np.mean(trained_ok))
        summary["eval_success_trained_sampled"] = float(np.mean(sampled_ok))
        summary["eval_success_random"] = float(np.mean(random_ok))
    if agent.interrupted:
        summary["interrupted"] = True
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
