"""What the task evaluation scripts (yumi_drawer_eval.py, allegro_squeeze_eval.py,
task_table.py, checkpoint_curve.py) share: the three controllers compared (a trained policy,
random actions, the task's scripted baseline), a run's task as defined, and the command line
that runs them and writes the table and JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable

import numpy as np

from ncpgym.play import load_policy

CONTROLLERS = ("trained", "scripted", "random")


def controller(kind: str, envs, policy: Path | None, scripted: Callable[[int], np.ndarray], seed: int):
    """act(obs, step) -> float32 actions [N, act_dim] for ``kind``; ``scripted(step)`` gives
    the task's scripted actions (it reads the batch itself)."""
    if kind == "trained":
        policy_act = load_policy(policy, envs)
        return lambda obs, k: policy_act(obs)
    if kind == "random":
        envs.action_space.seed(seed)
        return lambda obs, k: envs.action_space.sample()
    return lambda obs, k: np.asarray(scripted(k), np.float32)


def judged_task(run: Path) -> tuple[str, dict]:
    """A training run's task id and keyword arguments (its config.json) with the training
    aids left out: the task as defined, which evaluations judge."""
    from ncpgym.tasks import evaluation_kwargs

    made = json.loads((Path(run) / "config.json").read_text())
    return made["env"], evaluation_kwargs(made["env"], made.get("env_kwargs") or {})


def uniform_actions(envs, seed: int) -> Callable[[np.ndarray], np.ndarray]:
    """act(obs): actions drawn uniformly over ``envs``' action space (cast to its dtype) from
    a generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    space = envs.action_space
    return lambda obs: rng.uniform(space.low, space.high).astype(space.dtype)


def policy_or_random(kind: str, envs, policy: Path | None, seed: int,
                     deterministic: bool = True) -> Callable[[np.ndarray], np.ndarray]:
    """act(obs) of a saved PPO policy (``kind`` "trained": its mean action, or sampled
    actions with ``deterministic=False``) or of uniform_actions (``kind`` "random")."""
    if kind == "trained":
        return load_policy(policy, envs, deterministic=deterministic)
    if kind == "random":
        return uniform_actions(envs, seed)
    raise ValueError(f"kind: 'trained' or 'random', got {kind!r}")


def table_options(ap: argparse.ArgumentParser) -> None:
    """The options the evaluation scripts with a Markdown table share: --seed, --threads,
    --json (write the rows) and --table (print a JSON file's table and stop)."""
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--threads", type=int, default=0, help="physics threads (0: all cores)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--table", type=Path, help="print the Markdown table of this JSON file and stop")


def cli(script: str, doc: str, run: Callable[..., dict],
        columns: list[tuple[str, str, str]], argv=None, controllers=CONTROLLERS, options=None) -> None:
    """Parse --policy/--episodes/--seed/--json, evaluate every controller with
    ``run(kind, episodes, seed, policy, **extra)``, print ``columns`` ((header, row key,
    format)), write the rows and the command to the JSON file. ``options`` maps a script's
    own flags (``--name``) to their argparse settings; their values reach ``run`` as
    keyword arguments."""
    options = options or {}
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", type=Path, required=True)
    ap.add_argument("--episodes", type=int, default=32)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--json", type=Path)
    for name, spec in options.items():
        ap.add_argument(f"--{name}", **spec)
    args = ap.parse_args(argv)
    extra = {name: getattr(args, name) for name in options}
    rows = [run(k, args.episodes, args.seed, args.policy, **extra) for k in controllers]
    widths = [max(len(h) + 2, 9) for h, _, _ in columns]
    print(f"{'controller':<10}" + "".join(f"{h:>{w}}" for (h, _, _), w in zip(columns, widths)))
    for r in rows:
        print(f"{r['controller']:<10}" + "".join(f"{r[key]:>{w}{fmt}}" for (_, key, fmt), w in zip(columns, widths)))
    if args.json:
        flags = "".join((f" --{name}" if value is True else "") if isinstance(value, bool) else f" --{name} {value}"
                        for name, value in extra.items())
        command = (f"python benchmarks/{script} --policy {args.policy} --episodes {args.episodes}{flags} "
                   f"--json {args.json}")
        args.json.write_text(json.dumps({"rows": rows, "command": command}, indent=1) + "\n")
