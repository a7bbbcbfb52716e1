"""Gymnasium vector and single-world environments over a C++ :class:`ncpgym.Batch`.

A task describes *what* the worlds are for (model, observation, reward, termination,
reset distribution) as NumPy code over all worlds at once; :class:`NcpVectorEnv` and
:class:`NcpEnv` implement Gymnasium's ``VectorEnv`` and ``Env`` contracts around it once,
for every task. No Python loop over worlds runs inside ``step`` or ``reset``.

Contract, beyond Gymnasium's:

* Actions are clipped to the action space (documented, not an error); a wrong shape or a
  non-floating dtype raises ``ValueError`` naming what was expected and what came; NaN or
  inf raises ``ValueError`` naming the world indices.
* A world whose physics diverges (its state becomes non-finite or the solver fails) keeps
  its last finite observation, gets reward 0, is truncated and reported in
  ``info["diverged"]``, then resets like any finished episode. Its neighbours are bitwise
  unaffected.
* The same seed gives bitwise-identical trajectories for any ``num_envs`` (world ``i`` is
  seeded from ``(seed, i)``) and any ``num_threads``.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from . import _core

__all__ = ["Task", "NcpVectorEnv", "NcpEnv", "env_classes"]


class Task:
    """A family of worlds: subclass and fill in the hooks (all vectorised over worlds).

    Class attributes: ``frame_skip`` (physics steps per env step), ``solver_options``
    (keyword arguments of :class:`ncpgym.SolverOptions`), ``max_episode_steps``,
    ``training_aids`` (keyword arguments that only change the training episodes: where
    they start, which goals they draw or under which gravity, e.g. FetchTomato's
    ``demo_starts``, ShadowHandBlock's ``near_goals``, HumanoidFlagrunHarder's
    ``weak_gravity``: evaluations and ``ncpgym.play`` leave them out, so a
    policy is always judged on the task as defined).
    """

    frame_skip: int = 1
    solver_options: dict[str, Any] = {}
    max_episode_steps: int | None = None
    training_aids: tuple[str, ...] = ()

    def __init__(self, **kwargs: Any):
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unexpected arguments: {sorted(kwargs)}")

    def build_model(self) -> _core.Model:
        """The task's Model, built once (and cached) when its environment is made."""
        raise NotImplementedError

    def spaces(self, model: _core.Model) -> tuple[gym.spaces.Box, gym.spaces.Box]:
        """(single observation space, single action space)."""
        raise NotImplementedError

    def action_bounds(self, model: _core.Model) -> tuple[np.ndarray, np.ndarray]:
        """float64 (low, high) that actions are clipped to (default: the action space's)."""
        _, act = self.spaces(model)
        return act.low.astype(np.float64), act.high.astype(np.float64)

    def abandon_episodes(self, worlds: np.ndarray) -> None:
        """The episodes of ``worlds`` are cut short by an explicit ``reset()`` (they neither
        terminated nor were truncated): a task that learns from how episodes end (a
        curriculum) leaves them out. Called before ``reset_states``. Default: nothing."""

    def reset_states(self, batch: _core.Batch, worlds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Initial (q, u) rows for ``worlds``, drawn from ``batch.uniform``/``batch.normal``."""
        raise NotImplementedError

    def after_reset(self, batch: _core.Batch, worlds: np.ndarray) -> None:
        """Called after ``worlds`` were reset (kinematics computed): what the (q, u) rows
        cannot say, such as moving a soft body's particles (``batch.x``) off their rest
        positions, or goals read from the reset state. Default: nothing."""

    def observation_segments(self, model: _core.Model) -> list[tuple[str, int, int]] | None:
        """The observation as slices of the batch's per-world arrays, ``[(field, offset,
        length), ...]`` (``Batch.set_observation``), gathered in C++ by every step for the
        worlds it touches; None (the default) when :meth:`observe` computes it."""
        return None

    def observe(self, batch: _core.Batch) -> np.ndarray:
        """Observations of every world, [N, obs_dim]. Default: a copy of the batch's fused
        observation (:meth:`observation_segments`)."""
        if self.observation_segments(batch.model) is None:
            raise NotImplementedError(f"{type(self).__name__} defines neither observe() nor observation_segments()")
        return np.array(batch.observation)

    def apply_action(self, batch: _core.Batch, action: np.ndarray, dt: float) -> np.ndarray:
        """The batch's controls [N, nu] for clipped actions [N, act_dim]; a task whose
        actions drive more than actuators (chamber activations, servo targets it integrates)
        sets those here. Default: the actions are the controls."""
        return action

    def get_state(self) -> dict[str, Any]:
        """What the task keeps between steps (targets, goals, counters, flags): by default
        copies of its NumPy arrays and plain numbers (ncpgym.state.task_state)."""
        from .state import task_state

        return task_state(self)

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore what get_state() returned (the task's arrays and numbers)."""
        from .state import restore_task

        restore_task(self, state)

    def reset_info(self, batch: _core.Batch) -> dict[str, np.ndarray]:
        """The info ``reset()`` returns, {key: [N] array} (rows of worlds not reset are
        masked out). Default: none."""
        return {}

    def before_step(self, batch: _core.Batch) -> Any:
        """Whatever the reward needs from the state before the step."""
        return None

    def evaluate(
        self, batch: _core.Batch, before: Any, ctrl: np.ndarray, dt: float
    ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """(reward [N], terminated [N] bool, info {key: [N] array}) after a step."""
        raise NotImplementedError

    def render_scene(self, model: _core.Model) -> Any:
        """The :class:`ncpgym.render.SceneSpec` of this task's pictures (MJCF, camera,
        soft-body colours). Default: ``to_mjcf(model)`` under MuJoCo's default camera."""
        from .render import SceneSpec

        return SceneSpec()

    def render_frame(self, batch: _core.Batch, world: int, frame: Any) -> None:
        """Per-frame decorations of ``world`` (``frame.add_geom``, ``frame.set_class_rgba``);
        reads the batch and task state only. Default: none."""

    @classmethod
    def demonstrations(cls, episodes: int, *, seed: int = 0, num_threads: int = 0,
                       **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        """(observations [M, obs_dim], actions [M, act_dim]) along ``episodes`` episodes of a
        scripted controller that succeed, from the task's own reset (``kwargs``: the task's
        options): what ``ncpgym.train --demo-bc`` imitates. Default: the task has none."""
        raise NotImplementedError(f"{cls.__name__} has no scripted demonstration (--demo-bc needs one)")


def _check_actions(actions: Any, shape: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(actions)
    if a.shape != shape:
        raise ValueError(f"actions: expected shape {shape}, got {a.shape}")
    if not np.issubdtype(a.dtype, np.floating):
        raise ValueError(f"actions: expected a floating dtype (float32 or float64), got {a.dtype}")
    finite = np.isfinite(a)
    if not finite.all():
        bad = np.flatnonzero(~finite.reshape(shape[0], -1).all(axis=1)) if len(shape) > 1 else np.array([0])
        raise ValueError(f"actions: NaN or inf in world(s) {bad.tolist()}")
    return a


MAX_WORLDS = 2**31 - 1  # the C++ batch indexes worlds with int


def check_num_threads(num_threads) -> None:
    """ValueError unless a non-negative int (0: all cores); a warning above the core count
    (OpenMP then oversubscribes the machine: slower, results unchanged)."""
    if isinstance(num_threads, (bool, np.bool_)) or not isinstance(num_threads, (int, np.integer)) or num_threads < 0:
        raise ValueError(f"num_threads must be a non-negative integer (0: all cores), got {num_threads!r}")
    cores = os.cpu_count() or 1
    if num_threads > cores:
        warnings.warn(f"num_threads={num_threads} is more than this machine's {cores} cores: the threads "
                      "share them (slower; results are the same)", stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """warnings.warn's stacklevel, for the function calling it, of the first frame outside
    ncpgym and Gymnasium: the user's line, whether the env was made directly, through an env
    class or by gymnasium.make_vec."""
    ours = tuple(os.path.dirname(os.path.abspath(f)) + os.sep for f in (__file__, gym.__file__))
    level, frame = 2, sys._getframe(2)  # level 1 is the function that warns, 2 its caller
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(ours):
        frame, level = frame.f_back, level + 1
    return level


def world_bytes(model) -> int:
    """Rough bytes of one world's state and derived arrays in a Batch (doubles)."""
    per_body = 3 + 4 + 3 + 10 + 6 + 6
    return 8 * (model.nq + 3 * model.nv + model.nu + 6 * model.nparticle + per_body * model.nbody
                + 12 * model.nsite + 2 * model.ngeom + model.nsoft + 8)


def physical_memory() -> int:
    """Bytes of RAM (0 where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def _first(v: np.ndarray):
    """World 0's entry of an [N, ...] info array: a Python scalar, or an array row."""
    return v[0].copy() if np.ndim(v) > 1 else v[0].item()


def _is_seed(s) -> bool:
    # the streams are keyed by 64-bit seeds (Batch.seed): larger ones are refused here
    return isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) and 0 <= s < 2**64


class _Core:
    """What the vector and single-world envs share: the batch, the task, resets, a step."""

    def __init__(self, task: Task, num_envs: int, num_threads: int, world_offset: int = 0,
                 solver_options: dict[str, Any] | None = None):
        if solver_options is not None and not isinstance(solver_options, dict):
            raise TypeError(f"solver_options must be a dict of ncpgym.SolverOptions keywords, got {solver_options!r}")
        if not isinstance(world_offset, (int, np.integer)) or world_offset < 0:
            raise ValueError(f"world_offset must be a non-negative integer, got {world_offset!r}")
        self.world_offset = int(world_offset)
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if num_envs > MAX_WORLDS:
            raise ValueError(f"num_envs={num_envs}: a batch holds at most {MAX_WORLDS} worlds")
        check_num_threads(num_threads)
        self.task = task
        self.model = task.build_model()
        need, have = int(num_envs) * world_bytes(self.model), physical_memory()
        if have and need > have:  # refuse before the allocation: zero-filling it would swap or be OOM-killed
            raise MemoryError(f"num_envs={num_envs}: the worlds' state needs about {need / 2**30:.1f} GiB, "
                              f"more than this machine's {have / 2**30:.1f} GiB")
        # the task's options, then the caller's on top (gymnasium.make_vec(..., solver_options={...}))
        self.batch = _core.Batch(self.model, int(num_envs), num_threads=num_threads,
                                 **{**task.solver_options, **(solver_options or {})})
        self.n = int(num_envs)
        self.single_observation_space, self.single_action_space = task.spaces(self.model)
        self.dt = self.batch.timestep * task.frame_skip
        segments = task.observation_segments(self.model)
        if segments is not None:
            self.batch.set_observation(segments)
        # With the default observe() of a fused observation the batch's rows are the record
        # of the last observations (a diverged world keeps its row): one copy per step.
        self.fused = segments is not None and type(task).observe is Task.observe
        self.stepped_obs = None
        self.obs = None if self.fused else np.zeros((self.n,) + self.single_observation_space.shape,
                                                    dtype=self.single_observation_space.dtype)
        self.seeded = False
        self.closed = False
        self.lo, self.hi = task.action_bounds(self.model)

    def ensure_open(self) -> None:
        if self.closed:
            raise RuntimeError("this environment is closed; make a new one")

    def seed(self, seed) -> None:
        """None (a fresh seed the first time, else keep the streams), a non-negative int
        (world i from (seed, i)) or one such int per world (world i from (seed[i], i), so
        [s] * N seeds exactly as s does)."""
        if seed is None:
            if self.seeded:
                return
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        if isinstance(seed, (list, tuple, np.ndarray)):
            seeds = list(seed)
            if len(seeds) != self.n or not all(_is_seed(s) for s in seeds):
                raise ValueError(f"seed: expected one integer in [0, 2**64) per world ({self.n}), got {seed!r}")
            self.batch.seed_worlds(np.array(seeds, np.uint64), self.world_offset)
        elif _is_seed(seed):
            self.batch.seed(int(seed), self.world_offset)
        else:
            raise ValueError(f"seed must be an integer in [0, 2**64) or one per world, got {seed!r}")
        self.seeded = True

    def reset_worlds(self, mask: np.ndarray) -> None:
        worlds = np.flatnonzero(mask).astype(np.int32)
        if worlds.size == 0:
            return
        q, u = self.task.reset_states(self.batch, worlds)
        self.batch.reset(mask.astype(np.uint8), q, u)
        self.task.after_reset(self.batch, worlds)

    def step(self, actions: np.ndarray, observe: bool = True):
        """One env step of every world: (obs, reward, terminated, diverged, info); obs is
        None with ``observe=False`` (the caller resets worlds first, then calls
        :meth:`observe`: one observation pass per step instead of two)."""
        ctrl = np.clip(actions, self.lo, self.hi).astype(np.float64, copy=False)
        before = self.task.before_step(self.batch)
        controls = self.task.apply_action(self.batch, ctrl.reshape(self.n, -1), self.dt)
        # a fused observation is copied out by the stepping threads (observe() then only
        # fills in worlds reset since)
        self.stepped_obs = np.empty(self.batch.observation.shape) if self.fused else None
        self.batch.step(np.ascontiguousarray(controls, dtype=np.float64).reshape(self.n, -1), self.task.frame_skip,
                        self.stepped_obs)
        reward, terminated, info = self.task.evaluate(self.batch, before, ctrl, self.dt)
        diverged = self.batch.status.astype(bool)
        if diverged.any():
            reward = np.where(diverged, 0.0, reward)
            terminated = terminated & ~diverged
            _zero_rows(info, diverged)
        return (self.observe(diverged) if observe else None), reward, terminated, diverged, info

    def observe(self, stale: np.ndarray, reset: np.ndarray | None = None) -> np.ndarray:
        """The task's observation of every world, the `stale` rows (worlds whose step
        diverged) kept at their last finite observation; recorded, and returned as a copy.
        `reset`: the worlds reset since the step (a fused observation re-reads only those)."""
        if self.fused:  # the batch kept the stale rows and holds the record
            obs, self.stepped_obs = self.stepped_obs, None
            if obs is None:
                return self.task.observe(self.batch)
            if reset is not None and reset.any():
                obs[reset] = self.batch.observation[reset]
            return obs
        obs = self.task.observe(self.batch)
        if stale.any():
            obs[stale] = self.obs[stale]
        self.obs = obs
        return obs.copy()

    def last_obs(self) -> np.ndarray:
        """A copy of the last observations recorded."""
        return np.array(self.batch.observation) if self.fused else self.obs.copy()

    def record_obs(self, mask: np.ndarray, fresh: np.ndarray) -> None:
        """Record the `mask` rows of `fresh` (the task's observation after resets)."""
        if not self.fused:
            self.obs[mask] = fresh[mask]

    def restore_obs(self, obs: np.ndarray) -> None:
        if self.fused:
            self.batch.observation = np.asarray(obs, dtype=np.float64)
        else:
            self.obs = np.array(obs, copy=True)


def _with_masks(info: dict[str, Any], present: np.ndarray | None = None, n: int | None = None) -> dict[str, Any]:
    """Gymnasium's vector info layout: every key has a boolean ``_key`` mask; nested dicts
    (``reward_terms``) get the same layout inside."""
    out: dict[str, Any] = {}
    everywhere: dict[int, np.ndarray] = {}  # one all-True mask per size, copied for each key
    for k, v in info.items():
        if isinstance(v, dict):
            out[k] = _with_masks(v, present, n)
            size = n if n is not None else len(next(iter(v.values())))
        else:
            out[k] = v
            size = len(v)
        if present is None:
            mask = everywhere.get(size)
            if mask is None:
                mask = everywhere[size] = np.ones(size, bool)
            out["_" + k] = mask.copy()
        else:
            out["_" + k] = present.copy()
    return out


def _zero_rows(info: dict[str, Any], rows: np.ndarray) -> None:
    """Zero (or clear) the entries of `rows` in every info array, nested dicts included."""
    for v in info.values():
        if isinstance(v, dict):
            _zero_rows(v, rows)
        elif v.dtype.kind == "f":
            v[rows] = 0.0
        elif v.dtype.kind == "b":
            v[rows] = False


def _autoreset_mode(mode: str | AutoresetMode) -> AutoresetMode:
    names = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
    if isinstance(mode, AutoresetMode):
        found = mode
    else:
        found = names.get(str(mode).lower()) or {m.value: m for m in AutoresetMode}.get(str(mode))
    if found not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        raise ValueError(f"autoreset_mode must be 'next_step' or 'same_step' (or the AutoresetMode), got {mode!r}")
    return found


def _copy(info: dict[str, Any]) -> dict[str, Any]:
    return {k: _copy(v) if isinstance(v, dict) else v.copy() for k, v in info.items()}


class NcpVectorEnv(gym.vector.VectorEnv):
    """Gymnasium ``VectorEnv`` of ``num_envs`` worlds of a :class:`Task`, stepped in C++.

    ``autoreset_mode`` is ``"next_step"`` (Gymnasium's default: the step after an episode
    ends resets that world, ignores its action and returns reward 0) or ``"same_step"``
    (finished worlds reset within the step; their terminal observation and info are in
    ``info["final_obs"]`` (an [N, obs_dim] array whose rows are valid under the
    ``_final_obs`` mask) and ``info["final_info"]``).
    ``max_episode_steps`` truncates episodes (None: never). ``world_offset`` numbers this
    env's worlds from there for seeding (a shard of a larger batch: ncpgym.cluster).
    ``render_mode="rgb_array"``: ``render()`` returns (K, height, width, 3) uint8 frames of
    the worlds in ``render_worlds`` (an index or a list of them; default the first world;
    settable later), seen by ``camera`` (an :class:`ncpgym.render.Camera`, a camera name
    of the task's MJCF, or None for the task's view); ``metadata["render_fps"]`` = 1 / dt.
    ``solver_options`` (a dict of :class:`ncpgym.SolverOptions` keywords, e.g.
    ``{"newton_iterations": 12, "warm_start": True}``) go over the task's own
    ``Task.solver_options``; unknown names raise TypeError.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"]}

    def __init__(
        self,
        task: Task,
        num_envs: int = 1,
        *,
        num_threads: int = 0,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        max_episode_steps: int | None = None,
        world_offset: int = 0,
        render_mode: str | None = None,
        render_worlds: int | list[int] | None = None,
        width: int | None = None,
        height: int | None = None,
        camera: Any = None,
        solver_options: dict[str, Any] | None = None,
    ):
        from .render import EnvRenderer, check_render_mode

        mode = _autoreset_mode(autoreset_mode)
        check_render_mode(render_mode)
        self._c = _Core(task, num_envs, num_threads, world_offset, solver_options)
        self._render = EnvRenderer(task, self._c.model, self._c.n, render_mode, render_worlds,
                                   width, height, camera)
        self.metadata = dict(type(self).metadata, autoreset_mode=mode, render_fps=1.0 / self._c.dt)
        self.num_envs = self._c.n
        self.single_observation_space = self._c.single_observation_space
        self.single_action_space = self._c.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = render_mode
        limit = task.max_episode_steps if max_episode_steps is None else max_episode_steps
        if limit is not None and limit < 1:
            raise ValueError(f"max_episode_steps must be >= 1 or None, got {limit}")
        self.max_episode_steps = limit
        # callables (batch, worlds) run whenever worlds reset, after the task's reset and
        # before their first observation (wrappers.DomainRandomization)
        self.reset_hooks: list[Any] = []
        self._elapsed = np.zeros(self.num_envs, np.int64)
        self._pending = np.zeros(self.num_envs, bool)  # next-step mode: reset at next step
        self.reset_step = np.zeros(self.num_envs, bool)
        self._needs_reset = True

    # -- Gymnasium API -------------------------------------------------------------------

    @property
    def task(self) -> Task:
        """The task object (its hooks and per-world state: targets, flags, ...)."""
        return self._c.task

    @property
    def batch(self) -> _core.Batch:
        """The C++ batch (views of q, u, ctrl, contacts ... without copies)."""
        return self._c.batch

    @property
    def dt(self) -> float:
        """Control period in seconds (timestep x frame_skip)."""
        return self._c.dt

    @property
    def num_threads(self) -> int:
        """OpenMP threads stepping the batch (results do not depend on it)."""
        return self._c.batch.num_threads

    @num_threads.setter
    def num_threads(self, n: int) -> None:
        self._c.batch.num_threads = n

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._c.ensure_open()
        per_world = isinstance(seed, (list, tuple, np.ndarray))
        if seed is not None and not per_world and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer, one per world, or None, got {seed!r}")
        self._c.seed(seed)  # validates (one seed seeds every world; a list seeds each world)
        super().reset(seed=int(seed[0]) if per_world else seed)
        mask = np.ones(self.num_envs, bool)
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(
                    f"options['reset_mask']: expected a bool array of shape ({self.num_envs},), "
                    f"got {mask.dtype} {mask.shape}"
                )
        if not self._needs_reset:  # running episodes cut short (a finished one waits in _pending)
            self._c.task.abandon_episodes(np.flatnonzero(mask & ~self._pending))
        self._restart(mask)
        self._pending[mask] = False
        self._needs_reset = False
        info = self._c.task.reset_info(self._c.batch)
        return self._c.last_obs(), (_with_masks(info, mask, self.num_envs) if info else {})

    def step(self, actions):
        c = self._c
        c.ensure_open()
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        a = _check_actions(actions, self.action_space.shape)
        pending = self._pending.copy()
        self.reset_step = pending  # worlds whose step only reset them (next-step autoreset)
        _, reward, terminated, diverged, info = c.step(a, observe=False)
        self._elapsed += 1
        truncated = diverged.copy()
        if self.max_episode_steps is not None:
            truncated |= self._elapsed >= self.max_episode_steps
        info["diverged"] = diverged
        if pending.any():
            # next-step autoreset: these worlds finished last step; reset them now and
            # report the reset observation (their actions are ignored)
            self._reset_worlds(pending)
            reward = np.where(pending, 0.0, reward)
            terminated = terminated & ~pending
            truncated = truncated & ~pending
            _zero_rows(info, pending)
        # one observation pass, after the resets (the other worlds' rows are the same
        # either way); diverged worlds keep their last finite observation
        obs = c.observe(diverged & ~pending, pending)
        done = terminated | truncated
        infos = _with_masks(info, n=self.num_envs)
        if self.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP:
            self._pending = done
        elif done.any():
            # one [N, obs_dim] array (rows valid under the mask) rather than an object array
            # of rows: indexing final_obs[i] works the same and nothing loops over worlds
            infos["final_obs"] = obs.copy()
            infos["_final_obs"] = done.copy()
            infos["final_info"] = _with_masks(_copy(info), done, self.num_envs)
            infos["_final_info"] = done.copy()
            obs[done] = self._restart(done)[done]
        return obs, reward.astype(np.float64), terminated, truncated, infos

    def get_state(self) -> dict[str, Any]:
        """Everything the worlds need to continue bitwise identically: the batch
        (ncpgym.state.batch_state), the task's state, the episode clocks and pending resets,
        the last observations. A dict of copies (picklable)."""
        from .state import batch_state

        c = self._c
        c.ensure_open()
        return {"batch": batch_state(c.batch), "task": c.task.get_state(), "obs": c.last_obs(),
                "elapsed": self._elapsed.copy(), "pending": self._pending.copy(),
                "reset_step": self.reset_step.copy(), "needs_reset": self._needs_reset, "seeded": c.seeded}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore a :meth:`get_state` of an env of the same task and size."""
        from .state import restore_batch

        c = self._c
        c.ensure_open()
        restore_batch(c.batch, state["batch"])
        c.task.set_state(state["task"])
        c.restore_obs(state["obs"])
        self._elapsed = np.array(state["elapsed"], copy=True)
        self._pending = np.array(state["pending"], copy=True)
        self.reset_step = np.array(state["reset_step"], copy=True)
        self._needs_reset = bool(state["needs_reset"])
        c.seeded = bool(state["seeded"])

    def __reduce__(self):
        # rebuilt by its class from the arguments it was made with, then given its state
        made = getattr(self, "_made_with", None)
        if made is None:
            raise TypeError(f"{type(self).__name__} made without env_classes cannot be pickled")
        state = None if self._c.closed else self.get_state()
        return (_rebuild, (type(self), made, state))

    def _reset_worlds(self, mask: np.ndarray) -> None:
        """Reset the masked worlds (the task's reset, then the reset hooks) and restart their
        episode clocks."""
        c = self._c
        c.reset_worlds(mask)
        if self.reset_hooks:
            worlds = np.flatnonzero(mask)
            for hook in self.reset_hooks:
                hook(c.batch, worlds)
        self._elapsed[mask] = 0

    def _restart(self, mask: np.ndarray) -> np.ndarray:
        """Reset the masked worlds, restart their episode clocks, record their observations;
        returns the observations of every world (rows under the mask are the new ones)."""
        c = self._c
        self._reset_worlds(mask)
        fresh = c.task.observe(c.batch)
        c.record_obs(mask, fresh)
        return fresh

    @property
    def render_worlds(self) -> list[int]:
        """The worlds ``render()`` draws (set with an index or a list of them)."""
        return self._render.worlds.tolist()

    @render_worlds.setter
    def render_worlds(self, worlds: int | list[int]) -> None:
        from .render import check_render_worlds

        self._render.worlds = check_render_worlds(worlds, self.num_envs)

    def render(self) -> np.ndarray | None:
        """(K, height, width, 3) uint8 frames of the ``render_worlds`` (None, with a warning,
        when the env was made without ``render_mode``)."""
        self._c.ensure_open()
        if self.render_mode is None:
            gym.logger.warn("render() needs render_mode='rgb_array' when making the env")
            return None
        if self._needs_reset:
            raise RuntimeError("call reset() before render(): the worlds have no state yet")
        return self._render.render(self._c.batch)

    def close_extras(self, **kwargs: Any) -> None:
        c = getattr(self, "_c", None)  # absent when the constructor failed
        if c is not None:
            c.closed = True
        r = getattr(self, "_render", None)
        if r is not None:
            r.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({type(self._c.task).__name__}, num_envs={self.num_envs})"


class NcpEnv(gym.Env):
    """A single world of a :class:`Task` as a Gymnasium ``Env`` (no autoreset; truncation
    comes from ``gymnasium.make``'s TimeLimit when the task is registered with one)."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, task: Task, *, num_threads: int = 1, render_mode: str | None = None,
                 width: int | None = None, height: int | None = None, camera: Any = None,
                 solver_options: dict[str, Any] | None = None):
        from .render import EnvRenderer, check_render_mode

        check_render_mode(render_mode)
        self._c = _Core(task, 1, num_threads, 0, solver_options)
        self._render = EnvRenderer(task, self._c.model, 1, render_mode, 0, width, height, camera)
        self.metadata = dict(type(self).metadata, render_fps=1.0 / self._c.dt)
        self.observation_space = self._c.single_observation_space
        self.action_space = self._c.single_action_space
        self.render_mode = render_mode
        self._needs_reset = True

    @property
    def task(self) -> Task:
        """The task object (its hooks and per-world state: targets, flags, ...)."""
        return self._c.task

    @property
    def batch(self) -> _core.Batch:
        """The C++ Batch holding this environment's one world."""
        return self._c.batch

    @property
    def dt(self) -> float:
        """Seconds of simulated time per env step (frame_skip x the time step)."""
        return self._c.dt

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._c.ensure_open()
        super().reset(seed=seed)
        self._c.seed(seed)
        self._c.reset_worlds(np.ones(1, bool))
        obs = self._c.task.observe(self._c.batch)
        self._c.record_obs(np.ones(1, bool), obs)
        self._needs_reset = False
        info = self._c.task.reset_info(self._c.batch)
        return obs[0].copy(), {k: _first(v) for k, v in info.items()}

    def step(self, action):
        self._c.ensure_open()
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        a = _check_actions(action, self.action_space.shape)
        obs, reward, terminated, diverged, info = self._c.step(a[None])
        info["diverged"] = diverged
        info1 = {k: ({kk: _first(vv) for kk, vv in v.items()} if isinstance(v, dict) else _first(v))
                 for k, v in info.items()}
        return obs[0], float(reward[0]), bool(terminated[0]), bool(diverged[0]), info1

    def render(self) -> np.ndarray | None:
        """(height, width, 3) uint8 picture of the world (None, with a warning, when the
        env was made without ``render_mode``)."""
        self._c.ensure_open()
        if self.render_mode is None:
            gym.logger.warn("render() needs render_mode='rgb_array' when making the env")
            return None
        if self._needs_reset:
            raise RuntimeError("call reset() before render(): the world has no state yet")
        return self._render.render(self._c.batch)[0]

    def close(self) -> None:
        c = getattr(self, "_c", None)
        if c is not None:
            c.closed = True
        r = getattr(self, "_render", None)
        if r is not None:
            r.close()


def _rebuild(cls, made: dict[str, Any], state: dict[str, Any] | None):
    env = cls(**made)
    if state is not None:
        env.set_state(state)
    return env


def env_classes(task_cls: type[Task], name: str) -> tuple[type[NcpVectorEnv], type[NcpEnv]]:
    """The Gymnasium vector env and single env classes of a task, as registered entry
    points: ``<name>VectorEnv(num_envs, *, num_threads, autoreset_mode, max_episode_steps,
    world_offset, render_mode, render_worlds, width, height, camera, solver_options,
    **task_kwargs)`` and ``<name>Env(*, num_threads, render_mode, width, height, camera,
    solver_options, **task_kwargs)``. ``solver_options`` (a dict of
    :class:`ncpgym.SolverOptions` keywords) goes over the task's own ``solver_options``."""

    def vector_init(self, num_envs: int = 1, *, num_threads: int = 0, autoreset_mode="next_step",
                    max_episode_steps: int | None = None, world_offset: int = 0, render_mode=None,
                    render_worlds=None, width=None, height=None, camera=None, solver_options=None,
                    **task_kwargs: Any):
        NcpVectorEnv.__init__(self, task_cls(**task_kwargs), num_envs, num_threads=num_threads,
                              autoreset_mode=autoreset_mode, max_episode_steps=max_episode_steps,
                              world_offset=world_offset, render_mode=render_mode,
                              render_worlds=render_worlds, width=width, height=height,
                              camera=camera, solver_options=solver_options)
        self._made_with = dict(num_envs=num_envs, num_threads=num_threads, autoreset_mode=autoreset_mode,
                               max_episode_steps=max_episode_steps, world_offset=world_offset,
                               render_mode=render_mode, render_worlds=render_worlds, width=width,
                               height=height, camera=camera, solver_options=solver_options, **task_kwargs)

    def single_init(self, *, num_threads: int = 1, render_mode: str | None = None, width=None,
                    height=None, camera=None, solver_options=None, **task_kwargs: Any):
        NcpEnv.__init__(self, task_cls(**task_kwargs), num_threads=num_threads,
                        render_mode=render_mode, width=width, height=height, camera=camera,
                        solver_options=solver_options)

    doc = f"{name}: see {task_cls.__module__}.{task_cls.__name__}."
    vec = type(f"{name}VectorEnv", (NcpVectorEnv,), {"__init__": vector_init, "__doc__": doc,
                                                     "__module__": task_cls.__module__})
    one = type(f"{name}Env", (NcpEnv,), {"__init__": single_init, "__doc__": doc, "__module__": task_cls.__module__})
    return vec, one
