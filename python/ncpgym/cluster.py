"""ncpgym environments across machines with Ray.

``RayVectorEnv`` is a Gymnasium VectorEnv whose worlds are split into contiguous shards,
one per Ray actor; each actor owns an ncpgym vector env (one C++ batch stepped with
OpenMP on ``cpus_per_worker`` threads). A step sends each actor its slice of the actions
and gathers (obs, reward, terminated, truncated, info) arrays in one round trip per actor;
arrays travel through Ray's object store. Worlds keep their global index for seeding, so
for a seed the concatenated results are bitwise those of ``gymnasium.make_vec`` with the
same number of worlds.

``rllib_config`` returns an RLlib PPO config that runs an ncpgym task as a ready vector
env on RLlib's env runners.

Point it at a cluster: ``ray start --head`` on one machine, ``ray start --address=HEAD:6379``
on the others, then ``RayVectorEnv(..., address="auto")`` (or ``ray.init(address="auto")``
before making the env). Each actor reserves ``cpus_per_worker`` CPUs.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .vector import _autoreset_mode, _check_actions

__all__ = ["RayVectorEnv", "rllib_config"]


class _Shard:
    """A Ray actor: worlds [first, first + n) of the sharded env."""

    def __init__(self, env_id: str, n: int, first: int, threads: int, kwargs: dict[str, Any]):
        import ncpgym  # noqa: F401  (registers the tasks in this process)

        self.env = gym.make_vec(env_id, num_envs=n, num_threads=threads, world_offset=first,
                                vectorization_mode="vector_entry_point", **kwargs)

    def spaces(self):
        e = self.env
        return e.single_observation_space, e.single_action_space, e.metadata["autoreset_mode"]

    def reset(self, seed, options):
        return self.env.reset(seed=seed, options=options)

    def step(self, actions):
        return self.env.step(actions)

    def threads(self) -> dict[str, Any]:
        return {"batch_threads": self.env.unwrapped.batch.num_threads,
                "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"), "pid": os.getpid()}

    def close(self) -> None:
        self.env.close()


def _concat(parts: list[Any]) -> Any:
    """Concatenate per-shard info values (arrays, nested dicts) along the world axis."""
    first = parts[0]
    if isinstance(first, dict):
        keys = first.keys()
        return {k: _concat([p[k] for p in parts]) for k in keys}
    return np.concatenate(parts, axis=0)


class RayVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` worlds of ``env_id`` split over ``num_workers`` Ray actors.

    ``cpus_per_worker`` is both the actor's Ray CPU reservation and its batch's OpenMP
    thread count. ``address`` is passed to ``ray.init`` when Ray is not running yet
    (None: a local instance). Other keywords go to the task (as ``gymnasium.make_vec``).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, env_id: str, num_envs: int, num_workers: int = 2, cpus_per_worker: int = 1, *,
                 autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP, address: str | None = None,
                 **env_kwargs: Any):
        import ray

        from . import TASK_IDS

        if env_id not in TASK_IDS:
            raise ValueError(f"unknown ncpgym task {env_id!r}; registered: {', '.join(TASK_IDS)}")
        if not isinstance(num_workers, (int, np.integer)) or num_workers < 1:
            raise ValueError(f"num_workers must be a positive integer, got {num_workers!r}")
        if not isinstance(num_envs, (int, np.integer)) or num_envs < num_workers:
            raise ValueError(f"num_envs ({num_envs!r}) must be an integer >= num_workers ({num_workers})")
        if cpus_per_worker < 1:
            raise ValueError(f"cpus_per_worker must be >= 1, got {cpus_per_worker}")
        self._ray = ray
        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        mode = _autoreset_mode(autoreset_mode)
        self.num_envs = int(num_envs)
        bounds = np.linspace(0, self.num_envs, num_workers + 1).round().astype(int)
        self.ranges = [(int(bounds[k]), int(bounds[k + 1])) for k in range(num_workers)]
        kwargs = dict(env_kwargs, autoreset_mode=mode)
        remote = ray.remote(num_cpus=cpus_per_worker)(_Shard)
        self._workers = [remote.remote(env_id, hi - lo, lo, int(cpus_per_worker), kwargs) for lo, hi in self.ranges]
        self.closed = False
        obs_space, act_space, mode_w = self._gather([w.spaces.remote() for w in self._workers])[0]
        self.single_observation_space, self.single_action_space = obs_space, act_space
        self.observation_space = batch_space(obs_space, self.num_envs)
        self.action_space = batch_space(act_space, self.num_envs)
        self.metadata = dict(type(self).metadata, autoreset_mode=mode_w)
        self.render_mode = None
        self.env_id = env_id

    def _gather(self, refs: list[Any]) -> list[Any]:
        ray = self._ray
        out = []
        for k, ref in enumerate(refs):
            try:
                out.append(ray.get(ref))
            except (ray.exceptions.RayActorError, ray.exceptions.ActorDiedError) as e:
                lo, hi = self.ranges[k]
                raise RuntimeError(f"Ray worker {k} (worlds {lo}-{hi - 1}) died: {e}") from e
            except ray.exceptions.RayTaskError as e:
                lo, hi = self.ranges[k]
                raise RuntimeError(f"Ray worker {k} (worlds {lo}-{hi - 1}) failed: {e.cause!r}") from e.cause
        return out

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("this environment is closed; make a new one")

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        self._check_open()
        per_world = isinstance(seed, (list, tuple, np.ndarray))
        if per_world and len(seed) != self.num_envs:
            raise ValueError(f"seed: expected one integer in [0, 2**64) per world ({self.num_envs}), got {seed!r}")
        super().reset(seed=int(seed[0]) if per_world else seed)
        refs = []
        for w, (lo, hi) in zip(self._workers, self.ranges):
            shard_seed = list(seed[lo:hi]) if per_world else seed  # each shard seeds its own worlds
            opt = options
            if options and "reset_mask" in options:
                mask = np.asarray(options["reset_mask"])
                if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                    raise ValueError(f"options['reset_mask']: expected a bool array of shape ({self.num_envs},), "
                                     f"got {mask.dtype} {mask.shape}")
                opt = dict(options, reset_mask=mask[lo:hi])
            refs.append(w.reset.remote(shard_seed, opt))
        res = self._gather(refs)
        obs = np.concatenate([r[0] for r in res], axis=0)
        infos = [r[1] for r in res]
        return obs, (_concat(infos) if infos[0] else {})

    def step(self, actions):
        self._check_open()
        a = _check_actions(actions, self.action_space.shape)
        res = self._gather([w.step.remote(a[lo:hi]) for w, (lo, hi) in zip(self._workers, self.ranges)])
        obs = np.concatenate([r[0] for r in res], axis=0)
        rew = np.concatenate([r[1] for r in res], axis=0)
        term = np.concatenate([r[2] for r in res], axis=0)
        trunc = np.concatenate([r[3] for r in res], axis=0)
        infos = [r[4] for r in res]
        # same-step autoreset: final_* keys appear only on shards where a world finished
        keys = set().union(*[i.keys() for i in infos])
        for k in keys:
            for i, (lo, hi) in zip(infos, self.ranges):
                if k not in i:
                    i[k] = _empty_like_info(next(x[k] for x in infos if k in x), hi - lo)
        return obs, rew, term, trunc, _concat(infos)

    def worker_threads(self) -> list[dict[str, Any]]:
        """Per worker: the batch's thread count, OMP_NUM_THREADS and the process id."""
        return self._gather([w.threads.remote() for w in self._workers])

    def close_extras(self, **kwargs: Any) -> None:
        if getattr(self, "closed", True) and not getattr(self, "_workers", None):
            return
        for w in getattr(self, "_workers", []):
            try:
                self._ray.kill(w)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._workers = []
        self.closed = True

    def __repr__(self) -> str:
        return f"RayVectorEnv({self.env_id!r}, num_envs={self.num_envs}, workers={len(self.ranges)})"


def _empty_like_info(value: Any, n: int) -> Any:
    if isinstance(value, dict):
        return {k: _empty_like_info(v, n) for k, v in value.items()}
    return np.zeros((n,) + np.shape(value)[1:], dtype=np.asarray(value).dtype)


def rllib_config(env_id: str, num_envs_per_env_runner: int = 64, num_env_runners: int = 0,
                 num_threads: int = 1, **env_kwargs: Any):
    """An RLlib PPO config (new API stack) running ``env_id`` as a ready ncpgym vector env
    on each env runner (``gym_env_vectorize_mode="vector_entry_point"``, next-step
    autoreset). Adjust training settings on the returned config as usual."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from . import TASK_IDS

    if env_id not in TASK_IDS:
        raise ValueError(f"unknown ncpgym task {env_id!r}; registered: {', '.join(TASK_IDS)}")
    # "ncpgym:<id>" makes Gymnasium import ncpgym (which registers the id) in every env
    # runner process before it looks the id up
    return (
        PPOConfig()
        .environment(env=f"ncpgym:{env_id}", env_config={"num_threads": num_threads, **env_kwargs})
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner,
                     gym_env_vectorize_mode="vector_entry_point")
    )
