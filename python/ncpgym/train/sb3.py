"""Stable-Baselines3 on ncpgym vector environments.

SB3 has its own VecEnv protocol (reset returns observations only, ``dones``, a list of
info dicts with ``terminal_observation`` and ``TimeLimit.truncated``, same-step reset).
``SB3VecEnv`` adapts an ncpgym vector env to it; SB3's algorithms then train directly on
the C++ batch::

    from stable_baselines3 import PPO
    from ncpgym.train.sb3 import SB3VecEnv
    venv = SB3VecEnv(gymnasium.make_vec("ncpgym/InvertedPendulum-v0", num_envs=16,
                                        autoreset_mode="same_step"))
    PPO("MlpPolicy", venv).learn(100_000)

The wrapped env must use ``autoreset_mode="same_step"`` (SB3's convention); building the
per-world info dicts SB3 expects is the one place a Python loop over worlds remains.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv


class SB3VecEnv(VecEnv):
    def __init__(self, envs):
        if envs.metadata.get("autoreset_mode") != AutoresetMode.SAME_STEP:
            raise ValueError("SB3VecEnv needs a vector env made with autoreset_mode='same_step'")
        self.envs = envs
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)
        self._actions: np.ndarray | None = None
        self._seed: int | None = None

    def reset(self) -> np.ndarray:
        obs, _ = self.envs.reset(seed=self._seed)
        self._seed = None
        return obs.astype(np.float32)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, rew, term, trunc, info = self.envs.step(self._actions)
        done = term | trunc
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            final = info["final_obs"]
            for i in np.flatnonzero(done):
                infos[i]["terminal_observation"] = final[i].astype(np.float32)
                infos[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
        return obs.astype(np.float32), rew.astype(np.float32), done, infos

    def close(self) -> None:
        self.envs.close()

    def seed(self, seed: int | None = None):
        self._seed = seed
        return [seed] * self.num_envs

    def get_attr(self, attr_name: str, indices=None):
        return [getattr(self.envs, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.envs, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        raise NotImplementedError("ncpgym worlds share one C++ batch; call methods on SB3VecEnv.envs")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def get_images(self):
        return [None] * self.num_envs
