"""Registered tasks. Importing ncpgym registers every id with Gymnasium, so that
``gymnasium.make("ncpgym/<Task>-v0")`` and ``gymnasium.make_vec(..., num_envs=N)`` work."""

from __future__ import annotations

import importlib

import gymnasium as gym

from .allegro_grasp import AllegroGraspEnv, AllegroGraspTask, AllegroGraspVectorEnv
from .allegro_squeeze import AllegroSqueezeEnv, AllegroSqueezeTask, AllegroSqueezeVectorEnv
from .fetch_beam_insert import FetchBeamInsertEnv, FetchBeamInsertTask, FetchBeamInsertVectorEnv
from .fetch_tomato import FetchTomatoEnv, FetchTomatoTask, FetchTomatoVectorEnv
from .humanoid import HumanoidEnv, HumanoidTask, HumanoidVectorEnv
from .flagrun import (
    HumanoidFlagrunEnv,
    HumanoidFlagrunHarderEnv,
    HumanoidFlagrunHarderTask,
    HumanoidFlagrunHarderVectorEnv,
    HumanoidFlagrunTask,
    HumanoidFlagrunVectorEnv,
)
from .manta_swim import MantaSwimEnv, MantaSwimTask, MantaSwimVectorEnv
from .inverted_pendulum import InvertedPendulumEnv, InvertedPendulumTask, InvertedPendulumVectorEnv
from .pneunet_grasp import PneuNetGraspEnv, PneuNetGraspTask, PneuNetGraspVectorEnv
from .shadow_hand_block import ShadowHandBlockEnv, ShadowHandBlockTask, ShadowHandBlockVectorEnv
from .yumi_drawer import YuMiDrawerEnv, YuMiDrawerTask, YuMiDrawerVectorEnv

__all__ = [
    "AllegroGraspEnv", "AllegroGraspTask", "AllegroGraspVectorEnv",
    "AllegroSqueezeEnv", "AllegroSqueezeTask", "AllegroSqueezeVectorEnv",
    "FetchBeamInsertEnv", "FetchBeamInsertTask", "FetchBeamInsertVectorEnv",
    "FetchTomatoEnv", "FetchTomatoTask", "FetchTomatoVectorEnv",
    "HumanoidEnv", "HumanoidTask", "HumanoidVectorEnv",
    "HumanoidFlagrunEnv", "HumanoidFlagrunTask", "HumanoidFlagrunVectorEnv",
    "HumanoidFlagrunHarderEnv", "HumanoidFlagrunHarderTask", "HumanoidFlagrunHarderVectorEnv",
    "InvertedPendulumEnv", "InvertedPendulumTask", "InvertedPendulumVectorEnv",
    "MantaSwimEnv", "MantaSwimTask", "MantaSwimVectorEnv",
    "PneuNetGraspEnv", "PneuNetGraspTask", "PneuNetGraspVectorEnv",
    "ShadowHandBlockEnv", "ShadowHandBlockTask", "ShadowHandBlockVectorEnv",
    "YuMiDrawerEnv", "YuMiDrawerTask", "YuMiDrawerVectorEnv",
    "register_all", "TASK_IDS", "task_class", "evaluation_kwargs",
]

# id -> (module, class prefix, max_episode_steps)
_TASKS = {
    "ncpgym/Humanoid-v0": ("humanoid", "Humanoid", 1000),
    "ncpgym/HumanoidFlagrun-v0": ("flagrun", "HumanoidFlagrun", 1000),
    "ncpgym/HumanoidFlagrunHarder-v0": ("flagrun", "HumanoidFlagrunHarder", 1000),
    "ncpgym/InvertedPendulum-v0": ("inverted_pendulum", "InvertedPendulum", 1000),
    "ncpgym/PneuNetGrasp-v0": ("pneunet_grasp", "PneuNetGrasp", 200),
    "ncpgym/YuMiDrawer-v0": ("yumi_drawer", "YuMiDrawer", 500),
    "ncpgym/AllegroSqueeze-v0": ("allegro_squeeze", "AllegroSqueeze", 90),
    "ncpgym/AllegroGrasp-v0": ("allegro_grasp", "AllegroGrasp", 180),
    "ncpgym/FetchTomato-v0": ("fetch_tomato", "FetchTomato", 300),
    "ncpgym/FetchBeamInsert-v0": ("fetch_beam_insert", "FetchBeamInsert", 150),
    "ncpgym/MantaSwim-v0": ("manta_swim", "MantaSwim", 200),
    "ncpgym/ShadowHandBlock-v0": ("shadow_hand_block", "ShadowHandBlock", 100),
}
TASK_IDS = tuple(_TASKS)


def register_all() -> None:
    for id_, (module, prefix, steps) in _TASKS.items():
        if id_ in gym.registry:
            continue
        gym.register(
            id=id_,
            entry_point=f"ncpgym.tasks.{module}:{prefix}Env",
            vector_entry_point=f"ncpgym.tasks.{module}:{prefix}VectorEnv",
            max_episode_steps=steps,
        )


def task_class(env_id: str) -> type:
    """The Task class behind a registered ncpgym id (KeyError for other ids)."""
    module, prefix, _ = _TASKS[env_id]
    return getattr(importlib.import_module(f"ncpgym.tasks.{module}"), f"{prefix}Task")


def evaluation_kwargs(env_id: str, kwargs: dict) -> dict:
    """``kwargs`` without the task's training aids (``Task.training_aids``: options that
    only change the training episodes: their start, goals or gravity), for judging a policy on the task as
    defined. Ids that are not ncpgym's keep every keyword."""
    aids = task_class(env_id).training_aids if env_id in _TASKS else ()
    return {k: v for k, v in kwargs.items() if k not in aids}
