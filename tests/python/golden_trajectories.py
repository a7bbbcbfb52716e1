"""Reference trajectories that pin the solver's arithmetic across restructurings.

Each scene runs a fixed number of steps from a fixed start and keeps the final state
(q, u, particle positions and velocities). `test_golden_trajectories.py` asserts that the
current build reproduces them bitwise: a refactoring that changes no physics must not
change a single bit. A change that is meant to alter the arithmetic (a new default, a
different summation order) regenerates them on purpose, and says so in its commit:

    python tests/python/golden_trajectories.py --write

The references come from the build that was current when they were written (same
compiler and flags as CI: portable, no -march=native); they are regression pins, not
physics truth. The physics is checked against independent references elsewhere.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np

import ncpgym
from ncpgym import scenes

DATA = Path(__file__).with_name("data")
# the first reference (OpenBLAS's Haswell kernels); others are named after their environment
REFERENCE = DATA / "golden_trajectories.npz"


def _humanoid_path() -> Path:
    spec = importlib.util.find_spec("gymnasium.envs.mujoco")
    return Path(spec.submodule_search_locations[0]) / "assets" / "humanoid.xml"


def _final(sim) -> dict[str, np.ndarray]:
    return {"q": np.array(sim.q), "u": np.array(sim.u), "x": np.array(sim.x).ravel(),
            "v": np.array(sim.v).ravel()}


def humanoid(steps=2000):
    """Gymnasium's humanoid, random torques (seed 0), h = 1/120: contacts, limits, trees."""
    m = ncpgym.load_model(_humanoid_path())
    sim = ncpgym.Simulator(m, timestep=1 / 120)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        sim.step(ctrl=rng.uniform(-0.4, 0.4, m.nu))
    return _final(sim)


def heavy_stack(steps=600):
    m, q0 = scenes.heavy_stack((8, 64, 512, 4096, 32768), half=0.2)
    sim = ncpgym.Simulator(m)
    sim.q[:] = q0
    sim.step(nsteps=steps)
    return _final(sim)


def arch(steps=500):
    m, q0 = scenes.arch(timestep=1 / 120, masses=(15.0, 110.0))
    sim = ncpgym.Simulator(m)
    sim.q[:] = q0
    sim.step(nsteps=steps)
    return _final(sim)


def grasp(steps=300):
    """The PneuNet gripper (primal soft KKT path): close for 0.6 s, then lift."""
    from ncpgym.envs.pneunet import build_gripper
    from ncpgym.tasks import PneuNetGraspTask

    m, _ = build_gripper()
    sim = ncpgym.Simulator(m, **PneuNetGraspTask.solver_options)
    for k in range(steps):
        sim.activation[:] = 0.25 * min(1.0, k / 30)
        ctrl = np.zeros(m.nu)
        ctrl[:] = 0.05 * max(0, k - 30) * sim.timestep
        sim.step(ctrl=ctrl)
    return _final(sim)


def springs_as_rows(steps=200):
    """Stiff chain with its joint springs as compliant Newton rows (implicit_springs=False),
    on the matrix-free PCR path."""
    m = scenes.stiff_chain(n=80)
    sim = ncpgym.Simulator(m, implicit_springs=False, dense_max_rows=8)
    sim.step(nsteps=steps)
    return _final(sim)


def particle_chain(steps=200):
    """Particles with compliant distance rows and an attachment, geometric stiffness on."""
    m = scenes.hanging_chain(n=40)
    sim = ncpgym.Simulator(m)
    sim.v[:, 0] = 1.0
    sim.step(nsteps=steps)
    return _final(sim)


def soft_dual(steps=20):
    """A linear finger under activation through the seed's dual form (sparse LDL^T)."""
    from ncpgym.envs.pneunet import add_finger

    b = ncpgym.Builder()
    b.set_timestep(1 / 30)
    add_finger(b, n=(6, 2, 2))
    sim = ncpgym.Simulator(b.build(), soft_solver="dual", linear="sparse_ldlt")
    for k in range(steps):
        sim.activation[:] = 0.1 * min(1.0, k / 10)
        sim.step()
    return _final(sim)


def soft_neohookean(steps=40):
    """A Neo-Hookean finger sagging under gravity (primal path, rows re-evaluated)."""
    from ncpgym.envs.pneunet import add_finger

    b = ncpgym.Builder()
    b.set_timestep(1 / 60)
    add_finger(b, n=(6, 2, 2), model="neohookean")
    sim = ncpgym.Simulator(b.build())
    sim.step(nsteps=steps)
    return _final(sim)


SCENES = {f.__name__: f for f in (humanoid, heavy_stack, arch, grasp, springs_as_rows,
                                  particle_chain, soft_dual, soft_neohookean)}


def openblas_core() -> str:
    """The kernel set NumPy's OpenBLAS chose for this CPU ('Haswell', 'SkylakeX', ...):
    matrix products in the scenes' set-up (meshes, poses) round differently per set."""
    import ctypes

    try:
        libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line.lower()})
    except OSError:
        return "unknown"
    for path in libs:
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return "unknown"


def environment() -> str:
    """What the references depend on besides ncpgym's code: the initial states come from
    NumPy (scene geometry, meshes; its OpenBLAS kernels) and MuJoCo's compiler, and the
    IIM kernels have AVX2 clones chosen at run time."""
    import mujoco

    np.ones((2, 2)) @ np.ones((2, 2))  # OpenBLAS loaded
    try:
        flags = Path("/proc/cpuinfo").read_text().split("flags")[1].split("\n")[0].split()
    except (OSError, IndexError):
        flags = []
    env = f"numpy {np.__version__}, mujoco {mujoco.__version__}, avx2 {'avx2' in flags}"
    core = openblas_core()
    return env if core == "Haswell" else f"{env}, openblas {core}"  # (the first reference's: Haswell)


def reference_for(env: str) -> Path:
    """The reference file of an environment (REFERENCE for the first one)."""
    import hashlib

    with np.load(REFERENCE) as f:
        if str(f["environment"]) == env:
            return REFERENCE
    return DATA / f"golden_trajectories_{hashlib.sha1(env.encode()).hexdigest()[:10]}.npz"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true",
                   help="(re)write the reference of this environment (NumPy, MuJoCo, CPU, OpenBLAS kernels)")
    args = p.parse_args(argv)
    out = {}
    for name, fn in SCENES.items():
        for key, val in fn().items():
            out[f"{name}/{key}"] = val
        print(name, "done")
    if args.write:
        env = environment()
        path = reference_for(env)
        DATA.mkdir(exist_ok=True)
        np.savez_compressed(path, environment=np.array(env), **out)
        print("wrote", path, "for", env)


if __name__ == "__main__":
    main()
