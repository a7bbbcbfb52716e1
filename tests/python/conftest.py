"""Shared fixtures: paths of third-party model files (models ncpgym did not write)."""

import importlib.metadata as md
import importlib.util
import os
from pathlib import Path

import pytest


def gym_asset(name: str) -> Path:
    spec = importlib.util.find_spec("gymnasium.envs.mujoco")
    return Path(spec.submodule_search_locations[0]) / "assets" / name


def erd_robots() -> Path:
    return Path(str(md.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots")))


def robotics_asset(rel: str) -> Path:
    spec = importlib.util.find_spec("gymnasium_robotics")
    return Path(spec.submodule_search_locations[0]) / "envs" / "assets" / rel


URDFS = {
    "allegro": lambda: erd_robots() / "allegro_hand_description/urdf/allegro_right_hand.urdf",
    "panda": lambda: erd_robots() / "panda_description/urdf/panda.urdf",
    "talos": lambda: erd_robots() / "talos_data/robots/talos_reduced.urdf",
}
MJCFS = {
    "humanoid": lambda: gym_asset("humanoid.xml"),
    "ant": lambda: gym_asset("ant.xml"),
    "fetch": lambda: robotics_asset("fetch/pick_and_place.xml"),
}


@pytest.fixture(scope="session")
def model_paths():
    paths = {k: f() for k, f in {**URDFS, **MJCFS}.items()}
    for k, p in paths.items():
        assert p.is_file(), f"test asset {k} missing at {p}"
    return paths
