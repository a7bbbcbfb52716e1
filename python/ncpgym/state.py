"""Saving and restoring worlds: everything a world needs to continue bitwise identically
(positions, velocities, particles, controls, activations, per-world parameters, mocap
poses, equality switches, the random stream's position and, for ``warm_start=True``, the
last step's contact impulses), for a whole
:class:`ncpgym.Batch`, and with the task's and the episode clocks' state for an ncpgym
vector env (``envs.get_state()`` / ``envs.set_state(state)``). States are dicts of NumPy
arrays: they pickle, and ``copy.deepcopy`` copies them. Environments pickle by how they
were made plus their state (``pickle.dumps(envs)``), so a pickled env continues where it
was."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from . import _core

__all__ = ["batch_state", "restore_batch", "simulator_state", "restore_simulator", "task_state", "restore_task"]

# fields added after states were first saved: a state without them keeps the batch's own
# (zero forces, the model's medium)
_ADDED_LATER = ("particle_force", "medium", "actuator_act")


def _no_warm_start(obj):
    """A state saved before the warm start was kept has no rows: the worlds start from
    lambda = 0 (the row width is the binding's, kWarmColumns)."""
    return obj.warm_start_state[:0]


# the writable per-world arrays of a Batch, by name
BATCH_FIELDS = ("q", "u", "ctrl", "x", "v", "activation", "actuator_act", "particle_force", "mocap_pos", "mocap_quat", "eq_active",
                "friction_scale", "mass_scale", "stiffness_scale", "gravity", "medium", "status")


def _saved_fields(obj, state, names, who):
    """(name, the object's array, the saved array) for each field of ``names`` the state
    has (fields added later may be missing), checking the shapes."""
    for k in names:
        if k not in state and k in _ADDED_LATER:
            continue
        dst = getattr(obj, k)
        src = np.asarray(state[k])
        if src.shape != dst.shape:
            raise ValueError(f"state['{k}']: shape {src.shape}, the {who} has {dst.shape}")
        yield k, dst, src


def batch_state(batch: _core.Batch) -> dict[str, np.ndarray]:
    """Copies of the batch's per-world arrays and random streams."""
    state = {k: np.array(getattr(batch, k), copy=True) for k in BATCH_FIELDS}
    state["rng_state"] = batch.rng_state
    state["warm_start"] = batch.warm_start_state  # the last impulses (option warm_start)
    state["num_worlds"] = np.array(batch.num_worlds)
    return state


def restore_batch(batch: _core.Batch, state: dict[str, np.ndarray]) -> None:
    """Write a :func:`batch_state` back (same model and world count) and recompute the
    derived quantities (poses, contacts' summaries are those of a forward pass)."""
    if int(state.get("num_worlds", -1)) != batch.num_worlds:
        raise ValueError(f"state of {int(state.get('num_worlds', -1))} worlds, batch of {batch.num_worlds}")
    for _, dst, src in _saved_fields(batch, state, BATCH_FIELDS, "batch"):
        dst[...] = src
    batch.rng_state = state["rng_state"]
    batch.warm_start_state = state["warm_start"] if "warm_start" in state else _no_warm_start(batch)
    batch.forward()


# the writable arrays of a Simulator (its one world), by name
SIMULATOR_FIELDS = ("q", "u", "ctrl", "x", "v", "activation", "actuator_act", "particle_force", "mocap_pos", "mocap_quat", "eq_active")


def simulator_state(sim: _core.Simulator) -> dict[str, np.ndarray]:
    """Copies of everything a Simulator's world needs to continue bitwise identically,
    with the last step's contact impulses that ``warm_start=True`` starts from."""
    state = {k: np.array(getattr(sim, k), copy=True) for k in SIMULATOR_FIELDS}
    state["warm_start"] = sim.warm_start_state
    return state


def restore_simulator(sim: _core.Simulator, state: dict[str, np.ndarray]) -> None:
    """Write a :func:`simulator_state` back (same model)."""
    for k, dst, src in _saved_fields(sim, state, SIMULATOR_FIELDS, "simulator"):
        if k in ("q", "u", "mocap_pos", "mocap_quat", "eq_active"):
            setattr(sim, k, src.copy())  # properties with setters (checked on assignment)
        else:
            dst[...] = src
    sim.warm_start_state = state["warm_start"] if "warm_start" in state else _no_warm_start(sim)


def task_state(task) -> dict[str, Any]:
    """The task's per-world bookkeeping: copies of its NumPy arrays and plain numbers, and
    the state of the parts that keep their own (objects with ``get_state``/``set_state``,
    such as a curriculum's failure rates, under their attribute's name; a task keeping
    other state overrides ``Task.get_state``)."""
    keep = (np.ndarray, np.generic, int, float, bool)
    out = {}
    for k, v in vars(task).items():
        if isinstance(v, keep):
            out[k] = copy.deepcopy(v)
        elif callable(getattr(v, "get_state", None)) and callable(getattr(v, "set_state", None)):
            out[k] = v.get_state()
    return out


def restore_task(task, state: dict[str, Any]) -> None:
    """Restore a task's arrays and numbers, and its parts' state, from task_state()'s dict."""
    for k, v in state.items():
        part = getattr(task, k, None)
        if isinstance(v, dict) and callable(getattr(part, "set_state", None)):
            part.set_state(v)
        else:
            setattr(task, k, copy.deepcopy(v))
