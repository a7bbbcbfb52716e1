"""Reference trajectories that pin the solver's arithmetic across restructurings.

Each scene runs a fixed number of steps from a fixed start and keeps the final state
(q, u, particle positions and velocities). `test_golden_trajectories.py` asserts that the
current build reproduces them bitwise: a refactoring that changes no physics must not
change a single bit. A change that is meant to alter the arithmetic (a new default, a
different summation order, a new Model format) regenerates them on purpose, and says so in
its commit:

    python tests/python/golden_trajectories.py --write

A reference stores what each scene's set-up computed -- the Model's bytes, the solver
options, the initial state and every step's inputs (controls, activations) -- next to the
final state, so replaying it needs neither MuJoCo's compiler nor NumPy's geometry: it depends
on the C++ build only (compiler, the kernels the run-time dispatch picks, the C library's
math, Eigen: ``ncpgym._core.build_info()``), and a new NumPy or MuJoCo leaves it valid.
One file per build, ``data/golden_<hash of the build>.npz``. They are regression pins, not
physics truth; the physics is checked against independent references elsewhere.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import ncpgym
from ncpgym import scenes

DATA = Path(__file__).with_name("data")
WRITE = "python tests/python/golden_trajectories.py --write"


@dataclass
class Scene:
    """What a scene's set-up computed: replay() needs nothing else."""

    model: ncpgym.Model
    options: dict
    steps: int
    state: dict[str, np.ndarray] = field(default_factory=dict)   # q, u, x, v changed from the model's
    inputs: dict[str, np.ndarray] = field(default_factory=dict)  # per step: ctrl [steps, nu], activation [steps, k]


def replay(scene: Scene) -> dict[str, np.ndarray]:
    sim = ncpgym.Simulator(scene.model, **scene.options)
    for key, val in scene.state.items():
        getattr(sim, key)[:] = val
    for k in range(scene.steps):
        if "activation" in scene.inputs:
            sim.activation[:] = scene.inputs["activation"][k]
        if "ctrl" in scene.inputs:
            sim.step(ctrl=scene.inputs["ctrl"][k])
        else:
            sim.step()
    return {"q": np.array(sim.q), "u": np.array(sim.u), "x": np.array(sim.x).ravel(), "v": np.array(sim.v).ravel()}


def _humanoid_path() -> Path:
    spec = importlib.util.find_spec("gymnasium.envs.mujoco")
    return Path(spec.submodule_search_locations[0]) / "assets" / "humanoid.xml"


def humanoid(steps=2000):
    """Gymnasium's humanoid, random torques (seed 0), h = 1/120: contacts, limits, trees."""
    m = ncpgym.load_model(_humanoid_path())
    ctrl = np.random.default_rng(0).uniform(-0.4, 0.4, (steps, m.nu))
    return Scene(m, {"timestep": 1 / 120}, steps, inputs={"ctrl": ctrl})


def heavy_stack(steps=600):
    m, q0 = scenes.heavy_stack((8, 64, 512, 4096, 32768), half=0.2)
    return Scene(m, {}, steps, state={"q": q0})


def arch(steps=500):
    m, q0 = scenes.arch(timestep=1 / 120, masses=(15.0, 110.0))
    return Scene(m, {}, steps, state={"q": q0})


def grasp(steps=300):
    """The PneuNet gripper (primal soft KKT path): close for 0.6 s, then lift."""
    from ncpgym.envs.pneunet import build_gripper
    from ncpgym.tasks import PneuNetGraspTask

    m, _ = build_gripper()
    h = ncpgym.Simulator(m, **PneuNetGraspTask.solver_options).timestep
    k = np.arange(steps)
    activation = np.repeat((0.25 * np.minimum(1.0, k / 30))[:, None], m.nactgroup, axis=1)
    ctrl = np.repeat((0.05 * np.maximum(0, k - 30) * h)[:, None], m.nu, axis=1)
    return Scene(m, dict(PneuNetGraspTask.solver_options), steps, inputs={"activation": activation, "ctrl": ctrl})


def springs_as_rows(steps=200):
    """Stiff chain with its joint springs as compliant Newton rows (implicit_springs=False),
    on the matrix-free PCR path."""
    return Scene(scenes.stiff_chain(n=80), {"implicit_springs": False, "dense_max_rows": 8}, steps)


def particle_chain(steps=200):
    """Particles with compliant distance rows and an attachment, geometric stiffness on."""
    m = scenes.hanging_chain(n=40)
    v = np.zeros((m.nparticle, 3))
    v[:, 0] = 1.0
    return Scene(m, {}, steps, state={"v": v})


def _finger(timestep, **kw):
    from ncpgym.envs.pneunet import add_finger

    b = ncpgym.Builder()
    b.set_timestep(timestep)
    add_finger(b, n=(6, 2, 2), **kw)
    return b.build()


def soft_dual(steps=20):
    """A linear finger under activation through the seed's dual form (sparse LDL^T)."""
    m = _finger(1 / 30)
    activation = np.repeat((0.1 * np.minimum(1.0, np.arange(steps) / 10))[:, None], m.nactgroup, axis=1)
    return Scene(m, {"soft_solver": "dual", "linear": "sparse_ldlt"}, steps, inputs={"activation": activation})


def soft_neohookean(steps=40):
    """A Neo-Hookean finger sagging under gravity (primal path, rows re-evaluated)."""
    return Scene(_finger(1 / 60, model="neohookean"), {}, steps)


SCENES = {f.__name__: f for f in (humanoid, heavy_stack, arch, grasp, springs_as_rows,
                                  particle_chain, soft_dual, soft_neohookean)}


def build() -> str:
    """The build's identity (ncpgym._core.build_info()): what the references depend on."""
    info = ncpgym._core.build_info()
    return ", ".join(f"{k} {info[k]}" for k in sorted(info))


def reference_path(build_id: str) -> Path:
    return DATA / f"golden_{hashlib.sha1(build_id.encode()).hexdigest()[:10]}.npz"


def save(path: Path, build_id: str) -> None:
    out = {"build": np.array(build_id)}
    for name, setup in SCENES.items():
        scene = setup()
        out[f"{name}/model"] = np.frombuffer(scene.model.to_bytes(), np.uint8)
        out[f"{name}/options"] = np.array(json.dumps(scene.options))
        out[f"{name}/steps"] = np.array(scene.steps)
        for key, val in scene.state.items():
            out[f"{name}/state/{key}"] = np.asarray(val, float)
        for key, val in scene.inputs.items():
            out[f"{name}/inputs/{key}"] = np.asarray(val, float)
        for key, val in replay(scene).items():
            out[f"{name}/final/{key}"] = val
        print(name, "done", flush=True)
    DATA.mkdir(exist_ok=True)
    np.savez_compressed(path, **out)


def load(path: Path) -> dict[str, tuple[Scene, dict[str, np.ndarray]]]:
    """Every scene of a reference file: (its set-up, its final state)."""
    with np.load(path) as f:
        data = {k: f[k] for k in f.files}
    out = {}
    for name in SCENES:
        part = lambda kind: {k.split("/")[-1]: v for k, v in data.items() if k.startswith(f"{name}/{kind}/")}  # noqa: E731
        scene = Scene(ncpgym.Model.from_bytes(data[f"{name}/model"].tobytes()), json.loads(str(data[f"{name}/options"])),
                      int(data[f"{name}/steps"]), part("state"), part("inputs"))
        out[name] = (scene, part("final"))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="(re)write the reference of this build")
    args = p.parse_args(argv)
    build_id = build()
    if args.write:
        path = reference_path(build_id)
        save(path, build_id)
        print("wrote", path, "for", build_id)
    else:
        for name, setup in SCENES.items():
            replay(setup())
            print(name, "ran")


if __name__ == "__main__":
    main()
