"""Registered tasks. Importing ncpgym registers every id with Gymnasium, so that
``gymnasium.make("ncpgym/<Task>-v0")`` and ``gymnasium.make_vec(..., num_envs=N)`` work."""

from __future__ import annotations

import gymnasium as gym

from .humanoid import HumanoidEnv, HumanoidTask, HumanoidVectorEnv

__all__ = ["HumanoidEnv", "HumanoidTask", "HumanoidVectorEnv", "register_all", "TASK_IDS"]

TASK_IDS = ("ncpgym/Humanoid-v0",)


def register_all() -> None:
    if "ncpgym/Humanoid-v0" not in gym.registry:
        gym.register(
            id="ncpgym/Humanoid-v0",
            entry_point="ncpgym.tasks.humanoid:HumanoidEnv",
            vector_entry_point="ncpgym.tasks.humanoid:HumanoidVectorEnv",
            max_episode_steps=1000,
        )
