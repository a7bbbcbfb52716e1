"""Composable reward terms and observation wrappers for ncpgym's vector envs.

A task's reward is a :class:`RewardComposition`: named, weighted, vectorised terms, each a
function of a :class:`StepContext` (the batch after the step, the clipped actions, the
control period and whatever the task computed). Every step reports each term's
*unweighted* value per world in ``info["reward_terms"]``; the reward is the weighted sum.

Users reweight, drop (weight 0) or add terms without subclassing, either when making the
env (``gym.make_vec(id, reward_weights={"electricity": 0.5}, extra_reward_terms=[...])``)
or around any ncpgym vector env with :class:`RewardTerms`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import gymnasium as gym
import numpy as np

__all__ = ["StepContext", "RewardTerm", "RewardComposition", "RewardTerms", "TaskSpaceObservation", "SoftTaskSpaceObservation",
           "RecordVectorVideo", "DomainRandomization"]


@dataclass
class StepContext:
    """What reward terms see: all arrays are [N, ...] over worlds."""

    batch: Any                      # ncpgym.Batch after the step
    action: np.ndarray              # clipped actions [N, act_dim]
    dt: float                       # control period (s)
    extra: dict[str, Any] = field(default_factory=dict)  # task quantities (distances, flags, ...)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.extra[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass
class RewardTerm:
    """A named reward term: ``fn(ctx) -> [N]`` floats, scaled by ``weight``."""

    name: str
    fn: Callable[[StepContext], np.ndarray]
    weight: float = 1.0


class RewardComposition:
    """A reward as a weighted sum of named terms: ``reward = sum(weight x term(ctx))``, each term's unweighted value reported per world in ``info['reward_terms']``."""
    def __init__(self, terms: Iterable[RewardTerm]):
        self.terms: list[RewardTerm] = []
        for t in terms:
            self.add(t)

    @classmethod
    def configured(cls, terms: Iterable[RewardTerm], weights: Mapping[str, float] | None = None,
                   extra: Iterable[RewardTerm] = ()) -> "RewardComposition":
        """A task's composition: its default ``terms`` reweighted by ``weights`` (a task's
        ``reward_weights`` kwarg), plus ``extra`` terms (its ``extra_reward_terms``)."""
        comp = cls(terms)
        if weights:
            comp.reweight(weights)
        for t in extra:
            comp.add(t)
        return comp

    @property
    def names(self) -> list[str]:
        """The terms' names, in order."""
        return [t.name for t in self.terms]

    def add(self, term: RewardTerm) -> None:
        """Append a term (its name must be new)."""
        if term.name in self.names:
            raise ValueError(f"reward term {term.name!r} already exists")
        self.terms.append(term)

    def reweight(self, weights: Mapping[str, float]) -> None:
        """Set the weights of named terms (0 drops a term); unknown names raise KeyError."""
        unknown = set(weights) - set(self.names)
        if unknown:
            raise ValueError(f"unknown reward terms {sorted(unknown)}; terms are {self.names}")
        for t in self.terms:
            if t.name in weights:
                t.weight = float(weights[t.name])

    def __call__(self, ctx: StepContext) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        n = ctx.batch.num_worlds
        # every term's values written into the rows of one new array (each row the caller's
        # own copy): few NumPy calls, which is what a step's Python costs once the C++ step
        # has evicted the interpreter from the caches
        rows = np.empty((len(self.terms), n))
        for k, t in enumerate(self.terms):
            rows[k] = t.fn(ctx)  # broadcasts a scalar, casts to float64
        # summed term by term in order: a world's reward must not depend on the batch size
        # (einsum and BLAS change their summation order with the array length)
        total = np.zeros(n)
        for k, t in enumerate(self.terms):
            if t.weight != 0.0:  # a 0-weight term's inf/NaN stays out
                total += t.weight * rows[k]
        return total, {t.name: rows[k] for k, t in enumerate(self.terms)}


class RewardTerms(gym.vector.VectorWrapper):
    """Recompute an ncpgym vector env's reward from its reported terms with new weights,
    plus added terms, without touching the task. ``weights`` maps term names to new weights
    (0 drops a term); ``add`` lists extra :class:`RewardTerm`s evaluated on the batch."""

    def __init__(self, env, weights: Mapping[str, float] | None = None, add: Iterable[RewardTerm] = ()):
        super().__init__(env)
        task = env.unwrapped._c.task
        if not hasattr(task, "rewards"):
            raise ValueError(f"{type(task).__name__} does not expose reward terms")
        self._base = {t.name: t.weight for t in task.rewards.terms}
        unknown = set(weights or {}) - set(self._base)
        if unknown:
            raise ValueError(f"unknown reward terms {sorted(unknown)}; terms are {sorted(self._base)}")
        self._weights = {**self._base, **(weights or {})}
        self._add = list(add)

    def step(self, actions):
        obs, _, term, trunc, info = self.env.step(actions)
        terms = {k: v for k, v in info["reward_terms"].items() if not k.startswith("_")}
        c = self.env.unwrapped._c
        ctx = StepContext(c.batch, np.clip(np.asarray(actions, dtype=np.float64), c.lo, c.hi), c.dt)
        reward = np.zeros(self.num_envs)
        for name, w in self._weights.items():
            reward += w * terms[name]
        for t in self._add:
            v = np.broadcast_to(np.asarray(t.fn(ctx), dtype=np.float64), (self.num_envs,)).copy()
            terms[t.name] = v
            reward += t.weight * v
        reset_step = getattr(self.env.unwrapped, "reset_step", None)
        if reset_step is not None and reset_step.any():
            reward[reset_step] = 0.0  # next-step autoreset: no reward on the reset step
            for v in terms.values():
                v[reset_step] = 0.0
        from .vector import _with_masks

        info = dict(info, reward_terms=_with_masks(terms, n=self.num_envs))
        return obs, reward, term, trunc, info


class TaskSpaceObservation(gym.vector.VectorObservationWrapper):
    """Appends, per world, J_t M^-1 B and J_t M^-1 J_t^T for the given sites: the task-space
    response to actuator inputs and the inverse operational-space inertia, computed in C++
    by the Implicit Inversion Method (Krög et al. §5) over all worlds at once.
    J_t is the site Jacobian [linear; angular] (6 x nv); B the actuator gear matrix
    (nv x nu). ``quantities`` picks from ("jminvb", "lambda_inv")."""

    def __init__(self, env, sites: Iterable[str | int], quantities: Iterable[str] = ("jminvb", "lambda_inv")):
        super().__init__(env)
        from . import dynamics as dyn

        self._dyn = dyn
        model = env.unwrapped.batch.model
        self._sites = [model.site_id(s) if isinstance(s, str) else int(s) for s in sites]
        if not self._sites:
            raise ValueError("TaskSpaceObservation needs at least one site")
        self._q = tuple(quantities)
        bad = set(self._q) - {"jminvb", "lambda_inv"}
        if bad or not self._q:
            raise ValueError(f"quantities must be a non-empty subset of ('jminvb', 'lambda_inv'), got {self._q}")
        k = 6 * len(self._sites)
        extra = (k * model.nu if "jminvb" in self._q else 0) + (k * k if "lambda_inv" in self._q else 0)
        base = env.single_observation_space
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (base.shape[0] + extra,), np.float64)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)

    def observations(self, obs):
        b = self.env.unwrapped.batch
        jmb, lam = self._dyn.task_space(b.model, b.q, self._sites)
        parts = [np.asarray(obs, dtype=np.float64)]
        n = obs.shape[0]
        if "jminvb" in self._q:
            parts.append(jmb.reshape(n, -1))
        if "lambda_inv" in self._q:
            parts.append(lam.reshape(n, -1))
        return np.concatenate(parts, axis=1)


class SoftTaskSpaceObservation(gym.vector.VectorObservationWrapper):
    """Appends, per world, the soft robot's task-space response W_ea = J_e K^-1 J_a^T
    (effectors x actuators, inverse-qp-soft-robots.txt eq. 3): how the effector particles
    would move per unit of each actuator (:class:`ncpgym.control.PressureActuator`,
    :class:`ncpgym.control.CableActuator`) over the next step from the current state,
    flattened row-major ([3 ne, na]), and optionally the effectors' free positions ([ne, 3],
    ``free_positions=True``): the soft counterpart of :class:`TaskSpaceObservation`, for
    learned controllers. Computed for all worlds at once in C++ (``Batch.project``: a free
    step per world, not stored, and one back-substitution per actuator, OpenMP): it costs
    about one more physics step per observation. Worlds whose free step fails give NaN."""

    def __init__(self, env, effectors: Iterable[int], actuators, free_positions: bool = False):
        super().__init__(env)
        from .control import CableActuator, PressureActuator, SoftInverse

        # SoftInverse checks the effectors and actuators as its controller would use them
        ctl = SoftInverse(env.unwrapped.batch.model, list(effectors), list(actuators))
        if not all(isinstance(a, (PressureActuator, CableActuator)) for a in ctl.actuators):
            raise TypeError("SoftTaskSpaceObservation takes PressureActuator and CableActuator")
        self._eff, self._acts = ctl.effectors, ctl.actuators
        self._free = bool(free_positions)
        ne, na = self._eff.size, len(self._acts)
        extra = 3 * ne * na + (3 * ne if self._free else 0)
        base = env.single_observation_space
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (base.shape[0] + extra,), np.float64)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)

    def observations(self, obs):
        from .control import batch_projection

        xf, W, _ = batch_projection(self.env.unwrapped.batch, self._eff, self._acts)
        n = obs.shape[0]
        parts = [np.asarray(obs, dtype=np.float64), W.reshape(n, -1)]
        if self._free:
            parts.append(xf.reshape(n, -1))
        return np.concatenate(parts, axis=1)


class RecordVectorVideo(gym.vector.VectorWrapper):
    """Films a vector env made with ``render_mode="rgb_array"``: the frames of its render
    worlds, tiled into one picture (:func:`ncpgym.render.tile`, ``cols`` columns), go to mp4
    files in ``video_folder`` (imageio + imageio-ffmpeg, extra ``render``).

    A clip starts at the reset or step whose index (0 for the first reset, then 1, 2, ...
    per step) satisfies ``step_trigger`` (default: only 0) and records one frame there and
    one per step after it, until ``video_length`` frames (0: until ``close()``).
    ``fps`` defaults to ``metadata["render_fps"]`` (30 when the env has none). Written files are in ``self.videos``.
    Gymnasium's vector ``RecordVideo`` needs one frame per world; this one films any subset.
    """

    def __init__(self, env, video_folder, *, step_trigger: Callable[[int], bool] | None = None,
                 video_length: int = 0, name_prefix: str = "ncpgym-video", fps: float | None = None,
                 cols: int | None = None):
        super().__init__(env)
        self._writer = None  # before the checks: close() runs when a refused wrapper is collected
        if env.render_mode != "rgb_array":
            raise ValueError(f"RecordVectorVideo needs an env made with render_mode='rgb_array', "
                             f"got render_mode={env.render_mode!r}")
        if video_length < 0:
            raise ValueError(f"video_length must be >= 0, got {video_length}")
        from pathlib import Path

        self.folder = Path(video_folder)
        self.trigger = step_trigger or (lambda step: step == 0)
        self.video_length = int(video_length)
        self.name_prefix = name_prefix
        self.fps = float(fps if fps is not None else env.metadata.get("render_fps", 30))
        self.cols = cols
        self.step_id = 0
        self.videos: list = []

    def _frame(self) -> None:
        from .render import tile

        if self._writer is None and self.trigger(self.step_id):
            from .video import VideoWriter

            path = self.folder / f"{self.name_prefix}-step-{self.step_id}.mp4"
            self._writer = VideoWriter(path, self.fps)
            self.videos.append(path)
        if self._writer is not None:
            self._writer.append(tile(self.env.render(), cols=self.cols))
            if self.video_length and self._writer.frames >= self.video_length:
                self.stop_recording()

    def stop_recording(self) -> None:
        """Finish the current clip (if any)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    @property
    def recording(self) -> bool:
        """Whether frames are being written right now."""
        return self._writer is not None

    def reset(self, *, seed=None, options=None):
        out = self.env.reset(seed=seed, options=options)
        self._frame()
        return out

    def step(self, actions):
        out = self.env.step(actions)
        self.step_id += 1
        self._frame()
        return out

    def close(self) -> None:
        self.stop_recording()
        super().close()


class DomainRandomization(gym.vector.VectorWrapper):
    """Physics parameters drawn per world at every reset (``reset()`` and autoresets):
    ``friction``, ``mass`` and ``stiffness`` are (low, high) ranges of the batch's
    ``friction_scale``, ``mass_scale`` and ``stiffness_scale`` multipliers (stiffness: the
    Young's modulus of soft bodies' elements, so a soft ball, tomato or finger is softer or
    harder per world), ``gravity`` a (low, high) pair of 3-vectors (m/s^2, per
    component). Each world draws from its own counter-based stream
    (``Batch.uniform``: one number per range given, three for gravity, in that order), so a
    seed gives the same parameters whatever the batch size or thread count; a parameter
    left None keeps its value. ``low == high`` sets a fixed value. The current values are in
    ``info["domain"]`` after every reset and step (``friction``, ``mass``, ``stiffness``:
    [N]; ``gravity``: [N, 3]).

    ``envs = DomainRandomization(gym.make_vec("ncpgym/Humanoid-v0", 64), friction=(0.5, 1.5),
    mass=(0.8, 1.2), gravity=((0, 0, -10.3), (0, 0, -9.3)))``
    """

    def __init__(self, env, *, friction=None, mass=None, stiffness=None, gravity=None):
        super().__init__(env)
        base = env.unwrapped
        if not hasattr(base, "reset_hooks"):
            raise TypeError(f"DomainRandomization needs an ncpgym vector env made in this process, got "
                            f"{type(base).__name__}")
        self.friction = self._range("friction", friction)
        self.mass = self._range("mass", mass)
        self.stiffness = self._range("stiffness", stiffness)
        self.gravity = None
        if gravity is not None:
            lo, hi = (np.asarray(g, float) for g in gravity)
            if lo.shape != (3,) or hi.shape != (3,) or np.any(lo > hi) or not np.all(np.isfinite([lo, hi])):
                raise ValueError(f"gravity: expected (low, high) 3-vectors with low <= high, got {gravity!r}")
            self.gravity = (lo, hi)
        self.batch = base._c.batch
        base.reset_hooks.append(self._draw)

    @staticmethod
    def _range(name, r):
        if r is None:
            return None
        lo, hi = (float(v) for v in r)
        if not 0 < lo <= hi < np.inf:
            raise ValueError(f"{name}: expected a range (low, high) with 0 < low <= high, got {r!r}")
        return lo, hi

    def _draw(self, batch, worlds: np.ndarray) -> None:
        if self.friction is not None:
            batch.friction_scale[worlds] = batch.uniform(worlds, 1, *self.friction)[:, 0]
        if self.mass is not None:
            batch.mass_scale[worlds] = batch.uniform(worlds, 1, *self.mass)[:, 0]
        if self.stiffness is not None:
            batch.stiffness_scale[worlds] = batch.uniform(worlds, 1, *self.stiffness)[:, 0]
        if self.gravity is not None:
            lo, hi = self.gravity
            batch.gravity[worlds] = lo + batch.uniform(worlds, 3, 0.0, 1.0) * (hi - lo)

    def _info(self, info):
        info["domain"] = {"friction": self.batch.friction_scale.copy(), "mass": self.batch.mass_scale.copy(),
                          "stiffness": self.batch.stiffness_scale.copy(), "gravity": self.batch.gravity.copy()}
        return info

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._info(info)

    def step(self, actions):
        obs, reward, term, trunc, info = self.env.step(actions)
        return obs, reward, term, trunc, self._info(info)
