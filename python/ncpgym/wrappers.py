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

__all__ = ["StepContext", "RewardTerm", "RewardComposition", "RewardTerms", "TaskSpaceObservation"]


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
    def __init__(self, terms: Iterable[RewardTerm]):
        self.terms: list[RewardTerm] = []
        for t in terms:
            self.add(t)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.terms]

    def add(self, term: RewardTerm) -> None:
        if term.name in self.names:
            raise ValueError(f"reward term {term.name!r} already exists")
        self.terms.append(term)

    def reweight(self, weights: Mapping[str, float]) -> None:
        unknown = set(weights) - set(self.names)
        if unknown:
            raise ValueError(f"unknown reward terms {sorted(unknown)}; terms are {self.names}")
        for t in self.terms:
            if t.name in weights:
                t.weight = float(weights[t.name])

    def __call__(self, ctx: StepContext) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        n = ctx.batch.num_worlds
        total = np.zeros(n)
        values: dict[str, np.ndarray] = {}
        for t in self.terms:
            v = np.broadcast_to(np.asarray(t.fn(ctx), dtype=np.float64), (n,))
            values[t.name] = v.copy()
            if t.weight != 0.0:
                total += t.weight * v
        return total, values


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
    by the Implicit Inversion Method (iwim-on-dynamics.txt §5) over all worlds at once.
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
